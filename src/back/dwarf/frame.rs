//! Call-frame information → `.debug_frame` and `.eh_frame`, written byte by byte: each CIE's and
//! FDE's program is encoded by the shared codec (which knows AMD's aspace CFA rules, in the
//! output's AMD operation encoding) as the IR holds it, its DW_CFA_nop padding included, and the
//! entry is padded to 4 bytes only where an IR made elsewhere needs it; so CFI read from DWARF
//! comes back byte for byte. (gimli's writer has no raw instruction and orders augmentation
//! letters its own way.)
//!
//! CIEs read from `.eh_frame` (and their FDEs) go back to `.eh_frame`: the augmentation string as
//! read, its data from the entries' `extra` (see `front::dwarf::frame`), pointers in their
//! recorded DW_EH_PE_* encoding, pc-relative to the section at address 0. The others go to
//! `.debug_frame` (versions 1, 3, 4; no augmentation). Each section lists its CIEs first, then
//! the FDEs, in IR order (the reader gives them back in that order).

use super::builder::{addr, OpEncoding, SectionList, Settings};
use crate::diag::{Diagnostics, LossKind};
use crate::dwarf::bytes::{put_fixed, put_sleb, put_uleb};
use crate::dwarf::{encode_cfa, AmdOps, OffsetRefs};
use crate::error::Result;
use crate::ir::{CfaCode, CfaOp, Cie, Fde, Handle, Module, RawAttr, Ref};

pub(super) struct Frames {
    debug_frame: Option<Vec<u8>>,
    eh_frame: Option<Vec<u8>>,
}

/// What the frame sections are written from: they depend on nothing else the writer makes, so
/// they are written before the DIEs (and an owned module's CFI freed).
struct FrameWriter<'a> {
    m: &'a Module,
    s: &'a Settings,
    diags: &'a mut Diagnostics,
}

impl FrameWriter<'_> {
    fn loss(&mut self, kind: LossKind, place: Ref, msg: impl Into<String>) {
        super::builder::push_loss(self.diags, kind, place, msg);
    }
    /// A loss an option caused (`Loss::avoidable`).
    fn avoidable_loss(&mut self, kind: LossKind, place: Ref, msg: impl Into<String>) {
        super::builder::push_loss(self.diags, kind, place, msg).avoidable();
    }
}

/// A CIE's or FDE's program (empty for none); None when it cannot be encoded.
fn program(b: &mut FrameWriter, ops: &[CfaOp], place: Ref) -> Option<Vec<u8>> {
    if ops.is_empty() {
        return Some(Vec::new());
    }
    let aspace = ops.iter().any(|o| matches!(o.code.0, 0x30 | 0x31));
    if aspace && !b.s.amd {
        b.avoidable_loss(
            LossKind::Dropped,
            place,
            "a CFA program with aspace rules (AMD extensions off)",
        );
        return None;
    }
    let enc = crate::dwarf::Encoding {
        address_size: b.s.address_size,
        offset_size: 4,
        amd: match b.s.op_encoding {
            OpEncoding::Raw => AmdOps::Raw,
            OpEncoding::User => AmdOps::User,
        },
    };
    match encode_cfa(ops, &enc, &mut OffsetRefs) {
        Ok(v) => Some(v),
        Err(e) => {
            b.loss(LossKind::Dropped, place, format!("CFA program: {e}"));
            None
        }
    }
}

pub(super) fn build(m: &Module, s: &Settings, diags: &mut Diagnostics) -> Frames {
    let b = &mut FrameWriter { m, s, diags };
    let eh = m
        .cies
        .values()
        .any(|c| c.eh_frame)
        .then(|| section(b, true));
    let debug = m
        .cies
        .values()
        .any(|c| !c.eh_frame)
        .then(|| section(b, false));
    Frames {
        debug_frame: debug,
        eh_frame: eh,
    }
}

impl Frames {
    pub(super) fn write(&mut self, out: &mut SectionList) -> Result<()> {
        if let Some(d) = self.debug_frame.take() {
            out.push((".debug_frame", d));
        }
        if let Some(eh) = self.eh_frame.take() {
            out.push((".eh_frame", eh));
        }
        Ok(())
    }
}

/// The `.eh_frame` (`eh`) or `.debug_frame` of the CIEs read from one and their FDEs. What
/// cannot be said is dropped with a loss.
fn section(b: &mut FrameWriter, eh: bool) -> Vec<u8> {
    let m = b.m;
    let mut out = Vec::new();
    let mut at: Vec<Option<usize>> = Vec::new();
    let name = if eh { ".eh_frame" } else { ".debug_frame" };
    for (h, c) in m.cies.iter() {
        at.push(None);
        if c.eh_frame != eh {
            continue;
        }
        let start = out.len();
        match cie(b, c, h, eh, &mut out) {
            Ok(()) => at[h.index()] = Some(start),
            Err(why) => {
                out.truncate(start);
                b.loss(LossKind::Dropped, Ref::Cie(h), format!("{name} CIE: {why}"));
            }
        }
    }
    for (h, f) in m.fdes.iter() {
        let c = m.cies.get(f.cie);
        if c.eh_frame != eh {
            continue;
        }
        let Some(cie_at) = at[f.cie.index()] else {
            b.loss(
                LossKind::Dropped,
                Ref::Fde(h),
                "its CIE could not be written",
            );
            continue;
        };
        let start = out.len();
        if let Err(why) = fde(b, (c, cie_at), f, h, eh, &mut out) {
            out.truncate(start);
            b.loss(LossKind::Dropped, Ref::Fde(h), format!("{name} FDE: {why}"));
        }
    }
    out
}

/// Appends one entry: the length, then `body` (which writes from the CIE id or pointer on),
/// padded with DW_CFA_nop to a multiple of `align` bytes (the address size, as compilers pad).
/// A program ending in bytes the codec keeps raw (undecodable) takes that padding in when read
/// back: said as approximated at `place`.
fn entry(
    b: &mut FrameWriter,
    out: &mut Vec<u8>,
    (ops, place): (&[CfaOp], Ref),
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), String>,
) -> Result<(), String> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    body(out)?;
    let body_end = out.len();
    while (out.len() - start) % usize::from(b.s.address_size.max(4)) != 0 {
        out.push(0);
    }
    if out.len() > body_end && ops.last().is_some_and(|op| op.code == CfaCode::RAW) {
        b.loss(
            LossKind::Approximated,
            place,
            format!(
                "a program ending in undecodable bytes: the {} byte(s) of DW_CFA_nop padding after them read back as part of them",
                out.len() - body_end
            ),
        );
    }
    let len = u32::try_from(out.len() - start - 4).map_err(|_| "longer than 4 GiB")?;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

fn cie(
    b: &mut FrameWriter,
    c: &Cie,
    h: Handle<Cie>,
    eh: bool,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let versions: &[u8] = if eh { &[1, 3] } else { &[1, 3, 4] };
    let version = match c.version {
        v if versions.contains(&v) => v,
        v => {
            let to = versions[versions.len() - 1];
            b.loss(
                LossKind::Approximated,
                Ref::Cie(h),
                format!("CIE version {v} written as {to}"),
            );
            to
        }
    };
    let augmentation = match eh {
        true => c.augmentation.as_str(),
        false if c.augmentation.is_empty() && c.extra.is_empty() => "",
        false => {
            b.loss(
                LossKind::Approximated,
                Ref::Cie(h),
                "written to .debug_frame without augmentation",
            );
            ""
        }
    };
    let initial = program(b, &c.initial, Ref::Cie(h)).ok_or("its program")?;
    let address_size = match version {
        4 => c.address_size,
        _ => b.s.address_size,
    };
    entry(b, out, (&c.initial, Ref::Cie(h)), |out| {
        put_fixed(out, if eh { 0 } else { 0xffff_ffff }, 4);
        out.push(version);
        out.extend_from_slice(augmentation.as_bytes());
        out.push(0);
        if version == 4 {
            out.extend_from_slice(&[address_size, c.segment_size]);
        }
        put_uleb(out, c.code_align);
        put_sleb(out, c.data_align);
        match version {
            1 => out.push(u8::try_from(c.return_register).map_err(|_| "return register")?),
            _ => put_uleb(out, u64::from(c.return_register)),
        }
        if augmentation.starts_with('z') {
            let mut extra = c.extra.iter().peekable();
            let mut data = Vec::new();
            for letter in augmentation.bytes().skip(1) {
                if !matches!(letter, b'L' | b'P' | b'R') {
                    continue;
                }
                let Some(x) = extra.next_if(|x| x.attr == u16::from(letter)) else {
                    return Err(format!("no data for augmentation '{}'", letter as char));
                };
                let e = u8::try_from(x.form).map_err(|_| "pointer encoding")?;
                data.push(e);
                if letter == b'P' {
                    // The field follows the (one-byte) length and what precedes it.
                    let field = out.len() + 1 + data.len();
                    eh_pointer(&mut data, x, e, address_size, field)?;
                }
            }
            aug_data(out, &mut extra, data)?;
        } else if eh && !c.extra.is_empty() {
            return Err("augmentation data without 'z'".into());
        }
        out.extend_from_slice(&initial);
        Ok(())
    })
}

fn fde(
    b: &mut FrameWriter,
    (c, cie_at): (&Cie, usize),
    f: &Fde,
    h: Handle<Fde>,
    eh: bool,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let ops = program(b, &f.ops, Ref::Fde(h)).ok_or("its program")?;
    let address_size = match (eh, c.version) {
        (false, 4) => c.address_size,
        _ => b.s.address_size,
    };
    let encoding = |letter: u8| {
        c.extra
            .iter()
            .find(|x| x.attr == u16::from(letter))
            .and_then(|x| u8::try_from(x.form).ok())
    };
    let z = eh && c.augmentation.starts_with('z');
    let fde_enc = if eh { encoding(b'R').unwrap_or(0) } else { 0 };
    let lsda = encoding(b'L').filter(|&e| z && e != 0xff);
    let start = addr(f.range.start);
    let len = addr(f.range.end).saturating_sub(start);
    if address_size < 8 && (start | len) >> (8 * u32::from(address_size)) != 0 {
        return Err(format!("range beyond {address_size}-byte addresses"));
    }
    if !z && !f.extra.is_empty() {
        b.loss(LossKind::Dropped, Ref::Fde(h), "FDE augmentation data");
    }
    entry(b, out, (&f.ops, Ref::Fde(h)), |out| {
        let id = match eh {
            true => out.len() - cie_at,
            false => cie_at,
        };
        put_fixed(out, id as u64, 4);
        let field = out.len();
        let pointer = |v: u64| RawAttr {
            attr: 0,
            form: 0,
            bytes: v.to_le_bytes().to_vec(),
        };
        eh_pointer(out, &pointer(start), fde_enc, address_size, field)?;
        eh_pointer(out, &pointer(len), fde_enc & 0x0f, address_size, 0)?;
        if z {
            let mut extra = f.extra.iter().peekable();
            let mut data = Vec::new();
            if let Some(e) = lsda {
                let Some(x) = extra.next_if(|x| x.attr == u16::from(b'L')) else {
                    return Err("no LSDA for a CIE with an LSDA encoding".into());
                };
                let field = out.len() + 1;
                eh_pointer(&mut data, x, e, address_size, field)?;
            }
            aug_data(out, &mut extra, data)?;
        }
        out.extend_from_slice(&ops);
        Ok(())
    })
}

/// Appends augmentation data (ULEB length, `data`, the bytes dwarv did not interpret); every
/// other extra left is an error.
fn aug_data<'a>(
    out: &mut Vec<u8>,
    extra: &mut std::iter::Peekable<impl Iterator<Item = &'a RawAttr>>,
    mut data: Vec<u8>,
) -> Result<(), String> {
    if let Some(x) = extra.next_if(|x| x.attr == 0) {
        data.extend_from_slice(&x.bytes);
    }
    if let Some(x) = extra.next() {
        return Err(format!("augmentation data {:#x} out of place", x.attr));
    }
    if data.len() >= 0x80 {
        return Err("augmentation data of 128 bytes or more".into());
    }
    put_uleb(out, data.len() as u64);
    out.extend_from_slice(&data);
    Ok(())
}

/// Appends the pointer `x.bytes` (8 bytes little-endian) in the DW_EH_PE_* encoding `e`, at
/// section offset `field` (the section is at address 0).
fn eh_pointer(
    out: &mut Vec<u8>,
    x: &RawAttr,
    e: u8,
    address_size: u8,
    field: usize,
) -> Result<(), String> {
    let v = x
        .bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
        .ok_or("a pointer of 8 bytes")?;
    let v = match e & 0x70 {
        0x00 => v,
        0x10 => v.wrapping_sub(field as u64),
        _ => return Err(format!("pointer encoding {e:#04x}")),
    };
    let signed = v as i64;
    let fits = |bits: u32| (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&signed);
    let ufits = |bits: u32| v < (1u64 << bits);
    match e & 0x0f {
        0x00 => put_fixed(out, v, address_size),
        0x01 => put_uleb(out, v),
        0x02 if ufits(16) => put_fixed(out, v, 2),
        0x03 if ufits(32) || fits(32) => put_fixed(out, v & 0xffff_ffff, 4),
        0x04 | 0x0c => put_fixed(out, v, 8),
        0x09 => put_sleb(out, signed),
        0x0a if fits(16) => put_fixed(out, v & 0xffff, 2),
        0x0b if fits(32) => put_fixed(out, v & 0xffff_ffff, 4),
        _ => return Err(format!("pointer {v:#x} in encoding {e:#04x}")),
    }
    Ok(())
}
