//! Variable DIEs → variables: globals, locals, parameters and their inlined copies.

use gimli::constants as dw;

use super::walker::{binding, own_flags, take_flag, take_u, At, DResult, Filled, Walker};
use crate::dwarf::bytes::Leb128;
use crate::ir::{Handle, Location, RawAttr, Ref, TypeKind, VarKind, Variable};
use crate::spec::dwarf_vendor as vendor;

impl Walker<'_> {
    /// A variable's DW_AT_location, on its DIE or its concrete instance's; none for a variable
    /// from SPIR-V with exact events (its location list was derived from them).
    pub(super) fn var_location(&mut self, at: &mut At<'_, '_>) -> DResult<Option<Location>> {
        match at.die.has(crate::spec::dwarf_vendor::DW_AT_DWARV_EVENTS) {
            true => {
                at.die.mark(dw::DW_AT_location);
                Ok(None)
            }
            false => self.take_location(at, dw::DW_AT_location),
        }
    }

    /// gcc's DW_AT_GNU_locviews: the view list it names sits right before the variable's
    /// location list, a ULEB pair per entry; its bytes become `DW_AT_dwarv_locviews`. A view
    /// list that does not end where the location list starts, or does not read as whole pairs,
    /// stays the raw attribute it was.
    pub(super) fn locviews(&mut self, at: &mut At<'_, '_>) -> Option<RawAttr> {
        let views = match at.die.peek_value(dw::DW_AT_GNU_locviews)? {
            gimli::AttributeValue::SecOffset(o) => o,
            _ => return None,
        };
        let list = match at.die.peek_value(dw::DW_AT_location)? {
            gimli::AttributeValue::LocationListsRef(o) => o.0,
            _ => return None,
        };
        let section = match at.cur.version >= 5 {
            true => at.u.loclists,
            false => at.u.loc,
        };
        let bytes = section.get(views..list)?;
        let (mut i, mut n) = (0, 0usize);
        while i < bytes.len() {
            let leb = Leb128::scan(&bytes[i..], 10);
            if !leb.ended {
                return None;
            }
            i += leb.len;
            n += 1;
        }
        if n % 2 != 0 || n > 1 << 21 {
            return None;
        }
        at.die.mark(dw::DW_AT_GNU_locviews);
        Some(RawAttr {
            attr: vendor::DW_AT_DWARV_LOCVIEWS.0,
            form: dw::DW_FORM_block.0,
            bytes: bytes.to_vec(),
        })
    }

    pub(super) fn fill_var(&mut self, mut at: At<'_, '_>, h: Handle<Variable>) -> Filled {
        let origin = self.reference(&mut at, dw::DW_AT_abstract_origin)?;
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let decl_at = self.loc(&mut at);
        let flags = self.flags(at.die);
        let linkage = match self.string(&mut at, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(&mut at, dw::DW_AT_MIPS_linkage_name)?,
        };
        let ty = self.type_ref(&mut at, dw::DW_AT_type)?;
        let views = self.locviews(&mut at);
        let location = self.var_location(&mut at)?;
        let const_value = self.value(&mut at, dw::DW_AT_const_value)?;
        let declaration = self.reference(&mut at, dw::DW_AT_specification)?;
        let align_bits = at
            .die
            .udata(dw::DW_AT_alignment)
            .map(|a| (a as u32).saturating_mul(8));
        let is_static = at.die.has(vendor::DW_AT_DWARV_STATIC);
        at.die.mark(vendor::DW_AT_DWARV_STATIC);
        let is_local = at.die.has(vendor::DW_AT_DWARV_LOCAL);
        at.die.mark(vendor::DW_AT_DWARV_LOCAL);
        let in_function = at.parent.is_some_and(|p| {
            matches!(
                p.tag,
                dw::DW_TAG_subprogram | dw::DW_TAG_lexical_block | dw::DW_TAG_inlined_subroutine
            )
        });
        let kind = match (origin, at.parent.and_then(|p| p.inlined)) {
            (Some(Ref::Var(o)), Some(ia)) => VarKind::Inlined {
                origin: o,
                inlined: ia,
            },
            (Some(_), _) => return Err(at.fail("DW_AT_abstract_origin is no variable")),
            (None, _) if at.die.tag == dw::DW_TAG_formal_parameter => {
                let p = at.parent.map_or(0, |p| p.params) + 1;
                if let Some(sig) = at.parent.and_then(|p| p.sig) {
                    if let TypeKind::Function { params, .. } = &mut self.m.types.get_mut(sig).kind {
                        params.push(ty);
                    }
                }
                VarKind::Param(p)
            }
            (None, _) if in_function && !self.is_static_storage(location) && !is_static => {
                VarKind::Local
            }
            (None, _) if is_local => VarKind::Local,
            _ => VarKind::Global,
        };
        let scope = at.parent.and_then(|p| p.ent);
        let v = self.m.vars.get_mut(h);
        v.kind = kind;
        v.name = name;
        v.ty = ty;
        v.scope = scope;
        v.at = decl_at;
        v.flags = flags;
        v.linkage = linkage;
        v.align_bits = align_bits;
        // A concrete instance that came first (fill_alias) may have given the location.
        v.location = location.or(v.location);
        v.const_value = const_value.or(v.const_value.take());
        v.declaration = declaration;
        if let Some(p) = at.parent {
            if matches!(p.ent, Some(Ref::Type(_))) {
                self.attach_to_parent(Some(p), Ref::Var(h), at.die.tag);
            }
        }
        Ok(views.into_iter().collect())
    }

    /// Whether a location is a static address (DW_OP_addr/addrx, or a thread-local one): a
    /// function's static variable is a global scoped in the function, as in LLVM and SPIR-V.
    pub(super) fn is_static_storage(&self, location: Option<Location>) -> bool {
        let Some(Location::Expr(e)) = location else {
            return false;
        };
        crate::dwarf::is_static_location(&self.m.exprs.get(e).ops)
    }
}

/// dwarv's own attributes of the variables (`spec::dwarf_vendor`) moved to their fields.
pub(super) fn own_attributes(m: &mut crate::ir::Module) {
    for var in m.vars.values_mut() {
        let e = &mut var.extra;
        // Most variables keep no raw attribute: nothing to look for.
        if e.is_empty() {
            continue;
        }
        own_flags(e, &mut var.flags);
        if take_flag(e, vendor::DW_AT_DWARV_NO_SCOPE) {
            var.scope = None;
        }
        if let Some(n) = take_u(e, vendor::DW_AT_DWARV_ARG_NUMBER) {
            if let VarKind::Param(k) = &mut var.kind {
                *k = n as u32;
            }
        }
        if let Some(b) = binding(e) {
            var.binding = Some(b);
        }
    }
}
