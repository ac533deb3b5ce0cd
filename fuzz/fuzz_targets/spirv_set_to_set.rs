//! The conversion of a module's debug info into another set on its words
//! (`spirv::own_set::convert`), against the reader and the IR path: it never panics; whatever
//! it takes, the reader takes too (the input and the output), and the output reads back as the
//! IR path's output does (`back::spirv::write` into the module's own code, as `roundtrip --via
//! spirv` writes it). What it declines goes through the IR, which `spirv_roundtrip` covers.
//! Every direction is tried; a module of the OpenCL.100 family that goes into NonSemantic.100
//! on its words is then converted back into OpenCL.100 and `SPIRV.debug` on the words (its
//! DebugFunctionDefinitions and, from `--into`-like inputs, DebugLines in its code), so that
//! the OpenCL.100 seeds reach those directions too.
#![no_main]

use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::unstable::back::spirv::{write, Base, WriteOptions};
use dwarv::unstable::front::spirv::read;
use dwarv::unstable::spirv::own_set::{convert, own_flavour};
use dwarv::Flavour;
use libfuzzer_sys::fuzz_target;

/// Converts `data` from `from` into `to` on its words, if the conversion takes it, and checks
/// the output against the reader and the IR path; returns the output.
fn check(data: &[u8], from: Flavour, to: Flavour) -> Option<Vec<u8>> {
    let done = convert(data, from, to).ok()?;
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
    if let Ok((ir_path, _)) = write(&input, &opts) {
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
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let Some(from) = own_flavour(data) else {
        return;
    };
    for to in [
        Flavour::Shader100,
        Flavour::Shader200,
        Flavour::OpenCl100,
        Flavour::SpirvDebug,
    ] {
        if to == from {
            continue;
        }
        let out = check(data, from, to);
        if let (Some(out), Flavour::Shader100) = (out, to) {
            check(&out, to, Flavour::OpenCl100);
            check(&out, to, Flavour::SpirvDebug);
        }
    }
});
