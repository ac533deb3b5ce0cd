//! DWARF read → write (each unit its own version, AMD operations in the raw encoding) → read:
//! when the writer reports no loss, the module read back equals the first (`ir::diff`, code
//! positions included); the writer never panics on a module the reader accepted. Seeds are the
//! corpus objects.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::unstable::back::dwarf::{write, OpEncoding, WriteOptions};
use dwarv::unstable::front::dwarf::read;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok((module, _)) = read(data, "fuzz") else {
        return;
    };
    let opts = WriteOptions {
        dwarf_version: None,
        amd_ext: None,
        op_encoding: OpEncoding::Raw,
        into: None,
    };
    let Ok((bytes, ledger)) = write(&module, &opts) else {
        return;
    };
    let (back, _) = read(&bytes, "written").expect("dwarv reads what it wrote");
    if ledger.losses.is_empty() {
        let d = diff(&module, &back, DiffOptions::default());
        assert!(d.is_empty(), "DWARF round trip:\n{}", d.render(10));
    }
});
