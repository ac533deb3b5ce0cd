//! Line-number rows encoded straight into bytes: the instructions gimli's
//! `LineProgram::generate_row` would choose (gimli 0.34, `LineEncoding::default()`), without
//! gimli's instruction vector (16 bytes an instruction, several an IR row: 12.6 MB of the heap
//! at the peak for the sqlite object's 138 862 rows, against 1 MB of bytes). gimli still writes
//! each unit's header (directories and files, which DIEs name) and a lone end-of-sequence as its
//! program; `splice` puts the encoded rows in its place and moves every later unit's
//! DW_AT_stmt_list along.

use crate::dwarf::bytes::{put_fixed, put_sleb, put_uleb};
use gimli::constants as dw;

use super::read_back::u32_at;

// gimli's `LineEncoding::default()` and `OPCODE_BASE`: a minimum instruction length and
// maximum operations per instruction of 1, so that an address advance is the op advance.
const LINE_BASE: i8 = -5;
const LINE_RANGE: u8 = 14;
const OPCODE_BASE: u8 = 13;
const DEFAULT_IS_STMT: bool = true;

/// An end of sequence: DW_LNE_end_sequence (extended opcode 0, length 1).
pub(super) const END_SEQUENCE: [u8; 3] = [0, 1, dw::DW_LNE_end_sequence.0];

/// The register state a row leaves behind (gimli's `LineRow`, the fields dwarv sets).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Row {
    pub address_offset: u64,
    /// The file's index as DWARF numbers it (1-based before DWARF 5).
    pub file: u64,
    pub line: u64,
    pub column: u64,
    pub discriminator: u64,
    pub is_statement: bool,
    pub basic_block: bool,
    pub prologue_end: bool,
    pub epilogue_begin: bool,
    pub isa: u64,
}

impl Row {
    /// gimli's initial state: file 1 in every version (0-based index 1 in DWARF 5, 1-based
    /// index of file 0 before), line 1.
    fn initial() -> Row {
        Row {
            address_offset: 0,
            file: 1,
            line: 1,
            column: 0,
            discriminator: 0,
            is_statement: DEFAULT_IS_STMT,
            basic_block: false,
            prologue_end: false,
            epilogue_begin: false,
            isa: 0,
        }
    }
}

/// One unit's line-number instructions.
pub(super) struct Encoder {
    pub bytes: Vec<u8>,
    address_size: u8,
    /// The row being set (its file persists from row to row, as in gimli).
    pub row: Row,
    prev: Row,
    /// An address too large for the address size (gimli's `ValueTooLarge`).
    pub too_large: bool,
}

impl Encoder {
    pub fn new(address_size: u8) -> Encoder {
        Encoder {
            bytes: Vec::new(),
            address_size,
            row: Row::initial(),
            prev: Row::initial(),
            too_large: false,
        }
    }

    /// DW_LNE_set_address.
    pub fn begin_sequence(&mut self, address: u64) {
        let size = self.address_size;
        if size < 8 && address >> (8 * u32::from(size)) != 0 {
            self.too_large = true;
        }
        self.bytes
            .extend_from_slice(&[0, 1 + size, dw::DW_LNE_set_address.0]);
        put_fixed(&mut self.bytes, address, size);
    }

    /// Advances to `address_offset` and ends the sequence; the registers start again.
    pub fn end_sequence(&mut self, address_offset: u64) {
        let advance = address_offset - self.prev.address_offset;
        if advance != 0 {
            self.bytes.push(dw::DW_LNS_advance_pc.0);
            put_uleb(&mut self.bytes, advance);
        }
        self.bytes.extend_from_slice(&END_SEQUENCE);
        self.prev = Row::initial();
        self.row = Row::initial();
    }

    /// Emits `self.row` as gimli's `generate_row` does.
    pub fn generate_row(&mut self) {
        let b = &mut self.bytes;
        let row = &mut self.row;
        if row.discriminator != 0 {
            let mut val = Vec::with_capacity(10);
            put_uleb(&mut val, row.discriminator);
            b.push(0);
            put_uleb(b, 1 + val.len() as u64);
            b.push(dw::DW_LNE_set_discriminator.0);
            b.extend_from_slice(&val);
            row.discriminator = 0;
        }
        for (flag, op) in [
            (&mut row.basic_block, dw::DW_LNS_set_basic_block),
            (&mut row.prologue_end, dw::DW_LNS_set_prologue_end),
            (&mut row.epilogue_begin, dw::DW_LNS_set_epilogue_begin),
        ] {
            if *flag {
                b.push(op.0);
                *flag = false;
            }
        }
        let prev = &self.prev;
        if row.is_statement != prev.is_statement {
            b.push(dw::DW_LNS_negate_stmt.0);
        }
        for (now, was, op) in [
            (row.file, prev.file, dw::DW_LNS_set_file),
            (row.column, prev.column, dw::DW_LNS_set_column),
            (row.isa, prev.isa, dw::DW_LNS_set_isa),
        ] {
            if now != was {
                b.push(op.0);
                put_uleb(b, now);
            }
        }

        // gimli's arithmetic, in its wrapping u64 terms.
        let line_base = i64::from(LINE_BASE) as u64;
        let line_range = u64::from(LINE_RANGE);
        let line_advance = row.line as i64 - prev.line as i64;
        let op_advance = row.address_offset - prev.address_offset;
        let special_base = u64::from(OPCODE_BASE);
        let special_default = special_base.wrapping_sub(line_base);
        let mut special = special_default;
        let mut use_special = false;
        if line_advance != 0 {
            let special_line = (line_advance as u64).wrapping_sub(line_base);
            if special_line < line_range {
                special = special_base + special_line;
                use_special = true;
            } else {
                b.push(dw::DW_LNS_advance_line.0);
                put_sleb(b, line_advance);
            }
        }
        if op_advance != 0 {
            let (special_op_advance, const_add_pc) = if special + op_advance * line_range <= 255 {
                (op_advance, false)
            } else {
                let op_range = (255 - special_base) / line_range;
                (op_advance - op_range, true)
            };
            let special_op = special_op_advance * line_range;
            if special + special_op <= 255 {
                special += special_op;
                use_special = true;
                if const_add_pc {
                    b.push(dw::DW_LNS_const_add_pc.0);
                }
            } else {
                b.push(dw::DW_LNS_advance_pc.0);
                put_uleb(b, op_advance);
            }
        }
        if use_special && special != special_default {
            b.push(special as u8);
        } else {
            b.push(dw::DW_LNS_copy.0);
        }
        self.prev = *row;
    }
}

/// Puts each unit's encoded rows (`rows[u]`, ending in an end of sequence) in place of the lone
/// end of sequence gimli wrote as that unit's program in `line`, and moves the DW_AT_stmt_list
/// of every unit (`stmt_lists`, in unit order) to its program's new offset.
pub(super) fn splice(
    line: &mut Vec<u8>,
    info: &mut [u8],
    stmt_lists: &[Option<(usize, u32)>],
    rows: &[Vec<u8>],
) -> Result<(), String> {
    // (old program offset, unit) of the programs that get rows, in section order.
    let mut grown: Vec<(usize, usize)> = Vec::new();
    for (u, r) in rows.iter().enumerate() {
        if r.is_empty() {
            continue;
        }
        let Some(Some((_, off))) = stmt_lists.get(u) else {
            return Err(format!("unit {u} has line rows but no DW_AT_stmt_list"));
        };
        grown.push((*off as usize, u));
    }
    if grown.is_empty() {
        return Ok(());
    }
    grown.sort_unstable();
    let extra: usize = grown
        .iter()
        .map(|&(_, u)| rows[u].len() - END_SEQUENCE.len())
        .sum();
    let mut out = Vec::with_capacity(line.len() + extra);
    let mut from = 0;
    for &(off, u) in &grown {
        let len = u32_at(line, off)? as usize;
        let end = off + 4 + len;
        if len >= 0xffff_fff0 || end > line.len() || line[end - 3..end] != END_SEQUENCE {
            return Err(format!(
                "the line program at {off} is not the placeholder expected"
            ));
        }
        let r = &rows[u];
        let new_len = u32::try_from(len - END_SEQUENCE.len() + r.len())
            .map_err(|_| "a line program longer than 4 GiB".to_string())?;
        out.extend_from_slice(&line[from..off]);
        out.extend_from_slice(&new_len.to_le_bytes());
        out.extend_from_slice(&line[off + 4..end - 3]);
        out.extend_from_slice(r);
        from = end;
    }
    out.extend_from_slice(&line[from..]);
    *line = out;
    for &(p, old) in stmt_lists.iter().flatten() {
        let old = old as usize;
        let moved: usize = grown
            .iter()
            .filter(|&&(off, _)| off < old)
            .map(|&(_, u)| rows[u].len() - END_SEQUENCE.len())
            .sum();
        let new = u32::try_from(old + moved).map_err(|_| ".debug_line past 4 GiB".to_string())?;
        info[p..p + 4].copy_from_slice(&new.to_le_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::write::{Address, EndianVec, LineProgram, LineString, LineStringTable, StringTable};
    use gimli::{Encoding, Format, LineEncoding, LittleEndian};

    /// gimli's program for the same rows: its instruction bytes (after the header). Row files
    /// 1–4 are the four files added (DWARF 5 lists the primary file first, DWARF 4 not at all).
    fn gimli_bytes(version: u16, rows: &[(u64, Row)], ends: &[usize]) -> Vec<u8> {
        let enc = Encoding {
            format: Format::Dwarf32,
            version,
            address_size: 8,
        };
        let dir = LineString::String(b"d".to_vec());
        let name = LineString::String(b"f.c".to_vec());
        let mut p = LineProgram::new(enc, LineEncoding::default(), dir, None, name, None);
        let d = p.default_directory();
        let files: Vec<_> = (0..4)
            .map(|i| p.add_file(LineString::String(format!("{i}.c").into_bytes()), d, None))
            .collect();
        let mut start = None;
        for (i, (seq_start, r)) in rows.iter().enumerate() {
            if start.is_none() {
                p.begin_sequence(Some(Address::Constant(*seq_start)));
                start = Some(*seq_start);
            }
            let row = p.row();
            row.address_offset = r.address_offset;
            row.file = files[(r.file - 1) as usize];
            row.line = r.line;
            row.column = r.column;
            row.discriminator = r.discriminator;
            row.is_statement = r.is_statement;
            row.basic_block = r.basic_block;
            row.prologue_end = r.prologue_end;
            row.epilogue_begin = r.epilogue_begin;
            row.isa = r.isa;
            p.generate_row();
            if ends.contains(&i) {
                p.end_sequence(r.address_offset + 3);
                start = None;
            }
        }
        let mut header = gimli::write::DebugLine(EndianVec::new(LittleEndian));
        let mut empty = LineProgram::new(
            enc,
            LineEncoding::default(),
            LineString::String(b"d".to_vec()),
            None,
            LineString::String(b"f.c".to_vec()),
            None,
        );
        let d = empty.default_directory();
        for i in 0..4 {
            empty.add_file(LineString::String(format!("{i}.c").into_bytes()), d, None);
        }
        let (mut ls, mut ss) = (LineStringTable::default(), StringTable::default());
        empty.write(&mut header, enc, &mut ls, &mut ss).unwrap();
        let mut w = gimli::write::DebugLine(EndianVec::new(LittleEndian));
        p.write(&mut w, enc, &mut ls, &mut ss).unwrap();
        w.0.slice()[header.0.slice().len()..].to_vec()
    }

    #[test]
    fn encodes_rows_as_gimli_does() {
        // Advances of every size class (special opcodes, const_add_pc, advance_pc and
        // advance_line), file/column/isa changes, flags and discriminators.
        let mut rows = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut ends = Vec::new();
        for version in [4u16, 5] {
            rows.clear();
            ends.clear();
            let (mut off, mut line) = (0u64, 10u64);
            for i in 0..2000 {
                off += [0, 1, 5, 17, 18, 40, 300, 70_000][next(8) as usize];
                line =
                    (line as i64 + [-9, -5, -1, 0, 1, 8, 9, 500][next(8) as usize]).max(1) as u64;
                rows.push((
                    0x40_0000 + 0x1_0000 * ends.len() as u64,
                    Row {
                        address_offset: off,
                        file: 1 + next(4),
                        line,
                        column: next(3) * 70,
                        discriminator: [0, 0, 3, 300][next(4) as usize],
                        is_statement: next(3) != 0,
                        basic_block: next(5) == 0,
                        prologue_end: next(5) == 0,
                        epilogue_begin: next(7) == 0,
                        isa: next(9) / 8,
                    },
                ));
                if next(50) == 0 {
                    ends.push(i);
                    off = 0;
                }
            }
            ends.push(rows.len() - 1);
            let mut e = Encoder::new(8);
            let mut open = false;
            for (i, (start, r)) in rows.iter().enumerate() {
                if !open {
                    e.begin_sequence(*start);
                    open = true;
                }
                e.row = *r;
                e.generate_row();
                if ends.contains(&i) {
                    e.end_sequence(r.address_offset + 3);
                    open = false;
                }
            }
            assert_eq!(
                e.bytes,
                gimli_bytes(version, &rows, &ends),
                "DWARF {version}"
            );
            assert!(!e.too_large);
        }
        let mut e = Encoder::new(4);
        e.begin_sequence(1 << 32);
        assert!(e.too_large);
    }
}
