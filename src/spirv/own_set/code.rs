//! The checks of the code (everything but the module-level debug instructions, which pass 2
//! checks as it writes them), run beside pass 2 on pass 1's tables; into the OpenCL.100 family
//! also the code's edits.

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;
use rspirv::spirv::{Decoration, MemoryAccess, Op};

use crate::spec::spirv::Flavour;
use crate::spirv::binary::{first_word, Insn};
use crate::spirv::grammar::{self, id_layout, id_words, IdLayout, IdWord, Rest};

use super::kinds::{Kind, IN_FUNCTION};
use super::tables::Tables;
use super::words::{Declined, Edit};

/// The memory operands that take no id: Volatile, Aligned (a literal), Nontemporal,
/// NonPrivatePointer.
const WITHOUT_IDS: MemoryAccess = MemoryAccess::VOLATILE
    .union(MemoryAccess::ALIGNED)
    .union(MemoryAccess::NONTEMPORAL)
    .union(MemoryAccess::NON_PRIVATE_POINTER);
/// The decorations that take ids (the others take literals, but for vendors' beyond
/// `id_words`' knowledge).
const ID_DECORATIONS: [u32; 4] = [
    Decoration::UniformId as u32,
    Decoration::AlignmentId as u32,
    Decoration::MaxByteOffsetId as u32,
    Decoration::CounterBuffer as u32,
];
const FIRST_VENDOR_DECORATION: u32 = 5000;

/// What the checks of the code found (besides a refusal).
pub(super) struct Checked {
    /// The words at or above the bound that the code may use as ids (`IdWord::Maybe`, as
    /// `NormalForm::taken` has them), sorted: new ids skip them, or the code would seem to use
    /// one of them (and an instruction defining it would count as code in the normal form).
    pub(super) taken: Vec<u32>,
    /// DebugLocalVariables in functions (word offsets): where references to dropped typedefs
    /// may be (NonSemantic declares local variables in the function).
    pub(super) local_variables: Vec<u32>,
    /// A DebugValue in a function whose value is an integer or boolean constant (the IR path
    /// writes such an event only into the module's own set).
    pub(super) constant_values: bool,
    /// The OpFunctions whose code holds debug instructions or lines (an OpLine before an
    /// OpFunction counts for it), each once.
    pub(super) described: Vec<u32>,
    /// Code between functions, a function without its end, an opcode the grammar does not know.
    pub(super) outside_functions: bool,
    /// A line or debug instruction right before an OpLabel, OpPhi, OpVariable or
    /// OpFunctionParameter in a function (where the IR path moves or drops it).
    pub(super) before_anchor: bool,
    /// A line or debug instruction right after an OpLoopMerge or OpSelectionMerge in a function,
    /// anchored at an instruction that is no merge (the IR path places it before the merge: only
    /// a branch stays with its merge; llvm-spirv-14's second OpLoopMerge keeps what precedes it).
    pub(super) after_merge: bool,
    /// A DebugDeclare/DebugValue of an id of the code defined after it or in another function
    /// (which the IR path leaves out of another set).
    pub(super) unusable_values: bool,
    /// Into the OpenCL.100 family (`Tables::into_literals`): the code's edits (DebugLines into
    /// OpLines, DebugFunctionDefinitions out), and how many DebugLines the reader takes for rows
    /// (each has an end, which an OpLine has not).
    pub(super) edits: Vec<Edit>,
    pub(super) ranged_rows: usize,
}

impl Tables<'_> {
    /// The checks of everything but the module-level debug instructions (which pass 2 checks
    /// as it writes them): the ids every code instruction uses, the result type of every debug
    /// instruction, every OpLine's file, the debug instructions in functions.
    pub(super) fn check_code(&self) -> Result<Checked, Declined> {
        let mut checked = Checked {
            taken: Vec::new(),
            local_variables: Vec::new(),
            constant_values: false,
            described: Vec::new(),
            outside_functions: false,
            before_anchor: false,
            after_merge: false,
            unusable_values: false,
            edits: Vec::new(),
            ranged_rows: 0,
        };
        // Into the OpenCL.100 family: a DebugLine the reader has not yet taken for a row.
        let mut open_line = false;
        let w = &self.words;
        let bound = w.at(3);
        // The function being walked (0: between functions), and whether lines wait for the next.
        let mut function = 0;
        let mut pending = false;
        let mut function_at = 0;
        // A line or debug instruction is the last thing before the walk's position.
        let mut after_debug = false;
        // The last code instruction before the walk's position is a merge instruction, and lines
        // or debug instructions follow it.
        let mut after_merge = false;
        let mut merge_run = false;
        let mut i = 5;
        while i < w.len {
            let (count, opcode) = w.head(i);
            let debug = opcode == Op::ExtInst as u16 && count >= 5 && w.at(i + 3) == self.set;
            if i >= self.section_end {
                let described = debug || opcode == Op::Line as u16 || opcode == Op::NoLine as u16;
                let anchor_only = matches!(
                    grammar::op(opcode),
                    Some(Op::Label | Op::Phi | Op::Variable | Op::FunctionParameter)
                );
                checked.before_anchor |= anchor_only && after_debug && function != 0;
                after_debug = described && function != 0;
                let merge = matches!(
                    grammar::op(opcode),
                    Some(Op::LoopMerge | Op::SelectionMerge)
                );
                if described {
                    merge_run |= after_merge;
                } else {
                    checked.after_merge |= merge_run && !merge;
                    merge_run = false;
                    after_merge = merge && function != 0;
                }
                match grammar::op(opcode) {
                    Some(Op::Function) if count >= 3 => {
                        // (A function without its OpFunctionEnd.)
                        checked.outside_functions |= function != 0;
                        function = w.at(i + 2);
                        function_at = i;
                        if std::mem::take(&mut pending) {
                            checked.described.push(function);
                        }
                    }
                    Some(Op::FunctionEnd) => function = 0,
                    // An opcode the grammar does not know: the reader skips it, the IR path's
                    // positions may not be the words path's.
                    None => checked.outside_functions = true,
                    _ if described && function == 0 => pending = true,
                    // (Which the reader takes, and the IR path places nothing in.)
                    _ if function == 0 => checked.outside_functions = true,
                    _ if described && checked.described.last() != Some(&function) => {
                        checked.described.push(function);
                    }
                    _ => {}
                }
            }
            if debug {
                // Its operands are checked by the set's layout; its result type here.
                if !(1..bound).contains(&w.at(i + 1)) {
                    return Err(Declined("an id out of bound in the code"));
                }
                if i >= self.section_end {
                    // The one in-function instruction that may name a (dropped) typedef.
                    let opcode = DebugOp::from_u32(w.at(i + 4));
                    if opcode == Some(DebugOp::DebugLocalVariable) {
                        checked.local_variables.push(i as u32);
                    }
                    let event = [Some(DebugOp::DebugDeclare), Some(DebugOp::DebugValue)];
                    if event.contains(&opcode) && count >= 7 {
                        let value = w.at(i + 6);
                        let k = self.kind_of(value);
                        let constant = matches!(k, Kind::Constant | Kind::ConstantU32);
                        checked.constant_values |= constant && opcode == event[1];
                        // (A debug instruction, DebugInfoNone, is no id of the code.)
                        let d = self.def.get(value as usize).map_or(0, |&d| d as usize);
                        let usable = d < self.section_end || (function_at < d && d < i);
                        checked.unusable_values |= !k.is_debug() && !usable;
                    }
                    self.check_in_function(i)?;
                    if self.into_literals {
                        if function == 0 {
                            return Err(Declined("a debug instruction between functions"));
                        }
                        open_line = match ShaderOp::from_u32(w.at(i + 4)) {
                            Some(ShaderOp::DebugLine) => true,
                            Some(ShaderOp::DebugNoLine) => false,
                            _ => open_line,
                        };
                        in_function(self, i, count, &mut checked.edits)?;
                    } else if self.flavour == Flavour::Shader200
                        && w.at(i + 4) == ShaderOp::DebugLine as u32
                        && self.kind_of(w.at(i + 5)) == Kind::String
                    {
                        // (SPIRV-LLVM-Translator's form; the other sets' want a DebugSource.)
                        return Err(Declined("a DebugLine of a file's OpString"));
                    }
                }
            } else {
                if self.into_literals && i >= self.section_end {
                    // The reader's rows: a line covers the code up to the next line, label or
                    // function end (a terminator is covered).
                    let ends = matches!(
                        grammar::op(opcode),
                        Some(Op::Line | Op::NoLine | Op::Label | Op::Function | Op::FunctionEnd)
                    );
                    checked.ranged_rows += usize::from(open_line && !ends);
                    open_line = false;
                }
                self.check_code_ids(i, count, opcode, &mut checked.taken)?;
                if opcode == Op::Line as u16
                    && (count != 4 || self.kind_of(w.at(i + 1)) != Kind::String)
                {
                    return Err(Declined("an OpLine without an OpString file"));
                }
            }
            i += count;
        }
        // (The last function without its end.)
        checked.outside_functions |= function != 0;
        checked.taken.sort_unstable();
        checked.taken.dedup();
        Ok(checked)
    }

    /// The ids a code instruction uses are below the bound (as the reader checks, by the
    /// grammar: `spirv::grammar::id_words`); the words that may be ids and are at or above the
    /// bound go into `taken` (the words `id_words` reports as `Maybe`, which the output's normal
    /// form counts as uses: new ids skip them).
    pub(super) fn check_code_ids(
        &self,
        at: usize,
        count: usize,
        opcode: u16,
        taken: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let bound = self.def.len() as u32;
        let out_of_bound = |id: u32| id == 0 || id >= bound;
        let mut maybe = |id: u32| {
            if id >= bound {
                taken.push(id);
            }
        };
        let operands = &self.words.words[at + 1..at + count];
        let mut walk = false;
        match id_layout(opcode) {
            IdLayout::Simple { uses, fixed, rest } => {
                let fixed = usize::from(fixed).min(operands.len());
                let mut bits = if fixed >= 32 {
                    uses
                } else {
                    uses & ((1 << fixed) - 1)
                };
                while bits != 0 {
                    if out_of_bound(operands[bits.trailing_zeros() as usize]) {
                        return Err(Declined("an id out of bound in the code"));
                    }
                    bits &= bits - 1;
                }
                let tail = &operands[fixed..];
                match rest {
                    Rest::Ids if tail.iter().any(|&id| out_of_bound(id)) => {
                        return Err(Declined("an id out of bound in the code"));
                    }
                    Rest::Ids | Rest::Literals => {}
                    Rest::Beyond => tail.iter().for_each(|&w| maybe(w)),
                    // Volatile, Aligned (a literal), Nontemporal, NonPrivatePointer: no id.
                    Rest::MemoryAccess => match tail.first() {
                        Some(m) if m & !WITHOUT_IDS.bits() != 0 => walk = true,
                        // The words after the mask and Aligned's literal are possible ids (a
                        // second memory operand), as `id_words` has them.
                        Some(m) => (tail.get(1 + (m >> 1 & 1) as usize..))
                            .unwrap_or(&[])
                            .iter()
                            .for_each(|&w| maybe(w)),
                        None => {}
                    },
                    // UniformId, AlignmentId, MaxByteOffsetId, CounterBuffer take ids; a
                    // decoration beyond those `id_words` knows may (the others take literals).
                    Rest::Decoration => {
                        walk = tail.first().is_some_and(|&d| {
                            ID_DECORATIONS.contains(&d) || d >= FIRST_VENDOR_DECORATION
                        });
                    }
                }
            }
            IdLayout::Complex => walk = true,
        }
        if walk {
            let mut bad = false;
            let insn = Insn {
                offset: at,
                words: &self.words.words[at..at + count],
            };
            id_words(&insn, |id, role| match role {
                IdWord::Use => bad |= out_of_bound(id),
                IdWord::Maybe => maybe(id),
                IdWord::Result => {}
            });
            if bad {
                return Err(Declined("an id out of bound in the code"));
            }
        }
        Ok(())
    }

    /// A debug instruction in a function: one the set allows there, its operand counts and
    /// kinds.
    pub(super) fn check_in_function(&self, at: usize) -> Result<(), Declined> {
        if !IN_FUNCTION.contains(Kind::debug(self.words.at(at + 4))) {
            return Err(Declined("a debug entity inside a function"));
        }
        let mut wrong = false;
        self.ids(at, |_, rule, i| {
            let id = self.words.at(i);
            wrong |= !rule.allowed.contains(self.kind_of(id));
        })?;
        match wrong {
            true => Err(Declined("an operand of a kind its consumer rejects")),
            false => Ok(()),
        }
    }
}

/// Into the OpenCL.100 family, the edit of the NonSemantic instruction at `i` in a function
/// (checked by `Tables::check_in_function`): a DebugFunctionDefinition goes (its DebugFunction
/// takes the function), a DebugLine becomes an `OpLine` of its start (its DebugSource's file),
/// a DebugNoLine an `OpNoLine`; the rest keep their words (ids in both sets), but for a
/// DebugDeclare's Indexes, which OpenCL.100 has not.
pub(super) fn in_function(
    t: &Tables<'_>,
    i: usize,
    count: usize,
    edits: &mut Vec<Edit>,
) -> Result<(), Declined> {
    let w = &t.words;
    let words = match ShaderOp::from_u32(w.at(i + 4)) {
        Some(ShaderOp::DebugFunctionDefinition) => Vec::new(),
        Some(ShaderOp::DebugLine) => {
            // DebugLine Source, Line Start, Line End, Column Start, Column End.
            let source = w.at(i + 5);
            let file = match t.def.get(source as usize) {
                Some(&at) if t.kind_of(source) == Kind::DebugSource => w.at(at as usize + 5),
                // (`.200` as SPIRV-LLVM-Translator writes it.)
                _ if t.flavour == Flavour::Shader200 && t.kind_of(source) == Kind::String => source,
                _ => 0,
            };
            let number = |k: usize| t.constant(w.at(i + k)).map(|v| v as u32);
            match (t.kind_of(file), number(6), number(8)) {
                (Kind::String, Some(line), Some(column)) => {
                    vec![first_word(4, Op::Line), file, line, column]
                }
                _ => return Err(Declined("a DebugLine of no DebugSource file or numbers")),
            }
        }
        Some(ShaderOp::DebugNoLine) => vec![first_word(1, Op::NoLine)],
        Some(ShaderOp::DebugDeclare) if count > 8 => {
            return Err(Declined(
                "a DebugDeclare's Indexes, which OpenCL.100 has not",
            ))
        }
        _ => return Ok(()),
    };
    edits.push(Edit {
        at: i,
        remove: count,
        words,
    });
    Ok(())
}
