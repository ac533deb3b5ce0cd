//! vISA storage → DWARF location expressions and CFA programs (the forms docs/visa.md lists;
//! `back::visa::loc` reads exactly these back).

use super::GenMap;
use crate::ir::expr::Insn;
use crate::ir::{Arg, CfaOp, Op};
use crate::spec::visa as sv;
use crate::visa::forms::{
    BIT_PIECE, CONSTS, CONSTU, EXPRESSION, FBREG, FORM_ASPACE_ADDRESS, OFFSET_UCONST, REGX,
    SET_LOC, UNDEFINED,
};
use crate::visa::{Frame, Interval, RegFile, SaveDst, SaveEntry, Storage};

fn int(v: impl Into<i128>) -> Arg {
    Arg::Int(v.into())
}

/// The DWARF register number of register `num` of a file.
pub fn dwarf_reg(file: RegFile, num: u16) -> u32 {
    let base = sv::REG_BASE
        .iter()
        .find(|(f, _)| *f == file)
        .map_or(0, |r| r.1);
    base + num as u32
}

/// `regx R [llvm_offset_uconst SUB]`, `fbreg OFF`, or
/// `consts OFF, constu SCRATCH_ASPACE, llvm_form_aspace_address`.
pub fn storage_ops(s: Storage) -> Vec<Op> {
    match s {
        Storage::Reg { file, num, sub } => {
            let mut ops = vec![Insn::new(REGX, vec![int(dwarf_reg(file, num))])];
            if sub != 0 {
                ops.push(Insn::new(OFFSET_UCONST, vec![int(sub)]));
            }
            ops
        }
        Storage::Mem(m) if m.absolute => vec![
            Insn::new(CONSTS, vec![int(m.offset)]),
            Insn::new(CONSTU, vec![int(sv::SCRATCH_ASPACE)]),
            Insn::new(FORM_ASPACE_ADDRESS, vec![]),
        ],
        Storage::Mem(m) => vec![Insn::new(FBREG, vec![int(m.offset)])],
    }
}

/// Where a save entry's bytes are: the destination, then `bit_piece BITS OFFSET` unless the
/// entry is exactly one whole GRF register.
fn save_ops(e: &SaveEntry) -> Vec<Op> {
    let dst = match e.dst {
        SaveDst::Reg { num, sub } => Storage::Reg {
            file: RegFile::Grf,
            num,
            sub,
        },
        SaveDst::Mem(m) => Storage::Mem(m),
    };
    let mut ops = storage_ops(dst);
    let within = e.src_reg_off as u32 % sv::GRF_BYTES;
    if within != 0 || e.num_bytes as u32 != sv::GRF_BYTES {
        ops.push(Insn::new(
            BIT_PIECE,
            vec![int(e.num_bytes as u32 * 8), int(within * 8)],
        ));
    }
    ops
}

/// One step of a frame table: the address it takes effect at, its rank among the steps of one
/// address (rules ending, then starting, then saves), and its rules.
struct Step {
    at: u64,
    rank: u8,
    ops: Vec<CfaOp>,
    /// For an interval's start or end: its column, which interval and where the value is.
    interval: Option<(u32, usize, Storage)>,
}

fn rule(column: u32, loc: Storage) -> CfaOp {
    Insn::new(EXPRESSION, vec![int(column), Arg::Ops(storage_ops(loc))])
}

fn interval_steps(g: &GenMap, l: &[Interval<u32>], column: u32, steps: &mut Vec<Step>) {
    for i in l {
        let id = steps.len();
        steps.push(Step {
            at: g.reloc + i.start as u64,
            rank: 1,
            ops: vec![rule(column, i.loc)],
            interval: Some((column, id, i.loc)),
        });
        // The end's rule depends on what else is live then: set in `program`.
        steps.push(Step {
            at: g.reloc + i.end as u64 + 1,
            rank: 0,
            ops: Vec::new(),
            interval: Some((column, id, i.loc)),
        });
    }
}

/// The steps as a CFA program in address order (`set_loc A` before the steps of each address),
/// and the order attribute: the numbers of caller-BE_FP and return-address intervals and of save
/// groups (u16 each), then per step in table order the index of its first op (u32) and its
/// number of ops (u16).
///
/// Where intervals of one column overlap, the one started last is in force; when an interval
/// ends while others of its column are live, the rule goes back to the latest of them instead
/// of `undefined`.
fn program(steps: &mut [Step], counts: [usize; 3]) -> (Vec<CfaOp>, Vec<u8>) {
    let mut sorted: Vec<usize> = (0..steps.len()).collect();
    sorted.sort_by_key(|&i| (steps[i].at, steps[i].rank));
    let mut ops = Vec::new();
    let mut begins = vec![0u32; steps.len()];
    let mut at = None;
    let mut live: Vec<(u32, usize, Storage)> = Vec::new();
    for i in sorted {
        let s = &mut steps[i];
        if at != Some(s.at) {
            ops.push(Insn::new(SET_LOC, vec![int(s.at)]));
            at = Some(s.at);
        }
        if let Some((column, id, loc)) = s.interval {
            if s.rank == 1 {
                live.push((column, id, loc));
            } else {
                live.retain(|l| l.1 != id);
                s.ops = vec![match live.iter().rev().find(|l| l.0 == column) {
                    Some(&(_, _, back)) => rule(column, back),
                    None => Insn::new(UNDEFINED, vec![int(column)]),
                }];
            }
        }
        begins[i] = ops.len() as u32;
        ops.extend(s.ops.iter().cloned());
    }
    let mut order: Vec<u8> = counts
        .iter()
        .flat_map(|&n| (n as u16).to_le_bytes())
        .collect();
    for (s, b) in steps.iter().zip(begins) {
        order.extend_from_slice(&b.to_le_bytes());
        order.extend_from_slice(&(s.ops.len() as u16).to_le_bytes());
    }
    (ops, order)
}

/// An object's CFA program and order attribute: its caller-BE_FP intervals (column 1024), its
/// return-address intervals (column 0) — each `expression C [LOC]` at its start and
/// `undefined C` (or the rule of an overlapping interval) past its end — and its callee-save groups, a rule `expression (GRF base +
/// reg) [LOC]` per entry at the group's IP.
pub(super) fn frame_ops(g: &GenMap, f: &Frame) -> (Vec<CfaOp>, Vec<u8>) {
    let mut steps = Vec::new();
    let caller_befp = f.caller_befp.as_deref().unwrap_or(&[]);
    let ret_addr = f.ret_addr.as_deref().unwrap_or(&[]);
    interval_steps(g, caller_befp, sv::BEFP_COLUMN, &mut steps);
    interval_steps(g, ret_addr, sv::RA_COLUMN, &mut steps);
    for s in &f.callee_saves {
        let ops = s.entries.iter().map(|e| {
            let reg = (e.src_reg_off as u32 / sv::GRF_BYTES) as u16;
            Insn::new(
                EXPRESSION,
                vec![int(dwarf_reg(RegFile::Grf, reg)), Arg::Ops(save_ops(e))],
            )
        });
        steps.push(Step {
            at: g.reloc + s.gen_ip as u64,
            rank: 2,
            ops: ops.collect(),
            interval: None,
        });
    }
    let counts = [caller_befp.len(), ret_addr.len(), f.callee_saves.len()];
    program(&mut steps, counts)
}

/// A subroutine's CFA program and order attribute: its return-value intervals in column 0.
pub(super) fn ret_val_ops(g: &GenMap, l: &[Interval<u32>]) -> (Vec<CfaOp>, Vec<u8>) {
    let mut steps = Vec::new();
    interval_steps(g, l, sv::RA_COLUMN, &mut steps);
    program(&mut steps, [0, l.len(), 0])
}
