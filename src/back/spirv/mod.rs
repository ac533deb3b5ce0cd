//! The SPIR-V debug-info writer: one writer for every debug set, driven by the set's instruction
//! layouts (`spec::spirv_grammar`) and enum tables (`spec::spirv`), following
//! docs/spirv-mapping.md in the writing direction.
//!
//! Its files mirror the reader's (`front/spirv`) where they have the same concern:
//! - `writer`: the writer's state (`Writer`), a leaf every entity writer uses;
//! - `types`, `scopes`, `expr`: what each IR entity becomes; `operands`: the operands they share
//!   (numbers, flags, enum values, places);
//! - `code`: the in-function instructions (lines, scope runs, declare/value events);
//! - `encode`: operands by name → words (literals or interned OpConstants, OpStrings, DebugInfoNone);
//! - `order`: emission order (no forward references but those the set allows), with `scc`;
//! - `base`: the given module's code (functions, ids, names) and where instructions may go;
//! - `module`: the layout of a standalone module, or the weaving into a given one;
//! - `ledger`: what the set cannot express, with the IR place.
//!
//! The in-place rewrite into the set a module already carries works on its words without the
//! IR: `spirv::own_set`.

mod base;
mod code;
mod encode;
mod expr;
mod fortran;
pub mod ledger;
mod module;
mod operands;
mod order;
mod scc;
mod scopes;
mod types;
mod writer;

use crate::diag::{Counted, Diagnostics, LossKind};
use crate::error::Error;
use crate::ir::verify::Verified;
use crate::ir::{Handle, Language, Module, Ref};
use crate::spec::spirv::Flavour;
use crate::spec::spirv_names::{instruction, operand};
use crate::spirv::binary::{to_words, Module as Bin};
use crate::spirv::NormalForm;
use writer::Writer;

/// What to write the debug info into.
#[derive(Clone, Copy, Debug)]
pub enum Base<'a> {
    /// A new module that holds only the debug info.
    Standalone,
    /// A given module (any byte order): its own debug info is dropped (its normal form is taken)
    /// and the IR's is woven in (`--into` of another module's debug info). The IR's code
    /// positions count only in functions its bindings name (an OpFunction whose names agree).
    Module(&'a [u8]),
    /// The same, into the module the IR's code positions and bindings were taken from (the SPIR-V
    /// input rewritten in place, an LLVM module tied to llvm-spirv's translation of it, a build
    /// step's emitted module): all of them count, in every function, whatever its names.
    OwnCode(&'a [u8]),
}

#[derive(Clone, Copy, Debug)]
pub struct WriteOptions<'a> {
    pub flavour: Flavour,
    pub base: Base<'a>,
    /// See [`Encoding::forward_refs`].
    pub forward_refs: bool,
}

/// How the debug instructions are encoded: the set, and whether a NonSemantic set may refer
/// forward.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    pub flavour: Flavour,
    /// A NonSemantic.Shader.DebugInfo.100 instruction that refers to an instruction written
    /// after it (a reference cycle: a class whose methods take a pointer to it) is an
    /// `OpExtInstWithForwardRefsKHR` (SPV_KHR_relaxed_extended_instruction), where it otherwise
    /// refers to a FlagFwdDecl stand-in of the composite, which consumers may read back as a
    /// type of its own. Off by default: Vulkan wants VK_KHR_shader_relaxed_extended_instruction
    /// enabled for such a module, and tools that predate the extension refuse it
    /// (dpcpp-llvm-spirv 2024.2). A module that already declares the extension is written
    /// with it. Other sets ignore it.
    pub forward_refs: bool,
}

impl From<Flavour> for Encoding {
    fn from(flavour: Flavour) -> Self {
        Encoding {
            flavour,
            forward_refs: false,
        }
    }
}

/// `m` with its file paths as every set writes them — the directory joined into the name
/// (DebugSource has no directory operand; the writer ledgers it) — and files with equal paths
/// one: what a module read back from SPIR-V is compared with (`roundtrip --via spirv`).
pub fn paths_as_written(m: &Module) -> Result<Module, crate::ir::prune::PruneError> {
    let mut m = m.clone();
    for f in m.files.values_mut() {
        f.name = scopes::file_name(f);
        f.directory = None;
    }
    crate::ir::prune::merge_equal_files(&m)
}

/// Languages whose standalone modules are Kernel modules.
pub fn kernel_language(l: Language) -> bool {
    [
        Language::OPENCL,
        Language::OPENCL_CPP,
        Language::CPP_FOR_OPENCL,
        Language::C89,
        Language::C,
        Language::C99,
        Language::C11,
        Language::C17,
        Language::C23,
        Language::SYCL,
    ]
    .contains(&l)
}

impl WriteOptions<'_> {
    fn encoding(&self) -> Encoding {
        Encoding {
            flavour: self.flavour,
            forward_refs: self.forward_refs,
        }
    }
}

/// Writes the module's debug info as SPIR-V (little-endian bytes) and lists what was lost.
pub fn write(m: &Verified, opts: &WriteOptions) -> Result<(Vec<u8>, Diagnostics), Error> {
    contained(|| match opts.base {
        Base::Standalone => write_here(m, opts.encoding(), None, false),
        Base::Module(bytes) | Base::OwnCode(bytes) => {
            let words = to_words(bytes).map_err(spirv_err)?;
            let bin = Bin::parse(&words).map_err(spirv_err)?;
            let nf = NormalForm::compute(&bin).map_err(spirv_err)?;
            let own = matches!(opts.base, Base::OwnCode(_));
            write_here(m, opts.encoding(), Some(&nf.into_view(bin)), own)
        }
    })
}

/// `write` into the module the IR was read from (`Base::OwnCode`), already parsed, given as its
/// normal form's view (`NormalForm::into_view`): what an in-place conversion uses, so the module
/// the reader parsed is not parsed again.
pub(crate) fn write_into_view(
    m: &Verified,
    encoding: impl Into<Encoding>,
    base: &Bin<'_>,
) -> Result<(Vec<u8>, Diagnostics), Error> {
    let encoding = encoding.into();
    contained(|| write_here(m, encoding, Some(base), true))
}

/// A module to write into, made ready ahead of the writer: its words, its normal form and what
/// the writer learns of its code (what `write` computes first for `Base::OwnCode`), so that a
/// caller can prepare it while other work runs (`convert x.bc --into code.spv` does, while the
/// LLVM module is tied).
pub(crate) struct Prepared {
    words: Vec<u32>,
    nf: NormalForm,
    code: base::CodeInfo,
}

impl Prepared {
    pub(crate) fn new(bytes: &[u8]) -> Result<Prepared, Error> {
        let words = to_words(bytes).map_err(spirv_err)?;
        let bin = Bin::parse(&words).map_err(spirv_err)?;
        let nf = NormalForm::compute(&bin).map_err(spirv_err)?;
        let code = base::CodeInfo::analyse(&nf.into_view(bin));
        Ok(Prepared { words, nf, code })
    }
}

/// `write` with `Base::OwnCode` of a module prepared ahead ([`Prepared`]).
pub(crate) fn write_prepared(
    m: &Verified,
    encoding: impl Into<Encoding>,
    base: Prepared,
) -> Result<(Vec<u8>, Diagnostics), Error> {
    let encoding = encoding.into();
    let Prepared { words, nf, code } = base;
    contained(|| {
        let bin = Bin::parse(&words).map_err(spirv_err)?;
        write_analysed(m, encoding, Some((&nf.into_view(bin), code)), true)
    })
}

/// Runs the writer; a panic (a bug) becomes an error rather than the end of the process, so a
/// batch goes on with its other inputs.
fn contained<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::unwritable(
            "SPIR-V",
            "the writer panicked (a bug in dwarv: please report it with the input)",
        ))
    })
}

fn spirv_err(e: crate::spirv::SpirvError) -> Error {
    Error::Spirv {
        path: "the module to write into".into(),
        offset: e.offset,
        id: None,
        message: e.message,
    }
}

/// Writes into `bin`, the base module's normal form (as parsed, or its view), or standalone;
/// `own_code`: the IR's code positions and bindings are of `bin` (`Base::OwnCode`).
fn write_here(
    m: &Module,
    encoding: Encoding,
    bin: Option<&Bin<'_>>,
    own_code: bool,
) -> Result<(Vec<u8>, Diagnostics), Error> {
    let base = bin.map(|b| (b, base::CodeInfo::analyse(b)));
    write_analysed(m, encoding, base, own_code)
}

/// [`write_here`] with the base module's [`base::CodeInfo`] already taken.
fn write_analysed(
    m: &Module,
    encoding: Encoding,
    base: Option<(&Bin<'_>, base::CodeInfo)>,
    own_code: bool,
) -> Result<(Vec<u8>, Diagnostics), Error> {
    let (bin, code) = match base {
        Some((b, c)) => (Some(b), c),
        None => (None, base::CodeInfo::default()),
    };
    // Link records are written only into the module they belong to (the same code): elsewhere
    // they would read back as that module's build id. They are no debug info: no loss.
    // Into a module of the very code the IR's positions are of: they are trusted as in place.
    let own_code = own_code
        || m.info.code_id.is_some() && bin.map(crate::spirv::code_id_of_view) == m.info.code_id;
    let unlinked;
    let m = match &m.info.link {
        Some(l) if bin.map(crate::spirv::build_id_of_view).as_ref() != Some(&l.build_id) => {
            let mut c = m.clone();
            c.info.link = None;
            unlinked = c;
            &unlinked
        }
        _ => m,
    };
    let mut code = code;
    code.own_code = own_code;
    let unmatched = match &bin {
        Some(_) => base::match_functions(&mut code, m),
        None => Vec::new(),
    };
    let kernel = match &bin {
        Some(_) => code.kernel,
        // LLVM IR is what llvm-spirv translates: Kernel modules, whatever the language.
        None => {
            m.source.format == crate::ir::SourceFormat::Llvm
                || m.units.values().any(|u| kernel_language(u.language))
        }
    };
    code.kernel = kernel;
    if bin.is_none() {
        code.caps = module::standalone_caps(kernel).to_vec();
        code.version = module::standalone_version(kernel);
    }
    let interned = encode::Interned {
        void: code.void,
        uint: code.uint,
        ulong: code.ulong,
        // A 64-bit integer type may be added where Int64 is (or, standalone, can be) declared.
        int64: bin.is_none()
            || code
                .caps
                .contains(&(rspirv::spirv::Capability::Int64 as u32)),
        bool_: code.bool_,
        ..Default::default()
    };
    let bound = bin.map_or(1, |b| b.bound.max(1));
    let taken = bin.map(|b| b.taken.clone()).unwrap_or_default();
    let mut e = encode::Emitter::new(encoding.flavour, bound, interned, taken);
    // NonSemantic.100 only: spirv-val refuses forward references in `.200` (a set it does not
    // know), and the translator that reads `.200` does not know the extension.
    e.forward_refs = encoding.flavour == Flavour::Shader100
        && (encoding.forward_refs
            || bin.is_some_and(|b| module::declares_extension(b.words, module::RELAXED_EXTENSION)));
    let mut w = Writer::new(m, e, code);
    for h in unmatched {
        let p = w.ledger.place(Ref::Scope(h));
        w.ledger.push(
            LossKind::Unmatched,
            p,
            "no OpFunction of the target module matches it (binding, OpName, entry point, linkage)",
        )
        .leaves_out(Counted::Functions, 1);
    }
    emit_all(&mut w);
    let inserts = code::write(&mut w, bin.is_none());
    let cuts = [
        (
            w.e.cut,
            LossKind::Dropped,
            "instructions had more operands than 65535 words hold; the rest was cut",
        ),
        (
            w.e.nul_cut,
            LossKind::Approximated,
            "strings hold a NUL character: cut there (a SPIR-V string ends at NUL)",
        ),
    ];
    for (n, kind, what) in cuts {
        if n > 0 {
            w.ledger.push(kind, "module", format!("{n} {what}"));
        }
    }
    if w.e.exhausted() {
        return Err(Error::unwritable(
            "SPIR-V",
            "the module's id bound leaves no room for the debug info's ids",
        ));
    }
    // The address size reads back from the module's addressing model.
    let read_back = match &bin {
        Some(b) => b.address_size(),
        None => module::standalone_address_size(kernel, m.info.address_size),
    };
    if m.info.address_size.is_some() && m.info.address_size != read_back {
        let model = match read_back {
            Some(bytes) => format!("a {}-bit addressing model", bytes * 8),
            None => "the Logical addressing model".into(),
        };
        w.ledger.push(
            LossKind::Dropped,
            "module",
            format!("address size: the module has {model}"),
        );
    }
    let diags = std::mem::take(&mut w.ledger.diags);
    let bytes = match bin {
        Some(b) => module::weave(w.e, b, inserts),
        None => {
            let out = module::standalone(w.e, kernel, m.info.address_size);
            let mut bytes = Vec::with_capacity(out.len() * 4);
            for w in &out {
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            bytes
        }
    };
    Ok((bytes, diags))
}

fn all<T>(n: usize, f: impl Fn(Handle<T>) -> Ref) -> impl Iterator<Item = Ref> {
    (0..n).map(move |i| f(Handle::new(i as u32)))
}

/// Every entity, in the text form's order, each after what it needs.
fn emit_all(w: &mut Writer) {
    let m = w.m;
    let refs = all(m.units.len(), Ref::Unit)
        .chain(all(m.files.len(), Ref::File))
        .chain(all(m.types.len(), Ref::Type))
        .chain(all(m.scopes.len(), Ref::Scope))
        .chain(all(m.inlined.len(), Ref::Inlined))
        .chain(all(m.vars.len(), Ref::Var))
        .chain(all(m.exprs.len(), Ref::Expr))
        .chain(all(m.macros.len(), Ref::Macro))
        .chain(all(m.imports.len(), Ref::Import))
        .chain(all(m.entry_points.len(), Ref::EntryPoint));
    for r in refs {
        w.id(r);
        w.drain();
    }
    module_info(w);
    let unwritable = [
        (m.loclists.len(), "location lists"),
        (m.labels.len(), "labels"),
        (m.call_sites.len(), "call sites"),
        (m.properties.len(), "ObjC properties"),
        (m.cies.len() + m.fdes.len(), "call-frame entries"),
    ];
    for (n, what) in unwritable {
        if n > 0 {
            w.ledger.push(
                LossKind::Dropped,
                "module",
                format!("{n} {what}: no SPIR-V debug instruction describes them"),
            );
        }
    }
}

fn module_info(w: &mut Writer) {
    use ledger::{holds, Feature};
    let info = &w.m.info;
    if info.machine.is_some() {
        dropped(w, "machine: SPIR-V has no place for an ELF machine");
    }
    let located = w.m.vars.values().filter(|v| v.location.is_some()).count();
    if located > 0 {
        dropped(
            w,
            &format!(
                "{located} variable location(s) of their own (DWARF's): SPIR-V says where a \
                 variable lives only by DebugDeclare/DebugValue in code"
            ),
        );
    }
    let (ids, paths) = (
        holds(w.e.flavour, Feature::BuildId),
        holds(w.e.flavour, Feature::StoragePath),
    );
    if let Some(b) = &info.build_id {
        match ids {
            true => build_identifier(w, &b.id, b.flags),
            false => dropped(w, "build id: the set has no DebugBuildIdentifier"),
        }
    }
    if let Some(p) = &info.storage_path {
        match paths {
            true => storage_path(w, p),
            false => dropped(w, "storage path: the set has no DebugStoragePath"),
        }
    }
    // dwarv strip's link records (crate::spirv, "Link records"), after the module's own.
    if let Some(l) = &info.link {
        if !ids {
            return dropped(w, "link records: the set has no DebugBuildIdentifier");
        }
        build_identifier(w, &l.build_id, 1);
        if let Some(p) = &l.storage_path {
            storage_path(w, p);
        }
    }
}

fn build_identifier(w: &mut Writer, id: &str, flags: u32) {
    let args = [
        (operand::IDENTIFIER, encode::V::Str(id.to_string())),
        (operand::FLAGS, encode::V::Num(flags)),
    ];
    w.e.ext(instruction::DEBUG_BUILD_IDENTIFIER, &args);
}

fn storage_path(w: &mut Writer, path: &str) {
    let args = [(operand::PATH, encode::V::Str(path.to_string()))];
    w.e.ext(instruction::DEBUG_STORAGE_PATH, &args);
}

fn dropped(w: &mut Writer, what: &str) {
    w.ledger.push(LossKind::Dropped, "module", what);
}
