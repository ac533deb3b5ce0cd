//! What the `llvm/corpus` tests of both tiers share (tests/all/llvm/corpus.rs and
//! tests/judges/llvm/corpus.rs).

use std::path::Path;
use std::path::PathBuf;

pub fn ll_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub fn peer(tmp: &Path) -> Option<Vec<(String, PathBuf)>> {
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
