//! Covers src/batch/, src/stats.rs. dwarv's own checks of it: tests/all/cli/batch.rs.
//!
//! `dwarv batch`, `report merge` and `stats` over a generated corpus of more than 1 000 modules
//! of mixed formats with a few corrupt ones.

use crate::support::cli_batch::*;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// What the generated corpus holds.
struct Corpus {
    root: PathBuf,
    good: usize,
    corrupt: Vec<String>,
    other: usize,
}

/// 1 000+ modules under `root/mods`: the repository's IR texts (with a comment line that makes
/// each copy distinct), the SPIR-V modules corpus/build.sh makes (GLSL and OpenCL, OpenCL.100
/// and legacy), a handful of corrupt files, and files that are not debug info at all.
fn generate(root: &Path) -> Corpus {
    let repo = crate::support::repo_root();
    let mut sources: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in [repo.join("corpus/ir"), repo.join("tests/spirv")] {
        for p in files_under(&dir) {
            if p.extension().is_some_and(|e| e == "dwir") {
                sources.push((stem(&p), std::fs::read(&p).unwrap()));
            }
        }
    }
    let built = crate::support::corpus();
    for name in [
        "kernel.ocl100.spv",
        "kernel.legacy.spv",
        "particles.spv",
        "shade.spv",
    ] {
        sources.push((
            name.replace('.', "_"),
            std::fs::read(built.join(name)).unwrap(),
        ));
    }
    sources.sort();
    let mods = root.join("mods");
    let mut good = 0;
    for i in 0..1020 {
        let (name, bytes) = &sources[i % sources.len()];
        let dir = mods.join(format!("d{:02}", i % 17));
        std::fs::create_dir_all(&dir).unwrap();
        let spirv = bytes.starts_with(&[0x03, 0x02, 0x23, 0x07]);
        let (file, content) = match spirv {
            true => (format!("{name}_{i}.spv"), bytes.clone()),
            false => {
                // After the header line, which format detection looks for first.
                let cut = bytes.iter().position(|b| *b == b'\n').map_or(0, |n| n + 1);
                let mut c = bytes[..cut].to_vec();
                c.extend_from_slice(format!("; variant {i}\n").as_bytes());
                c.extend_from_slice(&bytes[cut..]);
                (format!("{name}_{i}.dwir"), c)
            }
        };
        std::fs::write(dir.join(file), content).unwrap();
        good += 1;
    }
    let spv = std::fs::read(built.join("kernel.ocl100.spv")).unwrap();
    let bad = mods.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let mut corrupt = Vec::new();
    let mut put = |name: &str, bytes: &[u8]| {
        std::fs::write(bad.join(name), bytes).unwrap();
        corrupt.push(format!("mods/bad/{name}"));
    };
    put("truncated.spv", &spv[..spv.len() / 3]);
    put("cut_mid_word.spv", &spv[..22]);
    let mut flipped = spv.clone();
    // The word count of an instruction early in the module.
    flipped[20 + 2] ^= 0xff;
    flipped[20 + 3] ^= 0x7f;
    put("bad_word_count.spv", &flipped);
    put(
        "syntax.dwir",
        b"; dwarv-ir 1\nt0 = type base \"int\" size=\n",
    );
    put(
        "dangling.dwir",
        b"; dwarv-ir 1\nt0 = typedef \"x\" base=t7\n",
    );
    std::fs::write(mods.join("README.txt"), "not debug info\n").unwrap();
    std::fs::write(mods.join("d03/notes.md"), "# notes\n").unwrap();
    Corpus {
        root: root.to_path_buf(),
        good,
        corrupt,
        other: 2,
    }
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

fn totals(r: &Value) -> Value {
    let mut t = r["totals"].clone();
    t.as_object_mut().unwrap().remove("seconds");
    t
}

#[test]
fn batch_converts_a_mixed_corpus_and_shards_merge_to_the_same_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let c = generate(tmp.path());
    let root = &c.root;

    // The whole corpus on two workers.
    let out = dwarv(
        &[
            "batch", "mods", "-o", "out", "--to", "spirv", "-j", "2", "--report", "all.json",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1), "some inputs failed: exit 1");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("batch summary"), "{summary}");
    let all = report(&root.join("all.json"));
    let t = &all["totals"];
    assert_eq!(t["inputs"], (c.good + c.corrupt.len() + c.other) as u64);
    assert_eq!(t["converted"], c.good as u64, "{summary}");
    assert_eq!(t["failed"], c.corrupt.len() as u64, "{summary}");
    assert_eq!(t["not_debug_info"], c.other as u64);
    let records = all["records"].as_array().unwrap();
    assert_eq!(records.len() as u64, t["inputs"].as_u64().unwrap());
    let mut failed: Vec<&str> = records
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| r["input"].as_str().unwrap())
        .collect();
    failed.sort();
    let mut expected: Vec<&str> = c.corrupt.iter().map(String::as_str).collect();
    expected.sort();
    assert_eq!(failed, expected);
    for r in records.iter().filter(|r| r["status"] == "failed") {
        assert!(r["output"].is_null());
        let err = r["error"].as_str().unwrap();
        assert!(err.contains(r["input"].as_str().unwrap()), "{err}");
    }
    // Outputs mirror inputs; none for the corrupt or foreign files. (Beside them: the settings
    // they were written with.)
    let mut outputs = files_under(&root.join("out"));
    outputs.retain(|p| !p.ends_with(".dwarv-batch"));
    assert_eq!(outputs.len(), c.good);
    assert!(outputs
        .iter()
        .all(|p| p.extension().is_some_and(|e| e == "spv")));
    assert!(files_under(&root.join("out/mods/bad")).is_empty());
    assert!(root.join("out/mods/d00").is_dir());
    // Coverage column: every converted SPIR-V output read back.
    let with_stats = records
        .iter()
        .filter(|r| r["status"] == "converted" && r["stats"]["code"]["unit"] == "instructions")
        .count();
    assert_eq!(with_stats, c.good);
    // One output per source passes its real consumer: spirv-val, or llvm-spirv-14 for the
    // `SPIRV.debug` set (the default for llvm-spirv's legacy output), which spirv-val cannot judge.
    outputs.sort();
    let mut judged = std::collections::BTreeSet::new();
    for p in &outputs {
        let name = p.file_stem().unwrap().to_string_lossy();
        let source = name
            .rsplit_once('_')
            .map_or(name.to_string(), |(s, _)| s.to_string());
        if !judged.insert(source) {
            continue;
        }
        let bytes = std::fs::read(p).unwrap();
        let legacy = bytes.windows(11).any(|w| w == b"SPIRV.debug");
        let verdict = match legacy {
            true => crate::support::llvm_spirv_reads(p),
            false => crate::support::spirv_val_result(p, "spv1.4")
                .or_else(|_| crate::support::spirv_val_result(p, "opencl2.2"))
                .or_else(|_| crate::support::spirv_val_result(p, "vulkan1.2")),
        };
        verdict.unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    assert!(judged.len() >= 10, "{judged:?}");

    // A re-run converts nothing (outputs newer), unless --force.
    let again = dwarv(
        &[
            "batch",
            "mods",
            "-o",
            "out",
            "--to",
            "spirv",
            "-q",
            "--no-stats",
            "--report",
            "again.json",
        ],
        root,
    );
    assert_eq!(again.status.code(), Some(1));
    let again = report(&root.join("again.json"));
    assert_eq!(again["totals"]["up_to_date"], c.good as u64);
    assert_eq!(again["totals"]["converted"], 0);

    // Three shards, merged, give the whole run's totals.
    let mut shard_reports = Vec::new();
    for k in 0..3 {
        let name = format!("shard{k}.json");
        let shard = format!("{k}/3");
        let o = dwarv(
            &[
                "batch", "mods", "-o", "sharded", "--to", "spirv", "-q", "--shard", &shard,
                "--report", &name,
            ],
            root,
        );
        assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
        let r = report(&root.join(&name));
        assert!(
            r["totals"]["inputs"].as_u64().unwrap() > 0,
            "shard {k} is empty"
        );
        shard_reports.push(name);
    }
    let mut args = vec!["report", "merge"];
    args.extend(shard_reports.iter().map(String::as_str));
    args.extend(["-o", "merged.json"]);
    let m = dwarv(&args, root);
    assert!(m.status.success(), "{m:?}");
    let merged = report(&root.join("merged.json"));
    assert_eq!(totals(&merged), totals(&all));
    assert_eq!(merged["merged"].as_array().unwrap().len(), 3);
    // A shard merged twice is refused.
    let dup = dwarv(
        &[
            "report",
            "merge",
            "shard0.json",
            "shard0.json",
            "-o",
            "dup.json",
        ],
        root,
    );
    assert_eq!(dup.status.code(), Some(2));
    assert!(!root.join("dup.json").exists());
}
