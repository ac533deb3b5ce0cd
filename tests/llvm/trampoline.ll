; A hand-written module for tests/llvm_corpus.rs (trampoline_target_round_trips_through_dwarf):
; a function that stands for another (DISubprogram targetFuncName), written as LLVM writes it,
; DW_AT_trampoline in its string form.
target triple = "spir64-unknown-unknown"

define spir_func void @_Z7wrapperv() !dbg !5 {
entry:
  ret void, !dbg !8
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "tramp.cpp", directory: "/src")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !DISubroutineType(types: !6)
!5 = distinct !DISubprogram(name: "wrapper", linkageName: "_Z7wrapperv", scope: !1, file: !1, line: 3, type: !4, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, targetFuncName: "_Z6targetv")
!6 = !{null}
!8 = !DILocation(line: 3, column: 20, scope: !5)
