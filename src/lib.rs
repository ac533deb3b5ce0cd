//! dwarv: translate source-level debug information between compilers' native form (LLVM IR debug
//! metadata, DWARF, Intel vISA tables) and SPIR-V's debug sets, through one neutral IR.
//!
//! - [`front`]: readers lowering each input format to the IR;
//! - [`ir`]: the neutral IR, its text form, validator and structural diff;
//! - [`spec`]: constants and per-format tables; [`dwarf`]: the DWARF expression/CFA codecs;
//! - [`input`] / [`output`]: format detection, loading, atomic writes;
//! - [`convert`]: the conversion driver; [`cli`]: the command line.

pub mod back;
pub mod background;
pub mod batch;
#[cfg(feature = "llvm")]
pub mod build_step;
pub mod cli;
pub mod convert;
pub mod crosscheck;
pub mod diag;
pub mod dwarf;
pub mod error;
pub mod front;
pub mod hash;
pub mod input;
pub mod ir;
pub mod output;
pub mod sidecar;
pub mod spec;
pub mod spirv;
pub mod stats;
pub mod visa;

mod api;

pub use api::{diff, read, read_file, write_dwarf, write_spirv, write_text, Read, Written};
pub use back::dwarf::{OpEncoding, WriteOptions as DwarfOptions};
pub use back::spirv::{Base as SpirvBase, WriteOptions as SpirvOptions};
pub use diag::{Diagnostics, Loss, LossKind};
pub use error::{Error, Result};
pub use input::Format;
pub use ir::verify::Verified;
pub use ir::Module;
pub use spec::spirv::Flavour;
