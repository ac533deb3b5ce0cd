//! Vendor DWARF codes the writer emits: AMD's heterogeneous-debugging attributes (seed 002) and
//! dwarv's own attributes in the DW_AT_lo_user range (0x3d00–0x3d3f, unused by GCC, LLVM and
//! Apple), which keep the IR values DWARF has no attribute for (docs/dwarf.md, "Writer").

use gimli::{DwAt, DwTag};

use crate::ir::{Flags, Memory};

// AMD heterogeneous debugging (seed 002).
pub const DW_AT_LLVM_ACTIVE_LANE: DwAt = DwAt(0x3e08);
pub const DW_AT_LLVM_AUGMENTATION: DwAt = DwAt(0x3e09);
pub const DW_AT_LLVM_LANES: DwAt = DwAt(0x3e0a);
pub const DW_AT_LLVM_LANE_PC: DwAt = DwAt(0x3e0b);
pub const DW_AT_LLVM_VECTOR_SIZE: DwAt = DwAt(0x3e0c);
/// LLVM's DW_AT_LLVM_apinotes and Apple's DW_AT_APPLE_sdk, which gimli 0.34 does not name.
pub const DW_AT_LLVM_APINOTES: DwAt = DwAt(0x3e07);
pub const DW_AT_APPLE_SDK: DwAt = DwAt(0x3fef);
/// DW_LNCT_LLVM_source and DW_LNCT_LLVM_is_MD5.
pub const DW_LNCT_LLVM_SOURCE: u16 = 0x2001;
pub const DW_LNCT_LLVM_IS_MD5: u16 = 0x2002;
/// DW_CFA_LLVM_def_aspace_cfa and its _sf form.
pub const DW_CFA_LLVM_DEF_ASPACE_CFA: u8 = 0x30;
pub const DW_CFA_LLVM_DEF_ASPACE_CFA_SF: u8 = 0x31;

// dwarv's attributes.
/// Memory kind of a pointer (`ir::Memory`).
pub const DW_AT_DWARV_MEMORY: DwAt = DwAt(0x3d00);
/// Exact SPIR-V storage class of a pointer.
pub const DW_AT_DWARV_STORAGE_CLASS: DwAt = DwAt(0x3d01);
/// Exact LLVM dwarfAddressSpace / AMDGPU DWARF address space of a pointer.
pub const DW_AT_DWARV_ADDRESS_SPACE: DwAt = DwAt(0x3d02);
/// The SPIR-V result id of a function or of what a variable is bound to.
pub const DW_AT_DWARV_SPIRV_ID: DwAt = DwAt(0x3d03);
/// An ELF symbol a function or variable is bound to.
pub const DW_AT_DWARV_SYMBOL: DwAt = DwAt(0x3d04);
/// An LLVM value (as LLVM prints it) a function or variable is bound to.
pub const DW_AT_DWARV_LLVM_VALUE: DwAt = DwAt(0x3d05);
/// Marks the binding of a variable (its value is one of the three above, as a child form).
pub const DW_AT_DWARV_BINDING: DwAt = DwAt(0x3d06);
/// A function's scope line (LLVM scopeLine, SPIR-V DebugFunction Scope Line).
pub const DW_AT_DWARV_SCOPE_LINE: DwAt = DwAt(0x3d07);
/// The function type of a subprogram (its DW_TAG_subroutine_type).
pub const DW_AT_DWARV_FUNCTION_TYPE: DwAt = DwAt(0x3d08);
/// Parameter number (from 1).
pub const DW_AT_DWARV_ARG_NUMBER: DwAt = DwAt(0x3d09);
/// IR flag bits no DWARF attribute stands for.
pub const DW_AT_DWARV_FLAGS: DwAt = DwAt(0x3d0a);
/// Source-format flag bits dwarv has no name for.
pub const DW_AT_DWARV_FOREIGN_FLAGS: DwAt = DwAt(0x3d0b);
/// Compiler flags of a unit.
pub const DW_AT_DWARV_FLAGS_TEXT: DwAt = DwAt(0x3d0c);
/// Emission kind of a unit other than full.
pub const DW_AT_DWARV_EMISSION: DwAt = DwAt(0x3d0d);
/// ODR identifier of a composite or enum.
pub const DW_AT_DWARV_IDENTIFIER: DwAt = DwAt(0x3d0e);
/// A matrix (array of vectors): the flag is its column-major bit.
pub const DW_AT_DWARV_MATRIX: DwAt = DwAt(0x3d10);
/// A function-type parameter whose type is unknown (SPIR-V DebugInfoNone).
pub const DW_AT_DWARV_UNKNOWN_TYPE: DwAt = DwAt(0x3d11);
/// This-pointer adjustment of a method (LLVM thisAdjustment).
pub const DW_AT_DWARV_THIS_ADJUSTMENT: DwAt = DwAt(0x3d12);
/// The exact declare/value events of a variable from SPIR-V or LLVM IR (back::dwarf::records).
pub const DW_AT_DWARV_EVENTS: DwAt = DwAt(0x3d13);
/// The variable that declares a common block.
pub const DW_AT_DWARV_COMMON_DECL: DwAt = DwAt(0x3d14);
/// The DWARF version a non-DWARF source recorded for a unit (SPIR-V DebugCompilationUnit).
pub const DW_AT_DWARV_SOURCE_DWARF_VERSION: DwAt = DwAt(0x3d15);
/// The SPIR-V debug set's Version operand of a unit.
pub const DW_AT_DWARV_DEBUG_VERSION: DwAt = DwAt(0x3d16);
/// The composite or function a DW_TAG_DWARV_TEMPLATE instantiates.
pub const DW_AT_DWARV_TEMPLATE_TARGET: DwAt = DwAt(0x3d17);
/// A constant value that is an entity (a template argument naming a variable).
pub const DW_AT_DWARV_VALUE_REF: DwAt = DwAt(0x3d18);
/// The DW_AT_address_class beside it was derived from the memory kind, not in the IR.
pub const DW_AT_DWARV_DERIVED_CLASS: DwAt = DwAt(0x3d19);
/// The SPIR-V debug set (import name) a unit was written from; its addresses are 4 × word
/// offsets in the debug-stripped normal form.
pub const DW_AT_DWARV_SPIRV_SET: DwAt = DwAt(0x3d0f);
/// The exact scope runs of a unit, function or block from SPIR-V (`start end` word offsets).
pub const DW_AT_DWARV_RUNS: DwAt = DwAt(0x3d1a);
/// Line rows with a span (NonSemantic DebugLine end line/column).
pub const DW_AT_DWARV_LINE_SPANS: DwAt = DwAt(0x3d1b);
/// The module's build identifier (NonSemantic DebugBuildIdentifier) and its flags.
pub const DW_AT_DWARV_BUILD_ID: DwAt = DwAt(0x3d1c);
pub const DW_AT_DWARV_BUILD_FLAGS: DwAt = DwAt(0x3d1d);
/// The module's storage path (NonSemantic DebugStoragePath).
pub const DW_AT_DWARV_STORAGE_PATH: DwAt = DwAt(0x3d1e);
/// The link records `dwarv strip` leaves in the stripped module: build id and sidecar path.
pub const DW_AT_DWARV_LINK_ID: DwAt = DwAt(0x3d1f);
pub const DW_AT_DWARV_LINK_PATH: DwAt = DwAt(0x3d20);
/// The expressions of the events of a module from SPIR-V, each once (events name them by
/// index), on the first unit: DWARF expression bytes each. Read, no longer written (see
/// DW_AT_DWARV_EVENT_OPS).
pub const DW_AT_DWARV_EVENT_EXPRS: DwAt = DwAt(0x3d21);
/// The same table as segments that also hold LLVM-only operations (`back::dwarf::records`).
pub const DW_AT_DWARV_EVENT_OPS: DwAt = DwAt(0x3d36);
/// The element type of a vector written as AMD's base type with DW_AT_LLVM_vector_size.
pub const DW_AT_DWARV_ELEMENT: DwAt = DwAt(0x3d22);
/// Flags of a function's signature type, which has no DIE of its own.
pub const DW_AT_DWARV_SIGNATURE_FLAGS: DwAt = DwAt(0x3d23);
/// The DW_AT_declaration beside it says what the DIE is (a composite without a size, which
/// DWARF would take as complete; a function declaration), not the IR's fwd_decl flag.
pub const DW_AT_DWARV_NOT_FWD_DECL: DwAt = DwAt(0x3d24);
/// A type of a module from SPIR-V that has no scope (it is written under the first unit).
pub const DW_AT_DWARV_NO_SCOPE: DwAt = DwAt(0x3d25);
/// The address size of a module from SPIR-V (its addressing model; 0: none, a Logical module).
pub const DW_AT_DWARV_ADDRESS_SIZE: DwAt = DwAt(0x3d26);
/// A unit's language when it does not fit DW_AT_language's 16 bits (DW_AT_language then 0).
pub const DW_AT_DWARV_LANGUAGE: DwAt = DwAt(0x3d27);
/// The size in bits of a vector written as AMD's base type (whose DW_AT_byte_size is the
/// element's), when the IR gives one.
pub const DW_AT_DWARV_VECTOR_BITS: DwAt = DwAt(0x3d28);
/// A definition of a declaration (DW_AT_specification) whose own scope is its unit, not the
/// declaration's scope (SPIR-V puts member function definitions in the compilation unit); a
/// type other than a composite, enum or typedef whose scope is its unit (LLVM lets a pointer
/// name one; readers give such types none).
pub const DW_AT_DWARV_UNIT_SCOPE: DwAt = DwAt(0x3d29);
/// Flags of the declaration a definition (DW_AT_specification) does not have (IR flag bits);
/// a reader gives a definition its declaration's flags otherwise.
pub const DW_AT_DWARV_NOT_INHERITED: DwAt = DwAt(0x3d2a);
/// A variable inside a function that is static (a global in the IR) without a DW_OP_addr
/// location that would say so.
pub const DW_AT_DWARV_STATIC: DwAt = DwAt(0x3d2b);
/// A local variable outside any function (a DebugLocalVariable whose parent is the compilation
/// unit, as spirv-opt leaves the one of a private global it made a local): at a unit's top
/// level, where a reader would take the DIE for a global.
pub const DW_AT_DWARV_LOCAL: DwAt = DwAt(0x3d2c);
/// gcc's location views of a variable's location list (DW_AT_GNU_locviews names them by a
/// section offset, which cannot be written elsewhere): the view list's bytes, a ULEB pair
/// (begin view, end view) per entry of the list, as a block.
pub const DW_AT_DWARV_LOCVIEWS: DwAt = DwAt(0x3d2d);
/// Marks a unit written from LLVM IR (string: the module's target triple): its addresses are
/// LLVM instruction numbers (`back::dwarf::records`).
pub const DW_AT_DWARV_LLVM: DwAt = DwAt(0x3d2e);
/// A unit's LLVM-only fields DWARF has no attribute for, when not the default (block of ULEB
/// pairs `field value`: 0 nameTableKind, 1 splitDebugInlining, 2 debugInfoForProfiling,
/// 3 rangesBaseAddress).
pub const DW_AT_DWARV_UNIT_FIELDS: DwAt = DwAt(0x3d2f);
/// The entity is the k-th (from 1) of its owner's retained list: LLVM's retainedNodes of the
/// function it is in, or retainedTypes/enums of its unit (udata k).
pub const DW_AT_DWARV_RETAINED: DwAt = DwAt(0x3d30);
/// A child DIE of a composite that is not one of its elements (LLVM scopes a nested type to
/// its struct without listing it).
pub const DW_AT_DWARV_NOT_ELEMENT: DwAt = DwAt(0x3d31);
/// An inlined subroutine's number n, by which the records of its code name it, as 2n + 1 when
/// the IR states the inlined function, 2n when the writer derived it (udata; see
/// `back::dwarf::records`).
pub const DW_AT_DWARV_INLINED: DwAt = DwAt(0x3d32);
/// The exact scope runs of a scope in inlined code (block of ULEB `start end inlined` triples).
pub const DW_AT_DWARV_INLINED_RUNS: DwAt = DwAt(0x3d33);
/// A function without a signature type (the reader would build one from the DIE).
pub const DW_AT_DWARV_NO_SIGNATURE: DwAt = DwAt(0x3d34);
/// A function whose DW_AT_ranges/low_pc the writer derived from its scope runs: not the
/// function's own ranges (LLVM gives a function's ranges only for its definition's body).
pub const DW_AT_DWARV_DERIVED_RANGES: DwAt = DwAt(0x3d35);
/// A compile unit the writer made for a module that has none (an OpLine-only shader): dwarv's
/// reader takes the unit out again (flag).
pub const DW_AT_DWARV_SYNTHESIZED_UNIT: DwAt = DwAt(0x3d37);
/// The lexical block a block of inlined code is in, when that block is not where the DIE is
/// (the block's code is all inlined at one call, so its DIE is under the inlined subroutine,
/// while its parent block has no code there): a reference.
pub const DW_AT_DWARV_PARENT: DwAt = DwAt(0x3d38);
/// A lexical block that is an IR block file (LLVM DILexicalBlockFile, SPIR-V
/// DebugLexicalBlockDiscriminator): its discriminator (udata, 0 for none). The DIE has no ranges
/// of its own (its code is in its parent's); the records give its runs.
pub const DW_AT_DWARV_BLOCK_FILE: DwAt = DwAt(0x3d39);
/// The hash of the SPIR-V code whose positions the unit's addresses are (`ModuleInfo::code_id`;
/// first unit; string).
pub const DW_AT_DWARV_CODE_ID: DwAt = DwAt(0x3d3a);
/// A copy of a template parameter that several templates share (LLVM lists one node in the
/// declaration's and the definition's templateParams; DWARF has no shared children): a
/// reference to the parameter's own DIE, whose entity the reader takes for the copy.
pub const DW_AT_DWARV_SAME_AS: DwAt = DwAt(0x3d3b);
/// SPIR-V DebugTypeTemplate (a composite or function instantiated with parameters).
pub const DW_TAG_DWARV_TEMPLATE: DwTag = DwTag(0x4d00);
/// A template value parameter without a type (DW_TAG_template_value_parameter needs one).
pub const DW_TAG_DWARV_UNTYPED_VALUE_PARAM: DwTag = DwTag(0x4d01);

/// Flags written as standard DWARF attributes (flag forms).
pub const FLAG_ATTRS: &[(Flags, DwAt)] = &[
    (Flags::ARTIFICIAL, gimli::DW_AT_artificial),
    (Flags::EXTERNAL, gimli::DW_AT_external),
    (Flags::FWD_DECL, gimli::DW_AT_declaration),
    (Flags::EXPLICIT, gimli::DW_AT_explicit),
    (Flags::PROTOTYPED, gimli::DW_AT_prototyped),
    (Flags::OPTIMIZED, gimli::DW_AT_APPLE_optimized),
    (Flags::ENUM_CLASS, gimli::DW_AT_enum_class),
    (Flags::NO_RETURN, gimli::DW_AT_noreturn),
    (Flags::RECURSIVE, gimli::DW_AT_recursive),
    (Flags::PURE, gimli::DW_AT_pure),
    (Flags::ELEMENTAL, gimli::DW_AT_elemental),
    (Flags::MAIN_SUBPROGRAM, gimli::DW_AT_main_subprogram),
    (Flags::DELETED, gimli::DW_AT_deleted),
    (Flags::ALL_CALLS_DESCRIBED, gimli::DW_AT_call_all_calls),
    (Flags::EXPORT_SYMBOLS, gimli::DW_AT_export_symbols),
];

/// Flags written as attributes other than a flag (accessibility) or by the DIE itself (a
/// block's concrete copy without DW_AT_abstract_origin).
const OTHER_ATTR_FLAGS: &[Flags] = &[
    Flags::PUBLIC,
    Flags::PROTECTED,
    Flags::PRIVATE,
    Flags::COPY_WITHOUT_ORIGIN,
];

/// The flag bits `FLAG_ATTRS` and the attributes above stand for (the rest go to
/// DW_AT_DWARV_FLAGS).
pub const fn flags_with_attrs() -> u64 {
    let mut bits = 0;
    let mut i = 0;
    while i < FLAG_ATTRS.len() {
        bits |= FLAG_ATTRS[i].0.bits;
        i += 1;
    }
    let mut i = 0;
    while i < OTHER_ATTR_FLAGS.len() {
        bits |= OTHER_ATTR_FLAGS[i].bits;
        i += 1;
    }
    bits
}

/// Seed 002's DW_ADDR_LLVM_* for a memory kind (DESIGN.md's table).
pub fn address_class_of(m: Memory) -> Option<u32> {
    const TABLE: &[(Memory, u32)] = &[
        (Memory::GLOBAL, 1),
        (Memory::STORAGE_BUFFER, 1),
        (Memory::CONSTANT, 2),
        (Memory::GROUP, 3),
        (Memory::PRIVATE, 4),
        (Memory::PRIVATE_WAVE, 4),
    ];
    TABLE.iter().find(|(k, _)| *k == m).map(|(_, c)| *c)
}

/// The memory kind seed 002's DW_ADDR_LLVM_* names (1 global … 4 private).
pub fn memory_of_class(c: u32) -> Option<Memory> {
    [
        Memory::GLOBAL,
        Memory::CONSTANT,
        Memory::GROUP,
        Memory::PRIVATE,
    ]
    .get((c as usize).wrapping_sub(1))
    .copied()
}

/// AMDGPU DWARF address space (LLVM's DWARFAS) for a memory kind, for
/// DW_OP_LLVM_form_aspace_address and the aspace CFA rules.
pub fn amdgpu_aspace_of(m: Memory) -> Option<u32> {
    const TABLE: &[(Memory, u32)] = &[
        (Memory::GLOBAL, 0),
        (Memory::CONSTANT, 0),
        (Memory::STORAGE_BUFFER, 0),
        (Memory::GENERIC, 1),
        (Memory::REGION, 2),
        (Memory::GROUP, 3),
        (Memory::PRIVATE, 5),
        (Memory::PRIVATE_WAVE, 6),
    ];
    TABLE.iter().find(|(k, _)| *k == m).map(|(_, c)| *c)
}
