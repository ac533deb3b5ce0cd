//! Clang offload bundles: `__CLANG_OFFLOAD_BUNDLE__`, an entry count and a table of (offset,
//! size, target id) entries whose offsets are from the bundle's start; and the compressed form
//! (`CCOB`: version, method, sizes, hash, then a zlib or zstd stream of a plain bundle).
//!
//! Header layouts (little-endian), as clang's `OffloadBundler.cpp` writes them:
//!
//! | field | v1 | v2 | v3 |
//! |---|---|---|---|
//! | magic `CCOB` | 4 | 4 | 4 |
//! | version | u16 | u16 | u16 |
//! | method (0 zlib, 1 zstd) | u16 | u16 | u16 |
//! | total size, header included | — | u32 | u64 |
//! | uncompressed size | u32 | u32 | u64 |
//! | truncated MD5 of the uncompressed bundle | u64 | u64 | u64 |

use std::io::Read;

use super::{Damage, Reader};

pub const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
pub const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// No compressed bundle inflates beyond this (1 GiB), whatever its header says.
pub const MAX_INFLATED: u64 = 1 << 30;

/// One entry of a bundle's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The target id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a` or `host-x86_64-unknown-linux-gnu`.
    pub id: String,
    /// From the bundle's first byte.
    pub offset: u64,
    pub size: u64,
    /// Where the entry's offset field sits in the table (its size field follows).
    pub table_at: u64,
}

/// A parsed bundle: its entries, and how many bytes it spans (the header and table, and the
/// furthest entry's end).
#[derive(Clone, Debug)]
pub struct Bundle {
    pub entries: Vec<Entry>,
    pub len: u64,
    /// Where the table ends.
    pub table_end: u64,
}

impl Bundle {
    /// The entries that hold an image (not the empty host placeholder): index, target id and
    /// the image's bytes in `b`, the bundle this was parsed from (bounds checked by `parse`).
    pub fn images<'s, 'b>(&'s self, b: &'b [u8]) -> Vec<(usize, &'s str, &'b [u8])> {
        let image = |e: &Entry| &b[e.offset as usize..(e.offset + e.size) as usize];
        let full = self.entries.iter().enumerate().filter(|(_, e)| e.size > 0);
        full.map(|(k, e)| (k, e.id.as_str(), image(e))).collect()
    }
}

/// Reads a plain bundle at the start of `b`; `place` names it in errors (`section .hip_fatbin`).
pub fn parse(b: &[u8], place: &str) -> Result<Bundle, Damage> {
    let mut r = Reader::new(b, place);
    r.expect(MAGIC, "the bundle magic __CLANG_OFFLOAD_BUNDLE__")?;
    let count = r.u64("the entry count")?;
    let mut entries = Vec::new();
    // The whole table first (a truncated one is said as such), then each entry's bounds.
    for k in 0..count {
        let at = |what: &str| format!("entry {k} of {count}: {what}");
        let table_at = r.pos() as u64;
        let offset = r.u64(&at("offset"))?;
        let size = r.u64(&at("size"))?;
        let id_len = r.u64(&at("target id length"))?;
        let id = r.bytes(id_len, &at("target id"))?;
        let id = String::from_utf8_lossy(id).into_owned();
        entries.push(Entry {
            id,
            offset,
            size,
            table_at,
        });
    }
    let mut len = 0u64;
    for (k, e) in entries.iter().enumerate() {
        let (id, offset, size) = (&e.id, e.offset, e.size);
        let end = offset.checked_add(size).ok_or_else(|| {
            r.damage(format!(
                "entry {k} ({id}): offset {offset:#x} + size {size:#x} overflows"
            ))
        })?;
        if end > b.len() as u64 {
            return Err(r.damage(format!(
                "entry {k} ({id}): offset {offset:#x} + size {size:#x} runs past the end of the \
                 bundle ({:#x} bytes)",
                b.len()
            )));
        }
        len = len.max(end);
    }
    Ok(Bundle {
        len: len.max(r.pos() as u64),
        table_end: r.pos() as u64,
        entries,
    })
}

/// A compressed bundle's header.
#[derive(Clone, Copy, Debug)]
pub struct Compressed {
    pub version: u16,
    pub method: u16,
    /// The compressed bundle's size, header included (from v2 on; v1: the rest of the input).
    pub total: u64,
    pub uncompressed: u64,
    /// The first 8 bytes (little-endian) of the MD5 of the plain bundle, as clang writes it.
    pub hash: u64,
    /// Where the compressed stream starts.
    pub data_at: usize,
}

/// Reads a `CCOB` header at the start of `b`.
pub fn compressed_header(b: &[u8], place: &str) -> Result<Compressed, Damage> {
    let mut r = Reader::new(b, place);
    r.expect(COMPRESSED_MAGIC, "the compressed bundle magic CCOB")?;
    let version = r.u16("the compressed bundle version")?;
    let method = r.u16("the compression method")?;
    let (total, uncompressed) = match version {
        1 => (b.len() as u64, u64::from(r.u32("the uncompressed size")?)),
        2 => (
            u64::from(r.u32("the total size")?),
            u64::from(r.u32("the uncompressed size")?),
        ),
        3 => (r.u64("the total size")?, r.u64("the uncompressed size")?),
        v => {
            return Err(r.damage(format!(
                "compressed bundle version {v} (dwarv reads versions 1 to 3)"
            )))
        }
    };
    let hash = r.u64("the hash")?;
    let data_at = r.pos();
    if total < data_at as u64 || total > b.len() as u64 {
        return Err(r.damage(format!(
            "the compressed bundle's total size {total:#x} is not between its header ({data_at} \
             bytes) and the end of the input ({:#x} bytes)",
            b.len()
        )));
    }
    Ok(Compressed {
        version,
        method,
        total,
        uncompressed,
        hash,
        data_at,
    })
}

/// Inflates a compressed bundle (the whole `CCOB` block, `h` its header) into the plain bundle,
/// growing the buffer only as the stream yields bytes and never past the stated size.
pub fn inflate(b: &[u8], h: &Compressed, place: &str) -> Result<Vec<u8>, Damage> {
    let damage = |message: String| Damage {
        place: place.to_string(),
        message,
    };
    if h.uncompressed > MAX_INFLATED {
        return Err(damage(format!(
            "the compressed bundle states {} uncompressed bytes, beyond dwarv's limit of {}",
            h.uncompressed, MAX_INFLATED
        )));
    }
    let data = &b[h.data_at..h.total as usize];
    let limit = h.uncompressed + 1;
    let mut out = Vec::new();
    let read = match h.method {
        0 => flate2::read::ZlibDecoder::new(data)
            .take(limit)
            .read_to_end(&mut out),
        1 => {
            // The decoder's window is bounded by the stated size (a frame cannot need more).
            zstd::stream::read::Decoder::new(data).and_then(|mut d| {
                let bits = (64 - h.uncompressed.leading_zeros()).clamp(10, 27);
                d.window_log_max(bits)?;
                d.take(limit).read_to_end(&mut out)
            })
        }
        m => {
            return Err(damage(format!(
                "compression method {m} (dwarv reads 0, zlib, and 1, zstd)"
            )))
        }
    };
    let method = if h.method == 0 { "zlib" } else { "zstd" };
    read.map_err(|e| damage(format!("the {method} stream does not inflate: {e}")))?;
    if out.len() as u64 != h.uncompressed {
        return Err(damage(format!(
            "the {method} stream inflates to {}{} bytes, the header states {}",
            if out.len() as u64 > h.uncompressed {
                "more than "
            } else {
                ""
            },
            out.len().min(h.uncompressed as usize),
            h.uncompressed
        )));
    }
    // clang checks the hash only when asked (-verbose); a damaged payload that still inflates
    // to its stated size is caught here.
    let digest = <md5::Md5 as md5::Digest>::digest(&out);
    let hash = u64::from_le_bytes(digest[..8].try_into().unwrap_or_default());
    if hash != h.hash {
        return Err(damage(format!(
            "the inflated bundle's MD5 starts {hash:#018x}, the header states {:#018x}",
            h.hash
        )));
    }
    Ok(out)
}

/// `bundle` with entry `k`'s image replaced by `image`, every other byte kept: an image no
/// larger than the old one is written in its place (zeros after it, to the old end); a larger one
/// moves every entry that lay after the old image down by the growth rounded up to their
/// offsets' alignment (at most 4096), so their images stay byte for byte and aligned.
pub fn replace(bundle: &[u8], parsed: &Bundle, k: usize, image: &[u8]) -> Result<Vec<u8>, String> {
    let old = parsed.entries.get(k).ok_or("no such entry")?;
    let (off, old_end) = (old.offset as usize, (old.offset + old.size) as usize);
    let new_end = off + image.len();
    if old.offset < parsed.table_end {
        return Err(format!("entry {k}'s image overlaps the entry table"));
    }
    for (j, e) in parsed.entries.iter().enumerate() {
        let inside = e.offset < old.offset + old.size && e.offset + e.size > old.offset;
        if j != k && e.size > 0 && inside {
            return Err(format!("entry {j} ({}) overlaps entry {k}", e.id));
        }
    }
    let patch = |out: &mut Vec<u8>, at: u64, v: u64| {
        let at = at as usize;
        out[at..at + 8].copy_from_slice(&v.to_le_bytes());
    };
    if image.len() as u64 <= old.size {
        let mut out = bundle.to_vec();
        out[off..new_end].copy_from_slice(image);
        out[new_end..old_end].fill(0);
        patch(&mut out, old.table_at + 8, image.len() as u64);
        return Ok(out);
    }
    let grow = image.len() as u64 - old.size;
    let moved =
        |j: usize, e: &Entry| j != k && e.offset >= old.offset + old.size && e.offset > old.offset;
    let align = parsed
        .entries
        .iter()
        .enumerate()
        .filter(|(j, e)| moved(*j, e) && e.size > 0)
        .map(|(_, e)| 1u64 << e.offset.trailing_zeros().min(12))
        .min()
        .unwrap_or(1);
    let shift = grow.div_ceil(align) * align;
    let mut out = Vec::with_capacity(bundle.len() + shift as usize);
    out.extend_from_slice(&bundle[..off]);
    out.extend_from_slice(image);
    out.resize(old_end + shift as usize, 0);
    out.extend_from_slice(&bundle[old_end..]);
    patch(&mut out, old.table_at + 8, image.len() as u64);
    for (j, e) in parsed.entries.iter().enumerate() {
        if moved(j, e) {
            patch(&mut out, e.table_at, e.offset + shift);
        }
    }
    Ok(out)
}
