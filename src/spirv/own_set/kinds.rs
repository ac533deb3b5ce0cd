//! What an id is (`Kind`, pass 1's table), and which kinds of id each debug operand may be: the
//! consumers' rules (spirv-val's for the standard sets, which llvm-spirv-14's reader of
//! `SPIRV.debug` shares in substance). A module that breaks one is left to the IR path, which
//! writes it anew.

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use crate::spec::spirv::{Flavour, Layout, Operand, Shader200Op};
use crate::spec::spirv_names::{instruction, operand, InsnName, OperandName};

/// What defines an id. One byte, so that pass 1's table (one per id) keeps the checks of every
/// operand in cache; a debug instruction's value is its opcode past `FIRST_DEBUG` (`slot`), so
/// that a `KindSet` tests it with one shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    Undefined = 0,
    /// An instruction of the code, or a type, that none of the kinds below names.
    Code = 1,
    String = 2,
    /// An OpConstant of a 32-bit unsigned integer type (what NonSemantic numbers must be).
    ConstantU32 = 3,
    /// Any other integer or boolean constant (OpConstant of an integer or boolean type,
    /// OpConstantTrue/False/Null): what the reader takes for a number.
    Constant = 4,
    Void = 5,
    Variable = 6,
    Parameter = 7,
    Function = 8,
    DebugInfoNone = slot(DebugOp::DebugInfoNone as u32),
    DebugCompilationUnit = slot(DebugOp::DebugCompilationUnit as u32),
    DebugTypeBasic = slot(DebugOp::DebugTypeBasic as u32),
    DebugTypePointer = slot(DebugOp::DebugTypePointer as u32),
    DebugTypeQualifier = slot(DebugOp::DebugTypeQualifier as u32),
    DebugTypeArray = slot(DebugOp::DebugTypeArray as u32),
    DebugTypeVector = slot(DebugOp::DebugTypeVector as u32),
    DebugTypedef = slot(DebugOp::DebugTypedef as u32),
    DebugTypeFunction = slot(DebugOp::DebugTypeFunction as u32),
    DebugTypeEnum = slot(DebugOp::DebugTypeEnum as u32),
    DebugTypeComposite = slot(DebugOp::DebugTypeComposite as u32),
    DebugTypeMember = slot(DebugOp::DebugTypeMember as u32),
    DebugTypeInheritance = slot(DebugOp::DebugTypeInheritance as u32),
    DebugTypePtrToMember = slot(DebugOp::DebugTypePtrToMember as u32),
    DebugTypeTemplate = slot(DebugOp::DebugTypeTemplate as u32),
    DebugTypeTemplateParameter = slot(DebugOp::DebugTypeTemplateParameter as u32),
    DebugTypeTemplateTemplateParameter = slot(DebugOp::DebugTypeTemplateTemplateParameter as u32),
    DebugTypeTemplateParameterPack = slot(DebugOp::DebugTypeTemplateParameterPack as u32),
    DebugGlobalVariable = slot(DebugOp::DebugGlobalVariable as u32),
    DebugFunctionDeclaration = slot(DebugOp::DebugFunctionDeclaration as u32),
    DebugFunction = slot(DebugOp::DebugFunction as u32),
    DebugLexicalBlock = slot(DebugOp::DebugLexicalBlock as u32),
    DebugLexicalBlockDiscriminator = slot(DebugOp::DebugLexicalBlockDiscriminator as u32),
    DebugScope = slot(DebugOp::DebugScope as u32),
    DebugNoScope = slot(DebugOp::DebugNoScope as u32),
    DebugInlinedAt = slot(DebugOp::DebugInlinedAt as u32),
    DebugLocalVariable = slot(DebugOp::DebugLocalVariable as u32),
    DebugInlinedVariable = slot(DebugOp::DebugInlinedVariable as u32),
    DebugDeclare = slot(DebugOp::DebugDeclare as u32),
    DebugValue = slot(DebugOp::DebugValue as u32),
    DebugOperation = slot(DebugOp::DebugOperation as u32),
    DebugExpression = slot(DebugOp::DebugExpression as u32),
    DebugMacroDef = slot(DebugOp::DebugMacroDef as u32),
    DebugMacroUndef = slot(DebugOp::DebugMacroUndef as u32),
    DebugImportedEntity = slot(DebugOp::DebugImportedEntity as u32),
    DebugSource = slot(DebugOp::DebugSource as u32),
    #[allow(clippy::upper_case_acronyms)]
    DebugModuleINTEL = slot(DebugOp::DebugModuleINTEL as u32),
    DebugFunctionDefinition = slot(ShaderOp::DebugFunctionDefinition as u32),
    DebugSourceContinued = slot(ShaderOp::DebugSourceContinued as u32),
    DebugLine = slot(ShaderOp::DebugLine as u32),
    DebugNoLine = slot(ShaderOp::DebugNoLine as u32),
    DebugBuildIdentifier = slot(ShaderOp::DebugBuildIdentifier as u32),
    DebugStoragePath = slot(ShaderOp::DebugStoragePath as u32),
    DebugEntryPoint = slot(ShaderOp::DebugEntryPoint as u32),
    DebugTypeMatrix = slot(ShaderOp::DebugTypeMatrix as u32),
    DebugModule = slot(Shader200Op::DebugModule as u32),
    DebugTypeSubrange = slot(Shader200Op::DebugTypeSubrange as u32),
    DebugTypeArrayDynamic = slot(Shader200Op::DebugTypeArrayDynamic as u32),
    DebugTypeString = slot(Shader200Op::DebugTypeString as u32),
    /// An opcode no set numbers (its instruction declines as it is checked).
    DebugUnknown = FIRST_DEBUG + UNKNOWN_SLOT,
}

/// The first debug kind's value.
const FIRST_DEBUG: u8 = 16;
/// The sets' opcodes below `.200`'s end at NonSemantic's last.
const LAST_BELOW_200: u32 = ShaderOp::DebugTypeMatrix as u32;
const FIRST_200: u32 = Shader200Op::DebugModule as u32;
const LAST_200: u32 = Shader200Op::DebugTypeString as u32;
/// `.200`'s opcodes go past OpenCL.100's last (the gap up to NonSemantic's 101 is no set's),
/// any other opcode past them.
const SLOT_200: u32 = DebugOp::DebugModuleINTEL as u32 + 1;
const UNKNOWN_SLOT: u8 = (SLOT_200 + LAST_200 - FIRST_200 + 1) as u8;

/// The value of the debug kind of `opcode` (below 128, `KindSet`'s reach).
const fn slot(opcode: u32) -> u8 {
    let folded = if opcode <= LAST_BELOW_200 {
        opcode as u8
    } else if opcode >= FIRST_200 && opcode <= LAST_200 {
        (opcode - FIRST_200 + SLOT_200) as u8
    } else {
        UNKNOWN_SLOT
    };
    FIRST_DEBUG + folded
}

/// Every debug kind but `DebugUnknown`.
const DEBUG_KINDS: [Kind; 49] = {
    use Kind::*;
    [
        DebugInfoNone,
        DebugCompilationUnit,
        DebugTypeBasic,
        DebugTypePointer,
        DebugTypeQualifier,
        DebugTypeArray,
        DebugTypeVector,
        DebugTypedef,
        DebugTypeFunction,
        DebugTypeEnum,
        DebugTypeComposite,
        DebugTypeMember,
        DebugTypeInheritance,
        DebugTypePtrToMember,
        DebugTypeTemplate,
        DebugTypeTemplateParameter,
        DebugTypeTemplateTemplateParameter,
        DebugTypeTemplateParameterPack,
        DebugGlobalVariable,
        DebugFunctionDeclaration,
        DebugFunction,
        DebugLexicalBlock,
        DebugLexicalBlockDiscriminator,
        DebugScope,
        DebugNoScope,
        DebugInlinedAt,
        DebugLocalVariable,
        DebugInlinedVariable,
        DebugDeclare,
        DebugValue,
        DebugOperation,
        DebugExpression,
        DebugMacroDef,
        DebugMacroUndef,
        DebugImportedEntity,
        DebugSource,
        DebugModuleINTEL,
        DebugFunctionDefinition,
        DebugSourceContinued,
        DebugLine,
        DebugNoLine,
        DebugBuildIdentifier,
        DebugStoragePath,
        DebugEntryPoint,
        DebugTypeMatrix,
        DebugModule,
        DebugTypeSubrange,
        DebugTypeArrayDynamic,
        DebugTypeString,
    ]
};

/// The debug kinds by value (`DebugUnknown` where no set numbers an opcode).
const BY_SLOT: [Kind; 128] = {
    let mut table = [Kind::DebugUnknown; 128];
    let mut i = 0;
    while i < DEBUG_KINDS.len() {
        table[DEBUG_KINDS[i] as usize] = DEBUG_KINDS[i];
        i += 1;
    }
    table
};

impl Kind {
    /// The kind of a debug instruction of `opcode`.
    pub(super) fn debug(opcode: u32) -> Kind {
        BY_SLOT[usize::from(slot(opcode))]
    }
    /// Whether an instruction of the debug set defines the id.
    pub(super) fn is_debug(self) -> bool {
        self as u8 >= FIRST_DEBUG
    }
}

/// Debug instructions a function body may hold (the rest are module-level entities).
pub(super) const IN_FUNCTION: KindSet = KindSet::of(&[
    Kind::DebugScope,
    Kind::DebugNoScope,
    Kind::DebugLocalVariable,
    Kind::DebugDeclare,
    Kind::DebugValue,
    Kind::DebugFunctionDefinition,
    Kind::DebugLine,
    Kind::DebugNoLine,
    Kind::DebugExpression,
]);

/// A set of kinds (bit `kind as u8`).
#[derive(Clone, Copy, Debug)]
pub(super) struct KindSet([u64; 4]);

impl KindSet {
    pub(super) const fn of(kinds: &[Kind]) -> Self {
        let mut m = [0u64; 4];
        let mut i = 0;
        while i < kinds.len() {
            let k = kinds[i] as u8;
            m[(k >> 6) as usize] |= 1 << (k & 63);
            i += 1;
        }
        KindSet(m)
    }
    const fn or(self, other: KindSet) -> Self {
        let (a, b) = (self.0, other.0);
        KindSet([a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]])
    }
    #[inline]
    pub(super) fn contains(&self, kind: Kind) -> bool {
        let k = kind as u8;
        self.0[usize::from(k >> 6)] >> (k & 63) & 1 == 1
    }
}

/// Any kind but `Undefined`.
const ANY: KindSet = KindSet([!1, !0, !0, !0]);
const STRING: KindSet = KindSet::of(&[Kind::String]);
const NONE: KindSet = KindSet::of(&[Kind::DebugInfoNone]);
/// Debug types: basic, pointer, qualifier, array, vector, typedef, function, enum,
/// composite, pointer to member, template and its parameters, matrix.
const TYPE: KindSet = KindSet::of(&[
    Kind::DebugTypeBasic,
    Kind::DebugTypePointer,
    Kind::DebugTypeQualifier,
    Kind::DebugTypeArray,
    Kind::DebugTypeVector,
    Kind::DebugTypedef,
    Kind::DebugTypeFunction,
    Kind::DebugTypeEnum,
    Kind::DebugTypeComposite,
    Kind::DebugTypePtrToMember,
    Kind::DebugTypeTemplate,
    Kind::DebugTypeTemplateParameter,
    Kind::DebugTypeTemplateTemplateParameter,
    Kind::DebugTypeTemplateParameterPack,
    Kind::DebugTypeMatrix,
]);
/// Ids of the code (what the reader takes for a variable or value): no string, no void.
const CODE: KindSet = KindSet::of(&[
    Kind::Code,
    Kind::Constant,
    Kind::ConstantU32,
    Kind::Variable,
    Kind::Parameter,
    Kind::Function,
]);
/// Debug instructions that are IR entities: all but DebugInfoNone, the in-function ones,
/// DebugOperation, DebugSourceContinued, DebugBuildIdentifier and DebugStoragePath.
const ENTITY: KindSet = TYPE.or(KindSet::of(&[
    Kind::DebugCompilationUnit,
    Kind::DebugTypeMember,
    Kind::DebugTypeInheritance,
    Kind::DebugGlobalVariable,
    Kind::DebugFunctionDeclaration,
    Kind::DebugFunction,
    Kind::DebugLexicalBlock,
    Kind::DebugLexicalBlockDiscriminator,
    Kind::DebugInlinedAt,
    Kind::DebugLocalVariable,
    Kind::DebugInlinedVariable,
    Kind::DebugExpression,
    Kind::DebugMacroDef,
    Kind::DebugMacroUndef,
    Kind::DebugImportedEntity,
    Kind::DebugSource,
    Kind::DebugModuleINTEL,
    Kind::DebugEntryPoint,
]));
/// Lexical scopes: unit, function, lexical block, composite (and in `SPIRV.debug`,
/// llvm-spirv's DebugModuleINTEL). Not a DebugLexicalBlockDiscriminator: spirv-val rejects it.
const SCOPE: KindSet = KindSet::of(&[
    Kind::DebugCompilationUnit,
    Kind::DebugFunction,
    Kind::DebugLexicalBlock,
    Kind::DebugTypeComposite,
]);
/// What a subrange's bounds and an array's counts may name besides numbers.
const BOUND: KindSet = KindSet::of(&[
    Kind::DebugGlobalVariable,
    Kind::DebugLocalVariable,
    Kind::DebugExpression,
]);

/// The kinds operand `o` of layout `l` may be. llvm-spirv-14 reads DebugInfoNone as "none"
/// in any operand of its `SPIRV.debug`.
pub(super) fn allowed(f: Flavour, l: &Layout, o: &Operand) -> KindSet {
    match f {
        Flavour::SpirvDebug => by_consumer(f, l, o).or(NONE),
        _ => by_consumer(f, l, o),
    }
}

fn by_consumer(f: Flavour, l: &Layout, o: &Operand) -> KindSet {
    use Kind as K;
    let of = KindSet::of;
    let numbers = match f {
        Flavour::Shader100 | Flavour::Shader200 => of(&[K::ConstantU32]),
        _ => of(&[K::ConstantU32, K::Constant]).or(NONE),
    };
    match (InsnName(l.name), OperandName(o.name)) {
        // `.200`'s own operands (as SPIRV-LLVM-Translator writes them: DebugInfoNone for a
        // basic type's Flags and a checksum that is not there).
        (_, operand::PRODUCER | operand::TARGET_FUNCTION_NAME) => STRING,
        // (A two-operand DebugSource is File, Text.)
        (instruction::DEBUG_SOURCE, operand::CHECKSUM_KIND) => numbers.or(NONE).or(STRING),
        (instruction::DEBUG_SOURCE, operand::CHECKSUM_VALUE) => STRING.or(NONE),
        (instruction::DEBUG_TYPE_BASIC, operand::FLAGS) if f == Flavour::Shader200 => {
            numbers.or(NONE)
        }
        (_, operand::SUBRANGES) => of(&[K::DebugTypeSubrange]),
        // SPIRV-LLVM-Translator names the file's OpString there.
        (instruction::DEBUG_LINE, operand::SOURCE) if f == Flavour::Shader200 => {
            of(&[K::DebugSource]).or(STRING)
        }
        (_, operand::INLINE_NAMESPACE) => of(&[K::Constant]),
        (
            instruction::DEBUG_TYPE_SUBRANGE,
            operand::LOWER_BOUND | operand::UPPER_BOUND | operand::COUNT | operand::STRIDE,
        ) => of(&[K::ConstantU32, K::Constant]).or(NONE).or(BOUND),
        (instruction::DEBUG_SOURCE, operand::TEXT) if f == Flavour::SpirvDebug => STRING.or(NONE),
        (
            _,
            operand::NAME
            | operand::LINKAGE_NAME
            | operand::FILE
            | operand::TEXT
            | operand::TEMPLATE_NAME,
        ) => STRING,
        (instruction::DEBUG_MACRO_DEF, operand::VALUE) => STRING,
        // DebugInfo 0.99 names a source by its OpString; the later sets have DebugSource.
        (_, operand::SOURCE) if f == Flavour::DebugInfo => STRING,
        (_, operand::SOURCE) => of(&[K::DebugSource]),
        (
            instruction::DEBUG_TYPE_MEMBER
            | instruction::DEBUG_TYPE_INHERITANCE
            | instruction::DEBUG_TYPE_PTR_TO_MEMBER,
            operand::PARENT,
        ) => of(&[K::DebugTypeComposite]),
        (instruction::DEBUG_TYPE_INHERITANCE, operand::CHILD) => of(&[K::DebugTypeComposite]),
        // The reader takes only a function or block there; a scope run's scope is a unit
        // or scope by the IR's rules (no composite).
        (instruction::DEBUG_INLINED_AT, operand::SCOPE) => {
            of(&[K::DebugFunction, K::DebugLexicalBlock])
        }
        (instruction::DEBUG_SCOPE, operand::SCOPE) => of(&[
            K::DebugCompilationUnit,
            K::DebugFunction,
            K::DebugLexicalBlock,
        ]),
        (_, operand::PARENT | operand::SCOPE) if f == Flavour::SpirvDebug => {
            SCOPE.or(of(&[K::DebugModuleINTEL]))
        }
        (_, operand::PARENT | operand::SCOPE) => SCOPE,
        (instruction::DEBUG_FUNCTION | instruction::DEBUG_FUNCTION_DECLARATION, operand::TYPE) => {
            of(&[K::DebugTypeFunction])
        }
        (instruction::DEBUG_FUNCTION, operand::FUNCTION) => of(&[K::Function]).or(NONE),
        (instruction::DEBUG_FUNCTION, operand::DECLARATION) => of(&[K::DebugFunctionDeclaration]),
        (instruction::DEBUG_FUNCTION_DEFINITION, operand::FUNCTION) => of(&[K::DebugFunction]),
        (instruction::DEBUG_FUNCTION_DEFINITION, operand::DEFINITION) => of(&[K::Function]),
        (instruction::DEBUG_GLOBAL_VARIABLE, operand::STATIC_MEMBER_DECLARATION) => {
            of(&[K::DebugTypeMember])
        }
        (instruction::DEBUG_GLOBAL_VARIABLE, operand::VARIABLE) => {
            CODE.or(NONE).or(of(&[K::DebugExpression]))
        }
        (instruction::DEBUG_VALUE, operand::VALUE) => CODE.or(NONE),
        (instruction::DEBUG_DECLARE, operand::VARIABLE) => of(&[K::Variable, K::Parameter]),
        (instruction::DEBUG_INLINED_VARIABLE, operand::VARIABLE) | (_, operand::LOCAL_VARIABLE) => {
            of(&[K::DebugLocalVariable])
        }
        // An enumeration without one (spirv-val takes DebugInfoNone there, and only there).
        (instruction::DEBUG_TYPE_ENUM, operand::UNDERLYING_TYPE) => TYPE.or(NONE),
        (
            _,
            operand::TYPE
            | operand::BASE_TYPE
            | operand::UNDERLYING_TYPE
            | operand::MEMBER_TYPE
            | operand::ACTUAL_TYPE,
        ) => TYPE,
        (_, operand::PARAMETER_TYPES | operand::PARAMTER_TYPES) => TYPE,
        (_, operand::RETURN_TYPE) => TYPE.or(of(&[K::Void])),
        (_, operand::MEMBERS) => of(&[
            K::DebugTypeMember,
            K::DebugTypeInheritance,
            K::DebugFunction,
        ]),
        (instruction::DEBUG_TYPE_COMPOSITE, operand::SIZE) => numbers.or(NONE),
        (_, operand::SIZE | operand::OFFSET) => numbers,
        (_, operand::INLINED_AT | operand::INLINED) => of(&[K::DebugInlinedAt]),
        (_, operand::EXPRESSION) => of(&[K::DebugExpression]),
        (instruction::DEBUG_EXPRESSION, _) => of(&[K::DebugOperation]),
        (_, operand::MACRO) => of(&[K::DebugMacroDef]),
        (_, operand::TARGET) => of(&[K::DebugTypeComposite, K::DebugFunction]),
        (_, operand::PARAMETERS | operand::TEMPLATE_PARAMETERS) => of(&[
            K::DebugTypeTemplateParameter,
            K::DebugTypeTemplateTemplateParameter,
            K::DebugTypeTemplateParameterPack,
        ]),
        (instruction::DEBUG_TYPE_MATRIX, operand::VECTOR_TYPE) => of(&[K::DebugTypeVector]),
        // A boolean constant.
        (instruction::DEBUG_TYPE_MATRIX, operand::COLUMN_MAJOR) => {
            of(&[K::Constant, K::ConstantU32])
        }
        (instruction::DEBUG_ENTRY_POINT, operand::ENTRY_POINT) => of(&[K::DebugFunction]),
        (instruction::DEBUG_ENTRY_POINT, operand::COMPILATION_UNIT) => {
            of(&[K::DebugCompilationUnit])
        }
        (instruction::DEBUG_ENTRY_POINT, _) => STRING,
        (instruction::DEBUG_BUILD_IDENTIFIER, operand::IDENTIFIER)
        | (instruction::DEBUG_STORAGE_PATH, operand::PATH) => STRING,
        // What the reader takes for them (front/spirv/resolve.rs).
        (_, operand::COMPONENT_COUNTS) => (of(&[K::ConstantU32, K::Constant]).or(NONE))
            .or(TYPE)
            .or(BOUND),
        (_, operand::VALUE) => CODE.or(of(&[K::String, K::Void])).or(ENTITY).or(NONE),
        (_, operand::ENTITY) => ENTITY.or(NONE).or(of(&[K::Void])),
        (_, operand::INDEXES) => of(&[K::ConstantU32]),
        (_, operand::VALUE_NAME) => of(&[K::ConstantU32, K::Constant]),
        // What is left are numbers: literals outside NonSemantic, never ids.
        _ if f.non_semantic() => of(&[K::ConstantU32]),
        _ => ANY,
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;
    use crate::spec::spirv::FLAVOURS;

    /// Every opcode of every set has the kind of its instruction's name.
    #[test]
    fn debug_kinds_are_the_layouts() {
        for (f, _, _) in FLAVOURS {
            for l in f.layouts() {
                assert_eq!(format!("{:?}", Kind::debug(l.opcode)), l.name);
            }
        }
        assert_eq!(Kind::debug(50), Kind::DebugUnknown);
        assert_eq!(Kind::debug(1000), Kind::DebugUnknown);
    }
}
