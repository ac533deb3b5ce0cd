//! The small in-place post-passes for what gimli::write cannot express (measured in
//! toolchain-findings §3):
//! - `DW_LNCT_LLVM_is_MD5`: gimli's set of file-entry columns is fixed, so the writer turns on
//!   the timestamp column (values 0/1) and renames its content code 0x03 to 0x2002 here — one
//!   byte more per line-program header, with the unit and header lengths and every later unit's
//!   DW_AT_stmt_list moved along;
//! - custom CFA instructions (AMD's DW_CFA_LLVM_def_aspace_cfa): gimli has no raw instruction,
//!   so each program goes in as a `DW_CFA_val_expression` of a marker register whose block is the
//!   program, replaced here by the program and DW_CFA_nop padding (lengths unchanged).
//!
//! (The AMDGPU ELF machine needs no patch: `elf` writes e_machine with object's low-level
//! writer.)

use crate::dwarf::bytes::Leb128;

/// The register of the CFA placeholder (no target has it).
pub const CFA_MARKER_REG: u16 = 0xfff0;
const MARKER: [u8; 4] = [0x16, 0xf0, 0xff, 0x03];

fn u16_at(b: &[u8], at: usize) -> Result<u16, String> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| format!("truncated at {at}"))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| format!("truncated at {at}"))
}

fn uleb(b: &[u8], at: &mut usize) -> Result<u64, String> {
    let leb = Leb128::scan(b.get(*at..).unwrap_or_default(), 10);
    *at += leb.len;
    match (leb.ended, leb.len) {
        (true, _) => Ok(leb.bits),
        (false, 10) => Err(format!("LEB128 too long at {at}")),
        (false, _) => Err(format!("truncated LEB128 at {at}")),
    }
}

/// Skips one value of a form used in line-program entry tables.
fn skip_form(b: &[u8], at: &mut usize, form: u64) -> Result<(), String> {
    match form {
        0x08 => {
            let n = b[*at..]
                .iter()
                .position(|&c| c == 0)
                .ok_or("unterminated string")?;
            *at += n + 1;
        }
        0x0e | 0x1f | 0x17 => *at += 4, // strp, line_strp, sec_offset (32-bit DWARF)
        0x0f => {
            uleb(b, at)?;
        }
        0x0b => *at += 1,
        0x05 => *at += 2,
        0x06 => *at += 4,
        0x07 => *at += 8,
        0x1e => *at += 16,
        0x09 => {
            let n = uleb(b, at)? as usize;
            *at += n;
        }
        f => return Err(format!("form 0x{f:x} in a line-table entry format")),
    }
    if *at > b.len() {
        return Err("entry table past the end".into());
    }
    Ok(())
}

/// Renames the timestamp file column to DW_LNCT_LLVM_is_MD5 in every v5 line program that has
/// one, and moves the DW_AT_stmt_list of the units after each change.
pub fn splice_is_md5(line: &mut Vec<u8>, info: &mut [u8], abbrev: &[u8]) -> Result<(), String> {
    let mut at = 0usize;
    // Original offsets of the programs that grew by one byte.
    let mut grown: Vec<usize> = Vec::new();
    let mut shift = 0usize;
    while at < line.len() {
        let len = u32_at(line, at)? as usize;
        if len >= 0xffff_fff0 {
            return Err("64-bit DWARF line program".into());
        }
        let next = at + 4 + len;
        if u16_at(line, at + 4)? >= 5 {
            if let Some(pos) = timestamp_code(line, at)? {
                line.splice(pos..pos + 1, [0x82, 0x40]);
                let unit_len = u32_at(line, at)? + 1;
                line[at..at + 4].copy_from_slice(&unit_len.to_le_bytes());
                let hl = u32_at(line, at + 8)? + 1;
                line[at + 8..at + 12].copy_from_slice(&hl.to_le_bytes());
                grown.push(at - shift);
                shift += 1;
                at = next + 1;
                continue;
            }
        }
        at = next;
    }
    if grown.is_empty() {
        return Ok(());
    }
    for (p, old) in stmt_lists(info, abbrev)?.into_iter().flatten() {
        let old = old as usize;
        let moved = old + grown.iter().filter(|&&g| g < old).count();
        info[p..p + 4].copy_from_slice(&(moved as u32).to_le_bytes());
    }
    Ok(())
}

/// The DW_AT_stmt_list of each unit (the root DIE's first attribute, as `unit::fill_unit` puts
/// it): (its position in .debug_info, its value), or None for a unit without a line program.
pub fn stmt_lists(info: &[u8], abbrev: &[u8]) -> Result<Vec<Option<(usize, u32)>>, String> {
    let mut out = Vec::new();
    let mut u = 0usize;
    while u < info.len() {
        let len = u32_at(info, u)? as usize;
        let version = u16_at(info, u + 4)?;
        let (abbrev_off, header) = match version {
            5 => (u32_at(info, u + 8)? as usize, 12),
            _ => (u32_at(info, u + 6)? as usize, 11),
        };
        let mut p = u + header;
        uleb(info, &mut p)?; // the root's abbreviation code
        let mut a = abbrev_off;
        uleb(abbrev, &mut a)?; // code
        uleb(abbrev, &mut a)?; // tag
        a += 1; // children
        let (name, form) = (uleb(abbrev, &mut a)?, uleb(abbrev, &mut a)?);
        out.push((name == 0x10 && form == 0x17).then(|| (p, u32_at(info, p).unwrap_or(0))));
        u += 4 + len;
    }
    Ok(out)
}

/// The position of the DW_LNCT_timestamp code in a v5 header's file-entry format, if any.
fn timestamp_code(b: &[u8], unit: usize) -> Result<Option<usize>, String> {
    let opcode_base = *b.get(unit + 17).ok_or("truncated header")?;
    let mut at = unit + 18 + usize::from(opcode_base).saturating_sub(1);
    let dir_formats = *b.get(at).ok_or("truncated header")?;
    at += 1;
    let mut forms = Vec::new();
    for _ in 0..dir_formats {
        uleb(b, &mut at)?;
        forms.push(uleb(b, &mut at)?);
    }
    let dirs = uleb(b, &mut at)?;
    for _ in 0..dirs {
        for &f in &forms {
            skip_form(b, &mut at, f)?;
        }
    }
    let file_formats = *b.get(at).ok_or("truncated header")?;
    at += 1;
    for _ in 0..file_formats {
        let code_at = at;
        let code = uleb(b, &mut at)?;
        uleb(b, &mut at)?;
        if code == 0x03 {
            return Ok(Some(code_at));
        }
    }
    Ok(None)
}

/// Replaces each CFA placeholder (`DW_CFA_val_expression` of [`CFA_MARKER_REG`]) by the program
/// it carries, padded with DW_CFA_nop.
pub fn replace_cfa_placeholders(frame: &mut [u8]) -> Result<(), String> {
    let mut at = 0usize;
    while at < frame.len() {
        let len = u32_at(frame, at)? as usize;
        let end = at + 4 + len;
        if end > frame.len() {
            return Err(format!("entry at {at} runs past the end"));
        }
        let mut p = at + 4;
        while let Some(i) = frame[p..end].windows(4).position(|w| w == MARKER) {
            let start = p + i;
            let mut q = start + 4;
            let n = uleb(frame, &mut q)? as usize;
            if q + n > end {
                p = start + 1;
                continue;
            }
            let program = frame[q..q + n].to_vec();
            let span = q + n - start;
            frame[start..start + n].copy_from_slice(&program);
            frame[start + n..start + span].fill(0); // DW_CFA_nop
            p = start + span;
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cfa_placeholder_becomes_program_and_nops() {
        // length 12: CIE id, then the placeholder with a 2-byte program [0x30 …].
        let mut f = vec![12, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        f.extend_from_slice(&MARKER);
        f.extend_from_slice(&[2, 0x30, 0x41]);
        f.push(0);
        replace_cfa_placeholders(&mut f).unwrap();
        assert_eq!(&f[8..], &[0x30, 0x41, 0, 0, 0, 0, 0, 0]);
    }

    // The reader this one replaced: at most ten bytes, bits from 64 up dropped.
    fn model_stmt_uleb(b: &[u8]) -> Result<u64, String> {
        let (mut v, mut at) = (0u64, 0usize);
        for shift in (0..64).step_by(7) {
            let x = *b
                .get(at)
                .ok_or_else(|| format!("truncated LEB128 at {at}"))?;
            at += 1;
            v |= u64::from(x & 0x7f) << shift;
            if x & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("LEB128 too long at {at}"))
    }

    #[test]
    fn uleb_keeps_its_rules() {
        let alphabet = [0x00u8, 0x01, 0x7f, 0x80, 0x81, 0xff];
        for n in 0..12 {
            for k in 0..4096usize {
                let b: Vec<u8> = (0..n)
                    .map(|i| alphabet[(k.wrapping_mul(2654435761) >> (i % 20)) % alphabet.len()])
                    .collect();
                let mut at = 0;
                assert_eq!(uleb(&b, &mut at), model_stmt_uleb(&b), "{b:x?}");
            }
        }
    }
}
