//! `dwarv translate`: an LLVM module to SPIR-V with its debug info, in place of the SPIR-V
//! translator's forward direction (`llvm-spirv IN.bc -o OUT.spv`), its flags meaning the same
//! (`crate::build_step::translate`).

use clap::ValueEnum;

use super::write_json;
use crate::build_step::{translate, TranslateOptions, TranslatorFlags};
use crate::convert::{Report, Target};
use crate::error::{exit, Error, Result};
use crate::output::{write_file_with, Durability};
use crate::spec::spirv::Flavour;

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    /// The LLVM module (.bc or .ll; `-` reads stdin).
    input: String,
    /// The SPIR-V module to write (`-`: stdout); by default the input's name with `.spv`.
    #[arg(short, long)]
    output: Option<String>,
    /// The translator's extensions, as its own flag: `+all`, `-all`, `+SPV_X`, `-SPV_X`,
    /// comma-separated, applied left to right.
    #[arg(long, value_name = "+EXT,-EXT")]
    spirv_ext: Option<String>,
    /// The highest SPIR-V version the translator may write (1.0 to 1.4).
    #[arg(long, value_name = "1.N")]
    spirv_max_version: Option<String>,
    /// The debug set to write, by the translator's names (default: ocl-100 for OpenCL and
    /// `spir` modules, nonsemantic-shader-100 otherwise).
    #[arg(long, value_enum, conflicts_with = "flavour")]
    spirv_debug_info_version: Option<DebugInfoVersion>,
    /// The debug set to write, by dwarv's names (as `convert --flavour`).
    #[arg(long, value_enum)]
    flavour: Option<super::FlavourArg>,
    /// Translate calls to unknown intrinsics (those whose names start with a listed prefix;
    /// all of them without a list) as calls of external functions.
    #[arg(long, value_name = "PREFIX,…", num_args = 0..=1, default_missing_value = "")]
    spirv_allow_unknown_intrinsics: Option<String>,
    /// Floating-point contraction: on (as the module's fmuladd and `contract` flags say), off,
    /// fast.
    #[arg(long, value_name = "on|off|fast")]
    spirv_fp_contract: Option<String>,
    /// Run this translator program (a path, or a name on PATH) on the stripped module instead
    /// of the translator's library; also what runs by default for an LLVM this dwarv has no
    /// translator library of (`llvm-spirv-N`, then `llvm-spirv-dpcpp`, then `llvm-spirv`).
    #[arg(long, value_name = "PATH")]
    translator: Option<std::path::PathBuf>,
    /// Refuse (exit 3, no output) when anything of the debug info could not be written exactly.
    #[arg(long)]
    strict: bool,
    /// NonSemantic output: refer forward where the debug info has a cycle (see `convert
    /// --forward-refs`).
    #[arg(long)]
    forward_refs: bool,
    /// Translate a module without debug info (its code alone) instead of refusing it.
    #[arg(long)]
    allow_no_debug_info: bool,
    /// Write a JSON report of the translation (losses included).
    #[arg(long)]
    report: Option<String>,
    /// Say nothing on stderr of what could not be written exactly (the report still lists it).
    #[arg(long, short)]
    quiet: bool,
    /// The translator's text output: not written by dwarv (disassemble with spirv-dis).
    #[arg(long, hide = true)]
    spirv_text: bool,
    /// llvm-spirv's other modes (`-to-text`, `-to-binary`, `-r`): refused with what to use.
    #[arg(long = "to-text", hide = true)]
    to_text: bool,
    #[arg(long = "to-binary", hide = true)]
    to_binary: bool,
    #[arg(short = 'r', long = "reverse", hide = true)]
    reverse: bool,
    /// Print where the time went (LLVM's read, lowering, the translator, weaving) on stderr.
    #[arg(long)]
    time: bool,
}

/// `--spirv-debug-info-version`, the translator's names of the sets.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum DebugInfoVersion {
    #[value(name = "ocl-100")]
    Ocl100,
    #[value(name = "nonsemantic-shader-100")]
    NonsemanticShader100,
    #[value(name = "nonsemantic-shader-200")]
    NonsemanticShader200,
    Legacy,
}

impl From<DebugInfoVersion> for Flavour {
    fn from(v: DebugInfoVersion) -> Flavour {
        match v {
            DebugInfoVersion::Ocl100 => Flavour::OpenCl100,
            DebugInfoVersion::NonsemanticShader100 => Flavour::Shader100,
            DebugInfoVersion::NonsemanticShader200 => Flavour::Shader200,
            DebugInfoVersion::Legacy => Flavour::SpirvDebug,
        }
    }
}

/// The translator's single-dash spelling of its long flags (`-spirv-ext=…`, as LLVM's option
/// parser takes them) in the double-dash form the parser here reads.
pub(super) fn translator_spelling(arg: std::ffi::OsString) -> std::ffi::OsString {
    match arg.to_str() {
        Some(a) if a.starts_with("-spirv-") || matches!(a, "-to-text" | "-to-binary") => {
            format!("-{a}").into()
        }
        _ => arg,
    }
}

/// The output's default name, as the translator makes it: the input's with `.spv`.
fn default_output(input: &str) -> String {
    if input == "-" {
        return "-".into();
    }
    let path = std::path::Path::new(input);
    path.with_extension("spv").to_string_lossy().into_owned()
}

pub(super) fn run(args: Args) -> Result<i32> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.input));
    let opts = TranslateOptions {
        flavour: (args.spirv_debug_info_version.map(Into::into)).or(args.flavour.map(Into::into)),
        flags: TranslatorFlags {
            ext: args.spirv_ext.clone(),
            max_version: args.spirv_max_version.clone(),
            allow_unknown_intrinsics: args.spirv_allow_unknown_intrinsics.clone(),
            fp_contract: args.spirv_fp_contract.clone(),
        },
        translator: args.translator.clone(),
        forward_refs: args.forward_refs,
        allow_no_debug_info: args.allow_no_debug_info,
    };
    crate::background::leave_drops_to_exit();
    let mut rep = Report::new(&args.input, &output);
    rep.target = Some(Target::Spirv);
    let result = run_into(&args, &output, &opts, &mut rep);
    if let Err(e) = &result {
        rep.status = "failed";
        rep.error = Some(e.to_string());
    }
    if let Some(path) = &args.report {
        write_json(path, &rep)?;
    }
    result.map(|()| exit::OK)
}

fn run_into(args: &Args, output: &str, opts: &TranslateOptions, rep: &mut Report) -> Result<()> {
    let other_mode = [
        (args.to_text, "-to-text", "spirv-dis"),
        (args.to_binary, "-to-binary", "spirv-as"),
        (args.reverse, "-r", "llvm-spirv -r"),
    ];
    if let Some((_, flag, instead)) = other_mode.iter().find(|m| m.0) {
        return Err(Error::Usage(format!(
            "{flag} is llvm-spirv's other mode: dwarv translate only translates LLVM IR into \
             binary SPIR-V; use {instead}"
        )));
    }
    if args.spirv_text {
        return Err(Error::Usage(
            "--spirv-text: dwarv translate writes binary SPIR-V only; disassemble the output \
             with spirv-dis"
                .into(),
        ));
    }
    let inp = crate::input::read(&args.input)?;
    rep.bytes_in = inp.bytes.len() as u64;
    if !matches!(
        crate::input::detect(&inp.bytes),
        Some(crate::input::Format::LlvmBitcode | crate::input::Format::LlvmText)
    ) {
        return Err(Error::Usage(format!(
            "{}: not an LLVM module (.bc or .ll): translate reads LLVM IR; `dwarv convert` takes \
             the other formats",
            inp.name
        )));
    }
    let done = translate(&inp.bytes, &inp.name, opts)?;
    rep.flavour = Some(done.flavour.cli_name());
    rep.translator = Some(done.translator.clone());
    rep.diagnostics = done.diagnostics.clone();
    if let Some(why) = &done.debug_info_rejected {
        eprintln!(
            "dwarv: warning: {}: LLVM rejected its debug info ({why}): the output has none",
            inp.name
        );
    }
    if let Some(why) = &done.fallback {
        eprintln!(
            "dwarv: note: {}: the code translated by {} ({why})",
            inp.name, done.translator
        );
    }
    if args.time {
        let t = &done.timings;
        let s = |d: std::time::Duration| format!("{:.2} s", d.as_secs_f64());
        eprintln!(
            "dwarv: time: read {} (LLVM {}, parse and debug-info model) · lower {} (beside the \
             translator) · translator wait {} · tie and write {} · total {}",
            s(t.read),
            done.llvm,
            s(t.lower),
            s(t.translator_wait),
            s(t.weave),
            s(t.total)
        );
    }
    if let Some(refusal) = Error::strict(&done.diagnostics).filter(|_| args.strict) {
        return Err(refusal);
    }
    write_file_with(output, Durability::default(), |w| w.write_all(&done.spirv))?;
    rep.bytes_out = done.spirv.len() as u64;
    if !args.quiet {
        super::say_losses(
            &inp.name,
            &done.diagnostics,
            done.kept.as_ref(),
            args.report.as_deref(),
        );
    }
    Ok(())
}
