//! Covers src/front/dwarf/.
//!
//! The DWARF reader on damaged objects: every debug section of every corpus object truncated at
//! many offsets and with bits flipped, plus hand-made hostile cases (self-referring origins,
//! bad forms, huge counts, bad offsets). The reader must return a module that validates or a
//! `Error::Dwarf` naming a section and offset — never panic; the CLI exits 2 and writes nothing.

use crate::support::rng::Rng;
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
        let bytes = std::fs::read(crate::support::corpus().join(name)).unwrap();
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
        let bytes = std::fs::read(crate::support::corpus().join(name)).unwrap();
        let sections = debug_sections(&bytes);
        for round in 0..150 {
            let mut b = bytes.clone();
            let (sec, _, off, size) = &sections[rng.pick(sections.len())];
            if *size == 0 {
                continue;
            }
            let flips = 1 + rng.pick(4);
            for _ in 0..flips {
                let at = off + rng.pick(*size);
                b[at] ^= 1 << rng.pick(8);
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
    let bytes = std::fs::read(crate::support::corpus().join("prog.dwarf5.o")).unwrap();
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
    crate::support::elf_of_dwarf(&sections, &[])
}

#[test]
fn cli_exits_2_and_writes_nothing() {
    let bytes = std::fs::read(crate::support::corpus().join("kernel.gfx900.o")).unwrap();
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
