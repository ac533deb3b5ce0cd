//! Covers src/dwarf/cfa.rs, front/dwarf/frame.rs, back/dwarf/frame.rs. What real consumers judge
//! of it: tests/judges/dwarf/cfi.rs.
//!
//! Call-frame information: an `.eh_frame` dwarv cannot read is reported, and AMD's
//! `DW_OP_LLVM_user` operations in a `.debug_frame` without units are read.

use crate::support::dwarf_cfi::*;
use std::path::Path;

/// An `.eh_frame` dwarv cannot read (FDE pointers relative to data, DW_EH_PE_datarel) is
/// skipped with a diagnostic line, not silently.
#[test]
fn an_eh_frame_dwarv_cannot_read_is_reported() {
    let mut eh = Vec::new();
    // CIE: length 16, id 0, version 1, "zR", code 1, data -8, ra 16, aug length 1, R = 0x33.
    eh.extend_from_slice(&[
        16, 0, 0, 0, 0, 0, 0, 0, 1, b'z', b'R', 0, 1, 0x78, 16, 1, 0x33,
    ]);
    eh.extend_from_slice(&[0, 0, 0]);
    // FDE: length 16, CIE pointer 24 (back to 0), pc_begin, pc_range, aug length 0.
    eh.extend_from_slice(&[
        16, 0, 0, 0, 24, 0, 0, 0, 0x10, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0,
    ]);
    let sections = gimli::write::Sections::new(gimli::write::EndianVec::new(gimli::LittleEndian));
    let bytes = crate::support::elf_of_dwarf(&sections, &[(".eh_frame", &eh)]);
    let obj = dir().join("datarel.o");
    std::fs::write(&obj, bytes).unwrap();
    let out = dir().join("datarel.dwir");
    // The unreadable frame table is all the object holds.
    let rep = crate::support::convert_report(&obj, &out, &["--to", "ir", "--allow-no-debug-info"]);
    let losses = rep["diagnostics"]["losses"].to_string();
    assert!(
        losses.contains("pointer application 0x30") && losses.contains(".eh_frame+0x"),
        "{losses}"
    );
}

/// Finding 10: AMD's `DW_OP_LLVM_user` operations (0xe9 + sub-opcode) in CFA expressions of a
/// `.debug_frame` without units decode in the user encoding, found per program, and the CFI
/// comes back byte for byte written in that encoding.
#[test]
fn amd_user_operations_in_a_debug_frame_without_units() {
    let obj = assemble(
        "amd_user_cfi",
        "\t.cfi_sections .debug_frame
\t.text
f:
\t.cfi_startproc
\tnop
\t.cfi_escape 0x10, 0x10, 0x04, 0x30, 0xe9, 0x02, 0x9c
\tnop
\t.cfi_escape 0x16, 0x11, 0x05, 0x31, 0xe9, 0x05, 0x08, 0x9c
\tretq
\t.cfi_endproc
",
    );
    let text = dump(&obj);
    assert!(
        text.contains("expression 16 [lit0, llvm_form_aspace_address, call_frame_cfa]")
            && text.contains("val_expression 17 [lit1, llvm_offset_uconst 8, call_frame_cfa]"),
        "{text}"
    );
    roundtrip_ok(&obj);
    let out = dir().join("amd_user_cfi.out.o");
    crate::support::convert_report(&obj, &out, &["--to", "dwarf", "--amd-op-encoding", "user"]);
    let section = |p: &Path| {
        let bytes = std::fs::read(p).unwrap();
        let file = object::File::parse(&*bytes).unwrap();
        use object::{Object, ObjectSection};
        let s = file.section_by_name(".debug_frame").unwrap();
        s.data().unwrap().to_vec()
    };
    assert_eq!(section(&obj), section(&out));
}
