//! Covers src/cli/ (every verb).
//!
//! Every verb on every input of our own making — the corpus `corpus/build.sh` builds
//! (SPIR-V of every debug set and of shader stages, LLVM IR and bitcode, x86-64 and AMDGPU
//! objects, an executable), the IR texts of `corpus/ir`, and SPIR-V written after public
//! examples (`tests/spirv/foreign/*.spvasm`). A verb may refuse an input only where it is pinned
//! below with its reason; a round trip through SPIR-V may differ only with a ledger line, one
//! through DWARF not at all (an IR text of corpus/ir: only with one); `strip` + `attach` give
//! the module back but for what they say they lose; every output a valid input gives is
//! valid to its consumer (spirv-val 2025.5, llvm-dwarfdump --verify); nothing panics.

use std::path::{Path, PathBuf};
use std::process::Output;

const FLAVOURS: [&str; 5] = [
    "shader100",
    "shader200",
    "opencl100",
    "debuginfo",
    "spirv-debug",
];

/// (input, verb) pairs that fail today, each with its cause; the test fails when one passes.
const KNOWN: &[(&str, &str)] = &[
    // glslang 12 writes a DebugTypeMember naming id 0 for a buffer reference (spirv-val refuses
    // it too): every verb exits 2 naming the word.
    ("stages/bufref.comp.gVS.spv", "*"),
    // A DebugValue of a global variable: invalid (spirv-val refuses it too); exit 2.
    ("foreign/value_of_a_global.spv", "*"),
    // No debug info at all: convert refuses it (exit 2 says so; --allow-no-debug-info
    // converts it), and there is nothing to write as DWARF.
    ("kernel.nodebug.bc", "convert"),
    ("kernel.nodebug.spv", "convert"),
    ("particles.nodebug.spv", "convert"),
    ("shade.nodebug.spv", "convert"),
    ("kernel.nodebug.bc", "dwarf"),
    ("kernel.nodebug.spv", "dwarf"),
    ("particles.nodebug.spv", "dwarf"),
    ("shade.nodebug.spv", "dwarf"),
    ("kernel.nodebug.spv", "strip"),
    ("particles.nodebug.spv", "strip"),
    ("shade.nodebug.spv", "strip"),
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Spirv,
    Other,
}

/// The inputs: (name relative to its folder, path, kind).
fn inputs(tmp: &Path) -> Vec<(String, PathBuf, Kind)> {
    let corpus = crate::support::corpus();
    let mut v = Vec::new();
    for dir in [corpus.to_path_buf(), corpus.join("stages")] {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if !p.is_file() {
                continue;
            }
            let rel = p.strip_prefix(corpus).unwrap().display().to_string();
            let kind = match p.extension().and_then(|x| x.to_str()) {
                Some("spv") => Kind::Spirv,
                _ => Kind::Other,
            };
            v.push((rel, p, kind));
        }
    }
    for e in std::fs::read_dir(crate::support::repo_root().join("corpus/ir"))
        .unwrap()
        .flatten()
    {
        let p = e.path();
        v.push((
            format!("ir/{}", e.file_name().to_string_lossy()),
            p,
            Kind::Other,
        ));
    }
    let foreign = crate::support::repo_root().join("tests/spirv/foreign");
    for e in std::fs::read_dir(&foreign).unwrap().flatten() {
        let src = e.path();
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        let out = tmp.join(format!("{stem}.spv"));
        crate::support::run_ok(
            std::process::Command::new(crate::support::tool("spirv-as"))
                .args(["--target-env", "vulkan1.2", "-o"])
                .arg(&out)
                .arg(&src),
        );
        v.push((format!("foreign/{stem}.spv"), out, Kind::Spirv));
    }
    v.sort();
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The last stderr line's ledger count of a `roundtrip` that differed.
fn ledger_lines(o: &Output) -> usize {
    let err = String::from_utf8_lossy(&o.stderr);
    err.lines()
        .rev()
        .find_map(|l| {
            let (_, tail) = l.rsplit_once(", ")?;
            tail.strip_suffix(" ledger line(s)")?.parse().ok()
        })
        .unwrap_or(0)
}

/// The first spirv-val target environment that accepts the module, if any.
fn accepting_env(path: &Path) -> Option<&'static str> {
    let bytes = std::fs::read(path).ok()?;
    let version = bytes
        .get(4..8)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))?;
    let universal = crate::support::universal_env(version);
    ["vulkan1.2", universal]
        .into_iter()
        .find(|env| crate::support::spirv_val_result(path, env).is_ok())
}

/// Records a failure of one command: a crash (no exit code, or one past dwarv's 0–3), which no
/// pin covers, or `ok` false under `class`.
fn check(failures: &mut Vec<(String, String)>, class: &str, args: &[&str], o: &Output, ok: bool) {
    if !o.status.code().is_some_and(|c| c <= 3) {
        failures.push((
            "crash".to_string(),
            format!(
                "{args:?} crashed ({:?}): {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ),
        ));
    } else if !ok {
        let err = String::from_utf8_lossy(&o.stderr);
        let last: Vec<&str> = err.lines().rev().take(2).collect();
        failures.push((class.to_string(), format!("{args:?}: {last:?}")));
    }
}

/// One input through every verb: the failures, as (verb class, message).
fn every_verb(rel: &str, input: &Path, kind: Kind, dir: &Path) -> Vec<(String, String)> {
    let mut failures = Vec::new();
    let name = rel.replace('/', "_");
    let out = |ext: &str| dir.join(format!("{name}.{ext}"));
    let run = |args: &[&str]| crate::support::dwarv(args);
    for verb in ["validate", "stats"] {
        let args = [verb, s(input)];
        let o = run(&args);
        check(&mut failures, "read", &args, &o, o.status.success());
    }
    let dwir = out("dwir");
    let args = ["dump", s(input), "-o", s(&dwir)];
    let o = run(&args);
    check(&mut failures, "read", &args, &o, o.status.success());
    if !failures.is_empty() {
        // Nothing else can read what the readers refuse.
        return failures;
    }
    let valid_env = match kind {
        Kind::Spirv => accepting_env(input),
        Kind::Other => Some("spv1.6"),
    };
    for flavour in FLAVOURS {
        let spv = out(&format!("{flavour}.spv"));
        let mut args = vec!["convert", s(input), "--flavour", flavour, "-o", s(&spv)];
        if kind == Kind::Other {
            args.extend(["--to", "spirv"]);
        }
        let o = run(&args);
        check(&mut failures, "convert", &args, &o, o.status.success());
        // spirv-val 2025.5 knows neither SPIRV.debug's nor .200's rules.
        if o.status.success() && !matches!(flavour, "spirv-debug" | "shader200") {
            if let Some(env) = valid_env {
                if let Err(e) = crate::support::spirv_val_result(&spv, env) {
                    failures.push(("valid".into(), format!("{flavour} ({env}): {e}")));
                }
            }
        }
        let args = [
            "roundtrip",
            s(input),
            "--via",
            "spirv",
            "--flavour",
            flavour,
        ];
        let o = run(&args);
        // Into another set, or repaired in its own (llvm-spirv-14's forms spirv-val refuses),
        // every difference has a ledger line.
        let ok = match o.status.code() {
            Some(0) => true,
            Some(1) => ledger_lines(&o) > 0,
            _ => false,
        };
        check(&mut failures, "roundtrip-spirv", &args, &o, ok);
    }
    let obj = out("o");
    let args = ["convert", s(input), "--to", "dwarf", "-o", s(&obj)];
    let o = run(&args);
    check(&mut failures, "dwarf", &args, &o, o.status.success());
    if o.status.success() {
        crate::support::dwarfdump_verify(&obj, dwarv::unstable::dwarf::AmdOps::Raw);
        let args = ["roundtrip", s(input), "--via", "dwarf"];
        let o = run(&args);
        // A compiler's output comes back exactly; the IR texts of corpus/ir exercise fields
        // DWARF has no form for, which must be ledgered.
        let ok = match o.status.code() {
            Some(0) => true,
            Some(1) => rel.starts_with("ir/") && ledger_lines(&o) > 0,
            _ => false,
        };
        check(&mut failures, "roundtrip-dwarf", &args, &o, ok);
    }
    if kind == Kind::Spirv {
        let (code, side, back) = (out("code.spv"), out("side.o"), out("back.spv"));
        let args = ["strip", s(input), "-o", s(&code), "--debug-out", s(&side)];
        let stripped = run(&args);
        check(
            &mut failures,
            "strip",
            &args,
            &stripped,
            stripped.status.success(),
        );
        if stripped.status.success() {
            let args = ["attach", s(&code), s(&side), "-o", s(&back)];
            let attached = run(&args);
            check(
                &mut failures,
                "strip",
                &args,
                &attached,
                attached.status.success(),
            );
            // The module comes back as it was, but for what strip or attach said they lose.
            let said = [&stripped, &attached]
                .iter()
                .any(|o| String::from_utf8_lossy(&o.stderr).contains("loss:"));
            let args = ["diff", s(input), s(&back)];
            let o = run(&args);
            check(
                &mut failures,
                "strip",
                &args,
                &o,
                o.status.success() || said,
            );
        }
    }
    failures
}

#[test]
fn every_verb_on_every_input_is_exact_ledgered_or_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let inputs = inputs(&dir);
    let count = inputs.len();
    let results = crate::support::in_parallel(inputs, 2, |(rel, path, kind)| {
        Some((rel.clone(), every_verb(&rel, &path, kind, &dir)))
    });
    let mut failing: Vec<(String, String)> = Vec::new();
    let mut unexpected = Vec::new();
    for (rel, failures) in &results {
        for (class, message) in failures {
            let pinned = KNOWN
                .iter()
                .any(|(i, c)| i == rel && class != "crash" && (*c == "*" || c == class));
            if pinned {
                failing.push((rel.clone(), class.clone()));
            } else {
                unexpected.push(format!("{rel} [{class}] {message}"));
            }
        }
    }
    println!("{count} inputs, every verb");
    assert!(count >= 60, "only {count} inputs");
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    // Every pinned pair still fails (a fixed one must leave the list).
    for (input, class) in KNOWN {
        assert!(
            failing
                .iter()
                .any(|(i, c)| i == input && (*class == "*" || c == class)),
            "{input} [{class}] passes now: unpin it"
        );
    }
}
