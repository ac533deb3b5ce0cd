//! The SPIR-V binary as both directions see it: a checked list of instructions, the debug sets a
//! module imports, and its *debug-stripped normal form*, which code positions refer to.
//!
//! # The debug-stripped normal form
//!
//! The normal form of a module is the module with these instructions removed, and nothing else
//! changed (the header, the id bound and every other instruction keep their words and order):
//! 1. every `OpExtInst` of a debug set (`DebugInfo`, `OpenCL.DebugInfo.100`, `SPIRV.debug`,
//!    `NonSemantic.Shader.DebugInfo.*`) and the `OpExtInstImport`s of those sets;
//! 2. `OpLine` and `OpNoLine`;
//! 3. `OpExtension "SPV_KHR_non_semantic_info"` when no `NonSemantic.*` import is left;
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
    format!(
        "{:016x}{:016x}",
        fnv(FNV_OFFSET_BASIS),
        fnv(0x6c62_272e_07bb_0142)
    )
}

use crate::hash::{fnv1a, FNV_OFFSET_BASIS};

pub use binary::{Insn, Module, SpirvError};
pub use normal::{IdSet, NormalForm};
