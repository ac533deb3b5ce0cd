//! What the `cli/batch` tests of both tiers share (tests/all/cli/batch.rs and
//! tests/judges/cli/batch.rs).

use serde_json::Value;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

pub fn dwarv(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("dwarv runs")
}

pub fn report(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("report written")).expect("valid JSON")
}

pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    walk(dir).into_iter().filter(|p| p.is_file()).collect()
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}
