//! Type DIEs → types: base, pointer, array, vector, function, enum, composite, member,
//! inheritance, template parameters, string and unknown tags; members' offsets; elements
//! attached to their composite.

use gimli::constants as dw;
use gimli::AttributeValue as AttrValue;

use super::walker::{
    binding, function_mut, own_flags, ref_offset, take_flag, take_str, take_u, At, DResult,
    DieAttrs, Filled, Frame, Walker,
};
use crate::ir::{
    AddrSpace, Bound, CompositeTag, Encoding, Enumerator, Flags, Handle, Memory, PtrKind,
    Qualifier, Ref, Subrange, TemplateParamKind, Type, TypeKind, Value,
};
use crate::spec::dwarf_vendor as vendor;

impl Walker<'_> {
    pub(super) fn fill_type(&mut self, mut at: At<'_, '_>, h: Handle<Type>) -> Filled {
        let tag = at.die.tag;
        let name = self.string(&mut at, dw::DW_AT_name)?;
        let decl_at = self.loc(&mut at);
        let mut flags = self.flags(at.die);
        let linkage = match self.string(&mut at, dw::DW_AT_linkage_name)? {
            Some(l) => Some(l),
            None => self.string(&mut at, dw::DW_AT_MIPS_linkage_name)?,
        };
        let align_bits = at
            .die
            .udata(dw::DW_AT_alignment)
            .map(|a| (a as u32).saturating_mul(8));
        let size = match self.bound(&mut at, dw::DW_AT_bit_size, 1)? {
            Some(b) => {
                if tag == dw::DW_TAG_member {
                    flags = flags.with(Flags::BIT_FIELD);
                }
                Some(b)
            }
            None => self.bound(&mut at, dw::DW_AT_byte_size, 8)?,
        };
        let base = if tag == dw::DW_TAG_subroutine_type || tag == dw::DW_TAG_enumeration_type {
            None
        } else {
            self.type_ref(&mut at, dw::DW_AT_type)?
        };
        // DW_CC_pass_by_reference / _by_value are flags; other conventions stay raw. A
        // subroutine type's convention is the function type's own (LLVM's DISubroutineType cc).
        match at.die.peek(dw::DW_AT_calling_convention) {
            _ if tag == dw::DW_TAG_subroutine_type => {}
            Some(4) => flags = flags.with(Flags::PASS_BY_REFERENCE),
            Some(5) => flags = flags.with(Flags::PASS_BY_VALUE),
            _ => {}
        }
        if flags.has(Flags::PASS_BY_REFERENCE) || flags.has(Flags::PASS_BY_VALUE) {
            at.die.mark(dw::DW_AT_calling_convention);
        }
        let mut common = Common {
            tag,
            name,
            size,
            flags,
            base,
            parent: at.parent,
        };
        let kind = self.type_kind(at.again(), &mut common)?;
        // At unit level only composites, enums and typedefs common.name the unit as their scope, as in
        // LLVM (null scope) and SPIR-V (no Parent operand on the other type instructions).
        let file_level = matches!(
            kind,
            TypeKind::Composite { .. } | TypeKind::Enum { .. } | TypeKind::Typedef { .. }
        );
        // Template parameters have no scope (LLVM shares them between templates); the
        // composite's or function's template list says where they belong.
        let template = matches!(kind, TypeKind::TemplateParam { .. });
        // dwarv marks the other types that name their unit.
        let unit_scoped = at.die.take(vendor::DW_AT_DWARV_UNIT_SCOPE).is_some();
        let scope = common
            .parent
            .and_then(|p| p.ent)
            .filter(|p| !template && (file_level || unit_scoped || !matches!(p, Ref::Unit(_))));
        // Only a composite or an enum names the declaration it completes; on another DIE the
        // attribute stays raw.
        if matches!(kind, TypeKind::Composite { .. } | TypeKind::Enum { .. }) {
            match self.reference(&mut at, dw::DW_AT_specification)? {
                Some(Ref::Type(decl)) if decl != h => self.type_specs.push((h, decl)),
                None => {}
                Some(_) => return Err(at.fail("DW_AT_specification of a type names no type")),
            }
        }
        let ty = self.m.types.get_mut(h);
        ty.kind = kind;
        ty.name = common.name;
        ty.size = common.size;
        ty.align_bits = align_bits;
        ty.scope = scope;
        ty.at = decl_at;
        ty.flags = common.flags;
        ty.linkage = linkage;
        self.attach_to_parent(common.parent, Ref::Type(h), common.tag);
        Ok(Vec::new())
    }

    /// The kind of a type DIE from its tag.
    fn type_kind(&mut self, mut at: At<'_, '_>, common: &mut Common) -> DResult<TypeKind> {
        Ok(match common.tag {
            dw::DW_TAG_base_type => self.base_type(at.again(), common)?,
            dw::DW_TAG_pointer_type
            | dw::DW_TAG_reference_type
            | dw::DW_TAG_rvalue_reference_type => {
                let class = at.die.udata(dw::DW_AT_address_class);
                TypeKind::Pointer {
                    kind: match common.tag {
                        dw::DW_TAG_pointer_type => PtrKind::Pointer,
                        dw::DW_TAG_reference_type => PtrKind::Reference,
                        _ => PtrKind::RvalueReference,
                    },
                    pointee: common.base,
                    space: AddrSpace {
                        memory: class
                            .and_then(|c| u32::try_from(c).ok())
                            .and_then(vendor::memory_of_class)
                            .unwrap_or(Memory::NONE),
                        address_class: class.map(|c| c as u32),
                        ..Default::default()
                    },
                }
            }
            dw::DW_TAG_typedef => TypeKind::Typedef { base: common.base },
            dw::DW_TAG_array_type => self.array_type(at.again(), common)?,
            dw::DW_TAG_subroutine_type => TypeKind::Function {
                ret: self.type_ref(&mut at, dw::DW_AT_type)?,
                params: Vec::new(),
                variadic: false,
                calling_convention: at
                    .die
                    .udata(dw::DW_AT_calling_convention)
                    .and_then(|c| u8::try_from(c).ok())
                    .unwrap_or(0),
            },
            dw::DW_TAG_enumeration_type => TypeKind::Enum {
                underlying: self.type_ref(&mut at, dw::DW_AT_type)?,
                enumerators: Vec::new(),
                identifier: None,
            },
            dw::DW_TAG_structure_type
            | dw::DW_TAG_class_type
            | dw::DW_TAG_union_type
            | dw::DW_TAG_interface_type
            | dw::DW_TAG_variant_part => TypeKind::Composite {
                tag: CompositeTag(common.tag.0),
                elements: Vec::new(),
                identifier: None,
                vtable_holder: self.type_ref(&mut at, dw::DW_AT_containing_type)?,
                templates: Vec::new(),
                discriminator: self.type_ref(&mut at, dw::DW_AT_discr)?,
            },
            dw::DW_TAG_member => self.member_type(at.again(), common)?,
            dw::DW_TAG_inheritance => {
                if at.die.udata(dw::DW_AT_virtuality).is_some_and(|v| v != 0) {
                    common.flags = common.flags.with(Flags::VIRTUAL);
                }
                let (offset_bits, _) = Self::member_offset(at.die, None);
                TypeKind::Inheritance {
                    base: common.base,
                    offset_bits,
                }
            }
            dw::DW_TAG_ptr_to_member_type => TypeKind::PtrToMember {
                pointee: common.base,
                class: self.type_ref(&mut at, dw::DW_AT_containing_type)?,
            },
            dw::DW_TAG_template_type_parameter
            | dw::DW_TAG_template_value_parameter
            | dw::DW_TAG_GNU_template_template_param
            | dw::DW_TAG_GNU_template_parameter_pack => {
                self.template_param_type(at.again(), common)?
            }
            dw::DW_TAG_string_type => TypeKind::String {
                length: match self.bound(&mut at, dw::DW_AT_string_length, 1)? {
                    Some(b) => Some(b),
                    None => self.bound(&mut at, dw::DW_AT_string_length_byte_size, 8)?,
                },
                location: self.bound(&mut at, dw::DW_AT_data_location, 1)?,
                encoding: Encoding(at.die.udata(dw::DW_AT_encoding).unwrap_or(0) as u32),
            },
            dw::DW_TAG_unspecified_type => TypeKind::Unspecified,
            _ => self.other_type(at.again(), common)?,
        })
    }

    /// A base type, or AMD's vector base type (DW_AT_LLVM_vector_size).
    fn base_type(&mut self, mut at: At<'_, '_>, common: &mut Common) -> DResult<TypeKind> {
        let encoding = Encoding(at.die.udata(dw::DW_AT_encoding).unwrap_or(0) as u32);
        let element = self.type_ref(&mut at, vendor::DW_AT_DWARV_ELEMENT)?;
        Ok(match at.die.udata(vendor::DW_AT_LLVM_VECTOR_SIZE) {
            // dwarv's own vector names its element: common.name and common.size are the element's.
            Some(count) if element.is_some() => {
                common.name = None;
                common.size = match at.die.take(vendor::DW_AT_DWARV_VECTOR_BITS) {
                    Some(AttrValue::Sdata(b)) => Some(Bound::Const(b)),
                    _ => None,
                };
                TypeKind::Vector {
                    element,
                    count: u32::try_from(count).unwrap_or(u32::MAX),
                }
            }
            Some(count) => {
                // A vector common.base type: its element is the same common.base type, unvectored.
                let element_size = match common.size {
                    Some(Bound::Const(n)) if count > 0 => Some(Bound::Const(
                        n.checked_div(i64::try_from(count).unwrap_or(i64::MAX))
                            .unwrap_or(0),
                    )),
                    s => s,
                };
                let mut el = Type::new(TypeKind::Basic { encoding });
                el.name = common.name.clone();
                el.size = element_size;
                el.scope = common.parent.and_then(|p| p.ent);
                let el = self.m.types.push(el);
                TypeKind::Vector {
                    element: Some(el),
                    count: u32::try_from(count).unwrap_or(u32::MAX),
                }
            }
            None => TypeKind::Basic { encoding },
        })
    }

    /// An array, or a GNU vector (DW_AT_GNU_vector) whose subrange child sets the count.
    fn array_type(&mut self, mut at: At<'_, '_>, common: &mut Common) -> DResult<TypeKind> {
        let stride = match self.bound(&mut at, dw::DW_AT_byte_stride, 8)? {
            Some(s) => Some(s),
            None => self.bound(&mut at, dw::DW_AT_bit_stride, 1)?,
        };
        let data_location = self.bound(&mut at, dw::DW_AT_data_location, 1)?;
        let associated = self.bound(&mut at, dw::DW_AT_associated, 1)?;
        let allocated = self.bound(&mut at, dw::DW_AT_allocated, 1)?;
        let rank = self.bound(&mut at, dw::DW_AT_rank, 1)?;
        let column_major = at.die.udata(dw::DW_AT_ordering) == Some(1);
        Ok(if at.die.flag(dw::DW_AT_GNU_vector) {
            // Its subrange child sets the count.
            TypeKind::Vector {
                element: common.base,
                count: 0,
            }
        } else {
            TypeKind::Array {
                element: common.base,
                dims: Vec::new(),
                stride,
                data_location,
                associated,
                allocated,
                rank,
                column_major,
            }
        })
    }

    /// A member: its offsets (`member_offset`), constant value and discriminant.
    fn member_type(&mut self, mut at: At<'_, '_>, common: &mut Common) -> DResult<TypeKind> {
        let bit_size = match common.size {
            Some(Bound::Const(b)) if common.flags.has(Flags::BIT_FIELD) => u64::try_from(b).ok(),
            _ => None,
        };
        let (offset_bits, storage) = Self::member_offset(at.die, bit_size);
        if common.flags.has(Flags::EXTERNAL) || common.flags.has(Flags::FWD_DECL) {
            common.flags = common.flags.with(Flags::STATIC_MEMBER);
        }
        Ok(TypeKind::Member {
            base: common.base,
            offset_bits,
            storage_offset_bits: storage,
            value: self.value(&mut at, dw::DW_AT_const_value)?,
            discriminant: self.value(&mut at, dw::DW_AT_discr_value)?,
            property: None,
        })
    }

    /// A template type, value, template-template or pack parameter.
    fn template_param_type(
        &mut self,
        mut at: At<'_, '_>,
        common: &mut Common,
    ) -> DResult<TypeKind> {
        let kind = match common.tag {
            dw::DW_TAG_template_type_parameter => TemplateParamKind::Type,
            dw::DW_TAG_template_value_parameter => TemplateParamKind::Value,
            dw::DW_TAG_GNU_template_template_param => TemplateParamKind::Template,
            _ => TemplateParamKind::Pack,
        };
        let value = match self.value(&mut at, dw::DW_AT_const_value)? {
            Some(v) => Some(v),
            None => self
                .string(&mut at, dw::DW_AT_GNU_template_name)?
                .map(Value::Str),
        };
        Ok(TypeKind::TemplateParam {
            kind,
            ty: common.base,
            value,
            pack: Vec::new(),
            is_default: at.die.flag(dw::DW_AT_default_value),
        })
    }

    /// A qualifier tag, or a tag dwarv has no kind for (its type and size references go back to raw form).
    fn other_type(&mut self, at: At<'_, '_>, common: &mut Common) -> DResult<TypeKind> {
        let t = common.tag;
        Ok(if let Some(q) = QUALIFIERS.iter().find(|q| q.0 == t) {
            TypeKind::Qualified {
                qualifier: q.1,
                base: common.base,
            }
        } else {
            // Unknown tag: its type reference goes back to raw form.
            if common.base.is_some() {
                if let Some(i) = at.die.attrs.iter().position(|a| a.name() == dw::DW_AT_type) {
                    at.die.used[i] = false;
                }
            }
            if common.size.is_some() {
                for attr in [dw::DW_AT_byte_size, dw::DW_AT_bit_size] {
                    if let Some(i) = at.die.attrs.iter().position(|a| a.name() == attr) {
                        at.die.used[i] = false;
                    }
                }
                common.size = None;
            }
            TypeKind::Other {
                tag: t.0,
                children: Vec::new(),
            }
        })
    }

    /// The member's offset in bits from the start of the composite and, for a bit field, the
    /// offset of its storage unit (LLVM's `offset` and `extraData`): DW_AT_data_member_location
    /// (bytes) or DW_AT_data_bit_offset. A DWARF 2-style bit field (DW_AT_bit_offset, counted
    /// from the most significant bit of a DW_AT_byte_size storage unit; what clang writes when
    /// tuning for gdb) is converted, little-endian; its DW_AT_byte_size stays raw so the writer
    /// can give the same form back.
    pub(super) fn member_offset(
        die: &mut DieAttrs<'_>,
        bit_size: Option<u64>,
    ) -> (Option<u64>, Option<u64>) {
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
    pub(super) fn attach_to_parent(&mut self, parent: Option<Frame>, r: Ref, tag: dw::DwTag) {
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

    /// dwarv's copy of a template parameter several templates share (DW_AT_dwarv_same_as): the
    /// parameter joins this template's list; the copy's attributes repeat its own DIE's.
    pub(super) fn fill_template_copy(&mut self, at: At<'_, '_>) -> Filled {
        at.die.used.iter_mut().for_each(|u| *u = true);
        let Some(Ref::Type(h)) = self.map.get(&at.die.off).copied() else {
            return Err(at.fail("DW_AT_dwarv_same_as of a template parameter names no type"));
        };
        self.template_copies.push((at.die.off, h));
        // A member of a pack's copy: the pack lists it already.
        if at.parent.is_some_and(|p| p.copy) {
            return Ok(Vec::new());
        }
        match at.parent.and_then(|p| p.ent) {
            Some(Ref::Type(ph)) => match &mut self.m.types.get_mut(ph).kind {
                TypeKind::Composite { templates, .. } => templates.push(h),
                TypeKind::TemplateParam { pack, .. } => pack.push(h),
                TypeKind::Other { children, .. } => children.push(Ref::Type(h)),
                _ => {}
            },
            Some(Ref::Scope(ph)) => {
                if let Some(f) = function_mut(&mut self.m.scopes.get_mut(ph).kind) {
                    f.templates.push(h);
                }
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    /// Parts of a type DIE: enumerators, subranges, a signature's parameters and `...`.
    pub(super) fn fill_type_part(&mut self, mut at: At<'_, '_>) -> Filled {
        let Some(p) = at.parent else {
            return Ok(Vec::new());
        };
        match at.die.tag {
            dw::DW_TAG_enumerator => {
                let name = self.string(&mut at, dw::DW_AT_name)?.unwrap_or_default();
                let value = match self.value(&mut at, dw::DW_AT_const_value)? {
                    Some(Value::Int(n)) => n,
                    // DW_FORM_data16, or a block of 16 bytes (values beyond 64 bits): the
                    // value's two's complement, little-endian.
                    Some(Value::Bytes(b)) if b.len() == 16 => {
                        i128::from_le_bytes(b.try_into().unwrap_or([0; 16]))
                    }
                    _ => return Err(at.fail("enumerator without an integer value")),
                };
                if let Some(Ref::Type(h)) = p.ent {
                    if let TypeKind::Enum { enumerators, .. } = &mut self.m.types.get_mut(h).kind {
                        enumerators.push(Enumerator { name, value });
                    }
                }
            }
            dw::DW_TAG_subrange_type | dw::DW_TAG_generic_subrange => {
                at.die.mark(dw::DW_AT_type);
                let sub = Subrange {
                    count: self.bound(&mut at, dw::DW_AT_count, 1)?,
                    lower: self.bound(&mut at, dw::DW_AT_lower_bound, 1)?,
                    upper: self.bound(&mut at, dw::DW_AT_upper_bound, 1)?,
                    stride: match self.bound(&mut at, dw::DW_AT_byte_stride, 8)? {
                        Some(s) => Some(s),
                        None => self.bound(&mut at, dw::DW_AT_bit_stride, 1)?,
                    },
                    generic: at.die.tag == dw::DW_TAG_generic_subrange,
                };
                if let Some(Ref::Type(h)) = p.ent {
                    match &mut self.m.types.get_mut(h).kind {
                        TypeKind::Array { dims, .. } => dims.push(sub),
                        TypeKind::Vector { count, .. } => {
                            *count = match (sub.count, sub.upper) {
                                (Some(Bound::Const(c)), _) => u32::try_from(c).unwrap_or(0),
                                (_, Some(Bound::Const(upper))) => {
                                    u32::try_from(upper.saturating_add(1)).unwrap_or(0)
                                }
                                _ => 0,
                            }
                        }
                        _ => {}
                    }
                }
            }
            dw::DW_TAG_formal_parameter => {
                let ty = self.type_ref(&mut at, dw::DW_AT_type)?;
                let sig = match p.ent {
                    Some(Ref::Type(h)) => Some(h),
                    _ => p.sig,
                };
                // An artificial parameter (`this`, gcc's `__in_chrg`) and the object pointer
                // are flags on the parameter's type in LLVM and SPIR-V: a flagged variant of it.
                let mut wanted = Flags::default();
                if at.die.flag(dw::DW_AT_artificial) {
                    wanted = wanted.with(Flags::ARTIFICIAL);
                }
                if self.object_pointer_parts.contains(&at.die.off) {
                    wanted = wanted.with(Flags::OBJECT_POINTER);
                }
                // (Not of a composite: its variant would be a second one with the same members.)
                let whole = at.die.peek_value(dw::DW_AT_type).is_some_and(|v| {
                    let tag = ref_offset(at.unit, &v)
                        .and_then(|o| {
                            gimli::DebugInfoOffset(o as usize).to_unit_offset(&at.unit.header)
                        })
                        .and_then(|o| at.unit.entry(o).ok())
                        .map(|e| e.tag());
                    matches!(
                        tag,
                        Some(
                            dw::DW_TAG_structure_type
                                | dw::DW_TAG_class_type
                                | dw::DW_TAG_union_type
                                | dw::DW_TAG_enumeration_type
                        )
                    )
                });
                if let Some(h) = sig {
                    if let TypeKind::Function { params, .. } = &mut self.m.types.get_mut(h).kind {
                        if let (Some(t), false, false) = (ty, wanted.is_empty(), whole) {
                            self.flagged.push((h, params.len(), t, wanted.bits));
                        }
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
            _ => {}
        }
        Ok(Vec::new())
    }
}

/// Qualifier tags.
pub(super) const QUALIFIERS: &[(dw::DwTag, Qualifier)] = &[
    (dw::DW_TAG_const_type, Qualifier::CONST),
    (dw::DW_TAG_volatile_type, Qualifier::VOLATILE),
    (dw::DW_TAG_restrict_type, Qualifier::RESTRICT),
    (dw::DW_TAG_atomic_type, Qualifier::ATOMIC),
    (dw::DW_TAG_immutable_type, Qualifier::IMMUTABLE),
    (dw::DW_TAG_shared_type, Qualifier::SHARED),
    (dw::DW_TAG_packed_type, Qualifier::PACKED),
];

/// dwarv's own attributes of the types (`spec::dwarf_vendor`) moved to their fields.
pub(super) fn own_attributes(m: &mut crate::ir::Module) {
    for t in m.types.values_mut() {
        let e = &mut t.extra;
        own_flags(e, &mut t.flags);
        if take_flag(e, vendor::DW_AT_DWARV_NO_SCOPE) {
            t.scope = None;
        }
        if take_flag(e, vendor::DW_AT_DWARV_NOT_FWD_DECL) {
            t.flags.bits &= !Flags::bit(5).bits;
        }
        if let Some(col) = take_u(&mut t.extra, vendor::DW_AT_DWARV_MATRIX) {
            matrix(t, col != 0);
        }
        let e = &mut t.extra;
        match &mut t.kind {
            TypeKind::Pointer { space, .. } => {
                if let Some(k) = take_u(e, vendor::DW_AT_DWARV_MEMORY) {
                    space.memory = crate::ir::Memory(k as u8);
                }
                if let Some(sc) = take_u(e, vendor::DW_AT_DWARV_STORAGE_CLASS) {
                    space.storage_class = Some(sc as u32);
                }
                if let Some(a) = take_u(e, vendor::DW_AT_DWARV_ADDRESS_SPACE) {
                    space.dwarf_space = Some(a as u32);
                }
                if take_flag(e, vendor::DW_AT_DWARV_DERIVED_CLASS) {
                    space.address_class = None;
                }
            }
            TypeKind::Composite { identifier, .. } | TypeKind::Enum { identifier, .. } => {
                if let Some(id) = take_str(e, vendor::DW_AT_DWARV_IDENTIFIER) {
                    *identifier = Some(id);
                }
            }
            // A template argument that is an LLVM value (`ptr @f`) or a SPIR-V id.
            TypeKind::TemplateParam {
                value: v @ None, ..
            } => *v = binding(e),
            _ => {}
        }
    }
    derivable_storage_units(m);
}

/// A DWARF 2-style bit field's storage unit (DW_AT_byte_size, kept raw) that is its base type's
/// size is what the writer derives when there is none: not kept (an LLVM bit field has no
/// storage size of its own, only its base type's).
fn derivable_storage_units(m: &mut crate::ir::Module) {
    let mut derivable = Vec::new();
    for (h, t) in m.types.iter() {
        let TypeKind::Member {
            base: Some(b),
            storage_offset_bits: Some(_),
            ..
        } = t.kind
        else {
            continue;
        };
        let Some(crate::ir::Bound::Const(bits)) = m.types.get(b).size else {
            continue;
        };
        let mut extra = t.extra.clone();
        let unit = take_u(&mut extra, dw::DW_AT_byte_size);
        if t.flags.has(Flags::BIT_FIELD) && unit.and_then(|u| u.checked_mul(8)) == Some(bits as u64)
        {
            derivable.push((h, extra));
        }
    }
    for (h, extra) in derivable {
        m.types.get_mut(h).extra = extra;
    }
}

/// An array of one constant dimension marked DW_AT_dwarv_matrix is a matrix of its element.
fn matrix(t: &mut crate::ir::Type, column_major: bool) {
    if let TypeKind::Array { element, dims, .. } = &t.kind {
        if let [crate::ir::Subrange {
            count: Some(crate::ir::Bound::Const(n)),
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

/// What every type DIE says before its kind's own attributes; a kind may change it (a vector
/// base type takes its element's name away, a member's DW_AT_bit_size makes it a bit field).
struct Common {
    tag: dw::DwTag,
    name: Option<String>,
    size: Option<Bound>,
    flags: Flags,
    base: Option<Handle<Type>>,
    parent: Option<Frame>,
}
