//! LLVM's numbers for what the IR names: DIFlags and DISPFlags bits, DWARF tags of derived
//! and composite types, address spaces of SPIR targets.

use crate::ir::{Flags, Memory, Qualifier};

/// What dwarv makes of one flag LLVM defines (llvm/IR/DebugInfoFlags.def).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagMeaning {
    /// `DIFlagZero` / `DISPFlagZero`: no flag at all.
    Zero,
    /// One bit, read as this IR flag.
    Ir(Flags),
    /// A value of DIFlags' two-bit accessibility field (bits 0–1).
    Access(Flags),
    /// A value of DIFlags' two-bit inheritance-model field (bits 16–17).
    Inheritance(Flags),
    /// A value of DISPFlags' two-bit virtuality field (bits 0–1): `FunctionInfo::virtuality`.
    Virtuality(u8),
    /// DIFlagVector: a one-dimensional array of a constant count with it is a
    /// `TypeKind::Vector`; anywhere else the bit stays in `Flags::foreign`.
    VectorKind,
    /// A name for bits that are flags of their own (DIFlagIndirectVirtualBase = FwdDecl |
    /// Virtual), read as those.
    Combination,
    /// No IR name: kept in `Flags::foreign` as LLVM numbers it. The DWARF writer keeps it
    /// (DW_AT_dwarv_foreign_flags); a SPIR-V set ledgers it ("flags the set has no bit for:
    /// foreign bits").
    Foreign,
}

use FlagMeaning::*;

/// Every DIFlag LLVM 14–19 define (the same list in each; `tests/all/llvm/flags.rs` checks it against
/// the installed LLVMs' DebugInfoFlags.def and reads each from a module), with what the reader
/// makes of it.
pub const DI_FLAGS: &[(&str, u32, FlagMeaning)] = &[
    ("Zero", 0, Zero),
    ("Private", 1, Access(Flags::PRIVATE)),
    ("Protected", 2, Access(Flags::PROTECTED)),
    ("Public", 3, Access(Flags::PUBLIC)),
    ("FwdDecl", 1 << 2, Ir(Flags::FWD_DECL)),
    ("AppleBlock", 1 << 3, Ir(Flags::APPLE_BLOCK)),
    ("ReservedBit4", 1 << 4, Foreign),
    ("Virtual", 1 << 5, Ir(Flags::VIRTUAL)),
    ("Artificial", 1 << 6, Ir(Flags::ARTIFICIAL)),
    ("Explicit", 1 << 7, Ir(Flags::EXPLICIT)),
    ("Prototyped", 1 << 8, Ir(Flags::PROTOTYPED)),
    ("ObjcClassComplete", 1 << 9, Foreign),
    ("ObjectPointer", 1 << 10, Ir(Flags::OBJECT_POINTER)),
    ("Vector", FLAG_VECTOR, VectorKind),
    ("StaticMember", 1 << 12, Ir(Flags::STATIC_MEMBER)),
    ("LValueReference", 1 << 13, Ir(Flags::LVALUE_REFERENCE)),
    ("RValueReference", 1 << 14, Ir(Flags::RVALUE_REFERENCE)),
    ("ExportSymbols", 1 << 15, Ir(Flags::EXPORT_SYMBOLS)),
    (
        "SingleInheritance",
        1 << 16,
        Inheritance(Flags::SINGLE_INHERITANCE),
    ),
    (
        "MultipleInheritance",
        2 << 16,
        Inheritance(Flags::MULTIPLE_INHERITANCE),
    ),
    (
        "VirtualInheritance",
        3 << 16,
        Inheritance(Flags::VIRTUAL_INHERITANCE),
    ),
    ("IntroducedVirtual", 1 << 18, Ir(Flags::INTRODUCED_VIRTUAL)),
    ("BitField", 1 << 19, Ir(Flags::BIT_FIELD)),
    ("NoReturn", 1 << 20, Ir(Flags::NO_RETURN)),
    ("TypePassByValue", 1 << 22, Ir(Flags::PASS_BY_VALUE)),
    ("TypePassByReference", 1 << 23, Ir(Flags::PASS_BY_REFERENCE)),
    ("EnumClass", 1 << 24, Ir(Flags::ENUM_CLASS)),
    ("Thunk", 1 << 25, Ir(Flags::THUNK)),
    ("NonTrivial", 1 << 26, Ir(Flags::NON_TRIVIAL)),
    ("BigEndian", 1 << 27, Ir(Flags::BIG_ENDIAN)),
    ("LittleEndian", 1 << 28, Ir(Flags::LITTLE_ENDIAN)),
    ("AllCallsDescribed", 1 << 29, Ir(Flags::ALL_CALLS_DESCRIBED)),
    ("IndirectVirtualBase", (1 << 2) | (1 << 5), Combination),
];

/// The bits of a table's flags that have an IR name ([`FlagMeaning::Ir`]).
pub const fn named_bits(table: &[(&str, u32, FlagMeaning)]) -> u32 {
    let mut bits = 0;
    let mut i = 0;
    while i < table.len() {
        if let Ir(_) = table[i].2 {
            bits |= table[i].1;
        }
        i += 1;
    }
    bits
}

/// DIFlagVector: consumed by the vector type kind.
pub const FLAG_VECTOR: u32 = 1 << 11;

/// The two-bit fields of DIFlags: accessibility and the inheritance model.
pub const DI_FIELDS: u32 = 3 | (3 << 16);

/// Every DISPFlag LLVM 14–19 define, as [`DI_FLAGS`]. Bits 0–1 are the virtuality.
pub const SP_FLAGS: &[(&str, u32, FlagMeaning)] = &[
    ("Zero", 0, Zero),
    ("Virtual", 1, Virtuality(1)),
    ("PureVirtual", 2, Virtuality(2)),
    ("LocalToUnit", 1 << 2, Ir(Flags::LOCAL)),
    ("Definition", 1 << 3, Ir(Flags::DEFINITION)),
    ("Optimized", 1 << 4, Ir(Flags::OPTIMIZED)),
    ("Pure", 1 << 5, Ir(Flags::PURE)),
    ("Elemental", 1 << 6, Ir(Flags::ELEMENTAL)),
    ("Recursive", 1 << 7, Ir(Flags::RECURSIVE)),
    ("MainSubprogram", 1 << 8, Ir(Flags::MAIN_SUBPROGRAM)),
    ("Deleted", 1 << 9, Ir(Flags::DELETED)),
    ("ObjCDirect", 1 << 11, Ir(Flags::OBJC_DIRECT)),
];

pub const DW_TAG_ARRAY: u16 = 0x01;
pub const DW_TAG_ENUMERATION: u16 = 0x04;
pub const DW_TAG_MEMBER: u16 = 0x0d;
pub const DW_TAG_VARIABLE: u16 = 0x34;
pub const DW_TAG_POINTER: u16 = 0x0f;
pub const DW_TAG_REFERENCE: u16 = 0x10;
pub const DW_TAG_TYPEDEF: u16 = 0x16;
pub const DW_TAG_INHERITANCE: u16 = 0x1c;
pub const DW_TAG_PTR_TO_MEMBER: u16 = 0x1f;
pub const DW_TAG_UNSPECIFIED_TYPE: u16 = 0x3b;
pub const DW_TAG_RVALUE_REFERENCE: u16 = 0x42;
pub const DW_TAG_TEMPLATE_TEMPLATE: u16 = 0x4106;
pub const DW_TAG_TEMPLATE_PACK: u16 = 0x4107;

/// Derived-type tags that are qualifiers.
pub const QUALIFIERS: &[Qualifier] = &[
    Qualifier::CONST,
    Qualifier::VOLATILE,
    Qualifier::RESTRICT,
    Qualifier::ATOMIC,
    Qualifier::IMMUTABLE,
];

/// SPIR/SPIR-V targets' LLVM address space → (memory kind, SPIR-V storage class), as
/// llvm-spirv maps them (SPIRSPIRVAddrSpaceMap).
pub const SPIR_SPACES: &[(u32, Memory, u32)] = &[
    (0, Memory::PRIVATE, 7),  // Function
    (1, Memory::GLOBAL, 5),   // CrossWorkgroup
    (2, Memory::CONSTANT, 0), // UniformConstant
    (3, Memory::GROUP, 4),    // Workgroup
    (4, Memory::GENERIC, 8),  // Generic
];
