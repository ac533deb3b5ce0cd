//! DWARF location expressions: bytes ⇄ `ir::expr` operations.
//!
//! Operation names and operand kinds are the rows of `spec::dwarf::OPS`; `WIDTHS` adds the
//! byte layout where it is not the default for the kind (ULEB128 for U, SLEB128 for S, a target
//! address for Addr, ULEB128 length + bytes for Block, a ULEB128 unit offset for Type, an offset
//! of `offset_size` bytes for Die, ULEB128 length + expression for Ops). An opcode the tables do
//! not name ends decoding: it and the rest of the expression become one `raw` operation, since
//! its operand sizes are unknown.

use super::bytes::{put_fixed, put_sleb, put_uleb, Cursor};
use super::{check_encoding, codec_err, AmdOps, CodecResult, Encoding};
use crate::ir::{Arg, Op, OpCode};
use crate::spec::dwarf::{row, ArgKind, OPS};

/// Byte layout of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OperandBytes {
    Uleb,
    Sleb,
    /// Unsigned / signed little-endian of N bytes.
    U(u8),
    S(u8),
    Addr,
    /// A DIE offset of the DWARF offset size (in .debug_info).
    InfoDie,
    /// A unit-relative DIE offset of N bytes (call2, call4).
    UnitDie(u8),
    /// A ULEB128 unit-relative offset of a base type DIE; 0 = the generic type.
    Type,
    /// ULEB128 / 1-byte length, then bytes.
    BlockUleb,
    Block1,
    /// ULEB128 length, then a nested expression.
    Ops,
    /// DW_OP_GNU_encoded_addr: a value in the DW_EH_PE encoding of the previous operand.
    Encoded,
}

/// Operands whose layout is not the default of their kind.
const WIDTHS: &[(u32, &[OperandBytes])] = &[
    (0x08, &[OperandBytes::U(1)]),
    (0x09, &[OperandBytes::S(1)]),
    (0x0a, &[OperandBytes::U(2)]),
    (0x0b, &[OperandBytes::S(2)]),
    (0x0c, &[OperandBytes::U(4)]),
    (0x0d, &[OperandBytes::S(4)]),
    (0x0e, &[OperandBytes::U(8)]),
    (0x0f, &[OperandBytes::S(8)]),
    (0x15, &[OperandBytes::U(1)]),
    (0x28, &[OperandBytes::S(2)]),
    (0x2f, &[OperandBytes::S(2)]),
    (0x94, &[OperandBytes::U(1)]),
    (0x95, &[OperandBytes::U(1)]),
    (0x98, &[OperandBytes::UnitDie(2)]),
    (0x99, &[OperandBytes::UnitDie(4)]),
    (0xa4, &[OperandBytes::Type, OperandBytes::Block1]),
    (0xa6, &[OperandBytes::U(1), OperandBytes::Type]),
    (0xa7, &[OperandBytes::U(1), OperandBytes::Type]),
    (0xf1, &[OperandBytes::U(1), OperandBytes::Encoded]),
    (0xf4, &[OperandBytes::Type, OperandBytes::Block1]),
    (0xf6, &[OperandBytes::U(1), OperandBytes::Type]),
    (0xfa, &[OperandBytes::U(4)]),
];

/// `DW_OP_LLVM_user` sub-opcodes (LLVM `Dwarf.def`, HANDLE_DW_OP_LLVM_USEROP) and the IR code of
/// each: seed 002's raw opcode where there is one, else `0xe900 + n` (operand-less).
/// `DW_OP_LLVM_aspace_implicit_pointer` (raw 0xe9) has no sub-opcode.
pub const LLVM_USER_SUBOPS: &[(u64, u32)] = &[
    (0x01, OpCode::LLVM_USER_BASE + 0x01), // DW_OP_LLVM_nop
    (0x02, 0xe1),                          // form_aspace_address
    (0x03, 0xe2),                          // push_lane
    (0x04, 0xe3),                          // offset
    (0x05, 0xe4),                          // offset_uconst
    (0x06, 0xe5),                          // bit_offset
    (0x07, 0xe6),                          // call_frame_entry_reg
    (0x08, 0xe7),                          // undefined
    (0x09, 0xe8),                          // aspace_bregx
    (0x0a, 0xea),                          // piece_end
    (0x0b, 0xeb),                          // extend
    (0x0c, 0xec),                          // select_bit_piece
];

const DW_OP_LLVM_USER: u8 = 0xe9;
/// IR codes of `DW_OP_LLVM_user` sub-ops with no raw equivalent (below the SPIR-V space).
const USER_UNMAPPED: std::ops::Range<u32> = OpCode::LLVM_USER_BASE..OpCode::SPIRV_BASE;
/// Seed 002's raw AMD opcodes.
const AMD_RAW: std::ops::RangeInclusive<u32> = 0xe1..=0xec;

/// What a DIE-valued operand is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// A base type: unit-relative offset (typed-stack ops); 0 means the generic type.
    Type,
    /// A DIE by unit-relative offset (DW_OP_call2/call4).
    UnitDie,
    /// A DIE by .debug_info offset (DW_OP_call_ref, implicit pointers, GNU_variable_value).
    InfoDie,
}

/// How DIE- and address-valued operands map to IR arguments. The reader resolves DIE offsets
/// to entities and applies relocations to addresses; the writer does the reverse and records
/// relocations. `at` is the operand's byte offset from the start of the outermost expression.
pub trait Refs {
    fn read_ref(&mut self, kind: RefKind, offset: u64) -> Result<Arg, String>;
    fn write_ref(&mut self, kind: RefKind, arg: &Arg) -> Result<u64, String>;
    fn read_addr(&mut self, _at: usize, value: u64) -> Result<Arg, String> {
        Ok(Arg::Int(i128::from(value)))
    }
    fn write_addr(&mut self, _at: usize, arg: &Arg) -> Result<u64, String> {
        match arg {
            Arg::Int(n) => u64::try_from(*n).map_err(|_| format!("address {n} out of range")),
            _ => Err("an address operand must be an integer".into()),
        }
    }
}

/// Keeps DIE offsets as integers (`Arg::Int`; `Arg::None` for the generic type): for tools and
/// tests that have no DIE tree at hand.
#[derive(Clone, Copy, Debug, Default)]
pub struct OffsetRefs;

impl Refs for OffsetRefs {
    fn read_ref(&mut self, kind: RefKind, offset: u64) -> Result<Arg, String> {
        Ok(match (kind, offset) {
            (RefKind::Type, 0) => Arg::None,
            _ => Arg::Int(i128::from(offset)),
        })
    }
    fn write_ref(&mut self, _kind: RefKind, arg: &Arg) -> Result<u64, String> {
        match arg {
            Arg::None => Ok(0),
            Arg::Int(n) => u64::try_from(*n).map_err(|_| format!("DIE offset {n} out of range")),
            _ => Err("a DIE operand must be an offset here".into()),
        }
    }
}

fn layout(code: u32, kinds: &[ArgKind]) -> Vec<OperandBytes> {
    if let Some((_, ws)) = WIDTHS.iter().find(|(c, _)| *c == code) {
        return ws.to_vec();
    }
    kinds
        .iter()
        .map(|k| match k {
            ArgKind::U => OperandBytes::Uleb,
            ArgKind::S => OperandBytes::Sleb,
            ArgKind::Addr => OperandBytes::Addr,
            ArgKind::Block => OperandBytes::BlockUleb,
            ArgKind::Type => OperandBytes::Type,
            ArgKind::Die => OperandBytes::InfoDie,
            ArgKind::Ops => OperandBytes::Ops,
        })
        .collect()
}

/// The fixed size of a DW_EH_PE value format, or None (LEB128 forms return Some(0)).
fn eh_pe_size(pe: u8, address_size: u8) -> Option<u8> {
    match pe & 0x0f {
        0x00 => Some(address_size),
        0x01 | 0x09 => Some(0),
        0x02 | 0x0a => Some(2),
        0x03 | 0x0b => Some(4),
        0x04 | 0x0c => Some(8),
        _ => None,
    }
}

fn sign_extend(v: u64, bytes: u8) -> i64 {
    let shift = 64 - 8 * u32::from(bytes);
    ((v << shift) as i64) >> shift
}

/// Decodes a whole expression. Unknown opcodes (and, in the `User` encoding, unknown sub-opcodes
/// with operands) end it with a `raw` operation holding the remaining bytes.
pub fn decode_expr(bytes: &[u8], enc: &Encoding, refs: &mut dyn Refs) -> CodecResult<Vec<Op>> {
    check_encoding(enc)?;
    decode_at(bytes, 0, enc, refs, 0)
}

/// Nested expressions deeper than this are refused (entry_value inside entry_value…).
const MAX_DEPTH: u32 = 16;

fn decode_at(
    bytes: &[u8],
    base: usize,
    enc: &Encoding,
    refs: &mut dyn Refs,
    depth: u32,
) -> CodecResult<Vec<Op>> {
    if depth > MAX_DEPTH {
        return codec_err(base, "expressions nested too deeply");
    }
    let mut c = Cursor::new(bytes);
    let mut ops = Vec::new();
    while !c.at_end() {
        let start = c.pos;
        let byte = c.u8("opcode")?;
        let code = match (byte, enc.amd) {
            (DW_OP_LLVM_USER, AmdOps::User) => {
                let sub = c.uleb("DW_OP_LLVM_user sub-opcode")?;
                match LLVM_USER_SUBOPS.iter().find(|(s, _)| *s == sub) {
                    Some((_, code)) => *code,
                    None => {
                        // Unknown sub-op: its operands are unknown too.
                        let code = u32::try_from(sub)
                            .ok()
                            .and_then(|s| s.checked_add(OpCode::LLVM_USER_BASE))
                            .filter(|c| USER_UNMAPPED.contains(c));
                        match code {
                            Some(code) => {
                                ops.push(Op::new(OpCode(code), vec![]));
                                if !c.at_end() {
                                    ops.push(raw(c.rest()));
                                }
                            }
                            None => ops.push(raw(&bytes[start..])),
                        }
                        return Ok(ops);
                    }
                }
            }
            (b, AmdOps::User) if AMD_RAW.contains(&u32::from(b)) => {
                ops.push(raw(&bytes[start..]));
                return Ok(ops);
            }
            (b, _) => u32::from(b),
        };
        let Some(r) = row(OPS, code) else {
            if USER_UNMAPPED.contains(&code) {
                // A known operand-less sub-op without a raw twin (DW_OP_LLVM_nop).
                ops.push(Op::new(OpCode(code), vec![]));
                continue;
            }
            ops.push(raw(&bytes[start..]));
            return Ok(ops);
        };
        let mut args = Vec::with_capacity(r.2.len());
        for w in layout(code, r.2) {
            let at = base + c.pos;
            let what = r.1;
            let arg = match w {
                OperandBytes::Uleb => Arg::Int(i128::from(c.uleb(what)?)),
                OperandBytes::Sleb => Arg::Int(i128::from(c.sleb(what)?)),
                OperandBytes::U(n) => Arg::Int(i128::from(c.fixed(n, what)?)),
                OperandBytes::S(n) => Arg::Int(i128::from(sign_extend(c.fixed(n, what)?, n))),
                OperandBytes::Addr => {
                    let v = c.fixed(enc.address_size, what)?;
                    refs.read_addr(at, v).or_else(|m| codec_err(at, m))?
                }
                OperandBytes::InfoDie => {
                    let v = c.fixed(enc.offset_size, what)?;
                    refs.read_ref(RefKind::InfoDie, v)
                        .or_else(|m| codec_err(at, m))?
                }
                OperandBytes::UnitDie(n) => {
                    let v = c.fixed(n, what)?;
                    refs.read_ref(RefKind::UnitDie, v)
                        .or_else(|m| codec_err(at, m))?
                }
                OperandBytes::Type => {
                    let v = c.uleb(what)?;
                    refs.read_ref(RefKind::Type, v)
                        .or_else(|m| codec_err(at, m))?
                }
                OperandBytes::BlockUleb => {
                    let n = c.uleb(what)?;
                    Arg::Bytes(c.take(n, what)?.to_vec())
                }
                OperandBytes::Block1 => {
                    let n = c.u8(what)?;
                    Arg::Bytes(c.take(u64::from(n), what)?.to_vec())
                }
                OperandBytes::Ops => {
                    let n = c.uleb(what)?;
                    let inner_base = base + c.pos;
                    let inner = c.take(n, what)?;
                    Arg::Ops(decode_at(inner, inner_base, enc, refs, depth + 1)?)
                }
                OperandBytes::Encoded => {
                    let pe = match args.first() {
                        Some(Arg::Int(p)) => *p as u8,
                        _ => 0,
                    };
                    match eh_pe_size(pe, enc.address_size) {
                        Some(0) if pe & 0x08 != 0 => Arg::Int(i128::from(c.sleb(what)?)),
                        Some(0) => Arg::Int(i128::from(c.uleb(what)?)),
                        Some(n) if pe & 0x0f == 0 => {
                            let v = c.fixed(n, what)?;
                            refs.read_addr(at, v).or_else(|m| codec_err(at, m))?
                        }
                        Some(n) if pe & 0x08 != 0 => {
                            Arg::Int(i128::from(sign_extend(c.fixed(n, what)?, n)))
                        }
                        Some(n) => Arg::Int(i128::from(c.fixed(n, what)?)),
                        None => {
                            // An encoding dwarv cannot size: keep the op and the rest raw.
                            ops.push(raw(&bytes[start..]));
                            return Ok(ops);
                        }
                    }
                }
            };
            args.push(arg);
        }
        ops.push(Op::new(OpCode(code), args));
    }
    Ok(ops)
}

fn raw(bytes: &[u8]) -> Op {
    Op::new(OpCode::RAW, vec![Arg::Bytes(bytes.to_vec())])
}

/// An address operand written as zeros, filled in once the whole expression is laid out so
/// that `Refs::write_addr` sees its final offset.
struct Pending<'a> {
    at: usize,
    size: u8,
    arg: &'a Arg,
}

/// Encodes operations. Fails on operations the encoding cannot express: LLVM DIExpression-only
/// and SPIR-V-only codes, `DW_OP_LLVM_user` sub-ops in the raw encoding, and
/// `llvm_aspace_implicit_pointer` in the user encoding.
pub fn encode_expr(ops: &[Op], enc: &Encoding, refs: &mut dyn Refs) -> CodecResult<Vec<u8>> {
    check_encoding(enc)?;
    let mut out = Vec::new();
    let mut pending = Vec::new();
    encode_into(ops, enc, refs, &mut out, &mut pending, 0)?;
    for p in pending {
        let v = refs
            .write_addr(p.at, p.arg)
            .or_else(|m| codec_err(p.at, m))?;
        if p.size < 8 && v >> (8 * u32::from(p.size)) != 0 {
            return codec_err(
                p.at,
                format!("address {v:#x} does not fit {} byte(s)", p.size),
            );
        }
        out[p.at..p.at + usize::from(p.size)]
            .copy_from_slice(&v.to_le_bytes()[..usize::from(p.size)]);
    }
    Ok(out)
}

fn int(arg: &Arg, at: usize, what: &str) -> CodecResult<i128> {
    match arg {
        Arg::Int(n) => Ok(*n),
        _ => codec_err(at, format!("{what}: an integer operand expected")),
    }
}

fn unsigned(arg: &Arg, at: usize, what: &str, bytes: u8) -> CodecResult<u64> {
    let n = int(arg, at, what)?;
    let max = if bytes >= 8 {
        u64::MAX as i128
    } else {
        (1i128 << (8 * bytes)) - 1
    };
    if n < 0 || n > max {
        return codec_err(
            at,
            format!("{what}: {n} does not fit {bytes} unsigned byte(s)"),
        );
    }
    Ok(n as u64)
}

fn signed(arg: &Arg, at: usize, what: &str, bytes: u8) -> CodecResult<i64> {
    let n = int(arg, at, what)?;
    let half = 1i128 << (8 * bytes - 1);
    if n < -half || n >= half {
        return codec_err(
            at,
            format!("{what}: {n} does not fit {bytes} signed byte(s)"),
        );
    }
    Ok(n as i64)
}

/// The opcode bytes of an IR code in an encoding.
fn opcode_bytes(code: u32, enc: &Encoding, out: &mut Vec<u8>, at: usize) -> CodecResult<()> {
    let user_sub = LLVM_USER_SUBOPS
        .iter()
        .find(|(_, c)| *c == code)
        .map(|(s, _)| *s);
    let unmapped_user = USER_UNMAPPED.contains(&code);
    match enc.amd {
        AmdOps::User if code == u32::from(DW_OP_LLVM_USER) => return codec_err(
            at,
            "llvm_aspace_implicit_pointer has no DW_OP_LLVM_user sub-opcode; use the raw encoding",
        ),
        AmdOps::User if user_sub.is_some() || unmapped_user => {
            out.push(DW_OP_LLVM_USER);
            put_uleb(
                out,
                user_sub.unwrap_or_else(|| u64::from(code - OpCode::LLVM_USER_BASE)),
            );
            return Ok(());
        }
        AmdOps::Raw if unmapped_user => {
            return codec_err(
                at,
                format!(
                    "DW_OP_LLVM_user sub-op {:#x} has no raw encoding",
                    code - OpCode::LLVM_USER_BASE
                ),
            )
        }
        _ => {}
    }
    match u8::try_from(code) {
        Ok(b) => {
            out.push(b);
            Ok(())
        }
        Err(_) => codec_err(
            at,
            format!("operation {code:#x} has no DWARF encoding (an LLVM or SPIR-V-only operation)"),
        ),
    }
}

fn encode_into<'a>(
    ops: &'a [Op],
    enc: &Encoding,
    refs: &mut dyn Refs,
    out: &mut Vec<u8>,
    pending: &mut Vec<Pending<'a>>,
    depth: u32,
) -> CodecResult<()> {
    if depth > MAX_DEPTH {
        return codec_err(out.len(), "expressions nested too deeply");
    }
    for op in ops {
        let at = out.len();
        if op.code == OpCode::RAW {
            match op.args.as_slice() {
                [Arg::Bytes(b)] => out.extend_from_slice(b),
                _ => return codec_err(at, "a raw operation holds one byte string"),
            }
            continue;
        }
        opcode_bytes(op.code.0, enc, out, at)?;
        let layout = match row(OPS, op.code.0) {
            Some(r) => layout(op.code.0, r.2),
            None => Vec::new(), // unmapped DW_OP_LLVM_user sub-op: no operands known
        };
        let what = row(OPS, op.code.0).map_or("operation", |r| r.1);
        if layout.len() != op.args.len() {
            return codec_err(
                at,
                format!(
                    "{what}: {} operand(s) expected, {} given",
                    layout.len(),
                    op.args.len()
                ),
            );
        }
        for (w, arg) in layout.iter().zip(&op.args) {
            let at = out.len();
            match *w {
                OperandBytes::Uleb => put_uleb(out, unsigned(arg, at, what, 8)?),
                OperandBytes::Sleb => put_sleb(out, signed(arg, at, what, 8)?),
                OperandBytes::U(n) => put_fixed(out, unsigned(arg, at, what, n)?, n),
                OperandBytes::S(n) => put_fixed(out, signed(arg, at, what, n)? as u64, n),
                OperandBytes::Addr => {
                    pending.push(Pending {
                        at,
                        size: enc.address_size,
                        arg,
                    });
                    put_fixed(out, 0, enc.address_size);
                }
                OperandBytes::InfoDie | OperandBytes::UnitDie(_) | OperandBytes::Type => {
                    let kind = match w {
                        OperandBytes::InfoDie => RefKind::InfoDie,
                        OperandBytes::UnitDie(_) => RefKind::UnitDie,
                        _ => RefKind::Type,
                    };
                    let v = refs.write_ref(kind, arg).or_else(|m| codec_err(at, m))?;
                    match *w {
                        OperandBytes::InfoDie => {
                            let n = enc.offset_size;
                            put_fixed(out, unsigned(&Arg::Int(v.into()), at, what, n)?, n)
                        }
                        OperandBytes::UnitDie(n) => {
                            put_fixed(out, unsigned(&Arg::Int(v.into()), at, what, n)?, n)
                        }
                        _ => put_uleb(out, v),
                    }
                }
                OperandBytes::BlockUleb | OperandBytes::Block1 => {
                    let Arg::Bytes(b) = arg else {
                        return codec_err(at, format!("{what}: a byte-string operand expected"));
                    };
                    if *w == OperandBytes::Block1 {
                        let n = u8::try_from(b.len()).or_else(|_| {
                            codec_err(at, format!("{what}: block longer than 255 bytes"))
                        })?;
                        out.push(n);
                    } else {
                        put_uleb(out, b.len() as u64);
                    }
                    out.extend_from_slice(b);
                }
                OperandBytes::Ops => {
                    let Arg::Ops(inner) = arg else {
                        return codec_err(at, format!("{what}: a nested expression expected"));
                    };
                    let mut body = Vec::new();
                    let mut inner_pending = Vec::new();
                    encode_into(inner, enc, refs, &mut body, &mut inner_pending, depth + 1)?;
                    put_uleb(out, body.len() as u64);
                    let shift = out.len();
                    pending.extend(inner_pending.into_iter().map(|p| Pending {
                        at: p.at + shift,
                        ..p
                    }));
                    out.extend_from_slice(&body);
                }
                OperandBytes::Encoded => {
                    let pe = unsigned(&op.args[0], at, what, 1)? as u8;
                    match eh_pe_size(pe, enc.address_size) {
                        Some(0) if pe & 0x08 != 0 => put_sleb(out, signed(arg, at, what, 8)?),
                        Some(0) => put_uleb(out, unsigned(arg, at, what, 8)?),
                        Some(n) if pe & 0x0f == 0 => {
                            pending.push(Pending { at, size: n, arg });
                            put_fixed(out, 0, n);
                        }
                        Some(n) if pe & 0x08 != 0 => {
                            put_fixed(out, signed(arg, at, what, n)? as u64, n)
                        }
                        Some(n) => put_fixed(out, unsigned(arg, at, what, n)?, n),
                        None => {
                            return codec_err(
                                at,
                                format!("{what}: unsupported pointer encoding {pe:#x}"),
                            )
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(amd: AmdOps) -> Encoding {
        Encoding {
            address_size: 8,
            offset_size: 4,
            amd,
        }
    }

    fn op(code: u32, args: Vec<Arg>) -> Op {
        Op::new(OpCode(code), args)
    }

    fn round_trip(ops: &[Op], e: &Encoding) -> Vec<u8> {
        let bytes = encode_expr(ops, e, &mut OffsetRefs).unwrap();
        let back = decode_expr(&bytes, e, &mut OffsetRefs).unwrap();
        assert_eq!(back, ops, "{e:?} {bytes:02x?}");
        assert_eq!(encode_expr(&back, e, &mut OffsetRefs).unwrap(), bytes);
        bytes
    }

    /// A sample of every operand layout, in both AMD encodings.
    fn sample() -> Vec<Op> {
        let i = |n: i128| Arg::Int(n);
        vec![
            op(0x03, vec![i(0x40_1000)]),
            op(0x08, vec![i(255)]),
            op(0x09, vec![i(-128)]),
            op(0x0b, vec![i(-300)]),
            op(0x0e, vec![i(u64::MAX as i128)]),
            op(0x0f, vec![i(i64::MIN as i128)]),
            op(0x10, vec![i(1 << 40)]),
            op(0x11, vec![i(-5)]),
            op(0x28, vec![i(-3)]),
            op(0x2f, vec![i(7)]),
            op(0x30, vec![]),
            op(0x70, vec![i(-16)]),
            op(0x91, vec![i(-24)]),
            op(0x92, vec![i(33), i(8)]),
            op(0x93, vec![i(4)]),
            op(0x94, vec![i(4)]),
            op(0x98, vec![i(0x30)]),
            op(0x99, vec![i(0x1234)]),
            op(0x9a, vec![i(0x2345)]),
            op(0x9d, vec![i(3), i(5)]),
            op(0x9e, vec![Arg::Bytes(vec![1, 2, 3, 4])]),
            op(0xa0, vec![i(0x99), i(-4)]),
            op(
                0xa3,
                vec![Arg::Ops(vec![op(0x55, vec![]), op(0x03, vec![i(8)])])],
            ),
            op(0xa4, vec![i(0x2a), Arg::Bytes(vec![0, 0, 0x80, 0x3f])]),
            op(0xa5, vec![i(17), i(0x2a)]),
            op(0xa6, vec![i(4), i(0x2a)]),
            op(0xa8, vec![Arg::None]),
            op(0xf3, vec![Arg::Ops(vec![op(0x50, vec![])])]),
            op(0xfa, vec![i(0xdead)]),
            op(0xf1, vec![i(0x00), i(0x1000)]),
            op(0xf1, vec![i(0x0b), i(-2)]),
            // AMD seed 002 operations with a DW_OP_LLVM_user sub-opcode.
            op(0xe1, vec![]),
            op(0xe2, vec![]),
            op(0xe3, vec![]),
            op(0xe4, vec![i(0x100)]),
            op(0xe5, vec![]),
            op(0xe6, vec![i(17)]),
            op(0xe7, vec![]),
            op(0xe8, vec![i(2600), i(-8)]),
            op(0xea, vec![]),
            op(0xeb, vec![i(32), i(64)]),
            op(0xec, vec![i(32), i(64)]),
            op(0x9f, vec![]),
        ]
    }

    #[test]
    fn identity_raw_and_user() {
        let ops = sample();
        let raw_bytes = round_trip(&ops, &enc(AmdOps::Raw));
        let user_bytes = round_trip(&ops, &enc(AmdOps::User));
        assert_ne!(raw_bytes, user_bytes);
        // Raw-only and user-only operations.
        let pointer = vec![op(0xe9, vec![Arg::Int(0x40), Arg::Int(-8)])];
        assert_eq!(
            round_trip(&pointer, &enc(AmdOps::Raw)),
            [0xe9, 0x40, 0, 0, 0, 0x78]
        );
        assert!(encode_expr(&pointer, &enc(AmdOps::User), &mut OffsetRefs).is_err());
        let nop = vec![op(OpCode::LLVM_USER_BASE + 1, vec![]), op(0x9f, vec![])];
        assert_eq!(round_trip(&nop, &enc(AmdOps::User)), [0xe9, 0x01, 0x9f]);
        assert!(encode_expr(&nop, &enc(AmdOps::Raw), &mut OffsetRefs).is_err());
    }

    #[test]
    fn llvm_user_bytes_match_llvm() {
        // From LLVM's llvm-dwarfdump test of the DW_OP_LLVM_user form.
        let e = enc(AmdOps::User);
        let ops = decode_expr(&[0xe9, 0x09, 0x00, 0x02], &e, &mut OffsetRefs).unwrap();
        assert_eq!(ops, vec![op(0xe8, vec![Arg::Int(0), Arg::Int(2)])]);
        let ops = decode_expr(&[0xe9, 0x0c, 0x20, 0x40], &e, &mut OffsetRefs).unwrap();
        assert_eq!(ops, vec![op(0xec, vec![Arg::Int(0x20), Arg::Int(0x40)])]);
        // Seed 002 raw: the same op is one byte.
        let ops = decode_expr(&[0xe8, 0x00, 0x02], &enc(AmdOps::Raw), &mut OffsetRefs).unwrap();
        assert_eq!(ops, vec![op(0xe8, vec![Arg::Int(0), Arg::Int(2)])]);
    }

    #[test]
    fn unknown_vendor_ops_survive_as_raw() {
        let raw_enc = enc(AmdOps::Raw);
        let user_enc = enc(AmdOps::User);
        // 0xed is no op dwarv knows: it and the rest are kept.
        let bytes = [0x50, 0xed, 0x01, 0x02];
        let ops = decode_expr(&bytes, &raw_enc, &mut OffsetRefs).unwrap();
        assert_eq!(
            ops[1],
            op(OpCode::RAW.0, vec![Arg::Bytes(vec![0xed, 1, 2])])
        );
        assert_eq!(encode_expr(&ops, &raw_enc, &mut OffsetRefs).unwrap(), bytes);
        // In the user encoding a raw AMD byte is an unknown vendor op.
        let bytes = [0x50, 0xe3, 0x9f];
        let ops = decode_expr(&bytes, &user_enc, &mut OffsetRefs).unwrap();
        assert_eq!(ops[1].code, OpCode::RAW);
        assert_eq!(
            encode_expr(&ops, &user_enc, &mut OffsetRefs).unwrap(),
            bytes
        );
        // An unknown DW_OP_LLVM_user sub-op keeps its number and the rest of the bytes.
        let bytes = [0xe9, 0x30, 0x05, 0x9f];
        let ops = decode_expr(&bytes, &user_enc, &mut OffsetRefs).unwrap();
        assert_eq!(ops[0], op(OpCode::LLVM_USER_BASE + 0x30, vec![]));
        assert_eq!(
            ops[1],
            op(OpCode::RAW.0, vec![Arg::Bytes(vec![0x05, 0x9f])])
        );
        assert_eq!(
            encode_expr(&ops, &user_enc, &mut OffsetRefs).unwrap(),
            bytes
        );
    }

    #[test]
    fn malformed_is_an_error_with_offset() {
        let e = enc(AmdOps::Raw);
        let err = decode_expr(&[0x9f, 0x0c, 1, 2], &e, &mut OffsetRefs).unwrap_err();
        assert_eq!(err.offset, 2);
        assert!(decode_expr(&[0x9e, 0xff, 0xff, 0x03], &e, &mut OffsetRefs).is_err());
        // entry_value nesting beyond the bound.
        let mut deep = vec![0x50u8];
        for _ in 0..40 {
            let mut b = vec![0xa3];
            put_uleb(&mut b, deep.len() as u64);
            b.extend_from_slice(&deep);
            deep = b;
        }
        assert!(decode_expr(&deep, &e, &mut OffsetRefs).is_err());
        // Values that do not fit their layout.
        assert!(encode_expr(&[op(0x08, vec![Arg::Int(256)])], &e, &mut OffsetRefs).is_err());
        assert!(encode_expr(
            &[op(0x1000, vec![Arg::Int(0), Arg::Int(8)])],
            &e,
            &mut OffsetRefs
        )
        .is_err());
    }

    #[test]
    fn address_operands_see_their_final_offset() {
        struct Seen(Vec<usize>);
        impl Refs for Seen {
            fn read_ref(&mut self, _: RefKind, o: u64) -> Result<Arg, String> {
                Ok(Arg::Int(o.into()))
            }
            fn write_ref(&mut self, _: RefKind, a: &Arg) -> Result<u64, String> {
                OffsetRefs.write_ref(RefKind::InfoDie, a)
            }
            fn read_addr(&mut self, at: usize, v: u64) -> Result<Arg, String> {
                self.0.push(at);
                Ok(Arg::Int(v.into()))
            }
            fn write_addr(&mut self, at: usize, a: &Arg) -> Result<u64, String> {
                self.0.push(at);
                OffsetRefs.write_addr(at, a)
            }
        }
        let ops = vec![
            op(0x30, vec![]),
            op(0xa3, vec![Arg::Ops(vec![op(0x03, vec![Arg::Int(9)])])]),
            op(0x03, vec![Arg::Int(7)]),
        ];
        let mut w = Seen(vec![]);
        let bytes = encode_expr(&ops, &enc(AmdOps::Raw), &mut w).unwrap();
        let mut r = Seen(vec![]);
        decode_expr(&bytes, &enc(AmdOps::Raw), &mut r).unwrap();
        assert_eq!(w.0, vec![4, 13]);
        assert_eq!(r.0, w.0);
    }
}
