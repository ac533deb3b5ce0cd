//! Call-frame instructions (DW_CFA): bytes ⇄ `ir::cfi` operations, table-driven from
//! `spec::dwarf::CFAS`, AMD's `DW_CFA_LLVM_def_aspace_cfa(_sf)` (0x30/0x31) included. Compact
//! forms (advance_loc 0x40, offset 0x80, restore 0xc0) carry their low six bits as the first
//! operand. Nested expressions go through the expression codec with the same encoding. An
//! unknown instruction ends decoding with a `raw` instruction holding the remaining bytes.

use super::bytes::{put_fixed, put_sleb, put_uleb, Cursor};
use super::expr::{decode_expr, encode_expr};
use super::{check_encoding, codec_err, CodecResult, Encoding, Refs};
use crate::ir::{Arg, CfaCode, CfaOp};
use crate::spec::dwarf::{row, ArgKind, CFAS};

/// Instructions whose operands are fixed-size (advance_loc1/2/4).
const FIXED: &[(u16, u8)] = &[(0x02, 1), (0x03, 2), (0x04, 4)];

/// Decodes a CFA program (a CIE's initial instructions or an FDE's instructions).
pub fn decode_cfa(bytes: &[u8], enc: &Encoding, refs: &mut dyn Refs) -> CodecResult<Vec<CfaOp>> {
    check_encoding(enc)?;
    let mut c = Cursor::new(bytes);
    let mut ops = Vec::new();
    while !c.at_end() {
        let start = c.pos;
        let byte = c.u8("DW_CFA opcode")?;
        // DW_CFA_advance_loc, _offset and _restore hold their operand in the low six bits.
        let compact = byte & 0xc0 != 0;
        let code = u16::from(if compact { byte & 0xc0 } else { byte });
        let Some(r) = row(CFAS, u32::from(code)).filter(|_| code != CfaCode::RAW.0) else {
            ops.push(CfaOp::new(
                CfaCode::RAW,
                vec![Arg::Bytes(bytes[start..].to_vec())],
            ));
            return Ok(ops);
        };
        // At its size: a vector grown from empty holds four operands (a linked program's CFI
        // is tens of thousands of instructions).
        let mut args = Vec::with_capacity(r.2.len());
        if compact {
            args.push(Arg::Int(i128::from(byte & 0x3f)));
        }
        let what = r.1;
        for kind in &r.2[args.len()..] {
            let at = c.pos;
            let arg = match kind {
                ArgKind::U => match FIXED.iter().find(|(k, _)| *k == code) {
                    Some((_, n)) => Arg::Int(i128::from(c.fixed(*n, what)?)),
                    None => Arg::Int(i128::from(c.uleb(what)?)),
                },
                ArgKind::S => Arg::Int(i128::from(c.sleb(what)?)),
                ArgKind::Addr => {
                    let v = c.fixed(enc.address_size, what)?;
                    refs.read_addr(at, v).or_else(|m| codec_err(at, m))?
                }
                ArgKind::Ops => {
                    let n = c.uleb(what)?;
                    let body_at = c.pos;
                    let body = c.take(n, what)?;
                    let inner = decode_expr(body, enc, refs).map_err(|mut e| {
                        e.offset += body_at;
                        e
                    })?;
                    Arg::Ops(inner)
                }
                ArgKind::Block | ArgKind::Type | ArgKind::Die => {
                    return codec_err(at, format!("{what}: operand kind {kind:?} in a CFA table"))
                }
            };
            args.push(arg);
        }
        ops.push(CfaOp::new(CfaCode(code), args));
    }
    Ok(ops)
}

/// Encodes a CFA program. Fails on operands out of range (a compact form's operand must fit six
/// bits) or of the wrong kind.
pub fn encode_cfa(ops: &[CfaOp], enc: &Encoding, refs: &mut dyn Refs) -> CodecResult<Vec<u8>> {
    check_encoding(enc)?;
    let mut out = Vec::new();
    for op in ops {
        let at = out.len();
        if op.code == CfaCode::RAW {
            match op.args.as_slice() {
                [Arg::Bytes(b)] => out.extend_from_slice(b),
                _ => return codec_err(at, "a raw CFA instruction holds one byte string"),
            }
            continue;
        }
        let Some(r) = row(CFAS, u32::from(op.code.0)) else {
            return codec_err(at, format!("unknown CFA instruction {:#x}", op.code.0));
        };
        let what = r.1;
        if r.2.len() != op.args.len() {
            return codec_err(
                at,
                format!(
                    "{what}: {} operand(s) expected, {} given",
                    r.2.len(),
                    op.args.len()
                ),
            );
        }
        let compact = op.code.0 >= 0x40;
        let mut args = op.args.iter();
        if compact {
            let low = int(args.next(), at, what)?;
            if !(0..0x40).contains(&low) {
                return codec_err(at, format!("{what}: {low} does not fit six bits"));
            }
            out.push(op.code.0 as u8 | low as u8);
        } else {
            out.push(op.code.0 as u8);
        }
        for (kind, arg) in r.2[usize::from(compact)..].iter().zip(args) {
            let at = out.len();
            match kind {
                ArgKind::U => {
                    let n = int(Some(arg), at, what)?;
                    match FIXED.iter().find(|(k, _)| *k == op.code.0) {
                        Some((_, size)) => {
                            if n < 0 || n >= 1i128 << (8 * size) {
                                return codec_err(at, format!("{what}: {n} does not fit"));
                            }
                            put_fixed(&mut out, n as u64, *size)
                        }
                        None => {
                            let v = u64::try_from(n).or_else(|_| {
                                codec_err(at, format!("{what}: {n} is not unsigned"))
                            })?;
                            put_uleb(&mut out, v)
                        }
                    }
                }
                ArgKind::S => {
                    let n = int(Some(arg), at, what)?;
                    let v = i64::try_from(n)
                        .or_else(|_| codec_err(at, format!("{what}: {n} out of range")))?;
                    put_sleb(&mut out, v)
                }
                ArgKind::Addr => {
                    let v = refs.write_addr(at, arg).or_else(|m| codec_err(at, m))?;
                    let n = enc.address_size;
                    if n < 8 && v >> (8 * u32::from(n)) != 0 {
                        return codec_err(at, format!("address {v:#x} does not fit {n} byte(s)"));
                    }
                    put_fixed(&mut out, v, n)
                }
                ArgKind::Ops => {
                    let Arg::Ops(inner) = arg else {
                        return codec_err(at, format!("{what}: a nested expression expected"));
                    };
                    // Address operands inside CFA expressions are rare; their offsets are
                    // expression-relative here.
                    let body = encode_expr(inner, enc, refs).map_err(|mut e| {
                        e.offset += at;
                        e
                    })?;
                    put_uleb(&mut out, body.len() as u64);
                    out.extend_from_slice(&body);
                }
                ArgKind::Block | ArgKind::Type | ArgKind::Die => {
                    return codec_err(at, format!("{what}: operand kind {kind:?} in a CFA table"))
                }
            }
        }
    }
    Ok(out)
}

fn int(arg: Option<&Arg>, at: usize, what: &str) -> CodecResult<i128> {
    match arg {
        Some(Arg::Int(n)) => Ok(*n),
        _ => codec_err(at, format!("{what}: an integer operand expected")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AmdOps, OffsetRefs};
    use super::*;
    use crate::ir::{Op, OpCode};

    fn cfa(code: u16, args: &[i128]) -> CfaOp {
        CfaOp::new(CfaCode(code), args.iter().map(|a| Arg::Int(*a)).collect())
    }

    #[test]
    fn identity_both_encodings() {
        let user_op = Op::new(OpCode(0xe6), vec![Arg::Int(17)]);
        let ops = vec![
            cfa(0x0c, &[7, 8]),
            cfa(0x80, &[16, 1]),
            cfa(0x40, &[4]),
            cfa(0x02, &[200]),
            cfa(0x03, &[0x1234]),
            cfa(0x04, &[0x12345]),
            cfa(0x0e, &[16]),
            cfa(0x12, &[7, -16]),
            cfa(0x01, &[0x1000]),
            cfa(0xc0, &[6]),
            cfa(0x30, &[32, 0, 6]),
            cfa(0x31, &[32, -16, 6]),
            CfaOp::new(
                CfaCode(0x10),
                vec![Arg::Int(16), Arg::Ops(vec![user_op.clone()])],
            ),
            CfaOp::new(
                CfaCode(0x0f),
                vec![Arg::Ops(vec![Op::new(OpCode(0x77), vec![Arg::Int(8)])])],
            ),
            cfa(0x2e, &[16]),
            cfa(0x00, &[]),
        ];
        let mut seen = Vec::new();
        for amd in [AmdOps::Raw, AmdOps::User] {
            let e = Encoding {
                amd,
                ..Encoding::default()
            };
            let bytes = encode_cfa(&ops, &e, &mut OffsetRefs).unwrap();
            assert_eq!(
                decode_cfa(&bytes, &e, &mut OffsetRefs).unwrap(),
                ops,
                "{amd:?}"
            );
            seen.push(bytes);
        }
        assert_ne!(seen[0], seen[1]);
        // The aspace CFA rules as seed 002 lays them out.
        let e = Encoding::default();
        assert_eq!(
            encode_cfa(&[cfa(0x31, &[32, -16, 6])], &e, &mut OffsetRefs).unwrap(),
            [0x31, 32, 0x70, 6]
        );
    }

    #[test]
    fn unknown_and_malformed() {
        let e = Encoding::default();
        let ops = decode_cfa(&[0x0a, 0x1d, 1, 2], &e, &mut OffsetRefs).unwrap();
        assert_eq!(
            ops[1],
            CfaOp::new(CfaCode::RAW, vec![Arg::Bytes(vec![0x1d, 1, 2])])
        );
        assert_eq!(
            encode_cfa(&ops, &e, &mut OffsetRefs).unwrap(),
            [0x0a, 0x1d, 1, 2]
        );
        let err = decode_cfa(&[0x0a, 0x30, 1], &e, &mut OffsetRefs).unwrap_err();
        assert_eq!(err.offset, 3);
        let err = decode_cfa(&[0x0f, 0x02, 0x0c, 0], &e, &mut OffsetRefs).unwrap_err();
        assert_eq!(err.offset, 3);
        assert!(encode_cfa(&[cfa(0x40, &[64])], &e, &mut OffsetRefs).is_err());
        let narrow = Encoding {
            address_size: 4,
            ..e
        };
        assert!(encode_cfa(&[cfa(0x01, &[1 << 40])], &narrow, &mut OffsetRefs).is_err());
        let odd = Encoding {
            address_size: 3,
            ..e
        };
        assert!(decode_cfa(&[0x00], &odd, &mut OffsetRefs).is_err());
        assert!(encode_cfa(&[], &odd, &mut OffsetRefs).is_err());
    }
}
