//! The DWARF writer: any IR text that parses and validates writes DWARF 5 and 4, with and
//! without AMD extensions, in both AMD encodings, or fails with a clean error — never a panic.
//! Seeds are corpus/ir/*.dwir.
#![no_main]

use dwarv::ir::text::parse;
use dwarv::unstable::back::dwarf::{write, OpEncoding, WriteOptions};
use dwarv::Verified;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = parse(text, "fuzz") else {
        return;
    };
    let Ok(module) = Verified::new(module) else {
        return;
    };
    for (version, amd, enc) in [
        (None, None, OpEncoding::Raw),
        (Some(4), Some(false), OpEncoding::Raw),
        (Some(5), Some(true), OpEncoding::User),
    ] {
        let opts = WriteOptions {
            dwarf_version: version,
            amd_ext: amd,
            op_encoding: enc,
            into: None,
        };
        let _ = write(&module, &opts);
    }
});
