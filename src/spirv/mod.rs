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
//!    `OpTypeBool` and `OpTypeVoid` that has at least one use and all of whose uses are in removed
//!    instructions (the strings, numbers and their types only debug info needed). A *use* is an id
//!    operand per the core grammar; where the layout cannot be followed exactly (an unknown
//!    opcode, image operands, an execution mode, a decoration of unknown parameters) every
//!    remaining word counts as one. A decoration's and a memory operand's enumerant and literal
//!    parameters never count (`LinkageAttributes` is 41, `Aligned 4`): only their id parameters.
//!
//! A *code position* is the word offset, in the normal form, of an instruction the normal form
//! keeps (word 0 is the magic number). Re-emitting debug info in any flavour never moves these
//! positions, which is what lets `diff` compare modules written in different sets and DWARF written
//! from SPIR-V (`address = 4 × offset`) find its instructions again.

pub mod binary;
pub mod normal;

pub use binary::{Insn, Module, SpirvError};
pub use normal::{IdSet, NormalForm};
