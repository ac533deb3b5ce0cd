//! Readers: each lowers one input format to `ir::Module` plus the diagnostics of what it
//! skipped or approximated.

pub mod dwarf;
pub mod spirv;
pub mod visa;
