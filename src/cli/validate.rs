//! `dwarv validate`: an input's findings against the IR rules.

use crate::error::{exit, Result};
use crate::input;
use crate::ir::verify;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    input: String,
    /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
    #[arg(long)]
    part: Option<String>,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args { input, part } = args;
    let mut code = exit::OK;
    for inp in input::parts(input::read(&input)?, part.as_deref())? {
        let module = input::lower(&inp)?;
        let findings = verify::verify(&module);
        if findings.is_empty() {
            println!("{}: valid", inp.name);
        } else {
            for f in &findings {
                println!("{}: {f}", inp.name);
            }
            eprintln!("dwarv: {}: {} finding(s)", inp.name, findings.len());
            code = exit::DIFFERENT;
        }
    }
    Ok(code)
}
