//! The DWARF reader on damaged objects: every debug section of every corpus object truncated at
//! many offsets and with bits flipped, plus hand-made hostile cases (self-referring origins,
//! bad forms, huge counts, bad offsets). The reader must return a module that validates or a
//! `Error::Dwarf` naming a section and offset — never panic; the CLI exits 2 and writes nothing.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;

use dwarv::unstable::front::dwarf::read;
use dwarv::Error;
use object::{Object, ObjectSection};

const OBJECTS: &[&str] = &[
    "prog.dwarf5.o",
    "prog.dwarf4.o",
    "prog.dwarf5.O2.o",
    "prog.dwarf4.O2.o",
    "shapes.dwarf5.o",
    "shapes.dwarf4.O2.o",
    "kernel.gfx900.o",
    "kernel.gfx900.dwarf4.o",
    "kernel.gfx90a.o",
];

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Debug sections: (name, index, file offset, size).
fn debug_sections(bytes: &[u8]) -> Vec<(String, usize, usize, usize)> {
    let f = object::File::parse(bytes).unwrap();
    f.sections()
        .filter_map(|s| {
            let name = s.name().ok()?.to_string();
            let (off, size) = s.file_range()?;
            name.starts_with(".debug_")
                .then_some((name, s.index().0, off as usize, size as usize))
        })
        .collect()
}

/// Sets a section's sh_size (ELF64 little-endian).
fn set_size(bytes: &mut [u8], index: usize, size: u64) {
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
    let shentsize = u16::from_le_bytes(bytes[0x3a..0x3c].try_into().unwrap()) as usize;
    let at = shoff + index * shentsize + 32;
    bytes[at..at + 8].copy_from_slice(&size.to_le_bytes());
}

/// Reads damaged bytes: Ok with a valid module, or a DWARF/ELF error with a section name.
fn check(bytes: &[u8], what: &str) -> bool {
    let r = catch_unwind(AssertUnwindSafe(|| read(bytes, "damaged.o")));
    match r {
        Err(_) => panic!("{what}: the reader panicked"),
        Ok(Ok((m, _))) => {
            assert!(
                dwarv::ir::verify::verify(&m).is_empty(),
                "{what}: invalid module"
            );
            let _ = dwarv::ir::text::print(&m);
            true
        }
        Ok(Err(Error::Dwarf {
            section, message, ..
        })) => {
            assert!(
                section.starts_with('.') || section == "ELF",
                "{what}: section {section}"
            );
            assert!(!message.is_empty(), "{what}");
            false
        }
        Ok(Err(e)) => panic!("{what}: not a DWARF error: {e}"),
    }
}

#[test]
fn truncated_sections() {
    let mut errors = 0;
    let mut total = 0;
    for name in OBJECTS {
        let bytes = std::fs::read(common::corpus().join(name)).unwrap();
        for (sec, index, _, size) in debug_sections(&bytes) {
            let cuts: Vec<usize> = (0..16)
                .map(|i| size * i / 16)
                .chain([1, 3, 7, size.saturating_sub(1)])
                .collect();
            for cut in cuts {
                let mut b = bytes.clone();
                set_size(&mut b, index, cut as u64);
                total += 1;
                if !check(&b, &format!("{name} {sec} cut at {cut}")) {
                    errors += 1;
                }
            }
        }
    }
    // Most truncations must be reported (a few land on padding or unused tails).
    assert!(errors * 2 > total, "{errors} errors in {total} truncations");
}

#[test]
fn flipped_bits() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors = 0;
    for name in OBJECTS {
        let bytes = std::fs::read(common::corpus().join(name)).unwrap();
        let sections = debug_sections(&bytes);
        for round in 0..150 {
            let mut b = bytes.clone();
            let (sec, _, off, size) = &sections[rng.below(sections.len())];
            if *size == 0 {
                continue;
            }
            let flips = 1 + rng.below(4);
            for _ in 0..flips {
                let at = off + rng.below(*size);
                b[at] ^= 1 << rng.below(8);
            }
            if !check(&b, &format!("{name} {sec} round {round}")) {
                errors += 1;
            }
        }
    }
    assert!(errors > 0, "no flip was reported");
}

/// Replaces the first occurrence of `from` in the section `sec` by `to` (same length).
fn patch(bytes: &[u8], sec: &str, from: &[u8], to: &[u8]) -> Vec<u8> {
    let (_, _, off, size) = debug_sections(bytes)
        .into_iter()
        .find(|s| s.0 == sec)
        .unwrap();
    let data = &bytes[off..off + size];
    let at = data
        .windows(from.len())
        .position(|w| w == from)
        .unwrap_or_else(|| panic!("{sec}: {from:02x?}"));
    let mut b = bytes.to_vec();
    b[off + at..off + at + to.len()].copy_from_slice(to);
    b
}

fn expect_error(bytes: &[u8], what: &str, section: &str) {
    match read(bytes, "h.o") {
        Err(Error::Dwarf {
            section: s,
            offset,
            message,
            ..
        }) => {
            assert_eq!(s, section, "{what}: {message} at {offset:#x}");
            eprintln!("{what}: {s} {offset:#x}: {message}");
        }
        Err(e) => panic!("{what}: {e}"),
        Ok(_) => panic!("{what}: read without error"),
    }
}

#[test]
fn hand_made_hostile_cases() {
    let bytes = std::fs::read(common::corpus().join("prog.dwarf5.o")).unwrap();
    let (_, _, abbrev_off, abbrev_size) = debug_sections(&bytes)
        .into_iter()
        .find(|s| s.0 == ".debug_abbrev")
        .unwrap();
    // Bad form: the first abbreviation's first attribute gets form 0x7f.
    let mut b = bytes.clone();
    // abbrev 1: code, tag, children, then (attr, form) pairs.
    let first_form = abbrev_off + 4;
    b[first_form] = 0x7f;
    expect_error(&b, "bad form", ".debug_info");
    // An abbreviation table that never ends (no terminating 0) runs off its section.
    let mut b = bytes.clone();
    for x in &mut b[abbrev_off..abbrev_off + abbrev_size] {
        if *x == 0 {
            *x = 1;
        }
    }
    expect_error(&b, "unterminated abbreviations", ".debug_info");
    // The unit's length grows past its section.
    let (_, _, info_off, _) = debug_sections(&bytes)
        .into_iter()
        .find(|s| s.0 == ".debug_info")
        .unwrap();
    let mut b = bytes.clone();
    b[info_off..info_off + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    expect_error(&b, "huge unit length", ".debug_info");
    // A DIE reference outside the unit: a data4 DW_AT_type whose form becomes ref4.
    let b = written(|dwarf, var| {
        let e = dwarf.unit.get_mut(var);
        e.set(
            gimli::DW_AT_type,
            gimli::write::AttributeValue::Data4(0x0dea_dbee),
        );
    });
    let b = patch(&b, ".debug_abbrev", &[0x49, 0x06], &[0x49, 0x13]);
    expect_error(&b, "reference outside the unit", ".debug_info");
    // Abstract origins that refer to each other.
    let b = written(|dwarf, var| {
        let root = dwarf.unit.root();
        let f = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        dwarf.unit.get_mut(var).set(
            gimli::DW_AT_abstract_origin,
            gimli::write::AttributeValue::UnitRef(f),
        );
        let g = dwarf.unit.add(root, gimli::DW_TAG_variable);
        dwarf.unit.get_mut(g).set(
            gimli::DW_AT_abstract_origin,
            gimli::write::AttributeValue::UnitRef(var),
        );
        dwarf.unit.get_mut(var).set(
            gimli::DW_AT_abstract_origin,
            gimli::write::AttributeValue::UnitRef(g),
        );
    });
    expect_error(&b, "abstract-origin loop", ".debug_info");
    // A location expression whose block length is huge (implicit_value of 2^60 bytes).
    let b = written(|dwarf, var| {
        let expr = gimli::write::Expression::raw(vec![
            0x9e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10,
        ]);
        dwarf.unit.get_mut(var).set(
            gimli::DW_AT_location,
            gimli::write::AttributeValue::Exprloc(expr),
        );
    });
    expect_error(&b, "huge block length", ".debug_info");
    // A type reference of the wrong kind (DW_AT_type naming a variable).
    let b = written(|dwarf, var| {
        let root = dwarf.unit.root();
        let other = dwarf.unit.add(root, gimli::DW_TAG_variable);
        dwarf.unit.get_mut(var).set(
            gimli::DW_AT_type,
            gimli::write::AttributeValue::UnitRef(other),
        );
    });
    expect_error(&b, "type reference to a variable", ".debug_info");
    // A typedef of itself: a type defined in terms of itself.
    let b = written(|dwarf, var| {
        let root = dwarf.unit.root();
        let t = dwarf.unit.add(root, gimli::DW_TAG_typedef);
        let e = dwarf.unit.get_mut(t);
        e.set(
            gimli::DW_AT_name,
            gimli::write::AttributeValue::String(b"loop".to_vec()),
        );
        e.set(gimli::DW_AT_type, gimli::write::AttributeValue::UnitRef(t));
        dwarf
            .unit
            .get_mut(var)
            .set(gimli::DW_AT_type, gimli::write::AttributeValue::UnitRef(t));
    });
    expect_error(&b, "typedef of itself", ".debug_info");
    // A struct whose member points to the struct itself is legal and reads.
    let b = written(|dwarf, var| {
        let root = dwarf.unit.root();
        let st = dwarf.unit.add(root, gimli::DW_TAG_structure_type);
        let ptr = dwarf.unit.add(root, gimli::DW_TAG_pointer_type);
        dwarf
            .unit
            .get_mut(ptr)
            .set(gimli::DW_AT_type, gimli::write::AttributeValue::UnitRef(st));
        let member = dwarf.unit.add(st, gimli::DW_TAG_member);
        let e = dwarf.unit.get_mut(member);
        e.set(
            gimli::DW_AT_name,
            gimli::write::AttributeValue::String(b"next".to_vec()),
        );
        e.set(
            gimli::DW_AT_type,
            gimli::write::AttributeValue::UnitRef(ptr),
        );
        dwarf
            .unit
            .get_mut(var)
            .set(gimli::DW_AT_type, gimli::write::AttributeValue::UnitRef(st));
    });
    let (m, _) = read(&b, "list.o").expect("a self-referential struct reads");
    dwarv::ir::verify::check(&m).unwrap();
    // A unit whose abbreviation offset points at the last two bytes of its table: what it
    // finds there describes none of its DIEs. (An object without relocations: in a
    // relocatable one the reader would restore the offset.)
    let mut b = written(|_, _| {});
    let (_, _, info_off, _) = debug_sections(&b)
        .into_iter()
        .find(|s| s.0 == ".debug_info")
        .unwrap();
    let (_, _, _, table_size) = debug_sections(&b)
        .into_iter()
        .find(|s| s.0 == ".debug_abbrev")
        .unwrap();
    // DWARF 5 header: length (4), version (2), unit type (1), address size (1), abbrev offset (4).
    b[info_off + 8..info_off + 12].copy_from_slice(&(table_size as u32 - 2).to_le_bytes());
    expect_error(
        &b,
        "abbreviation offset into its own table's end",
        ".debug_info",
    );
}

/// A DWARF 5 object with one unit and one variable, shaped further by `f`.
fn written(f: impl FnOnce(&mut gimli::write::DwarfUnit, gimli::write::UnitEntryId)) -> Vec<u8> {
    use gimli::write::{AttributeValue, DwarfUnit, EndianVec, Sections};
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let mut dwarf = DwarfUnit::new(encoding);
    let root = dwarf.unit.root();
    dwarf
        .unit
        .get_mut(root)
        .set(gimli::DW_AT_name, AttributeValue::String(b"h.c".to_vec()));
    let var = dwarf.unit.add(root, gimli::DW_TAG_variable);
    dwarf
        .unit
        .get_mut(var)
        .set(gimli::DW_AT_name, AttributeValue::String(b"v".to_vec()));
    f(&mut dwarf, var);
    let mut sections = Sections::new(EndianVec::new(gimli::LittleEndian));
    dwarf.write(&mut sections).unwrap();
    common::elf_of_dwarf(&sections, &[])
}

#[test]
fn cli_exits_2_and_writes_nothing() {
    let bytes = std::fs::read(common::corpus().join("kernel.gfx900.o")).unwrap();
    let (_, index, _, _) = debug_sections(&bytes)
        .into_iter()
        .find(|s| s.0 == ".debug_info")
        .unwrap();
    let mut b = bytes.clone();
    set_size(&mut b, index, 40);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cut.o");
    std::fs::write(&input, &b).unwrap();
    for out in ["out.dwir", "out.spv"] {
        let target = dir.path().join(out);
        let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
            .arg("convert")
            .arg(&input)
            .arg("-o")
            .arg(&target)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(".debug_info offset 0x"), "{err}");
        assert!(!target.exists(), "{out} written");
    }
}

/// `--into` a binary whose section after the debug sections has an alignment of 2^57 (a
/// damaged object among the fuzz fixtures): a clear error, not a padding that runs out of
/// memory, and no output.
#[test]
fn into_a_binary_with_an_impossible_alignment_exits_2() {
    let input = common::repo_root().join("tests/dwarf/fuzz_nameless_unit_file0.o");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.o");
    let o = Command::new(env!("CARGO_BIN_EXE_dwarv"))
        .arg("convert")
        .arg(&input)
        .arg("--into")
        .arg(&input)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("alignment 0x200000000000008 (a power of two up to 0x10000 expected)"),
        "{err}"
    );
    assert!(!target.exists(), "output written");
}

/// A lexical block inside inlined code whose range reaches past its call site's (a
/// dwarf_roundtrip fuzz finding): DWARF cannot nest it so, and the writer's call site grows to
/// cover it — reported as an approximation, not a silent change.
#[test]
fn a_block_outside_its_inlined_call_site_is_ledgered() {
    use gimli::write::AttributeValue;
    let b = written(|dwarf, _| {
        let root = dwarf.unit.root();
        let callee = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        dwarf.unit.get_mut(callee).set(
            gimli::DW_AT_name,
            AttributeValue::String(b"callee".to_vec()),
        );
        let caller = dwarf.unit.add(root, gimli::DW_TAG_subprogram);
        let e = dwarf.unit.get_mut(caller);
        e.set(
            gimli::DW_AT_name,
            AttributeValue::String(b"caller".to_vec()),
        );
        code_range(e, 0, 0x100);
        let site = dwarf.unit.add(caller, gimli::DW_TAG_inlined_subroutine);
        let e = dwarf.unit.get_mut(site);
        e.set(
            gimli::DW_AT_abstract_origin,
            AttributeValue::UnitRef(callee),
        );
        code_range(e, 0x10, 0x10);
        let block = dwarf.unit.add(site, gimli::DW_TAG_lexical_block);
        code_range(dwarf.unit.get_mut(block), 0x18, 0x80);
    });
    let (m, _) = read(&b, "outside.o").expect("reads");
    assert_written_with_loss(&m, "outside its call site");
}

/// Subprograms the reader gives no scope (their unit DIE damaged; a dwarf_roundtrip fuzz
/// finding): the writer puts them under the unit, where they read back as the unit's — reported
/// as an approximation, not a silent change.
#[test]
fn functions_without_a_scope_are_ledgered_when_written_in_a_unit() {
    let m = read_fixture("fuzz_unscoped_functions.o");
    assert!(m.scopes.values().any(|s| s.parent.is_none()));
    assert_written_with_loss(&m, "without a scope: written in a unit");
}

/// A line-table file whose directory index is out of range (a dwarf_roundtrip fuzz finding): the
/// reader gives it no directory. Directory 0 is the compilation directory, so the writer lists an
/// empty directory for it in DWARF 5 (exact round trip) and, in DWARF 4, which cannot, reports
/// the placement in the compilation directory.
#[test]
fn a_file_without_a_directory_keeps_none_or_is_ledgered() {
    let m = read_fixture("fuzz_file_without_directory.o");
    assert!(m.files.values().any(|f| f.directory.is_none()));
    assert_exact_round_trip(&m);
    let opts = dwarv::unstable::back::dwarf::WriteOptions {
        dwarf_version: Some(4),
        ..raw_options()
    };
    assert_written_with_loss_opts(&m, &opts, "without a directory");
}

/// A DIE whose address ranges overlap (a damaged range list that adds one range covering the
/// others; a dwarf_roundtrip fuzz finding): the reader keeps the set of addresses they cover,
/// the one form the writer gives it back in.
#[test]
fn overlapping_ranges_read_as_the_addresses_they_cover() {
    let m = read_fixture("fuzz_overlapping_ranges.o");
    for pair in m.scope_runs.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.scope == b.scope && a.inlined == b.inlined {
            assert!(a.range.end < b.range.start, "{a:?} {b:?}");
        }
    }
    assert_exact_round_trip(&m);
}

/// A declaration whose DW_AT_decl_file is out of the line table's range and whose line is 0 (a
/// dwarf_roundtrip fuzz finding): no place at all, as the writer would give it back.
#[test]
fn a_declaration_without_file_or_line_has_no_place() {
    let m = read_fixture("fuzz_decl_without_file.o");
    let uint32 = m
        .types
        .values()
        .find(|t| t.name.as_deref() == Some("uint32"));
    assert_eq!(uint32.expect("the typedef").at, None);
    assert_exact_round_trip(&m);
}

/// Type units left without their compile unit (a dwarf_roundtrip fuzz finding, 26 Nov: the
/// compile unit damaged past reading): no unit has a file, so the writer listed an invented
/// `"<unknown>"` as each line program's file 0, which read back as one more file, unreported.
/// File 0 is now the module's first file.
#[test]
fn type_units_without_a_file_invent_none() {
    let m = read_fixture("fuzz_type_units_without_file.o");
    assert!(m.units.values().all(|u| u.file.is_none()));
    assert_exact_round_trip(&m);
}

/// A compile unit whose name is damaged (a dwarf_roundtrip fuzz finding, 26 Nov): it has no
/// file, so the writer listed the module's first file (`<stdin>`, which nothing names) as its
/// line program's file 0, which the reader takes for a nameless unit's placeholder and drops
/// unless a row names it: the file was lost, unreported. File 0 is now the file of the unit's
/// first line row.
#[test]
fn a_nameless_unit_keeps_its_unnamed_files() {
    let m = read_fixture("fuzz_nameless_unit_file0.o");
    assert!(m.units.values().all(|u| u.file.is_none()));
    assert!(m.files.values().any(|f| f.name == "<stdin>"));
    assert_exact_round_trip(&m);
}

/// An FDE whose instructions end in bytes the codec cannot decode (kept raw; a dwarf_roundtrip
/// fuzz finding, 27 Nov): the DW_CFA_nop padding after them reads back as part of the raw
/// bytes, so the program grows by the padding, which was not said. Now reported.
#[test]
fn cfa_padding_after_undecodable_bytes_is_reported() {
    let m = read_fixture("fuzz_cfa_raw_tail_padding.o");
    assert!(m.fdes.values().any(|f| f
        .ops
        .last()
        .is_some_and(|op| op.code == dwarv::ir::CfaCode::RAW)));
    assert_written_with_loss(&m, "DW_CFA_nop padding after them");
}

/// A function's type with an attribute the IR keeps raw (a dwarf_roundtrip fuzz finding, 27
/// Nov: DW_AT_base_types on frag.cl's `advance` signature): the writer leaves a type that is
/// only a subprogram's signature to the subprogram (readers rebuild it from its DW_AT_type and
/// parameters), so the raw attribute was lost, unreported. Such a type keeps its DIE.
#[test]
fn a_signature_type_with_a_raw_attribute_keeps_it() {
    let m = read_fixture("fuzz_signature_type_raw_attr.o");
    assert!(m
        .types
        .values()
        .any(|t| matches!(t.kind, dwarv::ir::TypeKind::Function { .. }) && !t.extra.is_empty()));
    assert_exact_round_trip(&m);
}

/// A unit of an unknown kind without a name (a dwarf_roundtrip fuzz finding, 26 Nov): the
/// writer lists the module's first file (`shapes.cpp`) as its file 0 and its DIEs name that
/// file as index 0; the reader took a nameless unit's file 0 for a placeholder unless a line
/// row named it, so every declaration of the unit lost its file, unreported. A DIE naming it
/// makes it a file too.
#[test]
fn a_nameless_unit_s_declarations_keep_file_0() {
    let m = read_fixture("fuzz_nameless_unit_decl_file0.o");
    assert!(m
        .units
        .values()
        .any(|u| u.file.is_none() && u.kind.0 != 0x02));
    assert_exact_round_trip(&m);
}

/// A block of inlined code with a block inside it whose code is outside its own (a
/// dwarf_roundtrip fuzz finding, 26 Nov: damaged ranges of dwarv's DWARF of an OpenCL kernel).
/// DWARF nests a block's code in its parent's, so the writer grows the outer block's ranges:
/// that is now reported, where it read back with one more scope run, unreported.
#[test]
fn a_nested_block_outside_its_parent_is_reported() {
    assert_written_with_loss(
        &read_fixture("fuzz_nested_block_outside.o"),
        "outside its own ranges",
    );
}

/// A variable's LLVM binding with NUL bytes in it (a dwarf_roundtrip fuzz finding, 26 Nov: a
/// damaged dwarv attribute): a DWARF string ends at its first NUL, so the writer writes it
/// without them, which is now reported (it read back shorter, unreported).
#[test]
fn a_string_with_nul_bytes_is_reported() {
    assert_written_with_loss(&read_fixture("fuzz_nul_in_binding.o"), "NUL bytes");
}

/// Function types with a calling convention of their own (OpenCL's DW_CC_LLVM_*), each the
/// signature of one function only (a dwarf_roundtrip fuzz finding, 26 Nov: dwarv's records
/// damaged, so the writer gave such a type no DIE, and the convention, which a subprogram DIE
/// has no place for, was lost unreported): such a type keeps its DIE.
#[test]
fn a_signature_with_a_calling_convention_keeps_it() {
    let m = read_fixture("fuzz_signature_calling_convention.o");
    let ccs = m
        .types
        .values()
        .filter(|t| {
            matches!(
                t.kind,
                dwarv::ir::TypeKind::Function {
                    calling_convention: 198 | 199,
                    ..
                }
            )
        })
        .count();
    assert_eq!(ccs, 3);
    assert_exact_round_trip(&m);
}

/// DW_AT_low_pc + a DW_AT_high_pc size past 2^64 (a dwarf_reader fuzz finding: gimli adds them
/// unchecked, a panic where overflow checks are on): a clean error naming both.
#[test]
fn a_high_pc_size_that_overflows_is_an_error() {
    let b = fixture("fuzz_high_pc_overflow.o");
    let e = read(&b, "overflow.o").expect_err("refused");
    assert!(e.to_string().contains("overflows"), "{e}");
}

/// A DIE that carries DW_AT_accessibility twice, 0 then public (a dwarf_roundtrip fuzz finding:
/// the reader took the first, kept the second raw, and the written DWARF read back public): DWARF
/// allows each attribute once, so the object is refused, naming the DIE and the attribute.
#[test]
fn an_attribute_given_twice_is_an_error() {
    let b = fixture("fuzz_roundtrip_accessibility.o");
    let e = read(&b, "twice.o").expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("0x118"), "{text}");
    assert!(text.contains("DW_AT_accessibility twice"), "{text}");
}

/// A namespace whose tag became a template value parameter (a dwarf_roundtrip fuzz finding: its
/// classes, imports and inlined calls were scoped to a template parameter, which no writer can
/// place, and vanished without a ledger line): a template parameter holds no DIEs, so the object
/// is refused, naming the first DIE inside one.
#[test]
fn a_die_inside_a_template_parameter_is_an_error() {
    let b = fixture("fuzz_inside_template_param.o");
    let e = read(&b, "inside.o").expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("0x2f"), "{text}");
    assert!(
        text.contains("inside a DW_TAG_template_value_parameter"),
        "{text}"
    );
}

/// A line row spanning nearly 2^64 addresses (a dwarf_roundtrip fuzz finding: gimli's line
/// program writer multiplied the advance to the next row by the line range and overflowed, a
/// panic where overflow checks are on): the writer ends the sequence there and begins another,
/// and the object comes back exactly.
#[test]
fn a_line_row_of_nearly_every_address_is_written_back() {
    let m = read_fixture("fuzz_long_line_row.o");
    assert!(m.lines.iter().any(|r| match (r.range.start, r.range.end) {
        (dwarv::ir::CodePos::Addr(s), dwarv::ir::CodePos::Addr(e)) => e - s > u64::MAX / 256,
        _ => false,
    }));
    assert_exact_round_trip(&m);
}

/// A DWARF 4 unit whose DW_AT_name is empty (a dwarf_roundtrip fuzz finding): its file cannot be
/// listed under an empty name (that ends a DWARF 4 file table), so it is listed as "<unknown>",
/// which reads back as another file — reported, not a silent change.
#[test]
fn a_nameless_dwarf4_unit_file_is_ledgered() {
    let m = read_fixture("fuzz_nameless_unit_dwarf4.o");
    assert!(m.files.values().any(|f| f.name.is_empty()));
    assert_written_with_loss(&m, "a file without a name");
}

/// A DW_AT_accessibility value that no DW_ACCESS names is kept raw and written back as read,
/// not taken for "no accessibility".
#[test]
fn an_unknown_accessibility_is_kept_raw() {
    let b = written(|dwarf, var| {
        dwarf.unit.get_mut(var).set(
            gimli::DW_AT_accessibility,
            gimli::write::AttributeValue::Udata(0),
        );
    });
    let (m, _) = read(&b, "access0.o").expect("reads");
    let v = m
        .vars
        .values()
        .find(|v| v.name.as_deref() == Some("v"))
        .expect("the variable");
    assert!(v.flags.is_empty(), "{:?}", v.flags);
    assert_eq!(v.extra.len(), 1, "{:?}", v.extra);
    assert_eq!(
        v.extra[0].attr,
        gimli::DW_AT_accessibility.0,
        "{:?}",
        v.extra
    );
    assert_exact_round_trip(&m);
}

/// The bytes of a fixture in tests/dwarf.
fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::repo_root().join("tests/dwarf").join(name)).unwrap()
}

/// A fixture in tests/dwarf, read.
fn read_fixture(name: &str) -> dwarv::Verified {
    read(&fixture(name), name).expect("reads").0
}

fn raw_options() -> dwarv::unstable::back::dwarf::WriteOptions<'static> {
    dwarv::unstable::back::dwarf::WriteOptions {
        dwarf_version: None,
        amd_ext: None,
        op_encoding: dwarv::unstable::back::dwarf::OpEncoding::Raw,
        into: None,
    }
}

/// Writes `m` as DWARF (each unit its own version): no loss, and it reads back equal.
fn assert_exact_round_trip(m: &dwarv::ir::Module) {
    let checked = dwarv::Verified::new(m.clone()).unwrap();
    let (bytes, diags) = dwarv::unstable::back::dwarf::write(&checked, &raw_options()).unwrap();
    assert!(diags.losses.is_empty(), "{:?}", diags.losses);
    let (back, _) = read(&bytes, "written.o").expect("reads back");
    let d = dwarv::ir::diff::diff(m, &back, Default::default());
    assert!(d.is_empty(), "{}", d.render(10));
}

/// DW_AT_low_pc and a DW_AT_high_pc length.
fn code_range(e: &mut gimli::write::DebuggingInformationEntry, low: u64, len: u64) {
    use gimli::write::{Address, AttributeValue};
    e.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(low)),
    );
    e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(len));
}

/// Writes `m` as DWARF (each unit its own version) and asserts that a loss says `what`.
fn assert_written_with_loss(m: &dwarv::ir::Module, what: &str) {
    assert_written_with_loss_opts(m, &raw_options(), what);
}

fn assert_written_with_loss_opts(
    m: &dwarv::ir::Module,
    opts: &dwarv::unstable::back::dwarf::WriteOptions,
    what: &str,
) {
    let checked = dwarv::Verified::new(m.clone()).unwrap();
    let (_, diags) = dwarv::unstable::back::dwarf::write(&checked, opts).unwrap();
    assert!(
        diags.losses.iter().any(|l| l.message.contains(what)),
        "{:?}",
        diags.losses
    );
}

/// A copy of a shared template parameter (DW_AT_dwarv_same_as, 0x3d3b) reads as the parameter
/// it names; one naming a variable, a function or itself is an error at the copy.
#[test]
fn a_template_copy_names_a_template_parameter() {
    use gimli::write::AttributeValue;
    const SAME_AS: gimli::DwAt = gimli::DwAt(0x3d3b);
    // Two functions; the second lists the first's parameter through a copy naming `target`
    // (None: the parameter itself).
    let object = |target: Option<u8>| {
        written(|d, var| {
            let root = d.unit.root();
            let f = d.unit.add(root, gimli::DW_TAG_subprogram);
            let g = d.unit.add(root, gimli::DW_TAG_subprogram);
            let own = d.unit.add(f, gimli::DW_TAG_template_type_parameter);
            let copy = d.unit.add(g, gimli::DW_TAG_template_type_parameter);
            for p in [own, copy] {
                let e = d.unit.get_mut(p);
                e.set(gimli::DW_AT_name, AttributeValue::String(b"T".to_vec()));
            }
            let to = match target {
                None => own,
                Some(0) => var,
                Some(1) => f,
                _ => copy,
            };
            let e = d.unit.get_mut(copy);
            e.set(SAME_AS, AttributeValue::UnitRef(to));
        })
    };
    let (m, _) = read(&object(None), "same.o").expect("reads");
    let lists: Vec<_> = m
        .scopes
        .values()
        .filter_map(|s| s.function())
        .map(|f| f.templates.clone())
        .collect();
    assert_eq!(lists.len(), 2);
    assert_eq!(
        lists[0], lists[1],
        "the copy read as a parameter of its own"
    );
    assert_eq!(lists[0].len(), 1);
    for (k, what) in ["a variable", "a function", "itself"].iter().enumerate() {
        expect_error(&object(Some(k as u8)), what, ".debug_info");
    }
}
