//! Expressions and location lists, encoded by the shared codec (`crate::dwarf`). Operands that
//! name DIEs get their offsets from the previous writing pass (`unit::build` writes again until
//! the offsets settle); SPIR-V declare/value events become location lists (docs/dwarf.md).

use std::collections::HashMap;

use gimli::write::{AttributeValue, Expression};

use super::unit::{addr, Builder};
use super::OpEncoding;
use crate::diag::LossKind;
use crate::dwarf::{encode_expr, AmdOps, RefKind, Refs};
use crate::ir::{Arg, Expr, Handle, Location, Op, OpCode, Ref};

/// DIE offsets of the previous pass: entity → (offset of its unit, offset of its DIE).
pub(super) type Offsets = HashMap<Ref, (u64, u64)>;

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
    dies: &'a HashMap<Ref, super::unit::Die>,
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

/// The bytes of an expression in unit `u`, or None (with a loss) when they cannot be written.
fn bytes(b: &mut Builder, u: usize, e: Handle<Expr>, place: Ref) -> Option<Vec<u8>> {
    let ops = &b.m.exprs.get(e).ops;
    if !b.s.amd && ops.iter().any(is_amd_op) {
        b.loss(
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
    let enc = crate::dwarf::Encoding {
        address_size: b.s.address_size,
        offset_size: 4,
        amd: match b.s.op_encoding {
            OpEncoding::Raw => AmdOps::Raw,
            OpEncoding::User => AmdOps::User,
        },
    };
    let mut refs = WriterRefs {
        offsets: b.offsets.as_ref(),
        unit: u,
        dies: &b.dies,
        used: false,
    };
    let res = encode_expr(ops, &enc, &mut refs);
    b.used_refs |= refs.used;
    match res {
        Ok(v) => Some(v),
        Err(err) => {
            b.loss(
                LossKind::Dropped,
                place,
                format!("expression e{}: {err}", e.index()),
            );
            None
        }
    }
}

pub(super) fn expression(
    b: &mut Builder,
    u: usize,
    e: Handle<Expr>,
    place: Ref,
) -> Option<Expression> {
    bytes(b, u, e, place).map(Expression::raw)
}

/// A location attribute value: an exprloc or a location list.
pub(super) fn location(b: &mut Builder, u: usize, l: Location) -> Option<AttributeValue> {
    match l {
        Location::Expr(e) => expression(b, u, e, Ref::Expr(e)).map(AttributeValue::Exprloc),
        Location::List(h) => {
            let version = b.dwarf.units.get(b.units[u]).version();
            let (mut out, mut default) = (Vec::new(), None);
            for entry in &b.m.loclists.get(h).entries {
                let Some(data) = expression(b, u, entry.expr, Ref::LocList(h)) else {
                    continue;
                };
                match entry.range {
                    Some(r) if addr(r.end) > addr(r.start) => {
                        out.push((addr(r.start), addr(r.end), data))
                    }
                    Some(_) => b.loss(LossKind::Dropped, Ref::LocList(h), "an empty range"),
                    None if version >= 5 => default = Some(data),
                    None => b.loss(
                        LossKind::Dropped,
                        Ref::LocList(h),
                        "a default location-list entry (DWARF 4 has none)",
                    ),
                }
            }
            let list = super::unit::loc_list(version, out, default);
            let id = b.unit_mut(u).locations.add(list);
            Some(AttributeValue::LocationListRef(id))
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
    if evs.is_empty() {
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
        let enc = crate::dwarf::Encoding {
            address_size: b.s.address_size,
            offset_size: 4,
            amd: AmdOps::Raw,
        };
        let mut refs = WriterRefs {
            offsets: b.offsets.as_ref(),
            unit: u,
            dies: &b.dies,
            used: false,
        };
        let res = encode_expr(&ops, &enc, &mut refs);
        b.used_refs |= refs.used;
        match res {
            Ok(bytes) => list.push((start, end, Expression::raw(bytes))),
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
    let version = b.dwarf.units.get(b.units[u]).version();
    let id = b
        .unit_mut(u)
        .locations
        .add(super::unit::loc_list(version, list, None));
    Some(AttributeValue::LocationListRef(id))
}

/// The end of the function a variable belongs to (its last range end, or its scope runs').
fn function_end(b: &Builder, v: Handle<crate::ir::Variable>) -> u64 {
    let m = b.m;
    let scope = match m.vars.get(v).scope {
        Some(Ref::Scope(s)) => super::unit::enclosing_function(m, s),
        _ => None,
    };
    let Some(f) = scope else { return 0 };
    let own = m.scopes.get(f).function().map(|fi| fi.ranges.as_slice());
    own.filter(|r| !r.is_empty())
        .or_else(|| b.run_ranges.get(&f).map(|r| r.as_slice()))
        .and_then(|r| r.iter().map(|r| addr(r.end)).max())
        .unwrap_or(0)
}

/// An attribute kept raw by a reader, written back with its own form where gimli has it.
pub(super) fn raw_attr(a: &crate::ir::RawAttr) -> Option<AttributeValue> {
    let b = &a.bytes;
    let le = |n: usize| -> Option<u64> {
        (b.len() == n).then(|| {
            b.iter()
                .rev()
                .fold(0u64, |acc, x| (acc << 8) | u64::from(*x))
        })
    };
    Some(match a.form {
        0x0b => AttributeValue::Data1(le(1)? as u8),
        0x05 => AttributeValue::Data2(le(2)? as u16),
        0x06 => AttributeValue::Data4(le(4)? as u32),
        0x07 => AttributeValue::Data8(le(8)?),
        0x0c => AttributeValue::Flag(le(1)? != 0),
        0x19 => AttributeValue::FlagPresent,
        0x0a | 0x09 | 0x03 | 0x04 => AttributeValue::Block(b.clone()),
        0x18 => AttributeValue::Exprloc(Expression::raw(b.clone())),
        0x08 => AttributeValue::String(b.split(|&c| c == 0).next().unwrap_or_default().to_vec()),
        0x0f => AttributeValue::Udata(uleb(b)?),
        0x0d | 0x21 => AttributeValue::Sdata(sleb(b)?),
        _ => return None,
    })
}

fn uleb(b: &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for (i, x) in b.iter().enumerate().take(10) {
        v |= u64::from(x & 0x7f) << (7 * i);
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    (!b.is_empty()).then_some(v)
}

fn sleb(b: &[u8]) -> Option<i64> {
    let mut v = 0i64;
    let mut shift = 0;
    for x in b.iter().take(10) {
        v |= i64::from(x & 0x7f) << shift;
        shift += 7;
        if x & 0x80 == 0 {
            if shift < 64 && x & 0x40 != 0 {
                v |= -1 << shift;
            }
            return Some(v);
        }
    }
    None
}
