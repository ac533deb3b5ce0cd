//! The debug-stripped normal form (defined in `super`): which instructions it keeps, and the word
//! offset each kept instruction has in it.

use std::collections::HashMap;
use std::sync::OnceLock;

use rspirv::grammar::{Instruction, OperandKind, OperandQuantifier, INSTRUCTION_TABLE};

use super::binary::{op, result_id, Insn, Module, SResult, SpirvError};
use crate::spec::spirv::Flavour;

/// A debug set a module imports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugImport {
    pub id: u32,
    pub name: String,
    pub flavour: Flavour,
}

/// Which instructions the normal form keeps, and where.
pub struct NormalForm {
    /// Per instruction of the module: its word offset in the normal form, or `None` if removed.
    pub offsets: Vec<Option<u32>>,
    /// The debug sets the module imports, in import order.
    pub imports: Vec<DebugImport>,
    /// Words the normal form has (header included).
    pub len: usize,
    /// Words at or above the bound that kept instructions may use as ids (an unknown opcode's
    /// operands, an unknown set's literals…), sorted. A writer allocating its new ids from the
    /// bound skips them: one of them defined by a removable instruction would count as used and
    /// keep that instruction in the output's normal form.
    pub taken: Vec<u32>,
}

const NON_SEMANTIC_EXTENSION: &str = "SPV_KHR_non_semantic_info";

/// The debug flavour of an import name, including llvm-spirv's `SPIRV.debug`.
pub fn debug_flavour(name: &str) -> Option<Flavour> {
    Flavour::from_import_name(name)
}

impl NormalForm {
    pub fn compute(m: &Module<'_>) -> SResult<NormalForm> {
        let n = m.insns.len();
        let mut removed = vec![false; n];
        let mut imports = Vec::new();

        // 1–2: debug imports, their instructions, OpLine/OpNoLine.
        for (i, insn) in m.insns.iter().enumerate() {
            if insn.opcode() == op::EXT_INST_IMPORT {
                let (name, _) = insn.string(1)?;
                if let Some(flavour) = debug_flavour(&name) {
                    imports.push(DebugImport {
                        id: m.check_id(insn, insn.operand(0)?)?,
                        name,
                        flavour,
                    });
                    removed[i] = true;
                }
            }
        }
        for (i, insn) in m.insns.iter().enumerate() {
            match insn.opcode() {
                op::LINE | op::NO_LINE => removed[i] = true,
                op::EXT_INST => {
                    let set = insn.operand(2)?;
                    if imports.iter().any(|d| d.id == set) {
                        removed[i] = true;
                    }
                }
                _ => {}
            }
        }

        // 4: strings, constants and scalar types no kept instruction uses.
        let mut candidates = IdIndex::new(m);
        let mut cands: Vec<Candidate> = Vec::new();
        for (i, insn) in m.insns.iter().enumerate() {
            if !removed[i] && is_candidate(insn.opcode()) {
                if let Some(id) = result_id(insn) {
                    let c = Candidate { index: i, live: 0 };
                    match candidates.get(id) {
                        // A later definition of the same id replaces the earlier one.
                        Some(k) => cands[k] = c,
                        None => {
                            candidates.insert(id, cands.len());
                            cands.push(c);
                        }
                    }
                }
            }
        }
        // The candidate ids each candidate instruction uses (only those can be removed below),
        // flattened: `uses_of[starts[k]..starts[k + 1]]` for the instruction of candidate `k`.
        let mut uses_at: Vec<Option<u32>> = vec![None; if cands.is_empty() { 0 } else { n }];
        let mut uses_of: Vec<u32> = Vec::new();
        let mut starts: Vec<u32> = Vec::new();
        // The same walk checks that every id the grammar names is below the bound: a writer
        // allocates new ids from the bound, and a module that already uses one of those would
        // have two definitions of it.
        let mut out_of_bound = None;
        let mut twice = None;
        let mut taken = Vec::new();
        let mut defined = IdSet::new(m);
        for (i, insn) in m.insns.iter().enumerate() {
            let keep = !cands.is_empty() && !removed[i] && is_candidate(insn.opcode());
            if keep {
                uses_at[i] = Some(starts.len() as u32);
                starts.push(uses_of.len() as u32);
            }
            let live = !removed[i];
            id_words(insn, |id, role| {
                if role == IdWord::Maybe && live && id >= m.bound {
                    taken.push(id);
                }
                if role != IdWord::Maybe && (id == 0 || id >= m.bound) && out_of_bound.is_none() {
                    out_of_bound = Some((insn.offset, id));
                }
                if role == IdWord::Result {
                    if !defined.insert(id) && twice.is_none() {
                        twice = Some((insn.offset, id));
                    }
                    return;
                }
                if let Some(k) = candidates.get(id) {
                    let c = &mut cands[k];
                    if live {
                        c.live += 1;
                    }
                    if keep {
                        uses_of.push(id);
                    }
                }
            });
        }
        if let Some((offset, id)) = out_of_bound {
            return Err(SpirvError {
                offset,
                message: format!("id %{id} is outside the module's id bound {}", m.bound),
            });
        }
        if let Some((offset, id)) = twice {
            return Err(SpirvError {
                offset,
                message: format!("id %{id} is defined twice"),
            });
        }
        starts.push(uses_of.len() as u32);
        let mut work: Vec<u32> = Vec::new();
        candidates.for_each(|id, k| {
            let c = &cands[k];
            // Unused ones too: a writer that gives one a debug use would otherwise take it out
            // of the output's normal form and move every offset after it.
            if c.live == 0 {
                work.push(id);
            }
        });
        work.sort_unstable();
        while let Some(id) = work.pop() {
            let Some(k) = candidates.get(id) else {
                continue;
            };
            let index = cands[k].index;
            if removed[index] {
                continue;
            }
            removed[index] = true;
            let Some(u) = uses_at[index].take() else {
                continue;
            };
            let (from, to) = (starts[u as usize] as usize, starts[u as usize + 1] as usize);
            for &used in &uses_of[from..to] {
                if let Some(k) = candidates.get(used) {
                    let c = &mut cands[k];
                    c.live -= 1;
                    if c.live == 0 {
                        work.push(used);
                    }
                }
            }
        }

        // 3: the non-semantic extension, when no NonSemantic import is left.
        let non_semantic_left = m.insns.iter().enumerate().any(|(i, insn)| {
            !removed[i]
                && insn.opcode() == op::EXT_INST_IMPORT
                && insn
                    .string(1)
                    .is_ok_and(|(s, _)| s.starts_with("NonSemantic."))
        });
        if !non_semantic_left {
            for (i, insn) in m.insns.iter().enumerate() {
                if insn.opcode() == op::EXTENSION
                    && insn
                        .string(0)
                        .is_ok_and(|(s, _)| s == NON_SEMANTIC_EXTENSION)
                {
                    removed[i] = true;
                }
            }
        }

        let mut offsets = Vec::with_capacity(n);
        let mut at = 5usize;
        for (i, insn) in m.insns.iter().enumerate() {
            if removed[i] {
                offsets.push(None);
            } else {
                offsets.push(Some(at as u32));
                at += insn.words.len();
            }
        }
        taken.sort_unstable();
        taken.dedup();
        Ok(NormalForm {
            offsets,
            imports,
            len: at,
            taken,
        })
    }

    /// The normal form as a parsed module, without copying its words: the kept instructions of
    /// `m` with their normal-form offsets (what `Module::parse` of `words(m)` gives, but for
    /// `words`, which stays `m`'s: the header is the same).
    pub fn into_view<'a>(&self, mut m: Module<'a>) -> Module<'a> {
        let mut offsets = self.offsets.iter();
        m.insns
            .retain_mut(|insn| match offsets.next().copied().flatten() {
                Some(o) => {
                    insn.offset = o as usize;
                    true
                }
                None => false,
            });
        m.taken.clone_from(&self.taken);
        m
    }

    /// The words of the normal form.
    pub fn words(&self, m: &Module<'_>) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len);
        out.extend_from_slice(&m.words[..5]);
        for (insn, off) in m.insns.iter().zip(&self.offsets) {
            if off.is_some() {
                out.extend_from_slice(insn.words);
            }
        }
        out
    }

    /// The flavour of a debug set id, if it is one of the module's debug imports.
    pub fn import(&self, set: u32) -> Option<&DebugImport> {
        self.imports.iter().find(|d| d.id == set)
    }
}

struct Candidate {
    index: usize,
    live: u32,
}

/// Id → small index. Dense (a vector indexed by id) when the module's id bound is no larger than
/// its word count, so a forged bound never sizes an allocation; a hash map otherwise.
enum IdIndex {
    /// Slot per id, and one bit per id saying whether its slot is set (a compact first test: most
    /// ids asked about are not candidates, and the bits stay in cache where the slots do not).
    Dense(Vec<u32>, Vec<u64>),
    Sparse(HashMap<u32, usize>),
}

impl IdIndex {
    const NONE: u32 = u32::MAX;

    fn new(m: &Module<'_>) -> IdIndex {
        let bound = m.bound as usize;
        if bound <= m.words.len() {
            IdIndex::Dense(vec![Self::NONE; bound], vec![0; bound.div_ceil(64)])
        } else {
            IdIndex::Sparse(HashMap::new())
        }
    }

    fn get(&self, id: u32) -> Option<usize> {
        match self {
            IdIndex::Dense(v, bits) => {
                let set = bits
                    .get(id as usize / 64)
                    .is_some_and(|b| b & (1 << (id % 64)) != 0);
                if !set {
                    return None;
                }
                match v.get(id as usize) {
                    Some(&k) if k != Self::NONE => Some(k as usize),
                    _ => None,
                }
            }
            IdIndex::Sparse(h) => h.get(&id).copied(),
        }
    }

    fn insert(&mut self, id: u32, k: usize) {
        match self {
            IdIndex::Dense(v, bits) => match v.get_mut(id as usize) {
                Some(slot) => {
                    *slot = k as u32;
                    bits[id as usize / 64] |= 1 << (id % 64);
                }
                // An id at or beyond the bound: keep it, in a map like a sparse index would.
                None => {
                    let mut h: HashMap<u32, usize> = v
                        .iter()
                        .enumerate()
                        .filter(|(_, k)| **k != Self::NONE)
                        .map(|(id, k)| (id as u32, *k as usize))
                        .collect();
                    h.insert(id, k);
                    *self = IdIndex::Sparse(h);
                }
            },
            IdIndex::Sparse(h) => {
                h.insert(id, k);
            }
        }
    }

    /// Every (id, index) pair, in no particular order.
    fn for_each(&self, mut f: impl FnMut(u32, usize)) {
        match self {
            IdIndex::Dense(v, _) => {
                for (id, &k) in v.iter().enumerate() {
                    if k != Self::NONE {
                        f(id as u32, k as usize);
                    }
                }
            }
            IdIndex::Sparse(h) => h.iter().for_each(|(id, k)| f(*id, *k)),
        }
    }
}

/// A set of ids: one bit per id below both the module's bound and its word count (so a forged
/// bound never sizes it), a hash set for any other.
pub struct IdSet {
    bits: Vec<u64>,
    cap: u32,
    other: rustc_hash::FxHashSet<u32>,
}

impl IdSet {
    pub fn new(m: &Module<'_>) -> IdSet {
        let cap = (m.bound as usize).min(m.words.len());
        IdSet {
            bits: vec![0; cap.div_ceil(64)],
            cap: cap as u32,
            other: Default::default(),
        }
    }

    /// Adds `id`; false when it was there already.
    pub fn insert(&mut self, id: u32) -> bool {
        if id < self.cap {
            let (w, b) = ((id / 64) as usize, 1u64 << (id % 64));
            let new = self.bits[w] & b == 0;
            self.bits[w] |= b;
            new
        } else {
            self.other.insert(id)
        }
    }

    pub fn contains(&self, id: &u32) -> bool {
        if *id < self.cap {
            self.bits[(*id / 64) as usize] & (1u64 << (*id % 64)) != 0
        } else {
            self.other.contains(id)
        }
    }
}

fn is_candidate(opcode: u16) -> bool {
    matches!(
        opcode,
        op::STRING
            | op::CONSTANT
            | op::CONSTANT_TRUE
            | op::CONSTANT_FALSE
            | op::CONSTANT_NULL
            | op::CONSTANT_COMPOSITE
            | op::TYPE_INT
            | op::TYPE_FLOAT
            | op::TYPE_BOOL
            | op::TYPE_VOID
    )
}

/// The core grammar, indexed by opcode.
pub(crate) fn grammar(opcode: u16) -> Option<&'static Instruction<'static>> {
    // Dense: one slot per opcode up to the grammar's largest (a few thousand).
    static TABLE: OnceLock<Vec<Option<&'static Instruction<'static>>>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let max = INSTRUCTION_TABLE
                .iter()
                .map(|i| u32::from(i.opcode) as u16)
                .max()
                .unwrap_or(0);
            let mut table = vec![None; usize::from(max) + 1];
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

/// Where an opcode's operand words hold ids, for a quick check of every instruction of a module
/// (`back::spirv::own_set`); what [`id_words`] reports, table-driven where the grammar allows.
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
        let max = INSTRUCTION_TABLE
            .iter()
            .map(|i| u32::from(i.opcode) as u16)
            .max()
            .unwrap_or(0);
        (0..=max)
            .map(|op| match grammar(op) {
                Some(g) if op != op::EXT_INST => simple_layout(g),
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
    if insn.opcode() == op::EXT_INST && words.len() >= 4 {
        // What the grammar's walk below gives OpExtInst (most of a module with debug info):
        // result type, result id, set, instruction number, then ids (of most sets; a literal
        // operand of a set is reported as a possible id).
        f(words[0], IdWord::Use);
        f(words[1], IdWord::Result);
        f(words[2], IdWord::Use);
        words[4..].iter().map(maybe).for_each(|(w, r)| f(w, r));
        return;
    }
    let Some(g) = grammar(insn.opcode()) else {
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
