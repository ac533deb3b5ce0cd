//! The LLVM ⇄ DWARF cross-check: the IR read from a program's LLVM IR and the IR read from the
//! object clang made of it describe the same program, but LLVM's DWARF backend (AsmPrinter /
//! DwarfDebug) legitimately adds, drops and re-encodes things. [`normalise`] takes both to the
//! common ground — each rule below is one such backend behaviour, listed in docs/dwarf.md — so
//! that `diff --ignore-code-positions` of the results shows only disagreements between the two
//! readers. `dwarv diff prog.ll prog.o --crosscheck` runs it.

use std::collections::{HashMap, HashSet};

use crate::ir::prune::{self, PruneError};
use crate::ir::text::{render, Namer, PrintOptions};
use crate::ir::{
    Bound, Flags, Handle, Language, Location, Module, Ref, ScopeKind, SourceFormat, Type, TypeKind,
    VarKind,
};

/// Brings the LLVM-side and the DWARF-side module of one program to common ground.
pub fn normalise(llvm: &Module, dwarf: &Module) -> Result<(Module, Module), PruneError> {
    // LLVM writes MD5s into a DWARF 5 line table only when every file has one (and DWARF 4
    // has none): the DWARF side shows whether they made it.
    let line_table_md5 = dwarf.files.values().any(|f| f.checksum.is_some());
    // A subprogram's retainedNodes: bookkeeping of which variables to emit (the rules below).
    let mut l = llvm.clone();
    for s in l.scopes.values_mut() {
        if let ScopeKind::Function(f) = &mut s.kind {
            f.retained.clear();
        }
    }
    let l = prune::remove(&l, &without_code(&l, &folded_away(&l, dwarf)))?;
    let mut l = prune::remove(&l, &not_emitted(&l))?;
    let mut d = dwarf.clone();
    llvm_side(&mut l, line_table_md5);
    dwarf_side(&mut d);
    for m in [&mut l, &mut d] {
        this_pointers(m);
        unbound(m);
        block_positions(m);
        file_paths(m);
    }
    let d = rehome_statics(&l, &prune::remove(&d, &synthesised(&d))?)?;
    let l = unify_types(&flatten_blocks(&unused_files(&unify_files(&l)?)?)?)?;
    let d = unify_types(&flatten_blocks(&unused_files(&unify_files(&d)?)?)?)?;
    Ok((l, d))
}

/// Functions without an out-of-line body (inlined only) that the DWARF side has no definition
/// of, by linkage name (else name): code generation folded every instruction inlined from them
/// (HIP's `threadIdx.x` accessors become a read of a register the kernel starts with), so the
/// backend had no inlined_subroutine and no abstract DIE to write. The DWARF side is the
/// evidence: the IR still has their scope runs.
fn folded_away(l: &Module, d: &Module) -> HashSet<Handle<crate::ir::Scope>> {
    let key = |s: &crate::ir::Scope| {
        let f = s.function()?;
        Some(f.linkage.clone().or_else(|| s.name.clone()))
    };
    let written: HashSet<Option<String>> = d
        .scopes
        .values()
        .filter(|s| matches!(s.kind, ScopeKind::Function(_)))
        .filter_map(key)
        .collect();
    l.scopes
        .iter()
        .filter(|(_, s)| matches!(&s.kind, ScopeKind::Function(f) if f.binding.is_none()))
        .filter(|(_, s)| key(s).is_some_and(|k| !written.contains(&k)))
        .map(|(h, _)| h)
        .collect()
}

/// LLVM's LexicalScopes skip debug intrinsics: a lexical block, or a function that has no
/// out-of-line body, whose code is nothing but dbg.declare/value calls (no scope run in the
/// LLVM IR, itself or inlined) gets no DIE, nor do the blocks and variables in it; nor do the
/// `folded` functions ([`folded_away`]).
fn without_code(
    m: &Module,
    folded: &HashSet<Handle<crate::ir::Scope>>,
) -> HashMap<Ref, Option<Ref>> {
    let parent_scope = |s: Handle<crate::ir::Scope>| match m.scopes.get(s).parent {
        Some(Ref::Scope(p)) => Some(p),
        _ => None,
    };
    let mut has_code = vec![false; m.scopes.len()];
    let mut mark = |mut cur: Option<Handle<crate::ir::Scope>>| {
        while let Some(s) = cur.filter(|s| !has_code[s.index()]) {
            has_code[s.index()] = true;
            cur = parent_scope(s);
        }
    };
    for run in &m.scope_runs {
        if let Ref::Scope(s) = run.scope {
            mark(Some(s));
        }
        // The code inlined into a scope is that scope's code too.
        let mut link = run.inlined;
        for _ in 0..m.inlined.len() {
            let Some(i) = link else { break };
            mark(m.inlined.get(i).scope);
            link = m.inlined.get(i).parent;
        }
    }
    let gone = |s: Handle<crate::ir::Scope>| {
        let kept = match &m.scopes.get(s).kind {
            ScopeKind::Function(i) => i.binding.is_some(),
            ScopeKind::LexicalBlock { .. } => false,
            _ => true,
        };
        (!kept && !has_code[s.index()]) || folded.contains(&s)
    };
    // The function itself, or the function a block is in.
    let in_gone = |mut s: Handle<crate::ir::Scope>| {
        for _ in 0..=m.scopes.len() {
            if gone(s) {
                return true;
            }
            if m.scopes.get(s).function().is_some() {
                return false;
            }
            match parent_scope(s) {
                Some(p) => s = p,
                None => return false,
            }
        }
        false
    };
    let scopes = m
        .scopes
        .iter()
        .filter(|(h, _)| in_gone(*h))
        .map(|(h, _)| Ref::Scope(h));
    let vars = m
        .vars
        .iter()
        .filter(|(_, v)| matches!(v.scope, Some(Ref::Scope(s)) if in_gone(s)))
        .map(|(h, _)| Ref::Var(h));
    let mut dead: HashMap<Ref, Option<Ref>> = scopes.chain(vars).map(|r| (r, None)).collect();
    // Inlined-at links into such a function, and the links nested in them.
    let mut inlined_gone = vec![false; m.inlined.len()];
    for (h, ia) in m.inlined.iter() {
        let here = ia.scope.is_some_and(in_gone);
        let outer = ia
            .parent
            .is_some_and(|p| p.index() < h.index() && inlined_gone[p.index()]);
        if here || outer {
            inlined_gone[h.index()] = true;
            dead.insert(Ref::Inlined(h), None);
        }
    }
    dead
}

/// DwarfDebug emits the types the emitted DIEs refer to (and the unit's retained types and
/// enums), and a declaration of a called function only as a call site's target: the others
/// of the LLVM side have no DIE.
fn not_emitted(m: &Module) -> HashMap<Ref, Option<Ref>> {
    let opts = PrintOptions::default();
    let on_demand = |r: Ref| match r {
        Ref::Type(_) => true,
        Ref::Scope(s) => {
            let sc = m.scopes.get(s);
            matches!(sc.kind, ScopeKind::FunctionDecl(_))
                && matches!(sc.parent, None | Some(Ref::Unit(_)))
        }
        _ => false,
    };
    let mut reached: std::collections::HashSet<Ref> = Default::default();
    let mut work = Vec::new();
    let mut root = |r: Ref, _: &dyn crate::ir::text::RecordDyn| {
        if !on_demand(r) {
            work.push(r);
        }
    };
    crate::ir::text::for_each_entity!(m, root);
    while let Some(r) = work.pop() {
        for x in crate::ir::refs_of(m, r, opts) {
            if on_demand(x) && reached.insert(x) {
                work.push(x);
            }
        }
    }
    let mut dead = HashMap::new();
    let mut sweep = |r: Ref, _: &dyn crate::ir::text::RecordDyn| {
        if on_demand(r) && !reached.contains(&r) {
            dead.insert(r, None);
        }
    };
    crate::ir::text::for_each_entity!(m, sweep);
    dead
}

/// Whether a module came from LLVM IR and the other from DWARF (either order).
pub fn applies(a: &Module, b: &Module) -> bool {
    matches!(
        (a.source.format, b.source.format),
        (SourceFormat::Llvm, SourceFormat::Dwarf) | (SourceFormat::Dwarf, SourceFormat::Llvm)
    )
}

/// Both sides: the `this` pointer's artificial and object-pointer marks. LLVM puts them on
/// one pointer type; DWARF on the parameter and variable DIEs (DW_AT_artificial,
/// DW_AT_object_pointer), from which the reader gives a declaration's signature a flagged
/// variant of the pointer type but leaves the variables' type plain.
fn this_pointers(m: &mut Module) {
    for t in m.types.values_mut() {
        if matches!(t.kind, TypeKind::Pointer { .. }) {
            t.flags = t
                .flags
                .without(Flags::ARTIFICIAL)
                .without(Flags::OBJECT_POINTER);
        }
    }
}

/// Both sides: what ties entities to code or to one object file rather than to the source —
/// LLVM's `bind=@f`, DWARF's frame bases, ranges and the ELF machine — and the unit fields
/// only one side has (LLVM: name table kind, retained types list, emission kind; DWARF:
/// version). Locations of locals and parameters: LLVM states them as declare/value events,
/// the backend lowers those to DW_AT_location (frame-base offsets, location lists).
fn unbound(m: &mut Module) {
    m.info = Default::default();
    for s in m.scopes.values_mut() {
        if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) = &mut s.kind {
            f.binding = None;
            f.frame_base = None;
            f.scope_line = None;
            f.retained.clear();
        }
        // DW_AT_call_all_calls sits on out-of-line code only: a function inlined everywhere
        // has none, whatever DIFlagAllCallsDescribed said.
        s.flags = s.flags.without(Flags::ALL_CALLS_DESCRIBED);
    }
    for u in m.units.values_mut() {
        u.name_table = 0;
        u.retained.clear();
        u.emission = crate::ir::unit::EmissionKind::FULL;
        u.dwarf_version = None;
    }
    for v in m.vars.values_mut() {
        v.binding = None;
        if matches!(v.kind, VarKind::Local | VarKind::Param(_)) {
            v.location = None;
        }
    }
}

/// A lexical block has no source position in DWARF (DILexicalBlock's line and column are not
/// emitted).
fn block_positions(m: &mut Module) {
    for s in m.scopes.values_mut() {
        if matches!(s.kind, ScopeKind::LexicalBlock { .. }) {
            s.at = None;
        }
    }
}

/// The LLVM side states sizes the backend leaves implicit: a pointer's, an array's or vector's
/// (count × element) and a non-bit-field member's (its type's size) get no DW_AT_byte_size.
/// Only sizes equal to the implied one are dropped (pointers: always), so a wrong one shows.
///
/// Also: DWARF 4 line tables carry no MD5 (the checksums go); the optimised flags
/// (`isOptimized`, DISPFlagOptimized) have no DWARF attribute outside Apple's; a global whose
/// variable was optimised away (no global bound, empty expression) gets no DW_AT_location.
fn llvm_side(m: &mut Module, line_table_md5: bool) {
    if !line_table_md5 {
        for f in m.files.values_mut() {
            f.checksum = None;
        }
    }
    for u in m.units.values_mut() {
        u.flags = u.flags.without(Flags::OPTIMIZED);
    }
    // A position on line 0 gets no DW_AT_decl_file/decl_line (DwarfUnit::addSourceLine).
    let line0 = |at: &mut Option<crate::ir::Loc>| {
        if at.is_some_and(|a| a.line == 0) {
            *at = None;
        }
    };
    m.types.values_mut().for_each(|t| line0(&mut t.at));
    // A forward-declared struct, class or union gets neither DW_AT_byte_size nor a
    // DW_AT_decl_file/line (DwarfUnit::constructTypeDIE; an enumeration keeps its size).
    for t in m.types.values_mut() {
        if matches!(t.kind, TypeKind::Composite { .. }) && t.flags.has(Flags::FWD_DECL) {
            t.size = None;
            t.at = None;
        }
    }
    m.scopes.values_mut().for_each(|s| line0(&mut s.at));
    m.vars.values_mut().for_each(|v| line0(&mut v.at));
    // DW_AT_prototyped only for C89, C99 and Objective-C units (DwarfUnit).
    let c_like = m
        .units
        .values()
        .all(|u| matches!(u.language, Language::C89 | Language::C99 | Language::OBJC));
    for s in m.scopes.values_mut() {
        s.flags = s.flags.without(Flags::OPTIMIZED);
        if !c_like {
            s.flags = s.flags.without(Flags::PROTOTYPED);
        }
    }
    // A subprogram's calling convention (DW_CC_LLVM_OpenCLKernel…) is an attribute of its DIE;
    // LLVM states it on the DISubroutineType.
    let ccs: Vec<(usize, u8)> = m
        .scopes
        .iter()
        .filter_map(|(h, s)| {
            let ty = s.function()?.ty?;
            match m.types.get(ty).kind {
                TypeKind::Function {
                    calling_convention: cc,
                    ..
                } if cc != 0 => Some((h.index(), cc)),
                _ => None,
            }
        })
        .collect();
    for (i, cc) in ccs {
        let s = m.scopes.get_mut(Handle::new(i as u32));
        if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) = &mut s.kind {
            f.calling_convention = f.calling_convention.or(Some(cc));
            if let Some(ty) = f.ty {
                if let TypeKind::Function {
                    calling_convention, ..
                } = &mut m.types.get_mut(ty).kind
                {
                    *calling_convention = 0;
                }
            }
        }
    }
    let exprs = &m.exprs;
    for v in m.vars.values_mut() {
        let empty = matches!(v.location, Some(Location::Expr(e)) if exprs.get(e).ops.is_empty());
        if v.kind == VarKind::Global && v.binding.is_none() && empty {
            v.location = None;
        }
        // A static data member's definition gets DW_AT_specification and its location only.
        if v.declaration.is_some() {
            v.at = None;
        }
    }
    // ODR identifiers and DIFlagNonTrivial have no DWARF attribute (the calling convention
    // says pass-by-reference); a static member has no offset.
    for t in m.types.values_mut() {
        t.flags = t.flags.without(Flags::NON_TRIVIAL);
        let is_static = t.flags.has(Flags::STATIC_MEMBER);
        match &mut t.kind {
            TypeKind::Composite { identifier, .. } | TypeKind::Enum { identifier, .. } => {
                *identifier = None
            }
            TypeKind::Member { offset_bits, .. } if is_static => *offset_bits = None,
            _ => {}
        }
    }
    // A member function declaration a definition refers to becomes a child of its class's DIE
    // even when the class's elements do not list it (a lambda's operator()).
    let decls: Vec<(Handle<Type>, Ref)> = m
        .scopes
        .iter()
        .filter(|(_, s)| matches!(s.kind, ScopeKind::FunctionDecl(_)))
        .filter_map(|(h, s)| match s.parent {
            Some(Ref::Type(t)) => Some((t, Ref::Scope(h))),
            _ => None,
        })
        .collect();
    for (t, decl) in decls {
        if let TypeKind::Composite { elements, .. } = &mut m.types.get_mut(t).kind {
            if !elements.contains(&decl) {
                elements.push(decl);
            }
        }
    }
    let sizes: Vec<Option<u64>> = m.types.iter().map(|(h, _)| effective_size(m, h)).collect();
    let size_of = |t: Option<Handle<Type>>| t.and_then(|t| sizes.get(t.index()).copied().flatten());
    for t in m.types.values_mut() {
        // DwarfUnit writes no DW_AT_byte_size on pointers and references at all.
        if matches!(t.kind, TypeKind::Pointer { .. }) {
            t.size = None;
        }
        let implied = match &t.kind {
            TypeKind::Vector { element, count, .. } => {
                size_of(*element).and_then(|e| e.checked_mul(u64::from(*count)))
            }
            TypeKind::Array { element, dims, .. } => {
                let counts: Option<Vec<u64>> = dims
                    .iter()
                    .map(|d| match d.count {
                        Some(Bound::Const(c)) => u64::try_from(c).ok(),
                        _ => None,
                    })
                    .collect();
                counts.and_then(|c| {
                    c.iter()
                        .try_fold(size_of(*element)?, |acc, n| acc.checked_mul(*n))
                })
            }
            TypeKind::Member { base, .. } if !t.flags.has(Flags::BIT_FIELD) => size_of(*base),
            _ => None,
        };
        if implied.is_some() && implied == const_size(t) {
            t.size = None;
        }
    }
}

const DW_AT_BYTE_SIZE: u16 = 0x0b;
const DW_AT_INLINE: u16 = 0x20;

/// The DWARF side: what the backend adds, and what DWARF says another way.
/// - `__ARRAY_SIZE_TYPE__`, the index type of every DW_TAG_subrange_type, is synthesised
///   (removed in [`normalise`]);
/// - a DWARF 2-style bit field's DW_AT_byte_size is its storage unit's size, which LLVM states
///   as the storage offset and the field's type;
/// - DW_AT_prototyped on subroutine types (C: every prototyped function type);
/// - linkage: DW_AT_external where LLVM says "not local to the unit"; a subprogram or global
///   with code or storage is LLVM's `definition`;
/// - a global's location starts with DW_OP_addr of the variable, which LLVM's
///   DIGlobalVariableExpression leaves implicit;
/// - an inlined function's abstract DIE carries DW_AT_inline;
/// - a static data member is a DW_TAG_member with DW_AT_declaration and DW_AT_external;
/// - a pointer's address space is DW_AT_address_class;
/// - a dbg.value of a constant becomes the local's DW_AT_const_value.
fn dwarf_side(m: &mut Module) {
    // A type declared inside a struct (a nested struct, union, enum or typedef) is a child DIE
    // of the struct's; LLVM scopes it to the struct without listing it among the elements.
    let declared: Vec<bool> = m
        .types
        .values()
        .map(|t| {
            matches!(
                t.kind,
                TypeKind::Composite { .. } | TypeKind::Enum { .. } | TypeKind::Typedef { .. }
            )
        })
        .collect();
    for t in m.types.values_mut() {
        if let TypeKind::Composite { elements, .. } = &mut t.kind {
            elements.retain(|r| !matches!(r, Ref::Type(e) if declared[e.index()]));
        }
    }
    for t in m.types.values_mut() {
        if matches!(t.kind, TypeKind::Function { .. }) {
            t.flags = t.flags.without(Flags::PROTOTYPED);
        }
        if t.flags.has(Flags::BIT_FIELD) {
            t.extra.retain(|a| a.attr != DW_AT_BYTE_SIZE);
        }
        if t.flags.has(Flags::STATIC_MEMBER) {
            t.flags = t.flags.without(Flags::FWD_DECL).without(Flags::EXTERNAL);
        }
        // LLVM's dwarfAddressSpace is written as DW_AT_address_class (the reader also names the
        // memory kind it stands for).
        if let TypeKind::Pointer { space, .. } = &mut t.kind {
            if let Some(c) = space.address_class.take() {
                space.dwarf_space = Some(c);
                space.memory = Default::default();
            }
        }
    }
    for s in m.scopes.values_mut() {
        // An inline namespace's DW_AT_export_symbols reads as its kind's `export_symbols` and
        // as the flag; LLVM's DINamespace gives the former only.
        if matches!(s.kind, ScopeKind::Namespace { .. }) {
            s.flags = s.flags.without(Flags::EXPORT_SYMBOLS);
        }
        let definition = matches!(s.kind, ScopeKind::Function(_));
        if matches!(s.kind, ScopeKind::Function(_) | ScopeKind::FunctionDecl(_)) {
            s.flags = linkage_flags(s.flags, definition);
            s.extra.retain(|a| a.attr != DW_AT_INLINE);
        }
        // A definition's DIE shows its declaration's accessibility and `explicit`, which
        // LLVM states on the declaration only.
        if s.function().is_some_and(|f| f.declaration.is_some()) {
            for flag in [
                Flags::PUBLIC,
                Flags::PROTECTED,
                Flags::PRIVATE,
                Flags::EXPLICIT,
            ] {
                s.flags = s.flags.without(flag);
            }
        }
    }
    // Readers share one expression between equal locations: each loses its address once.
    let mut global_exprs = std::collections::BTreeSet::new();
    for v in m.vars.values_mut() {
        if matches!(v.kind, VarKind::Local | VarKind::Param(_)) {
            v.const_value = None;
        }
        if v.kind != VarKind::Global {
            continue;
        }
        v.flags = linkage_flags(v.flags, !v.flags.has(Flags::FWD_DECL));
        if let Some(Location::Expr(e)) = v.location {
            global_exprs.insert(e);
        }
    }
    for e in global_exprs {
        let ops = &mut m.exprs.get_mut(e).ops;
        if ops.first().is_some_and(|o| o.code.0 == 0x03) {
            ops.remove(0);
        }
    }
}

/// What the DWARF reader builds from the backend's additions and LLVM IR has no entity for:
/// `__ARRAY_SIZE_TYPE__` (the index type of every DW_TAG_subrange_type) and the concrete
/// variables of inlined code (LLVM: dbg.value events with an inlinedAt, code positions).
fn synthesised(m: &Module) -> HashMap<Ref, Option<Ref>> {
    let types = m
        .types
        .iter()
        .filter(|(_, t)| t.name.as_deref() == Some("__ARRAY_SIZE_TYPE__"))
        .map(|(h, _)| Ref::Type(h));
    let vars = m
        .vars
        .iter()
        .filter(|(_, v)| matches!(v.kind, VarKind::Inlined { .. }))
        .map(|(h, _)| Ref::Var(h));
    types.chain(vars).map(|r| (r, None)).collect()
}

/// LLVM 14 writes a function's static variable under an attribute-less DW_TAG_subprogram when
/// the function exists only inlined. Such a variable goes back to the function the LLVM side
/// puts it in (matched by variable name and line, then function name), and the empty
/// subprogram with its synthesised signature type goes.
fn rehome_statics(llvm: &Module, m: &Module) -> Result<Module, PruneError> {
    let empty = |s: &crate::ir::Scope| {
        matches!(&s.kind, ScopeKind::Function(f) if f.linkage.is_none() && f.declaration.is_none())
            && s.name.is_none()
            && s.at.is_none()
    };
    let home_in_llvm = |name: &str, line: u32| {
        llvm.vars.values().find_map(|v| {
            let Some(Ref::Scope(f)) = v.scope else {
                return None;
            };
            (v.name.as_deref() == Some(name) && v.at.map(|a| a.line) == Some(line))
                .then(|| llvm.scopes.get(f).name.clone())
                .flatten()
        })
    };
    let mut out = m.clone();
    let mut dead: HashMap<Ref, Option<Ref>> = HashMap::new();
    for (h, s) in m.scopes.iter().filter(|(_, s)| empty(s)) {
        let mut moved_to = None;
        for (vh, v) in m
            .vars
            .iter()
            .filter(|(_, v)| v.scope == Some(Ref::Scope(h)))
        {
            let (Some(name), Some(at)) = (&v.name, v.at) else {
                continue;
            };
            let Some(fname) = home_in_llvm(name, at.line) else {
                continue;
            };
            let target = m.scopes.iter().find(|(t, ts)| {
                *t != h && ts.name.as_deref() == Some(fname.as_str()) && ts.function().is_some()
            });
            if let Some((t, _)) = target {
                out.vars.get_mut(vh).scope = Some(Ref::Scope(t));
                moved_to = Some(Ref::Scope(t));
            }
        }
        if let Some(t) = moved_to {
            dead.insert(Ref::Scope(h), Some(t));
            if let Some(ty) = s.function().and_then(|f| f.ty) {
                let shared = m
                    .scopes
                    .iter()
                    .any(|(o, os)| o != h && os.function().and_then(|f| f.ty) == Some(ty));
                if !shared {
                    dead.insert(Ref::Type(ty), None);
                }
            }
        }
    }
    if dead.is_empty() {
        return Ok(out);
    }
    prune::remove(&out, &dead)
}

/// A file is its path: LLVM keeps an absolute name with the directory it was compiled in, a
/// DWARF 5 line table splits it into a directory entry and a name.
/// A relative directory is the compilation directory's (LLVM writes an include directory below
/// the compilation directory relative to it).
fn file_paths(m: &mut Module) {
    let absolute = |p: &str| p.starts_with('/');
    let comp_dir = m
        .units
        .values()
        .find_map(|u| m.files.get(u.file?).directory.clone())
        .filter(|d| absolute(d));
    for f in m.files.values_mut() {
        if absolute(&f.name) {
            f.directory = None;
            continue;
        }
        let dir = match (f.directory.take(), &comp_dir) {
            (Some(d), _) if absolute(&d) => Some(d),
            (Some(d), Some(c)) => Some(format!("{}/{d}", c.trim_end_matches('/'))),
            (d, _) => {
                f.directory = d;
                None
            }
        };
        if let Some(dir) = dir {
            f.name = format!("{}/{}", dir.trim_end_matches('/'), f.name);
        }
    }
}

/// Files equal once their paths are (`file_paths`) become one: clang's DIFile of the unit
/// (name and compilation directory) and the one of its subprograms (the absolute name alone)
/// are one line-table entry in DWARF (HIP device code has both).
fn unify_files(m: &Module) -> Result<Module, PruneError> {
    prune::merge_equal_files(m)
}

/// Files no declarative entity names: a DWARF line table lists every file of the unit (clang
/// adds `<stdin>`), LLVM keeps DIFiles of entities the backend does not emit.
fn unused_files(m: &Module) -> Result<Module, PruneError> {
    let opts = PrintOptions::default();
    let mut used = vec![false; m.files.len()];
    let mut mark = |r: Ref, _: &dyn crate::ir::text::RecordDyn| {
        if matches!(r, Ref::File(_) | Ref::Text(_)) {
            return;
        }
        for x in crate::ir::refs_of(m, r, opts) {
            if let Ref::File(f) = x {
                used[f.index()] = true;
            }
        }
    };
    crate::ir::text::for_each_entity!(m, mark);
    let dead: HashMap<Ref, Option<Ref>> = m
        .files
        .iter()
        .filter(|(h, _)| !used[h.index()])
        .map(|(h, _)| (Ref::File(h), None))
        .collect();
    prune::remove(m, &dead)
}

fn linkage_flags(f: Flags, definition: bool) -> Flags {
    let mut f = if f.has(Flags::EXTERNAL) {
        f.without(Flags::EXTERNAL)
    } else {
        f.with(Flags::LOCAL)
    };
    if definition {
        f = f.with(Flags::DEFINITION);
    }
    f
}

/// A type's size, looking through typedefs and qualifiers (which state none).
fn effective_size(m: &Module, mut h: Handle<Type>) -> Option<u64> {
    for _ in 0..64 {
        let t = m.types.get(h);
        if let Some(s) = const_size(t) {
            return Some(s);
        }
        h = match t.kind {
            TypeKind::Typedef { base } | TypeKind::Qualified { base, .. } => base?,
            _ => return None,
        };
    }
    None
}

fn const_size(t: &Type) -> Option<u64> {
    match t.size {
        Some(Bound::Const(b)) => u64::try_from(b).ok(),
        _ => None,
    }
}

/// DwarfDebug emits a lexical block only when it holds something but other scopes: a block
/// whose only children are blocks hands them to its parent, and an empty one disappears.
/// Applied bottom-up on both sides (a DWARF reader's blocks satisfy it already).
fn flatten_blocks(m: &Module) -> Result<Module, PruneError> {
    let mut holds = vec![false; m.scopes.len()];
    let mut mark = |r: Option<Ref>| {
        if let Some(Ref::Scope(s)) = r {
            holds[s.index()] = true;
        }
    };
    m.vars.values().for_each(|v| mark(v.scope));
    m.labels
        .values()
        .for_each(|l| mark(l.scope.map(Ref::Scope)));
    m.imports.values().for_each(|i| mark(i.scope));
    m.types.values().for_each(|t| mark(t.scope));
    m.call_sites
        .values()
        .for_each(|c| mark(c.scope.map(Ref::Scope)));
    let dead: HashMap<Ref, Option<Ref>> = m
        .scopes
        .iter()
        .filter(|(h, s)| matches!(s.kind, ScopeKind::LexicalBlock { .. }) && !holds[h.index()])
        .map(|(h, s)| (Ref::Scope(h), s.parent))
        .collect();
    if dead.is_empty() {
        return Ok(m.clone());
    }
    prune::remove(m, &dead)
}

/// LLVM uniques its type nodes and shares one DISubroutineType between functions of the same
/// signature; DWARF has one DIE per use (each subprogram's signature is its own). Types equal
/// in every field become one, on both sides.
fn unify_types(m: &Module) -> Result<Module, PruneError> {
    let mut rep: Vec<usize> = (0..m.types.len()).collect();
    loop {
        let mut first: HashMap<String, usize> = HashMap::new();
        let mut merged = Vec::new();
        {
            let namer = Canonical(&rep);
            for (h, t) in m.types.iter() {
                if rep[h.index()] != h.index() {
                    continue;
                }
                let key = render(t, &namer, PrintOptions::default());
                match first.get(&key) {
                    Some(&f) => merged.push((h.index(), f)),
                    None => {
                        first.insert(key, h.index());
                    }
                }
            }
        }
        if merged.is_empty() {
            break;
        }
        for (i, f) in merged {
            rep[i] = f;
        }
    }
    let dead: HashMap<Ref, Option<Ref>> = rep
        .iter()
        .enumerate()
        .filter(|(i, r)| *i != **r)
        .map(|(i, r)| {
            (
                Ref::Type(Handle::new(i as u32)),
                Some(Ref::Type(Handle::new(*r as u32))),
            )
        })
        .collect();
    if dead.is_empty() {
        return Ok(m.clone());
    }
    prune::remove(m, &dead)
}

/// Names types by the representative of their class, everything else by its index.
struct Canonical<'a>(&'a [usize]);

impl Namer for Canonical<'_> {
    fn name(&self, r: Ref, out: &mut String) {
        use std::fmt::Write;
        let i = match r {
            Ref::Type(h) => self.0.get(h.index()).copied().unwrap_or(h.index()),
            r => r.index(),
        };
        let _ = write!(out, "{}{i}", r.kind().prefix());
    }
}
