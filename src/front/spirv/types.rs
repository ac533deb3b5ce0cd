//! Debug type instructions → `ir::Type`.

use crate::ir::Flags;
use crate::spec::spirv_names::{operand, OperandName};
use std::collections::HashMap;

use crate::ir::{
    AddrSpace, Bound, CompositeTag, Encoding, Enumerator, Handle, Memory, PtrKind, Qualifier, Ref,
    Subrange, TemplateParamKind, Type, TypeKind, Value,
};
use crate::spec::spirv::{from_set, Flavour, COMPOSITE_TAGS, STORAGE_CLASSES};

use super::operands::{fail, Dec, Kind, RResult};
use super::reader::Ctx;
use super::resolve::Tgt;

pub(super) fn is_type(k: Kind) -> bool {
    matches!(
        k,
        Kind::TypeBasic
            | Kind::TypePointer
            | Kind::TypeQualifier
            | Kind::TypeArray
            | Kind::TypeVector
            | Kind::Typedef
            | Kind::TypeFunction
            | Kind::TypeEnum
            | Kind::TypeComposite
            | Kind::TypeMember
            | Kind::TypeInheritance
            | Kind::TypePtrToMember
            | Kind::TypeTemplate
            | Kind::TypeTemplateParameter
            | Kind::TypeTemplateTemplateParameter
            | Kind::TypeTemplateParameterPack
            | Kind::TypeMatrix
            | Kind::TypeArrayDynamic
            | Kind::TypeString
    )
}

/// NonSemantic forward declarations (`FlagFwdDecl` composites) completed later by a full
/// composite with the same name and parent: fwd id → full id. They read as one type.
pub(super) fn forward_aliases(cx: &Ctx<'_>) -> RResult<HashMap<u32, u32>> {
    let mut later: HashMap<(&str, u32), u32> = HashMap::new();
    let mut aliases = HashMap::new();
    for (_, d) in cx.decs.iter().rev() {
        if d.kind != Kind::TypeComposite || !d.flavour.non_semantic() {
            continue;
        }
        let name = d.word(operand::NAME).and_then(|id| cx.strings.get(&id));
        let (Some(name), Some(parent)) = (name, d.word(operand::PARENT)) else {
            continue;
        };
        let flags = d
            .word(operand::FLAGS)
            .and_then(|id| cx.consts.get(&id))
            .copied();
        let fwd = flags.is_some_and(|f| f & (1 << 4) != 0);
        if !fwd {
            later.insert((name.as_str(), parent), d.id);
        } else if let Some(full) = later.get(&(name.as_str(), parent)) {
            aliases.insert(d.id, *full);
        }
    }
    Ok(aliases)
}

pub(super) fn fill(cx: &mut Ctx<'_>, d: &Dec<'_>, r: Option<Ref>) -> RResult<()> {
    let Some(Ref::Type(h)) = r else {
        return Ok(());
    };
    let t = build(cx, d)?;
    *cx.out.types.get_mut(h) = t;
    Ok(())
}

fn build(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Type> {
    let mut t = Type::new(kind(cx, d)?);
    t.name = cx.name(d, operand::NAME)?;
    if d.has(operand::SOURCE) {
        t.at = cx.loc(d)?;
    }
    t.scope = match d.kind {
        Kind::Typedef | Kind::TypeEnum | Kind::TypeComposite | Kind::TypeMember => {
            cx.parent(d, operand::PARENT)?
        }
        Kind::TypeInheritance => cx.entity_of(
            d,
            operand::CHILD,
            &[crate::ir::EntityKind::Type],
            "a composite",
        )?,
        _ => None,
    };
    if d.has(operand::FLAGS) {
        t.flags = cx.flags(d, operand::FLAGS)?;
    }
    if d.has(operand::SIZE) {
        t.size = cx.size(d)?;
    }
    // The sets require a member's Size: 0 stands for none (DWARF members carry none; their
    // type's size is theirs).
    if d.kind == Kind::TypeMember && t.size == Some(crate::ir::Bound::Const(0)) {
        t.size = None;
    }
    if d.kind == Kind::TypeComposite {
        t.linkage = cx.name(d, operand::LINKAGE_NAME)?;
    }
    Ok(t)
}

fn kind(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    Ok(match d.kind {
        Kind::TypeBasic => TypeKind::Basic {
            encoding: encoding(cx, d)?,
        },
        Kind::TypePointer => pointer(cx, d)?,
        Kind::TypeQualifier => {
            let v = cx.u32n(d, operand::TYPE_QUALIFIER)?;
            TypeKind::Qualified {
                qualifier: from_set(d.flavour.qualifiers(), v)
                    .unwrap_or(Qualifier(0x8000u16.wrapping_add(v as u16))),
                base: cx.ty(d, operand::BASE_TYPE)?,
            }
        }
        Kind::TypeArray if d.has(operand::SUBRANGES) => {
            plain_array(cx.ty(d, operand::BASE_TYPE)?, subranges(cx, d)?)
        }
        Kind::TypeArray => array(cx, d)?,
        Kind::TypeArrayDynamic => {
            let mut a = plain_array(cx.ty(d, operand::BASE_TYPE)?, subranges(cx, d)?);
            if let TypeKind::Array {
                data_location,
                associated,
                allocated,
                rank,
                ..
            } = &mut a
            {
                *data_location = cx.bound(d, operand::DATA_LOCATION)?;
                *associated = cx.bound(d, operand::ASSOCIATED)?;
                *allocated = cx.bound(d, operand::ALLOCATED)?;
                *rank = cx.bound(d, operand::RANK)?;
            }
            a
        }
        Kind::TypeString => string(cx, d)?,
        Kind::TypeVector => TypeKind::Vector {
            element: cx.ty(d, operand::BASE_TYPE)?,
            count: cx.u32n(d, operand::COMPONENT_COUNT)?,
        },
        Kind::TypeMatrix => TypeKind::Matrix {
            column: cx.ty(d, operand::VECTOR_TYPE)?,
            count: cx.u32n(d, operand::VECTOR_COUNT)?,
            column_major: cx.num(d, operand::COLUMN_MAJOR)?.unwrap_or(0) != 0,
        },
        Kind::Typedef => TypeKind::Typedef {
            base: cx.ty(d, operand::BASE_TYPE)?,
        },
        Kind::TypeFunction => function(cx, d)?,
        Kind::TypeEnum => enumeration(cx, d)?,
        Kind::TypeComposite => composite(cx, d)?,
        Kind::TypeMember => TypeKind::Member {
            base: cx.ty(d, operand::TYPE)?,
            offset_bits: cx
                .num(d, operand::OFFSET)?
                .and_then(|v| u64::try_from(v).ok()),
            storage_offset_bits: None,
            value: value(cx, d, operand::VALUE)?,
            discriminant: None,
            property: None,
        },
        Kind::TypeInheritance => TypeKind::Inheritance {
            base: cx.ty(d, operand::PARENT)?,
            offset_bits: cx
                .num(d, operand::OFFSET)?
                .and_then(|v| u64::try_from(v).ok()),
        },
        Kind::TypePtrToMember => TypeKind::PtrToMember {
            pointee: cx.ty(d, operand::MEMBER_TYPE)?,
            class: cx.ty(d, operand::PARENT)?,
        },
        Kind::TypeTemplate => template(cx, d)?,
        _ => template_param(cx, d)?,
    })
}

fn encoding(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Encoding> {
    let v = cx.u32n(d, operand::ENCODING)?;
    Ok(from_set(d.flavour.encodings(), v).unwrap_or(Encoding(0x1_0000u32.wrapping_add(v))))
}

fn pointer(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let sc = cx.num(d, operand::STORAGE_CLASS)?.unwrap_or(0) as u32;
    let flags = cx.flags(d, operand::FLAGS)?;
    let kind = if flags.has(Flags::LVALUE_REFERENCE) {
        PtrKind::Reference
    } else if flags.has(Flags::RVALUE_REFERENCE) {
        PtrKind::RvalueReference
    } else {
        PtrKind::Pointer
    };
    Ok(TypeKind::Pointer {
        kind,
        pointee: cx.ty(d, operand::BASE_TYPE)?,
        space: AddrSpace {
            memory: from_set(STORAGE_CLASSES, sc).unwrap_or(Memory::NONE),
            storage_class: Some(sc),
            ..AddrSpace::default()
        },
    })
}

/// Counts; llvm-spirv appends one lower bound per count (2N operands): those are read as
/// `lower`, in its modules and in every `SPIRV.debug` one (dwarv writes that set so too). A count
/// of 0 or DebugInfoNone is a runtime-sized dimension.
fn array(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let element = cx.ty(d, operand::BASE_TYPE)?;
    let ids = d.words(operand::COMPONENT_COUNTS);
    let split = if has_lower_bounds(cx, d, ids) {
        ids.len() / 2
    } else {
        ids.len()
    };
    let (counts, lowers) = ids.split_at(split);
    let mut dims = Vec::with_capacity(counts.len());
    for (i, &id) in counts.iter().enumerate() {
        let count = cx
            .bound_id(d, operand::COMPONENT_COUNTS, id)?
            .filter(|b| *b != Bound::Const(0));
        let lower = match lowers.get(i) {
            Some(&l) => cx.bound_id(d, operand::COMPONENT_COUNTS, l)?,
            None => None,
        };
        dims.push(Subrange {
            count,
            lower,
            ..Subrange::default()
        });
    }
    Ok(plain_array(element, dims))
}

/// An array of these dimensions, with no stride and no Fortran descriptor.
fn plain_array(element: Option<crate::ir::Handle<Type>>, dims: Vec<Subrange>) -> TypeKind {
    TypeKind::Array {
        element,
        dims,
        stride: None,
        data_location: None,
        associated: None,
        allocated: None,
        rank: None,
        column_major: false,
    }
}

/// `.200`'s Subranges: one DebugTypeSubrange (Count, Lower Bound, Upper Bound [, Stride]) per
/// dimension.
fn subranges(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<Vec<Subrange>> {
    let mut dims = Vec::new();
    for &id in d.words(operand::SUBRANGES) {
        let sub = cx.by_id.get(&id).and_then(|&i| cx.decs.get(i));
        let Some((_, sub)) = sub.filter(|(_, s)| s.kind == Kind::TypeSubrange) else {
            return cx.wrong(d, operand::SUBRANGES, "a DebugTypeSubrange", id);
        };
        let sub = sub.clone();
        dims.push(Subrange {
            count: cx.bound(&sub, operand::COUNT)?,
            lower: cx.bound(&sub, operand::LOWER_BOUND)?,
            upper: cx.bound(&sub, operand::UPPER_BOUND)?,
            stride: cx.bound(&sub, operand::STRIDE)?,
            generic: false,
        });
    }
    Ok(dims)
}

/// `.200`'s DebugTypeString: a Fortran character type, whose encoding is its Base Type's (a
/// DebugTypeBasic, as SPIRV-LLVM-Translator reads it; DebugInfoNone for none). A Length Size
/// has no IR field.
fn string(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    if d.word(operand::LENGTH_SIZE)
        .is_some_and(|id| !matches!(cx.target(id), Tgt::None))
    {
        let msg = "DebugTypeString Length Size: the IR has no field for it; dropped";
        cx.loss(crate::diag::LossKind::Dropped, d, msg);
    }
    let base = d.word(operand::BASE_TYPE).unwrap_or(0);
    let basic = cx.by_id.get(&base).and_then(|&i| cx.decs.get(i));
    let encoding = match basic {
        Some((_, b)) if b.kind == Kind::TypeBasic => {
            let b = b.clone();
            encoding(cx, &b)?
        }
        _ if matches!(cx.target(base), Tgt::None) => Encoding::UNSPECIFIED,
        _ => return cx.wrong(d, operand::BASE_TYPE, "a DebugTypeBasic", base),
    };
    Ok(TypeKind::String {
        length: cx.bound(d, operand::LENGTH_ADDRESS)?,
        location: cx.bound(d, operand::DATA_LOCATION)?,
        encoding,
    })
}

/// Enumerator values as their underlying type holds them (`ir::types::enum_value_in`): a
/// constant's bits, or a literal, say nothing of the sign.
pub(super) fn enum_values(cx: &mut Ctx<'_>) {
    for i in 0..cx.out.types.len() {
        let h = crate::ir::Handle::new(i as u32);
        let TypeKind::Enum {
            underlying,
            enumerators,
            ..
        } = &cx.out.types.get(h).kind
        else {
            continue;
        };
        let values: Vec<i128> = enumerators
            .iter()
            .map(|e| crate::ir::types::enum_value_in(&cx.out.types, *underlying, e.value))
            .collect();
        if let TypeKind::Enum { enumerators, .. } = &mut cx.out.types.get_mut(h).kind {
            for (e, v) in enumerators.iter_mut().zip(values) {
                e.value = v;
            }
        }
    }
}

/// Arrays get the size their counts and element imply (DebugTypeArray has no Size operand).
pub(super) fn array_sizes(cx: &mut Ctx<'_>) {
    for i in 0..cx.out.types.len() {
        let h = crate::ir::Handle::new(i as u32);
        if cx.out.types.get(h).size.is_none() {
            if let Some(bits) = crate::ir::types::implied_bits(&cx.out.types, h) {
                cx.out.types.get_mut(h).size = i64::try_from(bits).ok().map(Bound::Const);
            }
        }
    }
}

fn has_lower_bounds(cx: &Ctx<'_>, d: &Dec<'_>, ids: &[u32]) -> bool {
    if !matches!(d.flavour, Flavour::OpenCl100 | Flavour::SpirvDebug)
        || ids.len() < 2
        || ids.len() % 2 != 0
    {
        return false;
    }
    d.flavour == Flavour::SpirvDebug
        || cx.m.generator >> 16 == crate::spirv::binary::LLVM_SPIRV_GENERATOR
        || ids[ids.len() / 2..]
            .iter()
            .all(|id| matches!(cx.target(*id), Tgt::None))
}

fn function(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let ret = cx.ty(d, operand::RETURN_TYPE)?;
    let mut params = Vec::new();
    for &id in d.words(operand::PARAMETER_TYPES) {
        params.push(cx.ty_id(d, operand::PARAMETER_TYPES, id)?);
    }
    Ok(TypeKind::Function {
        ret,
        params,
        variadic: false,
        calling_convention: 0,
    })
}

fn enumeration(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let mut enumerators = Vec::new();
    for pair in d.words(operand::VALUE_NAME).chunks_exact(2) {
        // Values are OpConstant ids in every set; a literal is accepted where numbers are.
        let value = match cx.target(pair[0]) {
            Tgt::Const(v) => v,
            _ if d.flavour.literal_numbers() => i128::from(pair[0] as i32),
            _ => return cx.wrong(d, operand::VALUE, "an integer OpConstant", pair[0]),
        };
        let name = match cx.target(pair[1]) {
            Tgt::Str(s) => s.to_string(),
            _ => return cx.wrong(d, operand::NAME, "an OpString", pair[1]),
        };
        enumerators.push(Enumerator { name, value });
    }
    Ok(TypeKind::Enum {
        underlying: cx.ty(d, operand::UNDERLYING_TYPE)?,
        enumerators,
        identifier: None,
    })
}

fn composite(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let tag = cx.u32n(d, operand::TAG)?;
    let mut elements = Vec::new();
    for &id in d.words(operand::MEMBERS) {
        match cx.entity_id(d, operand::MEMBERS, id)? {
            Some(r @ (Ref::Type(_) | Ref::Scope(_) | Ref::Var(_))) => elements.push(r),
            Some(_) => return cx.wrong(d, operand::MEMBERS, "a member, function or variable", id),
            None => {}
        }
    }
    Ok(TypeKind::Composite {
        tag: from_set(COMPOSITE_TAGS, tag)
            .unwrap_or(CompositeTag(0x8000u16.wrapping_add(tag as u16))),
        elements,
        identifier: None,
        vtable_holder: None,
        templates: Vec::new(),
        discriminator: None,
    })
}

/// A constant value operand: an OpConstant, another entity, or an id of the code.
pub(super) fn value(cx: &mut Ctx<'_>, d: &Dec<'_>, op: OperandName) -> RResult<Option<Value>> {
    let Some(id) = d.word(op) else {
        return Ok(None);
    };
    Ok(match cx.target(id) {
        Tgt::None | Tgt::Void | Tgt::Unknown => None,
        Tgt::Const(v) => Some(Value::Int(v)),
        Tgt::Ref(r) => Some(Value::Ref(r)),
        Tgt::Str(s) => Some(Value::Str(s.to_string())),
        Tgt::Code if id < cx.m.bound => Some(Value::Spirv(id)),
        _ => return cx.wrong(d, op, "a constant or an entity", id),
    })
}

fn type_list(cx: &mut Ctx<'_>, d: &Dec<'_>, op: OperandName) -> RResult<Vec<Handle<Type>>> {
    let mut out = Vec::new();
    for &id in d.words(op) {
        match cx.ty_id(d, op, id)? {
            Some(h) => out.push(h),
            None => {
                return fail(
                    d.offset,
                    Some(d.id),
                    format!("{} operand `{op}` lists %{id}, which is no type", d.name()),
                )
            }
        }
    }
    Ok(out)
}

fn template(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    use crate::ir::EntityKind as K;
    Ok(TypeKind::Template {
        target: cx.entity_of(
            d,
            operand::TARGET,
            &[K::Type, K::Scope],
            "a type or function",
        )?,
        params: type_list(cx, d, operand::PARAMETERS)?,
    })
}

fn template_param(cx: &mut Ctx<'_>, d: &Dec<'_>) -> RResult<TypeKind> {
    let (kind, ty, value, pack) = match d.kind {
        Kind::TypeTemplateParameter => {
            let v = value(cx, d, operand::VALUE)?;
            let kind = if v.is_some() {
                TemplateParamKind::Value
            } else {
                TemplateParamKind::Type
            };
            (kind, cx.ty(d, operand::ACTUAL_TYPE)?, v, Vec::new())
        }
        Kind::TypeTemplateTemplateParameter => (
            TemplateParamKind::Template,
            None,
            cx.string(d, operand::TEMPLATE_NAME)?.map(Value::Str),
            Vec::new(),
        ),
        _ => (
            TemplateParamKind::Pack,
            None,
            None,
            type_list(cx, d, operand::TEMPLATE_PARAMETERS)?,
        ),
    };
    Ok(TypeKind::TemplateParam {
        kind,
        ty,
        value,
        pack,
        is_default: false,
    })
}

/// Members and inheritance listed by a composite sit in it (NonSemantic members have no Parent
/// operand; OpenCL.100 ones name it, possibly before the composite exists).
pub(super) fn member_scopes(cx: &mut Ctx<'_>) {
    let mut links = Vec::new();
    for (h, t) in cx.out.types.iter() {
        if let TypeKind::Composite { elements, .. } = &t.kind {
            for e in elements {
                if let Ref::Type(m) = e {
                    links.push((*m, h));
                }
            }
        }
    }
    for (m, composite) in links {
        let t = cx.out.types.get_mut(m);
        if matches!(
            t.kind,
            TypeKind::Member { .. } | TypeKind::Inheritance { .. }
        ) && t.scope.is_none()
        {
            t.scope = Some(Ref::Type(composite));
        }
    }
}
