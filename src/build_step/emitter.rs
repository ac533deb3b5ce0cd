//! The build step that emits its own code: [`DebugInfoStep`] answers what debug info each LLVM
//! function and instruction has, is told what each became, and writes the debug instructions
//! into the emitted module.

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

use crate::diag::{Diagnostics, LossKind};
use crate::error::Error;
use crate::front::llvm::into::{self, Layout, Ties};
use crate::ir::{CodePos, Handle, Module, Scope, ScopeKind, Value};
use crate::spec::spirv::Flavour;

/// The debug information of one LLVM module, and what its code became in SPIR-V.
///
/// Feed it the LLVM module (`.ll` or `.bc`). While emitting code, ask it what debug information
/// each function and instruction has ([`DebugInfoStep::function`], [`DebugInfoStep::location`])
/// and tell it what each became ([`DebugInfoStep::emitted_function`],
/// [`DebugInfoStep::emitted_instruction`], …). [`DebugInfoStep::finish`] then writes the debug
/// instructions of the chosen set into the emitted module: DebugFunction (or
/// DebugFunctionDefinition) tied to each OpFunction, globals to their OpVariables,
/// DebugDeclare/DebugValue of parameters and locals, and a line and scope on every instruction
/// that came from an LLVM instruction with a location. The instructions themselves are made at
/// the end because their ids, types and module-level layout exist only once the module does.
/// Unlike [`super::translate`], which ties the translator's code by block and order, the ties
/// here are exact: an emitter knows where every instruction came from.
///
/// ```no_run
/// use dwarv::build_step::DebugInfoStep;
/// use dwarv::Flavour;
///
/// # fn emit(_: &DebugInfoStep) -> (Vec<u32>, Vec<(String, u32)>, Vec<(u32, u32, u32)>) { unimplemented!() }
/// let bitcode = std::fs::read("kernel.bc")?;
/// let mut step = DebugInfoStep::from_llvm(&bitcode, "kernel.bc")?;
/// // The emitter writes its module without debug info; it records the OpFunction id of each
/// // LLVM function and, per LLVM instruction (`step.instructions(f)` numbers them), the word
/// // offset and length of the SPIR-V instruction it became.
/// let (words, functions, instructions) = emit(&step);
/// for (name, id) in functions {
///     step.emitted_function(&name, id);
/// }
/// for (inst, offset, len) in instructions {
///     step.emitted_instruction(inst, offset, len);
/// }
/// let (module, losses) = step.finish(&words, Flavour::OpenCl100)?;
/// std::fs::write("kernel.spv", module)?;
/// for loss in &losses.losses {
///     eprintln!("{}", loss.message);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DebugInfoStep {
    layout: Layout,
    module: Module,
    /// The line rows' instruction ranges, by start (an LLVM module's rows do not overlap).
    rows: Vec<(u32, u32, usize)>,
    /// A defined function's LLVM name → its DISubprogram's scope.
    subprograms: HashMap<String, Handle<Scope>>,
    diags: Diagnostics,
    functions: HashMap<String, u32>,
    globals: HashMap<String, u32>,
    /// LLVM instruction → (word offset, word count) in the emitted module.
    instructions: HashMap<u32, (u32, u32)>,
    /// (LLVM function, value name without `%`) → result id.
    values: Vec<(String, String, u32)>,
}

/// What the debug information says of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionDebug {
    /// The source name (DISubprogram `name:`).
    pub name: String,
    pub linkage_name: Option<String>,
    /// File and line of the declaration.
    pub file: Option<String>,
    pub line: u32,
}

/// A source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
}

impl DebugInfoStep {
    /// Reads the LLVM module (in a child process: a crash of LLVM on corrupt input is an error).
    pub fn from_llvm(bytes: &[u8], name: &str) -> Result<Self, Error> {
        let model =
            llvm_bridge::load(bytes, name).map_err(|e| crate::front::llvm::llvm_error(name, e))?;
        Ok(Self::from_model(model))
    }

    /// Reads the debug info of a module the caller holds in memory through inkwell (LLVM 14,
    /// the `inkwell` feature), in this process: no bitcode is written or parsed. The module
    /// must stay unchanged during the call; LLVM's verifier runs first (a module whose debug
    /// info it rejects is an error). Unlike [`Self::from_llvm`], a crash of LLVM ends the process.
    #[cfg(feature = "inkwell")]
    pub fn from_inkwell(module: &inkwell::module::Module<'_>) -> Result<Self, Error> {
        let name = module.get_name().to_string_lossy().into_owned();
        // SAFETY: inkwell's module is a live llvm::Module of LLVM 14 (the feature links
        // libLLVM-14.so.1 dynamically, the library the LLVM 14 reader's shim loads), borrowed
        // for the call, so nothing changes it meanwhile.
        let model = unsafe { llvm_bridge::model_of_module(module.as_mut_ptr().cast(), 14) }
            .map_err(|e| crate::front::llvm::llvm_error(&name, e))?;
        Ok(Self::from_model(model))
    }

    fn from_model(model: llvm_bridge::Model) -> Self {
        let (module, diags) = crate::front::llvm::lower(&model);
        let layout = Layout::of(&model);
        drop(model);
        let mut rows: Vec<(u32, u32, usize)> = (module.lines.iter().enumerate())
            .filter_map(|(i, r)| match (r.range.start, r.range.end) {
                (CodePos::Llvm(a), CodePos::Llvm(b)) => Some((a, b, i)),
                _ => None,
            })
            .collect();
        rows.sort_unstable();
        let mut subprograms = HashMap::default();
        for (h, s) in module.scopes.iter() {
            if let ScopeKind::Function(f) = &s.kind {
                if let Some(name) = f.binding.as_ref().and_then(|b| match b {
                    Value::Llvm(b) => b.strip_prefix('@'),
                    _ => None,
                }) {
                    subprograms.entry(name.to_string()).or_insert(h);
                }
            }
        }
        DebugInfoStep {
            layout,
            module,
            rows,
            subprograms,
            diags,
            functions: HashMap::default(),
            globals: HashMap::default(),
            instructions: HashMap::default(),
            values: Vec::new(),
        }
    }

    /// The numbers of a defined function's instructions, in layout order (debug intrinsics
    /// included; they become no instruction of their own).
    pub fn instructions(&self, function: &str) -> Option<Range<u32>> {
        let f = self.layout.function(function)?;
        Some(f.first_inst..f.first_inst + f.inst_count)
    }

    /// The instruction numbers of each basic block of a defined function, in layout order.
    pub fn blocks(&self, function: &str) -> Option<Vec<Range<u32>>> {
        let f = self.layout.function(function)?;
        let mut next = f.first_inst;
        Some(
            f.blocks
                .iter()
                .map(|&n| {
                    next += n;
                    next - n..next
                })
                .collect(),
        )
    }

    /// Whether an instruction is a debug intrinsic (llvm.dbg.declare/value/addr): the emitter
    /// skips it, its debug instruction is placed before the next emitted one.
    pub fn is_debug_intrinsic(&self, inst: u32) -> bool {
        self.layout.is_dbg(inst)
    }

    /// The debug information of a function (by LLVM name, without `@`), if it has any.
    pub fn function(&self, function: &str) -> Option<FunctionDebug> {
        let m = &self.module;
        let s = m.scopes.get(*self.subprograms.get(function)?);
        let ScopeKind::Function(f) = &s.kind else {
            return None;
        };
        Some(FunctionDebug {
            name: s.name.clone().unwrap_or_default(),
            linkage_name: f.linkage.clone(),
            file: s
                .at
                .and_then(|a| a.file)
                .map(|h| m.files.get(h).name.clone()),
            line: s.at.map_or(0, |a| a.line),
        })
    }

    /// The source position of an instruction (its `!dbg`), if it has one.
    pub fn location(&self, inst: u32) -> Option<SourceLocation> {
        let m = &self.module;
        let k = self.rows.partition_point(|&(start, _, _)| start <= inst);
        let &(_, end, i) = self.rows.get(k.checked_sub(1)?)?;
        if inst >= end {
            return None;
        }
        let row = &m.lines[i];
        Some(SourceLocation {
            file: row.at.file.map(|h| m.files.get(h).name.clone()),
            line: row.at.line,
            column: row.at.column,
        })
    }

    /// The OpFunction id of an LLVM function.
    pub fn emitted_function(&mut self, function: &str, id: u32) {
        self.functions.insert(function.to_string(), id);
    }

    /// The OpVariable id of an LLVM global (without `@`).
    pub fn emitted_global(&mut self, global: &str, id: u32) {
        self.globals.insert(global.to_string(), id);
    }

    /// LLVM instruction `inst` became the SPIR-V instruction at word `offset` (from the start
    /// of the module, header included) of `len` words; an instruction that became several
    /// consecutive ones may give them all as one span.
    pub fn emitted_instruction(&mut self, inst: u32, offset: u32, len: u32) {
        self.instructions.insert(inst, (offset, len));
    }

    /// The result id a named LLVM value (`%x.addr` → `x.addr`) of `function` became, for the
    /// operands of DebugDeclare/DebugValue (OpName in the emitted module does the same).
    pub fn emitted_value(&mut self, function: &str, value: &str, id: u32) {
        self.values
            .push((function.to_string(), value.to_string(), id));
    }

    /// The emitted module (`words`, without debug information of its own) with the debug
    /// information written in `flavour`, and what could not be written.
    pub fn finish(self, words: &[u32], flavour: Flavour) -> Result<(Vec<u8>, Diagnostics), Error> {
        const NAME: &str = "<emitted module>";
        let DebugInfoStep {
            layout,
            mut module,
            mut diags,
            functions,
            globals,
            instructions,
            values,
            ..
        } = self;
        let parsed = crate::front::spirv::parse(words, NAME)?;
        let mut code = into::index(&parsed);
        for (name, id) in &globals {
            code.name_global(name, *id);
        }
        for (function, value, id) in &values {
            if let Some(f) = functions.get(function) {
                code.name_local(*f, value, *id);
            }
        }
        let mut ties = Ties::new(&layout);
        ties.fn_ids = functions.clone();
        for (&inst, &(offset, len)) in &instructions {
            let Some(&((start, _), f)) = code.by_offset.get(offset) else {
                diags.push(
                    LossKind::Unmatched,
                    format!("@i{inst}"),
                    format!("word offset {offset} is no instruction of a function body"),
                );
                continue;
            };
            if !ties.map.insert(inst, ((start, start + len), f)) {
                diags.push(
                    LossKind::Unmatched,
                    format!("@i{inst}"),
                    "no instruction of the LLVM module has this number",
                );
                continue;
            }
            ties.exact.insert(inst, ());
        }
        // A debug intrinsic stands at the next emitted instruction of its function (or the
        // last one before it).
        let tied: Vec<u32> = ties.map.keys().collect();
        for f in &layout.functions {
            let range = f.first_inst..f.first_inst + f.inst_count;
            let from = tied.partition_point(|&t| t < range.start);
            let to = tied.partition_point(|&t| t < range.end);
            let tied = &tied[from..to];
            for &i in layout.dbg_in(range) {
                let k = tied.partition_point(|&t| t < i);
                let partner = tied.get(k).or(k.checked_sub(1).and_then(|k| tied.get(k)));
                if let Some(t) = partner.and_then(|t| ties.map.get(t).copied()) {
                    ties.map.insert(i, t);
                }
            }
        }
        into::apply(&layout, &mut module, &mut diags, &code, &ties, NAME);
        let module = crate::input::verified(module, NAME)?;
        // Written into the module as parsed for the tie (what `Base::OwnCode` would parse again).
        let view = parsed.nf.into_view(parsed.bin);
        let (out, losses) = crate::back::spirv::write_into_view(&module, flavour, &view)?;
        diags.losses.extend(losses.losses);
        Ok((out, diags))
    }
}
