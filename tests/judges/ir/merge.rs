//! Covers src/ir/merge.rs. dwarv's own checks of it: tests/all/ir/merge.rs.
//!
//! `ir::merge`: source-level names and types (from .dwir and from SPIR-V) merged into the IR of
//! vISA tables by function name, and `dwarv convert tables.bin --to dwarf --with debug.{ll,spv}`
//! on the CLI.

use crate::support::ir_merge::*;
use dwarv::ir::{self, CodePos, Location};
use dwarv::unstable::visa::*;

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
