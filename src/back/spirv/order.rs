//! Emission order. Every entity is written after what it refers to, so that no debug instruction
//! refers forward, with one exception per set:
//! - `OpenCL.DebugInfo.100`/`DebugInfo`: a composite's Members may refer forward (spirv-val allows
//!   it there), so a composite goes out first and its elements later (members name it as Parent);
//! - `NonSemantic.Shader.DebugInfo.100`: nothing may refer forward. A composite on a reference
//!   cycle (`struct S { S *next; }`, methods, nested types) is referred to, while it is not yet
//!   complete, through a `FlagFwdDecl` composite of the same name and parent that carries no
//!   members; the full composite follows once its members are out.
//!
//! A cycle that passes through no composite (a function type taking a pointer to itself) is cut
//! with DebugInfoNone and ledgered.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::base::CodeInfo;
use super::encode::{Emitter, V};
use super::ledger::Ledger;
use super::writer::{Cycles, St, Writer};
use crate::ir::ref_map::RefMap;
use crate::ir::{Handle, Module, Ref, ScopeKind, Type, TypeKind};
use crate::spec::spirv_names::{instruction, InsnName, OperandName};

impl<'m> Writer<'m> {
    pub fn new(m: &'m Module, e: Emitter, code: CodeInfo) -> Self {
        // With forward references a cycle is simply referred forward (`cut`): no stand-ins.
        let declared: HashSet<Handle<crate::ir::Scope>> = m
            .scopes
            .iter()
            .filter_map(|(_, s)| match &s.kind {
                ScopeKind::Function(f) => f.declaration,
                _ => None,
            })
            .collect();
        let cycles = if e.flavour.non_semantic() && !e.forward_refs {
            Cycles::of(m, |c| super::types::listed_in(m, e.flavour, &declared, c))
        } else {
            Cycles::default()
        };
        Writer {
            m,
            e,
            ledger: Ledger::new(m),
            code,
            state: RefMap::new(m),
            cycles,
            fwd: HashMap::default(),
            deferred: Vec::new(),
            depth: 0,
            void_basic: None,
            void_fn: None,
            sources: HashMap::default(),
            file_strings: HashMap::default(),
            declared,
        }
    }

    /// The id of an entity, emitting it (and what it needs) first.
    pub fn id(&mut self, r: Ref) -> u32 {
        match self.state.get(&r).copied() {
            Some(St::Done(id)) => id,
            Some(St::Busy(_)) => self.cut(r),
            other => {
                // A composite on a cycle some entity being written lies on: its stand-in. One
                // whose cycles are all still to be entered is written in full (the references
                // back to it inside take the stand-in), so that what lies outside its cycles,
                // a variable's type, a base class, names the full composite.
                if self.cycles.open(r) {
                    return self.fwd_decl(r);
                }
                let preset = match other {
                    Some(St::Reserved(id)) => Some(id),
                    _ => None,
                };
                self.emit(r, preset)
            }
        }
    }

    pub fn opt(&mut self, r: Option<Ref>) -> V {
        r.map_or(V::None, |r| V::Id(self.id(r)))
    }

    pub fn ty(&mut self, h: Option<Handle<Type>>) -> V {
        self.opt(h.map(Ref::Type))
    }

    fn emit(&mut self, r: Ref, preset: Option<u32>) -> u32 {
        self.state.insert(r, St::Busy(preset));
        self.depth += 1;
        let component = self.cycles.enter(r);
        // The entity writers recurse along reference chains (a type's members' types…): the
        // stack grows in segments where a chain is deep, on whatever thread writes.
        let id = stacker::maybe_grow(256 << 10, 16 << 20, || self.dispatch(r));
        self.cycles.leave(component);
        self.depth -= 1;
        if let Some(St::Busy(Some(promised))) = self.state.get(&r).copied() {
            if promised != id && self.e.pending.contains(&promised) {
                // Referred to forward, then written as another instruction's id (or none): the
                // id given out must still be defined.
                self.e.preset = Some(promised);
                self.e.ext(instruction::DEBUG_INFO_NONE, &[]);
                self.ledger.approx(
                    r,
                    "referred to forward, then not written as its own instruction: the forward reference is DebugInfoNone",
                );
            }
        }
        self.state.insert(r, St::Done(id));
        id
    }

    /// Writes a debug instruction for entity `r` (with its reserved id, if it has one).
    pub fn ext(&mut self, r: Ref, name: InsnName, args: &[(OperandName, V)]) -> u32 {
        if let Some(St::Busy(Some(id))) = self.state.get(&r) {
            self.e.preset = Some(*id);
        }
        let id = self.e.ext(name, args);
        self.e.preset = None;
        id.unwrap_or_else(|| self.e.none())
    }

    /// Mark the composite done and reserve ids for its elements, written later (literal sets).
    pub fn reserve_elements(&mut self, elements: &[Ref]) -> Vec<V> {
        elements
            .iter()
            .map(|r| match self.state.get(r).copied() {
                Some(St::Done(id)) | Some(St::Reserved(id)) | Some(St::Busy(Some(id))) => V::Id(id),
                // An element being written right now (a member that wrote its Parent first):
                // give it its id now, its instruction takes it when it is encoded.
                Some(St::Busy(None)) => {
                    let id = self.e.id();
                    self.state.insert(*r, St::Busy(Some(id)));
                    V::Id(id)
                }
                None => {
                    let id = self.e.id();
                    self.state.insert(*r, St::Reserved(id));
                    self.deferred.push(*r);
                    V::Id(id)
                }
            })
            .collect()
    }

    /// Writes an entity after the current top-level one.
    pub fn later(&mut self, r: Ref) {
        if !self.state.contains_key(&r) {
            self.deferred.push(r);
        }
    }

    /// Writes what was deferred (elements of composites in the literal sets).
    pub fn drain(&mut self) {
        while let Some(r) = self.deferred.pop() {
            self.id(r);
        }
    }

    fn cut(&mut self, r: Ref) -> u32 {
        if self.e.forward_refs {
            // The entity being written takes an id now; its instruction comes after this one,
            // which refers to it forward.
            if let Some(St::Busy(None)) = self.state.get(&r) {
                let id = self.e.id();
                self.e.pending.insert(id);
                self.state.insert(r, St::Busy(Some(id)));
            }
        }
        if self.cycles.composites.contains(&r) {
            return self.fwd_decl(r);
        }
        if let Some(St::Busy(Some(id))) = self.state.get(&r) {
            return *id;
        }
        self.ledger.approx(
            r,
            "refers to itself through no composite; the inner reference is written as DebugInfoNone",
        );
        self.e.none()
    }

    fn fwd_decl(&mut self, r: Ref) -> u32 {
        if let Some(id) = self.fwd.get(&r) {
            return *id;
        }
        let Ref::Type(h) = r else {
            return self.e.none();
        };
        let id = super::types::composite_decl(self, h);
        self.fwd.insert(r, id);
        id
    }

    fn dispatch(&mut self, r: Ref) -> u32 {
        match r {
            Ref::Type(h) => super::types::write(self, h),
            Ref::Scope(h) => super::scopes::scope(self, h),
            Ref::Unit(h) => super::scopes::unit(self, h),
            Ref::File(h) => super::scopes::source(self, h),
            Ref::Var(h) => super::scopes::var(self, h),
            Ref::Inlined(h) => super::scopes::inlined(self, h),
            Ref::Expr(h) => super::expr::expr(self, h),
            Ref::Macro(h) => super::scopes::macro_(self, h),
            Ref::Import(h) => super::scopes::import(self, h),
            Ref::EntryPoint(h) => super::scopes::entry_point(self, h),
            other => {
                self.ledger
                    .dropped(other, "no SPIR-V debug instruction describes it");
                self.e.none()
            }
        }
    }
}

/// The references an entity's instruction makes, for the cycle analysis (`listed`: whether a
/// composite's element is among its Members; the others are written after it, unreferenced).
fn edges(m: &Module, r: Ref, listed: &dyn Fn(Ref) -> bool) -> Vec<Ref> {
    let mut out = Vec::new();
    let t = |h: Option<Handle<Type>>| h.map(Ref::Type);
    match r {
        Ref::Type(h) => {
            let ty = m.types.get(h);
            // Members and inheritance name no parent in NonSemantic (the composite lists them).
            if !matches!(
                ty.kind,
                TypeKind::Member { .. } | TypeKind::Inheritance { .. }
            ) {
                out.extend(ty.scope);
            }
            match &ty.kind {
                TypeKind::Pointer { pointee: b, .. }
                | TypeKind::Qualified { base: b, .. }
                | TypeKind::Typedef { base: b }
                | TypeKind::Array { element: b, .. }
                | TypeKind::Vector { element: b, .. }
                | TypeKind::Matrix { column: b, .. }
                | TypeKind::Member { base: b, .. }
                | TypeKind::Inheritance { base: b, .. } => out.extend(t(*b)),
                TypeKind::Function { ret, params, .. } => {
                    out.extend(t(*ret));
                    out.extend(params.iter().filter_map(|p| t(*p)));
                }
                TypeKind::Enum { underlying, .. } => out.extend(t(*underlying)),
                TypeKind::Composite { elements, .. } => {
                    out.extend(elements.iter().copied().filter(|e| listed(*e)))
                }
                TypeKind::PtrToMember { pointee, class } => {
                    out.extend(t(*pointee));
                    out.extend(t(*class));
                }
                TypeKind::Template { target, params } => {
                    out.extend(*target);
                    out.extend(params.iter().map(|p| Ref::Type(*p)));
                }
                TypeKind::TemplateParam { ty, pack, .. } => {
                    out.extend(t(*ty));
                    out.extend(pack.iter().map(|p| Ref::Type(*p)));
                }
                _ => {}
            }
        }
        Ref::Scope(h) => {
            let s = m.scopes.get(h);
            out.extend(s.parent);
            if let Some(f) = s.function() {
                out.extend(t(f.ty));
                out.extend(f.declaration.map(Ref::Scope));
            }
        }
        Ref::Var(h) => {
            let v = m.vars.get(h);
            out.extend(v.scope);
            out.extend(t(v.ty));
        }
        _ => {}
    }
    out
}

impl Cycles {
    fn of(m: &Module, listed: impl Fn(Ref) -> bool) -> Self {
        let mut nodes: Vec<Ref> = (0..m.types.len())
            .map(|i| Ref::Type(Handle::new(i as u32)))
            .collect();
        nodes.extend((0..m.scopes.len()).map(|i| Ref::Scope(Handle::new(i as u32))));
        nodes.extend((0..m.vars.len()).map(|i| Ref::Var(Handle::new(i as u32))));
        let index_of: HashMap<Ref, usize> =
            nodes.iter().enumerate().map(|(i, r)| (*r, i)).collect();
        let adj: Vec<Vec<usize>> = nodes
            .iter()
            .map(|r| {
                edges(m, *r, &listed)
                    .iter()
                    .filter_map(|e| index_of.get(e).copied())
                    .collect()
            })
            .collect();
        let mut out = Cycles::default();
        for comp in super::scc::components(&adj) {
            let self_loop = comp.len() == 1 && adj[comp[0]].contains(&comp[0]);
            if comp.len() < 2 && !self_loop {
                continue;
            }
            let c = out.busy.len() as u32;
            out.busy.push(0);
            for i in comp {
                out.component.insert(nodes[i], c);
                if let Ref::Type(h) = nodes[i] {
                    if matches!(m.types.get(h).kind, TypeKind::Composite { .. }) {
                        out.composites.insert(nodes[i]);
                    }
                }
            }
        }
        out
    }

    /// Whether `r` is a composite on a cycle that an entity being written lies on.
    fn open(&self, r: Ref) -> bool {
        self.composites.contains(&r)
            && self
                .component
                .get(&r)
                .is_some_and(|c| self.busy[*c as usize] > 0)
    }

    fn enter(&mut self, r: Ref) -> Option<u32> {
        if self.component.is_empty() {
            return None;
        }
        let c = *self.component.get(&r)?;
        self.busy[c as usize] += 1;
        Some(c)
    }

    fn leave(&mut self, c: Option<u32>) {
        if let Some(c) = c {
            self.busy[c as usize] -= 1;
        }
    }
}
