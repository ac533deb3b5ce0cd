//! The `.dwir` parser: parse → (validate) → print → parse must agree, or error cleanly.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::ir::text::{parse, print};
use dwarv::ir::verify::verify;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = parse(text, "fuzz") else {
        return;
    };
    // Printing must work on any parsed module, valid or not, and read back to the same module.
    let printed = print(&module);
    let again = parse(&printed, "reprint").expect("printed IR text parses");
    assert_eq!(again, module, "parse(print(m)) != m");
    assert_eq!(print(&again), printed, "print is not a fixpoint");
    if verify(&module).is_empty() {
        assert!(diff(&module, &again, DiffOptions::default()).is_empty());
    }
});
