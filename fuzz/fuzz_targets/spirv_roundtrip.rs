//! SPIR-V read → write (in place, the module's own debug set, forward references for some) → read: when the writer reports no
//! loss, the module read back equals the first (`ir::diff`, code positions included); the writer
//! never panics on a module the reader accepted.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::unstable::back::spirv::{write, Base, WriteOptions};
use dwarv::unstable::convert::default_flavour;
use dwarv::unstable::front::spirv::read;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok((module, _)) = read(data, "fuzz") else {
        return;
    };
    let flavour = default_flavour(&module);
    // Forward references on or off by the module's length (a NonSemantic.100 module's cycles are
    // written either way).
    let opts = WriteOptions {
        flavour,
        base: Base::OwnCode(data),
        forward_refs: data.len() % 8 == 4,
    };
    let Ok((bytes, ledger)) = write(&module, &opts) else {
        return;
    };
    let (back, _) = read(&bytes, "written").expect("dwarv reads what it wrote");
    if ledger.losses.is_empty() {
        let d = diff(&module, &back, DiffOptions::default());
        assert!(
            d.is_empty(),
            "round trip through {}:\n{}",
            flavour.cli_name(),
            d.render(10)
        );
    }
});
