//! Types: every kind the three SPIR-V debug sets, DWARF 5 (with AMD's extensions) and LLVM 14's
//! DI nodes can describe. Members, inheritance and template parameters are types too (as in
//! SPIR-V and LLVM), so a composite lists them as elements.

use super::{Flags, Handle, Loc, RawAttr, Ref, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub kind: TypeKind,
    pub name: Option<String>,
    /// Size in bits (a constant, or a variable/expression for dynamic sizes).
    pub size: Option<Bound>,
    pub align_bits: Option<u32>,
    /// The enclosing scope (unit, namespace, composite, function).
    pub scope: Option<Ref>,
    pub at: Option<Loc>,
    pub flags: Flags,
    /// Linkage name (SPIR-V DebugTypeComposite Linkage Name, DWARF DW_AT_linkage_name).
    pub linkage: Option<String>,
    pub extra: Vec<RawAttr>,
}

impl Type {
    pub fn new(kind: TypeKind) -> Type {
        Type {
            kind,
            name: None,
            size: None,
            align_bits: None,
            scope: None,
            at: None,
            flags: Flags::default(),
            linkage: None,
            extra: Vec::new(),
        }
    }
}

/// The size in bits a type's own description implies, where it states none: an array's is its
/// constant counts times its element's (sized, or through typedefs, qualifiers and arrays), with
/// no stride; a vector's its component's times its count, a matrix's its column's times its
/// count. SPIR-V's DebugTypeArray, DebugTypeVector and DebugTypeMatrix have no Size operand;
/// its readers give them this size.
pub fn implied_bits(types: &super::Arena<Type>, h: Handle<Type>) -> Option<u64> {
    array_bits(types, h, 0)
}

/// The size in bits of an array element: stated, or its base's through typedefs and qualifiers,
/// or an array's implied one. A stated 0 (glslang's composites) is no size.
pub fn element_bits(types: &super::Arena<Type>, h: Handle<Type>) -> Option<u64> {
    sized_bits(types, h, 0)
}

/// An enumerator's value as its underlying type holds it: a signed basic type of N bits takes
/// [2^(N-1), 2^N) as negative, an unsigned one [-2^(N-1), 0) as positive (SPIR-V writes the
/// value as an OpConstant whose signedness says nothing: Kernel modules have only unsigned
/// integers). Anything else is left as it is.
pub fn enum_value_in(
    types: &super::Arena<Type>,
    underlying: Option<Handle<Type>>,
    v: i128,
) -> i128 {
    let Some(mut h) = underlying else { return v };
    for _ in 0..MAX_CHAIN {
        let t = types.get(h);
        match &t.kind {
            TypeKind::Typedef { base: Some(b) } | TypeKind::Qualified { base: Some(b), .. } => {
                h = *b
            }
            TypeKind::Basic { encoding } => {
                let Some(Bound::Const(bits @ 1..=64)) = t.size else {
                    return v;
                };
                let full = 1i128 << bits;
                let half = full >> 1;
                return match *encoding {
                    Encoding::SIGNED | Encoding::SIGNED_CHAR if (half..full).contains(&v) => {
                        v - full
                    }
                    Encoding::UNSIGNED | Encoding::UNSIGNED_CHAR | Encoding::BOOLEAN
                        if (-half..0).contains(&v) =>
                    {
                        v + full
                    }
                    _ => v,
                };
            }
            _ => return v,
        }
    }
    v
}

/// Chains longer than this (only a cycle, an IR error, makes them) imply nothing.
const MAX_CHAIN: u32 = 64;

fn array_bits(types: &super::Arena<Type>, h: Handle<Type>, depth: u32) -> Option<u64> {
    let (e, counts): (Handle<Type>, Vec<Option<i64>>) = match &types.get(h).kind {
        TypeKind::Array {
            element: Some(e),
            dims,
            stride: None,
            ..
        } => (
            *e,
            dims.iter()
                .map(|d| match d.count {
                    Some(Bound::Const(n)) => Some(n),
                    _ => None,
                })
                .collect(),
        ),
        TypeKind::Vector {
            element: Some(e),
            count,
        }
        | TypeKind::Matrix {
            column: Some(e),
            count,
            ..
        } => (*e, vec![Some(i64::from(*count))]),
        _ => return None,
    };
    let mut bits = sized_bits(types, e, depth + 1)?;
    for n in counts {
        bits = bits.checked_mul(u64::try_from(n?).ok()?)?;
    }
    Some(bits)
}

/// A type's stated size, or its base's through typedefs and qualifiers, or an array's implied one.
fn sized_bits(types: &super::Arena<Type>, mut h: Handle<Type>, depth: u32) -> Option<u64> {
    for d in depth..MAX_CHAIN {
        let t = types.get(h);
        if let Some(Bound::Const(n)) = t.size {
            return u64::try_from(n).ok().filter(|&n| n != 0);
        }
        match &t.kind {
            TypeKind::Typedef { base: Some(b) } | TypeKind::Qualified { base: Some(b), .. } => {
                h = *b
            }
            TypeKind::Array { .. } | TypeKind::Vector { .. } | TypeKind::Matrix { .. } => {
                return array_bits(types, h, d + 1)
            }
            _ => return None,
        }
    }
    None
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    Basic {
        encoding: Encoding,
    },
    /// Pointer, reference or rvalue reference. `pointee: None` is `void`.
    Pointer {
        kind: PtrKind,
        pointee: Option<Handle<Type>>,
        space: AddrSpace,
    },
    Qualified {
        qualifier: Qualifier,
        base: Option<Handle<Type>>,
    },
    Typedef {
        base: Option<Handle<Type>>,
    },
    Array {
        element: Option<Handle<Type>>,
        /// One subrange per dimension, outermost first. An empty count is a runtime-sized array.
        dims: Vec<Subrange>,
        /// DW_AT_byte_stride / bit_stride of the whole array, in bits.
        stride: Option<Bound>,
        /// Fortran: DW_AT_data_location, associated, allocated, rank.
        data_location: Option<Bound>,
        associated: Option<Bound>,
        allocated: Option<Bound>,
        rank: Option<Bound>,
        /// Column-major (Fortran) ordering: DW_AT_ordering = DW_ORD_col_major.
        column_major: bool,
    },
    /// A SIMD vector (SPIR-V DebugTypeVector; DWARF base type with DW_AT_LLVM_vector_size or a
    /// DW_AT_GNU_vector array).
    Vector {
        element: Option<Handle<Type>>,
        count: u32,
    },
    /// A matrix of `count` vectors (NonSemantic DebugTypeMatrix).
    Matrix {
        column: Option<Handle<Type>>,
        count: u32,
        column_major: bool,
    },
    /// A function signature. `ret: None` is `void`; a `None` parameter is unknown
    /// (DebugInfoNone).
    Function {
        ret: Option<Handle<Type>>,
        params: Vec<Option<Handle<Type>>>,
        variadic: bool,
        /// DW_AT_calling_convention (DW_CC_*), 0 = default.
        calling_convention: u8,
    },
    Enum {
        underlying: Option<Handle<Type>>,
        enumerators: Vec<Enumerator>,
        /// ODR identifier (LLVM `identifier:`).
        identifier: Option<String>,
    },
    /// Struct, class, union (and DWARF interface / variant part). `elements` are its members,
    /// inheritance, methods (function scopes), nested types and static members.
    Composite {
        tag: CompositeTag,
        elements: Vec<Ref>,
        identifier: Option<String>,
        vtable_holder: Option<Handle<Type>>,
        /// Template parameters (TemplateParam types).
        templates: Vec<Handle<Type>>,
        /// For a variant part: the member holding the discriminant.
        discriminator: Option<Handle<Type>>,
    },
    /// A data member; the enclosing composite is `Type::scope`.
    Member {
        base: Option<Handle<Type>>,
        offset_bits: Option<u64>,
        /// Bit offset of a bit field in its storage unit (DW_AT_data_bit_offset covers the rest).
        storage_offset_bits: Option<u64>,
        /// Value of a constant static member (DW_AT_const_value).
        value: Option<Value>,
        /// Discriminant value(s) of a variant member (DW_AT_discr_value / LLVM extraData).
        discriminant: Option<Value>,
        /// The Objective-C property an instance variable backs (LLVM extraData).
        property: Option<Handle<super::Property>>,
    },
    Inheritance {
        base: Option<Handle<Type>>,
        offset_bits: Option<u64>,
    },
    PtrToMember {
        pointee: Option<Handle<Type>>,
        class: Option<Handle<Type>>,
    },
    /// SPIR-V DebugTypeTemplate: `target` (a composite or function) instantiated with `params`.
    Template {
        target: Option<Ref>,
        params: Vec<Handle<Type>>,
    },
    TemplateParam {
        kind: TemplateParamKind,
        ty: Option<Handle<Type>>,
        value: Option<Value>,
        /// Pack members (TemplateParamKind::Pack).
        pack: Vec<Handle<Type>>,
        is_default: bool,
    },
    /// Fortran character types (LLVM DIStringType, DW_TAG_string_type).
    String {
        length: Option<Bound>,
        location: Option<Bound>,
        encoding: Encoding,
    },
    /// DW_TAG_unspecified_type (`decltype(nullptr)`, `void` in some producers).
    Unspecified,
    /// A DWARF tag dwarv has no kind for; its attributes are in `Type::extra`.
    Other {
        tag: u16,
        children: Vec<Ref>,
    },
}

open_enum! {
    /// Base-type encodings, numbered as DW_ATE (SPIR-V sets map theirs through `spec::spirv`).
    Encoding: u32 {
        UNSPECIFIED = 0x00 => "unspecified",
        ADDRESS = 0x01 => "address",
        BOOLEAN = 0x02 => "boolean",
        COMPLEX_FLOAT = 0x03 => "complex_float",
        FLOAT = 0x04 => "float",
        SIGNED = 0x05 => "signed",
        SIGNED_CHAR = 0x06 => "signed_char",
        UNSIGNED = 0x07 => "unsigned",
        UNSIGNED_CHAR = 0x08 => "unsigned_char",
        IMAGINARY_FLOAT = 0x09 => "imaginary_float",
        PACKED_DECIMAL = 0x0a => "packed_decimal",
        NUMERIC_STRING = 0x0b => "numeric_string",
        EDITED = 0x0c => "edited",
        SIGNED_FIXED = 0x0d => "signed_fixed",
        UNSIGNED_FIXED = 0x0e => "unsigned_fixed",
        DECIMAL_FLOAT = 0x0f => "decimal_float",
        UTF = 0x10 => "utf",
        UCS = 0x11 => "ucs",
        ASCII = 0x12 => "ascii",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtrKind {
    Pointer,
    Reference,
    RvalueReference,
}

/// Where a pointer points: the memory kind, and the exact values each numbering had, because the
/// numberings do not map one to one (see DESIGN.md "Code positions across formats").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AddrSpace {
    pub memory: Memory,
    /// SPIR-V storage class (DebugTypePointer Storage Class).
    pub storage_class: Option<u32>,
    /// LLVM `dwarfAddressSpace` / AMDGPU DWARF address space.
    pub dwarf_space: Option<u32>,
    /// DW_AT_address_class (DW_ADDR_LLVM_* in seed 002, or what clang writes for AMDGPU).
    pub address_class: Option<u32>,
}

open_enum! {
    /// Memory kinds shared by all formats.
    Memory: u8 {
        NONE = 0 => "none",
        GLOBAL = 1 => "global",
        CONSTANT = 2 => "constant",
        GROUP = 3 => "group",
        PRIVATE = 4 => "private",
        GENERIC = 5 => "generic",
        REGION = 6 => "region",
        PRIVATE_WAVE = 7 => "private_wave",
        UNIFORM = 8 => "uniform",
        PUSH_CONSTANT = 9 => "push_constant",
        INPUT = 10 => "input",
        OUTPUT = 11 => "output",
        IMAGE = 12 => "image",
        STORAGE_BUFFER = 13 => "storage_buffer",
    }
}

impl Default for Memory {
    fn default() -> Self {
        Memory::NONE
    }
}

open_enum! {
    /// Type qualifiers (SPIR-V DebugTypeQualifier, DWARF modifier tags).
    Qualifier: u16 {
        CONST = 0x26 => "const",
        VOLATILE = 0x35 => "volatile",
        RESTRICT = 0x37 => "restrict",
        ATOMIC = 0x47 => "atomic",
        IMMUTABLE = 0x4b => "immutable",
        SHARED = 0x40 => "shared",
        PACKED = 0x2d => "packed",
    }
}

open_enum! {
    /// Composite tags, numbered as DW_TAG.
    CompositeTag: u16 {
        CLASS = 0x02 => "class",
        STRUCT = 0x13 => "struct",
        UNION = 0x17 => "union",
        INTERFACE = 0x38 => "interface",
        VARIANT_PART = 0x33 => "variant_part",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TemplateParamKind {
    Type,
    Value,
    /// Template template parameter (value is the template's name).
    Template,
    Pack,
}

/// One dimension of an array. Absent bounds are unknown; an array whose only dimension has no
/// count and no upper bound is runtime-sized.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subrange {
    pub count: Option<Bound>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    pub stride: Option<Bound>,
    /// LLVM DIGenericSubrange (bounds are expressions evaluated at run time).
    pub generic: bool,
}

/// A bound or size: a constant, or a reference to a variable, member or expression that
/// computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    Const(i64),
    Ref(Ref),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Enumerator {
    pub name: String,
    pub value: i128,
}
