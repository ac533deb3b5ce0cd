//! `ir::merge`: source-level names and types (from .dwir and from SPIR-V) merged into the IR of
//! vISA tables by function name, and `dwarv convert tables.bin --to dwarf --with debug.{ll,spv}`
//! on the CLI (issue 6 item 3).

mod common;

use dwarv::ir::{self, merge::merge, CodePos, Location, Module, Ref, ScopeKind};
use dwarv::unstable::diag::LossKind;
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

/// Tables for the kernels of corpus/src/kernel.cl: `composite` (with a subroutine and a vISA
/// temporary), the stack-call function `blend`, and an object no source knows.
fn tables() -> Module {
    dwarv::unstable::front::visa::lower(&kernel_tables()).0
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

fn check_merged(source: &Module, name: &str) {
    let code = tables();
    let (m, d) = merge(source, &code);
    ir::verify::check(&m).unwrap_or_else(|f| panic!("{name}: {f}"));
    let (composite, info) = function(&m, "composite");
    assert!(info.ty.is_some(), "{name}: lost the source type");
    assert!(
        matches!(m.scopes.get(composite).parent, Some(Ref::Unit(_))),
        "{name}: no unit"
    );
    assert_eq!(info.ranges, function(&code, "composite").1.ranges);
    let (_, blend) = function(&m, "blend");
    assert_eq!(blend.ranges[0].start, CodePos::Addr(0x800));
    assert!(blend.frame_base.is_some());
    // Source variables got the Gen location lists, types kept; `i` lives in a nested block.
    for v in ["gid", "acc", "i", "mode"] {
        let var = m
            .vars
            .values()
            .find(|x| x.name.as_deref() == Some(v))
            .unwrap();
        assert!(var.ty.is_some(), "{name}: {v} has no type");
        let Some(Location::List(l)) = var.location else {
            panic!("{name}: {v} has no list")
        };
        let e = &m.loclists.get(l).entries;
        assert_eq!(e.len(), 1, "{name}: {v}");
        assert!(matches!(e[0].range.unwrap().start, CodePos::Addr(_)));
    }
    let helper = m
        .scopes
        .values()
        .find(|s| s.name.as_deref() == Some("composite_helper"))
        .unwrap();
    assert_eq!(helper.parent, Some(Ref::Scope(composite)));
    assert_eq!(m.fdes.len(), code.fdes.len());
    let unmatched: Vec<_> = d
        .losses
        .iter()
        .filter(|l| l.kind == LossKind::Unmatched)
        .map(|l| l.place.clone())
        .collect();
    for want in ["\"V7\"", "\"orphan\"", "\"histogram\""] {
        assert!(
            unmatched.iter().any(|p| p.contains(want)),
            "{name}: {want} not in {unmatched:?}"
        );
    }
    assert!(d
        .losses
        .iter()
        .any(|l| l.kind == LossKind::Dropped && l.message.contains("line row")));
    let text = ir::text::print(&m);
    assert_eq!(
        ir::text::parse(&text, name).unwrap(),
        m,
        "{name}: text round trip"
    );
}

#[test]
fn merge_from_dwir() {
    let path = common::repo_root().join("corpus/ir/opencl_kernel.dwir");
    let text = std::fs::read_to_string(&path).unwrap();
    let source = ir::text::parse(&text, "opencl_kernel.dwir").unwrap();
    check_merged(&source, "dwir");
}

#[test]
fn merge_from_spirv() {
    let path = common::corpus().join("kernel.ocl100.spv");
    let (source, _) =
        dwarv::unstable::front::spirv::read(&std::fs::read(&path).unwrap(), "kernel.ocl100.spv")
            .unwrap();
    check_merged(&source, "spirv");
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
            let with_path = common::corpus().join(with);
            let report =
                common::convert_report(&tables, &out, &["--to", "dwarf", "--with", s(&with_path)]);
            let vendor = common::dwarfdump_verify(&out, dwarv::unstable::dwarf::AmdOps::Raw);
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

    /// `--with` is for vISA tables input and DWARF or IR output; an unreadable file is an input
    /// error. Each: exit 2, a clear message, no output.
    #[test]
    fn with_is_refused_where_it_cannot_apply() {
        let dir = tempfile::tempdir().unwrap();
        let tables = dir.path().join("tables.bin");
        std::fs::write(&tables, encode(&kernel_tables()).unwrap()).unwrap();
        let ll = common::corpus().join("kernel.O0.ll");
        let missing = dir.path().join("missing.ll");
        let out = dir.path().join("out.o");
        let cases: [(&Path, &Path, &str, &str); 3] = [
            (&ll, &ll, "dwarf", "is not vISA tables"),
            (&tables, &missing, "dwarf", "missing.ll"),
            (&tables, &ll, "visa", "--with applies to DWARF or IR output"),
        ];
        for (input, with, to, want) in cases {
            let o = common::dwarv(&[
                "convert",
                s(input),
                "-o",
                s(&out),
                "--to",
                to,
                "--with",
                s(with),
            ]);
            assert_eq!(o.status.code(), Some(2), "{want}: {o:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(want), "{want}: {err}");
            assert!(!out.exists(), "{want}: output written");
        }
    }
}
