//! The SPIR-V reader: a module carrying any of the debug sets (`DebugInfo`, `OpenCL.DebugInfo.100`,
//! `SPIRV.debug`, `NonSemantic.Shader.DebugInfo.100` and its versioned imports) → IR.
//!
//! Reading runs in passes, none of them recursive, so forward references (OpenCL.100 members
//! before their composite) and reference cycles cost nothing special:
//! 1. index: strings, integer constants, `OpTypeVoid`s, and every debug instruction with its
//!    operands split by its set's layout (`operands`);
//! 2. allocate: one IR entity per debug instruction that defines one, in instruction order, so
//!    every result id has its handle before any operand is looked at;
//! 3. fill: each entity's fields from its operands (`types`, `scopes`, `expr`);
//! 4. code: the in-function instructions in order (`code`): scope runs, line rows, events;
//! 5. finish: member scopes, source texts, then `ir::verify` — a module that breaks an IR rule
//!    (a scope cycle…) is an input error naming the instruction.
//!
//! The mapping is docs/spirv-mapping.md.

mod code;
mod expr;
mod operands;
mod reader;
mod resolve;
mod scopes;
pub(crate) use scopes::{split_checksum, unhex};
mod types;

use crate::diag::{Diagnostics, LossKind};
use crate::error::Error;
use crate::ir::verify::Verified;
use crate::ir::{self, EntityKind, File, Handle, Ref};
use crate::spirv::binary;
use crate::spirv::NormalForm;
use rspirv::spirv::Op;

use operands::{fail, Dec, Kind, RErr, RResult};
use reader::Ctx;

/// Reads a SPIR-V module's debug information. `name` names the input in errors.
/// The module keeps every IR rule (a module that breaks one is damaged input: the error names
/// the instruction of the first finding).
pub fn read(bytes: &[u8], name: &str) -> Result<(Verified, Diagnostics), Error> {
    read_inner(bytes).map_err(|e| Error::Spirv {
        path: name.to_string(),
        offset: e.offset,
        id: e.id,
        message: e.message,
    })
}

/// The base of a read: the module parsed and its normal form, kept so a writer can reuse them.
pub(crate) struct Parsed<'w> {
    pub bin: binary::Module<'w>,
    pub nf: NormalForm,
}

fn named(name: &str) -> impl Fn(RErr) -> Error + '_ {
    move |e| Error::Spirv {
        path: name.to_string(),
        offset: e.offset,
        id: e.id,
        message: e.message,
    }
}

/// The words of a module's bytes (either byte order), with `read`'s errors.
pub(crate) fn words(bytes: &[u8], name: &str) -> Result<Vec<u32>, Error> {
    binary::to_words(bytes).map_err(|e| named(name)(e.into()))
}

/// Parses the words and computes the normal form, with `read`'s errors.
pub(crate) fn parse<'w>(words: &'w [u32], name: &str) -> Result<Parsed<'w>, Error> {
    let go = || -> RResult<Parsed<'w>> {
        let bin = binary::Module::parse(words)?;
        let nf = NormalForm::compute(&bin)?;
        Ok(Parsed { bin, nf })
    };
    go().map_err(named(name))
}

/// `read` of an already parsed module.
pub(crate) fn read_parsed(p: &Parsed<'_>, name: &str) -> Result<(Verified, Diagnostics), Error> {
    read_from(&p.bin, &p.nf).map_err(named(name))
}

fn read_inner(bytes: &[u8]) -> RResult<(Verified, Diagnostics)> {
    let words = binary::to_words(bytes)?;
    let m = binary::Module::parse(&words)?;
    let nf = NormalForm::compute(&m)?;
    read_from(&m, &nf)
}

fn read_from(m: &binary::Module<'_>, nf: &NormalForm) -> RResult<(Verified, Diagnostics)> {
    let mut cx = Ctx::new(m, nf);
    cx.index()?;
    cx.allocate()?;
    cx.fill()?;
    code::walk(&mut cx)?;
    cx.finish();
    let mut out = std::mem::take(&mut cx.out);
    // The code's identity: its positions are the debug info's (`ModuleInfo::code_id`). A build
    // identifier that is the code's build id is dwarv's link record.
    let has_code = m.insns.iter().any(|i| i.op() == Some(Op::Function));
    out.info.code_id = has_code.then(|| nf.code_id(m));
    if let Some(b) = &out.info.build_id {
        if b.id == crate::spirv::build_id(&nf.words(m)) {
            out.info.link = Some(ir::Link {
                build_id: b.id.clone(),
                storage_path: out.info.storage_path.take(),
            });
            out.info.build_id = None;
        }
    }
    let out = Verified::new(out).map_err(|findings| cx.broken_rule(&findings))?;
    Ok((out, cx.diag))
}

impl<'a> Ctx<'a> {
    /// Pass 1: strings, constants and the debug instructions.
    fn index(&mut self) -> RResult<()> {
        let m = self.m;
        for (i, insn) in m.insns.iter().enumerate() {
            match insn.op() {
                Some(Op::String) => {
                    let id = m.check_id(insn, insn.operand(0)?)?;
                    self.strings.insert(id, insn.string(1)?.0);
                }
                Some(Op::TypeVoid) => {
                    self.voids.insert(insn.operand(0)?);
                }
                Some(Op::TypeInt) => {
                    let signed = insn.operand(2)? != 0;
                    self.int_types
                        .insert(insn.operand(0)?, (insn.operand(1)?, signed));
                }
                Some(Op::TypeBool) => {
                    self.int_types.insert(insn.operand(0)?, (1, false));
                }
                Some(Op::Constant) => self.constant(insn)?,
                Some(Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull) => {
                    let v = i128::from(insn.op() == Some(Op::ConstantTrue));
                    self.consts.insert(insn.operand(1)?, v);
                }
                Some(Op::Source) => self.source_language = Some(insn.operand(0)?),
                Some(Op::ExtInst) => self.debug_insn(i, insn)?,
                _ => {}
            }
            if let Some(id) = insn.result_id() {
                self.defined.insert(id);
            }
        }
        Ok(())
    }

    fn constant(&mut self, insn: &binary::Insn<'_>) -> RResult<()> {
        let (ty, id) = (insn.operand(0)?, insn.operand(1)?);
        let Some(&(width, signed)) = self.int_types.get(&ty) else {
            return Ok(()); // a float constant: never a debug number
        };
        let lo = u64::from(insn.operand(2)?);
        let v = if width > 32 {
            lo | u64::from(insn.operand(3)?) << 32
        } else {
            lo
        };
        let v = match (signed, width) {
            (true, 1..=63) => {
                let shift = 64 - width;
                i128::from(((v << shift) as i64) >> shift)
            }
            (true, _) => i128::from(v as i64),
            _ => i128::from(v),
        };
        self.consts.insert(id, v);
        Ok(())
    }

    fn debug_insn(&mut self, index: usize, insn: &binary::Insn<'a>) -> RResult<()> {
        let set = insn.operand(2)?;
        let Some(import) = self.nf.import(set) else {
            return Ok(());
        };
        let flavour = import.flavour;
        let opcode = insn.operand(3)?;
        let id = self.m.check_id(insn, insn.operand(1)?)?;
        let Some((layout, kind)) = operands::lookup(flavour, opcode) else {
            self.unknown_ids.insert(id);
            self.diag.push(
                LossKind::Unknown,
                format!("word {} (%{id})", insn.offset),
                format!("unknown {} instruction {opcode}: skipped", import.name),
            );
            return Ok(());
        };
        let layout = operands::layout_for(flavour, layout, insn.words.len().saturating_sub(5));
        let dec = Dec::new(insn, flavour, layout, kind)?;
        if self.by_id.insert(id, self.decs.len()).is_some() || self.strings.contains_key(&id) {
            return fail(insn.offset, Some(id), format!("id %{id} is defined twice"));
        }
        self.decs.push((index, dec));
        Ok(())
    }

    /// Pass 2: one entity per defining debug instruction, in instruction order.
    fn allocate(&mut self) -> RResult<()> {
        self.aliases = types::forward_aliases(self)?;
        for i in 0..self.decs.len() {
            let d = &self.decs[i].1;
            if self.aliases.contains_key(&d.id) {
                continue;
            }
            let (id, offset) = (d.id, d.offset);
            let r = match entity_kind(d.kind) {
                Some(kind) => self.push_placeholder(kind),
                None => continue,
            };
            if r.kind() == EntityKind::File {
                self.file_texts.push(None);
            }
            self.refs.insert(id, r);
            self.origin.insert(r, (offset, id));
        }
        for (fwd, full) in self.aliases.clone() {
            if let Some(r) = self.refs.get(&full).copied() {
                self.refs.insert(fwd, r);
            }
        }
        Ok(())
    }

    fn push_placeholder(&mut self, kind: EntityKind) -> Ref {
        use ir::{Expr, Scope, ScopeKind, Type, TypeKind, VarKind, Variable};
        let o = &mut self.out;
        match kind {
            EntityKind::File => Ref::File(o.files.push(File {
                name: String::new(),
                directory: None,
                checksum: None,
                source: None,
            })),
            EntityKind::Unit => Ref::Unit(o.units.push(ir::Unit::default())),
            EntityKind::Type => Ref::Type(o.types.push(Type::new(TypeKind::Unspecified))),
            EntityKind::Scope => Ref::Scope(
                o.scopes
                    .push(Scope::new(ScopeKind::LexicalBlock { ranges: Vec::new() })),
            ),
            EntityKind::Var => Ref::Var(o.vars.push(Variable::new(VarKind::Local))),
            EntityKind::Inlined => Ref::Inlined(o.inlined.push(ir::InlinedAt {
                at: ir::Loc::default(),
                scope: None,
                parent: None,
                origin: None,
                entry_pc: None,
            })),
            EntityKind::Expr => Ref::Expr(o.exprs.push(Expr::default())),
            EntityKind::Macro => Ref::Macro(o.macros.push(ir::Macro::default())),
            EntityKind::Import => Ref::Import(o.imports.push(ir::Import {
                kind: ir::ImportKind::MODULE,
                name: None,
                scope: None,
                entity: None,
                at: None,
                elements: Vec::new(),
            })),
            _ => Ref::EntryPoint(o.entry_points.push(ir::EntryPoint {
                function: None,
                unit: None,
                signature: String::new(),
                arguments: String::new(),
            })),
        }
    }

    /// Pass 3: the fields of every entity, and the module-level facts.
    fn fill(&mut self) -> RResult<()> {
        let mut last_source: Option<Handle<File>> = None;
        for i in 0..self.decs.len() {
            let d = self.decs[i].1.clone();
            if self.aliases.contains_key(&d.id) {
                continue;
            }
            let r = self.refs.get(&d.id).copied();
            match d.kind {
                Kind::Source | Kind::SourceContinued => {
                    last_source = scopes::source(self, &d, r, last_source)?;
                    continue;
                }
                k if types::is_type(k) => types::fill(self, &d, r)?,
                Kind::Expression => expr::fill(self, &d, r)?,
                _ => scopes::fill(self, &d, r)?,
            }
            last_source = None;
        }
        Ok(())
    }

    /// Pass 5: what needs every entity filled (the IR rules follow, in `read_from`).
    fn finish(&mut self) {
        types::member_scopes(self);
        types::array_sizes(self);
        types::enum_values(self);
        scopes::bind_definitions(self);
        scopes::definition_units(self);
        scopes::producers_from_entry_points(self);
        scopes::intern_texts(self);
        scopes::inlined_files(self);
        scopes::fit_params(self);
    }

    /// The error of a module that breaks IR rules, at the instruction of the first finding.
    fn broken_rule(&self, findings: &ir::verify::Findings) -> RErr {
        let first = &findings.0[0];
        let (offset, id) = self.place_of(&first.subject);
        let more = match findings.0.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        RErr {
            offset,
            id,
            message: format!("the debug info breaks an IR rule: {first}{more}"),
        }
    }
}

/// The arena a debug instruction's entity goes to, if it defines one.
fn entity_kind(k: Kind) -> Option<EntityKind> {
    Some(match k {
        Kind::Source => EntityKind::File,
        Kind::CompilationUnit => EntityKind::Unit,
        k if types::is_type(k) => EntityKind::Type,
        Kind::FunctionDeclaration
        | Kind::Function
        | Kind::LexicalBlock
        | Kind::LexicalBlockDiscriminator
        | Kind::ModuleIntel => EntityKind::Scope,
        Kind::GlobalVariable | Kind::LocalVariable | Kind::InlinedVariable => EntityKind::Var,
        Kind::InlinedAt => EntityKind::Inlined,
        Kind::Expression => EntityKind::Expr,
        Kind::MacroDef | Kind::MacroUndef => EntityKind::Macro,
        Kind::ImportedEntity => EntityKind::Import,
        Kind::EntryPoint => EntityKind::EntryPoint,
        _ => return None,
    })
}
