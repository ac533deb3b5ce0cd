//! vISA storage → DWARF location expressions and CFA programs (the forms docs/visa.md lists;
//! `back::visa::loc` reads exactly these back).

use super::GenMap;
use crate::ir::expr::Insn;
use crate::ir::{Arg, CfaCode, CfaOp, Op, OpCode};
use crate::spec::visa as sv;
use crate::visa::{Frame, Interval, RegFile, SaveDst, SaveEntry, Storage};

pub(crate) const REGX: OpCode = OpCode(0x90);
pub(crate) const FBREG: OpCode = OpCode(0x91);
pub(crate) const CONSTS: OpCode = OpCode(0x11);
pub(crate) const CONSTU: OpCode = OpCode(0x10);
pub(crate) const BIT_PIECE: OpCode = OpCode(0x9d);
pub(crate) const FORM_ASPACE_ADDRESS: OpCode = OpCode(0xe1);
pub(crate) const OFFSET_UCONST: OpCode = OpCode(0xe4);
pub(crate) const SET_LOC: CfaCode = CfaCode(0x01);
pub(crate) const UNDEFINED: CfaCode = CfaCode(0x07);
pub(crate) const EXPRESSION: CfaCode = CfaCode(0x10);

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

fn set_loc(a: u64) -> CfaOp {
    Insn::new(SET_LOC, vec![int(a)])
}

/// Each interval: `set_loc START, expression COLUMN [LOC], set_loc END+1, undefined COLUMN`.
pub(super) fn interval_ops(g: &GenMap, l: &[Interval<u32>], column: u32, out: &mut Vec<CfaOp>) {
    for i in l {
        out.push(Insn::new(SET_LOC, vec![int(g.reloc + i.start as u64)]));
        out.push(Insn::new(
            EXPRESSION,
            vec![int(column), Arg::Ops(storage_ops(i.loc))],
        ));
        out.push(Insn::new(SET_LOC, vec![int(g.reloc + i.end as u64 + 1)]));
        out.push(Insn::new(UNDEFINED, vec![int(column)]));
    }
}

/// An object's CFA program: caller BE_FP intervals, return-address intervals, then one group
/// per callee-save IP: `set_loc IP` and a rule `expression (GRF base + reg) [LOC]` per entry.
pub(super) fn frame_ops(g: &GenMap, f: &Frame) -> Vec<CfaOp> {
    let mut ops = Vec::new();
    interval_ops(
        g,
        f.caller_befp.as_deref().unwrap_or(&[]),
        sv::BEFP_COLUMN,
        &mut ops,
    );
    interval_ops(
        g,
        f.ret_addr.as_deref().unwrap_or(&[]),
        sv::RA_COLUMN,
        &mut ops,
    );
    for s in &f.callee_saves {
        ops.push(set_loc(g.reloc + s.gen_ip as u64));
        for e in &s.entries {
            let reg = (e.src_reg_off as u32 / sv::GRF_BYTES) as u16;
            ops.push(Insn::new(
                EXPRESSION,
                vec![int(dwarf_reg(RegFile::Grf, reg)), Arg::Ops(save_ops(e))],
            ));
        }
    }
    ops
}
