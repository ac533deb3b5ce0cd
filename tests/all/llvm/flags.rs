//! Covers src/front/llvm/tables.rs.
//!
//! The DIFlags and DISPFlags audit: the reader's tables
//! (`front::llvm::tables::{DI_FLAGS, SP_FLAGS}`) name every flag each installed LLVM defines
//! (its `llvm/IR/DebugInfoFlags.def`) with its value, and a module with each flag on a type or
//! a subprogram reads to what the table says: an IR flag, a field value, a vector, the flags of
//! a combination, or the bits kept raw (`foreign`) that a SPIR-V set then ledgers. Bits no LLVM
//! names are ledgered by the reader.

use std::collections::BTreeMap;
use std::path::Path;

use dwarv::ir::{self, Flags, ScopeKind, TypeKind};
use dwarv::unstable::front::llvm::tables::{FlagMeaning, DI_FLAGS, SP_FLAGS};
use dwarv::unstable::input::{lower_with_diagnostics, Input};

/// `(1u << 2) | (1 << 5)` and the like, as DebugInfoFlags.def writes its values.
fn eval(expr: &str) -> u32 {
    expr.split('|')
        .map(|term| {
            let t: String = term
                .chars()
                .filter(|c| !matches!(c, '(' | ')' | ' ' | 'u'))
                .collect();
            match t.split_once("<<") {
                Some((a, b)) => a.parse::<u32>().unwrap() << b.parse::<u32>().unwrap(),
                None => t.parse().unwrap(),
            }
        })
        .fold(0, |a, b| a | b)
}

/// The flags `macro_name` (`HANDLE_DI_FLAG`, `HANDLE_DISP_FLAG`) lists in a
/// DebugInfoFlags.def: name → value (`Largest`, an alias under `#ifdef`, left out).
fn def_flags(def: &str, macro_name: &str) -> BTreeMap<String, u32> {
    let open = format!("{macro_name}(");
    def.lines()
        .filter_map(|l| l.trim().strip_prefix(&open))
        .filter_map(|rest| {
            let args = &rest[..rest.rfind(')')?];
            let (value, name) = args.rsplit_once(',')?;
            let name = name.trim();
            (name != "Largest" && name != "NAME").then(|| (name.to_string(), eval(value)))
        })
        .collect()
}

fn table(t: &[(&str, u32, FlagMeaning)]) -> BTreeMap<String, u32> {
    t.iter().map(|(n, v, _)| (n.to_string(), *v)).collect()
}

/// The LLVMs the build carries (llvm-bridge/LLVM_VERSIONS), each with its development headers
/// (scripts/setup.sh installs them; the bridge is built against them).
#[test]
fn tables_name_every_flag_of_every_installed_llvm() {
    let majors =
        std::fs::read_to_string(crate::support::repo_root().join("llvm-bridge/LLVM_VERSIONS"))
            .unwrap();
    let mut seen = 0;
    for major in majors.split_whitespace() {
        let def = Path::new("/usr/lib")
            .join(format!("llvm-{major}"))
            .join("include/llvm/IR/DebugInfoFlags.def");
        let def = std::fs::read_to_string(&def)
            .unwrap_or_else(|e| panic!("{}: {e} (scripts/setup.sh)", def.display()));
        let di = def_flags(&def, "HANDLE_DI_FLAG");
        let sp = def_flags(&def, "HANDLE_DISP_FLAG");
        assert_eq!(di.len(), 33, "LLVM {major}: {di:?}");
        assert_eq!(sp.len(), 12, "LLVM {major}: {sp:?}");
        assert_eq!(table(DI_FLAGS), di, "LLVM {major}: DIFlags");
        assert_eq!(table(SP_FLAGS), sp, "LLVM {major}: DISPFlags");
        seen += 1;
    }
    assert!(seen >= 3, "{majors}");
}

/// A C++ module with, per DIFlag, a member `DI_<name>` of a struct carrying it; per DISPFlag a subprogram
/// `SP_<name>` (the definition attached to a function); a vector (an array with DIFlagVector);
/// and a subprogram whose DISPFlags has a bit no LLVM names (1 << 10).
fn flags_module() -> String {
    let mut md = vec![
        "!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: \"hand\", \
         emissionKind: FullDebug, retainedTypes: !2)"
            .to_string(),
        "!1 = !DIFile(filename: \"flags.cpp\", directory: \"/src\")".into(),
        "!3 = !DIBasicType(name: \"int\", size: 32, encoding: DW_ATE_signed)".into(),
        "!4 = !DISubroutineType(types: !{null})".into(),
        "!5 = !{i32 2, !\"Debug Info Version\", i32 3}".into(),
        "!6 = !DICompositeType(tag: DW_TAG_array_type, name: \"VEC\", baseType: !3, size: 128, \
         flags: DIFlagVector, elements: !{!DISubrange(count: 4)})"
            .into(),
        "!7 = !DISubprogram(name: \"SP_unnamed_bit\", scope: !1, file: !1, type: !4, spFlags: 1024)"
            .into(),
    ];
    let mut retained = vec![6, 7, 8];
    let mut members = Vec::new();
    let mut definition = 0;
    let mut id = 10;
    // By name, as LLVM prints them; zero has none it parses.
    let flag = |prefix: &str, name: &str| match name {
        "Zero" => "0".to_string(),
        _ => format!("{prefix}{name}"),
    };
    for (name, _, _) in DI_FLAGS {
        let f = flag("DIFlag", name);
        md.push(format!(
            "!{id} = !DIDerivedType(tag: DW_TAG_member, name: \"DI_{name}\", scope: !8, \
             file: !1, baseType: !3, size: 32, flags: {f})"
        ));
        members.push(format!("!{id}"));
        id += 1;
    }
    md.push(format!(
        "!8 = !DICompositeType(tag: DW_TAG_structure_type, name: \"S\", file: !1, size: 32, \
         elements: !{{{}}})",
        members.join(", ")
    ));
    for (name, _, _) in SP_FLAGS {
        let f = flag("DISPFlag", name);
        if *name == "Definition" {
            md.push(format!(
                "!{id} = distinct !DISubprogram(name: \"SP_{name}\", scope: !1, file: !1, \
                 type: !4, spFlags: {f}, unit: !0)"
            ));
            definition = id;
        } else {
            md.push(format!(
                "!{id} = !DISubprogram(name: \"SP_{name}\", scope: !1, file: !1, type: !4, \
                 spFlags: {f})"
            ));
            retained.push(id);
        }
        id += 1;
    }
    let list: Vec<String> = retained.iter().map(|i| format!("!{i}")).collect();
    md.push(format!("!2 = !{{{}}}", list.join(", ")));
    format!(
        "target triple = \"x86_64-unknown-linux-gnu\"\n\n\
         define void @f() !dbg !{definition} {{\n  ret void\n}}\n\n\
         !llvm.dbg.cu = !{{!0}}\n!llvm.module.flags = !{{!5}}\n\n{}\n",
        md.join("\n")
    )
}

#[test]
fn each_flag_reads_as_its_table_says() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("flags.ll");
    std::fs::write(&ll, flags_module()).unwrap();
    let input = Input {
        name: ll.display().to_string(),
        bytes: std::fs::read(&ll).unwrap().into(),
    };
    let (m, d) = lower_with_diagnostics(&input).unwrap_or_else(|e| panic!("{e}"));
    ir::verify::check(&m).unwrap();
    let ty = |name: &str| {
        m.types
            .values()
            .find(|t| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no type {name}"))
    };
    let named_bits: u32 = DI_FLAGS
        .iter()
        .filter(|(_, _, m)| matches!(m, FlagMeaning::Ir(_)))
        .map(|(_, v, _)| v)
        .fold(0, |a, b| a | b);
    for &(name, value, meaning) in DI_FLAGS {
        let f = ty(&format!("DI_{name}")).flags;
        let expected = match meaning {
            FlagMeaning::Zero => Flags::default(),
            FlagMeaning::Ir(flag) | FlagMeaning::Access(flag) | FlagMeaning::Inheritance(flag) => {
                Flags::default().with(flag)
            }
            FlagMeaning::Combination => {
                // Every bit of it is a flag of its own.
                assert_eq!(value & !named_bits, 0, "{name}");
                DI_FLAGS
                    .iter()
                    .filter(|(_, v, _)| v.count_ones() == 1 && value & v != 0)
                    .fold(Flags::default(), |f, (_, _, m)| match m {
                        FlagMeaning::Ir(x) => f.with(*x),
                        _ => f,
                    })
            }
            // Kept as LLVM numbers it (on a member, the vector bit is not consumed).
            FlagMeaning::Foreign | FlagMeaning::VectorKind => Flags {
                foreign: value,
                ..Flags::default()
            },
            FlagMeaning::Virtuality(_) => panic!("{name}: a DISPFlags field among DIFlags"),
        };
        assert_eq!(f, expected, "DIFlag{name}");
    }
    // DIFlagVector on a one-dimensional array: a vector, the bit consumed.
    let v = ty("VEC");
    assert!(
        matches!(v.kind, TypeKind::Vector { count: 4, .. }),
        "{:?}",
        v.kind
    );
    assert_eq!(v.flags, Flags::default());

    let scope = |name: &str| {
        m.scopes
            .values()
            .find(|s| s.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no subprogram {name}"))
    };
    for &(name, _, meaning) in SP_FLAGS {
        let s = scope(&format!("SP_{name}"));
        let (ScopeKind::Function(info) | ScopeKind::FunctionDecl(info)) = &s.kind else {
            panic!("SP_{name}: {:?}", s.kind)
        };
        // A definition is also prototyped by nothing here: its flags are the table's alone.
        let (flags, virtuality) = match meaning {
            FlagMeaning::Zero => (Flags::default(), None),
            FlagMeaning::Ir(flag) => (Flags::default().with(flag), None),
            FlagMeaning::Virtuality(v) => (Flags::default(), Some(v)),
            other => panic!("DISPFlag{name}: {other:?} among DISPFlags"),
        };
        assert_eq!(s.flags, flags, "DISPFlag{name}");
        assert_eq!(info.virtuality.map(|v| v.0), virtuality, "DISPFlag{name}");
    }
    // A DISPFlags bit LLVM names no flag for: ledgered where it stands.
    let s = scope("SP_unnamed_bit");
    assert_eq!(s.flags, Flags::default());
    let unnamed: Vec<_> = d
        .losses
        .iter()
        .filter(|l| l.message.contains("DISPFlags bits 0x400"))
        .collect();
    assert_eq!(unnamed.len(), 1, "{:?}", d.losses);
    assert!(
        unnamed[0].place.contains("SP_unnamed_bit"),
        "{:?}",
        unnamed[0]
    );

    // The raw bits a SPIR-V set has no bit for are ledgered by its writer.
    let out = dir.path().join("flags.spv");
    let report = crate::support::convert_report(&ll, &out, &["--flavour", "opencl100"]);
    let losses = report["diagnostics"]["losses"].as_array().unwrap();
    for &(name, _, meaning) in DI_FLAGS {
        if matches!(meaning, FlagMeaning::Foreign | FlagMeaning::VectorKind) {
            let place = format!("\"DI_{name}\"");
            assert!(
                losses.iter().any(|l| {
                    l["place"].as_str().unwrap().contains(&place)
                        && l["message"].as_str().unwrap().contains("foreign bits")
                }),
                "DIFlag{name} not ledgered: {losses:?}"
            );
        }
    }
}
