//! Which LLVM wrote a bitcode file: the producer string of its IDENTIFICATION block (the first
//! block LLVM 3.8 and newer write, `LLVM19.1.7`), read with a small bounds-checked bitstream
//! reader so that a file can be routed before any libLLVM is loaded.

/// `IDENTIFICATION_BLOCK_ID` in LLVM's LLVMBitCodes.h.
const IDENTIFICATION_BLOCK: u64 = 13;
/// `IDENTIFICATION_CODE_STRING`, `IDENTIFICATION_CODE_EPOCH`.
const CODE_STRING: u64 = 1;
const CODE_EPOCH: u64 = 2;
/// Abbreviations and operands read at most (the block LLVM writes has one of each kind).
const MAX_ABBREVS: usize = 64;
const MAX_OPS: usize = 1024;

/// What the IDENTIFICATION block says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identification {
    /// The producer string, e.g. `LLVM19.1.7`.
    pub producer: String,
    /// The bitcode epoch (0 for every LLVM since 3.8).
    pub epoch: Option<u64>,
}

impl Identification {
    /// The LLVM major version the producer names (`LLVM19.1.7` → 19), if it names one.
    pub fn llvm_major(&self) -> Option<u32> {
        let rest = self.producer.strip_prefix("LLVM")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }
}

/// True for LLVM bitcode (raw, or in the Darwin wrapper).
pub fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// The IDENTIFICATION block of a bitcode file, or None (not bitcode, no such block first, or a
/// block this reader cannot follow).
pub fn identify(bytes: &[u8]) -> Option<Identification> {
    let bytes = unwrap(bytes)?;
    if !bytes.starts_with(b"BC\xC0\xDE") {
        return None;
    }
    let mut r = Bits {
        data: bytes,
        pos: 32,
    };
    // Top level: abbreviation width 2; ENTER_SUBBLOCK is 1.
    if r.fixed(2)? != 1 || r.vbr(8)? != IDENTIFICATION_BLOCK {
        return None;
    }
    let width = usize::try_from(r.vbr(4)?)
        .ok()
        .filter(|w| (1..=32).contains(w))?;
    r.align32()?;
    let _block_words = r.fixed(32)?;
    let mut abbrevs: Vec<Vec<Op>> = Vec::new();
    let mut producer = None;
    let mut epoch = None;
    loop {
        match r.fixed(width)? {
            0 => break, // END_BLOCK
            1 => return None,
            2 => {
                if abbrevs.len() >= MAX_ABBREVS {
                    return None;
                }
                abbrevs.push(define_abbrev(&mut r)?);
            }
            3 => {
                let code = r.vbr(6)?;
                let n = usize::try_from(r.vbr(6)?).ok().filter(|&n| n <= MAX_OPS)?;
                let mut ops = Vec::with_capacity(n);
                for _ in 0..n {
                    ops.push(r.vbr(6)?);
                }
                record(code, &ops, &mut producer, &mut epoch);
            }
            id => {
                let ops = abbrevs.get(usize::try_from(id - 4).ok()?)?.clone();
                let mut vals = read_abbreviated(&mut r, &ops)?;
                if vals.is_empty() {
                    return None;
                }
                let code = vals.remove(0);
                record(code, &vals, &mut producer, &mut epoch);
            }
        }
    }
    Some(Identification {
        producer: producer?,
        epoch,
    })
}

fn record(code: u64, ops: &[u64], producer: &mut Option<String>, epoch: &mut Option<u64>) {
    match code {
        CODE_STRING => {
            *producer = Some(ops.iter().map(|&c| char::from(c as u8)).collect());
        }
        CODE_EPOCH => *epoch = ops.first().copied(),
        _ => {}
    }
}

/// The bitcode inside the Darwin wrapper (magic 0x0B17C0DE, then version, offset, size).
fn unwrap(bytes: &[u8]) -> Option<&[u8]> {
    if !bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return Some(bytes);
    }
    let word = |i: usize| {
        Some(u32::from_le_bytes(
            bytes.get(i * 4..i * 4 + 4)?.try_into().ok()?,
        ))
    };
    let offset = usize::try_from(word(2)?).ok()?;
    let size = usize::try_from(word(3)?).ok()?;
    bytes.get(offset..offset.checked_add(size)?)
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Literal(u64),
    Fixed(usize),
    Vbr(usize),
    Array,
    Char6,
    Blob,
}

fn define_abbrev(r: &mut Bits) -> Option<Vec<Op>> {
    let n = usize::try_from(r.vbr(5)?).ok().filter(|&n| n <= MAX_OPS)?;
    let mut ops = Vec::with_capacity(n);
    for _ in 0..n {
        if r.fixed(1)? == 1 {
            ops.push(Op::Literal(r.vbr(8)?));
            continue;
        }
        let width = |r: &mut Bits| usize::try_from(r.vbr(5)?).ok().filter(|&w| w <= 64);
        ops.push(match r.fixed(3)? {
            1 => Op::Fixed(width(r)?),
            2 => Op::Vbr(width(r)?.max(1)),
            3 => Op::Array,
            4 => Op::Char6,
            5 => Op::Blob,
            _ => return None,
        });
    }
    Some(ops)
}

fn read_scalar(r: &mut Bits, op: Op) -> Option<u64> {
    match op {
        Op::Literal(v) => Some(v),
        Op::Fixed(w) => r.fixed(w),
        Op::Vbr(w) => r.vbr(w),
        Op::Char6 => {
            let v = r.fixed(6)? as u8;
            Some(u64::from(match v {
                0..=25 => b'a' + v,
                26..=51 => b'A' + v - 26,
                52..=61 => b'0' + v - 52,
                62 => b'.',
                _ => b'_',
            }))
        }
        Op::Array | Op::Blob => None,
    }
}

fn read_abbreviated(r: &mut Bits, ops: &[Op]) -> Option<Vec<u64>> {
    let mut vals = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        match ops[i] {
            Op::Array => {
                let elem = *ops.get(i + 1)?;
                let n = usize::try_from(r.vbr(6)?).ok().filter(|&n| n <= MAX_OPS)?;
                for _ in 0..n {
                    vals.push(read_scalar(r, elem)?);
                }
                i += 2;
                continue;
            }
            Op::Blob => {
                let n = usize::try_from(r.vbr(6)?).ok().filter(|&n| n <= MAX_OPS)?;
                r.align32()?;
                for _ in 0..n {
                    vals.push(r.fixed(8)?);
                }
                r.align32()?;
            }
            op => vals.push(read_scalar(r, op)?),
        }
        i += 1;
    }
    Some(vals)
}

/// Little-endian bit reader (LLVM's bitstream order), every read bounds-checked.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn fixed(&mut self, width: usize) -> Option<u64> {
        if width > 64 || self.pos.checked_add(width)? > self.data.len().checked_mul(8)? {
            return None;
        }
        let mut v = 0u64;
        for k in 0..width {
            let bit = self.pos + k;
            v |= u64::from((self.data[bit / 8] >> (bit % 8)) & 1) << k;
        }
        self.pos += width;
        Some(v)
    }

    fn vbr(&mut self, width: usize) -> Option<u64> {
        if width < 2 {
            return None;
        }
        let hi = 1u64 << (width - 1);
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let piece = self.fixed(width)?;
            if shift >= 64 {
                return None;
            }
            v |= (piece & (hi - 1)) << shift;
            if piece & hi == 0 {
                return Some(v);
            }
            shift += (width - 1) as u32;
        }
    }

    fn align32(&mut self) -> Option<()> {
        self.pos = self.pos.checked_add(31)? & !31;
        (self.pos <= self.data.len() * 8).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_bitcode_or_truncated() {
        assert_eq!(identify(b"; ModuleID = 'x'"), None);
        assert_eq!(identify(b"BC\xC0\xDE"), None);
        assert_eq!(identify(b"BC\xC0\xDE\x35\x14\x00\x00"), None);
    }

    #[test]
    fn producer_major() {
        let id = |p: &str| Identification {
            producer: p.into(),
            epoch: Some(0),
        };
        assert_eq!(id("LLVM19.1.7").llvm_major(), Some(19));
        assert_eq!(id("LLVM14.0.6").llvm_major(), Some(14));
        assert_eq!(id("APPLE_1_1500").llvm_major(), None);
        assert_eq!(id("LLVM").llvm_major(), None);
    }
}
