//! dwarv translates source-level debug information between compilers' native form (LLVM IR
//! debug metadata, DWARF, Intel vISA tables) and SPIR-V's debug sets, both ways, through one
//! neutral IR ([`ir`]).
//!
//! The library's entries:
//! - [`read`] / [`read_file`]: any input (IR text, SPIR-V in any debug set, ELF with DWARF, LLVM
//!   IR or bitcode, vISA tables) into a [`Module`], with what the reader lost;
//! - [`Verified::new`]: the IR rules; the writers take only a checked module;
//! - [`write_spirv`] (any debug set, standalone or into a given module), [`write_dwarf`] (an ELF
//!   object, or into a given binary), [`write_text`] (`.dwir`);
//! - [`diff`]: two modules compared by content;
//! - [`build_step::DebugInfoStep`]: the debug info of an LLVM module attached to the SPIR-V a
//!   build step emits for it.
//!
//! ```
//! // An OpenCL C unit's debug info as IR text, written as SPIR-V and read back.
//! let text = "; dwarv-ir 1 source=ir\nf0 = file \"k.cl\"\nu0 = unit opencl file=f0\n";
//! let module = dwarv::Verified::new(dwarv::read(text.as_bytes(), "k.dwir")?.module)?;
//! let options = dwarv::SpirvOptions {
//!     flavour: dwarv::Flavour::Shader100,
//!     base: dwarv::SpirvBase::Standalone,
//!     forward_refs: false,
//! };
//! let spirv = dwarv::write_spirv(&module, &options)?;
//! let back = dwarv::read(&spirv.bytes, "k.spv")?;
//! assert_eq!(back.module.units.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`unstable`] holds the rest, public only for dwarv's own binary, tests and fuzz targets.

#[cfg(feature = "llvm")]
pub mod build_step;
pub mod ir;
pub mod unstable;

mod api;

// The internals by their short paths inside the crate (`crate::back::…`).
use unstable::{
    back, background, batch, container, convert, diag, dwarf, error, front, hash, input, output,
    sidecar, spec, spirv, stats, visa,
};

pub use api::{diff, read, read_file, write_dwarf, write_spirv, write_text, Read, Written};
pub use back::dwarf::{OpEncoding, WriteOptions as DwarfOptions};
pub use back::spirv::{Base as SpirvBase, WriteOptions as SpirvOptions};
pub use diag::{Diagnostics, Loss, LossKind};
pub use error::{Error, Result};
pub use input::Format;
pub use ir::verify::Verified;
pub use ir::Module;
pub use spec::spirv::Flavour;
