//! Covers src/back/dwarf/. dwarv's own checks of it: tests/all/dwarf/write.rs.
//!
//! The DWARF writer against its real consumers: `llvm-dwarfdump --verify` (LLVM 14) for every
//! IR text of corpus/ir, every SPIR-V module corpus/build.sh makes and a sample of the peer
//! corpus; gdb on an executable whose debug sections `--into` replaced.
//!
//! LLVM 14 cannot decode AMD's vendor operations (seed 002) nor DW_OP_implicit_pointer /
//! DW_OP_const_type; it reports those expressions as "invalid DWARF expression". Such reports
//! are accepted only when dwarv's own decoder reads the bytes LLVM stopped at and they start with
//! one of those operations.

use crate::support::dwarf_write::*;
use std::path::Path;
use std::process::Command;

use crate::support::{dwarfdump_verify as verify, dwarv};

use dwarv::unstable::dwarf::AmdOps;

/// Converts to DWARF; panics unless dwarv exits 0. Returns the report.
fn to_dwarf(input: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--to", "dwarf"];
    args.extend(extra);
    crate::support::convert_report(input, out, &args)
}

#[test]
fn every_corpus_ir_text_writes_dwarf_5_and_4_that_llvm_verifies() {
    let mut vendor = 0;
    for input in crate::support::corpus_ir() {
        let stem = input.file_stem().unwrap().to_str().unwrap();
        for (v, extra) in [("5", vec![]), ("4", vec!["--dwarf-version", "4"])] {
            let out = tmp(&format!("{stem}.v{v}.o"));
            to_dwarf(&input, &out, &extra);
            vendor += verify(&out, AmdOps::Raw);
            let info = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&out)]);
            if !extra.is_empty() {
                assert!(!info.contains("version = 0x0005"), "{stem}: v4 forced");
            }
        }
    }
    // amdgpu.dwir's AMD operations and cpp_host.dwir's implicit pointer and const_type, twice.
    assert!(vendor > 0, "the corpus exercises vendor operations");
}

#[test]
fn amd_ops_in_both_encodings_decode_and_can_be_turned_off() {
    let input = crate::support::repo_root().join("corpus/ir/amdgpu.dwir");
    let raw = tmp("amd.raw.o");
    let user = tmp("amd.user.o");
    to_dwarf(&input, &raw, &["--amd-op-encoding", "raw"]);
    let rep = to_dwarf(&input, &user, &["--amd-op-encoding", "user"]);
    assert!(verify(&raw, AmdOps::Raw) > 0);
    // The user encoding cannot spell llvm_aspace_implicit_pointer: that location is a loss.
    let losses = rep["diagnostics"]["losses"].as_array().unwrap();
    assert!(losses
        .iter()
        .any(|l| l["message"].as_str().unwrap().contains("DW_OP_LLVM_user")));
    assert!(verify(&user, AmdOps::User) > 0);
    let bytes = std::fs::read(&user).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 224, "EM_AMDGPU");
    // AMD extensions off: no vendor op or attribute is left, and the report says what went.
    let off = tmp("amd.off.o");
    let rep = to_dwarf(&input, &off, &["--no-amdgpu-ext"]);
    assert_eq!(verify(&off, AmdOps::Raw), 0);
    let dump = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&off)]);
    for attr in ["3e08", "3e09", "3e0a", "3e0b", "3e0c"] {
        assert!(
            !dump.contains(&format!("DW_AT_unknown_{attr}")),
            "{attr} written"
        );
    }
    assert!(!rep["diagnostics"]["losses"].as_array().unwrap().is_empty());
    // On: the aspace CFA rules are in .debug_frame, decoded by llvm-dwarfdump itself.
    let frame = crate::support::tool_output("llvm-dwarfdump", &["--debug-frame", s(&raw)]);
    assert!(frame.contains("DW_CFA_LLVM_def_aspace_cfa"), "{frame}");
}

#[test]
fn spirv_modules_write_dwarf_that_llvm_verifies() {
    let corpus = crate::support::corpus();
    let mut n = 0;
    for name in [
        "particles.spv",
        "shade.spv",
        "kernel.ocl100.spv",
        "kernel.legacy.spv",
    ] {
        let out = tmp(&format!("{name}.o"));
        to_dwarf(&corpus.join(name), &out, &[]);
        verify(&out, AmdOps::Raw);
        let info = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&out)]);
        assert!(
            info.contains("version = 0x0005"),
            "{name}: SPIR-V units are DWARF 5"
        );
        // Scope runs became subprogram ranges, declare/value events location lists.
        assert!(info.contains("DW_AT_low_pc") || info.contains("DW_AT_ranges"));
        n += 1;
    }
    let shade = crate::support::tool_output(
        "llvm-dwarfdump",
        &["--debug-info", s(&tmp("particles.spv.o"))],
    );
    assert!(
        shade.contains("DW_AT_location\t(0x"),
        "a location list: {shade}"
    );
    // A module without debug info has nothing to write: exit 2, no output.
    let out = tmp("nodebug.o");
    let _ = std::fs::remove_file(&out);
    let o = dwarv(&[
        "convert",
        s(&corpus.join("shade.nodebug.spv")),
        "-o",
        s(&out),
        "--to",
        "dwarf",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
    assert_eq!(n, 4);
}

#[test]
fn a_sample_of_the_peer_corpus_writes_dwarf_that_llvm_verifies() {
    let Some(modules) = crate::support::peer_modules() else {
        return;
    };
    let dir = tmp("peer");
    std::fs::create_dir_all(&dir).unwrap();
    let mut written = 0;
    // Every third module: the sample stays small, and covers every kind of input file.
    for m in modules.iter().step_by(3) {
        let out = dir.join(m.file_name().unwrap()).with_extension("o");
        let o = dwarv(&["convert", s(m), "-o", s(&out), "--to", "dwarf"]);
        if o.status.code() == Some(2)
            && String::from_utf8_lossy(&o.stderr).contains("no compile unit")
        {
            continue;
        }
        assert!(
            o.status.success(),
            "{}: {}",
            m.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        verify(&out, AmdOps::Raw);
        written += 1;
    }
    assert!(written >= 5, "only {written} peer modules written");
}

#[test]
fn mixed_md5_files_get_the_is_md5_column_and_later_units_keep_their_line_tables() {
    let text = r#"; dwarv-ir 1 source=dwarf:x86_64
module machine=62 addr_size=8
f0 = file "a.c" dir="/src" checksum=md5(#0123456789abcdef0123456789abcdef)
f1 = file "b.h" dir="/src"
f2 = file "c.c" dir="/src" checksum=md5(#fedcba9876543210fedcba9876543210)
u0 = unit c11 file=f0 producer="t" dwarf=5
u1 = unit c11 file=f2 producer="t" dwarf=5
s0 = function "f" in=u0 at=f0:1 ranges=[@0x1000..0x1010] flags=[definition]
s1 = function "g" in=u1 at=f2:1 ranges=[@0x2000..0x2010] flags=[definition]
line @0x1000..0x1008 f0:2 stmt
line @0x1008..0x1010 f1:3 stmt
line @0x2000..0x2010 f2:4 stmt
"#;
    let input = tmp("md5.dwir");
    std::fs::write(&input, text).unwrap();
    let out = tmp("md5.o");
    to_dwarf(&input, &out, &[]);
    assert_eq!(verify(&out, AmdOps::Raw), 0);
    let line = crate::support::tool_output("llvm-dwarfdump", &["--debug-line", s(&out)]);
    let info = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&out)]);
    // Each unit's DW_AT_stmt_list still names the start of a line program (the second moved by
    // the one-byte splice of the first).
    let hex_after = |text: &str, key: &str| -> Vec<String> {
        text.match_indices(key)
            .map(|(i, _)| {
                text[i + key.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect()
            })
            .collect()
    };
    let programs: Vec<u64> = hex_after(&line, "debug_line[0x")
        .iter()
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .collect();
    let stmts: Vec<u64> = hex_after(&info, "DW_AT_stmt_list\t(0x")
        .iter()
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .collect();
    assert_eq!(stmts.len(), 2, "{info}");
    assert_eq!(stmts, programs, "{info}\n{line}");
    assert!(line.contains("\"c.c\""), "{line}");
    let raw = std::fs::read(&out).unwrap();
    assert!(
        raw.windows(3).any(|w| w == [0x82, 0x40, 0x0f]),
        "DW_LNCT_LLVM_is_MD5 (0x2002, udata) is in the file-entry format"
    );
}

/// gdb on an executable whose debug sections `--into` replaced: the base is the executable
/// stripped of its debug info, so everything gdb knows comes from dwarv's sections, written from
/// the IR that dwarv read from the unstripped executable.
#[test]
fn gdb_breaks_at_a_line_and_prints_a_local_struct_with_replaced_debug_sections() {
    for version in ["4", "5"] {
        let dir = tmp(&format!("gdb-v{version}"));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("prog");
        crate::support::run_ok(
            Command::new(crate::support::tool("clang-14"))
                .current_dir(crate::support::repo_root().join("corpus/src"))
                .args(["-g", &format!("-gdwarf-{version}"), "-O0", "prog.c", "-o"])
                .arg(&exe),
        );
        let stripped = dir.join("prog.stripped");
        crate::support::run_ok(
            Command::new(crate::support::tool("llvm-objcopy"))
                .arg("--strip-debug")
                .arg(&exe)
                .arg(&stripped),
        );
        let out = dir.join("prog.dwarv");
        let rep = to_dwarf(&exe, &out, &["--into", s(&stripped)]);
        assert_eq!(rep["status"], "ok");
        assert_eq!(verify(&out, AmdOps::Raw), 0);
        let o = crate::support::run_ok(
            Command::new(crate::support::tool("gdb"))
                .args(["-batch", "-nx", "-ex", "break prog.c:84", "-ex", "run"])
                .args(["-ex", "print shapes[1]", "-ex", "print shapes[1].u.extent"])
                .arg(&out),
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("Breakpoint 1, main () at prog.c:84"),
            "v{version}: {text}"
        );
        assert!(
            text.contains("kind = SHAPE_RECT") && text.contains("\"box\""),
            "v{version}: {text}"
        );
        assert!(text.contains("= {x = 3, y = 4}"), "v{version}: {text}");
    }
}

/// DWARF → IR → DWARF on clang-14 objects (C, C++, OpenCL for AMDGPU): the output verifies and
/// reads back to the same IR. optimized.c holds what broke this on larger programs (sqlite): a
/// concrete out-of-line DIE before its abstract origin, a variadic function with parameters, an
/// unsigned 64-bit constant.
#[test]
fn clang_objects_round_trip_through_the_ir() {
    let corpus = crate::support::corpus();
    let names = [
        "prog.dwarf4.o",
        "prog.dwarf5.o",
        "prog.dwarf4.O2.o",
        "prog.dwarf5.O2.o",
        "prog.O2",
        "kernel.gfx900.o",
        "kernel.gfx900.O0.o",
        "kernel.gfx900.dwarf4.o",
        "kernel.gfx90a.o",
        "kernel.gfx1030.o",
        "shapes.dwarf4.O2.o",
        "optimized.dwarf5.O2.o",
    ];
    for name in names {
        written_reads_back(&corpus.join(name), &tmp(&format!("rt-{name}.o")));
    }
}

/// `written_reads_back`, and `roundtrip --via dwarf` is exact with nothing ledgered.
fn exact_through_dwarf(input: &Path, out: &Path) {
    written_reads_back(input, out);
    let r = dwarv(&["roundtrip", s(input), "--via", "dwarf"]);
    let text =
        String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{text}");
    assert!(!text.contains("ledger:"), "{text}");
}

/// Converts `input` to DWARF at `out`, which must verify and read back to the same IR.
fn written_reads_back(input: &Path, out: &Path) {
    to_dwarf(input, out, &[]);
    verify(out, AmdOps::Raw);
    let d = dwarv(&["diff", s(input), s(out), "--limit", "1000"]);
    let text = String::from_utf8_lossy(&d.stdout);
    assert_eq!(d.status.code(), Some(0), "{}:\n{text}", input.display());
}

/// A C++ object with one code section per function (-O0: COMDAT templates and inline members):
/// the reader lays the code sections end to end, so the output's functions do not overlap; it
/// verifies and reads back to the same IR.
#[test]
fn cpp_objects_with_a_section_per_function_round_trip_through_the_ir() {
    written_reads_back(
        &crate::support::corpus().join("shapes.dwarf5.o"),
        &tmp("shapes.dwarf5.o"),
    );
}

/// Objects with AMD operations written by dwarv read back to the IR they were written from, in
/// both encodings (the user encoding has no spelling for llvm_aspace_implicit_pointer: that
/// entry is the one, reported, loss). Pointer address spaces come back through dwarv's vendor
/// attributes.
#[test]
fn amd_objects_written_by_dwarv_read_back_to_the_same_ir_in_both_encodings() {
    let first = tmp("amd-fix.raw.o");
    to_dwarf(
        &crate::support::repo_root().join("corpus/ir/amdgpu.dwir"),
        &first,
        &[],
    );
    let ir = String::from_utf8_lossy(&dwarv(&["dump", s(&first)]).stdout).into_owned();
    assert!(ir.contains("space=private_wave aspace=6"), "{ir}");
    for enc in ["raw", "user"] {
        let again = tmp(&format!("amd-fix.{enc}.o"));
        let rep = to_dwarf(&first, &again, &["--amd-op-encoding", enc]);
        verify(
            &again,
            if enc == "raw" {
                AmdOps::Raw
            } else {
                AmdOps::User
            },
        );
        let d = dwarv(&["diff", s(&first), s(&again)]);
        let text = String::from_utf8_lossy(&d.stdout);
        let losses = rep["diagnostics"]["losses"].as_array().unwrap().len();
        if enc == "raw" {
            assert_eq!(d.status.code(), Some(0), "{enc}:\n{text}");
            assert_eq!(losses, 0);
        } else {
            assert_eq!(losses, 1, "{rep}");
            for l in text.lines().filter(|l| !l.starts_with("    ")) {
                assert!(
                    l.contains("llvm_aspace_implicit_pointer")
                        || l.contains("variable local \"p\"")
                        || l.starts_with("only in B: location list")
                        || l.starts_with("only in A: location list"),
                    "{enc}: {l}"
                );
            }
        }
    }
}

/// The base types the convert operations of an object's location lists name, as
/// llvm-dwarfdump prints them under each variable (their DIE offsets move; the names must
/// not), sorted.
fn convert_ops(obj: &Path) -> Vec<String> {
    let out = Command::new("llvm-dwarfdump-14")
        .args(["--debug-info", s(obj)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<String> = text
        .split("DW_OP_convert")
        .skip(1)
        .map(|rest| {
            let op = rest.split(',').next().unwrap_or_default();
            op.split('"').nth(1).unwrap_or("(no name)").to_string()
        })
        .collect();
    names.sort();
    names
}

/// Location expressions naming base types (DW_OP_convert in clang's -O2 DWARF 5) are written
/// in the pass that writes the DIEs, gimli resolving the base types' offsets; a DWARF 4 output
/// of the same IR, where gimli would spell the operation DW_OP_GNU_convert, takes the offsets
/// from a previous pass instead. Both keep every operation and the base type it names.
#[test]
fn expressions_naming_base_types_keep_their_targets() {
    let input = crate::support::corpus().join("optimized.dwarf5.O2.o");
    let expected = convert_ops(&input);
    assert!(expected.len() >= 3, "{expected:?}");
    assert!(
        expected.iter().all(|n| n.starts_with("DW_ATE_")),
        "{expected:?}"
    );
    for (name, extra) in [
        ("convert.v5.o", vec![]),
        ("convert.v4.o", vec!["--dwarf-version", "4"]),
    ] {
        let out = tmp(name);
        to_dwarf(&input, &out, &extra);
        verify(&out, AmdOps::Raw);
        assert_eq!(convert_ops(&out), expected, "{name}");
        let d = dwarv(&["diff", s(&input), s(&out), "--limit", "1000"]);
        let text = String::from_utf8_lossy(&d.stdout);
        // A DWARF 4 line table has no MD5: the one difference of the version-4 output.
        match extra.is_empty() {
            true => assert_eq!(d.status.code(), Some(0), "{name}:\n{text}"),
            false => assert!(
                text.lines()
                    .all(|l| l.starts_with("changed: file") || l.contains("checksum=")),
                "{name}:\n{text}"
            ),
        }
    }
}

/// Enumerators of 2^63 and above in an enumeration whose underlying type is an unsigned typedef
/// (`enum : uint64_t`, as {fmt} has): clang and gcc write them as DW_FORM_data8; dwarv writes
/// udata (it wrote a 16-byte block its reader refused). C++ of this test's own, clang-14,
/// clang-19 and gcc-12, DWARF 4 and 5: `roundtrip --via dwarf` exits 0 and the written object
/// verifies.
#[test]
fn unsigned_64_bit_enumerators_round_trip() {
    let dir = tmp("enum64");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("enum64.cpp");
    std::fs::write(
        &src,
        "#include <stdint.h>\n\
         enum T : uint64_t { TX = 1ULL << 63, TY = 3, TMAX = ~0ULL };\n\
         typedef const unsigned long long cu;\n\
         enum class U : cu { UX = 1ULL << 63 };\n\
         enum Anon { AX = 1ULL << 63 };\n\
         enum N : long long { NX = -(1LL << 62) };\n\
         T t = TX; U u = U::UX; Anon a = AX; N n = NX;\n\
         int f(int x) { return x + (int)t; }\n",
    )
    .unwrap();
    for cc in ["clang++-14", "clang++-19", "g++-12"] {
        for v in ["4", "5"] {
            let obj = dir.join(format!("enum64.{cc}.{v}.o"));
            compiled_round_trips(cc, v, &src, &obj);
            let out = dir.join(format!("enum64.{cc}.{v}.out.o"));
            to_dwarf(&obj, &out, &[]);
            assert_eq!(verify(&out, AmdOps::Raw), 0, "{cc} v{v}");
            let dump = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&out)]);
            assert!(dump.contains("(9223372036854775808)"), "{cc} v{v}:\n{dump}");
        }
    }
}

/// gcc-12's C++ constructors and destructors (corpus errors.gcc.O0.o): one abstract DIE (C4/D4,
/// DW_AT_inline) with concrete instances that carry their own linkage name (C1/C2, D1/D2) and
/// DW_AT_object_pointer — with code, without code, and of declarations the unit only calls.
/// The output verifies, keeps that shape, reads back to the same IR with nothing ledgered, and
/// tells gdb the same parameters of the constructor.
#[test]
fn gcc_constructor_and_destructor_instances_round_trip() {
    let input = crate::support::corpus().join("errors.gcc.O0.o");
    let out = tmp("errors.gcc.O0.o");
    exact_through_dwarf(&input, &out);
    // Each instance is a DIE of its own: abstract origin, linkage name, object pointer.
    let info = crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(&out)]);
    for name in [
        "_ZN4acct6LedgerC2El",
        "_ZN4acct6LedgerD2Ev",
        "_ZNSt14overflow_errorD1Ev",
    ] {
        let at = info
            .find(&format!("DW_AT_linkage_name\t(\"{name}\")"))
            .unwrap_or_else(|| panic!("{name} not written"));
        let die = &info[info[..at].rfind("DW_TAG_").unwrap()..];
        let die = &die[..die.find("\n\n").unwrap()];
        assert!(die.starts_with("DW_TAG_subprogram"), "{die}");
        assert!(die.contains("DW_AT_abstract_origin"), "{die}");
        assert!(die.contains("DW_AT_object_pointer"), "{die}");
    }
    let gdb = |obj: &Path| {
        crate::support::tool_output(
            "gdb",
            &[
                "-batch",
                "-nx",
                "-ex",
                "info scope acct::Ledger::Ledger",
                "-ex",
                "info scope acct::Ledger::~Ledger",
                s(obj),
            ],
        )
    };
    let (a, b) = (gdb(&input), gdb(&out));
    assert!(a.contains("Symbol limit"), "{a}");
    assert_eq!(a, b);
}

/// DWARF 5 type units (clang -fdebug-types-section, corpus shapes.types.o): written as type
/// units again (DW_UT_type with the signature and type offset read, the root
/// DW_TAG_type_unit, declarations naming them by DW_AT_signature), which verify and read back
/// to the same IR with nothing ledgered. gdb finds the types in them.
#[test]
fn type_units_round_trip_as_type_units() {
    let input = crate::support::corpus().join("shapes.types.o");
    let out = tmp("shapes.types.o");
    exact_through_dwarf(&input, &out);
    let info =
        |obj: &Path| crate::support::tool_output("llvm-dwarfdump", &["--debug-info", s(obj)]);
    let (a, b) = (info(&input), info(&out));
    // The same units with the same signatures and named types.
    let units = |t: &str| -> Vec<String> {
        let mut v: Vec<String> = t
            .lines()
            .filter(|l| l.contains("Type Unit:"))
            .map(|l| {
                let field = |k: &str| l.split(k).nth(1).unwrap().split(',').next().unwrap();
                format!("{} {}", field("name = "), field("type_signature = "))
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(units(&a).len(), 4, "{a}");
    assert_eq!(units(&a), units(&b));
    assert_eq!(b.matches("DW_TAG_type_unit").count(), 4, "{b}");
    assert_eq!(
        a.matches("DW_AT_signature").count(),
        b.matches("DW_AT_signature").count(),
        "{b}"
    );
    let gdb = crate::support::tool_output(
        "gdb",
        &["-batch", "-nx", "-ex", "ptype geo::Circle", s(&out)],
    );
    assert!(
        gdb.contains("class geo::Circle : public geo::Shape"),
        "{gdb}"
    );
    // A method's declaration keeps its artificial object pointer and virtual slot.
    assert!(gdb.contains("virtual double area"), "{gdb}");
    // clang-14 and clang-19, with macros (the compile unit's DW_AT_macros and its line-table
    // offset follow the type units whose headers grew).
    let src = crate::support::repo_root().join("corpus/src/shapes.cpp");
    for cc in ["clang-14", "clang-19"] {
        let obj = tmp(&format!("shapes.types.macro.{cc}.o"));
        crate::support::run_ok(
            Command::new(crate::support::tool(cc))
                .args([
                    "-std=c++17",
                    "-gdwarf-5",
                    "-fdebug-types-section",
                    "-fdebug-macro",
                ])
                .args(["-O0", "-c"])
                .arg(&src)
                .arg("-o")
                .arg(&obj),
        );
        exact_through_dwarf(&obj, &tmp(&format!("shapes.types.macro.{cc}.out.o")));
    }
}

/// gcc-12's C++ (corpus shapes.cpp) linked into a program, with and without its DWARF 5 type
/// units (`-fdebug-types-section`): the unit's stand-in declarations list no parameters (a
/// definition completing one takes a signature of its own), a type unit's definition completes
/// a declaration inside stand-ins of its namespaces (DW_AT_specification on a type), a
/// parameter pack's parameters sit in DW_TAG_GNU_formal_parameter_pack, and each virtual
/// destructor has two concrete instances of one abstract D4 (D0 and D2: a function each). All
/// round-trip exactly, and after `--into` the program runs and gdb says the same: both
/// destructor instances, the class with its virtual `this`-taking method (it printed a static
/// one: declarations lost their artificial object pointer, and gdb reads a virtual slot only
/// as DW_OP_constu), the method's scope and the destructor's lines.
#[test]
fn gcc_type_units_and_destructor_instances_round_trip() {
    let src = crate::support::repo_root().join("corpus/src/shapes.cpp");
    for (name, extra) in [
        ("shapes.gcc12", &[][..]),
        ("shapes.gcc12.types", &["-fdebug-types-section"][..]),
    ] {
        let prog = tmp(name);
        crate::support::run_ok(
            Command::new(crate::support::tool("g++-12"))
                .args(["-std=c++17", "-gdwarf-5", "-O0"])
                .args(extra)
                .arg(&src)
                .arg("-o")
                .arg(&prog),
        );
        let r = dwarv(&["roundtrip", s(&prog), "--via", "dwarf"]);
        let text =
            String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(0), "{name}: {text}");
        assert!(!text.contains("ledger:"), "{text}");
        let out = tmp(&format!("{name}.out"));
        let c = dwarv(&[
            "convert",
            s(&prog),
            "--to",
            "dwarf",
            "--into",
            s(&prog),
            "-o",
            s(&out),
        ]);
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
        verify(&out, AmdOps::Raw);
        let ran = |p: &Path| Command::new(p).status().unwrap().code();
        assert_eq!(ran(&prog), ran(&out), "{name}");
        let gdb = |o: &Path| {
            crate::support::tool_output(
                "gdb",
                &[
                    "-batch",
                    "-nx",
                    "-ex",
                    "break geo::Shape::~Shape",
                    "-ex",
                    "break geo::Circle::~Circle",
                    "-ex",
                    "ptype geo::Poly<int, 3>",
                    "-ex",
                    "info scope geo::Circle::area",
                    "-ex",
                    "info line geo::Shape::~Shape",
                    s(o),
                ],
            )
        };
        let (a, b) = (gdb(&prog), gdb(&out));
        assert!(a.contains("(2 locations)"), "{a}");
        assert!(a.contains("virtual double area(void) const;"), "{a}");
        assert_eq!(a, b, "{name}");
    }
}
