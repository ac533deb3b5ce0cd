//! `dwarv stats`: an input's coverage figures (`crate::stats`) as a table or JSON, part by part
//! for a container.

use super::{part_name, write_json};
use crate::error::{exit, Result};
use crate::input;
use crate::output::write_atomic;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    input: String,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
    #[arg(long)]
    part: Option<String>,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args { input, json, part } = args;
    let parts = input::parts(input::read(&input)?, part.as_deref())?;
    if let [inp] = &parts[..] {
        let st = crate::stats::of_input(inp)?;
        return match json {
            true => write_json("-", &st),
            false => write_atomic("-", st.render(&inp.name).as_bytes()),
        }
        .map(|()| exit::OK);
    }
    let mut all = Vec::new();
    for inp in &parts {
        all.push((inp, crate::stats::of_input(inp)?));
    }
    if json {
        let parts: Vec<_> = all
            .iter()
            .map(|(inp, st)| serde_json::json!({ "part": part_name(inp), "stats": st }))
            .collect();
        write_json("-", &serde_json::json!({ "input": input, "parts": parts }))?;
    } else {
        let text: String = all.iter().map(|(inp, st)| st.render(&inp.name)).collect();
        write_atomic("-", text.as_bytes())?;
    }
    Ok(exit::OK)
}
