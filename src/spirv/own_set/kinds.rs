//! What an id is (`kind` values of pass 1's table), and which kinds of id each debug operand may
//! be: the consumers' rules (spirv-val's for the standard sets, which llvm-spirv-14's reader of
//! `SPIRV.debug` shares in substance). A module that breaks one is left to the IR path, which
//! writes it anew.

use crate::spec::spirv::{Flavour, Layout, Operand};

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
        let k = K_DEBUG as u32 + opcodes[i];
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
        Flavour::Shader100 => of(&[K_CONSTANT_U32]),
        _ => union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
    };
    match (l.name, o.name) {
        ("DebugSource", "Text") if f == Flavour::SpirvDebug => union(STRING, NONE),
        (_, "Name" | "Linkage Name" | "File" | "Text" | "Template Name") => STRING,
        ("DebugMacroDef", "Value") => STRING,
        // DebugInfo 0.99 names a source by its OpString; the later sets have DebugSource.
        (_, "Source") if f == Flavour::DebugInfo => STRING,
        (_, "Source") => debug(&[35]),
        ("DebugTypeMember" | "DebugTypeInheritance" | "DebugTypePtrToMember", "Parent") => {
            debug(&[10])
        }
        ("DebugTypeInheritance", "Child") => debug(&[10]),
        // The reader takes only a function or block there; a scope run's scope is a unit
        // or scope by the IR's rules (no composite).
        ("DebugInlinedAt", "Scope") => debug(&[20, 21]),
        ("DebugScope", "Scope") => debug(&[1, 20, 21]),
        (_, "Parent" | "Scope") if f == Flavour::SpirvDebug => union(SCOPE, debug(&[36])),
        (_, "Parent" | "Scope") => SCOPE,
        ("DebugFunction" | "DebugFunctionDeclaration", "Type") => debug(&[8]),
        ("DebugFunction", "Function") => union(of(&[K_FUNCTION]), NONE),
        ("DebugFunction", "Declaration") => debug(&[19]),
        ("DebugFunctionDefinition", "Function") => debug(&[20]),
        ("DebugFunctionDefinition", "Definition") => of(&[K_FUNCTION]),
        ("DebugGlobalVariable", "Static Member Declaration") => debug(&[11]),
        ("DebugGlobalVariable", "Variable") => union(union(CODE, NONE), debug(&[31])),
        ("DebugValue", "Value") => union(CODE, NONE),
        ("DebugDeclare", "Variable") => of(&[K_VARIABLE, K_PARAMETER]),
        ("DebugInlinedVariable", "Variable") | (_, "Local Variable") => debug(&[26]),
        (_, "Type" | "Base Type" | "Underlying Type" | "Member Type" | "Actual Type") => TYPE,
        (_, "Parameter Types" | "Paramter Types") => TYPE,
        (_, "Return Type") => union(TYPE, of(&[K_VOID])),
        (_, "Members") => debug(&[11, 12, 20]),
        ("DebugTypeComposite", "Size") => union(numbers, NONE),
        (_, "Size" | "Offset") => numbers,
        (_, "Inlined At" | "Inlined") => debug(&[25]),
        (_, "Expression") => debug(&[31]),
        ("DebugExpression", _) => debug(&[30]),
        (_, "Macro") => debug(&[32]),
        (_, "Target") => debug(&[10, 20]),
        (_, "Parameters" | "Template Parameters") => debug(&[15, 16, 17]),
        ("DebugTypeMatrix", "Vector Type") => debug(&[6]),
        // A boolean constant.
        ("DebugTypeMatrix", "Column Major") => of(&[K_CONSTANT, K_CONSTANT_U32]),
        ("DebugEntryPoint", "Entry Point") => debug(&[20]),
        ("DebugEntryPoint", "Compilation Unit") => debug(&[1]),
        ("DebugEntryPoint", _) => STRING,
        ("DebugBuildIdentifier", "Identifier") | ("DebugStoragePath", "Path") => STRING,
        // What the reader takes for them (front/spirv/resolve.rs).
        (_, "Component Counts") => union(
            union(of(&[K_CONSTANT_U32, K_CONSTANT]), NONE),
            union(TYPE, debug(&[18, 26, 31])),
        ),
        (_, "Value") => union(union(CODE, of(&[K_STRING, K_VOID])), union(ENTITY, NONE)),
        (_, "Entity") => union(ENTITY, union(NONE, of(&[K_VOID]))),
        (_, "Indexes") => of(&[K_CONSTANT_U32]),
        (_, "Value, Name") => of(&[K_CONSTANT_U32, K_CONSTANT]),
        // What is left are numbers: literals outside NonSemantic, never ids.
        _ if f == Flavour::Shader100 => of(&[K_CONSTANT_U32]),
        _ => ANY,
    }
}
