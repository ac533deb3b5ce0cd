//! Line programs (files, rows) and macros of one unit.

use rustc_hash::FxHashMap as HashMap;

use super::info::{Gr, Units};
use super::{fail, DResult};
use crate::ir::{
    Checksum, ChecksumKind, CodePos, CodeRange, File, Handle, LineFlags, LineRow, Loc, Macro,
    MacroKind, Module, Ref, Text, Unit,
};

/// Files of a module, shared across units: one entity per (name, directory).
#[derive(Default)]
pub struct Files {
    by_key: HashMap<(String, Option<String>), Handle<File>>,
    texts: HashMap<String, Handle<Text>>,
}

impl Files {
    pub fn get(
        &mut self,
        m: &mut Module,
        name: String,
        directory: Option<String>,
        checksum: Option<Checksum>,
        source: Option<String>,
    ) -> Handle<File> {
        // An empty directory (the writer's directory 0 for a file without one) is none.
        let directory = directory.filter(|d| !d.is_empty());
        let source = source.map(|text| {
            *self
                .texts
                .entry(text.clone())
                .or_insert_with(|| m.texts.push(Text { text }))
        });
        let h = *self
            .by_key
            .entry((name.clone(), directory.clone()))
            .or_insert_with(|| {
                m.files.push(File {
                    name,
                    directory,
                    checksum: None,
                    source: None,
                })
            });
        let f = m.files.get_mut(h);
        if f.checksum.is_none() {
            f.checksum = checksum;
        }
        if f.source.is_none() {
            f.source = source;
        }
        h
    }
}

fn lossy(r: Gr<'_>) -> String {
    String::from_utf8_lossy(r.slice()).into_owned()
}

/// The unit's file table (by DWARF file index) and its line rows appended to `m.lines`.
pub fn read_lines(
    u: &Units<'_>,
    unit: &gimli::Unit<Gr<'_>>,
    m: &mut Module,
    files: &mut Files,
) -> DResult<HashMap<u64, Handle<File>>> {
    let mut table = HashMap::default();
    let Some(program) = unit.line_program.clone() else {
        return Ok(table);
    };
    let header = program.header();
    let section_offset = header.offset().0 as u64;
    let err = |e: gimli::Error| fail(".debug_line", section_offset, e.to_string());
    let string = |v: gimli::AttributeValue<Gr<'_>>| -> DResult<String> {
        u.dwarf.attr_string(unit, v).map(lossy).map_err(err)
    };
    let has_is_md5 = header
        .file_name_entry_format()
        .iter()
        .any(|f| f.content_type == gimli::DwLnct(0x2002));
    let first = if header.version() >= 5 { 0 } else { 1 };
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
        table.insert(index, files.get(m, name, directory, checksum, source));
    }
    let mut rows = program.rows();
    let mut prev: Option<LineRow> = None;
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
            at: Loc {
                file: table.get(&row.file_index()).copied(),
                line,
                column,
            },
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
    Ok(table)
}

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
    unit: &gimli::Unit<Gr<'_>>,
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

#[derive(Clone, Copy, Debug)]
pub enum MacroAt {
    Macro(u64),
    Macinfo(u64),
}
