//! What the `llvm/read` tests of both tiers share (tests/all/llvm/read.rs and
//! tests/judges/llvm/read.rs).

use dwarv::ir;
use dwarv::unstable::input::lower_with_diagnostics;
use dwarv::unstable::input::Input;
use std::path::Path;

pub fn lower(path: &Path) -> (ir::Module, dwarv::unstable::diag::Diagnostics) {
    let input = Input {
        name: path.display().to_string(),
        bytes: std::fs::read(path).unwrap().into(),
    };
    let (m, d) = lower_with_diagnostics(&input).unwrap_or_else(|e| panic!("{e}"));
    ir::verify::check(&m).unwrap_or_else(|f| panic!("{}: {f}", path.display()));
    (m, d)
}
