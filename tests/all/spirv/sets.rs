//! Covers src/front/spirv/, src/spec/spirv.rs.
//!
//! Every instruction of the debug sets, from hand-written modules (`tests/spirv/*.spvasm`,
//! assembled with the project-local spirv-as), the versioned NonSemantic import name, and
//! llvm-spirv-14's -O2 output (DebugValue, DebugInlinedAt).

use std::path::Path;
use std::process::Command;

use dwarv::ir::{
    self, CodePos, EventKind, ImportKind, MacroKind, Module, Ref, ScopeKind, TemplateParamKind,
    TypeKind, VarKind,
};
use dwarv::unstable::front::spirv::read;

fn assemble(name: &str, dir: &Path) -> Vec<u8> {
    let src = crate::support::repo_root().join("tests/spirv").join(name);
    let out = dir.join(name).with_extension("spv");
    crate::support::run_ok(
        Command::new(crate::support::tool("spirv-as"))
            .arg(&src)
            .arg("-o")
            .arg(&out),
    );
    std::fs::read(out).unwrap()
}

fn read_ok(bytes: &[u8], name: &str) -> Module {
    let (m, diag) = read(bytes, name).unwrap_or_else(|e| panic!("{e}"));
    assert!(diag.is_empty(), "{name}: {diag:?}");
    let m = m.into_inner();
    let text = ir::text::print(&m);
    assert!(ir::text::parse(&text, name).unwrap() == m);
    m
}

fn named<'m>(m: &'m Module, name: &str) -> Vec<&'m ir::Type> {
    m.types
        .values()
        .filter(|t| t.name.as_deref() == Some(name))
        .collect()
}

#[test]
fn every_shader100_instruction_reads() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = assemble("every_shader100.spvasm", dir.path());
    let m = read_ok(&bytes, "every_shader100");
    // Module level: build id, storage path, joined source text, unit.
    let build = m.info.build_id.as_ref().unwrap();
    assert_eq!((build.id.len(), build.flags), (32, 1));
    assert_eq!(m.info.storage_path.as_deref(), Some("dbg/all.dbg"));
    assert!(m
        .texts
        .values()
        .next()
        .unwrap()
        .text
        .starts_with("void main() { }"));
    assert_eq!(
        m.units.values().next().unwrap().language,
        ir::Language::GLSL
    );
    // The forward declaration of S and S are one type, which the pointer reaches.
    let s = named(&m, "S");
    assert_eq!(s.len(), 1);
    let TypeKind::Composite { elements, .. } = &s[0].kind else {
        panic!("S is not a composite")
    };
    assert_eq!(elements.len(), 4);
    let Ref::Type(first) = elements[0] else {
        panic!("S's first element is not a type")
    };
    assert!(matches!(
        m.types.get(first).kind,
        TypeKind::Inheritance { .. }
    ));
    let kinds: Vec<&str> = m
        .types
        .values()
        .map(|t| match &t.kind {
            TypeKind::Matrix { .. } => "matrix",
            TypeKind::Array { dims, .. } if dims.len() == 2 => "array2",
            TypeKind::Qualified { .. } => "qualified",
            TypeKind::Typedef { .. } => "typedef",
            TypeKind::Enum { enumerators, .. } if enumerators[1].value == -1 => "enum",
            TypeKind::PtrToMember { .. } => "ptr_to_member",
            TypeKind::Template { params, .. } if params.len() == 4 => "template",
            TypeKind::Pointer { .. } => "pointer",
            _ => "",
        })
        .collect();
    for k in [
        "matrix",
        "array2",
        "qualified",
        "typedef",
        "enum",
        "ptr_to_member",
        "template",
        "pointer",
    ] {
        assert!(kinds.contains(&k), "no {k}");
    }
    let params: Vec<TemplateParamKind> = m
        .types
        .values()
        .filter_map(|t| match &t.kind {
            TypeKind::TemplateParam { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        params,
        [
            TemplateParamKind::Type,
            TemplateParamKind::Value,
            TemplateParamKind::Template,
            TemplateParamKind::Pack
        ]
    );
    // Scopes: declaration, definition bound by DebugFunctionDefinition, namespace, block,
    // discriminator; an inlined-at chain.
    let def = m
        .scopes
        .values()
        .find(|s| matches!(s.kind, ScopeKind::Function(_)))
        .unwrap();
    let info = def.function().unwrap();
    assert!(info.declaration.is_some() && matches!(info.binding, Some(ir::Value::Spirv(_))));
    assert!(m
        .scopes
        .values()
        .any(|s| matches!(s.kind, ScopeKind::Namespace { .. })));
    assert!(m
        .scopes
        .values()
        .any(|s| matches!(s.kind, ScopeKind::BlockFile { discriminator: 2 })));
    assert_eq!(m.inlined.len(), 2);
    assert!(m
        .inlined
        .values()
        .any(|i| i.parent.is_some() && i.at.line == 8));
    assert!(m
        .vars
        .values()
        .any(|v| matches!(v.kind, VarKind::Inlined { .. })));
    assert!(m
        .vars
        .values()
        .any(|v| v.kind == VarKind::Global && matches!(v.binding, Some(ir::Value::Spirv(_)))));
    // Macros, import, entry point.
    let kinds: Vec<MacroKind> = m.macros.values().map(|x| x.kind).collect();
    assert_eq!(kinds, [MacroKind::DEFINE, MacroKind::UNDEF]);
    assert!(m.macros.values().nth(1).unwrap().definition.is_some());
    assert_eq!(m.imports.values().next().unwrap().kind, ImportKind::MODULE);
    assert_eq!(
        m.entry_points.values().next().unwrap().signature,
        "glslang 12"
    );
    // Code: one DebugLine row with its span, two scope runs (the second inlined), a declare
    // and a value with indexes.
    assert_eq!(m.lines.len(), 1);
    assert_eq!(
        (m.lines[0].end_line, m.lines[0].end_column),
        (Some(7), Some(10))
    );
    assert_eq!(m.scope_runs.len(), 2);
    assert!(m.scope_runs[1].inlined.is_some());
    assert_eq!(m.events.len(), 2);
    assert_eq!(m.events[0].kind, EventKind::Declare);
    let value = &m.events[1];
    assert_eq!(
        (value.kind, value.indexes.clone()),
        (EventKind::Value, vec![1])
    );
    assert!(value.inlined.is_some());
    assert_eq!(m.exprs.values().next().unwrap().ops.len(), 2);
    assert_eq!(m.events[0].pos, m.scope_runs[0].range.start);
    assert!(matches!(m.events[1].pos, CodePos::Spirv(_)));
}

#[test]
fn a_versioned_nonsemantic_import_reads_as_its_set() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = assemble("every_shader100.spvasm", dir.path());
    let base = read_ok(&bytes, "v100");
    let at = bytes
        .windows(4)
        .position(|w| w == b".100")
        .expect("the import name");
    bytes[at..at + 4].copy_from_slice(b".101");
    let mut m = read_ok(&bytes, "v101");
    assert_eq!(
        m.source.flavour.as_deref(),
        Some("NonSemantic.Shader.DebugInfo.101")
    );
    m.source = base.source.clone();
    assert!(m == base);
}

#[test]
fn debuginfo_099_reads_literals_and_the_specified_debug_value() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = assemble("every_debuginfo099.spvasm", dir.path());
    let m = read_ok(&bytes, "every_debuginfo099");
    assert_eq!(m.source.flavour.as_deref(), Some("DebugInfo"));
    let unit = m.units.values().next().unwrap();
    // No Language operand in 0.99: OpSource's (OpenCL_C).
    assert_eq!(unit.language, ir::Language::OPENCL);
    assert_eq!(m.files.values().next().unwrap().name, "k.cl");
    assert!(named(&m, "int").iter().any(
        |t| matches!(t.kind, TypeKind::Basic { encoding } if encoding == ir::Encoding::SIGNED)
    ));
    let kinds: Vec<EventKind> = m.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::Declare, EventKind::Value]);
    assert_eq!(m.lines.len(), 1);
}

#[test]
fn llvm_spirv_o2_reads_values_and_inlined_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let spv = dir.path().join("kernel.O2.spv");
    crate::support::run_ok(
        Command::new(crate::support::tool("llvm-spirv-14"))
            .arg("--spirv-allow-extra-diexpressions")
            .arg(crate::support::corpus().join("kernel.O2.bc"))
            .arg("-o")
            .arg(&spv),
    );
    let m = read_ok(&std::fs::read(&spv).unwrap(), "kernel.O2.spv");
    assert!(
        m.events
            .iter()
            .filter(|e| e.kind == EventKind::Value)
            .count()
            >= 20
    );
    assert!(!m.inlined.is_empty());
    assert!(m.scope_runs.iter().any(|r| r.inlined.is_some()));
}

#[test]
fn spirv_opt_output_reads_values_with_indexes_and_inlining() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["particles", "shade"] {
        let out = dir.path().join(format!("{name}.opt.spv"));
        crate::support::run_ok(
            Command::new(crate::support::tool("spirv-opt"))
                .arg("-O")
                .arg(crate::support::corpus().join(format!("{name}.spv")))
                .arg("-o")
                .arg(&out),
        );
        let m = read_ok(&std::fs::read(&out).unwrap(), name);
        assert!(!m.inlined.is_empty(), "{name}: no inlined-at");
        assert!(
            m.events.iter().any(|e| e.kind == EventKind::Value),
            "{name}"
        );
        if name == "particles" {
            assert!(m
                .events
                .iter()
                .any(|e| !e.indexes.is_empty() && e.inlined.is_some()));
        }
    }
}
