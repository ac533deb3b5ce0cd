//! The module's words as the rewrite reads them, the edits it makes to them, strings as words,
//! and why it declines a module.

use crate::spirv::binary::MAGIC;

/// Why the module was left to the IR path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declined(pub &'static str);

/// One change to the input's tail: `remove` words from word offset `at` replaced by `words`
/// (host-order words, written little-endian).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub at: usize,
    pub remove: usize,
    pub words: Vec<u32>,
}

/// The module's words: a view of the input's bytes where they are aligned and the host is
/// little-endian (no copy), else a copy.
#[derive(Clone, Copy)]
pub(super) struct Words<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) words: &'a [u32],
    pub(super) len: usize,
}

impl<'a> Words<'a> {
    pub(super) fn new(bytes: &'a [u8], owned: &'a mut Vec<u32>) -> Result<Self, Declined> {
        if bytes.len() % 4 != 0 || bytes.len() < 20 {
            return Err(Declined("not a whole SPIR-V module"));
        }
        let words: &[u32] = match bytemuck::try_cast_slice(bytes) {
            Ok(w) if cfg!(target_endian = "little") => w,
            _ => {
                *owned = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                owned
            }
        };
        if words[0] != MAGIC {
            return Err(Declined("not a little-endian SPIR-V module"));
        }
        Ok(Words {
            bytes,
            words,
            len: words.len(),
        })
    }
    #[inline]
    pub(super) fn at(&self, i: usize) -> u32 {
        self.words[i]
    }
    /// (word count, opcode) of the instruction at `i`.
    #[inline]
    pub(super) fn head(&self, i: usize) -> (usize, u16) {
        let w = self.at(i);
        ((w >> 16) as usize, w as u16)
    }
    /// Whether words `from..to` hold a NUL byte.
    pub(super) fn terminated(&self, from: usize, to: usize) -> bool {
        self.bytes
            .get(4 * from..4 * to)
            .is_some_and(|raw| raw.contains(&0))
    }
    /// The NUL-terminated string in words `from..to`, if it is UTF-8 and terminated.
    pub(super) fn string(&self, from: usize, to: usize) -> Option<&'a str> {
        let raw = self.bytes.get(4 * from..4 * to)?;
        let end = raw.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&raw[..end]).ok()
    }
}

pub(super) fn extend_words(out: &mut Vec<u32>, w: &Words<'_>, at: usize, count: usize) {
    out.extend_from_slice(&w.words[at..at + count]);
}

/// A string's words, NUL-terminated and padded.
pub(super) fn words_of(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.resize((bytes.len() / 4 + 1) * 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The string in `words` (up to its NUL).
pub(super) fn string_words(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}
