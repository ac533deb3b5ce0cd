//! dwarv's internals, public only for its own binary, tests, fuzz targets and benchmarks: no
//! stability promise, anything here may change in any release. A Rust user's entries are the
//! crate root's ([`crate::read`], [`crate::Verified`], [`crate::write_spirv`], …), the IR data
//! model in [`crate::ir`] and [`crate::build_step`]. The layout is docs/architecture.md's.

#[path = "back/mod.rs"]
pub mod back;
#[path = "background.rs"]
pub mod background;
#[path = "batch/mod.rs"]
pub mod batch;
#[path = "cli/mod.rs"]
pub mod cli;
#[path = "container/mod.rs"]
pub mod container;
#[path = "convert.rs"]
pub mod convert;
#[path = "diag.rs"]
pub mod diag;
#[path = "dwarf/mod.rs"]
pub mod dwarf;
#[path = "error.rs"]
pub mod error;
#[path = "front/mod.rs"]
pub mod front;
#[path = "hash.rs"]
pub mod hash;
#[path = "input.rs"]
pub mod input;
#[path = "output.rs"]
pub mod output;
#[path = "sidecar.rs"]
pub mod sidecar;
#[path = "spec/mod.rs"]
pub mod spec;
#[path = "spirv/mod.rs"]
pub mod spirv;
#[path = "stats.rs"]
pub mod stats;
#[path = "visa/mod.rs"]
pub mod visa;
