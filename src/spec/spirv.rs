//! SPIR-V debug-set names and flavours.

/// The SPIR-V debug instruction sets dwarv writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavour {
    /// `DebugInfo`, the 0.99 draft (seed 001).
    DebugInfo,
    /// `OpenCL.DebugInfo.100`.
    OpenCl100,
    /// `NonSemantic.Shader.DebugInfo.100` (seed 000).
    Shader100,
    /// The OpenCL.100 layout under llvm-spirv's legacy import name `SPIRV.debug`.
    SpirvDebug,
    /// `NonSemantic.Shader.DebugInfo.200`: SPIRV-LLVM-Translator's extension of `.100`
    /// (`spec::spirv_grammar::SHADER200`, docs/spirv-mapping.md).
    Shader200,
}

/// (flavour, CLI name, OpExtInstImport name).
pub const FLAVOURS: [(Flavour, &str, &str); 5] = [
    (Flavour::DebugInfo, "debuginfo", "DebugInfo"),
    (Flavour::OpenCl100, "opencl100", "OpenCL.DebugInfo.100"),
    (
        Flavour::Shader100,
        "shader100",
        "NonSemantic.Shader.DebugInfo.100",
    ),
    (Flavour::SpirvDebug, "spirv-debug", "SPIRV.debug"),
    (
        Flavour::Shader200,
        "shader200",
        "NonSemantic.Shader.DebugInfo.200",
    ),
];

impl Flavour {
    pub fn cli_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.1)
    }
    /// Whether Vulkan drivers load a shader carrying this set (only the non-semantic ones: the
    /// others are extended instruction sets a Vulkan driver does not know and refuses).
    pub fn vulkan_loads(self) -> bool {
        self.non_semantic()
    }
    /// Whether spirv-val judges the set, so that its rules bind the writer; otherwise the set's one
    /// consumer is SPIRV-LLVM-Translator's `-r` (llvm-spirv-14 for `SPIRV.debug`, which spirv-val
    /// rejects; a newer build for `.200`, whose instructions spirv-val does not know).
    pub fn judged_by_spirv_val(self) -> bool {
        !matches!(self, Flavour::SpirvDebug | Flavour::Shader200)
    }
    /// Whether dwarv writes SPIRV-LLVM-Translator's own forms where spirv-val's rules made it
    /// choose others for the sets spirv-val judges (`.200`: a declare of DebugInfoNone, a
    /// template parameter without a place, storage class 0xFFFFFFFF, method declarations as
    /// DebugFunctionDeclaration members). `SPIRV.debug` keeps its llvm-spirv-14 choices.
    pub fn translator_forms(self) -> bool {
        self == Flavour::Shader200
    }
    /// `NonSemantic.Shader.DebugInfo.100` or `.200`: every number an OpConstant, no forward
    /// reference, `SPV_KHR_non_semantic_info`.
    pub fn non_semantic(self) -> bool {
        matches!(self, Flavour::Shader100 | Flavour::Shader200)
    }
    pub fn import_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.2)
    }
    pub fn from_cli_name(name: &str) -> Option<Self> {
        FLAVOURS.iter().find(|f| f.1 == name).map(|f| f.0)
    }
    /// The flavour of an import name; other versioned imports (`NonSemantic.Shader.DebugInfo.101`)
    /// count as `.100`.
    pub fn from_import_name(name: &str) -> Option<Self> {
        if let Some(f) = FLAVOURS.iter().find(|f| f.2 == name) {
            return Some(f.0);
        }
        name.strip_prefix("NonSemantic.Shader.DebugInfo.")
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            .map(|_| Flavour::Shader100)
    }
}

use rspirv::spirv::StorageClass;

use crate::ir::{Encoding, Flags, Language, Memory};

pub use super::spirv_layout::{Layout, Operand, OperandWords, Q};

const fn operand(name: &'static str, w: OperandWords) -> Operand {
    Operand { name, w, q: Q::One }
}

/// llvm-spirv 14's variants of OpenCL.100 layouts (it writes and reads them so in both of its
/// sets; the grammar says otherwise):
/// - DebugImportedEntity with 8 operands: an unused word (0) after Tag, then the grammar's Source,
///   Entity, Line, Column, Parent;
/// - DebugModuleINTEL with Line before Parent (the SPV_INTEL_debug_module grammar has Parent,
///   Line).
pub static LLVM_SPIRV14_LAYOUTS: [Layout; 2] = [
    Layout {
        opcode: 34,
        name: "DebugImportedEntity",
        operands: &[
            operand("Name", OperandWords::Id),
            operand("Tag", OperandWords::Lit),
            operand("(unused)", OperandWords::Lit),
            operand("Source", OperandWords::Id),
            operand("Entity", OperandWords::Id),
            operand("Line", OperandWords::Lit),
            operand("Column", OperandWords::Lit),
            operand("Parent", OperandWords::Id),
        ],
    },
    Layout {
        opcode: 36,
        name: "DebugModuleINTEL",
        operands: &[
            operand("Name", OperandWords::Id),
            operand("Source", OperandWords::Id),
            operand("Line", OperandWords::Lit),
            operand("Parent", OperandWords::Id),
            operand("ConfigurationMacros", OperandWords::Id),
            operand("IncludePath", OperandWords::Id),
            operand("APINotesFile", OperandWords::Id),
            operand("IsDeclaration", OperandWords::Lit),
        ],
    },
];

/// The last SourceLanguage spirv-val 2025.5 knows (12, Zig): it rejects a DebugCompilationUnit
/// Language beyond.
pub const LAST_SOURCE_LANGUAGE: u32 = 12;

/// (set value, dwarv value) rows, per set.
pub type Map<T> = &'static [(u32, T)];

impl Flavour {
    /// The instruction layouts of the flavour's set (`SPIRV.debug` is the OpenCL.100 layout).
    pub fn layouts(self) -> &'static [Layout] {
        match self {
            Flavour::DebugInfo => super::spirv_grammar::DEBUGINFO,
            Flavour::OpenCl100 | Flavour::SpirvDebug => super::spirv_grammar::OPENCL100,
            Flavour::Shader100 => super::spirv_grammar::SHADER100,
            Flavour::Shader200 => super::spirv_grammar::SHADER200,
        }
    }
    pub fn layout(self, opcode: u32) -> Option<&'static Layout> {
        self.layouts().iter().find(|l| l.opcode == opcode)
    }
    /// The layout dwarv writes an instruction with: for `SPIRV.debug`, whose one consumer is
    /// llvm-spirv, that tool's own variant where it departs from the grammar.
    pub fn layout_by_name(self, name: &str) -> Option<&'static Layout> {
        if self == Flavour::SpirvDebug {
            if let Some(l) = LLVM_SPIRV14_LAYOUTS.iter().find(|l| l.name == name) {
                return Some(l);
            }
        }
        self.layouts().iter().find(|l| l.name == name)
    }
    /// Whether numbers are literal words (true) or OpConstant ids (NonSemantic).
    pub fn literal_numbers(self) -> bool {
        !self.non_semantic()
    }
    /// DebugBaseTypeAttributeEncoding values (`.200` adds Complex).
    pub fn encodings(self) -> Map<Encoding> {
        match self {
            Flavour::DebugInfo => ENCODINGS_099,
            Flavour::Shader200 => ENCODINGS_100,
            _ => &ENCODINGS_100[..8],
        }
    }
    /// SourceLanguage values (`.200` adds the translator's internal ones, 200 onwards).
    pub fn languages(self) -> Map<Language> {
        match self {
            Flavour::Shader200 => LANGUAGES,
            _ => &LANGUAGES[..11],
        }
    }
    /// DebugTypeQualifier values.
    pub fn qualifiers(self) -> Map<crate::ir::Qualifier> {
        match self {
            Flavour::DebugInfo => &QUALIFIERS[..3],
            _ => QUALIFIERS,
        }
    }
    /// DebugOperation values and the IR operation each stands for.
    pub fn operations(self) -> Map<u32> {
        match self {
            Flavour::DebugInfo => &OPERATIONS[..9],
            Flavour::Shader100 => &OPERATIONS[..10],
            // llvm-spirv's `--spirv-allow-extra-diexpressions` numbers continue the OpenCL.100
            // list; `.200` has the whole list.
            Flavour::OpenCl100 | Flavour::SpirvDebug => &OPERATIONS[..46],
            Flavour::Shader200 => OPERATIONS,
        }
    }
    /// DebugInfoFlags bits and the IR flag each stands for.
    pub fn flags(self) -> &'static [(u32, Flags)] {
        match self {
            // 0.99 ends at FlagIsOptimized, OpenCL.100 at FlagTypePassByReference.
            Flavour::DebugInfo => &FLAGS[..14],
            Flavour::OpenCl100 | Flavour::SpirvDebug => &FLAGS[..17],
            Flavour::Shader100 => &FLAGS[..18],
            Flavour::Shader200 => FLAGS,
        }
    }
}

/// `NonSemantic.Shader.DebugInfo.200`'s own opcodes (SPIRV-LLVM-Translator numbers them from 200;
/// rspirv's enums stop at `.100`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Shader200Op {
    DebugModule = 200,
    DebugTypeSubrange = 201,
    DebugTypeArrayDynamic = 202,
    DebugTypeString = 203,
}

/// `.200` DebugSource with two operands: File, Text (SPIRV-LLVM-Translator reads a lone optional
/// operand as the text; three or four are File, Checksum Kind, Checksum Value [, Text]).
pub static SHADER200_SHORT_SOURCE: Layout = Layout {
    opcode: 35,
    name: "DebugSource",
    operands: &[
        operand("File", OperandWords::Id),
        operand("Text", OperandWords::Id),
    ],
};

/// `.200` DebugSource Checksum Kind values (SPIRV-LLVM-Translator's `FileChecksumKind`).
pub const CHECKSUM_KINDS: Map<crate::ir::ChecksumKind> = &[
    (0, crate::ir::ChecksumKind::MD5),
    (1, crate::ir::ChecksumKind::SHA1),
    (2, crate::ir::ChecksumKind::SHA256),
];

pub const ENCODINGS_099: Map<Encoding> = &[
    (0, Encoding::UNSPECIFIED),
    (1, Encoding::ADDRESS),
    (2, Encoding::BOOLEAN),
    (4, Encoding::FLOAT),
    (5, Encoding::SIGNED),
    (6, Encoding::SIGNED_CHAR),
    (7, Encoding::UNSIGNED),
    (8, Encoding::UNSIGNED_CHAR),
];

pub const ENCODINGS_100: Map<Encoding> = &[
    (0, Encoding::UNSPECIFIED),
    (1, Encoding::ADDRESS),
    (2, Encoding::BOOLEAN),
    (3, Encoding::FLOAT),
    (4, Encoding::SIGNED),
    (5, Encoding::SIGNED_CHAR),
    (6, Encoding::UNSIGNED),
    (7, Encoding::UNSIGNED_CHAR),
    (8, Encoding::COMPLEX_FLOAT), // .200 only
];

pub const COMPOSITE_TAGS: Map<crate::ir::CompositeTag> = &[
    (0, crate::ir::CompositeTag::CLASS),
    (1, crate::ir::CompositeTag::STRUCT),
    (2, crate::ir::CompositeTag::UNION),
];

pub const QUALIFIERS: Map<crate::ir::Qualifier> = &[
    (0, crate::ir::Qualifier::CONST),
    (1, crate::ir::Qualifier::VOLATILE),
    (2, crate::ir::Qualifier::RESTRICT),
    (3, crate::ir::Qualifier::ATOMIC),
];

pub const IMPORTS: Map<crate::ir::ImportKind> = &[
    (0, crate::ir::ImportKind::MODULE),
    (1, crate::ir::ImportKind::DECLARATION),
];

/// DebugOperation → IR operation code (`spec::dwarf::OPS`). 0–8 are every set's, 9 (Fragment) the
/// `.100` sets'; 10 onwards is the list llvm-spirv writes with `--spirv-allow-extra-diexpressions`.
pub const OPERATIONS: Map<u32> = &[
    (0, 0x06),    // Deref
    (1, 0x22),    // Plus
    (2, 0x1c),    // Minus
    (3, 0x23),    // PlusUconst
    (4, 0x9d),    // BitPiece
    (5, 0x16),    // Swap
    (6, 0x18),    // Xderef
    (7, 0x9f),    // StackValue
    (8, 0x10),    // Constu
    (9, 0x1000),  // Fragment = DW_OP_LLVM_fragment
    (10, 0x1001), // Convert = DW_OP_LLVM_convert
    (11, 0x03),   // Addr
    (12, 0x08),   // Const1u
    (13, 0x09),   // Const1s
    (14, 0x0a),   // Const2u
    (15, 0x0b),   // Const2s
    (16, 0x0c),   // Const4u
    (17, 0x0d),   // Const4s
    (18, 0x0e),   // Const8u
    (19, 0x0f),   // Const8s
    (20, 0x11),   // Consts
    (21, 0x12),   // Dup
    (22, 0x13),   // Drop
    (23, 0x14),   // Over
    (24, 0x15),   // Pick
    (25, 0x17),   // Rot
    (26, 0x19),   // Abs
    (27, 0x1a),   // And
    (28, 0x1b),   // Div
    (29, 0x1d),   // Mod
    (30, 0x1e),   // Mul
    (31, 0x1f),   // Neg
    (32, 0x20),   // Not
    (33, 0x21),   // Or
    (34, 0x24),   // Shl
    (35, 0x25),   // Shr
    (36, 0x26),   // Shra
    (37, 0x27),   // Xor
    (38, 0x28),   // Bra
    (39, 0x29),   // Eq
    (40, 0x2a),   // Ge
    (41, 0x2b),   // Gt
    (42, 0x2c),   // Le
    (43, 0x2d),   // Lt
    (44, 0x2e),   // Ne
    (45, 0x2f),   // Skip
    // .200 only (SPIRV-LLVM-Translator's ExpressionOpCode): Lit0-31, Reg0-31, Breg0-31 and the
    // rest whose DWARF operands are numbers. Its Call2/4/Ref, ImplicitValue, ImplicitPointer,
    // EntryValue, ConstTypeOp, RegvalType, DerefType, XderefType, Reinterpret and
    // ImplicitPointerTag (150-152, 155-156, 159-164, 166) have no such form in the IR: they are
    // kept as SPIR-V operations.
    (46, 0x30),    // Lit0
    (47, 0x31),    // Lit1
    (48, 0x32),    // Lit2
    (49, 0x33),    // Lit3
    (50, 0x34),    // Lit4
    (51, 0x35),    // Lit5
    (52, 0x36),    // Lit6
    (53, 0x37),    // Lit7
    (54, 0x38),    // Lit8
    (55, 0x39),    // Lit9
    (56, 0x3a),    // Lit10
    (57, 0x3b),    // Lit11
    (58, 0x3c),    // Lit12
    (59, 0x3d),    // Lit13
    (60, 0x3e),    // Lit14
    (61, 0x3f),    // Lit15
    (62, 0x40),    // Lit16
    (63, 0x41),    // Lit17
    (64, 0x42),    // Lit18
    (65, 0x43),    // Lit19
    (66, 0x44),    // Lit20
    (67, 0x45),    // Lit21
    (68, 0x46),    // Lit22
    (69, 0x47),    // Lit23
    (70, 0x48),    // Lit24
    (71, 0x49),    // Lit25
    (72, 0x4a),    // Lit26
    (73, 0x4b),    // Lit27
    (74, 0x4c),    // Lit28
    (75, 0x4d),    // Lit29
    (76, 0x4e),    // Lit30
    (77, 0x4f),    // Lit31
    (78, 0x50),    // Reg0
    (79, 0x51),    // Reg1
    (80, 0x52),    // Reg2
    (81, 0x53),    // Reg3
    (82, 0x54),    // Reg4
    (83, 0x55),    // Reg5
    (84, 0x56),    // Reg6
    (85, 0x57),    // Reg7
    (86, 0x58),    // Reg8
    (87, 0x59),    // Reg9
    (88, 0x5a),    // Reg10
    (89, 0x5b),    // Reg11
    (90, 0x5c),    // Reg12
    (91, 0x5d),    // Reg13
    (92, 0x5e),    // Reg14
    (93, 0x5f),    // Reg15
    (94, 0x60),    // Reg16
    (95, 0x61),    // Reg17
    (96, 0x62),    // Reg18
    (97, 0x63),    // Reg19
    (98, 0x64),    // Reg20
    (99, 0x65),    // Reg21
    (100, 0x66),   // Reg22
    (101, 0x67),   // Reg23
    (102, 0x68),   // Reg24
    (103, 0x69),   // Reg25
    (104, 0x6a),   // Reg26
    (105, 0x6b),   // Reg27
    (106, 0x6c),   // Reg28
    (107, 0x6d),   // Reg29
    (108, 0x6e),   // Reg30
    (109, 0x6f),   // Reg31
    (110, 0x70),   // Breg0
    (111, 0x71),   // Breg1
    (112, 0x72),   // Breg2
    (113, 0x73),   // Breg3
    (114, 0x74),   // Breg4
    (115, 0x75),   // Breg5
    (116, 0x76),   // Breg6
    (117, 0x77),   // Breg7
    (118, 0x78),   // Breg8
    (119, 0x79),   // Breg9
    (120, 0x7a),   // Breg10
    (121, 0x7b),   // Breg11
    (122, 0x7c),   // Breg12
    (123, 0x7d),   // Breg13
    (124, 0x7e),   // Breg14
    (125, 0x7f),   // Breg15
    (126, 0x80),   // Breg16
    (127, 0x81),   // Breg17
    (128, 0x82),   // Breg18
    (129, 0x83),   // Breg19
    (130, 0x84),   // Breg20
    (131, 0x85),   // Breg21
    (132, 0x86),   // Breg22
    (133, 0x87),   // Breg23
    (134, 0x88),   // Breg24
    (135, 0x89),   // Breg25
    (136, 0x8a),   // Breg26
    (137, 0x8b),   // Breg27
    (138, 0x8c),   // Breg28
    (139, 0x8d),   // Breg29
    (140, 0x8e),   // Breg30
    (141, 0x8f),   // Breg31
    (142, 0x90),   // Regx
    (143, 0x91),   // Fbreg
    (144, 0x92),   // Bregx
    (145, 0x93),   // Piece
    (146, 0x94),   // DerefSize
    (147, 0x95),   // XderefSize
    (148, 0x96),   // Nop
    (149, 0x97),   // PushObjectAddress
    (153, 0x9b),   // FormTlsAddress
    (154, 0x9c),   // CallFrameCfa
    (157, 0xa1),   // Addrx
    (158, 0xa2),   // Constx
    (165, 0x1005), // LLVMArg = DW_OP_LLVM_arg
    (167, 0x1002), // TagOffset = DW_OP_LLVM_tag_offset
];

/// DebugInfoFlags bit → IR flag. Protected|Private together mean public.
pub const FLAGS: &[(u32, Flags)] = &[
    (1 << 0, Flags::PROTECTED),
    (1 << 1, Flags::PRIVATE),
    (1 << 2, Flags::LOCAL),
    (1 << 3, Flags::DEFINITION),
    (1 << 4, Flags::FWD_DECL),
    (1 << 5, Flags::ARTIFICIAL),
    (1 << 6, Flags::EXPLICIT),
    (1 << 7, Flags::PROTOTYPED),
    (1 << 8, Flags::OBJECT_POINTER),
    (1 << 9, Flags::STATIC_MEMBER),
    (1 << 10, Flags::INDIRECT_VARIABLE),
    (1 << 11, Flags::LVALUE_REFERENCE),
    (1 << 12, Flags::RVALUE_REFERENCE),
    (1 << 13, Flags::OPTIMIZED),
    (1 << 14, Flags::ENUM_CLASS),
    (1 << 15, Flags::PASS_BY_VALUE),
    (1 << 16, Flags::PASS_BY_REFERENCE),
    (1 << 17, Flags::UNKNOWN_PHYSICAL_LAYOUT),
    (1 << 18, Flags::BIT_FIELD), // .200 only (SPIRV-LLVM-Translator's FlagBitField)
];

/// SPIR-V SourceLanguage → IR language.
pub const LANGUAGES: Map<Language> = &[
    (1, Language::DWARV_ESSL),
    (2, Language::GLSL),
    (3, Language::OPENCL),
    (4, Language::OPENCL_CPP),
    (5, Language::HLSL),
    (6, Language::CPP_FOR_OPENCL),
    (7, Language::SYCL),
    (9, Language::DWARV_NZSL),
    (10, Language::DWARV_WGSL),
    (11, Language::DWARV_SLANG),
    (12, Language::ZIG),
    // .200 only: SPIRV-LLVM-Translator's internal SourceLanguage values (spirv_internal.hpp).
    (200, Language::PYTHON),
    (201, Language::JULIA),
    (202, Language::RUST),
    (203, Language::D),
    (204, Language::FORTRAN77),
    (205, Language::FORTRAN90),
    (206, Language::FORTRAN95),
    (207, Language::FORTRAN03),
    (208, Language::FORTRAN08),
    (209, Language::FORTRAN18),
    (210, Language::C),
    (211, Language::C99),
    (212, Language::C11),
    (213, Language::C17),
    (214, Language::CPP),
    (215, Language::CPP03),
    (216, Language::CPP11),
    (217, Language::CPP14),
    (218, Language::CPP17),
    (219, Language::CPP20),
];

/// SPIR-V storage class → memory kind (the exact class is kept beside it in the IR).
pub const STORAGE_CLASSES: Map<Memory> = &[
    (StorageClass::UniformConstant as u32, Memory::CONSTANT),
    (StorageClass::Input as u32, Memory::INPUT),
    (StorageClass::Uniform as u32, Memory::UNIFORM),
    (StorageClass::Output as u32, Memory::OUTPUT),
    (StorageClass::Workgroup as u32, Memory::GROUP),
    (StorageClass::CrossWorkgroup as u32, Memory::GLOBAL),
    (StorageClass::Private as u32, Memory::PRIVATE),
    (StorageClass::Function as u32, Memory::PRIVATE),
    (StorageClass::Generic as u32, Memory::GENERIC),
    (StorageClass::PushConstant as u32, Memory::PUSH_CONSTANT),
    (StorageClass::Image as u32, Memory::IMAGE),
    (StorageClass::StorageBuffer as u32, Memory::STORAGE_BUFFER),
];

/// The set value of an IR value, if the table has it.
pub fn to_set<T: PartialEq + Copy>(map: Map<T>, v: T) -> Option<u32> {
    map.iter().find(|(_, x)| *x == v).map(|(n, _)| *n)
}

/// The IR value of a set value, if the table has it.
pub fn from_set<T: Copy>(map: Map<T>, n: u32) -> Option<T> {
    map.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::{Flavour, Shader200Op};

    /// Every `Shader200Op` is the opcode `.200`'s grammar gives the instruction of its name.
    #[test]
    fn shader200_opcodes_are_the_grammars() {
        for op in [
            Shader200Op::DebugModule,
            Shader200Op::DebugTypeSubrange,
            Shader200Op::DebugTypeArrayDynamic,
            Shader200Op::DebugTypeString,
        ] {
            let layout = Flavour::Shader200.layout(op as u32).expect("a .200 opcode");
            assert_eq!(layout.name, format!("{op:?}"));
        }
    }
}
