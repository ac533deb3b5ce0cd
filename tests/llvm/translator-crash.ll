; A hand-written module for tests/all/build_step/translate.rs: code the SPIR-V translator 14
; aborts on (an indirectbr to a blockaddress: its assertion `BV` in transValueWithoutDecoration),
; with debug info, so the crash is the translator's and not a module without any.
target triple = "spir64-unknown-unknown"
define spir_func i8* @f(i32 %x) !dbg !6 {
entry:
  %c = icmp eq i32 %x, 0, !dbg !9
  br i1 %c, label %a, label %b, !dbg !9
a:
  ret i8* blockaddress(@f, %b), !dbg !10
b:
  indirectbr i8* null, [label %a, label %b], !dbg !11
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "goto.cl", directory: "/src")
!3 = !{i32 7, !"Dwarf Version", i32 4}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!6 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !7, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!7 = !DISubroutineType(types: !8)
!8 = !{null}
!9 = !DILocation(line: 2, column: 3, scope: !6)
!10 = !DILocation(line: 3, column: 3, scope: !6)
!11 = !DILocation(line: 4, column: 3, scope: !6)
