//! `dwarv report`: work with batch reports (`report merge`: the shards' reports joined).

use super::write_json;
use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    #[command(subcommand)]
    command: ReportCommand,
}

#[derive(clap::Subcommand, Debug)]
enum ReportCommand {
    /// Join the reports of shards (`batch --shard K/N`) into one.
    Merge {
        #[arg(required = true)]
        reports: Vec<String>,
        #[arg(short, long)]
        output: String,
    },
}

pub(super) fn run(args: Args) -> Result<i32> {
    let ReportCommand::Merge { reports, output } = args.command;
    let parts = reports
        .iter()
        .map(|p| crate::batch::report::load(p).map(|r| (p.clone(), r)))
        .collect::<Result<Vec<_>>>()?;
    let merged = crate::batch::report::merge(&parts)?;
    write_json(&output, &merged)?;
    print!("{}", merged.summary());
    Ok(exit::OK)
}
