//! What `roundtrip` and `diff --ledger` print of a diff whose differences the ledger explains
//! (`ir::diff::explain`): each difference under the ledger line that explains it, those no line
//! explains last; the same as JSON; or a check against a baseline file of expected differences.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::diag::Loss;
use crate::error::{exit, Error, Result};
use crate::ir::diff::explain::{Explained, Verdict};
use crate::ir::diff::{Change, Difference};
use crate::ir::text::split_items;

#[derive(clap::Args, Debug)]
pub(super) struct VerdictArgs {
    /// How many differences to print (0: none; the summary on stderr counts them all).
    #[arg(long, default_value_t = 50)]
    pub(super) limit: usize,
    /// Print the differences with their verdicts, and the ledger, as JSON on stdout.
    #[arg(long)]
    pub(super) json: bool,
    /// Compare the differences and what explains each with FILE (written by
    /// --update-baseline): exit 0 when they are the same, 1 when any appeared or went away.
    #[arg(long, value_name = "FILE")]
    pub(super) baseline: Option<String>,
    /// Write the differences and their verdicts to the --baseline FILE, and exit 0.
    #[arg(long, requires = "baseline")]
    pub(super) update_baseline: bool,
}

impl VerdictArgs {
    /// Whether anything but the plain differences is asked for.
    pub(super) fn wants_verdicts(&self) -> bool {
        self.json || self.baseline.is_some()
    }
}

/// Prints the verdict as the arguments ask; the exit code. `subject` says what was compared
/// (`k.bc changes through DWARF`, `a.spv and b.spv differ`).
pub(super) fn report(
    subject: &str,
    e: &Explained,
    ledger: &[Loss],
    args: &VerdictArgs,
) -> Result<i32> {
    if let Some(path) = &args.baseline {
        let current = baseline_lines(e, ledger);
        if args.update_baseline {
            let mut text = format!("{BASELINE_FORMAT}: {subject}\n");
            for l in &current {
                let _ = writeln!(text, "{l}");
            }
            crate::output::write_atomic(path, text.as_bytes())?;
            let unexplained = e.unexplained();
            match unexplained {
                0 => eprintln!(
                    "dwarv: {path}: {} difference(s) written as the baseline, all explained by \
                     the ledger",
                    current.len()
                ),
                n => eprintln!(
                    "dwarv: warning: {path}: {} difference(s) written as the baseline, {n} not \
                     explained by the ledger: a loss dwarv did not report, check them before \
                     committing (`dwarv roundtrip` without --baseline lists them)",
                    current.len()
                ),
            }
            return Ok(exit::OK);
        }
        return against_baseline(path, subject, &current);
    }
    if args.json {
        println!("{}", json(subject, e, ledger));
    } else {
        print!("{}", grouped(e, ledger, args.limit));
    }
    if e.diff.is_empty() {
        return Ok(exit::OK);
    }
    let unexplained = e.unexplained();
    eprintln!(
        "dwarv: {subject}: {} difference(s), {}, {} ledger line(s)",
        e.diff.differences.len(),
        match unexplained {
            0 => "all explained by the ledger".to_string(),
            n => format!("{n} not explained by the ledger"),
        },
        ledger.len()
    );
    Ok(exit::DIFFERENT)
}

/// Each ledger line (as `ledger: kind: place: message`) with the differences it explains
/// under it, then those none explains; at most `limit` differences in all.
fn grouped(e: &Explained, ledger: &[Loss], limit: usize) -> String {
    let mut by_line: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    for (i, v) in e.verdicts.iter().enumerate() {
        by_line.entry(v.line()).or_default().push(i);
    }
    let unexplained = by_line.get(&None).map_or(&[][..], Vec::as_slice);
    let (echoes, roots): (Vec<usize>, Vec<usize>) =
        (unexplained.iter()).partition(|&&i| e.verdicts[i] == Verdict::Echo);
    // What no line explains is what a test acts on: it is shown first within the limit, though
    // printed last.
    let mut room = Room {
        left: limit.saturating_sub(roots.len()),
    };
    let mut out = String::new();
    for (i, l) in ledger.iter().enumerate() {
        let _ = writeln!(out, "{}", ledger_line(l));
        if let Some(ds) = by_line.get(&Some(i)) {
            room.print(&mut out, ds, |i| in_full(e, i));
        }
    }
    if !unexplained.is_empty() {
        room.left += roots.len().min(limit);
        let _ = writeln!(
            out,
            "not explained by the ledger: {} difference(s)",
            roots.len()
        );
        room.print(&mut out, &roots, |i| in_full(e, i));
        if !echoes.is_empty() {
            let _ = writeln!(
                out,
                "echoing those: {} difference(s) (equal once what they refer to is left out)",
                echoes.len()
            );
            room.print(&mut out, &echoes, |i| {
                let d = &e.diff.differences[i];
                format!("    {}: {}\n", d.change_name(), e.places[i])
            });
        }
    }
    out
}

/// How many more differences `--limit` lets through.
struct Room {
    left: usize,
}

impl Room {
    /// Prints differences `ds` (a pair of one entity's two sides once, as its first) while
    /// there is room, then how many were left out.
    fn print(&mut self, out: &mut String, ds: &[usize], text: impl Fn(usize) -> String) {
        for (n, &i) in ds.iter().enumerate() {
            if self.left == 0 {
                let _ = writeln!(out, "    … and {} more", ds.len() - n);
                return;
            }
            self.left -= 1;
            out.push_str(&text(i));
        }
    }
}

/// A difference in full under its group: its place (`, echoes …` for an echo), then its record
/// or changed fields; an entity only in A shown with its partner only in B as one change, the
/// partner then printing nothing.
fn in_full(e: &Explained, i: usize) -> String {
    let d = &e.diff.differences[i];
    match (e.partners[i], &d.change) {
        (Some(j), _) if j < i => String::new(),
        (Some(j), Change::OnlyInA(a)) => match &e.diff.differences[j].change {
            Change::OnlyInB(b) => Difference {
                what: d.what.clone(),
                change: Change::Changed {
                    a: a.clone(),
                    b: b.clone(),
                },
            }
            .render(&format!("{}, {}", e.places[i], e.places[j]), "    "),
            _ => d.render(&e.places[i], "    "),
        },
        _ => {
            let echo = match e.verdicts[i] {
                Verdict::Cascade(_) => " (echoes what the line explains)",
                _ => "",
            };
            d.render(&format!("{}{echo}", e.places[i]), "    ")
        }
    }
}

fn ledger_line(l: &Loss) -> String {
    format!("ledger: {}: {}: {}", l.kind.name(), l.place, l.message)
}

fn json(subject: &str, e: &Explained, ledger: &[Loss]) -> String {
    let differences: Vec<serde_json::Value> = (e.diff.differences.iter().enumerate())
        .map(|(i, d)| {
            let (a, b) = match &d.change {
                Change::Changed { a, b } => (Some(a), Some(b)),
                Change::OnlyInA(a) => (Some(a), None),
                Change::OnlyInB(b) => (None, Some(b)),
            };
            serde_json::json!({
                "change": d.change_name(),
                "what": d.what,
                "place": e.places[i],
                "a": a,
                "b": b,
                "explained_by": e.verdicts[i].line(),
                "echo": matches!(e.verdicts[i], Verdict::Cascade(_) | Verdict::Echo),
            })
        })
        .collect();
    let value = serde_json::json!({
        "compared": subject,
        "differences": differences,
        "unexplained": e.unexplained(),
        "ledger": ledger,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// One line per difference, sorted: its change, its entity's identity, a hash of its records
/// and the ledger line that explains it.
/// The first line of a baseline file: its format, which older files (a hash of the records per
/// line) do not have.
const BASELINE_FORMAT: &str = "# dwarv baseline 2";

/// One line per difference, none of which moves when the source gains or loses lines: the
/// change, the identity without positions, what changed (the fields of a changed entity, the
/// kind of one only on a side) and its verdict with numbers as `N`.
fn baseline_lines(e: &Explained, ledger: &[Loss]) -> Vec<String> {
    let mut lines: Vec<String> = (e.diff.differences.iter().zip(&e.verdicts))
        .map(|(d, v)| {
            let verdict = match v.line() {
                Some(i) => format!("explained: {}", numbers_as_n(&ledger_line(&ledger[i]))),
                None => "not explained".to_string(),
            };
            format!(
                "{}\t{}\t{}\t{verdict}",
                d.change_name(),
                without_positions(&d.what),
                what_changed(d)
            )
        })
        .collect();
    lines.sort();
    lines
}

/// The fields that differ between a changed entity's records (`aspace, bits`), or the first
/// word of the record of an entity only one side has (`pointer`).
fn what_changed(d: &Difference) -> String {
    let field = |item: &str| match item.split_once('=') {
        Some((name, _)) if !name.contains(['<', '"', ' ']) => name.to_string(),
        _ => item.split(' ').next().unwrap_or("").to_string(),
    };
    match &d.change {
        Change::Changed { a, b } => {
            let (ia, ib) = (split_items(a), split_items(b));
            let mut fields: Vec<String> = (ia.iter().filter(|x| !ib.contains(x)))
                .chain(ib.iter().filter(|x| !ia.contains(x)))
                .map(|x| field(x))
                .collect();
            fields.sort();
            fields.dedup();
            fields.join(", ")
        }
        Change::OnlyInA(x) | Change::OnlyInB(x) => {
            let record = x.split_once(' ').map_or(x.as_str(), |(_, rest)| rest);
            record.split(' ').next().unwrap_or("").to_string()
        }
    }
}

/// `text` with the line and column after each file reference (`<file "a.c">:12:5`) and every
/// `line=N` left out.
fn without_positions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c == '>' {
            out.push('>');
            i += 1 + position_len(&rest[1..]);
        } else if let Some(n) = rest.strip_prefix("line=").map(digits).filter(|n| *n > 0) {
            out.push_str("line=N");
            i += "line=".len() + n;
        } else {
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// How many ASCII digits `s` starts with.
fn digits(s: &str) -> usize {
    s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len()
}

/// The length of a `:LINE` or `:LINE:COLUMN` at the start of `s` (0 for none).
fn position_len(s: &str) -> usize {
    let mut len = 0;
    for _ in 0..2 {
        let n = s[len..].strip_prefix(':').map_or(0, digits);
        if n == 0 {
            break;
        }
        len += 1 + n;
    }
    len
}

/// `text` with every run of digits written `N`: counts and handles move as the source does.
fn numbers_as_n(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        match (c.is_ascii_digit(), in_number) {
            (true, false) => out.push('N'),
            (true, true) => {}
            (false, _) => out.push(c),
        }
        in_number = c.is_ascii_digit();
    }
    out
}

/// Exit 0 when the differences are the baseline's, else 1 with those that appeared and went
/// away.
fn against_baseline(path: &str, subject: &str, current: &[String]) -> Result<i32> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_string(),
        source,
    })?;
    if !text.starts_with(BASELINE_FORMAT) {
        return Err(Error::Usage(format!(
            "{path}: not a baseline of this dwarv (an older format, or another file): \
             --update-baseline writes it anew"
        )));
    }
    let mut expected: Vec<&str> = (text.lines())
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    expected.sort_unstable();
    let (appeared, gone) = multiset_difference(current, &expected);
    for l in &appeared {
        println!("appeared: {}", l.replace('\t', " · "));
    }
    for l in &gone {
        println!("went away: {}", l.replace('\t', " · "));
    }
    if appeared.is_empty() && gone.is_empty() {
        eprintln!(
            "dwarv: {subject}: the {} difference(s) of {path}",
            current.len()
        );
        return Ok(exit::OK);
    }
    eprintln!(
        "dwarv: {subject}: {} difference(s) appeared, {} went away since {path} \
         (--update-baseline writes the new set)",
        appeared.len(),
        gone.len()
    );
    Ok(exit::DIFFERENT)
}

/// The lines of sorted `a` not in sorted `b`, and of `b` not in `a` (as multisets).
fn multiset_difference<'x>(a: &'x [String], b: &[&'x str]) -> (Vec<&'x str>, Vec<&'x str>) {
    let (mut i, mut j) = (0, 0);
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        match (a.get(i).map(String::as_str), b.get(j).copied()) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) if x < y => {
                only_a.push(x);
                i += 1;
            }
            (Some(x), None) => {
                only_a.push(x);
                i += 1;
            }
            (_, Some(y)) => {
                only_b.push(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (only_a, only_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_keys_leave_positions_and_numbers_out() {
        assert_eq!(
            without_positions(r#"local "i" in=<block at=<file "a.c">:39:15> at=<file "a.c">:6"#),
            r#"local "i" in=<block at=<file "a.c">> at=<file "a.c">"#
        );
        assert_eq!(
            without_positions(r#"macro define name="X" line=28 scope_line=4 at=<file "b">"#),
            r#"macro define name="X" line=N scope_line=N at=<file "b">"#
        );
        // Not a position: a `>` followed by other text, `line=` without digits.
        assert_eq!(without_positions("a>:x line=y"), "a>:x line=y");
        assert_eq!(
            numbers_as_n("153 line rows not written: t25 (type)"),
            "N line rows not written: tN (type)"
        );
    }
}
