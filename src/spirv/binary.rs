//! Word-level SPIR-V: the header and a bounds-checked instruction list. Everything that is
//! structurally wrong (truncation, a zero or overlong word count, an id beyond the bound) is an
//! error naming the word offset; everything else is kept as it is.

use std::fmt;

use rspirv::spirv::Op;

pub const MAGIC: u32 = 0x0723_0203;

/// The core opcodes that shared callers still name by these constants; the SPIR-V reader,
/// writers and word layer use `rspirv::spirv::Op` itself. Values are rspirv's.
pub mod op {
    use rspirv::spirv::Op;

    pub const NAME: u16 = Op::Name as u16;
    pub const STRING: u16 = Op::String as u16;
    pub const LINE: u16 = Op::Line as u16;
    pub const EXT_INST_IMPORT: u16 = Op::ExtInstImport as u16;
    pub const EXT_INST: u16 = Op::ExtInst as u16;
    pub const EXT_INST_WITH_FORWARD_REFS: u16 = Op::ExtInstWithForwardRefsKHR as u16;
    pub const ENTRY_POINT: u16 = Op::EntryPoint as u16;
    pub const CAPABILITY: u16 = Op::Capability as u16;
    pub const TYPE_INT: u16 = Op::TypeInt as u16;
    pub const TYPE_FLOAT: u16 = Op::TypeFloat as u16;
    pub const CONSTANT: u16 = Op::Constant as u16;
    pub const CONSTANT_COMPOSITE: u16 = Op::ConstantComposite as u16;
    pub const FUNCTION: u16 = Op::Function as u16;
    pub const FUNCTION_PARAMETER: u16 = Op::FunctionParameter as u16;
    pub const FUNCTION_END: u16 = Op::FunctionEnd as u16;
    pub const VARIABLE: u16 = Op::Variable as u16;
    pub const PHI: u16 = Op::Phi as u16;
    pub const LABEL: u16 = Op::Label as u16;
    pub const NO_LINE: u16 = Op::NoLine as u16;
    pub const SOURCE: u16 = Op::Source as u16;
    pub const SOURCE_CONTINUED: u16 = Op::SourceContinued as u16;
    pub const SOURCE_EXTENSION: u16 = Op::SourceExtension as u16;
    pub const MEMBER_NAME: u16 = Op::MemberName as u16;
    pub const MODULE_PROCESSED: u16 = Op::ModuleProcessed as u16;
}

/// `Khronos LLVM/SPIR-V Translator` in the header's generator word (high half).
pub const LLVM_SPIRV_GENERATOR: u32 = 6;

/// The first word of an instruction: word count and opcode.
pub fn first_word(count: usize, op: Op) -> u32 {
    ((count as u32) << 16) | op as u32
}

/// An instruction's words.
pub fn insn(op: Op, operands: &[u32]) -> Vec<u32> {
    let mut w = Vec::with_capacity(operands.len() + 1);
    w.push(first_word(operands.len() + 1, op));
    w.extend_from_slice(operands);
    w
}

/// A literal string's words: UTF-8, NUL-terminated, padded with NULs to a whole word.
pub fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while bytes.len() % 4 != 0 {
        bytes.push(0);
    }
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SpirvError {
    /// The word offset where the damage is.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for SpirvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "word {}: {}", self.offset, self.message)
    }
}

pub type SResult<T> = Result<T, SpirvError>;

fn err<T>(offset: usize, message: impl Into<String>) -> SResult<T> {
    Err(SpirvError {
        offset,
        message: message.into(),
    })
}

/// One instruction: where it starts and its words (the first holds count and opcode).
#[derive(Clone, Copy, Debug)]
pub struct Insn<'a> {
    pub offset: usize,
    pub words: &'a [u32],
}

impl<'a> Insn<'a> {
    pub fn opcode(&self) -> u16 {
        (self.words[0] & 0xffff) as u16
    }
    /// The operand words after the opcode word.
    pub fn operands(&self) -> &'a [u32] {
        &self.words[1..]
    }
    /// Word `i` of the operands, or an error naming the instruction.
    pub fn operand(&self, i: usize) -> SResult<u32> {
        match self.words.get(1 + i) {
            Some(w) => Ok(*w),
            None => err(
                self.offset,
                format!(
                    "opcode {} has {} operand words, needs at least {}",
                    self.opcode(),
                    self.words.len() - 1,
                    i + 1
                ),
            ),
        }
    }
    /// A literal string starting at operand word `i`, and the operand index after it.
    pub fn string(&self, i: usize) -> SResult<(String, usize)> {
        let words = self.words.get(1 + i..).unwrap_or(&[]);
        let mut bytes = Vec::new();
        for (n, w) in words.iter().enumerate() {
            for b in w.to_le_bytes() {
                if b == 0 {
                    return Ok((String::from_utf8_lossy(&bytes).into_owned(), i + n + 1));
                }
                bytes.push(b);
            }
        }
        err(
            self.offset,
            "a literal string runs past the end of its instruction (no NUL)",
        )
    }
}

/// A parsed module: its header and instructions, borrowing the words.
pub struct Module<'a> {
    pub words: &'a [u32],
    pub version: u32,
    pub generator: u32,
    pub bound: u32,
    pub insns: Vec<Insn<'a>>,
    /// Ids at or above the bound that a writer must not allocate, sorted: words of kept
    /// instructions that may be ids (`NormalForm::into_view` fills it; see `NormalForm::taken`).
    pub taken: Vec<u32>,
}

/// Turns bytes into words, in the module's byte order (either is accepted).
pub fn to_words(bytes: &[u8]) -> SResult<Vec<u32>> {
    if bytes.len() % 4 != 0 {
        return err(
            bytes.len() / 4,
            format!("{} bytes is not a whole number of words", bytes.len()),
        );
    }
    if bytes.len() < 20 {
        return err(bytes.len() / 4, "shorter than the 5-word SPIR-V header");
    }
    let swap = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) != MAGIC;
    // The instruction counts are checked on the bytes first, so that a module damaged early
    // is refused before a copy of all of it is made (a 1 GiB input costs nothing then).
    let word_at = |i: usize| {
        let w = u32::from_le_bytes([
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ]);
        if swap {
            w.swap_bytes()
        } else {
            w
        }
    };
    if word_at(0) == MAGIC {
        count_instructions(bytes.len() / 4, word_at)?;
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if swap {
                w.swap_bytes()
            } else {
                w
            }
        })
        .collect())
}

/// The number of instructions after the header of a module of `len` words, checking that every
/// word count is at least 1 and that no instruction runs past the end.
fn count_instructions(len: usize, word_at: impl Fn(usize) -> u32) -> SResult<usize> {
    let (mut i, mut n) = (5, 0);
    while i < len {
        let word = word_at(i);
        let (count, opcode) = ((word >> 16) as usize, word & 0xffff);
        if count == 0 {
            return err(
                i,
                format!("instruction (opcode {opcode}) with word count 0"),
            );
        }
        if i + count > len {
            return err(i, format!("instruction (opcode {opcode}) of {count} words runs past the end of the module ({len} words)"));
        }
        i += count;
        n += 1;
    }
    Ok(n)
}

impl<'a> Module<'a> {
    /// Address size from OpMemoryModel: 4 for Physical32, 8 for Physical64 and
    /// PhysicalStorageBuffer64, none for Logical.
    pub fn address_size(&self) -> Option<u8> {
        use rspirv::spirv::AddressingModel;
        let insn = self
            .insns
            .iter()
            .find(|i| i.opcode() == Op::MemoryModel as u16)?;
        match AddressingModel::from_u32(insn.operand(0).ok()?)? {
            AddressingModel::Physical32 => Some(4),
            AddressingModel::Physical64 | AddressingModel::PhysicalStorageBuffer64 => Some(8),
            _ => None,
        }
    }

    /// Splits the words into instructions, checking counts.
    pub fn parse(words: &'a [u32]) -> SResult<Self> {
        if words.len() < 5 {
            return err(words.len(), "shorter than the 5-word SPIR-V header");
        }
        if words[0] != MAGIC {
            return err(0, format!("not SPIR-V: magic 0x{:08x}", words[0]));
        }
        let mut insns = Vec::with_capacity(count_instructions(words.len(), |i| words[i])?);
        let mut i = 5;
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            insns.push(Insn {
                offset: i,
                words: &words[i..i + count],
            });
            i += count;
        }
        Ok(Module {
            words,
            version: words[1],
            generator: words[2],
            bound: words[3],
            insns,
            taken: Vec::new(),
        })
    }

    /// Checks that an id is below the bound.
    pub fn check_id(&self, insn: &Insn<'_>, id: u32) -> SResult<u32> {
        if id == 0 || id >= self.bound {
            return err(
                insn.offset,
                format!("id %{id} is outside the module's id bound {}", self.bound),
            );
        }
        Ok(id)
    }
}
