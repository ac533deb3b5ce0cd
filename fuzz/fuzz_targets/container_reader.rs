//! The offload-container reader (`container`): any bytes split into parts or give a clean error
//! (exit-2 kind, naming a place); never a panic, never an allocation the input sizes. A part
//! stored in a plain bundle written back unchanged gives the input back byte for byte; written
//! back one byte longer, it reads back as that image.
#![no_main]

use dwarv::unstable::container::{open, replace, select};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = match open(data, "fuzz") {
        Ok(Some(p)) => p,
        Ok(None) => return,
        Err(e) => {
            assert!(matches!(e, dwarv::Error::Container { .. }), "{e}");
            return;
        }
    };
    let within = data.as_ptr_range();
    for p in &parts {
        if let std::borrow::Cow::Borrowed(b) = &p.bytes {
            let r = b.as_ptr_range();
            assert!(
                within.start <= r.start && r.end <= within.end,
                "a part outside the input"
            );
        }
    }
    for (i, p) in parts.iter().enumerate() {
        assert_eq!(
            select(&parts, &p.name),
            Ok(i),
            "{} does not pick itself",
            p.name
        );
        if p.slot.is_none() {
            continue;
        }
        // Refusals (overlapping entries, an image inside the table) are clean errors.
        let Ok(same) = replace(data, "fuzz", &p.name, &p.bytes) else {
            continue;
        };
        assert!(
            same == data,
            "{}: an unchanged write-back changed bytes",
            p.name
        );
        let mut longer = p.bytes.to_vec();
        longer.push(0x5a);
        if let Ok(out) = replace(data, "fuzz", &p.name, &longer) {
            let back = open(&out, "fuzz")
                .expect("written back reads")
                .expect("a container");
            let j = select(&back, &p.name).expect("the part is still there");
            assert!(back[j].bytes == longer, "{}: not the image written", p.name);
        }
    }
});
