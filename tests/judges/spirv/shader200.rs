//! Covers src/front/spirv/, src/back/spirv/ (NonSemantic.Shader.DebugInfo.200). dwarv's own checks
//! of it: tests/all/spirv/shader200.rs.
//!
//! NonSemantic.Shader.DebugInfo.200 (flavour `shader200`, docs/spirv-mapping.md): the
//! hand-written module of every `.200`-only instruction and every operand `.200` changes
//! (`tests/spirv/every_shader200.spvasm`), and the peer corpus as SPIRV-LLVM-Translator writes it
//! in `.200` (the PyPI build `scripts/setup.sh` installs as `llvm-spirv-dpcpp`), each judged by
//! that translator's `-r` and by spirv-val.

use crate::support::spirv_shader200::*;
use std::path::{Path, PathBuf};
use std::process::Command;

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::ir::{self};

#[test]
fn every_shader200_form_is_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let m = read_clean(&input);
    // In place, on its own words: byte for byte.
    let same = dir.path().join("in_place.spv");
    let report = crate::support::convert_report(&input, &same, &[]);
    assert_eq!(report["in_place"], "own set, on its words");
    assert_eq!(
        std::fs::read(&same).unwrap(),
        std::fs::read(&input).unwrap()
    );
    // Through the IR: the same IR, nothing lost but the function no OpFunction defines.
    let through = dir.path().join("through_ir.spv");
    let report = crate::support::convert_report(&input, &through, &["--through-ir"]);
    let losses = report["diagnostics"]["losses"].as_array().unwrap();
    assert!(
        losses.iter().all(|l| l["kind"] == "unmatched"),
        "{losses:?}"
    );
    let back = read_clean(&through);
    let d = diff(&m, &back, DiffOptions::default());
    assert!(d.is_empty(), "{}", d.render(10));
    crate::support::spirv_val(&through, "spv1.4");
    // Standalone: from the IR text, the same debug info.
    let text = dir.path().join("every.dwir");
    std::fs::write(&text, ir::text::print(&m)).unwrap();
    let alone = dir.path().join("standalone.spv");
    crate::support::convert_report(&text, &alone, &["--flavour", "shader200"]);
    crate::support::spirv_val(&alone, "spv1.4");
    // The translator reads all of them.
    for p in [&input, &through, &alone] {
        crate::support::dpcpp_reads(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    // Into the other NonSemantic set, what it cannot hold is ledgered.
    let other = dir.path().join("shader100.spv");
    let report = crate::support::convert_report(&input, &other, &["--flavour", "shader100"]);
    let text = report["diagnostics"].to_string();
    for lost in [
        "lower/upper bound or stride",
        "Fortran array descriptor",
        "no SPIR-V debug type describes it",
        "module scope written as a named DebugLexicalBlock",
        "inline namespace",
        "column of the call site",
        "target function name",
    ] {
        assert!(text.contains(lost), "no loss of {lost}: {text}");
    }
    crate::support::spirv_val(&other, "spv1.4");
}

/// The peer corpus's `.ll` files that llvm-as-14 assembles, translated into `.200` by
/// SPIRV-LLVM-Translator (the modules it writes), in `out`, sorted.
fn translated_peer(src: &Path, out: &Path) -> Vec<PathBuf> {
    let inputs = crate::support::files_with_extension(src, "ll");
    let quiet = |c: &mut Command| {
        c.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut made: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(src).unwrap().display().to_string();
            let base = out.join(rel.replace('/', "_"));
            let (bc, spv) = (base.with_extension("bc"), base.with_extension("spv"));
            let ok = quiet(
                Command::new(crate::support::tool("llvm-as-14"))
                    .arg(p)
                    .arg("-o")
                    .arg(&bc),
            ) && quiet(
                Command::new(crate::support::tool("llvm-spirv-dpcpp"))
                    .arg("--spirv-debug-info-version=nonsemantic-shader-200")
                    .arg(&bc)
                    .arg("-o")
                    .arg(&spv),
            );
            ok.then_some(spv)
        })
        .collect();
    made.sort();
    made
}

/// Every `.200` module the translator writes from the peer corpus: `dwarv validate` passes where
/// its code passes spirv-val, else exits 2 with the reason; `roundtrip --via spirv` exits 0;
/// converted to shader100 and opencl100 it passes spirv-val where the code does; its debug info
/// written standalone in shader200 passes spirv-val and the translator reads it back.
#[test]
fn the_translators_shader200_modules_read_convert_and_go_back_to_it() {
    let Some(src) = crate::support::peer() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let modules = translated_peer(&src, dir.path());
    assert!(modules.len() >= 130, "{} modules", modules.len());
    let mut table = [0usize; 7];
    let mut bad = Vec::new();
    for spv in &modules {
        let s = spv.to_str().unwrap();
        let name = spv.file_name().unwrap().to_string_lossy().into_owned();
        let code_ok = crate::support::spirv_val_result(spv, "spv1.4").is_ok();
        table[0] += usize::from(code_ok);
        match status(&["validate", s]) {
            0 => table[1] += 1,
            2 if !code_ok => {
                table[2] += 1;
                continue;
            }
            c => {
                bad.push(format!("{name}: validate exits {c}"));
                continue;
            }
        }
        if status(&["roundtrip", s, "--via", "spirv"]) == 0 {
            table[3] += 1;
        } else {
            bad.push(format!("{name}: roundtrip --via spirv"));
        }
        // Rewritten in its own set through the IR (dwarv's forms): as valid as its code.
        let through = spv.with_extension("through.spv");
        let t = through.to_str().unwrap();
        let valid = status(&[
            "convert",
            s,
            "--through-ir",
            "--allow-no-debug-info",
            "-o",
            t,
        ]) == 0
            && crate::support::spirv_val_result(&through, "spv1.4").is_ok();
        if code_ok && !valid {
            bad.push(format!("{name}: through the IR"));
        }
        for (i, flavour) in [(4, "shader100"), (5, "opencl100")] {
            let out = spv.with_extension(format!("{flavour}.spv"));
            let o = out.to_str().unwrap();
            let valid = status(&[
                "convert",
                s,
                "--flavour",
                flavour,
                "--allow-no-debug-info",
                "-o",
                o,
            ]) == 0
                && crate::support::spirv_val_result(&out, "spv1.4").is_ok();
            table[i] += usize::from(valid && code_ok);
            if code_ok && !valid {
                bad.push(format!("{name}: into {flavour}"));
            }
        }
        let text = spv.with_extension("dwir");
        let alone = spv.with_extension("standalone.spv");
        let (t, a) = (text.to_str().unwrap(), alone.to_str().unwrap());
        let written = status(&["dump", s, "-o", t]) == 0
            && status(&[
                "convert",
                t,
                "--flavour",
                "shader200",
                "--allow-no-debug-info",
                "-o",
                a,
            ]) == 0
            && crate::support::spirv_val_result(&alone, "spv1.4").is_ok();
        match written.then(|| crate::support::dpcpp_reads(&alone)) {
            Some(Ok(())) => table[6] += 1,
            Some(Err(e)) => bad.push(format!("{name}: standalone shader200 not read back: {e}")),
            None => bad.push(format!(
                "{name}: standalone shader200 not written or invalid"
            )),
        }
    }
    eprintln!(
        "{} .200 modules: code valid {}, validate ok {}, exit 2 {}, roundtrip {}, \
         shader100 valid {}, opencl100 valid {}, standalone read back {}",
        modules.len(),
        table[0],
        table[1],
        table[2],
        table[3],
        table[4],
        table[5],
        table[6]
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
