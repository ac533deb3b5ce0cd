//! A build step on an inkwell module (`cargo run --release --features inkwell --example
//! inkwell_step -- OUT.spv`): builds `int scale(int x) { int y = x * 3; return y; }` for spir64
//! with DIBuilder (a subprogram, a location on each instruction, a local variable), hands the
//! module to `DebugInfoStep::from_inkwell` (its debug info read in process, no bitcode), has the
//! peer translator (llvm-spirv-14) write the code of the debug-stripped module, ties each LLVM
//! instruction to the SPIR-V instruction it became, and writes the code with its debug info in
//! OpenCL.DebugInfo.100.

use std::error::Error;
use std::path::{Path, PathBuf};

use dwarv::build_step::DebugInfoStep;
use dwarv::Flavour;
use inkwell::context::Context;
use inkwell::debug_info::{
    AsDIScope, DICompileUnit, DIFlags, DIFlagsConstants, DWARFEmissionKind, DWARFSourceLanguage,
    DebugInfoBuilder,
};
use inkwell::module::FlagBehavior;
use inkwell::targets::TargetTriple;

/// What the step wrote: the module and the losses it reported.
pub struct Written {
    pub module: Vec<u8>,
    pub losses: Vec<String>,
    /// LLVM instructions tied to SPIR-V ones.
    pub tied: usize,
}

/// Runs the whole step; `scratch` holds the stripped bitcode and the translator's code module.
pub fn run(llvm_spirv: &Path, scratch: &Path) -> Result<Written, Box<dyn Error>> {
    let context = Context::create();
    let module = context.create_module("scale.cl");
    module.set_triple(&TargetTriple::create("spir64-unknown-unknown"));
    let i32t = context.i32_type();
    let version = i32t.const_int(3, false);
    module.add_basic_value_flag("Debug Info Version", FlagBehavior::Warning, version);
    let (di, unit) = debug_info_builder(&module, "scale.cl");
    let file = unit.get_file();
    let int = di.create_basic_type("int", 32, 0x05, DIFlags::PUBLIC)?; // DW_ATE_signed
    let signature =
        di.create_subroutine_type(file, Some(int.as_type()), &[int.as_type()], DIFlags::PUBLIC);
    let subprogram = di.create_function(
        unit.as_debug_info_scope(),
        "scale",
        None,
        file,
        1,
        signature,
        false,
        true,
        1,
        DIFlags::PROTOTYPED,
        false,
    );
    let function = module.add_function("scale", i32t.fn_type(&[i32t.into()], false), None);
    function.set_subprogram(subprogram);
    let entry = context.append_basic_block(function, "entry");
    let b = context.create_builder();
    b.position_at_end(entry);
    let at = |line, column| {
        di.create_debug_location(
            &context,
            line,
            column,
            subprogram.as_debug_info_scope(),
            None,
        )
    };
    b.set_current_debug_location(at(2, 7));
    let y = b.build_alloca(i32t, "y")?;
    let var = di.create_auto_variable(
        subprogram.as_debug_info_scope(),
        "y",
        file,
        2,
        int.as_type(),
        true,
        DIFlags::ZERO,
        32,
    );
    di.insert_declare_at_end(y, Some(var), None, at(2, 7), entry);
    b.position_at_end(entry);
    let x = function
        .get_nth_param(0)
        .ok_or("no parameter")?
        .into_int_value();
    let product = b.build_int_mul(x, i32t.const_int(3, false), "mul")?;
    b.build_store(y, product)?;
    b.set_current_debug_location(at(3, 10));
    let value = b.build_load(y, "value")?;
    b.build_return(Some(&value))?;
    di.finalize();
    module.verify().map_err(|e| e.to_string())?;

    // The debug info, read from the module in memory.
    let mut step = DebugInfoStep::from_inkwell(&module)?;

    // The emitter: the translator, on the module without its debug info.
    let code_module = module.clone();
    code_module.strip_debug_info();
    let stripped = scratch.join("scale.nodebug.bc");
    let code_path = scratch.join("scale.code.spv");
    if !code_module.write_bitcode_to_path(&stripped) {
        return Err("writing the stripped bitcode failed".into());
    }
    let status = std::process::Command::new(llvm_spirv)
        .arg(&stripped)
        .arg("-o")
        .arg(&code_path)
        .status()?;
    if !status.success() {
        return Err(format!("{} failed on {}", llvm_spirv.display(), stripped.display()).into());
    }
    let bytes = std::fs::read(&code_path)?;
    let words: Vec<u32> = (bytes.chunks_exact(4))
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();

    // The ties an emitter knows; taken here from the translator's output: the OpFunction named
    // `scale`, and its instructions paired one to one with the LLVM ones (debug calls aside).
    let tied = tie(&mut step, &words)?;
    let (out, losses) = step.finish(&words, Flavour::OpenCl100)?;
    Ok(Written {
        module: out,
        losses: losses.losses.iter().map(|l| l.message.clone()).collect(),
        tied,
    })
}

/// A DIBuilder and an OpenCL compile unit of `file` (in `/src`) for `module`.
pub fn debug_info_builder<'ctx>(
    module: &inkwell::module::Module<'ctx>,
    file: &str,
) -> (DebugInfoBuilder<'ctx>, DICompileUnit<'ctx>) {
    module.create_debug_info_builder(
        true,
        DWARFSourceLanguage::OpenCL,
        file,
        "/src",
        "dwarv inkwell example",
        false,
        "",
        0,
        "",
        DWARFEmissionKind::Full,
        0,
        false,
        false,
        "",
        "",
    )
}

/// Ties the translator's `scale` to the LLVM function, instruction by instruction.
fn tie(step: &mut DebugInfoStep, words: &[u32]) -> Result<usize, Box<dyn Error>> {
    const NAME: u32 = 5;
    const FUNCTION: u32 = 54;
    const FUNCTION_END: u32 = 56;
    const LABEL: u32 = 248;
    let mut names = std::collections::HashMap::new();
    let mut body: Option<(u32, Vec<(u32, u32)>)> = None;
    let mut at = 5;
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if count == 0 || at + count > words.len() {
            return Err("a malformed module from the translator".into());
        }
        let ops = &words[at + 1..at + count];
        match opcode {
            NAME => {
                let (&target, name) = ops.split_first().ok_or("an OpName without operands")?;
                let text: Vec<u8> = name.iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = text.iter().position(|&c| c == 0).unwrap_or(text.len());
                names.insert(target, String::from_utf8_lossy(&text[..end]).into_owned());
            }
            FUNCTION => {
                let &id = ops.get(1).ok_or("an OpFunction without a result")?;
                if names.get(&id).map(String::as_str) == Some("scale") {
                    body = Some((id, Vec::new()));
                }
            }
            FUNCTION_END => {}
            LABEL => {}
            _ => {
                if let Some((_, insns)) = body.as_mut().filter(|_| opcode != 55) {
                    insns.push((at as u32, count as u32));
                }
            }
        }
        at += count;
    }
    let (id, insns) = body.ok_or("the translator wrote no `scale`")?;
    step.emitted_function("scale", id);
    let llvm: Vec<u32> = (step.instructions("scale").ok_or("no LLVM `scale`")?)
        .filter(|&i| !step.is_debug_intrinsic(i))
        .collect();
    if llvm.len() != insns.len() {
        return Err(format!(
            "{} LLVM instructions, {} SPIR-V ones",
            llvm.len(),
            insns.len()
        )
        .into());
    }
    for (&i, &(offset, len)) in llvm.iter().zip(&insns) {
        step.emitted_instruction(i, offset, len);
    }
    Ok(llvm.len())
}

fn main() -> Result<(), Box<dyn Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "scale.spv".into()),
    );
    let scratch = tempfile::tempdir()?;
    let written = run(Path::new("llvm-spirv-14"), scratch.path())?;
    std::fs::write(&out, &written.module)?;
    println!(
        "{}: {} instructions tied, {} loss(es)",
        out.display(),
        written.tied,
        written.losses.len()
    );
    for l in &written.losses {
        println!("  loss: {l}");
    }
    Ok(())
}
