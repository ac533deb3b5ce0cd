//! `dwarv batch`: many inputs converted in parallel (`crate::batch`), with a summary and an
//! optional JSON report.

use super::{write_json, FlavourArg, TargetArg};
use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    #[arg(required = true)]
    inputs: Vec<String>,
    /// The output directory.
    #[arg(short, long = "output", value_name = "OUT_DIR")]
    out_dir: std::path::PathBuf,
    #[arg(long, value_enum)]
    to: TargetArg,
    #[arg(long, value_enum)]
    flavour: Option<FlavourArg>,
    /// Worker threads (default: the machine's cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Write the JSON report (one record per input) here.
    #[arg(long)]
    report: Option<String>,
    /// Convert inputs whose output is already newer.
    #[arg(long)]
    force: bool,
    /// No progress bar and no line per input: only failures, then the summary.
    #[arg(short, long)]
    quiet: bool,
    /// Take only shard K of N (0 <= K < N), chosen by a hash of each input's path.
    #[arg(long, value_name = "K/N")]
    shard: Option<crate::batch::Shard>,
    /// Fail conversions that would lose anything.
    #[arg(long)]
    strict: bool,
    /// Do not read outputs back for the report's coverage figures.
    #[arg(long)]
    no_stats: bool,
    /// Convert inputs without debug info instead of failing them.
    #[arg(long)]
    allow_no_debug_info: bool,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        inputs,
        out_dir,
        to,
        flavour,
        jobs,
        report,
        force,
        quiet,
        shard,
        strict,
        no_stats,
        allow_no_debug_info,
    } = args;
    let rep = crate::batch::run(&crate::batch::Options {
        inputs,
        out_dir,
        to: to.into(),
        flavour: flavour.map(Into::into),
        jobs,
        force,
        quiet,
        shard,
        strict,
        stats: !no_stats,
        allow_no_debug_info,
    })?;
    if let Some(path) = report {
        write_json(&path, &rep)?;
    }
    print!("{}", rep.summary());
    Ok(match rep.totals.failed {
        0 => exit::OK,
        _ => exit::DIFFERENT,
    })
}
