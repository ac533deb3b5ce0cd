//! What DWARF written from a code-less source — SPIR-V, LLVM IR — needs so that it reads back
//! to the same IR (and `dwarv attach` restores a module's debug info): dwarv vendor attributes
//! for the facts DWARF has no form for, above all code positions that are not machine
//! addresses. The native forms (line table, lexical-block ranges, location lists) are written
//! too; these attributes only make the reading exact (docs/dwarf.md, "SPIR-V ⇄ DWARF" and
//! "LLVM IR ⇄ DWARF").
//!
//! Encodings (all numbers ULEB128 unless said otherwise; a position is a SPIR-V word offset in
//! the debug-stripped normal form, DWARF address / 4, or an LLVM instruction number, the address
//! itself):
//! - `DW_AT_dwarv_spirv_set` (unit, string): the debug set's import name; marks the unit's
//!   addresses as 4 × word offsets.
//! - `DW_AT_dwarv_llvm` (unit, string): the module's target triple (may be empty); marks the
//!   unit's addresses as LLVM instruction numbers.
//! - `DW_AT_dwarv_runs` (unit, function, block; block form): the scope runs of that scope,
//!   `start end` pairs, not inlined; `DW_AT_dwarv_inlined_runs`: its runs in inlined code,
//!   `start end n` with n the inlined subroutine's `DW_AT_dwarv_inlined` number.
//! - `DW_AT_dwarv_line_spans` (unit; block): rows with a span, `start end line column
//!   end_line+1 end_column+1` (0 = absent).
//! - `DW_AT_dwarv_events` (variable; block): per event `kind pos n value… expr indexes scope
//!   at`: kind 0 declare / 1 value / 2 addr; a value is `0 id` (SPIR-V id), `1 sleb` (integer),
//!   `2` (undef) or `3 len bytes` (an LLVM value as LLVM prints it); expr is `0` (none) or
//!   `1+k`, the k-th of `DW_AT_dwarv_event_ops`; indexes `n i…`; scope `0` none / `1` the
//!   variable's / `2 n`, `3 n` the same in the code inlined at the inlined subroutine numbered
//!   n (`DW_AT_dwarv_inlined`); at `0` none or `1+k line column` with the file of the variable
//!   (k=0), of the event's scope (k=1) or of the unit (k=2).
//! - `DW_AT_dwarv_event_ops` (first unit; block): `len expression` per expression, an
//!   expression being segments `0 len bytes` (DWARF expression bytes, no DIE operands) and
//!   `1 code n sleb…` (an LLVM-only operation: code − 0x1000, integer operands). Earlier
//!   writers wrote `DW_AT_dwarv_event_exprs`, `len bytes` of DWARF expression bytes, which the
//!   reader still takes.
//! - `DW_AT_dwarv_build_id`/`_build_flags`/`_storage_path`/`_link_id`/`_link_path` (first unit):
//!   the module's build id and storage path, and the link records of `dwarv strip`.
//! - `DW_AT_dwarv_code_id` (first unit; string): the hash of the SPIR-V code whose positions
//!   the addresses are.

use gimli::write::AttributeValue;

use super::builder::{Builder, DieId};
use crate::diag::LossKind;
use crate::dwarf::bytes::{put_sleb, put_uleb};
use crate::dwarf::expr::{encode_expr, OffsetRefs};
use crate::dwarf::{AmdOps, Encoding};
use crate::ir::{CodePos, EventKind, Handle, Module, Ref, SourceFormat, Value, Variable};
use crate::spec::dwarf_vendor as vendor;

/// Whether the module's code positions are not machine addresses — SPIR-V word offsets or LLVM
/// instruction numbers — so that its units get the records.
pub(super) fn exact(m: &Module) -> bool {
    matches!(m.source.format, SourceFormat::Spirv | SourceFormat::Llvm)
}

/// A vendor block attribute, when it holds anything.
fn set_block(b: &mut Builder, d: DieId, at: gimli::DwAt, bytes: Vec<u8>) {
    if !bytes.is_empty() {
        b.set(d, at, AttributeValue::Block(bytes));
    }
}

/// A position as its records write it (word offset or instruction number).
fn word(p: CodePos) -> Option<u64> {
    match p {
        CodePos::Spirv(w) | CodePos::Llvm(w) => Some(w.into()),
        CodePos::Addr(_) => None,
    }
}

/// The unit's attributes: the source marker, line spans, and on the first unit the module's
/// records.
pub(super) fn unit_attrs(b: &mut Builder, d: DieId, ui: usize) {
    let m = b.m;
    if !exact(m) {
        return;
    }
    let marker = match m.source.format {
        SourceFormat::Spirv => vendor::DW_AT_DWARV_SPIRV_SET,
        _ => vendor::DW_AT_DWARV_LLVM,
    };
    let flavour = m.source.flavour.clone().unwrap_or_default();
    b.set_string(d, marker, &flavour);
    if ui == 0 {
        if m.source.format == SourceFormat::Llvm && !m.events.is_empty() {
            b.loss(
                LossKind::Approximated,
                Ref::Unit(Handle::new(0)),
                format!(
                    "{} declare/value event(s) of LLVM code: no DW_AT_location (instruction \
                     numbers are no addresses, LLVM values no registers), kept in \
                     DW_AT_dwarv_events",
                    m.events.len()
                ),
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
        set_block(b, d, vendor::DW_AT_DWARV_EVENT_OPS, table);
        set_block(b, d, vendor::DW_AT_DWARV_LINE_SPANS, spans);
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
        if let Some(c) = &info.code_id {
            b.set_string(d, vendor::DW_AT_DWARV_CODE_ID, c);
        }
    }
    runs(b, d, Ref::Unit(Handle::new(ui as u32)));
}

/// A unit's LLVM-only fields, when not the defaults (for every source: DWARF has no attribute
/// for them).
pub(super) fn unit_fields(b: &mut Builder, d: DieId, u: &crate::ir::Unit) {
    let fields = [
        u64::from(u.name_table),
        u64::from(u.split_debug_inlining),
        u64::from(u.debug_info_for_profiling),
        u64::from(u.ranges_base_address),
    ];
    let mut bytes = Vec::new();
    for (k, v) in fields.into_iter().enumerate() {
        if v != 0 {
            put_uleb(&mut bytes, k as u64);
            put_uleb(&mut bytes, v);
        }
    }
    set_block(b, d, vendor::DW_AT_DWARV_UNIT_FIELDS, bytes);
}

/// The retained lists (a function's retainedNodes, a unit's retained types) an entity is on,
/// ULEB: `0 place` (the function the entity is in) or `1 unit place` (unit by number). The
/// reader finds the function from where the DIE is, so an entity listed by a function it is
/// not in cannot be said.
pub(super) fn retained(b: &mut Builder, d: DieId, r: Ref) {
    let Some(places) = b.index.retained.get(&r).cloned() else {
        return;
    };
    let mut bytes = Vec::new();
    for (owner, k) in places {
        match owner {
            Ref::Scope(f) if function_of(b.m, r) == Some(f) => put_uleb(&mut bytes, 0),
            Ref::Unit(u) => {
                put_uleb(&mut bytes, 1);
                put_uleb(&mut bytes, u.index() as u64);
            }
            _ => {
                b.loss(
                    LossKind::Dropped,
                    r,
                    format!(
                        "listed as retained by {}{}, which it is not in",
                        owner.kind().prefix(),
                        owner.index()
                    ),
                );
                continue;
            }
        }
        put_uleb(&mut bytes, k);
    }
    set_block(b, d, vendor::DW_AT_DWARV_RETAINED, bytes);
}

/// Marks an entity scoped to a composite that does not list it among its elements (its DIE is
/// a child of the composite's all the same).
pub(super) fn not_element(b: &mut Builder, d: DieId, r: Ref) {
    let m = b.m;
    let scope = match r {
        Ref::Var(v) => m.vars.get(v).scope,
        Ref::Type(t) => match m.types.get(t).kind {
            crate::ir::TypeKind::TemplateParam { .. } => None,
            _ => m.types.get(t).scope,
        },
        Ref::Scope(s) => m.scopes.get(s).parent,
        _ => None,
    };
    if let Some(Ref::Type(c)) = scope {
        if let crate::ir::TypeKind::Composite { elements, .. } = &m.types.get(c).kind {
            if !elements.contains(&r) {
                b.set(
                    d,
                    vendor::DW_AT_DWARV_NOT_ELEMENT,
                    AttributeValue::FlagPresent,
                );
            }
        }
    }
}

/// The function an entity is in (through its scope chain), as the reader finds it.
fn function_of(m: &Module, r: Ref) -> Option<Handle<crate::ir::Scope>> {
    let scope = match r {
        Ref::Var(v) => m.vars.get(v).scope,
        Ref::Type(t) => m.types.get(t).scope,
        Ref::Scope(s) => m.scopes.get(s).parent,
        _ => None,
    };
    match scope? {
        Ref::Scope(s) => super::builder::enclosing_function(m, s),
        _ => None,
    }
}

/// Marks a type or variable without a scope or a function without a unit (DWARF puts them in
/// a unit, which the reader would take as theirs).
pub(super) fn no_scope(b: &mut Builder, d: DieId, r: Ref) {
    let m = b.m;
    let none = match r {
        Ref::Type(t) => m.types.get(t).scope.is_none(),
        // A function's unit (the reader takes the DIE's unit).
        Ref::Scope(s) => m.scopes.get(s).function().is_some_and(|f| f.unit.is_none()),
        Ref::Var(v) => m.vars.get(v).scope.is_none(),
        _ => false,
    };
    if exact(m) && none {
        b.set(d, vendor::DW_AT_DWARV_NO_SCOPE, AttributeValue::FlagPresent);
    }
    if let Ref::Type(t) = r {
        let ty = m.types.get(t);
        let unit_level = matches!(
            ty.kind,
            crate::ir::TypeKind::Composite { .. }
                | crate::ir::TypeKind::Enum { .. }
                | crate::ir::TypeKind::Typedef { .. }
                | crate::ir::TypeKind::TemplateParam { .. }
        );
        if !unit_level && matches!(ty.scope, Some(Ref::Unit(_))) {
            b.set(
                d,
                vendor::DW_AT_DWARV_UNIT_SCOPE,
                AttributeValue::FlagPresent,
            );
        }
    }
}

/// The exact scope runs of a unit, function or block: its own (`DW_AT_dwarv_runs`) and those of
/// code inlined into others (`DW_AT_dwarv_inlined_runs`, naming the inlined subroutine).
pub(super) fn runs(b: &mut Builder, d: DieId, scope: Ref) {
    if !exact(b.m) {
        return;
    }
    let m = b.m;
    let (mut own, mut inlined) = (Vec::new(), Vec::new());
    // Each scope is filled once: its list is taken, not copied.
    let list = b.runs_of.remove(&scope).unwrap_or_default();
    for k in list {
        let run = &m.scope_runs[k];
        let (Some(s), Some(e)) = (word(run.range.start), word(run.range.end)) else {
            continue;
        };
        let out = match run.inlined {
            None => &mut own,
            Some(ia) => match inlined_number(b, ia) {
                Some(n) => {
                    put_uleb(&mut inlined, s);
                    put_uleb(&mut inlined, e);
                    put_uleb(&mut inlined, n);
                    continue;
                }
                None => {
                    b.loss(
                        LossKind::Approximated,
                        scope,
                        "a scope run of inlined code whose call has no DIE: not written",
                    );
                    continue;
                }
            },
        };
        put_uleb(out, s);
        put_uleb(out, e);
    }
    set_block(b, d, vendor::DW_AT_DWARV_RUNS, own);
    set_block(b, d, vendor::DW_AT_DWARV_INLINED_RUNS, inlined);
}

/// The number the records name an inlined call by (its DIE carries it), if it has a DIE.
fn inlined_number(b: &Builder, ia: Handle<crate::ir::InlinedAt>) -> Option<u64> {
    b.dies.get(&Ref::Inlined(ia)).map(|_| ia.index() as u64)
}

/// Numbers an inlined subroutine's DIE for the records of its code: 2n, + 1 when the IR states
/// the inlined function (`InlinedAt::origin`) rather than the writer deriving it.
pub(super) fn inlined_die(b: &mut Builder, d: DieId, ia: Handle<crate::ir::InlinedAt>) {
    if exact(b.m) {
        let own = b.m.inlined.get(ia).origin.is_some();
        b.set(
            d,
            vendor::DW_AT_DWARV_INLINED,
            AttributeValue::Udata(2 * ia.index() as u64 + u64::from(own)),
        );
    }
}

/// The exact declare/value events of a variable.
pub(super) fn events(b: &mut Builder, d: DieId, v: Handle<Variable>) {
    let m = b.m;
    if !exact(m) {
        return;
    }
    let Some(list) = b.index.events.get(&v).map(<[_]>::to_vec) else {
        return;
    };
    let var = m.vars.get(v);
    let var_file = var.at.and_then(|l| l.file);
    let unit_file = m.units.get(Handle::new(d.0 as u32)).file;
    let mut out = Vec::new();
    for k in list {
        let ev = &m.events[k];
        let inlined = match ev.inlined {
            None => None,
            Some(ia) => match inlined_number(b, ia) {
                Some(n) => Some(n),
                None => {
                    b.loss(
                        LossKind::Dropped,
                        Ref::Var(v),
                        "an event in inlined code whose call has no DIE",
                    );
                    continue;
                }
            },
        };
        match event_bytes(m, &b.event_exprs, ev, inlined, var, var_file, unit_file) {
            Ok(bytes) => out.extend(bytes),
            Err(why) => b.loss(LossKind::Dropped, Ref::Var(v), format!("an event: {why}")),
        }
    }
    set_block(b, d, vendor::DW_AT_DWARV_EVENTS, out);
}

/// The scope runs of each scope, for `runs` (only a code-less source's are written).
pub(super) fn runs_of(m: &Module) -> rustc_hash::FxHashMap<Ref, Vec<usize>> {
    let mut by_scope = rustc_hash::FxHashMap::<Ref, Vec<usize>>::default();
    if exact(m) {
        for (k, r) in m.scope_runs.iter().enumerate() {
            by_scope.entry(r.scope).or_default().push(k);
        }
    }
    by_scope
}

/// The expressions events name, each once, in handle order.
pub(super) fn event_exprs(m: &Module) -> Vec<Handle<crate::ir::Expr>> {
    let mut v: Vec<_> = match exact(m) {
        true => m.events.iter().filter_map(|e| e.expr).collect(),
        false => Vec::new(),
    };
    v.sort();
    v.dedup();
    v
}

/// Whether an operation exists only in LLVM's DIExpression (DW_OP_LLVM_arg, _convert…): no
/// DWARF encoding has it.
fn llvm_only(op: &crate::ir::Op) -> bool {
    (0x1000..0x2_0000).contains(&op.code.0)
}

/// An expression for DW_AT_dwarv_event_ops: segments `0 len bytes` (DWARF expression bytes,
/// no DIE operands: they have no offsets here) and `1 code n arg…` (an LLVM-only operation,
/// its code − 0x1000 and SLEB integer operands).
fn expr_bytes(m: &Module, e: Handle<crate::ir::Expr>) -> Result<Vec<u8>, String> {
    let enc = Encoding {
        address_size: 8,
        offset_size: 4,
        amd: AmdOps::Raw,
    };
    let mut out = Vec::new();
    for run in m
        .exprs
        .get(e)
        .ops
        .chunk_by(|a, b| llvm_only(a) == llvm_only(b))
    {
        if !llvm_only(&run[0]) {
            let bytes = encode_expr(run, &enc, &mut OffsetRefs)
                .map_err(|e| format!("expression: {e:?}"))?;
            put_uleb(&mut out, 0);
            put_uleb(&mut out, bytes.len() as u64);
            out.extend(bytes);
            continue;
        }
        for op in run {
            put_uleb(&mut out, 1);
            put_uleb(&mut out, u64::from(op.code.0 - 0x1000));
            put_uleb(&mut out, op.args.len() as u64);
            for a in &op.args {
                match a {
                    crate::ir::Arg::Int(n) => put_sleb(
                        &mut out,
                        i64::try_from(*n).map_err(|_| "an operand over 64 bits")?,
                    ),
                    _ => return Err("an LLVM operation with a non-integer operand".into()),
                }
            }
        }
    }
    Ok(out)
}

fn event_bytes(
    m: &Module,
    exprs: &[Handle<crate::ir::Expr>],
    ev: &crate::ir::Event,
    inlined: Option<u64>,
    var: &Variable,
    var_file: Option<Handle<crate::ir::File>>,
    unit_file: Option<Handle<crate::ir::File>>,
) -> Result<Vec<u8>, String> {
    let mut o = Vec::new();
    let kind = match ev.kind {
        EventKind::Declare => 0,
        EventKind::Value => 1,
        EventKind::Addr => 2,
    };
    put_uleb(&mut o, kind);
    put_uleb(
        &mut o,
        word(ev.pos).ok_or("not at a SPIR-V or LLVM position")?,
    );
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
            Value::Llvm(text) => {
                put_uleb(&mut o, 3);
                put_uleb(&mut o, text.len() as u64);
                o.extend_from_slice(text.as_bytes());
            }
            _ => {
                return Err(
                    "an operand that is not a SPIR-V id, an integer, undef or an LLVM value".into(),
                )
            }
        }
    }
    let expr = ev.expr.and_then(|e| exprs.binary_search(&e).ok());
    put_uleb(&mut o, expr.map_or(0, |k| k as u64 + 1));
    put_uleb(&mut o, ev.indexes.len() as u64);
    for i in &ev.indexes {
        put_uleb(&mut o, (*i).into());
    }
    // Scope: 0 none, 1 the variable's; 2 and 3 the same, inlined at the numbered call.
    let scope = match ev.scope {
        None => 0,
        Some(s) if var.scope == Some(Ref::Scope(s)) => 1,
        Some(_) => return Err("its scope is not the variable's".into()),
    };
    match inlined {
        None => put_uleb(&mut o, scope),
        Some(n) => {
            put_uleb(&mut o, scope + 2);
            put_uleb(&mut o, n);
        }
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
