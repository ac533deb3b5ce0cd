//! Covers src/batch/, src/stats.rs. What real consumers judge of it: tests/judges/cli/batch.rs.
//!
//! `dwarv batch`, `report merge` and `stats` over a generated corpus of more than 1 000 modules
//! of mixed formats with a few corrupt ones.

use crate::support::cli_batch::*;
use std::process::Command;

use serde_json::Value;

#[test]
fn outputs_never_leave_the_output_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let work = root.join("work");
    let inputs = root.join("inputs");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&inputs).unwrap();
    let sample = std::fs::read(crate::support::repo_root().join("corpus/ir/sample.dwir")).unwrap();
    std::fs::write(inputs.join("a.dwir"), &sample).unwrap();
    std::fs::write(inputs.join("b.dwir"), &sample).unwrap();
    let abs = inputs.join("b.dwir");
    // `..`, an absolute path and an @LIST naming both.
    std::fs::write(
        work.join("list.txt"),
        format!("# inputs\n../inputs/a.dwir\n\n{}\n", abs.display()),
    )
    .unwrap();
    let o = dwarv(
        &["batch", "@list.txt", "-o", "out", "--to", "ir", "-q"],
        &work,
    );
    assert!(o.status.success(), "{o:?}");
    // The outputs, and the settings they were written with.
    let mut written = files_under(&work.join("out"));
    written.retain(|p| !p.ends_with(".dwarv-batch"));
    assert_eq!(written.len(), 2, "{written:?}");
    assert!(work.join("out/.dwarv-batch").is_file());
    for p in &written {
        assert!(p.starts_with(work.join("out")));
        assert_eq!(p.extension().unwrap(), "dwir");
    }
    assert_eq!(
        files_under(&inputs).len(),
        2,
        "nothing written beside the inputs"
    );

    // A link inside the output directory that points outside is not written through.
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(work.join("out2")).unwrap();
    std::os::unix::fs::symlink(&outside, work.join("out2/sub")).unwrap();
    std::fs::create_dir_all(work.join("sub")).unwrap();
    std::fs::write(work.join("sub/c.dwir"), &sample).unwrap();
    let o = dwarv(
        &[
            "batch",
            "sub/c.dwir",
            "-o",
            "out2",
            "--to",
            "ir",
            "-q",
            "--report",
            "r.json",
        ],
        &work,
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let r = report(&work.join("r.json"));
    assert!(r["records"][0]["error"]
        .as_str()
        .unwrap()
        .contains("symbolic link"));
    assert!(files_under(&outside).is_empty());

    // Two inputs that would write the same output: the second fails, the first is written.
    std::fs::write(
        work.join("sub/c.spv"),
        std::fs::read(crate::support::corpus().join("shade.spv")).unwrap(),
    )
    .unwrap();
    let o = dwarv(
        &[
            "batch",
            "sub/c.dwir",
            "sub/c.spv",
            "-o",
            "out3",
            "--to",
            "ir",
            "-q",
            "--report",
            "r3.json",
        ],
        &work,
    );
    assert_eq!(o.status.code(), Some(1));
    let r = report(&work.join("r3.json"));
    assert_eq!(r["records"][0]["status"], "converted");
    assert!(r["records"][1]["error"]
        .as_str()
        .unwrap()
        .contains("also the output of"));
    // A missing input is a failed record, not the end of the batch.
    let o = dwarv(
        &[
            "batch",
            "nope.spv",
            "sub/c.dwir",
            "-o",
            "out4",
            "--to",
            "ir",
            "-q",
            "--force",
        ],
        &work,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(work.join("out4/sub/c.dwir").is_file());
}

#[test]
fn stats_reports_coverage() {
    let built = crate::support::corpus();
    let out = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(["stats", "--json"])
        .arg(built.join("kernel.ocl100.spv"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    let code = &st["code"];
    assert_eq!(code["unit"], "instructions");
    let total = code["total"].as_u64().unwrap();
    let lines = code["with_line"].as_u64().unwrap();
    assert!(total > 100 && lines > total / 2 && lines <= total, "{code}");
    assert!(st["debug_records"]["DebugCompilationUnit"].as_u64() == Some(1));
    assert!(st["debug_records"]["OpLine"].as_u64().unwrap() > 0);
    assert!(st["entities"]["scope.function"].as_u64().unwrap() >= 1);
    assert!(st["variables_with_location"].as_u64().unwrap() <= st["variables"].as_u64().unwrap());

    // Converting to shader100 keeps the coverage of lines (same instructions, same rows).
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("k.spv");
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(["convert", "--flavour", "shader100", "-o"])
        .arg(&conv)
        .arg(built.join("kernel.ocl100.spv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let after: Value = serde_json::from_slice(
        &Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args(["stats", "--json"])
            .arg(&conv)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(after["code"], st["code"]);
    assert_eq!(
        after["variables_with_location"],
        st["variables_with_location"]
    );
}

#[test]
fn stats_of_a_dwarf_object_count_dies_and_bytes() {
    let out = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(["stats", "--json"])
        .arg(crate::support::corpus().join("prog.dwarf5.o"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["debug_records"]["DW_TAG_compile_unit"], 1);
    assert!(st["debug_records"]["DW_TAG_subprogram"].as_u64().unwrap() >= 3);
    let code = &st["code"];
    assert_eq!(code["unit"], "bytes");
    let (total, lines) = (
        code["total"].as_u64().unwrap(),
        code["with_line"].as_u64().unwrap(),
    );
    assert!(total > 0 && lines > total / 2 && lines <= total, "{code}");
}

/// An output is up to date only if it was written with the same settings: a batch into the same
/// folder with another flavour converts again, and then the same batch finds it up to date.
#[test]
fn outputs_of_other_settings_are_converted_again() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    std::fs::copy(
        crate::support::corpus().join("shade.spv"),
        work.join("shade.spv"),
    )
    .unwrap();
    let run = |flavour: &str| {
        let args = [
            "batch",
            "shade.spv",
            "-o",
            "out",
            "--to",
            "spirv",
            "--flavour",
            flavour,
            "-q",
            "--report",
            "r.json",
        ];
        let o = dwarv(&args, work);
        assert!(o.status.success(), "{o:?}");
        report(&work.join("r.json"))["totals"].clone()
    };
    assert_eq!(run("shader100")["converted"], 1);
    assert_eq!(run("shader100")["up_to_date"], 1);
    let other = run("opencl100");
    assert_eq!(other["converted"], 1, "{other}");
    assert_eq!(other["up_to_date"], 0, "{other}");
    assert_eq!(run("opencl100")["up_to_date"], 1);
}
