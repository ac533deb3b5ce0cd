//! Structural diff of two modules: compares content, not encoding.
//!
//! Entities are matched by a content identity (a named entity by its kind, name and parent; an
//! anonymous one by what it says), never by index, so arena order does not matter. Each matched
//! pair is compared as its text record with references replaced by identities. Ignored: the
//! header (source format and flavour), SPIR-V ids, DWARF and debug-set versions, raw attribute
//! forms, CIE versions and the link records `strip` adds. Row tables (lines, scope runs, events)
//! are compared as multisets; expressions and location lists, which are values, as sets.
//! [`explain`] says which line of a conversion's ledger explains each difference.

pub mod explain;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write};

use super::text::{
    for_each_entity, render, render_info, Namer, PrintOptions, Record, RecordDyn, ValueWriter,
};
use super::text::{split_items, ShortNames};
use super::{EntityKind, Module, Ref};

#[derive(Clone, Copy, Debug, Default)]
pub struct DiffOptions {
    /// Compare only the declarative part: units, files, types, scopes, variables, macros,
    /// imports (and entry points, labels, properties), without code positions.
    pub ignore_code_positions: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    OnlyInA(String),
    OnlyInB(String),
    Changed { a: String, b: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What differs: an entity's identity, or a table name.
    pub what: String,
    pub change: Change,
}

impl Difference {
    /// `changed: `/`only in A: `/`only in B: ` and `header`, then the record, or for a change
    /// the fields that differ (`-`/`+`); each line after `indent`.
    pub fn render(&self, header: &str, indent: &str) -> String {
        let mut out = String::new();
        match &self.change {
            Change::OnlyInA(line) => {
                let _ = writeln!(out, "{indent}only in A: {header}\n{indent}    {line}");
            }
            Change::OnlyInB(line) => {
                let _ = writeln!(out, "{indent}only in B: {header}\n{indent}    {line}");
            }
            Change::Changed { a, b } => {
                let _ = writeln!(out, "{indent}changed: {header}");
                let (ia, ib) = (split_items(a), split_items(b));
                for item in ia.iter().filter(|i| !ib.contains(i)) {
                    let _ = writeln!(out, "{indent}    - {item}");
                }
                for item in ib.iter().filter(|i| !ia.contains(i)) {
                    let _ = writeln!(out, "{indent}    + {item}");
                }
                if ia.iter().all(|i| ib.contains(i)) && ib.iter().all(|i| ia.contains(i)) {
                    // Same items in another order (list order, element order).
                    let _ = writeln!(out, "{indent}    - {a}\n{indent}    + {b}");
                }
            }
        }
        out
    }

    /// `changed`, `only in A` or `only in B`.
    pub fn change_name(&self) -> &'static str {
        match self.change {
            Change::OnlyInA(_) => "only in A",
            Change::OnlyInB(_) => "only in B",
            Change::Changed { .. } => "changed",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    pub differences: Vec<Difference>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.differences.is_empty()
    }

    /// The first `limit` differences, readably: changed fields with `-`/`+`.
    pub fn render(&self, limit: usize) -> String {
        let mut out = String::new();
        for d in self.differences.iter().take(limit) {
            out.push_str(&d.render(&d.what, ""));
        }
        if self.differences.len() > limit {
            let _ = writeln!(
                out,
                "… and {} more difference(s)",
                self.differences.len() - limit
            );
        }
        out
    }
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(usize::MAX))
    }
}

/// Compares two valid modules (see [`super::verify`]).
pub fn diff(a: &Module, b: &Module, opts: DiffOptions) -> Diff {
    Comparison::new(a, b, opts).diff
}

/// A diff with what it was taken from: each side's identities and entity records.
struct Comparison<'m> {
    sa: Side<'m>,
    sb: Side<'m>,
    ea: Records,
    eb: Records,
    diff: Diff,
}

/// identity key (`noun identity`) → the records of the entities with that identity, each with
/// its entity, sorted by record.
type Records = BTreeMap<String, Vec<(String, Ref)>>;

impl<'m> Comparison<'m> {
    fn new(a: &'m Module, b: &'m Module, opts: DiffOptions) -> Self {
        let print = PrintOptions {
            hide_encoding: true,
            hide_code: opts.ignore_code_positions,
        };
        let (sa, sb) = (Side::new(a, print), Side::new(b, print));
        let (ea, eb) = (sa.entities(opts), sb.entities(opts));
        let diff = compare(a, b, &sa, &sb, &ea, &eb, opts);
        Comparison {
            sa,
            sb,
            ea,
            eb,
            diff,
        }
    }
}

fn compare(
    a: &Module,
    b: &Module,
    sa: &Side<'_>,
    sb: &Side<'_>,
    ea: &Records,
    eb: &Records,
    opts: DiffOptions,
) -> Diff {
    let print = sa.print;
    let mut differences = Vec::new();

    let (info_a, info_b) = (
        render_info(a, &sa.names, print),
        render_info(b, &sb.names, print),
    );
    if info_a != info_b {
        differences.push(Difference {
            what: "module".into(),
            change: Change::Changed {
                a: info_a,
                b: info_b,
            },
        });
    }

    for (id, lines_a) in ea {
        match eb.get(id) {
            None => differences.extend(lines_a.iter().map(|(l, _)| Difference {
                what: id.clone(),
                change: Change::OnlyInA(l.clone()),
            })),
            Some(lines_b) if !same_records(lines_a, lines_b) => {
                let n = lines_a.len().max(lines_b.len());
                for i in 0..n {
                    let (x, y) = (lines_a.get(i).map(|l| &l.0), lines_b.get(i).map(|l| &l.0));
                    let change = match (x, y) {
                        (Some(x), Some(y)) if x == y => continue,
                        (Some(x), Some(y)) => Change::Changed {
                            a: x.clone(),
                            b: y.clone(),
                        },
                        (Some(x), None) => Change::OnlyInA(x.clone()),
                        (None, Some(y)) => Change::OnlyInB(y.clone()),
                        (None, None) => continue,
                    };
                    differences.push(Difference {
                        what: id.clone(),
                        change,
                    });
                }
            }
            Some(_) => {}
        }
    }
    for (id, lines_b) in eb {
        if !ea.contains_key(id) {
            differences.extend(lines_b.iter().map(|(l, _)| Difference {
                what: id.clone(),
                change: Change::OnlyInB(l.clone()),
            }));
        }
    }

    if !opts.ignore_code_positions {
        rows(
            &mut differences,
            "line table",
            rendered(&a.lines, &sa.names, print),
            rendered(&b.lines, &sb.names, print),
        );
        rows(
            &mut differences,
            "scope runs",
            rendered(&a.scope_runs, &sa.names, print),
            rendered(&b.scope_runs, &sb.names, print),
        );
        rows(
            &mut differences,
            "events",
            rendered(&a.events, &sa.names, print),
            rendered(&b.events, &sb.names, print),
        );
    }
    Diff { differences }
}

fn same_records(a: &[(String, Ref)], b: &[(String, Ref)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0)
}

/// Multiset difference of two row tables.
fn rows(out: &mut Vec<Difference>, table: &str, mut a: Vec<String>, mut b: Vec<String>) {
    a.sort();
    b.sort();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                out.push(Difference {
                    what: table.into(),
                    change: Change::OnlyInA(x.clone()),
                });
                i += 1;
            }
            (Some(x), None) => {
                out.push(Difference {
                    what: table.into(),
                    change: Change::OnlyInA(x.clone()),
                });
                i += 1;
            }
            (_, Some(y)) => {
                out.push(Difference {
                    what: table.into(),
                    change: Change::OnlyInB(y.clone()),
                });
                j += 1;
            }
            (None, None) => break,
        }
    }
}

fn rendered<R: Record>(rows: &[R], namer: &dyn Namer, print: PrintOptions) -> Vec<String> {
    rows.iter().map(|r| render(r, namer, print)).collect()
}

/// Kinds compared with `--ignore-code-positions`.
fn declarative(kind: EntityKind) -> bool {
    use EntityKind::*;
    matches!(
        kind,
        Text | File | Unit | Type | Scope | Var | Macro | Import | Label | Property | EntryPoint
    )
}

struct Side<'m> {
    m: &'m Module,
    names: Identities<'m>,
    print: PrintOptions,
}

impl<'m> Side<'m> {
    fn new(m: &'m Module, print: PrintOptions) -> Self {
        let side = Side {
            m,
            names: Identities::new(m, print),
            print,
        };
        side.warm_up();
        side
    }

    /// Computes identities in post-order of the reference graph (iteratively), so that the
    /// on-demand computation finds what an entity refers to already memoised and never recurses
    /// deeper than a reference cycle: chains thousands deep cannot overflow the stack.
    fn warm_up(&self) {
        let mut roots = Vec::new();
        let mut add = |r: Ref, _: &dyn RecordDyn| roots.push(r);
        for_each_entity!(self.m, add);
        let mut done: HashSet<Ref> = HashSet::new();
        for root in roots {
            if !done.insert(root) {
                continue;
            }
            // (entity, the entities it refers to, how many of them are visited)
            let mut stack: Vec<(Ref, Vec<Ref>, usize)> = vec![(root, self.refs_of(root), 0)];
            while let Some((r, children, next)) = stack.last_mut() {
                if let Some(&child) = children.get(*next) {
                    *next += 1;
                    if self.m.resolves(child) && done.insert(child) {
                        let grandchildren = self.refs_of(child);
                        stack.push((child, grandchildren, 0));
                    }
                } else {
                    let r = *r;
                    stack.pop();
                    self.names.identity(r);
                }
            }
        }
    }

    /// The references an entity's record holds.
    fn refs_of(&self, r: Ref) -> Vec<Ref> {
        super::refs_of(self.m, r, self.print)
    }

    /// identity → the records of the entities with that identity, sorted.
    fn entities(&self, opts: DiffOptions) -> Records {
        let mut map: Records = BTreeMap::new();
        let mut add = |r: Ref, e: &dyn RecordDyn| {
            if opts.ignore_code_positions && !declarative(r.kind()) {
                return;
            }
            let mut line = String::new();
            e.write_dyn(&mut ValueWriter::new(&mut line, &self.names, self.print));
            map.entry(format!("{} {}", r.kind().noun(), self.names.identity(r)))
                .or_default()
                .push((line, r));
        };
        for_each_entity!(self.m, add);
        for (id, lines) in map.iter_mut() {
            lines.sort_by(|x, y| x.0.cmp(&y.0));
            // Expressions and location lists are values: how many equal copies a module holds
            // is the producer's (or reader's) sharing, not content.
            if id.starts_with(EntityKind::Expr.noun()) || id.starts_with(EntityKind::LocList.noun())
            {
                lines.dedup_by(|x, y| x.0 == y.0);
            }
        }
        map
    }
}

/// Identities longer than this are shortened to a prefix and a hash, so that nested identities
/// of long chains stay small.
const MAX_IDENTITY: usize = 240;

/// Names every reference by its content identity, computed on demand and memoised.
struct Identities<'m> {
    m: &'m Module,
    print: PrintOptions,
    memo: RefCell<HashMap<Ref, String>>,
    busy: RefCell<HashSet<Ref>>,
}

impl<'m> Identities<'m> {
    fn new(m: &'m Module, print: PrintOptions) -> Self {
        Identities {
            m,
            print,
            memo: RefCell::default(),
            busy: RefCell::default(),
        }
    }

    fn identity(&self, r: Ref) -> String {
        if let Some(s) = self.memo.borrow().get(&r) {
            return s.clone();
        }
        if !self.m.resolves(r) {
            return format!("missing {}{}", r.kind().prefix(), r.index());
        }
        if !self.busy.borrow_mut().insert(r) {
            // A cycle through anonymous entities (named ones stop at their name). The result
            // depends on where the walk entered the cycle; warm_up enters in a fixed order.
            return format!("recursive {}", r.kind().noun());
        }
        let mut id = self.compute(r);
        if id.len() > MAX_IDENTITY {
            let mut cut = MAX_IDENTITY / 2;
            while !id.is_char_boundary(cut) {
                cut -= 1;
            }
            let closers = unclosed(&id[..cut]);
            id = format!("{}… fnv {:016x}{closers}", &id[..cut], fnv(id.as_bytes()));
        }
        self.busy.borrow_mut().remove(&r);
        self.memo.borrow_mut().insert(r, id.clone());
        id
    }

    fn record<R: Record>(&self, e: &R) -> String {
        render(e, self, self.print)
    }

    /// Named entities: keyword, name and parent. Others: the whole record.
    fn compute(&self, r: Ref) -> String {
        let m = self.m;
        // A named entity is its keyword, name and parent: no need to look inside it, which
        // also keeps cycles through named composites out of identities.
        let named = |e: &dyn RecordDyn, name: &Option<String>, parent: Option<Ref>| -> String {
            let Some(n) = name else {
                let mut record = String::new();
                e.write_dyn(&mut ValueWriter::new(&mut record, self, self.print));
                return record;
            };
            let mut shallow = String::new();
            e.write_dyn(&mut ValueWriter::new(&mut shallow, &ShortNames, self.print));
            let keyword = shallow.split(' ').next().unwrap_or("");
            let mut s = format!("{keyword} {n:?}");
            if let Some(p) = parent {
                let _ = write!(s, " in <{}>", self.identity(p));
            }
            s
        };
        match r {
            Ref::Text(h) => {
                let text = &m.texts.get(h).text;
                format!(
                    "text of {} bytes, fnv {:016x}",
                    text.len(),
                    fnv(text.as_bytes())
                )
            }
            Ref::File(h) => {
                let f = m.files.get(h);
                match &f.directory {
                    Some(d) => format!("file {:?} dir={d:?}", f.name),
                    None => format!("file {:?}", f.name),
                }
            }
            Ref::Unit(h) => match m.units.get(h).file {
                Some(f) => format!("unit of <{}>", self.identity(Ref::File(f))),
                None => self.record(m.units.get(h)),
            },
            Ref::Type(h) => {
                let t = m.types.get(h);
                if t.name.is_none() && matches!(t.kind, super::TypeKind::Composite { .. }) {
                    // An anonymous composite and the members naming it as parent form a cycle:
                    // its own members are written in place (their parent as `<this>`), so that
                    // the identity does not depend on where a walk entered the cycle.
                    let local = Local { ids: self, this: r };
                    let mut record = String::new();
                    t.write(&mut ValueWriter::new(&mut record, &local, self.print));
                    return record;
                }
                named(t, &t.name, t.scope)
            }
            Ref::Scope(h) => {
                let s = m.scopes.get(h);
                let mut id = named(s, &s.name, s.parent);
                if let (Some(_), Some(link)) =
                    (&s.name, s.function().and_then(|f| f.linkage.as_ref()))
                {
                    let _ = write!(id, " linkage={link:?}");
                }
                id
            }
            Ref::Var(h) => {
                let v = m.vars.get(h);
                match (&v.name, &v.kind) {
                    (Some(n), super::VarKind::Param(k)) => {
                        let scope = v.scope.map(|p| self.identity(p)).unwrap_or_default();
                        format!("param {k} {n:?} in <{scope}>")
                    }
                    _ => named(v, &v.name, v.scope),
                }
            }
            Ref::Inlined(h) => self.record(m.inlined.get(h)),
            Ref::Expr(h) => self.record(m.exprs.get(h)),
            Ref::LocList(h) => self.record(m.loclists.get(h)),
            Ref::Macro(h) => self.record(m.macros.get(h)),
            Ref::Import(h) => self.record(m.imports.get(h)),
            Ref::Label(h) => self.record(m.labels.get(h)),
            Ref::CallSite(h) => self.record(m.call_sites.get(h)),
            Ref::Property(h) => self.record(m.properties.get(h)),
            Ref::EntryPoint(h) => self.record(m.entry_points.get(h)),
            Ref::Cie(h) => self.record(m.cies.get(h)),
            Ref::Fde(h) => self.record(m.fdes.get(h)),
        }
    }
}

/// Names references from inside an anonymous composite: the composite itself as `<this>`, its
/// own members (those whose parent it is) by their record, anything else by its identity.
struct Local<'a, 'm> {
    ids: &'a Identities<'m>,
    this: Ref,
}

impl Namer for Local<'_, '_> {
    fn name(&self, r: Ref, out: &mut String) {
        if r == self.this {
            out.push_str("<this>");
            return;
        }
        if let Ref::Type(h) = r {
            if self.ids.m.resolves(r) {
                let t = self.ids.m.types.get(h);
                if t.scope == Some(self.this) {
                    let mut record = String::new();
                    t.write(&mut ValueWriter::new(&mut record, self, self.ids.print));
                    out.push('<');
                    out.push_str(record.trim_start());
                    out.push('>');
                    return;
                }
            }
        }
        self.ids.name(r, out);
    }
}

impl Namer for Identities<'_> {
    fn name(&self, r: Ref, out: &mut String) {
        out.push('<');
        out.push_str(&self.identity(r));
        out.push('>');
    }
}

/// The closing brackets of those `prefix` leaves open (outside strings), innermost first: a
/// shortened identity stays one item of a record when split (`split_items`).
fn unclosed(prefix: &str) -> String {
    let (chars, in_str) = super::text::outside_strings(prefix);
    let mut open = Vec::new();
    for (_, c) in chars {
        match c {
            '<' => open.push('>'),
            '[' => open.push(']'),
            '(' => open.push(')'),
            '>' | ']' | ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    let quote = if in_str { "\"" } else { "" };
    format!("{quote}{}", open.iter().rev().collect::<String>())
}

fn fnv(bytes: &[u8]) -> u64 {
    crate::hash::fnv1a(crate::hash::FNV_OFFSET_BASIS, bytes.iter().copied())
}
