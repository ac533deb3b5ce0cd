//! Covers src/front/llvm/into.rs. dwarv's own checks of it: tests/all/llvm/into.rs.
//!
//! `dwarv convert x.bc --into code.spv` (code.spv = llvm-spirv-14 of the debug-stripped module)
//! on our OpenCL corpus at -O0: the result passes spirv-val, llvm-spirv-14 -r reads the
//! spirv-debug result, and the share of function instructions under a line is at least what
//! llvm-spirv-14's own debug output has.

use std::path::Path;
use std::process::Command;

use dwarv::unstable::spirv::binary::{op, to_words, Module as Bin};

/// (instructions of function bodies under an OpLine, all of them): OpLabel, OpFunctionParameter,
/// OpLine/OpNoLine and debug-set OpExtInsts not counted.
fn line_coverage(path: &Path) -> (usize, usize) {
    coverage(path, false)
}

/// (instructions of function bodies under a line, all of them), as [`line_coverage`] counts
/// them; a line is an OpLine or a NonSemantic DebugLine, in effect until OpNoLine, DebugNoLine
/// or the block's end. With `in_scope`, an instruction counts only while a DebugScope is in
/// effect too (until DebugNoScope or the block's end): the translator's reverse direction gives
/// an instruction after DebugNoScope no location, whatever OpLine is still in effect.
pub(crate) fn coverage(path: &Path, in_scope: bool) -> (usize, usize) {
    let words = to_words(&std::fs::read(path).unwrap()).unwrap();
    let bin = Bin::parse(&words).unwrap();
    let mut debug_sets = Vec::new();
    let (mut infn, mut active, mut scoped, mut covered, mut total) = (false, false, false, 0, 0);
    for insn in &bin.insns {
        match insn.opcode() {
            op::EXT_INST_IMPORT => {
                let name = insn.string(1).unwrap().0;
                if name.contains("Debug") || name == "SPIRV.debug" {
                    debug_sets.push(insn.operands()[0]);
                }
            }
            op::FUNCTION => (infn, active, scoped) = (true, false, false),
            op::FUNCTION_END => infn = false,
            _ if !infn => {}
            op::LABEL => (active, scoped) = (false, false),
            op::LINE => active = true,
            317 => active = false, // OpNoLine
            55 => {}               // OpFunctionParameter
            op::EXT_INST if debug_sets.contains(&insn.operands()[2]) => {
                // DebugScope and DebugNoScope (every set); NonSemantic's DebugLine, DebugNoLine.
                match insn.operands()[3] {
                    23 => scoped = true,
                    24 => scoped = false,
                    103 => active = true,
                    104 => active = false,
                    _ => {}
                }
            }
            _ => {
                total += 1;
                covered += usize::from(active && (scoped || !in_scope));
            }
        }
    }
    (covered, total)
}

#[test]
fn into_llvm_spirv_code_validates_and_covers_lines_like_the_peer() {
    let dir = crate::support::corpus();
    let tmp = tempfile::tempdir().unwrap();
    for name in ["kernel.O0", "frag.O0"] {
        let bc = dir.join(format!("{name}.bc"));
        let t = |s: &str| tmp.path().join(format!("{name}.{s}"));
        crate::support::run_ok(
            Command::new("opt")
                .arg("-strip-debug")
                .arg(&bc)
                .arg("-o")
                .arg(t("nodebug.bc")),
        );
        crate::support::run_ok(
            Command::new("llvm-spirv-14")
                .arg(t("nodebug.bc"))
                .arg("-o")
                .arg(t("code.spv")),
        );
        crate::support::run_ok(
            Command::new("llvm-spirv-14")
                .arg(&bc)
                .arg("-o")
                .arg(t("peer.spv")),
        );
        crate::support::spirv_val_result(&t("code.spv"), "spv1.4")
            .expect("llvm-spirv's code part validates");
        for fl in ["opencl100", "spirv-debug"] {
            let out = t(&format!("{fl}.spv"));
            crate::support::run_ok(
                Command::new(env!("CARGO_BIN_EXE_dwarv"))
                    .arg("convert")
                    .arg("--allow-no-debug-info")
                    .arg(&bc)
                    .arg("--into")
                    .arg(t("code.spv"))
                    .arg("-o")
                    .arg(&out)
                    .args(["--flavour", fl]),
            );
            if fl == "opencl100" {
                crate::support::spirv_val_result(&out, "spv1.4")
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let ours = line_coverage(&out);
                let peer = line_coverage(&t("peer.spv"));
                eprintln!(
                    "{name}: lines on {}/{} instructions; llvm-spirv-14: {}/{}",
                    ours.0, ours.1, peer.0, peer.1
                );
                assert_eq!(ours.1, peer.1, "{name}: the same code");
                assert!(ours.0 >= peer.0, "{name}: {ours:?} < llvm-spirv's {peer:?}");
            } else {
                crate::support::run_ok(
                    Command::new("llvm-spirv-14")
                        .arg("-r")
                        .arg(&out)
                        .arg("-o")
                        .arg(t("back.bc")),
                );
            }
        }
    }
}

/// The LLVM tools of one major version (the unversioned names are LLVM 14's).
pub(crate) struct Llvm {
    pub(crate) major: u32,
}

impl Llvm {
    pub(crate) fn tool(&self, name: &str) -> std::path::PathBuf {
        match (self.major, name) {
            (14, "llvm-spirv") => crate::support::tool("llvm-spirv-14"),
            (14, _) => crate::support::tool(name),
            (m, _) => crate::support::tool(&format!("{name}-{m}")),
        }
    }

    /// `!DIKind(` occurrences in `llvm-dis` of a module, by kind (comments and merged
    /// duplicates do not appear in llvm-dis output).
    pub(crate) fn di_counts(&self, bc: &Path) -> std::collections::BTreeMap<String, usize> {
        let o = crate::support::run_ok(
            Command::new(self.tool("llvm-dis"))
                .arg(bc)
                .arg("-o")
                .arg("-"),
        );
        count_di(&String::from_utf8_lossy(&o.stdout))
    }

    /// Assembles `ll` to `bc` (with opaque pointers where the text has them and this LLVM
    /// needs telling).
    pub(crate) fn assemble(&self, ll: &Path, bc: &Path) -> bool {
        let as_ = self.tool("llvm-as");
        ok(Command::new(&as_).arg(ll).arg("-o").arg(bc))
            || ok(Command::new(&as_)
                .arg("-opaque-pointers")
                .arg(ll)
                .arg("-o")
                .arg(bc))
    }

    /// `--into` of one module, as a build step runs it: `opt -strip-debug` of `bc`, that
    /// translated by this LLVM's llvm-spirv (`None` when it refuses: nothing to tie to);
    /// `dwarv convert input --into code.spv` in each of `FLAVOURS` (it must succeed), the
    /// opencl100 output judged by spirv-val where the code module passes (a failure panics),
    /// each read back by `llvm-spirv -r` and its DI counts compared with the input's; with
    /// `own`, the same of llvm-spirv's own full translation in that flavour's set.
    fn measure_into(&self, input: &Path, bc: &Path, tmp: &Path, own: bool) -> Option<IntoResult> {
        let t = |s: &str| tmp.with_extension(s);
        let code = t("code.spv");
        let spirv = self.tool("llvm-spirv");
        if !ok(Command::new(self.tool("opt"))
            .arg("-strip-debug")
            .arg(bc)
            .arg("-o")
            .arg(t("nodebug.bc")))
            || !ok(Command::new(&spirv)
                .arg(t("nodebug.bc"))
                .arg("-o")
                .arg(&code))
        {
            return None;
        }
        let code_valid = crate::support::spirv_val_result(&code, target_env(&code)).is_ok();
        let counts = self.di_counts(bc);
        let kept_by = |spv: &Path, back: &Path| {
            ok(Command::new(&spirv).arg("-r").arg(spv).arg("-o").arg(back))
                && self.di_counts(back) == counts
        };
        let mut r = IntoResult {
            code_valid,
            ..IntoResult::default()
        };
        for (k, (flavour, set)) in FLAVOURS.iter().zip(PEER_SETS).enumerate() {
            let out = t(&format!("{flavour}.spv"));
            crate::support::run_ok(
                Command::new(env!("CARGO_BIN_EXE_dwarv"))
                    .arg("convert")
                    .arg("--allow-no-debug-info")
                    .arg(input)
                    .arg("--into")
                    .arg(&code)
                    .arg("-o")
                    .arg(&out)
                    .args(["--flavour", flavour]),
            );
            // spirv-val cannot judge `SPIRV.debug`.
            if code_valid && *flavour == "opencl100" {
                if let Err(e) = crate::support::spirv_val_result(&out, target_env(&out)) {
                    panic!("{}: spirv-val: {e}", input.display());
                }
                r.valid = true;
            }
            r.kept[k] = kept_by(&out, &t(&format!("{flavour}.back.bc")));
            let own_spv = t(&format!("own.{flavour}.spv"));
            r.own_kept[k] = own
                && ok(Command::new(&spirv)
                    .arg(format!("--spirv-debug-info-version={set}"))
                    .arg(bc)
                    .arg("-o")
                    .arg(&own_spv))
                && kept_by(&own_spv, &t(&format!("own.{flavour}.back.bc")));
        }
        Some(r)
    }
}

/// `!DIKind(` occurrences in LLVM assembly text, by kind.
pub(crate) fn count_di(text: &str) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for (at, _) in text.match_indices("!DI") {
        let rest = &text[at + 1..];
        let n = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if rest.as_bytes().get(n) == Some(&b'(') {
            *counts.entry(rest[..n].to_string()).or_default() += 1;
        }
    }
    counts
}

/// What [`Llvm::measure_into`] found of a module.
#[derive(Default)]
struct IntoResult {
    /// llvm-spirv's code module passes spirv-val.
    code_valid: bool,
    /// The opencl100 output passes spirv-val (judged where the code module does).
    valid: bool,
    /// `llvm-spirv -r` of dwarv's output has the input's count of each DI kind, per flavour.
    kept: [bool; 2],
    /// The same of llvm-spirv's own full translation, per flavour's set.
    own_kept: [bool; 2],
}

/// What [`into_corpus`] counts over a corpus.
#[derive(Debug, Default)]
struct IntoCounts {
    assembled: usize,
    translated: usize,
    valid_code: usize,
    valid: usize,
    kept: [usize; 2],
    own_kept: [usize; 2],
    /// Per flavour, the files llvm-spirv's own translation keeps and dwarv's does not.
    own_only: [Vec<String>; 2],
}

/// [`Llvm::measure_into`] of every (name, text or bitcode) module, two at a time, counted.
fn into_corpus(llvm: &Llvm, files: Vec<(String, std::path::PathBuf)>, own: bool) -> IntoCounts {
    let tmp = tempfile::tempdir().unwrap();
    let results = crate::support::in_parallel(
        files.into_iter().enumerate().collect(),
        2,
        |(i, (name, f))| {
            let base = tmp.path().join(format!("{i}.x"));
            let bc = base.with_extension("bc");
            if f.extension().is_some_and(|x| x == "bc") {
                std::fs::copy(&f, &bc).unwrap();
            } else if !llvm.assemble(&f, &bc) {
                return Some((name, None));
            }
            Some((name.clone(), Some(llvm.measure_into(&f, &bc, &base, own))))
        },
    );
    let mut c = IntoCounts::default();
    for (name, r) in results {
        let Some(r) = r else { continue };
        c.assembled += 1;
        let Some(r) = r else { continue };
        c.translated += 1;
        c.valid_code += usize::from(r.code_valid);
        c.valid += usize::from(r.valid);
        for k in 0..2 {
            c.kept[k] += usize::from(r.kept[k]);
            c.own_kept[k] += usize::from(r.own_kept[k]);
            if r.own_kept[k] && !r.kept[k] {
                c.own_only[k].push(name.clone());
            }
        }
    }
    c.own_only.iter_mut().for_each(|v| v.sort());
    c
}

/// spirv-val's target environment for a module's version (Kernel modules are SPIR-V 1.0–1.2).
pub(crate) fn target_env(spv: &Path) -> &'static str {
    let b = std::fs::read(spv).unwrap();
    match u32::from_le_bytes([b[4], b[5], b[6], b[7]]) {
        0x0001_0000..=0x0001_0200 => "opencl2.2",
        0x0001_0300 => "spv1.3",
        0x0001_0400 => "spv1.4",
        0x0001_0500 => "spv1.5",
        _ => "spv1.6",
    }
}

pub(crate) fn ok(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

const FLAVOURS: [&str; 2] = ["opencl100", "spirv-debug"];
/// llvm-spirv's `--spirv-debug-info-version` of each of `FLAVOURS`.
const PEER_SETS: [&str; 2] = ["ocl-100", "legacy"];

/// The peer corpus's `.ll` files as (name, file to read): the two templates instantiated with
/// `DW_LANG_OpenCL` in `tmp`. `None` when the corpus is absent (`crate::support::peer`).
fn peer_files(tmp: &Path) -> Option<Vec<(String, std::path::PathBuf)>> {
    let root = crate::support::peer()?;
    let files = crate::support::files_with_extension(&root, "ll");
    assert_eq!(files.len(), 146);
    let files = files
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let name = f.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            let input = tmp.join(format!("{i}.ll"));
            std::fs::write(&input, text.replace("INPUT_LANGUAGE", "DW_LANG_OpenCL")).unwrap();
            (name, input)
        })
        .collect();
    Some(files)
}

/// Measured 86 and 114 of 141 (docs/llvm.md).
const AT_LEAST: [usize; 2] = [86, 114];

/// The `--into` table of docs/llvm.md (scripts/llvm-into-table.sh), pinned from below: over the
/// peer corpus, every file whose debug-stripped module llvm-spirv-14 translates converts in both
/// flavours; the opencl100 result passes spirv-val whenever that code module does; and
/// `llvm-spirv-14 -r` reads each back with the same count of each DI kind on at least
/// `AT_LEAST` files. About 60 s in release on the shared machine.
#[test]
fn peer_corpus_into_keeps_di_counts_through_llvm_spirv() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = peer_files(tmp.path()) else {
        return;
    };
    // opt-14 and llvm-spirv-14 take no opaque-pointer modules: not translated.
    let c = into_corpus(&Llvm { major: 14 }, files, false);
    eprintln!("{c:?} ({FLAVOURS:?})");
    assert_eq!(c.assembled, 146);
    assert_eq!(c.translated, 141);
    assert_eq!(c.valid, c.valid_code);
    assert_eq!(c.valid_code, 103);
    for (k, (flavour, least)) in FLAVOURS.iter().zip(AT_LEAST).enumerate() {
        assert!(
            c.kept[k] >= least,
            "{flavour}: {} files keep their DI counts, fewer than {least}",
            c.kept[k]
        );
    }
}

/// `--into` on LLVM 15: the modules debug-stripped by `opt-15 -strip-debug` and
/// translated by Debian's `llvm-spirv-15`; dwarv's opencl100 result passes spirv-val wherever
/// that code module does, and `llvm-spirv-15 -r` reads dwarv's results back with the same
/// count of each DI kind on at least as many files as llvm-spirv-15's own full translation
/// keeps: over the peer corpus as LLVM 15 assembles it, and over our own corpus built by
/// clang-15 (`CLANG=clang-15 corpus/build.sh`; its spir64 modules, the others llvm-spirv-15
/// refuses). docs/llvm.md has the figures.
#[test]
fn llvm15_into_keeps_di_counts_as_llvm_spirv_15_does() {
    let llvm = Llvm { major: 15 };
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::support::corpus_built(&[("CLANG", "clang-15")]);
    let mut own: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name.ends_with(".bc") || name.ends_with(".ll")) && !name.contains("nodebug")
        })
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    own.sort();
    assert_eq!(own.len(), 18, "{own:?}");
    let c = into_corpus(&llvm, own, true);
    eprintln!("own corpus, clang-15: {c:?} ({FLAVOURS:?})");
    // assign.O2.ll is clang-19's (debug records): llvm-as-15 cannot read it.
    assert_eq!(c.assembled, 17);
    // kernel and frag at -O0 and -O2, as bitcode and as text (the other modules are not spir64).
    assert_eq!(c.translated, 8);
    // llvm-spirv-15's code of the -O2 modules fails spirv-val by itself.
    assert_eq!((c.valid, c.valid_code), (4, 4));
    for (k, flavour) in FLAVOURS.iter().enumerate() {
        assert!(c.kept[k] >= c.own_kept[k], "{flavour}: {c:?}");
    }

    let Some(files) = peer_files(tmp.path()) else {
        return;
    };
    let c = into_corpus(&llvm, files, true);
    eprintln!("peer corpus, LLVM 15: {c:?} ({FLAVOURS:?})");
    assert_eq!(c.assembled, 146);
    // llvm-spirv-15 refuses two stripped modules (DebugInfoVector, X86/dbg-declare).
    assert_eq!(c.translated, 144);
    assert_eq!((c.valid, c.valid_code), (106, 106));
    assert_eq!(c.own_kept, [107, 107]);
    // opencl100: spirv-val's demands cost what docs/llvm.md lists (LLVM 14's causes).
    assert!(c.kept[0] >= 86, "{c:?}");
    // spirv-debug, which spirv-val does not judge: at least what llvm-spirv-15 keeps, and every
    // file it keeps but one: a Fortran module whose dbg.values hold `float` constants the
    // stripped code module no longer has (written by no instruction, so not tied: ledgered).
    assert!(c.kept[1] >= 114 && c.kept[1] >= c.own_kept[1], "{c:?}");
    assert_eq!(c.own_only[1], ["NonSemantic/Shader200/FortranComplex.ll"]);
}

/// The words of every function-body instruction that is code (not OpLine/OpNoLine, not an
/// instruction of a debug set), in order.
fn code_words(path: &Path) -> (Vec<Vec<u32>>, Vec<String>) {
    let words = to_words(&std::fs::read(path).unwrap()).unwrap();
    let bin = Bin::parse(&words).unwrap();
    let (mut sets, mut names, mut body, mut infn) = (Vec::new(), Vec::new(), Vec::new(), false);
    for insn in &bin.insns {
        match insn.opcode() {
            op::EXT_INST_IMPORT => {
                let name = insn.string(1).unwrap().0;
                if name.contains("Debug") || name == "SPIRV.debug" {
                    sets.push(insn.operands()[0]);
                    names.push(name);
                }
            }
            op::FUNCTION => infn = true,
            op::LINE | 317 => {}
            op::EXT_INST if sets.contains(&insn.operands()[2]) => {}
            _ if infn => body.push(insn.words.to_vec()),
            _ => {}
        }
        if insn.opcode() == op::FUNCTION_END {
            infn = false;
        }
    }
    (body, names)
}

/// A build step that has llvm-spirv-14's translation with debug info in hand (pipeline (c) of
/// bench/run.sh): `--into` that module replaces its debug info. The code and its ids stay, one
/// debug set is left, and what llvm-spirv-14 -r reads is what `--into` the stripped module gives.
#[test]
fn into_a_module_with_debug_info_replaces_it() {
    let tmp = tempfile::tempdir().unwrap();
    let t = |s: &str| tmp.path().join(s);
    let bc = crate::support::corpus().join("kernel.O0.bc");
    crate::support::run_ok(
        Command::new("opt")
            .arg("-strip-debug")
            .arg(&bc)
            .arg("-o")
            .arg(t("nodebug.bc")),
    );
    crate::support::run_ok(
        Command::new("llvm-spirv-14")
            .arg(t("nodebug.bc"))
            .arg("-o")
            .arg(t("code.spv")),
    );
    crate::support::run_ok(
        Command::new("llvm-spirv-14")
            .arg(&bc)
            .arg("-o")
            .arg(t("peer.spv")),
    );
    for (base, out) in [("code.spv", "stripped.spv"), ("peer.spv", "replaced.spv")] {
        crate::support::run_ok(
            Command::new(env!("CARGO_BIN_EXE_dwarv"))
                .arg("convert")
                .arg("--allow-no-debug-info")
                .arg(&bc)
                .arg("--into")
                .arg(t(base))
                .arg("-o")
                .arg(t(out))
                .args(["--flavour", "opencl100"]),
        );
    }
    let (peer_code, _) = code_words(&t("peer.spv"));
    let (code, sets) = code_words(&t("replaced.spv"));
    assert_eq!(sets, ["OpenCL.DebugInfo.100"], "one debug set left");
    assert!(code == peer_code, "the code and its ids are the module's");
    crate::support::spirv_val_result(&t("replaced.spv"), "spv1.4").unwrap();
    for out in ["stripped", "replaced"] {
        crate::support::run_ok(
            Command::new("llvm-spirv-14")
                .arg("-r")
                .arg(t(&format!("{out}.spv")))
                .arg("-o")
                .arg(t(&format!("{out}.bc"))),
        );
    }
    let llvm14 = Llvm { major: 14 };
    let counts = llvm14.di_counts(&t("replaced.bc"));
    assert!(
        counts.get("DILocation").is_some_and(|&n| n > 0),
        "{counts:?}"
    );
    assert_eq!(counts, llvm14.di_counts(&t("stripped.bc")));
}
