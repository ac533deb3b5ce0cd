//! Call-frame information → .debug_frame. Each CIE's and FDE's program is encoded by the shared
//! codec (which knows AMD's aspace CFA rules) and handed to gimli as one placeholder
//! instruction that `replace_cfa_placeholders` swaps for the real bytes: gimli has no raw
//! instruction, so each program goes in as a `DW_CFA_val_expression` of a marker register whose
//! block is the program, replaced in the written section by the program and DW_CFA_nop padding
//! (lengths unchanged).

use gimli::write::{
    Address, CallFrameInstruction, CommonInformationEntry, DebugFrame, EndianVec, Expression,
    FrameDescriptionEntry, FrameTable,
};
use gimli::{Encoding, Format, LittleEndian, Register};

use super::builder::{addr, u32_at, uleb_at, Builder, SectionList};
use crate::diag::LossKind;
use crate::dwarf::{encode_cfa, AmdOps, OffsetRefs};
use crate::error::{Error, Result};
use crate::ir::{CfaOp, Ref};

pub(super) struct Frames {
    table: Option<FrameTable>,
}

/// The placeholder gimli writes for a whole program (see `replace_cfa_placeholders`).
fn placeholder(program: Vec<u8>) -> CallFrameInstruction {
    CallFrameInstruction::ValExpression(Register(CFA_MARKER_REG), Expression::raw(program))
}

/// A CIE's or FDE's program without its trailing DW_CFA_nop (padding, which gimli adds itself);
/// None when nothing is left or it cannot be encoded.
fn program(b: &mut Builder, ops: &[CfaOp], place: Ref) -> Option<Vec<u8>> {
    let end = ops.iter().rposition(|o| o.code.0 != 0).map_or(0, |i| i + 1);
    let ops = &ops[..end];
    if ops.is_empty() {
        return None;
    }
    let aspace = ops.iter().any(|o| matches!(o.code.0, 0x30 | 0x31));
    if aspace && !b.s.amd {
        b.loss(
            LossKind::Dropped,
            place,
            "a CFA program with aspace rules (AMD extensions off)",
        );
        return None;
    }
    let enc = crate::dwarf::Encoding {
        address_size: b.s.address_size,
        offset_size: 4,
        amd: AmdOps::Raw,
    };
    match encode_cfa(ops, &enc, &mut OffsetRefs) {
        Ok(v) => Some(v),
        Err(e) => {
            b.loss(LossKind::Dropped, place, format!("CFA program: {e}"));
            None
        }
    }
}

pub(super) fn build(b: &mut Builder) -> Frames {
    let m = b.m;
    if m.cies.is_empty() {
        return Frames { table: None };
    }
    let mut table = FrameTable::default();
    let mut ids = Vec::new();
    for (h, c) in m.cies.iter() {
        let version = match c.version {
            1 | 3 | 4 => u16::from(c.version),
            _ => 4,
        };
        let enc = Encoding {
            format: Format::Dwarf32,
            version,
            address_size: b.s.address_size,
        };
        let (Ok(ca), Ok(da)) = (u8::try_from(c.code_align), i8::try_from(c.data_align)) else {
            b.loss(
                LossKind::Dropped,
                Ref::Cie(h),
                "alignment factors out of range",
            );
            ids.push(None);
            continue;
        };
        if c.eh_frame || !c.augmentation.is_empty() || !c.extra.is_empty() {
            b.loss(
                LossKind::Approximated,
                Ref::Cie(h),
                "written to .debug_frame without augmentation",
            );
        }
        let mut cie = CommonInformationEntry::new(enc, ca, da, Register(c.return_register));
        if !c.initial.is_empty() {
            if let Some(p) = program(b, &c.initial, Ref::Cie(h)) {
                cie.add_instruction(placeholder(p));
            }
        }
        ids.push(Some(table.add_cie(cie)));
    }
    for (h, f) in m.fdes.iter() {
        let Some(Some(cie)) = ids.get(f.cie.index()).copied() else {
            continue;
        };
        let start = addr(f.range.start);
        let len = addr(f.range.end).saturating_sub(start);
        let Ok(len) = u32::try_from(len) else {
            b.loss(LossKind::Dropped, Ref::Fde(h), "range longer than 4 GiB");
            continue;
        };
        let mut fde = FrameDescriptionEntry::new(Address::Constant(start), len);
        if !f.ops.is_empty() {
            if let Some(p) = program(b, &f.ops, Ref::Fde(h)) {
                fde.add_instruction(0, placeholder(p));
            }
        }
        if !f.extra.is_empty() {
            b.loss(LossKind::Dropped, Ref::Fde(h), "FDE augmentation data");
        }
        table.add_fde(cie, fde);
    }
    Frames { table: Some(table) }
}

impl Frames {
    pub(super) fn write(&mut self, out: &mut SectionList) -> Result<()> {
        let Some(table) = &self.table else {
            return Ok(());
        };
        let mut w = DebugFrame(EndianVec::new(LittleEndian));
        table
            .write_debug_frame(&mut w)
            .map_err(|e| Error::unwritable("DWARF", format!(".debug_frame: {e}")))?;
        let mut bytes = w.0.into_vec();
        replace_cfa_placeholders(&mut bytes)
            .map_err(|e| Error::unwritable("DWARF", format!(".debug_frame: {e}")))?;
        out.push((".debug_frame", bytes));
        Ok(())
    }
}

/// The register of the CFA placeholder (no target has it).
const CFA_MARKER_REG: u16 = 0xfff0;
const MARKER: [u8; 4] = [0x16, 0xf0, 0xff, 0x03];

/// Replaces each CFA placeholder (`DW_CFA_val_expression` of [`CFA_MARKER_REG`]) by the program
/// it carries, padded with DW_CFA_nop.
fn replace_cfa_placeholders(frame: &mut [u8]) -> Result<(), String> {
    let mut at = 0usize;
    while at < frame.len() {
        let len = u32_at(frame, at)? as usize;
        let end = at + 4 + len;
        if end > frame.len() {
            return Err(format!("entry at {at} runs past the end"));
        }
        let mut p = at + 4;
        while let Some(i) = frame[p..end].windows(4).position(|w| w == MARKER) {
            let start = p + i;
            let mut q = start + 4;
            let n = uleb_at(frame, &mut q)? as usize;
            if q + n > end {
                p = start + 1;
                continue;
            }
            let program = frame[q..q + n].to_vec();
            let span = q + n - start;
            frame[start..start + n].copy_from_slice(&program);
            frame[start + n..start + span].fill(0); // DW_CFA_nop
            p = start + span;
        }
        at = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cfa_placeholder_becomes_program_and_nops() {
        // length 12: CIE id, then the placeholder with a 2-byte program [0x30 …].
        let mut f = vec![12, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        f.extend_from_slice(&MARKER);
        f.extend_from_slice(&[2, 0x30, 0x41]);
        f.push(0);
        replace_cfa_placeholders(&mut f).unwrap();
        assert_eq!(&f[8..], &[0x30, 0x41, 0, 0, 0, 0, 0, 0]);
    }
}
