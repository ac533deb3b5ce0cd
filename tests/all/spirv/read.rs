//! Covers src/front/spirv/.
//!
//! The SPIR-V reader on real inputs (glslang `-gVS`, llvm-spirv-14 ocl-100 and legacy, the
//! peer corpus) and on hostile ones (truncation, word flips, cycles, dangling ids, bad counts).

use std::collections::HashSet;
use std::process::Command;

use dwarv::ir::{self, CodePos, EventKind, Module, Ref, TypeKind};
use dwarv::unstable::front::spirv::read;
use dwarv::unstable::spirv::binary::{self, op};
use dwarv::unstable::spirv::NormalForm;

fn corpus_file(name: &str) -> Vec<u8> {
    std::fs::read(crate::support::corpus().join(name)).unwrap()
}

/// Reads a corpus file; it must read and validate.
fn load(name: &str) -> Module {
    let bytes = corpus_file(name);
    let (m, _) = read(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    check_positions(&bytes, &m, name);
    prints_and_reads_back(&m, name);
    m.into_inner()
}

/// The module's IR text parses back to the same module.
fn prints_and_reads_back(m: &Module, name: &str) {
    let text = ir::text::print(m);
    let back = ir::text::parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == *m, "{name}: the printed IR does not read back");
}

/// Every code position is the offset of an instruction of the normal form; a range may also
/// end at the normal form's end.
fn check_positions(bytes: &[u8], m: &Module, name: &str) {
    let words = binary::to_words(bytes).unwrap();
    let module = binary::Module::parse(&words).unwrap();
    let nf = NormalForm::compute(&module).unwrap();
    let starts: HashSet<u32> = nf.offsets.iter().flatten().copied().collect();
    let at = |p: CodePos, end: bool| match p {
        CodePos::Spirv(o) => starts.contains(&o) || (end && o as usize == nf.len),
        CodePos::Addr(_) | CodePos::Llvm(_) => false,
    };
    for (what, r) in m
        .lines
        .iter()
        .map(|l| ("line", l.range))
        .chain(m.scope_runs.iter().map(|s| ("scope", s.range)))
    {
        assert!(
            at(r.start, false) && at(r.end, true),
            "{name}: {what} {r:?}"
        );
        assert!(r.start < r.end, "{name}: empty {what} {r:?}");
    }
    for e in &m.events {
        assert!(at(e.pos, false), "{name}: event at {:?}", e.pos);
    }
}

/// How many OpExtInsts of the module's debug sets have one of these instruction numbers.
fn count_debug(bytes: &[u8], opcodes: &[u32]) -> usize {
    let words = binary::to_words(bytes).unwrap();
    let module = binary::Module::parse(&words).unwrap();
    let nf = NormalForm::compute(&module).unwrap();
    module
        .insns
        .iter()
        .filter(|i| i.opcode() == op::EXT_INST)
        .filter(|i| nf.import(i.words[3]).is_some() && opcodes.contains(&i.words[4]))
        .count()
}

fn scope_named<'m>(m: &'m Module, name: &str) -> Option<&'m ir::Scope> {
    m.scopes.values().find(|s| s.name.as_deref() == Some(name))
}

fn function_names(m: &Module) -> Vec<&str> {
    let mut v: Vec<&str> = m
        .scopes
        .values()
        .filter(|s| matches!(s.kind, ir::ScopeKind::Function(_)))
        .filter_map(|s| s.name.as_deref())
        .collect();
    v.sort_unstable();
    v
}

/// The member names of the first composite with that name, in order.
fn members(m: &Module, name: &str) -> Vec<String> {
    let t = m
        .types
        .values()
        .find(|t| t.name.as_deref() == Some(name) && matches!(t.kind, TypeKind::Composite { .. }))
        .unwrap_or_else(|| panic!("no composite {name}"));
    let TypeKind::Composite { elements, .. } = &t.kind else {
        unreachable!()
    };
    elements
        .iter()
        .map(|r| match r {
            Ref::Type(h) => m.types.get(*h).name.clone().unwrap_or_default(),
            _ => String::new(),
        })
        .collect()
}

#[test]
fn glslang_particles_reads_structs_matrix_and_code_tables() {
    let m = load("particles.spv");
    let bytes = corpus_file("particles.spv");
    assert_eq!(
        m.source.flavour.as_deref(),
        Some("NonSemantic.Shader.DebugInfo.100")
    );
    assert_eq!(function_names(&m), ["integrate", "main"]);
    assert_eq!(
        members(&m, "Params"),
        ["world", "emitters", "gravity", "dt", "count"]
    );
    assert_eq!(members(&m, "Emitter"), ["origin", "rate"]);
    // glslang 12 names the first two members of Particle after the next two (a known quirk).
    assert_eq!(
        members(&m, "Particle"),
        ["vel", "age", "vel", "age", "trail"]
    );
    let matrix = m.types.values().find_map(|t| match &t.kind {
        TypeKind::Matrix {
            column: Some(c),
            count,
            column_major,
        } => Some((*c, *count, *column_major)),
        _ => None,
    });
    let (column, count, column_major) = matrix.expect("a matrix type (mat4)");
    assert_eq!((count, column_major), (4, true));
    assert!(matches!(
        m.types.get(column).kind,
        TypeKind::Vector { count: 4, .. }
    ));
    let declares = m
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Declare)
        .count();
    assert_eq!(declares, count_debug(&bytes, &[28]));
    assert!(declares >= 10);
    // Every DebugLine of glslang's output covers code; each carries its line span.
    assert!(m.lines.iter().filter(|l| l.end_line.is_some()).count() >= 20);
    assert!(m.scope_runs.len() >= 10);
    let main = scope_named(&m, "main").unwrap();
    let binding = main.function().unwrap().binding.clone();
    assert!(matches!(binding, Some(ir::Value::Spirv(_))), "{binding:?}");
    assert!(m.texts.values().any(|t| t.text.contains("integrate(")));
    assert_eq!(
        m.units.values().next().unwrap().language,
        ir::Language::GLSL
    );
}

#[test]
fn glslang_shade_reads_functions_struct_arrays() {
    let m = load("shade.spv");
    let bytes = corpus_file("shade.spv");
    assert_eq!(function_names(&m), ["lambert", "main"]);
    assert_eq!(members(&m, "Lights"), ["view", "lights", "nlights"]);
    assert!(m
        .types
        .values()
        .any(|t| matches!(&t.kind, TypeKind::Array { dims, .. } if dims.len() == 1)));
    assert_eq!(m.events.len(), count_debug(&bytes, &[28, 29]));
    assert!(!m.lines.is_empty() && !m.scope_runs.is_empty());
}

#[test]
fn llvm_spirv_ocl100_reads_forward_members_checksums_and_events() {
    let m = load("kernel.ocl100.spv");
    let bytes = corpus_file("kernel.ocl100.spv");
    assert_eq!(m.source.flavour.as_deref(), Some("OpenCL.DebugInfo.100"));
    assert_eq!(function_names(&m), ["blend", "composite", "histogram"]);
    // llvm-spirv emits members before their composite (forward Parent references).
    assert_eq!(
        members(&m, "layer"),
        ["xform", "mode", "tile", "tint", "mask", "weights"]
    );
    assert_eq!(members(&m, "bits"), ["f", "u", "bytes"]);
    let f0 = m.files.values().next().unwrap();
    assert_eq!(f0.name, "./kernel.cl");
    assert_eq!(f0.checksum.as_ref().unwrap().kind, ir::ChecksumKind::MD5);
    assert_eq!(f0.checksum.as_ref().unwrap().bytes.len(), 16);
    assert!(f0.source.is_none(), "the checksum is not source text");
    assert_eq!(m.events.len(), count_debug(&bytes, &[28]));
    assert!(m
        .events
        .iter()
        .all(|e| e.expr.is_some() && e.scope.is_some()));
    // Core OpLine rows, no spans; lexical-block scope runs.
    assert!(m.lines.len() > 100 && m.lines.iter().all(|l| l.end_line.is_none()));
    assert!(m
        .scope_runs
        .iter()
        .any(|r| matches!(r.scope, Ref::Scope(s) if matches!(m.scopes.get(s).kind, ir::ScopeKind::LexicalBlock { .. }))));
    // The `void` returns (DebugInfoNone) read as no return type.
    let composite = scope_named(&m, "composite").unwrap();
    let ty = composite.function().unwrap().ty.unwrap();
    assert!(matches!(
        m.types.get(ty).kind,
        TypeKind::Function { ret: None, .. }
    ));
    // DebugTypeArray with appended lower bounds: one dimension each.
    assert!(m.types.values().all(|t| match &t.kind {
        TypeKind::Array { dims, .. } => dims.len() == 1,
        _ => true,
    }));
    assert_eq!(m.info.address_size, Some(8));
}

#[test]
fn llvm_spirv_legacy_reads_as_the_ocl100_module() {
    let legacy = load("kernel.legacy.spv");
    let mut ocl = load("kernel.ocl100.spv");
    assert_eq!(legacy.source.flavour.as_deref(), Some("SPIRV.debug"));
    ocl.source = legacy.source.clone();
    // Same code, same debug info: only the import name differs (positions shift by the
    // import's length, which the normal form removes).
    assert_eq!(ir::text::print(&legacy), ir::text::print(&ocl));
}

#[test]
fn a_module_without_debug_info_reads_empty() {
    let m = load("kernel.nodebug.spv");
    assert_eq!(m.units.len() + m.types.len() + m.scopes.len(), 0);
    assert!(m.lines.is_empty());
}

/// The peer corpus (llvm-spirv's own debug-info tests), when present: every `.spvasm`
/// assembled, every `.spt` converted, every `.ll`/`.cl` translated in ocl-100 and legacy mode.
/// Nothing may panic; every module with debug info must read and validate.
#[test]
fn peer_corpus_reads_cleanly() {
    let Some(modules) = crate::support::peer_modules() else {
        return;
    };
    let (mut clean, mut with_debug, mut errors) = (0, 0, Vec::new());
    for path in modules {
        let bytes = std::fs::read(path).unwrap();
        let name = path.display().to_string();
        match read(&bytes, &name) {
            Ok((m, _)) => {
                clean += 1;
                if !m.units.is_empty() {
                    with_debug += 1;
                }
                assert!(ir::verify::check(&m).is_ok(), "{name}");
                check_positions(&bytes, &m, &name);
                prints_and_reads_back(&m, &name);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    eprintln!(
        "peer corpus: {} modules, {clean} read cleanly ({with_debug} with debug info), {} errors",
        modules.len(),
        errors.len()
    );
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        with_debug >= 100,
        "only {with_debug} modules with debug info"
    );
}

#[test]
fn cli_dump_prints_the_ir_of_a_spirv_input() {
    for name in ["particles.spv", "kernel.ocl100.spv"] {
        let path = crate::support::corpus().join(name);
        let o = crate::support::run_ok(
            Command::new(env!("CARGO_BIN_EXE_dwarv"))
                .arg("dump")
                .arg(&path),
        );
        let (m, _) = read(&corpus_file(name), name).unwrap();
        assert_eq!(String::from_utf8(o.stdout).unwrap(), ir::text::print(&m));
    }
}
