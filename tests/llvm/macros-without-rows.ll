; A hand-written module for tests/llvm_corpus.rs (macros_without_rows_round_trip_through_dwarf):
; a unit with no code and no line row whose macros are in files of their own — the main file
; (other directory), a header it includes, and one with a nameless directory — with defines,
; function-like defines and undefs. Their DW_MACRO_start_file entries name files of the line
; program the unit gets for them.
target triple = "spir64-unknown-unknown"

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, macros: !4)
!1 = !DIFile(filename: "mac.c", directory: "/src")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{!5, !13}
!5 = !DIMacroFile(file: !6, nodes: !7)
!6 = !DIFile(filename: "mac.c", directory: ".")
!7 = !{!8, !9, !10}
!8 = !DIMacro(type: DW_MACINFO_define, line: 1, name: "SIZE", value: "5")
!9 = !DIMacro(type: DW_MACINFO_define, line: 2, name: "MAX(a,b)", value: "((a)>(b)?(a):(b))")
!10 = !DIMacroFile(line: 3, file: !11, nodes: !12)
!11 = !DIFile(filename: "inc.h", directory: "/src/include")
!12 = !{!14, !15}
!13 = !DIMacro(type: DW_MACINFO_undef, line: 9, name: "SIZE")
!14 = !DIMacro(type: DW_MACINFO_define, line: 1, name: "INC_H")
!15 = !DIMacro(type: DW_MACINFO_undef, line: 4, name: "MAX")
