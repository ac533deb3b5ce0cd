//! Covers src/visa/, src/front/visa/.
//!
//! Hostile vISA tables: every truncation of valid streams and random bit flips in them. Each run
//! ends with a clear error (object index, table, byte offset) or a valid result that reads,
//! validates and writes back byte-identically — never a panic; the CLI exits 2 and writes nothing.

use dwarv::unstable::visa;
use std::process::Command;

/// The samples small enough to cut at every byte (all but the 300-object one) plus a random one.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = crate::support::visa_gen::samples()
        .into_iter()
        .filter(|(n, _)| *n != "many_objects")
        .map(|(n, t)| (n.to_string(), visa::encode(&t).unwrap()))
        .collect();
    v.push((
        "random_20".into(),
        visa::encode(&crate::support::visa_gen::random_tables(3, 20)).unwrap(),
    ));
    v
}

/// A valid stream: it re-encodes to itself, lowers to a valid module, and writes back.
fn check_valid(name: &str, b: &[u8], t: &visa::Tables) {
    assert_eq!(
        visa::encode(t).unwrap(),
        b,
        "{name}: decode is not injective"
    );
    let (m, _) = dwarv::unstable::front::visa::lower(t);
    let m = dwarv::Verified::new(m).unwrap_or_else(|f| panic!("{name}: {f}"));
    let (out, _) = dwarv::unstable::back::visa::write(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out, b, "{name}: bytes → IR → bytes differ");
}

/// An error: it names a byte offset inside the input and a table.
fn check_error(name: &str, len: usize, e: &visa::DecodeError) {
    assert!(
        e.offset <= len,
        "{name}: offset {} past the end {len}",
        e.offset
    );
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("byte {}: ", e.offset)),
        "{name}: {text}"
    );
    assert!(
        !e.table.is_empty() && text.contains(e.table),
        "{name}: {text}"
    );
    if e.table != visa::table::HEADER {
        assert!(e.object.is_some(), "{name}: {text} names no object");
    }
}

#[test]
fn truncation_at_every_byte_offset() {
    let mut errors = 0;
    for (name, b) in inputs() {
        for cut in 0..b.len() {
            let name = format!("{name}[..{cut}]");
            match visa::decode(&b[..cut]) {
                Ok(t) => panic!("{name}: a strict prefix decoded: {t:?}"),
                Err(e) => check_error(&name, cut, &e),
            }
            errors += 1;
        }
    }
    eprintln!("truncations: {errors} cuts, all rejected");
    assert!(errors > 10_000, "only {errors} cuts");
}

#[test]
fn truncation_names_the_object_and_table() {
    let t = crate::support::visa_gen::samples()
        .into_iter()
        .find(|s| s.0 == "stack_calls")
        .unwrap()
        .1;
    let b = visa::encode(&t).unwrap();
    let e = visa::decode(&b[..b.len() - 3]).unwrap_err();
    assert_eq!(e.object, Some(2));
    assert_eq!(e.table, visa::table::CALLER_SAVES);
    assert!(e.offset < b.len() - 3, "{e}");
    let mut bad = b.clone();
    bad[0] ^= 1;
    let e = visa::decode(&bad).unwrap_err();
    assert_eq!(
        (e.object, e.table, e.offset),
        (None, visa::table::HEADER, 0)
    );
    assert!(e.to_string().contains("expected 0xdeadd010"), "{e}");
    let mut long = b;
    long.push(0);
    let e = visa::decode(&long).unwrap_err();
    assert!(
        e.to_string()
            .contains("1 byte(s) after the last compiled object"),
        "{e}"
    );
}

#[test]
fn random_bit_flips() {
    let mut rng = crate::support::visa_gen::Rng::new(0x5eed);
    let (mut valid, mut invalid) = (0, 0);
    for (name, b) in inputs() {
        for round in 0..400 {
            let mut m = b.clone();
            for _ in 0..1 + rng.below(3) {
                let bit = rng.below(m.len() as u64 * 8);
                m[(bit / 8) as usize] ^= 1 << (bit % 8);
            }
            let name = format!("{name} flip round {round}");
            match visa::decode(&m) {
                Ok(t) => {
                    check_valid(&name, &m, &t);
                    valid += 1;
                }
                Err(e) => {
                    check_error(&name, m.len(), &e);
                    invalid += 1;
                }
            }
        }
    }
    eprintln!("bit flips: {valid} valid, {invalid} rejected");
    // Both outcomes must occur, or the flips test nothing.
    assert!(
        valid > 100 && invalid > 100,
        "{valid} valid, {invalid} invalid"
    );
}

#[test]
fn cli_exits_2_with_the_place_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = crate::support::visa_gen::samples()
        .into_iter()
        .find(|s| s.0 == "spills")
        .unwrap()
        .1;
    let b = visa::encode(&t).unwrap();
    let bad = dir.path().join("bad.bin");
    std::fs::write(&bad, &b[..b.len() / 2]).unwrap();
    for (verb, out) in [
        ("convert", "out.dwir"),
        ("convert", "out.visa"),
        ("dump", "dump.dwir"),
    ] {
        let out = dir.path().join(out);
        let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args([verb, bad.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{verb}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains("bad.bin: byte ") && stderr.contains("object 0, "),
            "{stderr}"
        );
        assert!(!out.exists(), "{verb} left {}", out.display());
    }
}
