//! `dwarv strip`: a SPIR-V module's debug info split off into a DWARF sidecar
//! (`crate::sidecar::strip`).

use super::print_losses;
use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    input: String,
    /// The stripped module.
    #[arg(short, long)]
    output: String,
    /// The DWARF sidecar.
    #[arg(long)]
    debug_out: String,
    /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
    #[arg(long)]
    part: Option<String>,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        input,
        output,
        debug_out,
        part,
    } = args;
    let losses = crate::sidecar::strip(&input, part.as_deref(), &output, &debug_out)?;
    print_losses(&losses);
    Ok(exit::OK)
}
