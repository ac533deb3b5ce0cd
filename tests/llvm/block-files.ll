; A hand-written module for tests/llvm_corpus.rs (block_files_round_trip_through_dwarf):
; lexical block files with and without a discriminator, nested, holding a block, a variable,
; a label, an import and an inlined call; `g` is both inlined and out of line, so its block
; file's code goes to a concrete copy; in `g`'s inlined body, `h` is inlined from a block file
; and from a block that has no other code there.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

define spir_func i32 @g(i32 %a) !dbg !10 {
entry:
  %y = alloca i32, align 4
  call void @llvm.dbg.declare(metadata i32* %y, metadata !16, metadata !DIExpression()), !dbg !17
  store i32 %a, i32* %y, align 4, !dbg !18
  call void @llvm.dbg.label(metadata !19), !dbg !18
  %b = add i32 %a, 1, !dbg !20
  ret i32 %b, !dbg !21
}

define spir_func i32 @f(i32 %a) !dbg !30 {
entry:
  %y.i = alloca i32, align 4
  %c = mul i32 %a, 3, !dbg !33
  call void @llvm.dbg.declare(metadata i32* %y.i, metadata !16, metadata !DIExpression()), !dbg !34
  store i32 %c, i32* %y.i, align 4, !dbg !36
  %b.i = add i32 %c, 1, !dbg !37
  %h1 = add i32 %b.i, 1, !dbg !40
  %h2 = add i32 %h1, 1, !dbg !42
  %d = sub i32 %h2, 2, !dbg !38
  ret i32 %d, !dbg !39
}

declare void @llvm.dbg.declare(metadata, metadata, metadata)
declare void @llvm.dbg.label(metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, imports: !5)
!1 = !DIFile(filename: "bf.c", directory: "/src")
!2 = !DIFile(filename: "inc.h", directory: "/src")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{!6}
!6 = !DIImportedEntity(tag: DW_TAG_imported_module, scope: !13, entity: !7, file: !2, line: 2)
!7 = !DINamespace(name: "N", scope: null)
!8 = !DISubroutineType(types: !9)
!9 = !{!15, !15}
!10 = distinct !DISubprogram(name: "g", scope: !1, file: !1, line: 1, type: !8, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !11)
!11 = !{!16}
!12 = distinct !DILexicalBlock(scope: !10, file: !1, line: 2, column: 3)
!13 = !DILexicalBlockFile(scope: !12, file: !2, discriminator: 0)
!14 = distinct !DILexicalBlock(scope: !13, file: !2, line: 4, column: 5)
!15 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!16 = !DILocalVariable(name: "y", scope: !14, file: !2, line: 4, type: !15)
!17 = !DILocation(line: 4, column: 9, scope: !14)
!18 = !DILocation(line: 5, column: 3, scope: !13)
!19 = !DILabel(scope: !13, name: "again", file: !2, line: 6)
!20 = !DILocation(line: 7, column: 3, scope: !22)
!21 = !DILocation(line: 9, column: 1, scope: !10)
!22 = !DILexicalBlockFile(scope: !13, file: !2, discriminator: 2)
!23 = distinct !DISubprogram(name: "h", scope: !1, file: !1, line: 20, type: !8, scopeLine: 20, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!24 = distinct !DILexicalBlock(scope: !10, file: !1, line: 8, column: 3)
!30 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 11, type: !8, scopeLine: 11, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!31 = !DILexicalBlockFile(scope: !30, file: !1, discriminator: 3)
!32 = !DILexicalBlockFile(scope: !31, file: !1, discriminator: 5)
!33 = !DILocation(line: 12, column: 3, scope: !31)
!34 = !DILocation(line: 4, column: 9, scope: !14, inlinedAt: !35)
!35 = distinct !DILocation(line: 13, column: 10, scope: !32)
!36 = !DILocation(line: 5, column: 3, scope: !13, inlinedAt: !35)
!37 = !DILocation(line: 7, column: 3, scope: !22, inlinedAt: !35)
!38 = !DILocation(line: 14, column: 3, scope: !32)
!39 = !DILocation(line: 15, column: 1, scope: !30)
!40 = !DILocation(line: 21, column: 3, scope: !23, inlinedAt: !41)
!41 = distinct !DILocation(line: 8, column: 5, scope: !22, inlinedAt: !35)
!42 = !DILocation(line: 21, column: 3, scope: !23, inlinedAt: !43)
!43 = distinct !DILocation(line: 8, column: 7, scope: !24, inlinedAt: !35)
