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
}

/// (flavour, CLI name, OpExtInstImport name).
pub const FLAVOURS: [(Flavour, &str, &str); 4] = [
    (Flavour::DebugInfo, "debuginfo", "DebugInfo"),
    (Flavour::OpenCl100, "opencl100", "OpenCL.DebugInfo.100"),
    (
        Flavour::Shader100,
        "shader100",
        "NonSemantic.Shader.DebugInfo.100",
    ),
    (Flavour::SpirvDebug, "spirv-debug", "SPIRV.debug"),
];

impl Flavour {
    pub fn cli_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.1)
    }
    /// Whether Vulkan drivers load a shader carrying this set (only the non-semantic one: the
    /// others are extended instruction sets a Vulkan driver does not know and refuses).
    pub fn vulkan_loads(self) -> bool {
        self == Flavour::Shader100
    }
    pub fn import_name(self) -> &'static str {
        FLAVOURS.iter().find(|f| f.0 == self).map_or("", |f| f.2)
    }
    pub fn from_cli_name(name: &str) -> Option<Self> {
        FLAVOURS.iter().find(|f| f.1 == name).map(|f| f.0)
    }
    /// The flavour of an import name; versioned imports (`NonSemantic.Shader.DebugInfo.101`)
    /// count as their set.
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

/// How an operand is encoded in a set's instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum W {
    /// An `<id>`: of a debug instruction, an OpString, an OpConstant (every number of the
    /// NonSemantic set), or a code instruction (Variable, Function, Value operands).
    Id,
    /// A literal word (numbers, flags and enums of `DebugInfo`, `OpenCL.DebugInfo.100`).
    Lit,
    /// Enumerator pairs: value (a literal, or an OpConstant id in NonSemantic) and name id.
    Pair,
}

/// How many times an operand occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Q {
    One,
    Opt,
    Many,
}

/// One operand of a debug instruction's layout, named as in the set's grammar.
#[derive(Clone, Copy, Debug)]
pub struct Operand {
    pub name: &'static str,
    pub w: W,
    pub q: Q,
}

/// The layout of one debug instruction in one set.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub opcode: u32,
    pub name: &'static str,
    pub operands: &'static [Operand],
}

const fn operand(name: &'static str, w: W) -> Operand {
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
            operand("Name", W::Id),
            operand("Tag", W::Lit),
            operand("(unused)", W::Lit),
            operand("Source", W::Id),
            operand("Entity", W::Id),
            operand("Line", W::Lit),
            operand("Column", W::Lit),
            operand("Parent", W::Id),
        ],
    },
    Layout {
        opcode: 36,
        name: "DebugModuleINTEL",
        operands: &[
            operand("Name", W::Id),
            operand("Source", W::Id),
            operand("Line", W::Lit),
            operand("Parent", W::Id),
            operand("ConfigurationMacros", W::Id),
            operand("IncludePath", W::Id),
            operand("APINotesFile", W::Id),
            operand("IsDeclaration", W::Lit),
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
        self != Flavour::Shader100
    }
    /// DebugBaseTypeAttributeEncoding values.
    pub fn encodings(self) -> Map<Encoding> {
        match self {
            Flavour::DebugInfo => ENCODINGS_099,
            _ => ENCODINGS_100,
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
            // llvm-spirv's `--spirv-allow-extra-diexpressions` numbers continue the OpenCL.100 list.
            Flavour::OpenCl100 | Flavour::SpirvDebug => OPERATIONS,
        }
    }
    /// DebugInfoFlags bits and the IR flag each stands for.
    pub fn flags(self) -> &'static [(u32, Flags)] {
        match self {
            // 0.99 ends at FlagIsOptimized, OpenCL.100 at FlagTypePassByReference.
            Flavour::DebugInfo => &FLAGS[..14],
            Flavour::OpenCl100 | Flavour::SpirvDebug => &FLAGS[..17],
            Flavour::Shader100 => FLAGS,
        }
    }
}

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
