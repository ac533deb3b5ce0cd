//! Files, units, scopes, variables, labels, imports, macros and properties.

use llvm_bridge::{Key, Kind, NodeId};

use super::{flags, sp_flags, Lower};
use crate::diag::LossKind;
use crate::ir::Flags;
use crate::ir::{
    Checksum, ChecksumKind, EmissionKind, File, FunctionInfo, ImportKind, Language, Location,
    MacroKind, Ref, ScopeKind, Text, Value, VarKind, Virtuality,
};

impl Lower<'_> {
    pub(super) fn file_node(&mut self, id: NodeId) {
        let Some(Ref::File(h)) = self.slot[id as usize] else {
            return;
        };
        let n = self.node(id);
        let checksum = match (n.int(Key::checksumkind), n.str(Key::checksum)) {
            (Some(k), Some(hex)) => match hex_bytes(hex) {
                Some(bytes) => Some(Checksum {
                    kind: ChecksumKind(k as u32),
                    bytes,
                }),
                None => {
                    self.loss(LossKind::Dropped, id, "a checksum that is not hexadecimal");
                    None
                }
            },
            _ => None,
        };
        let source = n.str(Key::source).map(|s| {
            self.ir.texts.push(Text {
                text: s.to_string(),
            })
        });
        *self.ir.files.get_mut(h) = File {
            name: n.str(Key::filename).unwrap_or_default().to_string(),
            directory: n
                .str(Key::directory)
                .filter(|d| !d.is_empty())
                .map(str::to_string),
            checksum,
            source,
        };
    }

    pub(super) fn unit_node(&mut self, id: NodeId) {
        let Some(Ref::Unit(h)) = self.slot[id as usize] else {
            return;
        };
        let n = self.node(id);
        let s = |k| n.str(k).filter(|s| !s.is_empty()).map(str::to_string);
        let retained = [Key::enums, Key::retainedTypes]
            .iter()
            .flat_map(|&k| self.list(n.node(k)))
            .flatten()
            .filter_map(|e| self.slot[e as usize])
            .collect();
        let u = self.ir.units.get_mut(h);
        u.file = match n.node(Key::file).and_then(|f| self.slot[f as usize]) {
            Some(Ref::File(f)) => Some(f),
            _ => None,
        };
        u.language = Language(n.int(Key::language).unwrap_or(0) as u32);
        u.producer = s(Key::producer);
        u.flags_text = s(Key::flags);
        if n.int(Key::isOptimized) == Some(1) {
            u.flags = u.flags.with(Flags::OPTIMIZED);
        }
        u.runtime_version = Self::int(n, Key::runtimeVersion) as u32;
        u.emission = EmissionKind(Self::int(n, Key::emissionKind) as u32);
        // LLVM takes any number; the IR a DWARF version (2 to 5). Another is left out, below.
        let dwarf_version = self.m.module_flag("Dwarf Version");
        u.dwarf_version = dwarf_version
            .filter(|v| (2..=5).contains(v))
            .map(|v| v as u16);
        u.debug_version = self.m.module_flag("Debug Info Version").map(|v| v as u32);
        u.dwo_name = s(Key::splitDebugFilename);
        u.dwo_id = n.int(Key::dwoId).filter(|&v| v != 0).map(|v| v as u64);
        u.split_debug_inlining = n.int(Key::splitDebugInlining) == Some(1);
        u.debug_info_for_profiling = n.int(Key::debugInfoForProfiling) == Some(1);
        u.name_table = Self::int(n, Key::nameTableKind) as u32;
        u.ranges_base_address = n.int(Key::rangesBaseAddress) == Some(1);
        u.sysroot = s(Key::sysroot);
        u.sdk = s(Key::sdk);
        u.retained = retained;
        if let Some(v) = dwarf_version.filter(|v| !(2..=5).contains(v)) {
            self.loss(
                LossKind::Dropped,
                id,
                format!("module flag Dwarf Version {v} is no DWARF version (2 to 5): left out"),
            );
        }
    }

    pub(super) fn scope_node(&mut self, id: NodeId) {
        let Some(Ref::Scope(h)) = self.slot[id as usize] else {
            return;
        };
        let n = self.node(id);
        let mut fl = flags(Self::int(n, Key::flags) as u32);
        let kind = match n.kind {
            Kind::DISubprogram => {
                let sp = Self::int(n, Key::spFlags) as u32;
                let unnamed;
                (fl, unnamed) = sp_flags(fl, sp);
                if unnamed != 0 {
                    self.loss(
                        LossKind::Dropped,
                        id,
                        format!("DISPFlags bits {unnamed:#x}: LLVM names no flag there"),
                    );
                }
                let unit = match self.r(n, Key::unit) {
                    Some(Ref::Unit(u)) => Some(u),
                    _ => None,
                };
                let list = |k| -> Vec<Ref> {
                    self.list(n.node(k))
                        .into_iter()
                        .flatten()
                        .filter_map(|e| self.slot[e as usize])
                        .collect()
                };
                let types = |k| -> Vec<_> {
                    list(k)
                        .into_iter()
                        .filter_map(|r| match r {
                            Ref::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect()
                };
                let info = FunctionInfo {
                    linkage: n
                        .str(Key::linkageName)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                    ty: self.ty(n, Key::type_),
                    unit,
                    scope_line: n.int(Key::scopeLine).filter(|&l| l != 0).map(|l| l as u32),
                    // LLVM 15+.
                    target: n
                        .str(Key::targetFuncName)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                    declaration: self.scope_handle(n, Key::declaration),
                    containing_type: self.ty(n, Key::containingType),
                    virtuality: Some(Virtuality((sp & 3) as u8)).filter(|v| v.0 != 0),
                    virtual_index: n
                        .int(Key::virtualIndex)
                        .filter(|_| sp & 3 != 0)
                        .map(|v| v as u32),
                    this_adjustment: n.int(Key::thisAdjustment).filter(|&v| v != 0),
                    templates: types(Key::templateParams),
                    thrown: types(Key::thrownTypes),
                    retained: list(Key::retainedNodes),
                    ..FunctionInfo::default()
                };
                if sp & (1 << 3) != 0 {
                    ScopeKind::Function(Box::new(info))
                } else {
                    ScopeKind::FunctionDecl(Box::new(info))
                }
            }
            Kind::DILexicalBlock => ScopeKind::LexicalBlock { ranges: Vec::new() },
            Kind::DILexicalBlockFile => ScopeKind::BlockFile {
                discriminator: Self::int(n, Key::discriminator) as u32,
            },
            Kind::DINamespace => ScopeKind::Namespace {
                export_symbols: n.int(Key::exportSymbols) == Some(1),
            },
            Kind::DIModule => {
                let s = |k| n.str(k).filter(|s| !s.is_empty()).map(str::to_string);
                ScopeKind::Module {
                    config_macros: s(Key::configMacros),
                    include_path: s(Key::includePath),
                    api_notes: s(Key::apinotes),
                    is_decl: n.int(Key::isDecl) == Some(1),
                }
            }
            _ => ScopeKind::CommonBlock {
                declaration: match self.r(n, Key::declaration) {
                    Some(Ref::Var(v)) => Some(v),
                    _ => None,
                },
            },
        };
        let parent = match (n.kind, self.scope(n, Key::scope)) {
            // A subprogram at file scope belongs to its own unit.
            (Kind::DISubprogram, Some(Ref::Unit(_))) | (Kind::DISubprogram, None) => {
                match self.r(n, Key::unit) {
                    Some(u @ Ref::Unit(_)) => Some(u),
                    _ => self.scope(n, Key::scope),
                }
            }
            // A namespace or module without a scope is at file level: in the unit (as DWARF's
            // DIE tree and SPIR-V's required Parent operand say).
            (Kind::DINamespace | Kind::DIModule, None) => self.first_unit(),
            (_, p) => p,
        };
        let at = self.at(n);
        let name = Self::name(n);
        let s = self.ir.scopes.get_mut(h);
        s.kind = kind;
        s.name = name;
        s.parent = parent;
        s.at = at;
        s.flags = fl;
    }

    pub(super) fn var_node(&mut self, id: NodeId) {
        let Some(Ref::Var(h)) = self.slot[id as usize] else {
            return;
        };
        let n = self.node(id);
        // A static data member's declaration (LLVM 18+, see entity_of): a global declared in
        // its composite, its type the `baseType`.
        let member = n.kind == Kind::DIDerivedType;
        let global = n.kind == Kind::DIGlobalVariable || member;
        let mut fl = flags(Self::int(n, Key::flags) as u32);
        if member {
            fl = fl.with(Flags::FWD_DECL);
            fl = fl.without(Flags::STATIC_MEMBER);
        }
        let kind = match n.int(Key::arg) {
            _ if global => VarKind::Global,
            Some(a) if a > 0 => VarKind::Param(a as u32),
            _ => VarKind::Local,
        };
        if global {
            if n.int(Key::isLocal) == Some(1) {
                fl = fl.with(Flags::LOCAL);
            }
            if n.int(Key::isDefinition) == Some(1) {
                fl = fl.with(Flags::DEFINITION);
            }
            if !self.list(n.node(Key::templateParams)).is_empty() {
                self.loss(
                    LossKind::Dropped,
                    id,
                    "template parameters of a global variable have no IR field",
                );
            }
        }
        let align = Self::int(n, Key::align);
        let v = crate::ir::Variable {
            kind,
            name: Self::name(n),
            ty: self.ty(n, if member { Key::baseType } else { Key::type_ }),
            scope: self.scope(n, Key::scope),
            at: self.at(n),
            flags: fl,
            linkage: n
                .str(Key::linkageName)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            align_bits: (align > 0).then_some(align as u32),
            declaration: self.r(n, Key::declaration),
            ..crate::ir::Variable::new(VarKind::Local)
        };
        *self.ir.vars.get_mut(h) = v;
    }

    /// A DIGlobalVariableExpression: the variable's location expression and the global bound
    /// to it.
    pub(super) fn gve_node(&mut self, id: NodeId) {
        let n = self.node(id);
        let (Some(Ref::Var(v)), expr) = (self.r(n, Key::var), self.r(n, Key::expr)) else {
            return;
        };
        let global = self.gve_global.get(&id).cloned();
        let var = self.ir.vars.get_mut(v);
        if var.location.is_some() || (var.binding.is_some() && global.is_some()) {
            self.loss(
                LossKind::Dropped,
                id,
                "a second location of one global variable (only the first is kept)",
            );
            return;
        }
        if let Some(Ref::Expr(e)) = expr {
            var.location = Some(Location::Expr(e));
        }
        if let Some(g) = global {
            var.binding = Some(Value::Llvm(format!("@{g}")));
        }
    }

    /// Every occurrence of every macro node (see `Lower::macro_parents`).
    pub(super) fn macro_nodes(&mut self) {
        for (h, id, parent) in std::mem::take(&mut self.macros) {
            let n = self.node(id);
            let file = self.file(n);
            let m = self.ir.macros.get_mut(h);
            m.kind = MacroKind(Self::int(n, Key::macinfoType) as u8);
            m.parent = Some(parent);
            m.line = Self::int(n, Key::line) as u32;
            m.file = file;
            m.name = n.str(Key::name).map(str::to_string);
            m.value = n
                .str(Key::value)
                .filter(|v| !v.is_empty())
                .map(str::to_string);
            if n.kind == Kind::DIMacro && m.name.is_none() {
                m.name = Some(String::new());
            }
        }
    }

    pub(super) fn misc_node(&mut self, id: NodeId) {
        let n = self.node(id);
        let at = self.at(n);
        match self.slot[id as usize] {
            Some(Ref::Label(h)) => {
                let scope = self.scope_handle(n, Key::scope);
                let l = self.ir.labels.get_mut(h);
                l.name = n.str(Key::name).unwrap_or_default().to_string();
                l.scope = scope;
                l.at = at;
            }
            Some(Ref::Import(h)) => {
                let elements = self
                    .list(n.node(Key::elements))
                    .into_iter()
                    .flatten()
                    .filter_map(|e| self.slot[e as usize])
                    .collect();
                let i = crate::ir::Import {
                    kind: ImportKind(n.tag),
                    name: Self::name(n),
                    scope: self.scope(n, Key::scope),
                    entity: self.r(n, Key::entity),
                    at,
                    elements,
                };
                *self.ir.imports.get_mut(h) = i;
            }
            Some(Ref::Property(h)) => {
                let ty = self.ty(n, Key::type_);
                let p = self.ir.properties.get_mut(h);
                p.name = n.str(Key::name).unwrap_or_default().to_string();
                p.at = at;
                p.getter = n
                    .str(Key::getter)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
                p.setter = n
                    .str(Key::setter)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
                p.attributes = Self::int(n, Key::attributes) as u32;
                p.ty = ty;
            }
            _ => {}
        }
    }
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
