//! Readers: each lowers one input format to `ir::Module` plus the diagnostics of what it
//! skipped or approximated.

pub mod dwarf;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod spirv;
pub mod visa;
