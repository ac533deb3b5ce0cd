//! Covers src/front/spirv/, src/spirv/binary.rs.
//!
//! The SPIR-V reader on hostile input: every answer is a clean `Err` naming the word offset (and
//! the id, where there is one) or a module that validates — never a panic. The CLI exits 2 and
//! leaves no output file.

use std::process::Command;

use dwarv::ir;
use dwarv::unstable::front::spirv::read;
use dwarv::Error;

/// Reads; an `Ok` module must validate. Returns the error, if any.
fn outcome(bytes: &[u8]) -> Option<Error> {
    match read(bytes, "hostile.spv") {
        Ok((m, _)) => {
            if let Err(f) = ir::verify::check(&m) {
                panic!("the reader returned a module that breaks IR rules: {f}");
            }
            let text = ir::text::print(&m);
            let back = ir::text::parse(&text, "printed").unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back, *m, "the printed module does not read back");
            None
        }
        Err(e) => {
            assert!(matches!(e, Error::Spirv { .. }), "{e}");
            assert_eq!(e.exit_code(), 2);
            Some(e)
        }
    }
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn kernel() -> Vec<u8> {
    std::fs::read(crate::support::corpus().join("kernel.ocl100.spv")).unwrap()
}

#[test]
fn truncation_at_every_word_is_a_clean_error() {
    let full = kernel();
    let mut errors = 0;
    for words in 0..full.len() / 4 {
        if let Some(e) = outcome(&full[..words * 4]) {
            assert!(e.to_string().contains("word "), "{e}");
            errors += 1;
        }
    }
    // Every cut but those at an instruction boundary is damage; most boundaries are too
    // (forward references left dangling).
    assert!(errors > full.len() / 8, "{errors}");
    // An odd byte count is damage too.
    assert!(outcome(&full[..full.len() - 1]).is_some());
}

#[test]
fn random_word_flips_never_panic() {
    let full = kernel();
    let words: Vec<u32> = full
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut err) = (0, 0);
    for _ in 0..3000 {
        let mut w = words.clone();
        for _ in 0..1 + next() % 3 {
            let i = 5 + (next() as usize) % (w.len() - 5);
            w[i] = match next() % 4 {
                0 => w[i] ^ (1 << (next() % 32)),
                1 => next() as u32 % 600,
                2 => w[i].wrapping_add(1),
                _ => u32::MAX,
            };
        }
        match outcome(&bytes_of(&w)) {
            Some(_) => err += 1,
            None => ok += 1,
        }
    }
    assert!(ok > 0 && err > 0, "ok {ok}, err {err}");
}

/// A small OpenCL.DebugInfo.100 module: %1 void, %2 the import, %3 uint, %4 = 32, %5 "a.cl",
/// %6 "int", %7 "S", %8 "m", %10 DebugSource, %11 the unit, %12 int; then `extra`.
fn module(extra: &[Vec<u32>]) -> Vec<u8> {
    let mut w = vec![0x0723_0203, 0x0001_0000, 0, 100, 0];
    let mut push = |insn: Vec<u32>| w.extend(insn);
    push(insn(17, &[6])); // OpCapability Kernel
    push(insn(
        11,
        &[&[2][..], &string("OpenCL.DebugInfo.100")].concat(),
    ));
    push(insn(14, &[2, 2])); // OpMemoryModel Physical64 OpenCL
    for (id, s) in [(5, "a.cl"), (6, "int"), (7, "S"), (8, "m")] {
        push(insn(7, &[&[id][..], &string(s)].concat()));
    }
    push(insn(19, &[1]));
    push(insn(21, &[3, 32, 0]));
    push(insn(43, &[3, 4, 32]));
    push(ext(10, 35, &[5]));
    push(ext(11, 1, &[65536, 5, 10, 3]));
    push(ext(12, 2, &[6, 4, 4]));
    for e in extra {
        push(e.clone());
    }
    bytes_of(&w)
}

fn insn(opcode: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | u32::from(opcode)];
    v.extend_from_slice(operands);
    v
}

fn string(s: &str) -> Vec<u32> {
    let mut b = s.as_bytes().to_vec();
    b.resize(s.len() / 4 * 4 + 4, 0);
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `%result = OpExtInst %void %2 <opcode> operands…`
fn ext(result: u32, opcode: u32, operands: &[u32]) -> Vec<u32> {
    insn(12, &[&[1, result, 2, opcode][..], operands].concat())
}

fn expect_err(bytes: &[u8], offset_and_id: &str, message: &str) {
    let e = outcome(bytes).expect("an error");
    let text = e.to_string();
    assert!(text.contains(offset_and_id), "{text}");
    assert!(text.contains(message), "{text}");
}

#[test]
fn the_base_module_reads() {
    assert!(outcome(&module(&[])).is_none());
}

#[test]
fn member_cycles_through_forward_references_read() {
    // OpenCL.100 order: members first, naming their composite (a forward reference); each
    // struct holds a member of the other's type — a cycle through members, which is legal.
    let m = module(&[
        ext(20, 11, &[8, 31, 10, 1, 0, 30, 4, 4, 0]), // member m: B in A
        ext(21, 11, &[8, 30, 10, 1, 0, 31, 4, 4, 0]), // member m: A in B
        ext(30, 10, &[7, 1, 10, 1, 0, 11, 6, 4, 0, 20]),
        ext(31, 10, &[7, 1, 10, 2, 0, 11, 6, 4, 0, 21]),
    ]);
    let (module, _) = read(&m, "cycle.spv").unwrap();
    ir::verify::check(&module).unwrap();
    assert_eq!(module.types.len(), 5);
}

#[test]
fn a_typedef_cycle_is_an_input_error() {
    let m = module(&[
        ext(20, 7, &[7, 21, 10, 1, 0, 11]), // typedef S = %21
        ext(21, 7, &[8, 20, 10, 2, 0, 11]), // typedef m = %20
    ]);
    expect_err(&m, "(%", "defined in terms of itself");
}

#[test]
fn a_scope_parent_cycle_is_an_input_error() {
    let m = module(&[
        ext(20, 21, &[10, 1, 0, 21]), // block in %21
        ext(21, 21, &[10, 2, 0, 20]), // block in %20
    ]);
    expect_err(&m, "(%20)", "the scope tree has a cycle");
}

#[test]
fn a_dangling_id_is_an_error_naming_offset_and_id() {
    let m = module(&[ext(20, 3, &[77, 5, 0])]); // pointer to %77, which nothing defines
    expect_err(
        &m,
        "(%20)",
        "`Base Type` must be a debug type, but %77 is not defined",
    );
    // A global bound to %88, which nothing defines (code ids are checked too).
    let m = module(&[ext(20, 18, &[8, 12, 10, 1, 0, 11, 8, 88, 0])]);
    expect_err(&m, "(%20)", "`Variable` must be a variable, constant or expression, but %88 is not defined by any instruction");
}

#[test]
fn a_string_without_its_terminator_is_an_error() {
    // OpString %30 "abcd" with the NUL word cut off: the literal runs to the instruction's end.
    let mut text = string("abcd");
    text.pop();
    let m = module(&[insn(7, &[&[30][..], &text].concat())]);
    expect_err(
        &m,
        "word ",
        "a literal string runs past the end of its instruction (no NUL)",
    );
}

#[test]
fn a_count_claiming_billions_is_a_number_not_an_allocation() {
    // An array of 4 000 000 000 ints (the count a constant): read as a dimension, nothing sized
    // by it.
    let m = module(&[
        insn(43, &[3, 40, 4_000_000_000]),
        ext(41, 5, &[12, 40]), // DebugTypeArray int [%40]
    ]);
    let (module, _) = read(&m, "billions.spv").unwrap();
    ir::verify::check(&module).unwrap();
    let text = ir::text::print(&module);
    assert!(text.contains("count=4000000000"), "{text}");
}

/// A NonSemantic.Shader.DebugInfo.100 module: %1 void, %2 the import, %3 uint, %4 = 100 (the
/// version), %5 "a.comp"; then `extra`.
fn shader_module(extra: &[Vec<u32>]) -> Vec<u8> {
    let mut w = vec![0x0723_0203, 0x0001_0000, 0, 100, 0];
    let mut push = |insn: Vec<u32>| w.extend(insn);
    push(insn(17, &[1])); // OpCapability Shader
    push(insn(10, &string("SPV_KHR_non_semantic_info")));
    push(insn(
        11,
        &[&[2][..], &string("NonSemantic.Shader.DebugInfo.100")].concat(),
    ));
    push(insn(14, &[0, 1])); // OpMemoryModel Logical GLSL450
    push(insn(7, &[&[5][..], &string("a.comp")].concat()));
    push(insn(19, &[1]));
    push(insn(21, &[3, 32, 0]));
    push(insn(43, &[3, 4, 100]));
    for e in extra {
        push(e.clone());
    }
    bytes_of(&w)
}

#[test]
fn debug_source_continued_without_a_debug_source_is_dropped_and_reported() {
    let base = shader_module(&[]);
    assert!(outcome(&base).is_none());
    let m = shader_module(&[ext(20, 102, &[5])]); // DebugSourceContinued "a.comp"
    let (module, diags) = read(&m, "continued.spv").unwrap();
    ir::verify::check(&module).unwrap();
    assert!(
        diags
            .losses
            .iter()
            .any(|l| l.message.contains("does not follow a DebugSource")),
        "{:?}",
        diags.losses
    );
}

/// A DebugOperation with fewer operands than its operation takes (a spirv_reader fuzz finding:
/// the module read, but its IR text did not parse back): an IR rule now, so a reader error.
#[test]
fn an_operation_with_the_wrong_operand_count_is_an_error() {
    let m = module(&[
        ext(30, 30, &[4, 8]), // DebugOperation BitPiece 8 (it takes size and offset)
        ext(31, 31, &[30]),   // DebugExpression
    ]);
    expect_err(&m, "(%", "operation `bit_piece` takes 2 operand(s)");
    let m = module(&[ext(30, 30, &[4, 8, 0]), ext(31, 31, &[30])]);
    assert!(outcome(&m).is_none());
}

#[test]
fn a_wrong_operand_kind_is_an_error() {
    let m = module(&[ext(20, 3, &[6, 5, 0])]); // pointer to an OpString
    expect_err(&m, "(%20)", "%6 is an OpString");
}

#[test]
fn a_wrong_operand_count_is_an_error() {
    let short = module(&[ext(20, 2, &[6, 4])]); // DebugTypeBasic without Encoding
    expect_err(&short, "(%20)", "`Encoding` is missing");
    let long = module(&[ext(20, 2, &[6, 4, 4, 9])]);
    expect_err(&long, "(%20)", "the layout allows at most 3");
}

#[test]
fn an_id_defined_twice_or_beyond_the_bound_is_an_error() {
    expect_err(
        &module(&[ext(12, 2, &[6, 4, 4])]),
        "word ",
        "id %12 is defined twice",
    );
    // Also a core instruction's (a spirv_roundtrip fuzz finding: a mutated OpTypeBool id made
    // the normal form depend on which of two definitions a use meant).
    expect_err(
        &module(&[insn(20, &[9]), insn(41, &[9, 3])]),
        "word ",
        "id %3 is defined twice",
    );
    expect_err(&module(&[ext(120, 2, &[6, 4, 4])]), "word ", "id bound 100");
    // A core instruction using an id beyond the bound (found by the spirv_roundtrip fuzz
    // target): the writer allocates its new ids from the bound, so it would define that id.
    let code = [insn(32, &[13, 7, 3]), insn(59, &[104, 14, 7])]; // OpTypePointer, OpVariable
    let n = module(&code).len() / 4;
    expect_err(
        &module(&code),
        &format!("word {}", n - 4),
        "id %104 is outside the module's id bound 100",
    );
}

#[test]
fn unknown_opcodes_of_a_known_set_are_diagnostics() {
    let m = module(&[ext(20, 99, &[1, 2, 3])]);
    let (_, diag) = read(&m, "unknown.spv").unwrap();
    let loss = &diag.losses[0];
    assert_eq!(loss.kind, dwarv::unstable::diag::LossKind::Unknown);
    assert!(loss.place.starts_with("word ") && loss.place.contains("%20"));
}

#[test]
fn cli_exits_2_with_the_offset_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.spv");
    let full = kernel();
    std::fs::write(&bad, &full[..full.len() / 2 + 2]).unwrap();
    let out = dir.path().join("out.dwir");
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args([
            "convert",
            bad.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("bad.spv: word "), "{stderr}");
    assert!(!out.exists());
    let cyc = dir.path().join("cycle.spv");
    std::fs::write(
        &cyc,
        module(&[ext(20, 21, &[10, 1, 0, 21]), ext(21, 21, &[10, 2, 0, 20])]),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(["dump", cyc.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("cycle.spv: word ") && stderr.contains("(%20)"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn opencl100_module_intel_and_an_unknown_operation() {
    let m = module(&[
        // DebugModuleINTEL Name Source Parent Line ConfigurationMacros IncludePath APINotes IsDecl
        ext(20, 36, &[7, 10, 11, 3, 8, 8, 8, 1]),
        ext(21, 30, &[60, 1, 2]), // DebugOperation 60: no such operation
        ext(22, 31, &[21]),
    ]);
    let (module, diag) = read(&m, "intel.spv").unwrap();
    ir::verify::check(&module).unwrap();
    let scope = module.scopes.values().next().unwrap();
    assert_eq!(scope.name.as_deref(), Some("S"));
    assert!(matches!(
        &scope.kind,
        ir::ScopeKind::Module { include_path: Some(p), is_decl: true, .. } if p == "m"
    ));
    let op = &module.exprs.values().next().unwrap().ops[0];
    assert_eq!(op.code, ir::OpCode(ir::OpCode::SPIRV_BASE + 60));
    assert_eq!(op.args.len(), 2);
    assert_eq!(diag.losses.len(), 1);
    assert!(diag.losses[0].place.contains("%21"));
}

#[test]
fn deep_chains_read_without_recursion() {
    // 20 000 nested blocks and a 20 000-long typedef chain, every parent a forward reference.
    let n = 20_000u32;
    let mut extra = Vec::new();
    for i in 0..n {
        let parent = if i + 1 == n { 11 } else { 1000 + i + 1 };
        extra.push(ext(1000 + i, 21, &[10, i, 0, parent]));
        let base = if i + 1 == n { 12 } else { 30_000 + i + 1 };
        extra.push(ext(30_000 + i, 7, &[7, base, 10, i, 0, 11]));
    }
    let mut m = module(&extra);
    m[12..16].copy_from_slice(&100_000u32.to_le_bytes()); // the id bound
    let (module, _) = read(&m, "deep.spv").unwrap();
    ir::verify::check(&module).unwrap();
    assert_eq!(module.scopes.len(), n as usize);
}

#[test]
fn reader_diagnostics_reach_the_report_and_strict() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("unknown.spv");
    std::fs::write(&input, module(&[ext(20, 99, &[1, 2, 3])])).unwrap();
    let out = dir.path().join("out.dwir");
    let report = dir.path().join("report.json");
    let run = |strict: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_dwarv"));
        c.args([
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .arg("--report")
        .arg(&report);
        if strict {
            c.arg("--strict");
        }
        c.output().unwrap().status.code()
    };
    assert_eq!(run(false), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let losses = &json["diagnostics"]["losses"];
    assert_eq!(losses[0]["kind"], "unknown");
    assert!(losses[0]["place"].as_str().unwrap().contains("(%20)"));
    std::fs::remove_file(&out).unwrap();
    assert_eq!(run(true), Some(3));
    assert!(!out.exists());
}
