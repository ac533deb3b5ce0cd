//! dwarv: translate source-level debug information between compilers' native form (LLVM IR debug
//! metadata, DWARF, Intel vISA tables) and SPIR-V's debug sets, through one neutral IR.

pub mod ir;
pub mod spec;
