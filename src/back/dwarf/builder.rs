//! The writer's shared context: the `Builder` every concern module fills DIEs through, the map
//! from IR entities to their reserved DIEs, per-pass lookups, and the attribute setters all
//! concerns use. It imports none of the concern modules.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::write::{AttributeValue, DebugInfoRef, Dwarf, FileId, RangeList, UnitEntryId, UnitId};
use gimli::{constants as dw, DwAt, DwForm};

use super::compact;
use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::bytes::Leb128;
use crate::ir::{
    CodePos, CodeRange, Flags, Handle, Module, Ref, ScopeKind, SourceFormat, Type, Value, VarKind,
};
use crate::spec::dwarf_vendor as vendor;
use gimli::write::Expression;

/// How AMD's heterogeneous-debugging operations are encoded (seed 002's raw opcodes
/// 0xe1–0xec, or `DW_OP_LLVM_user` 0xe9 + sub-opcode as AMD's LLVM emits today).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpEncoding {
    #[default]
    Raw,
    User,
}

/// What the writer settled for the whole output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    pub machine: u16,
    pub address_size: u8,
    pub amd: bool,
    pub op_encoding: OpEncoding,
    pub version: Option<u16>,
}

/// The debug sections produced, by ELF section name.
pub(crate) type SectionList = Vec<(&'static str, Vec<u8>)>;

/// DIE offsets of the previous pass: entity → (offset of its unit, offset of its DIE).
pub(super) type Offsets = HashMap<Ref, (u64, u64)>;

/// A DIE: the unit (index into the IR units) and its id in that unit.
pub(super) type DieId = (usize, UnitEntryId);

/// The DIE of each entity: a slot per entity of each kind, since every reference attribute
/// and expression operand looks one up. `keys` lists the entities in insertion order.
#[derive(Default)]
pub(super) struct DieMap {
    slots: [Vec<Option<DieId>>; crate::ir::EntityKind::TABLE.len()],
    keys: Vec<Ref>,
}

impl DieMap {
    pub fn get(&self, r: &Ref) -> Option<&DieId> {
        self.slots[r.kind() as usize].get(r.index())?.as_ref()
    }

    pub fn insert(&mut self, r: Ref, d: DieId) {
        let slots = &mut self.slots[r.kind() as usize];
        if slots.len() <= r.index() {
            slots.resize(r.index() + 1, None);
        }
        if slots[r.index()].replace(d).is_none() {
            self.keys.push(r);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (Ref, &DieId)> + '_ {
        self.keys.iter().filter_map(|r| Some((*r, self.get(r)?)))
    }
}

/// A set of entities, a bit per entity of each kind (a hash set of them held 1.3 MB on sqlite).
#[derive(Default)]
pub(super) struct RefSet {
    bits: [Vec<u64>; crate::ir::EntityKind::TABLE.len()],
}

impl RefSet {
    /// Adds `r`; whether it was not in the set yet.
    pub fn insert(&mut self, r: Ref) -> bool {
        let words = &mut self.bits[r.kind() as usize];
        let (word, bit) = (r.index() / 64, 1u64 << (r.index() % 64));
        if words.len() <= word {
            words.resize(word + 1, 0);
        }
        let new = words[word] & bit == 0;
        words[word] |= bit;
        new
    }
}

/// A value per entity of one kind, in a slot per handle (lookups the writer makes per entity,
/// which hashing made a noticeable share of the run).
pub(super) struct HandleMap<T, V> {
    slots: Vec<Option<V>>,
    kind: std::marker::PhantomData<T>,
}

impl<T, V> Default for HandleMap<T, V> {
    fn default() -> Self {
        HandleMap {
            slots: Vec::new(),
            kind: std::marker::PhantomData,
        }
    }
}

impl<T, V> HandleMap<T, V> {
    pub fn get(&self, h: &Handle<T>) -> Option<&V> {
        self.slots.get(h.index())?.as_ref()
    }

    pub fn contains_key(&self, h: &Handle<T>) -> bool {
        self.get(h).is_some()
    }

    pub fn insert(&mut self, h: Handle<T>, v: V) {
        if self.slots.len() <= h.index() {
            self.slots.resize_with(h.index() + 1, || None);
        }
        self.slots[h.index()] = Some(v);
    }
}

pub(super) struct Builder<'m, 'd> {
    pub m: &'m Module,
    pub s: Settings,
    pub dwarf: Dwarf,
    pub units: Vec<UnitId>,
    pub dies: DieMap,
    /// Per unit: IR file → line-program file, and the index DWARF gives it.
    pub files: Vec<HashMap<Handle<crate::ir::File>, (FileId, u64)>>,
    pub diags: &'d mut Diagnostics,
    pub filled: RefSet,
    /// DIE offsets of the previous pass, for expressions that name DIEs.
    pub offsets: Option<Offsets>,
    /// Whether some expression named a DIE in this pass.
    pub used_refs: bool,
    /// Expressions already encoded: optimised code repeats a few thousand expressions across
    /// hundreds of thousands of list entries.
    pub encoded: HashMap<EncodedKey, std::result::Result<super::loclists::Data, String>>,
    /// The DIE being filled and its attributes not yet given to gimli (`set`).
    pub pending: (Option<DieId>, Vec<(DwAt, AttributeValue)>),
    /// The units' location lists, encoded as bytes (`loclists`).
    pub loclists: super::loclists::Lists,
    /// Lexical blocks that exist only as inlined code (every scope run of theirs is inlined at
    /// the same place): written under that inlined_subroutine, without an abstract origin.
    pub inlined_only: HashMap<Handle<crate::ir::Scope>, Handle<crate::ir::InlinedAt>>,
    /// Label copies in inlined code, by their call (`label_copies_at`, made once).
    pub label_copies: Option<HashMap<Handle<crate::ir::InlinedAt>, Vec<LabelCopy>>>,
    pub index: Index,
    /// Functions written as an abstract and a concrete DIE (`split_functions`).
    pub split: FxHashSet<Handle<crate::ir::Scope>>,
    /// The concrete DIE of each split function, and the concrete copies of its blocks with
    /// code: where their code, variables' locations, call sites and inlined calls go.
    pub out_of_line: HashMap<Handle<crate::ir::Scope>, UnitEntryId>,
    /// Declarations written with a code-less concrete instance that holds their parameter
    /// variables (`declared_instances`); the instance DIE is in `out_of_line`.
    pub instances: FxHashSet<Handle<crate::ir::Scope>>,
    /// The concrete copy of each parameter of a split function (its DW_AT_object_pointer).
    pub param_copies: HashMap<Handle<crate::ir::Variable>, UnitEntryId>,
    /// Per unit: the signature and type of a unit written as a DWARF 5 type unit.
    pub type_units: Vec<Option<(u64, Handle<Type>)>>,
    /// Concrete copies of lexical blocks in inlined code: (inlined-at, block) → DIE.
    pub concrete: HashMap<(Handle<crate::ir::InlinedAt>, Handle<crate::ir::Scope>), UnitEntryId>,
    /// Function types used only as a function's signature: readers rebuild them from the
    /// subprogram's DW_AT_type and parameters, so they get no DIE.
    pub signature_only: FxHashSet<Handle<Type>>,
    /// Code ranges of scopes that give none, from the scope runs (SPIR-V).
    pub run_ranges: HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>>,
    /// The expressions of the events (SPIR-V, LLVM), sorted, each once.
    pub event_exprs: Vec<Handle<crate::ir::Expr>>,
    /// The scope runs of each scope (indexes into `scope_runs`), for the records of a
    /// code-less source (empty otherwise).
    pub runs_of: HashMap<Ref, Vec<usize>>,
    /// Types without a scope chain to a unit (base, pointer, array… types): the unit of their
    /// first user, so that a unit's DIEs refer inside the unit where they can.
    pub home: HandleMap<Type, usize>,
    /// Template parameters without a scope (LLVM shares them between templates): the first
    /// composite, function or pack that lists each, and whether others list it too (they get
    /// copies).
    pub template_owner: HashMap<Handle<Type>, TemplateOwner>,
}

/// An expression encoded for one unit, in a location list or not (`Builder::encoded`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct EncodedKey {
    pub unit: usize,
    pub expr: Handle<crate::ir::Expr>,
    pub in_list: bool,
}

/// The first owner of a template parameter without a scope (`Builder::template_owner`).
#[derive(Clone, Copy)]
pub(super) struct TemplateOwner {
    pub owner: Ref,
    /// Other templates list it too.
    pub shared: bool,
}

/// A label's copy in inlined code and the scope whose code there holds it.
pub(super) type LabelCopy = (Handle<crate::ir::Scope>, Handle<crate::ir::Label>);

/// A loss at an entity, named by its short name (`v12`).
pub(super) fn push_loss(
    diags: &mut Diagnostics,
    kind: LossKind,
    place: Ref,
    msg: impl Into<String>,
) -> &mut crate::diag::Loss {
    diags.push_written(
        kind,
        format!("{}{}", place.kind().prefix(), place.index()),
        msg,
    )
}

/// Code address of a position: SPIR-V word offsets become 4 × offset (DESIGN.md); LLVM
/// instruction numbers (no machine code exists for them) become one address per instruction.
pub(super) fn addr(p: CodePos) -> u64 {
    match p {
        CodePos::Spirv(w) => 4 * u64::from(w),
        CodePos::Addr(a) => a,
        CodePos::Llvm(n) => u64::from(n),
    }
}

impl Builder<'_, '_> {
    pub(super) fn loss(&mut self, kind: LossKind, place: Ref, msg: impl Into<String>) {
        push_loss(self.diags, kind, place, msg);
    }

    /// A loss an option caused (`Loss::avoidable`): AMD extensions off, an older DWARF version.
    pub(super) fn avoidable_loss(&mut self, kind: LossKind, place: Ref, msg: impl Into<String>) {
        push_loss(self.diags, kind, place, msg).avoidable();
    }

    pub(super) fn unit_mut(&mut self, u: usize) -> &mut gimli::write::Unit {
        self.dwarf.units.get_mut(self.units[u])
    }

    /// Vectors as AMD's base types with DW_AT_LLVM_vector_size: for units from SPIR-V and vISA
    /// (DWARF and LLVM input keep the GNU vector arrays their compilers write).
    pub(super) fn amd_vectors(&self) -> bool {
        self.s.amd
            && matches!(
                self.m.source.format,
                SourceFormat::Spirv | SourceFormat::Visa
            )
    }

    /// A reference attribute from a DIE in unit `from` to an entity.
    pub(super) fn ref_to(&self, from: usize, r: Ref) -> Option<AttributeValue> {
        let &(u, id) = self.dies.get(&r)?;
        Some(if u == from {
            AttributeValue::UnitRef(id)
        } else if let Some((sig, _)) = self.type_units[u].filter(|t| r == Ref::Type(t.1)) {
            // Another unit names a type unit's type by its signature.
            AttributeValue::DebugTypesRef(gimli::DebugTypeSignature(sig))
        } else {
            AttributeValue::DebugInfoRef(DebugInfoRef::Entry(self.units[u], id))
        })
    }

    /// Sets an attribute. The attributes of the DIE being filled wait in `pending` until another
    /// DIE gets one (`flush`), so that gimli's vector of them is allocated once at its size:
    /// growing one `set` at a time left most of sqlite's 300 000 attributes in vectors with room
    /// for twice as many (10 MB of the peak). Only a DIE without attributes yet waits.
    pub(super) fn set(&mut self, d: DieId, at: DwAt, v: AttributeValue) {
        if self.pending.0 != Some(d) {
            self.flush();
            let die = self.unit_mut(d.0).get_mut(d.1);
            if die.attrs().next().is_some() {
                die.set(at, v);
                return;
            }
            self.pending.0 = Some(d);
        }
        // gimli's `set`: a value replaces the attribute's earlier one in its place.
        match self.pending.1.iter_mut().find(|(a, _)| *a == at) {
            Some(slot) => slot.1 = v,
            None => self.pending.1.push((at, v)),
        }
    }

    /// Gives the waiting attributes (`set`) to their DIE.
    pub(super) fn flush(&mut self) {
        let Some(d) = self.pending.0.take() else {
            return;
        };
        let mut attrs = std::mem::take(&mut self.pending.1);
        let die = self.unit_mut(d.0).get_mut(d.1);
        die.reserve(attrs.len());
        for (at, v) in attrs.drain(..) {
            die.set(at, v);
        }
        self.pending.1 = attrs;
    }

    pub(super) fn set_udata(&mut self, d: DieId, at: DwAt, v: Option<u64>) {
        if let Some(v) = v {
            self.set(d, at, AttributeValue::Udata(v));
        }
    }

    pub(super) fn set_ref(&mut self, d: DieId, at: DwAt, r: Option<Ref>) {
        if let Some(v) = r.and_then(|r| self.ref_to(d.0, r)) {
            self.set(d, at, v);
        }
    }

    pub(super) fn set_string(&mut self, d: DieId, at: DwAt, s: &str) {
        self.set_str(d, at, Some(s));
    }

    pub(super) fn set_str(&mut self, d: DieId, at: DwAt, s: Option<&str>) {
        if let Some(s) = s {
            if s.contains('\0') {
                // A DWARF string ends at its first NUL.
                self.diags.push_written(
                    LossKind::Approximated,
                    format!("{at} in unit {}", d.0),
                    format!("a string with NUL bytes, written without them: {s:?}"),
                );
            }
            let id = self.dwarf.strings.add(nul_free(s));
            self.set(d, at, AttributeValue::StringRef(id));
        }
    }

    pub(super) fn set_loc(
        &mut self,
        d: DieId,
        at: Option<crate::ir::Loc>,
        prefix: (DwAt, DwAt, DwAt),
    ) {
        let Some(loc) = at else { return };
        if let Some(f) = loc.file {
            let (id, _) = self.file(d.0, f);
            self.set(d, prefix.0, AttributeValue::FileIndex(Some(id)));
        }
        if loc.line != 0 || loc.file.is_some() {
            self.set(d, prefix.1, AttributeValue::Udata(loc.line.into()));
        }
        if loc.column != 0 {
            self.set(d, prefix.2, AttributeValue::Udata(loc.column.into()));
        }
    }

    pub(super) fn set_decl(&mut self, d: DieId, at: Option<crate::ir::Loc>) {
        self.set_loc(
            d,
            at,
            (
                dw::DW_AT_decl_file,
                dw::DW_AT_decl_line,
                dw::DW_AT_decl_column,
            ),
        );
    }

    pub(super) fn set_flags(&mut self, d: DieId, f: Flags) {
        if f.is_empty() {
            return;
        }
        let v4 = self.dwarf.units.get(self.units[d.0]).version() <= 4;
        for &(flag, at) in vendor::FLAG_ATTRS {
            if f.has(flag) {
                // DWARF 4 says "all calls described" with GNU's attribute.
                let at = match at {
                    dw::DW_AT_call_all_calls if v4 => dw::DW_AT_GNU_all_call_sites,
                    at => at,
                };
                self.set(d, at, AttributeValue::FlagPresent);
            }
        }
        let access = [
            (Flags::PUBLIC, 1u8),
            (Flags::PROTECTED, 2),
            (Flags::PRIVATE, 3),
        ];
        if let Some((_, a)) = access.iter().find(|(flag, _)| f.has(*flag)) {
            self.set(d, dw::DW_AT_accessibility, AttributeValue::Data1(*a));
        }
        if f.foreign != 0 {
            self.set(
                d,
                vendor::DW_AT_DWARV_FOREIGN_FLAGS,
                AttributeValue::Udata(f.foreign.into()),
            );
        }
        let rest = f.bits & !vendor::flags_with_attrs();
        if rest != 0 {
            self.set(d, vendor::DW_AT_DWARV_FLAGS, AttributeValue::Udata(rest));
        }
    }

    pub(super) fn set_ranges(&mut self, d: DieId, ranges: &[CodeRange]) {
        match ranges {
            [] => {}
            [r] => {
                let lo = addr(r.start);
                self.set(
                    d,
                    dw::DW_AT_low_pc,
                    AttributeValue::Address(gimli::write::Address::Constant(lo)),
                );
                self.set(
                    d,
                    dw::DW_AT_high_pc,
                    AttributeValue::Udata(addr(r.end).saturating_sub(lo)),
                );
            }
            many => {
                let list = self.range_list(d.0, many);
                let id = self.unit_mut(d.0).ranges.add(list);
                self.set(d, dw::DW_AT_ranges, AttributeValue::RangeListRef(id));
            }
        }
    }

    /// Unit `u`'s DW_AT_low_pc (the base address of its lists), if it has one.
    pub(super) fn unit_base(&self, u: usize) -> Option<u64> {
        let unit = self.dwarf.units.get(self.units[u]);
        let root = (u, unit.root());
        let waiting = match self.pending.0 == Some(root) {
            true => self.pending.1.iter().find(|(a, _)| *a == dw::DW_AT_low_pc),
            false => None,
        };
        match waiting
            .map(|(_, v)| v)
            .or_else(|| unit.get(root.1).get(dw::DW_AT_low_pc))
        {
            Some(AttributeValue::Address(gimli::write::Address::Constant(a))) => Some(*a),
            _ => None,
        }
    }

    /// Unit `u`'s DWARF version.
    pub(super) fn version(&self, u: usize) -> u16 {
        self.dwarf.units.get(self.units[u]).version()
    }

    /// A range list of unit `u`. DWARF 4 entries are relative to the unit's base address, so
    /// the list resets it to 0 first; DWARF 5 lists take the shortest encoding
    /// (`compact::entries`). Empty ranges are left out (DWARF has no way to say them).
    pub(super) fn range_list(&self, u: usize, ranges: &[CodeRange]) -> RangeList {
        use gimli::write::{Address, Range};
        let spans = ranges
            .iter()
            .map(|r| (addr(r.start), addr(r.end), ()))
            .filter(|r| r.1 > r.0);
        if self.version(u) >= 5 {
            let list = compact::entries(self.s.address_size, self.unit_base(u), spans.collect());
            return RangeList(
                list.into_iter()
                    .map(|e| match e {
                        compact::Entry::Base(a) => Range::BaseAddress {
                            address: Address::Constant(a),
                        },
                        compact::Entry::Pair(begin, end, ()) => Range::OffsetPair { begin, end },
                        compact::Entry::StartLength(b, length, ()) => Range::StartLength {
                            begin: Address::Constant(b),
                            length,
                        },
                    })
                    .collect(),
            );
        }
        let mut out = vec![Range::BaseAddress {
            address: Address::Constant(0),
        }];
        out.extend(spans.map(|(begin, end, ())| Range::OffsetPair { begin, end }));
        RangeList(out)
    }

    pub(super) fn set_ranges_list(&mut self, d: DieId, ranges: &[CodeRange]) {
        // A range list with DW_AT_low_pc 0 as base, as clang writes for units.
        self.set(
            d,
            dw::DW_AT_low_pc,
            AttributeValue::Address(gimli::write::Address::Constant(0)),
        );
        let list = self.range_list(d.0, ranges);
        let id = self.unit_mut(d.0).ranges.add(list);
        self.set(d, dw::DW_AT_ranges, AttributeValue::RangeListRef(id));
    }

    pub(super) fn set_value(&mut self, d: DieId, at: DwAt, v: &Value) {
        match v {
            // An unsigned 64-bit constant above i64 goes out as data8, which readers take as
            // unsigned (clang's form for them); only wider values need a block.
            Value::Int(i) => match (i64::try_from(*i), u64::try_from(*i)) {
                (Ok(x), _) => self.set(d, at, AttributeValue::Sdata(x)),
                (_, Ok(x)) => self.set(d, at, AttributeValue::Data8(x)),
                _ => self.set(d, at, AttributeValue::Block(i.to_le_bytes().to_vec())),
            },
            Value::Bytes(b) => self.set(d, at, AttributeValue::Block(b.clone())),
            Value::Str(s) => self.set_str(d, at, Some(s)),
            // A constant that is an entity (a template argument naming a variable): DWARF's
            // constant forms cannot refer, so dwarv's attribute does.
            Value::Ref(r) if at == dw::DW_AT_const_value => {
                self.set_ref(d, vendor::DW_AT_DWARV_VALUE_REF, Some(*r))
            }
            Value::Ref(r) => self.set_ref(d, at, Some(*r)),
            Value::Symbol(s) => self.set_str(d, vendor::DW_AT_DWARV_SYMBOL, Some(s)),
            Value::Spirv(id) => self.set(
                d,
                vendor::DW_AT_DWARV_SPIRV_ID,
                AttributeValue::Udata((*id).into()),
            ),
            Value::Llvm(s) => self.set_str(d, vendor::DW_AT_DWARV_LLVM_VALUE, Some(s)),
            Value::Undef => {}
        }
    }

    /// Raw attributes a reader kept; references and section offsets among them point into the
    /// input's sections, so they cannot be written back (a loss).
    pub(super) fn set_extra(&mut self, d: DieId, place: Ref, extra: &[crate::ir::RawAttr]) {
        for a in extra {
            // A signature (a declaration's DW_AT_signature) names a type unit written here.
            let sig = (DwForm(a.form) == dw::DW_FORM_ref_sig8)
                .then(|| <[u8; 8]>::try_from(a.bytes.as_slice()).ok())
                .flatten()
                .map(u64::from_le_bytes)
                .filter(|s| self.type_units.iter().flatten().any(|t| t.0 == *s));
            if let Some(s) = sig {
                let v = AttributeValue::DebugTypesRef(gimli::DebugTypeSignature(s));
                self.set(d, DwAt(a.attr), v);
                continue;
            }
            match raw_attr(a) {
                Some(v) => self.set(d, DwAt(a.attr), v),
                None => self.loss(
                    LossKind::Dropped,
                    place,
                    format!("raw attribute 0x{:x} (form 0x{:x})", a.attr, a.form),
                ),
            }
        }
    }
}

/// Values grouped by the handle they belong to, in one vector (a map to a vector per key held
/// a heap block per key, grown value by value, each faulting pages in).
pub(super) struct Groups<K, V> {
    /// Key `i`'s values are `values[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    values: Vec<V>,
    key: std::marker::PhantomData<K>,
}

impl<K, V> Default for Groups<K, V> {
    fn default() -> Self {
        Groups {
            starts: Vec::new(),
            values: Vec::new(),
            key: std::marker::PhantomData,
        }
    }
}

impl<K, V: Copy> Groups<K, V> {
    /// The values of `pairs` by key, each key's in the order `pairs` lists them (a counting
    /// sort: one pass to count, one to place).
    pub fn new(pairs: Vec<(Handle<K>, V)>) -> Self {
        let keys = pairs.iter().map(|(k, _)| k.index() + 1).max().unwrap_or(0);
        let mut starts = vec![0u32; keys + 1];
        for (k, _) in &pairs {
            starts[k.index() + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut values = match pairs.first() {
            Some(&(_, v)) => vec![v; pairs.len()],
            None => Vec::new(),
        };
        for (k, v) in pairs {
            let at = &mut next[k.index()];
            values[*at as usize] = v;
            *at += 1;
        }
        Groups {
            starts,
            values,
            key: std::marker::PhantomData,
        }
    }

    /// The values of key `k`, if it has any.
    pub fn get(&self, k: &Handle<K>) -> Option<&[V]> {
        let i = k.index();
        let (&from, &to) = (self.starts.get(i)?, self.starts.get(i + 1)?);
        (from < to).then(|| &self.values[from as usize..to as usize])
    }
}

/// Lookups the DIE fill needs per entity, built once per pass (they would be scans otherwise).
#[derive(Default)]
pub(super) struct Index {
    /// Parameters of each function, by number.
    pub params: Groups<crate::ir::Scope, (u32, Handle<crate::ir::Variable>)>,
    /// Functions whose parameter variables are inside a type of theirs (gcc's
    /// DW_TAG_GNU_formal_parameter_pack), not their direct children.
    pub packed_params: FxHashSet<Handle<crate::ir::Scope>>,
    /// Scope runs inlined at each link or deeper (indexes into `scope_runs`).
    pub runs_within: Groups<crate::ir::InlinedAt, usize>,
    /// The inlined scope runs of each function or block (indexes into `scope_runs`): where
    /// its call sites and labels in inlined code are.
    pub inlined_runs: Groups<crate::ir::Scope, usize>,
    /// Inlined-at links by their parent link.
    pub children: Groups<crate::ir::InlinedAt, Handle<crate::ir::InlinedAt>>,
    /// Variables (not inlined copies) scoped in each function or block, in arena order.
    pub vars_in: Groups<crate::ir::Scope, Handle<crate::ir::Variable>>,
    /// The variables' copies in the code inlined at each call, in arena order.
    pub inlined_vars: Groups<crate::ir::InlinedAt, Handle<crate::ir::Variable>>,
    /// Labels (not copies) of each function or block, in arena order.
    pub labels_in: Groups<crate::ir::Scope, Handle<crate::ir::Label>>,
    /// Lexical blocks inside each scope and the outermost inlined calls made from it.
    pub nested: Groups<crate::ir::Scope, Ref>,
    /// Declare/value events of each variable.
    pub events: Groups<crate::ir::Variable, usize>,
    /// The retained lists each entity is on: (the owner, its place from 1).
    pub retained: HashMap<Ref, Vec<(Ref, u64)>>,
    /// Declare/value events inlined at each call (indexes into `events`).
    pub events_at: Groups<crate::ir::InlinedAt, usize>,
}

impl Index {
    pub(super) fn new(m: &Module) -> Index {
        let mut params = Vec::new();
        let mut packed_params = FxHashSet::default();
        for (h, v) in m.vars.iter() {
            match (&v.kind, v.scope) {
                (VarKind::Param(n), Some(Ref::Scope(s))) => params.push((s, (*n, h))),
                (VarKind::Param(_), Some(Ref::Type(t))) => {
                    if let Some(Ref::Scope(s)) = m.types.get(t).scope {
                        packed_params.insert(s);
                    }
                }
                _ => {}
            }
        }
        // By number within each function.
        params.sort_by_key(|&(_, p)| p);
        let (mut inlined_runs, mut runs_within) = (Vec::new(), Vec::new());
        for (k, run) in m.scope_runs.iter().enumerate() {
            if let (Ref::Scope(s), Some(_)) = (run.scope, run.inlined) {
                inlined_runs.push((s, k));
            }
            let mut i = run.inlined;
            for _ in 0..256 {
                let Some(h) = i else { break };
                runs_within.push((h, k));
                i = m.inlined.get(h).parent;
            }
        }
        let (mut children, mut nested) = (Vec::new(), Vec::new());
        for (h, ia) in m.inlined.iter() {
            match (ia.parent, ia.scope) {
                (Some(p), _) => children.push((p, h)),
                (None, Some(s)) => nested.push((s, Ref::Inlined(h))),
                (None, None) => {}
            }
        }
        let (mut vars_in, mut inlined_vars) = (Vec::new(), Vec::new());
        for (h, v) in m.vars.iter() {
            match (&v.kind, v.scope) {
                (VarKind::Inlined { inlined, .. }, _) => inlined_vars.push((*inlined, h)),
                (_, Some(Ref::Scope(s)))
                    if matches!(
                        m.scopes.get(s).kind,
                        ScopeKind::Function(_) | ScopeKind::LexicalBlock { .. }
                    ) =>
                {
                    vars_in.push((s, h))
                }
                _ => {}
            }
        }
        let labels_in = (m.labels.iter())
            .filter_map(|(h, l)| match (l.origin, l.scope) {
                (None, Some(s)) => Some((s, h)),
                _ => None,
            })
            .collect();
        for (h, sc) in m.scopes.iter() {
            if let (ScopeKind::LexicalBlock { .. }, Some(Ref::Scope(p))) = (&sc.kind, sc.parent) {
                nested.push((p, Ref::Scope(h)));
            }
        }
        let (mut events, mut events_at) = (Vec::new(), Vec::new());
        for (k, e) in m.events.iter().enumerate() {
            events.push((e.var, k));
            if let Some(i) = e.inlined {
                events_at.push((i, k));
            }
        }
        let mut retained: HashMap<Ref, Vec<(Ref, u64)>> = HashMap::default();
        let lists = m
            .units
            .iter()
            .map(|(h, u)| (Ref::Unit(h), &u.retained))
            .chain(m.scopes.iter().filter_map(|(h, s)| match &s.kind {
                ScopeKind::Function(f) => Some((Ref::Scope(h), &f.retained)),
                _ => None,
            }));
        for (owner, list) in lists {
            for (k, r) in list.iter().enumerate() {
                retained.entry(*r).or_default().push((owner, k as u64 + 1));
            }
        }
        Index {
            params: Groups::new(params),
            packed_params,
            runs_within: Groups::new(runs_within),
            inlined_runs: Groups::new(inlined_runs),
            children: Groups::new(children),
            vars_in: Groups::new(vars_in),
            inlined_vars: Groups::new(inlined_vars),
            labels_in: Groups::new(labels_in),
            nested: Groups::new(nested),
            events: Groups::new(events),
            retained,
            events_at: Groups::new(events_at),
        }
    }
}

/// The function a scope belongs to (itself, or the function around a block).
pub(super) fn enclosing_function(
    m: &Module,
    mut s: Handle<crate::ir::Scope>,
) -> Option<Handle<crate::ir::Scope>> {
    for _ in 0..256 {
        let sc = &m.scopes.get(s);
        match &sc.kind {
            ScopeKind::Function(_) | ScopeKind::FunctionDecl(_) => return Some(s),
            _ => match sc.parent {
                Some(Ref::Scope(p)) => s = p,
                _ => return None,
            },
        }
    }
    None
}

/// A string's bytes without NULs (DWARF strings end at the first).
pub(super) fn nul_free(s: &str) -> Vec<u8> {
    s.bytes().filter(|&c| c != 0).collect()
}

/// An attribute kept raw by a reader, written back with its own form where gimli has it.
pub(super) fn raw_attr(a: &crate::ir::RawAttr) -> Option<AttributeValue> {
    let b = &a.bytes;
    let le = |n: usize| -> Option<u64> {
        (b.len() == n).then(|| {
            b.iter()
                .rev()
                .fold(0u64, |acc, x| (acc << 8) | u64::from(*x))
        })
    };
    Some(match DwForm(a.form) {
        dw::DW_FORM_data1 => AttributeValue::Data1(le(1)? as u8),
        dw::DW_FORM_data2 => AttributeValue::Data2(le(2)? as u16),
        dw::DW_FORM_data4 => AttributeValue::Data4(le(4)? as u32),
        dw::DW_FORM_data8 => AttributeValue::Data8(le(8)?),
        dw::DW_FORM_flag => AttributeValue::Flag(le(1)? != 0),
        dw::DW_FORM_flag_present => AttributeValue::FlagPresent,
        dw::DW_FORM_block1 | dw::DW_FORM_block | dw::DW_FORM_block2 | dw::DW_FORM_block4 => {
            AttributeValue::Block(b.clone())
        }
        dw::DW_FORM_exprloc => AttributeValue::Exprloc(Expression::raw(b.clone())),
        // The reader keeps a string's characters whatever its form: written inline.
        dw::DW_FORM_string
        | dw::DW_FORM_strp
        | dw::DW_FORM_line_strp
        | dw::DW_FORM_strx
        | dw::DW_FORM_strx1
        | dw::DW_FORM_strx2
        | dw::DW_FORM_strx3
        | dw::DW_FORM_strx4
        | dw::DW_FORM_GNU_str_index => {
            AttributeValue::String(b.split(|&c| c == 0).next().unwrap_or_default().to_vec())
        }
        // LEB128 as the reader keeps it, read leniently (docs of `Leb128`).
        dw::DW_FORM_udata => {
            AttributeValue::Udata((!b.is_empty()).then_some(Leb128::scan(b, 10).bits)?)
        }
        dw::DW_FORM_sdata | dw::DW_FORM_implicit_const => {
            let leb = Leb128::scan(b, 10);
            AttributeValue::Sdata(leb.ended.then(|| leb.signed())?)
        }
        _ => return None,
    })
}
