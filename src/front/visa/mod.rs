//! vISA debug tables → IR (docs/visa.md): each compiled object a function over its Gen code
//! range, variables with location lists over Gen addresses, subroutines as nested functions, the
//! frame info as the function's frame base and CFI. What the IR has no field for (the mapping
//! tables, vISA indices, virtual types, the caller-save table) rides in dwarv vendor attributes,
//! so `back::visa` writes the same bytes back.

pub(crate) mod loc;

use std::collections::BTreeMap;

use crate::diag::{Diagnostics, LossKind};
use crate::error::{Error, Result};
use crate::ir::{
    Cie, CodePos, CodeRange, Expr, Fde, Flags, FunctionInfo, Handle, LocEntry, LocList, Location,
    Module, RawAttr, Ref, Scope, ScopeKind, Source, SourceFormat, Value, VarKind, Variable,
};
use crate::spec::visa as sv;
use crate::visa::forms::object_unit;
use crate::visa::{self, Frame, Interval, MapEntry, Object, Storage, Tables};

pub use loc::storage_ops;

/// Decodes and lowers a vISA debug-information stream.
pub fn read(bytes: &[u8], name: &str) -> Result<(Module, Diagnostics)> {
    let tables = visa::decode(bytes).map_err(|error| Error::Visa {
        path: name.to_string(),
        error,
    })?;
    Ok(lower(&tables))
}

/// Lowers decoded tables; total (every decoded stream has an IR form). The diagnostics are the
/// Gen ranges that had to be approximated (vISA indices without an index-map entry).
pub fn lower(t: &Tables) -> (Module, Diagnostics) {
    let mut l = Lower {
        m: Module::default(),
        cie: None,
        d: Diagnostics::default(),
    };
    l.m.source = Source {
        format: SourceFormat::Visa,
        flavour: None,
    };
    l.m.info.machine = Some(sv::MACHINE);
    l.m.info.address_size = Some(sv::CIE_ADDRESS_SIZE);
    for o in &t.objects {
        l.object(o);
    }
    (l.m, l.d)
}

fn raw(attr: u16, bytes: Vec<u8>) -> RawAttr {
    RawAttr {
        attr,
        form: sv::FORM_BLOCK,
        bytes,
    }
}

fn addr(a: u64) -> CodePos {
    CodePos::Addr(a)
}

fn range(start: u64, end: u64) -> CodeRange {
    CodeRange {
        start: addr(start),
        end: addr(end),
    }
}

/// Gen addresses of one object: vISA index → first Gen address, and the end of its code.
struct GenMap {
    reloc: u64,
    by_index: BTreeMap<u32, u32>,
    end: u64,
}

impl GenMap {
    fn new(o: &Object) -> GenMap {
        let mut by_index = BTreeMap::new();
        for e in &o.index_map {
            let g = by_index.entry(e.visa).or_insert(e.gen);
            *g = (*g).min(e.gen);
        }
        let f = &o.frame;
        let gen_lists = [&f.befp, &f.caller_befp, &f.ret_addr]
            .into_iter()
            .flatten()
            .chain(o.subs.iter().map(|s| &s.ret_val));
        let offsets = o
            .index_map
            .iter()
            .chain(&o.offset_map)
            .map(|e| e.gen)
            .chain(gen_lists.flatten().flat_map(|i| [i.start, i.end]))
            .chain(
                f.callee_saves
                    .iter()
                    .chain(&f.caller_saves)
                    .map(|s| s.gen_ip),
            );
        let reloc = o.reloc_offset as u64;
        let end = offsets
            .max()
            .map_or(reloc, |g| reloc + g as u64 + sv::INSN_BYTES);
        GenMap {
            reloc,
            by_index,
            end,
        }
    }
    /// The Gen address of vISA index `i`: the first instruction of the nearest mapped index at or
    /// after it, or the end of the code.
    fn of_index(&self, i: u64) -> u64 {
        u32::try_from(i)
            .ok()
            .and_then(|i| self.by_index.range(i..).next())
            .map_or(self.end, |(_, g)| self.reloc + *g as u64)
    }
    /// Whether the Gen range of `first..=last` is exact: both ends have an index-map entry (or
    /// the end lies past the last mapped index, at the end of the code).
    fn exact(&self, first: u64, last: u64) -> bool {
        let mapped = |i: u64| u32::try_from(i).is_ok_and(|i| self.by_index.contains_key(&i));
        let past = |i: u64| {
            self.by_index
                .keys()
                .next_back()
                .map_or(true, |&m| i > m as u64)
        };
        mapped(first) && (mapped(last + 1) || past(last + 1))
    }
    /// The vISA indices `first..=last` as a Gen range (never reversed).
    fn index_range(&self, first: u64, last: u64) -> CodeRange {
        let s = self.of_index(first);
        range(s, self.of_index(last + 1).max(s))
    }
    /// A Gen interval, inclusive of the instruction at `end`, as the range `[start, end + 1)`.
    fn gen_range(&self, i: &Interval<u32>) -> CodeRange {
        range(self.reloc + i.start as u64, self.reloc + i.end as u64 + 1)
    }
}

struct Lower {
    m: Module,
    cie: Option<Handle<Cie>>,
    d: Diagnostics,
}

impl Lower {
    fn expr(&mut self, s: Storage) -> Handle<Expr> {
        self.m.exprs.push(Expr {
            ops: storage_ops(s),
        })
    }

    fn list(&mut self, entries: impl IntoIterator<Item = (CodeRange, Storage)>) -> Location {
        let entries = entries
            .into_iter()
            .map(|(r, s)| LocEntry {
                range: Some(r),
                expr: self.expr(s),
            })
            .collect();
        Location::List(self.m.loclists.push(LocList { entries }))
    }

    fn cie(&mut self) -> Handle<Cie> {
        *self.cie.get_or_insert_with(|| {
            self.m.cies.push(Cie {
                version: sv::CIE_VERSION,
                augmentation: String::new(),
                address_size: sv::CIE_ADDRESS_SIZE,
                segment_size: 0,
                code_align: 1,
                data_align: 1,
                return_register: sv::RA_COLUMN as u16,
                eh_frame: false,
                initial: Vec::new(),
                extra: Vec::new(),
            })
        })
    }

    fn object(&mut self, o: &Object) {
        let g = GenMap::new(o);
        let f = &o.frame;
        let frame_base = f
            .befp
            .as_ref()
            .map(|l| self.list(l.iter().map(|i| (g.gen_range(i), i.loc))));
        let code = range(g.reloc, g.end);
        let info = FunctionInfo {
            binding: Some(Value::Symbol(o.name.clone())),
            ranges: vec![code],
            entry_pc: Some(addr(g.reloc)),
            frame_base,
            ..Default::default()
        };
        let unit = self.m.units.push(object_unit(code));
        let mut scope = Scope::new(ScopeKind::Function(Box::new(info)));
        scope.name = Some(o.name.clone());
        scope.parent = Some(Ref::Unit(unit));
        scope.flags = Flags::default().with(Flags::DEFINITION);
        scope.extra = vec![
            raw(sv::AT_OFFSET_MAP, map_bytes(&o.offset_map)),
            raw(sv::AT_INDEX_MAP, map_bytes(&o.index_map)),
            raw(sv::AT_FRAME, frame_bytes(f)),
        ];
        let obj = self.m.scopes.push(scope);
        for v in &o.vars {
            for (k, i) in v.intervals.iter().enumerate() {
                if !g.exact(i.start as u64, i.end as u64) {
                    self.d.push(
                        LossKind::Approximated,
                        format!("v{} (variable {:?}) interval {k}", self.m.vars.len(), v.name),
                        format!(
                            "vISA indices {}..={} are not both in the index map: the Gen range runs between the nearest mapped ones",
                            i.start, i.end
                        ),
                    );
                }
            }
            let location = self.list(
                v.intervals
                    .iter()
                    .map(|i| (g.index_range(i.start as u64, i.end as u64), i.loc)),
            );
            let mut var = Variable::new(VarKind::Local);
            var.name = Some(v.name.clone());
            var.scope = Some(Ref::Scope(obj));
            var.location = Some(location);
            let mut bytes = Vec::with_capacity(v.intervals.len() * 5);
            for i in &v.intervals {
                bytes.extend_from_slice(&i.start.to_le_bytes());
                bytes.extend_from_slice(&i.end.to_le_bytes());
                bytes.push(i.virt as u8);
            }
            var.extra = vec![raw(sv::AT_VAR_INTERVALS, bytes)];
            self.m.vars.push(var);
        }
        let cie = self.cie();
        let caller_saves = visa::encode_saves(&f.caller_saves, 0)
            .expect("a decoded table re-encodes: its counts and offsets came from the same fields");
        let (ops, order) = loc::frame_ops(&g, f);
        self.m.fdes.push(Fde {
            cie,
            range: code,
            ops,
            extra: vec![
                raw(sv::AT_CFA_ORDER, order),
                raw(sv::AT_CALLER_SAVES, caller_saves),
            ],
        });
        for s in &o.subs {
            let r = g.index_range(s.start as u64, s.end as u64);
            let info = FunctionInfo {
                ranges: vec![r],
                ..Default::default()
            };
            let mut scope = Scope::new(ScopeKind::Function(Box::new(info)));
            scope.name = Some(s.name.clone());
            scope.parent = Some(Ref::Scope(obj));
            scope.flags = Flags::default().with(Flags::DEFINITION);
            let mut bytes = Vec::with_capacity(8 + s.ret_val.len());
            bytes.extend_from_slice(&s.start.to_le_bytes());
            bytes.extend_from_slice(&s.end.to_le_bytes());
            bytes.extend(s.ret_val.iter().map(|i| i.virt as u8));
            scope.extra = vec![raw(sv::AT_SUB, bytes)];
            self.m.scopes.push(scope);
            let (ops, order) = loc::ret_val_ops(&g, &s.ret_val);
            self.m.fdes.push(Fde {
                cie,
                range: r,
                ops,
                extra: vec![raw(sv::AT_CFA_ORDER, order)],
            });
        }
    }
}

fn map_bytes(m: &[MapEntry]) -> Vec<u8> {
    m.iter()
        .flat_map(|e| e.visa.to_le_bytes().into_iter().chain(e.gen.to_le_bytes()))
        .collect()
}

fn frame_bytes(f: &Frame) -> Vec<u8> {
    let lists = [&f.befp, &f.caller_befp, &f.ret_addr];
    let mut b = f.size.to_le_bytes().to_vec();
    b.extend(lists.iter().map(|l| l.is_some() as u8));
    b.extend(
        lists
            .iter()
            .copied()
            .flatten()
            .flatten()
            .map(|i| i.virt as u8),
    );
    b
}
