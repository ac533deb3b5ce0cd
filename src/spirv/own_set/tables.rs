//! Pass 1 (`Tables::index`): every id of the module indexed; the checks of the code.

use crate::spec::spirv::{Flavour, Layout, LLVM_SPIRV14_LAYOUTS, Q, W as Encoding};
use crate::spirv::binary::Insn;
use crate::spirv::grammar::{self, id_layout, id_words, result_word, IdLayout, IdWord, Rest};
use rspirv::spirv::{Capability, Decoration, MemoryAccess, Op};

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use super::kinds::{Kind, IN_FUNCTION};
use super::operands::{OperandRule, PAIR_NAME, PAIR_NAME_RULE};
use super::words::{Declined, Words};

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

/// Opcodes of the layout's sections up to the strings and sources (an OpString goes after them).
pub(super) const BEFORE_NAMES: [Op; 13] = [
    Op::Nop,
    Op::SourceContinued,
    Op::Source,
    Op::SourceExtension,
    Op::String,
    Op::Extension,
    Op::ExtInstImport,
    Op::MemoryModel,
    Op::EntryPoint,
    Op::ExecutionMode,
    Op::Capability,
    Op::ExecutionModeId,
    Op::Line,
];

/// Pass 1's index of the module, read only from then on (pass 2 and the checks of the code run
/// side by side on it).
pub(super) struct Tables<'a> {
    pub(super) w: Words<'a>,
    pub(super) flavour: Flavour,
    /// The debug set's import id.
    pub(super) set: u32,
    pub(super) generator: u32,
    /// Per id: the word offset of the instruction defining it (0: none).
    pub(super) def: Vec<u32>,
    /// Per id: what defines it.
    pub(super) kind: Vec<Kind>,
    /// The ids defined in functions (a bit per id): nothing in the module-level section waits
    /// for them.
    pub(super) in_functions: Vec<u64>,
    /// Where the first function starts (the end of the module-level section).
    pub(super) section_end: usize,
    /// Layouts by opcode (dense).
    pub(super) layouts: Vec<Option<&'static Layout>>,
    /// Per opcode, per operand of its layout: what the passes ask of it.
    pub(super) rules: Vec<Option<Box<[OperandRule]>>>,
    /// The module's OpTypeVoid (0: none).
    pub(super) void: u32,
    /// The module's OpString "" (0: none).
    pub(super) empty_string: u32,
    /// Where the module's OpStrings and OpSources end (word offset).
    pub(super) strings_end: usize,
    /// The module's first OpTypeInt 32 0 (0: none).
    pub(super) uint32: u32,
    /// The module's OpTypeBool and its first OpConstantFalse (0: none).
    pub(super) bool_type: u32,
    pub(super) false_constant: u32,
    /// The module declares the Kernel capability, the GenericPointer capability.
    pub(super) kernel: bool,
    pub(super) generic: bool,
    /// An OpFunctionEnd, OpLabel or OpFunctionParameter before the first OpFunction.
    pub(super) misplaced: bool,
    /// (id, word offset) of every OpName and LinkageAttributes decoration, by id.
    pub(super) names: Vec<(u32, u32)>,
    /// Where the first instruction of the debug set is (word offset; the length if none).
    pub(super) first_debug: usize,
    /// NonSemantic only: (DebugFunction, OpFunction) of every DebugFunctionDefinition in the
    /// code, and (member, composite) of every DebugTypeComposite's Members, sorted (into the
    /// OpenCL.100 family, a DebugFunction's Function and a member's Parent); the first
    /// module-level DebugInfoNone (0: none).
    pub(super) function_definitions: Vec<(u32, u32)>,
    pub(super) member_parents: Vec<(u32, u32)>,
    pub(super) info_none: u32,
    /// How many OpFunctions the module has.
    pub(super) functions: usize,
    /// The code is converted into the OpenCL.100 family (`to_set::in_function`): the checks of
    /// the code also write its edits.
    pub(super) into_literals: bool,
}

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
    pub(super) edits: Vec<super::Edit>,
    pub(super) ranged_rows: usize,
}

impl<'a> Tables<'a> {
    /// Pass 1: every instruction's counts and result id, the debug import, the sections.
    /// The module's import must name `import`; it is read by the layouts and rules of
    /// `flavour` (the same set, or `OpenCL.DebugInfo.100` for `SPIRV.debug` into another set).
    pub(super) fn index(w: Words<'a>, flavour: Flavour, import: Flavour) -> Result<Self, Declined> {
        let bound = w.at(3) as usize;
        if bound > w.len + 1 {
            return Err(Declined("id bound beyond the module's length"));
        }
        // (`.200` numbers its own instructions from 200.)
        let mut layouts = vec![None; 256];
        let own_variants: &[Layout] = match flavour {
            // llvm-spirv-14's own variants, where it departs from the grammar.
            Flavour::SpirvDebug => &LLVM_SPIRV14_LAYOUTS,
            _ => &[],
        };
        for l in flavour.layouts().iter().chain(own_variants) {
            if let Some(slot) = layouts.get_mut(l.opcode as usize) {
                *slot = Some(l);
            }
        }
        let rules = layouts
            .iter()
            .map(|l| {
                l.map(|l| {
                    (l.operands.iter())
                        .map(|o| OperandRule::new(flavour, l, o))
                        .collect()
                })
            })
            .collect();
        let mut cx = Tables {
            w,
            flavour,
            rules,
            set: 0,
            generator: w.at(2),
            def: vec![0; bound],
            kind: vec![Kind::Undefined; bound],
            in_functions: vec![0; bound.div_ceil(64)],
            section_end: w.len,
            layouts,
            void: 0,
            empty_string: 0,
            strings_end: 0,
            uint32: 0,
            bool_type: 0,
            false_constant: 0,
            kernel: false,
            generic: false,
            misplaced: false,
            names: Vec::new(),
            first_debug: w.len,
            function_definitions: Vec::new(),
            member_parents: Vec::new(),
            info_none: 0,
            functions: 0,
            into_literals: false,
        };
        let non_semantic = flavour.non_semantic();
        let mut seen_ext_inst = false;
        let mut i = 5;
        while i < w.len {
            let (count, opcode) = w.head(i);
            if count == 0 || i + count > w.len {
                return Err(Declined("damaged word count"));
            }
            let op = grammar::op(opcode);
            if cx.strings_end == 0 && !op.is_some_and(|o| BEFORE_NAMES.contains(&o)) {
                cx.strings_end = i;
            }
            // The reader decodes these instructions' operands: too few of them, or a string that
            // runs past its instruction, is damage.
            let least = match op {
                Some(Op::ExtInstImport | Op::String) => 3,
                Some(Op::Constant | Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull) => 3,
                Some(Op::TypeInt | Op::ExtInst) => 4,
                Some(Op::TypeVoid | Op::TypeBool | Op::Source) => 2,
                // (Any other the reader may decode: what the grammar requires, a fuzz finding:
                // tests/spirv/fuzz_set_to_set_short_decoration.spv.)
                _ => grammar::least_words(opcode),
            };
            if count < least {
                return Err(Declined("an instruction without the operands it needs"));
            }
            if matches!(op, Some(Op::String | Op::ExtInstImport)) && !w.terminated(i + 2, i + count)
            {
                return Err(Declined("a string without its NUL"));
            }
            // Its ids may be defined later: an order the passes here do not keep.
            if opcode == Op::ExtInstWithForwardRefsKHR as u16 {
                return Err(Declined("an OpExtInstWithForwardRefsKHR"));
            }
            if opcode == Op::ExtInst as u16 && cx.set != 0 && w.at(i + 3) == cx.set && count < 5 {
                return Err(Declined("a debug instruction without its opcode"));
            }
            match op {
                Some(Op::ExtInstImport) if count >= 3 => {
                    if let Some(f) = w
                        .string(i + 2, i + count)
                        .and_then(Flavour::from_import_name)
                    {
                        if cx.set != 0 {
                            return Err(Declined("more than one debug set"));
                        }
                        // (The reader would take the set's instructions before it too.)
                        if seen_ext_inst {
                            return Err(Declined("an OpExtInst before the debug import"));
                        }
                        if f != import {
                            return Err(Declined("another debug set than the one asked for"));
                        }
                        cx.set = w.at(i + 1);
                    }
                }
                Some(Op::ExtInst) => {
                    seen_ext_inst = true;
                    if cx.set != 0 && w.at(i + 3) == cx.set && cx.first_debug == w.len {
                        cx.first_debug = i;
                    }
                    if non_semantic && cx.set != 0 && w.at(i + 3) == cx.set {
                        cx.index_non_semantic(i, count);
                    }
                }
                Some(Op::Name) if count >= 3 => cx.names.push((w.at(i + 1), i as u32)),
                Some(Op::Decorate)
                    if count >= 4 && w.at(i + 2) == Decoration::LinkageAttributes as u32 =>
                {
                    cx.names.push((w.at(i + 1), i as u32));
                }
                Some(Op::Capability) if count >= 2 => {
                    cx.kernel |= w.at(i + 1) == Capability::Kernel as u32;
                    cx.generic |= w.at(i + 1) == Capability::GenericPointer as u32;
                }
                Some(Op::TypeInt) if (w.at(i + 2), w.at(i + 3), cx.uint32) == (32, 0, 0) => {
                    cx.uint32 = w.at(i + 1);
                }
                Some(Op::Function) => {
                    cx.functions += 1;
                    if cx.section_end == w.len {
                        cx.section_end = i;
                    }
                }
                Some(Op::FunctionEnd | Op::Label | Op::FunctionParameter)
                    if cx.section_end == w.len =>
                {
                    cx.misplaced = true;
                }
                Some(Op::TypeVoid) if count == 2 && cx.void == 0 => cx.void = w.at(i + 1),
                Some(Op::TypeBool) if count == 2 && cx.bool_type == 0 => {
                    cx.bool_type = w.at(i + 1);
                }
                Some(Op::ConstantFalse)
                    if w.at(i + 1) == cx.bool_type
                        && cx.bool_type != 0
                        && cx.false_constant == 0 =>
                {
                    cx.false_constant = w.at(i + 2);
                }
                Some(Op::String) if count == 3 && w.at(i + 2) == 0 && cx.empty_string == 0 => {
                    cx.empty_string = w.at(i + 1);
                }
                _ => {}
            }
            let at = result_word(opcode);
            if at != 0 {
                let id = if at < count { w.at(i + at) } else { 0 };
                match cx.def.get_mut(id as usize) {
                    Some(d) if *d == 0 && id != 0 => *d = i as u32,
                    _ => return Err(Declined("an id out of bound or defined twice")),
                }
                cx.kind[id as usize] = match op {
                    Some(Op::String) => Kind::String,
                    Some(Op::ExtInst) if count >= 5 && w.at(i + 3) == cx.set => {
                        Kind::debug(w.at(i + 4))
                    }
                    Some(Op::Constant) => match cx.int_type(w.at(i + 1)) {
                        Some((32, 0)) if count == 4 => Kind::ConstantU32,
                        Some((width, _)) if count < 4 || (width > 32 && count < 5) => {
                            return Err(Declined("an integer constant without its value"))
                        }
                        Some(_) => Kind::Constant,
                        None => Kind::Code,
                    },
                    Some(Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull) => Kind::Constant,
                    Some(Op::TypeVoid) => Kind::Void,
                    Some(Op::Variable) => Kind::Variable,
                    Some(Op::FunctionParameter) => Kind::Parameter,
                    Some(Op::Function) => Kind::Function,
                    _ => Kind::Code,
                };
                if i >= cx.section_end {
                    cx.in_functions[id as usize / 64] |= 1 << (id % 64);
                }
            }
            i += count;
        }
        if cx.set == 0 {
            return Err(Declined("no debug set"));
        }
        cx.names.sort_unstable();
        cx.function_definitions.sort_unstable();
        cx.member_parents.sort_unstable();
        Ok(cx)
    }

    /// What the OpenCL.100 family takes from elsewhere in a NonSemantic module: the NonSemantic
    /// debug instruction at `i` (its count checked) indexed.
    fn index_non_semantic(&mut self, i: usize, count: usize) {
        let w = self.w;
        let module_level = self.section_end == w.len;
        match ShaderOp::from_u32(w.at(i + 4)) {
            // DebugFunctionDefinition Function Definition.
            Some(ShaderOp::DebugFunctionDefinition) if count == 7 && !module_level => {
                (self.function_definitions).push((w.at(i + 5), w.at(i + 6)));
            }
            // DebugTypeComposite Name Tag Source Line Column Parent Linkage Size Flags Members…
            Some(ShaderOp::DebugTypeComposite) if count > 14 && module_level => {
                let composite = w.at(i + 2);
                (self.member_parents)
                    .extend(w.words[i + 14..i + count].iter().map(|&m| (m, composite)));
            }
            Some(ShaderOp::DebugInfoNone) if module_level && self.info_none == 0 => {
                self.info_none = w.at(i + 2)
            }
            _ => {}
        }
    }

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
        let w = &self.w;
        let bound = w.at(3);
        // The function being walked (0: between functions), and whether lines wait for the next.
        let (mut function, mut pending, mut function_at) = (0, false, 0);
        // A line or debug instruction is the last thing before the walk's position.
        let mut after_debug = false;
        // The last code instruction before the walk's position is a merge instruction, and lines
        // or debug instructions follow it.
        let (mut after_merge, mut merge_run) = (false, false);
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
                        super::to_set::in_function(self, i, count, &mut checked.edits)?;
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
        let operands = &self.w.words[at + 1..at + count];
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
                words: &self.w.words[at..at + count],
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

    /// (width, signedness) of an OpTypeInt, (1, 0) of an OpTypeBool; `None` for other ids.
    pub(super) fn int_type(&self, id: u32) -> Option<(u32, u32)> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        let (count, opcode) = self.w.head(at);
        match (count, grammar::op(opcode)) {
            (4, Some(Op::TypeInt)) => Some((self.w.at(at + 2), self.w.at(at + 3))),
            (2, Some(Op::TypeBool)) => Some((1, 0)),
            _ => None,
        }
    }

    pub(super) fn kind_of(&self, id: u32) -> Kind {
        self.kind
            .get(id as usize)
            .copied()
            .unwrap_or(Kind::Undefined)
    }

    /// A debug instruction in a function: one the set allows there, its operand counts and
    /// kinds.
    pub(super) fn check_in_function(&self, at: usize) -> Result<(), Declined> {
        if !IN_FUNCTION.contains(Kind::debug(self.w.at(at + 4))) {
            return Err(Declined("a debug entity inside a function"));
        }
        let mut wrong = false;
        self.ids(at, |_, rule, i| {
            let id = self.w.at(i);
            wrong |= !rule.allowed.contains(self.kind_of(id));
        })?;
        match wrong {
            true => Err(Declined("an operand of a kind its consumer rejects")),
            false => Ok(()),
        }
    }

    /// The value of an integer OpConstant of at most 64 bits, if `id` is one.
    pub(super) fn constant(&self, id: u32) -> Option<u64> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        let (count, opcode) = self.w.head(at);
        match (grammar::op(opcode), count) {
            (Some(Op::Constant), 4) => Some(u64::from(self.w.at(at + 3))),
            (Some(Op::Constant), 5) => {
                Some(u64::from(self.w.at(at + 3)) | u64::from(self.w.at(at + 4)) << 32)
            }
            _ => None,
        }
    }

    /// Calls `f(operand index, its rule, word offset)` for every id word of the debug
    /// instruction at `at` (an enumerator pair's name with index `PAIR_NAME`); declines when its
    /// operand count does not fit its layout.
    pub(super) fn ids(
        &self,
        at: usize,
        mut f: impl FnMut(usize, &OperandRule, usize),
    ) -> Result<(), Declined> {
        let (count, _) = self.w.head(at);
        let rules = (self.rules.get(self.w.at(at + 4) as usize))
            .and_then(Option::as_deref)
            .ok_or(Declined("a debug opcode the set does not define"))?;
        let (mut i, end) = (at + 5, at + count);
        let literal_numbers = self.flavour.literal_numbers();
        for (k, rule) in rules.iter().enumerate() {
            let width = if rule.encoding == Encoding::Pair {
                2
            } else {
                1
            };
            let times = match rule.q {
                Q::One => 1,
                Q::Opt => usize::from(i < end),
                Q::Many => (end - i) / width,
            };
            if i + times * width > end {
                return Err(Declined("fewer operands than the layout has"));
            }
            for _ in 0..times {
                match rule.encoding {
                    Encoding::Id => f(k, rule, i),
                    Encoding::Lit => {}
                    Encoding::Pair => {
                        if !literal_numbers {
                            f(k, rule, i);
                        }
                        f(PAIR_NAME, &PAIR_NAME_RULE, i + 1);
                    }
                }
                i += width;
            }
        }
        if i != end {
            return Err(Declined("more operands than the layout has"));
        }
        Ok(())
    }

    /// Where a `DebugFunctionDefinition` of `function` goes: in its entry block, after its
    /// OpVariables (and the lines and debug instructions among them).
    pub(super) fn entry_insertion(&self, function: u32) -> Result<usize, Declined> {
        let w = &self.w;
        let mut i = self.def[function as usize] as usize;
        let mut entry = None;
        let mut after_variables = 0;
        while i < w.len {
            let (count, opcode) = w.head(i);
            match grammar::op(opcode) {
                Some(Op::Function | Op::FunctionParameter) if entry.is_none() => {}
                Some(Op::Label) if entry.is_none() => {
                    entry = Some(i);
                    after_variables = i + count;
                }
                Some(Op::Variable) if entry.is_some() => after_variables = i + count,
                Some(Op::Line | Op::NoLine) => {}
                Some(Op::ExtInst) if w.at(i + 3) == self.set => {}
                _ => break,
            }
            i += count;
        }
        match entry {
            Some(_) => Ok(after_variables),
            None => Err(Declined("a DebugFunction of a function without a body")),
        }
    }

    /// The names the module gives `id` (OpName, LinkageAttributes), as the IR writer reads them.
    pub(super) fn names_of(&self, id: u32) -> impl Iterator<Item = &'a str> + '_ {
        let from = self.names.partition_point(|&(n, _)| n < id);
        self.names[from..]
            .iter()
            .take_while(move |&&(n, _)| n == id)
            .filter_map(|&(_, at)| {
                let (at, (count, opcode)) = (at as usize, self.w.head(at as usize));
                let text = if opcode == Op::Name as u16 {
                    at + 2
                } else {
                    at + 3
                };
                self.w.string(text, at + count)
            })
    }

    /// An OpString's text, for the ledger.
    pub(super) fn name(&self, id: u32) -> String {
        match self.def.get(id as usize) {
            Some(&at) if at != 0 && self.w.head(at as usize).1 == Op::String as u16 => {
                let at = at as usize;
                let count = self.w.head(at).0;
                self.w.string(at + 2, at + count).unwrap_or("").to_string()
            }
            _ => String::new(),
        }
    }
}
