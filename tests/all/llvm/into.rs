//! Covers src/front/llvm/into.rs. What real consumers judge of it: tests/judges/llvm/into.rs.
//!
//! `dwarv convert x.bc --into code.spv`: the work per instruction does not grow with the module.

use std::path::Path;
use std::process::Command;

/// An OpenCL C program of `funcs` functions whose one basic block has `stmts` locals, each
/// declared (llvm.dbg.declare at -O0), computed and stored on its own line.
fn straight_line_program(funcs: usize, stmts: usize) -> String {
    let mut src = String::new();
    for f in 0..funcs {
        src += &format!("float f{f}(__global const float *in, int i) {{\n    float acc = 0.0f;\n");
        for s in 0..stmts {
            src += &format!("    float v{s} = in[(i + {s}) & 63] * {s}.5f;\n    acc += v{s};\n");
        }
        src += "    return acc;\n}\n";
    }
    src += "__kernel void k(__global const float *in, __global float *out) {\n    int i = get_global_id(0);\n    out[i] = 0.0f";
    for f in 0..funcs {
        src += &format!(" + f{f}(in, i)");
    }
    src += ";\n}\n";
    src
}

/// Ties `program` (compiled at -O0) to llvm-spirv-14's translation of it without debug info.
fn tie_effort(dir: &Path, program: &str, name: &str) -> dwarv::unstable::front::llvm::into::Effort {
    use dwarv::unstable::front::llvm::{into, lower};
    let p = |ext: &str| dir.join(format!("{name}.{ext}"));
    std::fs::write(p("cl"), program).unwrap();
    crate::support::run_ok(
        Command::new(crate::support::tool("clang-14"))
            .args(["-target", "spir64", "-x", "cl"])
            .args(["-cl-std=CL2.0", "-g", "-O0", "-emit-llvm", "-c"])
            .arg(p("cl"))
            .arg("-o")
            .arg(p("bc")),
    );
    crate::support::run_ok(
        Command::new("opt")
            .arg("-strip-debug")
            .arg(p("bc"))
            .arg("-o")
            .arg(p("nodebug.bc")),
    );
    crate::support::run_ok(
        Command::new("llvm-spirv-14")
            .arg(p("nodebug.bc"))
            .arg("-o")
            .arg(p("code.spv")),
    );
    let bytes = std::fs::read(p("bc")).unwrap();
    let model = llvm_bridge::load(&bytes, name).unwrap();
    let (mut module, mut diags) = lower(&model);
    let layout = into::Layout::of(&model);
    let code = into::index_module(&std::fs::read(p("code.spv")).unwrap(), "code.spv").unwrap();
    into::tie(&layout, &mut module, &mut diags, &code, "code.spv").effort
}

/// `--into` is linear in the module: the probes of per-module lists per tied instruction stay the
/// same when the module has 4× the functions, or its functions 4× the statements (a per-row
/// scan per instruction made the 10 MB bench module take 18 s).
#[test]
fn into_work_per_instruction_does_not_grow_with_the_module() {
    let tmp = tempfile::tempdir().unwrap();
    let per_insn = |funcs, stmts| {
        let e = tie_effort(
            tmp.path(),
            &straight_line_program(funcs, stmts),
            &format!("p{funcs}x{stmts}"),
        );
        assert!(e.instructions > 0);
        (e.instructions, e.probes as f64 / e.instructions as f64)
    };
    let (n, base) = per_insn(10, 10);
    for (funcs, stmts) in [(40, 10), (10, 40)] {
        let (m, work) = per_insn(funcs, stmts);
        assert!(
            m > 3 * n,
            "the bigger program ties {m} instructions, the base {n}"
        );
        assert!(
            work <= base * 1.1,
            "{funcs} functions × {stmts} statements: {work:.2} probes per instruction, {base:.2} at 10 × 10"
        );
    }
    assert!(base < 8.0, "{base:.2} probes per instruction");
}
