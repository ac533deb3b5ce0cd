//! dwarv's own DWARF attributes (`spec::dwarf_vendor`, written by `back::dwarf`) read back into
//! the IR fields they keep: the reader leaves them as raw attributes, this pass moves the scalar
//! ones (numbers and strings) to their fields. Reference-valued ones stay raw.

use crate::ir::{self, Flags, Handle, RawAttr, ScopeKind, TypeKind, Value, VarKind};
use crate::spec::dwarf_vendor as v;

/// A whole LEB128 value (the reader keeps udata/sdata attributes as their LEB128 bytes).
fn leb(b: &[u8], signed: bool) -> Option<i128> {
    let (mut v, mut shift) = (0i128, 0u32);
    for (i, x) in b.iter().enumerate() {
        if shift > 63 {
            return None;
        }
        v |= i128::from(x & 0x7f) << shift;
        shift += 7;
        if x & 0x80 == 0 {
            if signed && x & 0x40 != 0 {
                v -= 1i128 << shift;
            }
            return (i + 1 == b.len()).then_some(v);
        }
    }
    None
}

fn uleb(b: &[u8]) -> Option<u64> {
    leb(b, false).and_then(|v| u64::try_from(v).ok())
}

fn sleb(b: &[u8]) -> Option<i64> {
    leb(b, true).and_then(|v| i64::try_from(v).ok())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Takes the value of attribute `at` out of `extra`, if it is there (as a number).
pub(super) fn take_u(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<u64> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    let n = uleb(&extra[i].bytes)?;
    extra.remove(i);
    Some(n)
}

fn take_s(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<i64> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    let n = sleb(&extra[i].bytes)?;
    extra.remove(i);
    Some(n)
}

fn take_str(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<String> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    Some(text(&extra.remove(i).bytes))
}

fn take_flag(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> bool {
    match extra.iter().position(|a| a.attr == at.0) {
        Some(i) => {
            extra.remove(i);
            true
        }
        None => false,
    }
}

fn flags(extra: &mut Vec<RawAttr>, f: &mut Flags) {
    if let Some(bits) = take_u(extra, v::DW_AT_DWARV_FLAGS) {
        f.bits |= bits;
    }
    if let Some(foreign) = take_u(extra, v::DW_AT_DWARV_FOREIGN_FLAGS) {
        f.foreign = foreign as u32;
    }
}

/// What a function or variable is bound to.
fn binding(extra: &mut Vec<RawAttr>) -> Option<Value> {
    if let Some(id) = take_u(extra, v::DW_AT_DWARV_SPIRV_ID) {
        return Some(Value::Spirv(id as u32));
    }
    if let Some(s) = take_str(extra, v::DW_AT_DWARV_SYMBOL) {
        return Some(Value::Symbol(s));
    }
    take_str(extra, v::DW_AT_DWARV_LLVM_VALUE).map(Value::Llvm)
}

/// An array of one constant dimension marked DW_AT_dwarv_matrix is a matrix of its element.
fn matrix(t: &mut ir::Type, column_major: bool) {
    if let TypeKind::Array { element, dims, .. } = &t.kind {
        if let [ir::Subrange {
            count: Some(ir::Bound::Const(n)),
            lower: None,
            upper: None,
            stride: None,
            generic: false,
        }] = dims.as_slice()
        {
            t.kind = TypeKind::Matrix {
                column: *element,
                count: u32::try_from(*n).unwrap_or(u32::MAX),
                column_major,
            };
        }
    }
}

/// Moves dwarv's attributes of every entity to their fields.
pub(super) fn apply(m: &mut ir::Module) {
    for i in 0..m.units.len() {
        let u = m.units.get_mut(Handle::new(i as u32));
        let e = &mut u.extra;
        if let Some(t) = take_str(e, v::DW_AT_DWARV_FLAGS_TEXT) {
            u.flags_text = Some(t);
        }
        if let Some(l) = take_u(e, v::DW_AT_DWARV_LANGUAGE) {
            u.language = ir::Language(l as u32);
        }
        if let Some(k) = take_u(e, v::DW_AT_DWARV_EMISSION) {
            u.emission = ir::EmissionKind(k as u32);
        }
        if let Some(n) = take_u(e, v::DW_AT_DWARV_SOURCE_DWARF_VERSION) {
            u.dwarf_version = Some(n as u16);
        }
        if let Some(n) = take_u(e, v::DW_AT_DWARV_DEBUG_VERSION) {
            u.debug_version = Some(n as u32);
        }
        flags(e, &mut u.flags);
    }
    for i in 0..m.types.len() {
        let t = m.types.get_mut(Handle::new(i as u32));
        let e = &mut t.extra;
        flags(e, &mut t.flags);
        if take_flag(e, v::DW_AT_DWARV_NO_SCOPE) {
            t.scope = None;
        }
        if take_flag(e, v::DW_AT_DWARV_NOT_FWD_DECL) {
            t.flags.bits &= !Flags::bit(5).bits;
        }
        if let Some(col) = take_u(&mut t.extra, v::DW_AT_DWARV_MATRIX) {
            matrix(t, col != 0);
        }
        let e = &mut t.extra;
        match &mut t.kind {
            TypeKind::Pointer { space, .. } => {
                if let Some(k) = take_u(e, v::DW_AT_DWARV_MEMORY) {
                    space.memory = ir::Memory(k as u8);
                }
                if let Some(sc) = take_u(e, v::DW_AT_DWARV_STORAGE_CLASS) {
                    space.storage_class = Some(sc as u32);
                }
                if let Some(a) = take_u(e, v::DW_AT_DWARV_ADDRESS_SPACE) {
                    space.dwarf_space = Some(a as u32);
                }
                if take_flag(e, v::DW_AT_DWARV_DERIVED_CLASS) {
                    space.address_class = None;
                }
            }
            TypeKind::Composite { identifier, .. } | TypeKind::Enum { identifier, .. } => {
                if let Some(id) = take_str(e, v::DW_AT_DWARV_IDENTIFIER) {
                    *identifier = Some(id);
                }
            }
            _ => {}
        }
    }
    let mut sig_flags = Vec::new();
    for i in 0..m.scopes.len() {
        let s = m.scopes.get_mut(Handle::new(i as u32));
        let e = &mut s.extra;
        flags(e, &mut s.flags);
        let no_unit = take_flag(e, v::DW_AT_DWARV_NO_SCOPE);
        if take_flag(e, v::DW_AT_DWARV_NOT_FWD_DECL) {
            s.flags.bits &= !Flags::bit(5).bits;
        }
        if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) = &mut s.kind {
            if no_unit {
                f.unit = None;
            }
            if let Some(l) = take_u(e, v::DW_AT_DWARV_SCOPE_LINE) {
                f.scope_line = Some(l as u32);
            }
            if let Some(a) = take_s(e, v::DW_AT_DWARV_THIS_ADJUSTMENT) {
                f.this_adjustment = Some(a);
            }
            if let Some(b) = binding(e) {
                f.binding = Some(b);
            }
            if let (Some(bits), Some(ty)) = (take_u(e, v::DW_AT_DWARV_SIGNATURE_FLAGS), f.ty) {
                sig_flags.push((ty, bits));
            }
        }
    }
    for (ty, bits) in sig_flags {
        m.types.get_mut(ty).flags.bits |= bits;
    }
    for i in 0..m.vars.len() {
        let var = m.vars.get_mut(Handle::new(i as u32));
        let e = &mut var.extra;
        flags(e, &mut var.flags);
        if let Some(n) = take_u(e, v::DW_AT_DWARV_ARG_NUMBER) {
            if let VarKind::Param(k) = &mut var.kind {
                *k = n as u32;
            }
        }
        if let Some(b) = binding(e) {
            var.binding = Some(b);
        }
    }
}
