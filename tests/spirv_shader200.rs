//! NonSemantic.Shader.DebugInfo.200 (flavour `shader200`, docs/spirv-mapping.md): the
//! hand-written module of every `.200`-only instruction and every operand `.200` changes
//! (`tests/spirv/every_shader200.spvasm`), and the peer corpus as SPIRV-LLVM-Translator writes it
//! in `.200` (the PyPI build `scripts/setup.sh` installs as `llvm-spirv-dpcpp`), each judged by
//! that translator's `-r` and by spirv-val.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::ir::{self, Bound, ChecksumKind, Encoding, Module, ScopeKind, TypeKind, Value, VarKind};
use dwarv::unstable::front::spirv::read;

/// The fixture assembled as SPIR-V 1.0 (the translator reads up to 1.5).
fn fixture(dir: &Path) -> PathBuf {
    let src = common::repo_root().join("tests/spirv/every_shader200.spvasm");
    let out = dir.join("every_shader200.spv");
    common::run_ok(
        Command::new(common::tool("spirv-as"))
            .args(["--target-env", "spv1.0"])
            .arg(&src)
            .arg("-o")
            .arg(&out),
    );
    out
}

fn read_clean(path: &Path) -> Module {
    let (m, diag) = read(&std::fs::read(path).unwrap(), "input").unwrap_or_else(|e| panic!("{e}"));
    assert!(diag.is_empty(), "{}: {diag:?}", path.display());
    let m = m.into_inner();
    let text = ir::text::print(&m);
    assert!(ir::text::parse(&text, "text").unwrap() == m);
    m
}

fn types_of<'m>(m: &'m Module, f: impl Fn(&TypeKind) -> bool + 'm) -> Vec<&'m ir::Type> {
    m.types.values().filter(|t| f(&t.kind)).collect()
}

#[test]
fn every_shader200_form_reads_as_the_translator_means_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = read_clean(&fixture(dir.path()));
    let unit = m.units.values().next().unwrap();
    assert_eq!(unit.producer.as_deref(), Some("flang 1"));
    assert_eq!(unit.language, ir::Language::FORTRAN90);
    // DebugSource: File; checksum; checksum and text; text; File, Text.
    let files: Vec<_> = m
        .files
        .values()
        .map(|f| (f.checksum.as_ref().map(|c| c.kind), f.source.is_some()))
        .collect();
    assert_eq!(
        files,
        [
            (None, false),
            (Some(ChecksumKind::MD5), false),
            (Some(ChecksumKind::SHA1), true),
            (None, true),
            (None, true)
        ]
    );
    assert_eq!(
        types_of(
            &m,
            |k| matches!(k, TypeKind::Basic { encoding } if *encoding == Encoding::COMPLEX_FLOAT)
        )
        .len(),
        1
    );
    // Subranges, one of them a 64-bit count of -1 with a stride; a dynamic array; a string.
    let arrays = types_of(&m, |k| matches!(k, TypeKind::Array { .. }));
    let TypeKind::Array { dims, .. } = &arrays[0].kind else {
        unreachable!()
    };
    assert_eq!(dims[0].count, Some(Bound::Const(10)));
    assert_eq!(dims[0].lower, Some(Bound::Const(1)));
    assert_eq!(
        (dims[1].count, dims[1].stride),
        (Some(Bound::Const(-1)), Some(Bound::Const(32)))
    );
    let TypeKind::Array {
        data_location,
        associated,
        dims,
        ..
    } = &arrays[1].kind
    else {
        unreachable!()
    };
    assert!(data_location.is_some() && associated.is_some());
    assert!(matches!(dims[0].count, Some(Bound::Ref(_))));
    let strings = types_of(&m, |k| matches!(k, TypeKind::String { .. }));
    let TypeKind::String {
        length,
        location,
        encoding,
    } = &strings[0].kind
    else {
        unreachable!()
    };
    assert!(length.is_some() && location.is_some());
    assert_eq!(*encoding, Encoding::UNSIGNED_CHAR);
    let pointer = types_of(&m, |k| matches!(k, TypeKind::Pointer { .. }));
    let TypeKind::Pointer { space, .. } = &pointer[0].kind else {
        unreachable!()
    };
    assert_eq!(space.storage_class, Some(u32::MAX));
    assert!(m.types.values().any(|t| t.flags.has(ir::Flags::BIT_FIELD)));
    let tparam = types_of(&m, |k| matches!(k, TypeKind::TemplateParam { .. }));
    assert_eq!(tparam[0].at, None);
    // Scopes: a function with a target, a module, an inline namespace; a call-site column.
    let target = m
        .scopes
        .values()
        .find_map(|s| s.function().and_then(|f| f.target.clone()));
    assert_eq!(target.as_deref(), Some("real_target"));
    assert!(m.scopes.values().any(|s| matches!(
        &s.kind,
        ScopeKind::Module { config_macros: Some(c), .. } if c == "-DX"
    )));
    assert!(m.scopes.values().any(|s| matches!(
        s.kind,
        ScopeKind::Namespace {
            export_symbols: true
        }
    )));
    assert_eq!(m.inlined.values().next().unwrap().at.column, 3);
    // Arg Number is a literal word; a declare of DebugInfoNone has no address.
    assert!(m.vars.values().any(|v| v.kind == VarKind::Param(1)));
    assert_eq!(m.events.len(), 2);
    assert_eq!(m.events[1].values, [Value::Undef]);
}

#[test]
fn every_shader200_form_is_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let m = read_clean(&input);
    // In place, on its own words: byte for byte.
    let same = dir.path().join("in_place.spv");
    let report = common::convert_report(&input, &same, &[]);
    assert_eq!(report["in_place"], "own set, on its words");
    assert_eq!(
        std::fs::read(&same).unwrap(),
        std::fs::read(&input).unwrap()
    );
    // Through the IR: the same IR, nothing lost but the function no OpFunction defines.
    let through = dir.path().join("through_ir.spv");
    let report = common::convert_report(&input, &through, &["--through-ir"]);
    let losses = report["diagnostics"]["losses"].as_array().unwrap();
    assert!(
        losses.iter().all(|l| l["kind"] == "unmatched"),
        "{losses:?}"
    );
    let back = read_clean(&through);
    let d = diff(&m, &back, DiffOptions::default());
    assert!(d.is_empty(), "{}", d.render(10));
    common::spirv_val(&through, "spv1.4");
    // Standalone: from the IR text, the same debug info.
    let text = dir.path().join("every.dwir");
    std::fs::write(&text, ir::text::print(&m)).unwrap();
    let alone = dir.path().join("standalone.spv");
    common::convert_report(&text, &alone, &["--flavour", "shader200"]);
    common::spirv_val(&alone, "spv1.4");
    // The translator reads all of them.
    for p in [&input, &through, &alone] {
        common::dpcpp_reads(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    // Into the other NonSemantic set, what it cannot hold is ledgered.
    let other = dir.path().join("shader100.spv");
    let report = common::convert_report(&input, &other, &["--flavour", "shader100"]);
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
    common::spirv_val(&other, "spv1.4");
}

/// The peer corpus's `.ll` files that llvm-as-14 assembles, translated into `.200` by
/// SPIRV-LLVM-Translator (the modules it writes), in `out`, sorted.
fn translated_peer(src: &Path, out: &Path) -> Vec<PathBuf> {
    let inputs = common::files_with_extension(src, "ll");
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
                Command::new(common::tool("llvm-as-14"))
                    .arg(p)
                    .arg("-o")
                    .arg(&bc),
            ) && quiet(
                Command::new(common::tool("llvm-spirv-dpcpp"))
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

fn status(args: &[&str]) -> i32 {
    common::dwarv(args).status.code().unwrap_or(-1)
}

/// Every `.200` module the translator writes from the peer corpus: `dwarv validate` passes where
/// its code passes spirv-val, else exits 2 with the reason; `roundtrip --via spirv` exits 0;
/// converted to shader100 and opencl100 it passes spirv-val where the code does; its debug info
/// written standalone in shader200 passes spirv-val and the translator reads it back.
#[test]
fn the_translators_shader200_modules_read_convert_and_go_back_to_it() {
    let Some(src) = common::peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let modules = translated_peer(&src, dir.path());
    assert!(modules.len() >= 130, "{} modules", modules.len());
    let mut table = [0usize; 7];
    let mut bad = Vec::new();
    for spv in &modules {
        let s = spv.to_str().unwrap();
        let name = spv.file_name().unwrap().to_string_lossy().into_owned();
        let code_ok = common::spirv_val_result(spv, "spv1.4").is_ok();
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
        let valid = status(&["convert", s, "--through-ir", "-o", t]) == 0
            && common::spirv_val_result(&through, "spv1.4").is_ok();
        if code_ok && !valid {
            bad.push(format!("{name}: through the IR"));
        }
        for (i, flavour) in [(4, "shader100"), (5, "opencl100")] {
            let out = spv.with_extension(format!("{flavour}.spv"));
            let o = out.to_str().unwrap();
            let valid = status(&["convert", s, "--flavour", flavour, "-o", o]) == 0
                && common::spirv_val_result(&out, "spv1.4").is_ok();
            table[i] += usize::from(valid && code_ok);
            if code_ok && !valid {
                bad.push(format!("{name}: into {flavour}"));
            }
        }
        let text = spv.with_extension("dwir");
        let alone = spv.with_extension("standalone.spv");
        let (t, a) = (text.to_str().unwrap(), alone.to_str().unwrap());
        let written = status(&["dump", s, "-o", t]) == 0
            && status(&["convert", t, "--flavour", "shader200", "-o", a]) == 0
            && common::spirv_val_result(&alone, "spv1.4").is_ok();
        match written.then(|| common::dpcpp_reads(&alone)) {
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

/// Damaged `.200` forms: an error naming the instruction and what was expected, or (a checksum
/// of no known kind) a loss — never a panic.
#[test]
fn damaged_shader200_forms_are_errors_or_losses() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        std::fs::read_to_string(common::repo_root().join("tests/spirv/every_shader200.spvasm"))
            .unwrap();
    let cases = [
        (
            "%1 5 %int %sub1 %sub2",
            "%1 5 %int %uint_10 %sub2",
            Err("DebugTypeArray operand `Subranges` must be a DebugTypeSubrange"),
        ),
        (
            "%1 203 %s_str %chr",
            "%1 203 %s_str %ptr",
            Err("DebugTypeString operand `Base Type` must be a DebugTypeBasic"),
        ),
        (
            "%1 201 %uint_1 %none %uint_10",
            "%1 201 %uint_1 %none %s_x",
            Err("a constant, variable or expression"),
        ),
        (
            "%1 35 %s_b %uint_0 %s_md5",
            "%1 35 %s_b %uint_0 %s_md5 %s_text %s_text",
            Err("DebugSource has 5 operand(s)"),
        ),
        (
            "%1 35 %s_b %uint_0 %s_md5",
            "%1 35 %s_b %uint_7 %s_md5",
            Ok("of an unknown kind or not hex: dropped"),
        ),
    ];
    for (i, (from, to, want)) in cases.iter().enumerate() {
        assert!(src.contains(from), "{from}");
        let asm = dir.path().join(format!("case{i}.spvasm"));
        std::fs::write(&asm, src.replacen(from, to, 1)).unwrap();
        let spv = asm.with_extension("spv");
        common::run_ok(
            Command::new(common::tool("spirv-as"))
                .args(["--target-env", "spv1.0"])
                .arg(&asm)
                .arg("-o")
                .arg(&spv),
        );
        let got = read(&std::fs::read(&spv).unwrap(), "case");
        match (got, want) {
            (Err(e), Err(w)) => assert!(e.to_string().contains(w), "{to}: {e}"),
            (Ok((_, diag)), Ok(w)) => {
                assert!(format!("{diag:?}").contains(w), "{to}: {diag:?}")
            }
            (Ok(_), Err(w)) => panic!("{to}: read, but {w} was expected"),
            (Err(e), Ok(_)) => panic!("{to}: {e}"),
        }
        // The CLI says it too: exit 2 for an error.
        let code = status(&["validate", spv.to_str().unwrap()]);
        assert_eq!(code, if want.is_err() { 2 } else { 0 }, "{to}");
    }
}
