//! Code positions and the tables anchored to them: line rows, scope runs and declare/value
//! events.
//!
//! A position is a SPIR-V word offset in the module's debug-stripped normal form (see
//! docs/code-positions.md), a machine address, or an LLVM instruction number; readers of one
//! module never mix kinds.

use super::{Expr, Variable};
use super::{Handle, InlinedAt, Loc, Ref, Scope, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodePos {
    /// Word offset of an instruction in the debug-stripped normal form. Printed `+1432`.
    Spirv(u32),
    /// A machine address (section-relative in relocatable objects). Printed `0x401000`.
    Addr(u64),
    /// An LLVM instruction: its number counting from 0 over every instruction of every defined
    /// function, in module order (basic blocks in layout order, llvm.dbg.* calls included).
    /// Printed `i12`.
    Llvm(u32),
}

/// A half-open range `[start, end)` of positions of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeRange {
    pub start: CodePos,
    pub end: CodePos,
}

impl CodeRange {
    /// Sorts ranges and merges the adjacent and overlapping ones: the set of positions they
    /// cover, in the one form every reader and writer gives it (a DWARF DIE's address ranges
    /// are such a set; how its producer split them carries nothing).
    pub fn normalize(r: &mut Vec<CodeRange>) {
        r.sort();
        let mut out: Vec<CodeRange> = Vec::with_capacity(r.len());
        for x in r.drain(..) {
            match out.last_mut() {
                Some(last) if x.start <= last.end => last.end = last.end.max(x.end),
                _ => out.push(x),
            }
        }
        *r = out;
    }

    /// The pieces [`Self::normalize`] gives, in the order of the first given range each piece
    /// holds: a debugger takes a DWARF scope's first range as its entry (gcc lists a function's
    /// hot part before its `.cold` part), so the order the producer gave is kept.
    pub fn normalize_in_order(r: &mut Vec<CodeRange>) {
        let given = r.clone();
        Self::normalize(r);
        if r.len() < 2 {
            return;
        }
        let mut first = vec![usize::MAX; r.len()];
        for (i, x) in given.iter().enumerate() {
            // The piece that holds x: the last one starting at or before it.
            let p = r
                .partition_point(|piece| piece.start <= x.start)
                .saturating_sub(1);
            first[p] = first[p].min(i);
        }
        let mut keyed: Vec<(usize, CodeRange)> = first.into_iter().zip(r.drain(..)).collect();
        keyed.sort_by_key(|k| k.0);
        r.extend(keyed.into_iter().map(|k| k.1));
    }
}

/// A line-table row: the code in `range` comes from `at` (to `end_line`:`end_column` when the
/// source gives a span, as NonSemantic DebugLine does).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LineRow {
    pub range: CodeRange,
    pub at: Loc,
    pub end_line: Option<u32>,
    pub end_column: Option<u32>,
    pub flags: LineFlags,
    pub isa: u32,
    pub discriminator: u32,
}

/// DWARF line-program row flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineFlags {
    pub is_stmt: bool,
    pub basic_block: bool,
    pub prologue_end: bool,
    pub epilogue_begin: bool,
}

/// The scope (a unit, function or block) of the code in `range`, inlined at `inlined`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScopeRun {
    pub range: CodeRange,
    pub scope: Ref,
    pub inlined: Option<Handle<InlinedAt>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// DebugDeclare / llvm.dbg.declare: the variable lives at the address of `values[0]`.
    Declare,
    /// DebugValue / llvm.dbg.value: from here on the variable's value is `values`.
    Value,
    /// llvm.dbg.addr.
    Addr,
}

/// A declare/value event at a code position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub kind: EventKind,
    pub pos: CodePos,
    pub var: Handle<Variable>,
    /// The operand(s): one, or several for a DIArgList (`DW_OP_LLVM_arg N` picks one).
    pub values: Vec<Value>,
    pub expr: Option<Handle<Expr>>,
    /// DebugValue Indexes (the value is a component of a composite).
    pub indexes: Vec<u32>,
    /// The scope and inlined-at of the event itself, when the source records them.
    pub scope: Option<Handle<Scope>>,
    pub inlined: Option<Handle<InlinedAt>>,
    pub at: Option<Loc>,
}
