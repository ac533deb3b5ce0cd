//! `dwarv completions SHELL`: the shell's completion script for dwarv, from the command line's
//! own definition (clap_complete), on stdout.

use clap::CommandFactory;

use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let mut command = super::Cli::command();
    clap_complete::generate(args.shell, &mut command, "dwarv", &mut std::io::stdout());
    Ok(exit::OK)
}
