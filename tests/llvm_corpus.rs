//! The LLVM frontend over the peer corpus (the 146 `.ll` of llvm-spirv's debug-info tests; the
//! two templates with INPUT_LANGUAGE=DW_LANG_OpenCL) and over our own corpus: every file reads
//! and validates, and its standalone conversion to every flavour is accepted by the real
//! consumer (spirv-val; `llvm-spirv-14 -r` for spirv-debug). docs/llvm.md has the table.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const FLAVOURS: [&str; 4] = ["debuginfo", "opencl100", "shader100", "spirv-debug"];

/// Modules with several compile units: llvm-spirv-14 -r gives each DebugCompilationUnit its own
/// "Dwarf Version" module flag and then fails its own verifier ("module flag identifiers must be
/// unique"). Its own translations carry one unit only.
const MULTI_CU_SPIRV_DEBUG: [&str; 5] = [
    "Generic/c-and-cpp-mixed.ll",
    "NonSemantic/Shader200/storagePath_dwo.ll",
    "X86/split-dwarf-multiple-cu-hash.ll",
    "X86/split-dwarf-omit-empty.ll",
    "omit-empty.ll",
];

fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            ll_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ll") {
            out.push(p);
        }
    }
}

/// The peer files as (name relative to the corpus, path to read), templates instantiated;
/// `None` when the corpus is absent (see `common::shared_corpus`).
fn peer(tmp: &Path) -> Option<Vec<(String, PathBuf)>> {
    let root = common::peer()?;
    let root = root.as_path();
    let mut files = Vec::new();
    ll_files(root, &mut files);
    files.sort();
    let files = files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            if !text.contains("INPUT_LANGUAGE") {
                return (rel, p);
            }
            let inst = tmp.join(rel.replace('/', "_"));
            std::fs::write(&inst, text.replace("INPUT_LANGUAGE", "DW_LANG_OpenCL")).unwrap();
            (rel, inst)
        })
        .collect();
    Some(files)
}

/// Converts standalone and judges the output; Err(what failed).
fn convert_and_judge(input: &Path, out: &Path, flavour: &str) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .arg("convert")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(["--flavour", flavour])
        .output()
        .unwrap();
    if !o.status.success() {
        return Err(format!("convert: {}", String::from_utf8_lossy(&o.stderr)));
    }
    if flavour == "spirv-debug" {
        let r = Command::new("llvm-spirv-14")
            .arg("-r")
            .arg(out)
            .arg("-o")
            .arg(out.with_extension("bc"))
            .output()
            .expect("llvm-spirv-14 runs (scripts/setup.sh installs it)");
        return match r.status.success() {
            true => Ok(()),
            false => Err(format!(
                "llvm-spirv -r: {}",
                String::from_utf8_lossy(&r.stderr)
            )),
        };
    }
    // The writer makes Kernel modules SPIR-V 1.0, Shader ones 1.3: each in its environment.
    let bytes = std::fs::read(out).unwrap();
    let env = if bytes.get(4..8) == Some(&[0, 0, 1, 0]) {
        "opencl2.2"
    } else {
        "vulkan1.2"
    };
    common::spirv_val_result(out, env).map_err(|e| format!("spirv-val ({env}): {e}"))
}

#[test]
fn peer_corpus_reads_and_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = peer(tmp.path()) else {
        return;
    };
    assert_eq!(files.len(), 146);
    for (rel, path) in &files {
        let input = dwarv::input::read(path.to_str().unwrap()).unwrap();
        let (m, _) =
            dwarv::input::lower_with_diagnostics(&input).unwrap_or_else(|e| panic!("{rel}: {e}"));
        dwarv::ir::verify::check(&m).unwrap_or_else(|f| panic!("{rel}: {f}"));
    }
}

#[test]
fn peer_corpus_converts_to_every_flavour_and_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = peer(tmp.path()) else {
        return;
    };
    let mut failures = Vec::new();
    for (rel, path) in &files {
        for fl in FLAVOURS {
            let out = tmp
                .path()
                .join(format!("{}.{fl}.spv", rel.replace('/', "_")));
            if let Err(e) = convert_and_judge(path, &out, fl) {
                failures.push((rel.clone(), fl, e));
            }
        }
    }
    let expected: Vec<_> = MULTI_CU_SPIRV_DEBUG
        .iter()
        .map(|r| (r.to_string(), "spirv-debug"))
        .collect();
    let got: Vec<_> = failures.iter().map(|(r, f, _)| (r.clone(), *f)).collect();
    assert_eq!(got, expected, "failures: {failures:#?}");
    for (_, _, e) in &failures {
        assert!(e.contains("module flag identifiers must be unique"), "{e}");
    }
}

#[test]
fn own_corpus_converts_to_every_flavour_and_validates() {
    let dir = common::corpus();
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for name in [
        "kernel.O0.bc",
        "kernel.O2.bc",
        "kernel.O0.ll",
        "kernel.O2.ll",
        "frag.O0.bc",
        "frag.O2.bc",
        "frag.O2.ll",
        "shapes.O0.bc",
        "shapes.O2.bc",
        "shapes.O0.ll",
        "prog.ll",
        "prog.O2.ll",
    ] {
        for fl in FLAVOURS {
            let out = tmp.path().join(format!("{name}.{fl}.spv"));
            convert_and_judge(&dir.join(name), &out, fl)
                .unwrap_or_else(|e| panic!("{name} {fl}: {e}"));
            n += 1;
        }
    }
    assert_eq!(n, 48);
}
