//! Decoding of the shim's buffer (see shim/bridge.cpp) into a [`Model`]. The buffer may come
//! from a child process, so every read is bounds-checked and every node reference range-checked.

use crate::model::*;

/// The model buffer's first bytes; the number is the layout's version (2: instruction
/// locations without the opcode name).
pub const MAGIC: &[u8; 8] = b"DWVLLVM2";

/// Where and why the buffer could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub offset: usize,
    pub what: String,
}

struct Rd<'a> {
    b: &'a [u8],
    i: usize,
}

type R<T> = Result<T, WireError>;

impl<'a> Rd<'a> {
    fn err<T>(&self, what: impl Into<String>) -> R<T> {
        Err(WireError {
            offset: self.i,
            what: what.into(),
        })
    }
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        match self.b.get(self.i..self.i.saturating_add(n)) {
            Some(s) if self.i.checked_add(n).is_some() => {
                self.i += n;
                Ok(s)
            }
            _ => self.err(format!("{n} more bytes, found the end")),
        }
    }
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> R<u16> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().unwrap_or_default(),
        ))
    }
    fn u32(&mut self) -> R<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }
    fn u64(&mut self) -> R<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }
    /// A count of items of at least `min` bytes each, checked against what is left.
    fn count(&mut self, min: usize) -> R<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min) > self.b.len() - self.i {
            return self.err(format!(
                "a count of {n} that the rest of the buffer cannot hold"
            ));
        }
        Ok(n)
    }
    fn str(&mut self) -> R<String> {
        let n = self.count(1)?;
        let s = self.take(n)?;
        Ok(String::from_utf8_lossy(s).into_owned())
    }
    /// A node reference: 0 is none, n is node n-1 (checked once the table is complete).
    fn opt_ref(&mut self) -> R<Option<NodeId>> {
        Ok(self.u32()?.checked_sub(1))
    }
    fn refs(&mut self) -> R<Vec<Option<NodeId>>> {
        let n = self.count(4)?;
        (0..n).map(|_| self.opt_ref()).collect()
    }
}

/// Decodes a model buffer.
pub fn decode(b: &[u8]) -> Result<Model, WireError> {
    let mut r = Rd { b, i: 0 };
    if r.take(8)? != MAGIC {
        return Err(WireError {
            offset: 0,
            what: format!("the model magic {}", String::from_utf8_lossy(MAGIC)),
        });
    }
    let nkeys = r.count(4)?;
    let keys: Vec<Key> = (0..nkeys)
        .map(|_| r.str().map(|s| Key::from_wire(&s)))
        .collect::<R<_>>()?;
    let nkinds = r.count(4)?;
    let kinds: Vec<Kind> = (0..nkinds)
        .map(|_| r.str().map(|s| Kind::from_name(&s)))
        .collect::<R<_>>()?;
    let mut m = Model {
        triple: r.str()?,
        source_filename: r.str()?,
        opaque_pointers: r.u8()? != 0,
        ..Model::default()
    };
    // The node and field tables and the instruction locations are reserved for the most the
    // buffer can hold (a node record takes at least 9 bytes, a field 6, a location 9): pages
    // never written are never touched, so this costs no memory, and the tables never move (a
    // doubling vector touches twice its final size).
    m.nodes.recs.reserve(b.len() / 9);
    m.nodes.slots.reserve(b.len() / 6);
    m.locations.reserve(b.len() / 9);
    loop {
        let at = r.i;
        match r.u8()? {
            0 => break,
            0xFF => node(&mut r, &keys, &kinds, &mut m.nodes)?,
            1 => m.compile_units = r.refs()?.into_iter().flatten().collect(),
            6 => m.module_flags = r.refs()?.into_iter().flatten().collect(),
            2 => {
                let name = r.str()?;
                let linkage = r.u8()?;
                let address_space = r.u32()?;
                let is_declaration = r.u8()? != 0;
                let dbg = r.refs()?.into_iter().flatten().collect();
                m.globals.push(Global {
                    name,
                    linkage,
                    address_space,
                    is_declaration,
                    dbg,
                });
            }
            3 => {
                let name = r.str()?;
                let linkage = r.u8()?;
                let is_declaration = r.u8()? != 0;
                let subprogram = r.opt_ref()?;
                let first_inst = r.u32()?;
                let inst_count = r.u32()?;
                m.functions.push(Function {
                    name,
                    linkage,
                    is_declaration,
                    subprogram,
                    first_inst,
                    inst_count,
                    blocks: Vec::new(),
                });
            }
            4 => {
                let inst = r.u32()?;
                let loc = r.opt_ref()?;
                let Some(loc) = loc else {
                    return r.err("an instruction location without a DILocation");
                };
                m.locations.push(InstLoc { inst, loc });
            }
            5 => {
                let kind = match r.str()?.as_str() {
                    "declare" => IntrinsicKind::Declare,
                    "value" => IntrinsicKind::Value,
                    "addr" => IntrinsicKind::Addr,
                    "label" => IntrinsicKind::Label,
                    "assign" => IntrinsicKind::Assign,
                    k => return r.err(format!("an intrinsic kind, found `{k}`")),
                };
                let inst = r.u32()?;
                let loc = r.opt_ref()?;
                let args = r.refs()?;
                m.intrinsics.push(Intrinsic {
                    kind,
                    inst,
                    loc,
                    args,
                });
            }
            7 => m.warnings = Some(r.str()?),
            8 => {
                let n = r.count(4)?;
                let sizes = (0..n).map(|_| r.u32()).collect::<R<Vec<_>>>()?;
                match m.functions.last_mut() {
                    Some(f) if f.blocks.is_empty() => f.blocks = sizes,
                    _ => return r.err("block sizes after their function"),
                }
            }
            t => {
                r.i = at;
                return r.err(format!("a record tag, found {t:#x}"));
            }
        }
    }
    if r.i != b.len() {
        return r.err("the end of the buffer");
    }
    check_refs(&m)?;
    Ok(m)
}

/// A table position as the field table holds it (u32).
fn at(r: &Rd, n: usize) -> R<u32> {
    u32::try_from(n).or_else(|_| r.err("a model whose tables hold fewer than 2^32 entries"))
}

/// A list field's elements (a count, then `width` bytes each) appended to `table`: their start
/// and count there.
fn list<'a, T>(
    r: &mut Rd<'a>,
    table: &mut Vec<T>,
    width: usize,
    read: fn(&mut Rd<'a>) -> R<T>,
) -> R<(u32, u32)> {
    let len = r.count(width)?;
    let start = table.len();
    for _ in 0..len {
        table.push(read(r)?);
    }
    Ok((at(r, start)?, at(r, len)?))
}

/// One node record, appended to the tables.
fn node(r: &mut Rd, keys: &[Key], kinds: &[Kind], t: &mut Nodes) -> R<()> {
    let kind = r.u8()? as usize;
    let kind = match kinds.get(kind) {
        Some(k) => *k,
        None => return r.err(format!("a node kind below {}, found {kind}", kinds.len())),
    };
    let distinct = r.u8()? != 0;
    let tag = r.u16()?;
    let n = r.count(2)?;
    let first = at(r, t.slots.len())?;
    t.recs.push(Rec {
        kind,
        distinct,
        tag,
        first,
    });
    t.slots.reserve(n);
    for _ in 0..n {
        let k = r.u8()? as usize;
        let key = match keys.get(k) {
            Some(k) => *k,
            None => return r.err(format!("a field key below {}, found {k}", keys.len())),
        };
        let ty = r.u8()?;
        let (a, b) = match ty {
            INT => {
                let v = r.u64()?;
                (v as u32, (v >> 32) as u32)
            }
            STR => {
                let len = r.count(1)?;
                let start = t.strings.len();
                t.strings.push_str(&String::from_utf8_lossy(r.take(len)?));
                (at(r, start)?, at(r, t.strings.len() - start)?)
            }
            REF => match r.opt_ref()? {
                Some(n) => (n, 0),
                None => return r.err("a node reference, found none"),
            },
            REFS => list(r, &mut t.refs, 4, Rd::opt_ref)?,
            OPS => list(r, &mut t.ops, 8, Rd::u64)?,
            t => return r.err(format!("a field type 0..=4, found {t}")),
        };
        t.slots.push(Slot { key, ty, a, b });
    }
    Ok(())
}

/// Every node reference names a node of the table.
fn check_refs(m: &Model) -> R<()> {
    let n = m.nodes.len() as u32;
    let bad = |what: String| {
        Err(WireError {
            offset: 0,
            what: format!("{what} refers to a node past the {n} of the table"),
        })
    };
    let ok = |id: &NodeId| *id < n;
    let ok_opt = |id: &Option<NodeId>| id.is_none_or(|i| i < n);
    for (i, node) in m.nodes.iter().enumerate() {
        for (k, f) in node.fields() {
            let good = match f {
                Field::Ref(id) => ok(&id),
                Field::Refs(v) => v.iter().all(ok_opt),
                _ => true,
            };
            if !good {
                return bad(format!("node {i} field {}", k.name()));
            }
        }
    }
    let lists = [&m.compile_units, &m.module_flags];
    if !lists.iter().all(|l| l.iter().all(ok))
        || !m.globals.iter().all(|g| g.dbg.iter().all(ok))
        || !m.functions.iter().all(|f| ok_opt(&f.subprogram))
        || !m.locations.iter().all(|l| ok(&l.loc))
        || !m
            .intrinsics
            .iter()
            .all(|x| ok_opt(&x.loc) && x.args.iter().all(ok_opt))
    {
        return bad("a module record".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of one node with a field of each type, then the end.
    fn one_node() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        let str = |b: &mut Vec<u8>, s: &str| {
            b.extend((s.len() as u32).to_le_bytes());
            b.extend(s.as_bytes());
        };
        let keys = ["line", "name", "scope", "elements", "value"];
        b.extend((keys.len() as u32).to_le_bytes());
        keys.iter().for_each(|k| str(&mut b, k));
        b.extend(1u32.to_le_bytes());
        str(&mut b, "DILocalVariable");
        str(&mut b, "spir64");
        str(&mut b, "a.cl");
        b.push(0);
        b.extend([0xFF, 0, 1]);
        b.extend(0x34u16.to_le_bytes());
        b.extend(5u32.to_le_bytes());
        b.extend([0, 0]);
        b.extend((-(1i64 << 40)).to_le_bytes());
        b.extend([1, 1]);
        str(&mut b, "x\u{e9}");
        b.extend([2, 2]);
        b.extend(1u32.to_le_bytes());
        b.extend([3, 3]);
        b.extend(2u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend([4, 4]);
        b.extend(1u32.to_le_bytes());
        b.extend(u64::MAX.to_le_bytes());
        b.push(0);
        b
    }

    #[test]
    fn node_fields_read_back_from_the_tables() {
        let m = decode(&one_node()).unwrap();
        assert_eq!(m.nodes.len(), 1);
        let n = m.node(0);
        assert_eq!(
            (n.kind, n.distinct, n.tag),
            (Kind::DILocalVariable, true, 0x34)
        );
        assert_eq!(n.int(Key::line), Some(-(1i64 << 40)));
        assert_eq!(n.str(Key::name), Some("x\u{e9}"));
        assert_eq!(n.node(Key::scope), Some(0));
        assert_eq!(n.refs(Key::elements), Some(&[None, Some(0)][..]));
        assert_eq!(n.ops(Key::value), Some(&[u64::MAX][..]));
        assert_eq!(n.fields().count(), 5);
    }

    #[test]
    fn a_reference_past_the_table_is_refused() {
        let mut b = one_node();
        // The `scope:` reference (node 1 + 1) names a second node that does not exist.
        let at = b.windows(6).position(|w| w == [2, 2, 1, 0, 0, 0]).unwrap();
        b[at + 2] = 2;
        let e = decode(&b).unwrap_err();
        assert!(e.what.contains("node 0 field scope"), "{}", e.what);
    }
}
