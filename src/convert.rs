//! The conversion driver: input → IR → target, with the defaults of the CLI contract.

use std::path::Path;

use serde::Serialize;

use crate::back::spirv::{Base, WriteOptions};
use crate::diag::{Diagnostics, Kept};
use crate::error::{Error, Result};
use crate::input;
use crate::ir::verify::Verified;
use crate::ir::{Module, SourceFormat};
use crate::output::{write_file_with, Durability};
use crate::spec::spirv::Flavour;

/// What `convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Ir,
    Spirv,
    Dwarf,
    Visa,
}

impl Target {
    pub const NAMES: [(Target, &'static str); 4] = [
        (Target::Ir, "ir"),
        (Target::Spirv, "spirv"),
        (Target::Dwarf, "dwarf"),
        (Target::Visa, "visa"),
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|t| t.0 == self).map_or("", |t| t.1)
    }

    /// The target a `--into` base implies, by its first bytes: SPIR-V into a SPIR-V module,
    /// DWARF into an ELF binary or an offload container; `None` for anything else, and for what
    /// is not a regular file (a pipe read here would be read again where the base is written
    /// into, which also reports a base it cannot open).
    pub fn of_base(path: &str) -> Option<Target> {
        use std::io::Read;
        let file = std::fs::File::open(path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let mut head = Vec::with_capacity(64);
        file.take(64).read_to_end(&mut head).ok()?;
        match input::detect(&head)? {
            input::Format::Spirv => Some(Target::Spirv),
            input::Format::Elf | input::Format::Offload => Some(Target::Dwarf),
            _ => None,
        }
    }

    /// The target an output file name implies: `.dwir` ir, `.spv` spirv, `.o`/`.elf`/`.debug`/
    /// `.dwo` dwarf, `.visa` visa.
    pub fn from_extension(path: &str) -> Option<Target> {
        let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "dwir" => Target::Ir,
            "spv" => Target::Spirv,
            "o" | "elf" | "debug" | "dwo" => Target::Dwarf,
            "visa" => Target::Visa,
            _ => return None,
        })
    }
}

/// The SPIR-V flavour to write when the user names none: the input's own set for SPIR-V input;
/// `opencl100` for OpenCL C/C++ and C units (what spir/spir64 LLVM input carries); `shader100`
/// otherwise.
pub fn default_flavour(m: &Module) -> Flavour {
    if m.source.format == SourceFormat::Spirv {
        if let Some(f) = m
            .source
            .flavour
            .as_deref()
            .and_then(Flavour::from_import_name)
        {
            return f;
        }
    }
    let spir_target = m.source.format == SourceFormat::Llvm
        && m.source
            .flavour
            .as_deref()
            .is_some_and(|t| t.starts_with("spir"));
    if spir_target
        || m.units
            .values()
            .any(|u| crate::back::spirv::kernel_language(u.language))
    {
        Flavour::OpenCl100
    } else {
        Flavour::Shader100
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub to: Option<Target>,
    pub flavour: Option<Flavour>,
    pub into: Option<String>,
    /// The container part to convert (`--part`): of the input, and with `--into` a container,
    /// the device image whose debug info is replaced.
    pub part: Option<String>,
    /// Source-level debug info merged into vISA tables' IR (`ir::merge`).
    pub with: Option<String>,
    pub strict: bool,
    /// SPIR-V in place into its own set through the IR, not `spirv::own_set`.
    pub through_ir: bool,
    /// NonSemantic output refers forward where the debug info has a cycle
    /// (`back::spirv::Encoding::forward_refs`); SPIR-V in place then goes through the IR.
    pub forward_refs: bool,
    /// DWARF output: `--dwarf-version`, `--amdgpu-ext`/`--no-amdgpu-ext`, `--amd-op-encoding`.
    pub dwarf: DwarfOptions,
    /// When the output reaches the disk (a batch syncs once at its end).
    pub durability: Durability,
    /// An input without debug info is converted (into nothing) rather than refused.
    pub allow_no_debug_info: bool,
    /// `--into` a module none of whose functions the input's are tied to is written anyway.
    pub allow_unmatched: bool,
}

/// The DWARF writer's switches (see `back::dwarf::WriteOptions`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DwarfOptions {
    pub version: Option<u16>,
    pub amd_ext: Option<bool>,
    pub op_encoding: crate::back::dwarf::OpEncoding,
}

/// What a conversion did, for `--report`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub input: String,
    pub output: String,
    pub target: Option<Target>,
    pub flavour: Option<&'static str>,
    pub status: &'static str,
    pub error: Option<String>,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// A SPIR-V input rewritten in place: how (`"own set, on its words"`, or `"through the
    /// IR: …"` with the reason the words could not be kept).
    pub in_place: Option<String>,
    /// `translate`: who translated the code (the translator library, or its program).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translator: Option<String>,
    pub diagnostics: Diagnostics,
    /// Of the functions, line rows, variables and types read, how many the output holds
    /// (none for a rewrite on a module's own words, which reads no IR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<Kept>,
}

impl Report {
    /// A report before the conversion ran: status `ok`, nothing counted yet.
    pub fn new(input: &str, output: &str) -> Report {
        Report {
            input: input.to_string(),
            output: output.to_string(),
            target: None,
            flavour: None,
            status: "ok",
            error: None,
            bytes_in: 0,
            bytes_out: 0,
            in_place: None,
            translator: None,
            diagnostics: Diagnostics::default(),
            kept: None,
        }
    }
}

/// Lowers a non-in-place input and checks it; LLVM input with `--into` a SPIR-V module is tied to
/// that module; vISA tables `--with` source-level debug info get its names and types
/// (`ir::merge`).
struct Lowered {
    module: Verified,
    diagnostics: Diagnostics,
    /// For an LLVM input `--into` a SPIR-V module, that module prepared for the writer.
    prepared: Option<crate::back::spirv::Prepared>,
    /// The counts as read, when the IR is not as read (tied to a code module).
    read: Option<Kept>,
}

impl Lowered {
    fn as_read(module: Verified, diagnostics: Diagnostics) -> Lowered {
        Lowered {
            module,
            diagnostics,
            prepared: None,
            read: None,
        }
    }
}

fn lower(inp: &input::Input, opts: &Options, target: Target) -> Result<Lowered> {
    #[cfg(feature = "llvm")]
    if let (Some(into), Target::Spirv) = (&opts.into, target) {
        let llvm = matches!(
            input::detect(&inp.bytes),
            Some(input::Format::LlvmBitcode | input::Format::LlvmText)
        );
        if llvm {
            let code = std::fs::read(into).map_err(|source| Error::Io {
                path: into.clone(),
                source,
            })?;
            // The writer's parse of the module goes alongside the tie (it needs only the bytes).
            let prepare = || crate::back::spirv::Prepared::new(&code);
            let (module, diags, prepared, tied) =
                crate::front::llvm::read_into(&inp.bytes, &inp.name, &code, into, prepare)?;
            let prepared = prepared.map_err(|e| e.of_input(into))?;
            if tied.defined > 0 && tied.functions == 0 && !opts.allow_unmatched {
                return Err(Error::Usage(format!(
                    "{into}: none of the {} functions {} defines is in it (no OpFunction of that                      name): --into takes the translation of the same module; pass                      --allow-unmatched to write the debug info anyway",
                    tied.defined, inp.name
                )));
            }
            return Ok(Lowered {
                module: input::verified(module, &inp.name)?,
                diagnostics: diags,
                prepared: Some(prepared),
                read: Some(tied.read),
            });
        }
    }
    let _ = (opts, target);
    let Some(with) = &opts.with else {
        let (module, diags) = input::lower_verified(inp)?;
        return Ok(Lowered::as_read(module, diags));
    };
    let (code, mut diags) = input::lower_with_diagnostics(inp)?;
    if input::detect(&inp.bytes) != Some(input::Format::Visa) {
        return Err(Error::Usage(format!(
            "--with merges source-level debug info into vISA debug tables; {} is not vISA tables",
            inp.name
        )));
    }
    let source = input::load(with)?;
    let (merged, d) = crate::ir::merge::merge(&source, &code);
    diags.losses.extend(d.losses);
    Ok(Lowered::as_read(input::verified(merged, &inp.name)?, diags))
}

/// A Vulkan shader (its code rewritten in place or woven into) written in a set Vulkan drivers
/// refuse is a loss of the whole output for its consumer: ledgered (`--strict` refuses it) with
/// the reason and the set to use. `module` is the output's module-level code (the module itself,
/// or the input a words rewrite keeps).
fn unloadable(module: &[u8], flavour: Flavour, diagnostics: &mut Diagnostics) {
    if flavour.vulkan_loads() || !crate::spirv::vulkan_shader(module) {
        return;
    }
    diagnostics.push(
        crate::diag::LossKind::Unloadable,
        "module",
        format!(
            "a Vulkan shader with {} debug info: Vulkan drivers refuse that set and will not load \
             the module; write --flavour shader100 (NonSemantic.Shader.DebugInfo.100) for Vulkan",
            flavour.import_name()
        ),
    );
}

/// `--strict`: no output when anything an option or the input can avoid was lost.
fn refuse_if_strict(opts: &Options, report: &Report) -> Result<()> {
    match Error::strict(&report.diagnostics) {
        Some(refusal) if opts.strict => Err(refusal),
        _ => Ok(()),
    }
}

/// The words path of a SPIR-V input converted in place: rewritten into the set it carries on
/// its own words (`spirv::own_set`), when `flavour` is none or that set, or converted on them
/// into `flavour` (`own_set::convert`), when the rewrite can vouch for the result. `Err` says
/// why the conversion goes through the IR instead.
pub fn rewrite_on_words(
    bytes: &[u8],
    flavour: Option<Flavour>,
) -> std::result::Result<crate::spirv::own_set::Rewritten, crate::spirv::own_set::Declined> {
    use crate::spirv::own_set::{self, Declined};
    match own_set::own_flavour(bytes) {
        None => Err(Declined("no debug set, or more than one")),
        Some(own) => match flavour {
            Some(to) if to != own => own_set::convert(bytes, own, to),
            _ => own_set::rewrite(bytes, own),
        },
    }
}

/// What the report's `in_place` says of a words-path attempt.
pub fn in_place_note(
    attempt: &std::result::Result<
        crate::spirv::own_set::Rewritten,
        crate::spirv::own_set::Declined,
    >,
) -> String {
    match attempt {
        Ok(done) if done.from != done.flavour => format!(
            "from {} into {}, on its words",
            done.from.cli_name(),
            done.flavour.cli_name()
        ),
        Ok(_) => "own set, on its words".into(),
        Err(why) => format!("through the IR: {}", why.0),
    }
}

/// Converts `input` to `output`. The report is filled in whether or not conversion succeeds.
pub fn convert(input_path: &str, output: &str, opts: &Options, report: &mut Report) -> Result<()> {
    let into_target = match &opts.into {
        Some(path) if opts.to.is_none() && path != "-" => Target::of_base(path),
        _ => None,
    };
    let target = match opts
        .to
        .or(into_target)
        .or_else(|| Target::from_extension(output))
    {
        Some(t) => t,
        None => {
            return Err(Error::Usage(format!(
            "cannot tell the target from the output name `{output}`: give --to ir|spirv|dwarf|visa"
        )))
        }
    };
    report.target = Some(target);
    if opts.flavour.is_some() && target != Target::Spirv {
        return Err(Error::Usage(format!(
            "--flavour applies to SPIR-V output, not {}",
            target.name()
        )));
    }
    if opts.into.is_some() && !matches!(target, Target::Spirv | Target::Dwarf) {
        return Err(Error::Usage(format!(
            "--into applies to SPIR-V or DWARF output, not {}",
            target.name()
        )));
    }
    if opts.with.is_some() && !matches!(target, Target::Dwarf | Target::Ir) {
        return Err(Error::Usage(format!(
            "--with applies to DWARF or IR output, not {}",
            target.name()
        )));
    }
    // `--into` a container (DWARF only): the device image `--part` names is the base, and the
    // output is the whole container with that image replaced.
    let into_container = match (&opts.into, target) {
        (Some(path), Target::Dwarf) => {
            let c = input::read(path)?;
            crate::container::open(&c.bytes, &c.name)?
                .is_some()
                .then_some(c)
        }
        _ => None,
    };
    let inp = input::read(input_path)?;
    let mut inp = match (&into_container, &opts.part) {
        // The part names the image in the container; a plain input is what replaces its info.
        (Some(_), Some(_)) if crate::container::open(&inp.bytes, &inp.name)?.is_none() => inp,
        _ => input::one(inp, opts.part.as_deref())?,
    };
    report.bytes_in = inp.bytes.len() as u64;
    let format = input::detect(&inp.bytes);
    let is_spirv = format == Some(input::Format::Spirv);
    // A SPIR-V input rewritten in place is parsed (and its normal form computed) once, for the
    // reader and the writer.
    let in_place = target == Target::Spirv && opts.into.is_none() && is_spirv;
    if in_place && !opts.through_ir && !opts.forward_refs {
        // Into the set it carries: ordered and repaired on its own words, when that is safe.
        let words = rewrite_on_words(&inp.bytes, opts.flavour);
        report.in_place = Some(in_place_note(&words));
        if let Ok(done) = words {
            report.flavour = Some(done.flavour.cli_name());
            report.diagnostics = done.diagnostics.clone();
            unloadable(&inp.bytes, done.flavour, &mut report.diagnostics);
            refuse_if_strict(opts, report)?;
            write_file_with(output, opts.durability, |out| {
                done.write_to(&inp.bytes, out)
            })?;
            report.bytes_out = done.output_len(&inp.bytes) as u64;
            return Ok(());
        }
    }
    let words = match in_place {
        true => crate::front::spirv::words(&inp.bytes, &inp.name)?,
        false => Vec::new(),
    };
    if in_place {
        report
            .in_place
            .get_or_insert_with(|| "through the IR: --through-ir".into());
        // Only the words are used from here on.
        inp.bytes = Default::default();
    }
    let parsed = match in_place {
        true => Some(crate::front::spirv::parse(&words, &inp.name)?),
        false => None,
    };
    let Lowered {
        module,
        mut diagnostics,
        prepared,
        read,
    } = match &parsed {
        Some(p) => {
            let (module, diagnostics) = crate::front::spirv::read_parsed(p, &inp.name)?;
            Lowered::as_read(module, diagnostics)
        }
        None => {
            // What the DWARF reader frees, the DWARF writer's DIE fill reuses (less CPU time for a
            // little more peak memory).
            let _held = match target {
                Target::Dwarf => Some(crate::background::hold_freed_pages()),
                _ => None,
            };
            lower(&inp, opts, target)?
        }
    };
    if !module.has_debug_info() && !opts.allow_no_debug_info {
        return Err(Error::Usage(format!(
            "{}: no debug info: compile it with -g (glslang: -gVS), or pass \
             --allow-no-debug-info to convert it anyway",
            inp.name
        )));
    }
    let totals = read.unwrap_or_else(|| Kept::totals(&module));
    // The input is in the IR now: its pages (mapped or read) are not needed by any writer.
    inp.bytes = Default::default();
    // The binary a DWARF output replaces the debug sections of (`--into`): the output is
    // written from its pages.
    let into_base;
    let bytes: crate::output::Parts = match target {
        Target::Ir => {
            let bytes = crate::ir::text::print(&module).into_bytes();
            crate::background::drop_later(module);
            bytes.into()
        }
        Target::Spirv => {
            let flavour = opts.flavour.unwrap_or_else(|| default_flavour(&module));
            report.flavour = Some(flavour.cli_name());
            let base_bytes = match &opts.into {
                Some(_) if prepared.is_some() => None,
                Some(path) => Some(std::fs::read(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?),
                None => None,
            };
            // A SPIR-V input is rewritten in place (`parsed`); `--into` names the module, whose
            // code an LLVM input's positions and bindings were tied to; else standalone.
            let base = match &base_bytes {
                Some(b)
                    if matches!(
                        format,
                        Some(input::Format::LlvmBitcode | input::Format::LlvmText)
                    ) =>
                {
                    Base::OwnCode(b)
                }
                Some(b) => Base::Module(b),
                None => Base::Standalone,
            };
            // A standalone module holds debug info only, never code a driver is to run.
            let has_code = parsed.is_some() || base_bytes.is_some() || prepared.is_some();
            let encoding = crate::back::spirv::Encoding {
                flavour,
                forward_refs: opts.forward_refs,
            };
            let (bytes, diags) = match (parsed, prepared) {
                (Some(p), _) => {
                    let view = p.nf.into_view(p.bin);
                    crate::back::spirv::write_into_view(&module, encoding, &view)
                }
                (None, Some(base)) => crate::back::spirv::write_prepared(&module, encoding, base),
                (None, None) => {
                    let forward_refs = opts.forward_refs;
                    let wopts = WriteOptions {
                        flavour,
                        base,
                        forward_refs,
                    };
                    crate::back::spirv::write(&module, &wopts)
                }
            }
            .map_err(|e| e.of_input(&inp.name))?;
            diagnostics.losses.extend(diags.losses);
            if has_code {
                unloadable(&bytes, flavour, &mut diagnostics);
            }
            crate::background::drop_later(module);
            bytes.into()
        }
        Target::Dwarf => {
            let mut into_part = String::new();
            into_base = match (&opts.into, &into_container) {
                (_, Some(c)) => {
                    let image = input::one(input::read(&c.name)?, opts.part.as_deref())?;
                    // The part's own name (`FILE [PART]`), for the write-back.
                    let part = image
                        .name
                        .rsplit_once(" [")
                        .map(|(_, p)| p.trim_end_matches(']'));
                    into_part = part.unwrap_or_default().to_string();
                    Some(image.bytes)
                }
                // Mapped: only the pages the output copies are read, once the DIEs are built.
                (Some(path), None) => Some(input::read(path)?.bytes),
                (None, None) => None,
            };
            let wopts = crate::back::dwarf::WriteOptions {
                dwarf_version: opts.dwarf.version,
                amd_ext: opts.dwarf.amd_ext,
                op_encoding: opts.dwarf.op_encoding,
                into: into_base.as_deref(),
            };
            // The writer's refusals (no compile unit, DIE offsets that do not settle) concern
            // this input: say which. It takes the module, to free it once the DIEs are built.
            let (bytes, diags) = crate::back::dwarf::write_owned(module, &wopts)
                .map_err(|e| e.of_input(&inp.name))?;
            diagnostics.losses.extend(diags.losses);
            match &into_container {
                Some(c) => {
                    let image = bytes.into_vec();
                    crate::container::replace(&c.bytes, &c.name, &into_part, &image)?.into()
                }
                None => bytes,
            }
        }
        Target::Visa => {
            let (bytes, diags) =
                crate::back::visa::write(&module).map_err(|e| e.of_input(&inp.name))?;
            diagnostics.losses.extend(diags.losses);
            crate::background::drop_later(module);
            bytes.into()
        }
    };
    drop(words);
    report.kept = Some(totals.less(&diagnostics));
    report.diagnostics = diagnostics;
    refuse_if_strict(opts, report)?;
    write_file_with(output, opts.durability, |out| bytes.write_to(out))?;
    if let (Target::Dwarf, Some(base)) = (target, &opts.into) {
        // A binary with its debug sections replaced keeps the base's mode (executable bits).
        if let Ok(meta) = std::fs::metadata(base) {
            let _ = std::fs::set_permissions(output, meta.permissions());
        }
    }
    report.bytes_out = bytes.len() as u64;
    Ok(())
}
