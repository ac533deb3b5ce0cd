//! The command line: the contract users' scripts and later issues rely on. Each verb is a file
//! of its own (its arguments, `Args`, and `run`); this one parses and hands over.
//!
//! Exit codes: 0 ok; 1 differences (diff, roundtrip) or findings (validate); 2 usage error or
//! bad input; 3 refused under `--strict`.

use clap::{Parser, Subcommand, ValueEnum};

use crate::convert::Target;
use crate::error::{exit, Error, Result};
use crate::input;
use crate::output::write_atomic;
use crate::spec::spirv::Flavour;

mod attach;
mod batch;
mod completions;
mod convert;
mod crosscheck;
mod diff;
mod dump;
mod man;
mod report;
mod roundtrip;
mod stats;
mod strip;
#[cfg(feature = "llvm")]
mod translate;
mod validate;
mod verdict;

#[derive(Parser, Debug)]
#[command(
    name = "dwarv",
    version,
    about = "Translate source-level debug info between LLVM IR, DWARF, vISA tables and SPIR-V debug sets"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the IR text of an input (any format; `-` reads stdin).
    Dump(dump::Args),
    /// Check an input against the IR rules; exit 1 with the findings when it breaks any.
    Validate(validate::Args),
    /// Compare two inputs as IR: exit 0 when equal, 1 with the first differences when not.
    Diff(diff::Args),
    /// Convert an input to IR text, SPIR-V, DWARF or vISA tables.
    Convert(convert::Args),
    /// Translate an LLVM module to SPIR-V with its debug info, from one parse: the SPIR-V
    /// translator's library (or program) translates the code, dwarv writes the debug info. Takes
    /// the translator's flags (`-o`, `--spirv-ext`, `--spirv-max-version`,
    /// `--spirv-debug-info-version`…) in their meaning.
    #[cfg(feature = "llvm")]
    Translate(translate::Args),
    /// Convert many inputs in parallel: files, directories (recursive) and @LIST files (one path
    /// a line). Outputs mirror the input paths under OUT_DIR; exit 1 when any input failed.
    Batch(batch::Args),
    /// Work with batch reports.
    Report(report::Args),
    /// Coverage figures of an input: debug records by kind, code with a line and a scope,
    /// variables with a location.
    Stats(stats::Args),
    /// Split a SPIR-V module's debug info off: CODE is the module without it (plus a
    /// DebugBuildIdentifier and DebugStoragePath naming the sidecar), SIDECAR its DWARF.
    Strip(strip::Args),
    /// Put a sidecar's debug info back into the module `strip` made (exit 2, and no output,
    /// when the sidecar belongs to another module).
    Attach(attach::Args),
    /// Convert to a target and back, then diff against the input (exit as `diff`). A SPIR-V
    /// input goes `--via spirv` the way `convert` takes it in place (stderr says which way).
    Roundtrip(roundtrip::Args),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the manual page dwarv(1), or write every verb's page into a directory.
    Man(man::Args),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TargetArg {
    Ir,
    Spirv,
    Dwarf,
    Visa,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FlavourArg {
    Debuginfo,
    Opencl100,
    Shader100,
    SpirvDebug,
    Shader200,
}

impl From<FlavourArg> for Flavour {
    fn from(f: FlavourArg) -> Flavour {
        match f {
            FlavourArg::Debuginfo => Flavour::DebugInfo,
            FlavourArg::Opencl100 => Flavour::OpenCl100,
            FlavourArg::Shader100 => Flavour::Shader100,
            FlavourArg::SpirvDebug => Flavour::SpirvDebug,
            FlavourArg::Shader200 => Flavour::Shader200,
        }
    }
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Ir => Target::Ir,
            TargetArg::Spirv => Target::Spirv,
            TargetArg::Dwarf => Target::Dwarf,
            TargetArg::Visa => Target::Visa,
        }
    }
}

/// Runs the CLI with the process arguments; returns the exit code.
pub fn main() -> i32 {
    run(std::env::args_os())
}

/// Runs the CLI with the given arguments (the first is the program name).
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    #[allow(unused_mut)]
    let mut args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    #[cfg(feature = "llvm")]
    if args.get(1).is_some_and(|verb| verb == "translate") {
        args = args
            .into_iter()
            .map(translate::translator_spelling)
            .collect();
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            #[cfg(feature = "llvm")]
            if e.kind() == clap::error::ErrorKind::DisplayVersion {
                print!("{}", crate::front::llvm::readers_text());
            }
            return if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::OK
            };
        }
    };
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dwarv: {e}");
            e.exit_code()
        }
    }
}

fn dispatch(command: Command) -> Result<i32> {
    match command {
        Command::Dump(args) => dump::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Convert(args) => convert::run(args),
        #[cfg(feature = "llvm")]
        Command::Translate(args) => translate::run(args),
        Command::Batch(args) => batch::run(args),
        Command::Report(args) => report::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Strip(args) => strip::run(args),
        Command::Attach(args) => attach::run(args),
        Command::Roundtrip(args) => roundtrip::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    }
}

/// The part an input split by `input::parts` is (`host`, a target id), or its whole name.
fn part_name(inp: &input::Input) -> &str {
    inp.name
        .rsplit_once(" [")
        .map_or(inp.name.as_str(), |(_, p)| p.trim_end_matches(']'))
}

/// The one summary line of a conversion that lost anything: what the output kept of the
/// functions, line rows, variables and types read, the losses by kind (and how many of them no
/// output of the target avoids), and where they are listed.
fn say_losses(
    name: &str,
    d: &crate::diag::Diagnostics,
    kept: Option<&crate::diag::Kept>,
    report: Option<&str>,
) {
    use crate::diag::LossKind;
    if d.losses.is_empty() {
        return;
    }
    let kind = |k: LossKind| match k {
        LossKind::Unknown => "not understood",
        k => k.name(),
    };
    let kinds: Vec<String> = (d.by_kind().into_iter())
        .map(|(k, n)| format!("{n} {}", kind(k)))
        .collect();
    let inherent = d.losses.iter().filter(|l| l.inherent).count();
    let inherent = match inherent {
        0 => String::new(),
        n => format!("; {n} the target cannot hold"),
    };
    let kept = match kept.and_then(crate::diag::Kept::summary) {
        Some(kept) => format!("kept {kept}; "),
        None => String::new(),
    };
    let n = d.losses.len();
    eprintln!(
        "dwarv: {name}: {kept}{n} {} ({}{inherent}); {}",
        if n == 1 { "loss" } else { "losses" },
        kinds.join(", "),
        match report {
            Some("-") => "the report lists them".to_string(),
            Some(path) => format!("{path} lists them"),
            None => "--report FILE lists them".to_string(),
        }
    );
}

/// The losses of a conversion, one `dwarv: loss: …` line each on stderr.
fn print_losses(d: &crate::diag::Diagnostics) {
    for l in &d.losses {
        eprintln!("dwarv: loss: {}: {}", l.place, l.message);
    }
}

/// Writes a value as pretty JSON, atomically (`-`: stdout).
fn write_json(path: &str, value: &impl serde::Serialize) -> Result<()> {
    let mut json = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::Usage(format!("cannot encode the report: {e}")))?;
    json.push(b'\n');
    write_atomic(path, &json)
}
