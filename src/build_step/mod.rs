//! The library API of an LLVM → SPIR-V build step.
//!
//! - [`translate`]: an LLVM module (`.ll` or `.bc` bytes) to SPIR-V with its debug info, from
//!   one parse: the SPIR-V translator's library translates the code in a child process while
//!   dwarv lowers the debug info, then ties it to that code and writes it in
//!   ([`translate_module`] does the same for an inkwell module in memory, without a parse).
//!   What `dwarv translate` runs.
//! - [`DebugInfoStep`]: for a build step that emits its own SPIR-V and knows where each
//!   instruction came from; the ties are exact.
//!
//! ```no_run
//! use dwarv::build_step::{translate, TranslateOptions};
//!
//! let bitcode = std::fs::read("kernel.bc")?;
//! let done = translate(&bitcode, "kernel.bc", &TranslateOptions::default())?;
//! std::fs::write("kernel.spv", &done.spirv)?;
//! for loss in &done.diagnostics.losses {
//!     eprintln!("{}: {}", loss.place, loss.message);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod emitter;
mod translate;
mod translator;

pub use emitter::{DebugInfoStep, FunctionDebug, SourceLocation};
#[cfg(feature = "inkwell")]
pub use translate::translate_module;
pub use translate::{translate, Timings, TranslateOptions, Translated};
pub use translator::{TranslatorFlags, PROGRAM_MAX_VERSION};
