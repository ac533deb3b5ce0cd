//! `dwarv dump`: an input's IR text, part by part for a container.

use super::part_name;
use crate::error::{exit, Result};
use crate::input;
use crate::ir::text;
use crate::output::write_atomic;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    input: String,
    /// Write to a file instead of stdout.
    #[arg(short, long)]
    output: Option<String>,
    /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
    #[arg(long)]
    part: Option<String>,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        input,
        output,
        part,
    } = args;
    let parts = input::parts(input::read(&input)?, part.as_deref())?;
    let several = parts.len() > 1;
    let mut text = String::new();
    for p in &parts {
        let (module, _) = input::lower_verified(p)?;
        if several {
            text.push_str(&format!("; part {}\n", part_name(p)));
        }
        text.push_str(&text::print(&module));
    }
    write_atomic(output.as_deref().unwrap_or("-"), text.as_bytes())?;
    Ok(exit::OK)
}
