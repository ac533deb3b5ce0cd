//! Pass 1 (`Tables::index`): every id of the module indexed; the checks of the code.

use crate::spec::spirv::{Flavour, Layout, OperandWords, LLVM_SPIRV14_LAYOUTS, Q};
use crate::spirv::grammar::{self, result_word};
use rspirv::spirv::{Capability, Decoration, Op};

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;

use super::kinds::Kind;
use super::operands::{OperandRule, PAIR_NAME, PAIR_NAME_RULE};
use super::words::{Declined, Words};

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
    pub(super) words: Words<'a>,
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
    /// The code is converted into the OpenCL.100 family (`code::in_function`): the checks of
    /// the code also write its edits.
    pub(super) into_literals: bool,
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
        let mut tables = Tables {
            words: w,
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
            if tables.strings_end == 0 && !op.is_some_and(|o| BEFORE_NAMES.contains(&o)) {
                tables.strings_end = i;
            }
            // The reader decodes these instructions' operands: too few of them, or a string that
            // runs past its instruction, is damage.
            let least = match op {
                Some(Op::ExtInstImport | Op::String) => 3,
                Some(Op::Constant | Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull) => 3,
                Some(Op::TypeInt | Op::ExtInst) => 4,
                Some(Op::TypeVoid | Op::TypeBool | Op::Source) => 2,
                // (Any other the reader may decode: what the grammar requires, a fuzz finding:
                // tests/regressions/spirv/fuzz_set_to_set_short_decoration.spv.)
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
            if opcode == Op::ExtInst as u16
                && tables.set != 0
                && w.at(i + 3) == tables.set
                && count < 5
            {
                return Err(Declined("a debug instruction without its opcode"));
            }
            match op {
                Some(Op::ExtInstImport) if count >= 3 => {
                    if let Some(f) = w
                        .string(i + 2, i + count)
                        .and_then(Flavour::from_import_name)
                    {
                        if tables.set != 0 {
                            return Err(Declined("more than one debug set"));
                        }
                        // (The reader would take the set's instructions before it too.)
                        if seen_ext_inst {
                            return Err(Declined("an OpExtInst before the debug import"));
                        }
                        if f != import {
                            return Err(Declined("another debug set than the one asked for"));
                        }
                        tables.set = w.at(i + 1);
                    }
                }
                Some(Op::ExtInst) => {
                    seen_ext_inst = true;
                    if tables.set != 0 && w.at(i + 3) == tables.set && tables.first_debug == w.len {
                        tables.first_debug = i;
                    }
                    if non_semantic && tables.set != 0 && w.at(i + 3) == tables.set {
                        tables.index_non_semantic(i, count);
                    }
                }
                Some(Op::Name) if count >= 3 => tables.names.push((w.at(i + 1), i as u32)),
                Some(Op::Decorate)
                    if count >= 4 && w.at(i + 2) == Decoration::LinkageAttributes as u32 =>
                {
                    tables.names.push((w.at(i + 1), i as u32));
                }
                Some(Op::Capability) if count >= 2 => {
                    tables.kernel |= w.at(i + 1) == Capability::Kernel as u32;
                    tables.generic |= w.at(i + 1) == Capability::GenericPointer as u32;
                }
                Some(Op::TypeInt) if (w.at(i + 2), w.at(i + 3), tables.uint32) == (32, 0, 0) => {
                    tables.uint32 = w.at(i + 1);
                }
                Some(Op::Function) => {
                    tables.functions += 1;
                    if tables.section_end == w.len {
                        tables.section_end = i;
                    }
                }
                Some(Op::FunctionEnd | Op::Label | Op::FunctionParameter)
                    if tables.section_end == w.len =>
                {
                    tables.misplaced = true;
                }
                Some(Op::TypeVoid) if count == 2 && tables.void == 0 => tables.void = w.at(i + 1),
                Some(Op::TypeBool) if count == 2 && tables.bool_type == 0 => {
                    tables.bool_type = w.at(i + 1);
                }
                Some(Op::ConstantFalse)
                    if w.at(i + 1) == tables.bool_type
                        && tables.bool_type != 0
                        && tables.false_constant == 0 =>
                {
                    tables.false_constant = w.at(i + 2);
                }
                Some(Op::String) if count == 3 && w.at(i + 2) == 0 && tables.empty_string == 0 => {
                    tables.empty_string = w.at(i + 1);
                }
                _ => {}
            }
            let at = result_word(opcode);
            if at != 0 {
                let id = if at < count { w.at(i + at) } else { 0 };
                match tables.def.get_mut(id as usize) {
                    Some(d) if *d == 0 && id != 0 => *d = i as u32,
                    _ => return Err(Declined("an id out of bound or defined twice")),
                }
                tables.kind[id as usize] = match op {
                    Some(Op::String) => Kind::String,
                    Some(Op::ExtInst) if count >= 5 && w.at(i + 3) == tables.set => {
                        Kind::debug(w.at(i + 4))
                    }
                    Some(Op::Constant) => match tables.int_type(w.at(i + 1)) {
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
                if i >= tables.section_end {
                    tables.in_functions[id as usize / 64] |= 1 << (id % 64);
                }
            }
            i += count;
        }
        if tables.set == 0 {
            return Err(Declined("no debug set"));
        }
        tables.names.sort_unstable();
        tables.function_definitions.sort_unstable();
        tables.member_parents.sort_unstable();
        Ok(tables)
    }

    /// What the OpenCL.100 family takes from elsewhere in a NonSemantic module: the NonSemantic
    /// debug instruction at `i` (its count checked) indexed.
    fn index_non_semantic(&mut self, i: usize, count: usize) {
        let w = self.words;
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

    /// (width, signedness) of an OpTypeInt, (1, 0) of an OpTypeBool; `None` for other ids.
    pub(super) fn int_type(&self, id: u32) -> Option<(u32, u32)> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        let (count, opcode) = self.words.head(at);
        match (count, grammar::op(opcode)) {
            (4, Some(Op::TypeInt)) => Some((self.words.at(at + 2), self.words.at(at + 3))),
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

    /// The value of an integer OpConstant of at most 64 bits, if `id` is one.
    pub(super) fn constant(&self, id: u32) -> Option<u64> {
        let at = *self.def.get(id as usize).filter(|&&at| at != 0)? as usize;
        let (count, opcode) = self.words.head(at);
        match (grammar::op(opcode), count) {
            (Some(Op::Constant), 4) => Some(u64::from(self.words.at(at + 3))),
            (Some(Op::Constant), 5) => {
                Some(u64::from(self.words.at(at + 3)) | u64::from(self.words.at(at + 4)) << 32)
            }
            _ => None,
        }
    }

    /// Calls `f(operand index, its rule, word offset)` for every id word of the debug
    /// instruction at `at` (an enumerator pair's name with index `PAIR_NAME`); declines when its
    /// operand count does not fit its layout.
    // Inlined: it runs for every debug instruction, and its callers' closures are small.
    #[inline(always)]
    pub(super) fn ids(
        &self,
        at: usize,
        mut f: impl FnMut(usize, &OperandRule, usize),
    ) -> Result<(), Declined> {
        let (count, _) = self.words.head(at);
        let rules = (self.rules.get(self.words.at(at + 4) as usize))
            .and_then(Option::as_deref)
            .ok_or(Declined("a debug opcode the set does not define"))?;
        let (mut i, end) = (at + 5, at + count);
        let literal_numbers = self.flavour.literal_numbers();
        for (k, rule) in rules.iter().enumerate() {
            let width = if rule.encoding == OperandWords::Pair {
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
                    OperandWords::Id => f(k, rule, i),
                    OperandWords::Lit => {}
                    OperandWords::Pair => {
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
        let w = &self.words;
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
                let (at, (count, opcode)) = (at as usize, self.words.head(at as usize));
                let text = if opcode == Op::Name as u16 {
                    at + 2
                } else {
                    at + 3
                };
                self.words.string(text, at + count)
            })
    }

    /// An OpString's text, for the ledger.
    pub(super) fn name(&self, id: u32) -> String {
        match self.def.get(id as usize) {
            Some(&at) if at != 0 && self.words.head(at as usize).1 == Op::String as u16 => {
                let at = at as usize;
                let count = self.words.head(at).0;
                self.words
                    .string(at + 2, at + count)
                    .unwrap_or("")
                    .to_string()
            }
            _ => String::new(),
        }
    }
}
