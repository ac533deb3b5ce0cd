//! Module layout: a standalone module around the debug info, or the debug info woven into a given
//! module's normal form (logical layout sections of the SPIR-V spec, 2.4).

use super::code::Inserts;
use super::encode::Emitter;
use crate::spirv::binary::Module as Bin;
use crate::spirv::binary::{insn, string_words};
use rspirv::spirv::{AddressingModel, Capability, ExecutionMode, ExecutionModel, MemoryModel, Op};

pub const NON_SEMANTIC_EXTENSION: &str = "SPV_KHR_non_semantic_info";
/// `OpExtInstWithForwardRefsKHR`'s extension (`Encoding::forward_refs`).
pub(crate) use crate::spirv::normal::RELAXED_EXTENSION;
/// DebugModuleINTEL's extension and capability.
const INTEL_MODULE_EXTENSION: &str = "SPV_INTEL_debug_module";

fn with_string(opcode: Op, head: &[u32], s: &str) -> Vec<u32> {
    let mut ops = head.to_vec();
    ops.extend(string_words(s));
    insn(opcode, &ops)
}

fn import(e: &Emitter) -> Vec<u32> {
    with_string(Op::ExtInstImport, &[e.import], e.flavour.import_name())
}

/// Capabilities of a standalone module: Addresses, Linkage, Kernel, GenericPointer; or Shader.
pub fn standalone_caps(kernel: bool) -> &'static [u32] {
    use Capability::*;
    if kernel {
        &[
            Addresses as u32,
            Linkage as u32,
            Kernel as u32,
            GenericPointer as u32,
        ]
    } else {
        &[Shader as u32]
    }
}

/// SPIR-V 1.0 for Kernel modules (what OpenCL consumers take), 1.3 for Shader ones.
pub fn standalone_version(kernel: bool) -> u32 {
    if kernel {
        0x0001_0000
    } else {
        0x0001_0300
    }
}

/// A module holding only debug info: Kernel + Physical64/OpenCL (Physical32 for 4-byte
/// addresses; with Linkage, as it has no entry point) for LLVM IR and OpenCL-ish languages,
/// Shader + Logical/GLSL450 with an empty GLCompute `main` otherwise.
/// The address size a standalone module's addressing model says: a kernel's Physical32 for 4
/// bytes, else Physical64; a shader's Logical, none.
pub fn standalone_address_size(kernel: bool, address_size: Option<u8>) -> Option<u8> {
    match (kernel, address_size) {
        (false, _) => None,
        (true, Some(4)) => Some(4),
        (true, _) => Some(8),
    }
}

pub fn standalone(mut e: Emitter, kernel: bool, address_size: Option<u8>) -> Vec<u32> {
    let mut tail = Vec::new();
    let mut head = Vec::new();
    let mut entry = Vec::new();
    for cap in standalone_caps(kernel) {
        head.extend(insn(Op::Capability, &[*cap]));
    }
    if e.interned.ulong_added {
        head.extend(insn(Op::Capability, &[Capability::Int64 as u32]));
    }
    if e.intel_module {
        head.extend(insn(
            Op::Capability,
            &[Capability::DebugInfoModuleINTEL as u32],
        ));
    }
    if e.flavour.non_semantic() {
        head.extend(with_string(Op::Extension, &[], NON_SEMANTIC_EXTENSION));
    }
    if e.intel_module {
        head.extend(with_string(Op::Extension, &[], INTEL_MODULE_EXTENSION));
    }
    if e.forward_refs_used {
        head.extend(with_string(Op::Extension, &[], RELAXED_EXTENSION));
    }
    head.extend(import(&e));
    if kernel {
        let addressing = match standalone_address_size(kernel, address_size) {
            Some(4) => AddressingModel::Physical32,
            _ => AddressingModel::Physical64,
        };
        let model = [addressing as u32, MemoryModel::OpenCL as u32];
        head.extend(insn(Op::MemoryModel, &model));
    } else {
        let model = [AddressingModel::Logical as u32, MemoryModel::GLSL450 as u32];
        head.extend(insn(Op::MemoryModel, &model));
        let void = e.void();
        let fnty = e.id();
        let main = e.id();
        let label = e.id();
        e.types.extend(insn(Op::TypeFunction, &[fnty, void]));
        let gl_compute = ExecutionModel::GLCompute as u32;
        entry.extend(with_string(Op::EntryPoint, &[gl_compute, main], "main"));
        let local_size = ExecutionMode::LocalSize as u32;
        entry.extend(insn(Op::ExecutionMode, &[main, local_size, 1, 1, 1]));
        tail.extend(insn(Op::Function, &[void, main, 0, fnty]));
        tail.extend(insn(Op::Label, &[label]));
        tail.extend(insn(Op::Return, &[]));
        tail.extend(insn(Op::FunctionEnd, &[]));
    }
    let version = standalone_version(kernel);
    let mut out = vec![crate::spirv::binary::MAGIC, version, 0, e.bound, 0];
    out.extend(head);
    out.extend(entry);
    out.extend(e.strings);
    out.extend(e.types);
    out.extend(e.debug);
    out.extend(tail);
    out
}

/// Where each new section goes in the base module: the index of the instruction it precedes.
struct Points {
    extension: usize,
    import: usize,
    strings: usize,
    globals: usize,
}

fn points(bin: &Bin<'_>) -> Points {
    let first_not = |ops: &[Op]| {
        bin.insns
            .iter()
            .position(|i| !i.op().is_some_and(|o| ops.contains(&o)))
            .unwrap_or(bin.insns.len())
    };
    let extension = first_not(&[Op::Capability]);
    let import = first_not(&[Op::Capability, Op::Extension]).max(extension);
    let strings = first_not(&[
        Op::Capability,
        Op::Extension,
        Op::ExtInstImport,
        Op::MemoryModel,
        Op::EntryPoint,
        Op::ExecutionMode,
        Op::ExecutionModeId,
        Op::String,
        Op::SourceExtension,
        Op::Source,
        Op::SourceContinued,
    ])
    .max(import);
    let globals = bin
        .insns
        .iter()
        .position(|i| i.opcode() == Op::Function as u16)
        .unwrap_or(bin.insns.len())
        .max(strings);
    Points {
        extension,
        import,
        strings,
        globals,
    }
}

/// Whether the module's words (all of them: a normal form's view keeps the module's) declare an
/// extension. Capabilities and extensions open a module: the scan stops at the first other
/// instruction.
pub fn declares_extension(words: &[u32], name: &str) -> bool {
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, opcode) = ((first >> 16) as usize, (first & 0xffff) as u16);
        let Some(insn) = words.get(at..at + count).filter(|_| count > 0) else {
            return false;
        };
        match opcode {
            o if o == Op::Capability as u16 => {}
            o if o == Op::Extension as u16 => {
                let bytes: Vec<u8> = insn[1..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                if &bytes[..end] == name.as_bytes() {
                    return true;
                }
            }
            _ => return false,
        }
        at += count;
    }
    false
}

fn has_extension(bin: &Bin<'_>, name: &str) -> bool {
    bin.insns
        .iter()
        .any(|i| i.opcode() == Op::Extension as u16 && i.string(0).is_ok_and(|(s, _)| s == name))
}

/// Appends words as little-endian bytes.
fn put(out: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// The base module's normal form with the debug info woven in, as little-endian bytes.
pub fn weave(mut e: Emitter, bin: &Bin<'_>, inserts: Inserts) -> Vec<u8> {
    let p = points(bin);
    // Module-level sections, in index order (the points do not decrease); at one index they go
    // before the in-function inserts.
    let mut at: Vec<(usize, Vec<u32>)> = Vec::new();
    if e.flavour.non_semantic() && !has_extension(bin, NON_SEMANTIC_EXTENSION) {
        at.push((
            p.extension,
            with_string(Op::Extension, &[], NON_SEMANTIC_EXTENSION),
        ));
    }
    if e.intel_module && !has_extension(bin, INTEL_MODULE_EXTENSION) {
        // Capabilities come first: the new one goes after the module's own.
        let mut decls = insn(Op::Capability, &[Capability::DebugInfoModuleINTEL as u32]);
        decls.extend(with_string(Op::Extension, &[], INTEL_MODULE_EXTENSION));
        at.push((p.extension, decls));
    }
    if e.forward_refs_used && !has_extension(bin, RELAXED_EXTENSION) {
        at.push((
            p.extension,
            with_string(Op::Extension, &[], RELAXED_EXTENSION),
        ));
    }
    at.push((p.import, import(&e)));
    at.push((p.strings, std::mem::take(&mut e.strings)));
    let mut globals = std::mem::take(&mut e.types);
    globals.extend(&e.debug);
    at.push((p.globals, globals));
    let (words, parts) = inserts.into_sorted();
    let extra: usize = at.iter().map(|(_, w)| w.len()).sum::<usize>() + words.len();
    let base = bin.insns.last().map_or(5, |i| i.offset + i.words.len());
    let mut out = Vec::with_capacity(4 * (base + extra));
    let mut header = [0u32; 5];
    header.copy_from_slice(&bin.words[..5]);
    header[3] = e.bound;
    put(&mut out, &header);
    // Both lists in index order, consumed alongside the instructions.
    let mut module = at.into_iter().peekable();
    let mut parts = parts.into_iter().peekable();
    let mut before = |out: &mut Vec<u8>, i: usize| {
        while let Some((_, ws)) = module.next_if(|(k, _)| *k <= i) {
            put(out, &ws);
        }
        while let Some(part) = parts.next_if(|p| p.at() <= i) {
            put(out, &words[part.range()]);
        }
    };
    for (i, insn) in bin.insns.iter().enumerate() {
        before(&mut out, i);
        put(&mut out, insn.words);
    }
    before(&mut out, usize::MAX);
    out
}
