//! IR → vISA debug tables: the inverse of `front::visa` for IR that came from tables. Objects,
//! subroutines, variables and frames are read back from the function scopes, location lists,
//! frame bases and FDEs the reader made, with the vendor attributes it left (docs/visa.md);
//! anything else in the IR has no place in the tables and is reported as dropped.

mod loc;

use crate::diag::{Counted, Diagnostics, LossKind};
use crate::error::{Error, Result};
use crate::ir::verify::Verified;
use crate::ir::{
    verify::describe, CodePos, CodeRange, Fde, FunctionInfo, Handle, Location, Module, RawAttr,
    Ref, Scope, ScopeKind,
};
use crate::spec::visa as sv;
use crate::visa::{self, Frame, Interval, MapEntry, Object, Subroutine, Tables, Var, VirtType};

type R<T> = std::result::Result<T, String>;

/// Writes the tables of a module read from vISA tables, with what the tables cannot hold.
pub fn write(m: &Verified) -> Result<(Vec<u8>, Diagnostics)> {
    let tables = raise(m).map_err(|e| Error::unwritable("vISA tables", e))?;
    let bytes =
        visa::encode(&tables).map_err(|e| Error::unwritable("vISA tables", e.to_string()))?;
    Ok((bytes, dropped(m)))
}

/// What the tables have no place for (they carry no types, units but the objects' own, lines or
/// source positions).
fn dropped(m: &Module) -> Diagnostics {
    let mut d = Diagnostics::default();
    let counts = [
        (foreign_units(m), "unit", None),
        (m.files.len(), "file", None),
        (m.types.len(), "type", Some(Counted::Types)),
        (m.lines.len(), "line row", Some(Counted::LineRows)),
        (m.scope_runs.len(), "scope run", None),
        (m.events.len(), "declare/value event", None),
        (m.macros.len(), "macro", None),
        (m.imports.len(), "import", None),
    ];
    for (n, what, counted) in counts.into_iter().filter(|(n, _, _)| *n > 0) {
        let loss = d.push_written(
            LossKind::Dropped,
            "module",
            format!("{n} {what}(s): vISA tables hold none"),
        );
        if let Some(counted) = counted {
            loss.leaves_out(counted, n);
        }
    }
    d
}

fn attr(extra: &[RawAttr], at: u16) -> Option<&[u8]> {
    extra
        .iter()
        .find(|a| a.attr == at && a.form == sv::FORM_BLOCK)
        .map(|a| a.bytes.as_slice())
}

fn function(s: &Scope) -> Option<&FunctionInfo> {
    match &s.kind {
        ScopeKind::Function(f) => Some(f),
        _ => None,
    }
}

fn addr(p: CodePos) -> R<u64> {
    match p {
        CodePos::Addr(a) => Ok(a),
        CodePos::Spirv(_) => Err("a SPIR-V position where a Gen address is expected".into()),
        CodePos::Llvm(_) => {
            Err("an LLVM instruction number where a Gen address is expected".into())
        }
    }
}

fn map(bytes: &[u8]) -> R<Vec<MapEntry>> {
    if bytes.len() % 8 != 0 {
        return Err("a mapping table is not a whole number of 8-byte entries".into());
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| MapEntry {
            visa: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            gen: u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
        })
        .collect())
}

fn virt(b: u8) -> R<VirtType> {
    VirtType::ALL
        .get(b as usize)
        .copied()
        .ok_or_else(|| format!("virtual type {b} is not 0, 1 or 2"))
}

/// A Gen interval relative to the object's reloc offset; the range `[start, end + 1)` is the
/// interval inclusive of the instruction at `end`.
fn gen_interval(reloc: u64, r: &CodeRange, v: u8, loc: visa::Storage) -> R<Interval<u32>> {
    let rel = |p, past: u64| {
        addr(p)?
            .checked_sub(reloc + past)
            .and_then(|a| u32::try_from(a).ok())
            .ok_or_else(|| "a Gen address is outside the object's 32-bit offsets".to_string())
    };
    Ok(Interval {
        start: rel(r.start, 0)?,
        end: rel(r.end, 1)?,
        virt: virt(v)?,
        loc,
    })
}

struct Raise<'a> {
    m: &'a Module,
    fdes: std::slice::Iter<'a, Fde>,
}

fn raise(m: &Module) -> R<Tables> {
    let mut r = Raise {
        m,
        fdes: m.fdes.values(),
    };
    let mut objects = Vec::new();
    for (h, s) in m.scopes.iter() {
        let place = || describe(m, Ref::Scope(h));
        match (function(s), s.parent) {
            (Some(_), None | Some(Ref::Unit(_))) => {
                objects.push(r.object(h, s).map_err(|e| format!("{}: {e}", place()))?)
            }
            (Some(_), Some(Ref::Scope(p))) if objects_parent(m, p) => {}
            _ => return Err(format!("{}: not a compiled object or subroutine", place())),
        }
    }
    if r.fdes.next().is_some() {
        return Err("more FDEs than compiled objects and subroutines".into());
    }
    for (h, v) in m.vars.iter() {
        let ok = matches!(v.scope, Some(Ref::Scope(s)) if objects_parent(m, s));
        if !ok {
            return Err(format!(
                "{}: not a variable of a compiled object",
                describe(m, Ref::Var(h))
            ));
        }
    }
    Ok(Tables { objects })
}

fn fde_program(fde: &Fde) -> R<loc::Program> {
    let order = attr(&fde.extra, sv::AT_CFA_ORDER).ok_or("no CFA order attribute")?;
    loc::program(&fde.ops, order)
}

fn objects_parent(m: &Module, p: Handle<Scope>) -> bool {
    m.scopes
        .try_get(p)
        .is_some_and(|s| matches!(s.parent, None | Some(Ref::Unit(_))))
}

/// How many units are not an object's own unit as the reader makes them (`object_unit` of the
/// object's code range): those hold something the tables cannot.
fn foreign_units(m: &Module) -> usize {
    let mut own = vec![false; m.units.len()];
    for s in m.scopes.values() {
        if let (Some(f), Some(Ref::Unit(u))) = (function(s), s.parent) {
            let made = f
                .ranges
                .first()
                .map(|r| crate::visa::forms::object_unit(*r));
            if m.units.try_get(u).is_some() && made.as_ref() == Some(m.units.get(u)) {
                own[u.index()] = true;
            }
        }
    }
    own.iter().filter(|o| !**o).count()
}

impl<'a> Raise<'a> {
    fn next_fde(&mut self, range: Option<&CodeRange>) -> R<&'a Fde> {
        let f = self.fdes.next().ok_or("its FDE is missing")?;
        if Some(&f.range) != range {
            return Err("the next FDE does not cover its code range".into());
        }
        Ok(f)
    }

    fn list(&self, l: Option<Location>) -> R<Vec<(CodeRange, visa::Storage)>> {
        let Some(Location::List(h)) = l else {
            return Err("its location is not a location list".into());
        };
        let list = self
            .m
            .loclists
            .try_get(h)
            .ok_or("a dangling location list")?;
        list.entries
            .iter()
            .map(|e| {
                let range = e.range.ok_or("a default location-list entry")?;
                let expr = self
                    .m
                    .exprs
                    .try_get(e.expr)
                    .ok_or("a dangling expression")?;
                Ok((range, loc::storage(&expr.ops)?))
            })
            .collect()
    }

    fn object(&mut self, h: Handle<Scope>, s: &Scope) -> R<Object> {
        let info = function(s).ok_or("not a function")?;
        let code = info.ranges.first();
        let reloc = addr(code.ok_or("no code range")?.start)?;
        let reloc_offset = u32::try_from(reloc).map_err(|_| "reloc offset above 4 GiB")?;
        let need = |at, what: &str| attr(&s.extra, at).ok_or(format!("no {what} attribute"));
        let offset_map = map(need(sv::AT_OFFSET_MAP, "offset-map")?)?;
        let index_map = map(need(sv::AT_INDEX_MAP, "index-map")?)?;
        let fb = need(sv::AT_FRAME, "frame")?;
        if fb.len() < 5 {
            return Err("the frame attribute is shorter than 5 bytes".into());
        }
        let mut virts = fb[5..].iter().copied();
        let mut next_virt = || {
            virts
                .next()
                .ok_or("the frame attribute lacks virtual types")
        };

        let fde = self.next_fde(code)?;
        let prog = fde_program(fde).map_err(|e| format!("its FDE: {e}"))?;
        let mut lists: [Vec<Interval<u32>>; 3] = Default::default();
        if fb[2] == 1 || fb[3] == 1 || fb[4] == 1 || info.frame_base.is_some() {
            if fb[2] == 1 {
                for (r, l) in self.list(info.frame_base)? {
                    lists[0].push(gen_interval(reloc, &r, next_virt()?, l)?);
                }
            }
            for column in [sv::BEFP_COLUMN, sv::RA_COLUMN] {
                for rule in prog.rules.iter().filter(|r| r.column == column) {
                    let range = CodeRange {
                        start: CodePos::Addr(rule.start),
                        end: CodePos::Addr(rule.end),
                    };
                    let i = gen_interval(reloc, &range, next_virt()?, rule.loc)?;
                    lists[if column == sv::RA_COLUMN { 2 } else { 1 }].push(i);
                }
            }
        }
        if virts.next().is_some() {
            return Err("the frame attribute has more virtual types than intervals".into());
        }
        let [befp, caller_befp, ret_addr] = lists;
        let valid = |i: usize, l: Vec<Interval<u32>>| -> R<Option<Vec<Interval<u32>>>> {
            match fb[i] {
                1 => Ok(Some(l)),
                0 if l.is_empty() => Ok(None),
                _ => Err(format!(
                    "frame list {} has intervals but is not valid",
                    i - 2
                )),
            }
        };
        if fb[2] == 0 && info.frame_base.is_some() {
            return Err("a frame base without a valid BE_FP".into());
        }
        let mut callee_saves = Vec::new();
        for (ip, entries) in prog.saves {
            let gen_ip = ip
                .checked_sub(reloc)
                .and_then(|a| u32::try_from(a).ok())
                .ok_or("a callee-save IP outside the object")?;
            callee_saves.push(visa::SaveAtIp { gen_ip, entries });
        }
        let caller =
            attr(&fde.extra, sv::AT_CALLER_SAVES).ok_or("its FDE has no caller-save table")?;
        let caller_saves = visa::decode_saves(caller).map_err(|e| e.to_string())?;
        let frame = Frame {
            size: u16::from_le_bytes([fb[0], fb[1]]),
            befp: valid(2, befp)?,
            caller_befp: valid(3, caller_befp)?,
            ret_addr: valid(4, ret_addr)?,
            callee_saves,
            caller_saves,
        };
        let vars = self.vars(h)?;
        let subs = self.subs(h, reloc)?;
        Ok(Object {
            name: s.name.clone().unwrap_or_default(),
            reloc_offset,
            offset_map,
            index_map,
            vars,
            subs,
            frame,
        })
    }

    fn vars(&self, obj: Handle<Scope>) -> R<Vec<Var>> {
        let mut out = Vec::new();
        for (h, v) in self
            .m
            .vars
            .iter()
            .filter(|(_, v)| v.scope == Some(Ref::Scope(obj)))
        {
            let place = || describe(self.m, Ref::Var(h));
            let raw = attr(&v.extra, sv::AT_VAR_INTERVALS)
                .ok_or_else(|| format!("{}: no vISA interval attribute", place()))?;
            let entries = self
                .list(v.location)
                .map_err(|e| format!("{}: {e}", place()))?;
            if raw.len() != entries.len() * 5 {
                return Err(format!(
                    "{}: {} location-list entries but {} bytes of vISA intervals",
                    place(),
                    entries.len(),
                    raw.len()
                ));
            }
            let mut intervals = Vec::with_capacity(entries.len());
            for ((_, loc), c) in entries.into_iter().zip(raw.chunks_exact(5)) {
                intervals.push(Interval {
                    start: u16::from_le_bytes([c[0], c[1]]),
                    end: u16::from_le_bytes([c[2], c[3]]),
                    virt: virt(c[4]).map_err(|e| format!("{}: {e}", place()))?,
                    loc,
                });
            }
            out.push(Var {
                name: v.name.clone().unwrap_or_default(),
                intervals,
            });
        }
        Ok(out)
    }

    fn subs(&mut self, obj: Handle<Scope>, reloc: u64) -> R<Vec<Subroutine>> {
        let mut out = Vec::new();
        let m = self.m;
        for (h, s) in m
            .scopes
            .iter()
            .filter(|(_, s)| s.parent == Some(Ref::Scope(obj)))
        {
            let place = || describe(m, Ref::Scope(h));
            let at = |e: String| format!("{}: {e}", place());
            let info = function(s).ok_or_else(|| at("not a function".into()))?;
            let raw = attr(&s.extra, sv::AT_SUB)
                .filter(|b| b.len() >= 8)
                .ok_or_else(|| at("no subroutine attribute".into()))?;
            let fde = self.next_fde(info.ranges.first()).map_err(at)?;
            let prog = fde_program(fde).map_err(|e| at(format!("its FDE: {e}")))?;
            if !prog.saves.is_empty() || prog.rules.iter().any(|r| r.column != sv::RA_COLUMN) {
                return Err(at("its FDE has rules other than the return value's".into()));
            }
            if prog.rules.len() != raw.len() - 8 {
                return Err(at(
                    "return-value rules and virtual types differ in number".into()
                ));
            }
            let ret_val = prog
                .rules
                .iter()
                .zip(&raw[8..])
                .map(|(rule, v)| {
                    let range = CodeRange {
                        start: CodePos::Addr(rule.start),
                        end: CodePos::Addr(rule.end),
                    };
                    gen_interval(reloc, &range, *v, rule.loc)
                })
                .collect::<R<_>>()
                .map_err(at)?;
            out.push(Subroutine {
                name: s.name.clone().unwrap_or_default(),
                start: u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]),
                end: u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]),
                ret_val,
            });
        }
        Ok(out)
    }
}
