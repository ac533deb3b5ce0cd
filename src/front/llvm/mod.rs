//! The LLVM frontend: an LLVM module (`.ll`/`.bc`, LLVM 14 and every newer LLVM the bridge was
//! built against), loaded by llvm-bridge in a child process, lowered to the IR.
//!
//! Two passes, as in the SPIR-V reader: every metadata node that is an IR entity gets a
//! placeholder first (so cycles — a struct and its members — resolve), then each is filled.
//! DISubrange, DIEnumerator, DILocation, DIArgList, tuples and values are not entities: they are
//! folded into their users. Instruction positions are `CodePos::Llvm` numbers (docs/llvm.md).
//! Whatever the IR has no field for goes to the diagnostics.

mod code;
mod entities;
pub mod into;
pub mod tables;
mod types;

use std::collections::HashMap;

use llvm_bridge::{Key, Kind, Model, Node, NodeId};
use tables::FlagMeaning;

use crate::diag::{Diagnostics, LossKind};
use crate::error::Error;
use crate::ir::{
    self, EntityKind, Flags, Handle, InlinedAt, Loc, Module, Ref, SourceFormat, TypeKind,
};

/// Reads an LLVM module. LLVM runs in a child process: a crash on corrupt input is an error.
pub fn read(bytes: &[u8], name: &str) -> Result<(Module, Diagnostics), Error> {
    let model = llvm_bridge::load(bytes, name).map_err(|e| llvm_error(name, e))?;
    Ok(lower(&model))
}

/// Reads an LLVM module and ties it to `code`, llvm-spirv-14's translation of the same module
/// without debug info (`convert x.bc --into code.spv`): code positions become that module's
/// normal-form word offsets, bindings its ids.
/// `alongside` runs in a second thread while the module is tied (after the model is freed, so
/// that what it allocates does not stack on the model's peak): the caller's preparation of what
/// comes next, which then costs no wall time. With the module: what the tie found.
pub fn read_into<T: Send>(
    bytes: &[u8],
    name: &str,
    code: &[u8],
    code_name: &str,
    alongside: impl FnOnce() -> T + Send,
) -> Result<(Module, Diagnostics, T, into::Tied), Error> {
    // The code module is indexed while LLVM reads the module in its child process. Only the
    // index is kept: the parsed module would stay beside the IR until the writer parses it
    // again (a little faster, much more memory).
    let (model, code) =
        llvm_bridge::load_beside(bytes, name, || into::index_module(code, code_name));
    let model = model.map_err(|e| llvm_error(name, e))?;
    let code = code?;
    let (mut m, mut d) = lower(&model);
    let layout = into::Layout::of(&model);
    drop(model);
    let (done, tied) = std::thread::scope(|s| {
        let beside = s.spawn(alongside);
        let tied = into::tie(&layout, &mut m, &mut d, &code, code_name);
        let done = beside
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (done, tied)
    });
    Ok((m, d, done, tied))
}

/// The LLVM readers this build carries and whether each can run here (`dwarv --version`; loads
/// each one's libLLVM to find out).
pub fn readers_text() -> String {
    let mut out = String::from("LLVM readers (.ll/.bc), oldest first:\n");
    for (i, r) in llvm_bridge::readers().iter().enumerate() {
        let state = match llvm_bridge::available(i) {
            Ok(()) => "ready".to_string(),
            Err(llvm_bridge::Error::NotInstalled { library, major, .. }) => {
                format!("not installed: {library} missing (Debian package libllvm{major})")
            }
            Err(e) => format!("cannot be loaded: {e}"),
        };
        let writer = match llvm_bridge::writer_available(i) {
            None => String::new(),
            Some(Ok(library)) => format!("; SPIR-V translator {library} ready"),
            Some(Err(e)) => format!("; SPIR-V translator cannot be loaded: {e}"),
        };
        out += &format!("  LLVM {:<8} {state}{writer}\n", r.version);
    }
    out
}

/// The bridge's error, named by the file (LLVM's own messages start with `name:`; not twice).
pub(crate) fn llvm_error(name: &str, e: llvm_bridge::Error) -> Error {
    let text = e.to_string();
    let message = match text.strip_prefix(name).and_then(|t| t.strip_prefix(':')) {
        Some(rest) => format!("line {}", rest.trim_start()),
        None => text,
    };
    Error::Llvm {
        path: name.to_string(),
        message,
    }
}

/// Deepest DIMacroFile nesting followed (clang's include limit is 200).
const MAX_MACRO_DEPTH: usize = 1024;

/// Lowers a bridge model to the IR.
pub fn lower(model: &Model) -> (Module, Diagnostics) {
    let mut l = Lower::new(model);
    l.allocate();
    l.fill();
    l.macro_nodes();
    l.code();
    l.params_beyond_type();
    members_in_their_composite(&mut l.ir);
    // What LLVM said while loading (debug info of another Debug Info Version dropped, as its
    // own readers do): a loss of the whole of it.
    for line in model.warnings.iter().flat_map(|w| w.lines()) {
        if !line.trim().is_empty() {
            l.d.push(LossKind::Dropped, "module", line.trim());
        }
    }
    (l.ir, l.d)
}

/// A member or base a composite lists belongs to that composite, whatever its own scope field
/// says (clang gives the `_vptr$X` member the file as scope).
fn members_in_their_composite(ir: &mut Module) {
    for i in 0..ir.types.len() {
        let h = Handle::<ir::Type>::new(i as u32);
        let TypeKind::Composite { elements, .. } = &ir.types.get(h).kind else {
            continue;
        };
        for e in elements.clone() {
            let Ref::Type(t) = e else { continue };
            let ty = ir.types.get_mut(t);
            if matches!(
                ty.kind,
                TypeKind::Member { .. } | TypeKind::Inheritance { .. }
            ) {
                ty.scope = Some(Ref::Type(h));
            }
        }
    }
}

pub(crate) struct Lower<'m> {
    m: &'m Model,
    ir: Module,
    d: Diagnostics,
    /// The entity each node became.
    slot: Vec<Option<Ref>>,
    /// DILocations used as an inlinedAt → their InlinedAt entity.
    inl: HashMap<NodeId, Handle<InlinedAt>>,
    /// Each occurrence of a macro node: its entity, the node, and its parent (the unit or the
    /// enclosing macro file's entity).
    macros: Vec<(ir::Handle<ir::Macro>, NodeId, Ref)>,
    /// DIGlobalVariableExpression → the global it is attached to.
    gve_global: HashMap<NodeId, String>,
}

impl<'m> Lower<'m> {
    fn new(m: &'m Model) -> Self {
        let mut ir = Module::default();
        ir.source.format = SourceFormat::Llvm;
        ir.source.flavour = (!m.triple.is_empty()).then(|| m.triple.clone());
        ir.info.address_size = address_size(&m.triple);
        Lower {
            m,
            ir,
            d: Diagnostics::default(),
            slot: vec![None; m.nodes.len()],
            inl: HashMap::new(),
            macros: Vec::new(),
            gve_global: HashMap::new(),
        }
    }

    fn node(&self, id: NodeId) -> Node<'m> {
        self.m.node(id)
    }

    /// The elements of a tuple node (an absent list is empty).
    fn list(&self, id: Option<NodeId>) -> Vec<Option<NodeId>> {
        id.and_then(|i| self.node(i).refs(Key::elements).map(<[_]>::to_vec))
            .unwrap_or_default()
    }

    /// The entity of a node field.
    fn r(&self, n: Node, k: Key) -> Option<Ref> {
        n.node(k).and_then(|i| self.slot[i as usize])
    }
    fn ty(&self, n: Node, k: Key) -> Option<Handle<ir::Type>> {
        match self.r(n, k) {
            Some(Ref::Type(h)) => Some(h),
            _ => None,
        }
    }
    fn file(&self, n: Node) -> Option<Handle<ir::File>> {
        match self.r(n, Key::file) {
            Some(Ref::File(h)) => Some(h),
            _ => None,
        }
    }
    /// A scope reference: a DIFile scope (file-level C entities) means the unit.
    fn scope(&self, n: Node, k: Key) -> Option<Ref> {
        match self.r(n, k) {
            Some(Ref::File(_)) => self.first_unit(),
            r => r,
        }
    }
    fn first_unit(&self) -> Option<Ref> {
        (!self.ir.units.is_empty()).then(|| Ref::Unit(Handle::new(0)))
    }
    fn scope_handle(&self, n: Node, k: Key) -> Option<Handle<ir::Scope>> {
        match self.r(n, k) {
            Some(Ref::Scope(h)) => Some(h),
            _ => None,
        }
    }
    /// file:line(:column) of a node with `file:` and `line:` fields.
    fn at(&self, n: Node) -> Option<Loc> {
        let file = self.file(n);
        let line = n.int(Key::line).unwrap_or(0) as u32;
        let column = n.int(Key::column).unwrap_or(0) as u32;
        (file.is_some() || line != 0).then_some(Loc { file, line, column })
    }
    fn name(n: Node) -> Option<String> {
        n.str(Key::name)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }
    fn int(n: Node, k: Key) -> u64 {
        n.int(k).unwrap_or(0) as u64
    }

    /// A place for diagnostics: `!N DIKind "name"`.
    fn place(&self, id: NodeId) -> String {
        let n = self.node(id);
        match n.str(Key::name) {
            Some(s) if !s.is_empty() => format!("node {} {} \"{s}\"", id, n.kind.name()),
            _ => format!("node {} {}", id, n.kind.name()),
        }
    }
    fn loss(&mut self, kind: LossKind, id: NodeId, msg: impl Into<String>) {
        let place = self.place(id);
        self.d.push(kind, place, msg);
    }

    /// Pass 1: a placeholder entity per entity node.
    fn allocate(&mut self) {
        for (i, n) in self.m.nodes.iter().enumerate() {
            let r = match entity_of(n) {
                Some(EntityKind::File) => Some(Ref::File(self.ir.files.push(placeholder_file()))),
                Some(EntityKind::Unit) => Some(Ref::Unit(self.ir.units.push(ir::Unit::default()))),
                Some(EntityKind::Type) => Some(Ref::Type(
                    self.ir.types.push(ir::Type::new(ir::TypeKind::Unspecified)),
                )),
                Some(EntityKind::Scope) => Some(Ref::Scope(self.ir.scopes.push(ir::Scope::new(
                    ir::ScopeKind::Namespace {
                        export_symbols: false,
                    },
                )))),
                Some(EntityKind::Var) => Some(Ref::Var(
                    self.ir.vars.push(ir::Variable::new(ir::VarKind::Local)),
                )),
                Some(EntityKind::Expr) => Some(Ref::Expr(self.ir.exprs.push(ir::Expr::default()))),
                Some(EntityKind::Label) => Some(Ref::Label(self.ir.labels.push(ir::Label {
                    name: String::new(),
                    scope: None,
                    at: None,
                    pos: None,
                    origin: None,
                }))),
                Some(EntityKind::Import) => Some(Ref::Import(self.ir.imports.push(ir::Import {
                    kind: ir::ImportKind::MODULE,
                    name: None,
                    scope: None,
                    entity: None,
                    at: None,
                    elements: Vec::new(),
                }))),
                // One entity per place a macro node is listed (macro_parents).
                Some(EntityKind::Macro) => None,
                Some(EntityKind::Property) => {
                    Some(Ref::Property(self.ir.properties.push(ir::Property {
                        name: String::new(),
                        at: None,
                        getter: None,
                        setter: None,
                        attributes: 0,
                        ty: None,
                    })))
                }
                _ => None,
            };
            self.slot[i] = r;
        }
        // Call sites of inlined code.
        for n in self.m.nodes.iter() {
            if let (Kind::DILocation, Some(at)) = (n.kind, n.node(Key::inlinedAt)) {
                if !self.inl.contains_key(&at) {
                    let h = self.ir.inlined.push(InlinedAt {
                        at: Loc::default(),
                        scope: None,
                        parent: None,
                        origin: None,
                        entry_pc: None,
                    });
                    self.inl.insert(at, h);
                }
            }
        }
        for g in &self.m.globals {
            for &e in &g.dbg {
                self.gve_global.insert(e, g.name.clone());
            }
        }
        for &cu in &self.m.compile_units {
            if let Some(Ref::Unit(u)) = self.slot[cu as usize] {
                let macros = self.node(cu).node(Key::macros);
                self.macro_parents(macros, Ref::Unit(u));
            }
        }
    }

    /// LLVM uniques DIMacro and DIMacroFile nodes, so one node can stand in several lists (a
    /// header's `#define` seen in two include paths); the IR has one entity per occurrence,
    /// in list order, depth first. A macro file that includes itself is not followed again.
    fn macro_parents(&mut self, list: Option<NodeId>, parent: Ref) {
        let mut on_path = Vec::new();
        self.macro_list(list, parent, &mut on_path);
    }

    fn macro_list(&mut self, list: Option<NodeId>, parent: Ref, on_path: &mut Vec<NodeId>) {
        for id in self.list(list).into_iter().flatten() {
            let n = self.node(id);
            if !matches!(n.kind, Kind::DIMacro | Kind::DIMacroFile) || on_path.contains(&id) {
                continue;
            }
            let h = self.ir.macros.push(ir::Macro::default());
            self.macros.push((h, id, parent));
            self.slot[id as usize].get_or_insert(Ref::Macro(h));
            if n.kind == Kind::DIMacroFile {
                // Include depth is bounded (as the preprocessor's is): no stack overflow on
                // crafted metadata.
                if on_path.len() >= MAX_MACRO_DEPTH {
                    self.d.push(
                        LossKind::Dropped,
                        format!("!{id}"),
                        format!("macro files nested deeper than {MAX_MACRO_DEPTH}"),
                    );
                    continue;
                }
                on_path.push(id);
                self.macro_list(n.node(Key::nodes), Ref::Macro(h), on_path);
                on_path.pop();
            }
        }
    }

    /// Pass 2: fill every entity.
    fn fill(&mut self) {
        for id in 0..self.m.nodes.len() as NodeId {
            let n = self.node(id);
            match (entity_of(n), n.kind) {
                (Some(EntityKind::File), _) => self.file_node(id),
                (Some(EntityKind::Unit), _) => self.unit_node(id),
                (Some(EntityKind::Type), _) => self.type_node(id),
                (Some(EntityKind::Scope), _) => self.scope_node(id),
                (Some(EntityKind::Var), _) => self.var_node(id),
                (Some(EntityKind::Expr), _) => self.expr_node(id),
                (Some(_), _) => self.misc_node(id),
                (None, Kind::DIGlobalVariableExpression) => {}
                (None, Kind::Other | Kind::Unknown) => self.loss(
                    LossKind::Unknown,
                    id,
                    "metadata of a kind dwarv does not know",
                ),
                (None, _) => {}
            }
            if let Some(a) = n.node(Key::annotations) {
                if !self.list(Some(a)).is_empty() {
                    self.loss(
                        LossKind::Dropped,
                        id,
                        "annotations (btf tags) have no IR field",
                    );
                }
            }
            // Fields of newer LLVMs (sent only when present).
            if n.int(Key::ptrAuthKey).is_some() {
                self.loss(
                    LossKind::Dropped,
                    id,
                    "ptrauth qualifier (LLVM 19 ptrAuthData) has no IR field",
                );
            }
        }
        // After the variables they complete.
        for id in 0..self.m.nodes.len() as NodeId {
            if self.node(id).kind == Kind::DIGlobalVariableExpression {
                self.gve_node(id);
            }
        }
        for (&at, &h) in &self.inl {
            let n = self.node(at);
            let scope = self.scope_handle(n, Key::scope);
            let v = InlinedAt {
                at: self.loc_at(at),
                scope,
                parent: n
                    .node(Key::inlinedAt)
                    .and_then(|p| self.inl.get(&p).copied()),
                origin: None,
                entry_pc: None,
            };
            *self.ir.inlined.get_mut(h) = v;
        }
    }

    /// LLVM accepts `arg: N` past the parameters of the subprogram's type (K&R C, missing
    /// types); the IR does not: such a parameter is read as a local.
    fn params_beyond_type(&mut self) {
        for i in 0..self.ir.vars.len() {
            let h = Handle::new(i as u32);
            let v = self.ir.vars.get(h);
            let ir::VarKind::Param(n) = v.kind else {
                continue;
            };
            let mut scope = match v.scope {
                Some(Ref::Scope(s)) => Some(s),
                _ => None,
            };
            let mut count = None;
            for _ in 0..1000 {
                let Some(s) = scope else { break };
                let s = self.ir.scopes.get(s);
                if let Some(f) = s.function() {
                    count = f.ty.map(|t| match &self.ir.types.get(t).kind {
                        ir::TypeKind::Function { params, .. } => params.len(),
                        _ => usize::MAX,
                    });
                    break;
                }
                scope = match s.parent {
                    Some(Ref::Scope(p)) => Some(p),
                    _ => None,
                };
            }
            if let Some(c) = count.filter(|&c| n as usize > c) {
                let name = v.name.clone().unwrap_or_default();
                self.ir.vars.get_mut(h).kind = ir::VarKind::Local;
                self.d.push(
                    LossKind::Approximated,
                    format!("v{i} (variable \"{name}\")"),
                    format!("parameter {n} of a function whose type has {c} parameter(s): read as a local"),
                );
            }
        }
    }

    /// The source position of a DILocation (its file is its scope's).
    fn loc_at(&self, loc: NodeId) -> Loc {
        let n = self.node(loc);
        Loc {
            file: n.node(Key::scope).and_then(|s| self.scope_file(s)),
            line: n.int(Key::line).unwrap_or(0) as u32,
            column: n.int(Key::column).unwrap_or(0) as u32,
        }
    }

    fn scope_file(&self, scope: NodeId) -> Option<Handle<ir::File>> {
        self.file(self.node(scope))
    }
}

/// The IR entity a node kind becomes (None: folded into its users).
fn entity_of(n: Node) -> Option<EntityKind> {
    // LLVM 18+ writes a static data member's declaration (DWARF 5) as a `DW_TAG_variable`
    // DIDerivedType: a variable declared in its composite, as DWARF reads it.
    if n.kind == Kind::DIDerivedType && n.tag == tables::DW_TAG_VARIABLE {
        return Some(EntityKind::Var);
    }
    Some(match n.kind {
        Kind::DIFile => EntityKind::File,
        Kind::DICompileUnit => EntityKind::Unit,
        Kind::DIBasicType
        | Kind::DIStringType
        | Kind::DIDerivedType
        | Kind::DICompositeType
        | Kind::DISubroutineType
        | Kind::DITemplateTypeParameter
        | Kind::DITemplateValueParameter
        | Kind::GenericDINode => EntityKind::Type,
        Kind::DISubprogram
        | Kind::DILexicalBlock
        | Kind::DILexicalBlockFile
        | Kind::DINamespace
        | Kind::DIModule
        | Kind::DICommonBlock => EntityKind::Scope,
        Kind::DILocalVariable | Kind::DIGlobalVariable => EntityKind::Var,
        Kind::DIExpression => EntityKind::Expr,
        Kind::DILabel => EntityKind::Label,
        Kind::DIImportedEntity => EntityKind::Import,
        Kind::DIMacro | Kind::DIMacroFile => EntityKind::Macro,
        Kind::DIObjCProperty => EntityKind::Property,
        _ => return None,
    })
}

/// IR flags of a DIFlags value (by [`tables::DI_FLAGS`]); bits without an IR name stay in
/// `foreign`.
fn flags(di: u32) -> Flags {
    let mut f = Flags::default();
    for &(_, bits, meaning) in tables::DI_FLAGS {
        match meaning {
            FlagMeaning::Ir(flag) if di & bits != 0 => f = f.with(flag),
            FlagMeaning::Access(flag) if di & 3 == bits => f = f.with(flag),
            FlagMeaning::Inheritance(flag) if di & (3 << 16) == bits => f = f.with(flag),
            _ => {}
        }
    }
    f.foreign = di & !(tables::DI_FIELDS | tables::named_bits(tables::DI_FLAGS));
    f
}

/// `f` with the IR flags of a DISPFlags value (by [`tables::SP_FLAGS`]; the virtuality is the
/// caller's), and the bits no LLVM names.
fn sp_flags(mut f: Flags, sp: u32) -> (Flags, u32) {
    for &(_, bit, meaning) in tables::SP_FLAGS {
        if let FlagMeaning::Ir(flag) = meaning {
            if sp & bit != 0 {
                f = f.with(flag);
            }
        }
    }
    (f, sp & !(3 | tables::named_bits(tables::SP_FLAGS)))
}

fn placeholder_file() -> ir::File {
    ir::File {
        name: String::new(),
        directory: None,
        checksum: None,
        source: None,
    }
}

/// The pointer size of the SPIR and x86 triples dwarv meets (None: unknown).
fn address_size(triple: &str) -> Option<u8> {
    let arch = triple.split('-').next()?;
    match arch {
        "spir" | "spirv32" | "i386" | "i686" | "nvptx" => Some(4),
        "spir64" | "spirv64" | "x86_64" | "aarch64" | "nvptx64" | "amdgcn" => Some(8),
        _ => None,
    }
}
