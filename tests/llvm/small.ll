; A hand-written module for tests/llvm_read.rs: a global with a location expression, a
; parameter with dbg.declare, a DIArgList dbg.value, a fragment, a lexical block, an inlined
; call site, a label and an enum, in OpenCL on spir64.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

@g = addrspace(1) global i32 7, align 4, !dbg !20

define spir_func i32 @f(i32 %a) !dbg !6 {
entry:
  %a.addr = alloca i32, align 4
  store i32 %a, i32* %a.addr, align 4
  call void @llvm.dbg.declare(metadata i32* %a.addr, metadata !11, metadata !DIExpression()), !dbg !12
  call void @llvm.dbg.value(metadata !DIArgList(i32 %a, i32 1), metadata !13, metadata !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value)), !dbg !15
  call void @llvm.dbg.value(metadata float 1.0, metadata !16, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32)), !dbg !15
  call void @llvm.dbg.label(metadata !18), !dbg !15
  %b = add i32 %a, 1, !dbg !15
  %c = mul i32 %b, 2, !dbg !19
  ret i32 %c, !dbg !12
}

declare void @llvm.dbg.declare(metadata, metadata, metadata)
declare void @llvm.dbg.value(metadata, metadata, metadata)
declare void @llvm.dbg.label(metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, enums: !30, globals: !24)
!1 = !DIFile(filename: "small.cl", directory: "/src", checksumkind: CSK_MD5, checksum: "0123456789abcdef0123456789abcdef")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!6 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !7, scopeLine: 2, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !10)
!7 = !DISubroutineType(types: !8)
!8 = !{!9, !9}
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!10 = !{!11, !13}
!11 = !DILocalVariable(name: "a", arg: 1, scope: !6, file: !1, line: 1, type: !9)
!12 = !DILocation(line: 1, column: 5, scope: !6)
!13 = !DILocalVariable(name: "s", scope: !14, file: !1, line: 3, type: !9)
!14 = distinct !DILexicalBlock(scope: !6, file: !1, line: 3, column: 1)
!15 = !DILocation(line: 3, column: 7, scope: !14)
!16 = !DILocalVariable(name: "pair", scope: !14, file: !1, line: 4, type: !17)
!17 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!18 = !DILabel(scope: !14, name: "again", file: !1, line: 5)
!19 = !DILocation(line: 9, column: 2, scope: !28, inlinedAt: !15)
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "g", scope: !0, file: !1, line: 8, type: !22, isLocal: false, isDefinition: true)
!22 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !9)
!24 = !{!20}
!28 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 9, type: !7, scopeLine: 9, spFlags: DISPFlagDefinition | DISPFlagLocalToUnit, unit: !0)
!30 = !{!31}
!31 = !DICompositeType(tag: DW_TAG_enumeration_type, name: "mode", file: !1, line: 10, baseType: !32, size: 32, elements: !33)
!32 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!33 = !{!34, !35}
!34 = !DIEnumerator(name: "OFF", value: 0, isUnsigned: true)
!35 = !DIEnumerator(name: "ON", value: 4294967295, isUnsigned: true)
