//! In-function instructions: DebugFunctionDefinition, DebugScope, DebugLine/OpLine,
//! DebugDeclare/DebugValue, each inserted before the normal-form instruction it is anchored at
//! (moved past OpPhi/OpVariable, never between a merge and its branch).

use std::collections::BTreeMap;

use super::encode::{insn, V};
use super::ledger::{holds, Feature};
use super::order::Writer;
use super::scopes::fit;
use crate::diag::LossKind;
use crate::ir::{CodePos, Event, EventKind, Handle, Ref, Scope, Value};
use crate::spec::spirv::Flavour;
use crate::spirv::binary::op;

/// Instructions to insert, by the index of the normal-form instruction they precede.
pub type Inserts = BTreeMap<usize, Vec<u32>>;

/// Counts of code-anchored records that found no place, for one summary loss per kind.
#[derive(Default)]
struct Lost {
    lines: usize,
    scopes: usize,
    events: usize,
}

pub fn write(w: &mut Writer, standalone: bool) -> Inserts {
    let mut out = Inserts::new();
    let mut lost = Lost::default();
    let trusted = trusted_funcs(w);
    definitions(w, &mut out);
    for run in &w.m.scope_runs {
        let Some(i) = place(w, &trusted, run.range.start) else {
            lost.scopes += 1;
            continue;
        };
        let sc = w.id(run.scope);
        let inl = run
            .inlined
            .map_or(V::Absent, |h| V::Id(w.id(Ref::Inlined(h))));
        if let Some((_, words)) =
            w.e.ext_words("DebugScope", &[("Scope", V::Id(sc)), ("Inlined At", inl)])
        {
            out.entry(i).or_default().extend(words);
        }
    }
    lines(w, &trusted, &mut out, &mut lost);
    coarse(w, &mut out);
    for ev in &w.m.events {
        match event(w, &trusted, ev) {
            Some((i, words)) => out.entry(i).or_default().extend(words),
            None => lost.events += 1,
        }
    }
    report(w, &lost, standalone);
    out
}

fn report(w: &mut Writer, lost: &Lost, standalone: bool) {
    let why = if standalone {
        "a standalone module has no code to anchor them to"
    } else {
        "their code position or operand is not in a matched function of the target module"
    };
    for (n, what) in [
        (lost.lines, "line rows"),
        (lost.scopes, "scope runs"),
        (lost.events, "declare/value events"),
    ] {
        if n > 0 {
            w.ledger.push(
                LossKind::Unmatched,
                "module",
                format!("{n} {what} not written: {why}"),
            );
        }
    }
}

/// Per base function: whether some IR function matched to it has trusted code positions.
fn trusted_funcs(w: &Writer) -> Vec<bool> {
    let mut trusted = vec![false; w.code.funcs.len()];
    for (f, t) in w.code.matched.values() {
        if *t {
            if let Some(slot) = trusted.get_mut(*f) {
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

/// DebugFunctionDefinition (NonSemantic) in the entry block of every matched function.
fn definitions(w: &mut Writer, out: &mut Inserts) {
    if w.e.flavour != Flavour::Shader100 {
        return;
    }
    let mut matched: Vec<(Handle<Scope>, usize)> =
        w.code.matched.iter().map(|(h, (f, _))| (*h, *f)).collect();
    matched.sort();
    for (h, f) in matched {
        let Some(i) = w.code.entry(f) else { continue };
        let dbg = w.id(Ref::Scope(h));
        let def = w.code.funcs[f].id;
        let args = [("Function", V::Id(dbg)), ("Definition", V::Id(def))];
        if let Some((_, words)) = w.e.ext_words("DebugFunctionDefinition", &args) {
            out.entry(i).or_default().extend(words);
        }
    }
}

/// Functions matched by name only: their own positions do not apply, so each block gets the
/// function's scope and line (consumers such as llvm-spirv-14 want a location on every call).
fn coarse(w: &mut Writer, out: &mut Inserts) {
    let mut untrusted: Vec<(Handle<Scope>, usize)> = w
        .code
        .matched
        .iter()
        .filter(|(_, (_, trusted))| !trusted)
        .map(|(h, (f, _))| (*h, *f))
        .collect();
    untrusted.sort();
    for (h, f) in untrusted {
        let s = w.m.scopes.get(h);
        let at = s.at.unwrap_or_default();
        w.ledger.approx(
            Ref::Scope(h),
            "matched by name, not by id: its code is described at function granularity (its scope and line on every block)",
        );
        let sc = w.id(Ref::Scope(h));
        let (first, end) = (w.code.funcs[f].first, w.code.funcs[f].end);
        let labels: Vec<u32> = (first..end)
            .filter(|i| w.code.insns[*i].1 == op::LABEL)
            .map(|i| w.code.insns[i].0)
            .collect();
        for pos in labels {
            let Some(i) = w.code.insertion(pos) else {
                continue;
            };
            let mut words = Vec::new();
            if let Some((_, ws)) = w.e.ext_words("DebugScope", &[("Scope", V::Id(sc))]) {
                words.extend(ws);
            }
            words.extend(line_words(w, at, None, None));
            out.entry(i).or_default().extend(words);
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
        return insn(op::LINE, &[file, at.line, at.column]);
    }
    let (src, line, col) = w.loc_args(Some(at));
    let args = [
        ("Source", src),
        ("Line Start", line),
        ("Line End", V::Num(end_line.unwrap_or(at.line))),
        ("Column Start", col),
        ("Column End", V::Num(end_col.unwrap_or(at.column))),
    ];
    w.e.ext_words("DebugLine", &args)
        .map_or(Vec::new(), |(_, ws)| ws)
}

fn lines(w: &mut Writer, trusted: &[bool], out: &mut Inserts, lost: &mut Lost) {
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
    for row in &w.m.lines {
        let Some(i) = place(w, trusted, row.range.start) else {
            lost.lines += 1;
            continue;
        };
        let words = line_words(w, row.at, row.end_line, row.end_column);
        out.entry(i).or_default().extend(words);
    }
}
/// The OpString naming a file, for OpLine.
fn file_string(w: &mut Writer, f: Option<Handle<crate::ir::File>>) -> u32 {
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
    if declare && !matches!(d.opcode, op::VARIABLE | op::FUNCTION_PARAMETER) {
        return false;
    }
    match d.func {
        None => true,
        Some(f) => {
            let g = &w.code.funcs[f];
            d.index < at && g.first < at && at < g.end
        }
    }
}

fn event(w: &mut Writer, trusted: &[bool], ev: &Event) -> Option<(usize, Vec<u32>)> {
    let i = place(w, trusted, ev.pos)?;
    let Some(Value::Spirv(id)) = ev.values.first() else {
        return None;
    };
    let declare = ev.kind == EventKind::Declare;
    if !usable(w, *id, i, declare) {
        return None;
    }
    let var = w.id(Ref::Var(ev.var));
    let expr = match ev.expr {
        Some(e) => w.id(Ref::Expr(e)),
        None => w.e.ext("DebugExpression", &[]).unwrap_or(0),
    };
    let idx = V::List(ev.indexes.iter().map(|n| V::Num(*n)).collect());
    let (name, operand) = if declare {
        ("DebugDeclare", "Variable")
    } else {
        ("DebugValue", "Value")
    };
    let args = [
        ("Local Variable", V::Id(var)),
        (operand, V::Id(*id)),
        ("Expression", V::Id(expr)),
        ("Indexes", idx),
    ];
    if !declare && !w.layout_has("DebugValue", "Local Variable") {
        w.ledger.approx(
            Ref::Var(ev.var),
            "DebugValue of the 0.99 set names no variable",
        );
    }
    if declare && !ev.indexes.is_empty() && !w.layout_has("DebugDeclare", "Indexes") {
        w.ledger
            .dropped(Ref::Var(ev.var), "indexes of a DebugDeclare");
    }
    w.e.ext_words(name, &args).map(|(_, ws)| (i, ws))
}
