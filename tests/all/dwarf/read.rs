//! Covers src/front/dwarf/, src/dwarf/. What real consumers judge of it:
//! tests/judges/dwarf/read.rs.
//!
//! The DWARF reader on real objects (clang-14: x86-64 C and C++, DWARF 4 and 5, -O0 and -O2;
//! AMDGPU gfx900/gfx90a/gfx1030): every object reads and validates, spot checks of what it holds,
//! and vendor operations it does not know kept raw.

use crate::support::dwarf_read::*;
use std::process::Command;

use dwarv::ir::{self, Arg, Location, Op, OpCode, ScopeKind, TypeKind};
use dwarv::unstable::front::dwarf::read;

#[test]
fn every_object_reads_and_validates() {
    for name in OBJECTS {
        let m = load(name);
        assert!(!m.units.is_empty(), "{name}: no units");
        assert!(!m.lines.is_empty(), "{name}: no line rows");
        let o = dwarv().arg("validate").arg(path(name)).output().unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Spot checks of the mapping on prog.c and shapes.cpp.
#[test]
fn spot_checks() {
    let m = load("prog.dwarf5.o");
    let shape = m
        .types
        .values()
        .find(|t| t.name.as_deref() == Some("shape"))
        .unwrap();
    let TypeKind::Composite { elements, .. } = &shape.kind else {
        panic!("shape")
    };
    assert_eq!(elements.len(), 5);
    assert_eq!(shape.size, Some(ir::Bound::Const(384)));
    let z = m
        .types
        .values()
        .find(|t| t.name.as_deref() == Some("z"))
        .unwrap();
    assert!(z.flags.has(dwarv::ir::Flags::BIT_FIELD));
    assert_eq!(z.size, Some(ir::Bound::Const(10)));
    let kind = m
        .types
        .values()
        .find(|t| t.name.as_deref() == Some("shape_kind"))
        .unwrap();
    let TypeKind::Enum { enumerators, .. } = &kind.kind else {
        panic!()
    };
    assert_eq!(
        enumerators.last().map(|e| (e.name.as_str(), e.value)),
        Some(("SHAPE_TRI", 5))
    );
    // DWARF 5 file checksums and the unit's language.
    assert!(m.files.values().any(|f| f.checksum.is_some()));
    assert_eq!(m.units.values().next().unwrap().dwarf_version, Some(5));

    // Embedded source (DW_LNCT_LLVM_source) is the file's text.
    let m = load("prog.embed.o");
    let f = m
        .files
        .values()
        .find(|f| f.name.ends_with("prog.c"))
        .unwrap();
    let text = &m.texts.get(f.source.expect("embedded source")).text;
    assert!(text.contains("enum shape_kind"), "{text}");

    // -O2: inlining, location lists, call sites, macros.
    let m = load("prog.dwarf5.O2.o");
    assert!(!m.inlined.is_empty(), "inlined subroutines");
    assert!(m.scope_runs.iter().any(|r| r.inlined.is_some()));
    assert!(!m.loclists.is_empty(), "location lists");
    assert!(!m.call_sites.is_empty(), "call sites");
    assert!(m
        .vars
        .values()
        .any(|v| matches!(v.kind, ir::VarKind::Inlined { .. })));
    assert!(m
        .macros
        .values()
        .any(|x| x.name.as_deref() == Some("_STDIO_H")));
    let m4 = load("prog.dwarf4.O2.o");
    assert_eq!(
        m4.macros.len(),
        m.macros.len(),
        ".debug_macinfo and .debug_macro agree"
    );

    // C++: namespaces, inheritance, templates, virtual methods.
    let m = load("shapes.dwarf5.o");
    assert!(
        m.scopes
            .values()
            .any(|s| matches!(s.kind, ScopeKind::Namespace { .. })
                && s.name.as_deref() == Some("geo"))
    );
    assert!(m
        .types
        .values()
        .any(|t| matches!(t.kind, TypeKind::Inheritance { .. })));
    assert!(m
        .types
        .values()
        .any(|t| matches!(t.kind, TypeKind::TemplateParam { .. })));
    assert!(m
        .scopes
        .values()
        .any(|s| s.function().is_some_and(|f| f.virtuality.is_some())));
    assert!(!m.imports.is_empty(), "using-declarations");

    // An executable's DW_OP_addrx resolves to the symbol's address.
    let m = load("prog.O2");
    let nm =
        crate::support::run_ok(Command::new(crate::support::tool("llvm-nm")).arg(path("prog.O2")));
    let nm = String::from_utf8_lossy(&nm.stdout);
    let sym = nm
        .lines()
        .find(|l| l.ends_with(" next_id.counter"))
        .unwrap();
    let addr = i128::from_str_radix(sym.split_whitespace().next().unwrap(), 16).unwrap();
    let counter = m
        .vars
        .values()
        .find(|v| v.name.as_deref() == Some("counter"))
        .unwrap();
    let Some(Location::Expr(e)) = counter.location else {
        panic!("counter")
    };
    assert_eq!(
        m.exprs.get(e).ops,
        vec![Op::new(OpCode(0x03), vec![Arg::Int(addr)])]
    );

    // AMDGPU: address classes on pointers, .debug_frame.
    let m = load("kernel.gfx900.o");
    assert_eq!(m.info.machine, Some(224));
    assert!(m.types.values().any(|t| matches!(t.kind,
        TypeKind::Pointer { space, .. } if space.address_class == Some(1) && space.memory == ir::Memory::GLOBAL)));
    assert!(!m.fdes.is_empty());
}

#[test]
fn unknown_vendor_ops_survive_raw() {
    // 0xfe is no operation dwarv knows: the expression keeps it and the rest as raw bytes.
    let bytes = vec![0x50, 0xfe, 0x01, 0x02];
    let obj = object("clang", bytes, None, false);
    let (m, diag) = read(&obj, "raw.o").unwrap();
    let ops = var_ops(&m, "x");
    assert_eq!(ops[0], Op::new(OpCode(0x50), vec![]));
    assert_eq!(
        ops[1],
        Op::new(OpCode::RAW, vec![Arg::Bytes(vec![0xfe, 1, 2])])
    );
    assert!(!diag.is_empty(), "kept raw bytes are reported");
}

/// A range list whose every entry is discarded code (lld writes `[1, 1)` for a function
/// `--gc-sections` removed: here every function of b.c's unit) is no range, not a raw
/// attribute: the program round-trips exactly.
#[test]
fn a_range_list_of_only_discarded_code_is_no_range() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.c"), "int main(void) { return 0; }\n").unwrap();
    std::fs::write(
        dir.join("b.c"),
        "int unused1(int x) { return x * 3; }\nint unused2(int x) { return x + 7; }\n",
    )
    .unwrap();
    let clang = |args: &[&str]| {
        crate::support::run_ok(Command::new("clang-14").current_dir(dir).args(args));
    };
    clang(&[
        "-g",
        "-gdwarf-4",
        "-O1",
        "-ffunction-sections",
        "-c",
        "a.c",
        "b.c",
    ]);
    clang(&["-fuse-ld=lld", "-Wl,--gc-sections", "a.o", "b.o", "-o", "p"]);
    let p = dir.join("p");
    let text = dwarv().arg("dump").arg(&p).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        !text.contains("extra=[0x55"),
        "DW_AT_ranges kept raw: {text}"
    );
    let o = dwarv()
        .args(["roundtrip", "--via", "dwarf"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(
        o.status.success() && o.stdout.is_empty(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
