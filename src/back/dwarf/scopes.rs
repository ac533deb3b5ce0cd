//! Scope DIEs: namespaces, modules, common blocks, functions and lexical blocks, labels,
//! imports and call sites; the code ranges of scopes that give none, from the scope runs.
//! Inlined code (inlined subroutines, abstract and concrete functions) is `inlined.rs`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::constants as dw;
use gimli::write::AttributeValue;

use super::builder::{addr, Builder, DieId};
use crate::diag::LossKind;
use crate::ir::Flags;
use crate::ir::{CodeRange, Handle, Location, Module, Ref, ScopeKind, Type, TypeKind, Value};
use crate::spec::dwarf_vendor as vendor;

impl Builder<'_, '_> {
    pub(super) fn fill_scope(&mut self, d: DieId, s: Handle<crate::ir::Scope>) {
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
                self.set_str(d, vendor::DW_AT_LLVM_APINOTES, api_notes.as_deref());
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
                // "All calls described" is said of the code.
                let all_calls = Flags::ALL_CALLS_DESCRIBED;
                if let Some(&c) = self.out_of_line.get(&s).filter(|_| flags.has(all_calls)) {
                    self.set_flags((d.0, c), all_calls);
                    flags = flags.without(all_calls);
                }
            }
            ScopeKind::LexicalBlock { ranges } => {
                // Under its inlined subroutine, the reader would take the inlined function for
                // its parent: a block around it that has no code there is named.
                match sc.parent {
                    Some(Ref::Scope(p))
                        if self.inlined_only.contains_key(&s)
                            && !self.inlined_only.contains_key(&p)
                            && matches!(
                                m.scopes.get(p).kind,
                                ScopeKind::LexicalBlock { .. } | ScopeKind::BlockFile { .. }
                            )
                            && super::records::exact(m) =>
                    {
                        self.set_ref(d, vendor::DW_AT_DWARV_PARENT, Some(Ref::Scope(p)));
                    }
                    _ => {}
                }
                let r = match self.inlined_only.get(&s) {
                    _ if !ranges.is_empty() => ranges.clone(),
                    Some(&i) => self.inlined_block_ranges(i, s),
                    None => self.run_ranges.get(&s).cloned().unwrap_or_default(),
                };
                // In a split function, the code goes to a concrete copy (when there is code).
                let around = match sc.parent {
                    Some(Ref::Scope(p)) if !self.inlined_only.contains_key(&s) => {
                        self.code_parent(p)
                    }
                    _ => None,
                };
                match around {
                    Some(parent) if !r.is_empty() => {
                        let c = match flags.has(Flags::COPY_WITHOUT_ORIGIN) {
                            true => (
                                d.0,
                                self.unit_mut(d.0).add(parent, dw::DW_TAG_lexical_block),
                            ),
                            false => self.concrete_die(
                                d.0,
                                parent,
                                dw::DW_TAG_lexical_block,
                                Ref::Scope(s),
                            ),
                        };
                        self.out_of_line.insert(s, c.1);
                        self.set_ranges(c, &r);
                    }
                    Some(_) => {}
                    None => self.set_ranges(d, &r),
                }
            }
            ScopeKind::BlockFile { discriminator } => {
                // Only exact sources give a block file a DIE: a lexical block without ranges
                // (debuggers see its code in its parent's), marked with its discriminator.
                self.set(
                    d,
                    vendor::DW_AT_DWARV_BLOCK_FILE,
                    AttributeValue::Udata((*discriminator).into()),
                );
                // In a split function, code scoped to it goes to a concrete copy of it.
                let around = match sc.parent {
                    Some(Ref::Scope(p)) => self.code_parent(p),
                    _ => None,
                };
                if let Some(parent) = around.filter(|_| self.run_ranges.contains_key(&s)) {
                    let c = self.concrete_die(d.0, parent, dw::DW_TAG_lexical_block, Ref::Scope(s));
                    self.out_of_line.insert(s, c.1);
                }
            }
        }
        self.set_flags(d, flags);
        // A split function's raw attributes about its calls go with its code, and so does the
        // linkage name of gcc's instance (C2/D2 of a C4/D4 constructor or destructor).
        let split = self.split.contains(&s) || self.instances.contains(&s);
        match self.out_of_line.get(&s).copied() {
            Some(c) if split => {
                let (code, rest): (Vec<_>, Vec<_>) = sc.extra.iter().cloned().partition(|a| {
                    let at = gimli::DwAt(a.attr);
                    CALL_ATTRS.contains(&at) || INSTANCE_ATTRS.contains(&at)
                });
                self.set_extra((d.0, c), Ref::Scope(s), &code);
                self.set_extra(d, Ref::Scope(s), &rest);
            }
            _ => self.set_extra(d, Ref::Scope(s), &sc.extra),
        }
    }

    /// What DWARF without dwarv's records says differently of a function (vISA tables, an IR
    /// text): a reader gives a function a signature and the unit it is in, and takes a nested
    /// function's code inside its parent's ranges for the parent's too.
    fn inexact_function_losses(
        &mut self,
        s: Handle<crate::ir::Scope>,
        f: &crate::ir::FunctionInfo,
    ) {
        let m = self.m;
        let r = Ref::Scope(s);
        if f.ty.is_none() {
            self.loss(
                LossKind::Approximated,
                r,
                "no signature type: DWARF readers build one from the DIE",
            );
        }
        if f.unit.is_none() {
            self.loss(
                LossKind::Approximated,
                r,
                "no unit: DWARF readers take the unit the DIE is in",
            );
        }
        let outer = match m.scopes.get(s).parent {
            Some(Ref::Scope(p)) => m.scopes.get(p).function(),
            _ => None,
        };
        let overlaps = outer.is_some_and(|o| {
            f.ranges
                .iter()
                .any(|a| o.ranges.iter().any(|b| a.start < b.end && b.start < a.end))
        });
        if overlaps {
            self.loss(
                LossKind::Approximated,
                r,
                "code inside the enclosing function's ranges: DWARF readers count it as that function's too",
            );
        }
    }

    pub(super) fn fill_function(
        &mut self,
        d: DieId,
        s: Handle<crate::ir::Scope>,
        f: &crate::ir::FunctionInfo,
        decl: bool,
    ) {
        let m = self.m;
        let declared = declaration_of(m, s).and_then(|x| x.function());
        if !declared.is_some_and(|x| x.linkage == f.linkage) {
            self.set_str(d, dw::DW_AT_linkage_name, f.linkage.as_deref());
        }
        if f.ty.is_none() && super::records::exact(m) {
            self.set(
                d,
                vendor::DW_AT_DWARV_NO_SIGNATURE,
                AttributeValue::FlagPresent,
            );
        } else if !super::records::exact(m) && !decl {
            self.inexact_function_losses(s, f);
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
            if !m.scopes.get(s).flags.has(Flags::FWD_DECL) {
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
        // LLVM's targetFuncName, as LLVM writes it: DW_AT_trampoline in its string form.
        self.set_str(d, dw::DW_AT_trampoline, f.target.as_deref());
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
            // DW_OP_constu N, as gcc and clang write it: gdb takes no other form (gimli's
            // op_constu would write DW_OP_litN) for a virtual function's slot.
            let mut bytes = vec![dw::DW_OP_constu.0];
            crate::dwarf::bytes::put_uleb(&mut bytes, i.into());
            let e = gimli::write::Expression::raw(bytes);
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
        // A split function's code goes to its concrete DIE, after the abstract one.
        let code = match self.split.contains(&s) {
            true => {
                let parent = self.parent_die(Ref::Scope(s), d.0);
                let c = self.concrete_die(d.0, parent, dw::DW_TAG_subprogram, Ref::Scope(s));
                self.out_of_line.insert(s, c.1);
                c
            }
            false => d,
        };
        // A declaration's instance without code (gcc's) holds its parameter variables; it
        // lives at the unit level, as gcc writes it.
        if self.instances.contains(&s) {
            // After the declaration in DIE order (readers keep the attributes in that order):
            // the scopes around it are placed first.
            let mut around = Vec::new();
            let mut cur = m.scopes.get(s).parent;
            while let Some(r) = cur.filter(|_| around.len() < 256) {
                cur = match r {
                    Ref::Scope(p) => m.scopes.get(p).parent,
                    Ref::Type(t) => self.type_parent(t),
                    _ => break,
                };
                around.push(r);
            }
            for r in around.into_iter().rev() {
                self.fill(r);
            }
            let root = self.unit_mut(d.0).root();
            let c = self.concrete_die(d.0, root, dw::DW_TAG_subprogram, Ref::Scope(s));
            self.out_of_line.insert(s, c.1);
        }
        self.function_code(code, s, f, decl);
        self.function_children(d, s, f);
    }

    /// A function's code: its ranges (or its scope runs'), entry, frame base, binding and lanes.
    fn function_code(
        &mut self,
        d: DieId,
        s: Handle<crate::ir::Scope>,
        f: &crate::ir::FunctionInfo,
        decl: bool,
    ) {
        if f.ranges.is_empty() && !decl {
            let r = self.run_ranges.get(&s).cloned().unwrap_or_default();
            if !r.is_empty() && super::records::exact(self.m) {
                self.set(
                    d,
                    vendor::DW_AT_DWARV_DERIVED_RANGES,
                    AttributeValue::FlagPresent,
                );
            }
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
            self.avoidable_loss(
                LossKind::Dropped,
                Ref::Scope(s),
                "DW_AT_LLVM_lanes/lane_pc/active_lane (AMD extensions off)",
            );
        }
    }

    /// A function's children in order: thrown types, template parameters, then parameters by
    /// number, then the `...` of a variadic signature without a DIE of its own.
    fn function_children(
        &mut self,
        d: DieId,
        s: Handle<crate::ir::Scope>,
        f: &crate::ir::FunctionInfo,
    ) {
        let m = self.m;
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
        let params = self.index.params.get(&s).unwrap_or_default().to_vec();
        // A declaration with an instance states its signature; the variables are the
        // instance's.
        let instance = self.instances.contains(&s);
        let decl = matches!(m.scopes.get(s).kind, ScopeKind::FunctionDecl(_));
        let packed = self.index.packed_params.contains(&s);
        if (params.is_empty() && !packed) || (instance && decl) {
            self.signature_params(d, f.ty, decl);
        }
        let this = params
            .iter()
            .find(|(_, p)| m.vars.get(*p).flags.has(Flags::OBJECT_POINTER))
            .map(|(_, p)| *p);
        let this_at = match self.out_of_line.get(&s) {
            Some(&c) if instance => (d.0, c),
            _ => d,
        };
        self.set_ref(this_at, dw::DW_AT_object_pointer, this.map(Ref::Var));
        let has_params = !params.is_empty();
        // Variables listed before the parameters (clang lists a function's static variables
        // first) stay there.
        let first_param = params.iter().map(|p| p.1).min();
        let leading: Vec<Handle<crate::ir::Variable>> = match first_param {
            Some(first) => self.index.vars_in.get(&s).map_or(Vec::new(), |vs| {
                vs.iter().copied().filter(|&v| v < first).collect()
            }),
            None => Vec::new(),
        };
        for v in leading {
            self.fill(Ref::Var(v));
        }
        for (_, p) in params {
            self.fill(Ref::Var(p));
        }
        // The concrete DIE names its copy of `this` too (gcc and LLVM write it on both).
        let copy = this.and_then(|p| self.param_copies.get(&p).copied());
        if let (Some(&c), Some(p), true) = (self.out_of_line.get(&s), copy, self.split.contains(&s))
        {
            self.set(
                (d.0, c),
                dw::DW_AT_object_pointer,
                AttributeValue::UnitRef(p),
            );
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

    /// A function without parameter variables states its parameters' types as formal_parameter
    /// children when its signature type gets no DIE of its own; a declaration always does (a
    /// debugger takes a member function without them for a static one), naming its object
    /// pointer. The reader takes a declaration's as its signature only when the type has no DIE.
    pub(super) fn signature_params(&mut self, d: DieId, ty: Option<Handle<Type>>, decl: bool) {
        let Some(ty) = ty.filter(|t| decl || self.signature_only.contains(t)) else {
            return;
        };
        let object_pointer = self.formal_parameters(d, ty);
        if let (Some(p), true) = (object_pointer, decl) {
            self.set(d, dw::DW_AT_object_pointer, AttributeValue::UnitRef(p));
        }
    }

    pub(super) fn fill_label(&mut self, d: DieId, l: Handle<crate::ir::Label>) {
        let lb = &self.m.labels.get(l);
        // A copy names its origin and says only what the origin does not.
        self.set_ref(d, dw::DW_AT_abstract_origin, lb.origin.map(Ref::Label));
        let name = Some(lb.name.as_str()).filter(|n| lb.origin.is_none() || !n.is_empty());
        self.set_str(d, dw::DW_AT_name, name);
        self.set_decl(d, lb.at);
        if let Some(p) = lb.pos {
            self.set(
                d,
                dw::DW_AT_low_pc,
                AttributeValue::Address(gimli::write::Address::Constant(addr(p))),
            );
        }
    }

    pub(super) fn fill_import(&mut self, d: DieId, i: Handle<crate::ir::Import>) {
        let im = &self.m.imports.get(i);
        self.set_str(d, dw::DW_AT_name, im.name.as_deref());
        self.set_ref(d, dw::DW_AT_import, im.entity);
        self.set_decl(d, im.at);
        if !im.elements.is_empty() {
            self.loss(
                LossKind::Dropped,
                Ref::Import(i),
                "imported-entity elements",
            );
        }
    }

    pub(super) fn fill_call_site(&mut self, d: DieId, c: Handle<crate::ir::CallSite>) {
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

/// What a subprogram says of the calls its code makes (the concrete DIE's, in a split function;
/// llvm-dwarfdump --verify wants one on the subprogram around each call site).
const CALL_ATTRS: &[gimli::DwAt] = &[
    dw::DW_AT_call_all_calls,
    dw::DW_AT_call_all_source_calls,
    dw::DW_AT_call_all_tail_calls,
    dw::DW_AT_GNU_all_call_sites,
    dw::DW_AT_GNU_all_source_call_sites,
    dw::DW_AT_GNU_all_tail_call_sites,
];

/// What a concrete instance says of itself besides its code: its own symbol (gcc gives each
/// instance of a constructor or destructor its linkage name, C1/C2 of the declaration's C4).
pub(super) const INSTANCE_ATTRS: &[gimli::DwAt] =
    &[dw::DW_AT_linkage_name, dw::DW_AT_MIPS_linkage_name];

/// The code of each function and block according to the scope runs: a run counts for its scope
/// and every enclosing one; inlined code counts for the scopes around its call sites.
pub(super) fn run_ranges(m: &Module) -> HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>> {
    // Only scopes without ranges of their own are asked for these (every use falls back to
    // them): a DWARF input's scopes nearly all have theirs, and collecting every run for them
    // took 2 % of a linked program's conversion.
    let wanted = |s: Handle<crate::ir::Scope>| match &m.scopes.get(s).kind {
        ScopeKind::Function(f) => f.ranges.is_empty(),
        ScopeKind::LexicalBlock { ranges } => ranges.is_empty(),
        _ => true,
    };
    let mut out: HashMap<Handle<crate::ir::Scope>, Vec<CodeRange>> = HashMap::default();
    let mut starts: Vec<Handle<crate::ir::Scope>> = Vec::new();
    let mut seen = FxHashSet::default();
    for run in &m.scope_runs {
        starts.clear();
        seen.clear();
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
        for &s0 in &starts {
            let mut cur = Some(s0);
            for _ in 0..256 {
                let Some(s) = cur else { break };
                if !seen.insert(s) {
                    break;
                }
                if wanted(s) {
                    out.entry(s).or_default().push(run.range);
                }
                cur = match m.scopes.get(s).parent {
                    Some(Ref::Scope(p)) => Some(p),
                    _ => None,
                };
            }
        }
    }
    for r in out.values_mut() {
        CodeRange::normalize_in_order(r);
    }
    out
}

/// The declaration a function definition completes (DW_AT_specification).
pub(super) fn declaration_of(m: &Module, s: Handle<crate::ir::Scope>) -> Option<&crate::ir::Scope> {
    let d = m.scopes.get(s).function()?.declaration?;
    (d != s).then(|| m.scopes.get(d))
}
