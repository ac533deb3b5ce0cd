//! Covers src/visa/, src/front/visa/, src/back/visa/. What real consumers judge of it:
//! tests/judges/visa/tables.rs.
//!
//! vISA debug tables: encoder → decoder → encoder byte-identical, bytes → IR → bytes identical,
//! the IR text of every sample parses back and validates, and the CLI hooks work end to end.

use crate::support::visa_tables::*;
use dwarv::Verified;

use dwarv::ir::{CodePos, Location, Ref};
use dwarv::unstable::diag::LossKind;
use dwarv::unstable::visa;

#[test]
fn writer_reader_writer_is_byte_identical() {
    for (name, t) in crate::support::visa_gen::samples() {
        let b = bytes_of(&t);
        let back = visa::decode(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, t, "{name}: decode(encode(t)) != t");
        assert_eq!(
            bytes_of(&back),
            b,
            "{name}: bytes differ after a round trip"
        );
    }
}

#[test]
fn bytes_ir_bytes_is_identical() {
    for (name, t) in crate::support::visa_gen::samples() {
        let b = bytes_of(&t);
        let (m, diags) = dwarv::unstable::front::visa::read(&b, name).unwrap();
        let only_ranges = diags
            .losses
            .iter()
            .all(|l| l.kind == LossKind::Approximated);
        assert!(only_ranges, "{name}: the reader reports losses: {diags:?}");
        if ["kernel", "spills", "stack_calls"].contains(&name) {
            assert!(diags.is_empty(), "{name}: {diags:?}");
        }
        let m = Verified::new(m).unwrap_or_else(|f| panic!("{name}: {f}"));
        let (out, losses) =
            dwarv::unstable::back::visa::write(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(losses.is_empty(), "{name}: {losses:?}");
        assert_eq!(out, b, "{name}: bytes → IR → bytes differ");
    }
}

#[test]
fn ir_text_parses_back_validates_and_writes_the_same_bytes() {
    for (name, t) in crate::support::visa_gen::samples() {
        let b = bytes_of(&t);
        let (m, _) = dwarv::unstable::front::visa::read(&b, name).unwrap();
        let text = dwarv::ir::text::print(&m);
        let parsed = dwarv::ir::text::parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed, m, "{name}: parse(print(m)) != m");
        assert_eq!(
            dwarv::ir::text::print(&parsed),
            text,
            "{name}: text not canonical"
        );
        let parsed = Verified::new(parsed).unwrap_or_else(|f| panic!("{name}: {f}"));
        let (out, _) = dwarv::unstable::back::visa::write(&parsed).unwrap();
        assert_eq!(out, b, "{name}: bytes → IR text → bytes differ");
    }
}

/// Every compiled object is a function whose range starts at its reloc offset, every subroutine
/// a function inside it, every live interval a location-list entry over its Gen range.
#[test]
fn the_ir_holds_objects_subroutines_and_intervals() {
    use dwarv::ir::ScopeKind;
    let t = crate::support::visa_gen::samples()
        .into_iter()
        .find(|s| s.0 == "stack_calls")
        .unwrap()
        .1;
    let (m, _) = dwarv::unstable::front::visa::read(&bytes_of(&t), "stack_calls").unwrap();
    let functions: Vec<_> = m
        .scopes
        .iter()
        .filter(|(_, s)| {
            matches!(s.kind, ScopeKind::Function(_)) && matches!(s.parent, Some(Ref::Unit(_)))
        })
        .collect();
    assert_eq!(functions.len(), t.objects.len());
    for ((h, s), o) in functions.iter().zip(&t.objects) {
        assert_eq!(s.name.as_deref(), Some(o.name.as_str()));
        let f = s.function().unwrap();
        assert_eq!(f.ranges[0].start, CodePos::Addr(o.reloc_offset as u64));
        assert_eq!(f.frame_base.is_some(), o.frame.befp.is_some());
        let subs = m
            .scopes
            .values()
            .filter(|c| c.parent == Some(Ref::Scope(*h)))
            .count();
        assert_eq!(subs, o.subs.len());
        let vars: Vec<_> = m
            .vars
            .values()
            .filter(|v| v.scope == Some(Ref::Scope(*h)))
            .collect();
        assert_eq!(vars.len(), o.vars.len());
        for (v, ov) in vars.iter().zip(&o.vars) {
            let Some(Location::List(l)) = v.location else {
                panic!("no location list")
            };
            let entries = &m.loclists.get(l).entries;
            assert_eq!(entries.len(), ov.intervals.len(), "{}", ov.name);
            for e in entries {
                let r = e.range.unwrap();
                assert!(
                    r.start <= r.end && r.start >= f.ranges[0].start && r.end <= f.ranges[0].end
                );
            }
        }
    }
    // The stack-call objects' FDEs carry the return-address and callee-save rules.
    let text = dwarv::ir::text::print(&m);
    assert!(text.contains("expression 0 [regx 143]"), "{text}");
    assert!(text.contains("expression 76 [fbreg 16]"), "{text}");
    assert!(text.contains("bit_piece 512 0"), "{text}");
}

/// `DWARV_VISA_SAMPLES=DIR cargo test --test visa write_samples` writes every sample to DIR (the
/// fuzz corpus seeds, docs examples).
#[test]
fn write_samples() {
    if let Some(dir) = std::env::var_os("DWARV_VISA_SAMPLES") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, t) in crate::support::visa_gen::samples() {
            let path = std::path::Path::new(&dir).join(format!("{name}.bin"));
            std::fs::write(path, bytes_of(&t)).unwrap();
        }
    }
}

/// The writer takes locations from the IR, not from a copy of the input: an edited location is
/// written, an expression of another form is refused naming its variable.
#[test]
fn the_writer_reads_the_ir() {
    let t = crate::support::visa_gen::samples()
        .into_iter()
        .find(|s| s.0 == "kernel")
        .unwrap()
        .1;
    let (m, _) = dwarv::unstable::front::visa::read(&bytes_of(&t), "kernel").unwrap();
    let text = dwarv::ir::text::print(&m);
    assert!(text.contains("e0 = expr [regx 28]\n"), "{text}");
    let edited = text.replace(
        "e0 = expr [regx 28]\n",
        "e0 = expr [regx 30, llvm_offset_uconst 4]\n",
    );
    let m2 = Verified::new(dwarv::ir::text::parse(&edited, "edited").unwrap()).unwrap();
    let (out, _) = dwarv::unstable::back::visa::write(&m2).unwrap();
    let back = visa::decode(&out).unwrap();
    let want = visa::Storage::Reg {
        file: visa::RegFile::Grf,
        num: 14,
        sub: 4,
    };
    assert_eq!(back.objects[0].vars[0].intervals[0].loc, want);
    let bad = text.replace("e0 = expr [regx 28]\n", "e0 = expr [breg5 0]\n");
    let m3 = Verified::new(dwarv::ir::text::parse(&bad, "bad").unwrap()).unwrap();
    let err = dwarv::unstable::back::visa::write(&m3)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("v0 (variable \"x\")") && err.contains("not a register"),
        "{err}"
    );
}

/// Every FDE program is a valid DWARF row sequence: `set_loc` addresses strictly increase.
#[test]
fn cfa_programs_run_forward() {
    for (name, t) in crate::support::visa_gen::samples() {
        let (m, _) = dwarv::unstable::front::visa::read(&bytes_of(&t), name).unwrap();
        for (h, f) in m.fdes.iter() {
            let locs: Vec<i128> = f
                .ops
                .iter()
                .filter(|o| o.code == dwarv::ir::CfaCode(0x01))
                .map(|o| match o.args[0] {
                    dwarv::ir::Arg::Int(a) => a,
                    _ => panic!("set_loc without an address"),
                })
                .collect();
            assert!(
                locs.windows(2).all(|w| w[0] < w[1]),
                "{name}: fde{}: {locs:?}",
                h.index()
            );
        }
    }
}

/// A vISA index with no index-map entry gives an approximated Gen range, reported.
#[test]
fn unmapped_indices_are_reported() {
    let mut t = crate::support::visa_gen::samples()
        .into_iter()
        .find(|s| s.0 == "kernel")
        .unwrap()
        .1;
    t.objects[0].index_map.retain(|e| e.visa != 9);
    let (_, d) = dwarv::unstable::front::visa::read(&bytes_of(&t), "gap").unwrap();
    // `x` has [2, 9] (its end maps through index 10) and [9, 20] (its start is index 9).
    assert_eq!(d.losses.len(), 1, "{d:?}");
    assert_eq!(d.losses[0].kind, LossKind::Approximated);
    assert!(
        d.losses[0]
            .place
            .starts_with("v0 (variable \"x\") interval 1"),
        "{d:?}"
    );
}
