//! What an id is (`kind` values of pass 1's table), and which kinds of id each debug operand may
//! be: the consumers' rules (spirv-val's for the standard sets, which llvm-spirv-14's reader of
//! `SPIRV.debug` shares in substance). A module that breaks one is left to the IR path, which
//! writes it anew.

use crate::spec::spirv::{Flavour, Layout, Operand};
use crate::spec::spirv_names::{instruction, operand, InsnName, OperandName};

/// Debug instructions a function body may hold (the rest are module-level entities).
pub(super) const IN_FUNCTION: [u32; 9] = [23, 24, 26, 28, 29, 101, 103, 104, 31];

/// `Cx::kind` values.
pub(super) const K_UNDEFINED: u8 = 0;
pub(super) const K_CODE: u8 = 1;
pub(super) const K_STRING: u8 = 2;
/// An OpConstant of a 32-bit unsigned integer type (what NonSemantic numbers must be).
pub(super) const K_CONSTANT_U32: u8 = 3;
/// Any other integer or boolean constant (OpConstant of an integer or boolean type,
/// OpConstantTrue/False/Null): what the reader takes for a number.
pub(super) const K_CONSTANT: u8 = 4;
pub(super) const K_VOID: u8 = 5;
pub(super) const K_VARIABLE: u8 = 6;
pub(super) const K_PARAMETER: u8 = 7;
pub(super) const K_FUNCTION: u8 = 8;
pub(super) const K_DEBUG: u8 = 16;
/// Bit of `Cx::kind`: the id is written (pass 2), or defined where nothing waits for it (in a
/// function).
pub(super) const DONE: u8 = 0x80;

/// The kind of a debug instruction of `opcode`: `K_DEBUG` + its opcode, below `DONE`: `.200`'s
/// 200–203 folded onto 37–40 (which no set numbers), any other opcode past 108 onto 41.
pub(super) const fn debug_kind(opcode: u32) -> u8 {
    let folded = match opcode {
        0..=108 => opcode,
        200..=203 => opcode - 163,
        _ => 41,
    };
    K_DEBUG + folded as u8
}

/// The opcode of a debug kind (`debug_kind`'s inverse; 41 for an opcode past the sets').
pub(super) fn kind_opcode(kind: u8) -> u32 {
    match u32::from(kind - K_DEBUG) {
        n @ 37..=40 => n + 163,
        n => n,
    }
}

/// A set of `Cx::kind` values (bit `kind`).
pub(super) type Mask = [u64; 4];

const fn of(kinds: &[u8]) -> Mask {
    let mut m = [0u64; 4];
    let mut i = 0;
    while i < kinds.len() {
        m[(kinds[i] >> 6) as usize] |= 1 << (kinds[i] & 63);
        i += 1;
    }
    m
}
const fn debug(opcodes: &[u32]) -> Mask {
    let mut m = [0u64; 4];
    let mut i = 0;
    while i < opcodes.len() {
        let k = debug_kind(opcodes[i]) as u32;
        m[(k >> 6) as usize] |= 1 << (k & 63);
        i += 1;
    }
    m
}
fn union(a: Mask, b: Mask) -> Mask {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

const ANY: Mask = [!1, !0, !0, !0];
const STRING: Mask = of(&[K_STRING]);
const NONE: Mask = debug(&[0]);
/// Debug types: basic, pointer, qualifier, array, vector, typedef, function, enum,
/// composite, pointer to member, template and its parameters, matrix.
const TYPE: Mask = debug(&[2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 108]);
/// Ids of the code (what the reader takes for a variable or value): no string, no void.
const CODE: Mask = of(&[
    K_CODE,
    K_CONSTANT,
    K_CONSTANT_U32,
    K_VARIABLE,
    K_PARAMETER,
    K_FUNCTION,
]);
/// Debug instructions that are IR entities: all but DebugInfoNone, the in-function ones,
/// DebugOperation, DebugSourceContinued, DebugBuildIdentifier and DebugStoragePath.
const ENTITY: Mask = debug(&[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 25, 26, 27, 31,
    32, 33, 34, 35, 36, 107, 108,
]);
/// Lexical scopes: unit, function, lexical block, composite (and in `SPIRV.debug`,
/// llvm-spirv's DebugModuleINTEL). Not a DebugLexicalBlockDiscriminator: spirv-val rejects it.
const SCOPE: Mask = debug(&[1, 20, 21, 10]);

/// The kinds operand `o` of layout `l` may be. llvm-spirv-14 reads DebugInfoNone as "none"
/// in any operand of its `SPIRV.debug`.
pub(super) fn allowed(f: Flavour, l: &Layout, o: &Operand) -> Mask {
    match f {
        Flavour::SpirvDebug => union(by_consumer(f, l, o), NONE),
        _ => by_consumer(f, l, o),
    }
}

fn by_consumer(f: Flavour, l: &Layout, o: &Operand) -> Mask {
    let numbers = match f {
        Flavour::Shader100 | Flavour::Shader200 => of(&[K_CONSTANT_U32]),
        _ => union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
    };
    match (InsnName(l.name), OperandName(o.name)) {
        // `.200`'s own operands (as SPIRV-LLVM-Translator writes them: DebugInfoNone for a
        // basic type's Flags and a checksum that is not there).
        (_, operand::PRODUCER | operand::TARGET_FUNCTION_NAME) => STRING,
        // (A two-operand DebugSource is File, Text.)
        (instruction::DEBUG_SOURCE, operand::CHECKSUM_KIND) => union(union(numbers, NONE), STRING),
        (instruction::DEBUG_SOURCE, operand::CHECKSUM_VALUE) => union(STRING, NONE),
        (instruction::DEBUG_TYPE_BASIC, operand::FLAGS) if f == Flavour::Shader200 => {
            union(numbers, NONE)
        }
        (_, operand::SUBRANGES) => debug(&[201]),
        // SPIRV-LLVM-Translator names the file's OpString there.
        (instruction::DEBUG_LINE, operand::SOURCE) if f == Flavour::Shader200 => {
            union(debug(&[35]), STRING)
        }
        (_, operand::INLINE_NAMESPACE) => of(&[K_CONSTANT]),
        (
            instruction::DEBUG_TYPE_SUBRANGE,
            operand::LOWER_BOUND | operand::UPPER_BOUND | operand::COUNT | operand::STRIDE,
        ) => union(
            union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
            debug(&[18, 26, 31]),
        ),
        (instruction::DEBUG_SOURCE, operand::TEXT) if f == Flavour::SpirvDebug => {
            union(STRING, NONE)
        }
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
        (_, operand::SOURCE) => debug(&[35]),
        (
            instruction::DEBUG_TYPE_MEMBER
            | instruction::DEBUG_TYPE_INHERITANCE
            | instruction::DEBUG_TYPE_PTR_TO_MEMBER,
            operand::PARENT,
        ) => debug(&[10]),
        (instruction::DEBUG_TYPE_INHERITANCE, operand::CHILD) => debug(&[10]),
        // The reader takes only a function or block there; a scope run's scope is a unit
        // or scope by the IR's rules (no composite).
        (instruction::DEBUG_INLINED_AT, operand::SCOPE) => debug(&[20, 21]),
        (instruction::DEBUG_SCOPE, operand::SCOPE) => debug(&[1, 20, 21]),
        (_, operand::PARENT | operand::SCOPE) if f == Flavour::SpirvDebug => {
            union(SCOPE, debug(&[36]))
        }
        (_, operand::PARENT | operand::SCOPE) => SCOPE,
        (instruction::DEBUG_FUNCTION | instruction::DEBUG_FUNCTION_DECLARATION, operand::TYPE) => {
            debug(&[8])
        }
        (instruction::DEBUG_FUNCTION, operand::FUNCTION) => union(of(&[K_FUNCTION]), NONE),
        (instruction::DEBUG_FUNCTION, operand::DECLARATION) => debug(&[19]),
        (instruction::DEBUG_FUNCTION_DEFINITION, operand::FUNCTION) => debug(&[20]),
        (instruction::DEBUG_FUNCTION_DEFINITION, operand::DEFINITION) => of(&[K_FUNCTION]),
        (instruction::DEBUG_GLOBAL_VARIABLE, operand::STATIC_MEMBER_DECLARATION) => debug(&[11]),
        (instruction::DEBUG_GLOBAL_VARIABLE, operand::VARIABLE) => {
            union(union(CODE, NONE), debug(&[31]))
        }
        (instruction::DEBUG_VALUE, operand::VALUE) => union(CODE, NONE),
        (instruction::DEBUG_DECLARE, operand::VARIABLE) => of(&[K_VARIABLE, K_PARAMETER]),
        (instruction::DEBUG_INLINED_VARIABLE, operand::VARIABLE) | (_, operand::LOCAL_VARIABLE) => {
            debug(&[26])
        }
        // An enumeration without one (spirv-val takes DebugInfoNone there, and only there).
        (instruction::DEBUG_TYPE_ENUM, operand::UNDERLYING_TYPE) => union(TYPE, NONE),
        (
            _,
            operand::TYPE
            | operand::BASE_TYPE
            | operand::UNDERLYING_TYPE
            | operand::MEMBER_TYPE
            | operand::ACTUAL_TYPE,
        ) => TYPE,
        (_, operand::PARAMETER_TYPES | operand::PARAMTER_TYPES) => TYPE,
        (_, operand::RETURN_TYPE) => union(TYPE, of(&[K_VOID])),
        (_, operand::MEMBERS) => debug(&[11, 12, 20]),
        (instruction::DEBUG_TYPE_COMPOSITE, operand::SIZE) => union(numbers, NONE),
        (_, operand::SIZE | operand::OFFSET) => numbers,
        (_, operand::INLINED_AT | operand::INLINED) => debug(&[25]),
        (_, operand::EXPRESSION) => debug(&[31]),
        (instruction::DEBUG_EXPRESSION, _) => debug(&[30]),
        (_, operand::MACRO) => debug(&[32]),
        (_, operand::TARGET) => debug(&[10, 20]),
        (_, operand::PARAMETERS | operand::TEMPLATE_PARAMETERS) => debug(&[15, 16, 17]),
        (instruction::DEBUG_TYPE_MATRIX, operand::VECTOR_TYPE) => debug(&[6]),
        // A boolean constant.
        (instruction::DEBUG_TYPE_MATRIX, operand::COLUMN_MAJOR) => {
            of(&[K_CONSTANT, K_CONSTANT_U32])
        }
        (instruction::DEBUG_ENTRY_POINT, operand::ENTRY_POINT) => debug(&[20]),
        (instruction::DEBUG_ENTRY_POINT, operand::COMPILATION_UNIT) => debug(&[1]),
        (instruction::DEBUG_ENTRY_POINT, _) => STRING,
        (instruction::DEBUG_BUILD_IDENTIFIER, operand::IDENTIFIER)
        | (instruction::DEBUG_STORAGE_PATH, operand::PATH) => STRING,
        // What the reader takes for them (front/spirv/resolve.rs).
        (_, operand::COMPONENT_COUNTS) => union(
            union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
            union(TYPE, debug(&[18, 26, 31])),
        ),
        (_, operand::VALUE) => union(union(CODE, of(&[K_STRING, K_VOID])), union(ENTITY, NONE)),
        (_, operand::ENTITY) => union(ENTITY, union(NONE, of(&[K_VOID]))),
        (_, operand::INDEXES) => of(&[K_CONSTANT_U32]),
        (_, operand::VALUE_NAME) => of(&[K_CONSTANT_U32, K_CONSTANT]),
        // What is left are numbers: literals outside NonSemantic, never ids.
        _ if f.non_semantic() => of(&[K_CONSTANT_U32]),
        _ => ANY,
    }
}
