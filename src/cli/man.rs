//! `dwarv man`: manual pages from the command line's own definition (clap_mangen): dwarv(1) on
//! stdout, or with `--dir DIR` dwarv.1 and a dwarv-VERB.1 for every verb written there.

use clap::CommandFactory;

use crate::error::{exit, Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// Write dwarv.1 and one dwarv-VERB.1 per verb into this directory (e.g.
    /// ~/.local/share/man/man1) instead of printing dwarv(1).
    #[arg(long, value_name = "DIR")]
    dir: Option<std::path::PathBuf>,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let command = super::Cli::command();
    let Some(dir) = args.dir else {
        render(&command, &mut std::io::stdout().lock(), "-")?;
        return Ok(exit::OK);
    };
    std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut pages = vec![("dwarv".to_string(), command.clone())];
    for verb in command.get_subcommands() {
        let name = format!("dwarv-{}", verb.get_name());
        pages.push((name.clone(), verb.clone().name(name)));
    }
    for (name, page) in pages {
        let path = dir.join(format!("{name}.1"));
        let mut text = Vec::new();
        render(&page, &mut text, &path.display().to_string())?;
        crate::output::write_atomic(&path.display().to_string(), &text)?;
    }
    Ok(exit::OK)
}

fn render(command: &clap::Command, out: &mut dyn std::io::Write, path: &str) -> Result<()> {
    clap_mangen::Man::new(command.clone())
        .render(out)
        .map_err(|source| Error::Io {
            path: path.to_string(),
            source,
        })
}
