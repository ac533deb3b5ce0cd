//! Into another set on the words: the module-level debug instructions, as pass 2 writes them
//! (ordered and repaired in the module's own set), converted one by one into the other set's
//! layout; the import renamed (its id kept, so the code's debug instructions keep theirs); the
//! constants the other set's numbers need added; a `DebugFunctionDefinition` in each defined
//! function's entry block. Done from the `OpenCL.DebugInfo.100` layout (also under the name
//! `SPIRV.debug`) into `NonSemantic.Shader.DebugInfo.100`, whose consumers (spirv-val, the reader)
//! judge both sets by the same rules but for the differences this module handles; and from
//! `SPIRV.debug` into `OpenCL.DebugInfo.100`, read by the same layouts: the import renamed, the
//! own-set repairs of OpenCL.100 made, every instruction keeping its words (its literals checked
//! as for NonSemantic: the IR path writes them as they are), no definition added. And from
//! `NonSemantic.Shader.DebugInfo.100` into `OpenCL.DebugInfo.100` (`into_literals`): the numbers
//! OpenCL.100 takes as literals become their values, a member gets its Parent back (the
//! composite listing it, which it then waits for) and a DebugFunction its Function (the
//! OpFunction its DebugFunctionDefinition names, or DebugInfoNone), and the functions' code is
//! edited (`in_function`: DebugFunctionDefinitions go, DebugLines become OpLines, DebugNoLines
//! OpNoLines; the in-function instructions left are ids in both sets). And from all three into
//! `.200` (judged by SPIRV-LLVM-Translator): as into NonSemantic.100, with the Producer `""`,
//! a checksum in its operands, a DebugTypeSubrange per array count, an inlined call's Column 0,
//! a namespace's Inline Namespace false, typedefs of any type kept; and out of `.200` into
//! OpenCL.100 or NonSemantic.100 (`out_of_200`, `Source::Counts`: subranges into counts,
//! checksum operands into llvm-spirv's text, the translator's forms read). Anything else declines
//! (the IR path converts it): into `SPIRV.debug`, judged by llvm-spirv-14 alone (spirv-val does
//! not know the set), whose own forms the own-set rules decline rather than write.
//!
//! Per instruction, the other set's operands are taken by name from the module's: a literal
//! becomes a 32-bit unsigned `OpConstant` (one per value, the module's `OpTypeInt 32 0` or one
//! added), an id stays when its kind is one the other set's consumer takes there (a constant of
//! another integer type becomes the 32-bit one of its value); the operands NonSemantic has no
//! place for are DebugTypeMember's Parent (the composite lists its members) and DebugFunction's
//! Function (a `DebugFunctionDefinition` instead); DebugTypeBasic's Flags, which OpenCL.100 has
//! not, is 0. OpLine/OpNoLine stay: the IR path writes rows read from SPIR-V (which have no end)
//! as OpLines in every set.

use rspirv::spirv::Op;
use rustc_hash::FxHashMap as HashMap;

use crate::diag::LossKind;
use crate::spec::spirv::{
    from_set, to_set, Flavour, Layout, CHECKSUM_KINDS, COMPOSITE_TAGS, IMPORTS, Q, W,
};
use crate::spirv::binary::first_word;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use super::head::Head;
use super::kinds::{self, Kind, KindSet};
use super::operands::PAIR_NAME;
use super::tables::Tables;
use super::words::{string_words, words_of, Declined, Edit};

/// The opcodes of `DebugFunctionDefinition` (NonSemantic only), `DebugTypeSubrange` (`.200`
/// only).
const FUNCTION_DEFINITION: u32 = 101;
const DEBUG_TYPE_SUBRANGE: u32 = 201;
/// The NonSemantic opcodes of DebugBuildIdentifier (105), DebugStoragePath (106) and
/// DebugEntryPoint (107), and their names (ledger places).
const DEBUG_BUILD_IDENTIFIER: u32 = 105;
const DEBUG_ENTRY_POINT: u32 = 107;
const INFO_NAMES: [&str; 3] = [
    "DebugBuildIdentifier",
    "DebugStoragePath",
    "DebugEntryPoint",
];
/// DebugTypeArray's operand in the sets before `.200`, and the one it has in `.200`.
const COMPONENT_COUNTS: &str = "Component Counts";
const SUBRANGES: &str = "Subranges";
/// DebugInfoFlags' FlagFwdDecl.
const FLAG_FWD_DECL: u32 = 1 << 4;
/// The Version OpenCL.100's DebugCompilationUnit has (as the IR writer writes it).
const OPENCL100_VERSION: u32 = 65536;

/// Where one of the other set's operands comes from.
#[derive(Clone, Copy)]
enum Source {
    /// The module's operand of this index.
    Operand(usize),
    /// The number 0 (an operand the module's set has not).
    Zero,
    /// Into the OpenCL.100 family: a member's Parent (the composite listing it).
    Parent,
    /// Into the OpenCL.100 family: a DebugFunction's Function (the OpFunction its
    /// DebugFunctionDefinition names, or DebugInfoNone).
    Function,
    /// Into `.200`: an optional operand the module's set has not, left out.
    Absent,
    /// Into `.200`: DebugCompilationUnit's Producer, `""` (the translator's reader requires it).
    EmptyString,
    /// Into `.200`: the module's Component Counts (this operand index), each as a
    /// DebugTypeSubrange of its count added before the array.
    Subranges(usize),
    /// Out of `.200`: the Count of each of the module's Subranges (this operand index).
    Counts(usize),
}

/// How one debug instruction is converted.
struct Plan {
    layout: &'static Layout,
    /// Per operand of `layout`: its source, and the kinds of id its consumer takes.
    from: Vec<(Source, KindSet)>,
    /// Per operand of the module's layout: whether the other set carries it.
    carried: Vec<bool>,
}

/// The conversion into another set: its plans and what it adds to the module.
pub(super) struct Target {
    pub(super) to: Flavour,
    /// The other set has the module's layouts (`SPIRV.debug` into `OpenCL.DebugInfo.100`): the
    /// instructions keep their words, only checked as the IR path would write them.
    same_layouts: bool,
    /// NonSemantic into the OpenCL.100 family: numbers become literals.
    into_literals: bool,
    /// Out of `.200` (its DebugTypeSubranges go into the arrays' counts).
    from_200: bool,
    /// Whether the module's DebugBuildIdentifier is dwarv's link record (once worked out).
    link: Option<bool>,
    /// Per opcode of the module's set (dense).
    plans: Vec<Option<Plan>>,
    /// The module's `OpTypeInt 32 0` (0: none, one is added as `uint`).
    uint: u32,
    uint_added: bool,
    /// Into `.200`: the `OpConstantFalse` a namespace's Inline Namespace names (0: none yet), and
    /// the `OpTypeBool` added for it (0: the module's).
    false_constant: u32,
    bool_added: u32,
    /// The constants added: value → id (`small` for the values below its length, mostly lines
    /// and columns), and their instructions.
    small: Vec<u32>,
    constants: HashMap<u32, u32>,
    constant_words: Vec<u32>,
    /// Into the OpenCL.100 family: the (name, parent) of the composites written, forward
    /// declarations (`FlagFwdDecl`) and not.
    composites: [rustc_hash::FxHashSet<(String, u32)>; 2],
    /// Into the OpenCL.100 family: the module has an OpFunction no DebugFunctionDefinition names.
    unbound_functions: bool,
    /// Into the OpenCL.100 family: the DebugInfoNone added for the Function of DebugFunctions
    /// of no function (0: none; its words in `constant_words`).
    none: u32,
    /// Where the first debug instruction went in the head (the constants go before it).
    first_debug: Option<usize>,
    /// The names of the module's global OpVariables (once a DebugGlobalVariable of none asks).
    global_names: Option<rustc_hash::FxHashSet<String>>,
    /// (OpFunction, its DebugFunction, the id of its DebugFunctionDefinition).
    pub(super) definitions: Vec<[u32; 3]>,
    /// The instruction being converted (its words as pass 2 wrote them) and its operands' spans.
    scratch: Vec<u32>,
    spans: Vec<(usize, usize)>,
    /// Into `.200`: the DebugTypeSubranges of the array being converted, written before it.
    subranges: Vec<u32>,
}

impl Target {
    /// The conversion from the set `from` (the flavour the module's import names) into `to`,
    /// if this module does that direction.
    pub(super) fn new(from: Flavour, to: Flavour, t: &Tables<'_>) -> Result<Box<Target>, Declined> {
        Self::check_direction(from, to)?;
        let into_literals = from.non_semantic() && !to.non_semantic();
        let into_200 = to == Flavour::Shader200;
        let from_200 = from == Flavour::Shader200;
        let (dropped, default): (Operands, Operands) = match into_literals {
            true => (&DROPPED_INTO_LITERALS, &FROM_ELSEWHERE),
            false => (&DROPPED, &DEFAULT_ZERO),
        };
        let mut plans: Vec<Option<Plan>> = Vec::new();
        for l in t.flavour.layouts() {
            // (`SPIRV.debug`'s as llvm-spirv-14 writes it, as the IR writer does.)
            let not_converted = |op: &u32| {
                NOT_CONVERTED.contains(op)
                    || into_200 && NOT_INTO_200.contains(op)
                    || from_200 && *op == DEBUG_ENTRY_POINT
            };
            let Some(target) = to
                .layout_by_name(l.name)
                .filter(|_| !not_converted(&l.opcode))
            else {
                continue;
            };
            let position = |name: &str| l.operands.iter().position(|o| o.name == name);
            let mut from = Vec::new();
            for o in target.operands {
                let source = match position(o.name) {
                    Some(k) => Source::Operand(k),
                    None if into_200 && o.name == SUBRANGES => match position(COMPONENT_COUNTS) {
                        Some(k) => Source::Subranges(k),
                        None => break,
                    },
                    None if from_200 && o.name == COMPONENT_COUNTS => match position(SUBRANGES) {
                        Some(k) => Source::Counts(k),
                        None => break,
                    },
                    None if into_200 && o.name == "Producer" => Source::EmptyString,
                    None if into_200 && o.q == Q::Opt => Source::Absent,
                    None if !default.contains(&(l.opcode, o.name)) => break,
                    None if !into_literals => Source::Zero,
                    None if o.name == "Parent" => Source::Parent,
                    None => Source::Function,
                };
                from.push((source, kinds::allowed(to, target, o)));
            }
            if from.len() != target.operands.len() {
                continue;
            }
            let carried: Vec<bool> = l
                .operands
                .iter()
                .map(|o| {
                    let counts =
                        o.name == COMPONENT_COUNTS && into_200 || o.name == SUBRANGES && from_200;
                    target.operands.iter().any(|t| t.name == o.name) || counts
                })
                .collect();
            let dropped_ok = l
                .operands
                .iter()
                .zip(&carried)
                .all(|(o, &c)| c || dropped.contains(&(l.opcode, o.name)));
            if !dropped_ok {
                continue;
            }
            let at = l.opcode as usize;
            if plans.len() <= at {
                plans.resize_with(at + 1, || None);
            }
            plans[at] = Some(Plan {
                layout: target,
                from,
                carried,
            });
        }
        let uint = t.uint32;
        if t.void == 0 {
            return Err(Declined("no OpTypeVoid for the definitions"));
        }
        Ok(Box::new(Target {
            to,
            same_layouts: from == Flavour::SpirvDebug && to == Flavour::OpenCl100,
            into_literals,
            from_200,
            link: None,
            plans,
            uint,
            uint_added: false,
            false_constant: 0,
            bool_added: 0,
            none: 0,
            composites: Default::default(),
            unbound_functions: {
                let mut bound: Vec<u32> = t.function_definitions.iter().map(|d| d.1).collect();
                bound.sort_unstable();
                bound.dedup();
                t.functions > bound.len()
            },
            small: vec![0; 1 << 14],
            constants: HashMap::default(),
            constant_words: Vec::new(),
            first_debug: None,
            global_names: None,
            definitions: Vec::new(),
            scratch: Vec::new(),
            spans: Vec::new(),
            subranges: Vec::new(),
        }))
    }

    /// Declines the directions this module does not convert.
    pub(super) fn check_direction(from: Flavour, to: Flavour) -> Result<(), Declined> {
        match (from, to) {
            (Flavour::OpenCl100 | Flavour::SpirvDebug, Flavour::Shader100)
            | (Flavour::OpenCl100 | Flavour::SpirvDebug | Flavour::Shader100, Flavour::Shader200)
            | (Flavour::SpirvDebug | Flavour::Shader100 | Flavour::Shader200, Flavour::OpenCl100)
            | (Flavour::Shader200, Flavour::Shader100)
            | (Flavour::Shader100, Flavour::SpirvDebug) => Ok(()),
            _ => Err(Declined(
                "a conversion between these sets is not done on the words",
            )),
        }
    }

    /// Whether a composite's Members may refer forward in the other set.
    pub(super) fn forward_members(&self) -> bool {
        !self.to.non_semantic()
    }

    /// Into the OpenCL.100 family, the id a member (`id`, of `opcode`) waits for: the composite
    /// listing it, its Parent there (which may not refer forward; the composite's Members may).
    pub(super) fn parent_of(
        &self,
        t: &Tables<'_>,
        opcode: u32,
        id: u32,
    ) -> Result<Option<u32>, Declined> {
        if !self.into_literals || opcode != DebugOp::DebugTypeMember as u32 {
            return Ok(None);
        }
        match one_of(&t.member_parents, id) {
            Ok(Some(parent)) => Ok(Some(parent)),
            Ok(None) => Err(Declined("a member no composite lists")),
            Err(()) => Err(Declined("a member two composites list")),
        }
    }

    /// Whether the other set has operand `n` of the module's instruction `opcode`.
    pub(super) fn carries(&self, opcode: u32, n: usize) -> bool {
        match self.plans.get(opcode as usize) {
            Some(Some(plan)) => n == PAIR_NAME || plan.carried.get(n).copied().unwrap_or(true),
            _ => true,
        }
    }

    /// The id of the 32-bit unsigned constant `value` (added when new).
    fn constant(&mut self, head: &mut Head<'_>, value: u32) -> Result<u32, Declined> {
        let small = self
            .small
            .get(value as usize)
            .copied()
            .filter(|&id| id != 0);
        if let Some(id) = small.or_else(|| self.constants.get(&value).copied()) {
            return Ok(id);
        }
        if self.uint == 0 {
            self.uint = head.new_id()?;
            self.uint_added = true;
        }
        let id = head.new_id()?;
        match self.small.get_mut(value as usize) {
            Some(slot) => *slot = id,
            None => {
                self.constants.insert(value, id);
            }
        }
        self.constant_words
            .extend([first_word(4, Op::Constant), self.uint, id, value]);
        Ok(id)
    }

    /// Whether the module's DebugBuildIdentifier is dwarv's link record (the hash of its code,
    /// as the reader tells them apart); worked out once, when one is met.
    fn link_record(&mut self, head: &Head<'_>) -> Result<bool, Declined> {
        if let Some(link) = self.link {
            return Ok(link);
        }
        let module = crate::spirv::binary::Module::parse(head.tables.words.words)
            .map_err(|_| Declined("a module the code's hash cannot be taken of"))?;
        let normal = crate::spirv::normal::NormalForm::compute(&module)
            .map_err(|_| Declined("a module the code's hash cannot be taken of"))?;
        let hash = crate::spirv::build_id(&normal.words(&module));
        // (Build identifiers pass 2 has not checked yet may be short of their Identifier.)
        let link = (head.tables.def.iter().enumerate())
            .filter(|&(id, _)| head.tables.kind_of(id as u32) == Kind::DebugBuildIdentifier)
            .filter(|&(_, &at)| head.tables.words.head(at as usize).0 > 5)
            .any(|(_, &at)| head.tables.name(head.tables.words.at(at as usize + 5)) == hash);
        self.link = Some(link);
        Ok(link)
    }

    /// The id of a DebugInfoNone added before the first debug instruction.
    fn info_none(&mut self, head: &mut Head<'_>) -> Result<u32, Declined> {
        if self.none == 0 {
            self.none = head.new_id()?;
            (self.constant_words).extend([
                first_word(5, Op::ExtInst),
                head.tables.void,
                self.none,
                head.tables.set,
                DebugOp::DebugInfoNone as u32,
            ]);
        }
        Ok(self.none)
    }

    /// The id of an `OpConstantFalse`: the module's (written before), else one added before the
    /// first debug instruction (with an `OpTypeBool` if the module has none).
    fn false_constant(&mut self, head: &mut Head<'_>) -> Result<u32, Declined> {
        if self.false_constant != 0 {
            return Ok(self.false_constant);
        }
        let own = head.tables.false_constant;
        if own != 0 && head.done(own) {
            self.false_constant = own;
            return Ok(own);
        }
        let bool_type = match head.tables.bool_type {
            0 => {
                self.bool_added = head.new_id()?;
                self.bool_added
            }
            b if head.done(b) => b,
            _ => return Err(Declined("the module's OpTypeBool follows its debug info")),
        };
        self.false_constant = head.new_id()?;
        (self.constant_words).extend([
            first_word(3, Op::ConstantFalse),
            bool_type,
            self.false_constant,
        ]);
        Ok(self.false_constant)
    }

    /// An id operand the other set's consumer takes as it is, or a number as its 32-bit
    /// constant.
    fn id_operand(
        &mut self,
        head: &mut Head<'_>,
        id: u32,
        mask: &KindSet,
    ) -> Result<u32, Declined> {
        let kind = head.kind_of(id);
        if mask.contains(kind) {
            return Ok(id);
        }
        let takes_u32 = mask.contains(Kind::ConstantU32);
        match head.tables.constant(id) {
            // (A value both signed and unsigned types read alike.)
            Some(v) if takes_u32 && kind == Kind::Constant && v <= i32::MAX as u64 => {
                self.constant(head, v as u32)
            }
            _ => Err(Declined(
                "an operand of a kind the other set's consumer rejects",
            )),
        }
    }

    /// Into the OpenCL.100 family, the number an operand's constant holds (checked as the IR
    /// path would write it: a value both sets define).
    fn literal(&self, head: &Head<'_>, opcode: u32, name: &str, id: u32) -> Result<u32, Declined> {
        let value = match head.kind_of(id) {
            Kind::ConstantU32 => head.tables.constant(id).map(|v| v as u32),
            _ => None,
        };
        match value {
            Some(v)
                if known(head.tables, head.tables.flavour, opcode, name, v)
                    && known(head.tables, self.to, opcode, name, v) =>
            {
                Ok(v)
            }
            _ => Err(Declined("a number the IR path would not write as it is")),
        }
    }

    /// Converts the instruction pass 2 wrote at `out[start..]` into the other set.
    pub(super) fn convert(
        &mut self,
        head: &mut Head<'_>,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        // (A typedef the repairs dropped.)
        let Some(&opcode) = out.get(start + 4) else {
            return Ok(());
        };
        // Out of `.200`, a DebugTypeSubrange is in its arrays' counts (`Source::Counts`).
        if self.from_200 && opcode == DEBUG_TYPE_SUBRANGE {
            out.truncate(start);
            return Ok(());
        }
        // Into the OpenCL.100 family, what it has no place for and nothing names: ledgered as
        // the IR path ledgers it.
        if self.into_literals && (DEBUG_BUILD_IDENTIFIER..=DEBUG_ENTRY_POINT).contains(&opcode) {
            let message = match opcode {
                DEBUG_ENTRY_POINT => Some("entry point: the set has no DebugEntryPoint"),
                _ if self.link_record(head)? => (opcode == DEBUG_BUILD_IDENTIFIER)
                    .then_some("link records: the set has no DebugBuildIdentifier"),
                DEBUG_BUILD_IDENTIFIER => Some("build id: the set has no DebugBuildIdentifier"),
                _ => Some("storage path: the set has no DebugStoragePath"),
            };
            if let Some(message) = message {
                let place = format!(
                    "%{} ({})",
                    out[start + 2],
                    INFO_NAMES[(opcode - 105) as usize]
                );
                head.diagnostics.push(LossKind::Dropped, place, message);
            }
            out.truncate(start);
            return Ok(());
        }
        if self.same_layouts {
            self.scratch.clear();
            self.scratch.extend_from_slice(&out[start..]);
            let source = self.source_spans(head, opcode)?;
            for (o, &(a, b)) in source.operands.iter().zip(&self.spans) {
                if o.w == W::Lit
                    && !self.scratch[a..b]
                        .iter()
                        .all(|&v| known(head.tables, head.tables.flavour, opcode, o.name, v))
                {
                    return Err(Declined("a number the IR path would not write as it is"));
                }
            }
            return self.special(head, opcode, start, out);
        }
        let Some(plan) = self.plans.get_mut(opcode as usize).and_then(Option::take) else {
            return Err(Declined("an instruction the other set has no place for"));
        };
        let converted = self.convert_by(&plan, head, opcode, start, out);
        self.plans[opcode as usize] = Some(plan);
        converted?;
        self.special(head, opcode, start, out)?;
        out[start] = first_word(out.len() - start, Op::ExtInst);
        if !self.subranges.is_empty() {
            out.splice(start..start, self.subranges.drain(..));
        }
        Ok(())
    }

    /// `convert`'s operands, by `plan`.
    fn convert_by(
        &mut self,
        plan: &Plan,
        head: &mut Head<'_>,
        opcode: u32,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let layout = plan.layout;
        self.first_debug.get_or_insert(start);
        self.scratch.clear();
        self.scratch.extend_from_slice(&out[start..]);
        out.truncate(start + 5);
        let source = self.source_spans(head, opcode)?;
        for (k, (f, mask)) in plan.from.iter().enumerate() {
            let o = &layout.operands[k];
            match *f {
                Source::Zero => {
                    let zero = self.constant(head, 0)?;
                    out.push(zero);
                }
                Source::Absent => {}
                Source::EmptyString => out.push(head.empty_string()?),
                Source::Counts(s) => {
                    let (a, b) = self.spans[s];
                    for at in a..b {
                        let count = subrange_count(head, self.scratch[at])?;
                        let id = self.id_operand(head, count, mask)?;
                        out.push(id);
                    }
                }
                Source::Subranges(s) => {
                    let (a, b) = self.spans[s];
                    for at in a..b {
                        // (Pass 2 checked each count: a positive constant.)
                        let count = match source.operands[s].w {
                            W::Lit => Some(self.scratch[at]),
                            _ => head.tables.constant(self.scratch[at]).map(|v| v as u32),
                        };
                        let count = match count {
                            Some(n) if n > 0 && n <= i32::MAX as u32 => self.constant(head, n)?,
                            Some(0) => return Err(Declined(RUNTIME_SIZED)),
                            _ => return Err(Declined("an array count of 2^31 or more")),
                        };
                        let none = self.info_none(head)?;
                        let id = head.new_id()?;
                        // Lower Bound, Upper Bound, Count (the translator's order).
                        self.subranges.extend([
                            first_word(8, Op::ExtInst),
                            head.tables.void,
                            id,
                            head.tables.set,
                            DEBUG_TYPE_SUBRANGE,
                            none,
                            none,
                            count,
                        ]);
                        out.push(id);
                    }
                }
                Source::Parent => {
                    let id = self.scratch[2];
                    let parent = self.parent_of(head.tables, opcode, id)?;
                    out.extend(parent);
                }
                Source::Function => {
                    let debug = self.scratch[2];
                    let function = match one_of(&head.tables.function_definitions, debug) {
                        Ok(Some(function)) => {
                            self.definitions.push([function, debug, 0]);
                            function
                        }
                        Ok(None)
                            if head.tables.info_none != 0 && head.done(head.tables.info_none) =>
                        {
                            head.tables.info_none
                        }
                        // The IR path may bind it to a function no definition names (by its
                        // OpName, entry point or linkage name).
                        Ok(None) if self.unbound_functions => {
                            return Err(Declined(
                                "a DebugFunction without a definition, and a function without one",
                            ))
                        }
                        Ok(None) => self.info_none(head)?,
                        Err(()) => return Err(Declined("two definitions of one DebugFunction")),
                    };
                    out.push(function);
                }
                Source::Operand(s) => {
                    let (a, b) = self.spans[s];
                    let w = source.operands[s].w;
                    for at in (a..b).step_by(if w == W::Pair { 2 } else { 1 }) {
                        let word = self.scratch[at];
                        let value = match (w, o.w) {
                            (W::Id, _) if self.from_200 && o.name == "Arg Number" => {
                                // (`SectionWriter::emit`: a literal unless an integer constant's id.)
                                let number = match head.kind_of(word) {
                                    Kind::Constant | Kind::ConstantU32 => {
                                        head.tables.constant(word)
                                    }
                                    _ => Some(u64::from(word)),
                                };
                                let number = number.and_then(|n| u32::try_from(n).ok());
                                match (number, o.w) {
                                    (Some(n), W::Lit) => n,
                                    (Some(n), _) => self.constant(head, n)?,
                                    (None, _) => {
                                        return Err(Declined("an Arg Number past 32 bits"))
                                    }
                                }
                            }
                            (W::Id, W::Lit) => self.literal(head, opcode, o.name, word)?,
                            (W::Lit, W::Id)
                                if !known(
                                    head.tables,
                                    head.tables.flavour,
                                    opcode,
                                    o.name,
                                    word,
                                ) =>
                            {
                                return Err(Declined(
                                    "a number the IR path would not write as it is",
                                ))
                            }
                            (W::Lit, W::Id) => self.constant(head, word)?,
                            // `.200`'s basic type without Flags (as the translator writes it).
                            (W::Id, W::Id)
                                if self.from_200 && o.name == "Flags" && none(head, word) =>
                            {
                                self.constant(head, 0)?
                            }
                            // (Numbers `.200` holds that the other set does not define, e.g.
                            // the translator's storage class 0xFFFFFFFF.)
                            (W::Id, W::Id)
                                if self.from_200
                                    && head.tables.constant(word).is_some_and(|v| {
                                        !u32::try_from(v).is_ok_and(|v| {
                                            known(
                                                head.tables,
                                                head.tables.flavour,
                                                opcode,
                                                o.name,
                                                v,
                                            ) && known(head.tables, self.to, opcode, o.name, v)
                                        })
                                    }) =>
                            {
                                return Err(Declined(
                                    "a number the IR path would not write as it is",
                                ))
                            }
                            (W::Id, W::Id) => self.id_operand(head, word, mask)?,
                            // An enumerator's value: an integer constant's id, or a literal
                            // (as the reader takes it).
                            (W::Pair, W::Pair) => match head.kind_of(word) {
                                Kind::ConstantU32 | Kind::Constant => {
                                    self.id_operand(head, word, mask)?
                                }
                                _ => self.constant(head, word)?,
                            },
                            _ => {
                                return Err(Declined("an operand the other set encodes otherwise"))
                            }
                        };
                        out.push(value);
                        if w == W::Pair {
                            out.push(self.scratch[at + 1]);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The module's layout of `opcode`, and its operands' spans in `scratch` (pass 2 checked the
    /// counts).
    fn source_spans(&mut self, head: &Head<'_>, opcode: u32) -> Result<&'static Layout, Declined> {
        let source = (head.tables.layouts.get(opcode as usize).copied().flatten())
            .ok_or(Declined("a debug opcode the set does not define"))?;
        self.spans.clear();
        let (mut i, end) = (5, self.scratch.len());
        for o in source.operands {
            let width = if o.w == W::Pair { 2 } else { 1 };
            let times = match o.q {
                Q::One => 1,
                Q::Opt => usize::from(i < end),
                Q::Many => (end - i) / width,
            };
            self.spans.push((i, i + times * width));
            i += times * width;
        }
        Ok(source)
    }

    /// What the other set holds otherwise: a DebugSource's checksum (none in NonSemantic), a
    /// function's definition, an operation the set has not.
    fn special(
        &mut self,
        head: &mut Head<'_>,
        opcode: u32,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        if self.from_200 {
            self.out_of_200(head, opcode, start, out)?;
        }
        match DebugOp::from_u32(opcode) {
            // `.200`'s checksum operands (the text llvm-spirv-14 writes it in, alone, goes).
            Some(DebugOp::DebugSource)
                if out.len() == start + 7 && self.to == Flavour::Shader200 =>
            {
                let text = head.tables.name(out[start + 6]);
                match crate::front::spirv::split_checksum(&text) {
                    (None, _) => {}
                    (Some(c), None) => {
                        let kind = to_set(CHECKSUM_KINDS, c.kind)
                            .ok_or(Declined("a checksum of a kind .200 does not number"))?;
                        let hex: String = c.bytes.iter().map(|b| format!("{b:02x}")).collect();
                        out[start + 6] = self.constant(head, kind)?;
                        let value = head.add_string(&hex)?;
                        out.push(value);
                    }
                    (Some(_), Some(_)) => {
                        return Err(Declined("a DebugSource text after its checksum"))
                    }
                }
            }
            Some(DebugOp::DebugSource) if self.from_200 => {}
            Some(DebugOp::DebugSource) if out.len() == start + 7 && self.to.non_semantic() => {
                let text = head.tables.name(out[start + 6]);
                match crate::front::spirv::split_checksum(&text) {
                    (None, _) => {}
                    (Some(_), None) => {
                        out.truncate(start + 6);
                        let file = head.tables.name(out[start + 5]);
                        head.diagnostics.push(
                            LossKind::Dropped,
                            format!("%{} (DebugSource {file:?})", out[start + 2]),
                            "checksum: NonSemantic DebugSource has no checksum operand",
                        );
                    }
                    (Some(_), Some(_)) => {
                        return Err(Declined("a DebugSource text after its checksum"))
                    }
                }
            }
            // (Into the OpenCL.100 family: its Function from its definition, `Source::Function`.)
            Some(DebugOp::DebugFunction) if self.into_literals => {}
            // NonSemantic into NonSemantic: its definition is in the code already.
            Some(DebugOp::DebugFunction) if head.tables.flavour.non_semantic() => {
                let debug = out[start + 2];
                match one_of(&head.tables.function_definitions, debug) {
                    Ok(Some(function)) => self.definitions.push([function, debug, 0]),
                    Ok(None) => {}
                    Err(()) => return Err(Declined("two definitions of one DebugFunction")),
                }
            }
            Some(DebugOp::DebugFunction) => {
                // The Function operand, dropped from the words: in the module's words still.
                let function = self.scratch[5 + 9];
                if head.kind_of(function) == Kind::Function {
                    // (Into a set that keeps the Function operand, no definition is added.)
                    let definition = match self.to.non_semantic() {
                        true => head.new_id()?,
                        false => 0,
                    };
                    self.definitions
                        .push([function, out[start + 2], definition]);
                } else if head.kind_of(function) != Kind::DebugInfoNone {
                    return Err(Declined("a DebugFunction of no OpFunction"));
                }
            }
            Some(DebugOp::DebugGlobalVariable) => self.global(head)?,
            // A namespace's Inline Namespace: the translator's reader requires it.
            Some(DebugOp::DebugLexicalBlock)
                if self.to == Flavour::Shader200 && out.len() == start + 10 =>
            {
                let no = self.false_constant(head)?;
                out.push(no);
            }
            // The translator's reader asserts on an imported entity of none (the IR path leaves
            // it out).
            Some(DebugOp::DebugImportedEntity) if self.to == Flavour::Shader200 => {
                let entity = head.kind_of(out[start + 8]);
                if entity == Kind::DebugInfoNone || entity == Kind::Void {
                    return Err(Declined("an imported entity of none"));
                }
            }
            // The IR path writes a method as a DebugFunctionDeclaration among the members.
            Some(DebugOp::DebugTypeComposite) if self.to == Flavour::Shader200 => {
                let function = Kind::DebugFunction;
                if out[start + 14..]
                    .iter()
                    .any(|&m| head.kind_of(m) == function)
                {
                    return Err(Declined("a method among a composite's members"));
                }
            }
            // llvm-spirv-14 asserts on a DebugSource without its Text (the IR path writes "").
            Some(DebugOp::DebugSource)
                if self.into_literals && out.len() == start + 6 && !self.from_200 =>
            {
                let empty = head.empty_string()?;
                out.push(empty);
            }
            // NonSemantic's reader takes a forward declaration and a composite of its name and
            // parent for one type (its writer's way around the forward reference), OpenCL.100's
            // for two: either order declines.
            Some(DebugOp::DebugTypeComposite) if self.into_literals => {
                let key = (head.tables.name(out[start + 5]), out[start + 10]);
                let fwd = usize::from(out[start + 13] & FLAG_FWD_DECL != 0);
                if self.composites[1 - fwd].contains(&key) {
                    return Err(Declined(
                        "a forward declaration NonSemantic reads as one type with its composite",
                    ));
                }
                self.composites[fwd].insert(key);
            }
            Some(DebugOp::DebugCompilationUnit) if self.into_literals => {
                out[start + 5] = OPENCL100_VERSION;
            }
            // Flags, which OpenCL.100 has not.
            Some(DebugOp::DebugTypeBasic)
                if self.into_literals
                    && head.tables.constant(self.scratch[8]) != Some(0)
                    && !none(head, self.scratch[8]) =>
            {
                return Err(Declined("a basic type's Flags, which OpenCL.100 has not"));
            }
            // (A count of 2³¹ or more the reader may take for a signed one.)
            // (`.200`'s counts: checked in its subranges.)
            Some(DebugOp::DebugTypeArray) if self.from_200 => {}
            Some(DebugOp::DebugTypeArray) => {
                let big = |&c: &u32| {
                    head.tables
                        .constant(c)
                        .map_or(true, |n| n > i32::MAX as u64)
                };
                if self.scratch[6..].iter().any(big) {
                    return Err(Declined("an array count of 2^31 or more"));
                }
                let zero = |&c: &u32| head.tables.constant(c) == Some(0);
                let into_counts = self.into_literals || self.to == Flavour::Shader200;
                if into_counts && self.scratch[6..].iter().any(zero) {
                    return Err(Declined(RUNTIME_SIZED));
                }
                // (`SPIRV.debug`'s reader may take the second half for lower bounds.)
                if self.to == Flavour::SpirvDebug && (out.len() - start - 6) % 2 == 0 {
                    return Err(Declined("an array of an even number of dimensions"));
                }
            }
            Some(DebugOp::DebugOperation) => {
                let code = match (self.into_literals, head.tables.flavour.non_semantic()) {
                    (true, _) => out[start + 5],
                    (false, true) => head
                        .tables
                        .constant(self.scratch[5])
                        .map_or(u32::MAX, |v| v as u32),
                    (false, false) => self.scratch[5],
                };
                if from_set(self.to.operations(), code).is_none() {
                    return Err(Declined("a DebugOperation the other set has not"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Out of `.200`, what its own operands hold (in `scratch`): a producer (ledgered as the IR
    /// path ledgers it), a checksum (into llvm-spirv's text in OpenCL.100, ledgered into
    /// NonSemantic.100), a target function name, an inline namespace, an inlined call's column
    /// (declined: the IR path ledgers them otherwise).
    fn out_of_200(
        &mut self,
        head: &mut Head<'_>,
        opcode: u32,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let operands = &self.scratch[5..];
        let id = self.scratch[2];
        match DebugOp::from_u32(opcode) {
            // Version, DWARF Version, Source, Language, Producer.
            Some(DebugOp::DebugCompilationUnit)
                if operands.len() == 5 && !head.tables.name(operands[4]).is_empty() =>
            {
                head.diagnostics.push(
                    LossKind::Dropped,
                    format!("%{id} (DebugCompilationUnit)"),
                    "producer: the set has no operand for it",
                );
            }
            Some(DebugOp::DebugSource) => {
                // File [Checksum Kind, Checksum Value] [Text]; two operands are File, Text.
                let (kind, value, text) = match *operands {
                    [_] => (0, 0, None),
                    [_, text] => (0, 0, Some(text)),
                    [_, kind, value] => (kind, value, None),
                    [_, kind, value, text] => (kind, value, Some(text)),
                    _ => return Err(Declined("a DebugSource of other operands")),
                };
                let checksum = match (
                    none(head, kind) || kind == 0,
                    none(head, value) || value == 0,
                ) {
                    (true, true) => None,
                    (false, false) => {
                        let kind = head
                            .tables
                            .constant(kind)
                            .and_then(|k| u32::try_from(k).ok());
                        let kind = kind.and_then(|k| from_set(CHECKSUM_KINDS, k));
                        let bytes = crate::front::spirv::unhex(&head.tables.name(value));
                        match (kind, bytes) {
                            (Some(kind), Some(bytes)) => Some((kind, bytes)),
                            _ => return Err(Declined("a checksum the reader would not take")),
                        }
                    }
                    _ => return Err(Declined("a checksum kind without its value")),
                };
                let file = operands[0];
                let last = operands[operands.len() - 1];
                let text = text.map(|t| head.tables.name(t));
                out.truncate(start + 5);
                out.push(file);
                match (checksum, self.to.non_semantic()) {
                    (Some(_), true) => {
                        let place = format!("%{} (DebugSource {:?})", id, head.tables.name(file));
                        head.diagnostics.push(
                            LossKind::Dropped,
                            place,
                            "checksum: NonSemantic DebugSource has no checksum operand",
                        )
                    }
                    (Some((kind, bytes)), false) => {
                        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                        let kind = kind.name().unwrap_or("md5").to_ascii_uppercase();
                        let body = text.as_ref().map(|t| format!("\n{t}")).unwrap_or_default();
                        let string = head.add_string(&format!("//__CSK_{kind}:{hex}{body}"))?;
                        out.push(string);
                        return Ok(());
                    }
                    (None, _) => {}
                }
                match (text, self.to.non_semantic()) {
                    (Some(_), _) => out.push(last),
                    // llvm-spirv-14 asserts on a DebugSource without its Text.
                    (None, false) => out.push(head.empty_string()?),
                    (None, true) => {}
                }
            }
            // … Declaration?, Target Function Name?
            Some(DebugOp::DebugFunction)
                if operands[9.min(operands.len())..]
                    .iter()
                    .any(|&o| head.kind_of(o) == Kind::String) =>
            {
                return Err(Declined("a target function name"));
            }
            // … Name?, Inline Namespace?
            Some(DebugOp::DebugLexicalBlock)
                if operands.len() == 6 && !is_false(head, operands[5]) =>
            {
                return Err(Declined("an inline namespace"));
            }
            // Line, Column, Scope, Inlined?
            Some(DebugOp::DebugInlinedAt) if head.tables.constant(operands[1]) != Some(0) => {
                return Err(Declined("the column of an inlined call"));
            }
            _ => {}
        }
        Ok(())
    }

    /// A DebugGlobalVariable (in `scratch`) whose Variable the IR path writes as it is: a global
    /// OpVariable the module names as the debug info does, or none; DebugInfoNone or an
    /// expression only when no global OpVariable bears its name (the IR path would bind it).
    fn global(&mut self, head: &Head<'_>) -> Result<(), Declined> {
        let t = head.tables;
        let (name, linkage, variable) = (self.scratch[5], self.scratch[5 + 6], self.scratch[5 + 7]);
        let wanted: Vec<String> = [t.name(name), t.name(linkage)]
            .into_iter()
            .filter(|n| !n.is_empty())
            .collect();
        let named = |id: u32| t.names_of(id).any(|n| wanted.iter().any(|w| w == n));
        let global = |id: u32| {
            head.kind_of(id) == Kind::Variable && (t.def[id as usize] as usize) < t.section_end
        };
        let ok = match t.kind_of(variable) {
            k if !k.is_debug() => {
                global(variable) && (t.names_of(variable).next().is_none() || named(variable))
            }
            Kind::DebugInfoNone | Kind::DebugExpression => {
                let names = self.global_names.get_or_insert_with(|| {
                    t.names
                        .iter()
                        .filter(|&&(id, _)| global(id))
                        .flat_map(|&(id, _)| t.names_of(id).map(str::to_string))
                        .collect()
                });
                !wanted.iter().any(|w| names.contains(w))
            }
            _ => false,
        };
        match ok {
            true => Ok(()),
            false => Err(Declined(
                "a global variable the IR path would bind otherwise",
            )),
        }
    }

    /// The head finished: the import renamed, `SPV_KHR_non_semantic_info` declared, the
    /// constants (and their type) before the first debug instruction.
    /// (`shift`: words inserted before the first debug instruction since it was written.)
    pub(super) fn finish(
        &mut self,
        head: &mut Head<'_>,
        out: &mut Vec<u32>,
        shift: usize,
    ) -> Result<(), Declined> {
        let mut edits = Vec::with_capacity(3);
        if let Some(at) = self.first_debug.map(|at| at + shift) {
            let mut added = Vec::with_capacity(self.constant_words.len() + 4);
            // (Into the OpenCL.100 family no constant is added; a DebugInfoNone may be.)
            if self.into_literals {
            } else if self.uint_added {
                added.extend([first_word(4, Op::TypeInt), self.uint, 32, 0]);
            } else if head.tables.def[self.uint as usize] as usize > head.tables.first_debug {
                return Err(Declined(
                    "the module's OpTypeInt 32 0 follows its debug info",
                ));
            }
            if self.bool_added != 0 {
                added.extend([first_word(2, Op::TypeBool), self.bool_added]);
            }
            added.extend_from_slice(&self.constant_words);
            edits.push(Edit {
                at,
                remove: 0,
                words: added,
            });
        }
        // The import and the extensions precede everything the pass moved.
        let (mut i, mut import, mut declared) = (5, None, None);
        // Another NonSemantic import, which needs the extension.
        let mut other_non_semantic = false;
        // Where an extension goes: before the first extension, else the first import.
        let mut extension = None;
        while i < out.len() {
            let count = (out[i] >> 16) as usize;
            match (out[i] & 0xffff) as u16 {
                o if o == Op::Extension as u16 => {
                    if string_words(&out[i + 1..i + count]) == NON_SEMANTIC_INFO {
                        declared = Some(i);
                    }
                    extension.get_or_insert(i);
                }
                o if o == Op::ExtInstImport as u16 => {
                    extension.get_or_insert(i);
                    if out[i + 1] == head.tables.set {
                        import = Some(i);
                    } else {
                        other_non_semantic |=
                            string_words(&out[i + 2..i + count]).starts_with("NonSemantic.");
                    }
                }
                o if o == Op::MemoryModel as u16 => break,
                _ => {}
            }
            i += count.max(1);
        }
        let import = import.ok_or(Declined("the debug import after the memory model"))?;
        let mut renamed = vec![0, head.tables.set];
        renamed.extend(words_of(self.to.import_name()));
        renamed[0] = first_word(renamed.len(), Op::ExtInstImport);
        edits.push(Edit {
            at: import,
            remove: (out[import] >> 16) as usize,
            words: renamed,
        });
        match declared {
            // Into the OpenCL.100 family, the extension goes unless another import needs it.
            Some(at) if !self.to.non_semantic() && !other_non_semantic => edits.push(Edit {
                at,
                remove: (out[at] >> 16) as usize,
                words: Vec::new(),
            }),
            _ => {}
        }
        if declared.is_none() && self.to.non_semantic() {
            let mut ext = vec![0];
            ext.extend(words_of(NON_SEMANTIC_INFO));
            ext[0] = first_word(ext.len(), Op::Extension);
            edits.push(Edit {
                at: extension.unwrap_or(import),
                remove: 0,
                words: ext,
            });
        }
        // One copy of the head rather than a move of it per edit.
        edits.sort_by_key(|e| (e.at, e.remove));
        let added: usize = edits.iter().map(|e| e.words.len()).sum();
        let mut head = Vec::with_capacity(out.len() + added);
        let mut from = 0;
        for e in edits {
            head.extend_from_slice(&out[from..e.at]);
            head.extend(e.words);
            from = e.at + e.remove;
        }
        head.extend_from_slice(&out[from..]);
        *out = head;
        Ok(())
    }

    /// The definitions in the functions' entry blocks, after their OpVariables.
    pub(super) fn definitions(&self, t: &Tables<'_>) -> Result<Vec<Edit>, Declined> {
        let mut edits = Vec::with_capacity(self.definitions.len());
        let mut seen = std::collections::HashSet::with_capacity(self.definitions.len());
        for &[function, debug, id] in &self.definitions {
            if !seen.insert(function) {
                return Err(Declined("two DebugFunctions of one OpFunction"));
            }
            let at = t.entry_insertion(function)?;
            if id == 0 {
                continue;
            }
            edits.push(Edit {
                at,
                remove: 0,
                words: vec![
                    first_word(7, Op::ExtInst),
                    t.void,
                    id,
                    t.set,
                    FUNCTION_DEFINITION,
                    debug,
                    function,
                ],
            });
        }
        Ok(edits)
    }
}

/// Operands by opcode and name.
type Operands = &'static [(u32, &'static str)];

/// Into the OpenCL.100 family: the operands it has not (a basic type's Flags, 0), and those it
/// takes from elsewhere (`Source::Parent`, `Source::Function`).
const DROPPED_INTO_LITERALS: [(u32, &str); 7] = [
    (2, "Flags"),
    (1, "Producer"),
    (35, "Checksum Kind"),
    (35, "Checksum Value"),
    (20, "Target Function Name"),
    (21, "Inline Namespace"),
    (25, "Column"),
];
const FROM_ELSEWHERE: [(u32, &str); 2] = [(11, "Parent"), (20, "Function")];

/// Whether `id` is a DebugInfoNone.
fn none(head: &Head<'_>, id: u32) -> bool {
    head.kind_of(id) == Kind::DebugInfoNone
}

/// Whether `id` is an `OpConstantFalse`.
fn is_false(head: &Head<'_>, id: u32) -> bool {
    match head.tables.def.get(id as usize) {
        Some(&at) if at != 0 => head.tables.words.head(at as usize).1 == Op::ConstantFalse as u16,
        _ => false,
    }
}

/// The Count of `.200`'s DebugTypeSubrange `id`, as the IR path writes it into the other sets:
/// no bounds, no stride, a count of 1 to 2³¹−1.
fn subrange_count(head: &Head<'_>, id: u32) -> Result<u32, Declined> {
    let at = head.tables.def.get(id as usize).copied().unwrap_or(0) as usize;
    if at == 0 || head.tables.kind_of(id) != Kind::DebugTypeSubrange {
        return Err(Declined("an array subrange that is no DebugTypeSubrange"));
    }
    let (count, _) = head.tables.words.head(at);
    let w = |k: usize| head.tables.words.at(at + k);
    let counted = count == 8
        && head
            .tables
            .constant(w(7))
            .is_some_and(|n| (1..=i32::MAX as u64).contains(&n));
    match counted && none(head, w(5)) && none(head, w(6)) {
        true => Ok(w(7)),
        false => Err(Declined(
            "a subrange with bounds, a stride or no positive count",
        )),
    }
}

/// The one value `key` has in `pairs` (sorted): `Err` if more than one.
fn one_of(pairs: &[(u32, u32)], key: u32) -> Result<Option<u32>, ()> {
    let from = pairs.partition_point(|&(k, _)| k < key);
    match &pairs[from..] {
        [(k, _), (k2, _), ..] if *k == key && *k2 == key => Err(()),
        [(k, v), ..] if *k == key => Ok(Some(*v)),
        _ => Ok(None),
    }
}

/// Opcodes not converted: DebugTypeInheritance (the IR writer writes none in NonSemantic:
/// spirv-val checks it against OpenCL.100's layout), DebugLexicalBlockDiscriminator (a
/// DebugLexicalBlock there), DebugModuleINTEL (none in NonSemantic), DebugTypeTemplate (a
/// function declaration's is left out).
const NOT_CONVERTED: [u32; 4] = [12, 22, 36, 14];
/// Not converted into `.200`, which the IR path writes otherwise for the translator's reader
/// (which has no case for them): DebugTypeMatrix (an array), DebugMacroDef/Undef,
/// DebugInlinedVariable (left out, ledgered).
const NOT_INTO_200: [u32; 4] = [108, 32, 33, 27];
/// Operands the other set has not, by opcode: a member's Parent, a function's Function.
/// Out of `.200`, its own operands (`Target::out_of_200` checks what they hold).
const DROPPED: [(u32, &str); 8] = [
    (11, "Parent"),
    (20, "Function"),
    (1, "Producer"),
    (35, "Checksum Kind"),
    (35, "Checksum Value"),
    (20, "Target Function Name"),
    (21, "Inline Namespace"),
    (25, "Column"),
];
/// Operands the module's set has not, written as 0: a basic type's Flags, an inlined call's
/// Column (`.200`).
const DEFAULT_ZERO: [(u32, &str); 2] = [(2, "Flags"), (25, "Column")];

const RUNTIME_SIZED: &str = "a runtime-sized array (count 0), NonSemantic.100's alone";
const NON_SEMANTIC_INFO: &str = "SPV_KHR_non_semantic_info";

/// Whether the literal `value` of operand `name` of `opcode` reads into the IR as itself from
/// the set `f` (or is written as itself into it), so that the IR path writes it back unchanged:
/// flags the set defines, encodings, tags,
/// qualifiers it numbers, storage classes a Kernel module may name (Generic only with the
/// GenericPointer capability).
fn known(t: &Tables<'_>, f: Flavour, opcode: u32, name: &str, value: u32) -> bool {
    match (opcode, name) {
        (_, "Flags") => value & !f.flags().iter().fold(0, |m, (bit, _)| m | bit) == 0,
        (2, "Encoding") => from_set(f.encodings(), value).is_some(),
        (10, "Tag") => from_set(COMPOSITE_TAGS, value).is_some(),
        (34, "Tag") => from_set(IMPORTS, value).is_some(),
        (4, "Type Qualifier") => from_set(f.qualifiers(), value).is_some(),
        // UniformConstant, Workgroup, CrossWorkgroup, Function; Generic with GenericPointer.
        (3, "Storage Class") => {
            t.kernel && ([0, 4, 5, 7].contains(&value) || value == 8 && t.generic)
        }
        _ => true,
    }
}
