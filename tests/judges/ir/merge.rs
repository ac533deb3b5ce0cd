//! Covers src/ir/merge.rs. dwarv's own checks of it: tests/all/ir/merge.rs.
//!
//! `ir::merge`: source-level names and types (from .dwir and from SPIR-V) merged into the IR of
//! vISA tables by function name, and `dwarv convert tables.bin --to dwarf --with debug.{ll,spv}`
//! on the CLI.

use dwarv::ir::{self, CodePos, Location, Module, ScopeKind};
use dwarv::unstable::visa::*;

fn grf(num: u16) -> Storage {
    Storage::Reg {
        file: RegFile::Grf,
        num,
        sub: 0,
    }
}

fn var(name: &str, start: u16, end: u16, loc: Storage) -> Var {
    Var {
        name: name.into(),
        intervals: vec![Interval {
            start,
            end,
            virt: VirtType::General,
            loc,
        }],
    }
}

fn kernel_tables() -> Tables {
    let index_map: Vec<_> = (0..32)
        .map(|i| MapEntry {
            visa: i,
            gen: i * 16,
        })
        .collect();
    let composite = Object {
        name: "composite".into(),
        index_map: index_map.clone(),
        vars: vec![
            var("gid", 0, 30, grf(12)),
            var("acc", 4, 20, grf(20)),
            var("i", 6, 18, grf(21)),
            var(
                "w",
                8,
                12,
                Storage::Mem(Memory {
                    absolute: true,
                    offset: 64,
                }),
            ),
            var("V7", 1, 2, grf(30)),
        ],
        subs: vec![Subroutine {
            name: "composite_helper".into(),
            start: 22,
            end: 28,
            ret_val: vec![],
        }],
        ..Default::default()
    };
    let mut blend = Object {
        name: "blend".into(),
        reloc_offset: 0x800,
        index_map,
        vars: vec![var(
            "mode",
            2,
            9,
            Storage::Mem(Memory {
                absolute: false,
                offset: -16,
            }),
        )],
        ..Default::default()
    };
    blend.frame.befp = Some(vec![Interval {
        start: 0,
        end: 0x1f0,
        virt: VirtType::General,
        loc: Storage::Reg {
            file: RegFile::Grf,
            num: 125,
            sub: 12,
        },
    }]);
    let orphan = Object {
        name: "orphan".into(),
        ..Default::default()
    };
    Tables {
        objects: vec![composite, blend, orphan],
    }
}

fn function<'m>(m: &'m Module, name: &str) -> (ir::Handle<ir::Scope>, &'m ir::FunctionInfo) {
    m.scopes
        .iter()
        .find(|(_, s)| s.name.as_deref() == Some(name) && matches!(s.kind, ScopeKind::Function(_)))
        .and_then(|(h, s)| Some((h, s.function()?)))
        .unwrap_or_else(|| panic!("no function {name}"))
}

mod cli {
    use super::*;
    use std::path::Path;

    fn s(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    /// `convert tables.bin -o gen.o --to dwarf --with kernel.O0.ll|kernel.ocl100.spv`: DWARF that
    /// llvm-dwarfdump verifies (vendor operations checked by dwarv's decoder), whose subprograms
    /// and variables carry the source's names, types and declaration lines with the tables'
    /// Gen ranges and locations; the unmatched ones are in the report.
    #[test]
    fn convert_with_source_debug_info() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables.bin");
        std::fs::write(&tables, encode(&kernel_tables()).unwrap()).unwrap();
        for with in ["kernel.O0.ll", "kernel.ocl100.spv"] {
            let out = dir.path().join(format!("{with}.o"));
            let with_path = crate::support::corpus().join(with);
            let report = crate::support::convert_report(
                &tables,
                &out,
                &["--to", "dwarf", "--with", s(&with_path)],
            );
            let vendor =
                crate::support::dwarfdump_verify(&out, dwarv::unstable::dwarf::AmdOps::Raw);
            let (m, _) =
                dwarv::unstable::front::dwarf::read(&std::fs::read(&out).unwrap(), with).unwrap();
            let type_name = |t: Option<ir::Handle<ir::Type>>| {
                let mut t = t.unwrap_or_else(|| panic!("{with}: no type"));
                // Through qualifiers to the first named type.
                for _ in 0..8 {
                    let ty = m.types.get(t);
                    match (&ty.name, &ty.kind) {
                        (Some(n), _) => return n.clone(),
                        (None, ir::TypeKind::Qualified { base: Some(b), .. }) => t = *b,
                        _ => break,
                    }
                }
                panic!("{with}: an unnamed type")
            };
            for (f, line, lo) in [("composite", 46, 0), ("blend", 36, 0x800)] {
                let (h, info) = function(&m, f);
                let scope = m.scopes.get(h);
                assert_eq!(scope.at.map(|a| a.line), Some(line), "{with}: {f}");
                assert!(info.ty.is_some(), "{with}: {f} has no type");
                assert_eq!(info.ranges[0].start, CodePos::Addr(lo), "{with}: {f}");
            }
            let mut names = vec![];
            for (v, line, ty) in [
                ("gid", 51, "size_t"),
                ("acc", 53, "float4"),
                ("i", 56, "int"),
                ("w", 58, "float"),
                ("mode", 36, "blend_mode"),
            ] {
                let var = m
                    .vars
                    .values()
                    .find(|x| x.name.as_deref() == Some(v))
                    .unwrap_or_else(|| panic!("{with}: no {v}"));
                assert_eq!(var.at.map(|a| a.line), Some(line), "{with}: {v}");
                assert_eq!(type_name(var.ty), ty, "{with}: {v}");
                let Some(Location::List(l)) = var.location else {
                    panic!("{with}: {v} has no location list")
                };
                assert!(!m.loclists.get(l).entries.is_empty(), "{with}: {v}");
                names.push(v);
            }
            let losses = report["diagnostics"]["losses"].as_array().unwrap();
            let unmatched: Vec<&str> = losses
                .iter()
                .filter(|l| l["kind"] == "unmatched")
                .map(|l| l["place"].as_str().unwrap())
                .collect();
            for want in ["\"V7\"", "\"orphan\"", "\"histogram\""] {
                assert!(
                    unmatched.iter().any(|p| p.contains(want)),
                    "{with}: {want} not in {unmatched:?}"
                );
            }
            println!(
                "{with}: {} unmatched, {} losses in all, {vendor} expressions LLVM 14 cannot decode; {names:?} typed and located",
                unmatched.len(),
                losses.len()
            );
        }
    }
}
