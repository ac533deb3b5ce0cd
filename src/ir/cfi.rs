//! Call-frame information: CIEs and FDEs with their instruction programs (DWARF .debug_frame /
//! .eh_frame, AMD's aspace CFA rules, frames derived from vISA tables).

use super::code::CodeRange;
use super::expr::Insn;
use super::{Handle, RawAttr};

/// A DW_CFA code; the compact forms (advance_loc 0x40, offset 0x80, restore 0xc0) are stored
/// with their high bits only, the low bits becoming the first argument. Operand signatures are
/// rows of `spec::dwarf::CFAS`; [`CfaCode::RAW`] keeps undecodable bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CfaCode(pub u16);

impl CfaCode {
    pub const RAW: CfaCode = CfaCode(0x100);
}

pub type CfaOp = Insn<CfaCode>;

#[derive(Clone, Debug, PartialEq)]
pub struct Cie {
    pub version: u8,
    pub augmentation: String,
    pub address_size: u8,
    pub segment_size: u8,
    pub code_align: u64,
    pub data_align: i64,
    pub return_register: u16,
    /// `.eh_frame` rather than `.debug_frame`.
    pub eh_frame: bool,
    pub initial: Vec<CfaOp>,
    /// Augmentation data dwarv does not interpret (personality, encodings), as read.
    pub extra: Vec<RawAttr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fde {
    pub cie: Handle<Cie>,
    pub range: CodeRange,
    pub ops: Vec<CfaOp>,
    pub extra: Vec<RawAttr>,
}
