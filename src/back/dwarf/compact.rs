//! DWARF 5's compact encodings of address lists, as compilers write them: the entries of a
//! location or range list as offset pairs from a base address — the unit's (DW_AT_low_pc) or
//! one a base-address entry sets — where that is shorter than whole addresses. A pure
//! function of the entries; `builder::range_list` and `expr::loc_list` turn its plan into
//! gimli's entries. (DWARF 4 lists keep their own encoding there.)

/// One entry of an encoded list: a new base address, an offset pair from the current base, or
/// a start address and a length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Entry<T> {
    Base(u64),
    Pair(u64, u64, T),
    StartLength(u64, u64, T),
}

/// The entries (begin, end, payload; non-empty ranges, in their order, which is kept) of a
/// DWARF 5 list, in the shortest of three encodings: offset pairs from the unit's base address
/// `unit_base` (when the unit has one, at or below every begin), a base-address entry at the
/// lowest begin followed by offset pairs, or start–length entries.
pub(super) fn entries<T>(
    address_size: u8,
    unit_base: Option<u64>,
    list: Vec<(u64, u64, T)>,
) -> Vec<Entry<T>> {
    let pairs_from = |base: u64| -> u64 {
        list.iter()
            .map(|(b, e, _)| 1 + uleb_len(b - base) + uleb_len(e - base))
            .sum()
    };
    let lowest = list.iter().map(|e| e.0).min().unwrap_or(0);
    let from_unit = unit_base
        .filter(|&u| u <= lowest)
        .map(|u| (pairs_from(u), u));
    let with_base = 1 + u64::from(address_size) + pairs_from(lowest);
    let start_length: u64 = list
        .iter()
        .map(|(b, e, _)| 1 + u64::from(address_size) + uleb_len(e - b))
        .sum();
    let best_pairs = match from_unit {
        Some((cost, u)) if cost <= with_base => (cost, u, false),
        _ => (with_base, lowest, true),
    };
    if start_length < best_pairs.0 {
        return list
            .into_iter()
            .map(|(b, e, t)| Entry::StartLength(b, e - b, t))
            .collect();
    }
    let (_, base, entry) = best_pairs;
    let mut out = Vec::with_capacity(list.len() + 1);
    if entry && !list.is_empty() {
        out.push(Entry::Base(base));
    }
    out.extend(
        list.into_iter()
            .map(|(b, e, t)| Entry::Pair(b - base, e - base, t)),
    );
    out
}

/// Bytes of `v` as ULEB128.
fn uleb_len(v: u64) -> u64 {
    (u64::from(64 - v.leading_zeros()).max(1)).div_ceil(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_shortest_encoding() {
        // Near the unit's base: pairs from it, no base entry.
        assert_eq!(
            entries(
                8,
                Some(0x1000),
                vec![(0x1010, 0x1020, ()), (0x1000, 0x1008, ())]
            ),
            vec![Entry::Pair(0x10, 0x20, ()), Entry::Pair(0, 8, ())]
        );
        // Far from it (or no unit base): one base entry at the lowest begin, order kept.
        assert_eq!(
            entries(
                8,
                Some(0),
                vec![(0x900_0010, 0x900_0020, 'a'), (0x900_0000, 0x900_0008, 'b')]
            ),
            vec![
                Entry::Base(0x900_0000),
                Entry::Pair(0x10, 0x20, 'a'),
                Entry::Pair(0, 8, 'b')
            ]
        );
        // One entry far from the base: start and length.
        assert_eq!(
            entries(8, None, vec![(0x9_0010, 0x9_0020, ())]),
            vec![Entry::StartLength(0x9_0010, 0x10, ())]
        );
        assert_eq!(uleb_len(0), 1);
        assert_eq!(uleb_len(127), 1);
        assert_eq!(uleb_len(128), 2);
        assert_eq!(uleb_len(u64::MAX), 10);
    }
}
