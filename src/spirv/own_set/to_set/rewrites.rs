//! Per instruction, what the other set holds otherwise than the operand mapping says: checksums,
//! a function's definition, a namespace's Inline Namespace, a compilation unit's Version; and
//! the checks of what the IR path would write otherwise (declined).

use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use crate::diag::LossKind;
use crate::spec::spirv::{from_set, to_set, Flavour, CHECKSUM_KINDS};

use super::super::head::Head;
use super::super::kinds::Kind;
use super::super::words::Declined;
use super::{is_false, none, one_of, Target, RUNTIME_SIZED};

/// DebugInfoFlags' FlagFwdDecl.
const FLAG_FWD_DECL: u32 = 1 << 4;
/// The Version OpenCL.100's DebugCompilationUnit has (as the IR writer writes it).
const OPENCL100_VERSION: u32 = 65536;

impl Target {
    /// What the other set holds otherwise: a DebugSource's checksum (none in NonSemantic), a
    /// function's definition, an operation the set has not.
    pub(super) fn special(
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
                self.checksum_into_200(head, start, out)?
            }
            Some(DebugOp::DebugSource) if self.from_200 => {}
            Some(DebugOp::DebugSource) if out.len() == start + 7 && self.to.non_semantic() => {
                checksum_left_out(head, start, out)?
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
            Some(DebugOp::DebugFunction) => self.definition(head, out[start + 2])?,
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
                // A literal in the words written into the OpenCL.100 family and in the module's
                // own literal sets; a constant's id in NonSemantic's.
                let code = if self.into_literals {
                    out[start + 5]
                } else if head.tables.flavour.non_semantic() {
                    let constant = head.tables.constant(self.scratch[5]);
                    constant.map_or(u32::MAX, |v| v as u32)
                } else {
                    self.scratch[5]
                };
                if from_set(self.to.operations(), code).is_none() {
                    return Err(Declined("a DebugOperation the other set has not"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Into `.200`: llvm-spirv's checksum in a DebugSource's text (at `out[start..]`, 7 words)
    /// into the checksum operands (the text, alone, goes).
    fn checksum_into_200(
        &mut self,
        head: &mut Head<'_>,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let text = head.tables.name(out[start + 6]);
        let checksum = match crate::front::spirv::split_checksum(&text) {
            (None, _) => return Ok(()),
            (Some(c), None) => c,
            (Some(_), Some(_)) => return Err(Declined("a DebugSource text after its checksum")),
        };
        let kind = to_set(CHECKSUM_KINDS, checksum.kind)
            .ok_or(Declined("a checksum of a kind .200 does not number"))?;
        let hex: String = checksum.bytes.iter().map(|b| format!("{b:02x}")).collect();
        out[start + 6] = self.constant(head, kind)?;
        let value = head.add_string(&hex)?;
        out.push(value);
        Ok(())
    }

    /// The definition of a DebugFunction (`debug`, the Function operand dropped from its words,
    /// in the module's still: `scratch`): an OpFunction's is noted (with a new id into a set
    /// that has DebugFunctionDefinition); DebugInfoNone has none.
    fn definition(&mut self, head: &mut Head<'_>, debug: u32) -> Result<(), Declined> {
        let function = self.scratch[5 + 9];
        match head.kind_of(function) {
            Kind::Function => {
                // (Into a set that keeps the Function operand, no definition is added.)
                let definition = match self.to.non_semantic() {
                    true => head.new_id()?,
                    false => 0,
                };
                self.definitions.push([function, debug, definition]);
                Ok(())
            }
            Kind::DebugInfoNone => Ok(()),
            _ => Err(Declined("a DebugFunction of no OpFunction")),
        }
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
                head.diagnostics.push_written(
                    LossKind::Dropped,
                    format!("%{id} (DebugCompilationUnit)"),
                    "producer: the set has no operand for it",
                );
            }
            Some(DebugOp::DebugSource) => self.source_out_of_200(head, start, out)?,
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

    /// Out of `.200`, its DebugSource (in `scratch`): its checksum into llvm-spirv's text in
    /// OpenCL.100 (ledgered into NonSemantic.100), its text kept.
    fn source_out_of_200(
        &self,
        head: &mut Head<'_>,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let operands = &self.scratch[5..];
        let id = self.scratch[2];
        // File [Checksum Kind, Checksum Value] [Text]; two operands are File, Text.
        let (kind, value, text) = match *operands {
            [_] => (0, 0, None),
            [_, text] => (0, 0, Some(text)),
            [_, kind, value] => (kind, value, None),
            [_, kind, value, text] => (kind, value, Some(text)),
            _ => return Err(Declined("a DebugSource of other operands")),
        };
        let no_kind = none(head, kind) || kind == 0;
        let no_value = none(head, value) || value == 0;
        let checksum = match (no_kind, no_value) {
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
                head.diagnostics.push_written(
                    LossKind::Dropped,
                    place,
                    "checksum: NonSemantic DebugSource has no checksum operand",
                );
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

    /// Whether the module's DebugBuildIdentifier is dwarv's link record (the hash of its code,
    /// as the reader tells them apart); worked out once, when one is met.
    pub(super) fn link_record(&mut self, head: &Head<'_>) -> Result<bool, Declined> {
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
}

/// Into NonSemantic.100: llvm-spirv's checksum in a DebugSource's text (at `out[start..]`, 7
/// words) left out with the text (ledgered).
fn checksum_left_out(
    head: &mut Head<'_>,
    start: usize,
    out: &mut Vec<u32>,
) -> Result<(), Declined> {
    let text = head.tables.name(out[start + 6]);
    match crate::front::spirv::split_checksum(&text) {
        (None, _) => Ok(()),
        (Some(_), None) => {
            out.truncate(start + 6);
            let file = head.tables.name(out[start + 5]);
            head.diagnostics.push_written(
                LossKind::Dropped,
                format!("%{} (DebugSource {file:?})", out[start + 2]),
                "checksum: NonSemantic DebugSource has no checksum operand",
            );
            Ok(())
        }
        (Some(_), Some(_)) => Err(Declined("a DebugSource text after its checksum")),
    }
}
