//! Little-endian byte cursor and writer with LEB128, for the codecs.

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
    pub fn uleb(&mut self, what: &str) -> CodecResult<u64> {
        let start = self.pos;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.u8(what)?;
            if shift >= 64 && b & 0x7f != 0 || shift == 63 && b & 0x7e != 0 {
                return codec_err(start, format!("{what}: ULEB128 overflows 64 bits"));
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
    pub fn sleb(&mut self, what: &str) -> CodecResult<i64> {
        let start = self.pos;
        let mut value = 0i64;
        let mut shift = 0u32;
        loop {
            let b = self.u8(what)?;
            if shift >= 64 {
                // Only sign-extension bytes may follow the 64th bit.
                let sign = if value < 0 { 0x7f } else { 0 };
                if b & 0x7f != sign {
                    return codec_err(start, format!("{what}: SLEB128 overflows 64 bits"));
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
}

pub(crate) fn put_fixed(out: &mut Vec<u8>, value: u64, n: u8) {
    out.extend_from_slice(&value.to_le_bytes()[..usize::from(n)]);
}

pub(crate) fn put_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

pub(crate) fn put_sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        if done {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
