//! What the `spirv/shader200` tests of both tiers share (tests/all/spirv/shader200.rs and
//! tests/judges/spirv/shader200.rs).

use dwarv::ir;
use dwarv::ir::Module;
use dwarv::unstable::front::spirv::read;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// The fixture assembled as SPIR-V 1.0 (the translator reads up to 1.5).
pub fn fixture(dir: &Path) -> PathBuf {
    let src = crate::support::repo_root().join("tests/spirv/every_shader200.spvasm");
    let out = dir.join("every_shader200.spv");
    crate::support::run_ok(
        Command::new(crate::support::tool("spirv-as"))
            .args(["--target-env", "spv1.0"])
            .arg(&src)
            .arg("-o")
            .arg(&out),
    );
    out
}

pub fn read_clean(path: &Path) -> Module {
    let (m, diag) = read(&std::fs::read(path).unwrap(), "input").unwrap_or_else(|e| panic!("{e}"));
    assert!(diag.is_empty(), "{}: {diag:?}", path.display());
    let m = m.into_inner();
    let text = ir::text::print(&m);
    assert!(ir::text::parse(&text, "text").unwrap() == m);
    m
}

pub fn status(args: &[&str]) -> i32 {
    crate::support::dwarv(args).status.code().unwrap_or(-1)
}
