//! The debug-stripped normal form (defined in `super`): which instructions it keeps, and the word
//! offset each kept instruction has in it.

use super::binary::{op, Module, SResult, SpirvError};
use super::grammar::{id_words, IdWord};
use crate::spec::spirv::Flavour;
use rspirv::spirv::Op;
use std::collections::HashMap;

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
/// `OpExtInstWithForwardRefsKHR`'s extension (the writer declares it: `back::spirv::module`).
pub(crate) const RELAXED_EXTENSION: &str = "SPV_KHR_relaxed_extended_instruction";

/// Instructions that name or decorate the id of their first operand.
const NAMES_AND_DECORATIONS: [Op; 7] = [
    Op::Name,
    Op::MemberName,
    Op::Decorate,
    Op::MemberDecorate,
    Op::DecorateString,
    Op::MemberDecorateString,
    Op::DecorateId,
];

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
            if insn.opcode() == Op::ExtInstImport as u16 {
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
        // Result ids of removed debug instructions, one bit per id below the bound.
        let mut debug_results = vec![0u64; (m.bound as usize).div_ceil(64)];
        let mut any_debug = false;
        let is_debug = |bits: &[u64], id: u32| {
            bits.get(id as usize / 64)
                .is_some_and(|w| w >> (id % 64) & 1 == 1)
        };
        for (i, insn) in m.insns.iter().enumerate() {
            match insn.op() {
                Some(Op::Line | Op::NoLine) => removed[i] = true,
                Some(Op::ExtInst) => {
                    let set = insn.operand(2)?;
                    if imports.iter().any(|d| d.id == set) {
                        removed[i] = true;
                        let id = insn.operand(1)? as usize;
                        if let Some(w) = debug_results.get_mut(id / 64) {
                            *w |= 1 << (id % 64);
                            any_debug = true;
                        }
                    }
                }
                _ => {}
            }
        }
        // 2b: names and decorations of those instructions (Slang names its debug variables).
        // They precede every type, constant and function.
        if any_debug {
            for (i, insn) in m.insns.iter().enumerate() {
                match insn.op() {
                    Some(op) if NAMES_AND_DECORATIONS.contains(&op) => {
                        removed[i] |= is_debug(&debug_results, insn.operand(0)?);
                    }
                    Some(Op::ExtInst | Op::Function | Op::Variable) => break,
                    _ if (Op::TypeVoid as u16..=Op::SpecConstantOp as u16)
                        .contains(&insn.opcode()) =>
                    {
                        break
                    }
                    _ => {}
                }
            }
        }

        // 4: strings, constants and scalar types no kept instruction uses.
        let mut candidates = IdIndex::new(m);
        let mut cands: Vec<Candidate> = Vec::new();
        for (i, insn) in m.insns.iter().enumerate() {
            if !removed[i] && is_candidate(insn.opcode()) {
                if let Some(id) = insn.result_id() {
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
        drop_non_semantic_extension(m, &mut removed);
        let (offsets, len) = offsets(m, &removed);
        taken.sort_unstable();
        taken.dedup();
        Ok(NormalForm {
            offsets,
            imports,
            len,
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

    /// [`super::code_id`] of the normal form, without copying its words.
    pub fn code_id(&self, m: &Module<'_>) -> String {
        let kept = m
            .insns
            .iter()
            .zip(&self.offsets)
            .filter(|(_, o)| o.is_some());
        super::code_id(std::iter::once(&m.words[..5]).chain(kept.map(|(i, _)| i.words)))
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

/// Step 3 of the normal form: `SPV_KHR_non_semantic_info` goes when no `NonSemantic.*` import is
/// left, `SPV_KHR_relaxed_extended_instruction` when no `OpExtInstWithForwardRefsKHR` is.
fn drop_non_semantic_extension(m: &Module<'_>, removed: &mut [bool]) {
    let (mut non_semantic_left, mut forward_refs_left) = (false, false);
    for (insn, _) in m.insns.iter().zip(removed.iter()).filter(|(_, r)| !**r) {
        non_semantic_left |= insn.opcode() == Op::ExtInstImport as u16
            && insn
                .string(1)
                .is_ok_and(|(s, _)| s.starts_with("NonSemantic."));
        forward_refs_left |= insn.opcode() == op::EXT_INST_WITH_FORWARD_REFS;
    }
    let unused = |s: &str| {
        (s == NON_SEMANTIC_EXTENSION && !non_semantic_left)
            || (s == RELAXED_EXTENSION && !forward_refs_left)
    };
    for (i, insn) in m.insns.iter().enumerate() {
        if insn.opcode() == Op::Extension as u16 && insn.string(0).is_ok_and(|(s, _)| unused(&s)) {
            removed[i] = true;
        }
    }
}

/// Each instruction's offset in the normal form (`None`: removed), and the form's length.
fn offsets(m: &Module<'_>, removed: &[bool]) -> (Vec<Option<u32>>, usize) {
    let mut offsets = Vec::with_capacity(m.insns.len());
    let mut at = 5usize;
    for (i, insn) in m.insns.iter().enumerate() {
        if removed[i] {
            offsets.push(None);
        } else {
            offsets.push(Some(at as u32));
            at += insn.words.len();
        }
    }
    (offsets, at)
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
        super::grammar::op(opcode),
        Some(
            Op::String
                | Op::Constant
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::ConstantNull
                | Op::ConstantComposite
                | Op::TypeInt
                | Op::TypeFloat
                | Op::TypeBool
                | Op::TypeVoid
        )
    )
}
