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
//! edited (`code::in_function`: DebugFunctionDefinitions go, DebugLines become OpLines,
//! DebugNoLines OpNoLines; the in-function instructions left are ids in both sets). And from all
//! three into
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

use rspirv::spirv::NonsemanticShaderDebuginfo100Op as ShaderOp;
use rspirv::spirv::Op;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;
use rustc_hash::FxHashMap as HashMap;

use crate::diag::LossKind;
use crate::spec::spirv::{Flavour, OperandWords, Shader200Op};
use crate::spec::spirv_names::OperandName;
use crate::spirv::binary::first_word;

use super::head::Head;
use super::kinds::Kind;
use super::operands::PAIR_NAME;
use super::tables::Tables;
use super::words::Declined;
use plan::{Plan, Values};

mod added;
mod apply;
mod finish;
mod plan;
mod rewrites;

/// Why an array of a runtime-sized dimension declines.
const RUNTIME_SIZED: &str = "a runtime-sized array (count 0), NonSemantic.100's alone";

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
    /// `SPIRV.debug` into OpenCL.100 (`same_layouts`): per opcode, per operand of the module's
    /// layout, the values a literal may hold.
    same_layout_values: Vec<Vec<Values>>,
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
        if t.void == 0 {
            return Err(Declined("no OpTypeVoid for the definitions"));
        }
        let same_layouts = from == Flavour::SpirvDebug && to == Flavour::OpenCl100;
        let same_layout_values = match same_layouts {
            true => (t.layouts.iter())
                .map(|l| {
                    l.map_or(Vec::new(), |l| {
                        (l.operands.iter())
                            .map(|o| Values::of(l.opcode, OperandName(o.name)))
                            .collect()
                    })
                })
                .collect(),
            false => Vec::new(),
        };
        let mut bound: Vec<u32> = t.function_definitions.iter().map(|d| d.1).collect();
        bound.sort_unstable();
        bound.dedup();
        Ok(Box::new(Target {
            to,
            same_layouts,
            into_literals: from.non_semantic() && !to.non_semantic(),
            from_200: from == Flavour::Shader200,
            link: None,
            plans: plan::plans(t, from, to),
            same_layout_values,
            uint: t.uint32,
            uint_added: false,
            false_constant: 0,
            bool_added: 0,
            none: 0,
            composites: Default::default(),
            unbound_functions: t.functions > bound.len(),
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
        if self.from_200 && opcode == Shader200Op::DebugTypeSubrange as u32 {
            out.truncate(start);
            return Ok(());
        }
        // Into the OpenCL.100 family, what it has no place for and nothing names: ledgered as
        // the IR path ledgers it.
        let info = ShaderOp::from_u32(opcode).filter(|_| self.into_literals);
        if let Some(
            info @ (ShaderOp::DebugBuildIdentifier
            | ShaderOp::DebugStoragePath
            | ShaderOp::DebugEntryPoint),
        ) = info
        {
            let message = match info {
                ShaderOp::DebugEntryPoint => Some("entry point: the set has no DebugEntryPoint"),
                _ if self.link_record(head)? => (info == ShaderOp::DebugBuildIdentifier)
                    .then_some("link records: the set has no DebugBuildIdentifier"),
                ShaderOp::DebugBuildIdentifier => {
                    Some("build id: the set has no DebugBuildIdentifier")
                }
                _ => Some("storage path: the set has no DebugStoragePath"),
            };
            if let Some(message) = message {
                let place = format!("%{} ({info:?})", out[start + 2]);
                head.diagnostics
                    .push_written(LossKind::Dropped, place, message);
            }
            out.truncate(start);
            return Ok(());
        }
        if self.same_layouts {
            self.scratch.clear();
            self.scratch.extend_from_slice(&out[start..]);
            let source = self.source_spans(head, opcode)?;
            let values = &self.same_layout_values[opcode as usize];
            let t = head.tables;
            for ((o, &(a, b)), values) in source.operands.iter().zip(&self.spans).zip(values) {
                let literals = &self.scratch[a..b];
                if o.w == OperandWords::Lit
                    && !literals.iter().all(|&v| values.known(t, t.flavour, v))
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
}

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

/// The one value `key` has in `pairs` (sorted): `Err` if more than one.
fn one_of(pairs: &[(u32, u32)], key: u32) -> Result<Option<u32>, ()> {
    let from = pairs.partition_point(|&(k, _)| k < key);
    match &pairs[from..] {
        [(k, _), (k2, _), ..] if *k == key && *k2 == key => Err(()),
        [(k, v), ..] if *k == key => Ok(Some(*v)),
        _ => Ok(None),
    }
}
