//! The vISA table decoder and reader: any bytes decode to tables that re-encode to the same
//! bytes, lower to a valid module whose IR text parses back, and write back to the same bytes —
//! or give a clean error naming a byte inside the input. Never a panic.
#![no_main]

use dwarv::ir::text::{parse, print};
use dwarv::ir::verify::verify;
use dwarv::unstable::visa::{decode, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tables = match decode(data) {
        Ok(t) => t,
        Err(e) => {
            assert!(e.offset <= data.len(), "error offset past the input");
            return;
        }
    };
    assert_eq!(
        encode(&tables).expect("decoded tables encode"),
        data,
        "encode(decode(b)) != b"
    );
    let (module, _) = dwarv::unstable::front::visa::lower(&tables);
    assert!(
        verify(&module).is_empty(),
        "the reader returned an invalid module"
    );
    let again = parse(&print(&module), "reprint").expect("printed IR text parses");
    assert_eq!(again, module, "parse(print(m)) != m");
    let again = dwarv::Verified::new(again).expect("IR from tables keeps the IR rules");
    let (bytes, _) =
        dwarv::unstable::back::visa::write(&again).expect("IR from tables writes back");
    assert_eq!(bytes, data, "bytes → IR → bytes differ");
});
