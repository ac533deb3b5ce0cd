//! One instruction's operands converted by its plan: each of the other set's operands taken from
//! where the plan says, a literal into a constant's id or back, an id kept where the other
//! set's consumer takes its kind.

use rspirv::spirv::Op;

use crate::spec::spirv::{Layout, OperandWords, Shader200Op, Q};
use crate::spirv::binary::first_word;

use super::super::head::Head;
use super::super::kinds::{Kind, KindSet};
use super::super::operands::Role;
use super::super::words::Declined;
use super::plan::{Plan, Planned, Source, Values};
use super::{none, one_of, Target, RUNTIME_SIZED};

impl Target {
    /// `convert`'s operands, by `plan`.
    pub(super) fn convert_by(
        &mut self,
        plan: &Plan,
        head: &mut Head<'_>,
        opcode: u32,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        self.first_debug.get_or_insert(start);
        self.scratch.clear();
        self.scratch.extend_from_slice(&out[start..]);
        out.truncate(start + 5);
        let source = self.source_spans(head, opcode)?;
        for planned in &plan.operands {
            match planned.source {
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
                        let id = self.id_operand(head, count, &planned.rule.allowed)?;
                        out.push(id);
                    }
                }
                Source::Subranges(s) => {
                    let (a, b) = self.spans[s];
                    for at in a..b {
                        let id = self.subrange(head, source.operands[s].w, self.scratch[at])?;
                        out.push(id);
                    }
                }
                Source::Parent => {
                    let id = self.scratch[2];
                    let parent = self.parent_of(head.tables, opcode, id)?;
                    out.extend(parent);
                }
                Source::Function => {
                    let function = self.function_of(head)?;
                    out.push(function);
                }
                Source::Operand(s) => {
                    let (a, b) = self.spans[s];
                    let from = source.operands[s].w;
                    let width = if from == OperandWords::Pair { 2 } else { 1 };
                    for at in (a..b).step_by(width) {
                        let value = self.operand(head, planned, from, self.scratch[at])?;
                        out.push(value);
                        if from == OperandWords::Pair {
                            out.push(self.scratch[at + 1]);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A word of one of the module's operands (encoded `from`) as the other set's operand
    /// `planned` holds it.
    fn operand(
        &mut self,
        head: &mut Head<'_>,
        planned: &Planned,
        from: OperandWords,
        word: u32,
    ) -> Result<u32, Declined> {
        let t = head.tables;
        let values = planned.values;
        match (from, planned.rule.encoding) {
            (OperandWords::Id, to) if self.from_200 && planned.rule.role == Role::ArgNumber => {
                self.arg_number(head, word, to)
            }
            (OperandWords::Id, OperandWords::Lit) => self.literal(head, values, word),
            (OperandWords::Lit, OperandWords::Id) if !values.known(t, t.flavour, word) => {
                Err(Declined("a number the IR path would not write as it is"))
            }
            (OperandWords::Lit, OperandWords::Id) => self.constant(head, word),
            // `.200`'s basic type without Flags (as the translator writes it).
            (OperandWords::Id, OperandWords::Id)
                if self.from_200 && values == Values::Flags && none(head, word) =>
            {
                self.constant(head, 0)
            }
            // (Numbers `.200` holds that the other set does not define, e.g. the translator's
            // storage class 0xFFFFFFFF.)
            (OperandWords::Id, OperandWords::Id)
                if self.from_200
                    && t.constant(word).is_some_and(|v| {
                        !u32::try_from(v).is_ok_and(|v| self.known_in_both(head, values, v))
                    }) =>
            {
                Err(Declined("a number the IR path would not write as it is"))
            }
            (OperandWords::Id, OperandWords::Id) => {
                self.id_operand(head, word, &planned.rule.allowed)
            }
            // An enumerator's value: an integer constant's id, or a literal (as the reader
            // takes it).
            (OperandWords::Pair, OperandWords::Pair) => match head.kind_of(word) {
                Kind::ConstantU32 | Kind::Constant => {
                    self.id_operand(head, word, &planned.rule.allowed)
                }
                _ => self.constant(head, word),
            },
            _ => Err(Declined("an operand the other set encodes otherwise")),
        }
    }

    /// `.200`'s Arg Number (a literal unless an integer constant's id, as
    /// `SectionWriter::emit` reads it) encoded `to`.
    fn arg_number(
        &mut self,
        head: &mut Head<'_>,
        word: u32,
        to: OperandWords,
    ) -> Result<u32, Declined> {
        let number = match head.kind_of(word) {
            Kind::Constant | Kind::ConstantU32 => head.tables.constant(word),
            _ => Some(u64::from(word)),
        };
        match (number.and_then(|n| u32::try_from(n).ok()), to) {
            (Some(n), OperandWords::Lit) => Ok(n),
            (Some(n), _) => self.constant(head, n),
            (None, _) => Err(Declined("an Arg Number past 32 bits")),
        }
    }

    /// Into `.200`: a DebugTypeSubrange of an array's count (a literal or constant encoded
    /// `from`), added to `subranges`, and its id.
    fn subrange(
        &mut self,
        head: &mut Head<'_>,
        from: OperandWords,
        word: u32,
    ) -> Result<u32, Declined> {
        // (Pass 2 checked each count: a positive constant.)
        let count = match from {
            OperandWords::Lit => Some(word),
            _ => head.tables.constant(word).map(|v| v as u32),
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
            Shader200Op::DebugTypeSubrange as u32,
            none,
            none,
            count,
        ]);
        Ok(id)
    }

    /// Into the OpenCL.100 family: the Function of the DebugFunction in `scratch`, the
    /// OpFunction its DebugFunctionDefinition names (its definition then noted) or DebugInfoNone.
    fn function_of(&mut self, head: &mut Head<'_>) -> Result<u32, Declined> {
        let t = head.tables;
        let debug = self.scratch[2];
        match one_of(&t.function_definitions, debug) {
            Ok(Some(function)) => {
                self.definitions.push([function, debug, 0]);
                Ok(function)
            }
            Ok(None) if t.info_none != 0 && head.done(t.info_none) => Ok(t.info_none),
            // The IR path may bind it to a function no definition names (by its OpName, entry
            // point or linkage name).
            Ok(None) if self.unbound_functions => Err(Declined(
                "a DebugFunction without a definition, and a function without one",
            )),
            Ok(None) => self.info_none(head),
            Err(()) => Err(Declined("two definitions of one DebugFunction")),
        }
    }

    /// The module's layout of `opcode`, and its operands' spans in `scratch` (pass 2 checked the
    /// counts).
    pub(super) fn source_spans(
        &mut self,
        head: &Head<'_>,
        opcode: u32,
    ) -> Result<&'static Layout, Declined> {
        let source = (head.tables.layouts.get(opcode as usize).copied().flatten())
            .ok_or(Declined("a debug opcode the set does not define"))?;
        self.spans.clear();
        let (mut i, end) = (5, self.scratch.len());
        for o in source.operands {
            let width = if o.w == OperandWords::Pair { 2 } else { 1 };
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
    fn literal(&self, head: &Head<'_>, values: Values, id: u32) -> Result<u32, Declined> {
        let value = match head.kind_of(id) {
            Kind::ConstantU32 => head.tables.constant(id).map(|v| v as u32),
            _ => None,
        };
        match value {
            Some(v) if self.known_in_both(head, values, v) => Ok(v),
            _ => Err(Declined("a number the IR path would not write as it is")),
        }
    }

    /// Whether the number `v` is one of `values` in both sets (the IR path writes it back as it
    /// is).
    fn known_in_both(&self, head: &Head<'_>, values: Values, v: u32) -> bool {
        let t = head.tables;
        values.known(t, t.flavour, v) && values.known(t, self.to, v)
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
