//! DWARF location expressions and CFA programs → vISA storage: exactly the forms
//! `front::visa::loc` writes (`visa::forms`, docs/visa.md); anything else is an error naming the
//! entity.

use crate::ir::{Arg, CfaOp, Op};
use crate::spec::visa as sv;
use crate::visa::forms as f;
use crate::visa::{Memory, RegFile, SaveDst, SaveEntry, Storage};

type R<T> = Result<T, String>;

fn int(a: Option<&Arg>) -> R<i128> {
    match a {
        Some(Arg::Int(v)) => Ok(*v),
        _ => Err("an operand is not an integer".into()),
    }
}

fn fit<T: TryFrom<i128>>(v: i128, what: &str) -> R<T> {
    T::try_from(v).map_err(|_| format!("{what} {v} is out of range"))
}

fn memory(absolute: bool, offset: i128) -> R<Storage> {
    let offset: i32 = fit(offset, "memory offset")?;
    if !(Memory::MIN_OFFSET..=Memory::MAX_OFFSET).contains(&offset) {
        return Err(format!(
            "memory offset {offset} does not fit 31 signed bits"
        ));
    }
    Ok(Storage::Mem(Memory { absolute, offset }))
}

/// The register file and number of a DWARF register.
fn register(r: i128) -> R<(RegFile, u16)> {
    for ((file, base), (_, count)) in sv::REG_BASE.iter().zip(sv::REG_COUNT.iter()) {
        let (base, count) = (*base as i128, *count as i128);
        if (base..base + count).contains(&r) {
            return Ok((*file, (r - base) as u16));
        }
    }
    Err(format!(
        "DWARF register {r} is not an address, flag or GRF register"
    ))
}

/// The storage a location expression names.
pub fn storage(ops: &[Op]) -> R<Storage> {
    let arg = |i: usize, k: usize| int(ops.get(i).and_then(|o| o.args.get(k)));
    let codes: Vec<_> = ops.iter().map(|o| o.code).collect();
    match codes.as_slice() {
        [c] | [c, _] if *c == f::REGX => {
            let (file, num) = register(arg(0, 0)?)?;
            let sub = match codes.get(1) {
                Some(c) if *c == f::OFFSET_UCONST => fit(arg(1, 0)?, "sub-register offset")?,
                Some(_) => {
                    return Err("regx followed by something else than llvm_offset_uconst".into())
                }
                None => 0,
            };
            Ok(Storage::Reg { file, num, sub })
        }
        [c] if *c == f::FBREG => memory(false, arg(0, 0)?),
        [a, b, c] if *a == f::CONSTS && *b == f::CONSTU && *c == f::FORM_ASPACE_ADDRESS => {
            if arg(1, 0)? != sv::SCRATCH_ASPACE as i128 {
                return Err(format!(
                    "address space {} is not scratch ({})",
                    arg(1, 0)?,
                    sv::SCRATCH_ASPACE
                ));
            }
            memory(true, arg(0, 0)?)
        }
        _ => Err("the expression is not a register, BE_FP-relative or scratch location".into()),
    }
}

/// A callee-save rule `expression COLUMN [LOC, bit_piece BITS OFFSET?]` as a save entry.
fn save_entry(column: i128, ops: &[Op]) -> R<SaveEntry> {
    let (file, reg) = register(column)?;
    if file != RegFile::Grf {
        return Err(format!(
            "a callee-save rule for column {column}, not a GRF register"
        ));
    }
    let (loc, within, bytes) = match ops.split_last() {
        Some((last, rest)) if last.code == f::BIT_PIECE => {
            let bits = int(last.args.first())?;
            let off = int(last.args.get(1))?;
            if bits % 8 != 0 || off % 8 != 0 || off / 8 >= sv::GRF_BYTES as i128 {
                return Err(format!(
                    "bit_piece {bits} {off} is not whole bytes of one register"
                ));
            }
            (rest, off / 8, bits / 8)
        }
        _ => (ops, 0, sv::GRF_BYTES as i128),
    };
    let dst = match storage(loc)? {
        Storage::Reg {
            file: RegFile::Grf,
            num,
            sub,
        } => SaveDst::Reg { num, sub },
        Storage::Mem(m) => SaveDst::Mem(m),
        Storage::Reg { .. } => return Err("a register is saved to a non-GRF register".into()),
    };
    Ok(SaveEntry {
        src_reg_off: fit(
            reg as i128 * sv::GRF_BYTES as i128 + within,
            "GRF byte offset",
        )?,
        num_bytes: fit(bytes, "saved byte count")?,
        dst,
    })
}

/// One interval of a CFA program, in Gen addresses.
pub struct Rule {
    pub column: u32,
    pub start: u64,
    pub end: u64,
    pub loc: Storage,
}

/// A CFA program split back into interval rules (in order) and callee-save groups.
#[derive(Default)]
pub struct Program {
    pub rules: Vec<Rule>,
    pub saves: Vec<(u64, Vec<SaveEntry>)>,
}

/// The rule of an `expression COLUMN [OPS]` step.
fn expression(op: &CfaOp) -> R<(i128, &[Op])> {
    match (op.code, op.args.as_slice()) {
        (c, [Arg::Int(col), Arg::Ops(ops)]) if c == f::EXPRESSION => Ok((*col, ops.as_slice())),
        _ => Err("a step is not an `expression` rule".into()),
    }
}

/// Reads a CFA program back into its table's intervals and save groups, in table order, with
/// the order attribute `front::visa::loc` wrote beside it.
pub fn program(ops: &[CfaOp], order: &[u8]) -> R<Program> {
    let u16_at = |i: usize| {
        order
            .get(i..i + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let bad = || "the CFA order attribute is malformed".to_string();
    let counts = [u16_at(0), u16_at(2), u16_at(4)];
    let [Some(n_befp), Some(n_ra), Some(n_saves)] = counts else {
        return Err(bad());
    };
    let n_steps = 2 * (n_befp + n_ra) + n_saves;
    if order.len() != 6 + 6 * n_steps {
        return Err(bad());
    }
    // The address in force at each op: the last set_loc before it.
    let mut at = Vec::with_capacity(ops.len());
    let mut cur = None;
    for o in ops {
        at.push(cur);
        if o.code == f::SET_LOC {
            cur = Some(fit::<u64>(int(o.args.first())?, "set_loc address")?);
        }
    }
    let mut used = ops.iter().filter(|o| o.code == f::SET_LOC).count();
    let mut steps = Vec::with_capacity(n_steps);
    for k in 0..n_steps {
        let b = &order[6 + 6 * k..];
        let begin = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let len = u16::from_le_bytes([b[4], b[5]]) as usize;
        let slice = ops.get(begin..begin + len).ok_or_else(bad)?;
        let addr = at
            .get(begin)
            .copied()
            .flatten()
            .or(cur.filter(|_| begin == ops.len()));
        if slice.iter().any(|o| o.code == f::SET_LOC) {
            return Err(format!("step {k} spans a set_loc"));
        }
        used += len;
        steps.push((
            addr.ok_or_else(|| format!("step {k} has no set_loc before it"))?,
            slice,
        ));
    }
    if used != ops.len() {
        return Err("the program has ops no step accounts for".into());
    }
    let mut p = Program::default();
    let columns = std::iter::repeat(sv::BEFP_COLUMN)
        .take(n_befp)
        .chain(std::iter::repeat(sv::RA_COLUMN).take(n_ra));
    for (k, column) in columns.enumerate() {
        let ((start, rule), (end, undef)) = (steps[2 * k], steps[2 * k + 1]);
        let ([rule], [undef]) = (rule, undef) else {
            return Err(format!("interval {k} is not one rule and one `undefined`"));
        };
        let (c, e) = expression(rule)?;
        // The end step: `undefined C`, or the rule of an interval still live.
        let ends = match undef.code == f::UNDEFINED {
            true => int(undef.args.first())?,
            false => expression(undef)?.0,
        };
        if c != column as i128 || ends != c {
            return Err(format!("interval {k} is not a column {column} rule"));
        }
        p.rules.push(Rule {
            column,
            start,
            end,
            loc: storage(e).map_err(|m| format!("interval {k}: {m}"))?,
        });
    }
    for (ip, slice) in &steps[2 * (n_befp + n_ra)..] {
        let entries = slice
            .iter()
            .map(|o| expression(o).and_then(|(c, e)| save_entry(c, e)))
            .collect::<R<_>>()?;
        p.saves.push((*ip, entries));
    }
    Ok(p)
}
