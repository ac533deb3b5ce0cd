//! `dwarv roundtrip`: an input converted to DWARF or SPIR-V and read back, then diffed against
//! itself, each difference under the ledger line that explains it (`verdict.rs`).

use clap::ValueEnum;

use super::verdict::{self, VerdictArgs};
use super::FlavourArg;
use crate::back::spirv::{Base, WriteOptions};
use crate::convert;
use crate::error::{Error, Result};
use crate::input;
use crate::ir::diff::explain::explained;
use crate::ir::diff::DiffOptions;
use crate::spec::spirv::Flavour;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    input: String,
    #[arg(long, value_enum)]
    via: ViaArg,
    #[arg(long, value_enum)]
    flavour: Option<FlavourArg>,
    /// A SPIR-V input into its own set through the IR, as `convert --through-ir` does.
    #[arg(long)]
    through_ir: bool,
    /// shader100: refer forward where the debug info has a cycle, as `convert --forward-refs`
    /// does.
    #[arg(long)]
    forward_refs: bool,
    /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
    #[arg(long)]
    part: Option<String>,
    #[command(flatten)]
    verdict: VerdictArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ViaArg {
    Spirv,
    Dwarf,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
        input,
        via,
        flavour,
        through_ir,
        forward_refs,
        part,
        verdict,
    } = args;
    roundtrip(
        &input,
        part.as_deref(),
        via,
        flavour.map(Into::into),
        Encode {
            through_ir,
            forward_refs,
        },
        &verdict,
    )
}

/// How `roundtrip --via spirv` encodes: `--through-ir`, `--forward-refs`.
#[derive(Clone, Copy)]
struct Encode {
    through_ir: bool,
    forward_refs: bool,
}

/// `roundtrip --via spirv`: convert to SPIR-V (in place for a SPIR-V input, standalone
/// otherwise), read the result back and diff it against the input, each difference under the
/// ledger line that explains it. Exits as `diff` (or as the baseline check).
fn roundtrip(
    input: &str,
    part: Option<&str>,
    via: ViaArg,
    flavour: Option<Flavour>,
    how: Encode,
    args: &VerdictArgs,
) -> Result<i32> {
    let Encode {
        through_ir,
        forward_refs,
    } = how;
    let inp = input::one(input::read(input)?, part)?;
    let (module, _) = input::lower_verified(&inp)?;

    // A standalone SPIR-V module has no code: the rows anchored to the input's code (line
    // table, scope runs, events) have no place in it, and are compared only where the output
    // holds that code (SPIR-V in place, DWARF).
    let mut code_compared = true;
    let (via_name, back, ledger) = match via {
        ViaArg::Dwarf => {
            if flavour.is_some() {
                return Err(Error::Usage("--flavour applies to --via spirv".into()));
            }
            if through_ir || forward_refs {
                return Err(Error::Usage(
                    "--through-ir and --forward-refs apply to --via spirv".into(),
                ));
            }
            let opts = crate::back::dwarf::WriteOptions::default();
            let (bytes, ledger) = crate::back::dwarf::write(&module, &opts)?;
            let name = format!("{} (via DWARF)", inp.name);
            let (back, _) = crate::front::dwarf::read(&bytes, &name)?;
            ("DWARF", back, ledger)
        }
        ViaArg::Spirv => {
            // A SPIR-V input is rewritten in place, as `convert` does: on its own words when
            // that can be vouched for, else through the IR.
            let in_place = input::detect(&inp.bytes) == Some(input::Format::Spirv);
            let words = match (in_place, through_ir, forward_refs) {
                (true, false, false) => Some(convert::rewrite_on_words(&inp.bytes, flavour)),
                (true, true, _) => Some(Err(crate::spirv::own_set::Declined("--through-ir"))),
                (true, _, true) => Some(Err(crate::spirv::own_set::Declined("--forward-refs"))),
                (false, _, _) => None,
            };
            if let Some(attempt) = &words {
                eprintln!(
                    "dwarv: {}: in place, {}",
                    inp.name,
                    convert::in_place_note(attempt)
                );
            }
            let flavour = flavour.unwrap_or_else(|| convert::default_flavour(&module));
            let base = match in_place {
                true => Base::OwnCode(&inp.bytes),
                false => Base::Standalone,
            };
            code_compared = in_place;
            let (bytes, ledger, flavour) = match words {
                Some(Ok(done)) => {
                    let mut bytes = Vec::with_capacity(done.output_len(&inp.bytes));
                    done.write_to(&inp.bytes, &mut bytes)
                        .map_err(|source| Error::Io {
                            path: inp.name.clone(),
                            source,
                        })?;
                    (bytes, done.diagnostics, done.flavour)
                }
                _ => {
                    let wopts = WriteOptions {
                        flavour,
                        base,
                        forward_refs,
                    };
                    let (bytes, ledger) = crate::back::spirv::write(&module, &wopts)?;
                    (bytes, ledger, flavour)
                }
            };
            let name = format!("{} (via {})", inp.name, flavour.cli_name());
            let (back, _) = crate::front::spirv::read(&bytes, &name)?;
            (flavour.cli_name(), back, ledger)
        }
    };
    if !code_compared {
        eprintln!(
            "dwarv: {}: standalone {via_name}: its line rows, scope runs and events have no code \
             to be anchored to and are not compared (the ledger counts them)",
            inp.name
        );
    }
    // Every SPIR-V set joins a file's directory into its name (ledgered): compare paths.
    let joined = match via {
        ViaArg::Spirv if module.files.values().any(|f| f.directory.is_some()) => {
            let join = |m: &crate::ir::Module| {
                crate::back::spirv::paths_as_written(m)
                    .map_err(|e| Error::Usage(format!("cannot compare file paths: {e}")))
            };
            Some((join(&module)?, join(&back)?))
        }
        _ => None,
    };
    let (a, b): (&crate::ir::Module, &crate::ir::Module) = match &joined {
        Some((a, b)) => (a, b),
        None => (&module, &back),
    };
    let e = explained(
        a,
        b,
        DiffOptions {
            ignore_code_positions: !code_compared,
        },
        &ledger.losses,
    );
    let subject = format!("{} changes through {via_name}", inp.name);
    verdict::report(&subject, &e, &ledger.losses, args)
}
