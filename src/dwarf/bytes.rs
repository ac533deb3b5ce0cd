//! Little-endian byte cursor and writer with LEB128: the one LEB128 of the DWARF reader, writer
//! and codecs (writing and strict reading are gimli's).

use super::{codec_err, CodecResult};

pub(crate) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }
    pub fn take(&mut self, n: u64, what: &str) -> CodecResult<&'a [u8]> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return codec_err(self.pos, format!("{what}: {n} byte(s) needed, {left} left"));
        }
        let s = &self.bytes[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    pub fn u8(&mut self, what: &str) -> CodecResult<u8> {
        Ok(self.take(1, what)?[0])
    }
    /// An unsigned little-endian integer of `n` (1–8) bytes.
    pub fn fixed(&mut self, n: u8, what: &str) -> CodecResult<u64> {
        let b = self.take(u64::from(n), what)?;
        Ok(b.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }
    /// An unsigned LEB128 number of any length whose bits from 64 up are zero (padding allowed).
    pub fn uleb(&mut self, what: &str) -> CodecResult<u64> {
        let start = self.pos;
        let leb = Leb128::scan(self.rest(), usize::MAX);
        if leb.over_unsigned {
            return codec_err(start, format!("{what}: ULEB128 overflows 64 bits"));
        }
        self.pos += leb.len;
        if !leb.ended {
            self.u8(what)?;
        }
        Ok(leb.bits)
    }
    /// A signed LEB128 number of any length whose bytes past the tenth only extend the sign.
    pub fn sleb(&mut self, what: &str) -> CodecResult<i64> {
        let start = self.pos;
        let leb = Leb128::scan(self.rest(), usize::MAX);
        if leb.over_signed {
            return codec_err(start, format!("{what}: SLEB128 overflows 64 bits"));
        }
        self.pos += leb.len;
        if !leb.ended {
            self.u8(what)?;
        }
        Ok(leb.signed())
    }
}

/// One LEB128 number as the lenient readers take it: the bytes up to and including the first
/// one without the continuation bit (or all of them, up to a limit), bits from 64 up dropped
/// from the value but noted. The strict readers are gimli's (`uleb_exact`, `sleb_exact`); the
/// callers here keep the rules they have always had for malformed input:
///
/// | caller | length | unterminated | bits from 64 up |
/// |---|---|---|---|
/// | `Cursor::uleb`/`sleb` (expressions, CFA) | any | error | error (`sleb`: past the tenth byte, unless sign padding) |
/// | raw attribute written back (`back::dwarf`) | 10 bytes | `uleb`: the bits read; `sleb`: none | dropped |
/// | DW_AT_stmt_list patching (`back::dwarf::line`) | 10 bytes | error | dropped |
/// | DW_AT_vtable_elem_location's `DW_OP_constu` | any | the bits read | dropped |
/// | dwarv's own attributes (`front::dwarf`) | exactly the value's bytes | none | none |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Leb128 {
    /// The value's bits 0–63 (not sign-extended).
    pub bits: u64,
    /// Bytes read.
    pub len: usize,
    /// Whether a byte without the continuation bit ended the number (else the bytes or the
    /// limit ran out).
    pub ended: bool,
    /// The last byte read (its bit 6 is a signed number's sign).
    pub last: u8,
    /// A bit from 64 up is set.
    pub over_unsigned: bool,
    /// A byte past the tenth is not the sign's padding (0x00 or 0x7f after bit 63).
    pub over_signed: bool,
}

impl Leb128 {
    /// Reads at most `limit` bytes of `bytes`.
    pub fn scan(bytes: &[u8], limit: usize) -> Leb128 {
        let mut leb = Leb128::default();
        for &b in bytes.iter().take(limit) {
            let shift = 7 * leb.len;
            let low = b & 0x7f;
            match shift {
                0..=62 => leb.bits |= u64::from(low) << shift,
                63 => {
                    leb.bits |= u64::from(low & 1) << 63;
                    leb.over_unsigned |= low & 0x7e != 0;
                }
                _ => {
                    leb.over_unsigned |= low != 0;
                    let sign = if (leb.bits as i64) < 0 { 0x7f } else { 0 };
                    leb.over_signed |= low != sign;
                }
            }
            leb.len += 1;
            leb.last = b;
            if b & 0x80 == 0 {
                leb.ended = true;
                break;
            }
        }
        leb
    }

    /// The value as a signed number: sign-extended from the last byte when it ends below bit 64.
    pub fn signed(&self) -> i64 {
        let shift = 7 * self.len;
        match shift < 64 && self.last & 0x40 != 0 {
            true => (self.bits | (u64::MAX << shift)) as i64,
            false => self.bits as i64,
        }
    }
}

/// `bytes` as exactly one unsigned LEB128 number that fits 64 bits (gimli's reader).
pub(crate) fn uleb_exact(bytes: &[u8]) -> Option<u64> {
    let mut r = gimli::EndianSlice::new(bytes, gimli::LittleEndian);
    let v = gimli::leb128::read::unsigned(&mut r).ok()?;
    r.is_empty().then_some(v)
}

/// `bytes` as exactly one signed LEB128 number that fits 64 bits (gimli's reader).
pub(crate) fn sleb_exact(bytes: &[u8]) -> Option<i64> {
    let mut r = gimli::EndianSlice::new(bytes, gimli::LittleEndian);
    let v = gimli::leb128::read::signed(&mut r).ok()?;
    r.is_empty().then_some(v)
}

pub(crate) fn put_fixed(out: &mut Vec<u8>, value: u64, n: u8) {
    out.extend_from_slice(&value.to_le_bytes()[..usize::from(n)]);
}

/// An unsigned LEB128 number, the bytes gimli's writer gives (pushed here directly: gimli's
/// goes through `io::Write` a byte at a time).
pub(crate) fn put_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// [`put_uleb`] into a buffer (of 10 bytes: any u64); the number of bytes.
pub(crate) fn uleb_into(out: &mut [u8; 10], mut v: u64) -> usize {
    let mut n = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out[n] = byte;
            return n + 1;
        }
        out[n] = byte | 0x80;
        n += 1;
    }
}

/// A signed LEB128 number, as [`put_uleb`].
pub(crate) fn put_sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let sign = byte & 0x40 != 0;
        if (v == 0 && !sign) || (v == -1 && sign) {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dwarf::CodecError;

    #[test]
    fn leb_writers_give_gimlis_bytes() {
        let mut values: Vec<u64> = vec![0, u64::MAX, i64::MAX as u64, i64::MIN as u64];
        for shift in 0..64 {
            for d in [0u64, 1, 2] {
                values.push((1u64 << shift).wrapping_sub(d));
                values.push((1u64 << shift).wrapping_add(d));
            }
        }
        for v in values {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            put_uleb(&mut ours, v);
            gimli::leb128::write::unsigned(&mut theirs, v).expect("a Vec takes any bytes");
            assert_eq!(ours, theirs, "unsigned {v}");
            let mut buffer = [0u8; 10];
            let n = uleb_into(&mut buffer, v);
            assert_eq!(&buffer[..n], &theirs[..], "unsigned {v} into a buffer");
            for s in [v as i64, (v as i64).wrapping_neg()] {
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                put_sleb(&mut ours, s);
                gimli::leb128::write::signed(&mut theirs, s).expect("a Vec takes any bytes");
                assert_eq!(ours, theirs, "signed {s}");
            }
        }
    }

    #[test]
    fn leb_round_trip() {
        for v in [
            0u64,
            1,
            63,
            64,
            127,
            128,
            300,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_uleb(&mut b, v);
            assert_eq!(Cursor::new(&b).uleb("x").unwrap(), v);
        }
        for v in [
            0i64,
            1,
            -1,
            63,
            64,
            -64,
            -65,
            1000,
            -1000,
            i64::MIN,
            i64::MAX,
        ] {
            let mut b = Vec::new();
            put_sleb(&mut b, v);
            assert_eq!(Cursor::new(&b).sleb("x").unwrap(), v, "{v}");
        }
        assert!(Cursor::new(&[0x80; 12]).uleb("x").is_err());
        assert!(Cursor::new(&[0x80, 0x80]).uleb("x").is_err());
    }

    #[test]
    fn leb_writer_bytes() {
        let u = |v: u64| {
            let mut b = Vec::new();
            put_uleb(&mut b, v);
            b
        };
        let s = |v: i64| {
            let mut b = Vec::new();
            put_sleb(&mut b, v);
            b
        };
        assert_eq!(u(0), [0]);
        assert_eq!(u(127), [0x7f]);
        assert_eq!(u(128), [0x80, 0x01]);
        assert_eq!(
            u(u64::MAX),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        assert_eq!(s(-1), [0x7f]);
        assert_eq!(s(63), [0x3f]);
        assert_eq!(s(64), [0xc0, 0x00]);
        assert_eq!(s(-64), [0x40]);
        assert_eq!(s(-65), [0xbf, 0x7f]);
        assert_eq!(
            s(i64::MIN),
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]
        );
        assert_eq!(
            s(i64::MAX),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]
        );
    }

    #[test]
    fn leb_edges() {
        // Truncated, over a limit, bits dropped, sign extension.
        let t = Leb128::scan(&[0x81, 0x80], usize::MAX);
        assert_eq!((t.bits, t.len, t.ended), (1, 2, false));
        let l = Leb128::scan(&[0x80; 12], 10);
        assert_eq!((l.len, l.ended), (10, false));
        let mut ten = [0x80u8; 10];
        ten[9] = 0x03; // bit 63 and bit 64
        let d = Leb128::scan(&ten, 10);
        assert_eq!((d.bits, d.ended, d.over_unsigned), (1 << 63, true, true));
        assert_eq!(Leb128::scan(&[0x7f], 10).signed(), -1);
        assert_eq!(Leb128::scan(&[0x3f], 10).signed(), 63);
        // Cursor: zero padding past 64 bits is fine, set bits there are not; sign padding.
        let mut pad = vec![0x81u8];
        pad.extend([0x80; 11]);
        pad.push(0x00);
        assert_eq!(Cursor::new(&pad).uleb("x").unwrap(), 1);
        assert!(Cursor::new(&ten).uleb("x").is_err());
        let mut neg = vec![0xffu8; 10];
        neg.push(0x7f);
        assert_eq!(Cursor::new(&neg).sleb("x").unwrap(), -1);
        neg[10] = 0x7e;
        assert!(Cursor::new(&neg).sleb("x").is_err());
        let e = Cursor::new(&[0x80, 0x80]).uleb("x").unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "x: 1 byte(s) needed, 0 left")
        );
        // Exactly one number that fits 64 bits.
        assert_eq!(uleb_exact(&[0x80, 0x01]), Some(128));
        assert_eq!(uleb_exact(&[0x80, 0x01, 0x00]), None);
        assert_eq!(uleb_exact(&[0x80]), None);
        assert_eq!(uleb_exact(&[]), None);
        ten[9] = 0x01;
        assert_eq!(uleb_exact(&ten), Some(1 << 63));
        ten[9] = 0x02;
        assert_eq!(uleb_exact(&ten), None);
        ten[9] = 0x7f;
        assert_eq!(sleb_exact(&ten), Some(i64::MIN));
        ten[9] = 0x40;
        assert_eq!(sleb_exact(&ten), None);
        assert_eq!(sleb_exact(&[0x40]), Some(-64));
    }

    // The readers the helper replaced, kept as models: each caller's rules must stay theirs.
    fn model_vendor(b: &[u8], signed: bool) -> Option<i128> {
        let (mut v, mut shift) = (0i128, 0u32);
        for (i, x) in b.iter().enumerate() {
            if shift > 63 {
                return None;
            }
            v |= i128::from(x & 0x7f) << shift;
            shift += 7;
            if x & 0x80 == 0 {
                if signed && x & 0x40 != 0 {
                    v -= 1i128 << shift;
                }
                return (i + 1 == b.len()).then_some(v);
            }
        }
        None
    }

    fn model_raw_uleb(b: &[u8]) -> Option<u64> {
        let mut v = 0u64;
        for (i, x) in b.iter().enumerate().take(10) {
            v |= u64::from(x & 0x7f) << (7 * i);
            if x & 0x80 == 0 {
                return Some(v);
            }
        }
        (!b.is_empty()).then_some(v)
    }

    fn model_raw_sleb(b: &[u8]) -> Option<i64> {
        let (mut v, mut shift) = (0i64, 0);
        for x in b.iter().take(10) {
            v |= i64::from(x & 0x7f) << shift;
            shift += 7;
            if x & 0x80 == 0 {
                if shift < 64 && x & 0x40 != 0 {
                    v |= -1 << shift;
                }
                return Some(v);
            }
        }
        None
    }

    fn model_cursor_uleb(bytes: &[u8]) -> Result<u64, (usize, String)> {
        let (mut pos, mut value, mut shift) = (0usize, 0u64, 0u32);
        loop {
            let Some(&b) = bytes.get(pos) else {
                return Err((pos, "x: 1 byte(s) needed, 0 left".into()));
            };
            pos += 1;
            if shift >= 64 && b & 0x7f != 0 || shift == 63 && b & 0x7e != 0 {
                return Err((0, "x: ULEB128 overflows 64 bits".into()));
            }
            if shift < 64 {
                value |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
    }

    fn model_cursor_sleb(bytes: &[u8]) -> Result<i64, (usize, String)> {
        let (mut pos, mut value, mut shift) = (0usize, 0i64, 0u32);
        loop {
            let Some(&b) = bytes.get(pos) else {
                return Err((pos, "x: 1 byte(s) needed, 0 left".into()));
            };
            pos += 1;
            if shift >= 64 {
                let sign = if value < 0 { 0x7f } else { 0 };
                if b & 0x7f != sign {
                    return Err((0, "x: SLEB128 overflows 64 bits".into()));
                }
            } else {
                value |= i64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    value |= -1i64 << shift;
                }
                return Ok(value);
            }
        }
    }

    #[test]
    fn leb_keeps_each_callers_rules() {
        // Byte strings of 0–13 bytes from a small alphabet of interesting bytes.
        let alphabet = [
            0x00u8, 0x01, 0x02, 0x3f, 0x40, 0x7e, 0x7f, 0x80, 0x81, 0xc0, 0xff,
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 14) as usize;
            let b: Vec<u8> = (0..len)
                .map(|i| alphabet[((seed >> (4 * i + 8)) % alphabet.len() as u64) as usize])
                .collect();
            let u = model_vendor(&b, false).and_then(|v| u64::try_from(v).ok());
            let s = model_vendor(&b, true).and_then(|v| i64::try_from(v).ok());
            assert_eq!(uleb_exact(&b), u, "{b:x?}");
            assert_eq!(sleb_exact(&b), s, "{b:x?}");
            let leb = Leb128::scan(&b, 10);
            let raw_u = (!b.is_empty()).then_some(leb.bits);
            assert_eq!(raw_u, model_raw_uleb(&b), "{b:x?}");
            assert_eq!(
                leb.ended.then(|| leb.signed()),
                model_raw_sleb(&b),
                "{b:x?}"
            );
            let err = |e: CodecError| (e.offset, e.message);
            assert_eq!(
                Cursor::new(&b).uleb("x").map_err(err),
                model_cursor_uleb(&b)
            );
            assert_eq!(
                Cursor::new(&b).sleb("x").map_err(err),
                model_cursor_sleb(&b)
            );
        }
    }
}
