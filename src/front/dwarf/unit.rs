//! Units and their DIE trees → entities. This module drives the walk of each unit: pass 1
//! plans what every DIE becomes, pass 2 fills each entity through the concern modules (`types`,
//! `scopes`, `vars`), then the unit's line program and macros are read.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gimli::constants as dw;
use gimli::AttributeValue as AttrValue;

use super::elf::Elf;
use super::expr::ranges_of;
use super::line::read_lines;
use super::macros::read_macros;
use super::walker::{
    fail, function_mut, name_bit, own_flags, raw_attr, ref_offset, take_str, take_u, At, DErr,
    DResult, DieAttrs, Encodings, Files, Filled, Frame, MacroAt, Plan, Slice, UnitState, Units,
    Walker, MAX_ALIAS_HOPS, MAX_DEPTH,
};
use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::{amd_ops_for, AmdOps, Encoding};
use crate::ir::{
    CallSite, CodeRange, Flags, Handle, Import, ImportKind, InlinedAt, Label, Language, Loc,
    Module, Ref, Scope, ScopeKind, Type, TypeKind, Unit, UnitKind, VarKind, Variable,
};
use crate::spec::dwarf_vendor as vendor;

/// What reading the units gives besides the module: each unit's encoding, and the inlined
/// subroutines dwarv's records number.
pub struct ReadUnits {
    pub encodings: Encodings,
    pub numbered_inlined: Vec<(u64, Handle<InlinedAt>)>,
    /// Signature parameters whose type must carry flags (`flagged_types`, once dwarv's own
    /// attributes have given every type its flags).
    pub flagged: Vec<(Handle<Type>, usize, Handle<Type>, u64)>,
}

pub fn read_units(elf: &Elf, m: &mut Module, diag: &mut Diagnostics) -> DResult<ReadUnits> {
    let sections =
        gimli::DwarfSections::load(|id| -> Result<&[u8], DErr> { Ok(elf.section(id.name())) })?;
    let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
    let u = Units {
        dwarf,
        loc: elf.section(".debug_loc"),
        loclists: elf.section(".debug_loclists"),
    };
    // A DIE takes 8 or more bytes of .debug_info: the DIE map and plans sized for that once,
    // rather than grown and rehashed; at most for a million DIEs (a section of a few huge DIEs
    // reserves no more than that, and a program of more grows from there).
    let dies = (elf.section(".debug_info").len() / 8).min(1 << 20);
    let mut w = Walker {
        machine: elf.machine,
        m,
        diag,
        map: HashMap::with_capacity_and_hasher(dies, Default::default()),
        plans: Vec::with_capacity(dies),
        files: Files::default(),
        programs: HashMap::default(),
        sigs: HashMap::default(),
        encodings: Vec::new(),
        skipped_ranges: Default::default(),
        object_pointers: Vec::new(),
        pending: Default::default(),
        numbered_inlined: Vec::new(),
        template_copies: Vec::new(),
        own_params: HashMap::default(),
        type_specs: Vec::new(),
        instanced: HashSet::default(),
        clones: HashMap::default(),
        specified: HashSet::default(),
        object_pointer_parts: HashSet::default(),
        flagged: Vec::new(),
        planned_vars: 0,
        loc_entries: Vec::new(),
    };
    let mut units = Vec::new();
    let mut headers = u.dwarf.units();
    loop {
        let header = match headers.next() {
            Ok(Some(h)) => h,
            Ok(None) => break,
            Err(e) => return Err(fail(".debug_info", last_offset(&units), e.to_string())),
        };
        let off = header.offset().0 as u64;
        let unit = u.dwarf.unit(header).map_err(|e| {
            fail(
                ".debug_info",
                off,
                format!("unit header or abbreviations: {e}"),
            )
        })?;
        units.push((off, unit));
    }
    for (off, unit) in &units {
        if let gimli::UnitType::Type {
            type_signature,
            type_offset,
        } = unit.header.type_()
        {
            w.sigs.insert(type_signature.0, off + type_offset.0 as u64);
        }
        w.plan(*off, unit)?;
    }
    w.m.vars.reserve(w.planned_vars);
    for _ in 0..std::mem::take(&mut w.planned_vars) {
        w.m.vars.push(Variable::new(VarKind::Local));
    }
    if !elf.section(".debug_types").is_empty() {
        w.diag.push(
            LossKind::Dropped,
            ".debug_types",
            "DWARF 4 type units (.debug_types) are not read; references to them stay raw DW_AT_signature attributes",
        );
    }
    w.resolve_blocks();
    w.resolve_aliases()?;
    // Filling the DIEs frees and allocates again all along (grown vectors, each DIE's
    // scratch): its freed pages are kept for it and returned once it ends, but for the line
    // rows' (`fill_unit`): fewer page faults for a little more peak memory.
    let kept = crate::background::keep_freed_pages();
    for (off, unit) in &units {
        w.fill(&u, *off, unit)?;
    }
    drop(kept);
    w.skipped_ranges.report(w.diag);
    for &(off, t) in &w.template_copies {
        if !matches!(w.m.types.get(t).kind, TypeKind::TemplateParam { .. }) {
            return Err(fail(
                ".debug_info",
                off,
                "DW_AT_dwarv_same_as of a template parameter names no template parameter",
            ));
        }
    }
    scope_from_declarations(w.m, &w.type_specs);
    for v in std::mem::take(&mut w.object_pointers) {
        let var = w.m.vars.get_mut(v);
        var.flags = var.flags.with(Flags::OBJECT_POINTER);
    }
    complete_from_declarations(w.m);
    complete_clones(w.m, &w.clones, &w.map);
    Ok(ReadUnits {
        encodings: w.encodings,
        numbered_inlined: w.numbered_inlined,
        flagged: w.flagged,
    })
}

/// Signature parameters whose DIE says artificial or object pointer, which LLVM and SPIR-V
/// state as flags of the parameter's type: a type without them is replaced by a variant with
/// them, one per type and flags (clang writes one artificial object pointer type per class).
pub(super) fn flagged_types(
    m: &mut crate::ir::Module,
    flagged: &[(Handle<Type>, usize, Handle<Type>, u64)],
) {
    let mut variants: HashMap<(Handle<Type>, u64), Handle<Type>> = HashMap::default();
    for &(sig, i, t, bits) in flagged {
        let ty = m.types.get(t);
        if ty.flags.bits & bits == bits {
            continue;
        }
        let v = match variants.get(&(t, bits)) {
            Some(&v) => v,
            None => {
                let mut variant = ty.clone();
                variant.flags.bits |= bits;
                let v = m.types.push(variant);
                variants.insert((t, bits), v);
                v
            }
        };
        if let TypeKind::Function { params, .. } = &mut m.types.get_mut(sig).kind {
            if let Some(slot) = params.get_mut(i) {
                *slot = Some(v);
            }
        }
    }
}

/// A further concrete instance of an abstract subprogram (and the variables and blocks of its
/// subtree) states only what differs from its origin: it takes the origin's name, scope,
/// signature, declaration, position and flags where it has none, as a function of its own
/// (LLVM and SPIR-V give each clone a function of its own too).
fn complete_clones(m: &mut crate::ir::Module, clones: &HashMap<u64, u64>, map: &HashMap<u64, Ref>) {
    let mut pairs: Vec<(Ref, Ref)> = clones
        .iter()
        .filter_map(|(c, o)| Some((*map.get(c)?, *map.get(o)?)))
        .collect();
    pairs.sort_unstable();
    let mut own_sigs = Vec::new();
    for (c, o) in pairs {
        match (c, o) {
            (Ref::Scope(c), Ref::Scope(o)) if c != o => {
                let origin = m.scopes.get(o).clone();
                let s = m.scopes.get_mut(c);
                s.name = s.name.take().or(origin.name.clone());
                if matches!(s.parent, None | Some(Ref::Unit(_))) && origin.parent.is_some() {
                    s.parent = origin.parent;
                }
                s.at = s.at.or(origin.at);
                s.flags.bits |= origin.flags.bits;
                let mut own_sig = None;
                if let (Some(f), Some(of)) = (function_mut(&mut s.kind), origin.function()) {
                    f.linkage = f.linkage.take().or(of.linkage.clone());
                    own_sig = f.ty.zip(of.ty);
                    f.ty = f.ty.or(of.ty);
                    f.declaration = f.declaration.or(of.declaration);
                    f.containing_type = f.containing_type.or(of.containing_type);
                    f.virtuality = f.virtuality.or(of.virtuality);
                    f.virtual_index = f.virtual_index.or(of.virtual_index);
                    if f.templates.is_empty() {
                        f.templates = of.templates.clone();
                    }
                    f.calling_convention = f.calling_convention.or(of.calling_convention);
                }
                // A signature of its own returns what the origin's does.
                if let Some((own, of)) = own_sig.filter(|(a, b)| a != b) {
                    let of_ret = match m.types.get(of).kind {
                        TypeKind::Function { ret, .. } => ret,
                        _ => None,
                    };
                    if let TypeKind::Function { ret, .. } = &mut m.types.get_mut(own).kind {
                        *ret = ret.or(of_ret);
                    }
                    own_sigs.push((c, own));
                }
            }
            (Ref::Var(c), Ref::Var(o)) if c != o => {
                let origin = m.vars.get(o).clone();
                let v = m.vars.get_mut(c);
                v.name = v.name.take().or(origin.name);
                v.ty = v.ty.or(origin.ty);
                v.at = v.at.or(origin.at);
                v.flags.bits |= origin.flags.bits;
                v.align_bits = v.align_bits.or(origin.align_bits);
            }
            _ => {}
        }
    }
    // A signature of its own lists its parameters' types (the origin's, read just now).
    let own_sigs: HashMap<Handle<Scope>, Handle<Type>> = own_sigs.into_iter().collect();
    let mut params: Vec<(Handle<Type>, u32, Option<Handle<Type>>)> = Vec::new();
    for v in m.vars.values() {
        if let (VarKind::Param(n), Some(Ref::Scope(s))) = (&v.kind, v.scope) {
            if let Some(&sig) = own_sigs.get(&s) {
                params.push((sig, *n, v.ty));
            }
        }
    }
    params.sort_by_key(|p| (p.0, p.1));
    for (sig, n, ty) in params {
        if let TypeKind::Function { params: list, .. } = &mut m.types.get_mut(sig).kind {
            if let Some(slot) = (n as usize).checked_sub(1).and_then(|i| list.get_mut(i)) {
                *slot = slot.or(ty);
            }
        }
    }
}

/// A type definition that completes a declaration at unit level (gcc writes a type unit's type
/// so: the declaration inside stand-ins of its namespaces, the definition at the top with
/// DW_AT_specification) is in the declaration's scope, as LLVM and SPIR-V state it; the writer
/// puts it there. One inside a scope of its own keeps it.
fn scope_from_declarations(m: &mut crate::ir::Module, specs: &[(Handle<Type>, Handle<Type>)]) {
    for &(def, decl) in specs {
        let scope = m.types.get(decl).scope;
        let t = m.types.get_mut(def);
        if matches!(t.scope, None | Some(Ref::Unit(_))) {
            t.scope = scope.or(t.scope);
        }
    }
}

/// An out-of-line definition (DW_AT_specification) states only what differs from its
/// declaration: it takes the declaration's name, scope, linkage name, signature, position and
/// flags where it has none, so that it reads as LLVM and SPIR-V state it. The writer leaves out
/// again what equals the declaration's.
pub(super) fn complete_from_declarations(m: &mut crate::ir::Module) {
    // A static data member's definition: its name, type and linkage from the member.
    let external = Flags::EXTERNAL.bits;
    for i in 0..m.vars.len() {
        let h = Handle::<Variable>::new(i as u32);
        let (name, flags, ty) = match m.vars.get(h).declaration {
            Some(Ref::Type(t)) => {
                let d = m.types.get(t);
                let ty = match d.kind {
                    TypeKind::Member { base, .. } => base,
                    _ => None,
                };
                (d.name.clone(), d.flags, ty)
            }
            Some(Ref::Var(x)) if x != h => {
                let d = m.vars.get(x);
                (d.name.clone(), d.flags, d.ty)
            }
            _ => continue,
        };
        let v = m.vars.get_mut(h);
        v.name = v.name.take().or(name);
        v.ty = v.ty.or(ty);
        v.flags.bits |= flags.bits & external;
    }
    for i in 0..m.scopes.len() {
        let h = Handle::<Scope>::new(i as u32);
        let Some(decl) = m.scopes.get(h).function().and_then(|f| f.declaration) else {
            continue;
        };
        if decl == h {
            continue;
        }
        let mut d = m.scopes.get(decl).clone();
        // The declaration's flags with those dwarv's attributes add (read into the
        // declaration itself later, by `scopes::own_attributes`).
        own_flags(&mut d.extra, &mut d.flags);
        let Some(df) = d.function() else { continue };
        let s = m.scopes.get_mut(h);
        s.name = s.name.take().or(d.name.clone());
        let unit_scope = s.extra.len();
        s.extra
            .retain(|a| a.attr != vendor::DW_AT_DWARV_UNIT_SCOPE.0);
        let unit_scope = unit_scope != s.extra.len();
        if matches!(s.parent, None | Some(Ref::Unit(_))) && d.parent.is_some() && !unit_scope {
            s.parent = d.parent;
        }
        s.at = match (s.at, d.at) {
            (Some(own), Some(dl)) => Some(Loc {
                file: own.file.or(dl.file),
                line: if own.line != 0 { own.line } else { dl.line },
                column: if own.column != 0 {
                    own.column
                } else {
                    dl.column
                },
            }),
            (own, dl) => own.or(dl),
        };
        // DW_AT_declaration is the declaration's own, and dwarv names what else is.
        let decl_only = Flags::FWD_DECL.bits;
        let not_inherited = take_u(&mut s.extra, vendor::DW_AT_DWARV_NOT_INHERITED).unwrap_or(0);
        s.flags.bits |= d.flags.bits & !decl_only & !not_inherited;
        s.flags.foreign |= d.flags.foreign;
        if let Some(f) = function_mut(&mut s.kind) {
            f.linkage = f.linkage.take().or(df.linkage.clone());
            f.ty = f.ty.or(df.ty);
        }
    }
}

/// An open DIE of pass 1, with what its subtree is inside.
#[derive(Clone, Copy)]
struct PlanFrame {
    depth: isize,
    tag: dw::DwTag,
    /// Inside an inlined subroutine.
    in_inlined: bool,
    /// A function declaration.
    is_decl: bool,
    /// Inside a concrete out-of-line instance.
    in_concrete: bool,
    off: u64,
    /// The index of its pending block (`Plan::Pending`).
    pending: Option<usize>,
    /// Inside a further concrete instance (a clone, `Walker::clones`).
    in_clone: bool,
}

/// Template parameter DIEs, which have no children.
const PARAMETERS_WITHOUT_CHILDREN: [dw::DwTag; 3] = [
    dw::DW_TAG_template_type_parameter,
    dw::DW_TAG_template_value_parameter,
    dw::DW_TAG_GNU_template_template_param,
];

/// Template parameter DIEs; dwarv marks a copy of a shared one DW_AT_dwarv_same_as.
const TEMPLATE_PARAMS: [dw::DwTag; 5] = [
    dw::DW_TAG_template_type_parameter,
    dw::DW_TAG_template_value_parameter,
    dw::DW_TAG_GNU_template_template_param,
    dw::DW_TAG_GNU_template_parameter_pack,
    vendor::DW_TAG_DWARV_UNTYPED_VALUE_PARAM,
];

/// A DIE may carry each attribute once (DWARF 5 §2.2; `llvm-dwarfdump --verify` calls a repeat an
/// error): with two, which one a reader takes is arbitrary, and no writer can keep both.
/// Gives the DIE's attribute name bits (`DieAttrs::names`): a name whose bit is not set yet is no
/// repeat.
fn refuse_repeated_attribute(attrs: &[gimli::Attribute<Slice<'_>>], off: u64) -> DResult<u64> {
    let mut names = 0;
    for (i, a) in attrs.iter().enumerate() {
        let bit = name_bit(a.name());
        let seen = names & bit != 0;
        names |= bit;
        if seen && attrs[..i].iter().any(|b| b.name() == a.name()) {
            return Err(fail(
                ".debug_info",
                off,
                format!(
                    "the DIE has {} twice (its abbreviation repeats it)",
                    a.name()
                ),
            ));
        }
    }
    Ok(names)
}

pub(super) fn last_offset(units: &[(u64, gimli::Unit<Slice<'_>>)]) -> u64 {
    units.last().map_or(0, |(o, _)| *o)
}

impl Walker<'_> {
    /// A handle for a variable the plan makes (a local for now, filled later); the arena gets
    /// it once every unit is planned (`planned_vars`).
    fn planned_var(&mut self) -> Handle<Variable> {
        let index = self.m.vars.len() + self.planned_vars;
        self.planned_vars += 1;
        Handle::new(u32::try_from(index).expect("arena holds at most u32::MAX entities"))
    }

    // Inlined into `read_units`, its one caller: out of line, the walk of each DIE cost more.
    #[inline(always)]
    pub(super) fn plan(&mut self, uoff: u64, unit: &gimli::Unit<Slice<'_>>) -> DResult<()> {
        let mut cursor = unit.entries();
        let mut stack: Vec<PlanFrame> = Vec::new();
        loop {
            let entry = match cursor.next_dfs() {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => {
                    let at = cursor.offset().to_debug_info_offset(&unit.header);
                    return Err(fail(
                        ".debug_info",
                        at.map_or(uoff, |o| o.0 as u64),
                        e.to_string(),
                    ));
                }
            };
            let depth = entry.depth();
            let off = entry
                .offset()
                .to_debug_info_offset(&unit.header)
                .map_or(uoff, |o| o.0 as u64);
            if depth > MAX_DEPTH {
                return Err(fail(".debug_info", off, "DIE tree deeper than 4096"));
            }
            while stack.last().is_some_and(|f| f.depth >= depth) {
                stack.pop();
            }
            let parent_tag = stack.last().map(|f| f.tag);
            let in_inlined = stack.last().is_some_and(|f| f.in_inlined)
                || entry.tag() == dw::DW_TAG_inlined_subroutine;
            // The first DW_AT_abstract_origin and DW_AT_dwarv_same_as, in one pass.
            let (mut origin_value, mut same_as_value) = (None, None);
            for a in entry.attrs() {
                match a.name() {
                    dw::DW_AT_abstract_origin if origin_value.is_none() => {
                        origin_value = Some(a.value())
                    }
                    vendor::DW_AT_DWARV_SAME_AS if same_as_value.is_none() => {
                        same_as_value = Some(a.value())
                    }
                    _ => {}
                }
            }
            let origin = origin_value.and_then(|v| ref_offset(unit, &v));
            let tag = entry.tag();
            let same_as = same_as_value.and_then(|v| ref_offset(unit, &v));
            let in_concrete = stack.last().is_some_and(|f| f.in_concrete)
                || (tag == dw::DW_TAG_subprogram && origin.is_some());
            let parent_off = stack.last().map_or(uoff, |f| f.off);
            // A further concrete instance of an abstract subprogram, and what its subtree
            // instantiates, are entities of their own: one entity cannot hold two instances'
            // code, locations and linkage names.
            let clone = match (tag, origin) {
                (_, None) => false,
                (dw::DW_TAG_subprogram, Some(o)) if !in_inlined => !self.instanced.insert(o),
                (
                    dw::DW_TAG_lexical_block | dw::DW_TAG_variable | dw::DW_TAG_formal_parameter,
                    Some(_),
                ) => !in_inlined && stack.last().is_some_and(|f| f.in_clone),
                _ => false,
            };
            let in_clone = clone || (stack.last().is_some_and(|f| f.in_clone) && !in_inlined);
            let mut pending = None;
            match tag {
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter | dw::DW_TAG_lexical_block
                    if !in_concrete && !in_inlined =>
                {
                    self.pending.abstract_parent.insert(off, parent_off);
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter => {
                    if let (Some(o), Some(k)) = (origin, stack.last().and_then(|f| f.pending)) {
                        self.pending.blocks[k].2.push(o);
                    }
                }
                _ => {}
            }
            let plan = match tag {
                dw::DW_TAG_lexical_block if in_concrete && !in_inlined && origin.is_none() => {
                    pending = Some(self.pending.blocks.len());
                    self.pending
                        .blocks
                        .push((self.plans.len(), parent_off, Vec::new()));
                    Plan::Pending
                }
                dw::DW_TAG_compile_unit
                | dw::DW_TAG_partial_unit
                | dw::DW_TAG_type_unit
                | dw::DW_TAG_skeleton_unit => {
                    Plan::Own(Ref::Unit(self.m.units.push(Unit::default())))
                }
                dw::DW_TAG_subrange_type | dw::DW_TAG_generic_subrange
                    if parent_tag == Some(dw::DW_TAG_array_type) =>
                {
                    Plan::Part
                }
                dw::DW_TAG_enumerator
                | dw::DW_TAG_call_site_parameter
                | dw::DW_TAG_GNU_call_site_parameter
                | dw::DW_TAG_unspecified_parameters => Plan::Part,
                // Parameters of a subroutine type or a function declaration are its
                // signature, not variables.
                dw::DW_TAG_formal_parameter
                    if parent_tag == Some(dw::DW_TAG_subroutine_type)
                        || stack.last().is_some_and(|f| f.is_decl) =>
                {
                    Plan::Part
                }
                dw::DW_TAG_inlined_subroutine => {
                    Plan::Own(Ref::Inlined(self.m.inlined.push(InlinedAt {
                        at: Loc::default(),
                        scope: None,
                        parent: None,
                        origin: None,
                        entry_pc: None,
                    })))
                }
                dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block if clone => {
                    self.clones.insert(off, origin.unwrap_or(0));
                    let kind = match tag {
                        dw::DW_TAG_subprogram => ScopeKind::Function(Box::default()),
                        _ => ScopeKind::LexicalBlock { ranges: Vec::new() },
                    };
                    Plan::Own(Ref::Scope(self.m.scopes.push(Scope::new(kind))))
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter if clone => {
                    self.clones.insert(off, origin.unwrap_or(0));
                    Plan::Own(Ref::Var(self.planned_var()))
                }
                dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block if origin.is_some() => {
                    Plan::Alias(origin.unwrap_or(0))
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter
                    if origin.is_some() && !in_inlined =>
                {
                    Plan::Alias(origin.unwrap_or(0))
                }
                // dwarv's copy of a template parameter several templates share.
                _ if TEMPLATE_PARAMS.contains(&tag) && same_as.is_some() => {
                    Plan::Alias(same_as.unwrap_or(0))
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter => {
                    Plan::Own(Ref::Var(self.planned_var()))
                }
                dw::DW_TAG_subprogram
                | dw::DW_TAG_lexical_block
                | dw::DW_TAG_namespace
                | dw::DW_TAG_module
                | dw::DW_TAG_common_block => Plan::Own(Ref::Scope(
                    self.m
                        .scopes
                        .push(Scope::new(ScopeKind::BlockFile { discriminator: 0 })),
                )),
                dw::DW_TAG_label => Plan::Own(Ref::Label(self.m.labels.push(Label {
                    name: String::new(),
                    scope: None,
                    at: None,
                    pos: None,
                    origin: None,
                }))),
                dw::DW_TAG_call_site | dw::DW_TAG_GNU_call_site => {
                    Plan::Own(Ref::CallSite(self.m.call_sites.push(CallSite {
                        scope: None,
                        pos: None,
                        is_return_pc: false,
                        target: None,
                        target_location: None,
                        tail: false,
                        at: None,
                        params: Vec::new(),
                        extra: Vec::new(),
                    })))
                }
                dw::DW_TAG_imported_declaration
                | dw::DW_TAG_imported_module
                | dw::DW_TAG_imported_unit => Plan::Own(Ref::Import(self.m.imports.push(Import {
                    kind: ImportKind(tag.0),
                    name: None,
                    scope: None,
                    entity: None,
                    at: None,
                    elements: Vec::new(),
                }))),
                _ => Plan::Own(Ref::Type(
                    self.m.types.push(Type::new(TypeKind::Unspecified)),
                )),
            };
            if let Plan::Own(r) = plan {
                self.map.insert(off, r);
                // A parameter of the subprogram, or of a parameter pack of it (gcc's
                // DW_TAG_GNU_formal_parameter_pack).
                let function = match (parent_tag, stack.len().checked_sub(2).map(|i| stack[i])) {
                    (Some(dw::DW_TAG_subprogram), _) => Some(parent_off),
                    (Some(dw::DW_TAG_GNU_formal_parameter_pack), Some(g))
                        if g.tag == dw::DW_TAG_subprogram =>
                    {
                        Some(g.off)
                    }
                    _ => None,
                };
                if let (Ref::Var(_), dw::DW_TAG_formal_parameter, Some(f)) = (r, tag, function) {
                    *self.own_params.entry(f).or_default() += 1;
                }
            }
            self.plans.push((off, plan));
            if tag == dw::DW_TAG_subprogram && entry.attr_value(dw::DW_AT_specification).is_some() {
                self.specified.insert(off);
            }
            let is_decl = tag == dw::DW_TAG_subprogram
                && matches!(
                    entry.attr_value(dw::DW_AT_declaration),
                    Some(AttrValue::Flag(true))
                );
            stack.push(PlanFrame {
                depth,
                tag,
                in_inlined,
                is_decl,
                in_concrete,
                off,
                pending,
                in_clone,
            });
        }
        Ok(())
    }

    /// Decides each `Plan::Pending` block (outer blocks first): the concrete instance of the
    /// abstract block B when all its variables' origins are B's and its parent is (an instance
    /// of) B's parent; else a block of its own.
    pub(super) fn resolve_blocks(&mut self) {
        let blocks = std::mem::take(&mut self.pending.blocks);
        let parents = std::mem::take(&mut self.pending.abstract_parent);
        // Offset of a DIE, or of the abstract DIE it is an instance of (one hop suffices here:
        // a concrete subprogram names its origin, an outer pending block was resolved first).
        let instance_of = |plans: &[(u64, Plan)], off: u64| -> u64 {
            match plans
                .binary_search_by_key(&off, |p| p.0)
                .map(|j| plans[j].1)
            {
                Ok(Plan::Alias(o)) => o,
                _ => off,
            }
        };
        for (k, parent, origins) in blocks {
            let block = origins.first().and_then(|o| parents.get(o)).copied();
            let matched = block.filter(|b| {
                origins.iter().all(|o| parents.get(o) == Some(b))
                    && parents.get(b).copied() == Some(instance_of(&self.plans, parent))
            });
            self.plans[k].1 = match matched {
                Some(b) => Plan::Alias(b),
                None => {
                    let r = Ref::Scope(
                        self.m
                            .scopes
                            .push(Scope::new(ScopeKind::BlockFile { discriminator: 0 })),
                    );
                    self.map.insert(self.plans[k].0, r);
                    Plan::Own(r)
                }
            };
        }
    }

    /// Gives each alias DIE its origin's entity.
    pub(super) fn resolve_aliases(&mut self) -> DResult<()> {
        for i in 0..self.plans.len() {
            let (off, plan) = self.plans[i];
            let Plan::Alias(mut origin) = plan else {
                continue;
            };
            let mut hops = 0;
            let target = loop {
                if let Some(r) = self.map.get(&origin) {
                    break *r;
                }
                let next = self
                    .plans
                    .binary_search_by_key(&origin, |p| p.0)
                    .ok()
                    .and_then(|j| match self.plans[j].1 {
                        Plan::Alias(o) => Some(o),
                        _ => None,
                    });
                hops += 1;
                match next {
                    Some(o) if hops < MAX_ALIAS_HOPS => origin = o,
                    _ => {
                        return Err(fail(
                            ".debug_info",
                            off,
                            format!(
                                "DW_AT_abstract_origin (or DW_AT_dwarv_same_as) {origin:#x} is \
                                 no DIE dwarv can use"
                            ),
                        ))
                    }
                }
            };
            self.map.insert(off, target);
        }
        Ok(())
    }

    // Inlined into `read_units`, its one caller (as `plan`).
    #[inline(always)]
    pub(super) fn fill(
        &mut self,
        u: &Units<'_>,
        uoff: u64,
        unit: &gimli::Unit<Slice<'_>>,
    ) -> DResult<()> {
        let mut cursor = unit.entries();
        let mut stack: Vec<Frame> = Vec::new();
        let mut cur = UnitState {
            unit: Handle::new(0),
            base: uoff,
            version: unit.header.version(),
            files: HashMap::default(),
            pending_file: None,
            enc: Encoding {
                address_size: unit.header.address_size(),
                offset_size: unit.header.format().word_size(),
                amd: AmdOps::Raw,
            },
            macros: None,
            exprs: HashMap::default(),
            short_exprs: HashMap::default(),
        };
        let start = self.plans.partition_point(|p| p.0 < uoff);
        let mut next = start;
        // The attribute buffers of the DIE being filled, reused from one DIE to the next.
        let mut buffers = (Vec::new(), Vec::new());
        loop {
            let entry = match cursor.next_dfs() {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => return Err(fail(".debug_info", uoff, e.to_string())),
            };
            let off = entry
                .offset()
                .to_debug_info_offset(&unit.header)
                .map_or(uoff, |o| o.0 as u64);
            let Some(&(_, plan)) = self.plans.get(next).filter(|p| p.0 == off) else {
                return Err(fail(".debug_info", off, "DIE tree changed between passes"));
            };
            next += 1;
            let names = refuse_repeated_attribute(entry.attrs(), off)?;
            let depth = entry.depth();
            while stack.last().is_some_and(|f| f.depth >= depth) {
                stack.pop();
            }
            let parent = stack.last().copied();
            // A template parameter holds no DIEs (a pack holds parameters, not these): what sits
            // in one has no scope the IR or a writer could give it.
            if let Some(p) = parent.filter(|p| PARAMETERS_WITHOUT_CHILDREN.contains(&p.tag)) {
                return Err(fail(
                    ".debug_info",
                    off,
                    format!("a {} inside a {}, which holds no DIEs", entry.tag(), p.tag),
                ));
            }
            let has_ranges = matches!(
                entry.tag(),
                dw::DW_TAG_compile_unit
                    | dw::DW_TAG_partial_unit
                    | dw::DW_TAG_skeleton_unit
                    | dw::DW_TAG_subprogram
                    | dw::DW_TAG_lexical_block
                    | dw::DW_TAG_inlined_subroutine
            );
            let ranges = match has_ranges {
                true => ranges_of(u, unit, entry, off, &mut self.skipped_ranges)?,
                false => Vec::new(),
            };
            let (mut attrs, mut used) = std::mem::take(&mut buffers);
            attrs.clear();
            // Copied, not cloned: gimli's derived `Clone` of a generic attribute matches on
            // every value.
            attrs.extend(entry.attrs().iter().copied());
            used.clear();
            used.resize(attrs.len(), false);
            let mut die = DieAttrs {
                off,
                tag: entry.tag(),
                attrs,
                used,
                names,
            };
            // A list whose every entry was skipped (empty or backwards: ledgered by
            // `SkippedRanges`) is read too: the DIE has no range, not a raw attribute.
            let listed = has_ranges && die.attrs.iter().any(|a| a.name() == dw::DW_AT_ranges);
            if !ranges.is_empty() || listed {
                for at in [dw::DW_AT_low_pc, dw::DW_AT_high_pc, dw::DW_AT_ranges] {
                    die.mark(at);
                }
            }
            // A pointer past the DIE's children, for a reader's skipping: layout, not meaning.
            die.mark(dw::DW_AT_sibling);
            // A clone's origin is read once every DIE is filled (`complete_clones`).
            if !self.clones.is_empty() && self.clones.contains_key(&off) {
                if let Some(i) = die
                    .attrs
                    .iter()
                    .position(|a| a.name() == dw::DW_AT_abstract_origin)
                {
                    die.attrs.remove(i);
                    die.used.remove(i);
                }
            }
            let mut frame = Frame {
                depth,
                tag: die.tag,
                // An own entity is the one the plan names (`plan` mapped it so).
                ent: match plan {
                    Plan::Own(r) => Some(r),
                    _ => self.map.get(&off).copied(),
                },
                inlined: parent.and_then(|p| p.inlined),
                sig: None,
                params: 0,
                copy: false,
            };
            let at = At {
                u,
                unit,
                cur: &mut cur,
                die: &mut die,
                parent,
            };
            let extra = self.fill_die(plan, at, ranges, &mut frame)?;
            if die.tag == dw::DW_TAG_formal_parameter {
                if let Some(p) = stack.last_mut() {
                    p.params += 1;
                }
            }
            let mut extra = extra;
            let address_size = cur.enc.address_size;
            for (a, used) in die.attrs.iter().zip(&die.used) {
                if !used {
                    extra.push(raw_attr(u, unit, a, address_size));
                }
            }
            if !extra.is_empty() {
                self.put_extra(&plan, off, extra);
            }
            stack.push(frame);
            buffers = (die.attrs, die.used);
        }
        if let Some(at) = cur.macros {
            read_macros(u, unit, cur.unit, &cur.files, self.m, at)?;
        }
        self.encodings.push(cur.enc);
        Ok(())
    }

    /// Fills the entity of one DIE as its plan says; returns the raw attributes it keeps.
    fn fill_die(
        &mut self,
        plan: Plan,
        at: At<'_, '_>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> Filled {
        match plan {
            Plan::Own(Ref::Unit(h)) => {
                at.cur.unit = h;
                self.fill_unit(at, ranges)
            }
            Plan::Own(Ref::Type(h)) => self.fill_type(at, h),
            Plan::Own(Ref::Scope(h)) => self.fill_scope(at, h, ranges, frame),
            Plan::Own(Ref::Var(h)) => self.fill_var(at, h),
            Plan::Own(Ref::Inlined(h)) => self.fill_inlined(at, h, ranges, frame),
            Plan::Own(Ref::Label(h)) => self.fill_label(at, h),
            Plan::Own(Ref::CallSite(h)) => self.fill_call_site(at, h),
            Plan::Own(Ref::Import(h)) => self.fill_import(at, h),
            Plan::Own(_) => Ok(Vec::new()),
            Plan::Alias(_) if TEMPLATE_PARAMS.contains(&at.die.tag) => {
                frame.copy = true;
                self.fill_template_copy(at)
            }
            Plan::Alias(_) => self.fill_alias(at, ranges, frame),
            Plan::Part => self.fill_part(at),
            // resolve_blocks decided every one before pass 2.
            Plan::Pending => Ok(Vec::new()),
        }
    }

    pub(super) fn fill_unit(&mut self, mut at: At<'_, '_>, ranges: Vec<CodeRange>) -> Filled {
        let producer = self.string(&mut at, dw::DW_AT_producer)?;
        at.cur.enc.amd = amd_ops_for(self.machine, producer.as_deref());
        // Units sharing a line program (type units name their compile unit's) read it once.
        let program = at
            .unit
            .line_program
            .as_ref()
            .map(|p| p.header().offset().0 as u64);
        (at.cur.files, at.cur.pending_file) = match program.and_then(|o| self.programs.get(&o)) {
            Some(table) => table.clone(),
            None => {
                // The line rows' vector grows by doubling: the blocks it leaves are returned
                // at once, not kept with the fill's (`read_units`), which nothing reuses
                // (`validate` of the sqlite object peaked 14 MB higher).
                let returning = crate::background::return_freed_pages_meanwhile();
                let table = read_lines(at.u, at.unit, self.m, &mut self.files);
                drop(returning);
                let table = table?;
                if let Some(o) = program {
                    self.programs.insert(o, table.clone());
                }
                table
            }
        };
        at.die.mark(dw::DW_AT_stmt_list);
        for attr in [
            dw::DW_AT_str_offsets_base,
            dw::DW_AT_addr_base,
            dw::DW_AT_rnglists_base,
            dw::DW_AT_loclists_base,
            dw::DW_AT_GNU_addr_base,
            dw::DW_AT_GNU_ranges_base,
        ] {
            at.die.mark(attr);
        }
        at.cur.macros = match (
            at.die.take(dw::DW_AT_macros),
            at.die.take(dw::DW_AT_GNU_macros),
        ) {
            (Some(AttrValue::DebugMacroRef(o)), _) | (_, Some(AttrValue::DebugMacroRef(o))) => {
                Some(MacroAt::Macro(o.0 as u64))
            }
            (Some(AttrValue::SecOffset(o)), _) | (_, Some(AttrValue::SecOffset(o))) => {
                Some(MacroAt::Macro(o as u64))
            }
            _ => match at.die.take(dw::DW_AT_macro_info) {
                Some(AttrValue::DebugMacinfoRef(o)) => Some(MacroAt::Macinfo(o.0 as u64)),
                Some(AttrValue::SecOffset(o)) => Some(MacroAt::Macinfo(o as u64)),
                _ => None,
            },
        };
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let comp_dir = self.string(&mut at, dw::DW_AT_comp_dir)?;
        let file = name.map(|n| self.files.get(self.m, n, comp_dir, None, None));
        let language = at.die.udata(dw::DW_AT_language).map(|l| Language(l as u32));
        let augmentation = self.string(&mut at, vendor::DW_AT_LLVM_AUGMENTATION)?;
        let dwo_name = match self.string(&mut at, dw::DW_AT_dwo_name)? {
            Some(n) => Some(n),
            None => self.string(&mut at, dw::DW_AT_GNU_dwo_name)?,
        };
        let dwo_id = at.unit.dwo_id.map(|d| d.0);
        at.die.mark(dw::DW_AT_GNU_dwo_id);
        let sysroot = self.string(&mut at, dw::DW_AT_LLVM_isysroot)?;
        let sdk = self.string(&mut at, vendor::DW_AT_APPLE_SDK)?;
        let runtime_version = at
            .die
            .udata(dw::DW_AT_APPLE_major_runtime_vers)
            .unwrap_or(0);
        let flags = self.flags(at.die);
        let kind = match at.unit.header.type_() {
            gimli::UnitType::Compilation => crate::ir::UnitKind::COMPILE,
            gimli::UnitType::Type { .. } => UnitKind::TYPE,
            gimli::UnitType::Partial => UnitKind::PARTIAL,
            gimli::UnitType::Skeleton(_) => UnitKind::SKELETON,
            gimli::UnitType::SplitCompilation(_) => UnitKind::SPLIT_COMPILE,
            gimli::UnitType::SplitType { .. } => UnitKind::SPLIT_TYPE,
        };
        // A type unit names its signature and the type its header points at.
        let (signature, signed_type) = match at.unit.header.type_() {
            gimli::UnitType::Type {
                type_signature,
                type_offset,
            } => {
                let off = type_offset.to_debug_info_offset(&at.unit.header);
                let t = off.and_then(|o| self.map.get(&(o.0 as u64)).copied());
                match t {
                    Some(Ref::Type(t)) => (Some(type_signature.0), Some(t)),
                    _ => return Err(at.fail("the type unit's type offset names no type")),
                }
            }
            _ => (None, None),
        };
        let un = self.m.units.get_mut(at.cur.unit);
        *un = Unit {
            kind,
            signature,
            signed_type,
            file,
            language: language.unwrap_or(un.language),
            producer,
            flags,
            dwarf_version: Some(at.cur.version),
            dwo_name,
            dwo_id,
            sysroot,
            sdk,
            augmentation,
            ranges,
            runtime_version: u32::try_from(runtime_version).unwrap_or(u32::MAX),
            ..std::mem::take(un)
        };
        Ok(Vec::new())
    }

    /// DIEs folded into their parent: parts of types (`types.rs`) and call-site parameters
    /// (`scopes.rs`).
    pub(super) fn fill_part(&mut self, at: At<'_, '_>) -> Filled {
        match at.die.tag {
            dw::DW_TAG_call_site_parameter | dw::DW_TAG_GNU_call_site_parameter => {
                self.fill_call_param(at)
            }
            _ => self.fill_type_part(at),
        }
    }
}

/// dwarv's own attributes of the units (`spec::dwarf_vendor`) moved to their fields.
pub(super) fn own_attributes(m: &mut crate::ir::Module) {
    for u in m.units.values_mut() {
        let e = &mut u.extra;
        u.flags_text = take_str(e, vendor::DW_AT_DWARV_FLAGS_TEXT).or(u.flags_text.take());
        let language = take_u(e, vendor::DW_AT_DWARV_LANGUAGE);
        u.language = language.map_or(u.language, |l| crate::ir::Language(l as u32));
        let emission = take_u(e, vendor::DW_AT_DWARV_EMISSION);
        u.emission = emission.map_or(u.emission, |k| crate::ir::EmissionKind(k as u32));
        let version = take_u(e, vendor::DW_AT_DWARV_SOURCE_DWARF_VERSION);
        u.dwarf_version = version.map(|n| n as u16).or(u.dwarf_version);
        let debug_version = take_u(e, vendor::DW_AT_DWARV_DEBUG_VERSION);
        u.debug_version = debug_version.map(|n| n as u32).or(u.debug_version);
        own_flags(e, &mut u.flags);
        // A unit without code whose DW_AT_low_pc is 0: a base address for its (absent) ranges,
        // as the writer gives such units, not a fact about the unit.
        if u.ranges.is_empty() {
            e.retain(|a| !(a.attr == gimli::DW_AT_low_pc.0 && a.bytes.iter().all(|b| *b == 0)));
        }
    }
}
