//! Line programs of one unit: its file table (files shared across units) and line rows.

use rustc_hash::FxHashMap as HashMap;

use super::walker::{fail, lossy, DResult, FileTable, Files, Slice, Units};
use crate::ir::{
    Checksum, ChecksumKind, CodePos, CodeRange, File, Handle, LineFlags, LineRow, Loc, Module,
};

/// The unit's file table (by DWARF file index), its file 0 if that is still pending, and its
/// line rows appended to `m.lines`.
pub fn read_lines(
    u: &Units<'_>,
    unit: &gimli::Unit<Slice<'_>>,
    m: &mut Module,
    files: &mut Files,
) -> DResult<FileTable> {
    let mut table = HashMap::default();
    let Some(program) = unit.line_program.clone() else {
        return Ok((table, None));
    };
    let header = program.header();
    let section_offset = header.offset().0 as u64;
    let err = |e: gimli::Error| fail(".debug_line", section_offset, e.to_string());
    let string = |v: gimli::AttributeValue<Slice<'_>>| -> DResult<String> {
        u.dwarf.attr_string(unit, v).map(lossy).map_err(err)
    };
    let has_is_md5 = header
        .file_name_entry_format()
        .iter()
        .any(|f| f.content_type == gimli::DwLnct(0x2002));
    let first = if header.version() >= 5 { 0 } else { 1 };
    let mut placeholder = None;
    let count = header.file_names().len() as u64;
    for index in first..first + count {
        let Some(entry) = header.file(index) else {
            continue;
        };
        let name = string(entry.path_name())?;
        let directory = match entry.directory(header) {
            Some(d) => Some(string(d)?),
            None => None,
        };
        // With a DW_LNCT_LLVM_is_MD5 column (which gimli parses but does not expose), a file
        // whose MD5 is all zeros has none.
        let checksum = header
            .file_has_md5()
            .then(|| entry.md5())
            .filter(|md5| !(has_is_md5 && md5.iter().all(|b| *b == 0)))
            .map(|md5| Checksum {
                kind: ChecksumKind::MD5,
                bytes: md5.to_vec(),
            });
        let source = match entry.source() {
            Some(s) => Some(string(s)?).filter(|s| !s.is_empty()),
            None => None,
        };
        // File 0 of a compile unit without a name is the writer's placeholder for the primary
        // file the unit lacks (DWARF 5 must list one): a file only if a row or a DIE names it.
        // (A type unit has no name, and its file 0 is its compile unit's file.)
        if index == 0
            && unit.name.is_none()
            && matches!(unit.header.type_(), gimli::UnitType::Compilation)
        {
            placeholder = Some((name, directory, checksum, source));
            continue;
        }
        table.insert(index, files.get(m, name, directory, checksum, source));
    }
    // A row takes 2 bytes of a line program at least (clang -O2: 4): the rows' room once,
    // not grown by doubling; at most a million rows' (a program of a few huge opcodes
    // reserves no more than that, and one of more rows grows from there).
    m.lines
        .reserve((header.raw_program_buf().len() / 2).min(1 << 20));
    let mut rows = program.rows();
    let mut prev: Option<LineRow> = None;
    // The file of the last row's index: rows run in one file for long stretches.
    let mut last_file: Option<(u64, Option<Handle<File>>)> = None;
    while let Some((_, row)) = rows.next_row().map_err(err)? {
        let addr = CodePos::Addr(row.address());
        if let Some(mut p) = prev.take() {
            if p.range.start <= addr {
                p.range.end = addr;
                m.lines.push(p);
            } else {
                return Err(fail(
                    ".debug_line",
                    section_offset,
                    "line rows run backwards",
                ));
            }
        }
        if row.end_sequence() {
            continue;
        }
        if row.file_index() == 0 {
            if let Some((name, directory, checksum, source)) = placeholder.take() {
                table.insert(0, files.get(m, name, directory, checksum, source));
                last_file = None;
            }
        }
        let file = match last_file {
            Some((index, h)) if index == row.file_index() => h,
            _ => {
                let h = table.get(&row.file_index()).copied();
                last_file = Some((row.file_index(), h));
                h
            }
        };
        let line = u32::try_from(row.line().map_or(0, |l| l.get())).unwrap_or(u32::MAX);
        let column = match row.column() {
            gimli::ColumnType::LeftEdge => 0,
            gimli::ColumnType::Column(c) => u32::try_from(c.get()).unwrap_or(u32::MAX),
        };
        prev = Some(LineRow {
            range: CodeRange {
                start: addr,
                end: addr,
            },
            at: Loc { file, line, column },
            end_line: None,
            end_column: None,
            flags: LineFlags {
                is_stmt: row.is_stmt(),
                basic_block: row.basic_block(),
                prologue_end: row.prologue_end(),
                epilogue_begin: row.epilogue_begin(),
            },
            isa: u32::try_from(row.isa()).unwrap_or(u32::MAX),
            discriminator: u32::try_from(row.discriminator()).unwrap_or(u32::MAX),
        });
    }
    if let Some(p) = prev {
        // A sequence without an end: the last row covers nothing.
        m.lines.push(p);
    }
    Ok((table, placeholder))
}
