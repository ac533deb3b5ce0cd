//! The bridge on real modules: the model's shape, opaque-pointer retry, and containment.

use llvm_bridge::{load, Error, IntrinsicKind, Key, Kind};

const SMALL: &str = r#"
target triple = "spir64-unknown-unknown"
@g = global i32 7, align 4, !dbg !20
define i32 @f(i32 %a) !dbg !6 {
entry:
  %a.addr = alloca i32, align 4
  store i32 %a, i32* %a.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %a.addr, metadata !11, metadata !DIExpression()), !dbg !12
  call void @llvm.dbg.value(metadata !DIArgList(i32 %a, i32 1), metadata !11, metadata !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value)), !dbg !12
  ret i32 %a, !dbg !12
}
declare void @llvm.dbg.declare(metadata, metadata, metadata)
declare void @llvm.dbg.value(metadata, metadata, metadata)
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "t", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !19)
!1 = !DIFile(filename: "t.cl", directory: "/src", checksumkind: CSK_MD5, checksum: "0123456789abcdef0123456789abcdef", source: "int f(int a);")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!6 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !7, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !10)
!7 = !DISubroutineType(types: !8)
!8 = !{!9, !9}
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!10 = !{}
!11 = !DILocalVariable(name: "a", arg: 1, scope: !6, file: !1, line: 1, type: !9)
!12 = !DILocation(line: 1, column: 5, scope: !6)
!19 = !{!20}
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "g", scope: !0, file: !1, line: 2, type: !9, isLocal: false, isDefinition: true)
"#;

#[test]
fn small_module_model() {
    let m = load(SMALL.as_bytes(), "small.ll").expect("loads");
    assert_eq!(m.triple, "spir64-unknown-unknown");
    assert_eq!(m.compile_units.len(), 1);
    let cu = m.node(m.compile_units[0]);
    assert_eq!(cu.kind, Kind::DICompileUnit);
    assert_eq!(cu.int(Key::language), Some(0x15));
    let file = m.node(cu.node(Key::file).unwrap());
    assert_eq!(file.int(Key::checksumkind), Some(1));
    assert_eq!(file.str(Key::source), Some("int f(int a);"));
    assert_eq!(m.module_flag("Dwarf Version"), Some(5));
    let f = m.functions.iter().find(|f| f.name == "f").unwrap();
    assert_eq!(f.inst_count, 5);
    let sp = m.node(f.subprogram.unwrap());
    assert_eq!(sp.int(Key::spFlags), Some(8));
    assert_eq!(m.intrinsics.len(), 2);
    let decl = &m.intrinsics[0];
    assert_eq!(
        (decl.kind, decl.inst),
        (IntrinsicKind::Declare, f.first_inst + 2)
    );
    let v = m.node(decl.args[0].unwrap());
    assert_eq!(v.str(Key::value), Some("i32* %a.addr"));
    let val = &m.intrinsics[1];
    assert_eq!(m.node(val.args[0].unwrap()).kind, Kind::DIArgList);
    let expr = m.node(val.args[2].unwrap());
    assert_eq!(expr.ops(Key::elements).map(|e| e.len()), Some(6));
    assert_eq!(
        m.locations.len(),
        1,
        "only `ret` carries a !dbg besides the intrinsics"
    );
    let g = m.globals.iter().find(|g| g.name == "g").unwrap();
    assert_eq!(g.dbg.len(), 1);
}

#[test]
fn opaque_pointers_retry() {
    let text = SMALL.replace("i32*", "ptr");
    let m = load(text.as_bytes(), "opaque.ll").expect("loads with opaque pointers");
    assert!(m.opaque_pointers);
}

#[test]
fn rejects_text_that_does_not_parse() {
    match load(b"define i32 @f( {", "bad.ll") {
        Err(Error::Rejected(msg)) => assert!(msg.contains("bad.ll"), "{msg}"),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn rejects_metadata_the_verifier_rejects() {
    // A DILocation whose scope is a file, not a local scope.
    let text = SMALL.replace(
        "!12 = !DILocation(line: 1, column: 5, scope: !6)",
        "!12 = !DILocation(line: 1, column: 5, scope: !1)",
    );
    match load(text.as_bytes(), "badmd.ll") {
        Err(Error::Rejected(msg)) => assert!(
            msg.contains("debug info") || msg.contains("verifier"),
            "{msg}"
        ),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

/// The stripped module's code as the translator's command line makes it: `opt -strip-debug`,
/// then `llvm-spirv-14`.
fn translator_of_stripped(module: &[u8]) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("bridge-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ll, stripped, spv) = (dir.join("m.ll"), dir.join("s.bc"), dir.join("s.spv"));
    std::fs::write(&ll, module).unwrap();
    let run = |cmd: &mut std::process::Command| {
        let out = cmd.output().expect("runs");
        assert!(
            out.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(std::process::Command::new("opt-14")
        .arg("-strip-debug")
        .arg(&ll)
        .arg("-o")
        .arg(&stripped));
    run(std::process::Command::new("llvm-spirv-14")
        .arg(&stripped)
        .arg("-o")
        .arg(&spv));
    let words = std::fs::read(&spv).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    words
}

#[test]
fn split_gives_the_model_then_the_translators_code_from_one_parse() {
    use llvm_bridge::{split, Code, Writer};
    let done = split(SMALL.as_bytes(), "small.ll", Writer::Spirv(""), |m| {
        m.expect("debug info accepted").functions.len()
    })
    .expect("splits");
    assert_eq!(done.lowered, 1, "the model reached the caller");
    assert!(done.llvm.starts_with("14."), "read by LLVM {}", done.llvm);
    let Code::Spirv { bytes, translator } = done.code else {
        panic!("no in-process translator: {:?}", done.code)
    };
    assert_eq!(translator, "libLLVMSPIRVLib.so.14");
    assert!(
        bytes == translator_of_stripped(SMALL.as_bytes()),
        "the in-process code differs from opt -strip-debug + llvm-spirv-14"
    );
}

#[test]
fn split_to_bitcode_gives_the_stripped_module() {
    use llvm_bridge::{split, Code, Writer};
    let done = split(SMALL.as_bytes(), "small.ll", Writer::Bitcode, |m| m.is_ok()).unwrap();
    assert!(done.lowered);
    let Code::Bitcode { bytes, why: None } = done.code else {
        panic!("expected bitcode: {:?}", done.code)
    };
    let back = load(&bytes, "stripped.bc").expect("the stripped bitcode loads");
    assert_eq!(back.functions.len(), 1);
    assert!(
        back.compile_units.is_empty() && back.intrinsics.is_empty() && back.locations.is_empty(),
        "debug info left"
    );
}

#[test]
fn split_translates_a_module_whose_debug_info_llvm_rejects() {
    use llvm_bridge::{split, Code, Writer};
    // A DILocation whose scope is not a scope: the verifier's debug-info check fails, the code
    // is sound.
    let broken = SMALL.replace(
        "!12 = !DILocation(line: 1, column: 5, scope: !6)",
        "!12 = !DILocation(line: 1, column: 5, scope: !9)",
    );
    let done = split(broken.as_bytes(), "broken.ll", Writer::Spirv(""), |m| {
        m.err()
    })
    .unwrap();
    let message = done.lowered.expect("the debug info is rejected");
    assert!(message.contains("verifier"), "{message}");
    assert!(matches!(done.code, Code::Spirv { .. }), "{:?}", done.code);
}

#[test]
fn split_names_a_translator_option_it_does_not_know() {
    use llvm_bridge::{split, Error, Writer};
    let e = split(
        SMALL.as_bytes(),
        "small.ll",
        Writer::Spirv("ext=+SPV_NO_SUCH"),
        |_| (),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Translator(m) if m.contains("SPV_NO_SUCH")),
        "{e:?}"
    );
}

#[test]
fn split_leaves_an_opaque_pointer_module_to_a_translator_that_takes_it() {
    use llvm_bridge::{split, Code, Writer};
    let opaque = SMALL
        .replace("i32* %a.addr", "ptr %a.addr")
        .replace("metadata i32* %a.addr", "metadata ptr %a.addr");
    let done = split(opaque.as_bytes(), "opaque.ll", Writer::Spirv(""), |m| {
        m.is_ok()
    })
    .expect("splits");
    assert!(done.lowered);
    assert!(
        !done.llvm.starts_with("14."),
        "LLVM 14's translator aborts on opaque pointers; read by {}",
        done.llvm
    );
    assert!(matches!(done.code, Code::Spirv { .. }), "{:?}", done.code);
}
