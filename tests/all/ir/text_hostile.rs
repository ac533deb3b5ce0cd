//! Covers src/ir/text/, src/ir/verify.rs.
//!
//! Hostile IR text: truncations, bit flips, deep chains and deep nesting never panic or overflow
//! the stack; whatever parses either validates and round-trips, or is reported.

use crate::support::rng::Rng;
use dwarv::ir::diff::{diff, DiffOptions};
use dwarv::ir::text::{parse, print};
use dwarv::ir::verify::verify;
use std::path::Path;

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ir");
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dwir"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Parses; if that works, validates; if valid, checks print/parse and self-diff.
fn exercise(text: &str) {
    let Ok(m) = parse(text, "fuzz") else { return };
    if !verify(&m).is_empty() {
        return;
    }
    let printed = print(&m);
    let again = parse(&printed, "reprint").expect("printed text parses");
    assert_eq!(again, m, "parse(print(m)) != m for:\n{text}");
    assert!(diff(&m, &again, DiffOptions::default()).is_empty());
}

#[test]
fn truncation_at_every_line_and_many_bytes() {
    for (_, text) in corpus() {
        let bytes = text.as_bytes();
        for cut in (0..bytes.len())
            .step_by(7)
            .chain(text.match_indices('\n').map(|(i, _)| i))
        {
            if let Ok(prefix) = std::str::from_utf8(&bytes[..cut]) {
                exercise(prefix);
            }
        }
    }
}

#[test]
fn random_byte_flips() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (_, text) in corpus() {
        for _ in 0..300 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % bytes.len() as u64) as usize;
                bytes[i] ^= 1 << (rng.next() % 8);
            }
            if let Ok(t) = String::from_utf8(bytes) {
                exercise(&t);
            }
        }
    }
}

#[test]
fn deep_inlined_chain_and_pointer_chain() {
    const N: usize = 20_000;
    let mut t = String::from("; dwarv-ir 1 source=ir\nf0 = file \"a.c\"\nu0 = unit c99 file=f0\nt0 = base \"int\" enc=signed bits=32\n");
    for i in 1..=N {
        t.push_str(&format!("t{i} = pointer t{}\n", i - 1));
    }
    t.push_str("s0 = function \"f\" in=u0\n");
    for i in 0..N {
        if i + 1 < N {
            t.push_str(&format!(
                "i{i} = inlined_at f0:{}:1 scope=s0 parent=i{}\n",
                i + 1,
                i + 1
            ));
        } else {
            t.push_str(&format!("i{i} = inlined_at f0:{}:1 scope=s0\n", i + 1));
        }
    }
    t.push_str(&format!(
        "v0 = local \"p\" type=t{N} in=s0\nscope @0x0..0x10 s0 inlined=i0\n"
    ));
    let m = parse(&t, "deep").unwrap();
    assert!(verify(&m).is_empty());
    assert_eq!(print(&m), t);
    assert!(diff(&m, &m.clone(), DiffOptions::default()).is_empty());
    // One link changed deep down is found.
    let changed = t.replace(
        &format!("i{} = inlined_at f0:{}:1", N - 2, N - 1),
        &format!("i{} = inlined_at f0:{}:7", N - 2, N - 1),
    );
    let m2 = parse(&changed, "deep2").unwrap();
    assert!(!diff(&m, &m2, DiffOptions::default()).is_empty());
}

#[test]
fn cycles_through_typedefs_and_inlined_at_are_reported_not_followed_forever() {
    let t = "; dwarv-ir 1 source=ir\nu0 = unit c99\nt0 = typedef \"a\" t0\n";
    let m = parse(t, "loop").unwrap();
    let f = verify(&m);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("t0 → t0"));
}

#[test]
fn deep_list_nesting_is_an_error() {
    let t = format!(
        "; dwarv-ir 1 source=ir\ne0 = expr {}{}\n",
        "[entry_value ".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = parse(&t, "nest").unwrap_err();
    assert!(e.message.contains("nested deeper than"), "{e}");
}

#[test]
fn huge_numbers_and_odd_bytes_are_errors() {
    for line in [
        "t0 = base \"x\" enc=float bits=999999999999999999999999999999999999999999",
        "t0 = base \"x\" enc=unknown(0x99999999999)",
        "e0 = expr [constu -1]",
        "e0 = expr [raw #abc]",
        "t0 = base \"\\q\" enc=float",
        "t0 = base \"\\u{d800}\" enc=float",
        "x0 = text \"a\" \"b\"",
        "line @+5..0x10 none:1",
        "t0 = base \"x\" enc=float flags=[bit(64)]",
    ] {
        let t = format!("; dwarv-ir 1 source=ir\n{line}\n");
        assert!(parse(&t, "odd").is_err(), "accepted: {line}");
    }
}

#[test]
fn header_flavour_round_trips_with_spaces_and_empty() {
    for header in [
        "; dwarv-ir 1 source=dwarf:x86 64 with spaces\n",
        "; dwarv-ir 1 source=spirv:\n",
        "; dwarv-ir 1 source=llvm\n",
    ] {
        let m = parse(header, "h").unwrap();
        assert_eq!(print(&m), header);
    }
}

/// A flavour that cannot run to the end of the line (an llvm_bridge fuzz finding: a target
/// triple with a line break and control characters) is written quoted and reads back.
#[test]
fn header_flavours_with_line_breaks_and_edge_spaces_are_quoted() {
    let triple = concat!(r"x86_64-p\n\u{b}", "\u{fffd}");
    for flavour in [triple, " lead", "trail ", r#"\"q"#] {
        let header = format!("; dwarv-ir 1 source=llvm:\"{flavour}\"\n");
        let m = parse(&header, "h").unwrap();
        assert_eq!(print(&m), header);
    }
    let m = parse("; dwarv-ir 1 source=llvm:\"a\\nb\"\n", "h").unwrap();
    assert_eq!(m.source.flavour.as_deref(), Some("a\nb"));
    assert!(parse("; dwarv-ir 1 source=llvm:\"a\" tail\n", "h").is_err());
}

#[test]
fn module_fields_without_their_companion_are_errors() {
    for line in ["module build_flags=1", "module link_path=\"x\""] {
        let t = format!("; dwarv-ir 1 source=ir\n{line}\n");
        let e = parse(&t, "m").unwrap_err();
        assert!(e.message.contains("needs"), "{e}");
    }
}
