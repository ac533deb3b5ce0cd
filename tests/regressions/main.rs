//! Regressions as files: every input under `tests/regressions/<format>/` has its expectation
//! beside it, `<input>.expect`, which says what the input is, the dwarv commands to run on it
//! and what each must exit with and print. One trial per input.
//!
//! ```text
//! # A DWARF 4 unit whose DW_AT_name is empty: its file is listed as "<unknown>" — reported.
//! $ dwarv convert fuzz_nameless_unit_dwarf4.o --to dwarf --dwarf-version 4 -o out.o --report r.json
//! exit 0
//! ledger> approximated: f1 "": a file without a name …
//! ```
//!
//! `#` lines are comments; a `$ dwarv …` line is a command, run in a scratch folder that holds
//! the input under its own name (so outputs and messages name no path of the machine); the lines
//! after it are its expected exit code, its stdout (`1> `), its stderr (`2> `) and, for a command
//! with `--report FILE`, the losses of the report (`ledger> kind: place: message`). A command
//! ending in `| grep TEXT` keeps only the stdout lines that contain TEXT (a literal): what a
//! regression is about, out of a long dump.
//! `BLESS=1 cargo test --test regressions` rewrites the expectations from what the commands do
//! now (keeping the comments and commands); a panic or a signal is never blessed, and an exit 2
//! that leaves an output file behind fails always.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

/// The suffix of an expectation file.
const EXPECT: &str = "expect";

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0");
    let trials = inputs(&root)
        .into_iter()
        .map(|input| {
            let name = input.strip_prefix(&root).unwrap().display().to_string();
            Trial::test(name, move || run_one(&input, bless))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// The inputs: every file under `root`'s folders but the expectations.
fn inputs(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    while let Some(dir) = folders.pop() {
        for p in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            if p.is_dir() {
                folders.push(p);
            } else if !p.extension().is_some_and(|x| x == EXPECT) {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// One input's trial: its expectation's commands run and compared (or blessed).
fn run_one(input: &Path, bless: bool) -> Result<(), Failed> {
    let expect_path = expectation_of(input);
    let expected = std::fs::read_to_string(&expect_path).map_err(|e| {
        format!(
            "{}: {e}: every input has an expectation (write its commands, then BLESS=1)",
            expect_path.display()
        )
    })?;
    let scratch = tempfile::tempdir()?;
    let name = input.file_name().unwrap();
    std::os::unix::fs::symlink(input, scratch.path().join(name))?;
    let mut actual = String::new();
    let mut commands = 0;
    for line in expected.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            actual.push_str(line);
            actual.push('\n');
        } else if let Some(command) = line.strip_prefix("$ ") {
            actual.push_str(line);
            actual.push('\n');
            actual.push_str(&outcome(command, scratch.path())?);
            commands += 1;
        }
    }
    if commands == 0 {
        return Err(format!("{}: no `$ dwarv …` command", expect_path.display()).into());
    }
    if actual == expected {
        return Ok(());
    }
    if bless {
        std::fs::write(&expect_path, actual)?;
        return Ok(());
    }
    Err(format!(
        "{} differs (BLESS=1 rewrites it):\n{}",
        expect_path.display(),
        similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header("expected", "actual")
    )
    .into())
}

fn expectation_of(input: &Path) -> PathBuf {
    let mut name = input.file_name().unwrap().to_os_string();
    name.push(".");
    name.push(EXPECT);
    input.with_file_name(name)
}

/// What one `dwarv …` command does in `dir`, as expectation lines. A panic, a signal or an
/// exit 2 that leaves its output behind is an error, never an outcome to bless.
fn outcome(command: &str, dir: &Path) -> Result<String, Failed> {
    let (command, only) = match command.split_once(" | grep ") {
        Some((command, text)) => (command, Some(text)),
        None => (command, None),
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    let Some((&"dwarv", args)) = words.split_first() else {
        return Err(format!("`$ {command}`: a command is `dwarv` and its arguments").into());
    };
    let output_arg = value_of(args, &["-o", "--output"]);
    if let Some(out) = output_arg {
        let _ = std::fs::remove_file(dir.join(out));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .args(args)
        .current_dir(dir)
        .output()?;
    let stderr = String::from_utf8_lossy(&o.stderr);
    let code = match o.status.code() {
        Some(101) => return Err(format!("`{command}` panicked:\n{stderr}").into()),
        Some(c) => c,
        None => return Err(format!("`{command}` died of {:?}:\n{stderr}", o.status).into()),
    };
    if let Some(out) = output_arg.filter(|_| code == 2) {
        if dir.join(out).exists() {
            return Err(format!("`{command}` exited 2 and left {out} behind").into());
        }
    }
    let mut text = format!("exit {code}\n");
    let scratch = dir.display().to_string();
    for (tag, bytes) in [("1> ", &o.stdout), ("2> ", &o.stderr)] {
        let all = String::from_utf8_lossy(bytes).replace(&scratch, ".");
        let kept = all
            .lines()
            .filter(|l| tag != "1> " || only.map_or(true, |t| l.contains(t)));
        for line in kept {
            text.push_str(tag);
            text.push_str(line);
            text.push('\n');
        }
    }
    if let Some(report) = value_of(args, &["--report"]) {
        text.push_str(&ledger_lines(&dir.join(report))?);
    }
    Ok(text)
}

/// The value after the first of `flags` in `args`.
fn value_of<'a>(args: &[&'a str], flags: &[&str]) -> Option<&'a str> {
    let at = args.iter().position(|a| flags.contains(a))?;
    args.get(at + 1).copied()
}

/// A `--report`'s losses, one `ledger> kind: place: message` line each (none when the command
/// wrote no report).
fn ledger_lines(report: &Path) -> Result<String, Failed> {
    let Ok(bytes) = std::fs::read(report) else {
        return Ok(String::new());
    };
    let json: serde_json::Value = serde_json::from_slice(&bytes)?;
    let mut text = String::new();
    for loss in json["diagnostics"]["losses"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let field = |k: &str| loss[k].as_str().unwrap_or_default().to_string();
        text.push_str(&format!(
            "ledger> {}: {}: {}\n",
            field("kind"),
            field("place"),
            field("message")
        ));
    }
    Ok(text)
}
