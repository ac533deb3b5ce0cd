//! Covers src/spirv/own_set/ (into another set). dwarv's own checks of it:
//! tests/all/spirv/set_to_set.rs.
//!
//! The conversion into another set on the module's words (`spirv::own_set::convert`), through
//! the CLI: each direction asked for either goes the words path and then reads back as the IR
//! path's output (`dwarv diff`) and passes spirv-val where the IR path's does, or goes through
//! the IR and the report says why.

use crate::support::spirv_set_to_set::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{convert_report, corpus};
use dwarv::unstable::spirv::binary::Module;
use dwarv::unstable::spirv::normal::NormalForm;

/// The ledger's messages, sorted (places name SPIR-V ids on the words path, IR entities on the
/// IR path).
fn messages(report: &serde_json::Value) -> Vec<String> {
    let mut m: Vec<String> = report["diagnostics"]["losses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["message"].as_str().unwrap().to_string())
        .collect();
    m.sort();
    m
}

/// What a conversion did: taken on the words (and judged as the IR path's output), or declined
/// (the report's reason).
enum Outcome {
    Taken,
    Declined(String),
}

/// Converts `input` into `flavour` on the words (if taken) and through the IR; `Err` says how
/// the two differ (`dwarv diff`, spirv-val and, into OpenCL.100, llvm-spirv-14 -r where the IR
/// path's output passes, the ledger).
fn judge(input: &Path, dir: &Path, flavour: &str) -> Result<Outcome, String> {
    let name = input.file_name().unwrap().to_str().unwrap();
    let words = dir.join(format!("{name}.{flavour}.words.spv"));
    let ir = dir.join(format!("{name}.{flavour}.ir.spv"));
    let w = convert_report(input, &words, &["--flavour", flavour]);
    let how = in_place(&w);
    if let Some(why) = how.strip_prefix("through the IR: ") {
        return Ok(Outcome::Declined(why.to_string()));
    }
    if !how.ends_with(&format!("into {flavour}, on its words")) {
        return Err(format!("{name}: report says {how:?}"));
    }
    let i = convert_report(input, &ir, &["--flavour", flavour, "--through-ir"]);
    let d = crate::support::dwarv(&["diff", words.to_str().unwrap(), ir.to_str().unwrap()]);
    if !d.status.success() {
        return Err(format!(
            "{name} → {flavour}: differs from the IR path's output:\n{}",
            String::from_utf8_lossy(&d.stdout)
        ));
    }
    if crate::support::spirv_val_result(&ir, "spv1.6").is_ok() {
        crate::support::spirv_val_result(&words, "spv1.6")
            .map_err(|e| format!("{name} → {flavour}: spirv-val: {e}"))?;
    }
    // (OpenCL.100's other consumer.)
    if matches!(flavour, "opencl100" | "spirv-debug")
        && crate::support::llvm_spirv_reads(&ir).is_ok()
    {
        crate::support::llvm_spirv_reads(&words)
            .map_err(|e| format!("{name} → {flavour}: llvm-spirv-14 -r: {e}"))?;
    }
    // (`.200`'s judge: the translator.)
    if flavour == "shader200" && crate::support::dpcpp_reads(&ir).is_ok() {
        crate::support::dpcpp_reads(&words)
            .map_err(|e| format!("{name} → {flavour}: llvm-spirv-dpcpp -r: {e}"))?;
    }
    // The words path ledgers what the IR path does (the IR path may ledger more: what the
    // words path leaves as it is, the IR path's re-encoding may approximate).
    let (mine, theirs) = (messages(&w), messages(&i));
    if let Some(m) = mine.iter().find(|m| !theirs.contains(m)) {
        return Err(format!(
            "{name} → {flavour}: ledgered only on the words: {m}"
        ));
    }
    Ok(Outcome::Taken)
}

/// The corpus's OpenCL.100 kernel and its `SPIRV.debug` twin into NonSemantic.100: on the
/// words, read back as the IR path's output, spirv-val clean, read by llvm-spirv-dpcpp -r as
/// that output is, the checksums and typedefs ledgered as the IR path ledgers them.
#[test]
fn opencl_kernels_into_shader100_on_the_words_equal_the_ir_path() {
    let dir = tempfile::tempdir().unwrap();
    for (name, from) in [
        ("kernel.ocl100.spv", "opencl100"),
        ("kernel.legacy.spv", "spirv-debug"),
    ] {
        let input = corpus().join(name);
        match judge(&input, dir.path(), "shader100") {
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Declined(why)) => panic!("{name}: declined: {why}"),
            Err(e) => panic!("{e}"),
        }
        let out = dir.path().join(format!("{name}.shader100.words.spv"));
        crate::support::spirv_val(&out, "spv1.4");
        // The newest translator reads it back as it reads the IR path's output.
        let ir = dir.path().join(format!("{name}.shader100.ir.spv"));
        crate::support::dpcpp_reads(&ir).unwrap();
        crate::support::dpcpp_reads(&out).unwrap();
        let r = convert_report(&input, &out, &["--flavour", "shader100"]);
        assert_eq!(
            in_place(&r),
            format!("from {from} into shader100, on its words")
        );
        assert!(
            messages(&r)
                .iter()
                .any(|m| m.contains("NonSemantic DebugSource has no checksum operand")),
            "{r}"
        );
        // Taken on its own words again: a valid NonSemantic module.
        let again = dir.path().join(format!("{name}.again.spv"));
        let r = convert_report(&out, &again, &[]);
        assert_eq!(in_place(&r), "own set, on its words");
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    }
}

/// The corpus's `SPIRV.debug` kernel into OpenCL.DebugInfo.100 (the same layouts: the import
/// renamed, the own-set repairs of OpenCL.100 made): on the words, read back as the IR path's
/// output, spirv-val clean, read by llvm-spirv-14 -r as that output is, ledgered as the IR path
/// ledgers it; taken on its own words again, it comes back byte for byte.
#[test]
fn spirv_debug_kernel_into_opencl100_on_the_words_equals_the_ir_path() {
    let dir = tempfile::tempdir().unwrap();
    let input = corpus().join("kernel.legacy.spv");
    match judge(&input, dir.path(), "opencl100") {
        Ok(Outcome::Taken) => {}
        Ok(Outcome::Declined(why)) => panic!("declined: {why}"),
        Err(e) => panic!("{e}"),
    }
    let out = dir.path().join("kernel.legacy.spv.opencl100.words.spv");
    crate::support::spirv_val(&out, "spv1.4");
    let ir = dir.path().join("kernel.legacy.spv.opencl100.ir.spv");
    crate::support::llvm_spirv_reads(&ir).unwrap();
    crate::support::llvm_spirv_reads(&out).unwrap();
    let r = convert_report(&input, &out, &["--flavour", "opencl100"]);
    assert_eq!(
        in_place(&r),
        "from spirv-debug into opencl100, on its words"
    );
    let dis = crate::support::tool_output("spirv-dis", &[out.to_str().unwrap()]);
    assert!(
        dis.contains("OpExtInstImport \"OpenCL.DebugInfo.100\""),
        "{dis}"
    );
    assert!(!dis.contains("SPIRV.debug") && !dis.contains("DebugFunctionDefinition"));
    let again = dir.path().join("kernel.legacy.again.spv");
    let r = convert_report(&out, &again, &[]);
    assert_eq!(in_place(&r), "own set, on its words");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

/// The corpus's OpenCL.100 kernel, its `SPIRV.debug` twin and its NonSemantic.100 form (written
/// by the IR path) into `.200` on the words: read back as the IR path's output, read by the
/// translator (`.200`'s judge) as that output is; the checksum in its operands, the arrays'
/// counts in DebugTypeSubranges, the typedefs of vectors and structs kept (spirv-val's repair
/// is not `.200`'s), nothing ledgered; a `.200` module taken as it is again.
#[test]
fn into_shader200_on_the_words_equals_the_ir_path() {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("kernel.ns.spv");
    let args = ["--flavour", "shader100", "--through-ir"];
    assert_eq!(
        convert_report(&corpus().join("kernel.ocl100.spv"), &ns, &args)["status"],
        "ok"
    );
    for (input, from) in [
        (corpus().join("kernel.ocl100.spv"), "opencl100"),
        (corpus().join("kernel.legacy.spv"), "spirv-debug"),
        (ns, "shader100"),
    ] {
        let name = input.file_name().unwrap().to_str().unwrap().to_string();
        match judge(&input, dir.path(), "shader200") {
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Declined(why)) => panic!("{name}: declined: {why}"),
            Err(e) => panic!("{e}"),
        }
        let out = dir.path().join(format!("{name}.shader200.words.spv"));
        let r = convert_report(&input, &out, &["--flavour", "shader200"]);
        assert_eq!(
            in_place(&r),
            format!("from {from} into shader200, on its words")
        );
        assert!(messages(&r).is_empty(), "{name}: {r}");
        crate::support::dpcpp_reads(&out).unwrap();
        let dis = crate::support::tool_output("spirv-dis", &[out.to_str().unwrap()]);
        assert!(dis.contains("OpExtInstImport \"NonSemantic.Shader.DebugInfo.200\""));
        // (Raw opcodes: spirv-dis does not know `.200`.)
        let debug = |op: u32| {
            let set = |l: &str| l.split_whitespace().nth(5) == Some(&op.to_string()[..]);
            dis.lines()
                .filter(|l| l.contains("OpExtInst %void") && set(l))
                .count()
        };
        assert_eq!(
            debug(201),
            5,
            "{name}: a DebugTypeSubrange per array count\n{dis}"
        );
        // (The NonSemantic.100 form has only those of basic types left.)
        let typedefs = if from == "shader100" { 4 } else { 9 };
        assert_eq!(debug(7), typedefs, "{name}: the typedefs\n{dis}");
        if from != "shader100" {
            // MD5 (0) and its hex, for both files.
            assert!(
                dis.contains("OpString \"d28bd8c3148004733978f40d3ab0f0d6\""),
                "{dis}"
            );
            assert_eq!(debug(35), 2, "{dis}");
            let sources = dis
                .lines()
                .filter(|l| l.contains(" 35 %") && l.contains("%uint_0"));
            assert_eq!(sources.count(), 2, "{dis}");
        }
        let again = dir.path().join(format!("{name}.again.spv"));
        let r = convert_report(&out, &again, &[]);
        assert_eq!(in_place(&r), "own set, on its words", "{name}");
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    }
}

/// Out of `.200` on the words: the corpus kernel's `.200` form (as dwarv writes it) into
/// OpenCL.100 and NonSemantic.100 reads back as the IR path's output, passes spirv-val (and
/// llvm-spirv-14 -r into OpenCL.100) as that output does; its subranges become counts, its
/// checksums llvm-spirv's text in OpenCL.100 (ledgered into NonSemantic.100, as the IR path
/// ledgers them). SPIRV-LLVM-Translator's own `.200` of the same kernel goes either way, and
/// is judged the same where taken.
#[test]
fn out_of_shader200_on_the_words_equals_the_ir_path() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("kernel.200.spv");
    let args = ["--flavour", "shader200", "--through-ir"];
    assert_eq!(
        convert_report(&corpus().join("kernel.ocl100.spv"), &ours, &args)["status"],
        "ok"
    );
    let theirs = dir.path().join("kernel.translator200.spv");
    crate::support::run_ok(
        std::process::Command::new(crate::support::tool("llvm-spirv-dpcpp"))
            .arg("--spirv-debug-info-version=nonsemantic-shader-200")
            .arg(corpus().join("kernel.O0.bc"))
            .arg("-o")
            .arg(&theirs),
    );
    for to in ["opencl100", "shader100"] {
        match judge(&ours, dir.path(), to) {
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Declined(why)) => panic!("into {to}: declined: {why}"),
            Err(e) => panic!("{e}"),
        }
        let out = dir.path().join(format!("kernel.200.spv.{to}.words.spv"));
        crate::support::spirv_val(&out, "spv1.4");
        let dis = crate::support::tool_output("spirv-dis", &[out.to_str().unwrap()]);
        assert!(!dis.contains("NonSemantic.Shader.DebugInfo.200"), "{dis}");
        if to == "opencl100" {
            crate::support::llvm_spirv_reads(&out).unwrap();
            assert!(dis.contains("OpString \"//__CSK_MD5:d28bd8c3148004733978f40d3ab0f0d6\""));
            assert_eq!(dis.matches("DebugTypeArray").count(), 5, "{dis}");
        }
        if let Err(e) = judge(&theirs, dir.path(), to) {
            panic!("the translator's .200: {e}");
        }
    }
}

/// NonSemantic.100 modules into OpenCL.DebugInfo.100 (and `SPIRV.debug`, judged by dwarv diff
/// and llvm-spirv-14 -r alone) on the words: the corpus's OpenCL.100
/// kernel converted into NonSemantic through the IR, its bitcode converted standalone (no code:
/// DebugFunctions of no function, a DebugInfoNone added) and `--into` its code module (DebugLines
/// covering code, each row's end ledgered as the IR path ledgers it). Each reads back as the IR
/// path's output, passes spirv-val and llvm-spirv-14 -r where that output does; the output holds
/// no NonSemantic instruction, no `SPV_KHR_non_semantic_info`, and an OpLine where each
/// DebugLine was; taken on its own words again, it comes back byte for byte.
#[test]
fn shader100_into_opencl100_on_the_words_equals_the_ir_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (ocl, bc) = (
        corpus().join("kernel.ocl100.spv"),
        corpus().join("kernel.O0.bc"),
    );
    let code = corpus().join("kernel.nodebug.spv");
    let inputs = [
        ("through_ir", vec![ocl.to_str().unwrap(), "--through-ir"]),
        ("standalone", vec![bc.to_str().unwrap()]),
        (
            "into",
            vec![bc.to_str().unwrap(), "--into", code.to_str().unwrap()],
        ),
    ];
    for (name, args) in inputs {
        let input = d.join(format!("{name}.ns.spv"));
        let mut convert = vec!["convert"];
        convert.extend(&args);
        convert.extend(["-o", input.to_str().unwrap(), "--flavour", "shader100"]);
        let o = crate::support::dwarv(&convert);
        assert!(o.status.success(), "{name}: {o:?}");
        for (flavour, import) in [
            ("spirv-debug", "SPIRV.debug"),
            ("opencl100", "OpenCL.DebugInfo.100"),
        ] {
            match judge(&input, d, flavour) {
                Ok(Outcome::Taken) => {}
                Ok(Outcome::Declined(why)) => panic!("{name} → {flavour}: declined: {why}"),
                Err(e) => panic!("{e}"),
            }
            let out = d.join(format!("{name}.ns.spv.{flavour}.words.spv"));
            crate::support::llvm_spirv_reads(&out).unwrap();
            // (spirv-dis does not take `SPIRV.debug`.)
            let bytes = std::fs::read(&out).unwrap();
            let name = format!("{import}\0");
            assert!(bytes.windows(name.len()).any(|w| w == name.as_bytes()));
        }
        let out = d.join(format!("{name}.ns.spv.opencl100.words.spv"));
        crate::support::spirv_val(&out, "spv1.4");
        let r = convert_report(&input, &out, &["--flavour", "opencl100"]);
        assert_eq!(in_place(&r), "from shader100 into opencl100, on its words");
        let before = crate::support::tool_output("spirv-dis", &[input.to_str().unwrap()]);
        let dis = crate::support::tool_output("spirv-dis", &[out.to_str().unwrap()]);
        assert!(
            dis.contains("OpExtInstImport \"OpenCL.DebugInfo.100\""),
            "{dis}"
        );
        for gone in [
            "NonSemantic",
            "DebugFunctionDefinition",
            "DebugLine",
            "DebugNoLine",
        ] {
            assert!(!dis.contains(gone), "{name}: {gone} left");
        }
        let lines = |t: &str, what: &str| t.lines().filter(|l| l.contains(what)).count();
        assert_eq!(
            lines(&dis, "OpLine "),
            lines(&before, "OpLine ") + lines(&before, "DebugLine "),
            "{name}"
        );
        let rows = messages(&r)
            .iter()
            .any(|m| m.contains("OpLine has only a start"));
        assert_eq!(rows, name == "into", "{name}: {r}");
        if name == "standalone" {
            assert!(dis.contains("DebugInfoNone"), "{name}");
        } else {
            assert!(!dis.contains("DebugInfoNone"), "{name}");
        }
        let again = d.join(format!("{name}.again.spv"));
        let r = convert_report(&out, &again, &[]);
        assert_eq!(in_place(&r), "own set, on its words", "{name}");
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    }
}

/// Text replacements `(from, to)` that make a variant of the fixture.
type Edits<'a> = &'a [(&'a str, &'a str)];

/// tests/spirv/set_to_set_kernel.spvasm with each `(from, to)` replaced, assembled into `dir`.
fn variant(dir: &Path, name: &str, edits: Edits) -> PathBuf {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/set_to_set_kernel.spvasm");
    let mut text = std::fs::read_to_string(fixture).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{name}: no {from:?} in the fixture");
        text = text.replace(from, to);
    }
    let (asm, spv) = (
        dir.join(format!("{name}.spvasm")),
        dir.join(format!("{name}.spv")),
    );
    std::fs::write(&asm, text).unwrap();
    crate::support::run_ok(
        std::process::Command::new(crate::support::tool("spirv-as"))
            .args(["--target-env", "spv1.0"])
            .arg(&asm)
            .arg("-o")
            .arg(&spv),
    );
    crate::support::spirv_val(&spv, "spv1.0");
    spv
}

/// The hand-written kernel and its variants: taken (a member after its composite, the module's
/// `OpTypeInt 32 0` or one added for the numbers, `SPV_KHR_non_semantic_info` declared once)
/// and judged as the IR path; declined with the reason for a function with lines that no
/// DebugFunction names and for a DebugValue of a constant (the IR path places neither in
/// another set), for a global variable the module names otherwise than its debug info (the IR
/// path would not keep that binding), and for a DebugFunction of a declaration.
#[test]
fn variants_are_taken_or_declined_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let taken: [(&str, Edits); 3] = [
        ("kernel", &[]),
        (
            "no_uint",
            &[
                (
                    "OpCapability Kernel\n",
                    "OpCapability Kernel\nOpCapability Int64\n",
                ),
                ("%uint = OpTypeInt 32 0", "%uint = OpTypeInt 64 0"),
            ],
        ),
        (
            "declared",
            &[(
                "OpCapability Kernel\n",
                "OpCapability Kernel\nOpExtension \"SPV_KHR_non_semantic_info\"\n",
            )],
        ),
    ];
    for (name, edits) in taken {
        let input = variant(dir.path(), name, edits);
        match judge(&input, dir.path(), "shader100") {
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Declined(why)) => panic!("{name}: declined: {why}"),
            Err(e) => panic!("{e}"),
        }
        let out = dir.path().join(format!("{name}.spv.shader100.words.spv"));
        let dis = crate::support::tool_output("spirv-dis", &[out.to_str().unwrap()]);
        assert_eq!(
            dis.matches("OpExtension \"SPV_KHR_non_semantic_info\"")
                .count(),
            1,
            "{name}"
        );
        assert_eq!(dis.matches("OpTypeInt 32 0").count(), 1, "{name}");
        assert_eq!(dis.matches("DebugFunctionDefinition").count(), 1, "{name}");
    }
    let declined: [(&str, Edits, &str); 4] = [
        (
            "misnamed_global",
            &[
                (
                    "OpName %fn \"f\"\n",
                    "OpName %fn \"f\"\nOpName %gv \"other\"\n",
                ),
                (
                    "%fnty = OpTypeFunction %void\n",
                    "%fnty = OpTypeFunction %void\n%gptr = OpTypePointer CrossWorkgroup %uint\n\
                     %gv = OpVariable %gptr CrossWorkgroup %uint_0\n",
                ),
                (
                    "%expr = OpExtInst",
                    "%dgv = OpExtInst %void %1 DebugGlobalVariable %xname %int %src 1 0 %cu \
                     %empty %gv FlagIsDefinition\n%expr = OpExtInst",
                ),
            ],
            "a global variable the IR path would bind otherwise",
        ),
        (
            "no_definition",
            &[
                (
                    "%src = OpExtInst",
                    "%none = OpExtInst %void %1 DebugInfoNone\n%src = OpExtInst",
                ),
                ("FlagIsDefinition 1 %fn", "FlagIsDefinition 1 %none"),
            ],
            "lines or debug instructions in a function no DebugFunction names",
        ),
        (
            "value_of_constant",
            &[(
                "DebugDeclare %var %x %expr",
                "DebugValue %var %uint_0 %expr",
            )],
            "a DebugValue of a constant",
        ),
        (
            "declaration",
            &[
                (
                    "OpName %fn \"f\"\n",
                    "OpName %fn \"f\"\nOpDecorate %g LinkageAttributes \"g\" Import\n",
                ),
                (
                    "%fn = OpFunction",
                    "%dg = OpExtInst %void %1 DebugFunction %fname %dfty %src 1 0 %cu %empty \
                     FlagIsDefinition 1 %g\n%g = OpFunction %void None %fnty\nOpFunctionEnd\n\
                     %fn = OpFunction",
                ),
            ],
            "a DebugFunction of a function without a body",
        ),
    ];
    for (name, edits, why) in declined {
        let input = variant(dir.path(), name, edits);
        match judge(&input, dir.path(), "shader100") {
            Ok(Outcome::Declined(got)) => assert_eq!(got, why, "{name}"),
            Ok(Outcome::Taken) => panic!("{name}: taken"),
            Err(e) => panic!("{e}"),
        }
    }
}

/// Fuzz findings, each a module the words path took and wrote otherwise than the IR path, now
/// declined with its reason: kernel.legacy.spv with an OpFunctionCall turned into an
/// OpFunctionEnd, so that the rest of the function's code lies between functions (the IR path
/// places none of its lines: unmatched); kernel.ocl100.spv with a pointer's Flags given a bit
/// OpenCL.100 does not define (the IR path writes no such foreign bit into another set);
/// kernel.ocl100.spv with opcodes the grammar does not know, one of them an OpFunctionEnd's
/// (the IR path places the rows after them otherwise); kernel.ocl100.spv with an array count
/// of 2³²−1 (read back otherwise than through the IR); kernel.ocl100.spv with an OpExtInst
/// turned into an OpPhi right after a DebugScope and an OpLine (the IR path moves the scope
/// and drops the row, ledgered); kernel.ocl100.spv with a pointer in the Generic storage class
/// and no GenericPointer capability (the IR path writes Function, ledgered); a cut
/// kernel.ocl100.spv with an OpFunctionEnd before its first function (the IR path places the
/// row before it nowhere); kernel.ocl100.spv with an OpLoad after a line turned into an
/// OpFunctionParameter (the IR path anchors what precedes it elsewhere, ledgered);
/// kernel.ocl100.spv with an OpSelectionMerge of six words right before an OpLine (the IR path
/// places the line before the merge: its row started 6 words earlier); into OpenCL.100, the
/// corpus kernel in NonSemantic.100 with an OpNop of 1 024 words swallowing a function's start
/// and its DebugFunctionDefinition (the IR path binds that DebugFunction by name to a function
/// no definition names, where the words path would write DebugInfoNone); a `SPIRV.debug` module
/// with an OpDecorate of no operands (which the reader refuses: now held to the grammar's
/// operand counts). (The finding
/// of new ids the code may use is taken now: `new_ids_skip_the_words_the_code_may_use_as_ids`.)
#[test]
fn fuzz_findings_go_through_the_ir() {
    let dir = tempfile::tempdir().unwrap();
    for (file, reason, flavour) in [
        (
            "fuzz_set_to_set_code_outside.spv",
            "code between functions, a function without its end or an unknown opcode",
        ),
        (
            "fuzz_set_to_set_array_count.spv",
            "an array count of 2^31 or more",
        ),
        (
            "fuzz_set_to_set_before_phi.spv",
            "a line or debug instruction right before an OpLabel, OpPhi, OpVariable or OpFunctionParameter",
        ),
        (
            "fuzz_set_to_set_parameter_in_body.spv",
            "a line or debug instruction right before an OpLabel, OpPhi, OpVariable or OpFunctionParameter",
        ),
        (
            "fuzz_set_to_set_end_before_functions.spv",
            "code between functions, a function without its end or an unknown opcode",
        ),
        (
            "fuzz_set_to_set_generic.spv",
            "a number the IR path would not write as it is",
        ),
        (
            "fuzz_set_to_set_unknown_opcodes.spv",
            "code between functions, a function without its end or an unknown opcode",
        ),
        (
            "fuzz_set_to_set_foreign_flag.spv",
            "a number the IR path would not write as it is",
        ),
        (
            "fuzz_set_to_set_after_merge.spv",
            "a line or debug instruction right after an OpLoopMerge or OpSelectionMerge",
        ),
    ]
    .into_iter()
    .map(|(file, reason)| (file, reason, "shader100"))
    .chain([(
        "fuzz_set_to_set_unbound_function.spv",
        "a DebugFunction without a definition, and a function without one",
        "opencl100",
    )]) {
        let input = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/regressions/spirv")
            .join(file);
        match judge(&input, dir.path(), flavour) {
            Ok(Outcome::Declined(why)) => assert_eq!(why, reason, "{file}"),
            Ok(Outcome::Taken) => panic!("{file}: taken"),
            Err(e) => panic!("{e}"),
        }
    }
    // Refused by the reader: the IR path's error, no output.
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/spirv/fuzz_set_to_set_short_decoration.spv");
    for flavour in ["shader100", "shader200", "opencl100", "spirv-debug"] {
        let (out, report) = (dir.path().join("short.spv"), dir.path().join("short.json"));
        let o = crate::support::dwarv(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--flavour",
            flavour,
        ]);
        assert_eq!(o.status.code(), Some(2), "{flavour}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("word 424: opcode 71 has 0 operand words")
        );
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert_eq!(
            in_place(&r),
            "through the IR: an instruction without the operands it needs"
        );
        assert!(!out.exists(), "{flavour}");
    }
}

/// A module's ids, bound and normal form.
fn ids_and_normal_form(path: &Path) -> (Vec<u32>, u32, NormalForm) {
    let bytes = std::fs::read(path).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let m = Module::parse(&words).unwrap();
    let ids = m.insns.iter().filter_map(|i| i.result_id()).collect();
    (ids, m.bound, NormalForm::compute(&m).unwrap())
}

/// Modules whose code holds words just past the bound that the grammar lets be ids (literals an
/// unknown or conservative layout reports as possible ids), so that the new constants and
/// definitions must pass over them: taken on the words, judged as the IR path, and no new id is
/// one of those words (one would count as used, keep its constant in the output's normal form
/// and move every code position after it). The fuzz finding: an OpDecorate stating 91 words,
/// with 612 among the possible ids past the bound 572 (declined while new ids had to stay below
/// the lowest such word); the hand-written kernel with `OpExecutionMode LocalSize 32 1 1`, 32
/// being three past its bound, and the same with 300 000 OpNops in its function (a module of
/// more than 1 MiB, whose debug info is written while its code is checked: written again once
/// the code turns out to use such words).
#[test]
fn new_ids_skip_the_words_the_code_may_use_as_ids() {
    let dir = tempfile::tempdir().unwrap();
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/spirv/fuzz_set_to_set_taken_ids.spv");
    let local_size = variant(
        dir.path(),
        "local_size",
        &[(
            "OpMemoryModel Physical32 OpenCL\n",
            "OpMemoryModel Physical32 OpenCL\nOpEntryPoint Kernel %fn \"f\"\n\
             OpExecutionMode %fn LocalSize 32 1 1\n",
        )],
    );
    let nops = "OpNop\n".repeat(300_000) + "OpReturn\n";
    let large = variant(
        dir.path(),
        "local_size_large",
        &[
            (
                "OpMemoryModel Physical32 OpenCL\n",
                "OpMemoryModel Physical32 OpenCL\nOpEntryPoint Kernel %fn \"f\"\n\
                 OpExecutionMode %fn LocalSize 32 1 1\n",
            ),
            ("OpReturn\n", &nops),
        ],
    );
    assert!(std::fs::metadata(&large).unwrap().len() > 1 << 20);
    for input in [fuzz, local_size, large] {
        let name = input.file_name().unwrap().to_str().unwrap().to_string();
        match judge(&input, dir.path(), "shader100") {
            Ok(Outcome::Taken) => {}
            Ok(Outcome::Declined(why)) => panic!("{name}: declined: {why}"),
            Err(e) => panic!("{e}"),
        }
        let (ids, bound, normal) = ids_and_normal_form(&input);
        let out = dir.path().join(format!("{name}.shader100.words.spv"));
        let (out_ids, out_bound, out_normal) = ids_and_normal_form(&out);
        let passed: Vec<u32> = (normal.taken.iter().copied())
            .filter(|&t| t >= bound && t < out_bound)
            .collect();
        assert!(
            !passed.is_empty(),
            "{name}: no possible id among the new ones"
        );
        let new: Vec<u32> = out_ids.into_iter().filter(|id| !ids.contains(id)).collect();
        assert!(
            new.iter().all(|&id| id >= bound && id < out_bound),
            "{name}"
        );
        assert!(
            new.iter().all(|id| !passed.contains(id)),
            "{name}: a new id among {passed:?}"
        );
        assert_eq!(out_normal.len, normal.len, "{name}: the code moved");
    }
}

/// llvm-spirv's own debug-info tests (the peer corpus, OpenCL.100 and `SPIRV.debug` modules)
/// into NonSemantic.100, its `SPIRV.debug` modules into OpenCL.100, its NonSemantic.100 modules
/// and the OpenCL.100 family's converted into NonSemantic.100 through the IR (the words path's
/// input in the other direction) into OpenCL.100: every module the words path takes reads back
/// as the IR path's output and passes spirv-val (and, into OpenCL.100, llvm-spirv-14 -r) where
/// the IR path's does; what it declines, it declines with a reason.
#[test]
fn peer_corpus_into_another_set_on_the_words_equals_the_ir_path() {
    let Some(modules) = crate::support::peer_modules() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let outcomes = crate::support::in_parallel(modules.to_vec(), 2, |p| {
        // Only the OpenCL.100 family; a module the reader refuses is no input here.
        let r = crate::support::dwarv(&["validate", p.to_str().unwrap()]);
        let own = std::fs::read(&p).unwrap();
        let from = dwarv::unstable::spirv::own_set::own_flavour(&own);
        if !r.status.success() {
            return None;
        }
        let mut o = match from? {
            dwarv::Flavour::Shader100 => {
                return Some(vec![
                    (
                        "shader100 into opencl100",
                        judge(&p, tmp.path(), "opencl100"),
                    ),
                    (
                        "shader100 into shader200",
                        judge(&p, tmp.path(), "shader200"),
                    ),
                ])
            }
            dwarv::Flavour::OpenCl100 | dwarv::Flavour::SpirvDebug => vec![
                ("into shader100", judge(&p, tmp.path(), "shader100")),
                ("into shader200", judge(&p, tmp.path(), "shader200")),
            ],
            _ => return None,
        };
        if from == Some(dwarv::Flavour::SpirvDebug) {
            o.push((
                "spirv-debug into opencl100",
                judge(&p, tmp.path(), "opencl100"),
            ));
        }
        // The other direction's input: the module in NonSemantic.100, written by the IR path.
        let name = p.file_name().unwrap().to_str().unwrap();
        let ns = tmp.path().join(format!("{name}.through_ir.ns.spv"));
        let args = ["--flavour", "shader100", "--through-ir"];
        if convert_report(&p, &ns, &args)["status"] == "ok" {
            o.push((
                "converted shader100 into opencl100",
                judge(&ns, tmp.path(), "opencl100"),
            ));
            let spirv_debug = judge(&ns, tmp.path(), "spirv-debug");
            o.push(("converted shader100 into spirv-debug", spirv_debug));
            let shader200 = judge(&ns, tmp.path(), "shader200");
            o.push(("converted shader100 into shader200", shader200));
        }
        // And in `.200`, written by the IR path: out of it into the other two.
        let s200 = tmp.path().join(format!("{name}.through_ir.200.spv"));
        let args = ["--flavour", "shader200", "--through-ir"];
        if convert_report(&p, &s200, &args)["status"] == "ok" {
            for (what, to) in [
                ("converted shader200 into opencl100", "opencl100"),
                ("converted shader200 into shader100", "shader100"),
            ] {
                o.push((what, judge(&s200, tmp.path(), to)));
            }
        }
        Some(o)
    });
    let mut failures = Vec::new();
    // The floors: what the words path takes (136 into shader100: 116 while new ids had to stay
    // below every word the code may use as an id).
    // (Of the modules written into NonSemantic.100 through the IR, 203 into OpenCL.100, 187 into
    // `SPIRV.debug`, whose llvm-spirv-14 form of DebugImportedEntity declines; 219 and 203 before
    // a DebugFunction without a definition declined where a function has none either; of the
    // peer's own NonSemantic modules, one holds what OpenCL.100 has no place for.)
    for (to, floor) in [
        ("into shader100", 136),
        ("spirv-debug into opencl100", 69),
        ("shader100 into opencl100", 0),
        ("converted shader100 into opencl100", 203),
        ("converted shader100 into spirv-debug", 187),
        ("into shader200", 136),
        ("shader100 into shader200", 0),
        ("converted shader100 into shader200", 221),
        ("converted shader200 into opencl100", 148),
        ("converted shader200 into shader100", 158),
    ] {
        let mut declined: BTreeMap<String, usize> = BTreeMap::new();
        let (mut modules, mut taken) = (0, 0);
        for (_, o) in outcomes.iter().flatten().filter(|(t, _)| *t == to) {
            modules += 1;
            match o {
                Ok(Outcome::Taken) => taken += 1,
                Ok(Outcome::Declined(why)) => *declined.entry(why.clone()).or_default() += 1,
                Err(e) => failures.push(e.clone()),
            }
        }
        println!(
            "peer corpus into {to}: {modules} modules, {taken} on the words, declined: {declined:#?}"
        );
        assert!(taken >= floor, "into {to}: only {taken} on the words");
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(outcomes.len() >= 100, "only {} modules", outcomes.len());
}
