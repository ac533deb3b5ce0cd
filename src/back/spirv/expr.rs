//! IR expressions → DebugExpression and its DebugOperations (the reader's `front/spirv/expr.rs`
//! in the writing direction).

use super::encode::V;
use super::writer::Writer;
use crate::ir::{Arg, Expr, Handle, OpCode, Ref};
use crate::spec::spirv::{Flavour, Map};
use crate::spec::spirv_names::{instruction, operand};

pub fn expr(w: &mut Writer, h: Handle<Expr>) -> u32 {
    let r = Ref::Expr(h);
    let mut ops = Vec::new();
    for op in &w.m.exprs.get(h).ops {
        let code = op.code.0;
        let set = writable_operations(w.e.flavour)
            .iter()
            .find(|(_, c)| *c == code);
        let n = match set {
            Some((n, _)) => *n,
            None if (OpCode::SPIRV_BASE..OpCode::RAW.0).contains(&code)
                && w.same_set()
                && w.e.flavour.non_semantic() =>
            {
                code - OpCode::SPIRV_BASE
            }
            None => {
                w.ledger.dropped(
                    r,
                    format!("operation {code:#x}: the set has no DebugOperation for it"),
                );
                continue;
            }
        };
        let mut args = Vec::new();
        for a in &op.args {
            match a {
                Arg::Int(v) if (0..=i128::from(u32::MAX)).contains(v) => {
                    args.push(V::Num(*v as u32))
                }
                Arg::Int(v) if (i128::from(i32::MIN)..0).contains(v) => {
                    args.push(V::Num(*v as i32 as u32))
                }
                _ => break,
            }
        }
        if args.len() != op.args.len() {
            // A DebugOperation missing an operand is invalid: drop the whole operation.
            w.ledger.dropped(
                r,
                format!("operation {code:#x}: an operand that is not a 32-bit number"),
            );
            continue;
        }
        let id = w.e.ext(
            instruction::DEBUG_OPERATION,
            &[
                (operand::OP_CODE, V::Num(n)),
                (operand::OPERANDS, V::List(args)),
            ],
        );
        ops.extend(id.map(V::Id));
    }
    w.ext(
        r,
        instruction::DEBUG_EXPRESSION,
        &[(operand::OPERANDS, V::List(ops))],
    )
}

/// The DebugOperations dwarv writes: the set's own. spirv-val rejects llvm-spirv's extra
/// operations in OpenCL.DebugInfo.100, and llvm-spirv-14 aborts on some of them.
fn writable_operations(f: Flavour) -> Map<u32> {
    let all = f.operations();
    match f {
        Flavour::OpenCl100 | Flavour::SpirvDebug => &all[..all.len().min(10)],
        _ => all,
    }
}
