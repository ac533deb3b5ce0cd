//! An LLVM module to SPIR-V with its debug info, from one parse: LLVM reads the module in a
//! child process and hands over its debug info, then strips it and has the SPIR-V translator's
//! library translate the code there (llvm-bridge's `split`); meanwhile this process lowers the
//! debug info, then ties it to the translator's code and writes it in. Where this dwarv has no
//! translator library of the module's LLVM, or `--translator` names a program, the stripped
//! bitcode is piped through the translator program instead.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use llvm_bridge::{Code, Writer};

use super::translator::{self, TranslatorFlags};
use crate::diag::{Diagnostics, Kept, LossKind};
use crate::error::Error;
use crate::front::llvm::into::{self, Layout};
use crate::ir::Module;
use crate::spec::spirv::Flavour;

/// How [`translate`] runs.
#[derive(Clone, Debug, Default)]
pub struct TranslateOptions {
    /// The debug set to write; by default OpenCL.DebugInfo.100 for OpenCL and `spir` targets,
    /// NonSemantic.Shader.DebugInfo.100 otherwise (as `convert`).
    pub flavour: Option<Flavour>,
    /// The translator's own options.
    pub flags: TranslatorFlags,
    /// Run this translator program (a path, or a name on PATH) on the stripped bitcode instead
    /// of the translator's library.
    pub translator: Option<PathBuf>,
    /// NonSemantic output may refer forward (`OpExtInstWithForwardRefsKHR`) where the debug info
    /// has a cycle, instead of writing a stand-in (see `convert --forward-refs`).
    pub forward_refs: bool,
    /// Translate a module without debug info (its code alone) rather than refuse it.
    pub allow_no_debug_info: bool,
}

/// What [`translate`] made.
#[derive(Debug)]
pub struct Translated {
    /// The SPIR-V module: the translator's code with the debug info written in.
    pub spirv: Vec<u8>,
    /// What could not be written exactly (the ledger).
    pub diagnostics: Diagnostics,
    /// Of the functions, line rows, variables and types read, how many the output holds (none
    /// when the output has no debug info).
    pub kept: Option<Kept>,
    pub flavour: Flavour,
    /// Who translated the code: the translator library (`libLLVMSPIRVLib.so.14, in process`)
    /// or the program's path.
    pub translator: String,
    /// Why a translator program ran rather than a library, when it did without being asked to.
    pub fallback: Option<String>,
    /// LLVM rejected the module's debug info (its message): the output has none.
    pub debug_info_rejected: Option<String>,
    /// `llvm-config --version` of the LLVM that read the module.
    pub llvm: &'static str,
    pub timings: Timings,
}

/// Where a translation's wall time went.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// From the start until the debug info arrived from LLVM's child: LLVM's parse and
    /// verifier, and its model of the debug info.
    pub read: Duration,
    /// Lowering the debug info to the IR, while the child translates the code.
    pub lower: Duration,
    /// Waiting for the translator once the debug info was lowered.
    pub translator_wait: Duration,
    /// Tying the debug info to the code and writing it in.
    pub weave: Duration,
    pub total: Duration,
}

/// The debug info as it arrives from the child.
enum Lowered {
    Read(Box<Read>),
    /// LLVM rejected the debug info (not the code): its message.
    Rejected(String),
}

/// The debug info lowered, and what tying it needs of the LLVM module.
struct Read {
    module: Module,
    diagnostics: Diagnostics,
    layout: Layout,
}

/// Translates the LLVM module `bytes` (`.ll` or `.bc`; `name` names it in messages) to SPIR-V
/// with its debug info.
pub fn translate(bytes: &[u8], name: &str, opts: &TranslateOptions) -> Result<Translated, Error> {
    translate_with(name, opts, |writer, on_model| {
        llvm_bridge::split(bytes, name, writer, on_model)
    })
}

/// [`translate`] of a module that lives in this process (an inkwell module of LLVM 14): nothing
/// is parsed, and the module is left as it is (a forked child strips and translates its copy).
#[cfg(feature = "inkwell")]
pub fn translate_module(
    module: &inkwell::module::Module<'_>,
    opts: &TranslateOptions,
) -> Result<Translated, Error> {
    let name = module.get_name().to_string_lossy().into_owned();
    let ptr = module.as_mut_ptr().cast();
    translate_with(&name, opts, |writer, on_model| {
        // SAFETY: inkwell's module is a live llvm::Module of LLVM 14 (the feature links
        // libLLVM-14.so.1 dynamically, the library the LLVM 14 reader's shim loads), borrowed
        // for the call, so nothing changes it meanwhile.
        unsafe { llvm_bridge::split_module(ptr, 14, writer, |m| on_model(Ok(m))) }
    })
}

type OnModel<'a> = Box<dyn FnOnce(llvm_bridge::ModelOrRejection) -> Lowered + 'a>;

fn translate_with(
    name: &str,
    opts: &TranslateOptions,
    split: impl FnOnce(
        Writer<'_>,
        OnModel<'_>,
    ) -> Result<llvm_bridge::Split<Lowered>, llvm_bridge::Error>,
) -> Result<Translated, Error> {
    let start = Instant::now();
    let library_options = opts.flags.library_options();
    let writer = match &opts.translator {
        Some(_) => Writer::Bitcode,
        None => Writer::Spirv(&library_options),
    };
    let mut read_at = Duration::ZERO;
    let mut lowered_at = Duration::ZERO;
    let on_model: OnModel<'_> = Box::new(|model| {
        read_at = start.elapsed();
        let lowered = match model {
            Ok(model) => {
                let (module, diagnostics) = crate::front::llvm::lower(&model);
                let layout = Layout::of(&model);
                drop(model);
                Lowered::Read(Box::new(Read {
                    module,
                    diagnostics,
                    layout,
                }))
            }
            Err(message) => Lowered::Rejected(message),
        };
        lowered_at = start.elapsed();
        lowered
    });
    let split = split(writer, on_model).map_err(|e| crate::front::llvm::llvm_error(name, e))?;
    let major = major_of(split.llvm);
    let (code, translator, fallback) = match split.code {
        Code::Spirv { bytes, translator } => (bytes, format!("{translator}, in process"), None),
        Code::Bitcode { bytes, why } => {
            let program = translator::find(opts.translator.as_deref(), major)?;
            let own = translator::is_own(&program, major);
            let spirv = translator::run(&program, &opts.flags.program_args(own), &bytes)?;
            (spirv, program.display().to_string(), why)
        }
    };
    let code_at = start.elapsed();
    let mut timings = Timings {
        read: read_at,
        lower: lowered_at.saturating_sub(read_at),
        translator_wait: code_at.saturating_sub(lowered_at),
        ..Timings::default()
    };
    let code_name = format!("the translator's code of {name}");
    let rejected = match &split.lowered {
        Lowered::Rejected(message) => Some(first_line(message)),
        Lowered::Read(_) => None,
    };
    let Woven {
        spirv,
        diagnostics,
        flavour,
        kept,
    } = match split.lowered {
        Lowered::Rejected(message) => {
            let mut diagnostics = Diagnostics::default();
            diagnostics.push(
                LossKind::Dropped,
                "module",
                format!(
                    "all debug info: LLVM rejected it ({}); the code is translated without it",
                    first_line(&message)
                ),
            );
            let flavour = opts.flavour.unwrap_or(Flavour::OpenCl100);
            Woven::code_alone(code, diagnostics, flavour)
        }
        Lowered::Read(read) if !read.module.has_debug_info() && opts.allow_no_debug_info => {
            let flavour = opts.flavour.unwrap_or(Flavour::OpenCl100);
            Woven::code_alone(code, Diagnostics::default(), flavour)
        }
        Lowered::Read(read) if !read.module.has_debug_info() => {
            let why = match read.diagnostics.losses.first() {
                Some(dropped) => format!("LLVM dropped its debug info ({})", dropped.message),
                None => "the module has no debug info: compile it with -g".into(),
            };
            return Err(Error::Llvm {
                path: name.to_string(),
                message: format!("{why}; pass --allow-no-debug-info to translate its code alone"),
            });
        }
        Lowered::Read(read) => {
            let Read {
                module,
                diagnostics,
                layout,
            } = *read;
            weave(module, diagnostics, &layout, &code, &code_name, opts)?
        }
    };
    timings.total = start.elapsed();
    timings.weave = timings.total.saturating_sub(code_at);
    Ok(Translated {
        spirv,
        diagnostics,
        kept,
        flavour,
        translator,
        fallback,
        debug_info_rejected: rejected,
        llvm: split.llvm,
        timings,
    })
}

/// A translation's output and what was said of its debug info.
struct Woven {
    spirv: Vec<u8>,
    diagnostics: Diagnostics,
    flavour: Flavour,
    kept: Option<Kept>,
}

impl Woven {
    /// The translator's code with no debug info written in.
    fn code_alone(spirv: Vec<u8>, diagnostics: Diagnostics, flavour: Flavour) -> Woven {
        Woven {
            spirv,
            diagnostics,
            flavour,
            kept: None,
        }
    }
}

/// Ties the lowered debug info to the translator's code and writes it in.
fn weave(
    mut module: Module,
    mut diagnostics: Diagnostics,
    layout: &Layout,
    code: &[u8],
    code_name: &str,
    opts: &TranslateOptions,
) -> Result<Woven, Error> {
    // What the index frees, the writer takes again.
    let _kept = crate::background::keep_freed_pages();
    // The writer's parse of the code goes alongside the index and the tie (it needs only the
    // bytes).
    let (tied, prepared) = std::thread::scope(|s| {
        let prepare = s.spawn(|| crate::back::spirv::Prepared::new(code));
        let tied = into::index_module(code, code_name)
            .map(|index| into::tie(layout, &mut module, &mut diagnostics, &index, code_name));
        let prepared = prepare
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        tied.and_then(|tied| Ok((tied, prepared?)))
    })?;
    let module = crate::input::verified(module, code_name)?;
    let flavour = opts
        .flavour
        .unwrap_or_else(|| crate::convert::default_flavour(&module));
    let encoding = crate::back::spirv::Encoding {
        flavour,
        forward_refs: opts.forward_refs,
    };
    let (spirv, written) = crate::back::spirv::write_prepared(&module, encoding, prepared)?;
    diagnostics.losses.extend(written.losses);
    Ok(Woven {
        spirv,
        kept: Some(tied.read.less(&diagnostics)),
        diagnostics,
        flavour,
    })
}

/// The major version of `llvm-config --version` text (`14.0.6` → 14).
fn major_of(version: &str) -> u32 {
    version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// The first line of LLVM's message, and the next when the first only introduces it.
fn first_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("").to_string();
    match first.ends_with(':') {
        true => format!("{first} {}", lines.next().unwrap_or("")),
        false => first,
    }
}
