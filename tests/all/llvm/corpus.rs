//! Covers src/front/llvm/. What real consumers judge of it: tests/judges/llvm/corpus.rs.
//!
//! The LLVM frontend over the peer corpus (the 146 `.ll` of llvm-spirv's debug-info tests; the
//! two templates with INPUT_LANGUAGE=DW_LANG_OpenCL): every file reads and validates.

use std::path::{Path, PathBuf};

fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            ll_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ll") {
            out.push(p);
        }
    }
}

/// The peer files as (name relative to the corpus, path to read), templates instantiated;
/// `None` when the corpus is absent (see `crate::support::shared_corpus`).
fn peer(tmp: &Path) -> Option<Vec<(String, PathBuf)>> {
    let root = crate::support::peer()?;
    let root = root.as_path();
    let mut files = Vec::new();
    ll_files(root, &mut files);
    files.sort();
    let files = files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            if !text.contains("INPUT_LANGUAGE") {
                return (rel, p);
            }
            let inst = tmp.join(rel.replace('/', "_"));
            std::fs::write(&inst, text.replace("INPUT_LANGUAGE", "DW_LANG_OpenCL")).unwrap();
            (rel, inst)
        })
        .collect();
    Some(files)
}

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
