//! Types and DIExpressions.

use llvm_bridge::{Key, Kind, NodeId};

use super::tables::*;
use super::{flags, Lower};
use crate::diag::LossKind;
use crate::ir::{
    AddrSpace, Arg, Bound, CompositeTag, Encoding, Enumerator, Op, OpCode, PtrKind, Qualifier, Ref,
    Subrange, TemplateParamKind, TypeKind, Value,
};
use crate::spec::dwarf::{ArgKind, OPS};

impl Lower<'_> {
    pub(super) fn type_node(&mut self, id: NodeId) {
        let Some(Ref::Type(h)) = self.slot[id as usize] else {
            return;
        };
        let n = self.node(id);
        let mut fl = flags(n.int(Key::flags).unwrap_or(0) as u32);
        let kind = match n.kind {
            Kind::DIBasicType if n.tag == DW_TAG_UNSPECIFIED_TYPE => TypeKind::Unspecified,
            Kind::DIBasicType => TypeKind::Basic {
                encoding: Encoding(Self::int(n, Key::encoding) as u32),
            },
            Kind::DIStringType => TypeKind::String {
                length: self
                    .bound(n.node(Key::stringLength))
                    .or_else(|| self.bound(n.node(Key::stringLengthExpression))),
                location: self.bound(n.node(Key::stringLocationExpression)),
                encoding: Encoding(Self::int(n, Key::encoding) as u32),
            },
            Kind::DIDerivedType => self.derived(id),
            Kind::DICompositeType => self.composite(id, &mut fl),
            Kind::DISubroutineType => {
                let types = self.list(n.node(Key::types));
                let ret = types
                    .first()
                    .copied()
                    .flatten()
                    .and_then(|t| self.type_of(t));
                let mut params: Vec<_> = types
                    .iter()
                    .skip(1)
                    .map(|t| t.and_then(|t| self.type_of(t)))
                    .collect();
                // LLVM marks a variadic function with a trailing null.
                let variadic = types.len() > 1 && types.last() == Some(&None);
                if variadic {
                    params.pop();
                }
                TypeKind::Function {
                    ret,
                    params,
                    variadic,
                    calling_convention: Self::int(n, Key::cc) as u8,
                }
            }
            Kind::DITemplateTypeParameter => TypeKind::TemplateParam {
                kind: TemplateParamKind::Type,
                ty: self.ty(n, Key::type_),
                value: None,
                pack: Vec::new(),
                is_default: n.int(Key::defaulted) == Some(1),
            },
            Kind::DITemplateValueParameter => self.template_value(id),
            _ => {
                self.loss(
                    LossKind::Unknown,
                    id,
                    "a generic DI node, kept as its tag only",
                );
                TypeKind::Other {
                    tag: n.tag,
                    children: Vec::new(),
                }
            }
        };
        let size = Self::int(n, Key::size);
        let align = Self::int(n, Key::align);
        let t = self.ir.types.get_mut(h);
        t.kind = kind;
        t.name = Self::name(n);
        t.size = (size > 0).then_some(Bound::Const(size as i64));
        t.align_bits = (align > 0).then_some(align as u32);
        t.flags = fl;
        // Composites, enums and typedefs without a scope are at file scope: in their unit.
        let scope = self.scope(n, Key::scope).or_else(|| {
            let file_level = matches!(
                self.ir.types.get(h).kind,
                TypeKind::Composite { .. } | TypeKind::Enum { .. } | TypeKind::Typedef { .. }
            );
            file_level.then(|| self.first_unit()).flatten()
        });
        let at = self.at(n);
        let t = self.ir.types.get_mut(h);
        t.scope = scope;
        t.at = at.filter(|l| l.line != 0 || n.kind != Kind::DIBasicType);
    }

    fn type_of(&self, id: NodeId) -> Option<crate::ir::Handle<crate::ir::Type>> {
        match self.slot[id as usize] {
            Some(Ref::Type(h)) => Some(h),
            _ => None,
        }
    }

    fn derived(&mut self, id: NodeId) -> TypeKind {
        let n = self.node(id);
        let base = self.ty(n, Key::baseType);
        let offset = Some(Self::int(n, Key::offset));
        match n.tag {
            DW_TAG_POINTER | DW_TAG_REFERENCE | DW_TAG_RVALUE_REFERENCE => TypeKind::Pointer {
                kind: match n.tag {
                    DW_TAG_POINTER => PtrKind::Pointer,
                    DW_TAG_REFERENCE => PtrKind::Reference,
                    _ => PtrKind::RvalueReference,
                },
                pointee: base,
                space: self.space(n.int(Key::dwarfAddressSpace)),
            },
            DW_TAG_TYPEDEF => TypeKind::Typedef { base },
            t if QUALIFIERS.contains(&Qualifier(t)) => TypeKind::Qualified {
                qualifier: Qualifier(t),
                base,
            },
            DW_TAG_MEMBER => {
                let fl = Self::int(n, Key::flags) as u32;
                let extra = n.node(Key::extraData);
                let mut member = TypeKind::Member {
                    base,
                    offset_bits: offset,
                    storage_offset_bits: None,
                    value: None,
                    discriminant: None,
                    property: None,
                };
                if let (
                    Some(x),
                    TypeKind::Member {
                        storage_offset_bits,
                        value,
                        discriminant,
                        property,
                        ..
                    },
                ) = (extra, &mut member)
                {
                    let xn = self.node(x);
                    if xn.kind == Kind::DIObjCProperty {
                        if let Some(Ref::Property(p)) = self.slot[x as usize] {
                            *property = Some(p);
                        }
                    } else if fl & (1 << 19) != 0 {
                        *storage_offset_bits = xn.int(Key::intValue).map(|v| v as u64);
                    } else if fl & (1 << 12) != 0 {
                        *value = self.value_of(x);
                    } else {
                        *discriminant = self.value_of(x);
                    }
                }
                member
            }
            DW_TAG_INHERITANCE => {
                let vbptr = n
                    .node(Key::extraData)
                    .map(|x| self.node(x).int(Key::intValue));
                if vbptr.is_some_and(|v| v != Some(0)) {
                    self.loss(LossKind::Dropped, id, "the virtual-base pointer offset (extraData) of an inheritance has no IR field");
                }
                TypeKind::Inheritance {
                    base,
                    offset_bits: offset,
                }
            }
            DW_TAG_PTR_TO_MEMBER => TypeKind::PtrToMember {
                pointee: base,
                class: self.ty(n, Key::extraData),
            },
            tag => TypeKind::Other {
                tag,
                children: base.map(Ref::Type).into_iter().collect(),
            },
        }
    }

    /// An LLVM address space: on SPIR targets, the OpenCL memory and SPIR-V storage class it
    /// stands for.
    fn space(&self, dwarf: Option<i64>) -> AddrSpace {
        let mut s = AddrSpace {
            dwarf_space: dwarf.map(|v| v as u32),
            ..AddrSpace::default()
        };
        let spir = self.m.triple.starts_with("spir");
        if let (true, Some(v)) = (spir, dwarf) {
            if let Some(&(_, mem, sc)) = SPIR_SPACES.iter().find(|r| r.0 as i64 == v) {
                s.memory = mem;
                s.storage_class = Some(sc);
            }
        }
        s
    }

    fn composite(&mut self, id: NodeId, fl: &mut crate::ir::Flags) -> TypeKind {
        let n = self.node(id);
        let base = self.ty(n, Key::baseType);
        let elements = self.list(n.node(Key::elements));
        let identifier = n.str(Key::identifier).map(str::to_string);
        match n.tag {
            DW_TAG_ARRAY => {
                let dims: Vec<Subrange> = elements
                    .iter()
                    .flatten()
                    .map(|&e| self.subrange(e))
                    .collect();
                let vector = Self::int(n, Key::flags) as u32 & FLAG_VECTOR != 0;
                if let ([d], true) = (&dims[..], vector) {
                    if let (Some(Bound::Const(c)), None) =
                        (d.count, d.lower.filter(|l| *l != Bound::Const(0)))
                    {
                        fl.foreign &= !FLAG_VECTOR;
                        return TypeKind::Vector {
                            element: base,
                            count: c as u32,
                        };
                    }
                }
                TypeKind::Array {
                    element: base,
                    dims,
                    stride: None,
                    data_location: self.bound(n.node(Key::dataLocation)),
                    associated: self.bound(n.node(Key::associated)),
                    allocated: self.bound(n.node(Key::allocated)),
                    rank: self.bound(n.node(Key::rank)),
                    column_major: false,
                }
            }
            DW_TAG_ENUMERATION => TypeKind::Enum {
                underlying: base,
                enumerators: elements
                    .iter()
                    .flatten()
                    .map(|&e| self.node(e))
                    .filter(|e| e.kind == Kind::DIEnumerator)
                    .map(|e| Enumerator {
                        name: e.str(Key::name).unwrap_or_default().to_string(),
                        value: if e.int(Key::isUnsigned) == Some(1) {
                            e.int(Key::value).unwrap_or(0) as u64 as i128
                        } else {
                            e.int(Key::value).unwrap_or(0) as i128
                        },
                    })
                    .collect(),
                identifier,
            },
            tag => {
                if Self::int(n, Key::runtimeLang) != 0 {
                    self.loss(LossKind::Dropped, id, "runtimeLang has no IR field");
                }
                let templates = self
                    .list(n.node(Key::templateParams))
                    .into_iter()
                    .flatten()
                    .filter_map(|t| self.type_of(t))
                    .collect();
                TypeKind::Composite {
                    tag: CompositeTag(tag),
                    elements: elements
                        .iter()
                        .flatten()
                        .filter_map(|&e| self.slot[e as usize])
                        .collect(),
                    identifier,
                    vtable_holder: self.ty(n, Key::vtableHolder),
                    templates,
                    discriminator: self.ty(n, Key::discriminator),
                }
            }
        }
    }

    fn subrange(&self, id: NodeId) -> Subrange {
        let n = self.node(id);
        Subrange {
            count: self.bound(n.node(Key::count)),
            lower: self.bound(n.node(Key::lowerBound)),
            upper: self.bound(n.node(Key::upperBound)),
            stride: self.bound(n.node(Key::stride)),
            generic: n.kind == Kind::DIGenericSubrange,
        }
    }

    /// A bound: a constant, or the variable or expression that computes it.
    fn bound(&self, id: Option<NodeId>) -> Option<Bound> {
        let id = id?;
        let n = self.node(id);
        if let Some(v) = n.int(Key::intValue) {
            return Some(Bound::Const(v));
        }
        self.slot[id as usize].map(Bound::Ref)
    }

    /// A constant or symbolic value node (ConstantAsMetadata) as an IR value.
    pub(super) fn value_of(&self, id: NodeId) -> Option<Value> {
        let n = self.node(id);
        match n.kind {
            Kind::Value => Some(match n.int(Key::intValue) {
                Some(v) => Value::Int(v as i128),
                None => {
                    let s = n.str(Key::value).unwrap_or_default();
                    if s.ends_with(" undef") || s.ends_with(" poison") {
                        Value::Undef
                    } else {
                        Value::Llvm(s.to_string())
                    }
                }
            }),
            Kind::MDString => Some(Value::Str(n.str(Key::value).unwrap_or_default().into())),
            _ => self.slot[id as usize].map(Value::Ref),
        }
    }

    fn template_value(&mut self, id: NodeId) -> TypeKind {
        let n = self.node(id);
        let ty = self.ty(n, Key::type_);
        let is_default = n.int(Key::defaulted) == Some(1);
        let v = n.node(Key::value);
        match n.tag {
            DW_TAG_TEMPLATE_PACK => TypeKind::TemplateParam {
                kind: TemplateParamKind::Pack,
                ty,
                value: None,
                pack: self
                    .list(v)
                    .into_iter()
                    .flatten()
                    .filter_map(|t| self.type_of(t))
                    .collect(),
                is_default,
            },
            tag => TypeKind::TemplateParam {
                kind: if tag == DW_TAG_TEMPLATE_TEMPLATE {
                    TemplateParamKind::Template
                } else {
                    TemplateParamKind::Value
                },
                ty,
                value: v.and_then(|v| self.value_of(v)),
                pack: Vec::new(),
                is_default,
            },
        }
    }

    pub(super) fn expr_node(&mut self, id: NodeId) {
        let Some(Ref::Expr(h)) = self.slot[id as usize] else {
            return;
        };
        let elements = self.node(id).ops(Key::elements).unwrap_or_default();
        let (ops, bad) = decode_expr(elements);
        if let Some(code) = bad {
            self.loss(
                LossKind::Unknown,
                id,
                format!("operation {code:#x} is unknown: it and the rest of the expression are kept as raw operands"),
            );
        }
        self.ir.exprs.get_mut(h).ops = ops;
    }
}

/// LLVM DIExpression elements → operations (each operand is one element). An unknown code ends
/// decoding: it and what follows are kept as one operation with integer operands.
pub(crate) fn decode_expr(e: &[u64]) -> (Vec<Op>, Option<u64>) {
    let mut ops = Vec::new();
    let mut i = 0;
    while i < e.len() {
        let code = e[i];
        let row = u32::try_from(code)
            .ok()
            .and_then(|c| OPS.iter().find(|r| r.0 == c))
            .filter(|r| r.2.iter().all(|k| matches!(k, ArgKind::U | ArgKind::S)));
        let Some(&(c, _, kinds)) = row else {
            let args = e[i + 1..].iter().map(|&v| Arg::Int(v as i128)).collect();
            ops.push(Op::new(
                OpCode(u32::try_from(code).unwrap_or(u32::MAX)),
                args,
            ));
            return (ops, Some(code));
        };
        if i + kinds.len() >= e.len() {
            let args = e[i + 1..].iter().map(|&v| Arg::Int(v as i128)).collect();
            ops.push(Op::new(OpCode(c), args));
            return (ops, Some(code));
        }
        let args = kinds
            .iter()
            .enumerate()
            .map(|(k, kind)| {
                let v = e[i + 1 + k];
                Arg::Int(match kind {
                    ArgKind::S => v as i64 as i128,
                    _ => v as i128,
                })
            })
            .collect();
        ops.push(Op::new(OpCode(c), args));
        i += 1 + kinds.len();
    }
    (ops, None)
}
