//! Covers src/front/dwarf/, src/dwarf/. dwarv's own checks of it: tests/all/dwarf/read.rs.
//!
//! The DWARF reader on real objects (clang-14: x86-64 C and C++, DWARF 4 and 5, -O0 and -O2;
//! AMDGPU gfx900/gfx90a/gfx1030) checked against llvm-dwarfdump, and on hand-made objects with
//! AMD's vendor operations in both encodings and the aspace CFA rules.

use crate::support::dwarf_read::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use dwarv::ir::{self, Arg, CfaCode, CfaOp, Location, Op, OpCode, TypeKind};
use dwarv::unstable::dwarf::{encode_cfa, encode_expr, AmdOps, Encoding, OffsetRefs};
use dwarv::unstable::front::dwarf::read;

fn dwarfdump(args: &[&str], file: &Path) -> String {
    let out = crate::support::run_ok(
        Command::new(crate::support::tool("llvm-dwarfdump"))
            .args(args)
            .arg(file),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// llvm-dwarfdump's DIEs: (tag, attribute name → printed value), in order.
fn dies(file: &Path) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    for line in dwarfdump(&["--debug-info"], file).lines() {
        let t = line.trim();
        if let Some(i) = t.find("DW_TAG_") {
            if t.starts_with("0x") {
                out.push((t[i..].trim().to_string(), BTreeMap::new()));
                continue;
            }
        }
        if let (Some(rest), Some(last)) = (t.strip_prefix("DW_AT_"), out.last_mut()) {
            let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            last.1.insert(name.to_string(), value.trim().to_string());
        }
    }
    out
}

fn quoted(v: &str) -> Option<String> {
    let s = v.strip_prefix("(\"")?;
    Some(s[..s.find("\")")?].to_string())
}

/// Names of base types, functions and variables and the count of line rows agree with
/// llvm-dwarfdump.
#[test]
fn names_and_lines_match_llvm_dwarfdump() {
    for name in OBJECTS {
        let m = load(name);
        let file = path(name);
        let d = dies(&file);
        let names_of = |tags: &[&str]| -> BTreeSet<String> {
            d.iter()
                .filter(|(t, a)| tags.contains(&t.as_str()) && !a.contains_key("abstract_origin"))
                .filter_map(|(_, a)| a.get("name").and_then(|v| quoted(v)))
                .collect()
        };
        let base: BTreeSet<String> = m
            .types
            .values()
            .filter(|t| matches!(t.kind, TypeKind::Basic { .. }))
            .filter_map(|t| t.name.clone())
            .collect();
        assert_eq!(base, names_of(&["DW_TAG_base_type"]), "{name}: base types");
        let funcs: BTreeSet<String> = m
            .scopes
            .values()
            .filter(|s| s.function().is_some())
            .filter_map(|s| s.name.clone())
            .collect();
        assert_eq!(funcs, names_of(&["DW_TAG_subprogram"]), "{name}: functions");
        // A static member's definition (DW_AT_specification) has its declaration's name.
        let vars: BTreeSet<String> = m
            .vars
            .values()
            .filter(|v| v.declaration.is_none())
            .filter_map(|v| v.name.clone())
            .collect();
        let want = names_of(&["DW_TAG_variable", "DW_TAG_formal_parameter"]);
        // Signature parameters of subroutine types have no names, so the sets compare as is.
        assert_eq!(vars, want, "{name}: variables");
        // Line rows: every row llvm-dwarfdump lists except the end_sequence ones.
        let rows = dwarfdump(&["--debug-line"], &file)
            .lines()
            .filter(|l| l.starts_with("0x000") && l.split_whitespace().count() >= 6)
            .filter(|l| !l.contains("end_sequence"))
            .count();
        assert_eq!(m.lines.len(), rows, "{name}: line rows");
    }
}

/// llvm-dwarfdump's printing of a single-expression location, as IR operations, when every
/// operation is one with plain numeric operands (no register names).
fn parse_ops(text: &str) -> Option<Vec<Op>> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let mut ops = Vec::new();
    for item in inner.split(", ") {
        let mut parts = item.split_whitespace();
        let name = parts.next()?.strip_prefix("DW_OP_")?;
        let row =
            dwarv::unstable::spec::dwarf::row_by_name(dwarv::unstable::spec::dwarf::OPS, name)?;
        let mut args = Vec::new();
        for p in parts {
            let p = p.trim_start_matches('+');
            let (neg, p) = match p.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, p),
            };
            let v = match p.strip_prefix("0x") {
                Some(h) => i128::from_str_radix(h, 16).ok()?,
                None => p.parse::<i128>().ok()?,
            };
            args.push(Arg::Int(if neg { -v } else { v }));
        }
        if args.len() != row.2.len() {
            return None;
        }
        ops.push(Op::new(OpCode(row.0), args));
    }
    Some(ops)
}

/// Single-expression locations with numeric operands (fbreg, addr, plus_uconst, xderef…)
/// agree with llvm-dwarfdump, variable by variable.
#[test]
fn locations_match_llvm_dwarfdump() {
    for name in OBJECTS {
        let m = load(name);
        let mut checked = 0;
        for (_, attrs) in dies(&path(name)) {
            let (Some(n), Some(loc)) = (
                attrs.get("name").and_then(|v| quoted(v)),
                attrs.get("location"),
            ) else {
                continue;
            };
            let Some(want) = parse_ops(loc) else {
                continue;
            };
            // llvm-dwarfdump prints DW_OP_addr in a .o unrelocated; dwarv applies the relocation.
            // DW_OP_addrx is resolved to DW_OP_addr through .debug_addr.
            let addrx = want.iter().any(|o| o.code == OpCode(0xa1));
            if addrx || (name.ends_with(".o") && want.iter().any(|o| o.code == OpCode(0x03))) {
                continue;
            }
            let found = m.vars.values().any(|v| {
                v.name.as_deref() == Some(n.as_str())
                    && matches!(v.location, Some(Location::Expr(e)) if m.exprs.get(e).ops == want)
            });
            assert!(found, "{name}: {n} at {loc}");
            checked += 1;
        }
        assert!(
            m.exprs
                .values()
                .flat_map(|e| &e.ops)
                .all(|o| o.code != OpCode(0xa1)),
            "{name}: an unresolved DW_OP_addrx"
        );
        // The -O0 objects, where locations are single expressions.
        if [
            "prog.dwarf5.o",
            "prog.dwarf4.o",
            "shapes.dwarf5.o",
            "kernel.gfx900.O0.o",
        ]
        .contains(name)
        {
            assert!(checked >= 3, "{name}: only {checked} locations compared");
        }
    }
}

/// `dump`, `convert -o x.dwir` and `convert -o x.spv` work on objects; the SPIR-V passes
/// spirv-val and the .dwir text diffs equal to the object.
#[test]
fn cli_converts_objects() {
    let dir = tempfile::tempdir().unwrap();
    for name in OBJECTS {
        let o = dwarv().arg("dump").arg(path(name)).output().unwrap();
        assert!(o.status.success(), "{name}");
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("; dwarv-ir 1 source=dwarf:"));
        let dwir = dir.path().join(format!("{name}.dwir"));
        let spv = dir.path().join(format!("{name}.spv"));
        for out in [&dwir, &spv] {
            let o = dwarv()
                .arg("convert")
                .arg(path(name))
                .arg("-o")
                .arg(out)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        crate::support::spirv_val(&spv, "spv1.4");
        let o = dwarv()
            .arg("diff")
            .arg(path(name))
            .arg(&dwir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

// ---- Hand-made objects: AMD vendor ops in both encodings, aspace CFA rules ----

/// The AMD operations of seed 002 (every one with a DW_OP_LLVM_user sub-opcode).
fn amd_ops() -> Vec<Op> {
    let op = |c: u32, a: &[i128]| Op::new(OpCode(c), a.iter().map(|x| Arg::Int(*x)).collect());
    vec![
        op(0x90, &[2600]),
        op(0xe2, &[]),
        op(0x10, &[4]),
        op(0x1e, &[]),
        op(0xe3, &[]),
        op(0xe8, &[64, -16]),
        op(0xe4, &[8]),
        op(0x10, &[6]),
        op(0xe1, &[]),
        op(0xe6, &[17]),
        op(0xe5, &[]),
        op(0xe7, &[]),
        op(0xea, &[]),
        op(0xeb, &[32, 4]),
        op(0xec, &[32, 4]),
    ]
}

/// A .debug_frame with one CIE (version 4) whose initial instructions are `ops`, and one FDE.
fn debug_frame(ops: &[CfaOp], amd: AmdOps) -> Vec<u8> {
    let e = Encoding {
        amd,
        ..Encoding::default()
    };
    let mut cie = vec![0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 4, 4, 16];
    cie.extend(encode_cfa(ops, &e, &mut OffsetRefs).unwrap());
    let mut out = (cie.len() as u32).to_le_bytes().to_vec();
    out.extend(cie);
    let mut fde = 0u32.to_le_bytes().to_vec();
    fde.extend(0x100u64.to_le_bytes());
    fde.extend(0x40u64.to_le_bytes());
    fde.extend(
        encode_cfa(
            &[CfaOp::new(CfaCode(0x40), vec![Arg::Int(1)])],
            &e,
            &mut OffsetRefs,
        )
        .unwrap(),
    );
    out.extend((fde.len() as u32).to_le_bytes());
    out.extend(fde);
    out
}

#[test]
fn amd_vendor_ops_decode_in_both_encodings() {
    let ops = amd_ops();
    let cfa = vec![
        CfaOp::new(CfaCode(0x30), vec![Arg::Int(32), Arg::Int(0), Arg::Int(6)]),
        CfaOp::new(
            CfaCode(0x31),
            vec![Arg::Int(32), Arg::Int(-16), Arg::Int(6)],
        ),
        CfaOp::new(
            CfaCode(0x10),
            vec![
                Arg::Int(16),
                Arg::Ops(vec![Op::new(OpCode(0xe6), vec![Arg::Int(17)])]),
            ],
        ),
    ];
    let cases = [
        // (producer, encoding written, machine AMDGPU)
        ("clang version 14.0.6", AmdOps::Raw, true),
        ("AMD clang version 18.0.0git", AmdOps::User, true),
        // The producer implies the raw encoding, the bytes are the user form: still decoded.
        ("clang version 14.0.6", AmdOps::User, true),
        ("AMD clang version 18.0.0git", AmdOps::Raw, false),
    ];
    let mut seen = Vec::new();
    for (producer, amd, amdgpu) in cases {
        let e = Encoding {
            amd,
            ..Encoding::default()
        };
        let bytes = encode_expr(&ops, &e, &mut OffsetRefs).unwrap();
        seen.push(bytes.clone());
        let obj = object(producer, bytes, Some(debug_frame(&cfa, amd)), amdgpu);
        let (m, diag) = read(&obj, "amd.o").unwrap_or_else(|e| panic!("{producer} {amd:?}: {e}"));
        ir::verify::check(&m).unwrap();
        assert!(diag.is_empty(), "{:?}", diag.losses);
        assert_eq!(var_ops(&m, "x"), ops, "{producer} {amd:?}");
        let f = m.scopes.values().find_map(|s| s.function()).unwrap();
        assert_eq!(f.lanes, Some(64));
        assert!(matches!(f.lane_pc, Some(Location::Expr(h)) if m.exprs.get(h).ops == ops));
        let unit = m.units.values().next().unwrap();
        assert_eq!(unit.augmentation.as_deref(), Some("[llvm:v0.0]"));
        assert_eq!(unit.language, ir::Language::LLVM_HIP);
        let x = m
            .vars
            .values()
            .find(|v| v.name.as_deref() == Some("x"))
            .unwrap();
        let TypeKind::Pointer {
            pointee: Some(p),
            space,
            ..
        } = &m.types.get(x.ty.unwrap()).kind
        else {
            panic!("x: not a pointer")
        };
        assert_eq!(
            (space.memory, space.address_class),
            (ir::Memory::GLOBAL, Some(1))
        );
        let TypeKind::Vector {
            element: Some(el),
            count: 4,
        } = &m.types.get(*p).kind
        else {
            panic!("float4: not a vector of 4")
        };
        assert_eq!(m.types.get(*el).size, Some(ir::Bound::Const(32)));
        assert_eq!(m.cies.values().next().unwrap().initial, cfa);
        assert_eq!(m.fdes.len(), 1);
    }
    assert_ne!(seen[0], seen[1], "the two encodings differ");

    // What the codec writes is what llvm-dwarfdump 14 sees: standard ops decode, the AMD
    // ops are "<decoding error>"; with the user form, the opcode is 0xe9.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("amd.o");
    // llvm-dwarfdump 14 knows the aspace CFA instructions: it decodes the codec's bytes.
    std::fs::write(
        &p,
        object(
            "clang",
            seen[0].clone(),
            Some(debug_frame(&cfa, AmdOps::Raw)),
            true,
        ),
    )
    .unwrap();
    let frame = dwarfdump(&["--debug-frame"], &p);
    assert!(frame.contains("DW_CFA_LLVM_def_aspace_cfa:"), "{frame}");
    assert!(frame.contains("DW_CFA_LLVM_def_aspace_cfa_sf:"), "{frame}");
    assert!(frame.contains("in addrspace6"), "{frame}");
    std::fs::write(&p, object("clang", seen[1].clone(), None, true)).unwrap();
    let text = dwarfdump(&["--debug-info"], &p);
    assert!(text.contains("DW_OP_regx"), "{text}");
    assert!(
        text.contains("decoding error> e2") || text.contains("e9 03"),
        "{text}"
    );
}

/// gcc lists empty address ranges in DW_AT_ranges (its location views' points: `[a, a)`),
/// which gimli's iterator leaves out and the IR has no place for: the ledger says how many, as
/// many as llvm-dwarfdump lists (corpus/src/linked.c, gcc-12 -O2, one unit).
#[test]
fn gcc_s_empty_ranges_are_ledgered() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("linked.o");
    crate::support::run_ok(
        Command::new(crate::support::tool("gcc-12"))
            .args(["-O2", "-g", "-c", "-o"])
            .arg(&obj)
            .arg(crate::support::repo_root().join("corpus/src/linked.c")),
    );
    let lists = crate::support::tool_output(
        "llvm-dwarfdump-14",
        &["--debug-rnglists", obj.to_str().unwrap()],
    );
    let empty = (lists.lines())
        .filter_map(|l| {
            l.trim()
                .strip_prefix('[')?
                .strip_suffix(')')?
                .split_once(", ")
        })
        .filter(|(a, b)| a == b)
        .count();
    assert!(empty > 0, "gcc wrote no empty range:\n{lists}");
    let report =
        crate::support::convert_report(&obj, &dir.path().join("linked.dwir"), &["--to", "ir"]);
    let losses = report["diagnostics"]["losses"].as_array().unwrap();
    let said: Vec<_> = (losses.iter())
        .filter_map(|l| l["message"].as_str())
        .filter(|m| m.contains("address range(s) of DW_AT_ranges lists empty"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with(&format!("{empty} address range(s)")),
        "{said:?}"
    );
}
