//! `dwarv diff`: two inputs compared as IR, part by part for containers, optionally after the
//! LLVM ⇄ DWARF normalisations (`--crosscheck`, `crosscheck.rs`).

use super::verdict::{self, VerdictArgs};
use super::{crosscheck, part_name};
use crate::error::{exit, Error, Result};
use crate::input;
use crate::ir::diff::{diff, explain, DiffOptions};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    a: String,
    b: String,
    /// Compare only the declarative part (units, files, types, scopes, variables, macros,
    /// imports), ignoring code positions, line rows, scope runs and events.
    #[arg(long)]
    ignore_code_positions: bool,
    /// LLVM IR against the DWARF of the object clang made of it: first apply the
    /// normalisations for what LLVM's DWARF backend legitimately adds, drops and re-encodes
    /// (docs/dwarf.md); implies --ignore-code-positions.
    #[arg(long)]
    crosscheck: bool,
    /// In a container (either input): only this part (`host`, a target id or its end).
    #[arg(long)]
    part: Option<String>,
    /// The report (`--report FILE` of `convert`) of the conversion that made B of A: each
    /// difference is printed under the ledger line that explains it.
    #[arg(long, value_name = "REPORT")]
    ledger: Option<String>,
    #[command(flatten)]
    verdict: VerdictArgs,
}

/// `diff`'s switches.
struct DiffArgs {
    ignore_code_positions: bool,
    crosscheck: bool,
    ledger: Option<Vec<crate::diag::Loss>>,
    verdict: VerdictArgs,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        a,
        b,
        ignore_code_positions,
        crosscheck,
        part,
        ledger,
        verdict,
    } = args;
    if a == "-" && b == "-" {
        return Err(Error::Usage("only one of the two inputs can be `-`".into()));
    }
    let opts = DiffArgs {
        ignore_code_positions,
        crosscheck,
        ledger: ledger.as_deref().map(read_ledger).transpose()?,
        verdict,
    };
    let (ca, cb) = (is_container(&a), is_container(&b));
    if let (Some(p), false, false) = (&part, ca, cb) {
        return Err(Error::Usage(format!(
            "--part {p}: neither {a} nor {b} is a container of device code"
        )));
    }
    let pa = input::parts(input::read(&a)?, part.as_deref().filter(|_| ca))?;
    let pb = input::parts(input::read(&b)?, part.as_deref().filter(|_| cb))?;
    if let ([x], [y]) = (&pa[..], &pb[..]) {
        return diff_one(x, y, &opts);
    }
    if pa.len() == 1 || pb.len() == 1 {
        let (path, many) = if pa.len() == 1 { (&b, &pb) } else { (&a, &pa) };
        let names: Vec<&str> = many.iter().map(part_name).collect();
        return Err(Error::Usage(format!(
            "{path} holds {} parts ({}): pick one with --part",
            names.len(),
            names.join(", ")
        )));
    }
    // Containers: part by part, matched by name.
    let mut code = exit::OK;
    for x in &pa {
        match pb.iter().find(|y| part_name(y) == part_name(x)) {
            Some(y) => {
                println!("part {}:", part_name(x));
                code = code.max(diff_one(x, y, &opts)?);
            }
            None => {
                println!("part {} only in {a}", part_name(x));
                code = exit::DIFFERENT;
            }
        }
    }
    for y in pb
        .iter()
        .filter(|y| !pa.iter().any(|x| part_name(x) == part_name(y)))
    {
        println!("part {} only in {b}", part_name(y));
        code = exit::DIFFERENT;
    }
    Ok(code)
}

/// Whether the file at `path` is a container (`--part` applies to it); `-` is not.
fn is_container(path: &str) -> bool {
    path != "-"
        && input::read(path)
            .is_ok_and(|i| crate::container::open(&i.bytes, &i.name).is_ok_and(|p| p.is_some()))
}

/// Diffs two inputs (one part each), exiting as `diff`.
fn diff_one(a: &input::Input, b: &input::Input, opts: &DiffArgs) -> Result<i32> {
    let (mut ma, mut mb) = (
        input::lower_verified(a)?.0.into_inner(),
        input::lower_verified(b)?.0.into_inner(),
    );
    if opts.crosscheck {
        if !crosscheck::applies(&ma, &mb) {
            return Err(Error::Usage(
                "--crosscheck compares LLVM IR with DWARF: give one of each".into(),
            ));
        }
        let swap = ma.source.format != crate::ir::SourceFormat::Llvm;
        let (l, d) = if swap { (&mb, &ma) } else { (&ma, &mb) };
        let (l, d) =
            crosscheck::normalise(l, d).map_err(|e| Error::Usage(format!("--crosscheck: {e}")))?;
        (ma, mb) = if swap { (d, l) } else { (l, d) };
    }
    let options = DiffOptions {
        ignore_code_positions: opts.ignore_code_positions || opts.crosscheck,
    };
    if opts.ledger.is_some() || opts.verdict.wants_verdicts() {
        let ledger = opts.ledger.as_deref().unwrap_or_default();
        let e = explain::explained(&ma, &mb, options, ledger);
        let subject = format!("{} and {} differ", a.name, b.name);
        return verdict::report(&subject, &e, ledger, &opts.verdict);
    }
    let d = diff(&ma, &mb, options);
    if d.is_empty() {
        return Ok(exit::OK);
    }
    print!("{}", d.render(opts.verdict.limit));
    eprintln!(
        "dwarv: {} and {} differ ({} difference(s))",
        a.name,
        b.name,
        d.differences.len()
    );
    Ok(exit::DIFFERENT)
}

/// The ledger of a `--report` file: its `diagnostics.losses`.
fn read_ledger(path: &str) -> Result<Vec<crate::diag::Loss>> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_string(),
        source,
    })?;
    #[derive(serde::Deserialize)]
    struct Report {
        diagnostics: crate::diag::Diagnostics,
    }
    serde_json::from_slice::<Report>(&bytes)
        .map(|r| r.diagnostics.losses)
        .map_err(|e| Error::Usage(format!("{path}: not a dwarv report (--report): {e}")))
}
