//! Merging source-level debug info into the debug info of compiled code, by function name: what
//! `convert tables.bin --with debug.{ll,bc,spv,o}` needs (docs/visa.md).
//!
//! `code` (vISA tables read to IR) knows where things are in Gen code but not their source names,
//! types or lines; `source` (LLVM IR, SPIR-V or DWARF of the same kernels) knows those but not
//! the Gen code. The result is `source`'s declarative part (units, files, types, scopes,
//! variables, …) with `code`'s code ranges, frame bases, location lists and CFI grafted on:
//! - each top-level function of `code` goes onto the `source` function with that name or linkage
//!   name (its ranges, entry, frame base, binding and vendor attributes); unmatched ones are added
//!   as they are, with their own unit if they had one;
//! - functions nested in a `code` function (vISA subroutines) are added inside the match;
//! - each variable of a `code` function takes the place of the first not yet matched `source`
//!   variable of the same name in the matched function or its blocks (its location list and
//!   vendor attributes); unmatched ones are added to the function;
//! - `source`'s own code positions (line rows, scope runs, events, unit, function and block
//!   ranges, location lists, label and call-site positions, CFI) describe other code and are
//!   dropped; each unit's ranges become the union of its functions' new ones.
//!
//! Every drop and every unmatched function or variable is a diagnostic; its place names the side
//! (`code s0 (scope "orphan")`, `source s7 (scope "histogram")`), whose handles it uses.

use crate::diag::{Diagnostics, LossKind};

use super::verify::describe;
use super::{Arena, Handle, Location, Module, Ref, Scope, ScopeKind, VarKind, Variable};

/// Merges `source` (names, types, lines) into `code` (Gen ranges, locations, CFI).
pub fn merge(source: &Module, code: &Module) -> (Module, Diagnostics) {
    let mut d = Diagnostics::default();
    let mut out = source.clone();
    // The positions are `code`'s (Gen addresses): the result is of `code`'s format, so that a
    // writer treats it as such (SPIR-V word offsets, for one, are not).
    out.source = code.source.clone();
    out.info.machine = code.info.machine.or(out.info.machine);
    out.info.address_size = code.info.address_size.or(out.info.address_size);
    drop_code_positions(&mut out, &mut d);

    // Expressions and location lists of `code` are appended; their handles shift.
    let (eoff, loff) = (out.exprs.len() as u32, out.loclists.len() as u32);
    for e in code.exprs.values() {
        out.exprs.push(e.clone());
    }
    for l in code.loclists.values() {
        let mut l = l.clone();
        for e in &mut l.entries {
            e.expr = Handle::new(e.expr.index() as u32 + eoff);
        }
        out.loclists.push(l);
    }
    let loc = |l: Location| match l {
        Location::Expr(h) => Location::Expr(Handle::new(h.index() as u32 + eoff)),
        Location::List(h) => Location::List(Handle::new(h.index() as u32 + loff)),
    };
    // `source`'s CFI is gone (drop_code_positions), so `code`'s CIE handles stay as they are.
    for c in code.cies.values() {
        out.cies.push(c.clone());
    }
    for f in code.fdes.values() {
        out.fdes.push(f.clone());
    }

    // Functions: matched by name, subroutines inside their match.
    let mut scope_map: Vec<Option<Handle<Scope>>> = vec![None; code.scopes.len()];
    let mut matched = vec![false; out.scopes.len()];
    for (h, s) in code.scopes.iter() {
        let Some(info) = s.function() else { continue };
        let parent = match s.parent {
            Some(Ref::Scope(p)) => scope_map.get(p.index()).copied().flatten(),
            _ => None,
        };
        let mut info = info.clone();
        info.frame_base = info.frame_base.map(loc);
        let target = match parent {
            None => find_function(&out, s.name.as_deref(), &matched),
            Some(_) => None,
        };
        let new = match target {
            Some(t) => {
                matched[t.index()] = true;
                let ts = out.scopes.get_mut(t);
                if let ScopeKind::Function(f) = &mut ts.kind {
                    f.ranges = info.ranges;
                    f.entry_pc = info.entry_pc;
                    f.frame_base = info.frame_base;
                    f.binding = info.binding;
                }
                ts.extra.extend(s.extra.iter().cloned());
                t
            }
            None => {
                let mut n = s.clone();
                n.kind = ScopeKind::Function(Box::new(info));
                n.parent = parent.map(Ref::Scope);
                if parent.is_none() {
                    d.push(
                        LossKind::Unmatched,
                        format!("code {}", describe(code, Ref::Scope(h))),
                        "no source-level function of this name: added without names or types",
                    );
                    // With its own unit, if it had one (objects' code may overlap).
                    if let Some(Ref::Unit(u)) = s.parent {
                        n.parent = Some(Ref::Unit(out.units.push(code.units.get(u).clone())));
                    }
                }
                out.scopes.push(n)
            }
        };
        scope_map[h.index()] = Some(new);
    }
    for (h, s) in out.scopes.iter().take(matched.len()) {
        if matches!(s.kind, ScopeKind::Function(_)) && !matched[h.index()] {
            d.push(
                LossKind::Unmatched,
                format!("source {}", describe(source, Ref::Scope(h))),
                "no compiled object of this name: the function keeps no code range",
            );
        }
    }

    // Variables: matched by name inside the function.
    let mut taken = vec![false; out.vars.len()];
    for (h, v) in code.vars.iter() {
        let Some(Ref::Scope(cs)) = v.scope else {
            continue;
        };
        let Some(f) = scope_map.get(cs.index()).copied().flatten() else {
            continue;
        };
        let location = v.location.map(loc);
        match find_var(&out, f, v.name.as_deref(), &taken) {
            Some(t) => {
                taken[t.index()] = true;
                let tv = out.vars.get_mut(t);
                tv.location = location;
                tv.extra.extend(v.extra.iter().cloned());
            }
            None => {
                d.push(
                    LossKind::Unmatched,
                    format!("code {}", describe(code, Ref::Var(h))),
                    "no source-level variable of this name in its function: added without a type",
                );
                let mut n = v.clone();
                n.scope = Some(Ref::Scope(f));
                n.location = location;
                out.vars.push(n);
            }
        }
    }
    unit_ranges(&mut out);
    (out, d)
}

/// Each unit's code: the union of the ranges of the functions in it.
fn unit_ranges(m: &mut Module) {
    let mut ranges = vec![Vec::new(); m.units.len()];
    for s in m.scopes.values() {
        let Some(f) = s.function() else { continue };
        let mut p = s.parent;
        for _ in 0..=m.scopes.len() {
            match p {
                Some(Ref::Scope(x)) => p = m.scopes.get(x).parent,
                _ => break,
            }
        }
        if let Some(Ref::Unit(u)) = p {
            ranges[u.index()].extend(f.ranges.iter().copied());
        }
    }
    for (u, mut r) in m.units.values_mut().zip(ranges) {
        r.sort();
        // (`dedup_by` hands the later range first.)
        r.dedup_by(|later, kept| {
            let joined = later.start <= kept.end;
            if joined {
                kept.end = kept.end.max(later.end);
            }
            joined
        });
        u.ranges = r;
    }
}

/// The first unmatched function of `m` named (or with the linkage name) `name`.
fn find_function(m: &Module, name: Option<&str>, matched: &[bool]) -> Option<Handle<Scope>> {
    let name = name?;
    m.scopes.iter().take(matched.len()).find_map(|(h, s)| {
        let f = s
            .function()
            .filter(|_| matches!(s.kind, ScopeKind::Function(_)))?;
        let hit = s.name.as_deref() == Some(name) || f.linkage.as_deref() == Some(name);
        (hit && !matched[h.index()]).then_some(h)
    })
}

/// Whether scope `s` is `f` or lies inside it.
fn within(m: &Module, mut s: Handle<Scope>, f: Handle<Scope>) -> bool {
    for _ in 0..=m.scopes.len() {
        if s == f {
            return true;
        }
        match m.scopes.try_get(s).and_then(|x| x.parent) {
            Some(Ref::Scope(p)) => s = p,
            _ => return false,
        }
    }
    false
}

/// The first not yet taken local or parameter named `name` in function `f` or its blocks.
fn find_var(
    m: &Module,
    f: Handle<Scope>,
    name: Option<&str>,
    taken: &[bool],
) -> Option<Handle<Variable>> {
    let name = name?;
    m.vars.iter().take(taken.len()).find_map(|(h, v)| {
        let local = matches!(v.kind, VarKind::Local | VarKind::Param(_));
        let inside = matches!(v.scope, Some(Ref::Scope(s)) if within(m, s, f));
        (local && inside && !taken[h.index()] && v.name.as_deref() == Some(name)).then_some(h)
    })
}

/// Clears every code position of `m`, with a diagnostic per kind of thing dropped.
fn drop_code_positions(m: &mut Module, d: &mut Diagnostics) {
    let mut drop = |n: usize, what: &str| {
        if n > 0 {
            d.push(
                LossKind::Dropped,
                "source module",
                format!("{n} {what}: positions in other code than the compiled objects'"),
            );
        }
    };
    drop(m.lines.len(), "line row(s)");
    drop(m.scope_runs.len(), "scope run(s)");
    drop(m.events.len(), "declare/value event(s)");
    drop(m.fdes.len(), "FDE(s)");
    drop(
        m.units.values().filter(|u| !u.ranges.is_empty()).count(),
        "unit code range(s)",
    );
    for u in m.units.values_mut() {
        u.ranges.clear();
    }
    m.lines.clear();
    m.scope_runs.clear();
    m.events.clear();
    m.fdes = Arena::new();
    m.cies = Arena::new();
    let mut ranged = 0;
    for s in m.scopes.values_mut() {
        match &mut s.kind {
            ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => {
                ranged += !f.ranges.is_empty() as usize;
                f.ranges.clear();
                f.entry_pc = None;
                f.frame_base = None;
                f.lane_pc = None;
                f.active_lane = None;
            }
            ScopeKind::LexicalBlock { ranges } => {
                ranged += !ranges.is_empty() as usize;
                ranges.clear();
            }
            _ => {}
        }
    }
    drop(ranged, "scope code range(s)");
    let lists = m
        .loclists
        .values()
        .filter(|l| !l.entries.is_empty())
        .count();
    drop(lists, "location list(s)");
    for l in m.loclists.values_mut() {
        l.entries.clear();
    }
    for l in m.labels.values_mut() {
        l.pos = None;
    }
    for c in m.call_sites.values_mut() {
        c.pos = None;
    }
}
