//! Covers src/ir/diff/explain.rs, src/cli/verdict.rs.
//!
//! `roundtrip` and `diff --ledger` put each difference under the ledger line that explains it
//! and list the rest as not explained, those that only echo them apart; `--limit`, `--json` and
//! a baseline file give a regression test a verdict that holds from run to run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dwarv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .output()
        .expect("dwarv runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The corpus's OpenCL kernel in OpenCL.DebugInfo.100: into its own set, its five typedefs of
/// vectors and structs go to their bases (five ledger lines), 31 differences in all.
fn kernel() -> PathBuf {
    crate::support::corpus().join("kernel.ocl100.spv")
}

/// The differences of one group of the text form: the lines under the ledger line that
/// contains `line`, or under the not-explained heading.
fn group<'t>(text: &'t str, line: &str) -> &'t str {
    let start = text
        .find(line)
        .unwrap_or_else(|| panic!("{line} in:\n{text}"));
    let rest = &text[start..];
    let end = (rest[1..].find("\nledger: ").map(|e| e + 1)).unwrap_or(rest.len());
    &rest[..end]
}

/// Changes no ledger line explains (in the module read back, the struct `layer` made larger and
/// its const qualifier turned volatile) are listed as not explained, and what differs only
/// because it refers to them (the pointer to the qualified struct, the variables of that type)
/// as echoing them, by place; the typedef lines keep the differences they explain.
#[test]
fn unledgered_changes_are_not_explained_and_their_echoes_are_listed_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let (b, report, ir) = (
        tmp.path().join("b.spv"),
        tmp.path().join("r.json"),
        tmp.path().join("b.dwir"),
    );
    let c = dwarv(&["convert", s(&kernel()), "-o", s(&b), "--report", s(&report)]);
    assert!(c.status.success(), "{}", err(&c));
    let c = dwarv(&["convert", s(&b), "--to", "ir", "-o", s(&ir)]);
    assert!(c.status.success(), "{}", err(&c));
    let text = std::fs::read_to_string(&ir).unwrap();
    let edited = (text.lines())
        .map(|l| match l {
            l if l.contains("struct \"layer\"") => l.replace(" bits=512", " bits=520"),
            l if l.contains(" = qualified const ") => l.replace(" const ", " volatile "),
            l => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        edited
            .lines()
            .zip(text.lines())
            .filter(|(x, y)| x != y)
            .count(),
        3,
        "the fixture has the struct and two const qualifiers:\n{text}"
    );
    std::fs::write(&ir, edited).unwrap();

    let o = dwarv(&["diff", s(&kernel()), s(&ir), "--ledger", s(&report)]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let text = out(&o);
    let float4 = group(&text, "(DebugTypedef \"float4\")");
    assert!(float4.contains("\n    only in A: "), "{text}");
    let unexplained = group(&text, "not explained by the ledger: ");
    assert!(
        unexplained.contains(" (type \"layer\")\n        - bits=512\n        + bits=520\n"),
        "{text}"
    );
    assert!(
        unexplained.contains("        qualified volatile <struct \"layer\""),
        "{text}"
    );
    let echoes = &unexplained[unexplained.find("echoing those: ").expect(&text)..];
    assert!(echoes.contains(" (variable \"layers\")\n"), "{text}");
    assert!(
        !echoes.contains("\n        "),
        "echoes are listed by place only:\n{text}"
    );
    let said = err(&o);
    assert!(
        said.contains(" not explained by the ledger, 5 ledger line(s)"),
        "{said}"
    );
}

/// `--limit N` prints N differences (0: none) and the summary still counts them all; `--json`
/// gives each difference its ledger line's index.
#[test]
fn limit_and_json_say_the_same_verdict() {
    let k = kernel();
    let o = dwarv(&["roundtrip", s(&k), "--via", "spirv", "--limit", "0"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let text = out(&o);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ledger: ")).count(),
        5
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("    changed: ") || l.starts_with("    only in ")),
        "{text}"
    );
    assert!(err(&o).contains("31 difference(s), all explained by the ledger"));

    let o = dwarv(&["roundtrip", s(&k), "--via", "spirv", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let ledger = v["ledger"].as_array().unwrap();
    let differences = v["differences"].as_array().unwrap();
    assert_eq!((ledger.len(), differences.len()), (5, 31));
    assert_eq!(v["unexplained"], 0);
    for d in differences {
        let line = d["explained_by"].as_u64().expect("every one is explained") as usize;
        assert!(line < ledger.len());
        let place = d["place"].as_str().unwrap();
        assert!(
            place.contains(" (type") || place.contains(" (variable") || place.contains(" (scope"),
            "{d}"
        );
    }
}

/// A baseline holds the differences and their verdicts: the same run passes (exit 0), a
/// difference that appears (here: one left out of the file) fails with it named.
#[test]
fn a_baseline_fails_only_when_the_differences_change() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("kernel.diffs");
    let k = kernel();
    let run = |extra: &[&str]| {
        let mut args = vec!["roundtrip", s(&k), "--via", "spirv", "--baseline", s(&base)];
        args.extend_from_slice(extra);
        dwarv(&args)
    };
    let o = run(&["--update-baseline"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let written = std::fs::read_to_string(&base).unwrap();
    let lines: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 31, "{written}");
    assert!(lines
        .iter()
        .all(|l| l.contains("\texplained: ledger: approximated: ")));

    let o = run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("the 31 difference(s) of"), "{}", err(&o));

    let fewer: String = written
        .lines()
        .filter(|l| *l != lines[0])
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&base, fewer).unwrap();
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(out(&o).starts_with("appeared: "), "{}", out(&o));
    assert!(
        err(&o).contains("1 difference(s) appeared, 0 went away"),
        "{}",
        err(&o)
    );
}

/// A baseline holds across edits of the source that move lines: a shader with a comment line
/// added passes the baseline of the original.
#[test]
fn a_baseline_holds_when_the_source_moves() {
    let tmp = tempfile::tempdir().unwrap();
    let source = crate::support::repo_root().join("corpus/src/shade.frag");
    let text = std::fs::read_to_string(&source).unwrap();
    let (before, after) = (tmp.path().join("before.spv"), tmp.path().join("after.spv"));
    // One path for both: the unit names it.
    let copy = tmp.path().join("shade.frag");
    let (version, body) = text.split_once('\n').unwrap();
    let moved = format!("{version}\n// a line that moves the rest\n{body}");
    for (source_text, out) in [(&text, &before), (&moved, &after)] {
        std::fs::write(&copy, source_text).unwrap();
        let o = Command::new("glslangValidator")
            .args(["-V", "-gVS", "-o"])
            .arg(out)
            .arg(&copy)
            .output()
            .expect("glslangValidator runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    }
    let base = tmp.path().join("shade.diffs");
    let trip = |input: &Path, extra: &[&str]| {
        let mut args = vec![
            "roundtrip",
            s(input),
            "--via",
            "spirv",
            "--flavour",
            "opencl100",
            "--baseline",
            s(&base),
        ];
        args.extend_from_slice(extra);
        dwarv(&args)
    };
    let o = trip(&before, &["--update-baseline"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains("all explained by the ledger"),
        "{}",
        err(&o)
    );
    let o = trip(&after, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
}

/// Writing a baseline that holds differences no ledger line explains warns: they are losses
/// dwarv did not report, not expectations to commit.
#[test]
fn writing_a_baseline_warns_of_what_the_ledger_does_not_explain() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("cpp.diffs");
    let input = crate::support::repo_root().join("corpus/ir/cpp_host.dwir");
    let o = dwarv(&[
        "roundtrip",
        s(&input),
        "--via",
        "spirv",
        "--baseline",
        s(&base),
        "--update-baseline",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains("dwarv: warning: ") && err(&o).contains("not explained by the ledger"),
        "{}",
        err(&o)
    );
    let written = std::fs::read_to_string(&base).unwrap();
    assert!(written.starts_with("# dwarv baseline 2: "), "{written}");
    // A file of another format is refused, not compared.
    std::fs::write(&base, "# dwarv: old\nchanged\tx\t0123\tnot explained\n").unwrap();
    let o = dwarv(&[
        "roundtrip",
        s(&input),
        "--via",
        "spirv",
        "--baseline",
        s(&base),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("--update-baseline writes it anew"),
        "{}",
        err(&o)
    );
}
