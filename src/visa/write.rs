//! The encoder: the exact inverse of the decoder. It fails only when a count does not fit its
//! field or a memory offset its 31 bits.

use super::*;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("object {object}: {message}")]
pub struct EncodeError {
    pub object: usize,
    pub message: String,
}

pub fn encode(t: &Tables) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer {
        out: Vec::new(),
        object: 0,
    };
    w.out.extend_from_slice(&MAGIC.to_le_bytes());
    w.count16(t.objects.len(), "compiled objects")?;
    for (i, o) in t.objects.iter().enumerate() {
        w.object = i;
        w.object_(o)?;
    }
    Ok(w.out)
}

struct Writer {
    out: Vec<u8>,
    object: usize,
}

impl Writer {
    fn err(&self, message: String) -> EncodeError {
        EncodeError {
            object: self.object,
            message,
        }
    }
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    fn count16(&mut self, n: usize, what: &str) -> Result<(), EncodeError> {
        let v = u16::try_from(n).map_err(|_| self.err(format!("{n} {what} do not fit a uw")))?;
        self.u16(v);
        Ok(())
    }
    fn count32(&mut self, n: usize, what: &str) -> Result<(), EncodeError> {
        let v = u32::try_from(n).map_err(|_| self.err(format!("{n} {what} do not fit a ud")))?;
        self.u32(v);
        Ok(())
    }
    fn name(&mut self, s: &str) -> Result<(), EncodeError> {
        self.count16(s.len(), "name bytes")?;
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }
    fn memory(&mut self, m: Memory) -> Result<(), EncodeError> {
        if !(Memory::MIN_OFFSET..=Memory::MAX_OFFSET).contains(&m.offset) {
            return Err(self.err(format!(
                "memory offset {} does not fit 31 signed bits",
                m.offset
            )));
        }
        self.u32(m.to_word());
        Ok(())
    }
    fn reg(&mut self, num: u16, sub: u16) {
        self.u16(num);
        self.u16(sub);
    }

    fn object_(&mut self, o: &Object) -> Result<(), EncodeError> {
        self.name(&o.name)?;
        self.u32(o.reloc_offset);
        self.map(&o.offset_map)?;
        self.map(&o.index_map)?;
        self.count32(o.vars.len(), "variables")?;
        for v in &o.vars {
            self.name(&v.name)?;
            self.intervals(&v.intervals, |w, b| w.u16(b))?;
        }
        self.count16(o.subs.len(), "subroutines")?;
        for s in &o.subs {
            self.name(&s.name)?;
            self.u32(s.start);
            self.u32(s.end);
            self.intervals(&s.ret_val, |w, b| w.u32(b))?;
        }
        let f = &o.frame;
        self.u16(f.size);
        for list in [&f.befp, &f.caller_befp, &f.ret_addr] {
            self.u8(list.is_some() as u8);
            if let Some(l) = list {
                self.intervals(l, |w, b| w.u32(b))?;
            }
        }
        self.saves(&f.callee_saves)?;
        self.saves(&f.caller_saves)
    }

    fn map(&mut self, m: &[MapEntry]) -> Result<(), EncodeError> {
        self.count32(m.len(), "mapping entries")?;
        for e in m {
            self.u32(e.visa);
            self.u32(e.gen);
        }
        Ok(())
    }

    fn intervals<T: Copy>(
        &mut self,
        l: &[Interval<T>],
        bound: impl Fn(&mut Self, T),
    ) -> Result<(), EncodeError> {
        self.count16(l.len(), "live intervals")?;
        for i in l {
            bound(self, i.start);
            bound(self, i.end);
            self.u8(i.virt as u8);
            match i.loc {
                Storage::Reg { file, num, sub } => {
                    self.u8(file as u8);
                    self.reg(num, sub);
                }
                Storage::Mem(m) => {
                    self.u8(3);
                    self.memory(m)?;
                }
            }
        }
        Ok(())
    }

    fn saves(&mut self, l: &[SaveAtIp]) -> Result<(), EncodeError> {
        self.count16(l.len(), "save entries")?;
        for s in l {
            self.u32(s.gen_ip);
            self.count16(s.entries.len(), "register mappings")?;
            for e in &s.entries {
                self.u16(e.src_reg_off);
                self.u16(e.num_bytes);
                match e.dst {
                    SaveDst::Reg { num, sub } => {
                        self.u8(1);
                        self.reg(num, sub);
                    }
                    SaveDst::Mem(m) => {
                        self.u8(0);
                        self.memory(m)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Encodes a save table on its own (count included).
pub(crate) fn encode_saves(l: &[SaveAtIp], object: usize) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer {
        out: Vec::new(),
        object,
    };
    w.saves(l)?;
    Ok(w.out)
}
