//! In-function instructions: DebugFunctionDefinition, DebugScope, DebugLine/OpLine,
//! DebugDeclare/DebugValue, each inserted before the normal-form instruction it is anchored at
//! (moved past OpPhi/OpVariable, never between a merge and its branch).

use crate::spec::spirv_names::{instruction, operand};
use rspirv::spirv::Op;

use crate::spirv::binary::insn;
use crate::spirv::grammar::is_terminator;
use std::collections::BTreeMap;

use super::encode::V;
use super::ledger::{holds, Feature};
use super::scopes::fit;
use super::writer::Writer;
use crate::diag::{Counted, LossKind};
use crate::ir::{CodePos, Event, EventKind, Handle, InlinedAt, Loc, Ref, Scope, Value};

/// Instructions to insert, by the index of the normal-form instruction they precede: their words
/// in one buffer and a list of parts (index, layer, start and length in `words`). At one index
/// the parts go by layer (closers, then event groups, then the rest), each layer in the order it
/// was pushed.
#[derive(Default)]
pub struct Inserts {
    words: Vec<u32>,
    parts: Vec<Part>,
}

/// 16 bytes (a `(usize, u8, Range<usize>)` took 32): hundreds of thousands of them in a large
/// module. Indexes and word positions are below 2^32: the module and the words are indexed by
/// u32 word offsets.
#[derive(Clone, Copy)]
pub struct Part {
    at: u32,
    layer: u8,
    start: u32,
    len: u32,
}

/// Layers of the parts at one index.
const CLOSERS: u8 = 0;
const GROUPS: u8 = 1;
const REST: u8 = 2;

impl Inserts {
    /// Room for about `parts` parts of `words` words (a guess: each table grows past it).
    fn with_capacity(parts: usize, words: usize) -> Self {
        Inserts {
            words: Vec::with_capacity(words),
            parts: Vec::with_capacity(parts),
        }
    }

    fn push(&mut self, i: usize, layer: u8, words: &[u32]) {
        if words.is_empty() {
            return;
        }
        let start = self.words.len();
        self.words.extend_from_slice(words);
        self.parts.push(Part {
            at: i as u32,
            layer,
            start: start as u32,
            len: words.len() as u32,
        });
    }

    /// The words, and the parts in emission order (sorted in place).
    pub fn into_sorted(mut self) -> (Vec<u32>, Vec<Part>) {
        // Stable: parts of one index and layer keep their push order.
        self.parts.sort_by_key(|p| (p.at, p.layer));
        (self.words, self.parts)
    }
}

impl Part {
    /// The index of the normal-form instruction the part goes before.
    pub fn at(&self) -> usize {
        self.at as usize
    }
    /// Its range in the words.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Counts of code-anchored records that found no place, for one summary loss per kind.
#[derive(Default)]
struct Lost {
    lines: usize,
    scopes: usize,
    events: usize,
    /// Rows and runs that cover only instructions nothing can be anchored before (OpLabel,
    /// OpPhi, OpVariable): placed after them, they would cover nothing.
    empty_lines: usize,
    empty_scopes: usize,
    /// Records anchored somewhere else than their position (see `moved`).
    moved_lines: usize,
    moved_scopes: usize,
    moved_events: usize,
}

pub fn write(w: &mut Writer, standalone: bool) -> Inserts {
    // About a part per run, row and event group, of an OpLine's 4 words to a DebugLine's 11
    // (`--into` of the 10 MB bench bitcode: 0.41 M parts of 5.4 words in OpenCL.100, 10.7 in
    // NonSemantic): reserved rather than grown by copying into fresh pages.
    let parts = w.m.scope_runs.len() + w.m.lines.len() + w.m.events.len();
    let per_part = if w.e.flavour.non_semantic() { 11 } else { 6 };
    let mut out = Inserts::with_capacity(parts, parts * per_part);
    let mut lost = Lost::default();
    let trusted = trusted_funcs(w);
    definitions(w, &mut out);
    // Events first: a run or row that starts where an event group leaves the same scope or line
    // in force is not said again.
    let cx = Context::new(w.m);
    let mut groups: BTreeMap<usize, Group> = BTreeMap::new();
    for ev in &w.m.events {
        match event(w, &trusted, ev) {
            Some((i, words)) => {
                lost.moved_events += usize::from(moved(w, ev.pos, i));
                let g = groups.entry(i).or_default();
                g.context(w, &cx, ev, i);
                g.words.extend(words);
            }
            None => lost.events += 1,
        }
    }
    // Events go before the scope runs and line rows that start at their anchor, each after the
    // scope and line it was recorded under (glslang declares parameters under line 0).
    let mut said = Said::default();
    for (i, g) in groups {
        let (words, scope, line) = g.finish(w);
        out.push(i, GROUPS, &words);
        if let Some(scope) = scope {
            said.scope.insert(i, scope);
        }
        if let Some(line) = line {
            said.line.insert(i, line);
        }
    }
    for run in &w.m.scope_runs {
        let Some(i) = place(w, &trusted, run.range.start) else {
            lost.scopes += 1;
            continue;
        };
        if covers_nothing(w, &trusted, run.range, i) {
            lost.empty_scopes += 1;
            continue;
        }
        lost.moved_scopes += usize::from(moved(w, run.range.start, i));
        let sc = w.id(run.scope);
        let inl = run
            .inlined
            .map_or(V::Absent, |h| V::Id(w.id(Ref::Inlined(h))));
        let here = (run.scope, run.inlined);
        for at in std::iter::once(i).chain(later_blocks(w, run.range)) {
            if said.scope.get(&at) == Some(&here) {
                continue;
            }
            if let Some((_, words)) = w.e.ext_words(
                instruction::DEBUG_SCOPE,
                &[
                    (operand::SCOPE, V::Id(sc)),
                    (operand::INLINED_AT, inl.clone()),
                ],
            ) {
                out.push(at, REST, &words);
            }
        }
    }
    lines(w, &trusted, &mut out, &mut lost, &said);
    coarse(w, &mut out);
    // A run or row that ends where nothing starts and no block ends is closed there
    // (DebugNoScope, OpNoLine/DebugNoLine), before anything else at that anchor.
    closers(w, &cx, &trusted, &mut out);
    report(w, &lost, standalone);
    out
}

/// The scope and line the event group at an anchor said last (what it leaves in force there):
/// a run or row starting there with the same is not said again.
#[derive(Default)]
struct Said {
    scope: rustc_hash::FxHashMap<usize, InScope>,
    line: rustc_hash::FxHashMap<usize, Loc>,
}

/// The insertion points of the blocks a run or row reaches past its first one: a DebugScope
/// and a line end with their block, so such a record is said again at each of them.
fn later_blocks(w: &Writer, range: crate::ir::CodeRange) -> Vec<usize> {
    let (Some(a), Some(b)) = (spirv_pos(range.start), spirv_pos(range.end)) else {
        return Vec::new();
    };
    let Some(first) = w.code.index_at(a) else {
        return Vec::new();
    };
    w.code.insns[first + 1..]
        .iter()
        .take_while(|(o, _)| *o < b)
        .filter(|(_, opcode)| *opcode == Some(Op::Label))
        .filter_map(|(o, _)| w.code.insertion(*o))
        .collect()
}

fn closers(w: &mut Writer, cx: &Context, trusted: &[bool], out: &mut Inserts) {
    let scope_ends: Vec<u32> = cx.runs.ends().collect();
    let row_ends: Vec<u32> = cx.rows.ends().collect();
    for (ends, scope) in [(scope_ends, true), (row_ends, false)] {
        for end in ends {
            let starts = if scope {
                cx.runs.starts(end)
            } else {
                cx.rows.starts(end)
            };
            if starts || !mid_block(w, end) {
                continue;
            }
            let Some(i) = place(w, trusted, CodePos::Spirv(end)) else {
                continue;
            };
            let words = if scope { no_scope(w) } else { no_line(w) };
            out.push(i, CLOSERS, &words);
        }
    }
}

/// Whether `pos` is an instruction that follows no block terminator (the reader closes runs and
/// rows at a terminator by itself).
fn mid_block(w: &Writer, pos: u32) -> bool {
    let Some(i) = w.code.index_at(pos) else {
        return false;
    };
    i > 0 && !w.code.insns[i - 1].1.is_some_and(is_terminator)
}

fn spirv_pos(p: CodePos) -> Option<u32> {
    match p {
        CodePos::Spirv(o) => Some(o),
        CodePos::Addr(_) | CodePos::Llvm(_) => None,
    }
}

/// A scope and its inlined-at, as a DebugScope says them.
type InScope = (Ref, Option<Handle<InlinedAt>>);

/// The scope runs and line rows by start, to tell what is in force at an event.
struct Context {
    runs: ByStart<InScope>,
    rows: ByStart<Loc>,
}

/// Records (start, end, what) sorted by start; of records with one start the last one given
/// stands, as a map's insert leaves it. A sorted vector rather than a BTreeMap: a third of the
/// memory, touched once (`--into` of the 10 MB bench bitcode: the two maps took 8.7 k page
/// faults).
struct ByStart<V>(Vec<(u32, u32, V)>);

impl<V: Copy> ByStart<V> {
    fn new(n: usize, records: impl Iterator<Item = (u32, u32, V)>) -> Self {
        let mut v = Vec::with_capacity(n);
        v.extend(records);
        // Stable: records with one start keep their order, and the last one is kept.
        v.sort_by_key(|r| r.0);
        v.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                *kept = *later;
            }
            same
        });
        ByStart(v)
    }

    /// The record in force just before `pos`'s own instructions (one that started earlier and
    /// ends past it) with its start, and whether one starts at `pos`.
    fn at(&self, pos: u32) -> (Option<(u32, V)>, bool) {
        let i = self.0.partition_point(|r| r.0 < pos);
        let prior = i
            .checked_sub(1)
            .map(|p| self.0[p])
            .filter(|r| r.1 > pos)
            .map(|r| (r.0, r.2));
        (prior, self.starts(pos))
    }

    fn starts(&self, pos: u32) -> bool {
        let i = self.0.partition_point(|r| r.0 < pos);
        self.0.get(i).is_some_and(|r| r.0 == pos)
    }

    fn ends(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().map(|r| r.1)
    }
}

impl Context {
    fn new(m: &crate::ir::Module) -> Self {
        let span = |r: crate::ir::CodeRange| Some((spirv_pos(r.start)?, spirv_pos(r.end)?));
        let runs = (m.scope_runs.iter())
            .filter_map(|r| span(r.range).map(|(a, b)| (a, b, (r.scope, r.inlined))));
        let rows = (m.lines.iter()).filter_map(|r| span(r.range).map(|(a, b)| (a, b, r.at)));
        Context {
            runs: ByStart::new(m.scope_runs.len(), runs),
            rows: ByStart::new(m.lines.len(), rows),
        }
    }

    /// The run in force just before `pos`'s own instructions (one that started earlier) with its
    /// start, and whether one starts at `pos`.
    fn scope(&self, pos: u32) -> (Option<(u32, InScope)>, bool) {
        self.runs.at(pos)
    }

    fn line(&self, pos: u32) -> (Option<(u32, Loc)>, bool) {
        self.rows.at(pos)
    }
}

/// The events at one anchor, with the DebugScope/line instructions that put each under the
/// scope and line it records (llvm-spirv reads an event's location from them). Where that
/// splits a run or row already in force, the group ends by saying that one again, so the code
/// after it keeps its own.
#[derive(Default)]
struct Group {
    words: Vec<u32>,
    pos: u32,
    started: bool,
    scope: Option<Option<InScope>>,
    line: Option<Option<Loc>>,
    /// What was in force before the group (run/row started earlier).
    prior_scope: Option<InScope>,
    prior_line: Option<Loc>,
    set_scope: bool,
    set_line: bool,
    /// The scope and line the last DebugScope and line instruction of `words` said (`None`:
    /// none said, or it ended the scope/line).
    last_scope: Option<InScope>,
    last_line: Option<Loc>,
    /// A run / row is said at the group's anchor after it: one starts at its position, or one
    /// that started earlier was moved there (past OpVariable…), so it is not in force before.
    run_here: bool,
    row_here: bool,
}

fn scope_words(w: &mut Writer, (sc, inl): InScope) -> Vec<u32> {
    let sc = w.id(sc);
    let inl = inl.map_or(V::Absent, |h| V::Id(w.id(Ref::Inlined(h))));
    w.e.ext_words(
        instruction::DEBUG_SCOPE,
        &[(operand::SCOPE, V::Id(sc)), (operand::INLINED_AT, inl)],
    )
    .map_or(Vec::new(), |(_, ws)| ws)
}

impl Group {
    /// Puts event `ev` of the group at insertion index `at` under its scope and line.
    fn context(&mut self, w: &mut Writer, cx: &Context, ev: &Event, at: usize) {
        let Some(pos) = spirv_pos(ev.pos) else { return };
        // A record that started earlier but is said at this same anchor (moved past the
        // instructions nothing can precede) comes after the group: not in force before it.
        let moved_here = |start: u32| w.code.insertion(start) == Some(at);
        let (scope_before, scope_starts) = cx.scope(pos);
        let (line_before, line_starts) = cx.line(pos);
        let scope_moved = scope_before.is_some_and(|(start, _)| moved_here(start));
        let line_moved = line_before.is_some_and(|(start, _)| moved_here(start));
        let prior_scope = scope_before.filter(|_| !scope_moved).map(|(_, v)| v);
        let prior_line = line_before.filter(|_| !line_moved).map(|(_, v)| v);
        if !self.started {
            self.run_here = scope_starts || scope_moved;
            self.row_here = line_starts || line_moved;
            self.started = true;
            self.pos = pos;
            self.scope = Some(prior_scope);
            self.line = Some(prior_line);
            self.prior_scope = prior_scope;
            self.prior_line = prior_line;
        }
        let want_scope = ev.scope.map(|s| (Ref::Scope(s), ev.inlined));
        // Nothing is closed mid-run for an event that records no scope or line.
        if self.scope != Some(want_scope) && (prior_scope.is_none() || want_scope.is_some()) {
            let ws = match want_scope {
                Some(sc) => scope_words(w, sc),
                None => no_scope(w),
            };
            self.words.extend(ws);
            self.last_scope = want_scope;
            self.scope = Some(want_scope);
            self.set_scope = true;
        }
        if self.line != Some(ev.at) && (prior_line.is_none() || ev.at.is_some()) {
            let ws = match ev.at {
                Some(at) => line_words(w, at, None, None),
                None => no_line(w),
            };
            self.words.extend(ws);
            self.last_line = ev.at;
            self.line = Some(ev.at);
            self.set_line = true;
        }
    }

    /// The group's words, closed so that what it set does not run on past the anchor: what was
    /// in force before is said again, or the scope/line is ended, unless a run/row starts there;
    /// and the scope and line they leave in force (see `last_scope`).
    fn finish(mut self, w: &mut Writer) -> (Vec<u32>, Option<InScope>, Option<Loc>) {
        if self.set_scope && !self.run_here && self.scope != Some(self.prior_scope) {
            let ws = match self.prior_scope {
                Some(sc) => scope_words(w, sc),
                None => no_scope(w),
            };
            self.words.extend(ws);
            self.last_scope = self.prior_scope;
        }
        if self.set_line && !self.row_here && self.line != Some(self.prior_line) {
            let ws = match self.prior_line {
                Some(at) => line_words(w, at, None, None),
                None => no_line(w),
            };
            self.words.extend(ws);
            self.last_line = self.prior_line;
        }
        (self.words, self.last_scope, self.last_line)
    }
}

fn no_scope(w: &mut Writer) -> Vec<u32> {
    w.e.ext_words(instruction::DEBUG_NO_SCOPE, &[])
        .map_or(Vec::new(), |(_, ws)| ws)
}

fn no_line(w: &mut Writer) -> Vec<u32> {
    if holds(w.e.flavour, Feature::LineRange) {
        w.e.ext_words(instruction::DEBUG_NO_LINE, &[])
            .map_or(Vec::new(), |(_, ws)| ws)
    } else {
        insn(Op::NoLine, &[])
    }
}

fn report(w: &mut Writer, lost: &Lost, standalone: bool) {
    let unmatched = if standalone {
        "not written: a standalone module has no code to anchor them to"
    } else {
        "not written: their code position or operand is not in a matched function of the target \
         module"
    };
    let empty = "not written: they cover only OpLabel/OpPhi/OpVariable, which no debug \
                 instruction can precede";
    let moved = "anchored at another instruction than their position: no debug instruction can \
                 precede OpLabel, OpPhi, OpVariable or OpFunctionParameter, or sit between a merge \
                 instruction and its branch";
    // Per cause: (lines, scopes, events) counts.
    let causes = [
        (
            LossKind::Unmatched,
            unmatched,
            [lost.lines, lost.scopes, lost.events],
        ),
        (
            LossKind::Dropped,
            empty,
            [lost.empty_lines, lost.empty_scopes, 0],
        ),
        (
            LossKind::Approximated,
            moved,
            [lost.moved_lines, lost.moved_scopes, lost.moved_events],
        ),
    ];
    for (kind, why, counts) in causes {
        let whats = [
            ("line rows", Some(Counted::LineRows)),
            ("scope runs", None),
            ("declare/value events", None),
        ];
        for (n, (what, counted)) in counts.into_iter().zip(whats) {
            if n > 0 {
                let loss = w.ledger.push(kind, "module", format!("{n} {what} {why}"));
                // Moved rows are written, elsewhere.
                if let (Some(counted), false) = (counted, kind == LossKind::Approximated) {
                    loss.leaves_out(counted, n);
                }
            }
        }
    }
    if standalone {
        // What functions and globals are bound to (an LLVM value, a symbol, another module's
        // id) is code too.
        let functions = w.m.scopes.values();
        let functions = functions.filter(|s| s.function().is_some_and(|f| f.binding.is_some()));
        let globals = w.m.vars.values().filter(|v| v.binding.is_some());
        let (nf, ng) = (functions.count(), globals.count());
        if nf + ng > 0 {
            // A function cut from its code is not one a debugger can stop in.
            w.ledger
                .push(
                    LossKind::Unmatched,
                    "module",
                    format!("{nf} function and {ng} variable binding(s) {unmatched}"),
                )
                .leaves_out(Counted::Functions, nf);
        }
    }
}

/// Whether a record at `pos` placed at insertion index `i` lands elsewhere: after the OpLabel,
/// OpPhi, OpVariable or OpFunctionParameter it was anchored at, or before the merge instruction of
/// the branch it was anchored at.
fn moved(w: &Writer, pos: CodePos, i: usize) -> bool {
    spirv_pos(pos).and_then(|p| w.code.index_at(p)) != Some(i)
}

/// Whether a run or row placed at insertion index `i` would cover nothing: its end has the same
/// insertion index (everything in between is OpLabel, OpPhi or OpVariable).
fn covers_nothing(w: &Writer, trusted: &[bool], range: crate::ir::CodeRange, i: usize) -> bool {
    place(w, trusted, range.end) == Some(i)
}

/// Per base function: whether some IR function matched to it has trusted code positions (all of
/// them, when the IR's code is this module's).
fn trusted_funcs(w: &Writer) -> Vec<bool> {
    let mut trusted = vec![w.code.own_code; w.code.funcs.len()];
    for f in w.code.matched.values() {
        if f.trusted {
            if let Some(slot) = trusted.get_mut(f.func) {
                *slot = true;
            }
        }
    }
    trusted
}

/// The insertion index of a position, if it lies in a function whose positions are trusted
/// (`trusted`: from [`trusted_funcs`]).
fn place(w: &Writer, trusted: &[bool], pos: CodePos) -> Option<usize> {
    let CodePos::Spirv(p) = pos else { return None };
    let (f, i) = w.code.placement(p)?;
    if !trusted.get(f).copied().unwrap_or(false) {
        return None;
    }
    i
}

/// The index of the OpFunction at `pos`, if it is a function whose positions are trusted
/// (`trusted`: from [`trusted_funcs`]; every function when the IR's code is this module's, as
/// for an OpLine-only module, which has no DebugFunction to match).
fn before_function(w: &Writer, trusted: &[bool], pos: CodePos) -> Option<usize> {
    let CodePos::Spirv(p) = pos else { return None };
    let i = w.code.index_at(p)?;
    let f = w.code.funcs.iter().position(|f| f.first == i)?;
    trusted.get(f).copied().unwrap_or(false).then_some(i)
}

/// DebugFunctionDefinition (NonSemantic) in the entry block of every matched function.
fn definitions(w: &mut Writer, out: &mut Inserts) {
    if !w.e.flavour.non_semantic() {
        return;
    }
    let mut matched: Vec<(Handle<Scope>, usize)> =
        w.code.matched.iter().map(|(h, f)| (*h, f.func)).collect();
    matched.sort();
    for (h, f) in matched {
        let Some(i) = w.code.entry(f) else { continue };
        let dbg = w.id(Ref::Scope(h));
        let def = w.code.funcs[f].id;
        let args = [
            (operand::FUNCTION, V::Id(dbg)),
            (operand::DEFINITION, V::Id(def)),
        ];
        if let Some((_, words)) = w.e.ext_words(instruction::DEBUG_FUNCTION_DEFINITION, &args) {
            out.push(i, REST, &words);
        }
    }
}

/// Functions matched by name only: their own positions do not apply, so each block that makes
/// a call gets the function's scope and line (consumers such as llvm-spirv-14 want a location on
/// every call; LLVM's verifier, on every inlinable call in a function with debug info). Blocks
/// without a call get none: a location the IR does not give would read back as one more.
fn coarse(w: &mut Writer, out: &mut Inserts) {
    let mut untrusted: Vec<(Handle<Scope>, usize)> = w
        .code
        .matched
        .iter()
        .filter(|(_, f)| !f.trusted)
        .map(|(h, f)| (*h, f.func))
        .collect();
    untrusted.sort();
    for (h, f) in untrusted {
        let s = w.m.scopes.get(h);
        let at = s.at.unwrap_or_default();
        w.ledger.approx(
            Ref::Scope(h),
            "matched by name, not by id: its code is described at function granularity (its scope and line on every block that makes a call)",
        );
        let sc = w.id(Ref::Scope(h));
        let (first, end) = (w.code.funcs[f].first, w.code.funcs[f].end);
        let mut labels: Vec<u32> = Vec::new();
        let mut block = None;
        for i in first..end {
            match w.code.insns[i].1 {
                Some(Op::Label) => block = Some(w.code.insns[i].0),
                Some(Op::FunctionCall) => labels.extend(block.take()),
                _ => {}
            }
        }
        for pos in labels {
            let Some(i) = w.code.insertion(pos) else {
                continue;
            };
            let mut words = Vec::new();
            if let Some((_, ws)) =
                w.e.ext_words(instruction::DEBUG_SCOPE, &[(operand::SCOPE, V::Id(sc))])
            {
                words.extend(ws);
            }
            words.extend(line_words(w, at, None, None));
            out.push(i, REST, &words);
        }
    }
}

/// DebugLine (NonSemantic) or OpLine for a place.
fn line_words(
    w: &mut Writer,
    at: crate::ir::Loc,
    end_line: Option<u32>,
    end_col: Option<u32>,
) -> Vec<u32> {
    if !holds(w.e.flavour, Feature::LineRange) {
        let file = file_string(w, at.file);
        return insn(Op::Line, &[file, at.line, at.column]);
    }
    let (src, line, col) = w.loc_args(Some(at));
    let args = [
        (operand::SOURCE, src),
        (operand::LINE_START, line),
        (operand::LINE_END, V::Num(end_line.unwrap_or(at.line))),
        (operand::COLUMN_START, col),
        (operand::COLUMN_END, V::Num(end_col.unwrap_or(at.column))),
    ];
    w.e.ext_words(instruction::DEBUG_LINE, &args)
        .map_or(Vec::new(), |(_, ws)| ws)
}

fn lines(w: &mut Writer, trusted: &[bool], out: &mut Inserts, lost: &mut Lost, said: &Said) {
    let ranged =
        w.m.lines
            .iter()
            .filter(|l| l.end_line.is_some() || l.end_column.is_some())
            .count();
    if ranged > 0 && !holds(w.e.flavour, Feature::LineRange) {
        w.ledger.push(
            LossKind::Dropped,
            "module",
            format!("end line/column of {ranged} line rows: OpLine has only a start"),
        );
    }
    let from_spirv = w.m.source.format == crate::ir::SourceFormat::Spirv;
    for row in &w.m.lines {
        let Some(i) = place(w, trusted, row.range.start) else {
            // A row from an OpLine before OpFunction (glslang) goes back there as an OpLine.
            match before_function(w, trusted, row.range.start) {
                Some(i) if row.end_line.is_none() && row.end_column.is_none() => {
                    let file = file_string(w, row.at.file);
                    let words = insn(Op::Line, &[file, row.at.line, row.at.column]);
                    out.push(i, REST, &words);
                }
                _ => lost.lines += 1,
            }
            continue;
        };
        if covers_nothing(w, trusted, row.range, i) {
            lost.empty_lines += 1;
            continue;
        }
        lost.moved_lines += usize::from(moved(w, row.range.start, i));
        let plain = row.end_line.is_none() && row.end_column.is_none();
        for at in std::iter::once(i).chain(later_blocks(w, row.range)) {
            // What the group there said last, in the instruction it used (DebugLine in
            // NonSemantic, where an OpLine row from a SPIR-V input stays an OpLine).
            if plain
                && said.line.get(&at) == Some(&row.at)
                && !(from_spirv && holds(w.e.flavour, Feature::LineRange))
            {
                continue;
            }
            // In a SPIR-V input a row without an end was an OpLine: it stays one in every set,
            // so that it reads back without one (DebugLine would give it end = start).
            let words = if from_spirv && row.end_line.is_none() && row.end_column.is_none() {
                let file = file_string(w, row.at.file);
                insn(Op::Line, &[file, row.at.line, row.at.column])
            } else {
                line_words(w, row.at, row.end_line, row.end_column)
            };
            out.push(at, REST, &words);
        }
    }
}
/// The OpString naming a file, for OpLine. Its id is kept when writing it had no side effect
/// but interning (no ledger entry, no NUL cut): formatting the name per row was a large share of
/// `--into`'s time (bench/README.md, "Figures behind code comments").
fn file_string(w: &mut Writer, file: Option<Handle<crate::ir::File>>) -> u32 {
    if let Some(&id) = w.file_strings.get(&file) {
        return id;
    }
    let (losses, nul_cut) = (w.ledger.diags.losses.len(), w.e.nul_cut);
    let id = file_string_uncached(w, file);
    if w.ledger.diags.losses.len() == losses && w.e.nul_cut == nul_cut {
        w.file_strings.insert(file, id);
    }
    id
}

fn file_string_uncached(w: &mut Writer, f: Option<Handle<crate::ir::File>>) -> u32 {
    let f = f.or_else(|| w.m.units.values().find_map(|u| u.file));
    let name = f.map_or(String::new(), |f| {
        super::scopes::file_name(w.m.files.get(f))
    });
    let name = match f {
        Some(h) => fit(w, Ref::File(h), &name, "file name"),
        None => name,
    };
    w.e.string(&name)
}

/// A code id usable at insertion index `at`: defined globally, or earlier in the same function.
fn usable(w: &Writer, id: u32, at: usize, declare: bool) -> bool {
    let Some(d) = w.code.defs.get(&id) else {
        return false;
    };
    // SPIRV-LLVM-Translator, the judge of `.200`, takes any id (an OpUndef) there.
    let any = w.e.flavour.translator_forms();
    if declare && !any && !matches!(d.opcode, Some(Op::Variable | Op::FunctionParameter)) {
        return false;
    }
    match d.func {
        None => true,
        Some(f) => {
            let g = &w.code.funcs[f as usize];
            (d.index as usize) < at && g.first < at && at < g.end
        }
    }
}

fn event(w: &mut Writer, trusted: &[bool], ev: &Event) -> Option<(usize, Vec<u32>)> {
    let i = place(w, trusted, ev.pos)?;
    let mut declare = ev.kind == EventKind::Declare;
    let value = match ev.values.first() {
        Some(Value::Spirv(id)) if usable(w, *id, i, declare) => *id,
        // A constant: a 32-bit OpConstant of its bits (i32 and narrower; wider ones are lost).
        Some(Value::Int(n))
            if !declare && (i32::try_from(*n).is_ok() || u32::try_from(*n).is_ok()) =>
        {
            w.e.constant(*n as u32)
        }
        // No location: SPIRV-LLVM-Translator, the judge of `.200`, writes and reads a declare of
        // DebugInfoNone.
        Some(Value::Undef) if declare && w.e.flavour.translator_forms() => w.e.none(),
        // No location: an undefined value. DebugDeclare takes only a variable or parameter, so a
        // declare of undef (the variable's storage is gone) becomes a DebugValue of undef.
        Some(Value::Undef) => {
            if declare {
                declare = false;
                w.ledger.approx(
                    Ref::Var(ev.var),
                    "a declare of an undefined address written as a DebugValue of OpUndef",
                );
            }
            w.e.undef()
        }
        _ => return None,
    };
    let var = w.id(Ref::Var(ev.var));
    let expr = match ev.expr {
        Some(e) => w.id(Ref::Expr(e)),
        None => w.e.ext(instruction::DEBUG_EXPRESSION, &[]).unwrap_or(0),
    };
    let idx = V::List(ev.indexes.iter().map(|n| V::Num(*n)).collect());
    let (name, operand) = if declare {
        (instruction::DEBUG_DECLARE, operand::VARIABLE)
    } else {
        (instruction::DEBUG_VALUE, operand::VALUE)
    };
    let args = [
        (operand::LOCAL_VARIABLE, V::Id(var)),
        (operand, V::Id(value)),
        (operand::EXPRESSION, V::Id(expr)),
        (operand::INDEXES, idx),
    ];
    if !declare && !w.layout_has(instruction::DEBUG_VALUE, operand::LOCAL_VARIABLE) {
        w.ledger.approx(
            Ref::Var(ev.var),
            "DebugValue of the 0.99 set names no variable",
        );
    }
    if declare
        && !ev.indexes.is_empty()
        && !w.layout_has(instruction::DEBUG_DECLARE, operand::INDEXES)
    {
        w.ledger
            .dropped(Ref::Var(ev.var), "indexes of a DebugDeclare");
    }
    w.e.ext_words(name, &args).map(|(_, ws)| (i, ws))
}

#[cfg(test)]
mod tests {
    use super::ByStart;

    /// What the BTreeMap it replaced gave: the last record of a start stands, and the record in
    /// force before a position is the one that starts before it and ends past it.
    #[test]
    fn by_start_keeps_the_last_record_of_a_start() {
        let runs = ByStart::new(
            4,
            [(10, 20, 'a'), (0, 5, 'b'), (10, 30, 'c'), (40, 50, 'd')].into_iter(),
        );
        assert_eq!(runs.0, vec![(0, 5, 'b'), (10, 30, 'c'), (40, 50, 'd')]);
        assert_eq!(runs.at(10), (None, true));
        assert_eq!(runs.at(25), (Some((10, 'c')), false));
        assert_eq!(runs.at(30), (None, false));
        assert_eq!(runs.at(3), (Some((0, 'b')), false));
        assert!(runs.starts(40) && !runs.starts(41));
        assert_eq!(runs.ends().collect::<Vec<_>>(), vec![5, 30, 50]);
    }
}
