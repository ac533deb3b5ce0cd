//! DebugExpression / DebugOperation → `ir::Expr`.

use crate::diag::LossKind;
use crate::ir::{Arg, Expr, Op, OpCode, Ref};
use crate::spec::spirv::from_set;
use crate::spec::spirv_names::operand;

use super::operands::{fail, Dec, Kind, RResult};
use super::reader::Ctx;
use super::resolve::Tgt;

pub(super) fn fill(cx: &mut Ctx<'_>, d: &Dec<'_>, r: Option<Ref>) -> RResult<()> {
    let Some(Ref::Expr(h)) = r else {
        return Ok(());
    };
    let mut ops = Vec::new();
    for &id in d.words(operand::OPERANDS) {
        match cx.target(id) {
            Tgt::Debug(Kind::Operation) => ops.extend(operation(cx, d, id)?),
            Tgt::None => {}
            _ => return cx.wrong(d, operand::OPERAND_OF_OPERANDS, "a DebugOperation", id),
        }
    }
    *cx.out.exprs.get_mut(h) = Expr { ops };
    Ok(())
}

/// One DebugOperation: its code through the set's table (an unknown one is kept as
/// `0x1_0000 + n`, with a loss) and its operands (literals, or OpConstant ids in NonSemantic).
fn operation(cx: &mut Ctx<'_>, expr: &Dec<'_>, id: u32) -> RResult<Option<Op>> {
    let Some(d) = cx
        .by_id
        .get(&id)
        .and_then(|&i| cx.decs.get(i))
        .map(|(_, d)| d.clone())
    else {
        return fail(expr.offset, Some(expr.id), format!("%{id} is not defined"));
    };
    let n = cx.u32n(&d, operand::OP_CODE)?;
    let code = match from_set(d.flavour.operations(), n) {
        Some(c) => OpCode(c),
        None if n >= OpCode::SPIRV_BASE => {
            // Beyond the space kept for SPIR-V operations: no set has such a value.
            cx.loss(
                LossKind::Dropped,
                &d,
                format!("DebugOperation {n} is out of range: dropped"),
            );
            return Ok(None);
        }
        None => {
            cx.loss(
                LossKind::Unknown,
                &d,
                format!("DebugOperation {n} has no DWARF meaning in dwarv: kept as spirv op {n}"),
            );
            OpCode(OpCode::SPIRV_BASE + n)
        }
    };
    let literal = d.is_literal(operand::OPERANDS);
    let mut args = Vec::new();
    for &w in d.words(operand::OPERANDS) {
        let v = if literal {
            i128::from(w)
        } else {
            match cx.num_id(&d, operand::OPERAND_OF_OPERANDS, w)? {
                Some(v) => v,
                None => {
                    return cx.wrong(&d, operand::OPERAND_OF_OPERANDS, "an integer OpConstant", w)
                }
            }
        };
        args.push(Arg::Int(v));
    }
    Ok(Some(Op { code, args }))
}
