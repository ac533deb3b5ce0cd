//! Covers src/ir/text/.
//!
//! The IR text form: parse/print fixpoint over every corpus `.dwir`, and clean errors.

use dwarv::ir::text::{parse, print};
use std::path::{Path, PathBuf};

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/ir exists")
        .map(|e| e.expect("readable corpus dir").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dwir"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .dwir files in {}", dir.display());
    files
}

#[test]
fn print_parse_fixpoint_over_corpus() {
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let module = parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let printed = print(&module);
        assert_eq!(printed, text, "print(parse(t)) != t for {name}");
        let again = parse(&printed, &name).unwrap_or_else(|e| panic!("reparse: {e}"));
        assert_eq!(again, module, "parse(print(m)) != m for {name}");
    }
}
