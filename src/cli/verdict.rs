//! What `roundtrip` and `diff --ledger` print of a diff whose differences the ledger explains
//! (`ir::diff::explain`): each difference under the ledger line that explains it, those no line
//! explains last; the same as JSON; or a check against a baseline file of expected differences.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::diag::Loss;
use crate::error::{exit, Error, Result};
use crate::ir::diff::explain::{Explained, Verdict};
use crate::ir::diff::{Change, Difference};

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
            let mut text = format!("# dwarv: {subject}\n");
            for l in &current {
                let _ = writeln!(text, "{l}");
            }
            crate::output::write_atomic(path, text.as_bytes())?;
            eprintln!(
                "dwarv: {path}: {} difference(s) written as the baseline",
                current.len()
            );
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
fn baseline_lines(e: &Explained, ledger: &[Loss]) -> Vec<String> {
    let mut lines: Vec<String> = (e.diff.differences.iter().zip(&e.verdicts))
        .map(|(d, v)| {
            let verdict = match v.line() {
                Some(i) => format!("explained: {}", ledger_line(&ledger[i])),
                None => "not explained".to_string(),
            };
            format!(
                "{}\t{}\t{:016x}\t{verdict}",
                d.change_name(),
                d.what,
                records_hash(d)
            )
        })
        .collect();
    lines.sort();
    lines
}

fn records_hash(d: &Difference) -> u64 {
    let text = match &d.change {
        Change::Changed { a, b } => format!("{a}\n{b}"),
        Change::OnlyInA(x) | Change::OnlyInB(x) => x.clone(),
    };
    crate::hash::fnv1a(crate::hash::FNV_OFFSET_BASIS, text.bytes())
}

/// Exit 0 when the differences are the baseline's, else 1 with those that appeared and went
/// away.
fn against_baseline(path: &str, subject: &str, current: &[String]) -> Result<i32> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_string(),
        source,
    })?;
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
