//! Covers src/output.rs.
//!
//! Output files behave like a compiler's: a new output gets 0666 less the
//! umask, one that replaces a file keeps that file's mode (the input itself included), for
//! `convert`, `batch`, `strip` (both outputs) and `attach`; messages name the path the user
//! gave, never the temporary file, and a `batch` line names its input once.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// Runs `dwarv ARGS` in `dir` under `umask`.
fn dwarv(dir: &Path, umask: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{o:?}");
    o
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A directory with `shader.dwir` (a shader's IR, corpus/ir/sample.dwir) and `shader.spv` (its shader100 module).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ir/sample.dwir");
    std::fs::copy(ir, dir.path().join("shader.dwir")).unwrap();
    ok(dwarv(
        dir.path(),
        "022",
        &["convert", "shader.dwir", "-o", "shader.spv"],
    ));
    dir
}

/// Under `umask` in `d`: `convert` (new.spv), `strip` (code.spv, side.o), `attach`
/// (attached.spv) and `batch` (out/shader.spv, `--force`: over whatever is there).
fn write_every_output(d: &Path, umask: &str) {
    ok(dwarv(
        d,
        umask,
        &["convert", "shader.dwir", "-o", "new.spv"],
    ));
    let strip = [
        "strip",
        "shader.spv",
        "-o",
        "code.spv",
        "--debug-out",
        "side.o",
    ];
    ok(dwarv(d, umask, &strip));
    ok(dwarv(
        d,
        umask,
        &["attach", "code.spv", "side.o", "-o", "attached.spv"],
    ));
    let batch = [
        "batch",
        "shader.dwir",
        "-o",
        "out",
        "--to",
        "spirv",
        "--force",
        "--quiet",
    ];
    ok(dwarv(d, umask, &batch));
}

/// Every output of each verb, made new under `umask`, has `want`.
fn outputs_under(umask: &str, want: u32) {
    let dir = workspace();
    let d = dir.path();
    write_every_output(d, umask);
    for out in [
        "new.spv",
        "code.spv",
        "side.o",
        "attached.spv",
        "out/shader.spv",
    ] {
        assert_eq!(mode(&d.join(out)), want, "{out} under umask {umask}");
    }
}

#[test]
fn new_outputs_get_0666_less_the_umask() {
    outputs_under("022", 0o644);
    outputs_under("077", 0o600);
}

#[test]
fn a_replaced_output_keeps_its_mode() {
    let dir = workspace();
    let d = dir.path();
    for out in ["new.spv", "code.spv", "side.o", "attached.spv"] {
        std::fs::write(d.join(out), b"old").unwrap();
        set_mode(&d.join(out), 0o755);
    }
    std::fs::create_dir(d.join("out")).unwrap();
    std::fs::write(d.join("out/shader.spv"), b"old").unwrap();
    set_mode(&d.join("out/shader.spv"), 0o755);
    write_every_output(d, "077");
    for out in [
        "new.spv",
        "code.spv",
        "side.o",
        "attached.spv",
        "out/shader.spv",
    ] {
        assert_eq!(mode(&d.join(out)), 0o755, "{out}");
    }
    // Converting a file onto itself keeps its mode too.
    set_mode(&d.join("shader.spv"), 0o750);
    ok(dwarv(
        d,
        "022",
        &["convert", "shader.spv", "-o", "shader.spv"],
    ));
    assert_eq!(mode(&d.join("shader.spv")), 0o750);
}

#[test]
fn messages_name_the_users_path_never_the_temporary_file() {
    let dir = workspace();
    let d = dir.path();
    let o = dwarv(
        d,
        "022",
        &["convert", "shader.dwir", "-o", "missing/dir/x.spv"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("missing/dir/x.spv: its directory missing/dir does not exist"),
        "{err}"
    );
    // A directory that cannot hold a new file: the system's reason, at the user's path.
    let o = dwarv(d, "022", &["convert", "shader.dwir", "-o", "/proc/x.spv"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/proc/x.spv: "), "{err}");
    assert!(!err.contains(".dwarv-") && !err.contains(".tmp"), "{err}");
}

#[test]
fn a_batch_failure_names_its_input_once() {
    let dir = workspace();
    let d = dir.path();
    // SPIR-V's magic and header, then an instruction that runs past the end.
    let mut bad: Vec<u8> = [0x0723_0203u32, 0x0001_0000, 0, 10, 0, 0x0005_0011]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    bad.truncate(bad.len() - 2);
    std::fs::write(d.join("bad.spv"), bad).unwrap();
    let o = dwarv(
        d,
        "022",
        &["batch", "bad.spv", "-o", "out", "--to", "ir", "--quiet"],
    );
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("failed bad.spv"))
        .unwrap_or_else(|| panic!("no failure line: {text}"));
    assert_eq!(line.matches("bad.spv").count(), 1, "{line}");
}
