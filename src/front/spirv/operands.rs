//! One debug instruction's operands, split by name from its set's [`Layout`], and the reader's
//! error type.

use crate::spec::spirv::{
    Flavour, Layout, OperandWords, LLVM_SPIRV14_LAYOUTS, Q, SHADER200_SHORT_SOURCE,
};
use crate::spec::spirv_names::{instruction, InsnName, OperandName};
use crate::spirv::binary::{Insn, SpirvError};

/// A reader error: the word offset of the damage, the id involved (if any) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RErr {
    pub offset: usize,
    pub id: Option<u32>,
    pub message: String,
}

pub type RResult<T> = Result<T, RErr>;

impl From<SpirvError> for RErr {
    fn from(e: SpirvError) -> Self {
        RErr {
            offset: e.offset,
            id: None,
            message: e.message,
        }
    }
}

pub fn fail<T>(offset: usize, id: Option<u32>, message: impl Into<String>) -> RResult<T> {
    Err(RErr {
        offset,
        id,
        message: message.into(),
    })
}

/// What a debug instruction is, whatever its set and opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    InfoNone,
    CompilationUnit,
    TypeBasic,
    TypePointer,
    TypeQualifier,
    TypeArray,
    TypeVector,
    Typedef,
    TypeFunction,
    TypeEnum,
    TypeComposite,
    TypeMember,
    TypeInheritance,
    TypePtrToMember,
    TypeTemplate,
    TypeTemplateParameter,
    TypeTemplateTemplateParameter,
    TypeTemplateParameterPack,
    GlobalVariable,
    FunctionDeclaration,
    Function,
    LexicalBlock,
    LexicalBlockDiscriminator,
    Scope,
    NoScope,
    InlinedAt,
    LocalVariable,
    InlinedVariable,
    Declare,
    Value,
    Operation,
    Expression,
    MacroDef,
    MacroUndef,
    ImportedEntity,
    Source,
    ModuleIntel,
    FunctionDefinition,
    SourceContinued,
    Line,
    NoLine,
    BuildIdentifier,
    StoragePath,
    EntryPoint,
    TypeMatrix,
    TypeSubrange,
    TypeArrayDynamic,
    TypeString,
}

const KINDS: &[(InsnName, Kind)] = &[
    (instruction::DEBUG_INFO_NONE, Kind::InfoNone),
    (instruction::DEBUG_COMPILATION_UNIT, Kind::CompilationUnit),
    (instruction::DEBUG_TYPE_BASIC, Kind::TypeBasic),
    (instruction::DEBUG_TYPE_POINTER, Kind::TypePointer),
    (instruction::DEBUG_TYPE_QUALIFIER, Kind::TypeQualifier),
    (instruction::DEBUG_TYPE_ARRAY, Kind::TypeArray),
    (instruction::DEBUG_TYPE_VECTOR, Kind::TypeVector),
    (instruction::DEBUG_TYPEDEF, Kind::Typedef),
    (instruction::DEBUG_TYPE_FUNCTION, Kind::TypeFunction),
    (instruction::DEBUG_TYPE_ENUM, Kind::TypeEnum),
    (instruction::DEBUG_TYPE_COMPOSITE, Kind::TypeComposite),
    (instruction::DEBUG_TYPE_MEMBER, Kind::TypeMember),
    (instruction::DEBUG_TYPE_INHERITANCE, Kind::TypeInheritance),
    (instruction::DEBUG_TYPE_PTR_TO_MEMBER, Kind::TypePtrToMember),
    (instruction::DEBUG_TYPE_TEMPLATE, Kind::TypeTemplate),
    (
        instruction::DEBUG_TYPE_TEMPLATE_PARAMETER,
        Kind::TypeTemplateParameter,
    ),
    (
        instruction::DEBUG_TYPE_TEMPLATE_TEMPLATE_PARAMETER,
        Kind::TypeTemplateTemplateParameter,
    ),
    (
        instruction::DEBUG_TYPE_TEMPLATE_PARAMETER_PACK,
        Kind::TypeTemplateParameterPack,
    ),
    (instruction::DEBUG_GLOBAL_VARIABLE, Kind::GlobalVariable),
    (
        instruction::DEBUG_FUNCTION_DECLARATION,
        Kind::FunctionDeclaration,
    ),
    (instruction::DEBUG_FUNCTION, Kind::Function),
    (instruction::DEBUG_LEXICAL_BLOCK, Kind::LexicalBlock),
    (
        instruction::DEBUG_LEXICAL_BLOCK_DISCRIMINATOR,
        Kind::LexicalBlockDiscriminator,
    ),
    (instruction::DEBUG_SCOPE, Kind::Scope),
    (instruction::DEBUG_NO_SCOPE, Kind::NoScope),
    (instruction::DEBUG_INLINED_AT, Kind::InlinedAt),
    (instruction::DEBUG_LOCAL_VARIABLE, Kind::LocalVariable),
    (instruction::DEBUG_INLINED_VARIABLE, Kind::InlinedVariable),
    (instruction::DEBUG_DECLARE, Kind::Declare),
    (instruction::DEBUG_VALUE, Kind::Value),
    (instruction::DEBUG_OPERATION, Kind::Operation),
    (instruction::DEBUG_EXPRESSION, Kind::Expression),
    (instruction::DEBUG_MACRO_DEF, Kind::MacroDef),
    (instruction::DEBUG_MACRO_UNDEF, Kind::MacroUndef),
    (instruction::DEBUG_IMPORTED_ENTITY, Kind::ImportedEntity),
    (instruction::DEBUG_SOURCE, Kind::Source),
    (instruction::DEBUG_MODULE_INTEL, Kind::ModuleIntel),
    // `.200`'s DebugModule has DebugModuleINTEL's operands (numbers as constants).
    (instruction::DEBUG_MODULE, Kind::ModuleIntel),
    (
        instruction::DEBUG_FUNCTION_DEFINITION,
        Kind::FunctionDefinition,
    ),
    (instruction::DEBUG_SOURCE_CONTINUED, Kind::SourceContinued),
    (instruction::DEBUG_LINE, Kind::Line),
    (instruction::DEBUG_NO_LINE, Kind::NoLine),
    (instruction::DEBUG_BUILD_IDENTIFIER, Kind::BuildIdentifier),
    (instruction::DEBUG_STORAGE_PATH, Kind::StoragePath),
    (instruction::DEBUG_ENTRY_POINT, Kind::EntryPoint),
    (instruction::DEBUG_TYPE_MATRIX, Kind::TypeMatrix),
    (instruction::DEBUG_TYPE_SUBRANGE, Kind::TypeSubrange),
    (
        instruction::DEBUG_TYPE_ARRAY_DYNAMIC,
        Kind::TypeArrayDynamic,
    ),
    (instruction::DEBUG_TYPE_STRING, Kind::TypeString),
];

pub fn kind_of(name: &str) -> Option<Kind> {
    KINDS.iter().find(|(n, _)| n.0 == name).map(|(_, k)| *k)
}

/// The layout and kind of an instruction number of a set, from a table built once.
pub fn lookup(flavour: Flavour, opcode: u32) -> Option<(&'static Layout, Kind)> {
    type Table = Vec<Option<(&'static Layout, Kind)>>;
    static TABLES: std::sync::OnceLock<Vec<(Flavour, Table)>> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        crate::spec::spirv::FLAVOURS
            .iter()
            .map(|(f, _, _)| {
                let max = f.layouts().iter().map(|l| l.opcode).max().unwrap_or(0);
                let table = (0..=max)
                    .map(|op| f.layout(op).and_then(|l| kind_of(l.name).map(|k| (l, k))))
                    .collect();
                (*f, table)
            })
            .collect()
    });
    let (_, table) = tables.iter().find(|(f, _)| *f == flavour)?;
    table.get(opcode as usize).copied().flatten()
}

/// The layout to read an instruction with: the set's, or llvm-spirv 14's variant of it
/// (`spec::spirv::LLVM_SPIRV14_LAYOUTS`): DebugImportedEntity by its 8 operands in both of
/// llvm-spirv's sets; DebugModuleINTEL (Line before Parent) in `SPIRV.debug`, which only
/// llvm-spirv and dwarv write. In OpenCL.100 that instruction keeps the grammar's order. A
/// `.200` DebugSource of two operands is File, Text (`SHADER200_SHORT_SOURCE`).
pub fn layout_for(flavour: Flavour, layout: &'static Layout, operands: usize) -> &'static Layout {
    let short = &SHADER200_SHORT_SOURCE;
    if flavour == Flavour::Shader200 && layout.name == short.name && operands == 2 {
        return short;
    }
    let [imported, module] = &LLVM_SPIRV14_LAYOUTS;
    let llvm_spirv = matches!(flavour, Flavour::OpenCl100 | Flavour::SpirvDebug);
    if llvm_spirv && layout.name == imported.name && operands == imported.operands.len() {
        return imported;
    }
    if flavour == Flavour::SpirvDebug && layout.name == module.name {
        return module;
    }
    layout
}

/// The grammar's operand names, with the 0.99 grammar's variants folded onto the common ones.
fn canon(name: &str) -> &str {
    match name {
        "Literal Flags" => "Flags",
        "Paramter Types" => "Parameter Types",
        other => other,
    }
}

/// Most operands any layout has (DebugFunction: 11).
const MAX_SLOTS: usize = 12;

/// A debug instruction with its operand words split by its layout.
#[derive(Clone, Debug)]
pub struct Dec<'a> {
    pub offset: usize,
    pub id: u32,
    pub flavour: Flavour,
    pub kind: Kind,
    pub layout: &'static Layout,
    pub ops: &'a [u32],
    /// (start, count) into `ops`, per layout operand.
    slots: [(u32, u32); MAX_SLOTS],
}

impl<'a> Dec<'a> {
    /// Splits the operands (the words after the set and the instruction number); an operand
    /// count the layout does not allow is an error.
    pub fn new(
        insn: &Insn<'a>,
        flavour: Flavour,
        layout: &'static Layout,
        kind: Kind,
    ) -> RResult<Self> {
        let id = insn.operand(1)?;
        let ops = insn.words.get(5..).unwrap_or(&[]);
        let mut slots = [(0u32, 0u32); MAX_SLOTS];
        let mut at = 0usize;
        let bad = |why: String| {
            fail(
                insn.offset,
                Some(id),
                format!("{} has {} operand(s): {why}", layout.name, ops.len()),
            )
        };
        for (i, op) in layout.operands.iter().enumerate() {
            let left = ops.len() - at;
            let n = match op.q {
                Q::One if left == 0 => return bad(format!("`{}` is missing", op.name)),
                Q::One => 1,
                Q::Opt => left.min(1),
                Q::Many if op.w == OperandWords::Pair && left % 2 != 0 => {
                    return bad(format!("`{}` needs (value, name) pairs", op.name))
                }
                Q::Many => left,
            };
            if let Some(s) = slots.get_mut(i) {
                *s = (at as u32, n as u32);
            }
            at += n;
        }
        if at < ops.len() {
            return bad(format!(
                "the layout allows at most {at} (extra words from word {})",
                insn.offset + 5 + at
            ));
        }
        Ok(Dec {
            offset: insn.offset,
            id,
            flavour,
            kind,
            layout,
            ops,
            slots,
        })
    }

    pub fn name(&self) -> &'static str {
        self.layout.name
    }

    fn index(&self, name: OperandName) -> Option<usize> {
        self.layout
            .operands
            .iter()
            .position(|o| canon(o.name) == name.0)
    }

    /// The words of a named operand (empty when the set has no such operand or it is absent).
    pub fn words(&self, name: OperandName) -> &'a [u32] {
        let Some((start, n)) = self.index(name).and_then(|i| self.slots.get(i)) else {
            return &[];
        };
        self.ops
            .get(*start as usize..(*start + *n) as usize)
            .unwrap_or(&[])
    }

    /// The first word of a named operand, if present.
    pub fn word(&self, name: OperandName) -> Option<u32> {
        self.words(name).first().copied()
    }

    /// Whether the set encodes the operand as a literal word (true) or an id.
    pub fn is_literal(&self, name: OperandName) -> bool {
        self.index(name)
            .and_then(|i| self.layout.operands.get(i))
            .is_some_and(|o| o.w == OperandWords::Lit)
    }

    /// Whether the layout has an operand of that name at all.
    pub fn has(&self, name: OperandName) -> bool {
        self.index(name).is_some()
    }
}
