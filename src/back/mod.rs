//! Writers: one public entry per target format, each returning the output and the losses.

pub mod dwarf;
pub mod spirv;
pub mod visa;
