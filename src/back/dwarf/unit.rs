//! The DIE tree: one DWARF unit per IR unit, one DIE per type, scope, variable, label, import,
//! call site and inlined-at link, reserved first (so cycles and forward references work) and
//! filled in an order that keeps composite elements and parameters in their IR order. This
//! module drives a writing pass: it makes the units, reserves and fills the DIEs (through the
//! concern modules), then asks `line`, `macros` and `frame` for their sections.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::write::{AttributeValue, Dwarf, Sections, UnitEntryId, UnitId};
use gimli::{constants as dw, DwTag, Encoding, Format, LittleEndian};

use super::builder::{
    Builder, DieId, DieMap, HandleMap, Index, Offsets, RefSet, SectionList, Settings,
};
use super::{frame, inlined, line, loclists, macros, records, rows, scopes, types};
use crate::diag::{Diagnostics, LossKind};
use crate::error::{Error, Result};
use crate::ir::Flags;
use crate::ir::{Handle, Module, Ref, ScopeKind, SourceFormat, Type, VarKind};
use crate::spec::dwarf_vendor as vendor;

/// The module a writing pass reads: the caller's, or one handed over, which is freed as soon
/// as the last pass has built its DIEs (serialising them needs only the DIE tree).
pub(super) enum Source<'m> {
    Borrowed(&'m Module),
    Owned(Box<Module>),
}

impl Source<'_> {
    pub(super) fn module(&self) -> &Module {
        match self {
            Source::Borrowed(m) => m,
            Source::Owned(m) => m,
        }
    }
}

/// Writes the sections. Expressions that name DIEs take their offsets from the previous pass,
/// so the module is written again until the offsets settle (once when nothing names a DIE).
pub(super) fn build(m: Source, s: &Settings, diags: &mut Diagnostics) -> Result<SectionList> {
    // Call-frame information depends on nothing else written: its sections come first, and an
    // owned module's CFI is freed before the DIEs are built. Its losses go where a pass writes
    // them (after the macros'). Call-frame information alone (an llvm-mc CFI test object)
    // needs no unit: it is written without .debug_info.
    let mut cfi_diags = Diagnostics::default();
    let mut frames = frame::build(m.module(), s, &mut cfi_diags);
    let cfi_only = {
        let m = m.module();
        m.units.is_empty() && !m.cies.is_empty() && m.files.is_empty()
    };
    let m = match m {
        Source::Owned(mut module) => {
            drop((
                std::mem::take(&mut module.cies),
                std::mem::take(&mut module.fdes),
            ));
            Source::Owned(module)
        }
        borrowed => borrowed,
    };
    let done = |mut out: SectionList, frames: &mut frame::Frames| {
        frames.write(&mut out)?;
        if cfi_only {
            out.retain(|(_, data)| !data.is_empty());
        }
        Ok(out)
    };
    let mut offsets: Option<Offsets> = None;
    for _ in 0..6 {
        let mut pass_diags = Diagnostics::default();
        // The fill frees and allocates again all along: its freed pages are kept for it, and
        // returned (with the module's, last pass) before serialising allocates the sections.
        let kept = crate::background::keep_freed_pages();
        let filled = fill(
            m.module(),
            s,
            &mut pass_diags,
            offsets.take(),
            &cfi_diags,
            cfi_only,
        )?;
        if !filled.used_refs {
            // No expression took an offset from a previous pass: this pass is the last, and
            // nothing after the DIEs reads the module.
            // Freed here rather than on another thread: its pages are then returned with the
            // fill's (`kept`), before serialising allocates, and no block is freed across
            // threads (15 paired runs: 0.98× the CPU time, the same wall time).
            drop(m);
            drop(kept);
            // Serialising grows its sections by doubling: what it frees is kept for it too,
            // well below the fill's peak now that the module is gone (1 000 fewer faults).
            let _serialising = crate::background::keep_freed_pages();
            let (out, _) = serialise(filled)?;
            diags.losses.extend(pass_diags.losses);
            return done(out, &mut frames);
        }
        drop(kept);
        let (out, next) = serialise(filled)?;
        match next {
            Some((prev, now)) if prev.as_ref() != Some(&now) => offsets = Some(now),
            _ => {
                diags.losses.extend(pass_diags.losses);
                return done(out, &mut frames);
            }
        }
    }
    Err(Error::unwritable(
        "DWARF",
        "DIE offsets in expressions do not settle",
    ))
}

/// What a pass keeps once its DIEs are built: the DIE tree and the sections made beside it,
/// nothing that borrows the module.
pub(super) struct Filled {
    dwarf: Dwarf,
    units: Vec<UnitId>,
    dies: DieMap,
    used_refs: bool,
    offsets: Option<Offsets>,
    loclists: loclists::Lists,
    is_md5: bool,
    line_rows: Vec<Vec<u8>>,
    macro_section: Option<macros::MacroSection>,
    signed: Vec<(usize, u64, DieId)>,
}

pub(super) type Passes = Option<(Option<Offsets>, Offsets)>;

/// Expressions nothing written refers to (an IR text may hold one): DWARF writes an expression
/// where it is used, so they do not come back; one ledger line says how many.
fn unwritten_expressions(b: &mut Builder) {
    let used: FxHashSet<Handle<crate::ir::Expr>> = b
        .encoded
        .keys()
        .map(|k| k.expr)
        .chain(b.event_exprs.iter().copied())
        .collect();
    let n = b.m.exprs.iter().filter(|(h, _)| !used.contains(h)).count();
    if n > 0 {
        b.diags.push_written(
            LossKind::Dropped,
            "module",
            format!("{n} expression(s) nothing written refers to: DWARF writes an expression where it is used"),
        );
    }
}

/// A pass's DIEs, line rows and macros; `cfi` holds the losses of the frame sections, and
/// `cfi_only` says they are all the module holds.
fn fill(
    m: &Module,
    s: &Settings,
    diags: &mut Diagnostics,
    offsets: Option<Offsets>,
    cfi: &Diagnostics,
    cfi_only: bool,
) -> Result<Filled> {
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
        pending: Default::default(),
        loclists: Default::default(),
        run_ranges: scopes::run_ranges(m),
        event_exprs: records::event_exprs(m),
        runs_of: records::runs_of(m),
        signature_only: types::signature_only(m),
        concrete: HashMap::default(),
        split: FxHashSet::default(),
        out_of_line: HashMap::default(),
        instances: FxHashSet::default(),
        param_copies: HashMap::default(),
        type_units: Vec::new(),
        inlined_only: inlined::inlined_only(m),
        label_copies: None,
        index: Index::new(m),
        home: HandleMap::default(),
        template_owner: types::template_owners(m),
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
        // A DWARF 5 type unit with its signature is written as one (`type_units`).
        let signed = u.signature.zip(u.signed_type);
        b.type_units
            .push(signed.filter(|_| u.kind == crate::ir::UnitKind::TYPE && version == 5));
        let program = line::new_program(&mut b.dwarf, m, u, enc);
        if let Some(f) = u
            .file
            .filter(|f| version <= 4 && m.files.get(*f).name.is_empty())
        {
            b.loss(
                LossKind::Approximated,
                Ref::File(f),
                line::NAMELESS_IN_DWARF4,
            );
        }
        let uid = b.dwarf.units.add(gimli::write::Unit::new(enc, program));
        b.loclists.add_unit(version, s.address_size);
        b.units.push(uid);
        b.files.push(HashMap::default());
    }
    if b.units.is_empty() && !cfi_only {
        return Err(Error::unwritable(
            "DWARF",
            "the module has no compile unit to hold its debug info",
        ));
    }
    b.home = b.home_units();
    b.split = b.split_functions();
    b.instances = b.declared_instances();
    b.reserve_all();
    b.fill_all();
    b.free_fill_lookups();
    let signed: Vec<(usize, u64, DieId)> = (b.type_units.iter().enumerate())
        .filter_map(|(u, t)| {
            let (sig, ty) = (*t)?;
            Some((u, sig, *b.dies.get(&Ref::Type(ty))?))
        })
        .collect();
    let fail = |e: String| Error::unwritable("DWARF", e);
    let line::LineRows {
        is_md5,
        programs: line_rows,
    } = line::rows(&mut b).map_err(fail)?;
    let macro_section = macros::build(&mut b);
    b.diags.losses.extend_from_slice(&cfi.losses);
    unwritten_expressions(&mut b);
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
    b.flush();
    // The DIE map only serves expressions that took offsets from it (`die_offsets`).
    if !b.used_refs {
        drop(std::mem::take(&mut b.dies));
    }
    drop((std::mem::take(&mut b.encoded), std::mem::take(&mut b.files)));
    Ok(Filled {
        dwarf: b.dwarf,
        units: b.units,
        dies: b.dies,
        used_refs: b.used_refs,
        offsets: b.offsets,
        loclists: b.loclists,
        is_md5,
        line_rows,
        macro_section,
        signed,
    })
}

/// The sections of a pass's DIEs; with the DIE offsets of this pass and the last when
/// expressions took offsets from the last.
fn serialise(mut b: Filled) -> Result<(SectionList, Passes)> {
    let fail = |e: String| Error::unwritable("DWARF", e);
    let lists = std::mem::take(&mut b.loclists);
    lists.typed_to_gimli(&mut b.dwarf, &b.units);
    // Whether each unit has a base address other than 0 (gimli's test for DWARF 4 lists).
    let have_base: Vec<bool> = (0..b.units.len())
        .map(|u| {
            let unit = b.dwarf.units.get(b.units[u]);
            unit.get(unit.root())
                .get(dw::DW_AT_low_pc)
                .is_some_and(|a| *a != AttributeValue::Address(gimli::write::Address::Constant(0)))
        })
        .collect();
    let mut sections = Sections::new(loclists::Marking::new());
    // Room for .debug_info up front (clang's and dwarv's take 8–9 bytes a DIE; room no byte
    // reaches costs no memory).
    let dies: usize = (b.units.iter())
        .map(|&u| b.dwarf.units.get(u).count())
        .sum();
    sections.debug_info =
        gimli::write::DebugInfo(loclists::Marking::with_capacity(16 * dies + 4096));
    b.dwarf
        .write(&mut sections)
        .map_err(|e| Error::unwritable("DWARF", e.to_string()))?;
    // The sections' bytes are taken from gimli's writers, not copied.
    let mut line_sec = sections.debug_line.take();
    let mut info_sec = sections.debug_info.take();
    let (loc_sec, loclists_sec) = lists
        .finish(
            sections.debug_loc.slice(),
            sections.debug_loclists.slice(),
            &mut info_sec,
            &sections.debug_info.marks,
            &have_base,
        )
        .map_err(|e| Error::unwritable("DWARF", e))?;
    let abbrev_sec = sections.debug_abbrev.take();
    let units_stmt_lists = line::stmt_lists_of(&info_sec, &abbrev_sec, true).map_err(fail)?;
    let line_rows = std::mem::take(&mut b.line_rows);
    rows::splice(&mut line_sec, &mut info_sec, &units_stmt_lists, &line_rows).map_err(fail)?;
    drop(line_rows);
    if b.is_md5 {
        line::splice_is_md5(&mut line_sec, &mut info_sec, &abbrev_sec).map_err(fail)?;
    }
    let mut abbrev_sec = abbrev_sec;
    write_type_units(&b, &mut info_sec, &mut abbrev_sec, &b.signed)?;
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
        (".debug_str", sections.debug_str.take()),
        (".debug_line_str", sections.debug_line_str.take()),
        (".debug_loclists", loclists_sec),
        (".debug_rnglists", sections.debug_rnglists.take()),
        (".debug_loc", loc_sec),
        (".debug_ranges", sections.debug_ranges.take()),
    ];
    for (name, data) in named {
        if !data.is_empty() {
            out.push((name, data));
        }
    }
    if let Some(mac) = &mut b.macro_section {
        mac.patch_line_offsets(&line::stmt_lists(&out[0].1, &out[1].1).map_err(fail)?);
        out.push((".debug_macro", std::mem::take(&mut mac.bytes)));
    }
    crate::background::drop_later((b.dwarf, b.dies));
    Ok((out, passes))
}

impl Builder<'_, '_> {
    /// Frees the lookups only filling the DIEs needed, before the line rows, macros, frames and
    /// gimli's write, whose peaks come after.
    fn free_fill_lookups(&mut self) {
        use std::mem::take;
        drop((
            take(&mut self.index),
            take(&mut self.filled),
            take(&mut self.concrete),
            take(&mut self.run_ranges),
            take(&mut self.runs_of),
            take(&mut self.home),
            take(&mut self.template_owner),
            take(&mut self.inlined_only),
            take(&mut self.signature_only),
            take(&mut self.out_of_line),
            take(&mut self.param_copies),
        ));
    }
}

/// The offsets the written .debug_info gave every entity's DIE: gimli's DIE order is a
/// depth-first walk of each unit's tree, which gimli::read walks the same way.
pub(super) fn die_offsets(b: &Filled, info: &[u8], abbrev: &[u8]) -> Result<Offsets> {
    let per_unit = read_back(info, abbrev)?;
    let pos: Vec<HashMap<UnitEntryId, usize>> =
        (0..b.units.len()).map(|u| dfs_order(b, u)).collect();
    let mut out = Offsets::default();
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

/// Each unit's offset and its DIEs' offsets in depth-first order, as `info` holds them.
fn read_back(info: &[u8], abbrev: &[u8]) -> Result<Vec<(u64, Vec<u64>)>> {
    use gimli::read::{DebugAbbrev, DebugInfo};
    let fail = |e: gimli::read::Error| {
        Error::unwritable("DWARF", format!("reading back .debug_info: {e}"))
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
    Ok(per_unit)
}

/// The depth-first place of each DIE of unit `u` in gimli's tree (the order it writes them).
fn dfs_order(b: &Filled, u: usize) -> HashMap<UnitEntryId, usize> {
    let unit = b.dwarf.units.get(b.units[u]);
    let mut order = HashMap::default();
    let mut stack = vec![unit.root()];
    while let Some(id) = stack.pop() {
        order.insert(id, order.len());
        let kids: Vec<_> = unit.get(id).children().copied().collect();
        stack.extend(kids.into_iter().rev());
    }
    order
}

/// Makes the type units of `b` DWARF 5 type units in the written `info` and `abbrev`
/// (`type_units`), given the DIEs of the types their signatures name.
fn write_type_units(
    b: &Filled,
    info: &mut Vec<u8>,
    abbrev: &mut [u8],
    signed: &[(usize, u64, DieId)],
) -> Result<()> {
    if signed.is_empty() {
        return Ok(());
    }
    let per_unit = read_back(info, abbrev)?;
    let mut tus = Vec::new();
    for &(u, signature, (du, id)) in signed {
        if du != u {
            return Err(Error::unwritable(
                "DWARF",
                format!("type unit u{u}: the type its signature names is written in unit u{du}"),
            ));
        }
        let place = dfs_order(b, du).get(&id).copied();
        let type_die = place
            .and_then(|i| per_unit.get(du)?.1.get(i).copied())
            .ok_or_else(|| Error::unwritable("DWARF", "a type unit's type has no DIE"))?;
        tus.push(super::type_units::TypeUnit {
            index: u,
            signature,
            type_die,
        });
    }
    super::type_units::patch(info, abbrev, &tus).map_err(|e| Error::unwritable("DWARF", e))
}

impl Builder<'_, '_> {
    /// The unit an entity belongs to: its own, or its enclosing scope's; for a type without
    /// one, the unit of its first user; the first otherwise.
    pub(super) fn owner(&self, r: Ref) -> usize {
        self.scoped_owner(r)
            .or_else(|| match r {
                Ref::Type(t) => self.home.get(&t).copied(),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// Homes of the types [`Self::scoped_owner`] cannot place, found by walking the references of
    /// placed entities in arena order. Only needed with more than one unit.
    pub(super) fn home_units(&self) -> HandleMap<Type, usize> {
        let mut home = HandleMap::default();
        if self.units.len() < 2 {
            return home;
        }
        let opts = crate::ir::text::PrintOptions::default();
        // Expressions and location lists are walked too (once each): the base types of typed
        // operations are often named nowhere else, and a unit-relative operand needs its
        // type in the unit of the expression.
        let mut walked = RefSet::default();
        let mut walker = crate::ir::RefWalker::default();
        let mut stack = Vec::new();
        for r in self.die_refs() {
            let Some(u) = self.scoped_owner(r) else {
                continue;
            };
            stack.push(r);
            while let Some(e) = stack.pop() {
                for &t in walker.refs(self.m, e, opts) {
                    match t {
                        Ref::Type(h)
                            if !home.contains_key(&h) && self.scoped_owner(t).is_none() =>
                        {
                            home.insert(h, u);
                            stack.push(t);
                        }
                        Ref::Expr(_) | Ref::LocList(_) if walked.insert(t) => stack.push(t),
                        _ => {}
                    }
                }
            }
        }
        home
    }

    /// Whether the unit of scope `s`'s function was compiled by gcc (its producer says GNU).
    pub(super) fn by_gcc(&self, s: Handle<crate::ir::Scope>) -> bool {
        let m = self.m;
        super::builder::enclosing_function(m, s)
            .and_then(|f| m.scopes.get(f).function()?.unit)
            .and_then(|u| m.units.get(u).producer.as_deref())
            .is_some_and(|p| p.starts_with("GNU "))
    }

    /// The unit an entity's scope chain leads to, if any.
    pub(super) fn scoped_owner(&self, r: Ref) -> Option<usize> {
        let mut cur = Some(r);
        for _ in 0..256 {
            let Some(c) = cur else { break };
            cur = match c {
                Ref::Unit(u) => return Some(u.index()),
                Ref::Type(t) => self.type_parent(t),
                Ref::Scope(s) => {
                    let sc = &self.m.scopes.get(s);
                    // A function's unit is where its code is: a definition completing a
                    // declaration (written at that unit's top) may be of a class another
                    // unit defines (LTO links units that share the class's DIEs).
                    if let Some(u) = sc.function().and_then(|f| f.unit) {
                        if sc.parent.is_none() || scopes::declaration_of(self.m, s).is_some() {
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
    pub(super) fn die_refs(&self) -> Vec<Ref> {
        let m = self.m;
        let mut v: Vec<Ref> = Vec::new();
        v.extend(m.types.iter().map(|(h, _)| h).map(Ref::Type));
        // Block files have DIEs of their own only where the records say what they are.
        let own_block_files = records::exact(m);
        v.extend(
            m.scopes
                .iter()
                .filter(|(_, s)| own_block_files || !matches!(s.kind, ScopeKind::BlockFile { .. }))
                .map(|(h, _)| Ref::Scope(h)),
        );
        v.extend(m.inlined.iter().map(|(h, _)| h).map(Ref::Inlined));
        v.extend(m.vars.iter().map(|(h, _)| h).map(Ref::Var));
        v.extend(m.labels.iter().map(|(h, _)| h).map(Ref::Label));
        v.extend(m.imports.iter().map(|(h, _)| h).map(Ref::Import));
        v.extend(m.call_sites.iter().map(|(h, _)| h).map(Ref::CallSite));
        v
    }

    pub(super) fn reserve_all(&mut self) {
        for r in self.die_refs() {
            let u = self.owner(r);
            let id = self.unit_mut(u).reserve();
            self.dies.insert(r, (u, id));
        }
        // Elsewhere block files are their block in DWARF.
        if records::exact(self.m) {
            return;
        }
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
            Ref::Scope(s) if scopes::declaration_of(m, s).is_some() => None,
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

    pub(super) fn fill_all(&mut self) {
        // Units first, then entities; composites and functions pull their children in order.
        for u in 0..self.units.len() {
            self.fill_unit(u);
        }
        let refs = self.die_refs();
        // Types first; then each function's tree as compilers lay it out: a function or block,
        // its variables, then its blocks and inlined calls by address; then the rest.
        let scopes = refs
            .iter()
            .position(|r| !matches!(r, Ref::Type(_)))
            .unwrap_or(refs.len());
        for &r in &refs[..scopes] {
            // A shared template parameter is filled by its owner's list (`fill_template`), so
            // that it keeps its place among the copies of the others.
            if matches!(r, Ref::Type(t) if self.template_owner.get(&t).is_some_and(|o| o.shared)) {
                continue;
            }
            self.fill(r);
        }
        for r in self.code_order() {
            self.fill(r);
        }
        for r in refs {
            self.fill(r);
        }
    }

    /// Scopes other than blocks in arena order, each function followed by its code scopes depth
    /// first: a function or block, then its variables, then its lexical blocks and outermost inlined calls in the
    /// order of their lowest address (compilers order them by their first instruction; gdb
    /// orders the instances of an inlined function by where their DIEs come).
    pub(super) fn code_order(&self) -> Vec<Ref> {
        let m = self.m;
        let lowest = |r: &Ref| -> u64 {
            let ranges: &[crate::ir::CodeRange] = match *r {
                Ref::Scope(s) => match &m.scopes.get(s).kind {
                    ScopeKind::LexicalBlock { ranges } if !ranges.is_empty() => ranges,
                    _ => self.run_ranges.get(&s).map_or(&[], |v| v.as_slice()),
                },
                Ref::Inlined(i) => {
                    let runs = self.index.runs_within.get(&i).unwrap_or_default();
                    return runs
                        .iter()
                        .map(|&k| super::builder::addr(m.scope_runs[k].range.start))
                        .min()
                        .unwrap_or(u64::MAX);
                }
                _ => &[],
            };
            ranges
                .iter()
                .map(|r| super::builder::addr(r.start))
                .min()
                .unwrap_or(u64::MAX)
        };
        let mut out = Vec::new();
        let mut stack: Vec<Ref> = Vec::new();
        // Every scope but blocks is a root, in arena order (namespaces keep their place).
        let roots: Vec<Ref> = m
            .scopes
            .iter()
            .filter(|(_, sc)| {
                !matches!(
                    sc.kind,
                    ScopeKind::LexicalBlock { .. } | ScopeKind::BlockFile { .. }
                )
            })
            .map(|(h, _)| Ref::Scope(h))
            .collect();
        stack.extend(roots.into_iter().rev());
        while let Some(r) = stack.pop() {
            out.push(r);
            let Ref::Scope(s) = r else { continue };
            match m.scopes.get(s).kind {
                ScopeKind::Function(_) | ScopeKind::LexicalBlock { .. } => {}
                ScopeKind::BlockFile { .. } if records::exact(m) => {}
                _ => continue,
            }
            if let Some(vs) = self.index.vars_in.get(&s) {
                out.extend(vs.iter().map(|&v| Ref::Var(v)));
            }
            // Then its labels, as compilers list them (copies go with their code, and those in
            // inlined code are filled with it).
            if let Some(ls) = self.index.labels_in.get(&s) {
                out.extend(
                    ls.iter()
                        .map(|&l| Ref::Label(l))
                        .filter(|&l| self.inlined_at(l).is_none()),
                );
            }
            if let Some(kids) = self.index.nested.get(&s) {
                let mut kids = kids.to_vec();
                kids.sort_by_key(&lowest);
                stack.extend(kids.into_iter().rev());
            }
        }
        out
    }

    pub(super) fn fill_unit(&mut self, ui: usize) {
        let m = self.m;
        let h = Handle::new(ui as u32);
        let u = &m.units.get(h);
        let root = self.dwarf.units.get(self.units[ui]).root();
        let d = (ui, root);
        // DW_AT_stmt_list first: its place in the root DIE is fixed (see line::splice_is_md5).
        self.set(d, dw::DW_AT_stmt_list, AttributeValue::LineProgramRef);
        let tag = match u.kind.0 {
            0x03 => dw::DW_TAG_partial_unit,
            0x02 | 0x06 => dw::DW_TAG_type_unit,
            0x04 => dw::DW_TAG_skeleton_unit,
            _ => dw::DW_TAG_compile_unit,
        };
        let type_unit = self.type_units[ui].is_some();
        if tag != dw::DW_TAG_compile_unit && !type_unit {
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
        if u.flags.has(Flags::OPTIMIZED) {
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
        self.set_str(d, vendor::DW_AT_APPLE_SDK, u.sdk.as_deref());
        if self.s.amd {
            if let Some(a) = &u.augmentation {
                self.set_str(d, vendor::DW_AT_LLVM_AUGMENTATION, Some(a));
            }
        } else if u.augmentation.is_some() {
            self.avoidable_loss(
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
        } else if !type_unit {
            // (A type unit's root has none: no compile unit's root shares its abbreviation.)
            self.set(
                d,
                dw::DW_AT_low_pc,
                AttributeValue::Address(gimli::write::Address::Constant(0)),
            );
        }
        self.set_extra(d, Ref::Unit(h), &u.extra);
        records::unit_fields(self, d, u);
        records::unit_attrs(self, d, ui);
        // Retained types are children of the unit already; nothing more to say.
    }

    /// Adds the reserved DIE of `r` under its parent and sets its attributes (once).
    pub(super) fn fill(&mut self, r: Ref) {
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
            if matches!(self.m.scopes.get(s).kind, ScopeKind::BlockFile { .. })
                && !records::exact(self.m)
            {
                return;
            }
        }
        // An inlined call's DIE is filled before what goes inside it: the blocks that exist
        // only as its code (they come after its own variables) and the calls inlined into it
        // (they may go into its block copies).
        let instance = match r {
            Ref::Scope(s) => self.inlined_only.get(&s).copied(),
            Ref::Inlined(i) => self.m.inlined.get(i).parent,
            _ => None,
        };
        if let Some(i) = instance {
            self.fill(Ref::Inlined(i));
        }
        // Code of a split function goes under its concrete DIE.
        let code_scope = match r {
            Ref::Inlined(i) if self.m.inlined.get(i).parent.is_none() => {
                self.m.inlined.get(i).scope
            }
            Ref::CallSite(c) => self.m.call_sites.get(c).scope,
            // A label's copy goes with the code (clang: the abstract label has no address, each
            // instance a copy); a label that is no copy stays in its scope's own DIE (gcc gives
            // the abstract label the out-of-line instance's address and that instance no copy).
            Ref::Label(l) => {
                let lb = self.m.labels.get(l);
                lb.scope.filter(|_| lb.origin.is_some())
            }
            // A function's static variables go with its code too, as clang writes them; gcc
            // leaves them in the abstract DIE (gdb then lists them in every inlined instance).
            Ref::Var(v) if self.m.vars.get(v).kind == VarKind::Global => {
                match self.m.vars.get(v).scope {
                    Some(Ref::Scope(s)) if !self.by_gcc(s) => Some(s),
                    _ => None,
                }
            }
            _ => None,
        };
        let parent = match self.inlined_home(r, d.0) {
            Some(id) => id,
            None => match code_scope.and_then(|s| self.code_parent(s)) {
                // gcc leaves a call site in a block without code in the abstract block.
                Some(_) if matches!(r, Ref::CallSite(_)) && self.codeless_block(code_scope) => {
                    self.parent_die(r, d.0)
                }
                Some(id) => id,
                None => match self.instance_of(r) {
                    Some(id) => id,
                    None => self.parent_die(r, d.0),
                },
            },
        };
        let tag = self.tag(r);
        self.unit_mut(d.0).add_reserved(d.1, parent, tag);
        match r {
            Ref::Type(t) => self.fill_type(d, t),
            Ref::Scope(s) => self.fill_scope(d, s),
            Ref::Var(v) => {
                let code = self.var_code_die(d, v);
                self.fill_var(d, code, v);
                records::events(self, code, v);
            }
            Ref::Inlined(i) => {
                self.fill_inlined(d, i);
                records::inlined_die(self, d, i);
            }
            Ref::Label(l) => self.fill_label(d, l),
            Ref::Import(i) => self.fill_import(d, i),
            Ref::CallSite(c) => self.fill_call_site(d, c),
            _ => {}
        }
        records::retained(self, d, r);
        records::not_element(self, d, r);
        match r {
            Ref::Scope(_) => {
                records::runs(self, d, r);
                records::no_scope(self, d, r);
            }
            Ref::Type(_) | Ref::Var(_) => records::no_scope(self, d, r),
            _ => {}
        }
    }

    pub(super) fn tag(&self, r: Ref) -> DwTag {
        let m = self.m;
        match r {
            Ref::Type(t) => types::type_tag(m.types.get(t), self.amd_vectors(), m),
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
}
