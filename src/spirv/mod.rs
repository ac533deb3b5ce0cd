//! The SPIR-V binary as both directions see it: a checked list of instructions, the debug sets a
//! module imports, and its *debug-stripped normal form*, which code positions refer to.
//!
//! # The debug-stripped normal form
//!
//! The normal form of a module is the module with these instructions removed, and nothing else
//! changed (the header, the id bound and every other instruction keep their words and order):
//! 1. every `OpExtInst` of a debug set (`DebugInfo`, `OpenCL.DebugInfo.100`, `SPIRV.debug`,
//!    `NonSemantic.Shader.DebugInfo.*`) and the `OpExtInstImport`s of those sets;
//! 2. `OpLine` and `OpNoLine`, and the `OpName`, `OpMemberName` and decorations (`OpDecorate`,
//!    `OpMemberDecorate`, `OpDecorateString`, `OpMemberDecorateString`, `OpDecorateId`) whose
//!    target is the result of an instruction of 1 (Slang names its debug variables; the names
//!    go with them). `OpExtInstWithForwardRefsKHR` counts as `OpExtInst` throughout;
//! 3. `OpExtension "SPV_KHR_non_semantic_info"` when no `NonSemantic.*` import is left, and
//!    `OpExtension "SPV_KHR_relaxed_extended_instruction"` when no `OpExtInstWithForwardRefsKHR`
//!    is (a writer that refers forward declares it: it must not move the code);
//! 4. repeatedly, until nothing changes: every `OpString`, `OpConstant`, `OpConstantTrue`,
//!    `OpConstantFalse`, `OpConstantNull`, `OpConstantComposite`, `OpTypeInt`, `OpTypeFloat`,
//!    `OpTypeBool` and `OpTypeVoid` none of whose uses is in a kept instruction, including one
//!    that has no use at all (the strings, numbers and their types only debug info needed; an
//!    unused one goes too, because a writer that reuses it for debug operands would otherwise
//!    change the normal form of its output). A *use* is an id
//!    operand per the core grammar; where the layout cannot be followed exactly (an unknown
//!    opcode, image operands, an execution mode, a decoration of unknown parameters) every
//!    remaining word counts as one. A decoration's and a memory operand's enumerant and literal
//!    parameters never count (`LinkageAttributes` is 41, `Aligned 4`): only their id parameters.
//!
//! A *code position* is the word offset, in the normal form, of an instruction the normal form
//! keeps (word 0 is the magic number). Re-emitting debug info in any flavour never moves these
//! positions, which is what lets `diff` compare modules written in different sets and DWARF written
//! from SPIR-V (`address = 4 × offset`) find its instructions again.

//!
//! # Link records
//!
//! `dwarv strip` ties a stripped module to its DWARF sidecar with a NonSemantic
//! `DebugBuildIdentifier` whose identifier is [`build_id`] of the module's normal form (flag
//! `IdentifierPossibleDuplicates`: the same code from other sources has the same identifier),
//! followed by a `DebugStoragePath` naming the sidecar. A reader takes a build identifier equal to
//! the module's own `build_id` as these link records (`ir::ModuleInfo::link`), not as the
//! module's build id.

pub mod binary;
pub mod grammar;
pub mod normal;
pub mod own_set;

/// Whether a module (its bytes, in either byte order) is one a Vulkan driver would load: it
/// declares the Shader capability and an entry point of a graphics, compute or ray-tracing
/// execution model (not Kernel). Looks only at the module-level instructions before the first
/// function; a damaged module is not one.
pub fn vulkan_shader(bytes: &[u8]) -> bool {
    let big_endian = bytes.starts_with(&0x0723_0203u32.to_be_bytes());
    vulkan_shader_words(|i| {
        let b: [u8; 4] = bytes.get(4 * i..4 * i + 4)?.try_into().ok()?;
        Some(match big_endian {
            true => u32::from_be_bytes(b),
            false => u32::from_le_bytes(b),
        })
    })
}

/// [`vulkan_shader`] of a module's words, word `i` given by `word(i)`.
pub fn vulkan_shader_words(word: impl Fn(usize) -> Option<u32>) -> bool {
    use rspirv::spirv::{Capability, ExecutionModel, Op};
    if word(0) != Some(0x0723_0203) {
        return false;
    }
    let (mut shader, mut entry) = (false, false);
    let mut i = 5;
    while let Some(head) = word(i) {
        let (count, opcode) = ((head >> 16) as usize, (head & 0xffff) as u16);
        match grammar::op(opcode) {
            _ if count == 0 => return false,
            Some(Op::Function) => break,
            Some(Op::Capability) => shader |= word(i + 1) == Some(Capability::Shader as u32),
            Some(Op::EntryPoint) => {
                entry |= word(i + 1).is_some_and(|m| m != ExecutionModel::Kernel as u32)
            }
            _ => {}
        }
        i += count;
    }
    shader && entry
}

/// [`build_id`] of a normal form given as its view (`NormalForm::into_view`).
pub fn build_id_of_view(view: &binary::Module<'_>) -> String {
    let mut words = view.words[..5.min(view.words.len())].to_vec();
    for insn in &view.insns {
        words.extend_from_slice(insn.words);
    }
    build_id(&words)
}

/// The build identifier of a normal form: 32 lowercase hex digits, FNV-1a (64-bit) of its words
/// but the id bound (which debug info written into the module raises), as little-endian bytes,
/// from two offset bases. Not cryptographic: it tells a sidecar that belongs to the code from one
/// that does not.
pub fn build_id(normal_form: &[u32]) -> String {
    let fnv = |basis: u64| {
        let words = normal_form.iter().enumerate().filter(|(i, _)| *i != 3);
        fnv1a(basis, words.flat_map(|(_, w)| w.to_le_bytes()))
    };
    format!("{:016x}{:016x}", fnv(FNV_OFFSET_BASIS), fnv(SECOND_BASIS))
}

/// The identity of a normal form's code (`ir::ModuleInfo::code_id`), given as its header and its
/// instructions' words: a stable 128-bit hash of its words but the id bound (which debug info
/// written into the module raises), FNV-1a's step taken a word at a time from two bases in one
/// pass (a byte at a time, as [`build_id`] takes it, cost every read of a large module 8% more),
/// as 32 lowercase hex digits.
pub fn code_id<'a>(parts: impl IntoIterator<Item = &'a [u32]>) -> String {
    let (mut a, mut b) = (FNV_OFFSET_BASIS, SECOND_BASIS);
    let mut at = 0usize;
    for part in parts {
        for &w in part {
            if at != 3 {
                a = (a ^ u64::from(w)).wrapping_mul(FNV_PRIME);
                b = (b ^ u64::from(w)).wrapping_mul(FNV_PRIME);
            }
            at += 1;
        }
    }
    format!("{a:016x}{b:016x}")
}

/// [`code_id`] of a normal form given as its view (`NormalForm::into_view`).
pub fn code_id_of_view(view: &binary::Module<'_>) -> String {
    let header = &view.words[..5.min(view.words.len())];
    code_id(std::iter::once(header).chain(view.insns.iter().map(|i| i.words)))
}

/// The second offset basis of the 128-bit hashes here.
const SECOND_BASIS: u64 = 0x6c62_272e_07bb_0142;

use crate::hash::{fnv1a, FNV_OFFSET_BASIS, FNV_PRIME};

pub use binary::{Insn, Module, SpirvError};
pub use normal::{IdSet, NormalForm};
