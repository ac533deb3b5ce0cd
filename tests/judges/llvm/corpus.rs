//! Covers src/front/llvm/. dwarv's own checks of it: tests/all/llvm/corpus.rs.
//!
//! The LLVM frontend over the peer corpus (the 146 `.ll` of llvm-spirv's debug-info tests; the
//! two templates with INPUT_LANGUAGE=DW_LANG_OpenCL) and over our own corpus: every file reads
//! and validates, and its standalone conversion to every flavour is accepted by the real
//! consumer (spirv-val; `llvm-spirv-14 -r` for spirv-debug). The same over the translator's
//! current tests (modern IR, read by LLVM 19). docs/llvm.md has the tables.

use crate::support::llvm_corpus::*;
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

/// The translator's current debug-info tests (its main branch: IR of LLVM 19–21, opaque
/// pointers, debug records, new DI fields such as targetFuncName): its `.ll` files, and how many
/// `llvm-as-19` accepts (the others need LLVM 21: `captures(none)`, `DW_CC_LLVM_DeviceKernel`).
/// The translator's current tests, in `../shared/corpus/` (see `crate::support::shared_corpus`).
const MAIN: &str = "llvm-spirv-debuginfo-main";
const MAIN_FILES: usize = 155;
const MAIN_LLVM19_ACCEPTS: usize = 145;

/// Accepted by llvm-as-19 only by dropping their debug info: LLVM 19's verifier rejects it
/// ("invalid retained nodes": a global variable expression among a subprogram's retained
/// nodes), and dwarv reports broken debug info instead of reading a module without it.
const MAIN_INVALID_DEBUG_INFO: [&str; 2] = [
    "NonSemantic/Shader200/DebugInfoStringType.ll",
    "X86/dimodule-external-fortran.ll",
];

/// The main branch's multi-unit modules (as MULTI_CU_SPIRV_DEBUG above).
const MAIN_MULTI_CU_SPIRV_DEBUG: [&str; 4] = [
    "NonSemantic/Shader200/storagePath_dwo.ll",
    "X86/mixed-nodebug-cu.ll",
    "X86/split-dwarf-multiple-cu-hash.ll",
    "omit-empty.ll",
];

/// Converts standalone and judges the output; Err(what failed).
fn convert_and_judge(input: &Path, out: &Path, flavour: &str) -> Result<(), String> {
    convert_and_judge_by(input, out, flavour, "llvm-spirv-14")
}

/// As [`convert_and_judge`], spirv-debug read back by `reader` (`llvm-spirv-N`).
fn convert_and_judge_by(
    input: &Path,
    out: &Path,
    flavour: &str,
    reader: &str,
) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .arg("convert")
        .arg("--allow-no-debug-info")
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
        let r = Command::new(crate::support::tool(reader))
            .arg("-r")
            .arg(out)
            .arg("-o")
            .arg(out.with_extension("bc"))
            .output()
            .expect("llvm-spirv runs (scripts/setup.sh installs it)");
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
    crate::support::spirv_val_result(out, env).map_err(|e| format!("spirv-val ({env}): {e}"))
}

type Failures = Vec<(String, &'static str, String)>;

/// Converts `path` (`rel` in its corpus) to every flavour in `tmp`, judging each output.
fn every_flavour(rel: &str, path: &Path, tmp: &Path, failures: &mut Failures) {
    for fl in FLAVOURS {
        let out = tmp.join(format!("{}.{fl}.spv", rel.replace('/', "_")));
        if let Err(e) = convert_and_judge(path, &out, fl) {
            failures.push((rel.to_string(), fl, e));
        }
    }
}

/// The failures are exactly the spirv-debug outputs of `multi_unit`, for the known reason.
fn only_multi_unit_spirv_debug(failures: &Failures, multi_unit: &[&str]) {
    let got: Vec<_> = failures.iter().map(|(r, f, _)| (r.clone(), *f)).collect();
    let expected: Vec<_> = multi_unit
        .iter()
        .map(|r| (r.to_string(), "spirv-debug"))
        .collect();
    assert_eq!(got, expected, "failures: {failures:#?}");
    for (_, _, e) in failures {
        assert!(e.contains("module flag identifiers must be unique"), "{e}");
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
        every_flavour(rel, path, tmp.path(), &mut failures);
    }
    only_multi_unit_spirv_debug(&failures, &MULTI_CU_SPIRV_DEBUG);
}

#[test]
fn own_corpus_converts_to_every_flavour_and_validates() {
    let dir = crate::support::corpus();
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

/// The main-branch files LLVM 19 accepts, as (name relative to the corpus, instantiated copy in
/// `tmp`); `None` when the corpus is absent.
fn main_accepted(tmp: &Path) -> Option<Vec<(String, PathBuf)>> {
    let root = crate::support::shared_corpus(MAIN)?;
    let root = root.as_path();
    let mut files = Vec::new();
    ll_files(root, &mut files);
    files.sort();
    assert_eq!(files.len(), MAIN_FILES);
    let as19 = crate::support::tool("llvm-as-19");
    let mut out = Vec::new();
    for p in files {
        let rel = p.strip_prefix(root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let inst = tmp.join(rel.replace('/', "_"));
        std::fs::write(&inst, text.replace("INPUT_LANGUAGE", "DW_LANG_OpenCL")).unwrap();
        let o = Command::new(&as19)
            .arg(&inst)
            .args(["-o", "/dev/null"])
            .output();
        if o.unwrap().status.success() {
            out.push((rel, inst));
        }
    }
    Some(out)
}

#[test]
fn main_corpus_llvm19_accepted_files_read_validate_and_convert() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = main_accepted(tmp.path()) else {
        return;
    };
    assert_eq!(files.len(), MAIN_LLVM19_ACCEPTS);
    let mut failures = Vec::new();
    let mut read = 0;
    for (rel, path) in &files {
        let o = crate::support::dwarv(&["validate", path.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        if MAIN_INVALID_DEBUG_INFO.contains(&rel.as_str()) {
            assert_eq!(o.status.code(), Some(2), "{rel}: {e}");
            assert!(e.contains("invalid retained nodes"), "{rel}: {e}");
            continue;
        }
        assert!(o.status.success(), "{rel}: {e}");
        read += 1;
        every_flavour(rel, path, tmp.path(), &mut failures);
    }
    println!(
        "llvm-spirv-debuginfo-main: {MAIN_FILES} .ll, {MAIN_LLVM19_ACCEPTS} accepted by \
         llvm-as-19, {read} read, validated and converted in each of the {} flavours",
        FLAVOURS.len()
    );
    assert_eq!(read, MAIN_LLVM19_ACCEPTS - MAIN_INVALID_DEBUG_INFO.len());
    only_multi_unit_spirv_debug(&failures, &MAIN_MULTI_CU_SPIRV_DEBUG);
}

/// The own corpus compiled by clang-15 and clang-19 (`CLANG=clang-N corpus/build.sh`): every
/// LLVM module of it (bitcode and text, OpenCL C for spir64 at -O0 and -O2, C, C++ with
/// templates, AMDGPU) converts to every flavour, spirv-val clean; spirv-debug read back by
/// llvm-spirv-15 (Debian has no llvm-spirv-19; 15 is the newest that can read it back).
#[test]
fn newer_clang_corpus_converts_to_every_flavour_and_validates() {
    let tmp = tempfile::tempdir().unwrap();
    for major in [15, 19] {
        let built = crate::support::corpus_built(&[("CLANG", &format!("clang-{major}"))]);
        let out = tmp.path().join(format!("clang{major}"));
        std::fs::create_dir_all(&out).unwrap();
        let mut modules: Vec<PathBuf> = std::fs::read_dir(&built)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                (name.ends_with(".bc") || name.ends_with(".ll")) && !name.contains("nodebug")
            })
            .collect();
        modules.sort();
        // (assign.O2.ll is clang-19's whatever the compiler: assignment tracking.)
        assert_eq!(modules.len(), 18, "clang-{major}: {modules:?}");
        for m in &modules {
            for fl in FLAVOURS {
                let name = m.file_name().unwrap().to_string_lossy();
                let spv = out.join(format!("{name}.{fl}.spv"));
                convert_and_judge_by(m, &spv, fl, "llvm-spirv-15")
                    .unwrap_or_else(|e| panic!("clang-{major} {name} {fl}: {e}"));
            }
        }
    }
}

/// LLVM IR through DWARF and back is exact (`roundtrip --via dwarf` exit 0) except for these,
/// by cause (docs/dwarf.md, "LLVM IR ⇄ DWARF"). The test fails when one of them passes too.
const DWARF_ROUNDTRIP_KNOWN: [&str; 5] = [
    // No debug info at all (no unit, no entity, no line row): nothing to write, exit 2 with
    // "the module has no compile unit to hold its debug info".
    "Generic/2010-03-12-llc-crash.ll",
    // A line row without a file.
    "X86/dbg-value-frame-index.ll",
    "main/COFF/no-cus.ll",
    // An imported entity retained by a function it is inlined into (ledgered).
    "main/Generic/imported-name-inlined.ll",
    "main/X86/dbg-value-frame-index.ll",
];

/// Every `.ll` of both translator corpora and our own through DWARF and back: exact, and the
/// DWARF written verifies with llvm-dwarfdump.
#[test]
fn every_llvm_file_round_trips_through_dwarf() {
    let tmp = std::env::temp_dir().join(format!("dwarv-llvm-dwarf-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (Some(mut files), Some(main)) = (peer(&tmp), main_accepted(&tmp)) else {
        return;
    };
    files.extend(
        main.into_iter()
            .filter(|(rel, _)| !MAIN_INVALID_DEBUG_INFO.contains(&rel.as_str()))
            .map(|(rel, p)| (format!("main/{rel}"), p)),
    );
    let own = crate::support::repo_root().join("corpus").join("ir");
    let mut mine = Vec::new();
    ll_files(&own, &mut mine);
    files.extend(
        mine.into_iter()
            .map(|p| (format!("corpus/{}", p.display()), p)),
    );
    let count = files.len();
    let outcomes = crate::support::in_parallel(files, 2, |(rel, path)| {
        let rt = crate::support::dwarv(&["roundtrip", "--via", "dwarf", path.to_str().unwrap()]);
        if rt.status.code() != Some(0) {
            return Some(Err(rel));
        }
        let obj = tmp.join(format!("{}.o", rel.replace('/', "_")));
        let conv = crate::support::dwarv(&[
            "convert",
            "--allow-no-debug-info",
            path.to_str().unwrap(),
            "--to",
            "dwarf",
            "-o",
            obj.to_str().unwrap(),
        ]);
        assert!(conv.status.success(), "{rel}: convert --to dwarf failed");
        crate::support::dwarfdump_verify(&obj, dwarv::unstable::dwarf::AmdOps::Raw);
        Some(Ok(()))
    });
    let mut failing: Vec<String> = outcomes.into_iter().filter_map(|o| o.err()).collect();
    failing.sort();
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(
        count,
        146 + MAIN_LLVM19_ACCEPTS - MAIN_INVALID_DEBUG_INFO.len()
    );
    assert_eq!(failing, DWARF_ROUNDTRIP_KNOWN, "of {count} files");
}

/// `tests/llvm/NAME` round-trips through DWARF exactly (`roundtrip`, and `diff` against its
/// DWARF written in each of `versions`); that DWARF passes `llvm-dwarfdump --verify`. Returns
/// `llvm-dwarfdump DUMP…` of the DWARF of the last version.
fn exact_through_dwarf(name: &str, versions: &[&str], dump: &[&str]) -> String {
    let ll = crate::support::repo_root().join("tests/llvm").join(name);
    let ll = ll.to_str().unwrap();
    let rt = crate::support::dwarv(&["roundtrip", "--via", "dwarf", ll]);
    assert_eq!(
        rt.status.code(),
        Some(0),
        "{name}: {}{}",
        String::from_utf8_lossy(&rt.stdout),
        String::from_utf8_lossy(&rt.stderr)
    );
    let mut text = String::new();
    for v in versions {
        let tmp = std::env::temp_dir().join(format!("dwarv-{name}-{v}-{}.o", std::process::id()));
        let obj = tmp.to_str().unwrap();
        let conv = crate::support::dwarv(&[
            "convert",
            "--allow-no-debug-info",
            ll,
            "--to",
            "dwarf",
            "--dwarf-version",
            v,
            "-o",
            obj,
        ]);
        assert!(
            conv.status.success(),
            "{name}: convert --to dwarf (DWARF {v}) failed"
        );
        crate::support::dwarfdump_verify(&tmp, dwarv::unstable::dwarf::AmdOps::Raw);
        let back = crate::support::dwarv(&["diff", ll, obj]);
        assert_eq!(
            back.status.code(),
            Some(0),
            "{name} (DWARF {v}): {}",
            String::from_utf8_lossy(&back.stdout)
        );
        let args: Vec<&str> = dump.iter().copied().chain([obj]).collect();
        text = crate::support::tool_output("llvm-dwarfdump", &args);
        let _ = std::fs::remove_file(&tmp);
    }
    text
}

/// Lexical block files (with and without a discriminator, nested, holding a block, a variable,
/// a label, an import and an inlined call, in a function also inlined) round-trip through
/// DWARF exactly: each is a lexical block of its own, marked with its discriminator
/// (DW_AT_dwarv_block_file, 0x3d39), without ranges of its own; the DWARF verifies.
#[test]
fn block_files_round_trip_through_dwarf() {
    let dump = exact_through_dwarf("block-files.ll", &["5"], &["--debug-info"]);
    // One DIE per paragraph of the dump.
    let mut discriminators = Vec::new();
    for die in dump.split("\n\n") {
        let Some(line) = die.lines().find(|l| l.contains("DW_AT_unknown_3d39")) else {
            continue;
        };
        assert!(die.contains("DW_TAG_lexical_block"), "{die}");
        assert!(
            !die.contains("DW_AT_ranges") && !die.contains("DW_AT_low_pc"),
            "a block file with ranges of its own:\n{die}"
        );
        let n = line.rsplit('(').next().unwrap().trim_end_matches(')');
        discriminators.push(n.parse::<u32>().unwrap());
    }
    discriminators.sort();
    assert_eq!(discriminators, [0, 2, 3, 5], "{dump}");
}

/// Macros of a unit without code or line rows, in files of their own (nested, one in another
/// directory), in DWARF 5 and 4: their DW_MACRO_start_file entries name files of the line
/// program the unit gets for them (a lone end of sequence: no row), and the round trip is exact
/// (it was refused: "a macro file entry needs its file").
#[test]
fn macros_without_rows_round_trip_through_dwarf() {
    let dump = exact_through_dwarf(
        "macros-without-rows.ll",
        &["4", "5"],
        &["--debug-macro", "--debug-line"],
    );
    let name_of = |n: &str| -> String {
        let at = dump
            .find(&format!("file_names[{n:>3}]:"))
            .unwrap_or_else(|| panic!("no file {n} in the line table:\n{dump}"));
        let line = dump[at..].lines().nth(1).unwrap();
        line.trim()
            .trim_start_matches("name: ")
            .trim_matches('"')
            .to_string()
    };
    let started: Vec<String> = dump
        .lines()
        .filter_map(|l| l.split("DW_MACRO_start_file").nth(1))
        .map(|l| name_of(l.rsplit("filenum: ").next().unwrap().trim()))
        .collect();
    assert_eq!(started, ["mac.c", "inc.h"], "{dump}");
    // Rows of the line table: a 64-bit address first.
    let rows: Vec<&str> = (dump.lines())
        .filter(|l| l.starts_with("0x") && l.split_whitespace().next().unwrap().len() == 18)
        .collect();
    assert!(!rows.is_empty(), "{dump}");
    assert!(
        rows.iter().all(|r| r.contains("end_sequence")),
        "line rows in a unit without any: {rows:?}"
    );
}

/// Template parameters several templates list (a member function template's declaration and
/// its definition share a type, a value and a pack; the class shares one with them): a copy
/// under each DIE, marked DW_AT_dwarv_same_as (0x3d3b) with the parameter's own DIE, and read
/// back as the one parameter, in each list's order (it came back as an extra `tparam`). A
/// pack's copy holds copies of its members, so that a debugger reading the copy sees them.
#[test]
fn shared_template_params_round_trip_through_dwarf() {
    let dump = exact_through_dwarf("shared-template-params.ll", &["4", "5"], &["--debug-info"]);
    let copies = dump.matches("DW_AT_unknown_3d3b").count();
    // The declaration's four and its pack's member, the definition's `U` (the class owns it).
    assert_eq!(copies, 6, "{dump}");
    let pack_copy = dump
        .split("DW_TAG_GNU_template_parameter_pack")
        .nth(1)
        .and_then(|rest| rest.split("NULL").next())
        .unwrap_or_default();
    assert!(
        pack_copy.contains("DW_AT_unknown_3d3b") && pack_copy.contains("DW_AT_const_value\t(7)"),
        "the pack's copy without its member: {pack_copy}"
    );
}

/// A function that stands for another (LLVM targetFuncName) keeps it through DWARF as LLVM
/// writes it, DW_AT_trampoline in its string form (it was dropped, with a ledger line).
#[test]
fn trampoline_target_round_trips_through_dwarf() {
    let dump = exact_through_dwarf("trampoline.ll", &["4", "5"], &["--debug-info"]);
    assert!(
        dump.contains("DW_AT_trampoline\t(\"_Z6targetv\")"),
        "{dump}"
    );
}
