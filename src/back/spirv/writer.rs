//! The writer's state: the module being written, the emitter, the ledger, the base module's code
//! and where each entity stands in the emission order (`order`). A leaf: the entity writers
//! (`types`, `scopes`, `expr`, `code`) take a `Writer`, and `order` dispatches to them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::base::CodeInfo;
use super::encode::Emitter;
use super::ledger::Ledger;
use crate::ir::ref_map::RefMap;
use crate::ir::{Handle, Module, Ref, Scope};

#[derive(Clone, Copy, Debug)]
pub(super) enum St {
    Reserved(u32),
    Busy(Option<u32>),
    Done(u32),
}

/// The reference cycles of a NonSemantic module (Tarjan's strongly connected components of
/// `order::edges`): the component of each entity on one, the composites among them, and how many
/// entities of each component are being written. Found and kept by `order`.
#[derive(Default)]
pub(super) struct Cycles {
    pub composites: HashSet<Ref>,
    pub(super) component: HashMap<Ref, u32>,
    pub(super) busy: Vec<u32>,
}

pub struct Writer<'m> {
    pub m: &'m Module,
    pub e: Emitter,
    pub ledger: Ledger<'m>,
    pub code: CodeInfo,
    pub(super) state: RefMap<St>,
    pub(super) cycles: Cycles,
    pub(super) fwd: HashMap<Ref, u32>,
    pub(super) deferred: Vec<Ref>,
    pub(super) depth: u32,
    /// Interned helpers: the `void` basic type and the `void()` function type.
    pub void_basic: Option<u32>,
    pub void_fn: Option<u32>,
    /// DebugSource (or, in 0.99, OpString) per file, filled by `scopes`.
    pub sources: HashMap<u32, u32>,
    /// The OpString of a file's name for OpLine, once written without a loss (`code`).
    pub(super) file_strings: HashMap<Option<Handle<crate::ir::File>>, u32>,
    /// Function declarations some definition names as its Declaration.
    pub(super) declared: HashSet<Handle<Scope>>,
}

impl Writer<'_> {
    /// Whether a method declaration is written as a DebugFunction without FlagIsDefinition
    /// (Function DebugInfoNone) so that its composite can list it among its Members, where
    /// spirv-val takes no DebugFunctionDeclaration (llvm-spirv reads both back as the same
    /// DISubprogram). A declaration some definition names stays a DebugFunctionDeclaration, the
    /// only kind a Declaration operand takes; it is not listed.
    pub fn method_as_function(&self, h: Handle<Scope>) -> bool {
        !self.declared.contains(&h) && !self.e.flavour.translator_forms()
    }

    pub fn literal(&self) -> bool {
        self.e.flavour.literal_numbers()
    }

    /// Whether a scope's parent is a composite type.
    pub fn member_of_composite(&self, s: &Scope) -> bool {
        matches!(s.parent, Some(Ref::Type(t)) if matches!(self.m.types.get(t).kind, crate::ir::TypeKind::Composite { .. }))
    }
}
