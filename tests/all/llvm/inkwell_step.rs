//! Covers src/build_step.rs (the inkwell feature). What real consumers judge of it:
//! tests/judges/build_step/inkwell_step.rs.
//!
//! The build-step API on a module in memory (the `inkwell` feature): the example
//! `examples/inkwell_step.rs` builds a function with DIBuilder, reads its debug info in process,
//! and weaves it into llvm-spirv-14's code; the result passes spirv-val, reads back with the
//! function, its local variable and its lines, and llvm-spirv-14 -r reads it.
#![cfg(feature = "inkwell")]

#[path = "../../../examples/inkwell_step.rs"]
#[allow(dead_code)]
mod example;

use dwarv::build_step::DebugInfoStep;

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
