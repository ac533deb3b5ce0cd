//! Pass 2 (`SectionWriter::order_module_section`): the module-level section written with its
//! debug instructions ordered so that none refers forward, and repaired.

use rspirv::spirv::Op;
use rustc_hash::FxHashMap as HashMap;

use crate::diag::LossKind;
use crate::spec::dwarf::{row, ArgKind, OPS};
use crate::spec::spirv::{from_set, Flavour, LAST_SOURCE_LANGUAGE, Q};
use crate::spirv::binary::{first_word, LLVM_SPIRV_GENERATOR};
use crate::spirv::grammar::result_id;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use super::head::Head;
use super::kinds::{Kind, IN_FUNCTION};
use super::operands::Role;
use super::tables::Tables;
use super::to_set::Target;
use super::words::{extend_words, Declined, Edit};

/// What `SectionWriter::emit` did.
pub(super) enum Emitted {
    Written(u32),
    /// Nothing: the instruction waits for this id.
    Waits(u32),
}

/// Debug instructions waiting for an id (their word offsets), by that id.
#[derive(Default)]
struct Waiting {
    by_id: HashMap<u32, Vec<u32>>,
    count: usize,
}

impl Waiting {
    fn wait(&mut self, id: u32, at: u32) {
        self.by_id.entry(id).or_default().push(at);
        self.count += 1;
    }

    /// The instructions that waited for `id`, now written (no look-up while none waits).
    #[inline]
    fn release(&mut self, id: u32) -> Option<Vec<u32>> {
        if self.count == 0 {
            return None;
        }
        let waiters = self.by_id.remove(&id)?;
        self.count -= waiters.len();
        Some(waiters)
    }
}

/// Pass 2: the module-level section written, its debug instructions ordered and repaired (and
/// converted into another set).
pub(super) struct SectionWriter<'t> {
    pub(super) tables: &'t Tables<'t>,
    pub(super) head: Head<'t>,
    /// A dropped typedef's id → its base (0: not redirected); empty until one is dropped.
    pub(super) redirect: Vec<u32>,
    pub(super) edits: Vec<Edit>,
    /// Into another set than the module's (`to_set`): what the instructions are converted to.
    pub(super) to: Option<Box<Target>>,
}

impl<'t> SectionWriter<'t> {
    pub(super) fn new(head: Head<'t>, to: Option<Box<Target>>) -> Self {
        SectionWriter {
            tables: head.tables,
            head,
            redirect: Vec::new(),
            edits: Vec::new(),
            to,
        }
    }

    pub(super) fn followed(&self, id: u32) -> u32 {
        match self.redirect.get(id as usize) {
            Some(&to) if to != 0 => to,
            _ => id,
        }
    }

    /// Pass 2: the module-level section, its debug instructions ordered and repaired; the header
    /// in front. Fills `edits` for in-function references to dropped typedefs.
    pub(super) fn order_module_section(&mut self) -> Result<Vec<u32>, Declined> {
        let end = self.tables.section_end;
        let mut out: Vec<u32> = Vec::with_capacity(end);
        extend_words(&mut out, &self.tables.words, 0, 5);
        let mut waiting = Waiting::default();
        let mut ready: Vec<u32> = Vec::new();
        let mut i = 5;
        while i < end {
            let (count, opcode) = self.tables.words.head(i);
            let debug = opcode == Op::ExtInst as u16
                && count >= 5
                && self.tables.words.at(i + 3) == self.tables.set;
            if debug {
                ready.push(i as u32);
            } else {
                extend_words(&mut out, &self.tables.words, i, count);
                if let Some(id) = result_id(&self.tables.words.words[i..i + count]) {
                    self.head.mark_written(id);
                    if let Some(waiters) = waiting.release(id) {
                        ready.extend(waiters);
                    }
                }
            }
            while let Some(at) = ready.pop() {
                match self.emit(at as usize, &mut out)? {
                    Emitted::Waits(id) => waiting.wait(id, at),
                    Emitted::Written(id) => {
                        self.head.mark_written(id);
                        if let Some(waiters) = waiting.release(id) {
                            // In input order: the last pushed is taken first.
                            ready.extend(waiters.into_iter().rev());
                        }
                    }
                }
            }
            i += count;
        }
        if waiting.count != 0 {
            return Err(Declined("a reference cycle among debug instructions"));
        }
        let strings = std::mem::take(&mut self.head.added_strings);
        let shift = strings.len();
        if shift != 0 {
            // Everything before `strings_end` was copied as it is.
            let at = match self.tables.strings_end {
                0 => out.len(),
                at => at,
            };
            out.splice(at..at, strings);
        }
        if let Some(mut to) = self.to.take() {
            to.finish(&mut self.head, &mut out, shift)?;
            self.to = Some(to);
        }
        out[3] = self.head.next_id;
        if cfg!(target_endian = "big") {
            out.iter_mut().for_each(|w| *w = w.to_le());
        }
        Ok(out)
    }

    /// Writes the debug instruction at `at` (repaired, references redirected, every operand of
    /// a kind its consumer takes), or nothing when it must wait for an id: defined later in the
    /// section and not yet written, on an operand that may not refer forward.
    pub(super) fn emit(&mut self, at: usize, out: &mut Vec<u32>) -> Result<Emitted, Declined> {
        let (count, _) = self.tables.words.head(at);
        let id = self.tables.words.at(at + 2);
        let opcode = self.tables.words.at(at + 4);
        let instruction = Kind::debug(opcode);
        if IN_FUNCTION.contains(instruction)
            && instruction != Kind::DebugExpression
            && instruction != Kind::DebugLocalVariable
        {
            return Err(Declined(
                "an in-function debug instruction outside functions",
            ));
        }
        let members_forward = instruction == Kind::DebugTypeComposite
            && match &self.to {
                Some(to) => to.forward_members(),
                None => self.tables.flavour != Flavour::Shader100,
            };
        // Into the OpenCL.100 family a member waits for its composite (its Parent there).
        if let Some(to) = &self.to {
            if let Some(parent) = to.parent_of(self.tables, opcode, id)? {
                if !self.head.done(parent) {
                    return Ok(Emitted::Waits(parent));
                }
            }
        }
        let start = out.len();
        extend_words(out, &self.tables.words, at, count);
        // What the operands ask: the word of a Linkage Name or Text that becomes "", a
        // DebugInfoNone parameter, the word of an absent optional operand; the id the
        // instruction waits for, an undefined id, a kind the consumer rejects.
        let mut unnamed = None;
        let mut void_parameter = false;
        let mut absent = None;
        let mut waits = None;
        let mut undefined = false;
        let mut wrong = false;
        self.tables.ids(at, |n, rule, i| {
            if waits.is_some() {
                return;
            }
            let k = start + (i - at);
            // SPIRV-LLVM-Translator writes `.200`'s Arg Number as a literal word, which the
            // reader takes as such unless it names an integer constant (`to_set` converts it).
            if self.tables.flavour == Flavour::Shader200
                && rule.role == Role::ArgNumber
                && !matches!(
                    self.tables.kind_of(out[k]),
                    Kind::Constant | Kind::ConstantU32
                )
            {
                return;
            }
            let target = self.followed(out[k]);
            // A dropped typedef where the reader takes no typedef (a member's Parent): the
            // redirect would repair what the reader refuses.
            if target != out[k] && !rule.allowed.contains(self.tables.kind_of(out[k])) {
                wrong = true;
                return;
            }
            out[k] = target;
            // (The input's words: an id at the bound is none, even once a string takes it.)
            let kind = self.tables.kind_of(target);
            if kind == Kind::Undefined {
                undefined = true;
                return;
            }
            // (An operand the other set has no place for is not waited for.)
            let may_refer_forward = members_forward && rule.role == Role::Members
                || self.to.as_ref().is_some_and(|to| !to.carries(opcode, n));
            if !(self.head.done(target) || may_refer_forward) {
                waits = Some(target);
                return;
            }
            // llvm-spirv-14 reads its own forms of `SPIRV.debug` as they are.
            if self.tables.flavour == Flavour::SpirvDebug || kind != Kind::DebugInfoNone {
                wrong |= !rule.allowed.contains(kind);
                return;
            }
            match rule.role {
                // spirv-val wants an OpString; the reader takes "" as none. (DebugSource keeps
                // its Text: llvm-spirv-14 asserts on a DebugSource without.)
                Role::NameOrText => unnamed = Some(k),
                // (`.200`'s DebugInfoNone, DebugInfoNone before a text without a checksum.)
                Role::Checksum => wrong |= !rule.allowed.contains(kind),
                // An optional operand (always the last) that says "none" is left out, as the
                // IR writer does (spirv-val wants e.g. a DebugFunctionDeclaration there).
                _ if rule.q == Q::Opt => absent = Some(k),
                // llvm-spirv's void: the reader takes DebugInfoNone and OpTypeVoid alike.
                Role::ReturnType if self.tables.void != 0 => out[k] = self.tables.void,
                Role::ReturnType | Role::ParameterTypes => void_parameter = true,
                _ => wrong |= !rule.allowed.contains(kind),
            }
        })?;
        if undefined {
            return Err(Declined("a debug instruction refers to an undefined id"));
        }
        if let Some(waits) = waits {
            out.truncate(start);
            return Ok(Emitted::Waits(waits));
        }
        if wrong {
            return Err(Declined("an operand of a kind its consumer rejects"));
        }
        if let Some(k) = unnamed {
            out[k] = self.head.empty_string()?;
        }
        if void_parameter {
            return Err(Declined("a function type with a DebugInfoNone parameter"));
        }
        if let Some(k) = absent {
            // (`.200` has optional operands after optional operands.)
            if k + 1 != out.len() {
                return Err(Declined("a DebugInfoNone optional operand before another"));
            }
            out.pop();
            out[start] = first_word(out.len() - start, Op::ExtInst);
        }
        self.repair(id, opcode, start, out)?;
        if let Some(mut to) = self.to.take() {
            let converted = to.convert(&mut self.head, start, out);
            self.to = Some(to);
            converted?;
        }
        Ok(Emitted::Written(id))
    }

    /// The repairs and checks of one kind of debug instruction, written at `out[start..]`: a
    /// typedef of a non-basic type dropped (references redirected), an array's counts cut to
    /// what the reader takes; what the IR writer would write otherwise declines.
    fn repair(
        &mut self,
        id: u32,
        opcode: u32,
        start: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Declined> {
        let words = &out[start..];
        let Some(opcode) = DebugOp::from_u32(opcode) else {
            return Ok(());
        };
        match opcode {
            DebugOp::DebugTypedef
                if self.tables.flavour != Flavour::SpirvDebug && !self.keeps_translator_forms() =>
            {
                let (name, base) = (words[5], words[6]);
                if self.drops_typedef(id, name, base)? {
                    out.truncate(start);
                }
            }
            DebugOp::DebugTypeArray => {
                let keep = self.array_counts(id, &words[6..])?;
                out.truncate(start + 6 + keep);
                out[start] = first_word(6 + keep, Op::ExtInst);
            }
            // The IR names no enumerator twice (the reader refuses such an enum).
            DebugOp::DebugTypeEnum => {
                let mut names: Vec<String> = words
                    .get(13..)
                    .unwrap_or(&[])
                    .chunks_exact(2)
                    .map(|pair| self.tables.name(pair[1]))
                    .collect();
                names.sort_unstable();
                if names.windows(2).any(|w| w[0] == w[1]) {
                    return Err(Declined("an enum naming an enumerator twice"));
                }
            }
            DebugOp::DebugTypeVector => {
                let n = match self.tables.flavour.literal_numbers() {
                    true => Some(u64::from(words[6])),
                    false => self.tables.constant(words[6]),
                };
                if !n.is_some_and(|n| (2..=4).contains(&n))
                    || self.tables.kind_of(words[5]) != Kind::DebugTypeBasic
                {
                    return Err(Declined("a vector the IR writer re-encodes"));
                }
            }
            DebugOp::DebugTypePointer
                if self.tables.flavour.literal_numbers() && words[6] == u32::MAX =>
            {
                return Err(Declined("llvm-spirv's storage class 0xFFFFFFFF"));
            }
            // (`.200`'s checksum operands: checked by kind, converted by `to_set`.)
            DebugOp::DebugSource if self.tables.flavour == Flavour::Shader200 => {}
            DebugOp::DebugSource => {
                // llvm-spirv-14 writes (and reads) a missing text as DebugInfoNone.
                let none_ok = |s: &Self, x: u32| {
                    s.tables.flavour == Flavour::SpirvDebug
                        && s.tables.kind_of(x) == Kind::DebugInfoNone
                };
                if words[5..]
                    .iter()
                    .any(|&x| self.head.kind_of(x) != Kind::String && !none_ok(self, x))
                {
                    return Err(Declined("a DebugSource text that is not an OpString"));
                }
            }
            // The reader maps the operation to DWARF's (one it cannot map is a loss in its
            // report) and holds it to the operands DWARF gives it.
            DebugOp::DebugOperation => {
                let code = match self.tables.flavour.literal_numbers() {
                    true => Some(words[5]),
                    false => self.tables.constant(words[5]).map(|v| v as u32),
                };
                let Some(code) = code.and_then(|n| from_set(self.tables.flavour.operations(), n))
                else {
                    return Err(Declined("a DebugOperation with no DWARF meaning in dwarv"));
                };
                let numbers = |kinds: &[ArgKind]| {
                    kinds.len() == words.len() - 6
                        && kinds
                            .iter()
                            .all(|k| matches!(k, ArgKind::U | ArgKind::S | ArgKind::Addr))
                };
                if row(OPS, code).is_some_and(|(_, _, kinds)| !numbers(kinds)) {
                    return Err(Declined(
                        "a DebugOperation with other operands than it takes",
                    ));
                }
            }
            // llvm-spirv-14 fails to read back the imported entities it wrote; the IR path
            // leaves them out (ledgered).
            DebugOp::DebugImportedEntity if self.tables.flavour == Flavour::SpirvDebug => {
                return Err(Declined("an imported entity in SPIRV.debug"));
            }
            DebugOp::DebugCompilationUnit => {
                let language = match self.tables.flavour {
                    Flavour::OpenCl100 | Flavour::SpirvDebug => words.get(8).copied(),
                    Flavour::Shader100 | Flavour::Shader200 => words
                        .get(8)
                        .and_then(|&c| self.tables.constant(c))
                        .map(|v| v as u32),
                    Flavour::DebugInfo => None,
                };
                if language.is_some_and(|l| l > LAST_SOURCE_LANGUAGE) {
                    return Err(Declined("a source language spirv-val does not know"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a typedef (`id`, of `name`, of `base`) goes: spirv-val takes one of a basic type
    /// only; references to another go to its base (ledgered).
    fn drops_typedef(&mut self, id: u32, name: u32, base: u32) -> Result<bool, Declined> {
        match self.tables.kind_of(base) {
            Kind::DebugTypeBasic => return Ok(false),
            k if !k.is_debug() || k == Kind::DebugInfoNone => {
                return Err(Declined("a typedef of no debug type"))
            }
            _ => {}
        }
        let name = self.tables.name(name);
        self.head.diagnostics.push_written(
            LossKind::Approximated,
            format!("%{id} (DebugTypedef {name:?})"),
            "typedef of a non-basic type: references go to its base (spirv-val takes only DebugTypeBasic bases)",
        ).leaves_out(crate::diag::Counted::Types, 1);
        if self.redirect.is_empty() {
            self.redirect = vec![0; self.tables.def.len()];
        }
        self.redirect[id as usize] = base;
        Ok(true)
    }

    /// How many of an array's Component Counts to keep: llvm-spirv's lower bounds (the second
    /// half, as the reader takes them) go in OpenCL.100, ledgered unless DebugInfoNone; every
    /// count must be a positive constant (or, in NonSemantic, 0: runtime-sized), as the IR
    /// writer writes it. `SPIRV.debug` keeps llvm-spirv-14's own form, counts then bounds.
    pub(super) fn array_counts(&mut self, id: u32, ids: &[u32]) -> Result<usize, Declined> {
        // (`.200`'s are DebugTypeSubranges, checked as they are converted: `to_set`.)
        if matches!(
            self.tables.flavour,
            Flavour::SpirvDebug | Flavour::Shader200
        ) {
            return Ok(ids.len());
        }
        let none = |s: &Self, x: u32| s.tables.kind_of(x) == Kind::DebugInfoNone;
        let mut keep = ids.len();
        if self.tables.flavour == Flavour::OpenCl100 && keep >= 2 && keep % 2 == 0 {
            let half = keep / 2;
            let lowers = &ids[half..];
            if self.tables.generator >> 16 == LLVM_SPIRV_GENERATOR
                || lowers.iter().all(|&x| none(self, x))
            {
                keep = half;
                // (`.200`'s subranges hold them: the IR path would write them.)
                if lowers.iter().any(|&x| !none(self, x)) && self.keeps_translator_forms() {
                    return Err(Declined(
                        "an array's lower bounds, which .200's subranges keep",
                    ));
                }
                if lowers.iter().any(|&x| !none(self, x)) {
                    self.head.diagnostics.push_written(
                        LossKind::Dropped,
                        format!("%{id} (DebugTypeArray)"),
                        "a dimension's lower/upper bound or stride: only counts are written",
                    );
                }
                // Counts alone of an even number would read back as counts and bounds.
                if keep % 2 == 0 && self.tables.generator >> 16 == LLVM_SPIRV_GENERATOR {
                    return Err(Declined("an array of an even number of dimensions"));
                }
            }
        }
        let zero_ok = self.tables.flavour == Flavour::Shader100;
        for &c in &ids[..keep] {
            match self.tables.constant(c) {
                Some(n) if n > 0 && n <= i64::MAX as u64 => {}
                Some(0) if zero_ok => {}
                _ => return Err(Declined("an array count that is not a positive constant")),
            }
        }
        Ok(keep)
    }

    /// Into a set judged by SPIRV-LLVM-Translator alone (`.200`): spirv-val's repairs are not
    /// made (the IR path writes a typedef of any type there).
    fn keeps_translator_forms(&self) -> bool {
        self.to
            .as_ref()
            .is_some_and(|t| !t.to.judged_by_spirv_val())
    }

    /// In-function references to dropped typedefs, redirected to their bases.
    pub(super) fn patch_functions(&mut self, local_variables: &[u32]) -> Result<(), Declined> {
        let mut patches = Vec::new();
        for &at in local_variables {
            self.tables.ids(at as usize, |_, _, i| {
                let id = self.tables.words.at(i);
                let to = self.followed(id);
                if to != id {
                    patches.push(Edit {
                        at: i,
                        remove: 1,
                        words: vec![to],
                    });
                }
            })?;
        }
        self.edits.extend(patches);
        Ok(())
    }
}
