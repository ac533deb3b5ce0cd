//! Reading back what gimli wrote, for the in-place patches of `line`, `rows`, `type_units` and
//! `loclists` (what gimli::write cannot express). Errors here are the writer's own bugs. A leaf:
//! it imports none of the writer's modules.

use crate::dwarf::bytes::Leb128;

pub(super) fn u16_at(b: &[u8], at: usize) -> Result<u16, String> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| format!("truncated at {at}"))
}

pub(super) fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| format!("truncated at {at}"))
}

/// An unsigned LEB128 number at `at` (moved past it), read as the writer's patches always have
/// (`Leb128`'s table).
pub(super) fn uleb_at(b: &[u8], at: &mut usize) -> Result<u64, String> {
    let leb = Leb128::scan(b.get(*at..).unwrap_or_default(), 10);
    *at += leb.len;
    match (leb.ended, leb.len) {
        (true, _) => Ok(leb.bits),
        (false, 10) => Err(format!("LEB128 too long at {at}")),
        (false, _) => Err(format!("truncated LEB128 at {at}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The reader this one replaced: at most ten bytes, bits from 64 up dropped.
    fn model_stmt_uleb(b: &[u8]) -> Result<u64, String> {
        let (mut v, mut at) = (0u64, 0usize);
        for shift in (0..64).step_by(7) {
            let x = *b
                .get(at)
                .ok_or_else(|| format!("truncated LEB128 at {at}"))?;
            at += 1;
            v |= u64::from(x & 0x7f) << shift;
            if x & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("LEB128 too long at {at}"))
    }

    #[test]
    fn uleb_keeps_its_rules() {
        let alphabet = [0x00u8, 0x01, 0x7f, 0x80, 0x81, 0xff];
        for n in 0..12 {
            for k in 0..4096usize {
                let b: Vec<u8> = (0..n)
                    .map(|i| alphabet[(k.wrapping_mul(2654435761) >> (i % 20)) % alphabet.len()])
                    .collect();
                let mut at = 0;
                assert_eq!(uleb_at(&b, &mut at), model_stmt_uleb(&b), "{b:x?}");
            }
        }
    }
}
