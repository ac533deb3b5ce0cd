//! Covers src/input.rs and every reader, through the CLI.
//!
//! Every input format through the CLI, damaged: each corpus file truncated at many offsets and
//! with bits flipped. Every run must end with exit 0 and an output that reads back valid, or exit
//! 2 with a message naming the input and no output file — never a panic (101) or a signal.

use crate::support::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus inputs of every format: what corpus/build.sh makes (SPIR-V, LLVM IR and bitcode,
/// x86-64 and AMDGPU objects, an executable) and the IR texts.
fn inputs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(crate::support::corpus())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.extend(
        std::fs::read_dir(crate::support::repo_root().join("corpus/ir"))
            .unwrap()
            .flatten()
            .map(|e| e.path()),
    );
    v.sort();
    v
}

/// Truncations (near the start, where headers are, and spread over the file) and bit flips.
fn variants(bytes: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let n = bytes.len();
    let mut cuts: Vec<usize> = (0..8).chain((1..16).map(|k| n * k / 16)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut v: Vec<(String, Vec<u8>)> = cuts
        .into_iter()
        .filter(|&c| c < n)
        .map(|c| (format!("cut at byte {c}"), bytes[..c].to_vec()))
        .collect();
    let mut rng = Rng(seed | 1);
    for k in 0..16 {
        let mut b = bytes.to_vec();
        let flips = 1 + rng.next() % 4;
        let mut at = Vec::new();
        for _ in 0..flips {
            let i = (rng.next() % n as u64) as usize;
            b[i] ^= 1 << (rng.next() % 8);
            at.push(i);
        }
        v.push((format!("flip {k} at bytes {at:?}"), b));
    }
    v
}

fn dwarv(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .output()
        .expect("dwarv runs")
}

fn check(input: &Path, what: &str, dir: &Path, failures: &mut Vec<String>) -> bool {
    let out = dir.join("out.dwir");
    let _ = std::fs::remove_file(&out);
    let o = dwarv(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--to",
        "ir",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stray: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".dwarv-"))
        .collect();
    if !stray.is_empty() {
        failures.push(format!("{what}: temporary files left behind: {stray:?}"));
    }
    match o.status.code() {
        Some(0) => {
            let back = dwarv(&["validate", out.to_str().unwrap()]);
            if !back.status.success() {
                failures.push(format!(
                    "{what}: exit 0 but the output does not validate: {}",
                    String::from_utf8_lossy(&back.stdout)
                ));
            }
            true
        }
        Some(2) => {
            if out.exists() {
                failures.push(format!("{what}: exit 2 but an output file was written"));
            }
            if !stderr.starts_with("dwarv: ") || !stderr.contains(input.to_str().unwrap()) {
                failures.push(format!(
                    "{what}: exit 2 without a message naming the input: {stderr}"
                ));
            }
            false
        }
        code => {
            failures.push(format!("{what}: exit {code:?}: {stderr}"));
            false
        }
    }
}

#[test]
fn damaged_inputs_of_every_format_end_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let damaged = dir.path().join("damaged.bin");
    let mut failures = Vec::new();
    let mut table = Vec::new();
    for (i, input) in inputs().into_iter().enumerate() {
        let bytes = std::fs::read(&input).unwrap();
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let (mut ok, mut err) = (0, 0);
        for (what, b) in variants(&bytes, 0x9e37_79b9_7f4a_7c15 ^ i as u64) {
            std::fs::write(&damaged, &b).unwrap();
            let label = format!("{name}, {what}");
            match check(&damaged, &label, dir.path(), &mut failures) {
                true => ok += 1,
                false => err += 1,
            }
        }
        table.push(format!("{name:<28} {ok:>3} converted {err:>3} refused"));
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
