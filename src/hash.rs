//! FNV-1a (64-bit): the one small, stable hash of bytes dwarv uses where an output depends on it
//! (build identifiers, diff identities, batch shards), so it must not change with the machine or
//! the Rust version. Not cryptographic.

/// FNV-1a's 64-bit offset basis.
pub const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV's 64-bit prime.
pub const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a (64-bit) of `bytes`, starting from `basis` ([`FNV_OFFSET_BASIS`] for the standard hash).
pub fn fnv1a(basis: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes
        .into_iter()
        .fold(basis, |h, b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_vectors() {
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, []), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, *b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(FNV_OFFSET_BASIS, *b"foobar"), 0x8594_4171_f739_67e8);
    }
}
