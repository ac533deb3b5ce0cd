//! Covers src/build_step/emitter.rs (the inkwell feature: `DebugInfoStep::from_inkwell`).
//! dwarv's own checks of it: tests/all/llvm/inkwell_step.rs.
//!
//! The build-step API on a module in memory (the `inkwell` feature): the example
//! `examples/inkwell_step.rs` builds a function with DIBuilder, reads its debug info in process,
//! and weaves it into llvm-spirv-14's code; the result passes spirv-val, reads back with the
//! function, its local variable and its lines, and llvm-spirv-14 -r reads it.
#![cfg(feature = "inkwell")]

#[path = "../../../examples/inkwell_step.rs"]
#[allow(dead_code)]
mod example;

use dwarv::ir::{ScopeKind, VarKind};

#[test]
fn an_inkwell_module_gets_its_debug_info_into_the_translators_code() {
    let dir = tempfile::tempdir().unwrap();
    let written = example::run(&crate::support::tool("llvm-spirv-14"), dir.path()).unwrap();
    assert_eq!(written.tied, 5, "alloca, mul, store, load, ret");
    let out = dir.path().join("scale.spv");
    std::fs::write(&out, &written.module).unwrap();
    crate::support::spirv_val(&out, "spv1.4");
    crate::support::llvm_spirv_reads(&out).unwrap();
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
