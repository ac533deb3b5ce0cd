//! Covers src/ir/ (every kind), corpus/ir.
//!
//! The hand-written IR corpus (`corpus/ir/*.dwir`), taken together, exercises every kind the IR
//! has: every entity arena and code table, every type/scope/variable/event kind, every value and
//! bound form, an `unknown(…)` value of every open enum, and every AMD (seed 002) operation.
//!
//! The kind lists are exhaustive `match`es without a wildcard arm: adding a variant to the IR
//! breaks this file at compile time until the variant gets a name here — and then this test until
//! a corpus file uses it.

use dwarv::ir::text::parse;
use dwarv::ir::*;
use dwarv::unstable::spec::dwarf::{row, CFAS, OPS};
use std::collections::BTreeSet;
use std::path::Path;

fn corpus() -> Vec<(String, Module)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/ir");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/ir exists")
        .map(|e| e.expect("readable corpus dir").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dwir"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.display().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            let m = parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
            (name, m)
        })
        .collect()
}

/// Asserts that every name of `all` was seen.
fn assert_covers(what: &str, all: &[&str], seen: &BTreeSet<usize>) {
    let missing: Vec<&str> = (0..all.len())
        .filter(|i| !seen.contains(i))
        .map(|i| all[i])
        .collect();
    assert!(
        missing.is_empty(),
        "no corpus/ir file has a {what} of kind {missing:?}"
    );
}

const TYPE_KINDS: [&str; 18] = [
    "base",
    "pointer/ref/rvalue_ref",
    "qualified",
    "typedef",
    "array",
    "vector",
    "matrix",
    "function",
    "enum",
    "composite",
    "member",
    "inherit",
    "ptr_to_member",
    "template",
    "tparam",
    "string",
    "unspecified",
    "other",
];

fn type_kind(k: &TypeKind) -> usize {
    match k {
        TypeKind::Basic { .. } => 0,
        TypeKind::Pointer { .. } => 1,
        TypeKind::Qualified { .. } => 2,
        TypeKind::Typedef { .. } => 3,
        TypeKind::Array { .. } => 4,
        TypeKind::Vector { .. } => 5,
        TypeKind::Matrix { .. } => 6,
        TypeKind::Function { .. } => 7,
        TypeKind::Enum { .. } => 8,
        TypeKind::Composite { .. } => 9,
        TypeKind::Member { .. } => 10,
        TypeKind::Inheritance { .. } => 11,
        TypeKind::PtrToMember { .. } => 12,
        TypeKind::Template { .. } => 13,
        TypeKind::TemplateParam { .. } => 14,
        TypeKind::String { .. } => 15,
        TypeKind::Unspecified => 16,
        TypeKind::Other { .. } => 17,
    }
}

const PTR_KINDS: [&str; 3] = ["pointer", "ref", "rvalue_ref"];

fn ptr_kind(k: PtrKind) -> usize {
    match k {
        PtrKind::Pointer => 0,
        PtrKind::Reference => 1,
        PtrKind::RvalueReference => 2,
    }
}

const TPARAM_KINDS: [&str; 4] = ["type", "value", "template", "pack"];

fn tparam_kind(k: TemplateParamKind) -> usize {
    match k {
        TemplateParamKind::Type => 0,
        TemplateParamKind::Value => 1,
        TemplateParamKind::Template => 2,
        TemplateParamKind::Pack => 3,
    }
}

const COMPOSITE_TAGS: [&str; 5] = ["class", "struct", "union", "interface", "variant_part"];

fn composite_tag(t: CompositeTag) -> Option<usize> {
    [
        CompositeTag::CLASS,
        CompositeTag::STRUCT,
        CompositeTag::UNION,
        CompositeTag::INTERFACE,
        CompositeTag::VARIANT_PART,
    ]
    .iter()
    .position(|c| *c == t)
}

const SCOPE_KINDS: [&str; 7] = [
    "namespace",
    "module",
    "common_block",
    "function",
    "function_decl",
    "block",
    "block_file",
];

fn scope_kind(k: &ScopeKind) -> usize {
    match k {
        ScopeKind::Namespace { .. } => 0,
        ScopeKind::Module { .. } => 1,
        ScopeKind::CommonBlock { .. } => 2,
        ScopeKind::Function(_) => 3,
        ScopeKind::FunctionDecl(_) => 4,
        ScopeKind::LexicalBlock { .. } => 5,
        ScopeKind::BlockFile { .. } => 6,
    }
}

const VAR_KINDS: [&str; 4] = ["global", "local", "param", "inlined_var"];

fn var_kind(k: &VarKind) -> usize {
    match k {
        VarKind::Global => 0,
        VarKind::Local => 1,
        VarKind::Param(_) => 2,
        VarKind::Inlined { .. } => 3,
    }
}

const EVENT_KINDS: [&str; 3] = ["declare", "value", "addr"];

fn event_kind(k: EventKind) -> usize {
    match k {
        EventKind::Declare => 0,
        EventKind::Value => 1,
        EventKind::Addr => 2,
    }
}

const VALUE_FORMS: [&str; 8] = [
    "integer",
    "#bytes",
    "string",
    "reference",
    "%id",
    "llvm(…)",
    "sym(…)",
    "undef",
];

fn value_form(v: &Value) -> usize {
    match v {
        Value::Int(_) => 0,
        Value::Bytes(_) => 1,
        Value::Str(_) => 2,
        Value::Ref(_) => 3,
        Value::Spirv(_) => 4,
        Value::Llvm(_) => 5,
        Value::Symbol(_) => 6,
        Value::Undef => 7,
    }
}

const BOUND_FORMS: [&str; 2] = ["constant", "reference"];

fn bound_form(b: &Bound) -> usize {
    match b {
        Bound::Const(_) => 0,
        Bound::Ref(_) => 1,
    }
}

const LOCATION_FORMS: [&str; 2] = ["expression", "location list"];

fn location_form(l: &Location) -> usize {
    match l {
        Location::Expr(_) => 0,
        Location::List(_) => 1,
    }
}

const POSITION_FORMS: [&str; 2] = ["@+offset", "@0xaddress"];

fn position_form(p: CodePos) -> usize {
    match p {
        CodePos::Spirv(_) => 0,
        CodePos::Addr(_) => 1,
        CodePos::Llvm(_) => 2,
    }
}

#[test]
fn corpus_has_every_type_scope_variable_and_event_kind() {
    let mut types = BTreeSet::new();
    let mut ptrs = BTreeSet::new();
    let mut tparams = BTreeSet::new();
    let mut tags = BTreeSet::new();
    let mut scopes = BTreeSet::new();
    let mut vars = BTreeSet::new();
    let mut events = BTreeSet::new();
    for (_, m) in corpus() {
        for t in m.types.values() {
            types.insert(type_kind(&t.kind));
            match &t.kind {
                TypeKind::Pointer { kind, .. } => {
                    ptrs.insert(ptr_kind(*kind));
                }
                TypeKind::TemplateParam { kind, .. } => {
                    tparams.insert(tparam_kind(*kind));
                }
                TypeKind::Composite { tag, .. } => {
                    tags.extend(composite_tag(*tag));
                }
                _ => {}
            }
        }
        scopes.extend(m.scopes.values().map(|s| scope_kind(&s.kind)));
        vars.extend(m.vars.values().map(|v| var_kind(&v.kind)));
        events.extend(m.events.iter().map(|e| event_kind(e.kind)));
    }
    assert_covers("type", &TYPE_KINDS, &types);
    assert_covers("pointer type", &PTR_KINDS, &ptrs);
    assert_covers("template parameter", &TPARAM_KINDS, &tparams);
    assert_covers("composite type", &COMPOSITE_TAGS, &tags);
    assert_covers("scope", &SCOPE_KINDS, &scopes);
    assert_covers("variable", &VAR_KINDS, &vars);
    assert_covers("event", &EVENT_KINDS, &events);
}

#[test]
fn corpus_fills_every_entity_arena_and_code_table() {
    let files = corpus();
    for (kind, prefix, noun) in EntityKind::TABLE {
        assert!(
            files.iter().any(|(_, m)| m.count(kind) > 0),
            "no corpus/ir file has a {noun} (`{prefix}N = …`)"
        );
    }
    type Has = fn(&Module) -> bool;
    let tables: [(&str, Has); 4] = [
        ("`line` row", |m| !m.lines.is_empty()),
        ("`scope` run", |m| !m.scope_runs.is_empty()),
        ("`module` line", |m| m.info != ModuleInfo::default()),
        ("inlined-at chain two links deep", |m| {
            m.inlined.values().any(|i| i.parent.is_some())
                && m.scope_runs.iter().any(|r| {
                    r.inlined
                        .is_some_and(|h| m.inlined.try_get(h).is_some_and(|i| i.parent.is_some()))
                })
        }),
    ];
    for (what, has) in tables {
        assert!(
            files.iter().any(|(_, m)| has(m)),
            "no corpus/ir file has a {what}"
        );
    }
}

/// Every `Value`, `Bound`, `Location` and code position in a module.
#[derive(Default)]
struct Forms {
    values: BTreeSet<usize>,
    bounds: BTreeSet<usize>,
    locations: BTreeSet<usize>,
    positions: BTreeSet<usize>,
}

impl Forms {
    fn value(&mut self, v: Option<&Value>) {
        self.values.extend(v.map(value_form));
    }
    fn bound(&mut self, b: Option<&Bound>) {
        self.bounds.extend(b.map(bound_form));
    }
    fn location(&mut self, l: Option<&Location>) {
        self.locations.extend(l.map(location_form));
    }
    fn collect(&mut self, m: &Module) {
        for t in m.types.values() {
            self.bound(t.size.as_ref());
            match &t.kind {
                TypeKind::Member {
                    value,
                    discriminant,
                    ..
                } => {
                    self.value(value.as_ref());
                    self.value(discriminant.as_ref());
                }
                TypeKind::TemplateParam { value, .. } => self.value(value.as_ref()),
                TypeKind::Array {
                    dims,
                    stride,
                    data_location,
                    associated,
                    allocated,
                    rank,
                    ..
                } => {
                    for d in dims {
                        for b in [&d.count, &d.lower, &d.upper, &d.stride] {
                            self.bound(b.as_ref());
                        }
                    }
                    for b in [stride, data_location, associated, allocated, rank] {
                        self.bound(b.as_ref());
                    }
                }
                TypeKind::String {
                    length, location, ..
                } => {
                    self.bound(length.as_ref());
                    self.bound(location.as_ref());
                }
                _ => {}
            }
        }
        for s in m.scopes.values() {
            if let Some(f) = s.function() {
                self.value(f.binding.as_ref());
                for l in [&f.frame_base, &f.lane_pc, &f.active_lane] {
                    self.location(l.as_ref());
                }
            }
        }
        for v in m.vars.values() {
            self.value(v.binding.as_ref());
            self.value(v.const_value.as_ref());
            self.location(v.location.as_ref());
        }
        for e in &m.events {
            for v in &e.values {
                self.value(Some(v));
            }
            self.positions.insert(position_form(e.pos));
        }
        for r in &m.lines {
            self.positions.insert(position_form(r.range.start));
        }
    }
}

#[test]
fn corpus_uses_every_value_bound_location_and_position_form() {
    let mut forms = Forms::default();
    for (_, m) in corpus() {
        forms.collect(&m);
    }
    assert_covers("value", &VALUE_FORMS, &forms.values);
    assert_covers("bound", &BOUND_FORMS, &forms.bounds);
    assert_covers("location", &LOCATION_FORMS, &forms.locations);
    assert_covers("code position", &POSITION_FORMS, &forms.positions);
}

#[test]
fn corpus_keeps_an_unknown_value_of_every_open_enum() {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut mark = |named: bool, what: &'static str| {
        if !named {
            seen.insert(what);
        }
    };
    for (_, m) in corpus() {
        let flags_unknown = |f: Flags| f.foreign != 0 || f.bits >> FLAG_NAMES.len() != 0;
        for f in m.files.values() {
            if let Some(c) = &f.checksum {
                mark(c.kind.name().is_some(), "checksum kind");
            }
        }
        for u in m.units.values() {
            mark(u.language.name().is_some(), "language");
            mark(u.kind.name().is_some(), "unit kind");
            mark(u.emission.name().is_some(), "emission kind");
            mark(!flags_unknown(u.flags), "flag");
        }
        for t in m.types.values() {
            mark(!flags_unknown(t.flags), "flag");
            match &t.kind {
                TypeKind::Basic { encoding } | TypeKind::String { encoding, .. } => {
                    mark(encoding.name().is_some(), "encoding")
                }
                TypeKind::Qualified { qualifier, .. } => {
                    mark(qualifier.name().is_some(), "qualifier")
                }
                TypeKind::Composite { tag, .. } => mark(tag.name().is_some(), "composite tag"),
                TypeKind::Pointer { space, .. } => {
                    mark(space.memory.name().is_some(), "memory kind")
                }
                _ => {}
            }
        }
        for s in m.scopes.values() {
            mark(!flags_unknown(s.flags), "flag");
            if let Some(v) = s.function().and_then(|f| f.virtuality) {
                mark(v.name().is_some(), "virtuality");
            }
        }
        for v in m.vars.values() {
            mark(!flags_unknown(v.flags), "flag");
        }
        for mac in m.macros.values() {
            mark(mac.kind.name().is_some(), "macro kind");
        }
        for i in m.imports.values() {
            mark(i.kind.name().is_some(), "import kind");
        }
        let exprs = m.exprs.values().flat_map(|e| e.ops.iter());
        for op in exprs {
            mark(row(OPS, op.code.0).is_some(), "expression operation");
        }
        for op in m.cies.values().flat_map(|c| c.initial.iter()) {
            mark(row(CFAS, u32::from(op.code.0)).is_some(), "CFA instruction");
        }
        for op in m.fdes.values().flat_map(|f| f.ops.iter()) {
            mark(row(CFAS, u32::from(op.code.0)).is_some(), "CFA instruction");
        }
    }
    let all = [
        "checksum kind",
        "language",
        "unit kind",
        "emission kind",
        "flag",
        "encoding",
        "qualifier",
        "composite tag",
        "memory kind",
        "virtuality",
        "macro kind",
        "import kind",
        "expression operation",
        "CFA instruction",
    ];
    let missing: Vec<&str> = all.into_iter().filter(|w| !seen.contains(w)).collect();
    assert!(
        missing.is_empty(),
        "no corpus/ir file keeps an unknown(…) {missing:?}"
    );
}

/// Every operation of a nested program, with the CFA programs' expression operands.
fn all_ops(m: &Module) -> Vec<u32> {
    fn walk(ops: &[Op], out: &mut Vec<u32>) {
        for op in ops {
            out.push(op.code.0);
            for a in &op.args {
                if let Arg::Ops(inner) = a {
                    walk(inner, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for e in m.exprs.values() {
        walk(&e.ops, &mut out);
    }
    let cfa = m.cies.values().flat_map(|c| c.initial.iter());
    for op in cfa.chain(m.fdes.values().flat_map(|f| f.ops.iter())) {
        for a in &op.args {
            if let Arg::Ops(inner) = a {
                walk(inner, &mut out);
            }
        }
    }
    out
}

#[test]
fn corpus_uses_every_amd_operation_and_the_raw_forms() {
    let mut ops = BTreeSet::new();
    let mut cfas = BTreeSet::new();
    for (_, m) in corpus() {
        ops.extend(all_ops(&m));
        let cfa = m.cies.values().flat_map(|c| c.initial.iter());
        cfas.extend(
            cfa.chain(m.fdes.values().flat_map(|f| f.ops.iter()))
                .map(|o| o.code),
        );
    }
    let missing: Vec<&str> = OPS
        .iter()
        .filter(|r| (0xe1..=0xec).contains(&r.0) || r.0 == OpCode::RAW.0)
        .filter(|r| !ops.contains(&r.0))
        .map(|r| r.1)
        .collect();
    assert!(
        missing.is_empty(),
        "no corpus/ir expression uses {missing:?}"
    );
    let missing: Vec<&str> = CFAS
        .iter()
        .filter(|r| {
            matches!(
                r.1,
                "llvm_def_aspace_cfa" | "llvm_def_aspace_cfa_sf" | "raw"
            )
        })
        .filter(|r| !cfas.contains(&CfaCode(r.0 as u16)))
        .map(|r| r.1)
        .collect();
    assert!(
        missing.is_empty(),
        "no corpus/ir CFA program uses {missing:?}"
    );
}
