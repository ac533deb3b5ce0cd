//! Expressions, locations, location lists, bounds and constant values of DIE attributes,
//! decoded by the shared codec (`crate::dwarf`) in the unit's AMD encoding.

use rustc_hash::FxHashMap as HashMap;

use gimli::AttributeValue as AttrValue;
use gimli::DwAt;

use super::walker::{
    fail, ref_offset, At, DResult, SkippedRanges, Slice, UnitState, Units, Walker,
};
use crate::diag::LossKind;
use crate::dwarf::{decode_expr, AmdOps, Encoding, RefKind, Refs};
use crate::ir::{
    Arg, Bound, CodePos, CodeRange, Expr, Handle, LocEntry, LocList, Location, Op, OpCode, Ref,
    Value,
};

/// DIE-valued expression operands → entities.
pub(super) struct DieRefs<'m> {
    map: &'m HashMap<u64, Ref>,
    unit_base: u64,
}

impl Refs for DieRefs<'_> {
    fn read_ref(&mut self, kind: RefKind, offset: u64) -> Result<Arg, String> {
        let abs = match kind {
            RefKind::Type if offset == 0 => return Ok(Arg::None),
            RefKind::Type | RefKind::UnitDie => self.unit_base.saturating_add(offset),
            RefKind::InfoDie => offset,
        };
        match self.map.get(&abs) {
            Some(r) => Ok(Arg::Ref(*r)),
            None => Err(format!(
                "operand names no DIE (.debug_info offset {abs:#x})"
            )),
        }
    }
    fn write_ref(&mut self, _: RefKind, _: &Arg) -> Result<u64, String> {
        Err("the reader does not encode".into())
    }
}

impl SkippedRanges {
    /// Counts a raw entry that gimli's conversion skipped.
    fn count(&mut self, raw: &gimli::RawRngListEntry<usize>) {
        use gimli::RawRngListEntry as Raw;
        let (empty, backwards) = match *raw {
            Raw::AddressOrOffsetPair { begin, end }
            | Raw::OffsetPair { begin, end }
            | Raw::StartEnd { begin, end } => (begin == end, begin > end),
            Raw::StartxEndx { begin, end } => (begin == end, false),
            Raw::StartLength { length, .. } | Raw::StartxLength { length, .. } => {
                (length == 0, false)
            }
            Raw::BaseAddress { .. } | Raw::BaseAddressx { .. } => (false, false),
        };
        self.empty += u64::from(empty);
        self.backwards += u64::from(backwards);
    }

    /// The ledger's lines for what was counted.
    pub fn report(&self, diag: &mut crate::diag::Diagnostics) {
        let lines = [
            (
                self.empty,
                "empty (gcc's location-view points; gdb and LLVM's tools read none)",
            ),
            (self.backwards, "ending before they begin"),
        ];
        for (n, what) in lines.into_iter().filter(|(n, _)| *n > 0) {
            diag.push(
                LossKind::Dropped,
                ".debug_rnglists/.debug_ranges",
                format!("{n} address range(s) of DW_AT_ranges lists {what}"),
            );
        }
    }
}

pub(super) fn ranges_of<'a>(
    u: &Units<'a>,
    unit: &gimli::Unit<Slice<'a>>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
    off: u64,
    skipped: &mut SkippedRanges,
) -> DResult<Vec<CodeRange>> {
    let err = |e: gimli::Error| fail(".debug_info", off, format!("address ranges: {e}"));
    // gimli adds a DW_AT_high_pc size to DW_AT_low_pc unchecked.
    let (mut low, mut size, mut list) = (None, None, None);
    for a in entry.attrs() {
        // The name first: gimli's `value` of every attribute is not free.
        match a.name() {
            gimli::DW_AT_low_pc => low = u.dwarf.attr_address(unit, a.value()).ok().flatten(),
            gimli::DW_AT_high_pc => {
                if let AttrValue::Udata(n) = a.value() {
                    size = Some(n);
                }
            }
            gimli::DW_AT_ranges if list.is_none() => list = Some(a.value()),
            _ => {}
        }
    }
    if let (Some(l), Some(n)) = (low, size) {
        if l.checked_add(n).is_none() {
            return Err(fail(
                ".debug_info",
                off,
                format!("DW_AT_low_pc {l:#x} + DW_AT_high_pc {n:#x} overflows"),
            ));
        }
    }
    let mut out = Vec::new();
    let list = match list {
        Some(v) => u.dwarf.attr_ranges_offset(unit, v).map_err(err)?,
        None => None,
    };
    // A list is read entry by entry, to count what gimli's conversion leaves out; a DIE
    // without one has its DW_AT_low_pc/high_pc range (gimli's `die_ranges`).
    let (mut raw_list, mut single) = match list {
        Some(o) => (Some(u.dwarf.ranges(unit, o).map_err(err)?), None),
        None => (None, Some(u.dwarf.die_ranges(unit, entry).map_err(err)?)),
    };
    loop {
        let next = match (&mut raw_list, &mut single) {
            (Some(l), _) => match l.next_raw().map_err(err)? {
                Some(raw) => match l.convert_raw(raw.clone()).map_err(err)? {
                    Some(r) => Some(r),
                    None => {
                        skipped.count(&raw);
                        continue;
                    }
                },
                None => None,
            },
            (None, Some(it)) => it.next().map_err(err)?,
            (None, None) => None,
        };
        let Some(r) = next else { break };
        if out.len() >= 1 << 20 {
            return Err(fail(
                ".debug_info",
                off,
                "more than a million address ranges",
            ));
        }
        if r.end < r.begin {
            return Err(fail(".debug_info", off, "an address range runs backwards"));
        }
        out.push(CodeRange {
            start: CodePos::Addr(r.begin),
            end: CodePos::Addr(r.end),
        });
    }
    // In the listed order: the first range is the entry (gcc: the hot part before the .cold).
    // One range (most DIEs) is normal already.
    if out.len() > 1 {
        CodeRange::normalize_in_order(&mut out);
    }
    Ok(out)
}

/// An expression of at most 7 bytes (most of a location list's) as one number: its bytes and
/// its length, a key hashed and compared in a few instructions (`UnitState::short_exprs`).
fn short_key(bytes: &[u8]) -> Option<u64> {
    if bytes.len() > 7 {
        return None;
    }
    let mut key = (bytes.len() as u64) << 56;
    for (i, b) in bytes.iter().enumerate() {
        key |= u64::from(*b) << (8 * i);
    }
    Some(key)
}

impl Walker<'_> {
    /// Decodes an expression in the unit's AMD encoding, or the other one when only that
    /// decodes every operation (a writer's choice the producer does not reveal).
    pub(super) fn expr(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Slice<'_>>,
        cur: &mut UnitState,
        bytes: &[u8],
        off: u64,
        section: &str,
    ) -> DResult<Handle<Expr>> {
        let short = short_key(bytes);
        let known = match short {
            Some(k) => cur.short_exprs.get(&k),
            None => cur.exprs.get(bytes),
        };
        if let Some(&h) = known {
            return Ok(h);
        }
        let h = self.new_expr((u, unit), cur, bytes, (section, off))?;
        match short {
            Some(k) => cur.short_exprs.insert(k, h),
            None => cur.exprs.insert(bytes.to_vec(), h),
        };
        Ok(h)
    }

    /// An expression not read before in the unit (`expr`), decoded; `(section, off)` names
    /// where it is for errors.
    #[inline(never)]
    fn new_expr(
        &mut self,
        (u, unit): (&Units<'_>, &gimli::Unit<Slice<'_>>),
        cur: &mut UnitState,
        bytes: &[u8],
        (section, off): (&str, u64),
    ) -> DResult<Handle<Expr>> {
        let mut refs = DieRefs {
            map: &self.map,
            unit_base: cur.base,
        };
        let first = decode_expr(bytes, &cur.enc, &mut refs);
        let has_raw = |ops: &Vec<Op>| ops.iter().any(|o| o.code == OpCode::RAW);
        let ops = match first {
            Ok(ops) if !has_raw(&ops) => ops,
            first => {
                let other = Encoding {
                    amd: match cur.enc.amd {
                        AmdOps::Raw => AmdOps::User,
                        AmdOps::User => AmdOps::Raw,
                    },
                    ..cur.enc
                };
                match decode_expr(bytes, &other, &mut refs) {
                    Ok(ops) if !has_raw(&ops) => {
                        cur.enc = other;
                        ops
                    }
                    _ => first.map_err(|e| {
                        fail(
                            section,
                            off,
                            format!("expression byte {}: {}", e.offset, e.message),
                        )
                    })?,
                }
            }
        };
        let ops = resolve_addrx(u, unit, ops)
            .map_err(|e| fail(section, off, format!("DW_OP_addrx: {e}")))?;
        if has_raw(&ops) {
            self.diag.push(
                LossKind::Unknown,
                format!("{section}+{off:#x}"),
                "expression with operations dwarv does not know, kept as raw bytes",
            );
        }
        Ok(self.m.exprs.push(Expr { ops }))
    }

    pub(super) fn location(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Slice<'_>>,
        cur: &mut UnitState,
        off: u64,
        v: AttrValue<Slice<'_>>,
    ) -> DResult<Option<Location>> {
        match v {
            AttrValue::Exprloc(e) => Ok(Some(Location::Expr(self.expr(
                u,
                unit,
                cur,
                e.0.slice(),
                off,
                ".debug_info",
            )?))),
            AttrValue::Block(b) => Ok(Some(Location::Expr(self.expr(
                u,
                unit,
                cur,
                b.slice(),
                off,
                ".debug_info",
            )?))),
            v => {
                let section = if cur.version >= 5 {
                    ".debug_loclists"
                } else {
                    ".debug_loc"
                };
                let err = |e: gimli::Error| {
                    fail(
                        section,
                        off,
                        format!("location list of the DIE at .debug_info+{off:#x}: {e}"),
                    )
                };
                let Some(list) = u.dwarf.attr_locations_offset(unit, v).map_err(err)? else {
                    return Ok(None);
                };
                let mut it = LocEntries {
                    raw: u.dwarf.raw_locations(unit, list).map_err(err)?,
                    fast: fast_lle_start(u, unit, list.0),
                    ended: false,
                    base: unit.low_pc,
                    address_size: unit.encoding().address_size,
                };
                // Entries gather in the walker's scratch vector and move to a list of their
                // exact size: growing each list from empty reallocated 150 000 times.
                let mut entries = std::mem::take(&mut self.loc_entries);
                entries.clear();
                while let Some((begin, end, data)) = it.next(&u.dwarf, unit).map_err(err)? {
                    if entries.len() >= 1 << 20 {
                        return Err(fail(
                            section,
                            off,
                            "more than a million location-list entries",
                        ));
                    }
                    let expr = self.expr(u, unit, cur, data.0.slice(), off, section)?;
                    entries.push(LocEntry {
                        range: Some(CodeRange {
                            start: CodePos::Addr(begin),
                            end: CodePos::Addr(end),
                        }),
                        expr,
                    });
                }
                let mut list = Vec::with_capacity(entries.len());
                list.append(&mut entries);
                self.loc_entries = entries;
                Ok(Some(Location::List(
                    self.m.loclists.push(LocList { entries: list }),
                )))
            }
        }
    }

    pub(super) fn take_location(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<Location>> {
        match at.die.take(attr) {
            Some(v) => self.location(at.u, at.unit, at.cur, at.die.off, v),
            None => Ok(None),
        }
    }

    /// A constant, a reference or an expression (sizes, bounds).
    pub(super) fn bound(&mut self, at: &mut At, attr: DwAt, scale: i64) -> DResult<Option<Bound>> {
        let Some(v) = at.die.take(attr) else {
            return Ok(None);
        };
        if let Some(o) = ref_offset(at.unit, &v) {
            return match self.map.get(&o) {
                Some(r) => Ok(Some(Bound::Ref(*r))),
                None => Err(at.fail(format!("{attr} refers to no DIE"))),
            };
        }
        match v {
            AttrValue::Exprloc(e) => {
                let h = self.expr(
                    at.u,
                    at.unit,
                    at.cur,
                    e.0.slice(),
                    at.die.off,
                    ".debug_info",
                )?;
                Ok(Some(Bound::Ref(Ref::Expr(h))))
            }
            AttrValue::Sdata(n) => Ok(Some(Bound::Const(n.saturating_mul(scale)))),
            v => match v.udata_value() {
                Some(n) => Ok(Some(Bound::Const(
                    i64::try_from(n).unwrap_or(i64::MAX).saturating_mul(scale),
                ))),
                None => Err(at.fail(format!("{attr}: unexpected form"))),
            },
        }
    }

    pub(super) fn value(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<Value>> {
        let Some(v) = at.die.take(attr) else {
            return Ok(None);
        };
        Ok(Some(match v {
            AttrValue::Sdata(n) => Value::Int(i128::from(n)),
            AttrValue::Udata(n) => Value::Int(i128::from(n)),
            AttrValue::Data1(n) => Value::Int(i128::from(n)),
            AttrValue::Data2(n) => Value::Int(i128::from(n)),
            AttrValue::Data4(n) => Value::Int(i128::from(n)),
            AttrValue::Data8(n) => Value::Int(i128::from(n)),
            AttrValue::Data16(n) => Value::Bytes(n.to_le_bytes().to_vec()),
            AttrValue::Block(b) => Value::Bytes(b.slice().to_vec()),
            AttrValue::Exprloc(e) => Value::Bytes(e.0.slice().to_vec()),
            AttrValue::Flag(b) => Value::Int(i128::from(b)),
            v => match at.u.dwarf.attr_string(at.unit, v) {
                Ok(s) => Value::Str(String::from_utf8_lossy(s.slice()).into_owned()),
                Err(e) => return Err(at.fail(format!("{attr}: {e}"))),
            },
        }))
    }

    pub(super) fn param_expr(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<Handle<Expr>>> {
        match self.take_location(at, attr)? {
            Some(Location::Expr(h)) => Ok(Some(h)),
            Some(Location::List(_)) => Err(at.fail(format!(
                "{attr}: a location list where an expression belongs"
            ))),
            None => Ok(None),
        }
    }
}

/// DW_OP_addrx / DW_OP_GNU_addr_index become DW_OP_addr with the address from .debug_addr, so
/// that DWARF 4 and 5 reads of one program agree; the writer picks the form.
pub(super) fn resolve_addrx(
    u: &Units<'_>,
    unit: &gimli::Unit<Slice<'_>>,
    ops: Vec<Op>,
) -> Result<Vec<Op>, gimli::Error> {
    ops.into_iter()
        .map(|mut op| {
            match (op.code.0, op.args.as_mut_slice()) {
                (0xa1 | 0xfb, [Arg::Int(i)]) => {
                    let index = gimli::DebugAddrIndex(usize::try_from(*i).unwrap_or(usize::MAX));
                    let a = u.dwarf.address(unit, index)?;
                    op = Op::new(OpCode(0x03), vec![Arg::Int(i128::from(a))]);
                }
                (_, args) => {
                    for a in args {
                        if let Arg::Ops(inner) = a {
                            *inner = resolve_addrx(u, unit, std::mem::take(inner))?;
                        }
                    }
                }
            }
            Ok(op)
        })
        .collect()
}

/// A location list's entries as gimli's `LocListIter` gives them, but keeping the empty ones
/// (begin = end): gcc writes them for location views (a location that holds at one address
/// between two views, `DW_AT_GNU_locviews`), and its view list has a pair for each. Tombstones
/// (a dead base address or start) and reversed ranges are skipped, as gimli does.
struct LocEntries<'a> {
    raw: gimli::RawLocListIter<Slice<'a>>,
    /// `.debug_loclists` and the offset of the next entry, while `fast_lle` reads the list.
    fast: Option<(&'a [u8], usize)>,
    /// `fast_lle` read the list's end.
    ended: bool,
    base: u64,
    address_size: u8,
}

/// A ULEB128 number at `at` of fewer than 10 bytes (as gimli reads it), moving `at` past it.
#[inline(always)]
fn uleb_below_10_bytes(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
        shift += 7;
        if shift >= 63 {
            return None;
        }
    }
}

/// Where `fast_lle` reads a DWARF 5 location list: `.debug_loclists` from the list's offset
/// (gimli reads the others: `.debug_loc`, split units).
fn fast_lle_start<'a>(
    u: &Units<'a>,
    unit: &gimli::Unit<Slice<'a>>,
    list: usize,
) -> Option<(&'a [u8], usize)> {
    let main = matches!(u.dwarf.file_type, gimli::DwarfFileType::Main);
    (main && unit.encoding().version >= 5 && list <= u.loclists.len()).then_some((u.loclists, list))
}

/// One `.debug_loclists` entry read as gimli's `RawLocListEntry::parse` reads it, without its
/// calls per LEB128 number (gimli's reading was half the cost of a location list). `None`
/// for anything it does not read the same for sure: the end of the section, a number of ten
/// bytes or more, an entry kind or address size it does not know; gimli reads such an entry,
/// and the rest of its list (`LocEntries::raw_entry`). Gives the entry (`None` at
/// DW_LLE_end_of_list) and the offset after it.
#[allow(clippy::type_complexity)]
#[inline(always)]
fn fast_lle<'a>(
    bytes: &'a [u8],
    mut at: usize,
    address_size: u8,
) -> Option<(Option<gimli::RawLocListEntry<Slice<'a>>>, usize)> {
    use gimli::RawLocListEntry as E;
    let uleb = |at: &mut usize| uleb_below_10_bytes(bytes, at);
    let address = |at: &mut usize| -> Option<u64> {
        let size = usize::from(address_size);
        let b = bytes.get(*at..*at + size)?;
        *at += size;
        match address_size {
            8 => Some(u64::from_le_bytes(b.try_into().ok()?)),
            4 => Some(u64::from(u32::from_le_bytes(b.try_into().ok()?))),
            _ => None,
        }
    };
    let data = |at: &mut usize| -> Option<gimli::Expression<Slice<'a>>> {
        let len = usize::try_from(uleb(at)?).ok()?;
        let b = bytes.get(*at..at.checked_add(len)?)?;
        *at += len;
        Some(gimli::Expression(Slice::new(b, gimli::LittleEndian)))
    };
    let index = |at: &mut usize| -> Option<gimli::DebugAddrIndex<usize>> {
        usize::try_from(uleb(at)?).ok().map(gimli::DebugAddrIndex)
    };
    let kind = *bytes.get(at)?;
    at += 1;
    let entry = match gimli::DwLle(kind) {
        gimli::DW_LLE_end_of_list => None,
        gimli::DW_LLE_base_addressx => Some(E::BaseAddressx {
            addr: index(&mut at)?,
        }),
        gimli::DW_LLE_startx_endx => Some(E::StartxEndx {
            begin: index(&mut at)?,
            end: index(&mut at)?,
            data: data(&mut at)?,
        }),
        gimli::DW_LLE_startx_length => Some(E::StartxLength {
            begin: index(&mut at)?,
            length: uleb(&mut at)?,
            data: data(&mut at)?,
        }),
        gimli::DW_LLE_offset_pair => Some(E::OffsetPair {
            begin: uleb(&mut at)?,
            end: uleb(&mut at)?,
            data: data(&mut at)?,
        }),
        gimli::DW_LLE_default_location => Some(E::DefaultLocation {
            data: data(&mut at)?,
        }),
        gimli::DW_LLE_base_address => Some(E::BaseAddress {
            addr: address(&mut at)?,
        }),
        gimli::DW_LLE_start_end => Some(E::StartEnd {
            begin: address(&mut at)?,
            end: address(&mut at)?,
            data: data(&mut at)?,
        }),
        gimli::DW_LLE_start_length => Some(E::StartLength {
            begin: address(&mut at)?,
            length: uleb(&mut at)?,
            data: data(&mut at)?,
        }),
        _ => return None,
    };
    Some((entry, at))
}

impl<'a> LocEntries<'a> {
    /// The next raw entry: `fast_lle`'s while it reads the list, else gimli's.
    fn raw_entry(
        &mut self,
        dwarf: &gimli::Dwarf<Slice<'a>>,
        unit: &gimli::Unit<Slice<'a>>,
    ) -> gimli::Result<Option<gimli::RawLocListEntry<Slice<'a>>>> {
        if self.ended {
            return Ok(None);
        }
        if let Some((bytes, at)) = self.fast {
            if let Some((entry, next)) = fast_lle(bytes, at, self.address_size) {
                // At the end of the list gimli's iterator reads nothing more either.
                self.fast = Some((bytes, next));
                self.ended = entry.is_none();
                return Ok(entry);
            }
            // What fast_lle leaves to gimli: its iterator reads on from this entry.
            self.fast = None;
            self.raw = dwarf.raw_locations(unit, gimli::LocationListsOffset(at))?;
        }
        self.raw.next()
    }

    fn next(
        &mut self,
        dwarf: &gimli::Dwarf<Slice<'a>>,
        unit: &gimli::Unit<Slice<'a>>,
    ) -> gimli::Result<Option<(u64, u64, gimli::Expression<Slice<'a>>)>> {
        use gimli::RawLocListEntry as E;
        let size = self.address_size;
        let tombstone = if size == 4 { 0xffff_fffe } else { u64::MAX - 1 };
        let add = |a: u64, b: u64| match size {
            4 => u64::from((a as u32).wrapping_add(b as u32)),
            _ => a.wrapping_add(b),
        };
        while let Some(raw) = self.raw_entry(dwarf, unit)? {
            let (begin, end, data) = match raw {
                E::BaseAddress { addr } => {
                    self.base = addr;
                    continue;
                }
                E::BaseAddressx { addr } => {
                    self.base = dwarf.address(unit, addr)?;
                    continue;
                }
                E::StartxEndx { begin, end, data } => {
                    (dwarf.address(unit, begin)?, dwarf.address(unit, end)?, data)
                }
                E::StartxLength {
                    begin,
                    length,
                    data,
                } => {
                    let b = dwarf.address(unit, begin)?;
                    (b, add(b, length), data)
                }
                E::DefaultLocation { data } => (0, u64::MAX, data),
                E::AddressOrOffsetPair { begin, end, data }
                | E::OffsetPair { begin, end, data } => {
                    if self.base >= tombstone {
                        continue;
                    }
                    (add(begin, self.base), add(end, self.base), data)
                }
                E::StartEnd { begin, end, data } => (begin, end, data),
                E::StartLength {
                    begin,
                    length,
                    data,
                } => (begin, add(begin, length), data),
            };
            if begin >= tombstone || begin > end {
                continue;
            }
            return Ok(Some((begin, end, data)));
        }
        Ok(None)
    }
}
