//! Covers src/front/llvm/. What real consumers judge of it: tests/judges/llvm/corpus.rs.
//!
//! The LLVM frontend over the peer corpus (the 146 `.ll` of llvm-spirv's debug-info tests; the
//! two templates with INPUT_LANGUAGE=DW_LANG_OpenCL): every file reads and validates.

use crate::support::llvm_corpus::*;

#[test]
fn peer_corpus_reads_and_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(files) = peer(tmp.path()) else {
        return;
    };
    assert_eq!(files.len(), 146);
    for (rel, path) in &files {
        let input = dwarv::unstable::input::read(path.to_str().unwrap()).unwrap();
        let (m, _) = dwarv::unstable::input::lower_with_diagnostics(&input)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        dwarv::ir::verify::check(&m).unwrap_or_else(|f| panic!("{rel}: {f}"));
    }
}
