//! The DWARF reader: any bytes read to a module that validates and prints back, or to a clean
//! error — never a panic. Seeds are ELF objects; mutations land mostly in their debug sections.
#![no_main]

use dwarv::ir::text::{parse, print};
use dwarv::ir::verify::verify;
use dwarv::unstable::front::dwarf::read;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok((module, _)) = read(data, "fuzz") else {
        return;
    };
    assert!(
        verify(&module).is_empty(),
        "the reader returned an invalid module"
    );
    let printed = print(&module);
    let again = parse(&printed, "reprint").expect("printed IR text parses");
    assert_eq!(again, *module, "parse(print(m)) != m");
});
