//! The ELF side: debug sections of an object or executable, with the relocations of a
//! relocatable object applied to them (section offsets and addresses sit in RELA addends there).

use object::{
    Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationKind, RelocationTarget,
};

use super::walker::{fail, DResult};

pub use crate::dwarf::EM_AMDGPU;

/// The sections the reader looks at, by gimli's names (`.debug_info` …), plus facts of the file.
pub struct Elf {
    pub machine: u16,
    pub address_size: u8,
    /// The address of `.eh_frame` (0 in a relocatable object), the base of its pc-relative
    /// pointers.
    pub eh_frame_address: u64,
    sections: Vec<(String, Vec<u8>)>,
}

impl Elf {
    pub fn section(&self, name: &str) -> &[u8] {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&[][..], |(_, d)| d.as_slice())
    }
}

/// R_AMDGPU_ABS32_LO (1), ABS32 (6) and ABS64 (3): object reads EM_AMDGPU as an unknown
/// architecture, so its relocation kinds are not named.
fn amdgpu_abs(r_type: u32) -> Option<u8> {
    match r_type {
        1 | 6 => Some(32),
        3 => Some(64),
        _ => None,
    }
}

pub fn load(bytes: &[u8]) -> DResult<Elf> {
    let file = object::File::parse(bytes)
        .map_err(|e| fail("ELF", 0, format!("not a readable ELF file: {e}")))?;
    let machine = match &file {
        object::File::Elf32(f) => f.elf_header().e_machine.get(f.endian()).0,
        object::File::Elf64(f) => f.elf_header().e_machine.get(f.endian()).0,
        _ => return Err(fail("ELF", 0, "not an ELF file")),
    };
    if !file.is_little_endian() {
        return Err(fail("ELF", 0, "big-endian ELF is not supported"));
    }
    let relocatable = file.kind() == object::ObjectKind::Relocatable;
    // Sections of one name (COMDAT groups of type units, -ffunction-sections pieces) are laid
    // end to end, as a linker would; `bases` gives each piece's offset in its name's whole.
    let mut sections: Vec<(String, Vec<u8>)> = Vec::new();
    let mut bases = std::collections::HashMap::new();
    let mut pieces = Vec::new();
    let mut eh_frame_address = 0;
    for section in file.sections() {
        let Ok(name) = section.name() else { continue };
        if name == EH_FRAME {
            if sections.iter().any(|(n, _)| n == EH_FRAME) {
                continue; // one .eh_frame is all a program has; a second piece is not read.
            }
            eh_frame_address = section.address();
        } else if !name.starts_with(".debug_") {
            continue;
        }
        if let Ok(flags) = section.compressed_file_range() {
            if flags.format != object::CompressionFormat::None {
                return Err(fail(
                    name,
                    0,
                    "compressed debug sections are not supported (decompress with objcopy --decompress-debug-sections)",
                ));
            }
        }
        let data = section
            .data()
            .map_err(|e| fail(name, 0, format!("section data out of the file: {e}")))?;
        let i = match sections.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                sections.push((name.to_string(), Vec::new()));
                sections.len() - 1
            }
        };
        bases.insert(section.index(), sections[i].1.len() as u64);
        pieces.push((section.index(), i, sections[i].1.len(), data.len()));
        sections[i].1.extend_from_slice(data);
    }
    if relocatable {
        // Code sections (one per function with -ffunction-sections or COMDAT) all start at 0
        // in a relocatable object: laid end to end in section order, as a linker would, their
        // functions get distinct addresses (the first keeps 0).
        let mut code_end = 0u64;
        for section in file.sections() {
            let executable = section.kind() == object::SectionKind::Text;
            if !executable || section.size() == 0 {
                continue;
            }
            let align = section.align().max(1);
            let base = code_end.div_ceil(align).saturating_mul(align);
            bases.insert(section.index(), base);
            code_end = base.saturating_add(section.size());
        }
        for (index, i, base, len) in pieces {
            let section = file
                .section_by_index(index)
                .map_err(|e| fail("ELF", 0, e.to_string()))?;
            let name = sections[i].0.clone();
            let data = &mut sections[i].1[base..base + len];
            relocate(&file, &section, &name, machine, data, &bases)?;
        }
    }
    Ok(Elf {
        machine,
        address_size: if file.is_64() { 8 } else { 4 },
        eh_frame_address,
        sections,
    })
}

const EH_FRAME: &str = ".eh_frame";

/// Applies the absolute relocations of a debug section (S + A written over the field), and in
/// `.eh_frame` the pc-relative ones too (S + A - P, P the field's offset: the section is at 0 in
/// a relocatable object, so a pc-relative pointer reads back as S + A).
fn relocate(
    file: &object::File,
    section: &object::Section,
    name: &str,
    machine: u16,
    data: &mut [u8],
    bases: &std::collections::HashMap<object::SectionIndex, u64>,
) -> DResult<()> {
    for (offset, r) in section.relocations() {
        let relative = r.kind() == RelocationKind::Relative && name == EH_FRAME;
        let size = match (r.kind(), r.flags()) {
            (RelocationKind::Absolute, _) => r.size(),
            (RelocationKind::Relative, _) if relative => r.size(),
            (_, RelocationFlags::Elf { r_type }) if machine == EM_AMDGPU => {
                match amdgpu_abs(r_type.0) {
                    Some(s) => s,
                    None => continue,
                }
            }
            _ => continue,
        };
        let width = usize::from(size / 8);
        if width != 4 && width != 8 {
            continue;
        }
        let symbol = match r.target() {
            RelocationTarget::Symbol(i) => {
                let s = file
                    .symbol_by_index(i)
                    .map_err(|e| fail(name, offset, format!("relocation symbol: {e}")))?;
                // A symbol in a debug section piece or a code section: offset by its base.
                let base = s.section_index().and_then(|x| bases.get(&x)).copied();
                s.address().wrapping_add(base.unwrap_or(0))
            }
            RelocationTarget::Absolute => 0,
            _ => continue,
        };
        let at = usize::try_from(offset)
            .ok()
            .filter(|o| o.saturating_add(width) <= data.len());
        let Some(at) = at else {
            return Err(fail(name, offset, "relocation outside its section"));
        };
        let addend = if r.has_implicit_addend() {
            let mut b = [0u8; 8];
            b[..width].copy_from_slice(&data[at..at + width]);
            u64::from_le_bytes(b) as i64
        } else {
            r.addend()
        };
        let mut value = symbol.wrapping_add(addend as u64);
        if relative {
            value = value.wrapping_sub(offset);
        }
        data[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
    }
    Ok(())
}
