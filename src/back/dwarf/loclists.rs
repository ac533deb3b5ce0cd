//! Location lists encoded straight into section bytes (.debug_loc for DWARF 2–4,
//! .debug_loclists for DWARF 5), as gimli 0.34's `LocationListTable` writes them, without
//! gimli's list tree (a 72-byte entry and two heap blocks per list entry: 17 MB of the heap at
//! the peak for the sqlite object's 97 734 entries, against 1 MB of bytes).
//!
//! A list's section offset is known only once every earlier list's size is: an expression
//! naming a base type (DW_OP_convert and kin, gimli's typed operations) holds the type DIE's
//! unit offset as a ULEB128, which gimli settles while it writes the unit. So:
//! - the DIE attribute is a placeholder of the same form (`DW_FORM_sec_offset`, or `data4`
//!   before DWARF 4: gimli's `DebugMacinfoRef`, which dwarv uses for nothing else) whose value
//!   is the list's number; the `.debug_info` writer (`Marking`) notes where each one lands;
//! - each distinct typed expression goes to gimli as a one-entry list of its own, and its bytes
//!   are read back from what gimli wrote;
//! - `finish` assembles the sections, typed expressions in their places, and writes each list's
//!   offset over its placeholders.
//!
//! Lists are shared as gimli shares them (its table is a set: equal lists, one offset).

use gimli::write::{Address, AttributeValue, Expression, Location, LocationList, Writer};
use gimli::{constants as dw, LittleEndian, SectionId};
use rustc_hash::FxHashMap as HashMap;

use super::compact;
use crate::dwarf::bytes::{put_fixed, put_uleb};

/// An encoded expression: bytes, or gimli's typed operations naming DIEs (`expr::typed`).
#[derive(Clone, Debug)]
pub(super) enum Data {
    Raw(Vec<u8>),
    Typed(Expression),
}

impl Data {
    /// The expression as gimli takes it (an exprloc attribute).
    pub fn expression(&self) -> Expression {
        match self {
            Data::Raw(b) => Expression::raw(b.clone()),
            Data::Typed(x) => x.clone(),
        }
    }
}

/// The location lists of every unit.
#[derive(Default)]
pub(super) struct Lists {
    units: Vec<UnitLists>,
    /// Placeholder value → (unit, list).
    refs: Vec<(u32, u32)>,
    /// The first list gimli would have refused to write, as gimli says it.
    error: Option<String>,
}

struct UnitLists {
    version: u16,
    address_size: u8,
    bytes: Vec<u8>,
    /// Where each distinct list starts in `bytes`.
    starts: Vec<u32>,
    /// (position in `bytes`, typed expression): a typed expression, its length first, goes
    /// there.
    holes: Vec<(u32, u32)>,
    /// The distinct typed expressions, in first use order.
    typed: Vec<Expression>,
    typed_index: HashMap<Expression, u32>,
    /// List content hash → the last list with it; `chain` links earlier ones.
    by_hash: HashMap<u64, u32>,
    chain: Vec<u32>,
    /// A DWARF 4 list of start–end entries, which gimli refuses when the unit has a base
    /// address other than 0.
    start_end: bool,
}

const NO_LIST: u32 = u32::MAX;

impl Lists {
    /// A unit's table (in unit order).
    pub fn add_unit(&mut self, version: u16, address_size: u8) {
        self.units.push(UnitLists {
            version,
            address_size,
            bytes: Vec::new(),
            starts: Vec::new(),
            holes: Vec::new(),
            typed: Vec::new(),
            typed_index: HashMap::default(),
            by_hash: HashMap::default(),
            chain: Vec::new(),
            start_end: false,
        });
    }

    /// A list of unit `u` (whose base address is `unit_base`) from (start, end, expression)
    /// entries (empty ranges too, but DWARF 4's 0–0) and an optional default entry (DWARF 5 only),
    /// made like `Builder::range_list`: DWARF 5 lists in the shortest encoding
    /// (`compact::entries`); a DWARF 4 list says base address 0 first unless the unit's base
    /// address is 0 already (as compilers leave it out; gdb prints it). Returns the attribute
    /// that refers to it.
    pub fn add(
        &mut self,
        u: usize,
        unit_base: Option<u64>,
        entries: Vec<(u64, u64, &Data)>,
        default: Option<&Data>,
    ) -> AttributeValue {
        let t = &mut self.units[u];
        let asz = t.address_size;
        let start = t.bytes.len();
        let first_hole = t.holes.len();
        // Empty ranges stay (gcc's location views pair with them), but for DWARF 4's 0–0,
        // which is its end of list (the caller ledgers it).
        let v4 = t.version < 5;
        let entries: Vec<_> = entries
            .into_iter()
            .filter(|e| e.1 > e.0 || (e.1 == e.0 && !(v4 && e.1 == 0)))
            .collect();
        let mut err = None;
        if t.version >= 5 {
            for e in compact::entries(asz, unit_base, entries) {
                match e {
                    compact::Entry::Base(a) => {
                        t.bytes.push(dw::DW_LLE_base_address.0);
                        t.address(a, &mut err);
                    }
                    compact::Entry::Pair(begin, end, data) => {
                        t.bytes.push(dw::DW_LLE_offset_pair.0);
                        put_uleb(&mut t.bytes, begin);
                        put_uleb(&mut t.bytes, end);
                        t.expression(data, &mut err);
                    }
                    compact::Entry::StartLength(begin, length, data) => {
                        t.bytes.push(dw::DW_LLE_start_length.0);
                        t.address(begin, &mut err);
                        put_uleb(&mut t.bytes, length);
                        t.expression(data, &mut err);
                    }
                }
            }
            if let Some(data) = default {
                t.bytes.push(dw::DW_LLE_default_location.0);
                t.expression(data, &mut err);
            }
            t.bytes.push(dw::DW_LLE_end_of_list.0);
        } else {
            let base_is_zero = unit_base == Some(0);
            if !base_is_zero {
                // The base-address marker, then base address 0.
                put_fixed(&mut t.bytes, u64::MAX >> (64 - u32::from(asz) * 8), asz);
                t.address(0, &mut err);
            }
            // Over a base of 0, the pair is written as the addresses themselves (start–end
            // entries, the same bytes).
            t.start_end |= base_is_zero && !entries.is_empty();
            for (begin, end, data) in entries {
                t.address(begin, &mut err);
                t.address(end, &mut err);
                t.expression(data, &mut err);
            }
            if default.is_some() {
                err.get_or_insert(gimli::write::Error::InvalidRange.to_string());
            }
            put_fixed(&mut t.bytes, 0, asz);
            put_fixed(&mut t.bytes, 0, asz);
        }
        if self.error.is_none() {
            self.error = err;
        }
        let list = t.share(start, first_hole);
        let value = self.refs.len();
        self.refs.push((u as u32, list));
        AttributeValue::DebugMacinfoRef(gimli::DebugMacinfoOffset(value))
    }

    /// Adds to gimli's unit tables a one-entry list per typed expression, whose bytes gimli
    /// then writes with the unit's DIE offsets (read back by `finish`).
    pub fn typed_to_gimli(&self, dwarf: &mut gimli::write::Dwarf, units: &[gimli::write::UnitId]) {
        for (t, &uid) in self.units.iter().zip(units) {
            let table = &mut dwarf.units.get_mut(uid).locations;
            for x in &t.typed {
                let list = match t.version >= 5 {
                    true => vec![Location::DefaultLocation { data: x.clone() }],
                    false => vec![
                        Location::BaseAddress {
                            address: Address::Constant(0),
                        },
                        Location::OffsetPair {
                            begin: 0,
                            end: 1,
                            data: x.clone(),
                        },
                    ],
                };
                table.add(LocationList(list));
            }
        }
    }

    /// The .debug_loc and .debug_loclists sections, from gimli's (the typed expressions'
    /// lists alone, `typed_to_gimli`), with the offset of each list written over its
    /// placeholders in `info` (`marks`: (position, placeholder value)). `have_base[u]`:
    /// whether unit `u`'s root has a DW_AT_low_pc other than 0 (gimli's test).
    pub fn finish(
        self,
        gimli_loc: &[u8],
        gimli_loclists: &[u8],
        info: &mut [u8],
        marks: &[(usize, usize)],
        have_base: &[bool],
    ) -> Result<(Vec<u8>, Vec<u8>), String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let (mut loc, mut loclists) = (Vec::new(), Vec::new());
        let (mut gimli_at_loc, mut gimli_at_loclists) = (0usize, 0usize);
        // Per unit: the offset of each list.
        let mut offsets: Vec<Vec<u32>> = Vec::with_capacity(self.units.len());
        for (u, t) in self.units.into_iter().enumerate() {
            let v5 = t.version >= 5;
            if !v5 && t.start_end && have_base.get(u).copied().unwrap_or(false) {
                return Err(gimli::write::Error::UnexpectedBaseAddress.to_string());
            }
            // The typed expressions' bytes, from gimli's lists.
            let typed = match v5 {
                true => read_typed(gimli_loclists, &mut gimli_at_loclists, &t)?,
                false => read_typed(gimli_loc, &mut gimli_at_loc, &t)?,
            };
            let out = if v5 { &mut loclists } else { &mut loc };
            let mut list_offsets = Vec::with_capacity(t.starts.len());
            if t.starts.is_empty() {
                offsets.push(list_offsets);
                continue;
            }
            let header = out.len();
            if v5 {
                // unit_length, version, address_size, segment_selector_size,
                // offset_entry_count.
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&5u16.to_le_bytes());
                out.extend_from_slice(&[t.address_size, 0, 0, 0, 0, 0]);
            }
            let mut from = 0usize;
            let mut holes = t.holes.iter().peekable();
            for &s in &t.starts {
                let s = s as usize;
                // Holes before this list's start belong to earlier lists.
                while let Some(&&(pos, k)) = holes.peek().filter(|h| (h.0 as usize) < s) {
                    out.extend_from_slice(&t.bytes[from..pos as usize]);
                    let x = &typed[k as usize];
                    expression_bytes(out, v5, x)?;
                    from = pos as usize;
                    holes.next();
                }
                out.extend_from_slice(&t.bytes[from..s]);
                from = s;
                let at = u32::try_from(out.len())
                    .map_err(|_| "a location-list section past 4 GiB".to_string())?;
                list_offsets.push(at);
            }
            for &(pos, k) in holes {
                out.extend_from_slice(&t.bytes[from..pos as usize]);
                expression_bytes(out, v5, &typed[k as usize])?;
                from = pos as usize;
            }
            out.extend_from_slice(&t.bytes[from..]);
            if v5 {
                let len = u32::try_from(out.len() - header - 4)
                    .map_err(|_| "a location-list table past 4 GiB".to_string())?;
                out[header..header + 4].copy_from_slice(&len.to_le_bytes());
            }
            offsets.push(list_offsets);
        }
        for &(pos, value) in marks {
            let &(u, list) = self
                .refs
                .get(value)
                .ok_or_else(|| format!("location-list placeholder {value} unknown"))?;
            let offset = offsets[u as usize][list as usize];
            info[pos..pos + 4].copy_from_slice(&offset.to_le_bytes());
        }
        Ok((loc, loclists))
    }
}

/// An expression with its length: ULEB128 in DWARF 5, 2 bytes before.
fn expression_bytes(out: &mut Vec<u8>, v5: bool, x: &[u8]) -> Result<(), String> {
    if v5 {
        put_uleb(out, x.len() as u64);
    } else {
        let n =
            u16::try_from(x.len()).map_err(|_| gimli::write::Error::ValueTooLarge.to_string())?;
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(x);
    Ok(())
}

/// Reads back the bytes of unit `t`'s typed expressions from gimli's lists of them at `*at`
/// (a DWARF 5 table: header, then per list a default entry and an end; before DWARF 5 per
/// list a base-address entry, one pair and an end).
fn read_typed(gimli: &[u8], at: &mut usize, t: &UnitLists) -> Result<Vec<Vec<u8>>, String> {
    if t.typed.is_empty() {
        return Ok(Vec::new());
    }
    let bad = || "gimli's typed location lists are not as expected".to_string();
    let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
        let s = gimli.get(*at..*at + n).ok_or_else(bad)?;
        *at += n;
        Ok(s)
    };
    let asz = usize::from(t.address_size);
    let mut out = Vec::with_capacity(t.typed.len());
    if t.version >= 5 {
        take(at, 12)?;
        for _ in &t.typed {
            if take(at, 1)? != [dw::DW_LLE_default_location.0] {
                return Err(bad());
            }
            let mut p = *at;
            let n = super::read_back::uleb_at(gimli, &mut p)? as usize;
            *at = p;
            out.push(take(at, n)?.to_vec());
            if take(at, 1)? != [dw::DW_LLE_end_of_list.0] {
                return Err(bad());
            }
        }
    } else {
        for _ in &t.typed {
            take(at, 4 * asz)?;
            let n = take(at, 2)?;
            let n = usize::from(u16::from_le_bytes([n[0], n[1]]));
            out.push(take(at, n)?.to_vec());
            take(at, 2 * asz)?;
        }
    }
    Ok(out)
}

impl UnitLists {
    fn address(&mut self, a: u64, err: &mut Option<String>) {
        let size = self.address_size;
        if size < 8 && a >> (8 * u32::from(size)) != 0 {
            err.get_or_insert(gimli::write::Error::ValueTooLarge.to_string());
        }
        put_fixed(&mut self.bytes, a, size);
    }

    fn expression(&mut self, data: &Data, err: &mut Option<String>) {
        match data {
            Data::Raw(x) => {
                if let Err(e) = expression_bytes(&mut self.bytes, self.version >= 5, x) {
                    err.get_or_insert(e);
                }
            }
            Data::Typed(x) => {
                let next = self.typed.len() as u32;
                let k = *self.typed_index.entry(x.clone()).or_insert(next);
                if k == next {
                    self.typed.push(x.clone());
                }
                self.holes.push((self.bytes.len() as u32, k));
            }
        }
    }

    /// The list just encoded at `start` (its holes from `first_hole`) if no equal list came
    /// before it (it stays), or that earlier list (the new bytes go).
    fn share(&mut self, start: usize, first_hole: usize) -> u32 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        self.bytes[start..].hash(&mut h);
        for &(pos, k) in &self.holes[first_hole..] {
            (pos as usize - start, k).hash(&mut h);
        }
        let hash = h.finish();
        let mut cand = self.by_hash.get(&hash).copied().unwrap_or(NO_LIST);
        while cand != NO_LIST {
            if self.same(cand, start, first_hole) {
                self.bytes.truncate(start);
                self.holes.truncate(first_hole);
                return cand;
            }
            cand = self.chain[cand as usize];
        }
        let id = self.starts.len() as u32;
        self.starts.push(start as u32);
        self.chain
            .push(self.by_hash.get(&hash).copied().unwrap_or(NO_LIST));
        self.by_hash.insert(hash, id);
        id
    }

    /// Whether list `id` has the bytes and holes of the one at `start`.
    fn same(&self, id: u32, start: usize, first_hole: usize) -> bool {
        let s = self.starts[id as usize] as usize;
        let e = self
            .starts
            .get(id as usize + 1)
            .map_or(start, |&n| n as usize);
        if self.bytes[s..e] != self.bytes[start..] {
            return false;
        }
        // Holes are in position order.
        let (lo, hi) = (
            self.holes.partition_point(|h| (h.0 as usize) < s),
            self.holes.partition_point(|h| (h.0 as usize) < e),
        );
        let new = &self.holes[first_hole..];
        hi - lo == new.len()
            && self.holes[lo..hi]
                .iter()
                .zip(new)
                .all(|(a, b)| a.0 as usize - s == b.0 as usize - start && a.1 == b.1)
    }
}

/// A `.debug_info` writer that notes where each location-list placeholder goes.
#[derive(Clone)]
pub(super) struct Marking {
    pub out: Vec<u8>,
    /// (position, placeholder value) of each `DebugMacinfoRef` written.
    pub marks: Vec<(usize, usize)>,
}

impl Marking {
    pub fn new() -> Marking {
        Marking::with_capacity(0)
    }
    /// A writer with room for `bytes`: a section grown by doubling copied itself at each step
    /// into pages never touched before.
    pub fn with_capacity(bytes: usize) -> Marking {
        Marking {
            out: Vec::with_capacity(bytes),
            marks: Vec::new(),
        }
    }
    pub fn slice(&self) -> &[u8] {
        &self.out
    }
    /// The bytes written, leaving the writer empty (its marks stay).
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}

impl Writer for Marking {
    type Endian = LittleEndian;
    fn endian(&self) -> LittleEndian {
        LittleEndian
    }
    fn len(&self) -> usize {
        self.out.len()
    }
    fn write(&mut self, bytes: &[u8]) -> gimli::write::Result<()> {
        self.out.extend_from_slice(bytes);
        Ok(())
    }
    fn write_at(&mut self, offset: usize, bytes: &[u8]) -> gimli::write::Result<()> {
        // EndianVec's checks.
        let Some(to) = self.out.get_mut(offset..) else {
            return Err(gimli::write::Error::OffsetOutOfBounds);
        };
        match to.get_mut(..bytes.len()) {
            Some(place) => {
                place.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(gimli::write::Error::LengthOutOfBounds),
        }
    }
    // gimli's LEB128 writers build each number in a buffer first: dwarv's pushes its bytes
    // (the same bytes: `dwarf::bytes`' test), 1 % of a DWARF conversion's instructions.
    fn write_uleb128(&mut self, val: u64) -> gimli::write::Result<()> {
        let mut b = [0u8; 10];
        let n = crate::dwarf::bytes::uleb_into(&mut b, val);
        self.write(&b[..n])
    }
    fn write_offset(
        &mut self,
        val: usize,
        section: SectionId,
        size: u8,
    ) -> gimli::write::Result<()> {
        if section == SectionId::DebugMacinfo {
            self.marks.push((self.out.len(), val));
            return self.write_udata(0, size);
        }
        self.write_udata(val as u64, size)
    }
}
