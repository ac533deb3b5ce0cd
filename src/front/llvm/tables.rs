//! LLVM 14's numbers for what the IR names: DIFlags and DISPFlags bits, DWARF tags of derived
//! and composite types, address spaces of SPIR targets.

use crate::ir::{Flags, Memory, Qualifier};

/// DIFlags bit → IR flag name (`ir::FLAG_NAMES`). The accessibility (bits 0–1) and inheritance
/// (bits 16–17) fields are two-bit values, decoded by [`flags`](super::flags).
pub const DI_FLAGS: &[(u32, Flags)] = &[
    (1 << 2, Flags::FWD_DECL),
    (1 << 3, Flags::APPLE_BLOCK),
    (1 << 5, Flags::VIRTUAL),
    (1 << 6, Flags::ARTIFICIAL),
    (1 << 7, Flags::EXPLICIT),
    (1 << 8, Flags::PROTOTYPED),
    (1 << 10, Flags::OBJECT_POINTER),
    (1 << 12, Flags::STATIC_MEMBER),
    (1 << 13, Flags::LVALUE_REFERENCE),
    (1 << 14, Flags::RVALUE_REFERENCE),
    (1 << 15, Flags::EXPORT_SYMBOLS),
    (1 << 18, Flags::INTRODUCED_VIRTUAL),
    (1 << 19, Flags::BIT_FIELD),
    (1 << 20, Flags::NO_RETURN),
    (1 << 22, Flags::PASS_BY_VALUE),
    (1 << 23, Flags::PASS_BY_REFERENCE),
    (1 << 24, Flags::ENUM_CLASS),
    (1 << 25, Flags::THUNK),
    (1 << 26, Flags::NON_TRIVIAL),
    (1 << 27, Flags::BIG_ENDIAN),
    (1 << 28, Flags::LITTLE_ENDIAN),
    (1 << 29, Flags::ALL_CALLS_DESCRIBED),
];

/// DIFlagVector: consumed by the vector type kind.
pub const FLAG_VECTOR: u32 = 1 << 11;

/// Accessibility values (DIFlags bits 0–1).
pub const ACCESS: [Option<Flags>; 4] = [
    None,
    Some(Flags::PRIVATE),
    Some(Flags::PROTECTED),
    Some(Flags::PUBLIC),
];

/// Inheritance model values (DIFlags bits 16–17).
pub const INHERITANCE: [Option<Flags>; 4] = [
    None,
    Some(Flags::SINGLE_INHERITANCE),
    Some(Flags::MULTIPLE_INHERITANCE),
    Some(Flags::VIRTUAL_INHERITANCE),
];

/// DISPFlags bit → IR flag name; bits 0–1 are the virtuality.
pub const SP_FLAGS: &[(u32, Flags)] = &[
    (1 << 2, Flags::LOCAL),
    (1 << 3, Flags::DEFINITION),
    (1 << 4, Flags::OPTIMIZED),
    (1 << 5, Flags::PURE),
    (1 << 6, Flags::ELEMENTAL),
    (1 << 7, Flags::RECURSIVE),
    (1 << 8, Flags::MAIN_SUBPROGRAM),
    (1 << 9, Flags::DELETED),
    (1 << 11, Flags::OBJC_DIRECT),
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
