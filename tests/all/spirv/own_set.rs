//! Covers src/spirv/own_set/.
//!
//! The in-place rewrite into a module's own set on its words (`spirv::own_set`), through
//! the CLI: which path a conversion took and why (`--report`'s `in_place`), `--through-ir`,
//! `--strict` on its ledger, and damaged input it must leave to the IR path's errors. (Every
//! peer-corpus module it takes is judged in tests/spirv_conformance.rs.)

use std::path::Path;

use crate::support::{convert_report, corpus};

fn in_place(report: &serde_json::Value) -> String {
    report["in_place"].as_str().unwrap_or_default().to_string()
}

/// `dwarv convert INPUT -o OUT EXTRA…`, whatever its exit.
fn convert(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "convert",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    crate::support::dwarv(&args)
}

/// `input` rewritten in place into its own set goes the words path and comes back byte for byte.
fn assert_unchanged_on_words(input: &Path, out: &Path, what: &str) {
    let r = convert_report(input, out, &[]);
    assert_eq!(in_place(&r), "own set, on its words", "{what}");
    assert_eq!(
        std::fs::read(input).unwrap(),
        std::fs::read(out).unwrap(),
        "{what}"
    );
}

/// Into its own set a module is rewritten on its words, and reads back as the same IR; into
/// a set not converted on the words, or with --through-ir, it goes through the IR, and the
/// report says why.
#[test]
fn the_report_says_which_path_a_rewrite_took() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus().join("kernel.ocl100.spv");
    let out = dir.path().join("out.spv");
    let own = convert_report(&input, &out, &["--flavour", "opencl100"]);
    assert_eq!(in_place(&own), "own set, on its words");
    let d = crate::support::dwarv(&["diff", input.to_str().unwrap(), out.to_str().unwrap()]);
    let ledgered = own["diagnostics"]["losses"].as_array().unwrap().len();
    // Only the ledgered typedefs differ (tests/spirv_conformance.rs applies the ledger).
    assert_eq!(d.status.success(), ledgered == 0, "{own}");

    // (Into NonSemantic.100 and .200 it is converted on its words: tests/spirv_set_to_set.rs.)
    let other = convert_report(&input, &out, &["--flavour", "spirv-debug"]);
    assert_eq!(
        in_place(&other),
        "through the IR: a conversion between these sets is not done on the words"
    );
    let forced = convert_report(&input, &out, &["--flavour", "opencl100", "--through-ir"]);
    assert_eq!(in_place(&forced), "through the IR: --through-ir");
    // Both paths give the same IR.
    let words = dir.path().join("words.spv");
    convert_report(&input, &words, &["--flavour", "opencl100"]);
    let d = crate::support::dwarv(&["diff", words.to_str().unwrap(), out.to_str().unwrap()]);
    assert!(d.status.success(), "{}", String::from_utf8_lossy(&d.stdout));
}

/// A NonSemantic module already valid for its set comes back byte for byte.
#[test]
fn a_valid_module_into_its_own_set_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["particles.spv", "shade.spv"] {
        assert_unchanged_on_words(&corpus().join(name), &dir.path().join(name), name);
    }
}

/// `--strict` lets the words path's repairs pass (no module of the set avoids them) and refuses
/// an output its consumers will not load (exit 3), writing nothing.
#[test]
fn strict_passes_repairs_and_refuses_an_unloadable_shader() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.spv");
    let o = convert(&corpus().join("kernel.ocl100.spv"), &out, &["--strict"]);
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("the target cannot hold"), "{said}");
    std::fs::remove_file(&out).unwrap();
    let o = convert(
        &corpus().join("shade.spv"),
        &out,
        &["--flavour", "opencl100", "--strict"],
    );
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{said}");
    assert!(said.contains("Vulkan drivers refuse that set"), "{said}");
    assert!(!out.exists());
}

/// What the IR path writes is valid for its set: rewritten in place into that set, every corpus
/// module in every flavour is taken on its words and comes back byte for byte.
#[test]
fn dwarvs_own_output_in_every_set_comes_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "particles.spv",
        "shade.spv",
        "kernel.ocl100.spv",
        "kernel.legacy.spv",
    ] {
        for flavour in ["debuginfo", "opencl100", "shader100", "spirv-debug"] {
            let first = dir.path().join(format!("{name}.{flavour}.spv"));
            convert_report(
                &corpus().join(name),
                &first,
                &["--flavour", flavour, "--through-ir"],
            );
            let again = dir.path().join(format!("{name}.{flavour}.again.spv"));
            assert_unchanged_on_words(&first, &again, &format!("{name} {flavour}"));
        }
    }
}
