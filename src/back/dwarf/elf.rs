//! The container: a debug-only relocatable ELF (object's low-level writer, which takes any
//! e_machine, AMDGPU included), or a copy of a given binary whose debug sections are replaced
//! (`--into`): every other section's bytes, every section index and program header are kept;
//! the old debug sections' slots become SHT_NULL or carry the new section of the same name, and
//! the old debug bytes are dropped (what followed them moves down), not left behind.

use object::elf;
use object::write::elf::{FileHeader, SectionHeader, Writer};

use super::builder::{SectionList, Settings};
use crate::error::{Error, Result};
use crate::output::Parts;

/// ELFOSABI_AMDGPU_HSA (object names 64 only as ELFOSABI_ARM_AEABI).
const ELFOSABI_AMDGPU_HSA: u8 = 64;

/// Machines whose ELF class is 32-bit.
pub(super) fn is_32bit_machine(machine: u16) -> bool {
    machine == elf::EM_386.0 || machine == elf::EM_ARM.0
}

fn bad(msg: impl Into<String>) -> Error {
    Error::unwritable("DWARF into the given binary", msg)
}

/// A debug-only ELF object holding `sections`.
pub(super) fn standalone(s: &Settings, sections: &SectionList) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut w = Writer::new(object::Endianness::Little, s.address_size == 8, &mut buf);
    let names: Vec<_> = sections
        .iter()
        .map(|(n, _)| w.add_section_name(n.as_bytes()))
        .collect();
    w.reserve_file_header();
    w.reserve_null_section_index();
    let _indices: Vec<_> = sections.iter().map(|_| w.reserve_section_index()).collect();
    let offsets: Vec<u64> = sections
        .iter()
        .map(|(_, d)| w.reserve(d.len() as u64, 1))
        .collect();
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab()
        .map_err(|e| Error::unwritable("an ELF object", e.to_string()))?;
    w.reserve_section_headers();
    let amd = s.machine == elf::EM_AMDGPU.0;
    w.write_file_header(&FileHeader {
        os_abi: elf::OsAbi(if amd { ELFOSABI_AMDGPU_HSA } else { 0 }),
        abi_version: if amd { 2 } else { 0 },
        e_type: elf::FileType(1), // ET_REL
        e_machine: elf::Machine(s.machine),
        e_entry: 0,
        e_flags: elf::FileFlags(0),
    })
    .map_err(|e| Error::unwritable("an ELF object", e.to_string()))?;
    for (_, d) in sections {
        w.write(d);
    }
    w.write_shstrtab();
    w.write_null_section_header();
    for ((i, (_, d)), name) in sections.iter().enumerate().zip(names) {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(name)),
            sh_type: elf::SectionType(1), // SHT_PROGBITS
            sh_flags: elf::SectionFlags(0),
            sh_addr: 0,
            sh_offset: offsets[i],
            sh_size: d.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: 0,
        });
    }
    w.write_shstrtab_section_header();
    Ok(buf)
}

/// One section header of the base binary.
#[derive(Clone, Debug, Default)]
struct Shdr {
    name: String,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// The binary named by `--into`, parsed far enough to rewrite its section table.
pub(super) struct Base<'a> {
    bytes: &'a [u8],
    is_64: bool,
    pub machine: u16,
    shdrs: Vec<Shdr>,
    shstrndx: usize,
    phoff: u64,
    phnum: u64,
    phentsize: u64,
}

fn rd(b: &[u8], at: u64, n: usize) -> Result<u64> {
    let at = usize::try_from(at).map_err(|_| bad("offset out of range"))?;
    let s = b
        .get(
            at..at
                .checked_add(n)
                .ok_or_else(|| bad("offset out of range"))?,
        )
        .ok_or_else(|| bad(format!("truncated at byte {at} (needs {n} more)")))?;
    Ok(s.iter()
        .rev()
        .fold(0u64, |acc, x| (acc << 8) | u64::from(*x)))
}

fn is_debug(name: &str) -> bool {
    [".debug_", ".rela.debug_", ".rel.debug_", ".zdebug_"]
        .iter()
        .any(|p| name.starts_with(p))
}

impl<'a> Base<'a> {
    pub(super) fn parse(b: &'a [u8]) -> Result<Base<'a>> {
        if b.len() < 52 || &b[..4] != b"\x7fELF" {
            return Err(bad("not an ELF file"));
        }
        if b[5] != 1 {
            return Err(bad("big-endian ELF is not supported"));
        }
        let is_64 = match b[4] {
            1 => false,
            2 => true,
            c => return Err(bad(format!("ELF class {c}"))),
        };
        let w = if is_64 { 8 } else { 4 };
        let machine = rd(b, 18, 2)? as u16;
        let (phoff, shoff) = (rd(b, 24 + w as u64, w)?, rd(b, 24 + 2 * w as u64, w)?);
        let h = 24 + 3 * w as u64 + 4; // past e_flags
        let phentsize = rd(b, h + 2, 2)?;
        let phnum = rd(b, h + 4, 2)?;
        let shentsize = rd(b, h + 6, 2)?;
        let shnum = rd(b, h + 8, 2)?;
        let shstrndx = rd(b, h + 10, 2)? as usize;
        let expected = if is_64 { 64 } else { 40 };
        if shnum == 0 || shentsize != expected {
            return Err(bad("no section header table (or an unexpected entry size)"));
        }
        let mut raw = Vec::new();
        for i in 0..shnum {
            let at = shoff + i * shentsize;
            let f = |o: u64, n: usize| rd(b, at + o, n);
            raw.push(if is_64 {
                (
                    f(0, 4)?,
                    f(4, 4)?,
                    f(8, 8)?,
                    f(16, 8)?,
                    f(24, 8)?,
                    f(32, 8)?,
                    f(40, 4)?,
                    f(44, 4)?,
                    f(48, 8)?,
                    f(56, 8)?,
                )
            } else {
                (
                    f(0, 4)?,
                    f(4, 4)?,
                    f(8, 4)?,
                    f(12, 4)?,
                    f(16, 4)?,
                    f(20, 4)?,
                    f(24, 4)?,
                    f(28, 4)?,
                    f(32, 4)?,
                    f(36, 4)?,
                )
            });
        }
        let strtab = raw
            .get(shstrndx)
            .ok_or_else(|| bad(format!("section-name table index {shstrndx} out of range")))?;
        let (str_off, str_size) = (strtab.4, strtab.5);
        let names = b
            .get(str_off as usize..(str_off + str_size) as usize)
            .ok_or_else(|| bad("section-name table past the end of the file"))?;
        let shdrs = raw
            .into_iter()
            .map(|r| {
                let name = names
                    .get(r.0 as usize..)
                    .and_then(|s| s.split(|&c| c == 0).next())
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .unwrap_or_default();
                Shdr {
                    name,
                    sh_type: r.1 as u32,
                    flags: r.2,
                    addr: r.3,
                    offset: r.4,
                    size: r.5,
                    link: r.6 as u32,
                    info: r.7 as u32,
                    align: r.8,
                    entsize: r.9,
                }
            })
            .collect();
        Ok(Base {
            bytes: b,
            is_64,
            machine,
            shdrs,
            shstrndx,
            phoff,
            phnum,
            phentsize,
        })
    }

    pub(super) fn address_size(&self) -> u8 {
        if self.is_64 {
            8
        } else {
            4
        }
    }

    /// A copy of the binary with its debug sections replaced by `sections`: the bytes up to
    /// the first old debug section stay where they are (every loaded byte among them); the
    /// sections that came after the old debug sections and are not loaded (a linked
    /// program's .symtab and .strtab) move down, unchanged, to where those began; the new
    /// debug sections follow. The old debug bytes are gone, not left behind.
    pub(super) fn replace_debug(&self, sections: SectionList) -> Result<Parts<'a>> {
        // The largest alignment of a section that moves (one that is not loaded: a symbol or
        // string table is aligned to 8 bytes at most).
        const MAX_ALIGN: u64 = 1 << 16;
        let content = |i: usize, s: &Shdr| i != self.shstrndx && s.sh_type != 0 && s.sh_type != 8;
        let first_debug = self
            .shdrs
            .iter()
            .filter(|s| is_debug(&s.name) && s.sh_type != 8 && s.size > 0)
            .map(|s| s.offset)
            .min()
            .unwrap_or(u64::MAX);
        // Sections that move: not loaded (SHF_ALLOC 0x2), after the old debug sections.
        let moves = |i: usize, s: &Shdr| {
            content(i, s) && !is_debug(&s.name) && s.flags & 2 == 0 && s.offset >= first_debug
        };
        let header = if self.is_64 { 64 } else { 52 };
        let mut cut = header;
        cut = cut.max(self.phoff + self.phnum * self.phentsize);
        for (i, s) in self.shdrs.iter().enumerate() {
            if content(i, s) && !is_debug(&s.name) && !moves(i, s) {
                cut = cut.max(s.offset + s.size);
            }
        }
        let bytes: &'a [u8] = self.bytes;
        let piece = |from: u64, len: u64| -> Result<&'a [u8]> {
            usize::try_from(from)
                .ok()
                .zip(usize::try_from(from.saturating_add(len)).ok())
                .and_then(|(a, b)| bytes.get(a..b))
                .ok_or_else(|| bad("a section runs past the end of the file"))
        };
        // The binary's bytes are written from where they are; only the ELF header (part 0,
        // patched below) and what is new are buffers of their own.
        let mut out = Parts::default();
        out.push(piece(0, header)?.to_vec());
        out.push(piece(header, cut - header)?);
        let mut shdrs = self.shdrs.clone();
        for (i, s) in shdrs.iter_mut().enumerate() {
            if moves(i, &*s) {
                let data = piece(s.offset, s.size)?;
                // ELF alignments are powers of two; a section moved keeps its own.
                if s.align > 1 && (!s.align.is_power_of_two() || s.align > MAX_ALIGN) {
                    return Err(bad(format!(
                        "section {}: alignment {:#x} (a power of two up to {MAX_ALIGN:#x} expected)",
                        s.name, s.align
                    )));
                }
                out.pad_to(s.align);
                s.offset = out.len() as u64;
                out.push(data);
            }
        }
        let mut new: Vec<(usize, Vec<u8>)> = Vec::new(); // (slot, data)
        for s in shdrs.iter_mut().filter(|s| is_debug(&s.name)) {
            // Emptied slot; reused below when a new section has the same name.
            s.sh_type = 0;
            s.size = 0;
        }
        for (name, data) in sections {
            let slot = match shdrs.iter().position(|s| s.name == name && s.sh_type == 0) {
                Some(i) => i,
                None => {
                    shdrs.push(Shdr {
                        name: name.to_string(),
                        align: 1,
                        ..Shdr::default()
                    });
                    shdrs.len() - 1
                }
            };
            new.push((slot, data));
        }
        for (slot, data) in new {
            let s = &mut shdrs[slot];
            *s = Shdr {
                name: std::mem::take(&mut s.name),
                sh_type: 1,
                offset: out.len() as u64,
                size: data.len() as u64,
                align: 1,
                ..Shdr::default()
            };
            out.push(data);
        }
        for s in shdrs.iter_mut().filter(|s| s.sh_type == 0) {
            *s = Shdr::default();
        }
        // A fresh section-name table.
        let mut names = vec![0u8];
        let mut name_offs = Vec::new();
        for s in &shdrs {
            if s.name.is_empty() {
                name_offs.push(0u32);
            } else {
                name_offs.push(names.len() as u32);
                names.extend_from_slice(s.name.as_bytes());
                names.push(0);
            }
        }
        shdrs[self.shstrndx].offset = out.len() as u64;
        shdrs[self.shstrndx].size = names.len() as u64;
        out.push(names);
        let w = if self.is_64 { 8 } else { 4 };
        out.pad_to(w as u64);
        let shoff = out.len() as u64;
        let mut table = Vec::with_capacity(shdrs.len() * 64);
        for (s, n) in shdrs.iter().zip(name_offs) {
            let mut put = |v: u64, size: usize| table.extend_from_slice(&v.to_le_bytes()[..size]);
            put(n.into(), 4);
            put(s.sh_type.into(), 4);
            put(s.flags, w);
            put(s.addr, w);
            put(s.offset, w);
            put(s.size, w);
            put(s.link.into(), 4);
            put(s.info.into(), 4);
            put(s.align, w);
            put(s.entsize, w);
        }
        out.push(table);
        // Header: e_shoff and e_shnum.
        let head = out.part_mut(0).ok_or_else(|| bad("no ELF header"))?;
        let shoff_at = 24 + 2 * w;
        head[shoff_at..shoff_at + w].copy_from_slice(&shoff.to_le_bytes()[..w]);
        let h = 24 + 3 * w + 4;
        let shnum = u16::try_from(shdrs.len()).map_err(|_| bad("too many sections"))?;
        head[h + 8..h + 10].copy_from_slice(&shnum.to_le_bytes());
        Ok(out)
    }
}
