//! Covers src/front/dwarf/, src/dwarf/. dwarv's own checks of it: tests/all/dwarf/read.rs.
//!
//! The DWARF reader on real objects (clang-14: x86-64 C and C++, DWARF 4 and 5, -O0 and -O2;
//! AMDGPU gfx900/gfx90a/gfx1030) checked against llvm-dwarfdump, and on hand-made objects with
//! AMD's vendor operations in both encodings and the aspace CFA rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use dwarv::ir::{self, Arg, CfaCode, CfaOp, Location, Module, Op, OpCode, TypeKind};
use dwarv::unstable::dwarf::{encode_cfa, encode_expr, AmdOps, Encoding, OffsetRefs};
use dwarv::unstable::front::dwarf::read;

/// Every ELF object and executable of the corpus.
const OBJECTS: &[&str] = &[
    "prog.dwarf5.o",
    "prog.dwarf4.o",
    "prog.dwarf5.O2.o",
    "prog.dwarf4.O2.o",
    "prog.embed.o",
    "prog.O2",
    "shapes.dwarf5.o",
    "shapes.dwarf4.O2.o",
    "shapes.types.o",
    "kernel.gfx900.o",
    "kernel.gfx900.O0.o",
    "kernel.gfx900.dwarf4.o",
    "kernel.gfx90a.o",
    "kernel.gfx1030.o",
];

fn dwarv() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
}

fn path(name: &str) -> std::path::PathBuf {
    crate::support::corpus().join(name)
}

/// Reads a corpus object; it must read, validate and print back to itself.
fn load(name: &str) -> Module {
    let bytes = std::fs::read(path(name)).unwrap();
    let (m, _) = read(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let m = m.into_inner();
    let text = ir::text::print(&m);
    let back = ir::text::parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == m, "{name}: the printed IR does not read back");
    m
}

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

/// An ELF object (EM_AMDGPU when `amdgpu`) with one DWARF 5 unit holding a variable located by
/// `location`, and a `.debug_frame` with the given CIE instructions.
fn object(producer: &str, location: Vec<u8>, frame: Option<Vec<u8>>, amdgpu: bool) -> Vec<u8> {
    use gimli::write::{AttributeValue, DwarfUnit, EndianVec, Expression, Sections};
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let root = dwarf.unit.root();
    let e = dwarf.unit.get_mut(root);
    e.set(
        gimli::DW_AT_producer,
        AttributeValue::String(producer.as_bytes().to_vec()),
    );
    e.set(gimli::DW_AT_name, AttributeValue::String(b"k.cl".to_vec()));
    e.set(gimli::DW_AT_language, AttributeValue::Udata(0x8100));
    e.set(
        gimli::DwAt(0x3e09),
        AttributeValue::String(b"[llvm:v0.0]".to_vec()),
    );
    let f = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
    let e = dwarf.unit.get_mut(f);
    e.set(gimli::DW_AT_name, AttributeValue::String(b"k".to_vec()));
    e.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(gimli::write::Address::Constant(0x100)),
    );
    e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(0x40));
    e.set(gimli::DwAt(0x3e0a), AttributeValue::Udata(64));
    e.set(
        gimli::DwAt(0x3e0b),
        AttributeValue::Exprloc(Expression::raw(location.clone())),
    );
    // A float4 base type (DW_AT_LLVM_vector_size) and a global-memory pointer to it.
    let vt = dwarf.unit.add(root, gimli::DW_TAG_base_type);
    let e = dwarf.unit.get_mut(vt);
    e.set(
        gimli::DW_AT_name,
        AttributeValue::String(b"float4".to_vec()),
    );
    e.set(
        gimli::DW_AT_encoding,
        AttributeValue::Encoding(gimli::DW_ATE_float),
    );
    e.set(gimli::DW_AT_byte_size, AttributeValue::Udata(16));
    e.set(gimli::DwAt(0x3e0c), AttributeValue::Udata(4));
    let pt = dwarf.unit.add(root, gimli::DW_TAG_pointer_type);
    let e = dwarf.unit.get_mut(pt);
    e.set(gimli::DW_AT_type, AttributeValue::UnitRef(vt));
    e.set(
        gimli::DW_AT_address_class,
        AttributeValue::AddressClass(gimli::DwAddr(1)),
    );
    let v = dwarf.unit.add(f, gimli::DW_TAG_variable);
    dwarf
        .unit
        .get_mut(v)
        .set(gimli::DW_AT_type, AttributeValue::UnitRef(pt));
    let e = dwarf.unit.get_mut(v);
    e.set(gimli::DW_AT_name, AttributeValue::String(b"x".to_vec()));
    e.set(
        gimli::DW_AT_location,
        AttributeValue::Exprloc(Expression::raw(location)),
    );
    let mut sections = Sections::new(EndianVec::new(gimli::LittleEndian));
    dwarf.write(&mut sections).unwrap();
    let extra: Vec<(&str, &[u8])> = frame.iter().map(|f| (".debug_frame", &f[..])).collect();
    let mut bytes = crate::support::elf_of_dwarf(&sections, &extra);
    if amdgpu {
        bytes[18..20].copy_from_slice(&224u16.to_le_bytes());
    }
    bytes
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

fn var_ops(m: &Module, name: &str) -> Vec<Op> {
    let v = m
        .vars
        .values()
        .find(|v| v.name.as_deref() == Some(name))
        .unwrap();
    let Some(Location::Expr(e)) = v.location else {
        panic!("{name}: no expression")
    };
    m.exprs.get(e).ops.clone()
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
