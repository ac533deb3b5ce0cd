//! The checked decoder: every count and length is checked against the remaining bytes before
//! anything is allocated, and every error names the object, the table and the byte offset.

use super::table as t;
use super::*;

/// Where and why the stream is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {}{table}: {message}", object.map(|i| format!("object {i}, ")).unwrap_or_default())]
pub struct DecodeError {
    pub object: Option<usize>,
    pub table: &'static str,
    pub offset: usize,
    pub message: String,
}

/// Decodes a whole stream; trailing bytes after the last object are an error.
pub fn decode(bytes: &[u8]) -> Result<Tables, DecodeError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        object: None,
        table: t::HEADER,
    };
    let at = r.pos;
    let magic = r.u32()?;
    if magic != MAGIC {
        return Err(r.err_at(
            at,
            format!("magic is {magic:#010x}, expected {MAGIC:#010x}"),
        ));
    }
    // The smallest object: name length, reloc offset, three table counts, subroutine count,
    // frame size, three valid bytes and two save counts.
    let n = r.count16(2 + 4 + 4 + 4 + 4 + 2 + 2 + 3 + 2 + 2, "compiled objects")?;
    let mut objects = Vec::with_capacity(n);
    for i in 0..n {
        r.object = Some(i);
        objects.push(r.object()?);
    }
    r.object = None;
    r.table = t::HEADER;
    if r.pos != bytes.len() {
        return Err(r.err(format!(
            "{} byte(s) after the last compiled object",
            bytes.len() - r.pos
        )));
    }
    Ok(Tables { objects })
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    object: Option<usize>,
    table: &'static str,
}

/// Fixed sizes of the records that follow counts.
const MAP_ENTRY: usize = 8;
const VISA_INTERVAL: usize = 2 + 2 + 1 + 1 + 4;
const GEN_INTERVAL: usize = 4 + 4 + 1 + 1 + 4;
const SAVE_ENTRY: usize = 2 + 2 + 1 + 4;

impl Reader<'_> {
    fn err_at(&self, offset: usize, message: impl Into<String>) -> DecodeError {
        DecodeError {
            object: self.object,
            table: self.table,
            offset,
            message: message.into(),
        }
    }
    fn err(&self, message: impl Into<String>) -> DecodeError {
        self.err_at(self.pos, message)
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], DecodeError> {
        let left = self.bytes.len() - self.pos;
        if n > left {
            return Err(self.err(format!("{what} needs {n} byte(s), {left} left (truncated)")));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1, "a ub field")?[0])
    }
    fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2, "a uw field")?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4, "a ud field")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Checks that `n` records of at least `min` bytes each fit in what is left.
    fn fits(&self, at: usize, n: usize, min: usize, what: &str) -> Result<usize, DecodeError> {
        let left = self.bytes.len() - self.pos;
        if n.saturating_mul(min) > left {
            return Err(self.err_at(
                at,
                format!("{n} {what} need at least {} byte(s), {left} left", n * min),
            ));
        }
        Ok(n)
    }
    fn count16(&mut self, min: usize, what: &str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.u16()? as usize;
        self.fits(at, n, min, what)
    }
    fn count32(&mut self, min: usize, what: &str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.u32()? as usize;
        self.fits(at, n, min, what)
    }
    fn name(&mut self) -> Result<String, DecodeError> {
        let at = self.pos;
        let n = self.u16()? as usize;
        let raw = self.take(n, "the name")?;
        String::from_utf8(raw.to_vec())
            .map_err(|e| self.err_at(at, format!("the name is not UTF-8: {e}")))
    }
    fn flag(&mut self, what: &str) -> Result<bool, DecodeError> {
        let at = self.pos;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.err_at(at, format!("{what} is {v}, expected 0 or 1"))),
        }
    }

    /// A register mapping, its number within the file's DWARF numbering (spec::visa::REG_COUNT).
    fn reg(&self, at: usize, file: RegFile, word: u32) -> Result<Storage, DecodeError> {
        let (num, sub) = (word as u16, (word >> 16) as u16);
        let count = crate::spec::visa::REG_COUNT
            .iter()
            .find(|(f, _)| *f == file)
            .map_or(0, |c| c.1);
        if num as u32 >= count {
            return Err(self.err_at(
                at,
                format!("{file:?} register {num} is beyond the {count} the file has"),
            ));
        }
        Ok(Storage::Reg { file, num, sub })
    }

    fn object(&mut self) -> Result<Object, DecodeError> {
        self.table = t::OBJECT;
        let name = self.name()?;
        let reloc_offset = self.u32()?;
        self.table = t::OFFSET_MAP;
        let offset_map = self.map()?;
        self.table = t::INDEX_MAP;
        let index_map = self.map()?;
        self.table = t::VARS;
        let n = self.count32(2 + 2, "variables")?;
        let mut vars = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.name()?;
            let intervals = self.intervals(VISA_INTERVAL, |r| r.u16())?;
            vars.push(Var { name, intervals });
        }
        self.table = t::SUBS;
        let n = self.count16(2 + 4 + 4 + 2, "subroutines")?;
        let mut subs = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.name()?;
            let start = self.u32()?;
            let end = self.u32()?;
            let ret_val = self.gen_intervals()?;
            subs.push(Subroutine {
                name,
                start,
                end,
                ret_val,
            });
        }
        let frame = self.frame()?;
        Ok(Object {
            name,
            reloc_offset,
            offset_map,
            index_map,
            vars,
            subs,
            frame,
        })
    }

    fn map(&mut self) -> Result<Vec<MapEntry>, DecodeError> {
        let n = self.count32(MAP_ENTRY, "mapping entries")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(MapEntry {
                visa: self.u32()?,
                gen: self.u32()?,
            });
        }
        Ok(v)
    }

    fn intervals<T: PartialOrd>(
        &mut self,
        size: usize,
        mut bound: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<Interval<T>>, DecodeError> {
        let n = self.count16(size, "live intervals")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.pos;
            let start = bound(self)?;
            let end = bound(self)?;
            if end < start {
                return Err(self.err_at(at, "a live interval ends before it starts"));
            }
            let at = self.pos;
            let virt = self.u8()?;
            let virt = *VirtType::ALL
                .get(virt as usize)
                .ok_or_else(|| self.err_at(at, format!("virtual type {virt} is not 0, 1 or 2")))?;
            let at = self.pos;
            let phys = self.u8()?;
            let word = self.u32()?;
            let loc = match phys {
                0..=2 => self.reg(at + 2, RegFile::ALL[phys as usize], word)?,
                3 => Storage::Mem(Memory::from_word(word)),
                _ => {
                    return Err(
                        self.err_at(at + 1, format!("physical type {phys} is not 0, 1, 2 or 3"))
                    )
                }
            };
            v.push(Interval {
                start,
                end,
                virt,
                loc,
            });
        }
        Ok(v)
    }

    fn gen_intervals(&mut self) -> Result<Vec<Interval<u32>>, DecodeError> {
        self.intervals(GEN_INTERVAL, |r| r.u32())
    }

    fn optional_intervals(
        &mut self,
        table: &'static str,
    ) -> Result<Option<Vec<Interval<u32>>>, DecodeError> {
        self.table = table;
        match self.flag("the valid byte")? {
            true => self.gen_intervals().map(Some),
            false => Ok(None),
        }
    }

    fn frame(&mut self) -> Result<Frame, DecodeError> {
        self.table = t::FRAME;
        let size = self.u16()?;
        let befp = self.optional_intervals(t::BEFP)?;
        let caller_befp = self.optional_intervals(t::CALLER_BEFP)?;
        let ret_addr = self.optional_intervals(t::RET_ADDR)?;
        self.table = t::CALLEE_SAVES;
        let callee_saves = self.saves()?;
        self.table = t::CALLER_SAVES;
        let caller_saves = self.saves()?;
        Ok(Frame {
            size,
            befp,
            caller_befp,
            ret_addr,
            callee_saves,
            caller_saves,
        })
    }

    fn saves(&mut self) -> Result<Vec<SaveAtIp>, DecodeError> {
        let n = self.count16(4 + 2, "save entries")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let gen_ip = self.u32()?;
            let m = self.count16(SAVE_ENTRY, "register mappings")?;
            let mut entries = Vec::with_capacity(m);
            for _ in 0..m {
                let at = self.pos;
                let src_reg_off = self.u16()?;
                if src_reg_off as u32 >= crate::spec::visa::GRF_BYTES * crate::spec::visa::GRF_COUNT
                {
                    return Err(self.err_at(
                        at,
                        format!("srcRegOff {src_reg_off} is beyond the 256 GRF registers"),
                    ));
                }
                let num_bytes = self.u16()?;
                let in_reg = self.flag("dstInReg")?;
                let at = self.pos;
                let word = self.u32()?;
                let dst = match in_reg {
                    true => match self.reg(at, RegFile::Grf, word)? {
                        Storage::Reg { num, sub, .. } => SaveDst::Reg { num, sub },
                        Storage::Mem(m) => SaveDst::Mem(m),
                    },
                    false => SaveDst::Mem(Memory::from_word(word)),
                };
                entries.push(SaveEntry {
                    src_reg_off,
                    num_bytes,
                    dst,
                });
            }
            v.push(SaveAtIp { gen_ip, entries });
        }
        Ok(v)
    }
}

/// Decodes a save table on its own (count included), as the IR keeps the caller-save table.
pub(crate) fn decode_saves(bytes: &[u8]) -> Result<Vec<SaveAtIp>, DecodeError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        object: None,
        table: t::CALLER_SAVES,
    };
    let v = r.saves()?;
    if r.pos != bytes.len() {
        return Err(r.err("bytes after the table"));
    }
    Ok(v)
}
