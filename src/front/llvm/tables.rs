//! LLVM 14's numbers for what the IR names: DIFlags and DISPFlags bits, DWARF tags of derived
//! and composite types, address spaces of SPIR targets.

use crate::ir::{Memory, Qualifier};

/// DIFlags bit → IR flag name (`ir::FLAG_NAMES`). The accessibility (bits 0–1) and inheritance
/// (bits 16–17) fields are two-bit values, decoded by [`flags`](super::flags).
pub const DI_FLAGS: &[(u32, &str)] = &[
    (1 << 2, "fwd_decl"),
    (1 << 3, "apple_block"),
    (1 << 5, "virtual"),
    (1 << 6, "artificial"),
    (1 << 7, "explicit"),
    (1 << 8, "prototyped"),
    (1 << 10, "object_pointer"),
    (1 << 12, "static_member"),
    (1 << 13, "lvalue_reference"),
    (1 << 14, "rvalue_reference"),
    (1 << 15, "export_symbols"),
    (1 << 18, "introduced_virtual"),
    (1 << 19, "bit_field"),
    (1 << 20, "no_return"),
    (1 << 22, "pass_by_value"),
    (1 << 23, "pass_by_reference"),
    (1 << 24, "enum_class"),
    (1 << 25, "thunk"),
    (1 << 26, "non_trivial"),
    (1 << 27, "big_endian"),
    (1 << 28, "little_endian"),
    (1 << 29, "all_calls_described"),
];

/// DIFlagVector: consumed by the vector type kind.
pub const FLAG_VECTOR: u32 = 1 << 11;

/// Accessibility values (DIFlags bits 0–1).
pub const ACCESS: [Option<&str>; 4] = [None, Some("private"), Some("protected"), Some("public")];

/// Inheritance model values (DIFlags bits 16–17).
pub const INHERITANCE: [Option<&str>; 4] = [
    None,
    Some("single_inheritance"),
    Some("multiple_inheritance"),
    Some("virtual_inheritance"),
];

/// DISPFlags bit → IR flag name; bits 0–1 are the virtuality.
pub const SP_FLAGS: &[(u32, &str)] = &[
    (1 << 2, "local"),
    (1 << 3, "definition"),
    (1 << 4, "optimized"),
    (1 << 5, "pure"),
    (1 << 6, "elemental"),
    (1 << 7, "recursive"),
    (1 << 8, "main_subprogram"),
    (1 << 9, "deleted"),
    (1 << 11, "objc_direct"),
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
