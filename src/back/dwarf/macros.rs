//! .debug_macro (DWARF 5; the same layout as GNU's version-4 extension for DWARF 4 units): one
//! table per unit with macros, definitions written inline (DW_MACRO_define/undef), included
//! files as start_file/end_file with the unit's line-table file index. Each table's
//! debug_line_offset is filled in once the line programs are laid out (`patch_line_offsets`).

use gimli::write::AttributeValue;

use super::builder::Builder;
use crate::diag::LossKind;
use crate::dwarf::bytes::put_uleb;
use crate::ir::{Handle, Macro, MacroKind, Ref};

/// The macro section and, per table, (its offset, the unit it belongs to).
pub(super) struct MacroSection {
    pub bytes: Vec<u8>,
    pub tables: Vec<(usize, usize)>,
}

fn cstr(out: &mut Vec<u8>, s: &str) {
    out.extend(s.bytes().filter(|&c| c != 0));
    out.push(0);
}

pub(super) fn build(b: &mut Builder) -> Option<MacroSection> {
    let m = b.m;
    if m.macros.is_empty() {
        return None;
    }
    let mut children: std::collections::HashMap<Option<Ref>, Vec<Handle<Macro>>> =
        Default::default();
    for (h, mac) in m.macros.iter() {
        children.entry(mac.parent).or_default().push(h);
    }
    let mut sec = MacroSection {
        bytes: Vec::new(),
        tables: Vec::new(),
    };
    for u in 0..b.units.len() {
        let key = Some(Ref::Unit(Handle::new(u as u32)));
        let Some(top) = children.get(&key).cloned() else {
            continue;
        };
        let version = b.dwarf.units.get(b.units[u]).version();
        let start = sec.bytes.len();
        sec.bytes.extend_from_slice(&(version.max(4)).to_le_bytes());
        sec.bytes.push(0x02); // 32-bit offsets; a debug_line_offset follows
        sec.bytes.extend_from_slice(&[0; 4]);
        let mut body = Vec::new();
        let files_named = entries(b, u, &children, &top, &mut body, 0);
        // gimli writes a line program only if it has rows or a DIE names one of its files: a
        // unit whose macros name files but which has no rows gets an empty sequence (a lone
        // end of sequence, which readers take as no row), so that its file table is written.
        let program = &mut b.unit_mut(u).line_program;
        if files_named && program.is_empty() {
            program.end_sequence(0);
        }
        sec.bytes.extend_from_slice(&body);
        sec.bytes.push(0);
        let attr = if version >= 5 {
            gimli::DW_AT_macros
        } else {
            gimli::DW_AT_GNU_macros
        };
        let root = b.dwarf.units.get(b.units[u]).root();
        b.set(
            (u, root),
            attr,
            AttributeValue::DebugMacroRef(gimli::DebugMacroOffset(start)),
        );
        sec.tables.push((start, u));
    }
    let orphans = m
        .macros
        .iter()
        .filter(|(_, x)| !matches!(x.parent, Some(Ref::Unit(_)) | Some(Ref::Macro(_))))
        .count();
    if orphans > 0 {
        b.diags.push(
            LossKind::Dropped,
            "macros",
            format!("{orphans} macro(s) belonging to no unit"),
        );
    }
    Some(sec)
}

fn entries(
    b: &mut Builder,
    u: usize,
    children: &std::collections::HashMap<Option<Ref>, Vec<Handle<Macro>>>,
    list: &[Handle<Macro>],
    out: &mut Vec<u8>,
    depth: usize,
) -> bool {
    let mut files_named = false;
    if depth > 256 {
        return files_named;
    }
    for &h in list {
        let mac = &b.m.macros.get(h);
        match mac.kind {
            MacroKind::DEFINE | MacroKind::UNDEF => {
                out.push(mac.kind.0);
                put_uleb(out, mac.line.into());
                let name = mac.name.as_deref().unwrap_or("");
                match (&mac.value, mac.kind) {
                    (Some(v), MacroKind::DEFINE) => cstr(out, &format!("{name} {v}")),
                    _ => cstr(out, name),
                }
            }
            MacroKind::START_FILE => {
                let index = match mac.file {
                    Some(f) => b.file(u, f).1,
                    None => 0,
                };
                files_named |= mac.file.is_some();
                out.push(0x03);
                put_uleb(out, mac.line.into());
                put_uleb(out, index);
                if let Some(inner) = children.get(&Some(Ref::Macro(h))) {
                    files_named |= entries(b, u, children, &inner.clone(), out, depth + 1);
                }
                out.push(0x04);
            }
            _ => b.loss(LossKind::Dropped, Ref::Macro(h), "macro import entry"),
        }
    }
    files_named
}

impl MacroSection {
    /// Writes each table's debug_line_offset: its unit's DW_AT_stmt_list.
    pub(super) fn patch_line_offsets(&mut self, stmt: &[Option<(usize, u32)>]) {
        for &(start, u) in &self.tables {
            if let Some(Some((_, off))) = stmt.get(u) {
                self.bytes[start + 3..start + 7].copy_from_slice(&off.to_le_bytes());
            }
        }
    }
}
