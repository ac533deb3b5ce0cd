//! What the `dwarf/write` tests of both tiers share (tests/all/dwarf/write.rs and
//! tests/judges/dwarf/write.rs).

use crate::support::dwarv;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dwarf_write");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Compiles `src` with `cc -g -gdwarf-V -c` into `obj`, which must round-trip through DWARF
/// exactly (`roundtrip --via dwarf` exit 0).
pub fn compiled_round_trips(cc: &str, v: &str, src: &Path, obj: &Path) {
    crate::support::run_ok(
        Command::new(crate::support::tool(cc))
            .args(["-g", &format!("-gdwarf-{v}"), "-c"])
            .arg(src)
            .arg("-o")
            .arg(obj),
    );
    let r = dwarv(&["roundtrip", s(obj), "--via", "dwarf"]);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{cc} v{v}: {}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
}
