//! What the `dwarf/read` tests of both tiers share (tests/all/dwarf/read.rs and
//! tests/judges/dwarf/read.rs).

use dwarv::ir;
use dwarv::ir::Location;
use dwarv::ir::Module;
use dwarv::ir::Op;
use dwarv::unstable::front::dwarf::read;
use std::process::Command;

/// Every ELF object and executable of the corpus.
pub const OBJECTS: &[&str] = &[
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

pub fn dwarv() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dwarv"))
}

pub fn path(name: &str) -> std::path::PathBuf {
    crate::support::corpus().join(name)
}

/// Reads a corpus object; it must read, validate and print back to itself.
pub fn load(name: &str) -> Module {
    let bytes = std::fs::read(path(name)).unwrap();
    let (m, _) = read(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let m = m.into_inner();
    let text = ir::text::print(&m);
    let back = ir::text::parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == m, "{name}: the printed IR does not read back");
    m
}

/// An ELF object (EM_AMDGPU when `amdgpu`) with one DWARF 5 unit holding a variable located by
/// `location`, and a `.debug_frame` with the given CIE instructions.
pub fn object(producer: &str, location: Vec<u8>, frame: Option<Vec<u8>>, amdgpu: bool) -> Vec<u8> {
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

pub fn var_ops(m: &Module, name: &str) -> Vec<Op> {
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
