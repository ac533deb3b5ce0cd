//! The shape of a debug instruction's layout in one SPIR-V debug set: its operands, how each is
//! encoded and how often it occurs. The generated tables (`spirv_grammar.rs`) are built of these,
//! and `spirv.rs` chooses among them per set.

/// How an operand is encoded in a set's instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandWords {
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
    pub w: OperandWords,
    pub q: Q,
}

/// The layout of one debug instruction in one set.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub opcode: u32,
    pub name: &'static str,
    pub operands: &'static [Operand],
}
