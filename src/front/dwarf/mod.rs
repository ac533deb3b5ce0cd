//! The DWARF reader: DWARF 4 and 5 in ELF relocatable objects and executables (x86-64, AMDGPU)
//! → IR. gimli parses units, DIEs, line programs, location/range lists and macros (but the
//! entries of DWARF 5 location lists, which `expr::fast_lle` reads as gimli does without its
//! call per LEB128 number, leaving to gimli whatever it does not know); dwarv's own codec
//! (`crate::dwarf`) decodes expressions (AMD's vendor ops, both encodings) and `.debug_frame`
//! (AMD's aspace CFA rules), which gimli cannot.
//!
//! Reading runs in passes over each unit's DIE tree, iteratively (no recursion on input depth):
//! 1. plan: what each DIE becomes (an entity, an alias of its abstract origin, a part of its
//!    parent), allocating the entity, so that every reference has a target before any is read;
//! 2. fill: the fields of each entity from its attributes; attributes dwarv has no field for
//!    are kept as raw `(attribute, form, bytes)`;
//! 3. line programs, macros, `.debug_frame`, dwarv's own attributes back to their fields, then
//!    `ir::verify` on the result.
//!
//! One file per concern, named as the writer's (`back::dwarf`): `unit` (the walk of each unit and
//! the unit DIE), `types`, `scopes` (functions, blocks, inlined subroutines, call sites), `vars`,
//! `expr` (expressions, locations, bounds, constants), `line`, `macros`, `frame`, `elf` (the
//! container), `spirv` (DWARF written from SPIR-V); `walker` is the shared context they all
//! import (the `Walker`, one DIE's attributes, the getters, the error type) and imports none of
//! them.
//!
//! The mapping is docs/dwarf.md.

mod elf;
mod expr;
mod frame;
mod line;
mod macros;
mod records;
mod scopes;
mod types;
mod unit;
mod vars;
mod walker;

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::ir::verify::Verified;
use crate::ir::{self, Source, SourceFormat};
use walker::{fail, DErr, DResult};

pub use elf::EM_AMDGPU;

/// Reads the DWARF of an ELF file. `name` names the input in errors. The module keeps every IR
/// rule (DWARF that breaks one is damaged input).
pub fn read(bytes: &[u8], name: &str) -> Result<(Verified, Diagnostics), Error> {
    read_inner(bytes).map_err(|e| Error::Dwarf {
        path: name.to_string(),
        section: e.section,
        offset: e.offset,
        message: e.message,
    })
}

fn read_inner(bytes: &[u8]) -> DResult<(Verified, Diagnostics)> {
    let elf = elf::load(bytes)?;
    let mut m = ir::Module {
        source: Source {
            format: SourceFormat::Dwarf,
            flavour: Some(machine_name(elf.machine)),
        },
        ..Default::default()
    };
    m.info.machine = Some(elf.machine);
    m.info.address_size = Some(elf.address_size);
    let mut diag = Diagnostics::default();
    let read = unit::read_units(&elf, &mut m, &mut diag)?;
    frame::read_frame(&elf, &read.encodings, &mut m, &mut diag)?;
    records::apply(&mut m, &read.numbered_inlined)?;
    records::apply_everywhere(&mut m)?;
    // dwarv's own attributes, by concern.
    unit::own_attributes(&mut m);
    types::own_attributes(&mut m);
    unit::flagged_types(&mut m, &read.flagged);
    scopes::own_attributes(&mut m);
    vars::own_attributes(&mut m);
    let m = records::without_synthesized_unit(m)?;
    let m = Verified::new(m).map_err(|findings| {
        fail(
            ".debug_info",
            0,
            format!("the DWARF breaks IR rules:\n{findings}"),
        )
    })?;
    Ok((m, diag))
}

/// DIEs of `.debug_info` by tag name (`DW_TAG_variable` …; unknown tags as `DW_TAG_0x…`), for
/// `dwarv stats`: the DWARF counterpart of counting SPIR-V debug instructions by opcode.
pub fn die_tags(
    bytes: &[u8],
    name: &str,
) -> Result<std::collections::BTreeMap<String, u64>, Error> {
    let err = |e: DErr| Error::Dwarf {
        path: name.to_string(),
        section: e.section,
        offset: e.offset,
        message: e.message,
    };
    let elf = elf::load(bytes).map_err(err)?;
    let section = |id: gimli::SectionId| {
        Ok::<_, gimli::Error>(gimli::EndianSlice::new(
            elf.section(id.name()),
            gimli::LittleEndian,
        ))
    };
    let dwarf =
        gimli::Dwarf::load(section).map_err(|e| err(fail(".debug_info", 0, e.to_string())))?;
    let mut counts = std::collections::BTreeMap::new();
    let bad = |e: gimli::Error| err(fail(".debug_info", 0, e.to_string()));
    let mut units = dwarf.units();
    while let Some(header) = units.next().map_err(bad)? {
        let unit = dwarf.unit(header).map_err(bad)?;
        let mut entries = unit.entries();
        while let Some(die) = entries.next_dfs().map_err(bad)? {
            let tag = die.tag();
            let key = tag
                .static_string()
                .map_or_else(|| format!("DW_TAG_{:#x}", tag.0), str::to_string);
            *counts.entry(key).or_default() += 1;
        }
    }
    Ok(counts)
}

/// The ELF machine as the IR's source flavour names it.
pub fn machine_name(machine: u16) -> String {
    match machine {
        m if m == object::elf::EM_X86_64.0 => "x86-64".into(),
        EM_AMDGPU => "amdgpu".into(),
        m if m == object::elf::EM_386.0 => "i386".into(),
        m if m == object::elf::EM_AARCH64.0 => "aarch64".into(),
        n => format!("em{n}"),
    }
}
