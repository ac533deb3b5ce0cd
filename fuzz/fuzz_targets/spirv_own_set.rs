//! The in-place rewrite into a module's own set on its words (`spirv::own_set`), against
//! the reader: it never panics; whatever it takes, the reader takes too (the input and the
//! output), and with nothing ledgered the output reads back as the input's IR exactly. What it
//! declines goes through the IR, which the `spirv_roundtrip` target covers.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::unstable::front::spirv::read;
use dwarv::unstable::spirv::own_set::{own_flavour, rewrite};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(flavour) = own_flavour(data) else {
        return;
    };
    let Ok(done) = rewrite(data, flavour) else {
        return;
    };
    let mut out = Vec::new();
    done.write_to(data, &mut out).unwrap();
    assert_eq!(out.len(), done.output_len(data));
    let (input, _) = read(data, "input").expect("the reader takes what the rewrite took");
    let (back, _) = read(&out, "output").expect("the reader takes what the rewrite wrote");
    if done.diagnostics.is_empty() {
        let d = diff(&input, &back, DiffOptions::default());
        assert!(
            d.is_empty(),
            "on its words into {}:\n{}",
            flavour.cli_name(),
            d.render(10)
        );
    }
});
