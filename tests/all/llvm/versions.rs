//! Covers llvm-bridge/ (one reader per LLVM).
//!
//! One LLVM reader per installed LLVM: `dwarv --version` lists them, bitcode
//! goes to the LLVM its IDENTIFICATION block names (or the nearest newer one), text to the oldest
//! that parses it, and an input no installed LLVM can read, or whose IDENTIFICATION block lies,
//! is exit 2 with a message that says so. scripts/setup.sh installs LLVM 14, 15, 16 and 19.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The LLVMs scripts/setup.sh installs (llvm-bridge/LLVM_VERSIONS).
fn majors() -> Vec<u32> {
    std::fs::read_to_string(crate::support::repo_root().join("llvm-bridge/LLVM_VERSIONS"))
        .unwrap()
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llvm_versions");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// `clang-N` on the corpus kernel at -O0: (bitcode, text), named after `test`.
fn kernel(major: u32, test: &str) -> (PathBuf, PathBuf) {
    let src = crate::support::repo_root().join("corpus/src/kernel.cl");
    let clang = crate::support::tool(&format!("clang-{major}"));
    let out = |ext: &str| tmp(&format!("{test}.kernel{major}.{ext}"));
    for (flag, path) in [("-c", out("bc")), ("-S", out("ll"))] {
        crate::support::run_ok(
            Command::new(&clang)
                .args(["-target", "spir64-unknown-unknown", "-x", "cl"])
                .args(["-cl-std=CL2.0", "-g", "-O0", "-emit-llvm", flag])
                .arg(&src)
                .arg("-o")
                .arg(path),
        );
    }
    (out("bc"), out("ll"))
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn version_lists_every_reader() {
    let o = crate::support::dwarv(&["--version"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for m in majors() {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("LLVM {m}.")))
            .unwrap_or_else(|| panic!("no LLVM {m} in --version:\n{text}"));
        assert!(line.ends_with("ready"), "{line}");
    }
}

/// What each newer clang (15, 16, 19) writes, as bitcode and as text, reads; the two forms of one module
/// give the same IR.
#[test]
fn newer_compilers_bitcode_and_text() {
    for major in majors().into_iter().filter(|&m| m > 14) {
        let (bc, ll) = kernel(major, "newer");
        let dump = |p: &Path| {
            let o = crate::support::dwarv(&["dump", p.to_str().unwrap()]);
            assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
            String::from_utf8(o.stdout).unwrap()
        };
        let (a, b) = (dump(&bc), dump(&ll));
        assert!(a.contains("producer=\"") && a.contains(&format!("clang version {major}.")));
        assert_eq!(a, b, "clang-{major}: bitcode and text differ");
    }
}

/// Little-endian bitstream writer: just enough for an IDENTIFICATION block.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    bit: usize,
}

impl Bits {
    fn fixed(&mut self, v: u64, width: usize) {
        for k in 0..width {
            if self.bit / 8 == self.bytes.len() {
                self.bytes.push(0);
            }
            self.bytes[self.bit / 8] |= (((v >> k) & 1) as u8) << (self.bit % 8);
            self.bit += 1;
        }
    }
    fn vbr(&mut self, mut v: u64, width: usize) {
        let hi = 1u64 << (width - 1);
        while v >= hi {
            self.fixed((v & (hi - 1)) | hi, width);
            v >>= width - 1;
        }
        self.fixed(v, width);
    }
    fn align32(&mut self) {
        while self.bit % 32 != 0 {
            self.fixed(0, 1);
        }
    }
}

/// An IDENTIFICATION block naming `producer`, as LLVM writes it (a char6 array record and an
/// epoch record, each by its abbreviation), as it stands after the magic.
fn identification(producer: &str) -> Vec<u8> {
    let char6 = |c: u8| match c {
        b'a'..=b'z' => c - b'a',
        b'A'..=b'Z' => c - b'A' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'.' => 62,
        _ => 63,
    };
    let mut b = Bits::default();
    b.fixed(1, 2); // ENTER_SUBBLOCK
    b.vbr(13, 8);
    b.vbr(5, 4);
    b.align32();
    let words_at = b.bytes.len();
    b.fixed(0, 32);
    // DEFINE_ABBREV [literal STRING, array, char6]
    b.fixed(2, 5);
    b.vbr(3, 5);
    b.fixed(1, 1);
    b.vbr(1, 8);
    b.fixed(0, 1);
    b.fixed(3, 3);
    b.fixed(0, 1);
    b.fixed(4, 3);
    b.fixed(4, 5);
    b.vbr(producer.len() as u64, 6);
    for c in producer.bytes() {
        b.fixed(u64::from(char6(c)), 6);
    }
    // DEFINE_ABBREV [literal EPOCH, vbr6], then epoch 0
    b.fixed(2, 5);
    b.vbr(2, 5);
    b.fixed(1, 1);
    b.vbr(2, 8);
    b.fixed(0, 1);
    b.fixed(2, 3);
    b.vbr(6, 5);
    b.fixed(5, 5);
    b.vbr(0, 6);
    b.fixed(0, 5); // END_BLOCK
    b.align32();
    let words = ((b.bytes.len() - words_at - 4) / 4) as u32;
    b.bytes[words_at..words_at + 4].copy_from_slice(&words.to_le_bytes());
    b.bytes
}

/// `bitcode` with its IDENTIFICATION block (the first block) replaced by one naming `producer`
/// (of the same length as the original's).
fn with_producer(bitcode: &[u8], producer: &str) -> Vec<u8> {
    assert_eq!(&bitcode[..4], b"BC\xC0\xDE");
    let words = u32::from_le_bytes(bitcode[8..12].try_into().unwrap()) as usize;
    let rest = &bitcode[12 + 4 * words..];
    let block = identification(producer);
    // The module block records offsets from the start of the file: the block keeps its size.
    assert_eq!(
        block.len(),
        8 + 4 * words,
        "{producer}: not the size of the original block"
    );
    let mut out = b"BC\xC0\xDE".to_vec();
    out.extend(block);
    out.extend_from_slice(rest);
    out
}

#[test]
fn identification_block_routes_and_is_checked() {
    let (bc19, _) = kernel(19, "ident");
    let bytes = std::fs::read(&bc19).unwrap();
    let id = llvm_bridge_ident(&bytes);
    assert!(id.starts_with("LLVM19."), "{id}");

    // The writer's own block, rebuilt, is the block LLVM wrote.
    assert!(with_producer(&bytes, &id) == bytes);

    // A block that claims LLVM 14 wrote what LLVM 19 did.
    let e = rejected(&with_producer(&bytes, "LLVM14.0.6"), "lie.bc");
    assert!(
        e.contains("IDENTIFICATION block says LLVM14.0.6 wrote it") && e.contains("LLVM 19 can"),
        "{e}"
    );
    // An LLVM newer than any this dwarv carries.
    let e = rejected(&with_producer(&bytes, "LLVM99.0.0"), "future.bc");
    assert!(
        e.contains("written by LLVM99.0.0") && e.contains("this dwarv reads LLVM 14"),
        "{e}"
    );
}

/// `dwarv dump` of `bytes` (written to `name`) is exit 2: its message.
fn rejected(bytes: &[u8], name: &str) -> String {
    let path = tmp(name);
    std::fs::write(&path, bytes).unwrap();
    let o = crate::support::dwarv(&["dump", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    stderr(&o)
}

/// The producer string as the bridge reads it.
fn llvm_bridge_ident(bytes: &[u8]) -> String {
    llvm_bridge::ident::identify(bytes).unwrap().producer
}

/// A machine without LLVM 19's runtime library (simulated): its bitcode is exit 2 naming the
/// package, its text names what the other LLVMs said and the LLVM not tried.
#[test]
fn missing_runtime_library() {
    let (bc, ll) = kernel(19, "missing");
    let run = |p: &Path| {
        Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .args(["dump", p.to_str().unwrap()])
            .env("DWARV_LLVM_SKIP", "19")
            .output()
            .unwrap()
    };
    let o = run(&bc);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("needs LLVM 19") && e.contains("Debian package libllvm19"),
        "{e}"
    );
    let o = run(&ll);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("LLVM 19 was not tried") && e.contains("libllvm19"),
        "{e}"
    );
    // LLVM 15 bitcode does not need it.
    let (bc15, _) = kernel(15, "missing");
    let o = run(&bc15);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Same program, two compilers: clang-14's and clang-19's frag.cl at -O0 give
/// the same IR up to code positions, but for the producer. (docs/llvm.md lists what differs in
/// the other corpus programs: header paths and lines, string-literal globals, C++ static
/// members, a lambda's `auto` return type.)
#[test]
fn clang14_and_clang19_differ_only_in_the_producer() {
    let src = crate::support::repo_root().join("corpus/src/frag.cl");
    let ll = |major: u32| {
        let out = tmp(&format!("frag{major}.ll"));
        crate::support::run_ok(
            Command::new(crate::support::tool(&format!("clang-{major}")))
                .args([
                    "-target",
                    "spir64-unknown-unknown",
                    "-x",
                    "cl",
                    "-cl-std=CL2.0",
                ])
                .args(["-g", "-O0", "-emit-llvm", "-S"])
                .arg(&src)
                .arg("-o")
                .arg(&out),
        );
        out
    };
    let (a, b) = (ll(14), ll(19));
    let o = crate::support::dwarv(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--ignore-code-positions",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let changes: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(changes.len(), 1, "{text}");
    assert!(changes[0].starts_with("changed: unit"), "{text}");
    assert!(
        text.contains("- producer=\"Debian clang version 14."),
        "{text}"
    );
}
