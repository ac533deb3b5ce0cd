//! Variable DIEs: globals, locals, parameters and their inlined copies, with locations from
//! the variable or from its declare/value events.

use gimli::constants as dw;
use gimli::write::AttributeValue;

use super::builder::{Builder, DieId};
use super::expr;
use crate::ir::{Handle, Ref, ScopeKind, TypeKind, VarKind};
use crate::spec::dwarf_vendor as vendor;

impl Builder<'_, '_> {
    /// Where a variable's location goes: its own DIE, or for a local or parameter of a split
    /// function a concrete copy (DW_AT_abstract_origin) in the function's concrete DIE.
    pub(super) fn var_code_die(&mut self, d: DieId, v: Handle<crate::ir::Variable>) -> DieId {
        let var = self.m.vars.get(v);
        let Some(Ref::Scope(s)) = var.scope else {
            return d;
        };
        if !matches!(var.kind, VarKind::Local | VarKind::Param(_)) {
            return d;
        }
        match self.code_parent(s) {
            // A block without code out of line has no concrete copy there, nor have its
            // variables unless they say where they are (compilers write none).
            Some(_)
                if self.codeless_block(Some(s))
                    && var.location.is_none()
                    && var.const_value.is_none() =>
            {
                d
            }
            Some(parent) => {
                let tag = self.tag(Ref::Var(v));
                let c = self.concrete_die(d.0, parent, tag, Ref::Var(v));
                if matches!(var.kind, VarKind::Param(_)) {
                    self.param_copies.insert(v, c.1);
                }
                c
            }
            None => d,
        }
    }

    /// Fills a variable's DIE `d`; its location and constant value go to `code` (`d`, or its
    /// concrete copy).
    pub(super) fn fill_var(&mut self, d: DieId, code: DieId, v: Handle<crate::ir::Variable>) {
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
        if var.kind == VarKind::Local && !in_function {
            self.set(d, vendor::DW_AT_DWARV_LOCAL, AttributeValue::FlagPresent);
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
        self.set_location(code, dw::DW_AT_location, var.location);
        if var.location.is_none() {
            if let Some(l) = expr::events_location(self, code.0, v) {
                self.set(code, dw::DW_AT_location, l);
            }
        }
        if let Some(b) = &var.binding {
            self.set_value(d, vendor::DW_AT_DWARV_BINDING, b);
        }
        if let Some(c) = &var.const_value {
            self.set_value(code, dw::DW_AT_const_value, c);
        }
        self.set_ref(d, dw::DW_AT_specification, var.declaration);
        // A parameter's object_pointer flag is the function's DW_AT_object_pointer.
        let mut flags = var.flags;
        flags.bits &= !(decl_flags.bits & crate::ir::Flags::EXTERNAL.bits);
        if matches!(var.kind, VarKind::Param(_)) {
            flags = flags.without(crate::ir::Flags::OBJECT_POINTER);
        }
        self.set_flags(d, flags);
        // Location views go with the location.
        if code != d {
            let (views, rest): (Vec<_>, Vec<_>) = var
                .extra
                .iter()
                .cloned()
                .partition(|a| a.attr == vendor::DW_AT_DWARV_LOCVIEWS.0);
            self.set_extra(code, Ref::Var(v), &views);
            self.set_extra(d, Ref::Var(v), &rest);
        } else {
            self.set_extra(d, Ref::Var(v), &var.extra);
        }
    }
}
