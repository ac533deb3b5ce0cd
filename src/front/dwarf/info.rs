//! Units and their DIE trees → entities.

use rustc_hash::FxHashMap as HashMap;

use gimli::constants as dw;
use gimli::AttributeValue as Av;

use super::elf::Elf;
use super::lines::{read_lines, read_macros, Files, MacroAt};
use super::{fail, DErr, DResult};
use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::bytes::{put_sleb, put_uleb};
use crate::dwarf::{amd_ops_for, decode_expr, AmdOps, Encoding, RefKind, Refs};
use crate::ir::{
    AddrSpace, Arg, Bound, CallParam, CallSite, CodePos, CodeRange, CompositeTag, Enumerator, Expr,
    File, Flags, FunctionInfo, Handle, Import, ImportKind, InlinedAt, Label, Language, LocEntry,
    LocList, Location, Memory, Module, Op, OpCode, PtrKind, Qualifier, RawAttr, Ref, Scope,
    ScopeKind, ScopeRun, Subrange, TemplateParamKind, Type, TypeKind, Unit, UnitKind, Value,
    VarKind, Variable, Virtuality,
};
use crate::ir::{Encoding as Ate, Loc};
use crate::spec::dwarf_vendor as vendor;

pub type Gr<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

/// The loaded sections.
pub struct Units<'a> {
    pub dwarf: gimli::Dwarf<Gr<'a>>,
}

/// What a DIE becomes (pass 1).
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// Its own entity.
    Own(Ref),
    /// The entity of another DIE (a concrete instance of its abstract origin).
    Alias(u64),
    /// Part of its parent (subranges, enumerators, call-site parameters, signature parameters).
    Part,
}

const MAX_DEPTH: isize = 4096;
const MAX_ALIAS_HOPS: usize = 16;

/// Expression encoding per unit (by .debug_info offset), for `.debug_frame`.
pub type Encodings = Vec<Encoding>;

pub fn read_units(elf: &Elf, m: &mut Module, diag: &mut Diagnostics) -> DResult<Encodings> {
    let sections =
        gimli::DwarfSections::load(|id| -> Result<&[u8], DErr> { Ok(elf.section(id.name())) })?;
    let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::LittleEndian));
    let u = Units { dwarf };
    let mut w = Walker {
        elf,
        m,
        diag,
        map: HashMap::default(),
        plans: Vec::new(),
        files: Files::default(),
        programs: HashMap::default(),
        sigs: HashMap::default(),
        encodings: Vec::new(),
        object_pointers: Vec::new(),
        exprs: HashMap::default(),
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
    if !elf.section(".debug_types").is_empty() {
        w.diag.push(
            LossKind::Dropped,
            ".debug_types",
            "DWARF 4 type units (.debug_types) are not read; references to them stay raw DW_AT_signature attributes",
        );
    }
    w.resolve_aliases()?;
    for (off, unit) in &units {
        w.fill(&u, *off, unit)?;
    }
    for v in std::mem::take(&mut w.object_pointers) {
        let var = w.m.vars.get_mut(v);
        var.flags = var.flags.with("object_pointer");
    }
    complete_from_declarations(w.m);
    Ok(w.encodings)
}

/// An out-of-line definition (DW_AT_specification) states only what differs from its
/// declaration: it takes the declaration's name, scope, linkage name, signature, position and
/// flags where it has none, so that it reads as LLVM and SPIR-V state it. The writer leaves out
/// again what equals the declaration's.
fn complete_from_declarations(m: &mut Module) {
    // A static data member's definition: its name, type and linkage from the member.
    let external = Flags::named("external").map_or(0, |f| f.bits);
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
        let d = m.scopes.get(decl).clone();
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
        let decl_only = Flags::named("fwd_decl").map_or(0, |f| f.bits);
        let not_inherited =
            super::vendor::take_u(&mut s.extra, vendor::DW_AT_DWARV_NOT_INHERITED).unwrap_or(0);
        s.flags.bits |= d.flags.bits & !decl_only & !not_inherited;
        s.flags.foreign |= d.flags.foreign;
        if let Some(f) = function_mut(&mut s.kind) {
            f.linkage = f.linkage.take().or(df.linkage.clone());
            f.ty = f.ty.or(df.ty);
        }
    }
}

fn last_offset(units: &[(u64, gimli::Unit<Gr<'_>>)]) -> u64 {
    units.last().map_or(0, |(o, _)| *o)
}

struct Walker<'e, 'm> {
    elf: &'e Elf,
    m: &'m mut Module,
    diag: &'m mut Diagnostics,
    /// .debug_info offset → entity.
    map: HashMap<u64, Ref>,
    plans: Vec<(u64, Plan)>,
    files: Files,
    /// Type-unit signatures → the .debug_info offset of the type DIE.
    sigs: HashMap<u64, u64>,
    /// File tables of the line programs read, by .debug_line offset.
    programs: HashMap<u64, HashMap<u64, Handle<File>>>,
    encodings: Encodings,
    /// Parameters named by a subprogram's DW_AT_object_pointer.
    object_pointers: Vec<Handle<Variable>>,
    /// Expressions read so far, by unit offset and bytes: an optimised program repeats a few
    /// thousand distinct expressions across its location lists (sqlite: 3 148 of 150 129), and
    /// one entity per distinct expression is what LLVM and SPIR-V modules hold too.
    exprs: HashMap<u64, HashMap<Vec<u8>, Handle<Expr>>>,
}

/// The .debug_info offset of a reference attribute.
fn ref_offset(unit: &gimli::Unit<Gr<'_>>, v: &Av<Gr<'_>>) -> Option<u64> {
    match v {
        Av::UnitRef(o) => o.to_debug_info_offset(&unit.header).map(|d| d.0 as u64),
        Av::DebugInfoRef(o) => Some(o.0 as u64),
        _ => None,
    }
}

/// One open DIE of the walk.
#[derive(Clone, Copy)]
struct Frame {
    depth: isize,
    tag: dw::DwTag,
    /// The DIE's entity (or its origin's), if any.
    ent: Option<Ref>,
    /// The inlined-at link of the code of this DIE's subtree.
    inlined: Option<Handle<InlinedAt>>,
    /// The signature type collecting this subprogram's / subroutine type's parameters.
    sig: Option<Handle<Type>>,
    params: u32,
}

impl Walker<'_, '_> {
    fn plan(&mut self, uoff: u64, unit: &gimli::Unit<Gr<'_>>) -> DResult<()> {
        let mut cursor = unit.entries();
        // depth, tag, inside an inlined subroutine, a function declaration
        let mut stack: Vec<(isize, dw::DwTag, bool, bool)> = Vec::new();
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
            while stack.last().is_some_and(|f| f.0 >= depth) {
                stack.pop();
            }
            let parent_tag = stack.last().map(|f| f.1);
            let in_inlined =
                stack.last().is_some_and(|f| f.2) || entry.tag() == dw::DW_TAG_inlined_subroutine;
            let origin = entry
                .attr_value(dw::DW_AT_abstract_origin)
                .and_then(|v| ref_offset(unit, &v));
            let tag = entry.tag();
            let plan = match tag {
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
                        || stack.last().is_some_and(|f| f.3) =>
                {
                    Plan::Part
                }
                dw::DW_TAG_inlined_subroutine => {
                    Plan::Own(Ref::Inlined(self.m.inlined.push(InlinedAt {
                        at: Loc::default(),
                        scope: None,
                        parent: None,
                    })))
                }
                dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block if origin.is_some() => {
                    Plan::Alias(origin.unwrap_or(0))
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter
                    if origin.is_some() && !in_inlined =>
                {
                    Plan::Alias(origin.unwrap_or(0))
                }
                dw::DW_TAG_variable | dw::DW_TAG_formal_parameter => {
                    Plan::Own(Ref::Var(self.m.vars.push(Variable::new(VarKind::Local))))
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
            }
            self.plans.push((off, plan));
            let is_decl = tag == dw::DW_TAG_subprogram
                && matches!(
                    entry.attr_value(dw::DW_AT_declaration),
                    Some(Av::Flag(true))
                );
            stack.push((depth, tag, in_inlined, is_decl));
        }
        Ok(())
    }

    /// Gives each alias DIE its origin's entity.
    fn resolve_aliases(&mut self) -> DResult<()> {
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
                            format!("DW_AT_abstract_origin {origin:#x} is no DIE dwarv can use"),
                        ))
                    }
                }
            };
            self.map.insert(off, target);
        }
        Ok(())
    }
}

/// One DIE's attributes, with those a field consumed marked; the rest become raw attributes.
struct Die<'a> {
    off: u64,
    tag: dw::DwTag,
    attrs: Vec<gimli::Attribute<Gr<'a>>>,
    used: Vec<bool>,
}

impl<'a> Die<'a> {
    fn take(&mut self, at: dw::DwAt) -> Option<Av<Gr<'a>>> {
        let i = self.attrs.iter().position(|a| a.name() == at)?;
        self.used[i] = true;
        Some(self.attrs[i].value())
    }
    fn has(&self, at: dw::DwAt) -> bool {
        self.attrs.iter().any(|a| a.name() == at)
    }
    fn flag(&mut self, at: dw::DwAt) -> bool {
        matches!(self.take(at), Some(Av::Flag(true)))
    }
    fn udata(&mut self, at: dw::DwAt) -> Option<u64> {
        self.take(at).as_ref().and_then(num)
    }
    /// The number of an attribute without consuming it.
    fn peek(&self, at: dw::DwAt) -> Option<u64> {
        self.attrs
            .iter()
            .find(|a| a.name() == at)
            .and_then(|a| num(&a.value()))
    }
    fn mark(&mut self, at: dw::DwAt) {
        let _ = self.take(at);
    }
}

/// The number of a constant attribute, also where gimli gives it as a named constant.
fn num(v: &Av<Gr<'_>>) -> Option<u64> {
    match v {
        Av::Encoding(x) => Some(u64::from(x.0)),
        Av::Language(x) => Some(u64::from(x.0)),
        Av::AddressClass(x) => Some(x.0),
        Av::Accessibility(x) => Some(u64::from(x.0)),
        Av::Virtuality(x) => Some(u64::from(x.0)),
        Av::CallingConvention(x) => Some(u64::from(x.0)),
        Av::Inline(x) => Some(u64::from(x.0)),
        Av::Ordering(x) => Some(u64::from(x.0)),
        Av::DecimalSign(x) => Some(u64::from(x.0)),
        Av::Endianity(x) => Some(u64::from(x.0)),
        Av::Visibility(x) => Some(u64::from(x.0)),
        Av::IdentifierCase(x) => Some(u64::from(x.0)),
        Av::FileIndex(x) => Some(*x),
        v => v.udata_value(),
    }
}

/// Flag attributes and the IR flag each sets.
const FLAG_ATTRS: &[(dw::DwAt, &str)] = &[
    (dw::DW_AT_external, "external"),
    (dw::DW_AT_declaration, "fwd_decl"),
    (dw::DW_AT_artificial, "artificial"),
    (dw::DW_AT_explicit, "explicit"),
    (dw::DW_AT_prototyped, "prototyped"),
    (dw::DW_AT_enum_class, "enum_class"),
    (dw::DW_AT_export_symbols, "export_symbols"),
    (dw::DW_AT_pure, "pure"),
    (dw::DW_AT_elemental, "elemental"),
    (dw::DW_AT_recursive, "recursive"),
    (dw::DW_AT_main_subprogram, "main_subprogram"),
    (dw::DW_AT_deleted, "deleted"),
    (dw::DW_AT_noreturn, "no_return"),
    (dw::DW_AT_APPLE_optimized, "optimized"),
    (dw::DW_AT_call_all_calls, "all_calls_described"),
    (dw::DW_AT_GNU_all_call_sites, "all_calls_described"),
];

/// DW_ADDR_LLVM_* (seed 002) → memory kind.
fn memory_of_class(class: u64) -> Memory {
    match class {
        1 => Memory::GLOBAL,
        2 => Memory::CONSTANT,
        3 => Memory::GROUP,
        4 => Memory::PRIVATE,
        _ => Memory::NONE,
    }
}

/// Qualifier tags.
const QUALIFIERS: &[(dw::DwTag, Qualifier)] = &[
    (dw::DW_TAG_const_type, Qualifier::CONST),
    (dw::DW_TAG_volatile_type, Qualifier::VOLATILE),
    (dw::DW_TAG_restrict_type, Qualifier::RESTRICT),
    (dw::DW_TAG_atomic_type, Qualifier::ATOMIC),
    (dw::DW_TAG_immutable_type, Qualifier::IMMUTABLE),
    (dw::DW_TAG_shared_type, Qualifier::SHARED),
    (dw::DW_TAG_packed_type, Qualifier::PACKED),
];

/// DW_AT_LLVM_* of seed 002.
const AT_LLVM_ACTIVE_LANE: dw::DwAt = dw::DwAt(0x3e08);
const AT_LLVM_AUGMENTATION: dw::DwAt = dw::DwAt(0x3e09);
const AT_LLVM_LANES: dw::DwAt = dw::DwAt(0x3e0a);
const AT_LLVM_LANE_PC: dw::DwAt = dw::DwAt(0x3e0b);
const AT_LLVM_VECTOR_SIZE: dw::DwAt = dw::DwAt(0x3e0c);

/// DIE-valued expression operands → entities.
struct DieRefs<'m> {
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

/// The state of the unit being filled.
/// Where a `fill_*` step is: the units, the unit, the reading state and the DIE being filled.
struct At<'a, 'u> {
    u: &'a Units<'u>,
    unit: &'a gimli::Unit<Gr<'u>>,
    cur: &'a mut Cur,
    die: &'a mut Die<'u>,
}

struct Cur {
    unit: Handle<Unit>,
    base: u64,
    version: u16,
    files: HashMap<u64, Handle<File>>,
    enc: Encoding,
    macros: Option<MacroAt>,
}

fn ranges_of<'a>(
    u: &Units<'a>,
    unit: &gimli::Unit<Gr<'a>>,
    entry: &gimli::DebuggingInformationEntry<Gr<'a>>,
    off: u64,
) -> DResult<Vec<CodeRange>> {
    let err = |e: gimli::Error| fail(".debug_info", off, format!("address ranges: {e}"));
    let mut it = u.dwarf.die_ranges(unit, entry).map_err(err)?;
    let mut out = Vec::new();
    while let Some(r) = it.next().map_err(err)? {
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
    CodeRange::normalize(&mut out);
    Ok(out)
}

/// A raw attribute's value bytes: little-endian at the form's size for fixed data, LEB128 as
/// read for udata/sdata, the bytes of blocks and strings, 8-byte offsets for references.
fn raw_attr(
    u: &Units<'_>,
    unit: &gimli::Unit<Gr<'_>>,
    a: &gimli::Attribute<Gr<'_>>,
    address_size: u8,
) -> RawAttr {
    let mut bytes = Vec::new();
    let v = a.raw_value();
    match &v {
        Av::Addr(x) => bytes.extend_from_slice(&x.to_le_bytes()[..usize::from(address_size)]),
        Av::Block(b) => bytes.extend_from_slice(b.slice()),
        Av::Exprloc(e) => bytes.extend_from_slice(e.0.slice()),
        Av::Data1(x) => bytes.push(*x),
        Av::Data2(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        Av::Data4(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        Av::Data8(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        Av::Data16(x) => bytes.extend_from_slice(&x.to_le_bytes()),
        Av::Udata(x) => put_uleb(&mut bytes, *x),
        Av::Sdata(x) => put_sleb(&mut bytes, *x),
        Av::Flag(b) => bytes.push(u8::from(*b)),
        Av::String(_)
        | Av::DebugStrRef(_)
        | Av::DebugLineStrRef(_)
        | Av::DebugStrOffsetsIndex(_) => match u.dwarf.attr_string(unit, v) {
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

fn offset_of(v: &Av<Gr<'_>>, unit: &gimli::Unit<Gr<'_>>) -> u64 {
    if let Some(o) = ref_offset(unit, v) {
        return o;
    }
    match v {
        Av::SecOffset(o) => *o as u64,
        Av::DebugStrRef(o) => o.0 as u64,
        Av::DebugLineStrRef(o) => o.0 as u64,
        Av::DebugStrOffsetsIndex(o) => o.0 as u64,
        Av::DebugAddrIndex(o) => o.0 as u64,
        Av::DebugLocListsIndex(o) => o.0 as u64,
        Av::DebugRngListsIndex(o) => o.0 as u64,
        Av::DebugTypesRef(s) => s.0,
        _ => v.udata_value().unwrap_or(0),
    }
}

impl Walker<'_, '_> {
    fn fill(&mut self, u: &Units<'_>, uoff: u64, unit: &gimli::Unit<Gr<'_>>) -> DResult<()> {
        let mut cursor = unit.entries();
        let mut stack: Vec<Frame> = Vec::new();
        let mut cur = Cur {
            unit: Handle::new(0),
            base: uoff,
            version: unit.header.version(),
            files: HashMap::default(),
            enc: Encoding {
                address_size: unit.header.address_size(),
                offset_size: unit.header.format().word_size(),
                amd: AmdOps::Raw,
            },
            macros: None,
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
            let depth = entry.depth();
            while stack.last().is_some_and(|f| f.depth >= depth) {
                stack.pop();
            }
            let parent = stack.last().copied();
            let ranges = match entry.tag() {
                dw::DW_TAG_compile_unit
                | dw::DW_TAG_partial_unit
                | dw::DW_TAG_skeleton_unit
                | dw::DW_TAG_subprogram
                | dw::DW_TAG_lexical_block
                | dw::DW_TAG_inlined_subroutine => ranges_of(u, unit, entry, off)?,
                _ => Vec::new(),
            };
            let (mut attrs, mut used) = std::mem::take(&mut buffers);
            attrs.clear();
            attrs.extend_from_slice(entry.attrs());
            used.clear();
            used.resize(attrs.len(), false);
            let mut die = Die {
                off,
                tag: entry.tag(),
                attrs,
                used,
            };
            if !ranges.is_empty() {
                for at in [dw::DW_AT_low_pc, dw::DW_AT_high_pc, dw::DW_AT_ranges] {
                    die.mark(at);
                }
            }
            let mut frame = Frame {
                depth,
                tag: die.tag,
                ent: self.map.get(&off).copied(),
                inlined: parent.and_then(|p| p.inlined),
                sig: None,
                params: 0,
            };
            let extra = match plan {
                Plan::Own(Ref::Unit(h)) => {
                    cur.unit = h;
                    self.fill_unit(
                        At {
                            u,
                            unit,
                            cur: &mut cur,
                            die: &mut die,
                        },
                        ranges,
                    )?
                }
                Plan::Own(Ref::Type(h)) => self.fill_type(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    h,
                    parent,
                )?,
                Plan::Own(Ref::Scope(h)) => self.fill_scope(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    h,
                    parent,
                    ranges,
                    &mut frame,
                )?,
                Plan::Own(Ref::Var(h)) => self.fill_var(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    h,
                    parent.as_ref(),
                )?,
                Plan::Own(Ref::Inlined(h)) => {
                    self.fill_inlined(&cur, &mut die, h, parent, ranges, &mut frame)?
                }
                Plan::Own(Ref::Label(h)) => {
                    let name = self.string(u, unit, &mut die, dw::DW_AT_name)?;
                    let at = self.loc(&cur, &mut die);
                    let pos = self.address(u, unit, &mut die, dw::DW_AT_low_pc)?;
                    let l = self.m.labels.get_mut(h);
                    l.name = name.unwrap_or_default();
                    l.scope = scope_of(parent);
                    l.at = at;
                    l.pos = pos.map(CodePos::Addr);
                    Vec::new()
                }
                Plan::Own(Ref::CallSite(h)) => self.fill_call_site(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    h,
                    parent,
                )?,
                Plan::Own(Ref::Import(h)) => {
                    let name = self.string(u, unit, &mut die, dw::DW_AT_name)?;
                    let at = self.loc(&cur, &mut die);
                    let entity = self.reference(unit, &mut die, dw::DW_AT_import)?;
                    let i = self.m.imports.get_mut(h);
                    i.name = name;
                    i.at = at;
                    i.entity = entity;
                    i.scope = parent.and_then(|p| p.ent);
                    Vec::new()
                }
                Plan::Own(_) => Vec::new(),
                Plan::Alias(_) => self.fill_alias(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    ranges,
                    &mut frame,
                )?,
                Plan::Part => self.fill_part(
                    At {
                        u,
                        unit,
                        cur: &mut cur,
                        die: &mut die,
                    },
                    parent,
                )?,
            };
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

    /// Raw attributes go to the entity's `extra`; a DIE without one loses them (reported).
    fn put_extra(&mut self, plan: &Plan, off: u64, extra: Vec<RawAttr>) {
        // A concrete instance's own attributes join its origin's.
        let target = match plan {
            Plan::Own(r) => Some(*r),
            Plan::Alias(_) => self.map.get(&off).copied(),
            Plan::Part => None,
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

    fn string(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<String>> {
        let Some(v) = die.take(at) else {
            return Ok(None);
        };
        let s = u
            .dwarf
            .attr_string(unit, v)
            .map_err(|e| fail(".debug_info", die.off, format!("string attribute: {e}")))?;
        Ok(Some(String::from_utf8_lossy(s.slice()).into_owned()))
    }

    fn address(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<u64>> {
        let Some(v) = die.take(at) else {
            return Ok(None);
        };
        u.dwarf
            .attr_address(unit, v)
            .map_err(|e| fail(".debug_info", die.off, format!("address attribute: {e}")))
    }

    fn reference(
        &mut self,
        unit: &gimli::Unit<Gr<'_>>,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<Ref>> {
        let Some(v) = die.take(at) else {
            return Ok(None);
        };
        let sig = match v {
            Av::DebugTypesRef(sig) => self.sigs.get(&sig.0).copied(),
            _ => None,
        };
        let Some(o) = ref_offset(unit, &v).or(sig) else {
            return Err(fail(
                ".debug_info",
                die.off,
                format!("{at}: not a DIE reference"),
            ));
        };
        match self.map.get(&o) {
            Some(r) => Ok(Some(*r)),
            None => Err(fail(
                ".debug_info",
                die.off,
                format!("{at} refers to {o:#x}, where no DIE starts"),
            )),
        }
    }

    fn type_ref(
        &mut self,
        unit: &gimli::Unit<Gr<'_>>,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<Handle<Type>>> {
        match self.reference(unit, die, at)? {
            None => Ok(None),
            Some(Ref::Type(h)) => Ok(Some(h)),
            Some(_) => Err(fail(
                ".debug_info",
                die.off,
                format!("{at} does not name a type"),
            )),
        }
    }

    fn loc(&mut self, cur: &Cur, die: &mut Die<'_>) -> Option<Loc> {
        self.loc_of(
            cur,
            die,
            dw::DW_AT_decl_file,
            dw::DW_AT_decl_line,
            dw::DW_AT_decl_column,
        )
    }

    fn loc_of(
        &mut self,
        cur: &Cur,
        die: &mut Die<'_>,
        file: dw::DwAt,
        line: dw::DwAt,
        column: dw::DwAt,
    ) -> Option<Loc> {
        if !(die.has(file) || die.has(line)) {
            return None;
        }
        let f = die.udata(file).and_then(|i| cur.files.get(&i).copied());
        let line = die.udata(line).unwrap_or(0);
        if f.is_none() && line == 0 {
            // No file (or one out of the table's range) and line 0: no place at all.
            return None;
        }
        let column = die.udata(column).unwrap_or(0);
        Some(Loc {
            file: f,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        })
    }

    fn flags(&mut self, die: &mut Die<'_>) -> Flags {
        let mut f = Flags::default();
        for (at, name) in FLAG_ATTRS {
            if die.flag(*at) {
                f = f.with(name);
            }
        }
        if die.has(dw::DW_AT_accessibility) {
            match die.udata(dw::DW_AT_accessibility) {
                Some(1) => f = f.with("public"),
                Some(2) => f = f.with("protected"),
                Some(3) => f = f.with("private"),
                _ => {}
            }
        }
        f
    }

    /// Decodes an expression in the unit's AMD encoding, or the other one when only that
    /// decodes every operation (a writer's choice the producer does not reveal).
    fn expr(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        bytes: &[u8],
        off: u64,
        section: &str,
    ) -> DResult<Handle<Expr>> {
        if let Some(&h) = self.exprs.get(&cur.base).and_then(|m| m.get(bytes)) {
            return Ok(h);
        }
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
        let h = self.m.exprs.push(Expr { ops });
        self.exprs
            .entry(cur.base)
            .or_default()
            .insert(bytes.to_vec(), h);
        Ok(h)
    }

    fn location(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        off: u64,
        v: Av<Gr<'_>>,
    ) -> DResult<Option<Location>> {
        match v {
            Av::Exprloc(e) => Ok(Some(Location::Expr(self.expr(
                u,
                unit,
                cur,
                e.0.slice(),
                off,
                ".debug_info",
            )?))),
            Av::Block(b) => Ok(Some(Location::Expr(self.expr(
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
                let Some(mut it) = u.dwarf.attr_locations(unit, v).map_err(err)? else {
                    return Ok(None);
                };
                let mut entries = Vec::new();
                while let Some(e) = it.next().map_err(err)? {
                    if entries.len() >= 1 << 20 {
                        return Err(fail(
                            section,
                            off,
                            "more than a million location-list entries",
                        ));
                    }
                    let expr = self.expr(u, unit, cur, e.data.0.slice(), off, section)?;
                    entries.push(LocEntry {
                        range: Some(CodeRange {
                            start: CodePos::Addr(e.range.begin),
                            end: CodePos::Addr(e.range.end.max(e.range.begin)),
                        }),
                        expr,
                    });
                }
                Ok(Some(Location::List(
                    self.m.loclists.push(LocList { entries }),
                )))
            }
        }
    }

    fn take_location(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<Location>> {
        match die.take(at) {
            Some(v) => self.location(u, unit, cur, die.off, v),
            None => Ok(None),
        }
    }

    /// A constant, a reference or an expression (sizes, bounds).
    fn bound(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        die: &mut Die<'_>,
        at: dw::DwAt,
        scale: i64,
    ) -> DResult<Option<Bound>> {
        let Some(v) = die.take(at) else {
            return Ok(None);
        };
        if let Some(o) = ref_offset(unit, &v) {
            return match self.map.get(&o) {
                Some(r) => Ok(Some(Bound::Ref(*r))),
                None => Err(fail(
                    ".debug_info",
                    die.off,
                    format!("{at} refers to no DIE"),
                )),
            };
        }
        match v {
            Av::Exprloc(e) => {
                let h = self.expr(u, unit, cur, e.0.slice(), die.off, ".debug_info")?;
                Ok(Some(Bound::Ref(Ref::Expr(h))))
            }
            Av::Sdata(n) => Ok(Some(Bound::Const(n.saturating_mul(scale)))),
            v => match v.udata_value() {
                Some(n) => Ok(Some(Bound::Const(
                    i64::try_from(n).unwrap_or(i64::MAX).saturating_mul(scale),
                ))),
                None => Err(fail(
                    ".debug_info",
                    die.off,
                    format!("{at}: unexpected form"),
                )),
            },
        }
    }

    fn value(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<Value>> {
        let Some(v) = die.take(at) else {
            return Ok(None);
        };
        Ok(Some(match v {
            Av::Sdata(n) => Value::Int(i128::from(n)),
            Av::Udata(n) => Value::Int(i128::from(n)),
            Av::Data1(n) => Value::Int(i128::from(n)),
            Av::Data2(n) => Value::Int(i128::from(n)),
            Av::Data4(n) => Value::Int(i128::from(n)),
            Av::Data8(n) => Value::Int(i128::from(n)),
            Av::Data16(n) => Value::Bytes(n.to_le_bytes().to_vec()),
            Av::Block(b) => Value::Bytes(b.slice().to_vec()),
            Av::Exprloc(e) => Value::Bytes(e.0.slice().to_vec()),
            Av::Flag(b) => Value::Int(i128::from(b)),
            v => match u.dwarf.attr_string(unit, v) {
                Ok(s) => Value::Str(String::from_utf8_lossy(s.slice()).into_owned()),
                Err(e) => return Err(fail(".debug_info", die.off, format!("{at}: {e}"))),
            },
        }))
    }
}

/// DW_OP_addrx / DW_OP_GNU_addr_index become DW_OP_addr with the address from .debug_addr, so
/// that DWARF 4 and 5 reads of one program agree; the writer picks the form.
fn resolve_addrx(
    u: &Units<'_>,
    unit: &gimli::Unit<Gr<'_>>,
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

/// The nearest enclosing function or block (for labels, call sites, inlined-at).
fn scope_of(parent: Option<Frame>) -> Option<Handle<Scope>> {
    match parent?.ent? {
        Ref::Scope(h) => Some(h),
        _ => None,
    }
}

impl Walker<'_, '_> {
    fn fill_unit(&mut self, at: At<'_, '_>, ranges: Vec<CodeRange>) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let producer = self.string(u, unit, die, dw::DW_AT_producer)?;
        cur.enc.amd = amd_ops_for(self.elf.machine, producer.as_deref());
        // Units sharing a line program (type units name their compile unit's) read it once.
        let program = unit
            .line_program
            .as_ref()
            .map(|p| p.header().offset().0 as u64);
        cur.files = match program.and_then(|o| self.programs.get(&o)) {
            Some(table) => table.clone(),
            None => {
                let table = read_lines(u, unit, self.m, &mut self.files)?;
                if let Some(o) = program {
                    self.programs.insert(o, table.clone());
                }
                table
            }
        };
        die.mark(dw::DW_AT_stmt_list);
        for at in [
            dw::DW_AT_str_offsets_base,
            dw::DW_AT_addr_base,
            dw::DW_AT_rnglists_base,
            dw::DW_AT_loclists_base,
            dw::DW_AT_GNU_addr_base,
            dw::DW_AT_GNU_ranges_base,
        ] {
            die.mark(at);
        }
        cur.macros = match (die.take(dw::DW_AT_macros), die.take(dw::DW_AT_GNU_macros)) {
            (Some(Av::DebugMacroRef(o)), _) | (_, Some(Av::DebugMacroRef(o))) => {
                Some(MacroAt::Macro(o.0 as u64))
            }
            (Some(Av::SecOffset(o)), _) | (_, Some(Av::SecOffset(o))) => {
                Some(MacroAt::Macro(o as u64))
            }
            _ => match die.take(dw::DW_AT_macro_info) {
                Some(Av::DebugMacinfoRef(o)) => Some(MacroAt::Macinfo(o.0 as u64)),
                Some(Av::SecOffset(o)) => Some(MacroAt::Macinfo(o as u64)),
                _ => None,
            },
        };
        let name = self.string(u, unit, die, dw::DW_AT_name)?;
        let comp_dir = self.string(u, unit, die, dw::DW_AT_comp_dir)?;
        let file = name.map(|n| self.files.get(self.m, n, comp_dir, None, None));
        let language = die.udata(dw::DW_AT_language).map(|l| Language(l as u32));
        let augmentation = self.string(u, unit, die, AT_LLVM_AUGMENTATION)?;
        let dwo_name = match self.string(u, unit, die, dw::DW_AT_dwo_name)? {
            Some(n) => Some(n),
            None => self.string(u, unit, die, dw::DW_AT_GNU_dwo_name)?,
        };
        let dwo_id = unit.dwo_id.map(|d| d.0);
        die.mark(dw::DW_AT_GNU_dwo_id);
        let sysroot = self.string(u, unit, die, dw::DwAt(0x3e02))?;
        let sdk = self.string(u, unit, die, dw::DwAt(0x3fef))?;
        let flags = self.flags(die);
        let kind = match unit.header.type_() {
            gimli::UnitType::Compilation => crate::ir::UnitKind::COMPILE,
            gimli::UnitType::Type { .. } => UnitKind::TYPE,
            gimli::UnitType::Partial => UnitKind::PARTIAL,
            gimli::UnitType::Skeleton(_) => UnitKind::SKELETON,
            gimli::UnitType::SplitCompilation(_) => UnitKind::SPLIT_COMPILE,
            gimli::UnitType::SplitType { .. } => UnitKind::SPLIT_TYPE,
        };
        let un = self.m.units.get_mut(cur.unit);
        un.kind = kind;
        un.file = file;
        if let Some(l) = language {
            un.language = l;
        }
        un.producer = producer;
        un.flags = flags;
        un.dwarf_version = Some(cur.version);
        un.dwo_name = dwo_name;
        un.dwo_id = dwo_id;
        un.sysroot = sysroot;
        un.sdk = sdk;
        un.augmentation = augmentation;
        un.ranges = ranges;
        Ok(Vec::new())
    }

    fn fill_type(
        &mut self,
        at: At<'_, '_>,
        h: Handle<Type>,
        parent: Option<Frame>,
    ) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let tag = die.tag;
        let mut name = self.string(u, unit, die, dw::DW_AT_name)?;
        let at = self.loc(cur, die);
        let mut flags = self.flags(die);
        let linkage = match self.string(u, unit, die, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(u, unit, die, dw::DW_AT_MIPS_linkage_name)?,
        };
        let align_bits = die
            .udata(dw::DW_AT_alignment)
            .map(|a| (a as u32).saturating_mul(8));
        let mut size = match self.bound(u, unit, cur, die, dw::DW_AT_bit_size, 1)? {
            Some(b) => {
                if tag == dw::DW_TAG_member {
                    flags = flags.with("bit_field");
                }
                Some(b)
            }
            None => self.bound(u, unit, cur, die, dw::DW_AT_byte_size, 8)?,
        };
        let base = if tag == dw::DW_TAG_subroutine_type || tag == dw::DW_TAG_enumeration_type {
            None
        } else {
            self.type_ref(unit, die, dw::DW_AT_type)?
        };
        // DW_CC_pass_by_reference / _by_value are flags; other conventions stay raw.
        match die.peek(dw::DW_AT_calling_convention) {
            Some(4) => flags = flags.with("pass_by_reference"),
            Some(5) => flags = flags.with("pass_by_value"),
            _ => {}
        }
        if flags.has("pass_by_reference") || flags.has("pass_by_value") {
            die.mark(dw::DW_AT_calling_convention);
        }
        let kind = match tag {
            dw::DW_TAG_base_type => {
                let encoding = Ate(die.udata(dw::DW_AT_encoding).unwrap_or(0) as u32);
                let element = self.type_ref(unit, die, vendor::DW_AT_DWARV_ELEMENT)?;
                match die.udata(AT_LLVM_VECTOR_SIZE) {
                    // dwarv's own vector names its element: name and size are the element's.
                    Some(count) if element.is_some() => {
                        name = None;
                        size = match die.take(vendor::DW_AT_DWARV_VECTOR_BITS) {
                            Some(Av::Sdata(b)) => Some(Bound::Const(b)),
                            _ => None,
                        };
                        TypeKind::Vector {
                            element,
                            count: u32::try_from(count).unwrap_or(u32::MAX),
                        }
                    }
                    Some(count) => {
                        // A vector base type: its element is the same base type, unvectored.
                        let element_size = match size {
                            Some(Bound::Const(n)) if count > 0 => Some(Bound::Const(
                                n.checked_div(i64::try_from(count).unwrap_or(i64::MAX))
                                    .unwrap_or(0),
                            )),
                            s => s,
                        };
                        let mut el = Type::new(TypeKind::Basic { encoding });
                        el.name = name.clone();
                        el.size = element_size;
                        el.scope = parent.and_then(|p| p.ent);
                        let el = self.m.types.push(el);
                        TypeKind::Vector {
                            element: Some(el),
                            count: u32::try_from(count).unwrap_or(u32::MAX),
                        }
                    }
                    None => TypeKind::Basic { encoding },
                }
            }
            dw::DW_TAG_pointer_type
            | dw::DW_TAG_reference_type
            | dw::DW_TAG_rvalue_reference_type => {
                let class = die.udata(dw::DW_AT_address_class);
                TypeKind::Pointer {
                    kind: match tag {
                        dw::DW_TAG_pointer_type => PtrKind::Pointer,
                        dw::DW_TAG_reference_type => PtrKind::Reference,
                        _ => PtrKind::RvalueReference,
                    },
                    pointee: base,
                    space: AddrSpace {
                        memory: class.map_or(Memory::NONE, memory_of_class),
                        address_class: class.map(|c| c as u32),
                        ..Default::default()
                    },
                }
            }
            dw::DW_TAG_typedef => TypeKind::Typedef { base },
            dw::DW_TAG_array_type => {
                let stride = match self.bound(u, unit, cur, die, dw::DW_AT_byte_stride, 8)? {
                    Some(s) => Some(s),
                    None => self.bound(u, unit, cur, die, dw::DW_AT_bit_stride, 1)?,
                };
                let data_location = self.bound(u, unit, cur, die, dw::DW_AT_data_location, 1)?;
                let associated = self.bound(u, unit, cur, die, dw::DW_AT_associated, 1)?;
                let allocated = self.bound(u, unit, cur, die, dw::DW_AT_allocated, 1)?;
                let rank = self.bound(u, unit, cur, die, dw::DW_AT_rank, 1)?;
                let column_major = die.udata(dw::DW_AT_ordering) == Some(1);
                if die.flag(dw::DW_AT_GNU_vector) {
                    // Its subrange child sets the count.
                    TypeKind::Vector {
                        element: base,
                        count: 0,
                    }
                } else {
                    TypeKind::Array {
                        element: base,
                        dims: Vec::new(),
                        stride,
                        data_location,
                        associated,
                        allocated,
                        rank,
                        column_major,
                    }
                }
            }
            dw::DW_TAG_subroutine_type => TypeKind::Function {
                ret: self.type_ref(unit, die, dw::DW_AT_type)?,
                params: Vec::new(),
                variadic: false,
                calling_convention: 0,
            },
            dw::DW_TAG_enumeration_type => TypeKind::Enum {
                underlying: self.type_ref(unit, die, dw::DW_AT_type)?,
                enumerators: Vec::new(),
                identifier: None,
            },
            dw::DW_TAG_structure_type
            | dw::DW_TAG_class_type
            | dw::DW_TAG_union_type
            | dw::DW_TAG_interface_type
            | dw::DW_TAG_variant_part => TypeKind::Composite {
                tag: CompositeTag(tag.0),
                elements: Vec::new(),
                identifier: None,
                vtable_holder: self.type_ref(unit, die, dw::DW_AT_containing_type)?,
                templates: Vec::new(),
                discriminator: self.type_ref(unit, die, dw::DW_AT_discr)?,
            },
            dw::DW_TAG_member => {
                let bit_size = match size {
                    Some(Bound::Const(b)) if flags.has("bit_field") => u64::try_from(b).ok(),
                    _ => None,
                };
                let (offset_bits, storage) = Self::member_offset(die, bit_size);
                if flags.has("external") || flags.has("fwd_decl") {
                    flags = flags.with("static_member");
                }
                TypeKind::Member {
                    base,
                    offset_bits,
                    storage_offset_bits: storage,
                    value: self.value(u, unit, die, dw::DW_AT_const_value)?,
                    discriminant: self.value(u, unit, die, dw::DW_AT_discr_value)?,
                    property: None,
                }
            }
            dw::DW_TAG_inheritance => {
                if die.udata(dw::DW_AT_virtuality).is_some_and(|v| v != 0) {
                    flags = flags.with("virtual");
                }
                let (offset_bits, _) = Self::member_offset(die, None);
                TypeKind::Inheritance { base, offset_bits }
            }
            dw::DW_TAG_ptr_to_member_type => TypeKind::PtrToMember {
                pointee: base,
                class: self.type_ref(unit, die, dw::DW_AT_containing_type)?,
            },
            dw::DW_TAG_template_type_parameter
            | dw::DW_TAG_template_value_parameter
            | dw::DW_TAG_GNU_template_template_param
            | dw::DW_TAG_GNU_template_parameter_pack => {
                let kind = match tag {
                    dw::DW_TAG_template_type_parameter => TemplateParamKind::Type,
                    dw::DW_TAG_template_value_parameter => TemplateParamKind::Value,
                    dw::DW_TAG_GNU_template_template_param => TemplateParamKind::Template,
                    _ => TemplateParamKind::Pack,
                };
                let value = match self.value(u, unit, die, dw::DW_AT_const_value)? {
                    Some(v) => Some(v),
                    None => self
                        .string(u, unit, die, dw::DW_AT_GNU_template_name)?
                        .map(Value::Str),
                };
                TypeKind::TemplateParam {
                    kind,
                    ty: base,
                    value,
                    pack: Vec::new(),
                    is_default: die.flag(dw::DW_AT_default_value),
                }
            }
            dw::DW_TAG_string_type => TypeKind::String {
                length: match self.bound(u, unit, cur, die, dw::DW_AT_string_length, 1)? {
                    Some(b) => Some(b),
                    None => self.bound(u, unit, cur, die, dw::DW_AT_string_length_byte_size, 8)?,
                },
                location: self.bound(u, unit, cur, die, dw::DW_AT_data_location, 1)?,
                encoding: Ate(die.udata(dw::DW_AT_encoding).unwrap_or(0) as u32),
            },
            dw::DW_TAG_unspecified_type => TypeKind::Unspecified,
            t => {
                if let Some(q) = QUALIFIERS.iter().find(|q| q.0 == t) {
                    TypeKind::Qualified {
                        qualifier: q.1,
                        base,
                    }
                } else {
                    // Unknown tag: its type reference goes back to raw form.
                    if base.is_some() {
                        if let Some(i) = die.attrs.iter().position(|a| a.name() == dw::DW_AT_type) {
                            die.used[i] = false;
                        }
                    }
                    if size.is_some() {
                        for at in [dw::DW_AT_byte_size, dw::DW_AT_bit_size] {
                            if let Some(i) = die.attrs.iter().position(|a| a.name() == at) {
                                die.used[i] = false;
                            }
                        }
                        size = None;
                    }
                    TypeKind::Other {
                        tag: t.0,
                        children: Vec::new(),
                    }
                }
            }
        };
        // At unit level only composites, enums and typedefs name the unit as their scope, as in
        // LLVM (null scope) and SPIR-V (no Parent operand on the other type instructions).
        let file_level = matches!(
            kind,
            TypeKind::Composite { .. } | TypeKind::Enum { .. } | TypeKind::Typedef { .. }
        );
        // Template parameters have no scope (LLVM shares them between templates); the
        // composite's or function's template list says where they belong.
        let template = matches!(kind, TypeKind::TemplateParam { .. });
        let scope = parent
            .and_then(|p| p.ent)
            .filter(|p| !template && (file_level || !matches!(p, Ref::Unit(_))));
        let ty = self.m.types.get_mut(h);
        ty.kind = kind;
        ty.name = name;
        ty.size = size;
        ty.align_bits = align_bits;
        ty.scope = scope;
        ty.at = at;
        ty.flags = flags;
        ty.linkage = linkage;
        self.attach_to_parent(parent, Ref::Type(h), tag);
        Ok(Vec::new())
    }

    /// The member's offset in bits from the start of the composite and, for a bit field, the
    /// offset of its storage unit (LLVM's `offset` and `extraData`): DW_AT_data_member_location
    /// (bytes) or DW_AT_data_bit_offset. A DWARF 2-style bit field (DW_AT_bit_offset, counted
    /// from the most significant bit of a DW_AT_byte_size storage unit; what clang writes when
    /// tuning for gdb) is converted, little-endian; its DW_AT_byte_size stays raw so the writer
    /// can give the same form back.
    fn member_offset(die: &mut Die<'_>, bit_size: Option<u64>) -> (Option<u64>, Option<u64>) {
        let mut offset = None;
        if let Some(i) = die
            .attrs
            .iter()
            .position(|a| a.name() == dw::DW_AT_data_member_location)
        {
            if let Some(n) = die.attrs[i].value().udata_value() {
                die.used[i] = true;
                offset = Some(n.saturating_mul(8));
            }
        }
        if offset.is_none() {
            offset = die.udata(dw::DW_AT_data_bit_offset);
        }
        let Some(from_msb) = die.peek(dw::DW_AT_bit_offset) else {
            return (offset, None);
        };
        let storage = offset.unwrap_or(0);
        let unit_bits = die.peek(dw::DW_AT_byte_size).map(|b| b.saturating_mul(8));
        match (unit_bits, bit_size) {
            (Some(unit_bits), Some(bits)) if from_msb.saturating_add(bits) <= unit_bits => {
                match storage.checked_add(unit_bits - from_msb - bits) {
                    Some(offset) => {
                        die.mark(dw::DW_AT_bit_offset);
                        (Some(offset), Some(storage))
                    }
                    None => (Some(storage), None),
                }
            }
            // Without a storage size the bit position cannot be placed: keep it raw.
            _ => (offset, None),
        }
    }

    /// Adds an entity to its parent's list (composite elements, template parameters…).
    fn attach_to_parent(&mut self, parent: Option<Frame>, r: Ref, tag: dw::DwTag) {
        let Some(p) = parent else { return };
        match p.ent {
            Some(Ref::Type(ph)) if p.tag != dw::DW_TAG_subroutine_type => {
                let is_template = matches!(r, Ref::Type(h) if matches!(self.m.types.get(h).kind, TypeKind::TemplateParam { .. }));
                match &mut self.m.types.get_mut(ph).kind {
                    TypeKind::Composite {
                        elements,
                        templates,
                        ..
                    } => match r {
                        Ref::Type(h) if is_template => templates.push(h),
                        r => elements.push(r),
                    },
                    TypeKind::TemplateParam { pack, .. } => {
                        if let Ref::Type(h) = r {
                            pack.push(h);
                        }
                    }
                    TypeKind::Other { children, .. } => children.push(r),
                    _ => {}
                }
            }
            Some(Ref::Scope(ph))
                if tag == dw::DW_TAG_template_type_parameter
                    || tag == dw::DW_TAG_template_value_parameter
                    || tag == dw::DW_TAG_GNU_template_template_param
                    || tag == dw::DW_TAG_GNU_template_parameter_pack =>
            {
                if let (Ref::Type(h), Some(f)) =
                    (r, function_mut(&mut self.m.scopes.get_mut(ph).kind))
                {
                    f.templates.push(h);
                }
            }
            _ => {}
        }
    }
}

fn function_mut(kind: &mut ScopeKind) -> Option<&mut FunctionInfo> {
    match kind {
        ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => Some(f),
        _ => None,
    }
}

impl Walker<'_, '_> {
    fn fill_scope(
        &mut self,
        at: At<'_, '_>,
        h: Handle<Scope>,
        parent: Option<Frame>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let name = self.string(u, unit, die, dw::DW_AT_name)?;
        let at = self.loc(cur, die);
        let mut flags = self.flags(die);
        let kind = match die.tag {
            dw::DW_TAG_subprogram => {
                let f = self.function(u, unit, cur, die, ranges.clone(), frame)?;
                for r in &ranges {
                    self.m.scope_runs.push(ScopeRun {
                        range: *r,
                        scope: Ref::Scope(h),
                        inlined: frame.inlined,
                    });
                }
                if flags.has("fwd_decl") {
                    // The kind says it is a declaration; a declaration belongs to no unit
                    // (as in LLVM: `unit:` is a definition's).
                    if let Some(d) = Flags::named("fwd_decl") {
                        flags.bits &= !d.bits;
                    }
                    let mut f = f;
                    f.unit = None;
                    ScopeKind::FunctionDecl(Box::new(f))
                } else {
                    ScopeKind::Function(Box::new(f))
                }
            }
            dw::DW_TAG_lexical_block => {
                for r in &ranges {
                    self.m.scope_runs.push(ScopeRun {
                        range: *r,
                        scope: Ref::Scope(h),
                        inlined: frame.inlined,
                    });
                }
                ScopeKind::LexicalBlock { ranges }
            }
            dw::DW_TAG_namespace => ScopeKind::Namespace {
                export_symbols: flags.has("export_symbols"),
            },
            dw::DW_TAG_module => ScopeKind::Module {
                config_macros: self.string(u, unit, die, dw::DwAt(0x3e00))?,
                include_path: self.string(u, unit, die, dw::DwAt(0x3e01))?,
                api_notes: self.string(u, unit, die, dw::DwAt(0x3e07))?,
                is_decl: flags.has("fwd_decl"),
            },
            _ => ScopeKind::CommonBlock { declaration: None },
        };
        let s = self.m.scopes.get_mut(h);
        let mut kind = kind;
        // A concrete out-of-line instance that came first (fill_alias) already added its code,
        // frame base and flags to this entity: keep them.
        if let (ScopeKind::LexicalBlock { ranges: old }, ScopeKind::LexicalBlock { ranges: new }) =
            (&mut s.kind, &mut kind)
        {
            old.append(new);
            std::mem::swap(old, new);
        }
        if let (Some(old), Some(new)) = (function_mut(&mut s.kind), function_mut(&mut kind)) {
            let mut ranges = std::mem::take(&mut old.ranges);
            ranges.append(&mut new.ranges);
            new.ranges = ranges;
            new.frame_base = new.frame_base.or(old.frame_base);
            new.lane_pc = new.lane_pc.or(old.lane_pc);
            new.active_lane = new.active_lane.or(old.active_lane);
        }
        s.kind = kind;
        s.name = name;
        s.parent = parent.and_then(|p| p.ent);
        s.at = at;
        s.flags.bits |= flags.bits;
        s.flags.foreign |= flags.foreign;
        self.attach_to_parent(parent, Ref::Scope(h), die.tag);
        Ok(Vec::new())
    }

    /// A subprogram's function details; its signature type is built from the return type and
    /// the formal parameters that follow (`Frame::sig`).
    fn function(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        die: &mut Die<'_>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> DResult<FunctionInfo> {
        let linkage = match self.string(u, unit, die, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(u, unit, die, dw::DW_AT_MIPS_linkage_name)?,
        };
        let ret = self.type_ref(unit, die, dw::DW_AT_type)?;
        let declaration = match self.reference(unit, die, dw::DW_AT_specification)? {
            Some(Ref::Scope(s)) => Some(s),
            Some(_) => {
                return Err(fail(
                    ".debug_info",
                    die.off,
                    "DW_AT_specification is no function",
                ))
            }
            None => None,
        };
        // A definition of a declaration already read has the declaration's signature
        // (complete_from_declarations); others get one built from their own DIEs, unless
        // dwarv named it.
        let declared = declaration
            .and_then(|d| self.m.scopes.get(d).function())
            .and_then(|f| f.ty)
            .filter(|_| ret.is_none());
        // dwarv names the function type when it has a DIE of its own.
        let named = self.type_ref(unit, die, vendor::DW_AT_DWARV_FUNCTION_TYPE)?;
        let sig = named.or(declared).unwrap_or_else(|| {
            let sig = self.m.types.push(Type::new(TypeKind::Function {
                ret,
                params: Vec::new(),
                variadic: false,
                calling_convention: 0,
            }));
            frame.sig = Some(sig);
            sig
        });
        // The `this` parameter: a flag on the variable, as LLVM states it.
        if let Some(Ref::Var(v)) = self.reference(unit, die, dw::DW_AT_object_pointer)? {
            self.object_pointers.push(v);
        }
        let virtual_index = match die.take(dw::DW_AT_vtable_elem_location) {
            Some(Av::Exprloc(e)) => {
                // DW_OP_constu N, or DW_OP_litN for small N.
                let b = e.0.slice();
                let mut c = 0u64;
                let mut shift = 0;
                if let Some(lit @ 0x30..=0x4f) = b.first() {
                    c = u64::from(lit - 0x30);
                } else if b.first() == Some(&0x10) {
                    for x in &b[1..] {
                        if shift < 64 {
                            c |= u64::from(x & 0x7f) << shift;
                        }
                        shift += 7;
                        if x & 0x80 == 0 {
                            break;
                        }
                    }
                }
                Some(u32::try_from(c).unwrap_or(u32::MAX))
            }
            _ => None,
        };
        let entry_pc = self
            .address(u, unit, die, dw::DW_AT_entry_pc)?
            .map(CodePos::Addr);
        Ok(FunctionInfo {
            linkage,
            ty: Some(sig),
            unit: Some(cur.unit),
            scope_line: None,
            declaration,
            containing_type: self.type_ref(unit, die, dw::DW_AT_containing_type)?,
            virtuality: die.udata(dw::DW_AT_virtuality).map(|v| Virtuality(v as u8)),
            virtual_index,
            this_adjustment: None,
            templates: Vec::new(),
            thrown: Vec::new(),
            retained: Vec::new(),
            binding: None,
            ranges,
            entry_pc,
            frame_base: self.take_location(u, unit, cur, die, dw::DW_AT_frame_base)?,
            calling_convention: die.udata(dw::DW_AT_calling_convention).map(|c| c as u8),
            lanes: die
                .udata(AT_LLVM_LANES)
                .map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
            lane_pc: self.take_location(u, unit, cur, die, AT_LLVM_LANE_PC)?,
            active_lane: self.take_location(u, unit, cur, die, AT_LLVM_ACTIVE_LANE)?,
        })
    }

    fn fill_var(
        &mut self,
        at: At<'_, '_>,
        h: Handle<Variable>,
        parent: Option<&Frame>,
    ) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let origin = self.reference(unit, die, dw::DW_AT_abstract_origin)?;
        let name = self.string(u, unit, die, dw::DW_AT_name)?;
        let at = self.loc(cur, die);
        let flags = self.flags(die);
        let linkage = match self.string(u, unit, die, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(u, unit, die, dw::DW_AT_MIPS_linkage_name)?,
        };
        let ty = self.type_ref(unit, die, dw::DW_AT_type)?;
        // A variable from SPIR-V with exact events: its location list was derived from them.
        let location = match die.has(crate::spec::dwarf_vendor::DW_AT_DWARV_EVENTS) {
            true => {
                die.mark(dw::DW_AT_location);
                None
            }
            false => self.take_location(u, unit, cur, die, dw::DW_AT_location)?,
        };
        let const_value = self.value(u, unit, die, dw::DW_AT_const_value)?;
        let declaration = self.reference(unit, die, dw::DW_AT_specification)?;
        let align_bits = die
            .udata(dw::DW_AT_alignment)
            .map(|a| (a as u32).saturating_mul(8));
        let is_static = die.has(vendor::DW_AT_DWARV_STATIC);
        die.mark(vendor::DW_AT_DWARV_STATIC);
        let in_function = parent.is_some_and(|p| {
            matches!(
                p.tag,
                dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block | dw::DW_TAG_inlined_subroutine
            )
        });
        let kind = match (origin, parent.and_then(|p| p.inlined)) {
            (Some(Ref::Var(o)), Some(ia)) => VarKind::Inlined {
                origin: o,
                inlined: ia,
            },
            (Some(_), _) => {
                return Err(fail(
                    ".debug_info",
                    die.off,
                    "DW_AT_abstract_origin is no variable",
                ))
            }
            (None, _) if die.tag == dw::DW_TAG_formal_parameter => {
                let p = parent.map_or(0, |p| p.params) + 1;
                if let Some(sig) = parent.and_then(|p| p.sig) {
                    if let TypeKind::Function { params, .. } = &mut self.m.types.get_mut(sig).kind {
                        params.push(ty);
                    }
                }
                VarKind::Param(p)
            }
            (None, _) if in_function && !self.is_static_storage(location) && !is_static => {
                VarKind::Local
            }
            _ => VarKind::Global,
        };
        let scope = parent.and_then(|p| p.ent);
        let v = self.m.vars.get_mut(h);
        v.kind = kind;
        v.name = name;
        v.ty = ty;
        v.scope = scope;
        v.at = at;
        v.flags = flags;
        v.linkage = linkage;
        v.align_bits = align_bits;
        // A concrete instance that came first (fill_alias) may have given the location.
        v.location = location.or(v.location);
        v.const_value = const_value.or(v.const_value.take());
        v.declaration = declaration;
        if let Some(p) = parent {
            if matches!(p.ent, Some(Ref::Type(_))) {
                self.attach_to_parent(Some(*p), Ref::Var(h), die.tag);
            }
        }
        Ok(Vec::new())
    }

    /// Whether a location is a static address (DW_OP_addr/addrx, or a thread-local one): a
    /// function's static variable is a global scoped in the function, as in LLVM and SPIR-V.
    fn is_static_storage(&self, location: Option<Location>) -> bool {
        let Some(Location::Expr(e)) = location else {
            return false;
        };
        crate::dwarf::is_static_location(&self.m.exprs.get(e).ops)
    }

    fn fill_inlined(
        &mut self,
        cur: &Cur,
        die: &mut Die<'_>,
        h: Handle<InlinedAt>,
        parent: Option<Frame>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> DResult<Vec<RawAttr>> {
        let origin = match die.take(dw::DW_AT_abstract_origin) {
            Some(v) => v,
            None => {
                return Err(fail(
                    ".debug_info",
                    die.off,
                    "inlined subroutine without DW_AT_abstract_origin",
                ))
            }
        };
        let origin = match self.plans_origin(&origin, cur) {
            Some(Ref::Scope(s)) => s,
            _ => {
                return Err(fail(
                    ".debug_info",
                    die.off,
                    "DW_AT_abstract_origin of an inlined subroutine is no function",
                ))
            }
        };
        let at = self
            .loc_of(
                cur,
                die,
                dw::DW_AT_call_file,
                dw::DW_AT_call_line,
                dw::DW_AT_call_column,
            )
            .unwrap_or_default();
        let ia = self.m.inlined.get_mut(h);
        ia.at = at;
        ia.scope = scope_of(parent);
        ia.parent = parent.and_then(|p| p.inlined);
        for r in ranges {
            self.m.scope_runs.push(ScopeRun {
                range: r,
                scope: Ref::Scope(origin),
                inlined: Some(h),
            });
        }
        frame.ent = Some(Ref::Scope(origin));
        frame.inlined = Some(h);
        die.mark(dw::DW_AT_entry_pc);
        Ok(Vec::new())
    }

    fn plans_origin(&self, v: &Av<Gr<'_>>, cur: &Cur) -> Option<Ref> {
        let o = match v {
            Av::UnitRef(o) => cur.base + o.0 as u64,
            Av::DebugInfoRef(o) => o.0 as u64,
            _ => return None,
        };
        self.map.get(&o).copied()
    }

    fn fill_call_site(
        &mut self,
        at: At<'_, '_>,
        h: Handle<CallSite>,
        parent: Option<Frame>,
    ) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let target = match self.reference(unit, die, dw::DW_AT_call_origin)? {
            Some(r) => Some(r),
            None => self.reference(unit, die, dw::DW_AT_abstract_origin)?,
        };
        let (pos, is_return_pc) = match self.address(u, unit, die, dw::DW_AT_call_return_pc)? {
            Some(a) => (Some(a), true),
            None => match self.address(u, unit, die, dw::DW_AT_call_pc)? {
                Some(a) => (Some(a), false),
                // GNU_call_site: DW_AT_low_pc is the return address.
                None => (self.address(u, unit, die, dw::DW_AT_low_pc)?, true),
            },
        };
        let target_location = match self.take_location(u, unit, cur, die, dw::DW_AT_call_target)? {
            Some(l) => Some(l),
            None => self.take_location(u, unit, cur, die, dw::DW_AT_GNU_call_site_target)?,
        };
        let tail = die.flag(dw::DW_AT_call_tail_call) || die.flag(dw::DW_AT_GNU_tail_call);
        let at = self.loc_of(
            cur,
            die,
            dw::DW_AT_call_file,
            dw::DW_AT_call_line,
            dw::DW_AT_call_column,
        );
        let c = self.m.call_sites.get_mut(h);
        c.scope = scope_of(parent);
        c.pos = pos.map(CodePos::Addr);
        c.is_return_pc = is_return_pc;
        c.target = target;
        c.target_location = target_location;
        c.tail = tail;
        c.at = at;
        Ok(Vec::new())
    }

    /// A concrete instance of an abstract DIE: its code ranges and locations complete the
    /// origin's entity.
    fn fill_alias(
        &mut self,
        at: At<'_, '_>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        die.mark(dw::DW_AT_abstract_origin);
        let target = self.map.get(&die.off).copied();
        match target {
            Some(Ref::Scope(h)) => {
                for r in &ranges {
                    self.m.scope_runs.push(ScopeRun {
                        range: *r,
                        scope: Ref::Scope(h),
                        inlined: frame.inlined,
                    });
                }
                // An origin not filled yet (its DIE comes later) is still the placeholder
                // block file: it becomes what this instance says, and fill_scope keeps that.
                let unfilled = matches!(self.m.scopes.get(h).kind, ScopeKind::BlockFile { .. });
                if die.tag == dw::DW_TAG_subprogram {
                    let frame_base = self.take_location(u, unit, cur, die, dw::DW_AT_frame_base)?;
                    let lane_pc = self.take_location(u, unit, cur, die, AT_LLVM_LANE_PC)?;
                    let active_lane = self.take_location(u, unit, cur, die, AT_LLVM_ACTIVE_LANE)?;
                    let flags = self.flags(die);
                    let s = self.m.scopes.get_mut(h);
                    s.flags.bits |= flags.bits;
                    if unfilled {
                        s.kind = ScopeKind::Function(Box::default());
                    }
                    if let Some(f) = function_mut(&mut s.kind) {
                        f.ranges.extend(ranges);
                        f.frame_base = f.frame_base.or(frame_base);
                        f.lane_pc = f.lane_pc.or(lane_pc);
                        f.active_lane = f.active_lane.or(active_lane);
                    }
                } else if frame.inlined.is_none() {
                    let s = self.m.scopes.get_mut(h);
                    if unfilled {
                        s.kind = ScopeKind::LexicalBlock { ranges: Vec::new() };
                    }
                    if let ScopeKind::LexicalBlock { ranges: rs } = &mut s.kind {
                        rs.extend(ranges);
                    }
                }
            }
            Some(Ref::Var(h)) => {
                let location = self.take_location(u, unit, cur, die, dw::DW_AT_location)?;
                let const_value = self.value(u, unit, die, dw::DW_AT_const_value)?;
                let v = self.m.vars.get_mut(h);
                v.location = v.location.or(location);
                if v.const_value.is_none() {
                    v.const_value = const_value;
                }
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    /// DIEs folded into their parent.
    fn fill_part(&mut self, at: At<'_, '_>, parent: Option<Frame>) -> DResult<Vec<RawAttr>> {
        let At { u, unit, cur, die } = at;
        let Some(p) = parent else {
            return Ok(Vec::new());
        };
        match die.tag {
            dw::DW_TAG_enumerator => {
                let name = self
                    .string(u, unit, die, dw::DW_AT_name)?
                    .unwrap_or_default();
                let value = match self.value(u, unit, die, dw::DW_AT_const_value)? {
                    Some(Value::Int(n)) => n,
                    _ => {
                        return Err(fail(
                            ".debug_info",
                            die.off,
                            "enumerator without an integer value",
                        ))
                    }
                };
                if let Some(Ref::Type(h)) = p.ent {
                    if let TypeKind::Enum { enumerators, .. } = &mut self.m.types.get_mut(h).kind {
                        enumerators.push(Enumerator { name, value });
                    }
                }
            }
            dw::DW_TAG_subrange_type | dw::DW_TAG_generic_subrange => {
                die.mark(dw::DW_AT_type);
                let sub = Subrange {
                    count: self.bound(u, unit, cur, die, dw::DW_AT_count, 1)?,
                    lower: self.bound(u, unit, cur, die, dw::DW_AT_lower_bound, 1)?,
                    upper: self.bound(u, unit, cur, die, dw::DW_AT_upper_bound, 1)?,
                    stride: match self.bound(u, unit, cur, die, dw::DW_AT_byte_stride, 8)? {
                        Some(s) => Some(s),
                        None => self.bound(u, unit, cur, die, dw::DW_AT_bit_stride, 1)?,
                    },
                    generic: die.tag == dw::DW_TAG_generic_subrange,
                };
                if let Some(Ref::Type(h)) = p.ent {
                    match &mut self.m.types.get_mut(h).kind {
                        TypeKind::Array { dims, .. } => dims.push(sub),
                        TypeKind::Vector { count, .. } => {
                            *count = match (sub.count, sub.upper) {
                                (Some(Bound::Const(c)), _) => u32::try_from(c).unwrap_or(0),
                                (_, Some(Bound::Const(u))) => {
                                    u32::try_from(u.saturating_add(1)).unwrap_or(0)
                                }
                                _ => 0,
                            }
                        }
                        _ => {}
                    }
                }
            }
            dw::DW_TAG_formal_parameter => {
                let ty = self.type_ref(unit, die, dw::DW_AT_type)?;
                let sig = match p.ent {
                    Some(Ref::Type(h)) => Some(h),
                    _ => p.sig,
                };
                if let Some(h) = sig {
                    if let TypeKind::Function { params, .. } = &mut self.m.types.get_mut(h).kind {
                        params.push(ty);
                    }
                }
            }
            dw::DW_TAG_unspecified_parameters => {
                let sig = match p.ent {
                    Some(Ref::Type(h)) => Some(h),
                    _ => p.sig,
                };
                if let Some(h) = sig {
                    if let TypeKind::Function { variadic, .. } = &mut self.m.types.get_mut(h).kind {
                        *variadic = true;
                    }
                }
            }
            dw::DW_TAG_call_site_parameter | dw::DW_TAG_GNU_call_site_parameter => {
                let location = self.param_expr(u, unit, cur, die, dw::DW_AT_location)?;
                let value = match self.param_expr(u, unit, cur, die, dw::DW_AT_call_value)? {
                    Some(v) => Some(v),
                    None => self.param_expr(u, unit, cur, die, dw::DW_AT_GNU_call_site_value)?,
                };
                let data_value = self.param_expr(u, unit, cur, die, dw::DW_AT_call_data_value)?;
                if let Some(Ref::CallSite(h)) = p.ent {
                    self.m.call_sites.get_mut(h).params.push(CallParam {
                        location,
                        value,
                        data_value,
                    });
                }
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    fn param_expr(
        &mut self,
        u: &Units<'_>,
        unit: &gimli::Unit<Gr<'_>>,
        cur: &mut Cur,
        die: &mut Die<'_>,
        at: dw::DwAt,
    ) -> DResult<Option<Handle<Expr>>> {
        match self.take_location(u, unit, cur, die, at)? {
            Some(Location::Expr(h)) => Ok(Some(h)),
            Some(Location::List(_)) => Err(fail(
                ".debug_info",
                die.off,
                format!("{at}: a location list where an expression belongs"),
            )),
            None => Ok(None),
        }
    }
}
