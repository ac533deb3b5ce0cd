//! `dwarv convert x.bc --into code.spv` (code.spv = llvm-spirv-14 of the debug-stripped module)
//! on our OpenCL corpus at -O0: the result passes spirv-val, llvm-spirv-14 -r reads the
//! spirv-debug result, and the share of function instructions under a line is at least what
//! llvm-spirv-14's own debug output has.

mod common;

use std::path::Path;
use std::process::Command;

use dwarv::spirv::binary::{op, to_words, Module as Bin};

/// (instructions of function bodies under an OpLine, all of them): OpLabel, OpFunctionParameter,
/// OpLine/OpNoLine and debug-set OpExtInsts not counted.
fn line_coverage(path: &Path) -> (usize, usize) {
    let words = to_words(&std::fs::read(path).unwrap()).unwrap();
    let bin = Bin::parse(&words).unwrap();
    let mut debug_sets = Vec::new();
    let (mut infn, mut active, mut covered, mut total) = (false, false, 0, 0);
    for insn in &bin.insns {
        match insn.opcode() {
            op::EXT_INST_IMPORT => {
                let name = insn.string(1).unwrap().0;
                if name.contains("Debug") || name == "SPIRV.debug" {
                    debug_sets.push(insn.operands()[0]);
                }
            }
            op::FUNCTION => (infn, active) = (true, false),
            op::FUNCTION_END => infn = false,
            _ if !infn => {}
            op::LABEL => active = false,
            op::LINE => active = true,
            317 => active = false, // OpNoLine
            55 => {}               // OpFunctionParameter
            op::EXT_INST if debug_sets.contains(&insn.operands()[2]) => {}
            _ => {
                total += 1;
                covered += usize::from(active);
            }
        }
    }
    (covered, total)
}

#[test]
fn into_llvm_spirv_code_validates_and_covers_lines_like_the_peer() {
    let dir = common::corpus();
    let tmp = tempfile::tempdir().unwrap();
    for name in ["kernel.O0", "frag.O0"] {
        let bc = dir.join(format!("{name}.bc"));
        let t = |s: &str| tmp.path().join(format!("{name}.{s}"));
        common::run_ok(
            Command::new("opt")
                .arg("-strip-debug")
                .arg(&bc)
                .arg("-o")
                .arg(t("nodebug.bc")),
        );
        common::run_ok(
            Command::new("llvm-spirv-14")
                .arg(t("nodebug.bc"))
                .arg("-o")
                .arg(t("code.spv")),
        );
        common::run_ok(
            Command::new("llvm-spirv-14")
                .arg(&bc)
                .arg("-o")
                .arg(t("peer.spv")),
        );
        common::spirv_val_result(&t("code.spv"), "spv1.4")
            .expect("llvm-spirv's code part validates");
        for fl in ["opencl100", "spirv-debug"] {
            let out = t(&format!("{fl}.spv"));
            common::run_ok(
                Command::new(env!("CARGO_BIN_EXE_dwarv"))
                    .arg("convert")
                    .arg(&bc)
                    .arg("--into")
                    .arg(t("code.spv"))
                    .arg("-o")
                    .arg(&out)
                    .args(["--flavour", fl]),
            );
            if fl == "opencl100" {
                common::spirv_val_result(&out, "spv1.4").unwrap_or_else(|e| panic!("{name}: {e}"));
                let ours = line_coverage(&out);
                let peer = line_coverage(&t("peer.spv"));
                eprintln!(
                    "{name}: lines on {}/{} instructions; llvm-spirv-14: {}/{}",
                    ours.0, ours.1, peer.0, peer.1
                );
                assert_eq!(ours.1, peer.1, "{name}: the same code");
                assert!(ours.0 >= peer.0, "{name}: {ours:?} < llvm-spirv's {peer:?}");
            } else {
                common::run_ok(
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
