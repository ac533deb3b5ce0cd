//! Each operand of the module's layouts as the passes read it, worked out once per module from
//! its name: how it is encoded and repeated, the kinds of id its consumer takes
//! (`kinds::allowed`), and what pass 2 makes of it beyond that (`Role`).

use crate::spec::spirv::{Flavour, Layout, Operand, OperandWords, Q};
use crate::spec::spirv_names::{operand, OperandName};

use super::kinds::{self, Kind, KindSet};

/// What pass 2 does with an operand besides checking its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Plain,
    /// `.200`'s Arg Number, a literal word unless it names an integer constant.
    ArgNumber,
    /// A composite's Members, which may refer forward outside NonSemantic.
    Members,
    /// A Linkage Name or Text: DebugInfoNone there becomes the OpString "".
    NameOrText,
    /// A DebugSource's Checksum Kind or Value (`.200`'s), checked by kind alone.
    Checksum,
    /// A function type's Return Type: llvm-spirv's DebugInfoNone for void.
    ReturnType,
    /// A function type's Parameter Types (as the sets after 0.99 spell it).
    ParameterTypes,
}

/// One operand of a layout, for the passes.
#[derive(Clone, Copy, Debug)]
pub(super) struct OperandRule {
    pub(super) encoding: OperandWords,
    pub(super) q: Q,
    /// The kinds of id its consumer takes.
    pub(super) allowed: KindSet,
    pub(super) role: Role,
}

/// The operand index `Tables::ids` gives the name of an enumerator pair (the value has the
/// pair's own index), and its rule.
pub(super) const PAIR_NAME: usize = usize::MAX;
pub(super) static PAIR_NAME_RULE: OperandRule = OperandRule {
    encoding: OperandWords::Pair,
    q: Q::Many,
    allowed: KindSet::of(&[Kind::String]),
    role: Role::Plain,
};

impl OperandRule {
    pub(super) fn new(f: Flavour, l: &Layout, o: &Operand) -> Self {
        let role = match OperandName(o.name) {
            operand::ARG_NUMBER => Role::ArgNumber,
            operand::MEMBERS => Role::Members,
            operand::LINKAGE_NAME | operand::TEXT => Role::NameOrText,
            operand::CHECKSUM_KIND | operand::CHECKSUM_VALUE => Role::Checksum,
            operand::RETURN_TYPE => Role::ReturnType,
            operand::PARAMETER_TYPES => Role::ParameterTypes,
            _ => Role::Plain,
        };
        OperandRule {
            encoding: o.w,
            q: o.q,
            allowed: kinds::allowed(f, l, o),
            role,
        }
    }
}
