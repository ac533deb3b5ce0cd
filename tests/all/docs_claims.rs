//! The docs' claims that the code can check for itself: the README as a user's front page, and
//! the folders without import cycles.
//!
//! docs/architecture.md has one line `Folders without import cycles: src/ir, …`. For each folder
//! it lists, the files' imports of each other form a graph that must have no cycle. A folder's
//! nodes are its files and its subfolders (a subfolder, with its `mod` children, is one node);
//! its `mod.rs` is the folder's root, not a node, so what the files take from it is no edge.
//! An edge is a file's path to another node: `use super::x`, `use crate::path::to::folder::x`
//! (use trees expanded), and `super::x::…`, `self::…`, `crate::…::x::…` paths in code, resolved
//! from the module the path is written in (inline `mod tests { … }` included). Comments, strings
//! and characters are skipped; bare paths (`x::f()` after a `use super::x`) are the `use`'s.
//! Only std: the checker reads the sources as text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The start of the claim's line in docs/architecture.md.
const CLAIM: &str = "Folders without import cycles:";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folders the claim lists, or why the claim cannot be read.
fn claimed_folders(doc: &str) -> Result<Vec<String>, String> {
    let lines: Vec<&str> = doc
        .lines()
        .map(|l| l.trim().trim_matches('`').trim())
        .filter(|l| l.starts_with(CLAIM))
        .collect();
    let [line] = lines[..] else {
        return Err(format!(
            "docs/architecture.md has {} lines `{CLAIM} …`, not one",
            lines.len()
        ));
    };
    let folders: Vec<String> = line[CLAIM.len()..]
        .split(',')
        .map(|f| {
            f.trim()
                .trim_matches('`')
                .trim_end_matches('.')
                .trim_matches('`')
        })
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect();
    if folders.is_empty() {
        return Err(format!("`{CLAIM}` lists no folder"));
    }
    Ok(folders)
}

fn architecture_doc() -> String {
    let path = repo().join("docs/architecture.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The README is a user's front page: short, the install and the three jobs as recipes, the
/// formats table in short cells, and no history — and it warns what a translator reads back of
/// a module with no code.
#[test]
fn the_readme_is_a_users_front_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines (at most 200)");
    for wanted in [
        "## Install",
        "cargo install --path .",
        "target/release/dwarv",
        "## Job 1",
        "dwarv translate kernel.bc",
        "## Job 2",
        "dwarv batch",
        "## Job 3",
        "--baseline",
        "## Formats",
        "Exit codes",
        // A standalone module read back by a translator has no code to hang functions on.
        "keeps only the unit",
    ] {
        assert!(readme.contains(wanted), "README.md lacks `{wanted}`");
    }
    let table = readme.lines().filter(|l| l.starts_with('|'));
    for row in table {
        for cell in row.split('|').map(str::trim) {
            assert!(
                cell.len() <= 80,
                "README.md table cell of {} chars: {cell}",
                cell.len()
            );
        }
    }
    let mut pages = vec![(String::from("README.md"), readme)];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            pages.push((path.display().to_string(), text));
        }
    }
    for (name, text) in &pages {
        for (n, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let numbered = words.windows(2).any(|w| {
                w[0].eq_ignore_ascii_case("issue")
                    && w[1]
                        .trim_end_matches([',', '.', ')', ':'])
                        .parse::<u32>()
                        .is_ok()
            });
            assert!(
                !numbered,
                "{name}:{}: history by issue number: {line}",
                n + 1
            );
        }
    }
}

#[test]
fn the_claim_is_one_line_listing_existing_source_folders() {
    let folders = claimed_folders(&architecture_doc()).unwrap_or_else(|e| panic!("{e}"));
    let mut seen = BTreeSet::new();
    for f in &folders {
        assert!(seen.insert(f), "{CLAIM} lists {f} twice");
        assert!(
            f.starts_with("src/") && !f.contains(".."),
            "{CLAIM} lists {f}, which is not a folder under src/"
        );
        let dir = repo().join(f);
        assert!(
            dir.join("mod.rs").is_file(),
            "{CLAIM} lists {f}, which is no module folder (no {f}/mod.rs)"
        );
    }
}

#[test]
fn the_claimed_folders_have_no_import_cycle() {
    let mut failures = Vec::new();
    for folder in claimed_folders(&architecture_doc()).unwrap_or_else(|e| panic!("{e}")) {
        let files = read_folder(&repo().join(&folder));
        let module: Vec<String> = folder
            .trim_start_matches("src/")
            .split('/')
            .map(str::to_owned)
            .collect();
        if let Some(cycle) = find_cycle(&import_graph(&module, &files)) {
            failures.push(format!("{folder}: {cycle}"));
        }
    }
    assert!(
        failures.is_empty(),
        "docs/architecture.md says these folders have no import cycle, but:\n{}",
        failures.join("\n")
    );
}

/// Every `.rs` file under `dir`, by its path relative to it (`/`-separated).
fn read_folder(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(dir).expect("under the folder");
                let rel = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(rel, text);
            }
        }
    }
    out
}

/// One edge of the graph with where it was seen first.
#[derive(Clone, Debug)]
struct Seen {
    file: String,
    line: usize,
    path: String,
}

type Graph = BTreeMap<String, BTreeMap<String, Seen>>;

/// The node a file belongs to: its first path component without `.rs`; None for `mod.rs`.
fn node_of(rel: &str) -> Option<String> {
    let first = rel.split('/').next().unwrap_or(rel);
    match first {
        "mod.rs" => None,
        _ => Some(first.trim_end_matches(".rs").to_owned()),
    }
}

/// A file's module path below the folder's (`a.rs` → [a], `sub/mod.rs` → [sub]).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_owned).collect();
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// The graph of the imports between the nodes of the folder whose module path (below `crate`)
/// is `folder`, from its files by relative path.
fn import_graph(folder: &[String], files: &BTreeMap<String, String>) -> Graph {
    let nodes: BTreeSet<String> = files.keys().filter_map(|f| node_of(f)).collect();
    let mut graph: Graph = nodes.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
    for (rel, text) in files {
        let Some(from) = node_of(rel) else { continue };
        let mut here: Vec<String> = folder.to_vec();
        here.extend(module_of(rel));
        for (line, path) in paths_in(text, &here) {
            let Some(abs) = resolve(&path, &here) else {
                continue;
            };
            let Some(to) = abs.strip_prefix(folder).and_then(|rest| rest.first()) else {
                continue;
            };
            if *to != from && nodes.contains(to) {
                let edges = graph.get_mut(&from).expect("every node is in the graph");
                edges.entry(to.clone()).or_insert_with(|| Seen {
                    file: rel.clone(),
                    line,
                    path: path.join("::"),
                });
            }
        }
    }
    graph
}

/// A path written in module `here` (its segments from `crate` on), as segments from `crate`;
/// None for a path that does not start at `crate`, `super` or `self`.
fn resolve(path: &[String], here: &[String]) -> Option<Vec<String>> {
    let mut at: Vec<String>;
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            at = Vec::new();
            rest = &path[1..];
            // `crate::unstable::x` is `crate::x` (the crate root re-exports unstable's modules).
            if rest.first().is_some_and(|s| s == "unstable") {
                rest = &rest[1..];
            }
        }
        Some("self") => {
            at = here.to_vec();
            rest = &path[1..];
        }
        Some("super") => {
            at = here.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    at.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(at)
}

/// A cycle of the graph, written `a (a.rs:3 super::b) → b (b.rs:9 super::a) → a`, if any.
fn find_cycle(graph: &Graph) -> Option<String> {
    // Depth-first, iteratively: 0 unseen, 1 on the stack, 2 done.
    let mut state: BTreeMap<&str, u8> = graph.keys().map(|k| (k.as_str(), 0)).collect();
    for start in graph.keys() {
        if state[start.as_str()] != 0 {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(
            start,
            graph[start].keys().map(String::as_str).rev().collect(),
        )];
        state.insert(start, 1);
        while let Some((node, todo)) = stack.last_mut() {
            let node: &str = node;
            match todo.pop() {
                Some(next) if state.get(next) == Some(&1) => {
                    let from = stack.iter().position(|(n, _)| *n == next)?;
                    let mut ring: Vec<&str> = stack[from..].iter().map(|(n, _)| *n).collect();
                    ring.push(next);
                    let steps: Vec<String> = ring
                        .windows(2)
                        .map(|w| {
                            let seen = &graph[w[0]][w[1]];
                            format!("{} ({}:{} {})", w[0], seen.file, seen.line, seen.path)
                        })
                        .collect();
                    return Some(format!("{} → {next}", steps.join(" → ")));
                }
                Some(next) if state.get(next) == Some(&0) => {
                    state.insert(next, 1);
                    let todo = graph[next].keys().map(String::as_str).rev().collect();
                    stack.push((next, todo));
                }
                Some(_) => {}
                None => {
                    state.insert(node, 2);
                    stack.pop();
                }
            }
        }
    }
    None
}

/// A token of Rust source, as far as paths need: identifiers (keywords included) and
/// punctuation (`::` as one), with its line.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Punct(&'static str),
    Other,
}

/// The tokens of `text` with their lines, comments, strings and characters left out.
fn tokens(text: &str) -> Vec<(usize, Token)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'b' || c == 'c') && at(i + 1) == '"') {
            i += if c == '"' { 1 } else { 2 };
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
            out.push((start_line, Token::Other));
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            // r"…", r#"…"#, br"…": up to the quote followed by as many #.
            i += chars[i..].iter().position(|&x| x == '"').unwrap_or(0) + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
            out.push((start_line, Token::Other));
        } else if c == '\'' {
            // A character ('a', '\n', '\u{1F600}', 'é') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            out.push((start_line, Token::Other));
        } else if c.is_alphabetic() || c == '_' {
            let mut j = i;
            if c == 'r' && at(i + 1) == '#' {
                j += 2;
            }
            let from = j;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            out.push((start_line, Token::Ident(chars[from..j].iter().collect())));
            i = j;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((start_line, Token::Other));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((start_line, Token::Punct("::")));
            i += 2;
        } else {
            let p = match c {
                '{' => "{",
                '}' => "}",
                ';' => ";",
                ',' => ",",
                '*' => "*",
                _ => "",
            };
            out.push((
                start_line,
                if p.is_empty() {
                    Token::Other
                } else {
                    Token::Punct(p)
                },
            ));
            i += 1;
        }
    }
    out
}

/// How many `#` a raw string starting at `i` has (`r"`: 0), or None if none starts there.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') || chars.get(j) == Some(&'c') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    // Not part of a longer identifier (`for"` is no raw string, `bar"` neither).
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// The paths of a file that start at `crate`, `super` or `self`, with their lines: each leaf of
/// each `use` tree, and each such path in code. `here` is the file's module path; a path in an
/// inline `mod name { … }` gets `super` and `self` resolved from there, so it comes back
/// rewritten from `crate`.
fn paths_in(text: &str, here: &[String]) -> Vec<(usize, Vec<String>)> {
    let toks = tokens(text);
    let ident = |k: usize| match toks.get(k) {
        Some((_, Token::Ident(s))) => Some(s.as_str()),
        _ => None,
    };
    let punct = |k: usize| match toks.get(k) {
        Some((_, Token::Punct(p))) => Some(*p),
        _ => None,
    };
    let mut out = Vec::new();
    // Inline modules open around the current token: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut k = 0;
    let module = |inline: &[(String, usize)]| {
        let mut m = here.to_vec();
        m.extend(inline.iter().map(|(n, _)| n.clone()));
        m
    };
    let mut push = |line: usize, path: Vec<String>, inline: &[(String, usize)]| {
        // Resolved here, against the inline module the path is written in.
        if let Some(abs) = resolve(&path, &module(inline)) {
            let mut p = vec!["crate".to_owned()];
            p.extend(abs);
            out.push((line, p));
        }
    };
    while k < toks.len() {
        let line = toks[k].0;
        match (&toks[k].1, ident(k + 1), punct(k + 2)) {
            (Token::Ident(m), Some(name), Some("{")) if m == "mod" => {
                depth += 1;
                inline.push((name.to_owned(), depth));
                k += 3;
                continue;
            }
            (Token::Punct("{"), _, _) => depth += 1,
            (Token::Punct("}"), _, _) => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            (Token::Ident(u), _, _) if u == "use" => {
                let end = (k..toks.len())
                    .find(|&j| punct(j) == Some(";"))
                    .unwrap_or(toks.len());
                let mut leaves = Vec::new();
                use_tree(&toks[k + 1..end], &[], &mut leaves);
                for leaf in leaves {
                    push(line, leaf, &inline);
                }
                k = end + 1;
                continue;
            }
            (Token::Ident(s), _, _)
                if matches!(s.as_str(), "crate" | "super" | "self")
                    && punct(k + 1) == Some("::")
                    && !(k > 0 && punct(k - 1) == Some("::")) =>
            {
                let mut path = vec![s.clone()];
                let mut j = k + 1;
                while punct(j) == Some("::") {
                    match ident(j + 1) {
                        Some(next) => path.push(next.to_owned()),
                        None => break,
                    }
                    j += 2;
                }
                push(line, path, &inline);
                k = j;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The leaf paths of a use tree (`a::{b, c::{d, self}}` → a::b, a::c::d, a::c::self), each
/// after `prefix`.
fn use_tree(toks: &[(usize, Token)], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    for (k, (_, token)) in toks.iter().enumerate() {
        match token {
            // A rename ends the path (`x as y`).
            Token::Ident(s) if s == "as" => break,
            Token::Ident(s) => path.push(s.clone()),
            Token::Punct("{") => {
                // The group, up to its matching brace, split at its top-level commas.
                let (mut depth, mut item) = (0, k + 1);
                for (j, (_, t)) in toks.iter().enumerate().skip(k) {
                    match t {
                        Token::Punct("{") => depth += 1,
                        Token::Punct("}") if depth > 1 => depth -= 1,
                        Token::Punct(",") if depth > 1 => {}
                        Token::Punct(end @ ("}" | ",")) => {
                            use_tree(&toks[item..j], &path, out);
                            if *end == "}" {
                                return;
                            }
                            item = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            _ => {}
        }
    }
    if path.len() > prefix.len() {
        out.push(path);
    }
}

#[cfg(test)]
mod checker {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    fn cycle_of(files: &[(&str, &str)]) -> Option<String> {
        let module = vec!["back".to_owned(), "x".to_owned()];
        find_cycle(&import_graph(&module, &folder(files)))
    }

    #[test]
    fn a_cycle_through_a_use_and_a_path_in_code_is_named() {
        let cycle = cycle_of(&[
            ("mod.rs", "mod a;\nmod b;\nmod c;\nuse a::f;\n"),
            ("a.rs", "use super::{b::{self, G}, Settings};\nfn f() {}\n"),
            (
                "b.rs",
                "// super::c::nothing\nfn g() {\n    super::c::h();\n}\n",
            ),
            ("c.rs", "use crate::unstable::back::x::a::f as other;\n"),
        ]);
        assert_eq!(
            cycle.as_deref(),
            Some("a (a.rs:1 crate::back::x::b) → b (b.rs:3 crate::back::x::c::h) → c (c.rs:1 crate::back::x::a::f) → a")
        );
    }

    #[test]
    fn the_root_and_outside_paths_make_no_edge() {
        assert_eq!(
            cycle_of(&[
                ("mod.rs", "mod a;\nmod b;\nfn f() { a::g(); b::g(); }\n"),
                (
                    "a.rs",
                    "use super::{Settings, b};\nuse crate::back::y::b::Z;\n"
                ),
                ("b.rs", "use super::Settings;\nuse crate::back::b::a;\n"),
            ]),
            None
        );
    }

    #[test]
    fn comments_strings_and_characters_are_no_paths() {
        let text = "/* super::b::x /* nested */ super::b */\nconst S: &str = \"super::b::x\";\n\
                    const R: &str = r#\"super::b \"# ;\nconst C: char = '\"';\n\
                    fn f<'a>(x: &'a str) -> &'a str { x }\n/// use super::b;\n";
        assert_eq!(
            cycle_of(&[("a.rs", text), ("b.rs", "use super::a;\n")]),
            None
        );
        // And what follows them still counts.
        let after = format!("{text}fn g() {{ super::b::h() }}\n");
        assert!(cycle_of(&[("a.rs", &after), ("b.rs", "use super::a;\n")]).is_some());
    }

    #[test]
    fn an_inline_module_resolves_super_from_itself() {
        // In `mod tests`, `super` is the file itself: no edge; `super::super::b` is b.
        let own = "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::f;\n}\n";
        assert_eq!(
            cycle_of(&[("a.rs", own), ("b.rs", "use super::a;\n")]),
            None
        );
        let sibling = "#[cfg(test)]\nmod tests {\n    use super::super::b::g;\n}\n";
        assert!(cycle_of(&[("a.rs", sibling), ("b.rs", "use super::a;\n")]).is_some());
    }

    #[test]
    fn a_subfolder_is_one_node_with_its_children() {
        let files = [
            ("sub/mod.rs", "mod y;\n"),
            ("sub/y.rs", "use super::super::a::f;\n"),
            ("a.rs", "pub fn f() {}\nuse crate::back::x::sub::y;\n"),
        ];
        assert_eq!(
            cycle_of(&files).as_deref(),
            Some("a (a.rs:2 crate::back::x::sub::y) → sub (sub/y.rs:1 crate::back::x::a::f) → a")
        );
    }

    #[test]
    fn the_claim_line_is_read_backquoted_or_not() {
        let doc = "text\n`Folders without import cycles: src/ir, src/front/dwarf`\n";
        assert_eq!(claimed_folders(doc).unwrap(), ["src/ir", "src/front/dwarf"]);
        let doc = "Folders without import cycles: `src/ir`, `src/back/visa`.\n";
        assert_eq!(claimed_folders(doc).unwrap(), ["src/ir", "src/back/visa"]);
        assert!(claimed_folders("no claim\n").is_err());
        let twice =
            "Folders without import cycles: src/ir\nFolders without import cycles: src/ir\n";
        assert!(claimed_folders(twice).is_err());
    }
}
