//! Scope DIEs → scopes: subprograms (with their function details), lexical blocks,
//! namespaces, modules, common blocks; inlined subroutines, call sites, and the concrete
//! instances of abstract DIEs.

use gimli::constants as dw;
use gimli::AttributeValue as AttrValue;

use super::walker::{
    binding, function_mut, own_flags, ref_offset, scope_of, take_flag, take_s, take_u, At, DResult,
    Filled, Frame, Plan, Slice, UnitState, Walker,
};
use crate::diag::LossKind;
use crate::dwarf::bytes::Leb128;
use crate::ir::{
    CallParam, CallSite, CodePos, CodeRange, Flags, FunctionInfo, Handle, Import, InlinedAt, Label,
    Ref, Scope, ScopeKind, ScopeRun, Type, TypeKind, Virtuality,
};
use crate::spec::dwarf_vendor as vendor;

impl Walker<'_> {
    pub(super) fn fill_scope(
        &mut self,
        mut at: At<'_, '_>,
        h: Handle<Scope>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> Filled {
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let decl_at = self.loc(&mut at);
        let mut flags = self.flags(at.die);
        let kind = match at.die.tag {
            dw::DW_TAG_subprogram => {
                let f = self.function(&mut at, ranges.clone(), frame)?;
                for r in &ranges {
                    self.m.scope_runs.push(ScopeRun {
                        range: *r,
                        scope: Ref::Scope(h),
                        inlined: frame.inlined,
                    });
                }
                if flags.has(Flags::FWD_DECL) {
                    // The kind says it is a declaration; a declaration belongs to no unit
                    // (as in LLVM: `unit:` is a definition's).
                    flags = flags.without(Flags::FWD_DECL);
                    let mut f = f;
                    f.unit = None;
                    ScopeKind::FunctionDecl(Box::new(f))
                } else {
                    ScopeKind::Function(Box::new(f))
                }
            }
            // A block file dwarv wrote (exact sources): its code is in its runs.
            dw::DW_TAG_lexical_block if at.die.has(vendor::DW_AT_DWARV_BLOCK_FILE) => {
                let n = at.die.udata(vendor::DW_AT_DWARV_BLOCK_FILE);
                let discriminator = n
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| at.fail("DW_AT_dwarv_block_file is no 32-bit discriminator"))?;
                ScopeKind::BlockFile { discriminator }
            }
            dw::DW_TAG_lexical_block => {
                for r in &ranges {
                    self.m.scope_runs.push(ScopeRun {
                        range: *r,
                        scope: Ref::Scope(h),
                        inlined: frame.inlined,
                    });
                }
                // A block only in inlined code (no abstract origin) has its code in the runs.
                match frame.inlined {
                    Some(_) => ScopeKind::LexicalBlock { ranges: Vec::new() },
                    None => ScopeKind::LexicalBlock { ranges },
                }
            }
            dw::DW_TAG_namespace => {
                // An inline namespace: the kind says it (as LLVM's DINamespace does), not a flag.
                let export_symbols = flags.has(Flags::EXPORT_SYMBOLS);
                flags = flags.without(Flags::EXPORT_SYMBOLS);
                ScopeKind::Namespace { export_symbols }
            }
            dw::DW_TAG_module => {
                // A declaration: the kind says it (LLVM's DIModule isDecl), not a flag.
                let is_decl = flags.has(Flags::FWD_DECL);
                flags = flags.without(Flags::FWD_DECL);
                ScopeKind::Module {
                    config_macros: self.string(&mut at, dw::DW_AT_LLVM_config_macros)?,
                    include_path: self.string(&mut at, dw::DW_AT_LLVM_include_path)?,
                    api_notes: self.string(&mut at, vendor::DW_AT_LLVM_APINOTES)?,
                    is_decl,
                }
            }
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
            FunctionCode::of(old).complete(new);
        }
        s.kind = kind;
        s.name = name;
        s.parent = at.parent.and_then(|p| p.ent);
        s.at = decl_at;
        if let Some(p) = self.reference(&mut at, vendor::DW_AT_DWARV_PARENT)? {
            self.m.scopes.get_mut(h).parent = Some(p);
        }
        let s = self.m.scopes.get_mut(h);
        s.flags.bits |= flags.bits;
        s.flags.foreign |= flags.foreign;
        self.attach_to_parent(at.parent, Ref::Scope(h), at.die.tag);
        Ok(Vec::new())
    }

    /// DW_AT_object_pointer: the parameter it names, or none when that parameter is a part of
    /// the function's signature rather than a variable (its type gets the flag, as LLVM
    /// states it: `fill_type_part`).
    fn object_pointer(&mut self, at: &mut At) -> DResult<Option<Ref>> {
        let Some(v) = at.die.peek_value(dw::DW_AT_object_pointer) else {
            return Ok(None);
        };
        let part = ref_offset(at.unit, &v).filter(|o| {
            self.plans
                .binary_search_by_key(o, |p| p.0)
                .is_ok_and(|i| matches!(self.plans[i].1, Plan::Part))
        });
        let Some(o) = part else {
            return self.reference(at, dw::DW_AT_object_pointer);
        };
        at.die.mark(dw::DW_AT_object_pointer);
        self.object_pointer_parts.insert(o);
        Ok(None)
    }

    /// A subprogram's function details; its signature type is built from the return type and
    /// the formal parameters that follow (`Frame::sig`).
    pub(super) fn function(
        &mut self,
        at: &mut At,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> DResult<FunctionInfo> {
        let linkage = match self.string(at, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(at, dw::DW_AT_MIPS_linkage_name)?,
        };
        let ret = self.type_ref(at, dw::DW_AT_type)?;
        let declaration = match self.reference(at, dw::DW_AT_specification)? {
            Some(Ref::Scope(s)) => Some(s),
            Some(_) => return Err(at.fail("DW_AT_specification is no function")),
            None => None,
        };
        // A definition listing as many parameters as its declaration's signature (or none)
        // has that signature; one listing another number (gcc's stand-in declarations in a
        // unit whose type lives in a type unit list none; its D2 destructor instance of a D4
        // has no `__in_chrg`) a signature of its own, with the declaration's return type.
        let own = self.own_params.get(&at.die.off).copied().unwrap_or(0);
        let params_of =
            |m: &crate::ir::Module, t: Handle<crate::ir::Type>| match &m.types.get(t).kind {
                TypeKind::Function { params, .. } => Some(params.len()),
                _ => None,
            };
        let declared_ty = declaration
            .and_then(|d| self.m.scopes.get(d).function())
            .and_then(|f| f.ty);
        let own_list = own > 0
            && declared_ty
                .and_then(|t| params_of(self.m, t))
                .is_some_and(|n| n != own);
        let declared = declared_ty.filter(|_| ret.is_none() && !own_list);
        let ret = match (
            ret,
            own_list,
            declared_ty.map(|t| &self.m.types.get(t).kind),
        ) {
            (None, true, Some(TypeKind::Function { ret, .. })) => *ret,
            _ => ret,
        };
        // dwarv names the function type when it has a DIE of its own.
        let named = self.type_ref(at, vendor::DW_AT_DWARV_FUNCTION_TYPE)?;
        let unsigned = at.die.take(vendor::DW_AT_DWARV_NO_SIGNATURE).is_some();
        // A clone of a definition of a declaration, listing as many parameters as its origin
        // (or none), has the origin's signature, the declaration's (`complete_clones`); other
        // clones one of their own, as every function without a declaration.
        let same_as_origin = self.clones.get(&at.die.off).is_some_and(|o| {
            self.specified.contains(o)
                && (own == 0 || self.own_params.get(o).copied().unwrap_or(0) == own)
        });
        let sig = match (unsigned || same_as_origin, named.or(declared)) {
            (true, _) => None,
            (false, Some(t)) => Some(t),
            (false, None) => {
                let sig = self.m.types.push(Type::new(TypeKind::Function {
                    ret,
                    params: Vec::new(),
                    variadic: false,
                    calling_convention: 0,
                }));
                frame.sig = Some(sig);
                Some(sig)
            }
        };
        // The `this` parameter: a flag on the variable, as LLVM states it. A declaration's
        // parameters (gcc names one) are its signature's types, no variables: said as lost.
        if let Some(Ref::Var(v)) = self.object_pointer(at)? {
            self.object_pointers.push(v);
        }
        let virtual_index = match at.die.take(dw::DW_AT_vtable_elem_location) {
            Some(AttrValue::Exprloc(e)) => {
                // DW_OP_constu N, or DW_OP_litN for small N.
                let b = e.0.slice();
                let c = match b.first() {
                    Some(lit @ 0x30..=0x4f) => u64::from(lit - 0x30),
                    Some(0x10) => Leb128::scan(&b[1..], usize::MAX).bits,
                    _ => 0,
                };
                Some(u32::try_from(c).unwrap_or(u32::MAX))
            }
            _ => None,
        };
        let code = self.function_code(at)?;
        // DW_AT_trampoline in its string form is LLVM's targetFuncName; its other forms (a
        // flag, a reference, an address) stay raw attributes.
        let target = match at.die.peek_value(dw::DW_AT_trampoline) {
            Some(
                AttrValue::String(_)
                | AttrValue::DebugStrRef(_)
                | AttrValue::DebugStrRefSup(_)
                | AttrValue::DebugStrOffsetsIndex(_)
                | AttrValue::DebugLineStrRef(_),
            ) => self.string(at, dw::DW_AT_trampoline)?,
            _ => None,
        };
        Ok(FunctionInfo {
            linkage,
            ty: sig,
            unit: Some(at.cur.unit),
            scope_line: None,
            target,
            declaration,
            containing_type: self.type_ref(at, dw::DW_AT_containing_type)?,
            virtuality: at
                .die
                .udata(dw::DW_AT_virtuality)
                .map(|v| Virtuality(v as u8)),
            virtual_index,
            this_adjustment: None,
            templates: Vec::new(),
            thrown: Vec::new(),
            retained: Vec::new(),
            binding: None,
            ranges,
            entry_pc: code.entry_pc,
            frame_base: code.frame_base,
            calling_convention: at.die.udata(dw::DW_AT_calling_convention).map(|c| c as u8),
            lanes: code.lanes,
            lane_pc: code.lane_pc,
            active_lane: code.active_lane,
        })
    }

    /// What a subprogram says about its code besides its ranges: on the subprogram itself, or
    /// on the concrete out-of-line instance of an abstract one (`fill_alias`).
    fn function_code(&mut self, at: &mut At) -> DResult<FunctionCode> {
        Ok(FunctionCode {
            entry_pc: self.address(at, dw::DW_AT_entry_pc)?.map(CodePos::Addr),
            frame_base: self.take_location(at, dw::DW_AT_frame_base)?,
            lanes: at
                .die
                .udata(vendor::DW_AT_LLVM_LANES)
                .map(|l| u32::try_from(l).unwrap_or(u32::MAX)),
            lane_pc: self.take_location(at, vendor::DW_AT_LLVM_LANE_PC)?,
            active_lane: self.take_location(at, vendor::DW_AT_LLVM_ACTIVE_LANE)?,
        })
    }

    pub(super) fn fill_inlined(
        &mut self,
        mut at: At<'_, '_>,
        h: Handle<InlinedAt>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> Filled {
        let origin = match at.die.take(dw::DW_AT_abstract_origin) {
            Some(v) => v,
            None => return Err(at.fail("inlined subroutine without DW_AT_abstract_origin")),
        };
        let origin = match self.plans_origin(&origin, at.cur) {
            Some(Ref::Scope(s)) => s,
            _ => {
                return Err(at.fail("DW_AT_abstract_origin of an inlined subroutine is no function"))
            }
        };
        let decl_at = self
            .loc_of(
                &mut at,
                dw::DW_AT_call_file,
                dw::DW_AT_call_line,
                dw::DW_AT_call_column,
            )
            .unwrap_or_default();
        // An address entry pc (a constant one, an offset in DWARF 5, stays raw).
        let entry_pc = match at.die.peek_value(dw::DW_AT_entry_pc) {
            Some(AttrValue::Addr(_) | AttrValue::DebugAddrIndex(_)) => self
                .address(&mut at, dw::DW_AT_entry_pc)?
                .map(CodePos::Addr),
            _ => None,
        };
        if let Some(n) = at.die.udata(vendor::DW_AT_DWARV_INLINED) {
            self.numbered_inlined.push((n, h));
        }
        let ia = self.m.inlined.get_mut(h);
        ia.at = decl_at;
        ia.scope = scope_of(at.parent);
        ia.parent = at.parent.and_then(|p| p.inlined);
        ia.origin = ranges.is_empty().then_some(origin);
        ia.entry_pc = entry_pc;
        for r in ranges {
            self.m.scope_runs.push(ScopeRun {
                range: r,
                scope: Ref::Scope(origin),
                inlined: Some(h),
            });
        }
        frame.ent = Some(Ref::Scope(origin));
        frame.inlined = Some(h);
        Ok(Vec::new())
    }

    pub(super) fn fill_label(&mut self, mut at: At<'_, '_>, h: Handle<Label>) -> Filled {
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let decl_at = self.loc(&mut at);
        let pos = self.address(&mut at, dw::DW_AT_low_pc)?;
        let origin = match self.reference(&mut at, dw::DW_AT_abstract_origin)? {
            Some(Ref::Label(o)) => Some(o),
            Some(_) => {
                self.diag.push(
                    LossKind::Dropped,
                    format!(".debug_info+{:#x}", at.die.off),
                    "a label's DW_AT_abstract_origin names no label",
                );
                None
            }
            None => None,
        };
        *self.m.labels.get_mut(h) = Label {
            name: name.unwrap_or_default(),
            scope: scope_of(at.parent),
            at: decl_at,
            pos: pos.map(CodePos::Addr),
            origin,
        };
        Ok(Vec::new())
    }

    pub(super) fn fill_import(&mut self, mut at: At<'_, '_>, h: Handle<Import>) -> Filled {
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let decl_at = self.loc(&mut at);
        let entity = self.reference(&mut at, dw::DW_AT_import)?;
        let i = self.m.imports.get_mut(h);
        i.name = name;
        i.at = decl_at;
        i.entity = entity;
        i.scope = at.parent.and_then(|p| p.ent);
        Ok(Vec::new())
    }

    pub(super) fn plans_origin(&self, v: &AttrValue<Slice<'_>>, cur: &UnitState) -> Option<Ref> {
        let o = match v {
            AttrValue::UnitRef(o) => cur.base + o.0 as u64,
            AttrValue::DebugInfoRef(o) => o.0 as u64,
            _ => return None,
        };
        self.map.get(&o).copied()
    }

    pub(super) fn fill_call_site(&mut self, mut at: At<'_, '_>, h: Handle<CallSite>) -> Filled {
        let target = match self.reference(&mut at, dw::DW_AT_call_origin)? {
            Some(r) => Some(r),
            None => self.reference(&mut at, dw::DW_AT_abstract_origin)?,
        };
        let (pos, is_return_pc) = match self.address(&mut at, dw::DW_AT_call_return_pc)? {
            Some(a) => (Some(a), true),
            None => match self.address(&mut at, dw::DW_AT_call_pc)? {
                Some(a) => (Some(a), false),
                // GNU_call_site: DW_AT_low_pc is the return address.
                None => (self.address(&mut at, dw::DW_AT_low_pc)?, true),
            },
        };
        let target_location = match self.take_location(&mut at, dw::DW_AT_call_target)? {
            Some(l) => Some(l),
            None => self.take_location(&mut at, dw::DW_AT_GNU_call_site_target)?,
        };
        let tail = at.die.flag(dw::DW_AT_call_tail_call) || at.die.flag(dw::DW_AT_GNU_tail_call);
        let decl_at = self.loc_of(
            &mut at,
            dw::DW_AT_call_file,
            dw::DW_AT_call_line,
            dw::DW_AT_call_column,
        );
        let c = self.m.call_sites.get_mut(h);
        c.scope = scope_of(at.parent);
        c.pos = pos.map(CodePos::Addr);
        c.is_return_pc = is_return_pc;
        c.target = target;
        c.target_location = target_location;
        c.tail = tail;
        c.at = decl_at;
        Ok(Vec::new())
    }

    /// A concrete instance of an abstract DIE: its code ranges and locations complete the
    /// origin's entity.
    pub(super) fn fill_alias(
        &mut self,
        mut at: At<'_, '_>,
        ranges: Vec<CodeRange>,
        frame: &mut Frame,
    ) -> Filled {
        // A block matched to its origin by its variables (clang names none).
        let unnamed = at.die.tag == dw::DW_TAG_lexical_block
            && !at
                .die
                .attrs
                .iter()
                .any(|a| a.name() == dw::DW_AT_abstract_origin);
        at.die.mark(dw::DW_AT_abstract_origin);
        let target = self.map.get(&at.die.off).copied();
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
                // (A block file read already has its parent: the placeholder has none.)
                let s = self.m.scopes.get(h);
                let unfilled = matches!(s.kind, ScopeKind::BlockFile { .. }) && s.parent.is_none();
                if at.die.tag == dw::DW_TAG_subprogram {
                    // gcc names the `this` of each instance (its own parameter, or the concrete
                    // copy of the origin's): the flag on that variable, as on the origin's.
                    if let Some(Ref::Var(v)) = self.object_pointer(&mut at)? {
                        self.object_pointers.push(v);
                    }
                    let code = self.function_code(&mut at)?;
                    let flags = self.flags(at.die);
                    let s = self.m.scopes.get_mut(h);
                    s.flags.bits |= flags.bits;
                    if unfilled {
                        s.kind = ScopeKind::Function(Box::default());
                    }
                    if let Some(f) = function_mut(&mut s.kind) {
                        f.ranges.extend(ranges);
                        code.complete(f);
                    }
                } else if frame.inlined.is_none() {
                    let s = self.m.scopes.get_mut(h);
                    if unfilled {
                        s.kind = ScopeKind::LexicalBlock { ranges: Vec::new() };
                    }
                    if unnamed {
                        s.flags = s.flags.with(Flags::COPY_WITHOUT_ORIGIN);
                    }
                    if let ScopeKind::LexicalBlock { ranges: rs } = &mut s.kind {
                        rs.extend(ranges);
                    }
                }
            }
            Some(Ref::Var(h)) => {
                let views = self.locviews(&mut at);
                let location = self.var_location(&mut at)?;
                let const_value = self.value(&mut at, dw::DW_AT_const_value)?;
                let v = self.m.vars.get_mut(h);
                // A second concrete instance (gcc's clones) neither gives its location nor its
                // views: the first's stand.
                let views = views.filter(|_| v.location.is_none());
                v.location = v.location.or(location);
                if v.const_value.is_none() {
                    v.const_value = const_value;
                }
                return Ok(views.into_iter().collect());
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    /// A call-site parameter: its location and values join its call site.
    pub(super) fn fill_call_param(&mut self, mut at: At<'_, '_>) -> Filled {
        let Some(p) = at.parent else {
            return Ok(Vec::new());
        };
        let location = self.param_expr(&mut at, dw::DW_AT_location)?;
        let value = match self.param_expr(&mut at, dw::DW_AT_call_value)? {
            Some(v) => Some(v),
            None => self.param_expr(&mut at, dw::DW_AT_GNU_call_site_value)?,
        };
        let data_value = self.param_expr(&mut at, dw::DW_AT_call_data_value)?;
        if let Some(Ref::CallSite(h)) = p.ent {
            self.m.call_sites.get_mut(h).params.push(CallParam {
                location,
                value,
                data_value,
            });
        }
        Ok(Vec::new())
    }
}

/// A function's code attributes other than its ranges, which an abstract subprogram leaves to
/// its concrete out-of-line instance.
struct FunctionCode {
    entry_pc: Option<CodePos>,
    frame_base: Option<crate::ir::Location>,
    lanes: Option<u32>,
    lane_pc: Option<crate::ir::Location>,
    active_lane: Option<crate::ir::Location>,
}

impl FunctionCode {
    fn of(f: &FunctionInfo) -> FunctionCode {
        FunctionCode {
            entry_pc: f.entry_pc,
            frame_base: f.frame_base,
            lanes: f.lanes,
            lane_pc: f.lane_pc,
            active_lane: f.active_lane,
        }
    }

    /// Fills what `f` does not say yet.
    fn complete(self, f: &mut FunctionInfo) {
        f.entry_pc = f.entry_pc.or(self.entry_pc);
        f.frame_base = f.frame_base.or(self.frame_base);
        f.lanes = f.lanes.or(self.lanes);
        f.lane_pc = f.lane_pc.or(self.lane_pc);
        f.active_lane = f.active_lane.or(self.active_lane);
    }
}

/// dwarv's own attributes of the scopes (`spec::dwarf_vendor`) moved to their fields; a
/// signature's flags go to its function type.
pub(super) fn own_attributes(m: &mut crate::ir::Module) {
    let mut sig_flags = Vec::new();
    for s in m.scopes.values_mut() {
        let e = &mut s.extra;
        // Nothing to look for in a scope without raw attributes.
        if e.is_empty() {
            continue;
        }
        own_flags(e, &mut s.flags);
        let no_unit = take_flag(e, vendor::DW_AT_DWARV_NO_SCOPE);
        if take_flag(e, vendor::DW_AT_DWARV_NOT_FWD_DECL) {
            s.flags.bits &= !Flags::bit(5).bits;
        }
        if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) = &mut s.kind {
            if no_unit {
                f.unit = None;
            }
            if take_flag(e, vendor::DW_AT_DWARV_DERIVED_RANGES) {
                f.ranges.clear();
            }
            if let Some(l) = take_u(e, vendor::DW_AT_DWARV_SCOPE_LINE) {
                f.scope_line = Some(l as u32);
            }
            if let Some(a) = take_s(e, vendor::DW_AT_DWARV_THIS_ADJUSTMENT) {
                f.this_adjustment = Some(a);
            }
            if let Some(b) = binding(e) {
                f.binding = Some(b);
            }
            if let (Some(bits), Some(ty)) = (take_u(e, vendor::DW_AT_DWARV_SIGNATURE_FLAGS), f.ty) {
                sig_flags.push((ty, bits));
            }
        }
    }
    for (ty, bits) in sig_flags {
        m.types.get_mut(ty).flags.bits |= bits;
    }
}
