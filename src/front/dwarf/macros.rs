//! Macros of one unit: .debug_macro (DWARF 5) and .debug_macinfo (DWARF 4).

use rustc_hash::FxHashMap as HashMap;

use super::walker::{fail, lossy, DResult, MacroAt, Slice, Units};
use crate::ir::{File, Handle, Macro, MacroKind, Module, Ref, Unit};

/// Splits a macro definition `NAME(args) value` / `NAME value` into name and value.
fn split_define(text: &str) -> (String, Option<String>) {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ' ' if depth <= 0 => return (text[..i].to_string(), Some(text[i + 1..].to_string())),
            _ => {}
        }
    }
    (text.to_string(), None)
}

/// The unit's macros (.debug_macro for DWARF 5, .debug_macinfo for DWARF 4).
pub fn read_macros(
    u: &Units<'_>,
    unit: &gimli::Unit<Slice<'_>>,
    unit_handle: Handle<Unit>,
    files: &HashMap<u64, Handle<File>>,
    m: &mut Module,
    offset: MacroAt,
) -> DResult<()> {
    let (section, at) = match offset {
        MacroAt::Macro(o) => (".debug_macro", o),
        MacroAt::Macinfo(o) => (".debug_macinfo", o),
    };
    let err = |e: gimli::Error| fail(section, at, e.to_string());
    let mut iter = match offset {
        MacroAt::Macro(o) => u.dwarf.macros(gimli::DebugMacroOffset(o as usize)),
        MacroAt::Macinfo(o) => u.dwarf.macinfo(gimli::DebugMacinfoOffset(o as usize)),
    }
    .map_err(err)?;
    let unit_ref = gimli::UnitRef::new(&u.dwarf, unit);
    let mut stack: Vec<Handle<Macro>> = Vec::new();
    let mut count = 0usize;
    while let Some(entry) = iter.next().map_err(err)? {
        count += 1;
        if count > 10_000_000 {
            return Err(fail(section, at, "more than 10 million macro entries"));
        }
        let parent = Some(
            stack
                .last()
                .map_or(Ref::Unit(unit_handle), |h| Ref::Macro(*h)),
        );
        let line = |l: u64| u32::try_from(l).unwrap_or(u32::MAX);
        let mut mac = Macro {
            kind: MacroKind::DEFINE,
            parent,
            line: 0,
            file: None,
            name: None,
            value: None,
            definition: None,
        };
        match entry {
            gimli::MacroEntry::Define { line: l, text } => {
                let text = lossy(text.string(unit_ref).map_err(err)?);
                let (name, value) = split_define(&text);
                mac.line = line(l);
                mac.name = Some(name);
                mac.value = value;
            }
            gimli::MacroEntry::Undef { line: l, name } => {
                mac.kind = MacroKind::UNDEF;
                mac.line = line(l);
                mac.name = Some(lossy(name.string(unit_ref).map_err(err)?));
            }
            gimli::MacroEntry::StartFile { line: l, file } => {
                mac.kind = MacroKind::START_FILE;
                mac.line = line(l);
                mac.file = files.get(&file).copied();
                stack.push(m.macros.push(mac));
                continue;
            }
            gimli::MacroEntry::EndFile => {
                stack.pop();
                continue;
            }
            gimli::MacroEntry::Import { .. } | gimli::MacroEntry::ImportSup { .. } => {
                mac.kind = MacroKind::IMPORT;
            }
            gimli::MacroEntry::VendorExt { .. } => continue,
        }
        m.macros.push(mac);
    }
    Ok(())
}
