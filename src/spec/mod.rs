//! Constants and tables of the formats dwarv speaks: data only, no logic.

pub mod dwarf;
pub mod dwarf_vendor;
pub mod spirv;
pub mod spirv_grammar;
pub mod spirv_layout;
pub mod spirv_names;
pub mod visa;
