//! The reader's shared context: the `Walker` every concern module fills entities through, what
//! each DIE becomes (`Plan`), the open DIEs of the walk (`Frame`), one DIE's attributes (`DieAttrs`),
//! the attribute getters all concerns use, and the reader's error type. It imports none of the
//! concern modules.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gimli::constants as dw;
use gimli::AttributeValue as AttrValue;
use gimli::DwAt;

use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::bytes::{put_sleb, put_uleb, sleb_exact, uleb_exact};
use crate::dwarf::Encoding;
use crate::ir::{
    Checksum, Expr, File, Flags, FunctionInfo, Handle, InlinedAt, Loc, LocEntry, Module, RawAttr,
    Ref, Scope, ScopeKind, Text, Type, Unit, Value, Variable,
};
use crate::spec::dwarf_vendor as vendor;

/// A reader failure: the section and offset of the damage.
#[derive(Debug)]
pub(crate) struct DErr {
    pub section: String,
    pub offset: u64,
    pub message: String,
}

pub(crate) type DResult<T> = Result<T, DErr>;

/// File 0 of a compile unit without a name, kept aside (name, directory, checksum, source):
/// a file once a row or a DIE names it (`line`).
pub type PendingFile = (String, Option<String>, Option<Checksum>, Option<String>);

/// A line program's file table by DWARF file index, and its pending file 0.
pub type FileTable = (HashMap<u64, Handle<File>>, Option<PendingFile>);

/// Entries of DW_AT_ranges lists that gimli's iterator leaves out and the IR does not hold:
/// empty ones (gcc lists its location views' points so; gdb and LLVM's tools read none) and
/// backwards ones (a compiler's bug). Tombstones (code a linker dropped) are not counted: no
/// code is lost with them. Counted and reported by `expr`.
#[derive(Default)]
pub(super) struct SkippedRanges {
    pub empty: u64,
    pub backwards: u64,
}

/// What a fill step gives back: the raw attributes its entity keeps.
pub(super) type Filled = DResult<Vec<RawAttr>>;

pub(crate) fn fail(section: &str, offset: u64, message: impl Into<String>) -> DErr {
    DErr {
        section: section.to_string(),
        offset,
        message: message.into(),
    }
}

pub type Slice<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

/// The loaded sections.
pub struct Units<'a> {
    pub dwarf: gimli::Dwarf<Slice<'a>>,
    /// .debug_loc and .debug_loclists as bytes, for gcc's view lists (`Walker::locviews`).
    pub loc: &'a [u8],
    pub loclists: &'a [u8],
}

/// What a DIE becomes (pass 1).
#[derive(Clone, Copy, Debug)]
pub(super) enum Plan {
    /// Its own entity.
    Own(Ref),
    /// The entity of another DIE (a concrete instance of its abstract origin).
    Alias(u64),
    /// Part of its parent (subranges, enumerators, call-site parameters, signature parameters).
    Part,
    /// A lexical block of a concrete out-of-line instance without DW_AT_abstract_origin (clang
    /// before 16 writes them so): an alias of the abstract block its variables come from, or
    /// its own block, decided once every unit is planned (`Walker::resolve_blocks`).
    Pending,
}

/// What decides a `Plan::Pending` block: the abstract origins of its variables.
#[derive(Default)]
pub(super) struct PendingBlocks {
    /// Index into `plans`, offset of the block's parent DIE, origins of its variables.
    pub blocks: Vec<(usize, u64, Vec<u64>)>,
    /// Parent DIE of each variable and lexical block outside concrete and inlined code.
    pub abstract_parent: HashMap<u64, u64>,
}

pub(super) const MAX_DEPTH: isize = 4096;

pub(super) const MAX_ALIAS_HOPS: usize = 16;

/// Expression encoding per unit (by .debug_info offset), for `.debug_frame`.
pub type Encodings = Vec<Encoding>;

pub(super) struct Walker<'m> {
    /// The ELF machine (it picks the AMD operation encoding).
    pub machine: u16,
    pub m: &'m mut Module,
    pub diag: &'m mut Diagnostics,
    /// .debug_info offset → entity.
    pub map: HashMap<u64, Ref>,
    pub plans: Vec<(u64, Plan)>,
    pub files: Files,
    /// Type-unit signatures → the .debug_info offset of the type DIE.
    pub sigs: HashMap<u64, u64>,
    /// File tables of the line programs read, by .debug_line offset.
    pub programs: HashMap<u64, FileTable>,
    pub encodings: Encodings,
    /// Entries of DW_AT_ranges lists gimli's iterator leaves out, said once in the ledger.
    pub skipped_ranges: SkippedRanges,
    /// Parameters named by a subprogram's DW_AT_object_pointer.
    pub object_pointers: Vec<Handle<Variable>>,
    pub pending: PendingBlocks,
    /// Inlined subroutines by the number dwarv's records name them by (`DW_AT_dwarv_inlined`).
    pub numbered_inlined: Vec<(u64, Handle<InlinedAt>)>,
    /// dwarv's copies of shared template parameters (`fill_template_copy`): the copy's offset
    /// and the parameter it names, checked to be one once every DIE is filled.
    pub template_copies: Vec<(u64, Handle<Type>)>,
    /// The number of formal parameters (variables, not signature parts) of each subprogram
    /// with any: a definition listing another number than its declaration's signature has a
    /// signature of its own.
    pub own_params: HashMap<u64, usize>,
    /// Type definitions completing a declaration elsewhere (gcc's DW_AT_specification on a
    /// type, as in its type units): the definition and the declaration, resolved once every DIE
    /// is filled (`scope_from_declarations`).
    pub type_specs: Vec<(Handle<Type>, Handle<Type>)>,
    /// Abstract subprograms with a concrete out-of-line instance planned already.
    pub instanced: HashSet<u64>,
    /// DIEs of a further concrete instance of one abstract subprogram (gcc's clones, its D0 and
    /// D2 destructors of one D4): an entity of their own, by their offset, with the offset of
    /// the abstract DIE they complete (`complete_clones`).
    pub clones: HashMap<u64, u64>,
    /// Subprograms with DW_AT_specification (a clone of one shares its signature).
    pub specified: HashSet<u64>,
    /// Parameters of declarations their DW_AT_object_pointer names (signature parts).
    pub object_pointer_parts: HashSet<u64>,
    /// Signature parameters whose type must carry flags their DIE states (artificial, object
    /// pointer): the signature, the parameter's index, its type and the flags
    /// (`flagged_types`, once every type is read).
    pub flagged: Vec<(Handle<Type>, usize, Handle<Type>, u64)>,
    /// Variables the plan gave handles past the arena's end (`planned_var`), made once every
    /// unit is planned: the arena is allocated once at its size instead of doubling (a copy
    /// of 10 MB and 3 500 fresh pages on the linked sqlite program).
    pub planned_vars: usize,
    /// Scratch for the entries of the location list being read (`location`).
    pub loc_entries: Vec<LocEntry>,
}

/// The .debug_info offset of a reference attribute.
pub(super) fn ref_offset(unit: &gimli::Unit<Slice<'_>>, v: &AttrValue<Slice<'_>>) -> Option<u64> {
    match v {
        AttrValue::UnitRef(o) => o.to_debug_info_offset(&unit.header).map(|d| d.0 as u64),
        AttrValue::DebugInfoRef(o) => Some(o.0 as u64),
        _ => None,
    }
}

/// One open DIE of the walk.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub depth: isize,
    pub tag: dw::DwTag,
    /// The DIE's entity (or its origin's), if any.
    pub ent: Option<Ref>,
    /// The inlined-at link of the code of this DIE's subtree.
    pub inlined: Option<Handle<InlinedAt>>,
    /// The signature type collecting this subprogram's / subroutine type's parameters.
    pub sig: Option<Handle<Type>>,
    pub params: u32,
    /// dwarv's copy of a shared template parameter (`fill_template_copy`): its children copy
    /// the members the parameter itself lists.
    pub copy: bool,
}

/// One DIE's attributes, with those a field consumed marked; the rest become raw attributes.
pub(super) struct DieAttrs<'a> {
    pub off: u64,
    pub tag: dw::DwTag,
    pub attrs: Vec<gimli::Attribute<Slice<'a>>>,
    pub used: Vec<bool>,
    /// A bit per attribute name modulo 64 (`name_bit`) of every attribute in `attrs` (and
    /// maybe of some removed): most getters ask for attributes the DIE lacks, and a clear bit
    /// answers that without a search.
    pub names: u64,
}

/// An attribute name's bit in `DieAttrs::names`. (The name modulo 64 keeps the standard attributes
/// apart; a multiplicative hash that keeps flag attributes apart from the common ones cost 5 M
/// instructions more on the linked clang -O2 program.)
pub(super) const fn name_bit(at: dw::DwAt) -> u64 {
    1 << (at.0 % 64)
}

impl<'a> DieAttrs<'a> {
    pub(super) fn take(&mut self, at: dw::DwAt) -> Option<AttrValue<Slice<'a>>> {
        if self.names & name_bit(at) == 0 {
            return None;
        }
        let i = self.attrs.iter().position(|a| a.name() == at)?;
        self.used[i] = true;
        Some(self.attrs[i].value())
    }
    pub(super) fn has(&self, at: dw::DwAt) -> bool {
        self.names & name_bit(at) != 0 && self.attrs.iter().any(|a| a.name() == at)
    }
    pub(super) fn flag(&mut self, at: dw::DwAt) -> bool {
        matches!(self.take(at), Some(AttrValue::Flag(true)))
    }
    pub(super) fn udata(&mut self, at: dw::DwAt) -> Option<u64> {
        self.take(at).as_ref().and_then(num)
    }
    /// An attribute's value without consuming it.
    pub(super) fn peek_value(&self, at: dw::DwAt) -> Option<AttrValue<Slice<'a>>> {
        if self.names & name_bit(at) == 0 {
            return None;
        }
        self.attrs
            .iter()
            .find(|a| a.name() == at)
            .map(|a| a.value())
    }
    /// The number of an attribute without consuming it.
    pub(super) fn peek(&self, at: dw::DwAt) -> Option<u64> {
        if self.names & name_bit(at) == 0 {
            return None;
        }
        self.attrs
            .iter()
            .find(|a| a.name() == at)
            .and_then(|a| num(&a.value()))
    }
    pub(super) fn mark(&mut self, at: dw::DwAt) {
        let _ = self.take(at);
    }
}

/// The number of a constant attribute, also where gimli gives it as a named constant.
pub(super) fn num(v: &AttrValue<Slice<'_>>) -> Option<u64> {
    match v {
        AttrValue::Encoding(x) => Some(u64::from(x.0)),
        AttrValue::Language(x) => Some(u64::from(x.0)),
        AttrValue::AddressClass(x) => Some(x.0),
        AttrValue::Accessibility(x) => Some(u64::from(x.0)),
        AttrValue::Virtuality(x) => Some(u64::from(x.0)),
        AttrValue::CallingConvention(x) => Some(u64::from(x.0)),
        AttrValue::Inline(x) => Some(u64::from(x.0)),
        AttrValue::Ordering(x) => Some(u64::from(x.0)),
        AttrValue::DecimalSign(x) => Some(u64::from(x.0)),
        AttrValue::Endianity(x) => Some(u64::from(x.0)),
        AttrValue::Visibility(x) => Some(u64::from(x.0)),
        AttrValue::IdentifierCase(x) => Some(u64::from(x.0)),
        AttrValue::FileIndex(x) => Some(*x),
        v => v.udata_value(),
    }
}

/// Flag attributes and the IR flag each sets.
pub(super) const FLAG_ATTRS: &[(dw::DwAt, Flags)] = &[
    (dw::DW_AT_external, Flags::EXTERNAL),
    (dw::DW_AT_declaration, Flags::FWD_DECL),
    (dw::DW_AT_artificial, Flags::ARTIFICIAL),
    (dw::DW_AT_explicit, Flags::EXPLICIT),
    (dw::DW_AT_prototyped, Flags::PROTOTYPED),
    (dw::DW_AT_enum_class, Flags::ENUM_CLASS),
    (dw::DW_AT_export_symbols, Flags::EXPORT_SYMBOLS),
    (dw::DW_AT_pure, Flags::PURE),
    (dw::DW_AT_elemental, Flags::ELEMENTAL),
    (dw::DW_AT_recursive, Flags::RECURSIVE),
    (dw::DW_AT_main_subprogram, Flags::MAIN_SUBPROGRAM),
    (dw::DW_AT_deleted, Flags::DELETED),
    (dw::DW_AT_noreturn, Flags::NO_RETURN),
    (dw::DW_AT_APPLE_optimized, Flags::OPTIMIZED),
    (dw::DW_AT_call_all_calls, Flags::ALL_CALLS_DESCRIBED),
    (dw::DW_AT_GNU_all_call_sites, Flags::ALL_CALLS_DESCRIBED),
];

/// The name bits (`name_bit`) of the flag attributes.
const FLAG_BITS: u64 = {
    let (mut bits, mut i) = (0, 0);
    while i < FLAG_ATTRS.len() {
        bits |= name_bit(FLAG_ATTRS[i].0);
        i += 1;
    }
    bits
};

/// The state of the unit being filled.
/// Where a `fill_*` step is: the units, the unit, the reading state and the DIE being filled.
pub(super) struct At<'a, 'u> {
    pub u: &'a Units<'u>,
    pub unit: &'a gimli::Unit<Slice<'u>>,
    pub cur: &'a mut UnitState,
    pub die: &'a mut DieAttrs<'u>,
    /// The open DIE around this one.
    pub parent: Option<Frame>,
}

impl<'u> At<'_, 'u> {
    /// A reader failure at this DIE.
    pub(super) fn fail(&self, message: impl Into<String>) -> DErr {
        fail(".debug_info", self.die.off, message)
    }

    /// The same place, borrowed again for one step of a fill.
    pub(super) fn again(&mut self) -> At<'_, 'u> {
        At {
            u: self.u,
            unit: self.unit,
            cur: &mut *self.cur,
            die: &mut *self.die,
            parent: self.parent,
        }
    }
}

pub(super) struct UnitState {
    pub unit: Handle<Unit>,
    pub base: u64,
    pub version: u16,
    pub files: HashMap<u64, Handle<File>>,
    /// File 0 of a nameless compile unit, until a DIE names it (`read_lines`).
    pub pending_file: Option<PendingFile>,
    pub enc: Encoding,
    pub macros: Option<MacroAt>,
    /// The unit's expressions read so far, by their bytes: an optimised program repeats a few
    /// thousand distinct expressions across its location lists (sqlite: 3 148 of 150 129), and
    /// one entity per distinct expression is what LLVM and SPIR-V modules hold too. (Operands
    /// naming DIEs are unit-relative: one unit's bytes mean nothing in another.)
    pub exprs: HashMap<Vec<u8>, Handle<Expr>>,
    /// The same for expressions of at most 7 bytes, by `expr::short_key`.
    pub short_exprs: HashMap<u64, Handle<Expr>>,
}

/// A raw attribute's value bytes: little-endian at the form's size for fixed data, LEB128 as
/// read for udata/sdata, the bytes of blocks and strings, 8-byte offsets for references.
pub(super) fn raw_attr(
    u: &Units<'_>,
    unit: &gimli::Unit<Slice<'_>>,
    a: &gimli::Attribute<Slice<'_>>,
    address_size: u8,
) -> RawAttr {
    let mut bytes = Vec::new();
    let v = a.raw_value();
    match &v {
        AttrValue::Addr(x) => {
            bytes.extend_from_slice(&x.to_le_bytes()[..usize::from(address_size)])
        }
        AttrValue::Block(b) => bytes.extend_from_slice(b.slice()),
        AttrValue::Exprloc(e) => bytes.extend_from_slice(e.0.slice()),
        AttrValue::Data1(x) => bytes.push(*x),
        AttrValue::Data2(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        AttrValue::Data4(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        AttrValue::Data8(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        AttrValue::Data16(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        AttrValue::Udata(x) => put_uleb(&mut bytes, *x),
        AttrValue::Sdata(x) => put_sleb(&mut bytes, *x),
        AttrValue::Flag(b) => bytes.push(u8::from(*b)),
        AttrValue::String(_)
        | AttrValue::DebugStrRef(_)
        | AttrValue::DebugLineStrRef(_)
        | AttrValue::DebugStrOffsetsIndex(_) => match u.dwarf.attr_string(unit, v) {
            Ok(s) => bytes.extend_from_slice(s.slice()),
            Err(_) => bytes.extend_from_slice(&offset_of(&v, unit).to_le_bytes()),
        },
        _ => bytes.extend_from_slice(&offset_of(&v, unit).to_le_bytes()),
    }
    RawAttr {
        attr: a.name().0,
        form: a.form().0,
        bytes,
    }
}

pub(super) fn offset_of(v: &AttrValue<Slice<'_>>, unit: &gimli::Unit<Slice<'_>>) -> u64 {
    if let Some(o) = ref_offset(unit, v) {
        return o;
    }
    match v {
        AttrValue::SecOffset(o) => *o as u64,
        AttrValue::DebugStrRef(o) => o.0 as u64,
        AttrValue::DebugLineStrRef(o) => o.0 as u64,
        AttrValue::DebugStrOffsetsIndex(o) => o.0 as u64,
        AttrValue::DebugAddrIndex(o) => o.0 as u64,
        AttrValue::DebugLocListsIndex(o) => o.0 as u64,
        AttrValue::DebugRngListsIndex(o) => o.0 as u64,
        AttrValue::DebugTypesRef(s) => s.0,
        _ => v.udata_value().unwrap_or(0),
    }
}

/// The nearest enclosing function or block (for labels, call sites, inlined-at).
pub(super) fn scope_of(parent: Option<Frame>) -> Option<Handle<Scope>> {
    match parent?.ent? {
        Ref::Scope(h) => Some(h),
        _ => None,
    }
}

pub(super) fn function_mut(kind: &mut ScopeKind) -> Option<&mut FunctionInfo> {
    match kind {
        ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => Some(f),
        _ => None,
    }
}

impl Walker<'_> {
    /// Raw attributes go to the entity's `extra`; a DIE without one loses them (reported).
    pub(super) fn put_extra(&mut self, plan: &Plan, off: u64, extra: Vec<RawAttr>) {
        // A concrete instance's own attributes join its origin's.
        let target = match plan {
            Plan::Own(r) => Some(*r),
            Plan::Alias(_) => self.map.get(&off).copied(),
            Plan::Part | Plan::Pending => None,
        };
        let slot = match target {
            Some(Ref::Unit(h)) => Some(&mut self.m.units.get_mut(h).extra),
            Some(Ref::Type(h)) => Some(&mut self.m.types.get_mut(h).extra),
            Some(Ref::Scope(h)) => Some(&mut self.m.scopes.get_mut(h).extra),
            Some(Ref::Var(h)) => Some(&mut self.m.vars.get_mut(h).extra),
            Some(Ref::CallSite(h)) => Some(&mut self.m.call_sites.get_mut(h).extra),
            _ => None,
        };
        match slot {
            Some(s) => s.extend(extra),
            None => {
                for a in extra {
                    self.diag.push(
                        LossKind::Dropped,
                        format!(".debug_info+{off:#x}"),
                        format!(
                            "attribute {} has no place in the IR",
                            dw::DwAt(a.attr)
                                .static_string()
                                .map_or_else(|| format!("{:#x}", a.attr), str::to_string)
                        ),
                    );
                }
            }
        }
    }

    pub(super) fn string(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<String>> {
        let Some(v) = at.die.take(attr) else {
            return Ok(None);
        };
        let s =
            at.u.dwarf
                .attr_string(at.unit, v)
                .map_err(|e| at.fail(format!("string attribute: {e}")))?;
        Ok(Some(String::from_utf8_lossy(s.slice()).into_owned()))
    }

    pub(super) fn address(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<u64>> {
        let Some(v) = at.die.take(attr) else {
            return Ok(None);
        };
        at.u.dwarf
            .attr_address(at.unit, v)
            .map_err(|e| at.fail(format!("address attribute: {e}")))
    }

    pub(super) fn reference(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<Ref>> {
        let Some(v) = at.die.take(attr) else {
            return Ok(None);
        };
        let sig = match v {
            AttrValue::DebugTypesRef(sig) => self.sigs.get(&sig.0).copied(),
            _ => None,
        };
        match ref_offset(at.unit, &v).or(sig) {
            Some(o) => match self.map.get(&o) {
                Some(r) => Ok(Some(*r)),
                None => Err(bad_reference(at, attr, Some(o))),
            },
            None => Err(bad_reference(at, attr, None)),
        }
    }

    pub(super) fn type_ref(&mut self, at: &mut At, attr: DwAt) -> DResult<Option<Handle<Type>>> {
        match self.reference(at, attr)? {
            None => Ok(None),
            Some(Ref::Type(h)) => Ok(Some(h)),
            Some(_) => Err(at.fail(format!("{attr} does not name a type"))),
        }
    }

    pub(super) fn loc(&mut self, at: &mut At) -> Option<Loc> {
        self.loc_of(
            at,
            dw::DW_AT_decl_file,
            dw::DW_AT_decl_line,
            dw::DW_AT_decl_column,
        )
    }

    /// The file of a DWARF file index in the unit (a nameless unit's file 0 once named).
    fn file_at(&mut self, cur: &mut UnitState, index: u64) -> Option<Handle<File>> {
        if let Some(&h) = cur.files.get(&index) {
            return Some(h);
        }
        if index != 0 {
            return None;
        }
        let (name, directory, checksum, source) = cur.pending_file.take()?;
        let h = self.files.get(self.m, name, directory, checksum, source);
        cur.files.insert(0, h);
        Some(h)
    }

    pub(super) fn loc_of(
        &mut self,
        at: &mut At,
        file: dw::DwAt,
        line: dw::DwAt,
        column: dw::DwAt,
    ) -> Option<Loc> {
        if !(at.die.has(file) || at.die.has(line)) {
            return None;
        }
        let f = at.die.udata(file).and_then(|i| self.file_at(at.cur, i));
        let line = at.die.udata(line).unwrap_or(0);
        if f.is_none() && line == 0 {
            // No file (or one out of the table's range) and line 0: no place attr all.
            return None;
        }
        let column = at.die.udata(column).unwrap_or(0);
        Some(Loc {
            file: f,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        })
    }

    pub(super) fn flags(&mut self, die: &mut DieAttrs<'_>) -> Flags {
        let mut f = Flags::default();
        // One pass over the DIE's attributes (a `take` of each flag attribute scanned them
        // all 16 times): the first of each flag attribute is used, set when it is true. None
        // when no attribute's name bit is a flag attribute's.
        let mut seen = 0u32;
        let attrs = match die.names & FLAG_BITS {
            0 => &[][..],
            _ => &die.attrs[..],
        };
        for (i, a) in attrs.iter().enumerate() {
            let Some(k) = FLAG_ATTRS.iter().position(|(at, _)| *at == a.name()) else {
                continue;
            };
            if seen & (1 << k) != 0 {
                continue;
            }
            seen |= 1 << k;
            die.used[i] = true;
            if matches!(a.value(), AttrValue::Flag(true)) {
                f = f.with(FLAG_ATTRS[k].1);
            }
        }
        // A value no DW_ACCESS names stays a raw attribute, written back as read.
        let access = match die.peek(dw::DW_AT_accessibility) {
            Some(1) => Some(Flags::PUBLIC),
            Some(2) => Some(Flags::PROTECTED),
            Some(3) => Some(Flags::PRIVATE),
            _ => None,
        };
        if let Some(a) = access {
            die.mark(dw::DW_AT_accessibility);
            f = f.with(a);
        }
        f
    }
}

/// The failure of a reference attribute: not a reference, or (`Some` offset) to no DIE. Out of
/// line: its formatting made every `Walker::reference` set up a larger frame.
#[cold]
#[inline(never)]
fn bad_reference(at: &At, attr: DwAt, offset: Option<u64>) -> DErr {
    match offset {
        None => at.fail(format!("{attr}: not a DIE reference")),
        Some(o) => at.fail(format!("{attr} refers to {o:#x}, where no DIE starts")),
    }
}

/// A string attribute's bytes as text (invalid UTF-8 replaced).
pub(super) fn lossy(r: Slice<'_>) -> String {
    String::from_utf8_lossy(r.slice()).into_owned()
}

/// Files of a module, shared across units: one entity per (name, directory).
#[derive(Default)]
pub struct Files {
    pub by_key: HashMap<(String, Option<String>), Handle<File>>,
    pub texts: HashMap<String, Handle<Text>>,
}

impl Files {
    pub fn get(
        &mut self,
        m: &mut Module,
        name: String,
        directory: Option<String>,
        checksum: Option<Checksum>,
        source: Option<String>,
    ) -> Handle<File> {
        // An empty directory (the writer's directory 0 for a file without one) is none.
        let directory = directory.filter(|d| !d.is_empty());
        let source = source.map(|text| {
            *self
                .texts
                .entry(text.clone())
                .or_insert_with(|| m.texts.push(Text { text }))
        });
        let h = *self
            .by_key
            .entry((name.clone(), directory.clone()))
            .or_insert_with(|| {
                m.files.push(File {
                    name,
                    directory,
                    checksum: None,
                    source: None,
                })
            });
        let f = m.files.get_mut(h);
        if f.checksum.is_none() {
            f.checksum = checksum;
        }
        if f.source.is_none() {
            f.source = source;
        }
        h
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum MacroAt {
    Macro(u64),
    Macinfo(u64),
}

// dwarv's own attributes (`spec::dwarf_vendor`, written by `back::dwarf`): the reader keeps them
// as raw attributes, and each concern's `own_attributes` pass moves the scalar ones (numbers
// and strings) to their fields. Reference-valued ones stay raw.

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Takes the value of attribute `at` out of `extra`, if it is there (as a number).
pub(super) fn take_u(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<u64> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    let n = uleb_exact(&extra[i].bytes)?;
    extra.remove(i);
    Some(n)
}

pub(super) fn take_s(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<i64> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    let n = sleb_exact(&extra[i].bytes)?;
    extra.remove(i);
    Some(n)
}

pub(super) fn take_str(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<String> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    Some(text(&extra.remove(i).bytes))
}

pub(super) fn take_flag(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> bool {
    match extra.iter().position(|a| a.attr == at.0) {
        Some(i) => {
            extra.remove(i);
            true
        }
        None => false,
    }
}

pub(super) fn own_flags(extra: &mut Vec<RawAttr>, f: &mut Flags) {
    if let Some(bits) = take_u(extra, vendor::DW_AT_DWARV_FLAGS) {
        f.bits |= bits;
    }
    if let Some(foreign) = take_u(extra, vendor::DW_AT_DWARV_FOREIGN_FLAGS) {
        f.foreign = foreign as u32;
    }
}

/// What a function or variable is bound to.
pub(super) fn binding(extra: &mut Vec<RawAttr>) -> Option<Value> {
    if let Some(id) = take_u(extra, vendor::DW_AT_DWARV_SPIRV_ID) {
        return Some(Value::Spirv(id as u32));
    }
    if let Some(s) = take_str(extra, vendor::DW_AT_DWARV_SYMBOL) {
        return Some(Value::Symbol(s));
    }
    take_str(extra, vendor::DW_AT_DWARV_LLVM_VALUE).map(Value::Llvm)
}
