//! What the `cli/strip_attach` tests of both tiers share (tests/all/cli/strip_attach.rs and
//! tests/judges/cli/strip_attach.rs).

use crate::support::dwarv;
use std::path::Path;
use std::path::PathBuf;

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("strip_attach");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

pub fn ok(args: &[&str]) {
    let o = dwarv(args);
    assert!(
        o.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
