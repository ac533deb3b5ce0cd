//! The command line: the contract users' scripts and later issues rely on.
//!
//! Exit codes: 0 ok; 1 differences (diff, roundtrip) or findings (validate); 2 usage error or
//! bad input; 3 refused under `--strict`.

use clap::{Parser, Subcommand, ValueEnum};

use crate::back::spirv::{Base, WriteOptions};
use crate::convert::{self, Report, Target};
use crate::error::{exit, Error, Result};
use crate::input;
use crate::ir::diff::{diff, DiffOptions};
use crate::ir::{text, verify};
use crate::output::write_atomic;
use crate::spec::spirv::Flavour;

#[derive(Parser, Debug)]
#[command(
    name = "dwarv",
    version,
    about = "Translate source-level debug info between LLVM IR, DWARF, vISA tables and SPIR-V debug sets"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the IR text of an input (any format; `-` reads stdin).
    Dump {
        input: String,
        /// Write to a file instead of stdout.
        #[arg(short, long)]
        output: Option<String>,
        /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
        #[arg(long)]
        part: Option<String>,
    },
    /// Check an input against the IR rules; exit 1 with the findings when it breaks any.
    Validate {
        input: String,
        /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
        #[arg(long)]
        part: Option<String>,
    },
    /// Compare two inputs as IR: exit 0 when equal, 1 with the first differences when not.
    Diff {
        a: String,
        b: String,
        /// Compare only the declarative part (units, files, types, scopes, variables, macros,
        /// imports), ignoring code positions, line rows, scope runs and events.
        #[arg(long)]
        ignore_code_positions: bool,
        /// LLVM IR against the DWARF of the object clang made of it: first apply the
        /// normalisations for what LLVM's DWARF backend legitimately adds, drops and re-encodes
        /// (docs/dwarf.md); implies --ignore-code-positions.
        #[arg(long)]
        crosscheck: bool,
        /// How many differences to print.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// In a container (either input): only this part (`host`, a target id or its end).
        #[arg(long)]
        part: Option<String>,
    },
    /// Convert an input to IR text, SPIR-V, DWARF or vISA tables.
    Convert {
        input: String,
        #[arg(short, long)]
        output: String,
        /// A container's part to convert (`host`, a target id or its end, e.g. `gfx90a`);
        /// with `--into` a container, the device image whose debug info is replaced.
        #[arg(long)]
        part: Option<String>,
        /// The target; by default the output's extension decides (.dwir .spv .o/.elf/.debug/.dwo .visa).
        #[arg(long, value_enum)]
        to: Option<TargetArg>,
        /// The SPIR-V debug set to write (default: the input's own set for SPIR-V input,
        /// opencl100 for OpenCL and C, shader100 otherwise).
        #[arg(long, value_enum)]
        flavour: Option<FlavourArg>,
        /// Attach the debug info to this module or binary instead of writing it standalone.
        #[arg(long)]
        into: Option<String>,
        /// vISA tables input: take names, types and declaration lines from this source-level
        /// debug info of the same kernels (.ll .bc .spv .o .dwir), matched by function name.
        #[arg(long)]
        with: Option<String>,
        /// Refuse (exit 3) when the conversion would lose anything.
        #[arg(long)]
        strict: bool,
        /// SPIR-V rewritten in place into its own set: re-encode every entity through the IR
        /// (fresh ids, dwarv's forms) instead of ordering and repairing the module's own words.
        #[arg(long)]
        through_ir: bool,
        /// shader100 output: where the debug info has a reference cycle (a class whose methods
        /// take a pointer to it), refer forward with OpExtInstWithForwardRefsKHR
        /// (SPV_KHR_relaxed_extended_instruction) instead of a FlagFwdDecl stand-in of the
        /// composite. Vulkan wants VK_KHR_shader_relaxed_extended_instruction enabled for such a
        /// module; tools older than the extension refuse it. A module that declares the
        /// extension is written with it anyway.
        #[arg(long)]
        forward_refs: bool,
        /// Write a JSON report of the conversion (losses included).
        #[arg(long)]
        report: Option<String>,
        /// DWARF output: write every unit in this version (default: each unit's own, else 5).
        #[arg(long, value_parser = clap::value_parser!(u16).range(4..=5))]
        dwarf_version: Option<u16>,
        /// DWARF output: write AMD's heterogeneous-debugging extensions (default: when the IR holds them).
        #[arg(long, overrides_with = "no_amdgpu_ext")]
        amdgpu_ext: bool,
        /// DWARF output: never write AMD's extensions (what needs them is dropped, with a loss).
        #[arg(long)]
        no_amdgpu_ext: bool,
        /// DWARF output: encoding of AMD's operations (raw 0xe1–0xec, or DW_OP_LLVM_user).
        #[arg(long, value_enum, default_value = "raw")]
        amd_op_encoding: OpEncodingArg,
    },
    /// Convert many inputs in parallel: files, directories (recursive) and @LIST files (one path
    /// a line). Outputs mirror the input paths under OUT_DIR; exit 1 when any input failed.
    Batch {
        #[arg(required = true)]
        inputs: Vec<String>,
        /// The output directory.
        #[arg(short, long = "output", value_name = "OUT_DIR")]
        out_dir: std::path::PathBuf,
        #[arg(long, value_enum)]
        to: TargetArg,
        #[arg(long, value_enum)]
        flavour: Option<FlavourArg>,
        /// Worker threads (default: the machine's cores).
        #[arg(short, long)]
        jobs: Option<usize>,
        /// Write the JSON report (one record per input) here.
        #[arg(long)]
        report: Option<String>,
        /// Convert inputs whose output is already newer.
        #[arg(long)]
        force: bool,
        /// No progress bar: one plain line per input.
        #[arg(short, long)]
        quiet: bool,
        /// Take only shard K of N (0 <= K < N), chosen by a hash of each input's path.
        #[arg(long, value_name = "K/N")]
        shard: Option<crate::batch::Shard>,
        /// Fail conversions that would lose anything.
        #[arg(long)]
        strict: bool,
        /// Do not read outputs back for the report's coverage figures.
        #[arg(long)]
        no_stats: bool,
    },
    /// Work with batch reports.
    Report {
        #[command(subcommand)]
        command: ReportCommand,
    },
    /// Coverage figures of an input: debug records by kind, code with a line and a scope,
    /// variables with a location.
    Stats {
        input: String,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// A container's part (`host` or a device target id, or its end, e.g. `gfx90a`).
        #[arg(long)]
        part: Option<String>,
    },
    /// Split a SPIR-V module's debug info off: CODE is the module without it (plus a
    /// DebugBuildIdentifier and DebugStoragePath naming the sidecar), SIDECAR its DWARF.
    Strip {
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
    },
    /// Put a sidecar's debug info back into the module `strip` made (exit 2, and no output,
    /// when the sidecar belongs to another module).
    Attach {
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
    },
    /// Convert to a target and back, then diff against the input (exit as `diff`). A SPIR-V
    /// input goes `--via spirv` the way `convert` takes it in place (stderr says which way).
    Roundtrip {
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
    },
}

#[derive(Subcommand, Debug)]
enum ReportCommand {
    /// Join the reports of shards (`batch --shard K/N`) into one.
    Merge {
        #[arg(required = true)]
        reports: Vec<String>,
        #[arg(short, long)]
        output: String,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TargetArg {
    Ir,
    Spirv,
    Dwarf,
    Visa,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ViaArg {
    Spirv,
    Dwarf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OpEncodingArg {
    Raw,
    User,
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
        Command::Dump {
            input,
            output,
            part,
        } => {
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
        Command::Validate { input, part } => {
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
        Command::Diff {
            a,
            b,
            ignore_code_positions,
            crosscheck,
            limit,
            part,
        } => {
            if a == "-" && b == "-" {
                return Err(Error::Usage("only one of the two inputs can be `-`".into()));
            }
            let opts = DiffArgs {
                ignore_code_positions,
                crosscheck,
                limit,
            };
            let (ca, cb) = (is_container(&a), is_container(&b));
            if let (Some(p), false, false) = (&part, ca, cb) {
                return Err(Error::Usage(format!(
                    "--part {p}: neither {a} nor {b} is a container of device code"
                )));
            }
            let pa = input::parts(input::read(&a)?, part.as_deref().filter(|_| ca))?;
            let pb = input::parts(input::read(&b)?, part.as_deref().filter(|_| cb))?;
            if let ([x], [y]) = (&pa[..], &pb[..]) {
                return diff_one(x, y, &opts);
            }
            if pa.len() == 1 || pb.len() == 1 {
                let (path, many) = if pa.len() == 1 { (&b, &pb) } else { (&a, &pa) };
                let names: Vec<&str> = many.iter().map(part_name).collect();
                return Err(Error::Usage(format!(
                    "{path} holds {} parts ({}): pick one with --part",
                    names.len(),
                    names.join(", ")
                )));
            }
            // Containers: part by part, matched by name.
            let mut code = exit::OK;
            for x in &pa {
                match pb.iter().find(|y| part_name(y) == part_name(x)) {
                    Some(y) => {
                        println!("part {}:", part_name(x));
                        code = code.max(diff_one(x, y, &opts)?);
                    }
                    None => {
                        println!("part {} only in {a}", part_name(x));
                        code = exit::DIFFERENT;
                    }
                }
            }
            for y in pb
                .iter()
                .filter(|y| !pa.iter().any(|x| part_name(x) == part_name(y)))
            {
                println!("part {} only in {b}", part_name(y));
                code = exit::DIFFERENT;
            }
            Ok(code)
        }
        Command::Convert {
            input,
            output,
            part,
            to,
            flavour,
            into,
            with,
            strict,
            through_ir,
            forward_refs,
            report,
            dwarf_version,
            amdgpu_ext,
            no_amdgpu_ext,
            amd_op_encoding,
        } => {
            let opts = convert::Options {
                to: to.map(Into::into),
                flavour: flavour.map(Into::into),
                into,
                part,
                with,
                strict,
                through_ir,
                forward_refs,
                dwarf: convert::DwarfOptions {
                    version: dwarf_version,
                    amd_ext: match (amdgpu_ext, no_amdgpu_ext) {
                        (true, _) => Some(true),
                        (_, true) => Some(false),
                        _ => None,
                    },
                    op_encoding: match amd_op_encoding {
                        OpEncodingArg::Raw => crate::back::dwarf::OpEncoding::Raw,
                        OpEncodingArg::User => crate::back::dwarf::OpEncoding::User,
                    },
                },
                durability: Default::default(),
            };
            let mut rep = Report::new(&input, &output);
            // One conversion, then the process ends: what it is done with need not be freed.
            crate::background::leave_drops_to_exit();
            let result = convert::convert(&input, &output, &opts, &mut rep);
            // A loss that makes the whole output useless to its consumer is said, not only
            // reported.
            for l in rep.diagnostics.losses.iter() {
                if l.kind == crate::diag::LossKind::Unloadable {
                    eprintln!("dwarv: warning: {output}: {}", l.message);
                }
            }
            if let Err(e) = &result {
                rep.status = "failed";
                rep.error = Some(e.to_string());
            }
            if let Some(path) = report {
                write_json(&path, &rep)?;
            }
            result.map(|()| exit::OK)
        }
        Command::Batch {
            inputs,
            out_dir,
            to,
            flavour,
            jobs,
            report,
            force,
            quiet,
            shard,
            strict,
            no_stats,
        } => {
            let rep = crate::batch::run(&crate::batch::Options {
                inputs,
                out_dir,
                to: to.into(),
                flavour: flavour.map(Into::into),
                jobs,
                force,
                quiet,
                shard,
                strict,
                stats: !no_stats,
            })?;
            if let Some(path) = report {
                write_json(&path, &rep)?;
            }
            print!("{}", rep.summary());
            Ok(match rep.totals.failed {
                0 => exit::OK,
                _ => exit::DIFFERENT,
            })
        }
        Command::Report {
            command: ReportCommand::Merge { reports, output },
        } => {
            let parts = reports
                .iter()
                .map(|p| crate::batch::report::load(p).map(|r| (p.clone(), r)))
                .collect::<Result<Vec<_>>>()?;
            let merged = crate::batch::report::merge(&parts)?;
            write_json(&output, &merged)?;
            print!("{}", merged.summary());
            Ok(exit::OK)
        }
        Command::Stats { input, json, part } => {
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
        Command::Roundtrip {
            input,
            via,
            flavour,
            through_ir,
            forward_refs,
            part,
        } => roundtrip(
            &input,
            part.as_deref(),
            via,
            flavour.map(Into::into),
            Encode {
                through_ir,
                forward_refs,
            },
        ),
        Command::Strip {
            input,
            output,
            debug_out,
            part,
        } => {
            let losses = crate::sidecar::strip(&input, part.as_deref(), &output, &debug_out)?;
            print_losses(&losses);
            Ok(exit::OK)
        }
        Command::Attach {
            code,
            sidecar,
            output,
            flavour,
            keep_link,
        } => {
            let opts = crate::sidecar::AttachOptions {
                flavour: flavour.map(Into::into),
                keep_link,
            };
            let losses = crate::sidecar::attach(&code, &sidecar, &output, &opts)?;
            print_losses(&losses);
            Ok(exit::OK)
        }
    }
}

/// `diff`'s switches.
struct DiffArgs {
    ignore_code_positions: bool,
    crosscheck: bool,
    limit: usize,
}

/// The part an input split by `input::parts` is (`host`, a target id), or its whole name.
fn part_name(inp: &input::Input) -> &str {
    inp.name
        .rsplit_once(" [")
        .map_or(inp.name.as_str(), |(_, p)| p.trim_end_matches(']'))
}

/// Whether the file at `path` is a container (`--part` applies to it); `-` is not.
fn is_container(path: &str) -> bool {
    path != "-"
        && input::read(path)
            .is_ok_and(|i| crate::container::open(&i.bytes, &i.name).is_ok_and(|p| p.is_some()))
}

/// Diffs two inputs (one part each), exiting as `diff`.
fn diff_one(a: &input::Input, b: &input::Input, opts: &DiffArgs) -> Result<i32> {
    let (mut ma, mut mb) = (
        input::lower_verified(a)?.0.into_inner(),
        input::lower_verified(b)?.0.into_inner(),
    );
    if opts.crosscheck {
        if !crate::crosscheck::applies(&ma, &mb) {
            return Err(Error::Usage(
                "--crosscheck compares LLVM IR with DWARF: give one of each".into(),
            ));
        }
        let swap = ma.source.format != crate::ir::SourceFormat::Llvm;
        let (l, d) = if swap { (&mb, &ma) } else { (&ma, &mb) };
        let (l, d) = crate::crosscheck::normalise(l, d)
            .map_err(|e| Error::Usage(format!("--crosscheck: {e}")))?;
        (ma, mb) = if swap { (d, l) } else { (l, d) };
    }
    let d = diff(
        &ma,
        &mb,
        DiffOptions {
            ignore_code_positions: opts.ignore_code_positions || opts.crosscheck,
        },
    );
    if d.is_empty() {
        return Ok(exit::OK);
    }
    print!("{}", d.render(opts.limit));
    eprintln!(
        "dwarv: {} and {} differ ({} difference(s))",
        a.name,
        b.name,
        d.differences.len()
    );
    Ok(exit::DIFFERENT)
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

/// How `roundtrip --via spirv` encodes: `--through-ir`, `--forward-refs`.
#[derive(Clone, Copy)]
struct Encode {
    through_ir: bool,
    forward_refs: bool,
}

/// `roundtrip --via spirv`: convert to SPIR-V (in place for a SPIR-V input, standalone
/// otherwise), read the result back and diff it against the input; the ledger lines that
/// explain the losses follow the differences. Exits as `diff`.
fn roundtrip(
    input: &str,
    part: Option<&str>,
    via: ViaArg,
    flavour: Option<Flavour>,
    how: Encode,
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
    let d = diff(
        a,
        b,
        DiffOptions {
            ignore_code_positions: !code_compared,
        },
    );
    for l in &ledger.losses {
        let kind = serde_json::to_value(l.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        println!("ledger: {kind}: {}: {}", l.place, l.message);
    }
    if d.is_empty() {
        return Ok(exit::OK);
    }
    print!("{}", d.render(usize::MAX));
    eprintln!(
        "dwarv: {} changes through {}: {} difference(s), {} ledger line(s)",
        inp.name,
        via_name,
        d.differences.len(),
        ledger.losses.len()
    );
    Ok(exit::DIFFERENT)
}
