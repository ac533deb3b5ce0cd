//! DWARF written from a code-less source (`back::dwarf::records`: SPIR-V, marked by
//! `DW_AT_dwarv_spirv_set` on its units, or LLVM IR, marked by `DW_AT_dwarv_llvm`) read back to
//! the IR that source's reader gave: addresses become word offsets (address / 4) or LLVM
//! instruction numbers, and the exact scope runs, line spans, declare/value events and module
//! records replace what the native forms approximate (ranges derived from the runs, location
//! lists derived from the events). Bad vendor bytes are reader errors.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

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

/// What the written addresses are: SPIR-V word offsets × 4 or LLVM instruction numbers.
#[derive(Clone, Copy)]
enum Positions {
    SpirvWords,
    LlvmInstructions,
}

impl Positions {
    /// A position the records wrote (a word offset or an instruction number).
    fn of(self, n: u32) -> CodePos {
        match self {
            Positions::SpirvWords => CodePos::Spirv(n),
            Positions::LlvmInstructions => CodePos::Llvm(n),
        }
    }

    /// A DWARF address the native forms wrote.
    fn of_address(self, a: u64) -> CodePos {
        let scale = match self {
            Positions::SpirvWords => 4,
            Positions::LlvmInstructions => 1,
        };
        self.of(u32::try_from(a / scale).unwrap_or(u32::MAX))
    }
}

/// A cursor over one vendor block; errors name the attribute.
struct Bytes<'a> {
    r: EndianSlice<'a, LittleEndian>,
    /// The attribute and the entity it is on, for errors.
    what: String,
    positions: Positions,
}

impl<'a> Bytes<'a> {
    fn new(b: &'a [u8], what: impl Into<String>) -> Self {
        Bytes {
            r: EndianSlice::new(b, LittleEndian),
            what: what.into(),
            positions: Positions::SpirvWords,
        }
    }
    fn at(mut self, positions: Positions) -> Self {
        self.positions = positions;
        self
    }
    fn pos(&mut self) -> DResult<CodePos> {
        Ok(self.positions.of(self.u32()?))
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
        Ok(CodeRange {
            start: self.pos()?,
            end: self.pos()?,
        })
    }
}

/// Applies the records when the module's units carry them.
pub(super) fn apply(
    m: &mut ir::Module,
    numbered_inlined: &[(u64, Handle<ir::InlinedAt>)],
) -> DResult<()> {
    let mut source = None;
    for u in m.units.values_mut() {
        if let Some(s) = text(&mut u.extra, v::DW_AT_DWARV_SPIRV_SET) {
            source = Some((SourceFormat::Spirv, Positions::SpirvWords, s));
        }
        if let Some(s) = text(&mut u.extra, v::DW_AT_DWARV_LLVM) {
            source = Some((SourceFormat::Llvm, Positions::LlvmInstructions, s));
        }
    }
    let Some((format, at, flavour)) = source else {
        return Ok(());
    };
    m.source = Source {
        format,
        // An LLVM module without a target triple has no flavour; a SPIR-V set always has one.
        flavour: (format == SourceFormat::Spirv || !flavour.is_empty()).then_some(flavour),
    };
    positions(m, at);
    // 2n + 1 when the inlined function is the IR's own, not derived by the writer.
    let mut inlined: HashMap<u64, Handle<ir::InlinedAt>> = HashMap::default();
    for &(v, h) in numbered_inlined {
        inlined.insert(v / 2, h);
        if v % 2 == 0 {
            m.inlined.get_mut(h).origin = None;
        }
    }
    // Ranges and runs derived from the scope runs give way to the runs themselves. An LLVM
    // function's range is its own (its instructions), not derived.
    m.scope_runs.clear();
    for s in m.scopes.values_mut() {
        match (&mut s.kind, at) {
            (ScopeKind::Function(f) | ScopeKind::FunctionDecl(f), Positions::SpirvWords) => {
                f.ranges.clear()
            }
            (ScopeKind::LexicalBlock { ranges }, _) => ranges.clear(),
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
            runs(m, &b, Ref::Unit(h), at)?;
        }
    }
    for i in 0..m.scopes.len() {
        let h = Handle::new(i as u32);
        if let Some(b) = take(&mut m.scopes.get_mut(h).extra, v::DW_AT_DWARV_RUNS) {
            runs(m, &b, Ref::Scope(h), at)?;
        }
        if let Some(b) = take(&mut m.scopes.get_mut(h).extra, v::DW_AT_DWARV_INLINED_RUNS) {
            inlined_runs(m, &b, h, at, &inlined)?;
        }
    }
    let mut exprs = Vec::new();
    if !m.units.is_empty() {
        module_records(m, Handle::new(0), at)?;
        // The segment table, or the DWARF-bytes table earlier writers wrote.
        let extra = &mut m.units.get_mut(Handle::new(0)).extra;
        let table = match take(extra, v::DW_AT_DWARV_EVENT_OPS) {
            Some(b) => Some((b, true)),
            None => take(extra, v::DW_AT_DWARV_EVENT_EXPRS).map(|b| (b, false)),
        };
        if let Some((b, segments)) = table {
            let mut c = Bytes::new(&b, "DW_AT_dwarv_event_ops");
            while c.more() {
                let len = c.u()?;
                let bytes = c.bytes(len)?;
                let ops = match segments {
                    true => expr_ops(bytes)?,
                    false => dwarf_ops(bytes)?,
                };
                exprs.push(m.exprs.push(Expr { ops }));
            }
        }
    }
    for i in 0..m.vars.len() {
        let h = Handle::new(i as u32);
        if let Some(b) = take(&mut m.vars.get_mut(h).extra, v::DW_AT_DWARV_EVENTS) {
            events(m, &b, h, &exprs, at, &inlined)?;
        }
    }
    Ok(())
}

/// DWARF expression bytes of an event's expression (no DIE operands).
fn dwarf_ops(b: &[u8]) -> DResult<Vec<ir::Op>> {
    let enc = Encoding {
        address_size: 8,
        offset_size: 4,
        amd: AmdOps::Raw,
    };
    decode_expr(b, &enc, &mut OffsetRefs)
        .map_err(|e| fail(".debug_info", 0, format!("an event's expression: {e:?}")))
}

/// An expression of DW_AT_dwarv_event_ops: segments of DWARF expression bytes (`0 len
/// bytes`) and LLVM-only operations (`1 code−0x1000 n sleb…`).
fn expr_ops(b: &[u8]) -> DResult<Vec<ir::Op>> {
    let what = "DW_AT_dwarv_event_ops";
    let mut c = Bytes::new(b, what);
    let mut ops = Vec::new();
    while c.more() {
        match c.u()? {
            0 => {
                let n = c.u()?;
                ops.extend(dwarf_ops(c.bytes(n)?)?);
            }
            1 => {
                let code = c.u32()?.checked_add(0x1000).filter(|c| *c < 0x2_0000);
                let code =
                    code.ok_or_else(|| fail(".debug_info", 0, format!("{what}: bad LLVM code")))?;
                let n = c.u()?;
                let mut args = Vec::new();
                for _ in 0..n.min(1 << 8) {
                    args.push(ir::Arg::Int(c.s()?.into()));
                }
                ops.push(ir::Op::new(ir::OpCode(code), args));
            }
            _ => return Err(fail(".debug_info", 0, format!("{what}: unknown segment"))),
        }
    }
    Ok(ops)
}

/// The records any source's DWARF may carry: a unit's LLVM-only fields
/// (`DW_AT_dwarv_unit_fields`), the retained lists (`DW_AT_dwarv_retained`) and the children of
/// composites that are not their elements (`DW_AT_dwarv_not_element`).
pub(super) fn apply_everywhere(m: &mut ir::Module) -> DResult<()> {
    unit_fields(m)?;
    retained(m)?;
    not_elements(m);
    Ok(())
}

/// The module without the compile unit dwarv's writer made for a module that had none
/// (`DW_AT_dwarv_synthesized_unit`; `back::dwarf::add_unit` gives it no file).
pub(super) fn without_synthesized_unit(m: ir::Module) -> DResult<ir::Module> {
    let marked = m.units.iter().find(|(_, u)| {
        u.extra
            .iter()
            .any(|a| a.attr == v::DW_AT_DWARV_SYNTHESIZED_UNIT.0)
    });
    let Some((h, _)) = marked else {
        return Ok(m);
    };
    let dead: std::collections::HashMap<Ref, Option<Ref>> = [(Ref::Unit(h), None)].into();
    ir::prune::remove(&m, &dead).map_err(|e| {
        fail(
            ".debug_info",
            0,
            format!("the unit dwarv wrote for a module without one: {e}"),
        )
    })
}

/// The entities of the arenas that have attributes, with their attributes.
fn extras(m: &mut ir::Module) -> impl Iterator<Item = (Ref, &mut Vec<RawAttr>)> {
    let vars = m.vars.values_mut().enumerate();
    let vars = vars.map(|(i, x)| (Ref::Var(Handle::new(i as u32)), &mut x.extra));
    let types = m.types.values_mut().enumerate();
    let types = types.map(|(i, x)| (Ref::Type(Handle::new(i as u32)), &mut x.extra));
    let scopes = m.scopes.values_mut().enumerate();
    let scopes = scopes.map(|(i, x)| (Ref::Scope(Handle::new(i as u32)), &mut x.extra));
    vars.chain(types).chain(scopes)
}

fn not_elements(m: &mut ir::Module) {
    let marked: HashSet<Ref> = extras(m)
        .filter_map(|(r, extra)| take(extra, v::DW_AT_DWARV_NOT_ELEMENT).map(|_| r))
        .collect();
    if marked.is_empty() {
        return;
    }
    for t in m.types.values_mut() {
        if let ir::TypeKind::Composite { elements, .. } = &mut t.kind {
            elements.retain(|r| !marked.contains(r));
        }
    }
}

fn unit_fields(m: &mut ir::Module) -> DResult<()> {
    for (i, u) in m.units.values_mut().enumerate() {
        let Some(b) = take(&mut u.extra, v::DW_AT_DWARV_UNIT_FIELDS) else {
            continue;
        };
        let mut c = Bytes::new(&b, format!("DW_AT_dwarv_unit_fields of u{i}"));
        while c.more() {
            let (k, n) = (c.u()?, c.u32()?);
            match k {
                0 => u.name_table = n,
                1 => u.split_debug_inlining = n != 0,
                2 => u.debug_info_for_profiling = n != 0,
                3 => u.ranges_base_address = n != 0,
                _ => {
                    return Err(fail(
                        ".debug_info",
                        0,
                        format!("{}: unknown field {k}", c.what),
                    ))
                }
            }
        }
    }
    Ok(())
}

fn retained(m: &mut ir::Module) -> DResult<()> {
    let listed: Vec<(Ref, Vec<u8>)> = extras(m)
        .filter_map(|(r, extra)| take(extra, v::DW_AT_DWARV_RETAINED).map(|b| (r, b)))
        .collect();
    let mut places: Vec<(Ref, u64, Ref)> = Vec::new();
    for (r, b) in listed {
        let what = format!("DW_AT_dwarv_retained of {}{}", r.kind().prefix(), r.index());
        let mut c = Bytes::new(&b, what.clone());
        let scope = match r {
            Ref::Var(x) => m.vars.get(x).scope,
            Ref::Type(x) => m.types.get(x).scope,
            Ref::Scope(x) => m.scopes.get(x).parent,
            _ => None,
        };
        while c.more() {
            let owner = match c.u()? {
                0 => function_of(m, scope).map(Ref::Scope),
                1 => {
                    let u = c.u()?;
                    (u < m.units.len() as u64).then(|| Ref::Unit(Handle::new(u as u32)))
                }
                _ => None,
            };
            let k = c.u()?;
            let owner = owner.ok_or_else(|| {
                fail(".debug_info", 0, format!("{what}: no such owner around it"))
            })?;
            places.push((owner, k, r));
        }
    }
    places.sort_by_key(|&(owner, k, _)| (owner, k));
    for (owner, _, r) in places {
        match owner {
            Ref::Unit(u) => m.units.get_mut(u).retained.push(r),
            Ref::Scope(s) => {
                if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) =
                    &mut m.scopes.get_mut(s).kind
                {
                    f.retained.push(r);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The function or function declaration a scope is, or is in.
fn function_of(m: &ir::Module, mut r: Option<Ref>) -> Option<Handle<ir::Scope>> {
    for _ in 0..256 {
        let Some(Ref::Scope(s)) = r else { return None };
        let sc = m.scopes.get(s);
        if sc.function().is_some() {
            return Some(s);
        }
        r = sc.parent;
    }
    None
}

/// Every address of the module as a word offset or an instruction number.
fn positions(m: &mut ir::Module, at: Positions) {
    let w = |p: &mut CodePos| {
        if let CodePos::Addr(a) = *p {
            *p = at.of_address(a);
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
    for s in m.scopes.values_mut() {
        if let ScopeKind::Function(f) | ScopeKind::FunctionDecl(f) = &mut s.kind {
            f.ranges.iter_mut().for_each(r);
        }
    }
}

fn runs(m: &mut ir::Module, b: &[u8], scope: Ref, at: Positions) -> DResult<()> {
    let mut c = Bytes::new(
        b,
        format!(
            "DW_AT_dwarv_runs of {}{}",
            scope.kind().prefix(),
            scope.index()
        ),
    )
    .at(at);
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

/// A scope's runs in inlined code: `start end n` triples, n an inlined subroutine's number.
fn inlined_runs(
    m: &mut ir::Module,
    b: &[u8],
    scope: Handle<ir::Scope>,
    at: Positions,
    inlined: &HashMap<u64, Handle<ir::InlinedAt>>,
) -> DResult<()> {
    let what = format!("DW_AT_dwarv_inlined_runs of s{}", scope.index());
    let mut c = Bytes::new(b, what.clone()).at(at);
    while c.more() {
        let range = c.range()?;
        let n = c.u()?;
        let ia = *inlined.get(&n).ok_or_else(|| {
            fail(
                ".debug_info",
                0,
                format!("{what}: no inlined subroutine {n}"),
            )
        })?;
        m.scope_runs.push(ScopeRun {
            range,
            scope: Ref::Scope(scope),
            inlined: Some(ia),
        });
    }
    Ok(())
}

/// Line spans, build id, storage path, link records and code id, on the first unit.
fn module_records(m: &mut ir::Module, u: Handle<ir::Unit>, at: Positions) -> DResult<()> {
    let e = &mut m.units.get_mut(u).extra;
    let spans = take(e, v::DW_AT_DWARV_LINE_SPANS);
    let build_id = text(e, v::DW_AT_DWARV_BUILD_ID);
    let build_flags = take(e, v::DW_AT_DWARV_BUILD_FLAGS);
    let storage = text(e, v::DW_AT_DWARV_STORAGE_PATH);
    let link_id = text(e, v::DW_AT_DWARV_LINK_ID);
    let link_path = text(e, v::DW_AT_DWARV_LINK_PATH);
    m.info.code_id = text(e, v::DW_AT_DWARV_CODE_ID);
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
        let mut c = Bytes::new(&b, "DW_AT_dwarv_line_spans").at(at);
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

fn events(
    m: &mut ir::Module,
    b: &[u8],
    var: Handle<ir::Variable>,
    exprs: &[Handle<Expr>],
    at: Positions,
    numbered: &HashMap<u64, Handle<ir::InlinedAt>>,
) -> DResult<()> {
    let (vscope, vat) = {
        let x = m.vars.get(var);
        (x.scope, x.at)
    };
    let unit_file = m.unit_of(vscope).and_then(|u| m.units.get(u).file);
    let place = format!("DW_AT_dwarv_events of v{}", var.index());
    let mut c = Bytes::new(b, place.clone()).at(at);
    let bad = |what: &str| fail(".debug_info", 0, format!("{place}: {what}"));
    while c.more() {
        let kind = match c.u()? {
            0 => EventKind::Declare,
            1 => EventKind::Value,
            2 => EventKind::Addr,
            _ => return Err(bad("unknown event kind")),
        };
        let pos = c.pos()?;
        let n = c.u()?;
        let mut values = Vec::new();
        for _ in 0..n.min(1 << 16) {
            values.push(match c.u()? {
                0 => Value::Spirv(c.u32()?),
                1 => Value::Int(c.s()?.into()),
                2 => Value::Undef,
                3 => {
                    let n = c.u()?;
                    Value::Llvm(String::from_utf8_lossy(c.bytes(n)?).into_owned())
                }
                _ => return Err(bad("unknown operand kind")),
            });
        }
        let expr = match c.u()? {
            0 => None,
            k => Some(
                *exprs
                    .get(k as usize - 1)
                    .ok_or_else(|| bad("names no expression of DW_AT_dwarv_event_ops"))?,
            ),
        };
        let n = c.u()?;
        let mut indexes = Vec::new();
        for _ in 0..n.min(1 << 16) {
            indexes.push(c.u32()?);
        }
        // 0 none, 1 the variable's scope; 2 and 3 the same in code inlined at call n.
        let code = c.u()?;
        let inlined = match code {
            0 | 1 => None,
            2 | 3 => {
                let n = c.u()?;
                Some(
                    *numbered
                        .get(&n)
                        .ok_or_else(|| bad("names no inlined subroutine"))?,
                )
            }
            _ => return Err(bad("unknown scope code")),
        };
        let scope = match code % 2 {
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
            inlined,
            at,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Positions = Positions::SpirvWords;
    const L: Positions = Positions::LlvmInstructions;

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
        assert!(runs(&mut m, &[0x80], unit, W).is_err());
        assert!(runs(&mut m, &[1], unit, W).is_err());
        // Unknown event kind; unknown operand kind; an expression index past the table; a
        // truncated event; the scope of an event that says "the variable's" when the variable
        // has none.
        for bad in [
            &[9, 0, 0, 0, 0, 0, 0][..],
            &[0, 4, 1, 7],
            &[0, 4, 0, 3, 0, 0, 0],
            &[1, 4, 1, 0],
            &[0, 4, 0, 0, 0, 1, 0],
        ] {
            assert!(events(&mut m, bad, v, &[], W, &HashMap::default()).is_err());
        }
        assert!(m.events.is_empty());
    }

    #[test]
    fn bad_llvm_and_inlined_records_are_errors_not_panics() {
        // An unknown expression segment; a truncated DWARF segment; an LLVM code past the
        // LLVM range; a truncated operand.
        assert!(expr_ops(&[7]).is_err());
        assert!(expr_ops(&[0, 5, 0x10]).is_err());
        assert!(expr_ops(&[1, 0xff, 0xff, 0x0f, 0]).is_err());
        assert!(expr_ops(&[1, 5, 1]).is_err());
        // llvm_arg 1, then DW_OP_stack_value.
        let ops = expr_ops(&[1, 5, 1, 1, 0, 1, 0x9f]).unwrap();
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[0].code, ir::OpCode(0x1005));
        // An inlined run naming no numbered subroutine; an LLVM operand longer than the block.
        let (mut m, v) = module_with_var();
        let s = m.scopes.push(ir::Scope::new(ScopeKind::LexicalBlock {
            ranges: Vec::new(),
        }));
        let none = HashMap::default();
        assert!(inlined_runs(&mut m, &[1, 2, 9], s, L, &none).is_err());
        assert!(events(&mut m, &[1, 4, 1, 3, 9, b'%'], v, &[], L, &none).is_err());
        // An event inlined at a call that has no number.
        assert!(events(&mut m, &[1, 4, 0, 0, 0, 2, 5, 0], v, &[], L, &none).is_err());
        assert!(m.events.is_empty() && m.scope_runs.is_empty());
    }

    #[test]
    fn llvm_events_and_inlined_runs_read_as_written() {
        let (mut m, v) = module_with_var();
        let s = m.scopes.push(ir::Scope::new(ScopeKind::LexicalBlock {
            ranges: Vec::new(),
        }));
        let ia = m.inlined.push(ir::InlinedAt {
            at: Loc::default(),
            scope: None,
            parent: None,
            origin: None,
            entry_pc: None,
        });
        let numbered: HashMap<u64, Handle<ir::InlinedAt>> = [(3, ia)].into_iter().collect();
        inlined_runs(&mut m, &[10, 12, 3], s, L, &numbered).unwrap();
        assert_eq!(m.scope_runs[0].range.start, CodePos::Llvm(10));
        assert_eq!(m.scope_runs[0].inlined, Some(ia));
        // A declare at instruction 7 of `%x`, no expression, no indexes, inlined at call 3.
        events(
            &mut m,
            &[0, 7, 1, 3, 2, b'%', b'x', 0, 0, 2, 3, 0],
            v,
            &[],
            L,
            &numbered,
        )
        .unwrap();
        let e = &m.events[0];
        assert_eq!(
            (e.pos, &e.values, e.inlined),
            (CodePos::Llvm(7), &vec![Value::Llvm("%x".into())], Some(ia))
        );
    }

    #[test]
    fn runs_and_events_read_as_written() {
        let (mut m, v) = module_with_var();
        runs(&mut m, &[10, 20, 30, 40], Ref::Unit(Handle::new(0)), W).unwrap();
        assert_eq!(m.scope_runs.len(), 2);
        assert_eq!(m.scope_runs[1].range.start, CodePos::Spirv(30));
        // A value event at word 5 of %7, no expression, index 2, no scope, no location.
        events(
            &mut m,
            &[1, 5, 1, 0, 7, 0, 1, 2, 0, 0],
            v,
            &[],
            W,
            &HashMap::default(),
        )
        .unwrap();
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
