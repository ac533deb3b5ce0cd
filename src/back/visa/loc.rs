//! DWARF location expressions and CFA programs → vISA storage: exactly the forms
//! `front::visa::loc` writes (docs/visa.md); anything else is an error naming the entity.

use crate::front::visa::loc as f;
use crate::ir::{Arg, CfaOp, Op};
use crate::spec::visa as sv;
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

fn set_loc(op: Option<&CfaOp>) -> Option<i128> {
    op.filter(|o| o.code == f::SET_LOC)
        .and_then(|o| int(o.args.first()).ok())
}

fn expression(op: Option<&CfaOp>) -> Option<(i128, &[Op])> {
    match op {
        Some(o) if o.code == f::EXPRESSION => match o.args.as_slice() {
            [Arg::Int(c), Arg::Ops(ops)] => Some((*c, ops.as_slice())),
            _ => None,
        },
        _ => None,
    }
}

pub fn program(ops: &[CfaOp]) -> R<Program> {
    let mut p = Program::default();
    let mut i = 0;
    let is_interval_column = |c: i128| c == sv::RA_COLUMN as i128 || c == sv::BEFP_COLUMN as i128;
    while i < ops.len() {
        let start = set_loc(ops.get(i)).ok_or_else(|| format!("op {i} is not set_loc"))?;
        let start: u64 = fit(start, "set_loc address")?;
        match expression(ops.get(i + 1)) {
            Some((c, e)) if is_interval_column(c) => {
                let end = set_loc(ops.get(i + 2))
                    .ok_or_else(|| format!("op {} is not the set_loc ending a rule", i + 2))?;
                let undef = ops
                    .get(i + 3)
                    .filter(|o| o.code == f::UNDEFINED && int(o.args.first()).ok() == Some(c));
                if undef.is_none() {
                    return Err(format!("op {} is not `undefined {c}`", i + 3));
                }
                p.rules.push(Rule {
                    column: c as u32,
                    start,
                    end: fit(end, "set_loc address")?,
                    loc: storage(e).map_err(|m| format!("op {}: {m}", i + 1))?,
                });
                i += 4;
            }
            _ => {
                i += 1;
                let mut entries = Vec::new();
                while let Some((c, e)) = expression(ops.get(i)) {
                    entries.push(save_entry(c, e).map_err(|m| format!("op {i}: {m}"))?);
                    i += 1;
                }
                p.saves.push((start, entries));
            }
        }
    }
    Ok(p)
}
