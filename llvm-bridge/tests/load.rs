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
