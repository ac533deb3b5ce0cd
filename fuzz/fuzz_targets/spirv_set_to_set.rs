//! The conversion of a module's debug info into another set on its words
//! (`spirv::own_set::convert`), against the reader and the IR path: it never panics; whatever
//! it takes, the reader takes too (the input and the output), and the output reads back as the
//! IR path's output does (`back::spirv::write` into the module's own code, as `roundtrip --via
//! spirv` writes it). What it declines goes through the IR, which `spirv_roundtrip` covers.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::unstable::back::spirv::{write, Base, WriteOptions};
use dwarv::unstable::front::spirv::read;
use dwarv::unstable::spirv::own_set::{convert, own_flavour};
use dwarv::Flavour;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(from) = own_flavour(data) else {
        return;
    };
    for to in [Flavour::Shader100, Flavour::Shader200, Flavour::OpenCl100] {
        if to == from {
            continue;
        }
        let Ok(done) = convert(data, from, to) else {
            continue;
        };
        let mut out = Vec::new();
        done.write_to(data, &mut out).unwrap();
        assert_eq!(out.len(), done.output_len(data));
        let (input, _) = read(data, "input").expect("the reader takes what the conversion took");
        let (back, _) = read(&out, "output").expect("the reader takes what the conversion wrote");
        let opts = WriteOptions {
            flavour: to,
            base: Base::OwnCode(data),
            forward_refs: false,
        };
        let Ok((ir_path, _)) = write(&input, &opts) else {
            continue;
        };
        let (ir_back, _) =
            read(&ir_path, "IR path").expect("the reader takes the IR path's output");
        let d = diff(&ir_back, &back, DiffOptions::default());
        assert!(
            d.is_empty(),
            "on its words from {} into {}:\n{}",
            from.cli_name(),
            to.cli_name(),
            d.render(10)
        );
    }
});
