//! Covers src/build_step/emitter.rs (`DebugInfoStep`).
//!
//! The build-step library API (`dwarv::build_step`): an emitter that knows which SPIR-V
//! instruction each LLVM instruction became gets its module back with the debug information
//! woven in. The "emitter" here is llvm-spirv-14's translation of the debug-stripped module,
//! with ties taken where a block's instructions pair one to one.
#![cfg(feature = "llvm")]

use std::collections::HashMap;

use dwarv::build_step::DebugInfoStep;
use dwarv::ir::CodePos;
use dwarv::unstable::spec::spirv::Flavour;
use dwarv::unstable::spirv::binary::{op, Module as Bin};
use dwarv::unstable::spirv::normal::NormalForm;

/// The (word offset, word count) of each instruction of a block.
type Block = Vec<(u32, u32)>;

#[test]
fn an_emitters_ties_give_functions_lines_and_variables_that_validate() {
    let corpus = crate::support::corpus();
    let bitcode = std::fs::read(corpus.join("kernel.O0.bc")).unwrap();
    let code = std::fs::read(corpus.join("kernel.nodebug.spv")).unwrap();
    let words: Vec<u32> = code
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let bin = Bin::parse(&words).unwrap();

    // The emitted module: functions by OpName, blocks of (offset, length) per function.
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut functions: Vec<(u32, Vec<Block>)> = Vec::new();
    let mut value_names: Vec<(u32, String, u32)> = Vec::new();
    for insn in &bin.insns {
        let ops = insn.operands();
        match insn.opcode() {
            op::NAME => {
                names.insert(ops[0], insn.string(1).unwrap().0);
            }
            op::FUNCTION => functions.push((ops[1], Vec::new())),
            op::LABEL => functions.last_mut().unwrap().1.push(Vec::new()),
            op::FUNCTION_END => {}
            _ => {
                if let Some((f, blocks)) = functions.last_mut() {
                    if let Some(b) = blocks.last_mut() {
                        b.push((insn.offset as u32, insn.words.len() as u32));
                        // The values tied by name: variables, phis and extended instructions.
                        let id = insn.result_id().filter(|_| {
                            matches!(insn.opcode(), op::VARIABLE | op::PHI | op::EXT_INST)
                        });
                        if let Some((id, n)) = id.and_then(|id| Some((id, names.get(&id)?))) {
                            value_names.push((*f, n.clone(), id));
                        }
                    }
                }
            }
        }
    }

    let mut step = DebugInfoStep::from_llvm(&bitcode, "kernel.O0.bc").unwrap();
    let mut tied: Vec<(u32, u32)> = Vec::new();
    let mut bound_ids: Vec<u32> = Vec::new();
    for (id, blocks) in &functions {
        let Some(name) = names.get(id).cloned() else {
            continue;
        };
        let Some(llvm_blocks) = step.blocks(&name) else {
            continue;
        };
        assert!(step.function(&name).is_some(), "{name} has a DISubprogram");
        step.emitted_function(&name, *id);
        bound_ids.push(*id);
        for (vf, vname, vid) in &value_names {
            if vf == id {
                step.emitted_value(&name, vname, *vid);
            }
        }
        for (llvm, spirv) in llvm_blocks.iter().zip(blocks) {
            let code: Vec<u32> = llvm
                .clone()
                .filter(|&i| !step.is_debug_intrinsic(i))
                .collect();
            if code.len() != spirv.len() {
                continue;
            }
            for (i, (offset, len)) in code.into_iter().zip(spirv) {
                step.emitted_instruction(i, *offset, *len);
                tied.push((i, *offset));
            }
        }
    }
    assert!(tied.len() > 100, "only {} instructions tied", tied.len());
    let expected: Vec<(u32, u32)> = tied
        .iter()
        .filter_map(|&(i, off)| Some((off, step.location(i)?.line)))
        .collect();

    let (out, _losses) = step.finish(&words, Flavour::OpenCl100).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("build_step");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kernel.spv");
    std::fs::write(&path, &out).unwrap();
    crate::support::spirv_val(&path, "spv1.4");

    // Read back: every OpFunction with a DISubprogram is bound, and every tied instruction
    // with a location carries that line.
    let back = dwarv::unstable::input::load(path.to_str().unwrap()).unwrap();
    for (id, _) in functions.iter().filter(|(id, _)| bound_ids.contains(id)) {
        let bound = back.scopes.values().any(|s| {
            s.function()
                .is_some_and(|f| f.binding == Some(dwarv::ir::Value::Spirv(*id)))
        });
        assert!(
            bound,
            "OpFunction %{id} ({}) has its DebugFunction",
            names[id]
        );
    }
    let nf = NormalForm::compute(&bin).unwrap();
    let nf_offset: HashMap<u32, u32> = bin
        .insns
        .iter()
        .zip(&nf.offsets)
        .filter_map(|(insn, o)| Some((insn.offset as u32, (*o)?)))
        .collect();
    let line_at = |off: u32| {
        let p = CodePos::Spirv(nf_offset[&off]);
        back.lines
            .iter()
            .find(|r| r.range.start <= p && p < r.range.end)
            .map(|r| r.at.line)
    };
    let wrong: Vec<_> = expected
        .iter()
        .filter(|(off, line)| line_at(*off) != Some(*line))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} tied instructions without their line: {:?}",
        wrong.len(),
        expected.len(),
        &wrong[..wrong.len().min(10)]
    );
    let declared = back
        .events
        .iter()
        .filter(|e| matches!(e.kind, dwarv::ir::EventKind::Declare))
        .count();
    assert!(declared > 0, "parameters and locals are declared");
}
