//! Covers src/front/llvm/, llvm-bridge/. dwarv's own checks of it: tests/all/llvm/read.rs.
//!
//! The LLVM frontend on a hand-written module (every table of the IR it fills), and bad input:
//! text that does not parse, metadata LLVM's verifier rejects, truncated and mutated bitcode —
//! exit 2 with a message naming the file, no output file, never a panic or a signal.

use crate::support::llvm_read::*;
use std::process::Command;

/// A label of a function inlined in several places (corpus/src/linked.c's `scan`, always_inline
/// with its address taken, clang-14 -O2): LLVM clones its llvm.dbg.label into each inlined
/// body. The out-of-line one is the label's own; each inlined one a copy naming it, at the code
/// after it; written as DWARF, each copy is a DW_TAG_label inside its instance's
/// DW_TAG_inlined_subroutine, as clang's own object has them. (The reader kept only the last
/// place before.)
#[test]
fn an_inlined_label_has_a_copy_in_each_instance() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("linked.ll");
    crate::support::run_ok(
        Command::new(crate::support::tool("clang-14"))
            .args(["-O2", "-g", "-S", "-emit-llvm", "-o"])
            .arg(&ll)
            .arg(crate::support::repo_root().join("corpus/src/linked.c")),
    );
    let (m, _) = lower(&ll);
    let done: Vec<_> = m.labels.iter().filter(|(_, l)| l.name == "done").collect();
    let [(own, label)] = done.as_slice() else {
        panic!("one label `done`: {done:?}")
    };
    assert!(label.pos.is_some(), "the out-of-line one has its place");
    let copies: Vec<_> = (m.labels.values())
        .filter(|l| l.origin == Some(*own))
        .collect();
    assert_eq!(copies.len(), 2, "a copy per inlined call: {copies:?}");
    assert!(copies.iter().all(|c| c.name.is_empty() && c.pos.is_some()));
    assert_ne!(copies[0].pos, copies[1].pos);

    let obj = dir.path().join("linked.o");
    let o = crate::support::dwarv(&[
        "convert",
        ll.to_str().unwrap(),
        "--to",
        "dwarf",
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dump = crate::support::tool_output(
        "llvm-dwarfdump-14",
        &["--debug-info", obj.to_str().unwrap()],
    );
    // Each label copy's parent: the DIE one level up in the dump's indentation.
    let lines: Vec<&str> = dump
        .lines()
        .filter(|l| l.contains(": ") && l.contains("DW_TAG_"))
        .collect();
    let depth = |l: &str| {
        l.split(": ")
            .nth(1)
            .map_or(0, |t| t.len() - t.trim_start().len())
    };
    let mut parents = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if !l.contains("DW_TAG_label") {
            continue;
        }
        let parent = lines[..k]
            .iter()
            .rev()
            .find(|p| depth(p) < depth(l))
            .unwrap();
        parents.push(parent.split_whitespace().nth(1).unwrap().to_string());
    }
    let inlined = parents
        .iter()
        .filter(|p| *p == "DW_TAG_inlined_subroutine")
        .count();
    assert_eq!(inlined, 2, "label parents: {parents:?}\n{dump}");
}
