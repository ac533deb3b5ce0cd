//! The DIE tree: one DWARF unit per IR unit, one DIE per type, scope, variable, label, import,
//! call site and inlined-at link, reserved first (so cycles and forward references work) and
//! filled in an order that keeps composite elements and parameters in their IR order.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::write::{
    AttributeValue, DebugInfoRef, Dwarf, EndianVec, FileId, LineString, RangeList, Sections,
    UnitEntryId, UnitId,
};
use gimli::{constants as dw, DwAt, DwTag, Encoding, Format, LittleEndian};

use super::{expr, frame, gaps, line, macros, SectionList, Settings};
use crate::diag::{Diagnostics, LossKind};
use crate::error::{Error, Result};
use crate::ir::{
    Bound, CodePos, CodeRange, Flags, Handle, Location, Module, PtrKind, Ref, ScopeKind,
    SourceFormat, TemplateParamKind, Type, TypeKind, Value, VarKind,
};
use crate::spec::dwarf_vendor as vendor;

/// A DIE: the unit (index into the IR units) and its id in that unit.
pub(super) type Die = (usize, UnitEntryId);

/// The DIE of each entity: a slot per entity of each kind, since every reference attribute
/// and expression operand looks one up. `keys` lists the entities in insertion order.
#[derive(Default)]
pub(super) struct DieMap {
    slots: [Vec<Option<Die>>; crate::ir::EntityKind::TABLE.len()],
    keys: Vec<Ref>,
}

impl DieMap {
    pub fn get(&self, r: &Ref) -> Option<&Die> {
        self.slots[r.kind() as usize].get(r.index())?.as_ref()
    }

    pub fn insert(&mut self, r: Ref, d: Die) {
        let slots = &mut self.slots[r.kind() as usize];
        if slots.len() <= r.index() {
            slots.resize(r.index() + 1, None);
        }
        if slots[r.index()].replace(d).is_none() {
            self.keys.push(r);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (Ref, &Die)> + '_ {
        self.keys.iter().filter_map(|r| Some((*r, self.get(r)?)))
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
    filled: FxHashSet<Ref>,
    /// DIE offsets of the previous pass, for expressions that name DIEs.
    pub offsets: Option<expr::Offsets>,
    /// Whether some expression named a DIE in this pass.
    pub used_refs: bool,
    /// Expressions already encoded, by (unit, expression, inside a location list): optimised
    /// code repeats a few thousand expressions across hundreds of thousands of list entries.
    pub encoded: HashMap<
        (usize, Handle<crate::ir::Expr>, bool),
        std::result::Result<gimli::write::Expression, String>,
    >,
    /// Lexical blocks that exist only as inlined code (every scope run of theirs is inlined at
    /// the same place): written under that inlined_subroutine, without an abstract origin.
    inlined_only: HashMap<Handle<crate::ir::Scope>, Handle<crate::ir::InlinedAt>>,
    pub index: Index,
    /// Concrete copies of lexical blocks in inlined code: (inlined-at, block) → DIE.
    concrete: HashMap<(Handle<crate::ir::InlinedAt>, Handle<crate::ir::Scope>), UnitEntryId>,
    /// Function types used only as a function's signature: readers rebuild them from the
    /// subprogram's DW_AT_type and parameters, so they get no DIE.
    signature_only: FxHashSet<Handle<Type>>,
    /// Code ranges of scopes that give none, from the scope runs (SPIR-V).
    pub run_ranges: HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>>,
    /// The expressions of the events (SPIR-V), sorted, each once.
    pub event_exprs: Vec<Handle<crate::ir::Expr>>,
    /// Types without a scope chain to a unit (base, pointer, array… types): the unit of their
    /// first user, so that a unit's DIEs refer inside the unit where they can.
    home: HashMap<Handle<Type>, usize>,
    /// Template parameters without a scope (LLVM shares them between templates): the first
    /// composite, function or pack that lists each; later owners get copies.
    template_owner: HashMap<Handle<Type>, Ref>,
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

/// Writes the sections. Expressions that name DIEs take their offsets from the previous pass,
/// so the module is written again until the offsets settle (once when nothing names a DIE).
pub(super) fn build(m: &Module, s: &Settings, diags: &mut Diagnostics) -> Result<SectionList> {
    let mut offsets: Option<expr::Offsets> = None;
    for _ in 0..6 {
        let mut pass_diags = Diagnostics::default();
        let (out, next) = build_once(m, s, &mut pass_diags, offsets.take())?;
        match next {
            Some((prev, now)) if prev.as_ref() != Some(&now) => offsets = Some(now),
            _ => {
                diags.losses.extend(pass_diags.losses);
                return Ok(out);
            }
        }
    }
    Err(Error::Usage(
        "DWARF writer: DIE offsets in expressions do not settle".into(),
    ))
}

type Passes = Option<(Option<expr::Offsets>, expr::Offsets)>;

fn build_once(
    m: &Module,
    s: &Settings,
    diags: &mut Diagnostics,
    offsets: Option<expr::Offsets>,
) -> Result<(SectionList, Passes)> {
    let mut b = Builder {
        m,
        s: *s,
        dwarf: Dwarf::new(),
        units: Vec::new(),
        dies: DieMap::default(),
        files: Vec::new(),
        diags,
        filled: Default::default(),
        offsets,
        used_refs: false,
        encoded: HashMap::default(),
        run_ranges: run_ranges(m),
        event_exprs: super::spirv::event_exprs(m),
        signature_only: signature_only(m),
        concrete: HashMap::default(),
        inlined_only: inlined_only(m),
        index: Index::new(m),
        home: HashMap::default(),
        template_owner: template_owners(m),
    };
    for (h, u) in m.units.iter() {
        // DWARF input keeps its units' versions; units from SPIR-V, LLVM or vISA are DWARF 5
        // (their recorded version is the source's operand, kept in a dwarv attribute).
        let own = match m.source.format {
            SourceFormat::Dwarf | SourceFormat::Ir => u.dwarf_version,
            _ => None,
        };
        let version = match s.version.or(own).unwrap_or(5) {
            v @ 2..=5 => v,
            v => {
                b.loss(
                    LossKind::Approximated,
                    Ref::Unit(h),
                    format!("DWARF version {v} written as 5"),
                );
                5
            }
        };
        let enc = Encoding {
            format: Format::Dwarf32,
            version,
            address_size: s.address_size,
        };
        let program = line::new_program(&mut b.dwarf, m, u, enc);
        let uid = b.dwarf.units.add(gimli::write::Unit::new(enc, program));
        b.units.push(uid);
        b.files.push(HashMap::default());
    }
    if b.units.is_empty() {
        return Err(Error::Usage(
            "the module has no compile unit to write as DWARF".into(),
        ));
    }
    b.home = b.home_units();
    b.reserve_all();
    b.fill_all();
    let is_md5 = line::rows(&mut b);
    let mut macro_section = macros::build(&mut b);
    let mut frames = frame::build(&mut b);
    // Files nothing refers to (a line table's unused entries) still go to the first unit.
    let unlisted: Vec<Handle<crate::ir::File>> =
        b.m.files
            .iter()
            .map(|(h, _)| h)
            .filter(|h| b.files.iter().all(|u| !u.contains_key(h)))
            .collect();
    for f in unlisted {
        b.file(0, f);
    }

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    b.dwarf
        .write(&mut sections)
        .map_err(|e| Error::Usage(format!("DWARF writer: {e}")))?;
    let mut line_sec = sections.debug_line.slice().to_vec();
    let mut info_sec = sections.debug_info.slice().to_vec();
    let abbrev_sec = sections.debug_abbrev.slice().to_vec();
    let fail = |e: String| Error::Usage(format!("DWARF writer: {e}"));
    if is_md5 {
        gaps::splice_is_md5(&mut line_sec, &mut info_sec, &abbrev_sec).map_err(fail)?;
    }
    let passes = match b.used_refs {
        true => Some((b.offsets.take(), die_offsets(&b, &info_sec, &abbrev_sec)?)),
        false => None,
    };
    let mut out: SectionList = vec![
        (".debug_info", info_sec),
        (".debug_abbrev", abbrev_sec),
        (".debug_line", line_sec),
    ];
    let named = [
        (".debug_str", sections.debug_str.slice()),
        (".debug_line_str", sections.debug_line_str.slice()),
        (".debug_loclists", sections.debug_loclists.slice()),
        (".debug_rnglists", sections.debug_rnglists.slice()),
        (".debug_loc", sections.debug_loc.slice()),
        (".debug_ranges", sections.debug_ranges.slice()),
    ];
    for (name, data) in named {
        if !data.is_empty() {
            out.push((name, data.to_vec()));
        }
    }
    if let Some(mac) = &mut macro_section {
        mac.patch_line_offsets(&gaps::stmt_lists(&out[0].1, &out[1].1).map_err(fail)?);
        out.push((".debug_macro", std::mem::take(&mut mac.bytes)));
    }
    frames.write(&mut out)?;
    crate::background::drop_later((b.dwarf, b.dies, b.index, b.concrete, b.filled));
    Ok((out, passes))
}

/// The offsets the written .debug_info gave every entity's DIE: gimli's DIE order is a
/// depth-first walk of each unit's tree, which gimli::read walks the same way.
fn die_offsets(b: &Builder, info: &[u8], abbrev: &[u8]) -> Result<expr::Offsets> {
    use gimli::read::{DebugAbbrev, DebugInfo};
    let fail = |e: gimli::read::Error| {
        Error::Usage(format!("DWARF writer: reading back .debug_info: {e}"))
    };
    let mut per_unit: Vec<(u64, Vec<u64>)> = Vec::new();
    let abbrevs_sec = DebugAbbrev::new(abbrev, LittleEndian);
    let mut iter = DebugInfo::new(info, LittleEndian).units();
    while let Some(h) = iter.next().map_err(fail)? {
        let unit_off = h.offset().0 as u64;
        let abbrevs = h.abbreviations(&abbrevs_sec).map_err(fail)?;
        let mut cur = h.entries(&abbrevs);
        let mut list = Vec::new();
        while let Some(e) = cur.next_dfs().map_err(fail)? {
            list.push(unit_off + e.offset().0 as u64);
        }
        per_unit.push((unit_off, list));
    }
    let mut pos: Vec<HashMap<UnitEntryId, usize>> = Vec::new();
    for &uid in &b.units {
        let unit = b.dwarf.units.get(uid);
        let mut order = HashMap::default();
        let mut stack = vec![unit.root()];
        while let Some(id) = stack.pop() {
            order.insert(id, order.len());
            let kids: Vec<_> = unit.get(id).children().copied().collect();
            stack.extend(kids.into_iter().rev());
        }
        pos.push(order);
    }
    let mut out = expr::Offsets::default();
    for (r, &(u, id)) in b.dies.iter() {
        let (Some((unit_off, list)), Some(&i)) = (per_unit.get(u), pos[u].get(&id)) else {
            continue;
        };
        if let Some(&o) = list.get(i) {
            out.insert(r, (*unit_off, o));
        }
    }
    Ok(out)
}

impl Builder<'_, '_> {
    pub fn loss(&mut self, kind: LossKind, place: Ref, msg: impl Into<String>) {
        let place = format!("{}{}", place.kind().prefix(), place.index());
        self.diags.push(kind, place, msg);
    }

    pub fn unit_mut(&mut self, u: usize) -> &mut gimli::write::Unit {
        self.dwarf.units.get_mut(self.units[u])
    }

    /// Vectors as AMD's base types with DW_AT_LLVM_vector_size: for units from SPIR-V and vISA
    /// (DWARF and LLVM input keep the GNU vector arrays their compilers write).
    fn amd_vectors(&self) -> bool {
        self.s.amd
            && matches!(
                self.m.source.format,
                SourceFormat::Spirv | SourceFormat::Visa
            )
    }

    /// The unit an entity belongs to: its own, or its enclosing scope's; for a type without
    /// one, the unit of its first user; the first otherwise.
    fn owner(&self, r: Ref) -> usize {
        self.scoped_owner(r)
            .or_else(|| match r {
                Ref::Type(t) => self.home.get(&t).copied(),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// Homes of the types [`Self::scoped_owner`] cannot place, found by walking the references of
    /// placed entities in arena order. Only needed with more than one unit.
    fn home_units(&self) -> HashMap<Handle<Type>, usize> {
        let mut home = HashMap::default();
        if self.units.len() < 2 {
            return home;
        }
        let opts = crate::ir::text::PrintOptions::default();
        for r in self.die_refs() {
            let Some(u) = self.scoped_owner(r) else {
                continue;
            };
            let mut stack = vec![r];
            while let Some(e) = stack.pop() {
                for t in crate::ir::refs_of(self.m, e, opts) {
                    if let Ref::Type(h) = t {
                        if self.scoped_owner(t).is_none() && !home.contains_key(&h) {
                            home.insert(h, u);
                            stack.push(t);
                        }
                    }
                }
            }
        }
        home
    }

    /// The unit an entity's scope chain leads to, if any.
    fn scoped_owner(&self, r: Ref) -> Option<usize> {
        let mut cur = Some(r);
        for _ in 0..256 {
            let Some(c) = cur else { break };
            cur = match c {
                Ref::Unit(u) => return Some(u.index()),
                Ref::Type(t) => self.type_parent(t),
                Ref::Scope(s) => {
                    let sc = &self.m.scopes.get(s);
                    if let Some(u) = sc.function().and_then(|f| f.unit) {
                        if sc.parent.is_none() {
                            return Some(u.index());
                        }
                    }
                    sc.parent
                }
                Ref::Var(v) => match &self.m.vars.get(v).kind {
                    VarKind::Inlined { inlined, .. } => Some(Ref::Inlined(*inlined)),
                    _ => self.m.vars.get(v).scope,
                },
                Ref::Inlined(i) => self.m.inlined.get(i).scope.map(Ref::Scope),
                Ref::Label(l) => self.m.labels.get(l).scope.map(Ref::Scope),
                Ref::CallSite(c) => self.m.call_sites.get(c).scope.map(Ref::Scope),
                Ref::Import(i) => self.m.imports.get(i).scope,
                _ => None,
            };
        }
        None
    }

    /// The entities that become DIEs, in arena order.
    fn die_refs(&self) -> Vec<Ref> {
        let m = self.m;
        let mut v: Vec<Ref> = Vec::new();
        v.extend(m.types.iter().map(|(h, _)| h).map(Ref::Type));
        v.extend(
            m.scopes
                .iter()
                .filter(|(_, s)| !matches!(s.kind, ScopeKind::BlockFile { .. }))
                .map(|(h, _)| Ref::Scope(h)),
        );
        v.extend(m.inlined.iter().map(|(h, _)| h).map(Ref::Inlined));
        v.extend(m.vars.iter().map(|(h, _)| h).map(Ref::Var));
        v.extend(m.labels.iter().map(|(h, _)| h).map(Ref::Label));
        v.extend(m.imports.iter().map(|(h, _)| h).map(Ref::Import));
        v.extend(m.call_sites.iter().map(|(h, _)| h).map(Ref::CallSite));
        v
    }

    fn reserve_all(&mut self) {
        for r in self.die_refs() {
            let u = self.owner(r);
            let id = self.unit_mut(u).reserve();
            self.dies.insert(r, (u, id));
        }
        // Block files are their block in DWARF.
        for (h, s) in self.m.scopes.iter() {
            if matches!(s.kind, ScopeKind::BlockFile { .. }) {
                let mut p = s.parent;
                for _ in 0..64 {
                    match p {
                        Some(Ref::Scope(q))
                            if matches!(self.m.scopes.get(q).kind, ScopeKind::BlockFile { .. }) =>
                        {
                            p = self.m.scopes.get(q).parent
                        }
                        _ => break,
                    }
                }
                let target = p.and_then(|p| self.dies.get(&p).copied());
                if let Some(d) = target {
                    self.dies.insert(Ref::Scope(h), d);
                }
            }
        }
    }

    /// The parent DIE of an entity, in its own unit (the unit root when the scope is elsewhere).
    pub(super) fn parent_die(&self, r: Ref, u: usize) -> UnitEntryId {
        let m = self.m;
        let parent = match r {
            Ref::Type(t) => self.type_parent(t),
            // A block that exists only as inlined code lives under its inlined_subroutine.
            // A definition of a declaration lives at the unit level, as clang writes it.
            Ref::Scope(s) if declaration_of(m, s).is_some() => None,
            Ref::Scope(s) => match (self.inlined_only.get(&s), m.scopes.get(s).parent) {
                (Some(_), Some(Ref::Scope(p))) if self.inlined_only.contains_key(&p) => {
                    Some(Ref::Scope(p))
                }
                (Some(i), _) => Some(Ref::Inlined(*i)),
                (None, p) => p,
            },
            Ref::Var(v) => match (&m.vars.get(v).kind, m.vars.get(v).scope) {
                (VarKind::Inlined { .. }, Some(Ref::Scope(b)))
                    if self.inlined_only.contains_key(&b) =>
                {
                    Some(Ref::Scope(b))
                }
                (VarKind::Inlined { inlined, .. }, _) => Some(Ref::Inlined(*inlined)),
                _ => m.vars.get(v).scope,
            },
            Ref::Inlined(i) => match m.inlined.get(i).parent {
                Some(p) => Some(Ref::Inlined(p)),
                None => m.inlined.get(i).scope.map(Ref::Scope),
            },
            Ref::Label(l) => m.labels.get(l).scope.map(Ref::Scope),
            Ref::CallSite(c) => m.call_sites.get(c).scope.map(Ref::Scope),
            Ref::Import(i) => m.imports.get(i).scope,
            _ => None,
        };
        // In inlined code, the concrete copy of the block the origin lives in.
        let in_block = match r {
            Ref::Var(v) => match m.vars.get(v).kind {
                VarKind::Inlined { origin, inlined } => match m.vars.get(origin).scope {
                    Some(Ref::Scope(b)) => self.concrete.get(&(inlined, b)),
                    _ => None,
                },
                _ => None,
            },
            Ref::Inlined(i) => match (m.inlined.get(i).parent, m.inlined.get(i).scope) {
                (Some(_), Some(b)) if self.inlined_only.contains_key(&b) => {
                    self.dies.get(&Ref::Scope(b)).map(|d| &d.1)
                }
                (Some(p), Some(b)) => self.concrete.get(&(p, b)),
                _ => None,
            },
            _ => None,
        };
        if let (Some(&id), Some(&(pu, _))) = (in_block, parent.and_then(|p| self.dies.get(&p))) {
            if pu == u {
                return id;
            }
        }
        match parent.and_then(|p| self.dies.get(&p)) {
            Some(&(pu, id)) if pu == u => id,
            _ => self.dwarf.units.get(self.units[u]).root(),
        }
    }

    /// A reference attribute from a DIE in unit `from` to an entity.
    pub fn ref_to(&self, from: usize, r: Ref) -> Option<AttributeValue> {
        let &(u, id) = self.dies.get(&r)?;
        Some(if u == from {
            AttributeValue::UnitRef(id)
        } else {
            AttributeValue::DebugInfoRef(DebugInfoRef::Entry(self.units[u], id))
        })
    }

    pub fn set(&mut self, d: Die, at: DwAt, v: AttributeValue) {
        self.unit_mut(d.0).get_mut(d.1).set(at, v);
    }

    fn set_udata(&mut self, d: Die, at: DwAt, v: Option<u64>) {
        if let Some(v) = v {
            self.set(d, at, AttributeValue::Udata(v));
        }
    }

    fn set_ref(&mut self, d: Die, at: DwAt, r: Option<Ref>) {
        if let Some(v) = r.and_then(|r| self.ref_to(d.0, r)) {
            self.set(d, at, v);
        }
    }

    pub(super) fn set_string(&mut self, d: Die, at: DwAt, s: &str) {
        self.set_str(d, at, Some(s));
    }

    fn set_str(&mut self, d: Die, at: DwAt, s: Option<&str>) {
        if let Some(s) = s {
            let id = self.dwarf.strings.add(nul_free(s));
            self.set(d, at, AttributeValue::StringRef(id));
        }
    }

    /// The line-program file of an IR file in unit `u` and its DWARF index.
    pub fn file(&mut self, u: usize, f: Handle<crate::ir::File>) -> (FileId, u64) {
        if let Some(&id) = self.files[u].get(&f) {
            return id;
        }
        let file = &self.m.files.get(f);
        let uid = self.units[u];
        let version = self.dwarf.units.get(uid).version();
        let info = line::file_info(&mut self.dwarf, self.m, file);
        let dir = file.directory.clone().unwrap_or_default();
        let name = if file.name.is_empty() && version <= 4 {
            "<unknown>"
        } else {
            &file.name
        };
        let unit = self.dwarf.units.get_mut(uid);
        let before = unit.line_program.files().count();
        let default = unit.line_program.default_directory();
        // Directory 0 is the compilation directory; a file without a directory would read back
        // as in it. DWARF 5 can list an empty directory (read back as none); DWARF 4 cannot.
        let default_named = !matches!(
            unit.line_program.get_directory(default),
            LineString::String(d) if d.is_empty()
        );
        let mut placed_in_comp_dir = false;
        let dir_id = if !dir.is_empty() {
            unit.line_program
                .add_directory(LineString::String(nul_free(&dir)))
        } else if default_named && version >= 5 {
            unit.line_program
                .add_directory(LineString::String(Vec::new()))
        } else {
            placed_in_comp_dir = default_named;
            default
        };
        let id = unit
            .line_program
            .add_file(LineString::String(nul_free(name)), dir_id, info);
        // The position gimli gave the file (an existing entry keeps its index).
        let pos = unit
            .line_program
            .files()
            .position(|(fid, _, _)| fid == id)
            .unwrap_or(before) as u64;
        let index = if version >= 5 { pos } else { pos + 1 };
        self.files[u].insert(f, (id, index));
        if placed_in_comp_dir {
            self.loss(
                LossKind::Approximated,
                Ref::File(f),
                "a file without a directory, written in the compilation directory (DWARF 4)",
            );
        }
        (id, index)
    }

    fn set_loc(&mut self, d: Die, at: Option<crate::ir::Loc>, prefix: (DwAt, DwAt, DwAt)) {
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

    fn set_decl(&mut self, d: Die, at: Option<crate::ir::Loc>) {
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

    /// DW_AT_byte_size (or bit_size when not a whole number of bytes) of a bound.
    fn set_size(&mut self, d: Die, size: Option<Bound>) {
        match size {
            Some(Bound::Const(bits)) if bits % 8 == 0 => self.set(
                d,
                dw::DW_AT_byte_size,
                AttributeValue::Udata((bits / 8) as u64),
            ),
            Some(Bound::Const(bits)) => {
                self.set(d, dw::DW_AT_bit_size, AttributeValue::Udata(bits as u64))
            }
            Some(b @ Bound::Ref(_)) => self.set_bound(d, dw::DW_AT_byte_size, Some(b)),
            None => {}
        }
    }

    /// A bound: a constant, a reference to a variable or member, or an expression.
    fn set_bound(&mut self, d: Die, at: DwAt, b: Option<Bound>) {
        match b {
            Some(Bound::Const(c)) => self.set(d, at, AttributeValue::Sdata(c)),
            Some(Bound::Ref(Ref::Expr(e))) => {
                if let Some(x) = self.expression(d, e) {
                    self.set(d, at, AttributeValue::Exprloc(x));
                }
            }
            Some(Bound::Ref(r)) => self.set_ref(d, at, Some(r)),
            None => {}
        }
    }

    pub fn expression(
        &mut self,
        d: Die,
        e: Handle<crate::ir::Expr>,
    ) -> Option<gimli::write::Expression> {
        expr::expression(self, d.0, e, Ref::Expr(e), false)
    }

    fn set_location(&mut self, d: Die, at: DwAt, l: Option<Location>) {
        if let Some(v) = l.and_then(|l| expr::location(self, d.0, l)) {
            self.set(d, at, v);
        }
    }

    fn set_flags(&mut self, d: Die, f: Flags) {
        if f.is_empty() {
            return;
        }
        let v4 = self.dwarf.units.get(self.units[d.0]).version() <= 4;
        for &(bit, at) in vendor::flag_attr_bits() {
            if f.bits & bit != 0 {
                // DWARF 4 says "all calls described" with GNU's attribute.
                let at = match at {
                    dw::DW_AT_call_all_calls if v4 => dw::DW_AT_GNU_all_call_sites,
                    at => at,
                };
                self.set(d, at, AttributeValue::FlagPresent);
            }
        }
        let access = [("public", 1u8), ("protected", 2), ("private", 3)];
        if let Some((_, a)) = access.iter().find(|(n, _)| f.has(n)) {
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

    fn set_ranges(&mut self, d: Die, ranges: &[CodeRange]) {
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
                let version = self.dwarf.units.get(self.units[d.0]).version();
                let list = range_list(version, many);
                let id = self.unit_mut(d.0).ranges.add(list);
                self.set(d, dw::DW_AT_ranges, AttributeValue::RangeListRef(id));
            }
        }
    }

    /// Raw attributes a reader kept; references and section offsets among them point into the
    /// input's sections, so they cannot be written back (a loss).
    /// A bit field with a storage unit, in the DWARF 2 form clang writes when tuning for gdb:
    /// (DW_AT_data_member_location, DW_AT_bit_offset counted from the unit's most significant
    /// bit, DW_AT_byte_size to write unless the member keeps it raw). Little-endian.
    fn dwarf2_bit_field(
        &self,
        ty: &Type,
        base: Option<Handle<Type>>,
        offset: Option<u64>,
        storage: Option<u64>,
    ) -> Option<(u64, u64, Option<u64>)> {
        let (offset, storage) = (offset?, storage?);
        let bits = match ty.size {
            Some(Bound::Const(b)) if ty.flags.has("bit_field") => u64::try_from(b).ok()?,
            _ => return None,
        };
        let raw = ty
            .extra
            .iter()
            .find(|a| a.attr == dw::DW_AT_byte_size.0)
            .and_then(expr::raw_attr)
            .and_then(|v| match v {
                AttributeValue::Data1(b) => Some(u64::from(b)),
                AttributeValue::Data2(b) => Some(u64::from(b)),
                AttributeValue::Data4(b) => Some(u64::from(b)),
                AttributeValue::Data8(b) | AttributeValue::Udata(b) => Some(b),
                _ => None,
            });
        let (unit_bytes, write) = match raw {
            Some(b) => (b, None),
            None => match self.m.types.get(base?).size {
                Some(Bound::Const(b)) if b > 0 && b % 8 == 0 => (b as u64 / 8, Some(b as u64 / 8)),
                _ => return None,
            },
        };
        let within = offset.checked_sub(storage)?;
        let from_msb = unit_bytes
            .checked_mul(8)?
            .checked_sub(within)?
            .checked_sub(bits)?;
        (storage % 8 == 0).then_some((storage / 8, from_msb, write))
    }

    fn set_extra(&mut self, d: Die, place: Ref, extra: &[crate::ir::RawAttr]) {
        for a in extra {
            match expr::raw_attr(a) {
                Some(v) => self.set(d, DwAt(a.attr), v),
                None => self.loss(
                    LossKind::Dropped,
                    place,
                    format!("raw attribute 0x{:x} (form 0x{:x})", a.attr, a.form),
                ),
            }
        }
    }

    fn fill_all(&mut self) {
        // Units first, then entities; composites and functions pull their children in order.
        for u in 0..self.units.len() {
            self.fill_unit(u);
        }
        for r in self.die_refs() {
            self.fill(r);
        }
    }

    fn fill_unit(&mut self, ui: usize) {
        let m = self.m;
        let h = Handle::new(ui as u32);
        let u = &m.units.get(h);
        let root = self.dwarf.units.get(self.units[ui]).root();
        let d = (ui, root);
        // DW_AT_stmt_list first: its place in the root DIE is fixed (see gaps::splice_is_md5).
        self.set(d, dw::DW_AT_stmt_list, AttributeValue::LineProgramRef);
        let tag = match u.kind.0 {
            0x03 => dw::DW_TAG_partial_unit,
            0x02 | 0x06 => dw::DW_TAG_type_unit,
            0x04 => dw::DW_TAG_skeleton_unit,
            _ => dw::DW_TAG_compile_unit,
        };
        if tag != dw::DW_TAG_compile_unit {
            self.loss(
                LossKind::Approximated,
                Ref::Unit(h),
                "unit kind written as a compile unit",
            );
        }
        let producer = match (&u.producer, &u.flags_text) {
            (Some(p), _) => Some(p.clone()),
            _ => None,
        };
        self.set_str(d, dw::DW_AT_producer, producer.as_deref());
        let lang = u16::try_from(u.language.0);
        self.set(
            d,
            dw::DW_AT_language,
            AttributeValue::Language(gimli::DwLang(lang.unwrap_or(0))),
        );
        if lang.is_err() {
            self.set(
                d,
                vendor::DW_AT_DWARV_LANGUAGE,
                AttributeValue::Udata(u.language.0.into()),
            );
        }
        if let Some(f) = u.file {
            let file = &m.files.get(f);
            self.set_str(d, dw::DW_AT_name, Some(&file.name));
            self.set_str(d, dw::DW_AT_comp_dir, file.directory.as_deref());
        }
        self.set_str(d, vendor::DW_AT_DWARV_FLAGS_TEXT, u.flags_text.as_deref());
        if u.flags.has("optimized") {
            self.set(d, dw::DW_AT_APPLE_optimized, AttributeValue::FlagPresent);
        }
        if u.runtime_version != 0 {
            self.set(
                d,
                dw::DW_AT_APPLE_major_runtime_vers,
                AttributeValue::Data1(u.runtime_version as u8),
            );
        }
        self.set_str(d, dw::DW_AT_dwo_name, u.dwo_name.as_deref());
        if let Some(id) = u.dwo_id {
            self.set(d, dw::DW_AT_GNU_dwo_id, AttributeValue::Data8(id));
        }
        self.set_str(d, dw::DW_AT_LLVM_isysroot, u.sysroot.as_deref());
        self.set_str(d, gimli::DwAt(0x3fef), u.sdk.as_deref());
        if self.s.amd {
            if let Some(a) = &u.augmentation {
                self.set_str(d, vendor::DW_AT_LLVM_AUGMENTATION, Some(a));
            }
        } else if u.augmentation.is_some() {
            self.loss(
                LossKind::Dropped,
                Ref::Unit(h),
                "DW_AT_LLVM_augmentation (AMD extensions off)",
            );
        }
        self.set_udata(
            d,
            vendor::DW_AT_DWARV_SOURCE_DWARF_VERSION,
            u.dwarf_version
                .filter(|_| !matches!(m.source.format, SourceFormat::Dwarf | SourceFormat::Ir))
                .map(u64::from),
        );
        self.set_udata(
            d,
            vendor::DW_AT_DWARV_DEBUG_VERSION,
            u.debug_version.map(u64::from),
        );
        if u.emission != crate::ir::EmissionKind::FULL {
            self.set(
                d,
                vendor::DW_AT_DWARV_EMISSION,
                AttributeValue::Udata(u.emission.0.into()),
            );
        }
        if u.ranges_base_address || u.ranges.len() > 1 {
            self.set_ranges_list(d, &u.ranges);
        } else if let [r] = u.ranges.as_slice() {
            self.set_ranges(d, &[*r]);
        } else if !u.ranges.is_empty() {
            self.set_ranges_list(d, &u.ranges);
        } else {
            self.set(
                d,
                dw::DW_AT_low_pc,
                AttributeValue::Address(gimli::write::Address::Constant(0)),
            );
        }
        self.set_extra(d, Ref::Unit(h), &u.extra);
        super::spirv::unit_attrs(self, d, ui);
        // Retained types are children of the unit already; nothing more to say.
    }

    fn set_ranges_list(&mut self, d: Die, ranges: &[CodeRange]) {
        // A range list with DW_AT_low_pc 0 as base, as clang writes for units.
        self.set(
            d,
            dw::DW_AT_low_pc,
            AttributeValue::Address(gimli::write::Address::Constant(0)),
        );
        let version = self.dwarf.units.get(self.units[d.0]).version();
        let list = range_list(version, ranges);
        let id = self.unit_mut(d.0).ranges.add(list);
        self.set(d, dw::DW_AT_ranges, AttributeValue::RangeListRef(id));
    }

    /// A type's parent entity: its scope, or the template that lists a shared parameter.
    fn type_parent(&self, t: Handle<Type>) -> Option<Ref> {
        self.m
            .types
            .get(t)
            .scope
            .or_else(|| self.template_owner.get(&t).copied())
    }

    /// A template parameter under `owner` (DIE `d`): its own DIE for its first owner, a copy
    /// for each other one (DWARF has no shared children).
    fn fill_template(&mut self, owner: Ref, d: Die, tp: Handle<Type>) {
        if self.type_parent(tp) == Some(owner) {
            self.fill(Ref::Type(tp));
            return;
        }
        let tag = self.tag(Ref::Type(tp));
        let copy = (d.0, self.unit_mut(d.0).add(d.1, tag));
        self.fill_type(copy, tp);
    }

    /// Adds the reserved DIE of `r` under its parent and sets its attributes (once).
    fn fill(&mut self, r: Ref) {
        if !self.filled.insert(r) {
            return;
        }
        let Some(&d) = self.dies.get(&r) else {
            return;
        };
        if let Ref::Type(t) = r {
            if self.signature_only.contains(&t) {
                return;
            }
        }
        if let Ref::Scope(s) = r {
            if matches!(self.m.scopes.get(s).kind, ScopeKind::BlockFile { .. }) {
                return;
            }
        }
        let parent = self.parent_die(r, d.0);
        let tag = self.tag(r);
        self.unit_mut(d.0).add_reserved(d.1, parent, tag);
        match r {
            Ref::Type(t) => self.fill_type(d, t),
            Ref::Scope(s) => self.fill_scope(d, s),
            Ref::Var(v) => self.fill_var(d, v),
            Ref::Inlined(i) => self.fill_inlined(d, i),
            Ref::Label(l) => {
                let lb = &self.m.labels.get(l);
                self.set_str(d, dw::DW_AT_name, Some(&lb.name));
                self.set_decl(d, lb.at);
                if let Some(p) = lb.pos {
                    self.set(
                        d,
                        dw::DW_AT_low_pc,
                        AttributeValue::Address(gimli::write::Address::Constant(addr(p))),
                    );
                }
            }
            Ref::Import(i) => {
                let im = &self.m.imports.get(i);
                self.set_str(d, dw::DW_AT_name, im.name.as_deref());
                self.set_ref(d, dw::DW_AT_import, im.entity);
                self.set_decl(d, im.at);
                if !im.elements.is_empty() {
                    self.loss(LossKind::Dropped, r, "imported-entity elements");
                }
            }
            Ref::CallSite(c) => self.fill_call_site(d, c),
            _ => {}
        }
        match r {
            Ref::Scope(_) => {
                super::spirv::runs(self, d, r);
                super::spirv::no_scope(self, d, r);
            }
            Ref::Var(v) => super::spirv::events(self, d, v),
            Ref::Type(_) => super::spirv::no_scope(self, d, r),
            _ => {}
        }
    }

    pub(super) fn tag(&self, r: Ref) -> DwTag {
        let m = self.m;
        match r {
            Ref::Type(t) => type_tag(m.types.get(t), self.amd_vectors(), m),
            Ref::Scope(s) => match &m.scopes.get(s).kind {
                ScopeKind::Namespace { .. } => dw::DW_TAG_namespace,
                ScopeKind::Module { .. } => dw::DW_TAG_module,
                ScopeKind::CommonBlock { .. } => dw::DW_TAG_common_block,
                ScopeKind::Function(_) | ScopeKind::FunctionDecl(_) => dw::DW_TAG_subprogram,
                ScopeKind::LexicalBlock { .. } | ScopeKind::BlockFile { .. } => {
                    dw::DW_TAG_lexical_block
                }
            },
            Ref::Var(v) => match m.vars.get(v).kind {
                VarKind::Param(_) => dw::DW_TAG_formal_parameter,
                VarKind::Inlined { origin, .. }
                    if matches!(m.vars.get(origin).kind, VarKind::Param(_)) =>
                {
                    dw::DW_TAG_formal_parameter
                }
                _ => dw::DW_TAG_variable,
            },
            Ref::Inlined(_) => dw::DW_TAG_inlined_subroutine,
            Ref::Label(_) => dw::DW_TAG_label,
            Ref::Import(i) => DwTag(m.imports.get(i).kind.0),
            Ref::CallSite(_) => dw::DW_TAG_call_site,
            _ => dw::DW_TAG_null,
        }
    }

    fn fill_type(&mut self, d: Die, t: Handle<Type>) {
        let m = self.m;
        let ty = &m.types.get(t);
        self.set_str(d, dw::DW_AT_name, ty.name.as_deref());
        if !matches!(
            ty.kind,
            TypeKind::Member { .. } | TypeKind::Inheritance { .. }
        ) || ty.size.is_some()
        {
            let vector_basic = self.amd_vectors()
                && matches!(ty.kind, TypeKind::Vector { .. })
                && self.tag(Ref::Type(t)) == dw::DW_TAG_base_type;
            if !vector_basic {
                self.set_size(d, ty.size);
            }
        }
        if let Some(a) = ty.align_bits {
            self.set(
                d,
                dw::DW_AT_alignment,
                AttributeValue::Udata(u64::from(a / 8)),
            );
        }
        self.set_decl(d, ty.at);
        self.set_str(d, dw::DW_AT_linkage_name, ty.linkage.as_deref());
        let tref = |h: Option<Handle<Type>>| h.map(Ref::Type);
        match &ty.kind {
            TypeKind::Basic { encoding } => {
                self.set(
                    d,
                    dw::DW_AT_encoding,
                    AttributeValue::Encoding(gimli::DwAte(encoding.0 as u8)),
                );
            }
            TypeKind::Pointer { pointee, space, .. } => {
                self.set_ref(d, dw::DW_AT_type, tref(*pointee));
                self.set_space(d, Ref::Type(t), space);
            }
            TypeKind::Qualified { base, .. } | TypeKind::Typedef { base } => {
                self.set_ref(d, dw::DW_AT_type, tref(*base));
            }
            TypeKind::Array {
                element,
                dims,
                stride,
                data_location,
                associated,
                allocated,
                rank,
                column_major,
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*element));
                if let Some(Bound::Const(bits)) = stride {
                    if bits % 8 == 0 {
                        self.set(d, dw::DW_AT_byte_stride, AttributeValue::Sdata(bits / 8));
                    } else {
                        self.set(d, dw::DW_AT_bit_stride, AttributeValue::Sdata(*bits));
                    }
                } else {
                    self.set_bound(d, dw::DW_AT_bit_stride, *stride);
                }
                self.set_bound(d, dw::DW_AT_data_location, *data_location);
                self.set_bound(d, dw::DW_AT_associated, *associated);
                self.set_bound(d, dw::DW_AT_allocated, *allocated);
                self.set_bound(d, dw::DW_AT_rank, *rank);
                if *column_major {
                    self.set(
                        d,
                        dw::DW_AT_ordering,
                        AttributeValue::Ordering(dw::DW_ORD_col_major),
                    );
                }
                for dim in dims {
                    let tag = if dim.generic {
                        dw::DW_TAG_generic_subrange
                    } else {
                        dw::DW_TAG_subrange_type
                    };
                    let sub = (d.0, self.unit_mut(d.0).add(d.1, tag));
                    self.set_bound(sub, dw::DW_AT_count, dim.count);
                    self.set_bound(sub, dw::DW_AT_lower_bound, dim.lower);
                    self.set_bound(sub, dw::DW_AT_upper_bound, dim.upper);
                    self.set_bound(sub, dw::DW_AT_byte_stride, dim.stride);
                }
            }
            TypeKind::Vector { element, count } => {
                if self.tag(Ref::Type(t)) == dw::DW_TAG_base_type {
                    // AMD form: the element's base type with DW_AT_LLVM_vector_size.
                    let el = &m.types.get(element.expect("base form needs an element"));
                    if ty.name.is_none() {
                        self.set_str(d, dw::DW_AT_name, el.name.as_deref());
                    }
                    if let TypeKind::Basic { encoding } = el.kind {
                        self.set(
                            d,
                            dw::DW_AT_encoding,
                            AttributeValue::Encoding(gimli::DwAte(encoding.0 as u8)),
                        );
                    }
                    self.set_size(d, el.size);
                    self.set_ref(d, vendor::DW_AT_DWARV_ELEMENT, tref(*element));
                    if let Some(Bound::Const(bits)) = ty.size {
                        self.set(
                            d,
                            vendor::DW_AT_DWARV_VECTOR_BITS,
                            AttributeValue::Sdata(bits),
                        );
                    }
                    self.set(
                        d,
                        vendor::DW_AT_LLVM_VECTOR_SIZE,
                        AttributeValue::Udata((*count).into()),
                    );
                } else {
                    self.set_ref(d, dw::DW_AT_type, tref(*element));
                    self.set(d, dw::DW_AT_GNU_vector, AttributeValue::FlagPresent);
                    let sub = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_subrange_type));
                    self.set(sub, dw::DW_AT_count, AttributeValue::Udata((*count).into()));
                }
            }
            TypeKind::Matrix {
                column,
                count,
                column_major,
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*column));
                self.set(
                    d,
                    vendor::DW_AT_DWARV_MATRIX,
                    AttributeValue::Flag(*column_major),
                );
                let sub = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_subrange_type));
                self.set(sub, dw::DW_AT_count, AttributeValue::Udata((*count).into()));
            }
            TypeKind::Function {
                ret,
                calling_convention,
                ..
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*ret));
                if *calling_convention != 0 {
                    self.set(
                        d,
                        dw::DW_AT_calling_convention,
                        AttributeValue::CallingConvention(gimli::DwCc(*calling_convention)),
                    );
                }
                self.formal_parameters(d, t);
            }
            TypeKind::Enum {
                underlying,
                enumerators,
                identifier,
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*underlying));
                self.set_str(d, vendor::DW_AT_DWARV_IDENTIFIER, identifier.as_deref());
                let unsigned = underlying.is_some_and(|u| matches!(m.types.get(u).kind, TypeKind::Basic { encoding } if matches!(encoding.0, 2 | 7 | 8 | 0x10)));
                for e in enumerators {
                    let ed = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_enumerator));
                    self.set_str(ed, dw::DW_AT_name, Some(&e.name));
                    let v = if unsigned && e.value >= 0 && e.value <= u64::MAX as i128 {
                        AttributeValue::Udata(e.value as u64)
                    } else if let Ok(v) = i64::try_from(e.value) {
                        AttributeValue::Sdata(v)
                    } else {
                        AttributeValue::Block(e.value.to_le_bytes().to_vec())
                    };
                    self.set(ed, dw::DW_AT_const_value, v);
                }
            }
            TypeKind::Composite {
                elements,
                identifier,
                vtable_holder,
                templates,
                discriminator,
                ..
            } => {
                self.set_str(d, vendor::DW_AT_DWARV_IDENTIFIER, identifier.as_deref());
                self.set_ref(d, dw::DW_AT_containing_type, tref(*vtable_holder));
                self.set_ref(d, dw::DW_AT_discr, tref(*discriminator));
                for tp in templates.clone() {
                    self.fill_template(Ref::Type(t), d, tp);
                }
                for e in elements.clone() {
                    self.fill(e);
                }
                if ty.size.is_none() && !ty.flags.has("fwd_decl") {
                    self.set(d, dw::DW_AT_declaration, AttributeValue::FlagPresent);
                    self.set(
                        d,
                        vendor::DW_AT_DWARV_NOT_FWD_DECL,
                        AttributeValue::FlagPresent,
                    );
                }
            }
            TypeKind::Member {
                base,
                offset_bits,
                storage_offset_bits,
                value,
                discriminant,
                property,
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*base));
                if let Some(form) =
                    self.dwarf2_bit_field(ty, *base, *offset_bits, *storage_offset_bits)
                {
                    let (location, from_msb, unit_bytes) = form;
                    self.set(
                        d,
                        dw::DW_AT_data_member_location,
                        AttributeValue::Udata(location),
                    );
                    self.set(d, dw::DW_AT_bit_offset, AttributeValue::Udata(from_msb));
                    if let Some(b) = unit_bytes {
                        self.set(d, dw::DW_AT_byte_size, AttributeValue::Udata(b));
                    }
                } else if ty.flags.has("bit_field") || storage_offset_bits.is_some() {
                    if let Some(o) = offset_bits {
                        self.set(d, dw::DW_AT_data_bit_offset, AttributeValue::Udata(*o));
                    }
                    if storage_offset_bits.is_some() {
                        self.loss(
                            LossKind::Approximated,
                            Ref::Type(t),
                            "bit field storage offset: its storage size is unknown, written as DW_AT_data_bit_offset",
                        );
                    }
                } else if let Some(o) = offset_bits {
                    if o % 8 == 0 {
                        self.set(
                            d,
                            dw::DW_AT_data_member_location,
                            AttributeValue::Udata(o / 8),
                        );
                    } else {
                        self.set(d, dw::DW_AT_data_bit_offset, AttributeValue::Udata(*o));
                    }
                }
                if let Some(v) = value {
                    self.set_value(d, dw::DW_AT_const_value, v);
                }
                if let Some(v) = discriminant {
                    self.set_value(d, dw::DW_AT_discr_value, v);
                }
                if property.is_some() {
                    self.loss(
                        LossKind::Dropped,
                        Ref::Type(t),
                        "Objective-C property of a member",
                    );
                }
            }
            TypeKind::Inheritance { base, offset_bits } => {
                self.set_ref(d, dw::DW_AT_type, tref(*base));
                if let Some(o) = offset_bits {
                    self.set(
                        d,
                        dw::DW_AT_data_member_location,
                        AttributeValue::Udata(o / 8),
                    );
                }
            }
            TypeKind::PtrToMember { pointee, class } => {
                self.set_ref(d, dw::DW_AT_type, tref(*pointee));
                self.set_ref(d, dw::DW_AT_containing_type, tref(*class));
            }
            TypeKind::Template { target, params } => {
                // A type target is DW_AT_type (LLVM 14's name printer needs one on an unknown
                // tag); a function is not a type, so it goes in dwarv's attribute.
                match target {
                    Some(Ref::Type(_)) => self.set_ref(d, dw::DW_AT_type, *target),
                    _ => self.set_ref(d, vendor::DW_AT_DWARV_TEMPLATE_TARGET, *target),
                }
                for p in params.clone() {
                    self.fill(Ref::Type(p));
                }
            }
            TypeKind::TemplateParam {
                kind,
                ty: pty,
                value,
                pack,
                is_default,
            } => {
                self.set_ref(d, dw::DW_AT_type, tref(*pty));
                if let Some(v) = value {
                    let at = if *kind == TemplateParamKind::Template {
                        dw::DW_AT_GNU_template_name
                    } else {
                        dw::DW_AT_const_value
                    };
                    self.set_value(d, at, v);
                }
                if *is_default {
                    self.set(d, dw::DW_AT_default_value, AttributeValue::FlagPresent);
                }
                for p in pack.clone() {
                    self.fill_template(Ref::Type(t), d, p);
                }
            }
            TypeKind::String {
                length,
                location,
                encoding,
            } => {
                self.set_bound(d, dw::DW_AT_string_length, *length);
                self.set_bound(d, dw::DW_AT_data_location, *location);
                if encoding.0 != 0 {
                    self.set(
                        d,
                        dw::DW_AT_encoding,
                        AttributeValue::Encoding(gimli::DwAte(encoding.0 as u8)),
                    );
                }
            }
            TypeKind::Unspecified => {}
            TypeKind::Other { children, .. } => {
                for c in children.clone() {
                    self.fill(c);
                }
            }
        }
        let derived = self.derived_type_flags(d, ty);
        self.set_flags(
            d,
            Flags {
                bits: ty.flags.bits & !derived,
                ..ty.flags
            },
        );
        self.set_extra(d, Ref::Type(t), &ty.extra);
    }

    /// Flags a type's DWARF says by other attributes, as the reader derives them back: a bit
    /// field's DW_AT_bit_size, a static member's DW_AT_external/declaration, a virtual base's
    /// DW_AT_virtuality, pass-by conventions as DW_AT_calling_convention.
    fn derived_type_flags(&mut self, d: Die, ty: &Type) -> u64 {
        let bit = |n: &str| Flags::named(n).map_or(0, |f| f.bits);
        let f = ty.flags;
        let mut derived = 0;
        match &ty.kind {
            TypeKind::Member { .. } => {
                if f.has("bit_field") {
                    if let Some(Bound::Const(bits)) = ty.size {
                        self.unit_mut(d.0).get_mut(d.1).delete(dw::DW_AT_byte_size);
                        self.set(d, dw::DW_AT_bit_size, AttributeValue::Udata(bits as u64));
                        derived |= bit("bit_field");
                    }
                }
                if f.has("external") || f.has("fwd_decl") {
                    derived |= bit("static_member");
                }
            }
            TypeKind::Inheritance { .. } if f.has("virtual") => {
                self.set(
                    d,
                    dw::DW_AT_virtuality,
                    AttributeValue::Virtuality(gimli::DW_VIRTUALITY_virtual),
                );
                derived |= bit("virtual");
            }
            TypeKind::Composite { .. } => {
                for (name, cc) in [("pass_by_reference", 4u8), ("pass_by_value", 5)] {
                    if f.has(name) {
                        self.set(
                            d,
                            dw::DW_AT_calling_convention,
                            AttributeValue::CallingConvention(gimli::DwCc(cc)),
                        );
                        derived |= bit(name);
                        break;
                    }
                }
            }
            _ => {}
        }
        derived
    }

    /// Address spaces of a pointer: DW_AT_address_class (DWARF), plus the exact values of the
    /// other numberings in dwarv's vendor attributes (DESIGN.md's table).
    fn set_space(&mut self, d: Die, r: Ref, space: &crate::ir::AddrSpace) {
        if *space == Default::default() {
            return;
        }
        if let Some(c) = space.address_class {
            self.set(d, dw::DW_AT_address_class, AttributeValue::Udata(c.into()));
        } else if self.s.amd {
            if let Some(c) = vendor::address_class_of(space.memory) {
                self.set(d, dw::DW_AT_address_class, AttributeValue::Udata(c.into()));
                self.set(
                    d,
                    vendor::DW_AT_DWARV_DERIVED_CLASS,
                    AttributeValue::FlagPresent,
                );
            }
        } else if space.memory != crate::ir::Memory::NONE {
            self.loss(
                LossKind::Approximated,
                r,
                "address space kept only in dwarv attributes (AMD extensions off)",
            );
        }
        // The memory kind, unless the address class already says it (seed 002's DW_ADDR_LLVM_*).
        let class = space.address_class.or_else(|| {
            if self.s.amd {
                vendor::address_class_of(space.memory)
            } else {
                None
            }
        });
        if class.and_then(vendor::memory_of_class) != Some(space.memory) {
            self.set_udata(d, vendor::DW_AT_DWARV_MEMORY, Some(space.memory.0.into()));
        }
        self.set_udata(
            d,
            vendor::DW_AT_DWARV_STORAGE_CLASS,
            space.storage_class.map(u64::from),
        );
        self.set_udata(
            d,
            vendor::DW_AT_DWARV_ADDRESS_SPACE,
            space.dwarf_space.map(u64::from),
        );
        let _ = r;
    }

    fn set_value(&mut self, d: Die, at: DwAt, v: &Value) {
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

    fn fill_scope(&mut self, d: Die, s: Handle<crate::ir::Scope>) {
        let m = self.m;
        let sc = &m.scopes.get(s);
        // What a definition shares with its declaration is said once, on the declaration.
        let decl = declaration_of(m, s);
        let own = |same: bool| !same;
        if own(decl.is_some_and(|x| x.name == sc.name)) {
            self.set_str(d, dw::DW_AT_name, sc.name.as_deref());
        }
        if own(decl.is_some_and(|x| x.at == sc.at)) {
            self.set_decl(d, sc.at);
        }
        let mut flags = sc.flags;
        if let Some(x) = decl {
            let missing = x.flags.bits & !sc.flags.bits;
            if missing != 0 {
                self.set(
                    d,
                    vendor::DW_AT_DWARV_NOT_INHERITED,
                    AttributeValue::Udata(missing),
                );
            }
            flags.bits &= !x.flags.bits;
            flags.foreign &= !x.flags.foreign;
            // Written at unit level, it would read back in its declaration's scope.
            match sc.parent {
                p if p == x.parent => {}
                Some(Ref::Unit(_)) | None => {
                    self.set(d, vendor::DW_AT_DWARV_UNIT_SCOPE, AttributeValue::FlagPresent)
                }
                Some(_) => self.loss(
                    LossKind::Approximated,
                    Ref::Scope(s),
                    "a definition's scope other than its unit or its declaration's: read back in the declaration's",
                ),
            }
        }
        match &sc.kind {
            ScopeKind::Namespace { export_symbols } => {
                if *export_symbols {
                    self.set(d, dw::DW_AT_export_symbols, AttributeValue::FlagPresent);
                }
            }
            ScopeKind::Module {
                config_macros,
                include_path,
                api_notes,
                is_decl,
            } => {
                self.set_str(d, dw::DW_AT_LLVM_config_macros, config_macros.as_deref());
                self.set_str(d, dw::DW_AT_LLVM_include_path, include_path.as_deref());
                self.set_str(d, gimli::DwAt(0x3e07), api_notes.as_deref());
                if *is_decl {
                    self.set(d, dw::DW_AT_declaration, AttributeValue::FlagPresent);
                }
            }
            ScopeKind::CommonBlock { declaration } => {
                // DWARF gives a common block the location of the variable that declares it.
                let loc = declaration.and_then(|v| m.vars.get(v).location);
                self.set_location(d, dw::DW_AT_location, loc);
                self.set_ref(
                    d,
                    vendor::DW_AT_DWARV_COMMON_DECL,
                    declaration.map(Ref::Var),
                );
            }
            ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => {
                let decl = matches!(sc.kind, ScopeKind::FunctionDecl(_));
                self.fill_function(d, s, f, decl);
            }
            ScopeKind::LexicalBlock { ranges } if ranges.is_empty() => {
                let r = self.run_ranges.get(&s).cloned().unwrap_or_default();
                self.set_ranges(d, &r);
            }
            ScopeKind::LexicalBlock { ranges } => self.set_ranges(d, ranges),
            ScopeKind::BlockFile { .. } => {}
        }
        self.set_flags(d, flags);
        self.set_extra(d, Ref::Scope(s), &sc.extra);
    }

    fn fill_function(
        &mut self,
        d: Die,
        s: Handle<crate::ir::Scope>,
        f: &crate::ir::FunctionInfo,
        decl: bool,
    ) {
        let m = self.m;
        let declared = declaration_of(m, s).and_then(|x| x.function());
        if !declared.is_some_and(|x| x.linkage == f.linkage) {
            self.set_str(d, dw::DW_AT_linkage_name, f.linkage.as_deref());
        }
        if let Some(ty) = f.ty.filter(|t| !declared.is_some_and(|x| x.ty == Some(*t))) {
            if let TypeKind::Function { ret, .. } = &m.types.get(ty).kind {
                self.set_ref(d, dw::DW_AT_type, ret.map(Ref::Type));
            }
            if !self.signature_only.contains(&ty) {
                self.set_ref(d, vendor::DW_AT_DWARV_FUNCTION_TYPE, Some(Ref::Type(ty)));
            } else {
                let fl = m.types.get(ty).flags;
                self.set_udata(
                    d,
                    vendor::DW_AT_DWARV_SIGNATURE_FLAGS,
                    (!fl.is_empty()).then_some(fl.bits),
                );
            }
        }
        if decl {
            self.set(d, dw::DW_AT_declaration, AttributeValue::FlagPresent);
            if !m.scopes.get(s).flags.has("fwd_decl") {
                self.set(
                    d,
                    vendor::DW_AT_DWARV_NOT_FWD_DECL,
                    AttributeValue::FlagPresent,
                );
            }
        }
        self.set_udata(
            d,
            vendor::DW_AT_DWARV_SCOPE_LINE,
            f.scope_line.map(u64::from),
        );
        self.set_ref(d, dw::DW_AT_specification, f.declaration.map(Ref::Scope));
        self.set_ref(
            d,
            dw::DW_AT_containing_type,
            f.containing_type.map(Ref::Type),
        );
        if let Some(v) = f.virtuality {
            self.set(
                d,
                dw::DW_AT_virtuality,
                AttributeValue::Virtuality(gimli::DwVirtuality(v.0)),
            );
        }
        if let Some(i) = f.virtual_index {
            let mut e = gimli::write::Expression::new();
            e.op_constu(i.into());
            self.set(
                d,
                dw::DW_AT_vtable_elem_location,
                AttributeValue::Exprloc(e),
            );
        }
        if let Some(a) = f.this_adjustment {
            self.set(
                d,
                vendor::DW_AT_DWARV_THIS_ADJUSTMENT,
                AttributeValue::Sdata(a),
            );
        }
        if let Some(cc) = f.calling_convention {
            self.set(
                d,
                dw::DW_AT_calling_convention,
                AttributeValue::CallingConvention(gimli::DwCc(cc)),
            );
        }
        if f.ranges.is_empty() && !decl {
            let r = self.run_ranges.get(&s).cloned().unwrap_or_default();
            self.set_ranges(d, &r);
        } else {
            self.set_ranges(d, &f.ranges);
        }
        if let Some(p) = f.entry_pc {
            self.set(
                d,
                dw::DW_AT_entry_pc,
                AttributeValue::Address(gimli::write::Address::Constant(addr(p))),
            );
        }
        self.set_location(d, dw::DW_AT_frame_base, f.frame_base);
        match &f.binding {
            Some(Value::Spirv(id)) => self.set(
                d,
                vendor::DW_AT_DWARV_SPIRV_ID,
                AttributeValue::Udata((*id).into()),
            ),
            Some(Value::Symbol(sym)) => self.set_str(d, vendor::DW_AT_DWARV_SYMBOL, Some(sym)),
            Some(Value::Llvm(v)) => self.set_str(d, vendor::DW_AT_DWARV_LLVM_VALUE, Some(v)),
            _ => {}
        }
        if self.s.amd {
            if let Some(l) = f.lanes {
                self.set(d, vendor::DW_AT_LLVM_LANES, AttributeValue::Udata(l.into()));
            }
            self.set_location(d, vendor::DW_AT_LLVM_LANE_PC, f.lane_pc);
            self.set_location(d, vendor::DW_AT_LLVM_ACTIVE_LANE, f.active_lane);
        } else if f.lanes.is_some() || f.lane_pc.is_some() || f.active_lane.is_some() {
            self.loss(
                LossKind::Dropped,
                Ref::Scope(s),
                "DW_AT_LLVM_lanes/lane_pc/active_lane (AMD extensions off)",
            );
        }
        if !f.thrown.is_empty() {
            for t in &f.thrown {
                let td = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_thrown_type));
                self.set_ref(td, dw::DW_AT_type, Some(Ref::Type(*t)));
            }
        }
        // Children in order: template parameters, then parameters by number, then the rest.
        for t in f.templates.clone() {
            self.fill_template(Ref::Scope(s), d, t);
        }
        let params = self.index.params.get(&s).cloned().unwrap_or_default();
        if params.is_empty() {
            self.signature_params(d, f.ty);
        }
        let this = params
            .iter()
            .find(|(_, p)| m.vars.get(*p).flags.has("object_pointer"));
        if let Some((_, p)) = this {
            self.set_ref(d, dw::DW_AT_object_pointer, Some(Ref::Var(*p)));
        }
        let has_params = !params.is_empty();
        for (_, p) in params {
            self.fill(Ref::Var(p));
        }
        // A variadic signature without a DIE of its own: its `...` follows the parameters.
        let variadic = |t: &Handle<Type>| {
            matches!(
                m.types.get(*t).kind,
                TypeKind::Function { variadic: true, .. }
            )
        };
        if has_params
            && f.ty
                .filter(|t| self.signature_only.contains(t))
                .is_some_and(|t| variadic(&t))
        {
            self.unit_mut(d.0)
                .add(d.1, dw::DW_TAG_unspecified_parameters);
        }
    }

    /// A function without parameter variables (a declaration) states its parameters' types as
    /// formal_parameter children when its signature type gets no DIE of its own.
    fn signature_params(&mut self, d: Die, ty: Option<Handle<Type>>) {
        if let Some(ty) = ty.filter(|t| self.signature_only.contains(t)) {
            self.formal_parameters(d, ty);
        }
    }

    /// The formal_parameter (and unspecified_parameters) children of a function type's DIE, or
    /// of a declaration's.
    fn formal_parameters(&mut self, d: Die, ty: Handle<Type>) {
        let m = self.m;
        let TypeKind::Function {
            params, variadic, ..
        } = &m.types.get(ty).kind
        else {
            return;
        };
        for p in params {
            let pd = (
                d.0,
                self.unit_mut(d.0).add(d.1, dw::DW_TAG_formal_parameter),
            );
            match p {
                Some(p) => self.set_ref(pd, dw::DW_AT_type, Some(Ref::Type(*p))),
                None => self.set(
                    pd,
                    vendor::DW_AT_DWARV_UNKNOWN_TYPE,
                    AttributeValue::FlagPresent,
                ),
            }
        }
        if *variadic {
            self.unit_mut(d.0)
                .add(d.1, dw::DW_TAG_unspecified_parameters);
        }
    }

    fn fill_var(&mut self, d: Die, v: Handle<crate::ir::Variable>) {
        let m = self.m;
        let var = &m.vars.get(v);
        if let VarKind::Inlined { origin, .. } = var.kind {
            self.set_ref(d, dw::DW_AT_abstract_origin, Some(Ref::Var(origin)));
        }
        if let VarKind::Param(n) = var.kind {
            // Readers number parameters by their order; say the number only when it differs.
            let before = match var.scope {
                Some(Ref::Scope(s)) => self
                    .index
                    .params
                    .get(&s)
                    .map_or(0, |l| l.iter().filter(|(k, _)| *k < n).count()),
                _ => 0,
            };
            if before + 1 != n as usize {
                self.set(
                    d,
                    vendor::DW_AT_DWARV_ARG_NUMBER,
                    AttributeValue::Udata(n.into()),
                );
            }
        }
        // A definition of a declared variable (a static data member) leaves out what its
        // declaration says.
        let (decl_name, decl_flags, decl_ty) = match var.declaration {
            Some(Ref::Type(t)) => {
                let x = m.types.get(t);
                let ty = match x.kind {
                    TypeKind::Member { base, .. } => base,
                    _ => None,
                };
                (x.name.as_ref(), x.flags, ty)
            }
            Some(Ref::Var(x)) => (
                m.vars.get(x).name.as_ref(),
                m.vars.get(x).flags,
                m.vars.get(x).ty,
            ),
            _ => (None, Default::default(), None),
        };
        // A function's static variable says so by its DW_OP_addr location; without one, dwarv
        // says it.
        let in_function = matches!(var.scope, Some(Ref::Scope(sc)) if !matches!(m.scopes.get(sc).kind, ScopeKind::Namespace { .. } | ScopeKind::Module { .. }));
        let static_addr = matches!(var.location, Some(crate::ir::Location::Expr(e))
            if crate::dwarf::is_static_location(&m.exprs.get(e).ops));
        if var.kind == VarKind::Global && in_function && !static_addr {
            self.set(d, vendor::DW_AT_DWARV_STATIC, AttributeValue::FlagPresent);
        }
        if decl_name.is_none() || decl_name != var.name.as_ref() {
            self.set_str(d, dw::DW_AT_name, var.name.as_deref());
        }
        if decl_ty.is_none() || decl_ty != var.ty {
            self.set_ref(d, dw::DW_AT_type, var.ty.map(Ref::Type));
        }
        self.set_decl(d, var.at);
        self.set_str(d, dw::DW_AT_linkage_name, var.linkage.as_deref());
        if let Some(a) = var.align_bits {
            self.set(
                d,
                dw::DW_AT_alignment,
                AttributeValue::Udata(u64::from(a / 8)),
            );
        }
        self.set_location(d, dw::DW_AT_location, var.location);
        if var.location.is_none() {
            if let Some(l) = expr::events_location(self, d.0, v) {
                self.set(d, dw::DW_AT_location, l);
            }
        }
        if let Some(b) = &var.binding {
            self.set_value(d, vendor::DW_AT_DWARV_BINDING, b);
        }
        if let Some(c) = &var.const_value {
            self.set_value(d, dw::DW_AT_const_value, c);
        }
        self.set_ref(d, dw::DW_AT_specification, var.declaration);
        // A parameter's object_pointer flag is the function's DW_AT_object_pointer.
        let mut flags = var.flags;
        if let Some(ext) = crate::ir::Flags::named("external") {
            flags.bits &= !(decl_flags.bits & ext.bits);
        }
        if matches!(var.kind, VarKind::Param(_)) {
            if let Some(op) = crate::ir::Flags::named("object_pointer") {
                flags.bits &= !op.bits;
            }
        }
        self.set_flags(d, flags);
        self.set_extra(d, Ref::Var(v), &var.extra);
    }

    fn fill_inlined(&mut self, d: Die, i: Handle<crate::ir::InlinedAt>) {
        let m = self.m;
        let ia = &m.inlined.get(i);
        // The inlined function and the code it covers come from the scope runs.
        // A call site's code includes the code inlined into the inlined function.
        let runs: Vec<&crate::ir::ScopeRun> = self
            .index
            .runs_within
            .get(&i)
            .map_or(&[][..], |v| v.as_slice())
            .iter()
            .map(|&k| &m.scope_runs[k])
            .collect();
        let origin = runs
            .iter()
            .filter(|r| r.inlined == Some(i))
            .find_map(|r| match r.scope {
                Ref::Scope(s) => enclosing_function(m, s),
                _ => None,
            });
        // Else the function around the call sites nested in this one (their calls are inlined
        // code of the function inlined here).
        let origin = origin.or_else(|| {
            self.index.children.get(&i).and_then(|kids| {
                kids.iter().find_map(|&x| {
                    m.inlined
                        .get(x)
                        .scope
                        .and_then(|s| enclosing_function(m, s))
                })
            })
        });
        self.set_ref(d, dw::DW_AT_abstract_origin, origin.map(Ref::Scope));
        let mut ranges: Vec<CodeRange> = runs.iter().map(|r| r.range).collect();
        CodeRange::normalize(&mut ranges);
        // DWARF nests a block's code inside its call site's: where the inlined function's own
        // runs do not cover a nested run (only damaged input has that), the call site grows.
        let mut own: Vec<CodeRange> = runs
            .iter()
            .filter(|r| r.inlined == Some(i) && origin.is_some_and(|o| r.scope == Ref::Scope(o)))
            .map(|r| r.range)
            .collect();
        CodeRange::normalize(&mut own);
        let covered = |r: &CodeRange| {
            own.iter()
                .any(|o| addr(o.start) <= addr(r.start) && addr(r.end) <= addr(o.end))
        };
        if !own.is_empty() && !runs.iter().all(|r| covered(&r.range)) {
            self.loss(
                LossKind::Approximated,
                Ref::Inlined(i),
                "inlined code outside its call site's own ranges: the call site's ranges cover it",
            );
        }
        self.set_ranges(d, &ranges);
        self.set_loc(
            d,
            Some(ia.at),
            (
                dw::DW_AT_call_file,
                dw::DW_AT_call_line,
                dw::DW_AT_call_column,
            ),
        );
        self.concrete_blocks(d, i, origin);
    }

    /// The lexical blocks of the function inlined at `i`, as concrete blocks under its
    /// inlined_subroutine DIE (abstract origin + the ranges of the runs inside them).
    fn concrete_blocks(
        &mut self,
        d: Die,
        i: Handle<crate::ir::InlinedAt>,
        origin: Option<Handle<crate::ir::Scope>>,
    ) {
        let m = self.m;
        let mut blocks: Vec<(usize, Handle<crate::ir::Scope>, Vec<CodeRange>)> = Vec::new();
        let mine: Vec<usize> = self.index.runs_within.get(&i).cloned().unwrap_or_default();
        for run in mine
            .iter()
            .map(|&k| &m.scope_runs[k])
            .filter(|r| r.inlined == Some(i))
        {
            let Ref::Scope(mut b) = run.scope else {
                continue;
            };
            if self.inlined_only.contains_key(&b) {
                continue;
            }
            // The block and every block around it up to the inlined function.
            for _ in 0..256 {
                if Some(b) == origin
                    || !matches!(m.scopes.get(b).kind, ScopeKind::LexicalBlock { .. })
                {
                    break;
                }
                let depth = scope_depth(m, b);
                match blocks.iter_mut().find(|x| x.1 == b) {
                    Some(x) => x.2.push(run.range),
                    None => blocks.push((depth, b, vec![run.range])),
                }
                match m.scopes.get(b).parent {
                    Some(Ref::Scope(p)) => b = p,
                    _ => break,
                }
            }
        }
        blocks.sort_by_key(|x| (x.0, x.1));
        for (_, b, mut ranges) in blocks {
            let parent = match m.scopes.get(b).parent {
                Some(Ref::Scope(p)) => self.concrete.get(&(i, p)).copied().unwrap_or(d.1),
                _ => d.1,
            };
            let id = self.unit_mut(d.0).add(parent, dw::DW_TAG_lexical_block);
            self.concrete.insert((i, b), id);
            self.set_ref((d.0, id), dw::DW_AT_abstract_origin, Some(Ref::Scope(b)));
            CodeRange::normalize(&mut ranges);
            self.set_ranges((d.0, id), &ranges);
        }
    }

    fn fill_call_site(&mut self, d: Die, c: Handle<crate::ir::CallSite>) {
        let m = self.m;
        let cs = &m.call_sites.get(c);
        if let Some(p) = cs.pos {
            let at = if cs.is_return_pc {
                dw::DW_AT_call_return_pc
            } else {
                dw::DW_AT_call_pc
            };
            self.set(
                d,
                at,
                AttributeValue::Address(gimli::write::Address::Constant(addr(p))),
            );
        }
        self.set_ref(d, dw::DW_AT_call_origin, cs.target);
        self.set_location(d, dw::DW_AT_call_target, cs.target_location);
        if cs.tail {
            self.set(d, dw::DW_AT_call_tail_call, AttributeValue::FlagPresent);
        }
        self.set_loc(
            d,
            cs.at,
            (
                dw::DW_AT_call_file,
                dw::DW_AT_call_line,
                dw::DW_AT_call_column,
            ),
        );
        for p in &cs.params {
            let pd = (
                d.0,
                self.unit_mut(d.0).add(d.1, dw::DW_TAG_call_site_parameter),
            );
            self.set_location(pd, dw::DW_AT_location, p.location.map(Location::Expr));
            self.set_location(pd, dw::DW_AT_call_value, p.value.map(Location::Expr));
            self.set_location(
                pd,
                dw::DW_AT_call_data_value,
                p.data_value.map(Location::Expr),
            );
        }
        self.set_extra(d, Ref::CallSite(c), &cs.extra);
    }
}

/// The DIE tag of a type (vectors depend on the AMD switch).
fn type_tag(ty: &Type, amd: bool, m: &Module) -> DwTag {
    match &ty.kind {
        TypeKind::Basic { .. } => dw::DW_TAG_base_type,
        TypeKind::Pointer { kind, .. } => match kind {
            PtrKind::Pointer => dw::DW_TAG_pointer_type,
            PtrKind::Reference => dw::DW_TAG_reference_type,
            PtrKind::RvalueReference => dw::DW_TAG_rvalue_reference_type,
        },
        TypeKind::Qualified { qualifier, .. } => DwTag(qualifier.0),
        TypeKind::Typedef { .. } => dw::DW_TAG_typedef,
        TypeKind::Array { .. } | TypeKind::Matrix { .. } => dw::DW_TAG_array_type,
        TypeKind::Vector { element, .. } => {
            let basic =
                element.is_some_and(|e| matches!(m.types.get(e).kind, TypeKind::Basic { .. }));
            if amd && basic {
                dw::DW_TAG_base_type
            } else {
                dw::DW_TAG_array_type
            }
        }
        TypeKind::Function { .. } => dw::DW_TAG_subroutine_type,
        TypeKind::Enum { .. } => dw::DW_TAG_enumeration_type,
        TypeKind::Composite { tag, .. } => DwTag(tag.0),
        // Static data members too, as clang 14 writes them (DWARF 4 and 5).
        TypeKind::Member { .. } => dw::DW_TAG_member,
        TypeKind::Inheritance { .. } => dw::DW_TAG_inheritance,
        TypeKind::PtrToMember { .. } => dw::DW_TAG_ptr_to_member_type,
        TypeKind::Template { .. } => vendor::DW_TAG_DWARV_TEMPLATE,
        TypeKind::TemplateParam { kind, .. } => match kind {
            TemplateParamKind::Type => dw::DW_TAG_template_type_parameter,
            // LLVM 14's name printer dereferences the type of a value parameter unchecked.
            TemplateParamKind::Value if ty_of(ty).is_none() => {
                vendor::DW_TAG_DWARV_UNTYPED_VALUE_PARAM
            }
            TemplateParamKind::Value => dw::DW_TAG_template_value_parameter,
            TemplateParamKind::Template => dw::DW_TAG_GNU_template_template_param,
            TemplateParamKind::Pack => dw::DW_TAG_GNU_template_parameter_pack,
        },
        TypeKind::String { .. } => dw::DW_TAG_string_type,
        TypeKind::Unspecified => dw::DW_TAG_unspecified_type,
        TypeKind::Other { tag, .. } => DwTag(*tag),
    }
}

/// Function types referenced only as functions' signatures (see `Builder::signature_only`).
fn signature_only(m: &Module) -> FxHashSet<Handle<Type>> {
    // SPIR-V function types are written as they are (the reader takes them back exactly).
    if super::spirv::from_spirv(m) {
        return Default::default();
    }
    let mut sig: FxHashSet<Handle<Type>> = m
        .scopes
        .values()
        .filter_map(|s| s.function().and_then(|f| f.ty))
        .filter(|t| matches!(m.types.get(*t).kind, TypeKind::Function { .. }))
        .collect();
    let mut drop = |h: Option<Handle<Type>>| {
        if let Some(h) = h {
            sig.remove(&h);
        }
    };
    for t in m.types.values() {
        match &t.kind {
            TypeKind::Pointer { pointee: x, .. }
            | TypeKind::Qualified { base: x, .. }
            | TypeKind::Typedef { base: x }
            | TypeKind::Array { element: x, .. }
            | TypeKind::Vector { element: x, .. }
            | TypeKind::Member { base: x, .. }
            | TypeKind::Inheritance { base: x, .. }
            | TypeKind::TemplateParam { ty: x, .. } => drop(*x),
            TypeKind::PtrToMember { pointee, class } => {
                drop(*pointee);
                drop(*class);
            }
            TypeKind::Function { ret, params, .. } => {
                drop(*ret);
                params.iter().for_each(|p| drop(*p));
            }
            TypeKind::Template {
                target: Some(Ref::Type(x)),
                ..
            } => drop(Some(*x)),
            _ => {}
        }
    }
    for v in m.vars.values() {
        drop(v.ty);
    }
    for u in m.units.values() {
        for r in &u.retained {
            if let Ref::Type(x) = r {
                drop(Some(*x));
            }
        }
    }
    for e in m.exprs.values() {
        for op in &e.ops {
            for a in &op.args {
                if let crate::ir::Arg::Ref(Ref::Type(x)) = a {
                    drop(Some(*x));
                }
            }
        }
    }
    sig
}

/// Lookups the DIE fill needs per entity, built once per pass (they would be scans otherwise).
#[derive(Default)]
pub(super) struct Index {
    /// Parameters of each function, by number.
    pub params: HashMap<Handle<crate::ir::Scope>, Vec<(u32, Handle<crate::ir::Variable>)>>,
    /// Scope runs inlined at each link or deeper (indexes into `scope_runs`).
    pub runs_within: HashMap<Handle<crate::ir::InlinedAt>, Vec<usize>>,
    /// Inlined-at links by their parent link.
    pub children: HashMap<Handle<crate::ir::InlinedAt>, Vec<Handle<crate::ir::InlinedAt>>>,
    /// Declare/value events of each variable.
    pub events: HashMap<Handle<crate::ir::Variable>, Vec<usize>>,
}

impl Index {
    fn new(m: &Module) -> Index {
        let mut x = Index::default();
        for (h, v) in m.vars.iter() {
            if let (VarKind::Param(n), Some(Ref::Scope(s))) = (&v.kind, v.scope) {
                x.params.entry(s).or_default().push((*n, h));
            }
        }
        for list in x.params.values_mut() {
            list.sort();
        }
        for (k, run) in m.scope_runs.iter().enumerate() {
            let mut i = run.inlined;
            for _ in 0..256 {
                let Some(h) = i else { break };
                x.runs_within.entry(h).or_default().push(k);
                i = m.inlined.get(h).parent;
            }
        }
        for (h, ia) in m.inlined.iter() {
            if let Some(p) = ia.parent {
                x.children.entry(p).or_default().push(h);
            }
        }
        for (k, e) in m.events.iter().enumerate() {
            x.events.entry(e.var).or_default().push(k);
        }
        x
    }
}

/// See `Builder::inlined_only`.
fn inlined_only(m: &Module) -> HashMap<Handle<crate::ir::Scope>, Handle<crate::ir::InlinedAt>> {
    let mut seen: HashMap<Handle<crate::ir::Scope>, Option<Handle<crate::ir::InlinedAt>>> =
        HashMap::default();
    for run in &m.scope_runs {
        let Ref::Scope(b) = run.scope else { continue };
        if !matches!(m.scopes.get(b).kind, ScopeKind::LexicalBlock { .. }) {
            continue;
        }
        let e = seen.entry(b).or_insert(run.inlined);
        if *e != run.inlined {
            *e = None;
        }
    }
    seen.into_iter()
        .filter_map(|(b, i)| Some((b, i?)))
        .collect()
}

/// How many scopes enclose a scope.
fn scope_depth(m: &Module, mut s: Handle<crate::ir::Scope>) -> usize {
    for depth in 0..256 {
        match m.scopes.get(s).parent {
            Some(Ref::Scope(p)) => s = p,
            _ => return depth,
        }
    }
    256
}

fn ty_of(t: &Type) -> Option<Handle<Type>> {
    match &t.kind {
        TypeKind::TemplateParam { ty, .. } => *ty,
        _ => None,
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

/// The code of each function and block according to the scope runs: a run counts for its scope
/// and every enclosing one; inlined code counts for the scopes around its call sites.
fn run_ranges(m: &Module) -> HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>> {
    let mut out: HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>> = HashMap::default();
    for run in &m.scope_runs {
        let mut starts: Vec<Handle<crate::ir::Scope>> = Vec::new();
        // Inlined code belongs to the inlined_subroutine DIEs, not to the inlined function.
        if let (Ref::Scope(s), None) = (run.scope, run.inlined) {
            starts.push(s);
        }
        let mut i = run.inlined;
        for _ in 0..256 {
            let Some(h) = i else { break };
            // Only the outermost call site is in concrete (not inlined) code.
            let ia = m.inlined.get(h);
            if ia.parent.is_none() {
                starts.extend(ia.scope);
            }
            i = ia.parent;
        }
        let mut seen = std::collections::HashSet::new();
        for s0 in starts {
            let mut cur = Some(s0);
            for _ in 0..256 {
                let Some(s) = cur else { break };
                if !seen.insert(s) {
                    break;
                }
                out.entry(s).or_default().push(run.range);
                cur = match m.scopes.get(s).parent {
                    Some(Ref::Scope(p)) => Some(p),
                    _ => None,
                };
            }
        }
    }
    for r in out.values_mut() {
        CodeRange::normalize(r);
    }
    out
}

/// A range list. DWARF 4 entries are relative to the unit's base address, so the list resets
/// it to 0 first; empty ranges are left out (DWARF has no way to say them).
fn range_list(version: u16, ranges: &[CodeRange]) -> RangeList {
    use gimli::write::{Address, Range};
    let mut out = Vec::new();
    if version <= 4 {
        out.push(Range::BaseAddress {
            address: Address::Constant(0),
        });
    }
    for r in ranges.iter().filter(|r| addr(r.end) > addr(r.start)) {
        let (begin, end) = (addr(r.start), addr(r.end));
        out.push(match version {
            ..=4 => Range::OffsetPair { begin, end },
            _ => Range::StartEnd {
                begin: Address::Constant(begin),
                end: Address::Constant(end),
            },
        });
    }
    RangeList(out)
}

/// A location list from (start, end, expression) entries and an optional default entry (DWARF 5
/// only), made like `range_list`.
pub(super) fn loc_list(
    version: u16,
    entries: Vec<(u64, u64, gimli::write::Expression)>,
    default: Option<gimli::write::Expression>,
) -> gimli::write::LocationList {
    use gimli::write::{Address, Location};
    let mut out = Vec::new();
    if version <= 4 {
        out.push(Location::BaseAddress {
            address: Address::Constant(0),
        });
    }
    for (begin, end, data) in entries.into_iter().filter(|e| e.1 > e.0) {
        out.push(match version {
            ..=4 => Location::OffsetPair { begin, end, data },
            _ => Location::StartEnd {
                begin: Address::Constant(begin),
                end: Address::Constant(end),
                data,
            },
        });
    }
    if let Some(data) = default {
        out.push(Location::DefaultLocation { data });
    }
    gimli::write::LocationList(out)
}

/// A string's bytes without NULs (DWARF strings end at the first).
pub(super) fn nul_free(s: &str) -> Vec<u8> {
    s.bytes().filter(|&c| c != 0).collect()
}

/// The first owner of each unscoped template parameter, in arena order (see
/// `Builder::template_owner`).
fn template_owners(m: &Module) -> HashMap<Handle<Type>, Ref> {
    let mut owner = HashMap::default();
    let mut claim = |params: &[Handle<Type>], by: Ref| {
        for p in params {
            if m.types.get(*p).scope.is_none() {
                owner.entry(*p).or_insert(by);
            }
        }
    };
    for (h, t) in m.types.iter() {
        match &t.kind {
            TypeKind::Composite { templates, .. } => claim(templates, Ref::Type(h)),
            TypeKind::TemplateParam { pack, .. } => claim(pack, Ref::Type(h)),
            _ => {}
        }
    }
    for (h, s) in m.scopes.iter() {
        if let Some(f) = s.function() {
            claim(&f.templates, Ref::Scope(h));
        }
    }
    owner
}

/// The declaration a function definition completes (DW_AT_specification).
fn declaration_of(m: &Module, s: Handle<crate::ir::Scope>) -> Option<&crate::ir::Scope> {
    let d = m.scopes.get(s).function()?.declaration?;
    (d != s).then(|| m.scopes.get(d))
}
