//! DWARF 5 type units (DW_UT_type). gimli 0.34 writes every unit with a compile unit's header
//! (12 bytes in 32-bit DWARF); a type unit's is 24: the same fields with unit type
//! DW_UT_type, then the 8-byte type signature and the offset of the type the signature names.
//! After gimli has written `.debug_info`, each type unit gets those 12 bytes after its header,
//! its root DIE the tag DW_TAG_type_unit (its abbreviation, which no other unit's root shares:
//! a type unit's root has no DW_AT_low_pc), and the references that cross the inserted bytes
//! move with them: every unit-relative reference inside a type unit, and every `ref_addr`
//! beyond one.

use gimli::constants as dw;
use gimli::read::{AttributeValue, DebugAbbrev, DebugInfo};
use gimli::LittleEndian;

use super::read_back::u32_at;
use crate::dwarf::bytes::Cursor;

/// A unit to write as a type unit: its index among the units gimli wrote, its signature, and
/// the offset in `.debug_info` (as gimli wrote it) of the DIE of the type the signature names.
pub(super) struct TypeUnit {
    pub index: usize,
    pub signature: u64,
    pub type_die: u64,
}

/// What the 12 bytes after a type unit's header hold.
const EXTRA: usize = 12;

/// Rewrites `info` and `abbrev` so that the units `tus` names are type units.
pub(super) fn patch(info: &mut Vec<u8>, abbrev: &mut [u8], tus: &[TypeUnit]) -> Result<(), String> {
    if tus.is_empty() {
        return Ok(());
    }
    let err = |e: gimli::read::Error| format!("reading back .debug_info: {e}");
    let abbrevs_sec = DebugAbbrev::new(&abbrev[..], LittleEndian);
    // Each unit: (offset, (its abbreviation table, its root's code)); and the fixes:
    // (position, width, new value).
    let mut units: Vec<(usize, (usize, u64))> = Vec::new();
    let mut fixes: Vec<(usize, usize, u64)> = Vec::new();
    let mut headers = DebugInfo::new(&info[..], LittleEndian).units();
    let mut index = 0;
    // Offsets (as written) after which the inserted bytes of a type unit come.
    let inserted: Vec<usize> = {
        let mut v = Vec::new();
        let mut h = DebugInfo::new(&info[..], LittleEndian).units();
        let mut i = 0;
        while let Some(u) = h.next().map_err(err)? {
            if tus.iter().any(|t| t.index == i) {
                v.push(u.offset().0 + EXTRA);
            }
            i += 1;
        }
        v
    };
    let moved = |o: u64| o + (EXTRA * inserted.iter().filter(|&&p| p as u64 <= o).count()) as u64;
    while let Some(h) = headers.next().map_err(err)? {
        let off = h.offset().0;
        let is_tu = tus.iter().any(|t| t.index == index);
        if is_tu && (h.format() != gimli::Format::Dwarf32 || h.version() != 5) {
            return Err("a type unit that is not 32-bit DWARF 5".into());
        }
        let abbrevs = h.abbreviations(&abbrevs_sec).map_err(err)?;
        let body = off + h.size_of_header();
        let mut raw = h.entries_raw(&abbrevs, None).map_err(err)?;
        let mut root = None;
        while !raw.is_empty() {
            let Some(a) = raw.read_abbreviation().map_err(err)? else {
                continue;
            };
            root.get_or_insert(a.code());
            for spec in a.attributes() {
                let at = body + raw.next_offset().0 - h.size_of_header();
                let attr = raw.read_attribute(*spec).map_err(err)?;
                let end = body + raw.next_offset().0 - h.size_of_header();
                match (attr.raw_value(), spec.form()) {
                    (AttributeValue::UnitRef(r), f) if is_tu => {
                        if f == dw::DW_FORM_ref_udata {
                            return Err("a ULEB128 reference in a type unit".into());
                        }
                        fixes.push((at, end - at, r.0 as u64 + EXTRA as u64));
                    }
                    (AttributeValue::DebugInfoRef(r), _) => {
                        fixes.push((at, end - at, moved(r.0 as u64)));
                    }
                    _ => {}
                }
            }
        }
        units.push((off, (h.debug_abbrev_offset().0, root.unwrap_or(0))));
        index += 1;
    }
    // Type units' roots get DW_TAG_type_unit; no other unit's root may share the abbreviation.
    for t in tus {
        let &(_, code) = units
            .get(t.index)
            .ok_or("a type unit gimli did not write")?;
        let shared = units
            .iter()
            .enumerate()
            .any(|(i, u)| u.1 == code && !tus.iter().any(|t| t.index == i));
        if shared {
            return Err("a type unit's root abbreviation is a compile unit's too".into());
        }
        set_root_tag(abbrev, code.0, code.1)?;
    }
    for (at, width, v) in fixes {
        let b = v.to_le_bytes();
        if width > 8 || b[width..].iter().any(|&x| x != 0) {
            return Err(format!("reference {v:#x} does not fit its form at {at:#x}"));
        }
        info[at..at + width].copy_from_slice(&b[..width]);
    }
    // The headers, from the last unit back so that earlier offsets hold.
    for t in tus.iter().rev() {
        let off = units[t.index].0;
        let len = u32_at(info, off)? as usize;
        info[off..off + 4].copy_from_slice(&((len + EXTRA) as u32).to_le_bytes());
        info[off + 6] = dw::DW_UT_type.0;
        let type_offset = t
            .type_die
            .checked_sub(off as u64)
            .ok_or("a type outside its type unit")?
            + EXTRA as u64;
        let mut extra = t.signature.to_le_bytes().to_vec();
        extra.extend_from_slice(&(type_offset as u32).to_le_bytes());
        let at = off + 12;
        info.splice(at..at, extra);
    }
    Ok(())
}

/// Gives abbreviation `code` of the table at `table` DW_TAG_type_unit.
fn set_root_tag(abbrev: &mut [u8], table: usize, code: u64) -> Result<(), String> {
    let rest = abbrev
        .get(table..)
        .ok_or("abbreviation table out of bounds")?;
    let tag_at = root_tag_at(rest, code).map_err(|e| format!(".debug_abbrev+{table:#x}: {e}"))?;
    abbrev[table + tag_at] = dw::DW_TAG_type_unit.0 as u8;
    Ok(())
}

/// Where the tag of abbreviation `code` of `table` is, when it is a one-byte
/// DW_TAG_compile_unit.
fn root_tag_at(table: &[u8], code: u64) -> Result<usize, String> {
    let mut c = Cursor::new(table);
    let e = |e: crate::dwarf::CodecError| e.to_string();
    loop {
        let this = c.uleb("code").map_err(e)?;
        if this == 0 {
            return Err(format!("abbreviation {code} not found"));
        }
        let tag_at = c.pos;
        let tag = c.uleb("tag").map_err(e)?;
        let one_byte = c.pos == tag_at + 1;
        c.u8("children").map_err(e)?;
        if this == code {
            if tag != u64::from(dw::DW_TAG_compile_unit.0) || !one_byte {
                return Err(format!("abbreviation {code} is no compile unit's"));
            }
            return Ok(tag_at);
        }
        loop {
            let name = c.uleb("attribute").map_err(e)?;
            let form = c.uleb("form").map_err(e)?;
            if form == u64::from(dw::DW_FORM_implicit_const.0) {
                c.sleb("implicit constant").map_err(e)?;
            }
            if name == 0 && form == 0 {
                break;
            }
        }
    }
}
