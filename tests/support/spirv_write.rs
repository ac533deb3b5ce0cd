//! What the `spirv/write` tests of both tiers share (tests/all/spirv/write.rs and
//! tests/judges/spirv/write.rs).

use std::path::Path;
use std::process::Command;
use std::process::Output;

pub const FLAVOURS: [&str; 4] = ["shader100", "opencl100", "debuginfo", "spirv-debug"];

pub fn dwarv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .output()
        .expect("run dwarv")
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Converts `input` to `out` with `extra` arguments; panics unless dwarv exits 0.
pub fn convert(input: &Path, out: &Path, flavour: &str, extra: &[&str]) -> serde_json::Value {
    let report = out.with_extension("json");
    let mut args = vec!["convert", s(input), "-o", s(out), "--flavour", flavour];
    args.extend(["--report", s(&report)]);
    args.extend(extra);
    let o = dwarv(&args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
}

pub fn losses(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["diagnostics"]["losses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let f = |k: &str| l[k].as_str().unwrap().to_string();
            (f("kind"), f("place"), f("message"))
        })
        .collect()
}

pub fn expect(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

pub fn sorted(mut v: Vec<(String, String, String)>) -> Vec<(String, String, String)> {
    v.sort();
    v
}
