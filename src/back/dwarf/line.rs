//! Line programs: one per unit, its file table filled as DIEs and rows name files; IR line rows
//! become sequences (a gap between rows ends a sequence).

use gimli::write::{Dwarf, FileId, FileInfo, LineProgram, LineString};
use gimli::{constants as dw, DwForm, Encoding, LineEncoding};

use super::builder::{addr, nul_free, Builder};
use super::read_back::{u16_at, u32_at, uleb_at};
use super::rows;
use crate::diag::LossKind;
use crate::ir::{ChecksumKind, CodeRange, File, Handle, Module, Ref, ScopeKind, Unit};

/// Whether some files carry an MD5 and others not: then the MD5 column gets its
/// DW_LNCT_LLVM_is_MD5 companion (written as the timestamp column, spliced by `splice_is_md5`).
pub(super) fn mixed_md5(m: &Module) -> bool {
    let with = m.files.values().filter(|f| md5(f).is_some()).count();
    with > 0 && with < m.files.len()
}

fn md5(f: &File) -> Option<[u8; 16]> {
    let c = f.checksum.as_ref()?;
    (c.kind == ChecksumKind::MD5).then(|| c.bytes.as_slice().try_into().ok())?
}

/// A DWARF 4 file table ends at an empty name, so a file without one is listed by another.
pub(super) const NAMELESS_IN_DWARF4: &str =
    "a file without a name, listed as \"<unknown>\" (a DWARF 4 file table ends at an empty name)";

pub(super) fn new_program(dwarf: &mut Dwarf, m: &Module, u: &Unit, enc: Encoding) -> LineProgram {
    // A type unit has no file of its own: its file 0 is a compile unit's (as when it shares
    // that unit's line program, as compilers write it), which readers take as that file.
    let cu_file = || {
        (u.kind == crate::ir::UnitKind::TYPE)
            .then(|| m.units.values().find_map(|c| c.file))
            .flatten()
    };
    // A unit with no file and no compile unit to take one from (a damaged input: only type
    // units left, or a compile unit without a name) lists an existing file as file 0 rather
    // than an invented one, which would read back as a file of its own: the file of its first
    // line row, which the reader keeps (it takes a nameless unit's file 0 for a placeholder
    // unless a row names it), else the module's first file.
    let in_unit = |a: u64| {
        u.ranges
            .iter()
            .any(|r| addr(r.start) <= a && a < addr(r.end))
    };
    let row_file = || {
        m.lines
            .iter()
            .find(|r| in_unit(addr(r.range.start)))
            .and_then(|r| r.at.file)
    };
    let first = || m.files.iter().next().map(|(h, _)| h);
    let primary = u
        .file
        .or_else(cu_file)
        .or_else(row_file)
        .or_else(first)
        .map(|f| m.files.get(f));
    // A primary file without a directory keeps none: an empty directory 0, which the reader
    // takes as no directory.
    let dir = match primary {
        Some(f) => f.directory.clone().unwrap_or_default(),
        None => ".".into(),
    };
    // DWARF 5 takes an empty file name as it is; DWARF 4 needs one.
    let name = primary
        .map(|f| f.name.clone())
        .filter(|n| !n.is_empty() || enc.version >= 5)
        .unwrap_or_else(|| "<unknown>".into());
    let info = primary.and_then(|f| file_info(dwarf, m, f));
    let mut p = LineProgram::new(
        enc,
        LineEncoding::default(),
        LineString::String(nul_free(&dir)),
        None,
        LineString::String(nul_free(&name)),
        info,
    );
    if enc.version >= 5 {
        p.file_has_md5 = m.files.values().any(|f| md5(f).is_some());
        p.file_has_timestamp = p.file_has_md5 && mixed_md5(m);
        p.file_has_source = m.files.values().any(|f| f.source.is_some());
    }
    p
}

pub(super) fn file_info(dwarf: &mut Dwarf, m: &Module, f: &File) -> Option<FileInfo> {
    let mut info = FileInfo::default();
    if let Some(d) = md5(f) {
        info.md5 = d;
        info.timestamp = 1;
    }
    info.source = Some(match f.source {
        Some(t) => {
            LineString::LineStringRef(dwarf.line_strings.add(nul_free(&m.texts.get(t).text)))
        }
        None => LineString::String(Vec::new()),
    });
    Some(info)
}

/// The longest address advance between two rows of one sequence: gimli multiplies it by the
/// line range (a special opcode) in a u64. A longer row (damaged input: a dwarf_roundtrip
/// finding) ends its sequence, and the next row begins another at the same address.
const LONGEST_ROW_ADVANCE: u64 = u64::MAX / 256;

/// The line rows of every unit, encoded.
pub(super) struct LineRows {
    /// The is_MD5 splice is needed.
    pub is_md5: bool,
    /// One byte program per unit.
    pub programs: Vec<Vec<u8>>,
}

/// Encodes the IR's line rows, one byte program per unit (`rows::Encoder`; gimli's programs get
/// the files).
pub(super) fn rows(b: &mut Builder) -> Result<LineRows, String> {
    let m = b.m;
    let owner = UnitMap::new(b);
    let mut per_unit: Vec<Vec<u32>> = vec![Vec::new(); b.units.len()];
    if let [only] = per_unit.as_mut_slice() {
        only.reserve_exact(m.lines.len());
    }
    let mut fileless = 0;
    for (i, r) in m.lines.iter().enumerate() {
        per_unit[owner.unit_of(addr(r.range.start))].push(i as u32);
        fileless += usize::from(r.at.file.is_none());
        // SPIR-V and LLVM modules keep spans in DW_AT_dwarv_line_spans (`records`).
        let spans_kept = super::records::exact(m);
        if !spans_kept && (r.end_line.is_some_and(|l| l != r.at.line) || r.end_column.is_some()) {
            b.diags.push_written(
                LossKind::Dropped,
                format!("line row {i}"),
                "end line/column of a line row (DWARF rows have no span)",
            );
        }
    }
    // A DWARF string ends at its first NUL (names, directories and sources are written
    // without theirs).
    for (h, f) in m.files.iter() {
        let source = f.source.map(|t| m.texts.get(t).text.as_str());
        let texts = [Some(f.name.as_str()), f.directory.as_deref(), source];
        if texts.into_iter().flatten().any(|t| t.contains('\0')) {
            b.loss(
                LossKind::Approximated,
                Ref::File(h),
                "a file name, directory or source with NUL bytes, written without them",
            );
        }
    }
    if fileless > 0 {
        // A DWARF row always names a file: the reader cannot tell it was not said.
        b.diags.push(
            LossKind::Approximated,
            "module",
            format!("{fileless} line row(s) without a file: written in their unit's file"),
        );
    }
    let mut encoded = Vec::with_capacity(per_unit.len());
    for (u, mut idx) in per_unit.into_iter().enumerate() {
        // Keys are unique (the row's index last): an unstable sort, which needs no buffer.
        idx.sort_unstable_by_key(|&i| (addr(m.lines[i as usize].range.start), i));
        let primary = m.units.get(crate::ir::Handle::new(u as u32)).file;
        let mut prog = rows::Encoder::new(b.s.address_size);
        let mut seq: Option<(u64, u64)> = None; // (start, current end)
        let mut last = 0; // the previous row's address
        for i in idx {
            let r = &m.lines[i as usize];
            let (start, end) = (addr(r.range.start), addr(r.range.end));
            let file = r.at.file.or(primary).map(|f| b.file(u, f).1);
            match seq {
                Some((s0, e)) if e == start && start - last <= LONGEST_ROW_ADVANCE => {
                    seq = Some((s0, end))
                }
                Some((s0, e)) => {
                    prog.end_sequence(e - s0);
                    prog.begin_sequence(start);
                    seq = Some((start, end));
                }
                None => {
                    prog.begin_sequence(start);
                    seq = Some((start, end));
                }
            }
            let s0 = seq.map(|s| s.0).unwrap_or(start);
            let row = &mut prog.row;
            row.address_offset = start - s0;
            if let Some(f) = file {
                row.file = f;
            }
            row.line = r.at.line.into();
            row.column = r.at.column.into();
            row.discriminator = r.discriminator.into();
            row.is_statement = r.flags.is_stmt;
            row.basic_block = r.flags.basic_block;
            row.prologue_end = r.flags.prologue_end;
            row.epilogue_begin = r.flags.epilogue_begin;
            row.isa = r.isa.into();
            prog.generate_row();
            last = start;
        }
        if let Some((s0, e)) = seq {
            prog.end_sequence(e - s0);
            // gimli writes the header and, as the program, this lone end of sequence, which
            // `rows::splice` replaces with the rows.
            b.unit_mut(u).line_program.end_sequence(0);
        }
        if prog.too_large {
            return Err(gimli::write::Error::ValueTooLarge.to_string());
        }
        encoded.push(prog.bytes);
    }
    let is_md5 = b
        .dwarf
        .units
        .iter()
        .any(|(_, u)| u.line_program.file_has_timestamp);
    Ok(LineRows {
        is_md5,
        programs: encoded,
    })
}

/// Which unit covers an address: the units' own ranges, then their functions' ranges.
struct UnitMap {
    spans: Vec<(u64, u64, usize)>,
}

impl UnitMap {
    fn new(b: &Builder) -> UnitMap {
        let m = b.m;
        let mut spans = Vec::new();
        if b.units.len() > 1 {
            let mut push = |r: &CodeRange, u: usize| spans.push((addr(r.start), addr(r.end), u));
            for (h, u) in m.units.iter() {
                for r in &u.ranges {
                    push(r, h.index());
                }
            }
            for (h, s) in m.scopes.iter() {
                if let ScopeKind::Function(f) = &s.kind {
                    let u = b.dies.get(&Ref::Scope(h)).map_or(0, |d| d.0);
                    for r in &f.ranges {
                        push(r, u);
                    }
                }
            }
        }
        UnitMap { spans }
    }
    fn unit_of(&self, a: u64) -> usize {
        self.spans
            .iter()
            .find(|(s, e, _)| *s <= a && a < *e)
            .map_or(0, |x| x.2)
    }
}

impl Builder<'_, '_> {
    /// The line-program file of an IR file in unit `u` and its DWARF index.
    pub(super) fn file(&mut self, u: usize, f: Handle<crate::ir::File>) -> (FileId, u64) {
        if let Some(&id) = self.files[u].get(&f) {
            return id;
        }
        let file = &self.m.files.get(f);
        let uid = self.units[u];
        let version = self.dwarf.units.get(uid).version();
        let info = file_info(&mut self.dwarf, self.m, file);
        let dir = file.directory.clone().unwrap_or_default();
        let nameless = file.name.is_empty() && version <= 4;
        let name = if nameless { "<unknown>" } else { &file.name };
        let unit = self.dwarf.units.get_mut(uid);
        let before = unit.line_program.files().count();
        let default = unit.line_program.default_directory();
        // Directory 0 is the compilation directory; a file without a directory would read back
        // as in it. DWARF 5 can list an empty directory (read back as none); DWARF 4 cannot.
        let default_named = !matches!(
            unit.line_program.get_directory(default),
            LineString::String(d) if d.is_empty()
        );
        let mut placed_in_comp_dir = false;
        let dir_id = if !dir.is_empty() {
            unit.line_program
                .add_directory(LineString::String(nul_free(&dir)))
        } else if default_named && version >= 5 {
            unit.line_program
                .add_directory(LineString::String(Vec::new()))
        } else {
            placed_in_comp_dir = default_named;
            default
        };
        let id = unit
            .line_program
            .add_file(LineString::String(nul_free(name)), dir_id, info);
        // The position gimli gave the file (an existing entry keeps its index).
        let pos = unit
            .line_program
            .files()
            .position(|(fid, _, _)| fid == id)
            .unwrap_or(before) as u64;
        let index = if version >= 5 { pos } else { pos + 1 };
        self.files[u].insert(f, (id, index));
        if nameless {
            self.loss(LossKind::Approximated, Ref::File(f), NAMELESS_IN_DWARF4);
        }
        if placed_in_comp_dir {
            self.avoidable_loss(
                LossKind::Approximated,
                Ref::File(f),
                "a file without a directory, written in the compilation directory (DWARF 4)",
            );
        }
        (id, index)
    }
}

// The DW_LNCT_LLVM_is_MD5 column: gimli's set of file-entry columns is fixed, so the writer
// turns on the timestamp column (values 0/1) and renames its content code 0x03 to 0x2002 in the
// written section (`splice_is_md5`) — one byte more per line-program header, with the unit and
// header lengths and every later unit's DW_AT_stmt_list moved along.

/// Skips one value of a form used in line-program entry tables.
fn skip_form(b: &[u8], at: &mut usize, form: u64) -> Result<(), String> {
    let Ok(code) = u16::try_from(form) else {
        return Err(format!("form 0x{form:x} in a line-table entry format"));
    };
    match DwForm(code) {
        dw::DW_FORM_string => {
            let n = b[*at..]
                .iter()
                .position(|&c| c == 0)
                .ok_or("unterminated string")?;
            *at += n + 1;
        }
        // 32-bit DWARF offsets.
        dw::DW_FORM_strp | dw::DW_FORM_line_strp | dw::DW_FORM_sec_offset => *at += 4,
        dw::DW_FORM_udata => {
            uleb_at(b, at)?;
        }
        dw::DW_FORM_data1 => *at += 1,
        dw::DW_FORM_data2 => *at += 2,
        dw::DW_FORM_data4 => *at += 4,
        dw::DW_FORM_data8 => *at += 8,
        dw::DW_FORM_data16 => *at += 16,
        dw::DW_FORM_block => {
            let n = uleb_at(b, at)? as usize;
            *at += n;
        }
        f => return Err(format!("form 0x{:x} in a line-table entry format", f.0)),
    }
    if *at > b.len() {
        return Err("entry table past the end".into());
    }
    Ok(())
}

/// Renames the timestamp file column to DW_LNCT_LLVM_is_MD5 in every v5 line program that has
/// one, and moves the DW_AT_stmt_list of the units after each change.
pub(super) fn splice_is_md5(
    line: &mut Vec<u8>,
    info: &mut [u8],
    abbrev: &[u8],
) -> Result<(), String> {
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
pub(super) fn stmt_lists(info: &[u8], abbrev: &[u8]) -> Result<Vec<Option<(usize, u32)>>, String> {
    stmt_lists_of(info, abbrev, false)
}

/// `stmt_lists`, with `data4`: also a DWARF 2 or 3 unit's, which gimli writes as DW_FORM_data4.
pub(super) fn stmt_lists_of(
    info: &[u8],
    abbrev: &[u8],
    data4: bool,
) -> Result<Vec<Option<(usize, u32)>>, String> {
    let mut out = Vec::new();
    let mut u = 0usize;
    while u < info.len() {
        let len = u32_at(info, u)? as usize;
        let version = u16_at(info, u + 4)?;
        let (abbrev_off, header) = match version {
            // A type unit's header (`type_units`) adds its signature and type offset.
            5 if info.get(u + 6) == Some(&dw::DW_UT_type.0) => (u32_at(info, u + 8)? as usize, 24),
            5 => (u32_at(info, u + 8)? as usize, 12),
            _ => (u32_at(info, u + 6)? as usize, 11),
        };
        let mut p = u + header;
        uleb_at(info, &mut p)?; // the root's abbreviation code
        let mut a = abbrev_off;
        uleb_at(abbrev, &mut a)?; // code
        uleb_at(abbrev, &mut a)?; // tag
        a += 1; // children
        let (name, form) = (uleb_at(abbrev, &mut a)?, uleb_at(abbrev, &mut a)?);
        let form_ok = form == u64::from(dw::DW_FORM_sec_offset.0)
            || (data4 && version < 4 && form == u64::from(dw::DW_FORM_data4.0));
        let stmt_list = name == u64::from(dw::DW_AT_stmt_list.0) && form_ok;
        out.push(stmt_list.then(|| (p, u32_at(info, p).unwrap_or(0))));
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
        uleb_at(b, &mut at)?;
        forms.push(uleb_at(b, &mut at)?);
    }
    let dirs = uleb_at(b, &mut at)?;
    for _ in 0..dirs {
        for &f in &forms {
            skip_form(b, &mut at, f)?;
        }
    }
    let file_formats = *b.get(at).ok_or("truncated header")?;
    at += 1;
    for _ in 0..file_formats {
        let code_at = at;
        let code = uleb_at(b, &mut at)?;
        uleb_at(b, &mut at)?;
        if code == u64::from(dw::DW_LNCT_timestamp.0) {
            return Ok(Some(code_at));
        }
    }
    Ok(None)
}
