//! Covers src/front/ (every reader).
//!
//! Snapshot tests of what the readers produce: for each input of the corpus (`corpus/build.sh`'s
//! outputs, every format) and each generated vISA table, the IR text its reader makes is
//! committed in `tests/snapshots/<input>.dwir`, followed by the reader's losses as `;` comments,
//! and compared here. A change to a reader shows up as a reviewable diff of that text.
//!
//!   BLESS=1 cargo test --test all snapshots     # rewrite the snapshots (then review git diff)
//!
//! A `.bc` whose `.ll` twin is in the corpus must read as the `.ll` does and has no file of its
//! own; a snapshot whose input is gone fails the test (blessing deletes it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn snapshot_dir() -> PathBuf {
    crate::support::repo_root().join("tests").join("snapshots")
}

fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| v != "0")
}

/// The reader's IR text of `path`, its losses appended as comments; `dir` is cut from every
/// message so that no path of this machine ends up in a snapshot.
fn reader_text(path: &Path, dir: &Path) -> String {
    let input = dwarv::unstable::input::read(path.to_str().unwrap()).unwrap();
    let (module, diagnostics) = dwarv::unstable::input::lower_with_diagnostics(&input)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = dwarv::ir::text::print(&module);
    for loss in &diagnostics.losses {
        text.push_str(&format!(
            "; loss {:?} at {}: {}\n",
            loss.kind, loss.place, loss.message
        ));
    }
    let prefix = format!("{}/", dir.display());
    text.replace(&prefix, "")
}

/// Every snapshot the inputs make, by file name.
fn expected() -> BTreeMap<String, String> {
    let corpus = crate::support::corpus();
    let mut names: Vec<String> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        // (Subfolders, such as stages/, hold inputs other tests judge.)
        .filter(|n| corpus.join(n).is_file())
        .filter(|n| {
            dwarv::unstable::input::detect(&std::fs::read(corpus.join(n)).unwrap()).is_some()
        })
        .collect();
    names.sort();
    let mut out = BTreeMap::new();
    for name in &names {
        let text = reader_text(&corpus.join(name), corpus);
        if let Some(stem) = name.strip_suffix(".bc") {
            let twin = format!("{stem}.ll");
            if names.contains(&twin) {
                let twin_text = reader_text(&corpus.join(&twin), corpus);
                assert!(
                    text == twin_text,
                    "{name} does not read as {twin} does:\n{}",
                    diff(&twin_text, &text)
                );
                continue;
            }
        }
        out.insert(format!("{name}.dwir"), text);
    }
    let tables = tempfile::tempdir().unwrap();
    for (name, t) in crate::support::visa_gen::samples() {
        let path = tables.path().join(format!("visa_{name}.bin"));
        std::fs::write(&path, dwarv::unstable::visa::encode(&t).unwrap()).unwrap();
        out.insert(
            format!("visa_{name}.bin.dwir"),
            reader_text(&path, tables.path()),
        );
    }
    out
}

/// A unified diff of two texts, for the failure message.
fn diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header("committed", "reader")
        .to_string()
}

/// A snapshot is itself IR text: it parses and prints back to its IR lines.
fn prints_back(name: &str, text: &str) {
    let module = dwarv::ir::text::parse(text, name).unwrap_or_else(|e| panic!("{e}"));
    let ir_lines: String = text
        .lines()
        .filter(|l| !l.starts_with("; loss "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(dwarv::ir::text::print(&module), ir_lines, "{name}");
}

#[test]
fn readers_produce_the_committed_ir() {
    let dir = snapshot_dir();
    let want = expected();
    let bless = blessing();
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut problems = Vec::new();
    for (name, text) in &want {
        prints_back(name, text);
        let path = dir.join(name);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed == *text {
            continue;
        }
        if bless {
            std::fs::write(&path, text).unwrap();
            eprintln!("blessed {name}");
        } else if committed.is_empty() {
            problems.push(format!("{name}: no snapshot (BLESS=1 writes it)"));
        } else {
            problems.push(format!("{name}:\n{}", diff(&committed, text)));
        }
    }
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if !want.contains_key(&name) {
            if bless {
                std::fs::remove_file(dir.join(&name)).unwrap();
                eprintln!("removed {name}");
            } else {
                problems.push(format!("{name}: snapshot of no input"));
            }
        }
    }
    assert!(want.len() >= 40, "only {} inputs", want.len());
    assert!(
        problems.is_empty(),
        "{} snapshot(s) differ from what the readers make; review, then BLESS=1 cargo test --test all snapshots:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
