//! Location expressions: DWARF 5 operations, AMD's heterogeneous-debugging operations (seed 002),
//! LLVM DIExpression-only operations and SPIR-V DebugOperations, in one open operation space.
//!
//! Operation codes ([`OpCode`]) are numbered so that each meaning has one code whatever the
//! encoding it was read from:
//! - `0x00..=0xff`: the DWARF one-byte opcode (AMD ops in seed 002's raw 0xe1–0xec numbering;
//!   a reader of the newer `DW_OP_LLVM_user` encoding maps sub-opcodes onto these);
//! - `0x1000..`: LLVM's DIExpression-only ops, with LLVM's own numbers (`DW_OP_LLVM_fragment`…);
//! - `0xe900 + n`: a `DW_OP_LLVM_user` sub-opcode `n` with no raw equivalent;
//! - `0x1_0000 + n`: a SPIR-V DebugOperation `n` dwarv has no DWARF meaning for;
//! - [`OpCode::RAW`]: undecodable bytes kept as they were (the rest of a DWARF expression).
//!
//! The operand signature of every named code is a row of `spec::dwarf::OPS`.

use super::code::CodeRange;
use super::{Handle, Ref};

/// An instruction of a stack machine: a location-expression operation or a CFA instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Insn<C> {
    pub code: C,
    pub args: Vec<Arg>,
}

impl<C> Insn<C> {
    pub fn new(code: C, args: Vec<Arg>) -> Self {
        Insn { code, args }
    }
}

pub type Op = Insn<OpCode>;

/// An operand of an operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    Int(i128),
    Bytes(Vec<u8>),
    /// A type (typed-stack ops) or a DIE-like target (call ops, implicit pointers).
    Ref(Ref),
    /// An absent optional reference (`DW_OP_convert 0` = the generic type).
    None,
    /// A nested expression (entry values, CFA expressions).
    Ops(Vec<Op>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpCode(pub u32);

impl OpCode {
    pub const LLVM_BASE: u32 = 0x1000;
    pub const LLVM_USER_BASE: u32 = 0xe900;
    pub const SPIRV_BASE: u32 = 0x1_0000;
    pub const RAW: OpCode = OpCode(0x2_0000);
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Expr {
    pub ops: Vec<Op>,
}

/// Where a variable (or frame base, lane pc…) is: one expression, or a list over code ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    Expr(Handle<Expr>),
    List(Handle<LocList>),
}

impl Location {
    pub fn as_ref(self) -> Ref {
        match self {
            Location::Expr(h) => Ref::Expr(h),
            Location::List(h) => Ref::LocList(h),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LocList {
    pub entries: Vec<LocEntry>,
}

/// A location-list entry; `range: None` is the default entry (DW_LLE_default_location).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocEntry {
    pub range: Option<CodeRange>,
    pub expr: Handle<Expr>,
}
