//! The operand mapping into another set, worked out once per module: per opcode of the module's
//! set, where each of the other set's operands comes from (`Source`), which of the module's
//! operands the other set carries, and which values a literal may hold for the IR path to write
//! it as it is (`Values`).

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;
use rspirv::spirv::StorageClass;

use crate::spec::spirv::{from_set, Flavour, Layout, Operand, COMPOSITE_TAGS, IMPORTS, Q};
use crate::spec::spirv_names::{operand, OperandName};

use super::super::operands::OperandRule;
use super::super::tables::Tables;

/// Where one of the other set's operands comes from.
#[derive(Clone, Copy)]
pub(super) enum Source {
    /// The module's operand of this index.
    Operand(usize),
    /// The number 0 (an operand the module's set has not).
    Zero,
    /// Into the OpenCL.100 family: a member's Parent (the composite listing it).
    Parent,
    /// Into the OpenCL.100 family: a DebugFunction's Function (the OpFunction its
    /// DebugFunctionDefinition names, or DebugInfoNone).
    Function,
    /// Into `.200`: an optional operand the module's set has not, left out.
    Absent,
    /// Into `.200`: DebugCompilationUnit's Producer, `""` (the translator's reader requires it).
    EmptyString,
    /// Into `.200`: the module's Component Counts (this operand index), each as a
    /// DebugTypeSubrange of its count added before the array.
    Subranges(usize),
    /// Out of `.200`: the Count of each of the module's Subranges (this operand index).
    Counts(usize),
}

/// One of the other set's operands: where it comes from, how the other set encodes it and which
/// kinds of id its consumer takes there (`rule`), and the values it may hold.
pub(super) struct Planned {
    pub(super) source: Source,
    pub(super) rule: OperandRule,
    pub(super) values: Values,
}

/// How one debug instruction is converted.
pub(super) struct Plan {
    /// Per operand of the other set's layout.
    pub(super) operands: Vec<Planned>,
    /// Per operand of the module's layout: whether the other set carries it.
    pub(super) carried: Vec<bool>,
}

/// The values a literal operand may hold for the IR path to write it back unchanged: flags the
/// set defines, encodings, tags, qualifiers it numbers, storage classes a Kernel module may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Values {
    Any,
    Flags,
    Encoding,
    CompositeTag,
    ImportTag,
    Qualifier,
    StorageClass,
}

/// UniformConstant, Workgroup, CrossWorkgroup, Function (and Generic with GenericPointer).
const KERNEL_STORAGE_CLASSES: [u32; 4] = [
    StorageClass::UniformConstant as u32,
    StorageClass::Workgroup as u32,
    StorageClass::CrossWorkgroup as u32,
    StorageClass::Function as u32,
];

impl Values {
    /// The values operand `name` of the instruction `opcode` may hold.
    pub(super) fn of(opcode: u32, name: OperandName) -> Values {
        match (DebugOp::from_u32(opcode), name) {
            (_, operand::FLAGS) => Values::Flags,
            (Some(DebugOp::DebugTypeBasic), operand::ENCODING) => Values::Encoding,
            (Some(DebugOp::DebugTypeComposite), operand::TAG) => Values::CompositeTag,
            (Some(DebugOp::DebugImportedEntity), operand::TAG) => Values::ImportTag,
            (Some(DebugOp::DebugTypeQualifier), operand::TYPE_QUALIFIER) => Values::Qualifier,
            (Some(DebugOp::DebugTypePointer), operand::STORAGE_CLASS) => Values::StorageClass,
            _ => Values::Any,
        }
    }

    /// Whether `value` reads into the IR as itself from the set `f` (or is written as itself
    /// into it).
    pub(super) fn known(self, t: &Tables<'_>, f: Flavour, value: u32) -> bool {
        match self {
            Values::Flags => value & !f.flags().iter().fold(0, |m, (bit, _)| m | bit) == 0,
            Values::Encoding => from_set(f.encodings(), value).is_some(),
            Values::CompositeTag => from_set(COMPOSITE_TAGS, value).is_some(),
            Values::ImportTag => from_set(IMPORTS, value).is_some(),
            Values::Qualifier => from_set(f.qualifiers(), value).is_some(),
            Values::StorageClass => {
                t.kernel
                    && (KERNEL_STORAGE_CLASSES.contains(&value)
                        || value == StorageClass::Generic as u32 && t.generic)
            }
            Values::Any => true,
        }
    }
}

/// The direction of a conversion, as the plans ask it.
#[derive(Clone, Copy)]
struct Direction {
    to: Flavour,
    /// NonSemantic into the OpenCL.100 family: numbers become literals.
    into_literals: bool,
    into_200: bool,
    from_200: bool,
}

/// The plans from the set `from` (read by `t`'s layouts) into `to`, by opcode of the module's
/// set; none where the other set has no place for the instruction.
pub(super) fn plans(t: &Tables<'_>, from: Flavour, to: Flavour) -> Vec<Option<Plan>> {
    let d = Direction {
        to,
        into_literals: from.non_semantic() && !to.non_semantic(),
        into_200: to == Flavour::Shader200,
        from_200: from == Flavour::Shader200,
    };
    let mut plans: Vec<Option<Plan>> = Vec::new();
    for l in t.flavour.layouts() {
        let Some(plan) = plan(l, d) else {
            continue;
        };
        let at = l.opcode as usize;
        if plans.len() <= at {
            plans.resize_with(at + 1, || None);
        }
        plans[at] = Some(plan);
    }
    plans
}

/// The plan of the module's layout `l`, if the other set takes its instruction and has a place
/// for every operand it carries.
fn plan(l: &'static Layout, d: Direction) -> Option<Plan> {
    // (`SPIRV.debug`'s as llvm-spirv-14 writes it, as the IR writer does.)
    let not_converted = NOT_CONVERTED.contains(&l.opcode)
        || d.into_200 && NOT_INTO_200.contains(&l.opcode)
        || d.from_200 && l.opcode == ShaderOp::DebugEntryPoint as u32;
    if not_converted {
        return None;
    }
    let target = d.to.layout_by_name(l.name)?;
    let operands = (target.operands.iter())
        .map(|o| {
            Some(Planned {
                source: source(l, o, d)?,
                rule: OperandRule::new(d.to, target, o),
                values: Values::of(l.opcode, OperandName(o.name)),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let carried: Vec<bool> = (l.operands.iter())
        .map(|o| {
            let name = OperandName(o.name);
            let counts = name == operand::COMPONENT_COUNTS && d.into_200
                || name == operand::SUBRANGES && d.from_200;
            target.operands.iter().any(|t| OperandName(t.name) == name) || counts
        })
        .collect();
    let dropped: Operands = match d.into_literals {
        true => &DROPPED_INTO_LITERALS,
        false => &NOT_IN_NON_SEMANTIC,
    };
    let dropped_ok = (l.operands.iter()).zip(&carried).all(|(o, &c)| {
        let key = (l.opcode, OperandName(o.name));
        c || dropped.contains(&key) || OWN_200.contains(&key)
    });
    dropped_ok.then_some(Plan { operands, carried })
}

/// Where the other set's operand `o` comes from in the module's layout `l` (none: nowhere).
fn source(l: &Layout, o: &Operand, d: Direction) -> Option<Source> {
    let position =
        |name: OperandName| (l.operands.iter()).position(|o| OperandName(o.name) == name);
    let name = OperandName(o.name);
    if let Some(k) = position(name) {
        return Some(Source::Operand(k));
    }
    let default: Operands = match d.into_literals {
        true => &NOT_IN_NON_SEMANTIC,
        false => &DEFAULT_ZERO,
    };
    let source = match name {
        operand::SUBRANGES if d.into_200 => Source::Subranges(position(operand::COMPONENT_COUNTS)?),
        operand::COMPONENT_COUNTS if d.from_200 => Source::Counts(position(operand::SUBRANGES)?),
        operand::PRODUCER if d.into_200 => Source::EmptyString,
        _ if d.into_200 && o.q == Q::Opt => Source::Absent,
        _ if !default.contains(&(l.opcode, name)) => return None,
        _ if !d.into_literals => Source::Zero,
        operand::PARENT => Source::Parent,
        _ => Source::Function,
    };
    Some(source)
}

/// Operands by opcode and name.
type Operands = &'static [(u32, OperandName)];

/// Opcodes not converted: DebugTypeInheritance (the IR writer writes none in NonSemantic:
/// spirv-val checks it against OpenCL.100's layout), DebugLexicalBlockDiscriminator (a
/// DebugLexicalBlock there), DebugModuleINTEL (none in NonSemantic), DebugTypeTemplate (a
/// function declaration's is left out).
const NOT_CONVERTED: [u32; 4] = [
    DebugOp::DebugTypeInheritance as u32,
    DebugOp::DebugLexicalBlockDiscriminator as u32,
    DebugOp::DebugModuleINTEL as u32,
    DebugOp::DebugTypeTemplate as u32,
];
/// Not converted into `.200`, which the IR path writes otherwise for the translator's reader
/// (which has no case for them): DebugTypeMatrix (an array), DebugMacroDef/Undef,
/// DebugInlinedVariable (left out, ledgered).
const NOT_INTO_200: [u32; 4] = [
    ShaderOp::DebugTypeMatrix as u32,
    DebugOp::DebugMacroDef as u32,
    DebugOp::DebugMacroUndef as u32,
    DebugOp::DebugInlinedVariable as u32,
];
/// A member's Parent and a function's Function, which NonSemantic has not: dropped into it, taken
/// from elsewhere out of it (`Source::Parent`, `Source::Function`).
const NOT_IN_NON_SEMANTIC: [(u32, OperandName); 2] = [
    (DebugOp::DebugTypeMember as u32, operand::PARENT),
    (DebugOp::DebugFunction as u32, operand::FUNCTION),
];
/// Into the OpenCL.100 family: the operand it has not and takes from nowhere else (a basic
/// type's Flags, 0).
const DROPPED_INTO_LITERALS: [(u32, OperandName); 1] =
    [(DebugOp::DebugTypeBasic as u32, operand::FLAGS)];
/// `.200`'s own operands, which the other sets have not (`Target::out_of_200` checks what they
/// hold).
const OWN_200: [(u32, OperandName); 6] = [
    (DebugOp::DebugCompilationUnit as u32, operand::PRODUCER),
    (DebugOp::DebugSource as u32, operand::CHECKSUM_KIND),
    (DebugOp::DebugSource as u32, operand::CHECKSUM_VALUE),
    (DebugOp::DebugFunction as u32, operand::TARGET_FUNCTION_NAME),
    (DebugOp::DebugLexicalBlock as u32, operand::INLINE_NAMESPACE),
    (DebugOp::DebugInlinedAt as u32, operand::COLUMN),
];
/// Operands the module's set has not, written as 0: a basic type's Flags, an inlined call's
/// Column (`.200`).
const DEFAULT_ZERO: [(u32, OperandName); 2] = [
    (DebugOp::DebugTypeBasic as u32, operand::FLAGS),
    (DebugOp::DebugInlinedAt as u32, operand::COLUMN),
];
