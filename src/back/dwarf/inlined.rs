//! Inlined code's DIEs: inlined subroutines with the concrete copies of the blocks in their
//! code; functions written as an abstract and a concrete DIE (split, and gcc's instances without
//! code); where call sites and labels in inlined code go.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::constants as dw;
use gimli::write::{AttributeValue, UnitEntryId};
use gimli::DwTag;

use super::builder::{addr, enclosing_function, Builder, DieId};
use super::scopes::INSTANCE_ATTRS;
use crate::diag::LossKind;
use crate::ir::{CodeRange, Handle, Module, Ref, ScopeKind, VarKind};
use crate::spec::dwarf_vendor as vendor;

impl Builder<'_, '_> {
    pub(super) fn fill_inlined(&mut self, d: DieId, i: Handle<crate::ir::InlinedAt>) {
        let m = self.m;
        let ia = &m.inlined.get(i);
        // The inlined function and the code it covers come from the scope runs.
        // A call site's code includes the code inlined into the inlined function.
        let runs: Vec<&crate::ir::ScopeRun> = self
            .index
            .runs_within
            .get(&i)
            .unwrap_or_default()
            .iter()
            .map(|&k| &m.scope_runs[k])
            .collect();
        let origin = self.inlined_origin(i);
        self.set_ref(d, dw::DW_AT_abstract_origin, origin.map(Ref::Scope));
        let mut ranges: Vec<CodeRange> = runs.iter().map(|r| r.range).collect();
        CodeRange::normalize_in_order(&mut ranges);
        // DWARF nests a block's code inside its call site's: where the inlined function's own
        // runs do not cover a nested run (only damaged DWARF has that), the call site grows.
        // SPIR-V and LLVM runs are per instruction (a block's code is no run of its function)
        // and their records keep them: nothing to say there.
        let mut own: Vec<CodeRange> = runs
            .iter()
            .filter(|r| r.inlined == Some(i) && origin.is_some_and(|o| r.scope == Ref::Scope(o)))
            .map(|r| r.range)
            .collect();
        CodeRange::normalize(&mut own);
        // An empty run (gcc's view points: a nested call at an address its caller's code
        // does not hold) adds no code to cover.
        let covered = |r: &CodeRange| r.start == r.end || held_by(&own, r);
        if !super::records::exact(m) && !own.is_empty() && !runs.iter().all(|r| covered(&r.range)) {
            self.loss(
                LossKind::Approximated,
                Ref::Inlined(i),
                "inlined code outside its call site's own ranges: the call site's ranges cover it",
            );
        }
        self.set_ranges(d, &ranges);
        if let Some(p) = ia.entry_pc {
            self.set(
                d,
                dw::DW_AT_entry_pc,
                AttributeValue::Address(gimli::write::Address::Constant(addr(p))),
            );
        }
        self.set_loc(
            d,
            Some(ia.at),
            (
                dw::DW_AT_call_file,
                dw::DW_AT_call_line,
                dw::DW_AT_call_column,
            ),
        );
        // The copies of the function's own parameters and variables come first, then its
        // blocks, as compilers list them (copies of a block's variables go in that block).
        let copies = self.index.inlined_vars.get(&i).unwrap_or_default().to_vec();
        for v in copies {
            let var = m.vars.get(v);
            let VarKind::Inlined { origin: o, .. } = var.kind else {
                continue;
            };
            let in_function = origin.is_some() && m.vars.get(o).scope == origin.map(Ref::Scope);
            let in_block =
                matches!(var.scope, Some(Ref::Scope(b)) if self.inlined_only.contains_key(&b));
            if in_function && !in_block {
                self.fill(Ref::Var(v));
            }
        }
        for (s, l) in self.label_copies_at(i) {
            if Some(s) == origin {
                self.fill(Ref::Label(l));
            }
        }
        self.concrete_blocks(d, i, origin);
    }

    /// The function inlined at `i`: its own `origin`, else the function of its first scope run,
    /// else the function around the call sites nested in it (their calls are inlined code of
    /// the function inlined here), else the function of a variable with an event there (LLVM:
    /// a call inlined at -O0 whose only instruction left is a dbg.declare).
    pub(super) fn inlined_origin(
        &self,
        i: Handle<crate::ir::InlinedAt>,
    ) -> Option<Handle<crate::ir::Scope>> {
        let m = self.m;
        let runs = self.index.runs_within.get(&i).unwrap_or_default();
        m.inlined
            .get(i)
            .origin
            .or_else(|| {
                runs.iter()
                    .map(|&k| &m.scope_runs[k])
                    .filter(|r| r.inlined == Some(i))
                    .find_map(|r| match r.scope {
                        Ref::Scope(s) => enclosing_function(m, s),
                        _ => None,
                    })
            })
            .or_else(|| {
                self.index.children.get(&i).and_then(|kids| {
                    kids.iter().find_map(|&x| {
                        m.inlined
                            .get(x)
                            .scope
                            .and_then(|s| enclosing_function(m, s))
                    })
                })
            })
            .or_else(|| {
                self.index.events_at.get(&i)?.iter().find_map(|&k| {
                    let e = &m.events[k];
                    match e.scope.map(Ref::Scope).or(m.vars.get(e.var).scope) {
                        Some(Ref::Scope(s)) => enclosing_function(m, s),
                        _ => None,
                    }
                })
            })
    }

    /// The functions written as compilers write a function both inlined and out of line: an
    /// abstract DIE (DW_AT_inline, declarative children, no code) and a concrete DIE
    /// (DW_AT_abstract_origin) holding the code — ranges, frame base, locations, blocks, call
    /// sites, the calls inlined into it. Debuggers copy an abstract DIE's children into each of
    /// its inlined instances, so code there would show in all of them. Abstract are the
    /// functions inlined somewhere and those DWARF said were (a raw DW_AT_inline); split are
    /// those of them with code.
    pub(super) fn split_functions(&self) -> FxHashSet<Handle<crate::ir::Scope>> {
        let m = self.m;
        let inlined: FxHashSet<Handle<crate::ir::Scope>> = m
            .inlined
            .iter()
            .filter_map(|(i, _)| self.inlined_origin(i))
            .collect();
        m.scopes
            .iter()
            .filter(|(h, s)| {
                let ScopeKind::Function(f) = &s.kind else {
                    return false;
                };
                let is_abstract =
                    inlined.contains(h) || s.extra.iter().any(|a| a.attr == dw::DW_AT_inline.0);
                let has_code = !f.ranges.is_empty()
                    || self.run_ranges.get(h).is_some_and(|r| !r.is_empty())
                    || f.frame_base.is_some()
                    || f.entry_pc.is_some();
                is_abstract && has_code
            })
            .map(|(h, _)| h)
            .collect()
    }

    /// The functions without code written as gcc writes a constructor or destructor it does
    /// not emit here: the abstract DIE (a raw DW_AT_inline; a declaration states its
    /// signature), and a concrete instance without code (DW_AT_abstract_origin, the instance's
    /// own linkage name, DW_AT_object_pointer) holding the parameter variables. Instances are
    /// the unsplit abstract functions with such a linkage name (a raw one: the function's own
    /// is `linkage`), and the abstract declarations with parameter variables (a declaration's
    /// own parameters are its signature).
    pub(super) fn declared_instances(&self) -> FxHashSet<Handle<crate::ir::Scope>> {
        let m = self.m;
        let with_params: FxHashSet<Handle<crate::ir::Scope>> = m
            .vars
            .iter()
            .filter(|(_, v)| matches!(v.kind, crate::ir::VarKind::Param(_)))
            .filter_map(|(_, v)| match v.scope {
                Some(Ref::Scope(s)) => Some(s),
                _ => None,
            })
            .collect();
        let has = |s: &crate::ir::Scope, at: &[gimli::DwAt]| {
            s.extra.iter().any(|a| at.contains(&gimli::DwAt(a.attr)))
        };
        m.scopes
            .iter()
            .filter(|(h, s)| {
                let params = with_params.contains(h);
                let own_name = has(s, INSTANCE_ATTRS);
                let shape = match s.kind {
                    ScopeKind::FunctionDecl(_) => params || own_name,
                    ScopeKind::Function(_) => own_name,
                    _ => false,
                };
                shape && has(s, &[dw::DW_AT_inline]) && !self.split.contains(h)
            })
            .map(|(h, _)| h)
            .collect()
    }

    /// The instance DIE a parameter of a declaration with an instance goes under (filled
    /// first).
    pub(super) fn instance_of(&mut self, r: Ref) -> Option<UnitEntryId> {
        let Ref::Var(v) = r else { return None };
        let Some(Ref::Scope(s)) = self.m.vars.get(v).scope else {
            return None;
        };
        if !self.instances.contains(&s) {
            return None;
        }
        self.fill(Ref::Scope(s));
        self.out_of_line.get(&s).copied()
    }

    /// Where the code of scope `s` goes when `s` is a split function or a block in one: the
    /// concrete DIE of the function, or the concrete copy of the innermost block with code
    /// around `s` (blocks without code get none, as compilers write them). None elsewhere.
    pub(super) fn code_parent(&mut self, s: Handle<crate::ir::Scope>) -> Option<UnitEntryId> {
        let m = self.m;
        // The scopes from `s` out to its function, which must be split.
        let mut chain = Vec::new();
        let mut cur = Some(s);
        while let Some(c) = cur.filter(|_| chain.len() < 256) {
            if self.inlined_only.contains_key(&c) {
                return None;
            }
            chain.push(c);
            let sc = m.scopes.get(c);
            cur = match (&sc.kind, sc.parent) {
                (ScopeKind::Function(_), _) if self.split.contains(&c) => break,
                (
                    ScopeKind::LexicalBlock { .. } | ScopeKind::BlockFile { .. },
                    Some(Ref::Scope(p)),
                ) => Some(p),
                _ => return None,
            };
        }
        if !chain.last().is_some_and(|f| self.split.contains(f)) {
            return None;
        }
        // The innermost of them with a concrete DIE (filled from the outside in).
        for &c in chain.iter().rev() {
            self.fill(Ref::Scope(c));
        }
        chain.iter().find_map(|c| self.out_of_line.get(c).copied())
    }

    /// Where a call site or label in inlined code goes: the inlined_subroutine DIE, or its
    /// concrete copy of the block, whose own code of the entity's scope holds its position (a
    /// return address may be the first byte after that code). None for out-of-line code, and
    /// for call sites but gcc's (LLVM puts a call site of inlined code in the concrete
    /// function or block around it, and its verifier wants it there).
    pub(super) fn inlined_home(&mut self, r: Ref, u: usize) -> Option<UnitEntryId> {
        let m = self.m;
        if let Ref::CallSite(c) = r {
            if !self.by_gcc(m.call_sites.get(c).scope?) {
                return None;
            }
        }
        let (s, i) = self.inlined_at(r)?;
        self.fill(Ref::Inlined(i));
        let &(iu, id) = self.dies.get(&Ref::Inlined(i)).filter(|d| d.0 == u)?;
        match m.scopes.get(s).kind {
            ScopeKind::Function(_) | ScopeKind::FunctionDecl(_) => Some(id),
            _ => self.concrete.get(&(i, s)).copied().filter(|_| iu == u),
        }
    }

    /// The scope of a call site or label and the inlined call whose own code of that scope
    /// holds its position, if it is in inlined code.
    pub(super) fn inlined_at(
        &self,
        r: Ref,
    ) -> Option<(Handle<crate::ir::Scope>, Handle<crate::ir::InlinedAt>)> {
        let m = self.m;
        let (s, pos, return_pc) = match r {
            Ref::CallSite(c) => {
                let cs = m.call_sites.get(c);
                (cs.scope?, cs.pos?, cs.is_return_pc)
            }
            Ref::Label(l) => {
                let lb = m.labels.get(l);
                (lb.scope?, lb.pos?, false)
            }
            _ => return None,
        };
        if self.inlined_only.contains_key(&s) {
            return None;
        }
        let runs = self.index.inlined_runs.get(&s).unwrap_or_default();
        let holding = |a: u64| {
            runs.iter()
                .map(|&k| &m.scope_runs[k])
                .find(|run| addr(run.range.start) <= a && a < addr(run.range.end))
        };
        let a = addr(pos);
        let run = match return_pc {
            true => a.checked_sub(1).and_then(holding).or_else(|| holding(a)),
            false => holding(a),
        };
        match run {
            Some(run) => Some((s, run.inlined?)),
            // A label whose code is in a block of the function's instance, or is a call
            // inlined there in turn (the code after `done:` is an inlined `use(r)`): the
            // instance its code is in, or the one its call chain passes through.
            None if matches!(r, Ref::Label(_)) => {
                let function = enclosing_function(m, s);
                // In the function's own out-of-line code: no instance (most labels; the scan
                // below is for the few in inlined code).
                let own = function.and_then(|f| m.scopes.get(f).function());
                if (own.map_or(&[][..], |f| f.ranges.as_slice()).iter())
                    .any(|r| addr(r.start) <= a && a < addr(r.end))
                {
                    return None;
                }
                let of_function = |x: Option<Handle<crate::ir::Scope>>| {
                    x.and_then(|x| enclosing_function(m, x)) == function
                };
                let at_a = (m.scope_runs.iter())
                    .filter(|run| addr(run.range.start) <= a && a < addr(run.range.end));
                let mut inner = None;
                for run in at_a {
                    let Some(l) = run.inlined else { continue };
                    match run.scope {
                        Ref::Scope(x) if of_function(Some(x)) => return Some((s, l)),
                        _ => inner = inner.or(Some(l)),
                    }
                }
                let mut link = inner?;
                for _ in 0..256 {
                    let ia = m.inlined.get(link);
                    if of_function(ia.scope) {
                        return ia.parent.map(|p| (s, p));
                    }
                    link = ia.parent?;
                }
                None
            }
            None => None,
        }
    }

    /// The label copies in the code inlined at `i`, with their scopes.
    fn label_copies_at(
        &mut self,
        i: Handle<crate::ir::InlinedAt>,
    ) -> Vec<super::builder::LabelCopy> {
        if self.label_copies.is_none() {
            let mut at: HashMap<_, Vec<_>> = HashMap::default();
            for (l, lb) in self.m.labels.iter() {
                if lb.origin.is_none() {
                    continue;
                }
                if let Some((s, i)) = self.inlined_at(Ref::Label(l)) {
                    at.entry(i).or_default().push((s, l));
                }
            }
            self.label_copies = Some(at);
        }
        self.label_copies
            .as_ref()
            .and_then(|at| at.get(&i).cloned())
            .unwrap_or_default()
    }

    /// A lexical block of a split function that got no concrete copy (it has no code).
    pub(super) fn codeless_block(&self, s: Option<Handle<crate::ir::Scope>>) -> bool {
        s.is_some_and(|s| {
            matches!(self.m.scopes.get(s).kind, ScopeKind::LexicalBlock { .. })
                && !self.out_of_line.contains_key(&s)
        })
    }

    /// A concrete DIE of tag `tag` for entity `r` under `parent`, naming `r` as its abstract
    /// origin.
    pub(super) fn concrete_die(
        &mut self,
        u: usize,
        parent: UnitEntryId,
        tag: DwTag,
        r: Ref,
    ) -> DieId {
        let id = self.unit_mut(u).add(parent, tag);
        self.set_ref((u, id), dw::DW_AT_abstract_origin, Some(r));
        (u, id)
    }

    /// The code of a block that exists only as code inlined at `i`: its runs there and those
    /// of the blocks inside it. Read from a compiler's DWARF, a block's runs hold those of the
    /// blocks inside it; where they do not (damaged input), its ranges grow to cover them.
    pub(super) fn inlined_block_ranges(
        &mut self,
        i: Handle<crate::ir::InlinedAt>,
        block: Handle<crate::ir::Scope>,
    ) -> Vec<CodeRange> {
        let m = self.m;
        let inside = |mut b: Handle<crate::ir::Scope>| {
            for _ in 0..256 {
                if b == block {
                    return true;
                }
                match m.scopes.get(b).parent {
                    Some(Ref::Scope(p)) => b = p,
                    _ => return false,
                }
            }
            false
        };
        let runs: Vec<&crate::ir::ScopeRun> = self
            .index
            .runs_within
            .get(&i)
            .unwrap_or_default()
            .iter()
            .map(|&k| &m.scope_runs[k])
            .filter(|r| r.inlined == Some(i) && matches!(r.scope, Ref::Scope(b) if inside(b)))
            .collect();
        let mut ranges: Vec<CodeRange> = runs.iter().map(|r| r.range).collect();
        if !super::records::exact(m) {
            let mut own: Vec<CodeRange> = runs
                .iter()
                .filter(|r| r.scope == Ref::Scope(block))
                .map(|r| r.range)
                .collect();
            CodeRange::normalize(&mut own);
            if !ranges.iter().all(|r| held_by(&own, r)) {
                self.loss(
                    LossKind::Approximated,
                    Ref::Scope(block),
                    "code of a block inside it outside its own ranges: its ranges cover it",
                );
            }
        }
        CodeRange::normalize_in_order(&mut ranges);
        ranges
    }

    /// The lexical blocks of the function inlined at `i`, as concrete blocks under its
    /// inlined_subroutine DIE (abstract origin + the ranges of the runs inside them).
    pub(super) fn concrete_blocks(
        &mut self,
        d: DieId,
        i: Handle<crate::ir::InlinedAt>,
        origin: Option<Handle<crate::ir::Scope>>,
    ) {
        let m = self.m;
        let mut blocks: Vec<(usize, Handle<crate::ir::Scope>, Vec<CodeRange>)> = Vec::new();
        let mine: Vec<usize> = self.index.runs_within.get(&i).unwrap_or_default().to_vec();
        // Code inlined deeper counts for the blocks around its call in this body (exact
        // sources: a block whose code there is all in a call still gets its copy).
        let exact = super::records::exact(m);
        for run in mine.iter().map(|&k| &m.scope_runs[k]) {
            let scope = match run.inlined == Some(i) {
                true => run.scope,
                false if exact => match self.call_in(run.inlined, i) {
                    Some(s) => Ref::Scope(s),
                    None => continue,
                },
                false => continue,
            };
            let Ref::Scope(mut b) = scope else {
                continue;
            };
            if self.inlined_only.contains_key(&b) {
                continue;
            }
            // The block and every block around it up to the inlined function (block files
            // too where they have DIEs: code scoped to them in the inlined body goes there).
            for _ in 0..256 {
                let block = match m.scopes.get(b).kind {
                    ScopeKind::LexicalBlock { .. } => true,
                    ScopeKind::BlockFile { .. } => super::records::exact(m),
                    _ => false,
                };
                if Some(b) == origin || !block {
                    break;
                }
                let depth = scope_depth(m, b);
                match blocks.iter_mut().find(|x| x.1 == b) {
                    Some(x) => x.2.push(run.range),
                    None => blocks.push((depth, b, vec![run.range])),
                }
                match m.scopes.get(b).parent {
                    Some(Ref::Scope(p)) => b = p,
                    _ => break,
                }
            }
        }
        blocks.sort_by_key(|x| (x.0, x.1));
        // The blocks without origin that may hold the copies, found once a copy needs one.
        let mut holders = None;
        for (_, b, mut ranges) in blocks {
            let parent = match m.scopes.get(b).parent {
                Some(Ref::Scope(p)) => self.concrete.get(&(i, p)).copied(),
                _ => None,
            };
            let parent = match parent {
                Some(p) => p,
                None => {
                    let hs = holders.get_or_insert_with(|| self.inlined_only_at(i));
                    self.holder(d.0, hs, &ranges).unwrap_or(d.1)
                }
            };
            let id = self.unit_mut(d.0).add(parent, dw::DW_TAG_lexical_block);
            self.concrete.insert((i, b), id);
            self.set_ref((d.0, id), dw::DW_AT_abstract_origin, Some(Ref::Scope(b)));
            // A block file's code is its parent's (no ranges of its own).
            if matches!(m.scopes.get(b).kind, ScopeKind::LexicalBlock { .. }) {
                CodeRange::normalize_in_order(&mut ranges);
                self.set_ranges((d.0, id), &ranges);
            }
        }
    }

    /// The blocks that exist only as code inlined at `i` (gcc's blocks without an origin in an
    /// inlined body), with their code there, innermost (least code) first.
    fn inlined_only_at(
        &self,
        i: Handle<crate::ir::InlinedAt>,
    ) -> Vec<(Handle<crate::ir::Scope>, Vec<CodeRange>)> {
        let m = self.m;
        let mut out: Vec<(Handle<crate::ir::Scope>, Vec<CodeRange>)> = Vec::new();
        let runs = self.index.runs_within.get(&i).unwrap_or_default();
        for run in runs.iter().map(|&k| &m.scope_runs[k]) {
            let Ref::Scope(x) = run.scope else { continue };
            if run.inlined != Some(i) || self.inlined_only.get(&x) != Some(&i) {
                continue;
            }
            match out.iter_mut().find(|o| o.0 == x) {
                Some(o) => o.1.push(run.range),
                None => out.push((x, vec![run.range])),
            }
        }
        let size = |rs: &[CodeRange]| -> u64 {
            rs.iter()
                .map(|r| addr(r.end).saturating_sub(addr(r.start)))
                .sum()
        };
        out.sort_by_key(|o| (size(&o.1), o.0));
        out
    }

    /// The DIE of the innermost of `holders` whose code holds all of `ranges` (a concrete
    /// block copy goes inside it, as gcc nests them), filled first.
    fn holder(
        &mut self,
        u: usize,
        holders: &[(Handle<crate::ir::Scope>, Vec<CodeRange>)],
        ranges: &[CodeRange],
    ) -> Option<UnitEntryId> {
        if ranges.is_empty() {
            return None;
        }
        let x = holders
            .iter()
            .find(|(_, code)| ranges.iter().all(|r| held_by(code, r)))?
            .0;
        self.fill(Ref::Scope(x));
        let &(xu, id) = self.dies.get(&Ref::Scope(x))?;
        (xu == u).then_some(id)
    }

    /// The scope of the call, in the body inlined at `i`, that code inlined at `deeper` comes
    /// from (the scope of the link of `deeper`'s chain whose parent is `i`).
    fn call_in(
        &self,
        mut deeper: Option<Handle<crate::ir::InlinedAt>>,
        i: Handle<crate::ir::InlinedAt>,
    ) -> Option<Handle<crate::ir::Scope>> {
        for _ in 0..256 {
            let ia = self.m.inlined.get(deeper?);
            if ia.parent == Some(i) {
                return ia.scope;
            }
            deeper = ia.parent;
        }
        None
    }
}

/// Whether one of `outer` holds all of `r`.
fn held_by(outer: &[CodeRange], r: &CodeRange) -> bool {
    outer
        .iter()
        .any(|o| addr(o.start) <= addr(r.start) && addr(r.end) <= addr(o.end))
}

/// See `Builder::inlined_only`.
pub(super) fn inlined_only(
    m: &Module,
) -> HashMap<Handle<crate::ir::Scope>, Handle<crate::ir::InlinedAt>> {
    let mut seen: HashMap<Handle<crate::ir::Scope>, Option<Handle<crate::ir::InlinedAt>>> =
        HashMap::default();
    for run in &m.scope_runs {
        let Ref::Scope(b) = run.scope else { continue };
        if !matches!(m.scopes.get(b).kind, ScopeKind::LexicalBlock { .. }) {
            continue;
        }
        let e = seen.entry(b).or_insert(run.inlined);
        if *e != run.inlined {
            *e = None;
        }
    }
    // A block read from a compiler's DWARF declaring entities of its own (variables, labels
    // that are no copies) is an abstract block with concrete copies (gcc: a function inlined
    // into itself), and so is every block around it: its DIE must be where the copies can name
    // it. (Sources without machine code, and dwarv's DWARF of them, keep such a block's
    // inlined runs in dwarv's records instead: DW_AT_dwarv_inlined_runs.)
    let recorded = |b: Handle<crate::ir::Scope>| {
        super::records::exact(m)
            || m.scopes
                .get(b)
                .extra
                .iter()
                .any(|a| a.attr == vendor::DW_AT_DWARV_INLINED_RUNS.0)
    };
    let own = m
        .vars
        .values()
        .filter(|v| !matches!(v.kind, VarKind::Inlined { .. }))
        .filter_map(|v| match v.scope {
            Some(Ref::Scope(s)) => Some(s),
            _ => None,
        })
        .chain(
            m.labels
                .values()
                .filter(|l| l.origin.is_none())
                .filter_map(|l| l.scope),
        );
    for mut b in own {
        for _ in 0..256 {
            if !matches!(m.scopes.get(b).kind, ScopeKind::LexicalBlock { .. })
                || recorded(b)
                || seen.insert(b, None) == Some(None)
            {
                break;
            }
            match m.scopes.get(b).parent {
                Some(Ref::Scope(p)) => b = p,
                _ => break,
            }
        }
    }
    seen.into_iter()
        .filter_map(|(b, i)| Some((b, i?)))
        .collect()
}

/// How many scopes enclose a scope.
fn scope_depth(m: &Module, mut s: Handle<crate::ir::Scope>) -> usize {
    for depth in 0..256 {
        match m.scopes.get(s).parent {
            Some(Ref::Scope(p)) => s = p,
            _ => return depth,
        }
    }
    256
}
