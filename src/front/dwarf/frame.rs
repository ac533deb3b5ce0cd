//! `.debug_frame` and `.eh_frame` → CIEs and FDEs, with dwarv's CFA codec (gimli rejects AMD's
//! aspace CFA instructions).
//!
//! `.eh_frame` differs in its CIE id (0), its FDEs' CIE pointer (relative to the field), its
//! augmentation data (`z`: `L` LSDA encoding, `P` personality, `R` FDE pointer encoding) and its
//! pointers (DW_EH_PE_* encodings, absolute or pc-relative). The augmentation data is kept in
//! the CIE's and FDE's `extra`, one `RawAttr` per letter with data, in string order: `attr` the
//! letter, `form` the pointer encoding, `bytes` the pointer's value (absolute, 8 bytes
//! little-endian; none for `L` and `R` of a CIE). Data after a letter dwarv does not know is one
//! `RawAttr` of attr 0 with the bytes as read. An `.eh_frame` dwarv cannot read (a pointer
//! relative to text, data or a function, an augmentation without `z`) is skipped with an
//! `Unknown` diagnostic line; malformed bytes are an error, as in `.debug_frame`.

use super::elf::Elf;
use super::walker::Encodings;
use super::walker::{fail, DErr, DResult};
use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::bytes::Cursor;
use crate::dwarf::{decode_cfa, AmdOps, CodecResult, Encoding, OffsetRefs};
use crate::ir::{Arg, CfaCode, CfaOp, Cie, CodePos, CodeRange, Fde, Module, OpCode, RawAttr};

const DEBUG_FRAME: &str = ".debug_frame";
const EH_FRAME: &str = ".eh_frame";

/// DW_EH_PE_omit: no pointer.
const OMIT: u8 = 0xff;

pub fn read_frame(
    elf: &Elf,
    encodings: &Encodings,
    m: &mut Module,
    diag: &mut Diagnostics,
) -> DResult<()> {
    // CFA expressions use the encoding the units' expressions did; a program that decodes
    // completely only in the other encoding switches to it (a .debug_frame without units).
    let mut amd = if encodings.iter().any(|e| e.amd == AmdOps::User) {
        AmdOps::User
    } else {
        AmdOps::Raw
    };
    for eh in [false, true] {
        let mut r = Reader {
            eh,
            section: if eh { EH_FRAME } else { DEBUG_FRAME },
            data: elf.section(if eh { EH_FRAME } else { DEBUG_FRAME }),
            address: if eh { elf.eh_frame_address } else { 0 },
            default_address_size: elf.address_size,
            amd,
            cies: Vec::new(),
            cie_index: Default::default(),
            fdes: Vec::new(),
        };
        match r.read() {
            Ok(()) => {}
            Err(Stop::Bad(e)) => return Err(e),
            Err(Stop::Unsupported(at, msg)) if eh => {
                diag.push(
                    LossKind::Unknown,
                    format!("{EH_FRAME}+{at:#x}"),
                    format!("{msg}: the section's call-frame information is not read"),
                );
                continue;
            }
            Err(Stop::Unsupported(at, msg)) => return Err(fail(r.section, at, msg)),
        }
        amd = r.amd;
        let handles: Vec<_> = r.cies.into_iter().map(|(_, c)| m.cies.push(c)).collect();
        for (i, range, ops, extra) in r.fdes {
            m.fdes.push(Fde {
                cie: handles[i],
                range,
                ops,
                extra,
            });
        }
    }
    Ok(())
}

enum Stop {
    Bad(DErr),
    /// Valid input dwarv does not read (offset, why).
    Unsupported(u64, String),
}

impl From<DErr> for Stop {
    fn from(e: DErr) -> Stop {
        Stop::Bad(e)
    }
}

type Step<T> = Result<T, Stop>;

struct Reader<'a> {
    eh: bool,
    section: &'static str,
    data: &'a [u8],
    /// The section's address: the base of pc-relative pointers.
    address: u64,
    default_address_size: u8,
    amd: AmdOps,
    /// CIEs by section offset, and their FDE pointer and LSDA encodings (`.eh_frame`).
    cies: Vec<(CieAt, Cie)>,
    /// Section offset of each CIE → its index in `cies` (an FDE names its CIE by offset).
    cie_index: rustc_hash::FxHashMap<u64, usize>,
    /// FDEs: the index of their CIE in `cies`, range, program, augmentation data.
    fdes: Vec<(usize, CodeRange, Vec<CfaOp>, Vec<RawAttr>)>,
}

#[derive(Clone, Copy)]
struct CieAt {
    offset: u64,
    fde_encoding: u8,
    lsda_encoding: u8,
    z: bool,
}

/// One entry's body, with the section offset it starts at.
struct Body<'a> {
    bytes: &'a [u8],
    c: Cursor<'a>,
    base: usize,
    offset_size: u8,
}

impl<'a> Reader<'a> {
    fn err(&self, at: usize, msg: impl Into<String>) -> Stop {
        Stop::Bad(fail(self.section, at as u64, msg))
    }

    fn at<T>(&self, base: usize, r: CodecResult<T>) -> Step<T> {
        r.map_err(|e| self.err(base + e.offset, e.message))
    }

    fn read(&mut self) -> Step<()> {
        let mut pos = 0usize;
        while pos < self.data.len() {
            let mut c = Cursor::new(&self.data[pos..]);
            let mut length = self.at(pos, c.fixed(4, "length"))?;
            if length == 0 && self.eh {
                break; // the terminator of a linked program's .eh_frame
            }
            let mut offset_size = 4u8;
            if length == 0xffff_ffff {
                length = self.at(pos, c.fixed(8, "length"))?;
                offset_size = 8;
            }
            let body_start = c.pos;
            let body = self.at(pos, c.take(length, "entry"))?;
            let next = pos + body_start + body.len();
            let mut b = Body {
                bytes: body,
                c: Cursor::new(body),
                base: pos + body_start,
                offset_size,
            };
            let id_at = b.base;
            let id = self.at(b.base, b.c.fixed(offset_size, "CIE id"))?;
            let cie_id = match (self.eh, offset_size) {
                (true, _) => 0,
                (false, 8) => u64::MAX,
                (false, _) => 0xffff_ffff,
            };
            if id == cie_id {
                self.cie(pos as u64, &mut b)?;
            } else {
                // .eh_frame: the distance back from this field to the CIE.
                let target = match self.eh {
                    true => (id_at as u64).wrapping_sub(id),
                    false => id,
                };
                let Some(&i) = self.cie_index.get(&target) else {
                    return Err(self.err(
                        pos,
                        format!("FDE names CIE offset {target:#x}, where no CIE is"),
                    ));
                };
                self.fde(i, &mut b)?;
            }
            pos = next;
        }
        Ok(())
    }

    fn cie(&mut self, start: u64, b: &mut Body<'_>) -> Step<()> {
        let base = b.base;
        let version = self.at(base, b.c.u8("version"))?;
        let versions: &[u8] = if self.eh { &[1, 3] } else { &[1, 3, 4] };
        if !versions.contains(&version) {
            return Err(self.err(
                start as usize,
                format!("CIE version {version} is not one of {versions:?}"),
            ));
        }
        let aug_start = b.c.pos;
        while self.at(base, b.c.u8("augmentation"))? != 0 {}
        let augmentation = String::from_utf8_lossy(&b.bytes[aug_start..b.c.pos - 1]).into_owned();
        let z = augmentation.starts_with('z');
        if !self.eh && (augmentation.contains('z') || augmentation.contains("eh")) {
            return Err(Stop::Unsupported(
                start,
                format!("CIE augmentation \"{augmentation}\" is not supported in .debug_frame"),
            ));
        }
        if self.eh && !augmentation.is_empty() && !z {
            return Err(Stop::Unsupported(
                start,
                format!("CIE augmentation \"{augmentation}\" without 'z'"),
            ));
        }
        let (address_size, segment_size) = if version >= 4 {
            (
                self.at(base, b.c.u8("address size"))?,
                self.at(base, b.c.u8("segment size"))?,
            )
        } else {
            (self.default_address_size, 0)
        };
        if !matches!(address_size, 1 | 2 | 4 | 8) {
            return Err(self.err(start as usize, format!("address size {address_size}")));
        }
        let code_align = self.at(base, b.c.uleb("code alignment"))?;
        let data_align = self.at(base, b.c.sleb("data alignment"))?;
        let return_register = if version == 1 {
            u64::from(self.at(base, b.c.u8("return register"))?)
        } else {
            self.at(base, b.c.uleb("return register"))?
        };
        let mut at = CieAt {
            offset: start,
            fde_encoding: 0,
            lsda_encoding: OMIT,
            z,
        };
        let mut extra = Vec::new();
        if z {
            let mut d = self.aug_data(b)?;
            for letter in augmentation.bytes().skip(1) {
                let attr = u16::from(letter);
                match letter {
                    b'L' | b'R' => {
                        let e = self.at(d.base, d.c.u8("pointer encoding"))?;
                        match letter {
                            b'L' => at.lsda_encoding = e,
                            _ => at.fde_encoding = e,
                        }
                        extra.push(raw(attr, e, Vec::new()));
                    }
                    b'P' => {
                        let e = self.at(d.base, d.c.u8("personality encoding"))?;
                        let p = self.pointer(&mut d, e, address_size, "personality")?;
                        extra.push(raw(attr, e, p.to_le_bytes().to_vec()));
                    }
                    b'S' | b'B' | b'G' => {}
                    _ => break,
                }
            }
            if !d.c.at_end() {
                extra.push(raw(0, 0, d.c.rest().to_vec()));
            }
        }
        let program_at = base + b.c.pos;
        let initial = self.program(b.c.rest(), address_size, b.offset_size, program_at)?;
        let cie = Cie {
            version,
            augmentation,
            address_size,
            segment_size,
            code_align,
            data_align,
            return_register: u16::try_from(return_register)
                .map_err(|_| self.err(start as usize, "return register out of range"))?,
            eh_frame: self.eh,
            initial,
            extra,
        };
        self.cie_index.entry(at.offset).or_insert(self.cies.len());
        self.cies.push((at, cie));
        Ok(())
    }

    fn fde(&mut self, i: usize, b: &mut Body<'_>) -> Step<()> {
        let (at, cie) = &self.cies[i];
        let (at, address_size) = (*at, cie.address_size);
        let base = b.base;
        let (lo, len) = if self.eh {
            let lo = self.pointer(b, at.fde_encoding, address_size, "initial location")?;
            // The range has the pointer's format, without its application.
            let len = self.pointer(b, at.fde_encoding & 0x0f, address_size, "address range")?;
            (lo, len)
        } else {
            (
                self.at(base, b.c.fixed(address_size, "initial location"))?,
                self.at(base, b.c.fixed(address_size, "address range"))?,
            )
        };
        let mut extra = Vec::new();
        if at.z {
            let mut d = self.aug_data(b)?;
            if at.lsda_encoding != OMIT {
                let e = at.lsda_encoding;
                let p = self.pointer(&mut d, e, address_size, "LSDA")?;
                extra.push(raw(u16::from(b'L'), e, p.to_le_bytes().to_vec()));
            }
            if !d.c.at_end() {
                extra.push(raw(0, 0, d.c.rest().to_vec()));
            }
        }
        let program_at = base + b.c.pos;
        let ops = self.program(b.c.rest(), address_size, b.offset_size, program_at)?;
        let range = CodeRange {
            start: CodePos::Addr(lo),
            end: CodePos::Addr(lo.saturating_add(len)),
        };
        self.fdes.push((i, range, ops, extra));
        Ok(())
    }

    /// A `z` entry's augmentation data (ULEB length, bytes), as a body of its own.
    fn aug_data<'b>(&self, b: &mut Body<'b>) -> Step<Body<'b>> {
        let n = self.at(b.base, b.c.uleb("augmentation length"))?;
        let base = b.base + b.c.pos;
        let data = self.at(b.base, b.c.take(n, "augmentation data"))?;
        Ok(Body {
            bytes: data,
            c: Cursor::new(data),
            base,
            offset_size: b.offset_size,
        })
    }

    /// A DW_EH_PE_* pointer: its format, then its application (absolute or pc-relative, the
    /// field's address the base); an indirect pointer stays the address it points through.
    fn pointer(&self, b: &mut Body<'_>, enc: u8, address_size: u8, what: &str) -> Step<u64> {
        let field = self.address.wrapping_add((b.base + b.c.pos) as u64);
        let at = b.base;
        let sext = |v: u64, bits: u32| ((v << (64 - bits)) as i64 >> (64 - bits)) as u64;
        let v = match enc & 0x0f {
            0x00 => self.at(at, b.c.fixed(address_size, what))?,
            0x01 => self.at(at, b.c.uleb(what))?,
            0x02 => self.at(at, b.c.fixed(2, what))?,
            0x03 => self.at(at, b.c.fixed(4, what))?,
            0x04 | 0x0c => self.at(at, b.c.fixed(8, what))?,
            0x09 => self.at(at, b.c.sleb(what))? as u64,
            0x0a => sext(self.at(at, b.c.fixed(2, what))?, 16),
            0x0b => sext(self.at(at, b.c.fixed(4, what))?, 32),
            f => {
                return Err(Stop::Unsupported(
                    (b.base + b.c.pos) as u64,
                    format!("{what}: pointer format {f:#x} (encoding {enc:#04x})"),
                ))
            }
        };
        let v = match enc & 0x70 {
            0x00 => v,
            0x10 => v.wrapping_add(field),
            app => {
                return Err(Stop::Unsupported(
                    (b.base + b.c.pos) as u64,
                    format!("{what}: pointer application {app:#x} (encoding {enc:#04x})"),
                ))
            }
        };
        Ok(match address_size {
            8 => v,
            n => v & ((1u64 << (8 * u32::from(n))) - 1),
        })
    }

    /// A CIE's or FDE's program, in the current AMD operation encoding or, when only the other
    /// one decodes it completely, in that one (which then becomes the current one).
    fn program(
        &mut self,
        bytes: &[u8],
        address_size: u8,
        offset_size: u8,
        at: usize,
    ) -> Step<Vec<CfaOp>> {
        let enc = |amd| Encoding {
            address_size,
            offset_size,
            amd,
        };
        let first = decode_cfa(bytes, &enc(self.amd), &mut OffsetRefs).map(trim);
        if matches!(&first, Ok(ops) if !has_raw(ops)) {
            return self.at(at, first);
        }
        let other = match self.amd {
            AmdOps::Raw => AmdOps::User,
            AmdOps::User => AmdOps::Raw,
        };
        match decode_cfa(bytes, &enc(other), &mut OffsetRefs).map(trim) {
            Ok(ops) if !has_raw(&ops) => {
                self.amd = other;
                Ok(ops)
            }
            _ => self.at(at, first),
        }
    }
}

/// A program without its trailing DW_CFA_nop: padding (to the address size), not part of it.
fn trim(mut ops: Vec<CfaOp>) -> Vec<CfaOp> {
    let end = ops.iter().rposition(|o| o.code.0 != 0).map_or(0, |i| i + 1);
    ops.truncate(end);
    ops
}

/// Whether a program holds bytes the codec did not decode (a raw instruction or operation).
fn has_raw(ops: &[CfaOp]) -> bool {
    ops.iter().any(|o| {
        o.code == CfaCode::RAW
            || o.args.iter().any(|a| match a {
                Arg::Ops(inner) => inner.iter().any(|op| op.code == OpCode::RAW),
                _ => false,
            })
    })
}

fn raw(attr: u16, form: u8, bytes: Vec<u8>) -> RawAttr {
    RawAttr {
        attr,
        form: u16::from(form),
        bytes,
    }
}
