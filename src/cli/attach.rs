//! `dwarv attach`: a sidecar's debug info put back into the module `strip` made
//! (`crate::sidecar::attach`).

use super::{print_losses, FlavourArg};
use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    code: String,
    sidecar: String,
    #[arg(short, long)]
    output: String,
    /// The debug set to write (default: the one the module had when it was stripped).
    #[arg(long, value_enum)]
    flavour: Option<FlavourArg>,
    /// Keep the link records (build identifier, storage path) in the output.
    #[arg(long)]
    keep_link: bool,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        code,
        sidecar,
        output,
        flavour,
        keep_link,
    } = args;
    let opts = crate::sidecar::AttachOptions {
        flavour: flavour.map(Into::into),
        keep_link,
    };
    let losses = crate::sidecar::attach(&code, &sidecar, &output, &opts)?;
    print_losses(&losses);
    Ok(exit::OK)
}
