//! The build-step API on a module in memory (issue 16 item 4, the `inkwell` feature): the example
//! `examples/inkwell_step.rs` builds a function with DIBuilder, reads its debug info in process,
//! and weaves it into llvm-spirv-14's code; the result passes spirv-val, reads back with the
//! function, its local variable and its lines, and llvm-spirv-14 -r reads it.
#![cfg(feature = "inkwell")]

mod common;

#[path = "../examples/inkwell_step.rs"]
#[allow(dead_code)]
mod example;

use dwarv::build_step::DebugInfoStep;
use dwarv::ir::{ScopeKind, VarKind};

#[test]
fn an_inkwell_module_gets_its_debug_info_into_the_translators_code() {
    let dir = tempfile::tempdir().unwrap();
    let written = example::run(&common::tool("llvm-spirv-14"), dir.path()).unwrap();
    assert_eq!(written.tied, 5, "alloca, mul, store, load, ret");
    let out = dir.path().join("scale.spv");
    std::fs::write(&out, &written.module).unwrap();
    common::spirv_val(&out, "spv1.4");
    common::llvm_spirv_reads(&out).unwrap();
    // No loss but what the set cannot hold and the variable's declaration moved past OpVariable.
    for l in &written.losses {
        assert!(
            ["directory", "producer", "anchored at another instruction"]
                .iter()
                .any(|k| l.contains(k)),
            "{l}"
        );
    }

    let back = dwarv::unstable::input::load(out.to_str().unwrap()).unwrap();
    let function = back
        .scopes
        .values()
        .find(|s| matches!(s.kind, ScopeKind::Function(_)) && s.name.as_deref() == Some("scale"))
        .expect("a DebugFunction for scale");
    assert!(
        function.function().unwrap().binding.is_some(),
        "bound to its OpFunction"
    );
    assert!(back
        .vars
        .values()
        .any(|v| v.name.as_deref() == Some("y") && v.kind == VarKind::Local));
    assert_eq!(back.events.len(), 1, "the DebugDeclare of y");
    let mut lines: Vec<u32> = back.lines.iter().map(|r| r.at.line).collect();
    lines.dedup();
    assert_eq!(lines, [2, 3]);
}

/// A module whose debug info LLVM's verifier rejects is an error, not a crash.
#[test]
fn an_inkwell_module_with_broken_debug_info_is_refused() {
    use inkwell::context::Context;
    use inkwell::debug_info::AsDIScope;
    let context = Context::create();
    let module = context.create_module("broken");
    let (di, unit) = example::debug_info_builder(&module, "broken.cl");
    let i32t = context.i32_type();
    let f = module.add_function("f", i32t.fn_type(&[], false), None);
    let b = context.create_builder();
    b.position_at_end(context.append_basic_block(f, "entry"));
    // A location on an instruction of a function that has no DISubprogram.
    let loc = di.create_debug_location(&context, 1, 1, unit.as_debug_info_scope(), None);
    b.set_current_debug_location(loc);
    b.build_return(Some(&i32t.const_int(0, false))).unwrap();
    di.finalize();
    let Err(e) = DebugInfoStep::from_inkwell(&module) else {
        panic!("a module LLVM's verifier rejects was read");
    };
    assert!(e.to_string().contains("verifier"), "{e}");
}
