//! Operand values: what an operand's id (or literal) is, checked against what the operand needs.
//! A wrong kind (a string where a type is needed) or an id nothing defines is an error naming the
//! instruction; `DebugInfoNone` (and `OpTypeVoid` for types) reads as absent.

use crate::diag::LossKind;
use crate::ir::{Bound, File, Flags, Handle, Loc, Ref, Type};
use crate::spec::spirv_names::{operand, OperandName};

use super::operands::{fail, Dec, Kind, RResult};
use super::reader::Ctx;

/// What an id is.
pub(super) enum Tgt<'s> {
    None,
    Void,
    Ref(Ref),
    Str(&'s str),
    Const(i128),
    /// A debug instruction that is no entity (DebugOperation, DebugScope…).
    Debug(Kind),
    /// An instruction of a known set with an opcode dwarv does not know.
    Unknown,
    /// Not a string, constant or debug instruction: an id the code defines.
    Code,
    /// An id no instruction defines.
    Undefined,
}

impl Ctx<'_> {
    pub(super) fn target(&self, id: u32) -> Tgt<'_> {
        if let Some(r) = self.refs.get(&id) {
            return Tgt::Ref(*r);
        }
        if let Some(&i) = self.by_id.get(&id) {
            let k = self.decs.get(i).map_or(Kind::InfoNone, |(_, d)| d.kind);
            return if k == Kind::InfoNone {
                Tgt::None
            } else {
                Tgt::Debug(k)
            };
        }
        if let Some(s) = self.strings.get(&id) {
            return Tgt::Str(s);
        }
        if let Some(v) = self.consts.get(&id) {
            return Tgt::Const(*v);
        }
        if self.voids.contains(&id) {
            return Tgt::Void;
        }
        if self.unknown_ids.contains(&id) {
            return Tgt::Unknown;
        }
        if self.defined.contains(&id) {
            return Tgt::Code;
        }
        Tgt::Undefined
    }

    /// A phrase naming what an id is, for messages.
    pub(super) fn what(&self, id: u32) -> String {
        match self.target(id) {
            Tgt::None => "DebugInfoNone".into(),
            Tgt::Void => "OpTypeVoid".into(),
            Tgt::Ref(r) => match self.origin.get(&r).and_then(|(_, i)| self.by_id.get(i)) {
                Some(&i) => self.decs.get(i).map_or("?", |(_, d)| d.name()).to_string(),
                None => format!("{r:?}"),
            },
            Tgt::Str(_) => "an OpString".into(),
            Tgt::Const(_) => "an OpConstant".into(),
            Tgt::Debug(k) => format!("{k:?}"),
            Tgt::Unknown => "an unknown debug instruction".into(),
            Tgt::Code => "an instruction of the code".into(),
            Tgt::Undefined if id == 0 || id >= self.m.bound => "outside the id bound".into(),
            Tgt::Undefined => "not defined by any instruction".into(),
        }
    }

    pub(super) fn wrong<T>(
        &self,
        d: &Dec<'_>,
        operand: OperandName,
        need: &str,
        id: u32,
    ) -> RResult<T> {
        fail(
            d.offset,
            Some(d.id),
            format!(
                "{} operand `{operand}` must be {need}, but %{id} is {}",
                d.name(),
                self.what(id)
            ),
        )
    }

    /// An operand that points at an unknown instruction reads as absent, with a loss.
    fn unknown_operand(&mut self, d: &Dec<'_>, operand: OperandName, id: u32) {
        self.loss(
            LossKind::Unknown,
            d,
            format!("`{operand}` refers to %{id}, an unknown instruction: read as absent"),
        );
    }

    /// A type operand: a debug type, or DebugInfoNone/OpTypeVoid (absent).
    pub(super) fn ty_id(
        &mut self,
        d: &Dec<'_>,
        op: OperandName,
        id: u32,
    ) -> RResult<Option<Handle<Type>>> {
        match self.target(id) {
            Tgt::Ref(Ref::Type(h)) => Ok(Some(h)),
            Tgt::None | Tgt::Void => Ok(None),
            Tgt::Unknown => {
                self.unknown_operand(d, op, id);
                Ok(None)
            }
            _ => self.wrong(d, op, "a debug type", id),
        }
    }

    pub(super) fn ty(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<Handle<Type>>> {
        match d.word(op) {
            Some(id) => self.ty_id(d, op, id),
            None => Ok(None),
        }
    }

    /// Any entity (or absent).
    pub(super) fn entity_id(
        &mut self,
        d: &Dec<'_>,
        op: OperandName,
        id: u32,
    ) -> RResult<Option<Ref>> {
        match self.target(id) {
            Tgt::Ref(r) => Ok(Some(r)),
            Tgt::None | Tgt::Void => Ok(None),
            Tgt::Unknown => {
                self.unknown_operand(d, op, id);
                Ok(None)
            }
            _ => self.wrong(d, op, "a debug entity", id),
        }
    }

    /// An entity of one of the given kinds (or absent).
    pub(super) fn entity_of(
        &mut self,
        d: &Dec<'_>,
        op: OperandName,
        kinds: &[crate::ir::EntityKind],
        need: &str,
    ) -> RResult<Option<Ref>> {
        let Some(id) = d.word(op) else {
            return Ok(None);
        };
        let id = if op == operand::TARGET {
            id
        } else {
            self.untemplate(id)
        };
        match self.entity_id(d, op, id)? {
            Some(r) if !kinds.contains(&r.kind()) => self.wrong(d, op, need, id),
            r => Ok(r),
        }
    }

    /// llvm-spirv wraps templated composites and functions in a DebugTypeTemplate and names the
    /// wrapper where the composite or function is meant (a parent, a scope, a declaration):
    /// such references read as the template's Target.
    pub(super) fn untemplate(&self, mut id: u32) -> u32 {
        for _ in 0..8 {
            match self.by_id.get(&id).and_then(|&i| self.decs.get(i)) {
                Some((_, d)) if d.kind == Kind::TypeTemplate => match d.word(operand::TARGET) {
                    Some(t) => id = t,
                    None => break,
                },
                _ => break,
            }
        }
        id
    }

    /// A lexical scope: a unit, scope or composite (or absent). llvm-spirv names a file scope
    /// by the file's OpString: that reads as the (first) unit, approximated.
    pub(super) fn parent(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<Ref>> {
        use crate::ir::EntityKind as K;
        if let Some(id) = d.word(op) {
            if let Tgt::Str(s) = self.target(id) {
                let msg = format!("`{op}` is the file name {s:?}: read as the unit");
                self.loss(LossKind::Approximated, d, msg);
                return Ok((!self.out.units.is_empty()).then(|| Ref::Unit(Handle::new(0))));
            }
        }
        self.entity_of(
            d,
            op,
            &[K::Unit, K::Scope, K::Type],
            "a unit, scope or type",
        )
    }

    /// A string operand (DebugInfoNone: absent).
    pub(super) fn string(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<String>> {
        let Some(id) = d.word(op) else {
            return Ok(None);
        };
        match self.target(id) {
            Tgt::Str(s) => Ok(Some(s.to_string())),
            Tgt::None => Ok(None),
            _ => self.wrong(d, op, "an OpString", id),
        }
    }

    /// A name-like string: the empty string reads as absent.
    pub(super) fn name(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<String>> {
        Ok(self.string(d, op)?.filter(|s| !s.is_empty()))
    }

    /// A number: a literal word, or an integer OpConstant (NonSemantic; sizes and counts in
    /// every set). DebugInfoNone and an absent operand read as `None`.
    pub(super) fn num(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<i128>> {
        let Some(w) = d.word(op) else {
            return Ok(None);
        };
        if d.is_literal(op) {
            return Ok(Some(i128::from(w)));
        }
        self.num_id(d, op, w)
    }

    pub(super) fn num_id(
        &mut self,
        d: &Dec<'_>,
        op: OperandName,
        id: u32,
    ) -> RResult<Option<i128>> {
        match self.target(id) {
            Tgt::Const(v) => Ok(Some(v)),
            Tgt::None => Ok(None),
            _ => self.wrong(d, op, "an integer OpConstant", id),
        }
    }

    /// A number that must fit 32 bits (lines, columns, counts); absent → 0.
    pub(super) fn u32n(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<u32> {
        let v = self.num(d, op)?.unwrap_or(0);
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => fail(
                d.offset,
                Some(d.id),
                format!("{} operand `{op}` = {v} does not fit 32 bits", d.name()),
            ),
        }
    }

    /// A size or bound: a constant, a variable or expression that computes it, or absent.
    pub(super) fn bound_id(
        &mut self,
        d: &Dec<'_>,
        op: OperandName,
        id: u32,
    ) -> RResult<Option<Bound>> {
        match self.target(id) {
            // 64-bit constants are unsigned in OpenCL modules: LLVM's count -1 is 2^64 - 1 there.
            Tgt::Const(v) => match i64::try_from(v).or_else(|_| u64::try_from(v).map(|u| u as i64))
            {
                Ok(v) => Ok(Some(Bound::Const(v))),
                Err(_) => self.wrong(d, op, "a 64-bit constant", id),
            },
            Tgt::None => Ok(None),
            Tgt::Ref(r @ (Ref::Var(_) | Ref::Expr(_) | Ref::Type(_))) => Ok(Some(Bound::Ref(r))),
            Tgt::Unknown => {
                self.unknown_operand(d, op, id);
                Ok(None)
            }
            _ => self.wrong(d, op, "a constant, variable or expression", id),
        }
    }

    pub(super) fn bound(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<Bound>> {
        match d.word(op) {
            Some(id) => self.bound_id(d, op, id),
            None => Ok(None),
        }
    }

    /// A size in bits (a constant 0 with no layout, as glslang writes, stays 0).
    pub(super) fn size(&mut self, d: &Dec<'_>) -> RResult<Option<Bound>> {
        self.bound(d, operand::SIZE)
    }

    /// An id of the code (OpVariable, OpFunction, a value): any id inside the bound.
    pub(super) fn code(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<u32>> {
        let Some(id) = d.word(op) else {
            return Ok(None);
        };
        match self.target(id) {
            Tgt::None => Ok(None),
            Tgt::Code | Tgt::Const(_) if id != 0 && id < self.m.bound => Ok(Some(id)),
            _ => self.wrong(d, op, "an id of the code", id),
        }
    }

    /// DebugInfoFlags → IR flags; bits without a name go to `foreign`.
    pub(super) fn flags(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Flags> {
        let v = self.num(d, op)?.unwrap_or(0) as u32;
        Ok(flags_of(d.flavour.flags(), v))
    }

    /// A file: a DebugSource, or an OpString naming it (OpLine, 0.99 Source operands).
    pub(super) fn file(&mut self, d: &Dec<'_>, op: OperandName) -> RResult<Option<Handle<File>>> {
        let Some(id) = d.word(op) else {
            return Ok(None);
        };
        match self.target(id) {
            Tgt::Ref(Ref::File(h)) => Ok(Some(h)),
            Tgt::Str(_) => Ok(self.string_file(id)),
            Tgt::None => Ok(None),
            _ => self.wrong(d, op, "a DebugSource or an OpString", id),
        }
    }

    /// The file an OpString names: the DebugSource whose File it is, or a file made for it.
    pub(super) fn string_file(&mut self, id: u32) -> Option<Handle<File>> {
        if let Some(h) = self.string_files.get(&id) {
            return Some(*h);
        }
        let name = self.strings.get(&id)?.clone();
        let h = self.out.files.push(File {
            name,
            directory: None,
            checksum: None,
            source: None,
        });
        self.file_texts.push(None);
        self.string_files.insert(id, h);
        Some(h)
    }

    /// `Source`, `Line`, `Column` → a location (none when all are absent or zero).
    pub(super) fn loc(&mut self, d: &Dec<'_>) -> RResult<Option<Loc>> {
        let file = self.file(d, operand::SOURCE)?;
        let line = self.u32n(d, operand::LINE)?;
        let column = self.u32n(d, operand::COLUMN)?;
        Ok((file.is_some() || line != 0 || column != 0).then_some(Loc { file, line, column }))
    }
}

/// Set flag bits → IR flags (`Protected|Private` together are `public`).
pub(super) fn flags_of(table: &[(u32, Flags)], v: u32) -> Flags {
    let mut f = Flags::default();
    let mut rest = v;
    if v & 3 == 3 {
        f = f.with(Flags::PUBLIC);
        rest &= !3;
    }
    for &(bit, flag) in table {
        if rest & bit != 0 {
            f = f.with(flag);
            rest &= !bit;
        }
    }
    f.foreign = rest;
    f
}
