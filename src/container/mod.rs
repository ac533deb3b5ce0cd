//! Containers of device code, as GPU toolchains ship it: clang offload bundles (plain and
//! compressed, `bundle`), LLVM offloading binaries (`offload`), and the host ELF objects and
//! executables whose sections hold them (`.hip_fatbin`, `.llvm.offloading`,
//! `__CLANG_OFFLOAD_BUNDLE__<target>`). A container splits into *parts*: the host (the ELF
//! itself, `host`) and one device image per entry, named by its target id; each part is then
//! read as what it is (ELF with DWARF, SPIR-V, LLVM bitcode) by the format's own reader.
//!
//! Every size and offset is checked against the bytes at hand before use; nothing is allocated
//! by a size the input states except a compressed bundle's inflation, which grows with the
//! stream and stops at the stated size (itself at most `bundle::MAX_INFLATED`).

pub mod bundle;
pub mod offload;

use std::borrow::Cow;
use std::ops::Range;

use object::{Object, ObjectSection};

use crate::error::{Error, Result};

/// Damage in a container: the entry or field (`section .hip_fatbin, bundle at 0x0: entry 1 of
/// 2: offset …`) and what is wrong.
#[derive(Clone, Debug)]
pub struct Damage {
    pub place: String,
    pub message: String,
}

impl Damage {
    fn into_error(self, path: &str) -> Error {
        Error::Container {
            path: path.to_string(),
            place: self.place,
            message: self.message,
        }
    }
}

/// A bounds-checked little-endian cursor.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    place: &'a str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(b: &'a [u8], place: &'a str) -> Reader<'a> {
        Reader { b, pos: 0, place }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn damage(&self, message: String) -> Damage {
        Damage {
            place: self.place.to_string(),
            message,
        }
    }

    pub(crate) fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], Damage> {
        let left = self.b.len() - self.pos;
        match usize::try_from(n).ok().filter(|&n| n <= left) {
            Some(n) => {
                self.pos += n;
                Ok(&self.b[self.pos - n..self.pos])
            }
            None => Err(self.damage(format!(
                "truncated: {what} needs {n} bytes at {:#x}, {left} left",
                self.pos
            ))),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Damage> {
        let s = self.bytes(N as u64, what)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, Damage> {
        self.array(what).map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Damage> {
        self.array(what).map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Damage> {
        self.array(what).map(u64::from_le_bytes)
    }

    pub(crate) fn expect(&mut self, magic: &[u8], what: &str) -> Result<(), Damage> {
        if self.bytes(magic.len() as u64, what)? != magic {
            return Err(self.damage(format!("not {what}")));
        }
        Ok(())
    }

    pub(crate) fn seek(&mut self, at: u64, what: &str) -> Result<(), Damage> {
        match usize::try_from(at).ok().filter(|&a| a <= self.b.len()) {
            Some(a) => {
                self.pos = a;
                Ok(())
            }
            None => Err(self.damage(format!(
                "{what} at {at:#x} is past the end ({:#x} bytes)",
                self.b.len()
            ))),
        }
    }
}

/// Where a device image sits, for writing back: the plain bundle holding it (its range in the
/// input) and its entry.
#[derive(Clone, Debug)]
pub struct Slot {
    /// The ELF section holding the bundle, by index; none for a bundle file.
    pub section: Option<usize>,
    pub bundle: Range<usize>,
    pub entry: usize,
}

/// One part of a container.
#[derive(Clone, Debug)]
pub struct Part<'a> {
    /// `host`, or the device image's target id.
    pub name: String,
    pub bytes: Cow<'a, [u8]>,
    /// What holds it: `section .hip_fatbin, bundle at 0x0, entry 1` (or `compressed bundle …`,
    /// `offloading binary …`).
    pub origin: String,
    /// An image stored uncompressed in a plain bundle: where, for `convert --into`.
    pub slot: Option<Slot>,
}

/// What an ELF section that holds device code holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holder {
    /// `.hip_fatbin`: bundles, plain or compressed, one after another.
    Bundles,
    /// `.llvm.offloading`: offloading binaries, one after another.
    Offloading,
    /// `__CLANG_OFFLOAD_BUNDLE__<target>`: one device object (clang-offload-bundler -type=o).
    Object,
}

/// The origin of a host ELF's own part.
pub const HOST_ORIGIN: &str = "the host ELF";

const OBJECT_SECTION_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";

fn holder(section: &str) -> Option<Holder> {
    match section {
        ".hip_fatbin" => Some(Holder::Bundles),
        ".llvm.offloading" => Some(Holder::Offloading),
        s if s.len() > OBJECT_SECTION_PREFIX.len() && s.starts_with(OBJECT_SECTION_PREFIX) => {
            Some(Holder::Object)
        }
        _ => None,
    }
}

/// Whether `b` starts like a container of its own (a bundle file, compressed or not, or an
/// offloading binary); a host ELF is one only when it has a section that holds device code.
pub fn is_container_magic(b: &[u8]) -> bool {
    b.starts_with(bundle::MAGIC)
        || b.starts_with(bundle::COMPRESSED_MAGIC)
        || b.starts_with(offload::MAGIC)
}

/// The parts of `b` when it is a container: none when it is not one (any other input, an ELF
/// without device sections or that does not parse as ELF: its own reader says why).
pub fn open<'a>(b: &'a [u8], path: &str) -> Result<Option<Vec<Part<'a>>>> {
    let mut parts = Vec::new();
    if is_container_magic(b) {
        holding(b, 0, Holder::Bundles, None, "", &mut parts).map_err(|d| d.into_error(path))?;
    } else if b.starts_with(b"\x7fELF") {
        let Ok(file) = object::File::parse(b) else {
            return Ok(None);
        };
        let mut any = false;
        for s in file.sections() {
            let Some(h) = s.name().ok().and_then(holder) else {
                continue;
            };
            if !any {
                any = true;
                parts.push(Part {
                    name: "host".into(),
                    bytes: Cow::Borrowed(b),
                    origin: HOST_ORIGIN.into(),
                    slot: None,
                });
            }
            let name = s.name().unwrap_or_default().to_string();
            let place = format!("section {name}");
            let (start, len) = s.file_range().unwrap_or((0, 0));
            let range = usize::try_from(start)
                .ok()
                .zip(usize::try_from(len).ok())
                .and_then(|(s, l)| Some(s..s.checked_add(l)?))
                .filter(|r| r.end <= b.len())
                .ok_or_else(|| Error::Container {
                    path: path.to_string(),
                    place: place.clone(),
                    message: format!(
                        "file range {start:#x} + {len:#x} runs past the end ({:#x} bytes)",
                        b.len()
                    ),
                })?;
            if h == Holder::Object {
                // The host's own section (`host-…`) is a placeholder: the host is the ELF.
                if name[OBJECT_SECTION_PREFIX.len()..].starts_with("host-") {
                    continue;
                }
                parts.push(Part {
                    name: name[OBJECT_SECTION_PREFIX.len()..].to_string(),
                    bytes: Cow::Borrowed(&b[range]),
                    origin: place,
                    slot: None,
                });
                continue;
            }
            let place = format!("{place}, ");
            holding(
                &b[range.clone()],
                range.start,
                h,
                Some(s.index().0),
                &place,
                &mut parts,
            )
            .map_err(|d| d.into_error(path))?;
        }
        if !any {
            return Ok(None);
        }
    } else {
        return Ok(None);
    }
    // Two images of one target (several bundles in a linked `.hip_fatbin`, bitcode beside an
    // object): the later ones get `#2`, `#3`, … so that every name picks one part.
    let mut seen = std::collections::HashSet::new();
    for p in &mut parts {
        let base = p.name.clone();
        let mut n = 1;
        while !seen.insert(p.name.clone()) {
            n += 1;
            p.name = format!("{base}#{n}");
        }
    }
    Ok(Some(parts))
}

/// The parts in a run of bundles (plain or compressed) or offloading binaries `b`, which starts
/// `base` bytes into the input; zero padding between and after them is skipped.
fn holding<'a>(
    b: &'a [u8],
    base: usize,
    h: Holder,
    section: Option<usize>,
    place: &str,
    parts: &mut Vec<Part<'a>>,
) -> Result<(), Damage> {
    let mut at = 0usize;
    while at < b.len() {
        let rest = &b[at..];
        if rest[0] == 0 {
            // Padding to the next one's alignment.
            at += rest.iter().position(|&c| c != 0).unwrap_or(rest.len());
            continue;
        }
        let here = |kind: &str| format!("{place}{kind} at {at:#x}");
        if rest.starts_with(bundle::MAGIC) && h == Holder::Bundles {
            let place = here("bundle");
            let parsed = bundle::parse(rest, &place)?;
            for (k, id, image) in parsed.images(rest) {
                parts.push(Part {
                    name: id.to_string(),
                    bytes: Cow::Borrowed(image),
                    origin: format!("{place}, entry {k}"),
                    slot: Some(Slot {
                        section,
                        bundle: base + at..base + at + parsed.len as usize,
                        entry: k,
                    }),
                });
            }
            at += parsed.len as usize;
        } else if rest.starts_with(bundle::COMPRESSED_MAGIC) && h == Holder::Bundles {
            let place = here("compressed bundle");
            let header = bundle::compressed_header(rest, &place)?;
            let plain = bundle::inflate(rest, &header, &place)?;
            let inner = format!("{place} (inflated)");
            let parsed = bundle::parse(&plain, &inner)?;
            for (k, id, image) in parsed.images(&plain) {
                parts.push(Part {
                    name: id.to_string(),
                    bytes: Cow::Owned(image.to_vec()),
                    origin: format!("{inner}, entry {k}"),
                    slot: None,
                });
            }
            at += header.total as usize;
        } else if rest.starts_with(offload::MAGIC) {
            let place = here("offloading binary");
            let image = offload::parse(rest, &place)?;
            let (s, z) = (image.offset as usize, image.size as usize);
            if z > 0 {
                parts.push(Part {
                    name: image.name(),
                    bytes: Cow::Borrowed(&rest[s..s + z]),
                    origin: format!("{place} ({} image)", image.image_kind),
                    slot: None,
                });
            }
            // A binary states its size, padding included; a zero size would not move on.
            at += image.binary_size.max(1) as usize;
        } else {
            return Err(Damage {
                place: here("byte"),
                message: format!(
                    "expected {} (found {:02x?})",
                    match h {
                        Holder::Offloading => "an offloading binary (10 ff 10 ad)",
                        _ => "a clang offload bundle (__CLANG_OFFLOAD_BUNDLE__ or CCOB)",
                    },
                    &rest[..rest.len().min(8)]
                ),
            });
        }
    }
    Ok(())
}

/// The part `want` names: exactly, or as the end of one target id (`gfx90a`), or `host` for the
/// one `host-…` entry of a bundle file. The error lists the parts.
pub fn select(parts: &[Part], want: &str) -> std::result::Result<usize, String> {
    if let Some(i) = parts.iter().position(|p| p.name == want) {
        return Ok(i);
    }
    let hits: Vec<usize> = (0..parts.len())
        .filter(|&i| {
            let n = &parts[i].name;
            n.ends_with(&format!("-{want}")) || (want == "host" && n.starts_with("host-"))
        })
        .collect();
    match hits[..] {
        [i] => Ok(i),
        [] => Err(format!("no part `{want}`; it holds {}", list(parts))),
        _ => Err(format!(
            "`{want}` names more than one part; it holds {}",
            list(parts)
        )),
    }
}

/// The parts' names, for messages: `host, hipv4-amdgcn-amd-amdhsa--gfx90a`.
pub fn list(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `container` with the device image of part `want` replaced by `image`, every other byte kept
/// (`bundle::replace`); the bundle grows in place in a bundle file, and in a relocatable host
/// object by moving what follows its section (`grow_section`).
pub fn replace(container: &[u8], path: &str, want: &str, image: &[u8]) -> Result<Vec<u8>> {
    let parts = open(container, path)?.ok_or_else(|| {
        Error::Usage(format!(
            "{path}: not a container (an offload bundle or a host object holding one)"
        ))
    })?;
    let usage = |m: String| Error::Usage(format!("{path}: {m}"));
    let i = select(&parts, want).map_err(usage)?;
    let part = &parts[i];
    let Some(slot) = part.slot.clone() else {
        return Err(usage(format!(
            "part {} is not stored uncompressed in a bundle ({}): dwarv writes back only into \
             plain bundles",
            part.name, part.origin
        )));
    };
    let old = &container[slot.bundle.clone()];
    let parsed = bundle::parse(old, "bundle").map_err(|d| d.into_error(path))?;
    let new = bundle::replace(old, &parsed, slot.entry, image).map_err(usage)?;
    let mut out = Vec::with_capacity(container.len() + new.len() - old.len().min(new.len()));
    out.extend_from_slice(&container[..slot.bundle.start]);
    out.extend_from_slice(&new);
    out.extend_from_slice(&container[slot.bundle.end..]);
    if let Some(index) = slot.section.filter(|_| new.len() != old.len()) {
        grow_section(&mut out, index, slot.bundle.end, new.len() - old.len()).map_err(usage)?;
    }
    Ok(out)
}

/// In `elf` (a little-endian ELF64 relocatable object) whose section `index` just grew by
/// `grow` bytes inserted before file offset `at`: pads the growth to the alignment of what
/// follows (so that it all moves by a multiple of every alignment), and moves the following
/// sections' offsets and the section header table. Executables and shared objects are refused
/// (their sections have addresses).
fn grow_section(
    elf: &mut Vec<u8>,
    index: usize,
    at: usize,
    grow: usize,
) -> std::result::Result<(), String> {
    let rd = |b: &[u8], at: usize, n: usize| -> std::result::Result<u64, String> {
        let s = at
            .checked_add(n)
            .and_then(|end| b.get(at..end))
            .ok_or("truncated ELF headers")?;
        Ok(s.iter().rev().fold(0u64, |a, x| (a << 8) | u64::from(*x)))
    };
    if elf.get(4) != Some(&2) || elf.get(5) != Some(&1) {
        return Err(
            "the device image grew; dwarv moves sections only in little-endian ELF64".into(),
        );
    }
    if rd(elf, 16, 2)? != 1 || rd(elf, 0x38, 2)? != 0 {
        return Err(
            "the device image grew, and its bundle sits in an executable or shared \
                    object, whose sections cannot move; give a relocatable object"
                .into(),
        );
    }
    // The headers still lie where they were when they come before `at`, else `grow` further.
    let shoff = rd(elf, 0x28, 8)? as usize;
    let shnum = rd(elf, 0x3c, 2)? as usize;
    let table = if shoff >= at {
        shoff.saturating_add(grow)
    } else {
        shoff
    };
    let shdr = |i: usize| table.saturating_add(i * 64);
    let mut align = 8u64;
    for i in 0..shnum {
        let off = rd(elf, shdr(i) + 0x18, 8)? as usize;
        if i != index && off >= at {
            align = align.max(rd(elf, shdr(i) + 0x30, 8)?.min(1 << 16));
        }
    }
    let shift = (grow as u64).div_ceil(align) * align;
    let pad = (shift - grow as u64) as usize;
    elf.splice(at + grow..at + grow, std::iter::repeat(0).take(pad));
    let table = if shoff >= at {
        shoff + shift as usize
    } else {
        shoff
    };
    let shdr = |i: usize| table + i * 64;
    let put =
        |elf: &mut Vec<u8>, at: usize, v: u64| elf[at..at + 8].copy_from_slice(&v.to_le_bytes());
    for i in 0..shnum {
        let off = rd(elf, shdr(i) + 0x18, 8)?;
        if i == index {
            let size = rd(elf, shdr(i) + 0x20, 8)?;
            put(elf, shdr(i) + 0x20, size.saturating_add(grow as u64));
        } else if off as usize >= at && off > 0 {
            put(elf, shdr(i) + 0x18, off.saturating_add(shift));
        }
    }
    if shoff >= at {
        put(elf, 0x28, (shoff as u64).saturating_add(shift));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A plain bundle of an empty host entry and one image.
    fn plain(image: &[u8]) -> Vec<u8> {
        let ids = [
            "host-x86_64-unknown-linux-gnu",
            "hip-spirv64-unknown-unknown--generic",
        ];
        let table = bundle::MAGIC.len() + 8 + ids.iter().map(|i| 24 + i.len()).sum::<usize>();
        let mut b = bundle::MAGIC.to_vec();
        b.extend_from_slice(&2u64.to_le_bytes());
        for (id, (off, size)) in ids.iter().zip([(table, 0), (table, image.len())]) {
            for v in [off as u64, size as u64, id.len() as u64] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(id.as_bytes());
        }
        b.extend_from_slice(image);
        b
    }

    /// `plain` compressed with zlib under a CCOB header of `version`.
    fn zlib_ccob(plain: &[u8], version: u16) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(plain).unwrap();
        let data = z.finish().unwrap();
        let header = match version {
            1 => 4 + 2 + 2 + 4 + 8,
            2 => 4 + 2 + 2 + 4 + 4 + 8,
            _ => 4 + 2 + 2 + 8 + 8 + 8,
        };
        let total = (header + data.len()) as u64;
        let mut b = b"CCOB".to_vec();
        b.extend_from_slice(&version.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes()); // zlib
        match version {
            1 => b.extend_from_slice(&(plain.len() as u32).to_le_bytes()),
            2 => {
                b.extend_from_slice(&(total as u32).to_le_bytes());
                b.extend_from_slice(&(plain.len() as u32).to_le_bytes());
            }
            _ => {
                b.extend_from_slice(&total.to_le_bytes());
                b.extend_from_slice(&(plain.len() as u64).to_le_bytes());
            }
        }
        let md5 = <md5::Md5 as md5::Digest>::digest(plain);
        b.extend_from_slice(&md5[..8]);
        b.extend_from_slice(&data);
        b
    }

    #[test]
    fn zlib_bundles_of_every_header_version_read_as_the_plain_one() {
        let image: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let p = plain(&image);
        for version in 1..=3 {
            let z = zlib_ccob(&p, version);
            let parts = open(&z, "z").unwrap().unwrap();
            assert_eq!(parts.len(), 1, "v{version}");
            assert_eq!(parts[0].name, "hip-spirv64-unknown-unknown--generic");
            assert!(parts[0].bytes[..] == image[..], "v{version}");
            assert!(parts[0].slot.is_none());
        }
        // One byte short of what the header states, and a version dwarv does not know.
        let mut z = zlib_ccob(&p, 3);
        z[16..24].copy_from_slice(&(p.len() as u64 + 1).to_le_bytes());
        let e = open(&z, "z").unwrap_err().to_string();
        assert!(e.contains("inflates to") && e.contains("zlib"), "{e}");
        let mut z = zlib_ccob(&p, 2);
        z[4] = 9;
        let e = open(&z, "z").unwrap_err().to_string();
        assert!(e.contains("version 9"), "{e}");
    }

    #[test]
    fn a_plain_bundle_takes_a_shorter_and_a_longer_image_back() {
        let image = vec![7u8; 100];
        let p = plain(&image);
        for new in [vec![1u8; 60], vec![2u8; 100], vec![3u8; 300]] {
            let out = replace(&p, "b", "generic", &new).unwrap();
            let parts = open(&out, "b").unwrap().unwrap();
            assert!(parts[0].bytes[..] == new[..]);
            assert_eq!(out.len(), p.len().max(p.len() - image.len() + new.len()));
        }
    }
}
