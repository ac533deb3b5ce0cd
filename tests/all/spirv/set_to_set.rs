//! Covers src/spirv/own_set/ (into another set). What real consumers judge of it:
//! tests/judges/spirv/set_to_set.rs.
//!
//! The conversion into another set on the module's words (`spirv::own_set::convert`), through
//! the CLI: `roundtrip --via spirv` takes the words path, and the directions it has none for go
//! through the IR.

use crate::support::spirv_set_to_set::*;
use std::path::{Path, PathBuf};

use crate::support::{convert_report, corpus};

/// `roundtrip --via spirv --flavour shader100` takes the same path as `convert`.
#[test]
fn roundtrip_via_spirv_converts_on_the_words() {
    let input = corpus().join("kernel.ocl100.spv");
    let o = crate::support::dwarv(&[
        "roundtrip",
        input.to_str().unwrap(),
        "--via",
        "spirv",
        "--flavour",
        "shader100",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("in place, from opencl100 into shader100, on its words"),
        "{stderr}"
    );
    // The checksums and typedefs: ledgered, and the only differences.
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("ledger: dropped"));
}

/// The directions not converted on the words go through the IR, and the report says why:
/// OpenCL.100 or `.200` into `SPIRV.debug`; a NonSemantic shader into OpenCL.100, `SPIRV.debug`
/// or `.200` when it holds what that set has no place for (a DebugTypeMatrix); a `.200` module
/// of every instruction into the others (its DebugTypeArrayDynamic, DebugTypeString…).
#[test]
fn other_directions_go_through_the_ir() {
    let dir = tempfile::tempdir().unwrap();
    let shader200 = dir.path().join("every_shader200.spv");
    crate::support::run_ok(
        std::process::Command::new(crate::support::tool("spirv-as"))
            .args(["--target-env", "spv1.0"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/every_shader200.spvasm"))
            .arg("-o")
            .arg(&shader200),
    );
    let not_done = "a conversion between these sets is not done on the words";
    let no_place = "an instruction the other set has no place for";
    let rejected = "an operand of a kind its consumer rejects";
    let cases: [(PathBuf, &str, &str); 8] = [
        (corpus().join("kernel.ocl100.spv"), "spirv-debug", not_done),
        (shader200.clone(), "opencl100", rejected),
        (shader200.clone(), "shader100", rejected),
        (shader200.clone(), "spirv-debug", not_done),
        (corpus().join("particles.spv"), "opencl100", no_place),
        (corpus().join("shade.spv"), "spirv-debug", no_place),
        (corpus().join("shade.spv"), "shader200", no_place),
        (corpus().join("particles.spv"), "shader200", no_place),
    ];
    for (input, flavour, why) in cases {
        let out = dir.path().join("out.spv");
        let r = convert_report(&input, &out, &["--flavour", flavour]);
        assert_eq!(
            in_place(&r),
            format!("through the IR: {why}"),
            "{} → {flavour}",
            input.display()
        );
    }
}
