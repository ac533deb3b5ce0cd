//! The core instruction grammar (rspirv's tables) as the word layer asks it: where an instruction
//! holds its result id, and which of its words are or may be ids.

use rspirv::spirv::Op;
use std::sync::OnceLock;

use rspirv::grammar::{Instruction, OperandKind, OperandQuantifier, INSTRUCTION_TABLE};

use super::binary::Insn;

/// The largest opcode of the core grammar.
fn max_opcode() -> u16 {
    INSTRUCTION_TABLE
        .iter()
        .map(|i| u32::from(i.opcode) as u16)
        .max()
        .unwrap_or(0)
}

/// The opcode as rspirv names it; `None` for one the core grammar does not know. Through a
/// table: `Op::from_u32` is a range match rspirv does not inline, a call for every instruction
/// on the paths that walk a whole module (it cost the in-place rewrite a sixth of its time).
#[inline]
pub fn op(opcode: u16) -> Option<Op> {
    static TABLE: OnceLock<Vec<Option<Op>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| (0..=u32::from(max_opcode())).map(Op::from_u32).collect());
    match table.get(usize::from(opcode)) {
        Some(&op) => op,
        None => Op::from_u32(u32::from(opcode)),
    }
}

/// The fewest words an instruction of `opcode` has by the core grammar: its opcode word and one
/// per operand it must have (1 for an opcode the grammar does not know).
pub fn least_words(opcode: u16) -> usize {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=max_opcode())
            .map(|op| {
                let required = instruction(op).map_or(0, |g| {
                    let one = |o: &&rspirv::grammar::LogicalOperand| {
                        o.quantifier == OperandQuantifier::One
                    };
                    g.operands.iter().filter(one).count()
                });
                1 + required.min(254) as u8
            })
            .collect()
    });
    table
        .get(usize::from(opcode))
        .map_or(1, |&n| usize::from(n))
}

/// The core grammar's entry of an opcode.
pub fn instruction(opcode: u16) -> Option<&'static Instruction<'static>> {
    // Dense: one slot per opcode up to the grammar's largest (a few thousand).
    static TABLE: OnceLock<Vec<Option<&'static Instruction<'static>>>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut table = vec![None; usize::from(max_opcode()) + 1];
            for i in INSTRUCTION_TABLE.iter() {
                let slot = &mut table[usize::from(u32::from(i.opcode) as u16)];
                // As collecting into a map did: the last entry of an opcode wins.
                *slot = Some(i);
            }
            table
        })
        .get(usize::from(opcode))
        .copied()
        .flatten()
}

/// The word of an instruction with this opcode that holds its result id: 0 none (or an opcode
/// unknown to the grammar), 1 (result id first), 2 (result type, then result id).
#[inline]
pub fn result_word(opcode: u16) -> usize {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = vec![0u8; usize::from(max_opcode()) + 1];
        for i in INSTRUCTION_TABLE.iter() {
            let kinds: Vec<OperandKind> = i.operands.iter().take(2).map(|o| o.kind).collect();
            let at = match kinds.as_slice() {
                [OperandKind::IdResult, ..] => 1,
                [OperandKind::IdResultType, OperandKind::IdResult] => 2,
                _ => 0,
            };
            table[usize::from(u32::from(i.opcode) as u16)] = at;
        }
        table
    });
    usize::from(table.get(usize::from(opcode)).copied().unwrap_or(0))
}

/// The result id of an instruction given as its words, per the core grammar; `None` for opcodes
/// without one or unknown to the grammar, and for an instruction too short to hold it.
pub fn result_id(words: &[u32]) -> Option<u32> {
    let opcode = *words.first()? as u16;
    match result_word(opcode) {
        0 => None,
        at => words.get(at).copied(),
    }
}

/// Whether an opcode ends a block.
pub fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Kill
            | Op::Return
            | Op::ReturnValue
            | Op::Unreachable
            | Op::TerminateInvocation
    )
}

impl Insn<'_> {
    /// The opcode as rspirv names it; `None` for one the core grammar does not know.
    /// OpExtInstWithForwardRefsKHR (SPV_KHR_relaxed_extended_instruction) is an OpExtInst that
    /// may name ids defined later: the same instruction to every reader.
    pub fn op(&self) -> Option<Op> {
        match self.opcode() {
            super::binary::op::EXT_INST_WITH_FORWARD_REFS => Some(Op::ExtInst),
            n => op(n),
        }
    }
    /// The instruction's result id, per the core grammar ([`result_id`]).
    pub fn result_id(&self) -> Option<u32> {
        result_id(self.words)
    }
}

/// Where an opcode's operand words hold ids, for a quick check of every instruction of a module
/// (`spirv::own_set`); what [`id_words`] reports, table-driven where the grammar allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdLayout {
    /// `fixed` operand words (bit k of `uses`: word k is an id use; the result id is not), then
    /// the rest: all id uses (`rest_ids`), all literals (`rest_literals`), or else words beyond
    /// the grammar (possible ids).
    Simple { uses: u32, fixed: u8, rest: Rest },
    /// Only [`id_words`] can follow it.
    Complex,
}

/// What follows an `IdLayout::Simple`'s fixed operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// Id uses.
    Ids,
    /// Literals (a constant's value).
    Literals,
    /// Words beyond the grammar (possible ids).
    Beyond,
    /// An optional MemoryAccess: [`id_words`] decides, unless its mask has no id parameter.
    MemoryAccess,
    /// A Decoration: [`id_words`] decides, unless the decoration takes literals only.
    Decoration,
}

/// [`IdLayout`] per opcode (unknown opcodes are `Complex`).
pub fn id_layout(opcode: u16) -> IdLayout {
    static TABLE: OnceLock<Vec<IdLayout>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=max_opcode())
            .map(|op| match instruction(op) {
                Some(g) if op != Op::ExtInst as u16 => simple_layout(g),
                _ => IdLayout::Complex,
            })
            .collect()
    });
    table
        .get(usize::from(opcode))
        .copied()
        .unwrap_or(IdLayout::Complex)
}

/// The `Simple` layout of a grammar instruction, when it has one (as `id_words` walks it).
fn simple_layout(g: &Instruction<'_>) -> IdLayout {
    let (mut uses, mut fixed) = (0u32, 0u8);
    let last = g.operands.len().saturating_sub(1);
    for (k, o) in g.operands.iter().enumerate() {
        let id = matches!(
            o.kind,
            OperandKind::IdResultType
                | OperandKind::IdRef
                | OperandKind::IdMemorySemantics
                | OperandKind::IdScope
        );
        match o.kind {
            OperandKind::MemoryAccess | OperandKind::Decoration if k == last => {
                let rest = match o.kind {
                    OperandKind::MemoryAccess => Rest::MemoryAccess,
                    _ => Rest::Decoration,
                };
                return IdLayout::Simple { uses, fixed, rest };
            }
            OperandKind::LiteralString
            | OperandKind::PairIdRefLiteralInteger
            | OperandKind::PairIdRefIdRef
            | OperandKind::Decoration
            | OperandKind::MemoryAccess
            | OperandKind::ImageOperands
            | OperandKind::LoopControl
            | OperandKind::ExecutionMode
            | OperandKind::TensorAddressingOperands
            | OperandKind::TensorOperands
            | OperandKind::RawAccessChainOperands
            | OperandKind::PairLiteralIntegerIdRef => return IdLayout::Complex,
            // `id_words` stops there: the rest is the constant's value.
            OperandKind::LiteralContextDependentNumber => {
                return IdLayout::Simple {
                    uses,
                    fixed,
                    rest: Rest::Literals,
                }
            }
            _ => {}
        }
        match o.quantifier {
            OperandQuantifier::One if fixed < 32 => {
                if id {
                    uses |= 1 << fixed;
                }
                fixed += 1;
            }
            // At most one, as `id_words` reads it: a fixed position that may be missing; what
            // follows it is beyond the grammar.
            OperandQuantifier::ZeroOrOne if k == last && fixed < 32 => {
                if id {
                    uses |= 1 << fixed;
                }
                return IdLayout::Simple {
                    uses,
                    fixed: fixed + 1,
                    rest: Rest::Beyond,
                };
            }
            OperandQuantifier::ZeroOrMore if k == last => {
                let rest = match id {
                    true => Rest::Ids,
                    false => Rest::Literals,
                };
                return IdLayout::Simple { uses, fixed, rest };
            }
            _ => return IdLayout::Complex,
        }
    }
    IdLayout::Simple {
        uses,
        fixed,
        rest: Rest::Beyond,
    }
}

/// Calls `f` with every id an instruction uses (not the one it defines). Where the layout cannot
/// be followed exactly (an unknown opcode, an operand with parameters, a switch's literal pairs),
/// every remaining word counts as a possible use: that can only keep a string or constant in the
/// normal form, never remove one that is used.
pub fn id_operands(insn: &Insn<'_>, mut f: impl FnMut(u32)) {
    id_words(insn, |id, role| {
        if role != IdWord::Result {
            f(id)
        }
    })
}

/// What a word `id_words` reports is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdWord {
    /// The id the instruction defines.
    Result,
    /// An id operand, by the grammar.
    Use,
    /// A word that may be an id: the grammar's layout could not be followed exactly there.
    Maybe,
}

/// Calls `f` with every word of an instruction that is or may be an id (see [`IdWord`]).
pub fn id_words(insn: &Insn<'_>, mut f: impl FnMut(u32, IdWord)) {
    let words = insn.operands();
    let maybe = |w: &u32| (*w, IdWord::Maybe);
    if insn.opcode() == Op::ExtInst as u16 && words.len() >= 4 {
        // What the grammar's walk below gives OpExtInst (most of a module with debug info):
        // result type, result id, set, instruction number, then ids (of most sets; a literal
        // operand of a set is reported as a possible id).
        f(words[0], IdWord::Use);
        f(words[1], IdWord::Result);
        f(words[2], IdWord::Use);
        words[4..].iter().map(maybe).for_each(|(w, r)| f(w, r));
        return;
    }
    let Some(g) = instruction(insn.opcode()) else {
        words.iter().map(maybe).for_each(|(w, r)| f(w, r));
        return;
    };
    let mut i = 0;
    for operand in g.operands {
        let repeat = operand.quantifier == OperandQuantifier::ZeroOrMore;
        loop {
            if i >= words.len() {
                return;
            }
            match operand.kind {
                OperandKind::IdResult => {
                    f(words[i], IdWord::Result);
                    i += 1
                }
                OperandKind::IdResultType
                | OperandKind::IdRef
                | OperandKind::IdMemorySemantics
                | OperandKind::IdScope => {
                    f(words[i], IdWord::Use);
                    i += 1;
                }
                OperandKind::LiteralString => {
                    while i < words.len() {
                        let w = words[i];
                        i += 1;
                        if w.to_le_bytes().contains(&0) {
                            break;
                        }
                    }
                }
                OperandKind::LiteralContextDependentNumber => return,
                OperandKind::LiteralInteger
                | OperandKind::LiteralFloat
                | OperandKind::LiteralExtInstInteger
                | OperandKind::LiteralSpecConstantOpInteger => i += 1,
                OperandKind::PairIdRefLiteralInteger => {
                    f(words[i], IdWord::Use);
                    i += 2;
                }
                OperandKind::PairIdRefIdRef => {
                    f(words[i], IdWord::Use);
                    if let Some(w) = words.get(i + 1) {
                        f(*w, IdWord::Use);
                    }
                    i += 2;
                }
                // The enumerant is no id (LinkageAttributes is 41, Aligned 2): only the
                // parameters may be, and for most decorations and memory operands they are not.
                OperandKind::Decoration => {
                    let rest = &words[i + 1..];
                    // UniformId, AlignmentId, MaxByteOffsetId, CounterBuffer take ids; the
                    // others take literals (and strings), unless the decoration is unknown.
                    match words[i] {
                        27 | 46 | 47 | 5634 => rest.iter().for_each(|w| f(*w, IdWord::Use)),
                        d if d < 5000 => {}
                        _ => rest.iter().map(maybe).for_each(|(w, r)| f(w, r)),
                    }
                    return;
                }
                OperandKind::MemoryAccess => {
                    let mask = words[i];
                    let mut j = i + 1;
                    for bit in 0..32 {
                        if mask & (1 << bit) == 0 {
                            continue;
                        }
                        match 1u32 << bit {
                            0x2 => j += 1, // Aligned: a literal
                            0x8 | 0x10 | 0x1_0000 | 0x2_0000 => {
                                if let Some(w) = words.get(j) {
                                    f(*w, IdWord::Use);
                                }
                                j += 1;
                            }
                            0x1 | 0x4 | 0x20 => {}
                            // A bit this table does not know: the rest is conservative.
                            _ => break,
                        }
                    }
                    // A second memory operand (OpCopyMemory), anything after, or what follows
                    // a bit this table does not know: conservative.
                    words
                        .get(j..)
                        .unwrap_or(&[])
                        .iter()
                        .map(maybe)
                        .for_each(|(w, r)| f(w, r));
                    return;
                }
                OperandKind::ImageOperands
                | OperandKind::LoopControl
                | OperandKind::ExecutionMode
                | OperandKind::TensorAddressingOperands
                | OperandKind::TensorOperands
                | OperandKind::RawAccessChainOperands
                | OperandKind::PairLiteralIntegerIdRef => {
                    // Operands with parameters (or of a width the type decides): be conservative.
                    words[i..].iter().map(maybe).for_each(|(w, r)| f(w, r));
                    return;
                }
                _ => i += 1, // a plain enumerant
            }
            if !repeat {
                break;
            }
        }
    }
    // Words beyond the grammar's layout (a newer revision): conservative.
    words
        .get(i..)
        .unwrap_or(&[])
        .iter()
        .map(maybe)
        .for_each(|(w, r)| f(w, r));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `id_layout` is a table of what `id_words` reports: for every opcode it calls Simple and
    /// every operand count up to a few past its fixed part, the id uses it names are the ones
    /// `id_words` reports (words numbered so that each position is its own value).
    #[test]
    fn id_layout_agrees_with_id_words() {
        let mut checked = 0;
        for g in INSTRUCTION_TABLE.iter() {
            let opcode = u32::from(g.opcode) as u16;
            let IdLayout::Simple { uses, fixed, rest } = id_layout(opcode) else {
                continue;
            };
            for n in 0..usize::from(fixed) + 4 {
                // Operand words 1000, 1001, …: distinct, and no literal pattern id_words stops at.
                let mut words = vec![(((n + 1) as u32) << 16) | u32::from(opcode)];
                words.extend((0..n as u32).map(|k| 1000 + k));
                let insn = Insn {
                    offset: 0,
                    words: &words,
                };
                let mut by_walk = Vec::new();
                id_words(&insn, |id, role| {
                    if role == IdWord::Use {
                        by_walk.push(id - 1000);
                    }
                });
                let mut by_table: Vec<u32> = (0..n.min(usize::from(fixed)) as u32)
                    .filter(|k| uses >> k & 1 == 1)
                    .collect();
                if rest == Rest::Ids {
                    by_table.extend(u32::from(fixed)..n as u32);
                }
                if matches!(rest, Rest::MemoryAccess | Rest::Decoration) {
                    // The table leaves those tails to id_words but for the fixed part.
                    by_walk.retain(|&k| k < u32::from(fixed));
                }
                assert_eq!(by_table, by_walk, "{} with {n} operands", g.opname);
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
