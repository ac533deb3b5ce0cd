//! The code a module's debug info is woven into: its functions and ids, how IR functions match
//! them, and where an in-function instruction anchored at a normal-form offset may go.

use rspirv::spirv::{Capability, Decoration, Op, StorageClass};
use rustc_hash::FxHashMap as HashMap;

use crate::ir::Flags;
use crate::ir::{Handle, Module, Scope, ScopeKind, Value};
use crate::spirv::binary::Module as Bin;

/// One OpFunction of the base module: instruction indices of OpFunction and OpFunctionEnd.
#[derive(Clone, Debug)]
pub struct Func {
    pub id: u32,
    pub first: usize,
    pub end: usize,
}

#[derive(Clone, Copy, Debug)]
pub struct Def {
    pub opcode: Option<Op>,
    /// The function (index in `CodeInfo::funcs`) and the instruction index: `u32`, as every
    /// word offset of a module is, so that the table of a large module stays small.
    pub func: Option<u32>,
    pub index: u32,
}

/// The base function an IR function was matched to.
#[derive(Clone, Copy, Debug)]
pub struct Matched {
    /// Its index in `CodeInfo::funcs`.
    pub func: usize,
    /// The IR function's code positions can be trusted.
    pub trusted: bool,
}

/// What the writer knows about the base module (empty for a standalone module).
#[derive(Default)]
pub struct CodeInfo {
    pub kernel: bool,
    /// The module's capabilities (the standalone module's, when there is no base).
    pub caps: Vec<u32>,
    /// The module's SPIR-V version word and extensions.
    pub version: u32,
    pub extensions: Vec<String>,
    /// (offset, opcode) of every instruction of the normal form.
    pub insns: Vec<(u32, Option<Op>)>,
    pub defs: HashMap<u32, Def>,
    pub funcs: Vec<Func>,
    /// IR function → the base function it was matched to.
    pub matched: HashMap<Handle<Scope>, Matched>,
    /// The IR's code positions are of this module, in every function (`Base::OwnCode`).
    pub own_code: bool,
    /// Names the module gives ids: OpName, entry-point and linkage names.
    pub names: HashMap<u32, Vec<String>>,
    pub void: Option<u32>,
    pub uint: Option<u32>,
    /// The module's `OpTypeInt 64 0`.
    pub ulong: Option<u32>,
    pub bool_: Option<u32>,
    /// The index `index_at` found last: positions are mostly asked about in increasing order, so
    /// the next one is usually a few instructions further.
    hint: std::cell::Cell<usize>,
}

impl CodeInfo {
    pub fn analyse(bin: &Bin<'_>) -> CodeInfo {
        let mut c = CodeInfo {
            insns: Vec::with_capacity(bin.insns.len()),
            ..CodeInfo::default()
        };
        // Sized once for the ids the module defines (each instruction defines at most one, and
        // none is at or above the bound): growing it rehashed into fresh pages each time.
        c.defs.reserve(bin.insns.len().min(bin.bound as usize));
        let mut func: Option<usize> = None;
        for (i, insn) in bin.insns.iter().enumerate() {
            let opcode = insn.op();
            c.insns.push((insn.offset as u32, opcode));
            match opcode {
                Some(Op::Extension) => c.extensions.extend(insn.string(0).ok().map(|(s, _)| s)),
                Some(Op::Capability) => {
                    c.caps.extend(insn.operands().first());
                    c.kernel |= insn.operands().first() == Some(&(Capability::Kernel as u32));
                }
                Some(Op::Function) => {
                    let id = insn.result_id().unwrap_or(0);
                    c.funcs.push(Func {
                        id,
                        first: i,
                        end: i,
                    });
                    func = Some(c.funcs.len() - 1);
                }
                Some(Op::FunctionEnd) => {
                    if let Some(f) = func.take() {
                        c.funcs[f].end = i;
                    }
                }
                Some(Op::TypeVoid) if func.is_none() => c.void = c.void.or(insn.result_id()),
                Some(Op::TypeBool) if func.is_none() => c.bool_ = c.bool_.or(insn.result_id()),
                Some(Op::TypeInt) if insn.operands().get(1..3) == Some(&[32, 0]) => {
                    c.uint = c.uint.or(insn.result_id())
                }
                Some(Op::TypeInt) if insn.operands().get(1..3) == Some(&[64, 0]) => {
                    c.ulong = c.ulong.or(insn.result_id())
                }
                _ => {}
            }
            if let Some(id) = insn.result_id() {
                c.defs.insert(
                    id,
                    Def {
                        opcode,
                        func: func.map(|f| f as u32),
                        index: i as u32,
                    },
                );
            }
        }
        c.names = names(bin);
        c.version = bin.version;
        c
    }

    /// Whether the module may use a storage class (its capability, per the core grammar).
    pub fn allows_storage_class(&self, sc: u32) -> bool {
        use StorageClass::*;
        let needs = match StorageClass::from_u32(sc) {
            Some(Uniform | Output | Private | PushConstant | StorageBuffer) => {
                Some(Capability::Shader)
            }
            Some(Generic) => Some(Capability::GenericPointer),
            Some(AtomicCounter) => Some(Capability::AtomicStorage),
            Some(UniformConstant | Input | Workgroup | CrossWorkgroup | Function | Image) => None,
            _ => return false,
        };
        // StorageBuffer is core from SPIR-V 1.3, an extension before.
        let storage_buffer_ok = sc != StorageBuffer as u32
            || self.version >= 0x0001_0300
            || self.extensions.iter().any(|e| {
                e == "SPV_KHR_storage_buffer_storage_class" || e == "SPV_KHR_variable_pointers"
            });
        storage_buffer_ok && needs.map_or(true, |c| self.caps.contains(&(c as u32)))
    }

    pub fn defines(&self, id: u32) -> bool {
        self.defs.contains_key(&id)
    }

    /// The OpFunction an IR function was matched to.
    pub fn function_of(&self, h: Handle<Scope>) -> Option<u32> {
        self.matched.get(&h).map(|f| self.funcs[f.func].id)
    }

    fn is_global(&self, id: u32) -> bool {
        self.defs.get(&id).is_some_and(|d| {
            d.func.is_none()
                && matches!(
                    d.opcode,
                    Some(
                        Op::Variable
                            | Op::Constant
                            | Op::ConstantComposite
                            | Op::ConstantTrue
                            | Op::ConstantFalse
                            | Op::ConstantNull
                    )
                )
        })
    }

    fn named(&self, id: u32, wanted: &[&str]) -> bool {
        self.names
            .get(&id)
            .is_some_and(|ns| ns.iter().any(|n| wanted.contains(&n.as_str())))
    }

    /// The global OpVariable (or constant) a DebugGlobalVariable names: the bound id when it is a
    /// global whose names (if any) agree, else the one global variable the module names so.
    pub fn global_of(&self, bound: Option<u32>, wanted: &[&str]) -> Option<u32> {
        if let Some(id) = bound.filter(|id| self.is_global(*id)) {
            if !self.names.contains_key(&id) || self.named(id, wanted) {
                return Some(id);
            }
        }
        let mut found = self
            .defs
            .iter()
            .filter(|(id, d)| d.opcode == Some(Op::Variable) && self.is_global(**id))
            .filter(|(id, _)| self.named(**id, wanted))
            .map(|(id, _)| *id);
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// The index of the normal-form instruction at offset `pos`, if one starts there (`insns` is
    /// in offset order).
    pub fn index_at(&self, pos: u32) -> Option<usize> {
        // A short scan forward from the last hit (offsets strictly increase, so it finds `pos`
        // or shows it is no instruction start), else a binary search.
        let h = self.hint.get();
        if self.insns.get(h).is_some_and(|(o, _)| *o <= pos) {
            for (j, (o, _)) in self.insns.iter().enumerate().skip(h).take(16) {
                if *o == pos {
                    self.hint.set(j);
                    return Some(j);
                }
                if *o > pos {
                    return None;
                }
            }
        }
        let found = self.insns.binary_search_by_key(&pos, |(o, _)| *o).ok();
        if let Some(j) = found {
            self.hint.set(j);
        }
        found
    }

    /// The base function whose body holds normal-form offset `pos`, if it is an instruction start.
    #[allow(dead_code)] // the writer now asks `placement`; kept for other callers
    pub fn func_at(&self, pos: u32) -> Option<usize> {
        self.func_of(self.index_at(pos)?)
    }

    /// The base function whose body holds instruction `i`.
    fn func_of(&self, i: usize) -> Option<usize> {
        // `funcs` is in module order and the bodies do not overlap (a function's end, when it has
        // one, comes before the next OpFunction), so only the last function starting before `i`
        // can hold it.
        let f = self.funcs.partition_point(|f| f.first < i).checked_sub(1)?;
        (i < self.funcs[f].end).then_some(f)
    }

    /// Where an instruction anchored at `pos` goes: the index of the instruction it precedes —
    /// after OpFunction, parameters, labels, OpPhi and OpVariable, before a merge that precedes
    /// the anchor branch. `None` when `pos` is no instruction inside a function body, or the end.
    pub fn insertion(&self, pos: u32) -> Option<usize> {
        self.placement(pos).and_then(|(_, i)| i)
    }

    /// `func_at(pos)` and, when it is `Some`, `insertion(pos)`, with one lookup of `pos`.
    pub fn placement(&self, pos: u32) -> Option<(usize, Option<usize>)> {
        let i = self.index_at(pos)?;
        let f = self.func_of(i)?;
        Some((f, self.insertion_from(f, i)))
    }

    fn insertion_from(&self, f: usize, mut i: usize) -> Option<usize> {
        while i < self.funcs[f].end
            && matches!(
                self.insns[i].1,
                Some(Op::Function | Op::FunctionParameter | Op::Label | Op::Phi | Op::Variable)
            )
        {
            i += 1;
        }
        if i >= self.funcs[f].end {
            return None;
        }
        let merge = |o: Option<Op>| matches!(o, Some(Op::LoopMerge | Op::SelectionMerge));
        // Only a branch is kept with its merge; an anchor that is itself a merge (llvm-spirv-14
        // writes a loop's OpLoopMerge twice) takes its instructions right before it.
        if i > 0 && merge(self.insns[i - 1].1) && !merge(self.insns[i].1) {
            i -= 1;
        }
        Some(i)
    }

    /// The entry-block insertion point of a base function (after its variables).
    pub fn entry(&self, f: usize) -> Option<usize> {
        let pos = self.insns.get(self.funcs[f].first + 1)?.0;
        self.insertion(pos)
    }
}

/// Names the base module gives functions: OpName, entry-point names, linkage names.
fn names(bin: &Bin<'_>) -> HashMap<u32, Vec<String>> {
    let mut out: HashMap<u32, Vec<String>> = HashMap::default();
    for insn in &bin.insns {
        let (target, at) = match insn.op() {
            Some(Op::Name) => (insn.operand(0).ok(), 1),
            Some(Op::EntryPoint) => (insn.operand(1).ok(), 2),
            Some(Op::Decorate)
                if insn.operand(1).ok() == Some(Decoration::LinkageAttributes as u32) =>
            {
                (insn.operand(0).ok(), 2)
            }
            _ => continue,
        };
        if let (Some(t), Ok((s, _))) = (target, insn.string(at)) {
            out.entry(t).or_default().push(s);
        }
    }
    out
}

/// Whether a name the base module gives a function is one of the IR's names for it: equal,
/// glslang's OpName of a function, the name followed by its signature (`integrate(vf3;f1;`), or
/// an Itanium-mangled name with it as a component (`_Z2f1v` for `f1` when the debug info has no
/// linkage name).
fn name_agrees(n: &str, wanted: &[&str]) -> bool {
    wanted.iter().any(|w| {
        n == *w
            || n.strip_prefix(w).is_some_and(|rest| rest.starts_with('('))
            || mangled_component(n, w)
    })
}

fn mangled_component(mangled: &str, name: &str) -> bool {
    if !mangled.starts_with("_Z") || name.is_empty() {
        return false;
    }
    let component = format!("{}{name}", name.len());
    mangled.match_indices(&component).any(|(i, _)| {
        !mangled.as_bytes()[..i]
            .last()
            .is_some_and(|b| b.is_ascii_digit())
    })
}

/// Matches IR functions to base OpFunctions: by `binding` when the id is an OpFunction whose names
/// (if any) agree, or any OpFunction when the IR's code is this module's (`c.own_code`) — then
/// its code positions are trusted —, else by OpName, entry-point name or linkage name (the
/// function is described, its code-anchored records are not placed).
pub fn match_functions(c: &mut CodeInfo, m: &Module) -> Vec<Handle<Scope>> {
    let own_code = c.own_code;
    let names = std::mem::take(&mut c.names);
    let mut unmatched = Vec::new();
    let mut taken = vec![false; c.funcs.len()];
    // OpFunction id → its first function index (what a scan in module order finds).
    let mut by_func_id: HashMap<u32, usize> = HashMap::default();
    for (i, g) in c.funcs.iter().enumerate() {
        by_func_id.entry(g.id).or_insert(i);
    }
    for (h, s) in m.scopes.iter() {
        let ScopeKind::Function(f) = &s.kind else {
            continue;
        };
        let wanted: Vec<&str> = [f.linkage.as_deref(), s.name.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let agrees = |id: u32| {
            own_code
                || names
                    .get(&id)
                    .map_or(true, |ns| ns.iter().any(|n| name_agrees(n, &wanted)))
        };
        let by_id = match &f.binding {
            Some(Value::Spirv(id)) => by_func_id
                .get(id)
                .copied()
                .filter(|i| !taken[*i] && agrees(*id)),
            _ => None,
        };
        let found = by_id.map(|i| (i, true)).or_else(|| {
            c.funcs
                .iter()
                .enumerate()
                .find(|(i, g)| {
                    !taken[*i]
                        && names
                            .get(&g.id)
                            .is_some_and(|ns| ns.iter().any(|n| name_agrees(n, &wanted)))
                })
                .map(|(i, _)| (i, false))
        });
        match found {
            Some((i, trusted)) => {
                taken[i] = true;
                c.matched.insert(h, Matched { func: i, trusted });
            }
            None if f.binding.is_some() || s.flags.has(Flags::DEFINITION) => unmatched.push(h),
            None => {}
        }
    }
    c.names = names;
    unmatched
}

#[cfg(test)]
mod tests {
    use super::name_agrees;

    #[test]
    fn names_agree_plain_glslang_and_mangled() {
        assert!(name_agrees("f1", &["f1"]));
        assert!(name_agrees("integrate(vf3;f1;", &["integrate"]));
        assert!(name_agrees("_Z2f1v", &["f1"]));
        assert!(name_agrees("_ZN3foo3barEv", &["bar"]));
        // A length prefix of another component is no match (`13bar…` holds `3bar`).
        assert!(!name_agrees("_Z13barbarbarbarv", &["bar"]));
        assert!(!name_agrees("_Z2f2v", &["f1"]));
        assert!(!name_agrees("x2f1", &["f1"]));
    }
}
