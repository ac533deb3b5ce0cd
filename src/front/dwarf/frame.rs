//! `.debug_frame` → CIEs and FDEs, with dwarv's CFA codec (gimli rejects AMD's aspace CFA
//! instructions).

use super::elf::Elf;
use super::walker::Encodings;
use super::walker::{fail, DResult};
use crate::dwarf::bytes::Cursor;
use crate::dwarf::{decode_cfa, AmdOps, Encoding, OffsetRefs};
use crate::ir::{Cie, CodePos, CodeRange, Fde, Handle, Module};

const SECTION: &str = ".debug_frame";

pub fn read_frame(elf: &Elf, encodings: &Encodings, m: &mut Module) -> DResult<()> {
    let data = elf.section(SECTION);
    // CFA expressions use the encoding the units' expressions did.
    let amd = if encodings.iter().any(|e| e.amd == AmdOps::User) {
        AmdOps::User
    } else {
        AmdOps::Raw
    };
    let mut cies: Vec<(u64, Handle<Cie>)> = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let start = pos as u64;
        let err = |at: usize, msg: String| fail(SECTION, at as u64, msg);
        let mut c = Cursor::new(&data[pos..]);
        let mut length = c
            .fixed(4, "length")
            .map_err(|e| err(pos + e.offset, e.message))?;
        let mut offset_size = 4u8;
        if length == 0xffff_ffff {
            length = c
                .fixed(8, "length")
                .map_err(|e| err(pos + e.offset, e.message))?;
            offset_size = 8;
        }
        let body_start = c.pos;
        let body = c
            .take(length, "entry")
            .map_err(|e| err(pos + e.offset, e.message))?;
        let next = pos + body_start + body.len();
        let mut b = Cursor::new(body);
        let base = pos + body_start;
        let berr = |e: crate::dwarf::CodecError| fail(SECTION, (base + e.offset) as u64, e.message);
        let id = b.fixed(offset_size, "CIE id").map_err(berr)?;
        let cie_id = if offset_size == 8 {
            u64::MAX
        } else {
            0xffff_ffff
        };
        let enc_of = |address_size: u8| Encoding {
            address_size,
            offset_size,
            amd,
        };
        if id == cie_id {
            let version = b.u8("version").map_err(berr)?;
            if !matches!(version, 1 | 3 | 4) {
                return Err(fail(
                    SECTION,
                    start,
                    format!("CIE version {version} is not 1, 3 or 4"),
                ));
            }
            let aug_start = b.pos;
            while b.u8("augmentation").map_err(berr)? != 0 {}
            let augmentation = String::from_utf8_lossy(&body[aug_start..b.pos - 1]).into_owned();
            if augmentation.contains('z') || augmentation.contains("eh") {
                return Err(fail(
                    SECTION,
                    start,
                    format!("CIE augmentation \"{augmentation}\" is not supported in .debug_frame"),
                ));
            }
            let (address_size, segment_size) = if version >= 4 {
                (
                    b.u8("address size").map_err(berr)?,
                    b.u8("segment size").map_err(berr)?,
                )
            } else {
                (elf.address_size, 0)
            };
            if !matches!(address_size, 1 | 2 | 4 | 8) {
                return Err(fail(SECTION, start, format!("address size {address_size}")));
            }
            let code_align = b.uleb("code alignment").map_err(berr)?;
            let data_align = b.sleb("data alignment").map_err(berr)?;
            let return_register = if version == 1 {
                u64::from(b.u8("return register").map_err(berr)?)
            } else {
                b.uleb("return register").map_err(berr)?
            };
            let at = base + b.pos;
            let initial = decode_cfa(b.rest(), &enc_of(address_size), &mut OffsetRefs)
                .map_err(|e| fail(SECTION, (at + e.offset) as u64, e.message))?;
            let h = m.cies.push(Cie {
                version,
                augmentation,
                address_size,
                segment_size,
                code_align,
                data_align,
                return_register: u16::try_from(return_register)
                    .map_err(|_| fail(SECTION, start, "return register out of range"))?,
                eh_frame: false,
                initial,
                extra: Vec::new(),
            });
            cies.push((start, h));
        } else {
            let Some(&(_, cie)) = cies.iter().find(|(o, _)| *o == id) else {
                return Err(fail(
                    SECTION,
                    start,
                    format!("FDE names CIE offset {id:#x}, where no CIE is"),
                ));
            };
            let address_size = m.cies.get(cie).address_size;
            let lo = b.fixed(address_size, "initial location").map_err(berr)?;
            let len = b.fixed(address_size, "address range").map_err(berr)?;
            let at = base + b.pos;
            let ops = decode_cfa(b.rest(), &enc_of(address_size), &mut OffsetRefs)
                .map_err(|e| fail(SECTION, (at + e.offset) as u64, e.message))?;
            m.fdes.push(Fde {
                cie,
                range: CodeRange {
                    start: CodePos::Addr(lo),
                    end: CodePos::Addr(lo.saturating_add(len)),
                },
                ops,
                extra: Vec::new(),
            });
        }
        pos = next;
    }
    Ok(())
}
