//! What the conversion adds before the first debug instruction, each once: the 32-bit constants
//! the other set's numbers need (and their `OpTypeInt 32 0`), a DebugInfoNone, an
//! `OpConstantFalse` (and its `OpTypeBool`).

use rspirv::spirv::Op;
use rspirv::spirv::OpenclDebuginfo100Op as DebugOp;

use crate::spirv::binary::first_word;

use super::super::head::Head;
use super::super::words::Declined;
use super::Target;

impl Target {
    /// The id of the 32-bit unsigned constant `value` (added when new).
    pub(super) fn constant(&mut self, head: &mut Head<'_>, value: u32) -> Result<u32, Declined> {
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

    /// The id of a DebugInfoNone added before the first debug instruction.
    pub(super) fn info_none(&mut self, head: &mut Head<'_>) -> Result<u32, Declined> {
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
    pub(super) fn false_constant(&mut self, head: &mut Head<'_>) -> Result<u32, Declined> {
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
}
