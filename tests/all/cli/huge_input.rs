//! Covers src/input.rs.
//!
//! A 1 GiB input is never read whole before it is judged: the file is mapped, a reader stops at
//! the first thing that is wrong, and nothing the size of the input is allocated up front. The
//! inputs are sparse files (no disk space), each judged from its first bytes or its last ones.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

const GIB: u64 = 1 << 30;

/// A sparse file of `GIB` bytes starting with `head`.
fn huge(path: &Path, head: &[u8]) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.set_len(GIB).unwrap();
}

/// Peak resident memory of the largest child this process has waited for, in KiB.
fn children_peak_kib() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss
}

#[test]
fn a_gigabyte_input_is_judged_without_reading_it_whole() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("huge_input");
    std::fs::create_dir_all(&dir).unwrap();
    let spirv_header: Vec<u8> = [0x0723_0203u32, 0x0001_0000, 0, 100, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    // An x86-64 relocatable object whose four section headers, at the end of the file, are
    // all null: a valid object without debug info (an empty module).
    let mut elf = vec![0u8; 64];
    elf[..7].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1]);
    elf[16..24].copy_from_slice(&[1, 0, 62, 0, 1, 0, 0, 0]);
    elf[0x28..0x30].copy_from_slice(&(GIB - 4 * 64).to_le_bytes());
    elf[0x34..0x40].copy_from_slice(&[64, 0, 0, 0, 0, 0, 64, 0, 4, 0, 3, 0]);
    let cases: [(&str, Vec<u8>, Option<&str>); 3] = [
        ("zeros.bin", Vec::new(), Some("format")),
        (
            "module.spv",
            spirv_header,
            Some("word 5: instruction (opcode 0) with word count 0"),
        ),
        ("object.o", elf, None),
    ];
    for (name, head, error) in cases {
        let input = dir.join(name);
        huge(&input, &head);
        let out = dir.join(format!("{name}.dwir"));
        let run = crate::support::dwarv(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--to",
            "ir",
            // The inputs hold no debug info: what is judged is how they are read.
            "--allow-no-debug-info",
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        match error {
            Some(says) => {
                assert_eq!(run.status.code(), Some(2), "{name}: {stderr}");
                assert!(stderr.contains(input.to_str().unwrap()), "{name}: {stderr}");
                assert!(stderr.contains(says), "{name}: {stderr}");
                assert!(!out.exists(), "{name}: an output was left behind");
            }
            None => assert_eq!(run.status.code(), Some(0), "{name}: {stderr}"),
        }
        std::fs::remove_file(&input).unwrap();
    }
    // Far below the input's size: the bytes were mapped, not read (or copied) whole.
    let peak_kib = children_peak_kib();
    assert!(peak_kib < 256 * 1024, "peak resident memory {peak_kib} KiB");
}
