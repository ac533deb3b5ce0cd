; A hand-written module for tests/llvm_corpus.rs (shared_template_params_round_trip_through_dwarf):
; a member function template's declaration and its definition list the same template
; parameters (a type, a value and a pack holding a value), as clang writes them; a class
; template shares its type parameter with its member's declaration. DWARF writes a copy of each
; under every DIE that lists it; the copies read back as the one parameter.
target triple = "spir64-unknown-unknown"

define spir_func i32 @_ZN1AIiE3fooIiLi42EJLi7EEEEiv() !dbg !12 {
entry:
  ret i32 42, !dbg !17
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: "hand", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, enums: !2)
!1 = !DIFile(filename: "templ.cpp", directory: "/src")
!2 = !{}
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!7 = !DISubroutineType(types: !8)
!8 = !{!9}
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!12 = distinct !DISubprogram(name: "foo<int, 42, 7>", linkageName: "_ZN1AIiE3fooIiLi42EJLi7EEEEiv", scope: !13, file: !1, line: 3, type: !7, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, templateParams: !15, declaration: !14, retainedNodes: !2)
!13 = distinct !DICompositeType(tag: DW_TAG_class_type, name: "A<int>", file: !1, line: 1, size: 8, flags: DIFlagTypePassByValue, elements: !20, templateParams: !21, identifier: "_ZTS1AIiE")
!14 = !DISubprogram(name: "foo<int, 42, 7>", linkageName: "_ZN1AIiE3fooIiLi42EJLi7EEEEiv", scope: !13, file: !1, line: 3, type: !7, scopeLine: 3, flags: DIFlagPublic | DIFlagPrototyped | DIFlagStaticMember, spFlags: 0, templateParams: !15)
!15 = !{!16, !18, !19, !22}
!16 = !DITemplateValueParameter(name: "N", type: !9, value: i32 42)
!17 = !DILocation(line: 3, column: 39, scope: !12)
!18 = !DITemplateTypeParameter(name: "U", type: !9)
!19 = !DITemplateValueParameter(tag: DW_TAG_GNU_template_parameter_pack, name: "Ks", value: !23)
!20 = !{!14}
!21 = !{!18}
!22 = !DITemplateTypeParameter(name: "T", type: !9)
!23 = !{!24}
!24 = !DITemplateValueParameter(type: !9, value: i32 7)
