//! DWARF written from SPIR-V (`back::dwarf::spirv`, marked by `DW_AT_dwarv_spirv_set` on its
//! units) read back to the IR the SPIR-V reader gave: addresses become word offsets (address /
//! 4), and the exact scope runs, line spans, declare/value events and module records replace
//! what the native forms approximate (ranges derived from the runs, location lists derived from
//! the events). Bad vendor bytes are reader errors.

use gimli::leb128::read;
use gimli::{EndianSlice, LittleEndian};

use super::walker::{fail, DResult};
use crate::dwarf::{decode_expr, AmdOps, Encoding, OffsetRefs};
use crate::ir::{
    self, BuildId, CodePos, CodeRange, Event, EventKind, Expr, Handle, Link, Loc, RawAttr, Ref,
    ScopeKind, ScopeRun, Source, SourceFormat, Value,
};
use crate::spec::dwarf_vendor as v;

fn take(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<Vec<u8>> {
    let i = extra.iter().position(|a| a.attr == at.0)?;
    Some(extra.remove(i).bytes)
}

fn text(extra: &mut Vec<RawAttr>, at: gimli::DwAt) -> Option<String> {
    take(extra, at).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// A cursor over one vendor block; errors name the attribute.
struct Bytes<'a> {
    r: EndianSlice<'a, LittleEndian>,
    /// The attribute and the entity it is on, for errors.
    what: String,
}

impl<'a> Bytes<'a> {
    fn new(b: &'a [u8], what: impl Into<String>) -> Self {
        Bytes {
            r: EndianSlice::new(b, LittleEndian),
            what: what.into(),
        }
    }
    fn more(&self) -> bool {
        !self.r.is_empty()
    }
    fn u(&mut self) -> DResult<u64> {
        read::unsigned(&mut self.r)
            .map_err(|e| fail(".debug_info", 0, format!("{}: {e}", self.what)))
    }
    fn u32(&mut self) -> DResult<u32> {
        let n = self.u()?;
        u32::try_from(n)
            .map_err(|_| fail(".debug_info", 0, format!("{}: {n} over 32 bits", self.what)))
    }
    fn s(&mut self) -> DResult<i64> {
        read::signed(&mut self.r).map_err(|e| fail(".debug_info", 0, format!("{}: {e}", self.what)))
    }
    fn bytes(&mut self, n: u64) -> DResult<&'a [u8]> {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n > self.r.len() {
            return Err(fail(".debug_info", 0, format!("{}: truncated", self.what)));
        }
        let (head, rest) = self.r.slice().split_at(n);
        self.r = EndianSlice::new(rest, LittleEndian);
        Ok(head)
    }
    fn range(&mut self) -> DResult<CodeRange> {
        let (s, e) = (self.u32()?, self.u32()?);
        Ok(CodeRange {
            start: CodePos::Spirv(s),
            end: CodePos::Spirv(e),
        })
    }
}

/// Applies the SPIR-V records when the module's units carry them.
pub(super) fn apply(m: &mut ir::Module) -> DResult<()> {
    let mut set = None;
    for u in m.units.values_mut() {
        if let Some(s) = text(&mut u.extra, v::DW_AT_DWARV_SPIRV_SET) {
            set = Some(s);
        }
    }
    let Some(set) = set else { return Ok(()) };
    m.source = Source {
        format: SourceFormat::Spirv,
        flavour: Some(set),
    };
    positions(m);
    // Ranges and runs derived from the scope runs give way to the runs themselves.
    m.scope_runs.clear();
    for s in m.scopes.values_mut() {
        match &mut s.kind {
            ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) => f.ranges.clear(),
            ScopeKind::LexicalBlock { ranges } => ranges.clear(),
            _ => {}
        }
    }
    // The machine is the writer's container (x86-64), not the module's.
    m.info.machine = None;
    for i in 0..m.units.len() {
        let h = Handle::new(i as u32);
        let un = m.units.get_mut(h);
        un.ranges.clear();
        // DW_AT_low_pc 0: the writer's base for a unit without ranges.
        un.extra.retain(|a| a.attr != gimli::DW_AT_low_pc.0);
        if let Some(b) = take(&mut m.units.get_mut(h).extra, v::DW_AT_DWARV_RUNS) {
            runs(m, &b, Ref::Unit(h))?;
        }
    }
    for i in 0..m.scopes.len() {
        let h = Handle::new(i as u32);
        if let Some(b) = take(&mut m.scopes.get_mut(h).extra, v::DW_AT_DWARV_RUNS) {
            runs(m, &b, Ref::Scope(h))?;
        }
    }
    let mut exprs = Vec::new();
    if !m.units.is_empty() {
        module_records(m, Handle::new(0))?;
        if let Some(b) = take(
            &mut m.units.get_mut(Handle::new(0)).extra,
            v::DW_AT_DWARV_EVENT_EXPRS,
        ) {
            let mut c = Bytes::new(&b, "DW_AT_dwarv_event_exprs");
            while c.more() {
                let len = c.u()?;
                let enc = Encoding {
                    address_size: 8,
                    offset_size: 4,
                    amd: AmdOps::Raw,
                };
                let ops = decode_expr(c.bytes(len)?, &enc, &mut OffsetRefs).map_err(|e| {
                    fail(".debug_info", 0, format!("DW_AT_dwarv_event_exprs: {e:?}"))
                })?;
                exprs.push(m.exprs.push(Expr { ops }));
            }
        }
    }
    for i in 0..m.vars.len() {
        let h = Handle::new(i as u32);
        if let Some(b) = take(&mut m.vars.get_mut(h).extra, v::DW_AT_DWARV_EVENTS) {
            events(m, &b, h, &exprs)?;
        }
    }
    Ok(())
}

/// Every address of the module as a word offset.
fn positions(m: &mut ir::Module) {
    let w = |p: &mut CodePos| {
        if let CodePos::Addr(a) = *p {
            *p = CodePos::Spirv(u32::try_from(a / 4).unwrap_or(u32::MAX));
        }
    };
    let r = |x: &mut CodeRange| {
        w(&mut x.start);
        w(&mut x.end);
    };
    m.lines.iter_mut().for_each(|l| r(&mut l.range));
    m.scope_runs.iter_mut().for_each(|s| r(&mut s.range));
    for l in m.loclists.values_mut() {
        l.entries.iter_mut().for_each(|e| {
            if let Some(x) = &mut e.range {
                r(x)
            }
        });
    }
    for l in m.labels.values_mut() {
        l.pos.iter_mut().for_each(w);
    }
}

fn runs(m: &mut ir::Module, b: &[u8], scope: Ref) -> DResult<()> {
    let mut c = Bytes::new(
        b,
        format!(
            "DW_AT_dwarv_runs of {}{}",
            scope.kind().prefix(),
            scope.index()
        ),
    );
    while c.more() {
        let range = c.range()?;
        m.scope_runs.push(ScopeRun {
            range,
            scope,
            inlined: None,
        });
    }
    Ok(())
}

/// Line spans, build id, storage path and link records, on the first unit.
fn module_records(m: &mut ir::Module, u: Handle<ir::Unit>) -> DResult<()> {
    let e = &mut m.units.get_mut(u).extra;
    let spans = take(e, v::DW_AT_DWARV_LINE_SPANS);
    let build_id = text(e, v::DW_AT_DWARV_BUILD_ID);
    let build_flags = take(e, v::DW_AT_DWARV_BUILD_FLAGS);
    let storage = text(e, v::DW_AT_DWARV_STORAGE_PATH);
    let link_id = text(e, v::DW_AT_DWARV_LINK_ID);
    let link_path = text(e, v::DW_AT_DWARV_LINK_PATH);
    if let Some(b) = take(e, v::DW_AT_DWARV_ADDRESS_SIZE) {
        let n = Bytes::new(&b, "DW_AT_dwarv_address_size").u()?;
        m.info.address_size = u8::try_from(n).ok().filter(|n| *n != 0);
    }
    if let Some(id) = build_id {
        let flags = match build_flags {
            Some(b) => Bytes::new(&b, "DW_AT_dwarv_build_flags").u32()?,
            None => 0,
        };
        m.info.build_id = Some(BuildId { id, flags });
    }
    m.info.storage_path = storage;
    m.info.link = link_id.map(|build_id| Link {
        build_id,
        storage_path: link_path,
    });
    if let Some(b) = spans {
        let mut c = Bytes::new(&b, "DW_AT_dwarv_line_spans");
        while c.more() {
            let range = c.range()?;
            let (line, column) = (c.u32()?, c.u32()?);
            let opt = |n: u32| n.checked_sub(1);
            let (end_line, end_column) = (opt(c.u32()?), opt(c.u32()?));
            let row = m.lines.iter_mut().find(|r| {
                r.range == range
                    && r.at.line == line
                    && r.at.column == column
                    && r.end_line.is_none()
                    && r.end_column.is_none()
            });
            match row {
                Some(r) => {
                    r.end_line = end_line;
                    r.end_column = end_column;
                }
                None => {
                    return Err(fail(
                        ".debug_info",
                        0,
                        "DW_AT_dwarv_line_spans: a span of no line row",
                    ))
                }
            }
        }
    }
    Ok(())
}

/// The unit a scope chain ends in.
fn unit_of(m: &ir::Module, mut r: Option<Ref>) -> Option<Handle<ir::Unit>> {
    for _ in 0..256 {
        r = match r? {
            Ref::Unit(u) => return Some(u),
            Ref::Scope(s) => {
                let sc = m.scopes.get(s);
                match (sc.parent, sc.function().and_then(|f| f.unit)) {
                    (None, Some(u)) => return Some(u),
                    (p, _) => p,
                }
            }
            Ref::Type(t) => m.types.get(t).scope,
            _ => None,
        };
    }
    None
}

fn events(
    m: &mut ir::Module,
    b: &[u8],
    var: Handle<ir::Variable>,
    exprs: &[Handle<Expr>],
) -> DResult<()> {
    let (vscope, vat) = {
        let x = m.vars.get(var);
        (x.scope, x.at)
    };
    let unit_file = unit_of(m, vscope).and_then(|u| m.units.get(u).file);
    let place = format!("DW_AT_dwarv_events of v{}", var.index());
    let mut c = Bytes::new(b, place.clone());
    let bad = |what: &str| fail(".debug_info", 0, format!("{place}: {what}"));
    while c.more() {
        let kind = match c.u()? {
            0 => EventKind::Declare,
            1 => EventKind::Value,
            2 => EventKind::Addr,
            _ => return Err(bad("unknown event kind")),
        };
        let pos = CodePos::Spirv(c.u32()?);
        let n = c.u()?;
        let mut values = Vec::new();
        for _ in 0..n.min(1 << 16) {
            values.push(match c.u()? {
                0 => Value::Spirv(c.u32()?),
                1 => Value::Int(c.s()?.into()),
                2 => Value::Undef,
                _ => return Err(bad("unknown operand kind")),
            });
        }
        let expr = match c.u()? {
            0 => None,
            k => Some(
                *exprs
                    .get(k as usize - 1)
                    .ok_or_else(|| bad("names no expression of DW_AT_dwarv_event_exprs"))?,
            ),
        };
        let n = c.u()?;
        let mut indexes = Vec::new();
        for _ in 0..n.min(1 << 16) {
            indexes.push(c.u32()?);
        }
        let scope = match c.u()? {
            0 => None,
            _ => match vscope {
                Some(Ref::Scope(s)) => Some(s),
                _ => return Err(bad("the variable has no scope")),
            },
        };
        let at = match c.u()? {
            0 => None,
            k => {
                let file = match k {
                    1 => vat.and_then(|l| l.file),
                    2 => scope.and_then(|s| m.scopes.get(s).at).and_then(|l| l.file),
                    _ => unit_file,
                };
                Some(Loc {
                    file,
                    line: c.u32()?,
                    column: c.u32()?,
                })
            }
        };
        m.events.push(Event {
            kind,
            pos,
            var,
            values,
            expr,
            indexes,
            scope,
            inlined: None,
            at,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module_with_var() -> (ir::Module, Handle<ir::Variable>) {
        let mut m = ir::Module::default();
        let v = m.vars.push(ir::Variable::new(ir::VarKind::Local));
        (m, v)
    }

    #[test]
    fn bad_vendor_blocks_are_errors_not_panics() {
        let (mut m, v) = module_with_var();
        let unit = Ref::Unit(Handle::new(0));
        // Truncated LEB128, an odd number of run words.
        assert!(runs(&mut m, &[0x80], unit).is_err());
        assert!(runs(&mut m, &[1], unit).is_err());
        // Unknown event kind; unknown operand kind; an expression index past the table; a
        // truncated event.
        assert!(events(&mut m, &[9, 0, 0, 0, 0, 0, 0], v, &[]).is_err());
        assert!(events(&mut m, &[0, 4, 1, 7], v, &[]).is_err());
        assert!(events(&mut m, &[0, 4, 0, 3, 0, 0, 0], v, &[]).is_err());
        assert!(events(&mut m, &[1, 4, 1, 0], v, &[]).is_err());
        // The scope of an event that says "the variable's" when the variable has none.
        assert!(events(&mut m, &[0, 4, 0, 0, 0, 1, 0], v, &[]).is_err());
        assert!(m.events.is_empty());
    }

    #[test]
    fn runs_and_events_read_as_written() {
        let (mut m, v) = module_with_var();
        runs(&mut m, &[10, 20, 30, 40], Ref::Unit(Handle::new(0))).unwrap();
        assert_eq!(m.scope_runs.len(), 2);
        assert_eq!(m.scope_runs[1].range.start, CodePos::Spirv(30));
        // A value event at word 5 of %7, no expression, index 2, no scope, no location.
        events(&mut m, &[1, 5, 1, 0, 7, 0, 1, 2, 0, 0], v, &[]).unwrap();
        let e = &m.events[0];
        assert_eq!(
            (e.kind, e.pos, &e.values, &e.indexes),
            (
                EventKind::Value,
                CodePos::Spirv(5),
                &vec![Value::Spirv(7)],
                &vec![2]
            )
        );
    }
}
