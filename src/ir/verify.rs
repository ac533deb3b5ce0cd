//! The validator: every reference resolves to an entity of a kind the field allows, scope trees,
//! type chains and inlined-at chains are acyclic, and counts agree. Frontends' output and parsed
//! text pass through it before any backend sees a module.

use std::fmt;

use super::code::{CodePos, CodeRange, EventKind};
use super::expr::{Arg, Insn, Location, Op};
use super::scope::ScopeKind;
use super::types::{Bound, TypeKind};
use super::var::VarKind;
use super::{EntityKind, Loc, Module, Ref, Value};

/// One broken rule, about one entity (or table row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The entity the finding is about, as `t3 (member "dir")`, or a row like `line 4`.
    pub subject: String,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.message)
    }
}

/// Every finding, printed one per line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Findings(pub Vec<Finding>);

impl fmt::Display for Findings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, finding) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{finding}")?;
        }
        Ok(())
    }
}

/// Checks a module; `Err` lists every finding.
pub fn check(m: &Module) -> Result<(), Findings> {
    let findings = verify(m);
    if findings.is_empty() {
        Ok(())
    } else {
        Err(Findings(findings))
    }
}

/// A module that keeps every IR rule: what the writers take, so that none is handed a module
/// nobody checked. [`Verified::new`] is the only way to make one; it reads as the module it holds.
#[derive(Clone, Debug)]
pub struct Verified(Module);

impl Verified {
    /// Checks `m`; `Err` lists every finding (and `m` is dropped).
    pub fn new(m: Module) -> Result<Verified, Findings> {
        check(&m)?;
        Ok(Verified(m))
    }

    /// The module, to change it (it must be checked again to be written).
    pub fn into_inner(self) -> Module {
        self.0
    }
}

impl std::ops::Deref for Verified {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.0
    }
}

/// All findings, in a deterministic order.
pub fn verify(m: &Module) -> Vec<Finding> {
    let mut v = Verifier {
        m,
        findings: Vec::new(),
        subject: Subject::None,
        first_pos: None,
    };
    v.references();
    if v.findings.is_empty() {
        // Structural checks follow references, so they run on modules whose references resolve.
        v.cycles();
        v.counts();
    }
    v.findings
}

/// `t3 (member "dir")`: the short name, the keyword-ish kind and the name when there is one.
pub fn describe(m: &Module, r: Ref) -> String {
    let short = format!("{}{}", r.kind().prefix(), r.index());
    if !m.resolves(r) {
        return format!("{short} (missing {})", r.kind().noun());
    }
    let name = match r {
        Ref::File(h) => Some(m.files.get(h).name.clone()),
        Ref::Type(h) => m.types.get(h).name.clone(),
        Ref::Scope(h) => m.scopes.get(h).name.clone(),
        Ref::Var(h) => m.vars.get(h).name.clone(),
        Ref::Macro(h) => m.macros.get(h).name.clone(),
        Ref::Label(h) => Some(m.labels.get(h).name.clone()),
        Ref::Property(h) => Some(m.properties.get(h).name.clone()),
        _ => None,
    };
    match name {
        Some(n) => format!("{short} ({} {n:?})", r.kind().noun()),
        None => format!("{short} ({})", r.kind().noun()),
    }
}

use EntityKind as K;
const ANY: &[K] = &[
    K::Text,
    K::File,
    K::Unit,
    K::Type,
    K::Scope,
    K::Inlined,
    K::Var,
    K::Expr,
    K::LocList,
    K::Macro,
    K::Import,
    K::Label,
    K::CallSite,
    K::Property,
    K::EntryPoint,
    K::Cie,
    K::Fde,
];
const PARENTS: &[K] = &[K::Unit, K::Scope, K::Type];
const BOUND_TARGETS: &[K] = &[K::Var, K::Type, K::Expr];
const ELEMENTS: &[K] = &[K::Type, K::Scope, K::Var, K::Property];
const RETAINED: &[K] = &[K::Type, K::Scope, K::Var, K::Label, K::Import];
const DIE_TARGETS: &[K] = &[K::Type, K::Scope, K::Var, K::Label, K::Expr];

/// What the findings being checked are about. Kept unformatted: the text (`describe`) is only
/// built when a finding is reported, so a valid module costs no formatting.
#[derive(Clone, Copy)]
enum Subject {
    None,
    Module,
    Entity(Ref),
    Row(&'static str, usize),
}

struct Verifier<'a> {
    m: &'a Module,
    findings: Vec<Finding>,
    subject: Subject,
    /// The first code position seen (SPIR-V or not) and where, to report mixed kinds.
    first_pos: Option<(u8, Subject)>,
}

impl Verifier<'_> {
    fn subject_text(&self, s: Subject) -> String {
        match s {
            Subject::None => String::new(),
            Subject::Module => "module".into(),
            Subject::Entity(r) => describe(self.m, r),
            Subject::Row(table, index) => format!("{table} {}", index + 1),
        }
    }

    /// Inlined, the report out of line: a module notes a position per line row and range.
    #[inline]
    fn note_pos(&mut self, p: CodePos) {
        let kind = match p {
            CodePos::Spirv(_) => 0,
            CodePos::Addr(_) => 1,
            CodePos::Llvm(_) => 2,
        };
        match self.first_pos {
            Some((first, _)) if first == kind => {}
            _ => self.note_other_pos(kind),
        }
    }

    #[cold]
    #[inline(never)]
    fn note_other_pos(&mut self, kind: u8) {
        match self.first_pos {
            None => self.first_pos = Some((kind, self.subject)),
            Some((first, where_)) if first != kind => {
                let where_ = self.subject_text(where_);
                let msg = format!(
                    "mixes kinds of code position (SPIR-V word offsets, machine addresses, LLVM instruction numbers; the first position, in {where_}, is of another kind)"
                );
                self.report(msg);
            }
            _ => {}
        }
    }

    fn range(&mut self, r: &CodeRange) {
        self.note_pos(r.start);
        if r.start > r.end {
            self.report("a code range ends before it starts");
        }
    }

    fn report(&mut self, message: impl Into<String>) {
        self.findings.push(Finding {
            subject: self.subject_text(self.subject),
            message: message.into(),
        });
    }

    fn about(&mut self, r: Ref) {
        self.subject = Subject::Entity(r);
    }

    fn about_row(&mut self, table: &'static str, index: usize) {
        self.subject = Subject::Row(table, index);
    }

    /// A reference in `field` must resolve and be of one of `allowed` kinds. Inlined, with the
    /// report out of line: a module holds a million references, and the formatting's stack
    /// frame set up for each was most of the cost.
    #[inline]
    fn reference(&mut self, field: &str, r: Ref, allowed: &[K]) {
        if !self.m.resolves(r) || !allowed.contains(&r.kind()) {
            self.bad_reference(field, r, allowed);
        }
    }

    #[cold]
    #[inline(never)]
    fn bad_reference(&mut self, field: &str, r: Ref, allowed: &[K]) {
        if !self.m.resolves(r) {
            let target = format!("{}{}", r.kind().prefix(), r.index());
            self.report(format!(
                "`{field}` refers to {target}, which does not exist ({} {} defined)",
                self.m.count(r.kind()),
                plural(r.kind())
            ));
        } else if !allowed.contains(&r.kind()) {
            let names: Vec<&str> = allowed.iter().map(|k| k.noun()).collect();
            self.report(format!(
                "`{field}` refers to {}, but must be a {}",
                describe(self.m, r),
                names.join(" or ")
            ));
        }
    }

    fn opt(&mut self, field: &str, r: Option<Ref>, allowed: &[K]) {
        if let Some(r) = r {
            self.reference(field, r, allowed);
        }
    }

    fn all(&mut self, field: &str, refs: impl IntoIterator<Item = Ref>, allowed: &[K]) {
        for r in refs {
            self.reference(field, r, allowed);
        }
    }

    fn loc(&mut self, field: &str, loc: Option<&Loc>) {
        if let Some(f) = loc.and_then(|l| l.file) {
            self.reference(field, Ref::File(f), &[K::File]);
        }
    }

    fn location(&mut self, field: &str, l: Option<Location>) {
        self.opt(field, l.map(Location::as_ref), &[K::Expr, K::LocList]);
    }

    fn bound(&mut self, field: &str, b: Option<&Bound>) {
        if let Some(Bound::Ref(r)) = b {
            self.reference(field, *r, BOUND_TARGETS);
        }
    }

    fn value(&mut self, field: &str, v: Option<&Value>) {
        if let Some(Value::Ref(r)) = v {
            self.reference(field, *r, ANY);
        }
    }

    fn ops<C>(&mut self, field: &str, ops: &[Insn<C>]) {
        for op in ops {
            for arg in &op.args {
                match arg {
                    Arg::Ref(r) => self.reference(field, *r, DIE_TARGETS),
                    Arg::Ops(inner) => self.expr_ops(field, inner),
                    _ => {}
                }
            }
        }
    }

    fn expr_ops(&mut self, field: &str, ops: &[Op]) {
        // Each named operation has the operands its row says (what the text form can say back).
        for op in ops {
            let Some((_, name, kinds)) = op_row(op.code.0) else {
                continue;
            };
            let fits = kinds.len() == op.args.len()
                && kinds
                    .iter()
                    .zip(&op.args)
                    .all(|(k, a)| crate::ir::text::arg_fits(*k, a));
            if !fits {
                self.report(format!(
                    "`{field}`: operation `{name}` takes {} operand(s) of kinds {kinds:?}, has {:?}",
                    kinds.len(),
                    op.args
                ));
            }
        }
        self.ops(field, ops)
    }

    fn references(&mut self) {
        let m = self.m;
        for (h, f) in m.files.iter() {
            self.about(Ref::File(h));
            self.opt("source", f.source.map(Ref::Text), &[K::Text]);
        }
        for (h, u) in m.units.iter() {
            self.about(Ref::Unit(h));
            self.opt("file", u.file.map(Ref::File), &[K::File]);
            self.opt("signed", u.signed_type.map(Ref::Type), &[K::Type]);
            self.all("retained", u.retained.iter().copied(), RETAINED);
        }
        for (h, t) in m.types.iter() {
            self.about(Ref::Type(h));
            self.opt("in", t.scope, PARENTS);
            self.loc("at", t.at.as_ref());
            self.bound("bits", t.size.as_ref());
            let ty = |h: Option<super::Handle<super::Type>>| h.map(Ref::Type);
            match &t.kind {
                TypeKind::Basic { .. } | TypeKind::Unspecified => {}
                TypeKind::Pointer { pointee: b, .. }
                | TypeKind::Qualified { base: b, .. }
                | TypeKind::Typedef { base: b }
                | TypeKind::Vector { element: b, .. }
                | TypeKind::Matrix { column: b, .. }
                | TypeKind::Inheritance { base: b, .. } => self.opt("base", ty(*b), &[K::Type]),
                TypeKind::Array {
                    element,
                    dims,
                    stride,
                    data_location,
                    associated,
                    allocated,
                    rank,
                    ..
                } => {
                    self.opt("element", ty(*element), &[K::Type]);
                    for d in dims {
                        for b in [&d.count, &d.lower, &d.upper, &d.stride] {
                            self.bound("dims", b.as_ref());
                        }
                    }
                    for (field, b) in [
                        ("stride", stride),
                        ("data_location", data_location),
                        ("associated", associated),
                        ("allocated", allocated),
                        ("rank", rank),
                    ] {
                        self.bound(field, b.as_ref());
                    }
                }
                TypeKind::Function { ret, params, .. } => {
                    self.opt("ret", ty(*ret), &[K::Type]);
                    self.all(
                        "params",
                        params.iter().flatten().map(|h| Ref::Type(*h)),
                        &[K::Type],
                    );
                }
                TypeKind::Enum { underlying, .. } => self.opt("base", ty(*underlying), &[K::Type]),
                TypeKind::Composite {
                    elements,
                    vtable_holder,
                    templates,
                    discriminator,
                    ..
                } => {
                    self.all("elements", elements.iter().copied(), ELEMENTS);
                    self.opt("vtable", ty(*vtable_holder), &[K::Type]);
                    self.all(
                        "templates",
                        templates.iter().map(|h| Ref::Type(*h)),
                        &[K::Type],
                    );
                    self.opt("discriminator", ty(*discriminator), &[K::Type]);
                }
                TypeKind::Member {
                    base,
                    value,
                    discriminant,
                    property,
                    ..
                } => {
                    self.opt("base", ty(*base), &[K::Type]);
                    self.value("value", value.as_ref());
                    self.value("discr", discriminant.as_ref());
                    self.opt("property", property.map(Ref::Property), &[K::Property]);
                }
                TypeKind::PtrToMember { pointee, class } => {
                    self.opt("base", ty(*pointee), &[K::Type]);
                    self.opt("class", ty(*class), &[K::Type]);
                }
                TypeKind::Template { target, params } => {
                    self.opt("target", *target, &[K::Type, K::Scope]);
                    self.all("params", params.iter().map(|h| Ref::Type(*h)), &[K::Type]);
                }
                TypeKind::TemplateParam {
                    ty: t, value, pack, ..
                } => {
                    self.opt("type", ty(*t), &[K::Type]);
                    self.value("value", value.as_ref());
                    self.all("pack", pack.iter().map(|h| Ref::Type(*h)), &[K::Type]);
                }
                TypeKind::String {
                    length, location, ..
                } => {
                    self.bound("length", length.as_ref());
                    self.bound("location", location.as_ref());
                }
                TypeKind::Other { children, .. } => {
                    self.all("children", children.iter().copied(), ELEMENTS)
                }
            }
        }
        for (h, s) in m.scopes.iter() {
            self.about(Ref::Scope(h));
            self.opt("in", s.parent, PARENTS);
            self.loc("at", s.at.as_ref());
            match &s.kind {
                ScopeKind::CommonBlock { declaration } => {
                    self.opt("decl", declaration.map(Ref::Var), &[K::Var])
                }
                ScopeKind::Function(fi) | ScopeKind::FunctionDecl(fi) => {
                    self.opt("type", fi.ty.map(Ref::Type), &[K::Type]);
                    self.opt("unit", fi.unit.map(Ref::Unit), &[K::Unit]);
                    self.opt("decl", fi.declaration.map(Ref::Scope), &[K::Scope]);
                    self.opt("containing", fi.containing_type.map(Ref::Type), &[K::Type]);
                    self.all(
                        "templates",
                        fi.templates.iter().map(|h| Ref::Type(*h)),
                        &[K::Type],
                    );
                    self.all(
                        "thrown",
                        fi.thrown.iter().map(|h| Ref::Type(*h)),
                        &[K::Type],
                    );
                    self.all("retained", fi.retained.iter().copied(), RETAINED);
                    self.value("bind", fi.binding.as_ref());
                    self.location("frame_base", fi.frame_base);
                    self.location("lane_pc", fi.lane_pc);
                    self.location("active_lane", fi.active_lane);
                }
                _ => {}
            }
        }
        for (h, i) in m.inlined.iter() {
            self.about(Ref::Inlined(h));
            self.loc("at", Some(&i.at));
            self.opt("scope", i.scope.map(Ref::Scope), &[K::Scope]);
            self.opt("parent", i.parent.map(Ref::Inlined), &[K::Inlined]);
            self.opt("origin", i.origin.map(Ref::Scope), &[K::Scope]);
        }
        for (h, v) in m.vars.iter() {
            self.about(Ref::Var(h));
            if let VarKind::Inlined { origin, inlined } = &v.kind {
                self.reference("origin", Ref::Var(*origin), &[K::Var]);
                self.reference("inlined", Ref::Inlined(*inlined), &[K::Inlined]);
            }
            self.opt("type", v.ty.map(Ref::Type), &[K::Type]);
            self.opt("in", v.scope, PARENTS);
            self.loc("at", v.at.as_ref());
            self.location("loc", v.location);
            self.value("bind", v.binding.as_ref());
            self.value("value", v.const_value.as_ref());
            self.opt("decl", v.declaration, &[K::Var, K::Type]);
        }
        for (h, e) in m.exprs.iter() {
            self.about(Ref::Expr(h));
            self.expr_ops("ops", &e.ops);
        }
        for (h, l) in m.loclists.iter() {
            self.about(Ref::LocList(h));
            self.all(
                "entries",
                l.entries.iter().map(|e| Ref::Expr(e.expr)),
                &[K::Expr],
            );
        }
        for (h, mac) in m.macros.iter() {
            self.about(Ref::Macro(h));
            self.opt("in", mac.parent, &[K::Unit, K::Macro]);
            self.opt("file", mac.file.map(Ref::File), &[K::File]);
            self.opt("def", mac.definition.map(Ref::Macro), &[K::Macro]);
        }
        for (h, i) in m.imports.iter() {
            self.about(Ref::Import(h));
            self.opt("in", i.scope, PARENTS);
            self.opt("entity", i.entity, ANY);
            self.loc("at", i.at.as_ref());
            self.all("elements", i.elements.iter().copied(), ANY);
        }
        for (h, l) in m.labels.iter() {
            self.about(Ref::Label(h));
            self.opt("in", l.scope.map(Ref::Scope), &[K::Scope]);
            self.opt("origin", l.origin.map(Ref::Label), &[K::Label]);
            self.loc("at", l.at.as_ref());
        }
        for (h, c) in m.call_sites.iter() {
            self.about(Ref::CallSite(h));
            self.opt("in", c.scope.map(Ref::Scope), &[K::Scope]);
            self.opt("target", c.target, &[K::Scope, K::Var]);
            self.location("target_loc", c.target_location);
            self.loc("at", c.at.as_ref());
            for p in &c.params {
                for e in [p.location, p.value, p.data_value].into_iter().flatten() {
                    self.reference("params", Ref::Expr(e), &[K::Expr]);
                }
            }
        }
        for (h, p) in m.properties.iter() {
            self.about(Ref::Property(h));
            self.opt("type", p.ty.map(Ref::Type), &[K::Type]);
            self.loc("at", p.at.as_ref());
        }
        for (h, e) in m.entry_points.iter() {
            self.about(Ref::EntryPoint(h));
            self.opt("function", e.function.map(Ref::Scope), &[K::Scope]);
            self.opt("unit", e.unit.map(Ref::Unit), &[K::Unit]);
        }
        for (h, c) in m.cies.iter() {
            self.about(Ref::Cie(h));
            self.ops("initial", &c.initial);
        }
        for (h, f) in m.fdes.iter() {
            self.about(Ref::Fde(h));
            self.reference("cie", Ref::Cie(f.cie), &[K::Cie]);
            self.ops("ops", &f.ops);
        }
        for (i, row) in m.lines.iter().enumerate() {
            self.about_row("line", i);
            self.loc("at", Some(&row.at));
        }
        for (i, run) in m.scope_runs.iter().enumerate() {
            self.about_row("scope", i);
            self.reference("scope", run.scope, &[K::Unit, K::Scope]);
            self.opt("inlined", run.inlined.map(Ref::Inlined), &[K::Inlined]);
        }
        for (i, e) in m.events.iter().enumerate() {
            self.about_row("event", i);
            self.reference("var", Ref::Var(e.var), &[K::Var]);
            for v in &e.values {
                self.value("value", Some(v));
            }
            self.opt("expr", e.expr.map(Ref::Expr), &[K::Expr]);
            self.opt("in", e.scope.map(Ref::Scope), &[K::Scope]);
            self.opt("inlined", e.inlined.map(Ref::Inlined), &[K::Inlined]);
            self.loc("at", e.at.as_ref());
        }
    }

    /// Parent chains (scopes, types, macros), inlined-at chains and typedef-like type chains end.
    fn cycles(&mut self) {
        let m = self.m;
        // Parent links of everything that sits in the scope tree.
        let parent = |r: Ref| -> Option<Ref> {
            match r {
                Ref::Scope(h) => m.scopes.get(h).parent,
                Ref::Type(h) => m.types.get(h).scope,
                Ref::Macro(h) => m.macros.get(h).parent,
                _ => None,
            }
        };
        let starts: Vec<Ref> = m
            .scopes
            .iter()
            .map(|(h, _)| Ref::Scope(h))
            .chain(m.types.iter().map(|(h, _)| Ref::Type(h)))
            .chain(m.macros.iter().map(|(h, _)| Ref::Macro(h)))
            .collect();
        self.chains("the scope tree has a cycle", &starts, parent);

        let inlined: Vec<Ref> = m.inlined.iter().map(|(h, _)| Ref::Inlined(h)).collect();
        self.chains("the inlined-at chain has a cycle", &inlined, |r| match r {
            Ref::Inlined(h) => m.inlined.get(h).parent.map(Ref::Inlined),
            _ => None,
        });

        // A type may refer to itself only through a pointer, a member or a function signature.
        let types: Vec<Ref> = m.types.iter().map(|(h, _)| Ref::Type(h)).collect();
        self.chains(
            "the type is defined in terms of itself (typedef/qualifier/array/vector cycle)",
            &types,
            |r| match r {
                Ref::Type(h) => match &m.types.get(h).kind {
                    TypeKind::Typedef { base }
                    | TypeKind::Qualified { base, .. }
                    | TypeKind::Array { element: base, .. }
                    | TypeKind::Vector { element: base, .. }
                    | TypeKind::Matrix { column: base, .. } => base.map(Ref::Type),
                    _ => None,
                },
                _ => None,
            },
        );
    }

    /// Follows `next` from every start; reports each cycle once, at its smallest member.
    fn chains(&mut self, message: &str, starts: &[Ref], next: impl Fn(Ref) -> Option<Ref>) {
        // 0 = unseen, 1 = on the current path, 2 = known to end; by kind and index (the
        // references resolve: `verify` checks cycles only then), one path vector reused.
        let mut state: Vec<Vec<u8>> = vec![Vec::new(); EntityKind::TABLE.len()];
        let m = self.m;
        let mut path = Vec::new();
        for &start in starts {
            path.clear();
            let mut cur = Some(start);
            while let Some(r) = cur {
                match *mark(&mut state, m, r) {
                    2 => break,
                    1 => {
                        // r is on the path: the cycle is path[pos..].
                        let pos = path.iter().position(|p| *p == r).unwrap_or(0);
                        let cycle = &path[pos..];
                        let first = cycle.iter().copied().min().unwrap_or(r);
                        let names: Vec<String> = cycle
                            .iter()
                            .map(|c| format!("{}{}", c.kind().prefix(), c.index()))
                            .collect();
                        self.about(first);
                        self.report(format!(
                            "{message}: {} → {}{}",
                            names.join(" → "),
                            r.kind().prefix(),
                            r.index()
                        ));
                        break;
                    }
                    _ => {
                        *mark(&mut state, m, r) = 1;
                        path.push(r);
                        cur = next(r);
                    }
                }
            }
            for &r in &path {
                *mark(&mut state, m, r) = 2;
            }
        }
    }

    fn counts(&mut self) {
        let m = self.m;
        if let Some(size) = m.info.address_size {
            if ![1, 2, 4, 8].contains(&size) {
                self.subject = Subject::Module;
                self.report(format!("address size {size} is not 1, 2, 4 or 8"));
            }
        }
        for (h, u) in m.units.iter() {
            self.about(Ref::Unit(h));
            if let Some(v) = u.dwarf_version {
                if !(2..=5).contains(&v) {
                    self.report(format!("DWARF version {v} is not 2 to 5"));
                }
            }
            for r in &u.ranges {
                self.range(r);
            }
        }
        for (h, t) in m.types.iter() {
            self.about(Ref::Type(h));
            match &t.kind {
                TypeKind::Vector { count: 0, .. } => {
                    self.report("a vector needs at least one component")
                }
                TypeKind::Matrix { count, column, .. } => {
                    if *count == 0 {
                        self.report("a matrix needs at least one column");
                    }
                    if let Some(c) = column {
                        if !matches!(m.types.get(*c).kind, TypeKind::Vector { .. }) {
                            self.report(format!(
                                "a matrix's column type must be a vector, not {}",
                                describe(m, Ref::Type(*c))
                            ));
                        }
                    }
                }
                TypeKind::Array { dims, .. } if dims.is_empty() => {
                    self.report("an array needs at least one dimension")
                }
                TypeKind::Enum { enumerators, .. } => {
                    let mut names: Vec<&str> =
                        enumerators.iter().map(|e| e.name.as_str()).collect();
                    names.sort_unstable();
                    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                        self.report(format!("enumerator {:?} appears twice", w[0]));
                    }
                }
                TypeKind::Member { .. } | TypeKind::Inheritance { .. } => {
                    if let Some(Ref::Type(p)) = t.scope {
                        if !matches!(
                            m.types.get(p).kind,
                            TypeKind::Composite { .. } | TypeKind::Other { .. }
                        ) {
                            self.report(format!(
                                "its parent {} is not a composite",
                                describe(m, Ref::Type(p))
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let mut params: rustc_hash::FxHashMap<(Ref, u32), super::Handle<super::Variable>> =
            Default::default();
        for (h, v) in m.vars.iter() {
            self.about(Ref::Var(h));
            if let VarKind::Param(n) = v.kind {
                if n == 0 {
                    self.report("parameters are numbered from 1");
                }
                if let Some(scope) = v.scope {
                    if let Some(other) = params.insert((scope, n), h) {
                        self.report(format!(
                            "parameter {n} of the same scope is also {}",
                            describe(m, Ref::Var(other))
                        ));
                    }
                    if let Ref::Scope(s) = scope {
                        let fty = m.scopes.get(s).function().and_then(|f| f.ty);
                        if let Some(TypeKind::Function {
                            params,
                            variadic: false,
                            ..
                        }) = fty.map(|t| &m.types.get(t).kind)
                        {
                            if n as usize > params.len() {
                                self.report(format!(
                                    "parameter {n} of a function whose type has {} parameter(s)",
                                    params.len()
                                ));
                            }
                        }
                    }
                }
            }
        }
        for (h, s) in m.scopes.iter() {
            self.about(Ref::Scope(h));
            let ranges = match &s.kind {
                ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => {
                    if let Some(p) = f.entry_pc {
                        self.note_pos(p);
                    }
                    &f.ranges
                }
                ScopeKind::LexicalBlock { ranges } => ranges,
                _ => continue,
            };
            for r in ranges {
                self.range(r);
            }
        }
        for (h, i) in m.inlined.iter() {
            self.about(Ref::Inlined(h));
            if let Some(s) = i.scope {
                if !is_code_scope(&m.scopes.get(s).kind) {
                    self.report(format!(
                        "the call's scope {} is not a function or block",
                        describe(m, Ref::Scope(s))
                    ));
                }
            }
            if let Some(o) = i.origin {
                if m.scopes.get(o).function().is_none() {
                    self.report(format!(
                        "the inlined function {} is no function",
                        describe(m, Ref::Scope(o))
                    ));
                }
            }
        }
        for (h, l) in m.loclists.iter() {
            self.about(Ref::LocList(h));
            for e in &l.entries {
                if let Some(r) = &e.range {
                    self.range(r);
                }
            }
        }
        for (h, mac) in m.macros.iter() {
            self.about(Ref::Macro(h));
            let kind = mac.kind;
            if kind == super::MacroKind::DEFINE && mac.name.is_none() {
                self.report("a definition needs a name");
            }
            if kind == super::MacroKind::UNDEF && mac.name.is_none() && mac.definition.is_none() {
                self.report("an undefinition needs a name or the definition it cancels");
            }
            if kind == super::MacroKind::START_FILE && mac.file.is_none() {
                self.report("a macro file entry needs its file");
            }
            if let Some(d) = mac.definition {
                if m.macros.get(d).kind != super::MacroKind::DEFINE {
                    self.report(format!(
                        "`def` must be a definition, not {}",
                        describe(m, Ref::Macro(d))
                    ));
                }
            }
            if let Some(Ref::Macro(p)) = mac.parent {
                if m.macros.get(p).kind != super::MacroKind::START_FILE {
                    self.report(format!(
                        "its parent {} is not a macro file entry",
                        describe(m, Ref::Macro(p))
                    ));
                }
            }
        }
        for (h, e) in m.entry_points.iter() {
            self.about(Ref::EntryPoint(h));
            if let Some(f) = e.function {
                if !matches!(m.scopes.get(f).kind, ScopeKind::Function(_)) {
                    self.report(format!(
                        "the entry point {} is not a function definition",
                        describe(m, Ref::Scope(f))
                    ));
                }
            }
        }
        for (h, l) in m.labels.iter() {
            self.about(Ref::Label(h));
            if let Some(p) = l.pos {
                self.note_pos(p);
            }
        }
        for (h, c) in m.call_sites.iter() {
            self.about(Ref::CallSite(h));
            if let Some(p) = c.pos {
                self.note_pos(p);
            }
        }
        for (h, f) in m.fdes.iter() {
            self.about(Ref::Fde(h));
            self.range(&f.range);
        }
        for (i, row) in m.lines.iter().enumerate() {
            self.about_row("line", i);
            self.range(&row.range);
        }
        for (i, run) in m.scope_runs.iter().enumerate() {
            self.about_row("scope", i);
            self.range(&run.range);
            if let Ref::Scope(s) = run.scope {
                if !is_code_scope(&m.scopes.get(s).kind) {
                    self.report(format!(
                        "{} is not a function or block",
                        describe(m, run.scope)
                    ));
                }
            }
        }
        for (i, e) in m.events.iter().enumerate() {
            self.about_row("event", i);
            self.note_pos(e.pos);
            let var = m.vars.get(e.var);
            if var.kind == VarKind::Global {
                self.report(format!(
                    "{} events need a local variable or parameter, not the global {}",
                    event_name(e.kind),
                    describe(m, Ref::Var(e.var))
                ));
            }
        }
    }
}

fn is_code_scope(k: &ScopeKind) -> bool {
    matches!(
        k,
        ScopeKind::Function(_)
            | ScopeKind::FunctionDecl(_)
            | ScopeKind::LexicalBlock { .. }
            | ScopeKind::BlockFile { .. }
    )
}

fn event_name(k: EventKind) -> &'static str {
    match k {
        EventKind::Declare => "declare",
        EventKind::Value => "value",
        EventKind::Addr => "addr",
    }
}

/// The row of a location-expression operation (`spec::dwarf::OPS`), by an index of the codes
/// below 256 (a search of the table for each operation showed in a linked program's profile).
fn op_row(code: u32) -> Option<&'static crate::spec::dwarf::Row> {
    use crate::spec::dwarf::{row, OPS};
    static INDEX: std::sync::OnceLock<[u16; 256]> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = [0u16; 256];
        // Kept as `row` finds them: the first row of a code.
        for (i, r) in OPS.iter().enumerate().rev() {
            if let Some(slot) = usize::try_from(r.0).ok().and_then(|c| index.get_mut(c)) {
                *slot = u16::try_from(i + 1).unwrap_or(0);
            }
        }
        index
    });
    match usize::try_from(code).ok().and_then(|c| index.get(c)) {
        Some(0) => None,
        Some(&i) => OPS.get(usize::from(i) - 1),
        None => row(OPS, code),
    }
}

/// The mark of `r` in `chains`' state, its kind's marks made at the kind's count when first used.
fn mark<'s>(state: &'s mut [Vec<u8>], m: &Module, r: Ref) -> &'s mut u8 {
    let marks = &mut state[r.kind() as usize];
    if marks.is_empty() {
        marks.resize(m.count(r.kind()), 0);
    }
    &mut marks[r.index()]
}

fn plural(k: EntityKind) -> String {
    format!("{}s", k.noun())
}
