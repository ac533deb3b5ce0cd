//! Covers src/input.rs, src/output.rs.
//!
//! Paths an input carries — a SPIR-V DebugStoragePath, DWARF's DW_AT_comp_dir, DW_AT_dwo_name
//! and file names, LLVM's DIFile directories — are data: dwarv never opens, creates or renames
//! a file by them. Every such path here points into a `trap` directory that holds real files
//! (the sidecar the storage path names, the split-DWARF .dwo, the sources); each command runs
//! under strace from an empty working directory, and no system call may name the trap, and
//! nothing may appear in the working directory.

use std::path::{Path, PathBuf};
use std::process::Command;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs dwarv under strace in `cwd`; returns the path arguments of the file system calls.
fn traced(cwd: &Path, log: &Path, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let status = Command::new(crate::support::tool("strace"))
        .args(["-f", "-qq", "-e", "trace=%file", "-o", s(log)])
        .arg(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run strace");
    let text = std::fs::read_to_string(log).unwrap();
    let paths = text
        .lines()
        .filter_map(|l| l.split('"').nth(1).map(str::to_string))
        .collect();
    (status.status.code(), paths)
}

fn fresh(dir: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    dir.to_path_buf()
}

#[test]
fn paths_inside_an_input_are_never_opened() {
    let root = fresh(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("input_paths"));
    let trap = fresh(&root.join("trap"));
    let work = fresh(&root.join("work"));
    let cwd = fresh(&root.join("cwd"));
    let logs = fresh(&root.join("logs"));

    // SPIR-V whose DebugStoragePath names trap/side.o, a real sidecar of it.
    let code = work.join("code.spv");
    let planted = trap.join("side.o");
    let strip = crate::support::dwarv(&[
        "strip",
        s(&crate::support::corpus().join("particles.spv")),
        "-o",
        s(&code),
        "--debug-out",
        s(&planted),
    ]);
    assert_eq!(strip.status.code(), Some(0), "{strip:?}");
    let side = work.join("side.o");
    std::fs::copy(&planted, &side).unwrap();

    // An object with split DWARF built inside the trap (comp_dir, dwo_name and the source
    // name point there; the .dwo stays there), moved out.
    let source = trap.join("unit.c");
    std::fs::write(&source, "int twice(int x) { int y = 2 * x; return y; }\n").unwrap();
    let built = Command::new("clang-14")
        .args(["-g", "-gsplit-dwarf", "-c", "unit.c", "-o", "unit.o"])
        .current_dir(&trap)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    assert!(trap.join("unit.dwo").exists());
    let object = work.join("unit.o");
    std::fs::rename(trap.join("unit.o"), &object).unwrap();

    // LLVM IR of the same source, its DIFile directory the trap.
    let ll = work.join("unit.ll");
    let emitted = Command::new("clang-14")
        .args(["-g", "-S", "-emit-llvm", "unit.c", "-o", s(&ll)])
        .current_dir(&trap)
        .output()
        .unwrap();
    assert!(emitted.status.success(), "{emitted:?}");
    assert!(std::fs::read_to_string(&ll).unwrap().contains(s(&trap)));

    let out = |name: &str| work.join(name);
    let runs: Vec<Vec<String>> = [
        vec!["attach", s(&code), s(&side), "-o", s(&out("attached.spv"))],
        vec![
            "convert",
            s(&code),
            "-o",
            s(&out("code.dwir")),
            "--to",
            "ir",
            // The stripped module's debug info is in its sidecar.
            "--allow-no-debug-info",
        ],
        vec!["dump", s(&code)],
        vec!["stats", s(&code)],
        vec![
            "convert",
            s(&object),
            "-o",
            s(&out("unit.out.o")),
            "--to",
            "dwarf",
        ],
        vec![
            "convert",
            s(&object),
            "-o",
            s(&out("unit.spv")),
            "--flavour",
            "opencl100",
        ],
        vec!["dump", s(&object)],
        vec!["stats", s(&object)],
        vec!["convert", s(&ll), "-o", s(&out("unit.ll.spv"))],
        vec![
            "convert",
            s(&ll),
            "-o",
            s(&out("unit.ll.o")),
            "--to",
            "dwarf",
        ],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(str::to_string).collect())
    .collect();
    let trap_name = s(&trap).to_string();
    for (i, args) in runs.iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, paths) = traced(&cwd, &logs.join(format!("{i}.log")), &args);
        assert_eq!(code, Some(0), "{args:?}");
        // The trace sees the files dwarv opens: the input is among them.
        assert!(paths.iter().any(|p| p == args[1]), "{args:?}: {paths:?}");
        let touched: Vec<&String> = paths
            .iter()
            .filter(|p| p.contains(&trap_name) || p.contains("unit.dwo") || p.contains("unit.c"))
            .collect();
        assert!(touched.is_empty(), "{args:?} named {touched:?}");
    }
    let left: Vec<_> = std::fs::read_dir(&cwd)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "files appeared in the working directory: {left:?}"
    );
}
