//! Expressions and location lists, encoded by the shared codec (`crate::dwarf`). Operands that
//! name DIEs get their offsets from the previous writing pass (`unit::build` writes again until
//! the offsets settle); SPIR-V declare/value events become location lists (docs/dwarf.md).

use gimli::write::{AttributeValue, DebugInfoRef, Expression, UnitEntryId};

use super::builder::{
    addr, enclosing_function, Builder, DieId, DieMap, EncodedKey, Offsets, OpEncoding,
};
use super::loclists::Data;
use crate::diag::LossKind;
use crate::dwarf::{encode_expr, AmdOps, RefKind, Refs};
use crate::ir::{Arg, Bound, Expr, Handle, Location, Op, OpCode, Ref};
use gimli::{constants as dw, DwAt};

/// Whether an operation is one of AMD's (seed 002 raw codes or DW_OP_LLVM_user sub-ops).
pub(super) fn is_amd_op(op: &Op) -> bool {
    (0xe1..=0xec).contains(&op.code.0)
        || (OpCode::LLVM_USER_BASE..OpCode::SPIRV_BASE).contains(&op.code.0)
        || op.args.iter().any(|a| match a {
            Arg::Ops(inner) => inner.iter().any(is_amd_op),
            _ => false,
        })
}

struct WriterRefs<'a> {
    offsets: Option<&'a Offsets>,
    unit: usize,
    dies: &'a DieMap,
    used: bool,
}

impl Refs for WriterRefs<'_> {
    fn read_ref(&mut self, _kind: RefKind, _offset: u64) -> Result<Arg, String> {
        Err("the writer does not decode".into())
    }
    fn write_ref(&mut self, kind: RefKind, arg: &Arg) -> Result<u64, String> {
        let r = match arg {
            Arg::None => return Ok(0),
            Arg::Ref(r) => *r,
            Arg::Int(n) => return u64::try_from(*n).map_err(|_| format!("DIE offset {n}")),
            _ => return Err("a DIE operand must be a reference".into()),
        };
        let Some(&(u, _)) = self.dies.get(&r) else {
            return Err(format!("{}{} has no DIE", r.kind().prefix(), r.index()));
        };
        if kind != RefKind::InfoDie && u != self.unit {
            return Err("a unit-relative reference to another unit".into());
        }
        self.used = true;
        Ok(match self.offsets.and_then(|o| o.get(&r)) {
            Some(&(unit_off, die_off)) => match kind {
                RefKind::InfoDie => die_off,
                _ => die_off - unit_off,
            },
            None => 0,
        })
    }
}

/// An expression in unit `u`, or None (with a loss) when it cannot be written.
pub(super) fn expression(
    b: &mut Builder,
    u: usize,
    e: Handle<Expr>,
    place: Ref,
    in_list: bool,
) -> Option<Expression> {
    let key = encoded(b, u, e, place, in_list)?;
    b.encoded.get(&key)?.as_ref().ok().map(Data::expression)
}

/// The key of an expression of unit `u` in `b.encoded`, encoded there if it was not yet; None
/// (with a loss) when it cannot be written.
fn encoded(
    b: &mut Builder,
    u: usize,
    e: Handle<Expr>,
    place: Ref,
    in_list: bool,
) -> Option<EncodedKey> {
    // Optimised code uses each expression many times (101 132 list entries, 3 308 encodings
    // on the linked sqlite program): an expression met before passed the checks below then.
    let key = EncodedKey {
        unit: u,
        expr: e,
        in_list,
    };
    let done = match b.encoded.get(&key) {
        Some(done) => done,
        None => {
            let done = first_encoding(b, u, e, place, in_list)?;
            b.encoded.entry(key).or_insert(done)
        }
    };
    match done {
        Ok(_) => Some(key),
        Err(err) => {
            let msg = format!("expression e{}: {err}", e.index());
            b.loss(LossKind::Dropped, place, msg);
            None
        }
    }
}

/// [`encoded`] of an expression not met before in unit `u`: its encoding, or None (with a
/// loss) when its operations cannot be written at all.
fn first_encoding(
    b: &mut Builder,
    u: usize,
    e: Handle<Expr>,
    place: Ref,
    in_list: bool,
) -> Option<std::result::Result<super::loclists::Data, String>> {
    let ops = &b.m.exprs.get(e).ops;
    if !b.s.amd && ops.iter().any(is_amd_op) {
        b.avoidable_loss(
            LossKind::Dropped,
            place,
            "a location with AMD operations (AMD extensions off)",
        );
        return None;
    }
    // Indexes into a .debug_addr that dwarv does not write (readers resolve them).
    if ops
        .iter()
        .any(|o| matches!(o.code.0, 0xa1 | 0xa2 | 0xfb | 0xfc))
    {
        b.loss(
            LossKind::Dropped,
            place,
            "an expression indexing .debug_addr",
        );
        return None;
    }
    let amd = match b.s.op_encoding {
        OpEncoding::Raw => AmdOps::Raw,
        OpEncoding::User => AmdOps::User,
    };
    Some(encode(b, u, ops, amd, in_list))
}

/// Encodes operations for unit `u`. Those naming DIEs go through gimli's typed operations where
/// one writes the same bytes ([`typed`]), so that gimli fills in the offsets while it writes;
/// the others take offsets from the previous writing pass (`unit::build`).
fn encode(
    b: &mut Builder,
    u: usize,
    ops: &[Op],
    amd: AmdOps,
    in_list: bool,
) -> Result<Data, String> {
    let enc = crate::dwarf::Encoding {
        address_size: b.s.address_size,
        offset_size: 4,
        amd,
    };
    if ops.iter().any(names_die) {
        if let Some(x) = typed(b, u, ops, &enc, in_list)? {
            return Ok(Data::Typed(x));
        }
    }
    let mut refs = WriterRefs {
        offsets: b.offsets.as_ref(),
        unit: u,
        dies: &b.dies,
        used: false,
    };
    let res = encode_expr(ops, &enc, &mut refs);
    b.used_refs |= refs.used;
    res.map(Data::Raw).map_err(|e| e.to_string())
}

/// Whether an operation has a DIE operand (nested expressions included).
fn names_die(op: &Op) -> bool {
    op.args.iter().any(|a| match a {
        Arg::Ref(_) => true,
        Arg::Ops(inner) => inner.iter().any(names_die),
        _ => false,
    })
}

/// The operations with DIE operands that gimli writes itself: its DWARF 5 opcode and, where
/// it differs, the one it writes before DWARF 5.
const TYPED: &[(u32, Option<u32>)] = &[
    (0xa0, Some(0xf2)), // implicit_pointer
    (0xa3, Some(0xf3)), // entry_value
    (0xa4, Some(0xf4)), // const_type
    (0xa5, Some(0xf5)), // regval_type
    (0xa6, Some(0xf6)), // deref_type
    (0xa7, None),       // xderef_type
    (0xa8, Some(0xf7)), // convert
    (0xa9, Some(0xf9)), // reinterpret
    (0x99, None),       // call4
    (0x9a, None),       // call_ref
    (0xfd, None),       // GNU_variable_value
];

/// An expression naming DIEs, built through gimli's typed operations, which gimli resolves in
/// the pass that writes it. gimli cannot append raw bytes to such an expression, so every
/// operation without a DIE operand is encoded by the codec and appended byte by byte as
/// operand-less operations (gimli writes one as its single byte).
///
/// Ok(None) when an operation has no typed twin writing the same bytes (call2, a GNU opcode in
/// a DWARF 5 unit), names a base type that may come after the referring DIE (gimli sizes the
/// ULEB128 type offsets in DIE order, having moved only the unit's top-level base types to the
/// front), or refers into .debug_info from a location list (gimli records no fixups there).
fn typed(
    b: &Builder,
    u: usize,
    ops: &[Op],
    enc: &crate::dwarf::Encoding,
    in_list: bool,
) -> Result<Option<Expression>, String> {
    use gimli::constants::DwOp;
    let version = b.dwarf.units.get(b.units[u]).version();
    let mut x = Expression::new();
    for op in ops {
        if !names_die(op) {
            let bytes = encode_expr(std::slice::from_ref(op), enc, &mut crate::dwarf::OffsetRefs)
                .map_err(|e| e.to_string())?;
            for byte in bytes {
                x.op(DwOp(byte));
            }
            continue;
        }
        let code = op.code.0;
        let gimli_writes = |&(v5, older): &(u32, Option<u32>)| match older {
            Some(older) if version < 5 => code == older,
            _ => code == v5,
        };
        if !TYPED.iter().any(gimli_writes) {
            return Ok(None);
        }
        let int = |i: usize| match op.args.get(i) {
            Some(Arg::Int(n)) => Ok(*n),
            _ => Err(format!(
                "operation {code:#x}: operand {i} is not an integer"
            )),
        };
        let target = op.args.iter().find_map(|a| match a {
            Arg::Ref(r) => Some(*r),
            _ => None,
        });
        let Some(target) = target else {
            // Only a nested expression names a DIE (entry_value).
            let Some(Arg::Ops(inner)) = op.args.first() else {
                return Ok(None);
            };
            match typed(b, u, inner, enc, in_list)? {
                Some(inner) => x.op_entry_value(inner),
                None => return Ok(None),
            }
            continue;
        };
        let Some(&(tu, id)) = b.dies.get(&target) else {
            return Err(format!(
                "{}{} has no DIE",
                target.kind().prefix(),
                target.index()
            ));
        };
        let info_ref = DebugInfoRef::Entry(b.units[tu], id);
        // A base type gimli has placed before every DIE that could refer to it.
        let base = || -> Result<Option<UnitEntryId>, String> {
            if tu != u {
                return Err("a unit-relative reference to another unit".into());
            }
            let root = b.dwarf.units.get(b.units[u]).root();
            let top_level = b.tag(target) == gimli::constants::DW_TAG_base_type
                && b.parent_die(target, u) == root;
            Ok(top_level.then_some(id))
        };
        match code {
            0xa8 | 0xf7 | 0xa9 | 0xf9 => {
                let Some(id) = base()? else { return Ok(None) };
                match code {
                    0xa8 | 0xf7 => x.op_convert(Some(id)),
                    _ => x.op_reinterpret(Some(id)),
                }
            }
            0xa6 | 0xf6 | 0xa7 => {
                let Some(id) = base()? else { return Ok(None) };
                let size = u8::try_from(int(0)?).map_err(|_| "deref_type: size over 255")?;
                match code {
                    0xa7 => x.op_xderef_type(size, id),
                    _ => x.op_deref_type(size, id),
                }
            }
            0xa4 | 0xf4 => {
                let Some(id) = base()? else { return Ok(None) };
                let Some(Arg::Bytes(value)) = op.args.get(1) else {
                    return Err("const_type: a block operand expected".into());
                };
                if value.len() > 255 {
                    return Err("const_type: a constant longer than 255 bytes".into());
                }
                x.op_const_type(id, value.clone().into_boxed_slice());
            }
            0xa5 | 0xf5 => {
                let Some(id) = base()? else { return Ok(None) };
                let reg = u16::try_from(int(0)?).map_err(|_| "regval_type: register over 65535")?;
                x.op_regval_type(gimli::Register(reg), id);
            }
            0x99 if tu == u => x.op_call(id),
            0x9a if !in_list => x.op_call_ref(info_ref),
            0xfd if !in_list => x.op_variable_value(info_ref),
            0xa0 | 0xf2 if !in_list && (version > 2 || enc.address_size == 4) => {
                let offset = i64::try_from(int(1)?).map_err(|_| "implicit_pointer: offset")?;
                x.op_implicit_pointer(info_ref, offset);
            }
            _ => return Ok(None),
        }
    }
    Ok(Some(x))
}

/// A location attribute value: an exprloc or a location list.
pub(super) fn location(b: &mut Builder, u: usize, l: Location) -> Option<AttributeValue> {
    match l {
        Location::Expr(e) => expression(b, u, e, Ref::Expr(e), false).map(AttributeValue::Exprloc),
        Location::List(h) => {
            let version = b.dwarf.units.get(b.units[u]).version();
            let (mut out, mut default) = (Vec::new(), None);
            for entry in &b.m.loclists.get(h).entries {
                let Some(key) = encoded(b, u, entry.expr, Ref::LocList(h), true) else {
                    continue;
                };
                // An empty range stays: gcc writes them for location views, one view pair
                // each (`DW_AT_dwarv_locviews`).
                match entry.range {
                    Some(r) if version < 5 && addr(r.end) == 0 => b.loss(
                        LossKind::Dropped,
                        Ref::LocList(h),
                        "an empty range at address 0 (DWARF 4's end of list)",
                    ),
                    Some(r) if addr(r.end) >= addr(r.start) => {
                        out.push((addr(r.start), addr(r.end), key))
                    }
                    Some(_) => b.loss(LossKind::Dropped, Ref::LocList(h), "a reversed range"),
                    None if version >= 5 => default = Some(key),
                    None => b.avoidable_loss(
                        LossKind::Dropped,
                        Ref::LocList(h),
                        "a default location-list entry (DWARF 4 has none)",
                    ),
                }
            }
            let base = b.unit_base(u);
            let done = &b.encoded;
            let data = |k| done.get(k).and_then(|d| d.as_ref().ok());
            let out = out
                .iter()
                .filter_map(|(s, e, k)| Some((*s, *e, data(k)?)))
                .collect();
            let default = default.as_ref().and_then(data);
            Some(b.loclists.add(u, base, out, default))
        }
    }
}

/// A location list built from a variable's declare/value events (SPIR-V, LLVM): from each
/// event to the next one of the same variable or to the end of the enclosing function. The
/// operand, a SPIR-V id `%N`, is addressed as DWARF register N (`bregx N 0` for a declare, the
/// address; `regx N` for a value), followed by the event's own expression (docs/dwarf.md).
pub(super) fn events_location(
    b: &mut Builder,
    u: usize,
    v: Handle<crate::ir::Variable>,
) -> Option<AttributeValue> {
    let m = b.m;
    let mut evs: Vec<&crate::ir::Event> = match b.index.events.get(&v) {
        Some(list) => list.iter().map(|&k| &m.events[k]).collect(),
        None => return None,
    };
    // LLVM instruction numbers are no addresses, nor LLVM values registers: DW_AT_dwarv_events
    // keeps the events of an LLVM module (one ledger line for all, `records::unit_attrs`).
    if evs.is_empty() || m.source.format == crate::ir::SourceFormat::Llvm {
        return None;
    }
    evs.sort_by_key(|e| addr(e.pos));
    let end_of_fn = function_end(b, v);
    let mut list = Vec::new();
    for (i, ev) in evs.iter().enumerate() {
        let start = addr(ev.pos);
        let end = evs
            .get(i + 1)
            .map_or(end_of_fn.max(start + 4), |n| addr(n.pos));
        if end <= start {
            continue;
        }
        let mut ops: Vec<Op> = Vec::new();
        match ev.values.as_slice() {
            [crate::ir::Value::Spirv(id)] => match ev.kind {
                crate::ir::EventKind::Value => {
                    ops.push(Op::new(OpCode(0x90), vec![Arg::Int((*id).into())]))
                }
                _ => ops.push(Op::new(
                    OpCode(0x92),
                    vec![Arg::Int((*id).into()), Arg::Int(0)],
                )),
            },
            _ => {
                b.loss(
                    LossKind::Dropped,
                    Ref::Var(v),
                    "an event whose operand is not one SPIR-V id",
                );
                continue;
            }
        }
        if let Some(e) = ev.expr {
            ops.extend(m.exprs.get(e).ops.iter().cloned());
        }
        match encode(b, u, &ops, AmdOps::Raw, true) {
            Ok(x) => list.push((start, end, x)),
            Err(err) => b.loss(
                LossKind::Dropped,
                Ref::Var(v),
                format!("event expression: {err}"),
            ),
        }
    }
    if list.is_empty() {
        return None;
    }
    let base = b.unit_base(u);
    let list = list.iter().map(|(s, e, d)| (*s, *e, d)).collect();
    Some(b.loclists.add(u, base, list, None))
}

/// The end of the function a variable belongs to (its last range end, or its scope runs').
fn function_end(b: &Builder, v: Handle<crate::ir::Variable>) -> u64 {
    let m = b.m;
    let scope = match m.vars.get(v).scope {
        Some(Ref::Scope(s)) => enclosing_function(m, s),
        _ => None,
    };
    let Some(f) = scope else { return 0 };
    let own = m.scopes.get(f).function().map(|fi| fi.ranges.as_slice());
    own.filter(|r| !r.is_empty())
        .or_else(|| b.run_ranges.get(&f).map(|r| r.as_slice()))
        .and_then(|r| r.iter().map(|r| addr(r.end)).max())
        .unwrap_or(0)
}

impl Builder<'_, '_> {
    /// DW_AT_byte_size (or bit_size when not a whole number of bytes) of a bound.
    pub(super) fn set_size(&mut self, d: DieId, size: Option<Bound>) {
        match size {
            Some(Bound::Const(bits)) if bits % 8 == 0 => self.set(
                d,
                dw::DW_AT_byte_size,
                AttributeValue::Udata((bits / 8) as u64),
            ),
            Some(Bound::Const(bits)) => {
                self.set(d, dw::DW_AT_bit_size, AttributeValue::Udata(bits as u64))
            }
            Some(b @ Bound::Ref(_)) => self.set_bound(d, dw::DW_AT_byte_size, Some(b)),
            None => {}
        }
    }

    /// A bound: a constant, a reference to a variable or member, or an expression.
    pub(super) fn set_bound(&mut self, d: DieId, at: DwAt, b: Option<Bound>) {
        match b {
            Some(Bound::Const(c)) => self.set(d, at, AttributeValue::Sdata(c)),
            Some(Bound::Ref(Ref::Expr(e))) => {
                if let Some(x) = self.expression(d, e) {
                    self.set(d, at, AttributeValue::Exprloc(x));
                }
            }
            Some(Bound::Ref(r)) => self.set_ref(d, at, Some(r)),
            None => {}
        }
    }

    pub(super) fn expression(
        &mut self,
        d: DieId,
        e: Handle<crate::ir::Expr>,
    ) -> Option<gimli::write::Expression> {
        expression(self, d.0, e, Ref::Expr(e), false)
    }

    pub(super) fn set_location(&mut self, d: DieId, at: DwAt, l: Option<Location>) {
        if let Some(v) = l.and_then(|l| location(self, d.0, l)) {
            self.set(d, at, v);
        }
    }
}
