//! Covers src/cli/crosscheck.rs.
//!
//! The LLVM ⇄ DWARF cross-check for programs of corpus/src compiled by
//! clang-14, the IR the LLVM frontend reads from the `.ll` and the IR the DWARF frontend reads
//! from the object must agree once the documented backend normalisations are applied
//! (`dwarv diff --crosscheck`, src/cli/crosscheck.rs, the list in docs/dwarf.md).

use std::path::Path;

use crate::support::dwarv;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// (LLVM IR, the object clang made from the same source with the same options).
/// C at -O0 and -O2 (DWARF 4 and 5, with macros, a linked executable), C++ (classes,
/// templates, namespaces, a lambda, static members, virtual methods) at -O0 and -O2, OpenCL C
/// for AMDGPU at -O0 and -O2 (address spaces, kernel calling convention, inlining).
const PAIRS: &[(&str, &str)] = &[
    ("prog.ll", "prog.dwarf5.o"),
    ("prog.ll", "prog.dwarf4.o"),
    ("prog.O2.ll", "prog.O2"),
    ("prog.O2.macro.ll", "prog.dwarf5.O2.o"),
    ("prog.O2.macro.ll", "prog.dwarf4.O2.o"),
    ("shapes.O0.ll", "shapes.dwarf5.o"),
    ("shapes.O2.ll", "shapes.dwarf4.O2.o"),
    ("kernel.gfx900.O0.ll", "kernel.gfx900.O0.o"),
    ("kernel.gfx900.ll", "kernel.gfx900.o"),
];

#[test]
fn llvm_and_dwarf_frontends_agree_on_the_corpus() {
    let corpus = crate::support::corpus();
    let mut failures = Vec::new();
    for (ll, obj) in PAIRS {
        let o = dwarv(&[
            "diff",
            s(&corpus.join(ll)),
            s(&corpus.join(obj)),
            "--crosscheck",
            "--limit",
            "50",
        ]);
        if o.status.code() != Some(0) {
            failures.push(format!(
                "{ll} vs {obj}:\n{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The normalisations must not hide a real disagreement: a member moved to another line in the
/// LLVM IR is reported, and nothing else is.
#[test]
fn a_changed_declaration_line_is_still_reported() {
    let corpus = crate::support::corpus();
    let text = std::fs::read_to_string(corpus.join("prog.ll")).unwrap();
    let needle = "name: \"visible\", scope: ";
    let at = text
        .find(needle)
        .expect("prog.ll declares the member `visible`");
    let line_at = at + text[at..].find("line: 14,").expect("on line 14");
    let edited = format!("{}line: 99,{}", &text[..line_at], &text[line_at + 9..]);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("crosscheck");
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("prog.edited.ll");
    std::fs::write(&ll, edited).unwrap();
    let o = dwarv(&[
        "diff",
        s(&ll),
        s(&corpus.join("prog.dwarf5.o")),
        "--crosscheck",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.starts_with("changed: type member \"visible\""), "{out}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("(1 difference(s))"),
        "{out}"
    );
}

#[test]
fn crosscheck_needs_one_llvm_and_one_dwarf_input() {
    let corpus = crate::support::corpus();
    let o = dwarv(&[
        "diff",
        s(&corpus.join("prog.dwarf5.o")),
        s(&corpus.join("prog.dwarf4.o")),
        "--crosscheck",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give one of each"));
}
