//! What the `dwarf/cfi` tests of both tiers share (tests/all/dwarf/cfi.rs and
//! tests/judges/dwarf/cfi.rs).

use crate::support::dwarv;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dwarf_cfi");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Assembles `source` (x86-64) with llvm-mc-19.
pub fn assemble(name: &str, source: &str) -> PathBuf {
    let d = dir();
    let src = d.join(format!("{name}.s"));
    std::fs::write(&src, source).unwrap();
    let obj = d.join(format!("{name}.o"));
    crate::support::run_ok(
        Command::new(crate::support::tool("llvm-mc-19"))
            .args(["--filetype=obj", "-triple=x86_64-pc-linux"])
            .arg(&src)
            .arg("-o")
            .arg(&obj),
    );
    obj
}

pub fn roundtrip_ok(obj: &Path) {
    let r = dwarv(&["roundtrip", s(obj), "--via", "dwarf"]);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}: {}{}",
        obj.display(),
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
}

pub fn dump(obj: &Path) -> String {
    let o = crate::support::run_ok(
        Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .arg("dump")
            .arg(obj),
    );
    String::from_utf8(o.stdout).unwrap()
}
