//! Type DIEs: one per IR type, by kind; template parameters, function signatures, address
//! spaces of pointers, and the flags a type's DWARF says by other attributes.

use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use gimli::write::{AttributeValue, UnitEntryId};
use gimli::{constants as dw, DwTag};

use super::builder::{raw_attr, Builder, DieId, TemplateOwner};
use super::records;

use crate::diag::LossKind;
use crate::ir::{Bound, Flags, Handle, Module, PtrKind, Ref, TemplateParamKind, Type, TypeKind};
use crate::spec::dwarf_vendor as vendor;

impl Builder<'_, '_> {
    /// A type's parent entity: its scope, or the template that lists a shared parameter.
    pub(super) fn type_parent(&self, t: Handle<Type>) -> Option<Ref> {
        self.m
            .types
            .get(t)
            .scope
            .or_else(|| self.template_owner.get(&t).map(|o| o.owner))
    }

    /// A template parameter under `owner` (DIE `d`): its own DIE for its first owner, a copy
    /// for each other one (DWARF has no shared children), which names the parameter's own DIE
    /// (DW_AT_dwarv_same_as) so that the reader takes both for one parameter.
    pub(super) fn fill_template(&mut self, owner: Ref, d: DieId, tp: Handle<Type>) {
        if self.type_parent(tp) == Some(owner) {
            self.fill(Ref::Type(tp));
            return;
        }
        self.copy_template(d, tp);
    }

    /// A copy of a template parameter under DIE `d`; a pack's copy holds copies of its members
    /// (a debugger reads the copy's children, the reader the parameter it names).
    fn copy_template(&mut self, d: DieId, tp: Handle<Type>) {
        let tag = self.tag(Ref::Type(tp));
        let copy = (d.0, self.unit_mut(d.0).add(d.1, tag));
        self.fill_type(copy, tp);
        self.set_ref(copy, vendor::DW_AT_DWARV_SAME_AS, Some(Ref::Type(tp)));
    }

    pub(super) fn fill_type(&mut self, d: DieId, t: Handle<Type>) {
        let m = self.m;
        let ty = &m.types.get(t);
        self.set_str(d, dw::DW_AT_name, ty.name.as_deref());
        // A bit field's size is its DW_AT_bit_size (`derived_type_flags`); DW_AT_byte_size, if
        // any, is its storage unit's (`fill_member`).
        let bit_field = matches!(ty.kind, TypeKind::Member { .. })
            && ty.flags.has(Flags::BIT_FIELD)
            && matches!(ty.size, Some(Bound::Const(_)));
        if !bit_field
            && (!matches!(
                ty.kind,
                TypeKind::Member { .. } | TypeKind::Inheritance { .. }
            ) || ty.size.is_some())
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
        self.fill_type_kind(d, t, ty);
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

    /// The attributes and children of a type's kind.
    fn fill_type_kind(&mut self, d: DieId, t: Handle<Type>, ty: &Type) {
        match &ty.kind {
            TypeKind::Basic { encoding } => {
                self.set(
                    d,
                    dw::DW_AT_encoding,
                    AttributeValue::Encoding(gimli::DwAte(encoding.0 as u8)),
                );
            }
            TypeKind::Pointer { pointee, space, .. } => {
                self.set_ref(d, dw::DW_AT_type, type_ref(*pointee));
                self.set_space(d, Ref::Type(t), space);
            }
            TypeKind::Qualified { base, .. } | TypeKind::Typedef { base } => {
                self.set_ref(d, dw::DW_AT_type, type_ref(*base));
            }
            TypeKind::Array { .. } => self.fill_array(d, ty),
            TypeKind::Vector { .. } => self.fill_vector(d, t, ty),
            TypeKind::Matrix {
                column,
                count,
                column_major,
            } => {
                self.set_ref(d, dw::DW_AT_type, type_ref(*column));
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
                self.set_ref(d, dw::DW_AT_type, type_ref(*ret));
                if *calling_convention != 0 {
                    self.set(
                        d,
                        dw::DW_AT_calling_convention,
                        AttributeValue::CallingConvention(gimli::DwCc(*calling_convention)),
                    );
                }
                let _ = self.formal_parameters(d, t);
            }
            TypeKind::Enum { .. } => self.fill_enum(d, ty),
            TypeKind::Composite { .. } => self.fill_composite(d, t, ty),
            TypeKind::Member { .. } => self.fill_member(d, t, ty),
            TypeKind::Inheritance { base, offset_bits } => {
                self.set_ref(d, dw::DW_AT_type, type_ref(*base));
                if let Some(o) = offset_bits {
                    self.set(
                        d,
                        dw::DW_AT_data_member_location,
                        AttributeValue::Udata(o / 8),
                    );
                }
            }
            TypeKind::PtrToMember { pointee, class } => {
                self.set_ref(d, dw::DW_AT_type, type_ref(*pointee));
                self.set_ref(d, dw::DW_AT_containing_type, type_ref(*class));
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
            TypeKind::TemplateParam { .. } => self.fill_template_param(d, t, ty),
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
    }

    fn fill_array(&mut self, d: DieId, ty: &Type) {
        let TypeKind::Array {
            element,
            dims,
            stride,
            data_location,
            associated,
            allocated,
            rank,
            column_major,
        } = &ty.kind
        else {
            return;
        };
        self.set_ref(d, dw::DW_AT_type, type_ref(*element));
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

    fn fill_vector(&mut self, d: DieId, t: Handle<Type>, ty: &Type) {
        let TypeKind::Vector { element, count } = &ty.kind else {
            return;
        };
        let m = self.m;
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
            self.set_ref(d, vendor::DW_AT_DWARV_ELEMENT, type_ref(*element));
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
            self.set_ref(d, dw::DW_AT_type, type_ref(*element));
            self.set(d, dw::DW_AT_GNU_vector, AttributeValue::FlagPresent);
            let sub = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_subrange_type));
            self.set(sub, dw::DW_AT_count, AttributeValue::Udata((*count).into()));
        }
    }

    fn fill_enum(&mut self, d: DieId, ty: &Type) {
        let TypeKind::Enum {
            underlying,
            enumerators,
            identifier,
        } = &ty.kind
        else {
            return;
        };
        let m = self.m;
        self.set_ref(d, dw::DW_AT_type, type_ref(*underlying));
        self.set_str(d, vendor::DW_AT_DWARV_IDENTIFIER, identifier.as_deref());
        let unsigned = unsigned_base(m, *underlying);
        for e in enumerators {
            let ed = (d.0, self.unit_mut(d.0).add(d.1, dw::DW_TAG_enumerator));
            self.set_str(ed, dw::DW_AT_name, Some(&e.name));
            // Unsigned values as udata (as clang's data8, read as unsigned whatever the type
            // says), so 2^63 and above stay 64-bit; only values beyond 64 bits take a block of
            // their 16 little-endian bytes (clang's form for __int128 enumerators).
            let v = match (u64::try_from(e.value), i64::try_from(e.value)) {
                (Ok(u), Err(_)) => AttributeValue::Udata(u),
                (Ok(u), Ok(_)) if unsigned => AttributeValue::Udata(u),
                (_, Ok(v)) => AttributeValue::Sdata(v),
                _ => AttributeValue::Block(e.value.to_le_bytes().to_vec()),
            };
            self.set(ed, dw::DW_AT_const_value, v);
        }
    }

    fn fill_composite(&mut self, d: DieId, t: Handle<Type>, ty: &Type) {
        let TypeKind::Composite {
            elements,
            identifier,
            vtable_holder,
            templates,
            discriminator,
            ..
        } = &ty.kind
        else {
            return;
        };
        self.set_str(d, vendor::DW_AT_DWARV_IDENTIFIER, identifier.as_deref());
        self.set_ref(d, dw::DW_AT_containing_type, type_ref(*vtable_holder));
        self.set_ref(d, dw::DW_AT_discr, type_ref(*discriminator));
        for tp in templates.clone() {
            self.fill_template(Ref::Type(t), d, tp);
        }
        for e in elements.clone() {
            self.fill(e);
        }
        if ty.size.is_none() && !ty.flags.has(Flags::FWD_DECL) {
            self.set(d, dw::DW_AT_declaration, AttributeValue::FlagPresent);
            self.set(
                d,
                vendor::DW_AT_DWARV_NOT_FWD_DECL,
                AttributeValue::FlagPresent,
            );
        }
    }

    fn fill_member(&mut self, d: DieId, t: Handle<Type>, ty: &Type) {
        let TypeKind::Member {
            base,
            offset_bits,
            storage_offset_bits,
            value,
            discriminant,
            property,
        } = &ty.kind
        else {
            return;
        };
        self.set_ref(d, dw::DW_AT_type, type_ref(*base));
        if let Some(form) = self.dwarf2_bit_field(ty, *base, *offset_bits, *storage_offset_bits) {
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
        } else if ty.flags.has(Flags::BIT_FIELD) || storage_offset_bits.is_some() {
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

    fn fill_template_param(&mut self, d: DieId, t: Handle<Type>, ty: &Type) {
        let TypeKind::TemplateParam {
            kind,
            ty: pty,
            value,
            pack,
            is_default,
        } = &ty.kind
        else {
            return;
        };
        self.set_ref(d, dw::DW_AT_type, type_ref(*pty));
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
        let own = self.dies.get(&Ref::Type(t)) == Some(&d);
        for p in pack.clone() {
            if own {
                self.fill_template(Ref::Type(t), d, p);
            } else {
                self.copy_template(d, p);
            }
        }
    }

    /// Flags a type's DWARF says by other attributes, as the reader derives them back: a bit
    /// field's DW_AT_bit_size, a static member's DW_AT_external/declaration, a virtual base's
    /// DW_AT_virtuality, pass-by conventions as DW_AT_calling_convention.
    pub(super) fn derived_type_flags(&mut self, d: DieId, ty: &Type) -> u64 {
        let f = ty.flags;
        let mut derived = 0;
        match &ty.kind {
            TypeKind::Member { .. } => {
                if f.has(Flags::BIT_FIELD) {
                    if let Some(Bound::Const(bits)) = ty.size {
                        self.set(d, dw::DW_AT_bit_size, AttributeValue::Udata(bits as u64));
                        derived |= Flags::BIT_FIELD.bits;
                    }
                }
                if f.has(Flags::EXTERNAL) || f.has(Flags::FWD_DECL) {
                    derived |= Flags::STATIC_MEMBER.bits;
                }
            }
            TypeKind::Inheritance { .. } if f.has(Flags::VIRTUAL) => {
                self.set(
                    d,
                    dw::DW_AT_virtuality,
                    AttributeValue::Virtuality(gimli::DW_VIRTUALITY_virtual),
                );
                derived |= Flags::VIRTUAL.bits;
            }
            TypeKind::Composite { .. } => {
                for (flag, cc) in [(Flags::PASS_BY_REFERENCE, 4u8), (Flags::PASS_BY_VALUE, 5)] {
                    if f.has(flag) {
                        self.set(
                            d,
                            dw::DW_AT_calling_convention,
                            AttributeValue::CallingConvention(gimli::DwCc(cc)),
                        );
                        derived |= flag.bits;
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
    pub(super) fn set_space(&mut self, d: DieId, r: Ref, space: &crate::ir::AddrSpace) {
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
            self.avoidable_loss(
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

    /// A bit field with a storage unit, in the DWARF 2 form clang writes when tuning for gdb:
    /// (DW_AT_data_member_location, DW_AT_bit_offset counted from the unit's most significant
    /// bit, DW_AT_byte_size to write unless the member keeps it raw). Little-endian.
    pub(super) fn dwarf2_bit_field(
        &self,
        ty: &Type,
        base: Option<Handle<Type>>,
        offset: Option<u64>,
        storage: Option<u64>,
    ) -> Option<(u64, u64, Option<u64>)> {
        let (offset, storage) = (offset?, storage?);
        let bits = match ty.size {
            Some(Bound::Const(b)) if ty.flags.has(Flags::BIT_FIELD) => u64::try_from(b).ok()?,
            _ => return None,
        };
        let raw = ty
            .extra
            .iter()
            .find(|a| a.attr == dw::DW_AT_byte_size.0)
            .and_then(raw_attr)
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

    /// The formal_parameter (and unspecified_parameters) children of a function type's DIE, or
    /// of a declaration's; an artificial parameter type's is DW_AT_artificial, as compilers
    /// write it. Returns the object pointer's DIE, if a parameter type is flagged as one.
    pub(super) fn formal_parameters(&mut self, d: DieId, ty: Handle<Type>) -> Option<UnitEntryId> {
        let m = self.m;
        let TypeKind::Function {
            params, variadic, ..
        } = &m.types.get(ty).kind
        else {
            return None;
        };
        let mut object_pointer = None;
        for p in params {
            let pd = (
                d.0,
                self.unit_mut(d.0).add(d.1, dw::DW_TAG_formal_parameter),
            );
            match p {
                Some(p) => {
                    self.set_ref(pd, dw::DW_AT_type, Some(Ref::Type(*p)));
                    let flags = m.types.get(*p).flags;
                    if flags.has(Flags::ARTIFICIAL) {
                        self.set(pd, dw::DW_AT_artificial, AttributeValue::FlagPresent);
                    }
                    if flags.has(Flags::OBJECT_POINTER) {
                        object_pointer = object_pointer.or(Some(pd.1));
                    }
                }
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
        object_pointer
    }
}

/// The DIE tag of a type (vectors depend on the AMD switch).
pub(super) fn type_tag(ty: &Type, amd: bool, m: &Module) -> DwTag {
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
pub(super) fn signature_only(m: &Module) -> FxHashSet<Handle<Type>> {
    // Function types of code-less sources are written as they are (the reader takes them
    // back exactly).
    if records::exact(m) {
        return Default::default();
    }
    let mut sig: FxHashSet<Handle<Type>> = m
        .scopes
        .values()
        .filter_map(|s| s.function().and_then(|f| f.ty))
        // A calling convention of the type's own has no place on a subprogram DIE (its
        // DW_AT_calling_convention is the function's), nor attributes the IR keeps raw: such
        // a type keeps its DIE.
        .filter(|t| {
            let t = m.types.get(*t);
            t.extra.is_empty()
                && matches!(
                    t.kind,
                    TypeKind::Function {
                        calling_convention: 0,
                        ..
                    }
                )
        })
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

pub(super) fn ty_of(t: &Type) -> Option<Handle<Type>> {
    match &t.kind {
        TypeKind::TemplateParam { ty, .. } => *ty,
        _ => None,
    }
}

/// The first owner of each unscoped template parameter, in arena order, and whether another
/// template lists it too (see `Builder::template_owner`).
pub(super) fn template_owners(m: &Module) -> HashMap<Handle<Type>, TemplateOwner> {
    let mut owner: HashMap<Handle<Type>, TemplateOwner> = HashMap::default();
    let mut claim = |params: &[Handle<Type>], by: Ref| {
        for p in params {
            if m.types.get(*p).scope.is_none() {
                owner
                    .entry(*p)
                    .and_modify(|o| o.shared = true)
                    .or_insert(TemplateOwner {
                        owner: by,
                        shared: false,
                    });
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

/// A type handle as a reference.
fn type_ref(h: Option<Handle<Type>>) -> Option<Ref> {
    h.map(Ref::Type)
}

/// Whether an enumeration's underlying type is an unsigned base type, through typedefs and
/// qualifiers (`enum : uint64_t`).
fn unsigned_base(m: &Module, mut t: Option<Handle<Type>>) -> bool {
    for _ in 0..64 {
        let Some(h) = t else { return false };
        match &m.types.get(h).kind {
            TypeKind::Basic { encoding } => return matches!(encoding.0, 2 | 7 | 8 | 0x10),
            TypeKind::Typedef { base } | TypeKind::Qualified { base, .. } => t = *base,
            _ => return false,
        }
    }
    false
}
