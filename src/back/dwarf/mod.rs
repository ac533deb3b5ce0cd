//! The DWARF writer: IR → DWARF 4/5 in a debug-only ELF object (gimli::write + object), or the
//! debug sections of a copy of a given binary replaced (`--into`).
//!
//! One file per concern, named as the reader's (`front::dwarf`): `unit` (the writing pass, the
//! unit DIE and where every DIE goes), `types`, `scopes` (functions, blocks, labels, imports,
//! call sites), `inlined` (inlined subroutines, abstract and concrete functions), `vars`, `expr`
//! (expressions, location lists, bounds), `line` (line programs, and the in-place
//! DW_LNCT_LLVM_is_MD5 splice gimli cannot write), `macros` (.debug_macro), `frame` (call-frame
//! information, with the in-place swap of AMD's CFA programs), `elf` (the container), `spirv`
//! (what DWARF written from SPIR-V carries); `builder` is the shared context they all import
//! (the `Builder`, the DIE map, the attribute setters) and imports none of them, only the byte
//! helpers `compact` and `loclists`; `read_back` reads back what gimli wrote for the in-place
//! patches. (The AMDGPU ELF machine needs no patch: `elf` writes e_machine with object's
//! low-level writer.)
//! The mapping decisions are in docs/dwarf.md, "Writer".

mod builder;
mod compact;
mod elf;
mod expr;
mod frame;
mod inlined;
mod line;
mod loclists;
mod macros;
mod read_back;
mod records;
mod rows;
mod scopes;
mod type_units;
mod types;
mod unit;
mod vars;

use crate::diag::Diagnostics;
use crate::error::Result;
use crate::ir::verify::Verified;
use crate::ir::{Module, SourceFormat};
use crate::output::Parts;
pub use builder::OpEncoding;
use builder::Settings;

#[derive(Clone, Debug, Default)]
pub struct WriteOptions<'a> {
    /// Force every unit to this DWARF version (4 or 5); else each unit keeps its own.
    pub dwarf_version: Option<u16>,
    /// Force the AMD extensions on or off; else on when the module holds them.
    pub amd_ext: Option<bool>,
    pub op_encoding: OpEncoding,
    /// A binary whose debug sections the output replaces (`--into`).
    pub into: Option<&'a [u8]>,
}

/// Writes the module's debug info as an ELF object; returns the bytes and the losses.
pub fn write(m: &Verified, opts: &WriteOptions) -> Result<(Vec<u8>, Diagnostics)> {
    let (parts, diags) = write_from(unit::Source::Borrowed(m), opts)?;
    Ok((parts.into_vec(), diags))
}

/// [`write()`], taking the module: it is freed once the DIEs are built, before they are
/// serialised, which lowers the writer's peak memory. The output comes in parts, the
/// `--into` binary's own bytes among them, to be written out without joining them first.
pub fn write_owned<'a>(m: Verified, opts: &WriteOptions<'a>) -> Result<(Parts<'a>, Diagnostics)> {
    write_from(unit::Source::Owned(Box::new(m.into_inner())), opts)
}

fn write_from<'a>(src: unit::Source, opts: &WriteOptions<'a>) -> Result<(Parts<'a>, Diagnostics)> {
    let m = src.module();
    let base = match opts.into {
        Some(bytes) => Some(elf::Base::parse(bytes)?),
        None => None,
    };
    let machine = base
        .as_ref()
        .map(|b| b.machine)
        .or(m.info.machine)
        .unwrap_or(object::elf::EM_X86_64.0);
    let address_size = match &base {
        Some(b) => b.address_size(),
        None => match m.info.address_size {
            Some(4) if elf::is_32bit_machine(machine) => 4,
            _ => 8,
        },
    };
    let settings = Settings {
        machine,
        address_size,
        amd: opts.amd_ext.unwrap_or_else(|| holds_amd(m)),
        op_encoding: opts.op_encoding,
        version: opts.dwarf_version,
    };
    let mut diags = Diagnostics::default();
    // Every DIE lives in a compile unit: a module with entities but no unit (vISA tables) gets
    // one; a module with nothing at all stays an error.
    // Line rows alone (a shader compiled with OpLine only) are debug info too.
    let has_entities =
        !(m.scopes.is_empty() && m.vars.is_empty() && m.types.is_empty() && m.lines.is_empty());
    let added = m.units.is_empty() && has_entities;
    let src = match added {
        true => unit::Source::Owned(Box::new(add_unit(m, &mut diags))),
        false => src,
    };
    let m = src.module();
    if !added {
        // Functions, blocks and variables without a scope go under the first unit's root, and
        // read back as that unit's: say so.
        let scopes = m.scopes.values().filter(|s| s.parent.is_none()).count();
        let vars = m.vars.values().filter(|v| v.scope.is_none()).count();
        if scopes + vars > 0 {
            diags.push(
                crate::diag::LossKind::Approximated,
                "module",
                format!(
                    "{scopes} scope(s) and {vars} variable(s) without a scope: written in a unit"
                ),
            );
        }
    }
    let mut sections = unit::build(src, &settings, &mut diags)?;
    if base.is_some() && sections.iter().any(|(n, _)| *n == ".eh_frame") {
        // A binary's .eh_frame is loaded (the unwinder reads it): --into keeps the binary's own.
        sections.retain(|(n, _)| *n != ".eh_frame");
        diags.push_written(
            crate::diag::LossKind::Dropped,
            "module",
            ".eh_frame CFI not written: --into keeps the binary's own .eh_frame",
        );
    }
    let bytes = match base {
        Some(b) => b.replace_debug(sections)?,
        None => elf::standalone(&settings, &sections)?.into(),
    };
    Ok((bytes, diags))
}

/// Whether the module carries AMD extensions (or comes from SPIR-V or vISA, whose units always
/// get them: address spaces, vector sizes, lanes).
fn holds_amd(m: &Module) -> bool {
    matches!(m.source.format, SourceFormat::Spirv | SourceFormat::Visa)
        || m.info.machine == Some(object::elf::EM_AMDGPU.0)
        || m.units.values().any(|u| u.augmentation.is_some())
        || m.types.values().any(|t| match &t.kind {
            crate::ir::TypeKind::Pointer { space, .. } => *space != Default::default(),
            _ => false,
        })
        || m.exprs.values().any(|e| e.ops.iter().any(expr::is_amd_op))
}

/// A copy of `m` with one compile unit, for a module that has none: OpenCL for vISA tables (what
/// IGC compiles), C99 otherwise; the entities without a unit in their scope chain belong to the
/// first unit. Ledgered as approximated.
fn add_unit(m: &Module, diags: &mut Diagnostics) -> Module {
    let mut m = m.clone();
    let language = match m.source.format {
        crate::ir::SourceFormat::Visa => crate::ir::Language::OPENCL,
        _ => crate::ir::Language::C99,
    };
    // Marked for dwarv's reader, which takes it out again where the records make the reading
    // exact; other readers see a unit.
    let extra = match records::exact(&m) {
        true => vec![crate::ir::RawAttr {
            attr: crate::spec::dwarf_vendor::DW_AT_DWARV_SYNTHESIZED_UNIT.0,
            form: gimli::DW_FORM_flag_present.0,
            bytes: Vec::new(),
        }],
        false => Vec::new(),
    };
    m.units.push(crate::ir::Unit {
        language,
        producer: Some("dwarv".into()),
        extra,
        ..Default::default()
    });
    diags.push(
        crate::diag::LossKind::Approximated,
        "module",
        format!(
            "no compile unit: one was written (language {}, producer \"dwarv\")",
            language.name().unwrap_or("?")
        ),
    );
    m
}
