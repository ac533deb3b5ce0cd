//! What DWARF written from SPIR-V needs so that it reads back to the same IR (and `dwarv attach`
//! restores the module's debug info): dwarv vendor attributes for the SPIR-V facts DWARF has no
//! form for. The native forms (line table, lexical-block ranges, location lists) are written
//! too; these attributes only make the reading exact (docs/dwarf.md, "SPIR-V ⇄ DWARF").
//!
//! Encodings (all numbers ULEB128 unless said otherwise; positions are word offsets in the
//! debug-stripped normal form, DWARF addresses / 4):
//! - `DW_AT_dwarv_spirv_set` (unit, string): the debug set's import name; marks the unit's
//!   addresses as 4 × word offsets.
//! - `DW_AT_dwarv_runs` (unit, function, block; block form): the scope runs of that scope,
//!   `start end` pairs, not inlined.
//! - `DW_AT_dwarv_line_spans` (unit; block): rows with a span, `start end line column
//!   end_line+1 end_column+1` (0 = absent).
//! - `DW_AT_dwarv_events` (variable; block): per event `kind pos n value… expr indexes scope
//!   at`: kind 0 declare / 1 value / 2 addr; a value is `0 id` (SPIR-V id), `1 sleb` (integer)
//!   or `2` (undef); expr is `0` (none) or `1+k`, the k-th of `DW_AT_dwarv_event_exprs` (first
//!   unit; `len bytes` per expression, DWARF expression bytes); indexes `n i…`;
//!   scope `0` none / `1` the variable's; at `0` none or `1+k line column` with the file of the
//!   variable (k=0), of the event's scope (k=1) or of the unit (k=2).
//! - `DW_AT_dwarv_build_id`/`_build_flags`/`_storage_path`/`_link_id`/`_link_path` (first unit):
//!   the module's build id and storage path, and the link records of `dwarv strip`.

use gimli::write::AttributeValue;

use super::builder::{Builder, Die};
use crate::diag::LossKind;
use crate::dwarf::bytes::{put_sleb, put_uleb};
use crate::dwarf::expr::{encode_expr, OffsetRefs};
use crate::dwarf::{AmdOps, Encoding};
use crate::ir::{CodePos, EventKind, Handle, Module, Ref, SourceFormat, Value, Variable};
use crate::spec::dwarf_vendor as vendor;

/// Whether the module's code positions are SPIR-V word offsets (its units get the attributes).
pub(super) fn from_spirv(m: &Module) -> bool {
    m.source.format == SourceFormat::Spirv
}

fn word(p: CodePos) -> Option<u64> {
    match p {
        CodePos::Spirv(w) => Some(w.into()),
        _ => None,
    }
}

/// The unit's attributes: the set, line spans, and on the first unit the module's records.
pub(super) fn unit_attrs(b: &mut Builder, d: Die, ui: usize) {
    let m = b.m;
    if !from_spirv(m) {
        return;
    }
    let set = m.source.flavour.clone().unwrap_or_default();
    b.set_string(d, vendor::DW_AT_DWARV_SPIRV_SET, &set);
    if ui == 0 {
        // Block files have no DIE (their code is their block's): their runs have no place.
        let block_file = |r: &crate::ir::ScopeRun| match r.scope {
            Ref::Scope(s) => matches!(m.scopes.get(s).kind, crate::ir::ScopeKind::BlockFile { .. }),
            _ => false,
        };
        let n = m.scope_runs.iter().filter(|r| block_file(r)).count();
        if n > 0 {
            b.loss(
                LossKind::Approximated,
                Ref::Unit(Handle::new(0)),
                format!("{n} scope run(s) of lexical block files: written as their blocks' ranges"),
            );
        }
        let mut spans = Vec::new();
        for row in &m.lines {
            if row.end_line.is_none() && row.end_column.is_none() {
                continue;
            }
            let (Some(s), Some(e)) = (word(row.range.start), word(row.range.end)) else {
                continue;
            };
            for v in [s, e, row.at.line.into(), row.at.column.into()] {
                put_uleb(&mut spans, v);
            }
            for v in [row.end_line, row.end_column] {
                put_uleb(&mut spans, v.map_or(0, |n| u64::from(n) + 1));
            }
        }
        let mut table = Vec::new();
        for e in b.event_exprs.clone() {
            match expr_bytes(m, e) {
                Ok(bytes) => {
                    put_uleb(&mut table, bytes.len() as u64);
                    table.extend(bytes);
                }
                Err(why) => {
                    b.loss(LossKind::Dropped, Ref::Expr(e), why);
                    put_uleb(&mut table, 0);
                }
            }
        }
        if !table.is_empty() {
            b.set(
                d,
                vendor::DW_AT_DWARV_EVENT_EXPRS,
                AttributeValue::Block(table),
            );
        }
        if !spans.is_empty() {
            b.set(
                d,
                vendor::DW_AT_DWARV_LINE_SPANS,
                AttributeValue::Block(spans),
            );
        }
        let info = &m.info;
        let size = info.address_size.map_or(0, u64::from);
        b.set(
            d,
            vendor::DW_AT_DWARV_ADDRESS_SIZE,
            AttributeValue::Udata(size),
        );
        if let Some(id) = &info.build_id {
            b.set_string(d, vendor::DW_AT_DWARV_BUILD_ID, &id.id);
            if id.flags != 0 {
                b.set(
                    d,
                    vendor::DW_AT_DWARV_BUILD_FLAGS,
                    AttributeValue::Udata(id.flags.into()),
                );
            }
        }
        if let Some(p) = &info.storage_path {
            b.set_string(d, vendor::DW_AT_DWARV_STORAGE_PATH, p);
        }
        if let Some(l) = &info.link {
            b.set_string(d, vendor::DW_AT_DWARV_LINK_ID, &l.build_id);
            if let Some(p) = &l.storage_path {
                b.set_string(d, vendor::DW_AT_DWARV_LINK_PATH, p);
            }
        }
    }
    runs(b, d, Ref::Unit(Handle::new(ui as u32)));
}

/// Marks a type without a scope or a function without a unit (DWARF puts them in a unit,
/// which the reader would take as theirs).
pub(super) fn no_scope(b: &mut Builder, d: Die, r: Ref) {
    let m = b.m;
    let none = match r {
        Ref::Type(t) => m.types.get(t).scope.is_none(),
        // A function's unit (the reader takes the DIE's unit).
        Ref::Scope(s) => m.scopes.get(s).function().is_some_and(|f| f.unit.is_none()),
        _ => false,
    };
    if from_spirv(m) && none {
        b.set(d, vendor::DW_AT_DWARV_NO_SCOPE, AttributeValue::FlagPresent);
    }
}

/// The exact scope runs of a unit, function or block.
pub(super) fn runs(b: &mut Builder, d: Die, scope: Ref) {
    if !from_spirv(b.m) {
        return;
    }
    let mut bytes = Vec::new();
    for run in b.m.scope_runs.iter().filter(|r| r.scope == scope) {
        if run.inlined.is_some() {
            // Inlined code is written natively (inlined_subroutine ranges) only.
            b.loss(
                LossKind::Approximated,
                scope,
                "a scope run of inlined code: written as inlined_subroutine ranges only",
            );
            continue;
        }
        if let (Some(s), Some(e)) = (word(run.range.start), word(run.range.end)) {
            put_uleb(&mut bytes, s);
            put_uleb(&mut bytes, e);
        }
    }
    if !bytes.is_empty() {
        b.set(d, vendor::DW_AT_DWARV_RUNS, AttributeValue::Block(bytes));
    }
}

/// The exact declare/value events of a variable.
pub(super) fn events(b: &mut Builder, d: Die, v: Handle<Variable>) {
    let m = b.m;
    if !from_spirv(m) {
        return;
    }
    let Some(list) = b.index.events.get(&v).cloned() else {
        return;
    };
    let var = m.vars.get(v);
    let var_file = var.at.and_then(|l| l.file);
    let unit_file = m.units.get(Handle::new(d.0 as u32)).file;
    let mut out = Vec::new();
    for k in list {
        let ev = &m.events[k];
        match event_bytes(m, &b.event_exprs, ev, var, var_file, unit_file) {
            Ok(bytes) => out.extend(bytes),
            Err(why) => b.loss(LossKind::Dropped, Ref::Var(v), format!("an event: {why}")),
        }
    }
    if !out.is_empty() {
        b.set(d, vendor::DW_AT_DWARV_EVENTS, AttributeValue::Block(out));
    }
}

/// The expressions events name, each once, in handle order.
pub(super) fn event_exprs(m: &Module) -> Vec<Handle<crate::ir::Expr>> {
    let mut v: Vec<_> = match from_spirv(m) {
        true => m.events.iter().filter_map(|e| e.expr).collect(),
        false => Vec::new(),
    };
    v.sort();
    v.dedup();
    v
}

/// An expression as DWARF bytes (no DIE operands: they have no offsets here).
fn expr_bytes(m: &Module, e: Handle<crate::ir::Expr>) -> Result<Vec<u8>, String> {
    let enc = Encoding {
        address_size: 8,
        offset_size: 4,
        amd: AmdOps::Raw,
    };
    encode_expr(&m.exprs.get(e).ops, &enc, &mut OffsetRefs)
        .map_err(|e| format!("expression: {e:?}"))
}

fn event_bytes(
    m: &Module,
    exprs: &[Handle<crate::ir::Expr>],
    ev: &crate::ir::Event,
    var: &Variable,
    var_file: Option<Handle<crate::ir::File>>,
    unit_file: Option<Handle<crate::ir::File>>,
) -> Result<Vec<u8>, String> {
    if ev.inlined.is_some() {
        return Err("it is in inlined code (an inlined-at has no encoding here)".into());
    }
    let mut o = Vec::new();
    let kind = match ev.kind {
        EventKind::Declare => 0,
        EventKind::Value => 1,
        EventKind::Addr => 2,
    };
    put_uleb(&mut o, kind);
    put_uleb(&mut o, word(ev.pos).ok_or("not at a SPIR-V position")?);
    put_uleb(&mut o, ev.values.len() as u64);
    for val in &ev.values {
        match val {
            Value::Spirv(id) => {
                put_uleb(&mut o, 0);
                put_uleb(&mut o, (*id).into());
            }
            Value::Int(n) => {
                put_uleb(&mut o, 1);
                let n = i64::try_from(*n).map_err(|_| "an integer operand over 64 bits")?;
                put_sleb(&mut o, n);
            }
            Value::Undef => put_uleb(&mut o, 2),
            _ => return Err("an operand that is not a SPIR-V id, an integer or undef".into()),
        }
    }
    let expr = ev.expr.and_then(|e| exprs.binary_search(&e).ok());
    put_uleb(&mut o, expr.map_or(0, |k| k as u64 + 1));
    put_uleb(&mut o, ev.indexes.len() as u64);
    for i in &ev.indexes {
        put_uleb(&mut o, (*i).into());
    }
    match ev.scope {
        None => put_uleb(&mut o, 0),
        Some(s) if var.scope == Some(Ref::Scope(s)) => put_uleb(&mut o, 1),
        Some(_) => return Err("its scope is not the variable's".into()),
    }
    match ev.at {
        None => put_uleb(&mut o, 0),
        Some(at) => {
            let scope_file = ev
                .scope
                .and_then(|s| m.scopes.get(s).at)
                .and_then(|l| l.file);
            let k = if at.file == var_file {
                0
            } else if at.file == scope_file {
                1
            } else if at.file == unit_file {
                2
            } else {
                return Err("its source file is not its variable's, scope's or unit's".into());
            };
            put_uleb(&mut o, 1 + k);
            put_uleb(&mut o, at.line.into());
            put_uleb(&mut o, at.column.into());
        }
    }
    Ok(o)
}
