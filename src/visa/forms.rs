//! How vISA tables are spelled in the IR where both directions must agree: the DWARF expression
//! and CFA opcodes of the location forms `front::visa` writes and `back::visa` reads back
//! (docs/visa.md), and the compile unit of an object.

use crate::ir::{CfaCode, CodeRange, Language, OpCode, Unit};

pub(crate) const REGX: OpCode = OpCode(gimli::DW_OP_regx.0 as u32);
pub(crate) const FBREG: OpCode = OpCode(gimli::DW_OP_fbreg.0 as u32);
pub(crate) const CONSTS: OpCode = OpCode(gimli::DW_OP_consts.0 as u32);
pub(crate) const CONSTU: OpCode = OpCode(gimli::DW_OP_constu.0 as u32);
pub(crate) const BIT_PIECE: OpCode = OpCode(gimli::DW_OP_bit_piece.0 as u32);
/// AMD's `DW_OP_LLVM_form_aspace_address` and `DW_OP_LLVM_offset_uconst` (seed 002's raw
/// encoding; gimli does not know them).
pub(crate) const FORM_ASPACE_ADDRESS: OpCode = OpCode(0xe1);
pub(crate) const OFFSET_UCONST: OpCode = OpCode(0xe4);
pub(crate) const SET_LOC: CfaCode = CfaCode(gimli::DW_CFA_set_loc.0 as u16);
pub(crate) const UNDEFINED: CfaCode = CfaCode(gimli::DW_CFA_undefined.0 as u16);
pub(crate) const EXPRESSION: CfaCode = CfaCode(gimli::DW_CFA_expression.0 as u16);

/// The compile unit of an object whose code is `code`: OpenCL (what IGC compiles; the tables do
/// not say), covering the object's code range, nothing else. `back::visa` recognises it by this.
pub fn object_unit(code: CodeRange) -> Unit {
    Unit {
        language: Language::OPENCL,
        ranges: vec![code],
        ..Default::default()
    }
}
