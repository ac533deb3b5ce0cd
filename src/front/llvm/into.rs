//! `convert x.bc --into code.spv`: ties the lowered module to llvm-spirv-14's translation of the
//! debug-stripped module (docs/llvm.md, "--into"). Functions and globals by name (OpName);
//! instructions block by block: llvm-spirv emits one OpLabel per basic block in layout order, so
//! block k of a function is block k of its OpFunction, and inside a block the LLVM instructions
//! (the llvm.dbg calls are gone from code.spv) are spread over the SPIR-V ones in order, first to
//! first and last to last. Every `@iN` becomes the normal-form word offset of its partner;
//! whatever has none is dropped with a diagnostic.

use rustc_hash::FxHashMap as HashMap;

use llvm_bridge::model::{Key, Kind};
use llvm_bridge::Model;

use crate::diag::{Counted, Diagnostics, Kept, LossKind};
use crate::error::Error;
use crate::front::spirv::Parsed;
use crate::ir::{
    CodePos, CodeRange, Handle, LineRow, Module, Ref, ScopeKind, ScopeRun, TypeKind, Value,
};
use crate::spirv::binary::op;

/// An instruction of code.spv: [start, end) in its normal form.
pub(crate) type Span = (u32, u32);

pub struct Code {
    names: HashMap<String, u32>,
    /// Word offset of a function-body instruction in the module as given → its span in the
    /// normal form and its function's id (for ties given by offset, `build_step`).
    pub by_offset: Ascending<(Span, u32)>,
    /// Function id → its blocks → the spans of their instructions (OpLabel excluded).
    funcs: HashMap<u32, Vec<Vec<Span>>>,
    globals: HashMap<String, u32>,
    /// Function id → local names → ids.
    locals: HashMap<u32, HashMap<String, u32>>,
    /// Function id → its OpFunctionParameter ids, in order.
    params: HashMap<u32, Vec<u32>>,
    /// Function id → its OpVariable ids, in order.
    vars: HashMap<u32, Vec<u32>>,
    /// Normal-form offset of an instruction inside a function → its result id.
    results: Ascending<u32>,
    /// Scalar OpConstants by (is float, bit width, bits).
    constants: HashMap<(bool, u32, u64), u32>,
    /// OpConstantComposites by their constituents' ids.
    composites: HashMap<Vec<u32>, u32>,
}

impl Code {
    /// The code module's constant a dbg operand stands for: an integer that needs 64 bits (the
    /// writer makes 32-bit ones itself), a `float`/`double`, or a vector of constants
    /// (`<4 x float> <float 5.000000e-01, …>`: its OpConstantComposite).
    fn constant(&self, v: &Value) -> Option<u32> {
        match v {
            Value::Int(n) if i32::try_from(*n).is_err() && u32::try_from(*n).is_err() => {
                let key = (false, 64, i64::try_from(*n).ok()? as u64);
                self.constants.get(&key).copied()
            }
            Value::Llvm(text) => {
                let (ty, lit) = text.split_once(' ')?;
                if ty.starts_with('<') {
                    let (_, elems) = text.split_once("> <")?;
                    let ids = elems
                        .strip_suffix('>')?
                        .split(", ")
                        .map(|e| {
                            let (t, l) = e.split_once(' ')?;
                            self.constants.get(&scalar_key(t, l)?).copied()
                        })
                        .collect::<Option<Vec<u32>>>()?;
                    return self.composites.get(&ids).copied();
                }
                // Integers up to 32 bits the writer makes itself.
                let key = scalar_key(ty, lit).filter(|k| k.0)?;
                self.constants.get(&key).copied()
            }
            _ => None,
        }
    }
}

/// What tying needs of the LLVM module once it is lowered: each defined function's instruction
/// layout and each dbg call's location operands. Taken out of the model so that the model (most
/// of a read's memory) is freed before the code module is indexed.
pub struct Layout {
    /// Defined functions in module order.
    pub(crate) functions: Vec<FunctionLayout>,
    /// Defined function name → its index in `functions`.
    by_name: HashMap<String, usize>,
    /// The dbg calls' instruction numbers, ascending.
    pub(crate) dbg: Vec<u32>,
    /// A dbg call → what the model says of each value of its location operand, in order.
    operands: HashMap<u32, Vec<ValueFacts>>,
    /// The length of the instruction numbering.
    pub(crate) instructions: u32,
}

/// A defined function's span of the instruction numbering and its blocks' sizes.
pub(crate) struct FunctionLayout {
    pub name: String,
    pub first_inst: u32,
    pub inst_count: u32,
    /// The instruction count of each basic block, in layout order.
    pub blocks: Vec<u32>,
}

/// How an unnamed LLVM value is found in the code module: its defining instruction, its
/// parameter number or its alloca's ordinal (the bridge's `Value` node fields).
#[derive(Clone, Copy, Default)]
struct ValueFacts {
    def_inst: Option<i64>,
    arg_no: Option<i64>,
    alloca_no: Option<i64>,
}

impl Layout {
    pub fn of(model: &Model) -> Layout {
        let functions: Vec<FunctionLayout> = model
            .functions
            .iter()
            .filter(|f| !f.is_declaration)
            .map(|f| FunctionLayout {
                name: f.name.clone(),
                first_inst: f.first_inst,
                inst_count: f.inst_count,
                blocks: f.blocks.clone(),
            })
            .collect();
        let mut by_name = HashMap::default();
        for (i, f) in functions.iter().enumerate() {
            by_name.entry(f.name.clone()).or_insert(i);
        }
        let mut dbg: Vec<u32> = model.intrinsics.iter().map(|x| x.inst).collect();
        dbg.sort_unstable();
        dbg.dedup();
        let operands = model
            .intrinsics
            .iter()
            .map(|x| (x.inst, value_facts(model, x)))
            .collect();
        let instructions = (model.functions.iter())
            .map(|f| f.first_inst.saturating_add(f.inst_count))
            .chain(dbg.last().map(|&i| i.saturating_add(1)))
            .max()
            .unwrap_or(0);
        Layout {
            functions,
            by_name,
            dbg,
            operands,
            instructions,
        }
    }

    /// A defined function by its LLVM name.
    pub(crate) fn function(&self, name: &str) -> Option<&FunctionLayout> {
        self.by_name.get(name).map(|&i| &self.functions[i])
    }

    pub(crate) fn is_dbg(&self, inst: u32) -> bool {
        self.dbg.binary_search(&inst).is_ok()
    }

    /// The dbg calls among instructions `range`, ascending.
    pub(crate) fn dbg_in(&self, range: std::ops::Range<u32>) -> &[u32] {
        let from = self.dbg.partition_point(|&i| i < range.start);
        let to = self.dbg.partition_point(|&i| i < range.end);
        &self.dbg[from..to]
    }
}

/// How much tying looked at: the instructions it tied and the probes it made of per-module
/// lists (row and range lookups, the instructions a range scan passed over). Linear tying
/// keeps probes per instruction constant as the module grows (tests/{all,judges}/llvm/into.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effort {
    pub instructions: u64,
    pub probes: u64,
}

/// Indexes a parsed code module (its names, functions' blocks and instruction spans, constants).
pub(crate) fn index(code: &Parsed<'_>) -> Code {
    let Parsed { bin, nf } = code;
    let mut by_id: HashMap<u32, String> = HashMap::default();
    // Most instructions are in functions: both lists are reserved at once rather than grown by
    // copying (the pages reserved and not written are never touched).
    let mut code = Code {
        by_offset: Ascending::with_capacity(bin.insns.len()),
        names: HashMap::default(),
        funcs: HashMap::default(),
        globals: HashMap::default(),
        locals: HashMap::default(),
        params: HashMap::default(),
        vars: HashMap::default(),
        results: Ascending::with_capacity(bin.insns.len()),
        constants: HashMap::default(),
        composites: HashMap::default(),
    };
    // Scalar types: id → (is float, width).
    let mut scalars: HashMap<u32, (bool, u32)> = HashMap::default();
    let mut current: Option<u32> = None;
    for (i, insn) in bin.insns.iter().enumerate() {
        let ops = insn.operands();
        match insn.opcode() {
            op::NAME => {
                if let (Some(&id), Ok((s, _))) = (ops.first(), insn.string(1)) {
                    by_id.insert(id, s);
                }
            }
            op::FUNCTION => {
                let id = ops.get(1).copied().unwrap_or(0);
                current = Some(id);
                if let Some(n) = by_id.get(&id) {
                    code.names.insert(n.clone(), id);
                }
                code.funcs.insert(id, Vec::new());
            }
            op::FUNCTION_END => current = None,
            op::TYPE_INT | op::TYPE_FLOAT => {
                if let (Some(&id), Some(&w)) = (ops.first(), ops.get(1)) {
                    scalars.insert(id, (insn.opcode() == op::TYPE_FLOAT, w));
                }
            }
            op::CONSTANT if current.is_none() => {
                if let (Some(&(float, w)), Some(&id)) =
                    (ops.first().and_then(|t| scalars.get(t)), ops.get(1))
                {
                    let lo = u64::from(ops.get(2).copied().unwrap_or(0));
                    let hi = u64::from(ops.get(3).copied().unwrap_or(0));
                    code.constants
                        .entry((float, w, lo | hi << 32))
                        .or_insert(id);
                }
            }
            op::CONSTANT_COMPOSITE if current.is_none() => {
                if let Some(&id) = ops.get(1) {
                    code.composites.entry(ops[2..].to_vec()).or_insert(id);
                }
            }
            op::LABEL => {
                if let Some(f) = current.and_then(|f| code.funcs.get_mut(&f)) {
                    f.push(Vec::new());
                }
            }
            opcode => {
                let result = insn.result_id();
                match (current, result) {
                    (None, Some(id)) if opcode == op::VARIABLE => {
                        if let Some(n) = by_id.get(&id) {
                            code.globals.insert(n.clone(), id);
                        }
                    }
                    (Some(f), r) => {
                        if let (Some(id), Some(n)) = (r, r.and_then(|id| by_id.get(&id))) {
                            code.locals.entry(f).or_default().insert(n.clone(), id);
                        }
                        let start = nf.offsets.get(i).copied().flatten();
                        if let (Some(id), Some(s)) = (r, start) {
                            code.results.push(s, id);
                            match opcode {
                                op::FUNCTION_PARAMETER => {
                                    code.params.entry(f).or_default().push(id)
                                }
                                op::VARIABLE => code.vars.entry(f).or_default().push(id),
                                _ => {}
                            }
                        }
                        if let Some(s) = start {
                            let span = (s, s + insn.words.len() as u32);
                            code.by_offset.push(insn.offset as u32, (span, f));
                        }
                        let block = code.funcs.get_mut(&f).and_then(|b| b.last_mut());
                        if let (Some(s), Some(b)) = (start, block) {
                            b.push((s, s + insn.words.len() as u32));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    code
}

impl Code {
    /// A global the code emitter names (as OpName would).
    pub(crate) fn name_global(&mut self, name: &str, id: u32) {
        self.globals.insert(name.to_string(), id);
    }
    /// A local value of function `function` (its OpFunction id) the code emitter names.
    pub(crate) fn name_local(&mut self, function: u32, name: &str, id: u32) {
        self.locals
            .entry(function)
            .or_default()
            .insert(name.to_string(), id);
    }
}

/// Keys that come ascending, as the code module's instructions do (word offsets, normal-form
/// starts) → values: built by pushing, looked up by binary search, where a hash map grows a
/// table that outgrows the caches with the module.
pub struct Ascending<T> {
    keys: Vec<u32>,
    values: Vec<T>,
}

impl<T> Default for Ascending<T> {
    fn default() -> Self {
        Ascending {
            keys: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T> Ascending<T> {
    pub fn with_capacity(n: usize) -> Self {
        Ascending {
            keys: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
        }
    }
    /// Adds `key`, which must be past every key so far (a key not past them is ignored: the
    /// instructions of a module come in order, so it cannot occur).
    pub fn push(&mut self, key: u32, value: T) {
        if self.keys.last().map_or(true, |&last| last < key) {
            self.keys.push(key);
            self.values.push(value);
        }
    }
    pub fn get(&self, key: u32) -> Option<&T> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(&self.values[i])
    }
}

/// LLVM instruction number → a value: a table as long as the module's numbering, which is dense
/// (every instruction of every defined function), so a lookup is an index.
pub(crate) struct ByInst<T> {
    slots: Vec<Option<T>>,
    len: usize,
}

impl<T: Copy> ByInst<T> {
    /// A table for instructions `0..count`.
    pub fn new(count: u32) -> Self {
        ByInst {
            slots: vec![None; count as usize],
            len: 0,
        }
    }
    pub fn get(&self, i: &u32) -> Option<&T> {
        self.slots.get(*i as usize)?.as_ref()
    }
    /// Sets instruction `i`'s value; false (and nothing set) for a number past the module's.
    pub fn insert(&mut self, i: u32, v: T) -> bool {
        let Some(slot) = self.slots.get_mut(i as usize) else {
            return false;
        };
        self.len += usize::from(slot.is_none());
        *slot = Some(v);
        true
    }
    pub fn contains(&self, i: &u32) -> bool {
        self.get(i).is_some()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    /// The instructions that have a value, ascending.
    pub fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        (self.slots.iter().enumerate()).filter_map(|(i, s)| s.as_ref().map(|_| i as u32))
    }
}

/// How LLVM instructions, functions and globals map onto a code module.
pub(crate) struct Ties {
    /// @iN → (its span in the normal form, SPIR-V function id).
    pub map: ByInst<(Span, u32)>,
    /// The @iN whose partner is exactly one SPIR-V instruction (their results correspond).
    pub exact: ByInst<()>,
    /// LLVM function name → OpFunction id.
    pub fn_ids: HashMap<String, u32>,
    /// The probes aligning made (see [`Effort`]).
    pub probes: u64,
}

impl Ties {
    /// No ties yet, for the instructions of the module `layout` was taken of.
    pub fn new(layout: &Layout) -> Self {
        Ties {
            map: ByInst::new(layout.instructions),
            exact: ByInst::new(layout.instructions),
            fn_ids: HashMap::default(),
            probes: 0,
        }
    }
}

/// The code module (llvm-spirv-14's translation of the stripped module) indexed for [`tie`].
pub fn index_module(code_bytes: &[u8], code_name: &str) -> Result<Code, Error> {
    let words = crate::front::spirv::words(code_bytes, code_name)?;
    Ok(index(&crate::front::spirv::parse(&words, code_name)?))
}

/// What [`tie`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tied {
    pub effort: Effort,
    /// The module's defined functions found in the code module by name, of how many.
    pub functions: usize,
    pub defined: usize,
    /// The module's counts before the tie, as read: the totals a summary compares with (the tie
    /// merges and splits line rows).
    pub read: Kept,
}

/// Rewrites `m` (lowered from the module `layout` was taken of) onto the code module, aligning
/// the two by names and blocks.
pub fn tie(
    layout: &Layout,
    m: &mut Module,
    d: &mut Diagnostics,
    code: &Code,
    code_name: &str,
) -> Tied {
    let read = Kept::totals(m);
    let ties = align(layout, d, code, code_name);
    let effort = apply(layout, m, d, code, &ties, code_name);
    // A block with as many SPIR-V instructions as LLVM ones is tied one to one.
    let tied = ties.map.keys().filter(|&i| !layout.is_dbg(i));
    let (all, loose) = tied.fold((0usize, 0usize), |(all, loose), i| {
        (all + 1, loose + usize::from(!ties.exact.contains(&i)))
    });
    if loose > 0 {
        // The translator's code has no instruction of its own for them: nothing avoids it.
        d.push_written(
            LossKind::Approximated,
            "module",
            format!(
                "{loose} of {all} LLVM instructions tied to SPIR-V ones by block and order (first \
                 to first, last to last; their blocks have another instruction count), not one \
                 by one"
            ),
        );
    }
    Tied {
        effort,
        functions: ties.fn_ids.len(),
        defined: layout.functions.len(),
        read,
    }
}

/// Ties by function name and block order (llvm-spirv-14's layout of the same module).
fn align(layout: &Layout, d: &mut Diagnostics, code: &Code, code_name: &str) -> Ties {
    let mut ties = Ties::new(layout);
    let Ties {
        map,
        exact,
        fn_ids,
        probes,
    } = &mut ties;
    for f in &layout.functions {
        let Some(&fid) = code.names.get(&f.name) else {
            d.push(
                LossKind::Unmatched,
                format!("@{}", f.name),
                format!("no OpFunction named `{}` in {code_name}", f.name),
            );
            continue;
        };
        fn_ids.insert(f.name.clone(), fid);
        let blocks = &code.funcs[&fid];
        if blocks.len() != f.blocks.len() {
            d.push(
                LossKind::Unmatched,
                format!("@{}", f.name),
                format!(
                    "{} basic blocks, {} in its OpFunction: its instructions are not tied",
                    f.blocks.len(),
                    blocks.len()
                ),
            );
            continue;
        }
        let mut next = f.first_inst;
        for (size, spans) in f.blocks.iter().zip(blocks) {
            let all: Vec<u32> = (next..next + size).collect();
            next += size;
            *probes += u64::from(*size);
            let code_insns: Vec<u32> = all.iter().copied().filter(|&i| !layout.is_dbg(i)).collect();
            if spans.is_empty() || code_insns.is_empty() {
                continue;
            }
            let (nl, ns) = (code_insns.len(), spans.len());
            if nl == ns {
                for &i in &code_insns {
                    exact.insert(i, ());
                }
            }
            let ks: Vec<usize> = (0..nl)
                .map(|j| {
                    if nl == 1 {
                        ns - 1
                    } else {
                        j * (ns - 1) / (nl - 1)
                    }
                })
                .collect();
            for (j, &i) in code_insns.iter().enumerate() {
                // The SPIR-V instructions up to the next partner (expansions of this one) are
                // covered too, as an OpLine stays in effect until the next.
                let next = ks.get(j + 1).copied().unwrap_or(ns).max(ks[j] + 1);
                map.insert(i, ((spans[ks[j]].0, spans[next - 1].1), fid));
            }
            // A dbg call stands before the next instruction of its block (or at the last one).
            for &i in all.iter().filter(|&&i| layout.is_dbg(i)) {
                let after = code_insns.get(code_insns.partition_point(|&c| c <= i));
                let after = after.or(code_insns.last());
                if let Some(a) = after.and_then(|a| map.get(a).copied()) {
                    map.insert(i, a);
                }
            }
        }
    }
    ties
}

/// Rewrites the LLVM module's code positions, bindings and event operands onto the code module
/// through `ties`.
pub(crate) fn apply(
    layout: &Layout,
    m: &mut Module,
    d: &mut Diagnostics,
    code: &Code,
    ties: &Ties,
    code_name: &str,
) -> Effort {
    let Ties {
        map,
        exact,
        fn_ids,
        probes: aligning,
    } = ties;
    let probes = std::cell::Cell::new(*aligning);
    let probe = |n: u64| probes.set(probes.get() + n);
    let pos = |p: CodePos| match p {
        CodePos::Llvm(i) => {
            probe(1);
            map.get(&i).map(|(s, _)| CodePos::Spirv(s.0))
        }
        other => Some(other),
    };
    // A row's LLVM range → the SPIR-V range from its first tied instruction to its last. Rows
    // and runs of one module do not overlap, so the scans together pass each instruction once.
    let range = |r: CodeRange| -> Option<CodeRange> {
        let (CodePos::Llvm(a), CodePos::Llvm(b)) = (r.start, r.end) else {
            return Some(r);
        };
        let tied = |i: &u32| {
            probe(1);
            map.get(i)
        };
        let first = (a..b).find_map(|i| tied(&i))?;
        let last = (a..b).rev().find_map(|i| tied(&i))?;
        Some(CodeRange {
            start: CodePos::Spirv(first.0 .0),
            end: CodePos::Spirv(last.0 .1.max(first.0 .0 + 1)),
        })
    };

    // Functions and globals.
    for i in 0..m.scopes.len() {
        let s = m.scopes.get_mut(Handle::new(i as u32));
        if let ScopeKind::Function(info) | ScopeKind::FunctionDecl(info) = &mut s.kind {
            if let Some(Value::Llvm(b)) = &info.binding {
                if let Some(&id) = b.strip_prefix('@').and_then(|n| fn_ids.get(n)) {
                    info.binding = Some(Value::Spirv(id));
                }
            }
            info.ranges.clear();
        }
    }
    for i in 0..m.vars.len() {
        let v = m.vars.get_mut(Handle::new(i as u32));
        if let Some(Value::Llvm(b)) = &v.binding {
            if let Some(&id) = b.strip_prefix('@').and_then(|n| code.globals.get(n)) {
                v.binding = Some(Value::Spirv(id));
            }
        }
    }
    // Template values that are globals or functions (`i32* @i`): their OpVariable/OpFunction.
    for i in 0..m.types.len() {
        let t = m.types.get_mut(Handle::new(i as u32));
        if let TypeKind::TemplateParam {
            value: Some(v @ Value::Llvm(_)),
            ..
        } = &mut t.kind
        {
            let Value::Llvm(text) = &*v else { continue };
            let name = text.rsplit(' ').next().and_then(|n| n.strip_prefix('@'));
            let id = name.and_then(|n| code.globals.get(n).or_else(|| code.names.get(n)));
            if let Some(&id) = id {
                *v = Value::Spirv(id);
            }
        }
    }
    // Lines and scope runs: one row per SPIR-V instruction (the last LLVM instruction tied to it
    // wins), runs of equal rows merged.
    // Rewritten in place (a copy per step faulted pages in),
    // with room for the rows of dbg calls (`uncovered`: at most one per event).
    let (mut lost_rows, mut lost_runs) = (0, 0);
    let mut rows = std::mem::take(&mut m.lines);
    rows.retain_mut(|r| tie_range(&mut r.range, &range, &mut lost_rows));
    rows.reserve(m.events.len());
    // As llvm-spirv does, the location of a dbg call also stands for the instruction it precedes
    // when that one has none of its own (the stores of parameters at -O0).
    let mut covered: Intervals = rows.iter().filter_map(|r| spirv_span(r.range)).collect();
    let extra = uncovered(&m.events, map, &mut covered, |e| e.at, &probe);
    let extra = extra.into_iter().map(|(range, at)| LineRow {
        range,
        at,
        end_line: None,
        end_column: None,
        flags: Default::default(),
        isa: 0,
        discriminator: 0,
    });
    rows.extend(extra);
    m.lines = merge(rows, |r| r.range, |r, rg| r.range = rg);
    let mut kept = std::mem::take(&mut m.scope_runs);
    kept.retain_mut(|r| tie_range(&mut r.range, &range, &mut lost_runs));
    kept.reserve(m.events.len());
    let mut in_scope: Intervals = kept.iter().filter_map(|r| spirv_span(r.range)).collect();
    // Likewise its scope, so that the scope is not left and entered again around the parameter
    // stores (a DebugNoScope/DebugScope pair each).
    let extra = uncovered(
        &m.events,
        map,
        &mut in_scope,
        |e| Some((e.scope?, e.inlined)),
        &probe,
    );
    kept.extend(extra.into_iter().map(|(range, (scope, inlined))| ScopeRun {
        range,
        scope: Ref::Scope(scope),
        inlined,
    }));
    m.scope_runs = merge(kept, |r| r.range, |r, rg| r.range = rg);
    let mut lost_events = 0;
    let events = std::mem::take(&mut m.events);
    m.events.reserve(events.len());
    for mut e in events {
        let Some(p) = pos(e.pos) else {
            lost_events += 1;
            continue;
        };
        let fid = match e.pos {
            CodePos::Llvm(i) => map.get(&i).map(|x| x.1),
            _ => None,
        };
        let sources = match e.pos {
            CodePos::Llvm(i) => layout.operands.get(&i).map_or(&[][..], |v| &v[..]),
            _ => &[],
        };
        e.pos = p;
        for (k, v) in e.values.iter_mut().enumerate() {
            if let Some(id) = code.constant(v) {
                *v = Value::Spirv(id);
                continue;
            }
            let (Value::Llvm(text), Some(f)) = (&*v, fid) else {
                continue;
            };
            // `i32* %x.addr` → the id OpName calls `x.addr`; an unnamed value (`%5`) → the
            // result of its defining instruction's partner (blocks paired one to one), the
            // function's parameter of its number, or the OpVariable of its alloca's ordinal.
            let name = text.rsplit(' ').next().unwrap_or("").strip_prefix('%');
            let facts = sources.get(k).copied().unwrap_or_default();
            let by_name = name.and_then(|n| code.locals.get(&f)?.get(n)).copied();
            let by_def = facts
                .def_inst
                .and_then(|d| u32::try_from(d).ok())
                .filter(|d| exact.contains(d))
                .and_then(|d| code.results.get(map.get(&d)?.0 .0).copied());
            let by_arg = facts
                .arg_no
                .and_then(|a| code.params.get(&f)?.get(usize::try_from(a).ok()?).copied());
            let by_alloca = facts
                .alloca_no
                .and_then(|a| code.vars.get(&f)?.get(usize::try_from(a).ok()?).copied());
            if let Some(id) = by_name.or(by_def).or(by_arg).or(by_alloca) {
                *v = Value::Spirv(id);
            }
        }
        m.events.push(e);
    }
    for i in 0..m.labels.len() {
        let l = m.labels.get_mut(Handle::new(i as u32));
        l.pos = l.pos.and_then(pos);
    }
    for i in 0..m.scopes.len() {
        let s = m.scopes.get_mut(Handle::new(i as u32));
        if let ScopeKind::LexicalBlock { ranges } = &mut s.kind {
            ranges.clear();
        }
    }
    if lost_rows + lost_runs + lost_events > 0 {
        d.push(
            LossKind::Unmatched,
            "module",
            format!("{lost_rows} line rows, {lost_runs} scope runs and {lost_events} events of instructions with no partner in {code_name}"),
        )
        .leaves_out(Counted::LineRows, lost_rows);
    }
    Effort {
        instructions: map.len() as u64,
        probes: probes.get(),
    }
}

/// The key of a scalar constant as LLVM prints it: `i64 -1`, `float 2.000000e+00`, or a
/// double's bits in hex (`double 0x3FB99999A0000000`).
fn scalar_key(ty: &str, lit: &str) -> Option<(bool, u32, u64)> {
    if let Some(bits) = ty.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
        let n: i128 = lit.parse().ok()?;
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        return Some((false, bits, (n as u64) & mask));
    }
    let x = match lit.strip_prefix("0x") {
        Some(hex) => f64::from_bits(u64::from_str_radix(hex, 16).ok()?),
        None => lit.parse::<f64>().ok()?,
    };
    match ty {
        "double" => Some((true, 64, x.to_bits())),
        "float" => Some((true, 32, u64::from((x as f32).to_bits()))),
        _ => None,
    }
}

/// What the model says of each value of a dbg call's location operand (one, or a DIArgList's),
/// in order; a null operand knows nothing.
fn value_facts(model: &Model, call: &llvm_bridge::model::Intrinsic) -> Vec<ValueFacts> {
    let Some(Some(id)) = call.args.first() else {
        return Vec::new();
    };
    let n = model.node(*id);
    let nodes = match n.kind {
        Kind::DIArgList => n
            .refs(Key::args)
            .unwrap_or_default()
            .iter()
            .map(|a| a.unwrap_or(0))
            .collect(),
        _ => vec![*id],
    };
    nodes
        .into_iter()
        .map(|id| match id {
            0 => ValueFacts::default(),
            id => {
                let n = model.node(id);
                ValueFacts {
                    def_inst: n.int(Key::defInst),
                    arg_no: n.int(Key::argNo),
                    alloca_no: n.int(Key::allocaNo),
                }
            }
        })
        .collect()
}

/// The events at an instruction whose partner's start `covered` does not cover yet, each with
/// that partner's range and what `pick` takes of the event; a range found is covered from then
/// on, so the first event at an instruction wins.
fn uncovered<T>(
    events: &[crate::ir::Event],
    map: &ByInst<(Span, u32)>,
    covered: &mut Intervals,
    pick: impl Fn(&crate::ir::Event) -> Option<T>,
    probe: &impl Fn(u64),
) -> Vec<(CodeRange, T)> {
    let mut found = Vec::new();
    for e in events {
        let (CodePos::Llvm(i), Some(t)) = (e.pos, pick(e)) else {
            continue;
        };
        let Some(&((a, b), _)) = map.get(&i) else {
            continue;
        };
        probe(1);
        if !covered.contains(a) {
            covered.insert(a, b);
            let range = CodeRange {
                start: CodePos::Spirv(a),
                end: CodePos::Spirv(b),
            };
            found.push((range, t));
        }
    }
    found
}

/// The word span of a range tied to the code.
fn spirv_span(r: CodeRange) -> Option<(u32, u32)> {
    match (r.start, r.end) {
        (CodePos::Spirv(a), CodePos::Spirv(b)) => Some((a, b)),
        _ => None,
    }
}

/// A union of half-open word ranges, kept as disjoint ranges by start: inserting merges, asking
/// is one ordered lookup, so covering every instruction of a module stays linear in its size.
/// Built in bulk from the rows (sorted and merged, then one bulk load): one insert per row
/// showed in the build step's profile.
#[derive(Default)]
struct Intervals(std::collections::BTreeMap<u32, u32>);

impl FromIterator<(u32, u32)> for Intervals {
    fn from_iter<I: IntoIterator<Item = (u32, u32)>>(spans: I) -> Self {
        let mut spans: Vec<(u32, u32)> = spans.into_iter().filter(|(a, b)| a < b).collect();
        spans.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(spans.len());
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Intervals(merged.into_iter().collect())
    }
}

impl Intervals {
    fn contains(&self, p: u32) -> bool {
        self.0
            .range(..=p)
            .next_back()
            .is_some_and(|(_, &end)| p < end)
    }

    fn insert(&mut self, mut start: u32, mut end: u32) {
        if start >= end {
            return;
        }
        if let Some((&s, &e)) = self.0.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
            }
        }
        while let Some((&s, &e)) = self.0.range(start..=end).next() {
            self.0.remove(&s);
            end = end.max(e);
        }
        self.0.insert(start, end);
    }
}

/// Whether a row's or run's range is tied to the code (then rewritten onto it); one not tied is
/// counted in `lost`.
fn tie_range(
    r: &mut CodeRange,
    tie: &impl Fn(CodeRange) -> Option<CodeRange>,
    lost: &mut usize,
) -> bool {
    match tie(*r) {
        Some(rg) => {
            *r = rg;
            true
        }
        None => {
            *lost += 1;
            false
        }
    }
}

/// Sorts rows by start, keeps one row per start (the last), extends a row over the next when
/// they are equal but for the range and adjacent, and cuts a row where the next one starts; in
/// place, each row against the last one kept.
fn merge<T: Clone + PartialEq>(
    mut rows: Vec<T>,
    get: impl Fn(&T) -> CodeRange,
    set: impl Fn(&mut T, CodeRange),
) -> Vec<T> {
    rows.sort_by_key(|r| get(r).start);
    rows.dedup_by(|r, last| {
        let (lr, rr) = (get(last), get(r));
        if lr.start == rr.start {
            // The later row wins.
            std::mem::swap(r, last);
            return true;
        }
        let mut probe = r.clone();
        set(&mut probe, lr);
        if probe == *last && lr.end >= rr.start {
            let end = rr.end.max(lr.end);
            set(
                last,
                CodeRange {
                    start: lr.start,
                    end,
                },
            );
            return true;
        }
        if lr.end > rr.start {
            let end = rr.start;
            set(
                last,
                CodeRange {
                    start: lr.start,
                    end,
                },
            );
        }
        false
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::Intervals;

    /// Spans loaded in bulk, then more inserted one by one, cover exactly the words a plain
    /// table of words says they cover (spans touching, nested, overlapping and empty).
    #[test]
    fn intervals_cover_what_a_table_of_words_covers() {
        let mut seed = 0x2545_f491_u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for round in 0..50 {
            let spans: Vec<(u32, u32)> = (0..20)
                .map(|_| {
                    let a = next(200);
                    (a, a + next(12))
                })
                .collect();
            let (bulk, one_by_one) = spans.split_at(round % 20);
            let mut set: Intervals = bulk.iter().copied().collect();
            for &(a, b) in one_by_one {
                set.insert(a, b);
            }
            let mut table = [false; 220];
            for &(a, b) in &spans {
                table[a as usize..b as usize].fill(true);
            }
            for (p, &want) in table.iter().enumerate() {
                assert_eq!(set.contains(p as u32), want, "word {p}, spans {spans:?}");
            }
            let runs: Vec<_> = set.0.iter().collect();
            assert!(
                runs.windows(2).all(|w| w[0].1 < w[1].0),
                "disjoint, apart: {runs:?}"
            );
        }
    }
}
