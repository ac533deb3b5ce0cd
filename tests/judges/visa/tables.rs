//! Covers src/visa/, src/front/visa/, src/back/visa/. dwarv's own checks of it:
//! tests/all/visa/tables.rs.
//!
//! vISA debug tables: encoder → decoder → encoder byte-identical, bytes → IR → bytes identical,
//! the IR text of every sample parses back and validates, and the CLI hooks work end to end.

use crate::support::visa_tables::*;
use dwarv::ir::{CodePos, CodeRange, FunctionInfo, Handle, Location, Module, Op, Ref, Scope};
use dwarv::unstable::visa;

/// A location as (Gen range, operations) pairs: a location list's entries, or one expression.
fn entries(m: &Module, l: Option<Location>) -> Vec<(Option<CodeRange>, Vec<Op>)> {
    match l {
        None => vec![],
        Some(Location::Expr(e)) => vec![(None, m.exprs.get(e).ops.clone())],
        Some(Location::List(l)) => m
            .loclists
            .get(l)
            .entries
            .iter()
            .map(|e| (e.range, m.exprs.get(e.expr).ops.clone()))
            .collect(),
    }
}

/// The functions of `m` in order: name, ranges, frame base, and whether it is top-level (in a
/// unit of its own) or nested.
fn functions(m: &Module) -> Vec<(Handle<Scope>, &Scope, &FunctionInfo)> {
    m.scopes
        .iter()
        .filter_map(|(h, s)| Some((h, s, s.function()?)))
        .collect()
}

/// The Gen address of vISA index `i` of object `o` (docs/visa.md): the first Gen offset of the
/// nearest index-map entry at or after `i`, else `end`.
fn gen_of(o: &visa::Object, i: u64, end: u64) -> u64 {
    o.index_map
        .iter()
        .filter(|e| e.visa as u64 >= i)
        .min_by_key(|e| (e.visa, e.gen))
        .map_or(end, |e| o.reloc_offset as u64 + e.gen as u64)
}

/// Tables → DWARF: each compiled object gets a compile unit of its own (the
/// random samples' objects overlap in Gen offsets), `llvm-dwarfdump --verify` finds nothing but
/// the AMD vendor operations it cannot decode (each checked with dwarv's decoder), and the DWARF
/// read back with dwarv's reader holds every object as a subprogram over its Gen code range, each
/// subroutine as a nested one over its own, and for every live interval a location-list entry
/// covering its Gen range with the interval's location; every expression decodes completely and
/// equals the IR's, CFI included.
#[test]
fn tables_convert_to_dwarf_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (mut objects, mut subs, mut intervals, mut empty, mut undecoded, mut exprs) =
        (0, 0, 0, 0, 0, 0);
    for (name, t) in crate::support::visa_gen::samples() {
        let input = dir.path().join(format!("{name}.bin"));
        let output = dir.path().join(format!("{name}.o"));
        std::fs::write(&input, bytes_of(&t)).unwrap();
        let o = crate::support::dwarv(&[
            "convert",
            "--to",
            "dwarf",
            "-o",
            output.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        if t.objects.is_empty() {
            // Nothing to describe: no DWARF is written.
            assert_eq!(o.status.code(), Some(2), "{name}: {o:?}");
            assert!(!output.exists());
            continue;
        }
        assert!(o.status.success(), "{name}: {o:?}");
        undecoded += crate::support::dwarfdump_verify(&output, dwarv::unstable::dwarf::AmdOps::Raw);
        let (ir, _) = dwarv::unstable::front::visa::read(&bytes_of(&t), name).unwrap();
        let (back, _) = dwarv::unstable::front::dwarf::read(&std::fs::read(&output).unwrap(), name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for e in back.exprs.values() {
            assert!(
                e.ops.iter().all(|op| op.code != dwarv::ir::OpCode::RAW),
                "{name}: an expression dwarv cannot decode completely: {:?}",
                e.ops
            );
        }
        exprs += back.exprs.len();
        assert_eq!(
            back.units.len(),
            t.objects.len(),
            "{name}: a unit per object"
        );
        let (irf, bf) = (functions(&ir), functions(&back));
        assert_eq!(irf.len(), bf.len(), "{name}: functions");
        let mut tops = bf
            .iter()
            .filter(|f| matches!(f.1.parent, Some(Ref::Unit(_))));
        // FDEs in stream order: the object's over its code, each subroutine's over its own.
        let mut fdes = back
            .fdes
            .values()
            .map(|f| (addr(f.range.start), addr(f.range.end)));
        for o in &t.objects {
            let (h, s, f) = tops
                .next()
                .unwrap_or_else(|| panic!("{name}: {} missing", o.name));
            objects += 1;
            assert_eq!(s.name.as_deref(), Some(o.name.as_str()), "{name}");
            // The object's code: from its reloc offset past every mapped Gen offset.
            let [r] = f.ranges.as_slice() else {
                panic!("{name}: {}: ranges {:?}", o.name, f.ranges)
            };
            let (lo, hi) = (addr(r.start), addr(r.end));
            assert_eq!(lo, o.reloc_offset as u64, "{name}: {}", o.name);
            assert!(o
                .index_map
                .iter()
                .all(|e| lo + (e.gen as u64) < hi || o.index_map.is_empty()));
            assert_eq!(fdes.next(), Some((lo, hi)), "{name}: FDE of {}", o.name);
            assert!(
                bf.iter().filter(|x| x.1.parent == s.parent).count() == 1,
                "{name}: {} shares its unit",
                o.name
            );
            // Subroutines: nested, over [G(start), G(end + 1)), inside the object.
            let nested: Vec<_> = bf
                .iter()
                .filter(|x| x.1.parent == Some(Ref::Scope(*h)))
                .collect();
            assert_eq!(nested.len(), o.subs.len(), "{name}: {}", o.name);
            for (sub, (_, ss, sf)) in o.subs.iter().zip(nested) {
                subs += 1;
                assert_eq!(ss.name.as_deref(), Some(sub.name.as_str()));
                let s0 = gen_of(o, sub.start as u64, hi);
                let want = (s0, gen_of(o, sub.end as u64 + 1, hi).max(s0));
                let got = sf
                    .ranges
                    .first()
                    .map_or((s0, s0), |r| (addr(r.start), addr(r.end)));
                assert_eq!(got, want, "{name}: {}", sub.name);
                assert!(lo <= got.0 && got.1 <= hi, "{name}: {} outside", sub.name);
                assert_eq!(fdes.next(), Some(want), "{name}: FDE of {}", sub.name);
            }
            // Variables: every live interval covered by an entry with its location.
            let vars: Vec<_> = back
                .vars
                .values()
                .filter(|v| v.scope == Some(Ref::Scope(*h)))
                .collect();
            assert_eq!(vars.len(), o.vars.len(), "{name}: {}", o.name);
            for (v, ov) in vars.iter().zip(&o.vars) {
                assert_eq!(v.name.as_deref(), Some(ov.name.as_str()));
                let list = entries(&back, v.location);
                for i in &ov.intervals {
                    intervals += 1;
                    let s0 = gen_of(o, i.start as u64, hi);
                    let e0 = gen_of(o, i.end as u64 + 1, hi).max(s0);
                    if s0 == e0 {
                        empty += 1; // no Gen code: nothing to cover
                        continue;
                    }
                    let ops = dwarv::unstable::front::visa::storage_ops(i.loc);
                    let hit = list.iter().any(|(r, x)| {
                        let r = r.expect("a bounded entry");
                        addr(r.start) <= s0 && e0 <= addr(r.end) && *x == ops
                    });
                    assert!(
                        hit,
                        "{name}: {} [{s0:#x}, {e0:#x}) not covered: {list:?}",
                        ov.name
                    );
                }
            }
        }
        // Every location and CFA expression reads back as the IR had it.
        for ((_, is, i), (_, bs, b)) in irf.iter().zip(&bf) {
            assert_eq!(is.name, bs.name);
            assert_eq!(
                entries(&ir, i.frame_base),
                entries(&back, b.frame_base),
                "{name}: frame base of {:?}",
                is.name
            );
        }
        // (An entry over no code is written too: gcc's location views pair with such
        // entries, and a list is given back as it was.)
        for (iv, bv) in ir.vars.values().zip(back.vars.values()) {
            assert_eq!(
                entries(&ir, iv.location),
                entries(&back, bv.location),
                "{name}: {:?}",
                iv.name
            );
        }
        // (DW_CFA_nop padding after a program is not part of it.)
        let cfa = |m: &Module| -> Vec<_> {
            let program = |f: &dwarv::ir::Fde| {
                let n = f
                    .ops
                    .iter()
                    .rposition(|o| o.code.0 != 0)
                    .map_or(0, |i| i + 1);
                f.ops[..n].to_vec()
            };
            m.fdes.values().map(|f| (f.range, program(f))).collect()
        };
        assert_eq!(cfa(&ir), cfa(&back), "{name}: FDEs");
    }
    println!(
        "{objects} objects, {subs} subroutines, {intervals} live intervals ({empty} without Gen code), \
         {exprs} expressions read back, {undecoded} that LLVM 14 cannot decode"
    );
    assert!(objects > 300 && intervals > 1000 && undecoded > 0);
}

fn addr(p: CodePos) -> u64 {
    match p {
        CodePos::Addr(a) => a,
        other => panic!("not an address: {other:?}"),
    }
}
