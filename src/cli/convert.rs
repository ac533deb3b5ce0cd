//! `dwarv convert`: one input to IR text, SPIR-V, DWARF or vISA tables (`crate::convert`), with
//! its JSON report.

use clap::ValueEnum;

use super::{write_json, FlavourArg, TargetArg};
use crate::convert::{self, Report};
use crate::error::{exit, Result};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
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
    /// Convert an input without debug info (no compile unit) instead of refusing it.
    #[arg(long)]
    allow_no_debug_info: bool,
    /// `--into` a module none of whose functions the input's could be tied to (by name): write
    /// the debug info anyway instead of refusing.
    #[arg(long)]
    allow_unmatched: bool,
    /// Say nothing on stderr of what could not be written exactly (the report still lists it).
    #[arg(long, short)]
    quiet: bool,
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
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OpEncodingArg {
    Raw,
    User,
}

pub(super) fn run(args: Args) -> Result<i32> {
    let Args {
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
        allow_no_debug_info,
        allow_unmatched,
        quiet,
        dwarf_version,
        amdgpu_ext,
        no_amdgpu_ext,
        amd_op_encoding,
    } = args;
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
        allow_no_debug_info,
        allow_unmatched,
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
    if result.is_ok() && !quiet {
        super::say_losses(
            &input,
            &rep.diagnostics,
            rep.kept.as_ref(),
            report.as_deref(),
        );
    }
    if let Some(path) = report {
        write_json(&path, &rep)?;
    }
    result.map(|()| exit::OK)
}
