//! Which line of a conversion's ledger explains each difference between its input (A) and what
//! came back (B).
//!
//! A difference is explained when the ledger names its entity (`t3 (type …)`), or when it is
//! only the echo of other differences: its record is the same on both sides once every
//! reference to a differing entity is masked (a member whose type is an approximated typedef; an
//! anonymous pointer to that typedef, whose identity changed with it), and every differing
//! entity it refers to is explained. Such a cascade is explained by the line that explains what
//! it refers to. Rows (line table, scope runs, events) are matched the same way; rows a
//! module-wide ledger line counts as not written ("153 line rows not written…") are explained by
//! it. Anything else is not explained: a regression test fails on it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::{same_records, Change, Comparison, Diff, DiffOptions, Identities, Records, Side};
use crate::diag::Loss;
use crate::ir::text::{for_each_entity, Namer, Record, RecordDyn, ValueWriter};
use crate::ir::{verify, EntityKind, Module, Ref};

/// Why a difference is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ledger line at this index names its entity, or counts its rows.
    Line(usize),
    /// It echoes differences the ledger line at this index explains.
    Cascade(usize),
    /// No ledger line explains it.
    Unexplained,
    /// It echoes differences no ledger line explains.
    Echo,
}

impl Verdict {
    /// The index of the ledger line that explains it.
    pub fn line(self) -> Option<usize> {
        match self {
            Verdict::Line(i) | Verdict::Cascade(i) => Some(i),
            Verdict::Unexplained | Verdict::Echo => None,
        }
    }
}

/// A diff and, for each of its differences, a verdict and a short place: the entity's handle
/// and name (`s2 (function "blend")`, in A; an entity only B has is marked `in B`), or the
/// table of a row.
pub struct Explained {
    pub diff: Diff,
    pub verdicts: Vec<Verdict>,
    pub places: Vec<String>,
    /// For a difference only in A or only in B that no ledger line explains, the difference of
    /// the other side that is the same entity, changed (`partners`).
    pub partners: Vec<Option<usize>>,
}

impl Explained {
    /// How many differences no ledger line explains, echoes included.
    pub fn unexplained(&self) -> usize {
        self.verdicts.iter().filter(|v| v.line().is_none()).count()
    }
}

/// Row tables and the word a module-wide ledger line counting their rows uses.
const TABLES: [(&str, &str); 3] = [
    ("line table", "line row"),
    ("scope runs", "scope run"),
    ("events", "event"),
];

/// Diffs `a` (the module `ledger` was written for) against `b` and explains each difference.
pub fn explained(a: &Module, b: &Module, opts: DiffOptions, ledger: &[Loss]) -> Explained {
    let c = Comparison::new(a, b, opts);
    let da = differing(&c.ea, &c.eb);
    let db = differing(&c.eb, &c.ea);
    let (ma, mb) = (masked_entities(&c.sa, &da), masked_entities(&c.sb, &db));
    // The ledger's entities (the first line naming one explains it).
    let mut roots: HashMap<Ref, usize> = HashMap::new();
    for (i, l) in ledger.iter().enumerate() {
        if let Some(r) = place_ref(a, &l.place).or_else(|| instruction_ref(a, &ma, &l.place)) {
            roots.entry(r).or_insert(i);
        }
    }
    // Fields a module-wide ledger line counts as not written do not tell entities apart.
    let unwritten: Vec<&str> = (MODULE_WIDE.iter())
        .filter(|(word, _)| {
            (ledger.iter()).any(|l| l.place == "module" && l.message.contains(word))
        })
        .flat_map(|(_, fields)| fields.iter().copied())
        .collect();
    let pairs = pair(&c, &ma, &mb, &unwritten);
    let relevant = relevant_refs(&c, &ma, &mb, &pairs.echoes);
    let mut va = entity_verdicts(&ma, &roots, &relevant);
    module_wide(ledger, &ma, &mb, &pairs, &mut va);
    let mut vb: HashMap<Ref, Verdict> = HashMap::new();
    for (ra, rb) in pairs.echoes.iter().chain(&pairs.changed) {
        vb.insert(*rb, va.get(ra).copied().unwrap_or(Verdict::Unexplained));
    }
    replacements(&c, &ma, &mb, &va, &mut vb, &pairs);
    let mut rows = row_verdicts(&c, &da, &db, &va, ledger);
    // Each difference's verdict and place, its entity found by its key and record.
    let all_pairs = || pairs.echoes.iter().chain(&pairs.changed);
    let paired_a: HashSet<Ref> = all_pairs().map(|(ra, _)| *ra).collect();
    let paired_b: HashSet<Ref> = all_pairs().map(|(_, rb)| *rb).collect();
    let keys: HashSet<&str> = c.diff.differences.iter().map(|d| d.what.as_str()).collect();
    let (mut by_record_a, mut by_record_b) = (
        records_by_text(&c.ea, &keys, &paired_a),
        records_by_text(&c.eb, &keys, &paired_b),
    );
    let n = c.diff.differences.len();
    let (mut verdicts, mut places) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for d in &c.diff.differences {
        let what = d.what.as_str();
        let (ra, rb) = match &d.change {
            Change::Changed { a: x, b: y } => (
                take(&mut by_record_a, what, x),
                take(&mut by_record_b, what, y),
            ),
            Change::OnlyInA(x) => (take(&mut by_record_a, what, x), None),
            Change::OnlyInB(y) => (None, take(&mut by_record_b, what, y)),
        };
        let of =
            |v: &HashMap<Ref, Verdict>, r: Ref| v.get(&r).copied().unwrap_or(Verdict::Unexplained);
        let (verdict, place) = match (TABLES.iter().any(|(t, _)| *t == d.what), ra, rb) {
            (true, _, _) => {
                let (of_a, text) = match &d.change {
                    Change::OnlyInB(y) => (false, y),
                    Change::OnlyInA(x) | Change::Changed { a: x, .. } => (true, x),
                };
                let v = (rows.get_mut(&(d.what.clone(), of_a, text.clone())))
                    .and_then(Vec::pop)
                    .unwrap_or(Verdict::Unexplained);
                (v, d.what.clone())
            }
            (false, Some(x), Some(y)) => (worse(of(&va, x), of(&vb, y)), verify::describe(a, x)),
            (false, Some(x), None) => (of(&va, x), verify::describe(a, x)),
            (false, None, Some(y)) => (of(&vb, y), format!("{} in B", verify::describe(b, y))),
            (false, None, None) => match &d.change {
                Change::Changed { a: x, b: y } if what == "module" => {
                    (module_verdict(x, y, ledger), d.what.clone())
                }
                _ => (Verdict::Unexplained, d.what.clone()),
            },
        };
        verdicts.push(verdict);
        places.push(place);
    }
    let partners = partners(&c.diff, &verdicts);
    Explained {
        diff: c.diff,
        verdicts,
        places,
        partners,
    }
}

/// A changed entity whose only changes are fields a module-wide ledger line counts (bindings
/// a standalone module has no code for) is explained by that line.
fn module_wide(
    ledger: &[Loss],
    ma: &HashMap<Ref, Masked>,
    mb: &HashMap<Ref, Masked>,
    pairs: &Pairs,
    va: &mut HashMap<Ref, Verdict>,
) {
    for (word, fields) in MODULE_WIDE {
        let counted = ledger
            .iter()
            .position(|l| l.place == "module" && l.message.contains(word));
        let Some(line) = counted else { continue };
        for (ra, rb) in &pairs.changed {
            if va.get(ra) == Some(&Verdict::Unexplained)
                && without(&ma[ra].record, fields) == without(&mb[rb].record, fields)
            {
                va.insert(*ra, Verdict::Line(line));
            }
        }
    }
}

/// Pairs differences no ledger line explains that are one entity seen twice: an anonymous
/// entity only in A and one only in B of the same kind and keyword, one's fields a subset of
/// the other's (a pointer whose size was dropped changes its identity with it).
fn partners(diff: &Diff, verdicts: &[Verdict]) -> Vec<Option<usize>> {
    let mut partner = vec![None; diff.differences.len()];
    let first_word = |t: &str| t.split(' ').next().unwrap_or("").to_string();
    // (kind noun, record's keyword, record's items)
    let shape = |what: &str, record: &str| {
        let items: HashSet<String> = (crate::ir::text::split_items(record).into_iter())
            .map(str::to_string)
            .collect();
        (first_word(what), first_word(record), items)
    };
    let mut only_b = Vec::new();
    for (j, d) in diff.differences.iter().enumerate() {
        if let (Change::OnlyInB(y), Verdict::Unexplained) = (&d.change, verdicts[j]) {
            only_b.push((j, shape(&d.what, y)));
        }
    }
    for (i, d) in diff.differences.iter().enumerate() {
        let (Change::OnlyInA(x), Verdict::Unexplained) = (&d.change, verdicts[i]) else {
            continue;
        };
        let (kind, keyword, mine) = shape(&d.what, x);
        let found = only_b.iter().position(|(_, (k, w, theirs))| {
            *k == kind && *w == keyword && (mine.is_subset(theirs) || theirs.is_subset(&mine))
        });
        if let Some(at) = found {
            let (j, _) = only_b.remove(at);
            partner[i] = Some(j);
            partner[j] = Some(i);
        }
    }
    partner
}

/// Verdicts on the entities only B has that no pairing explained: an entity only explained
/// entities of B refer to (the `void` type an absent type became, the array a matrix became)
/// takes their line; then what the writer put in the place of an entity of A the ledger names,
/// of the same kind and first word (a file whose directory was joined into its name), takes that
/// entity's line; then the first rule again, for what refers only to those.
fn replacements(
    c: &Comparison<'_>,
    ma: &HashMap<Ref, Masked>,
    mb: &HashMap<Ref, Masked>,
    va: &HashMap<Ref, Verdict>,
    vb: &mut HashMap<Ref, Verdict>,
    pairs: &Pairs,
) {
    let mut left: Vec<Ref> = (mb.keys().copied())
        .filter(|rb| !vb.contains_key(rb))
        .collect();
    if left.is_empty() {
        return;
    }
    left.sort();
    let users = Users::of(c, mb, &left);
    users.explain(&left, vb);
    // Entities of A the ledger names and no entity of B was paired with.
    let paired_a: HashSet<Ref> = (pairs.echoes.iter().chain(&pairs.changed))
        .map(|(ra, _)| *ra)
        .collect();
    let mut named: Vec<(Ref, (EntityKind, String), Verdict)> = (ma.iter())
        .filter(|(ra, _)| !paired_a.contains(ra))
        .filter_map(|(ra, m)| match va.get(ra) {
            Some(v @ Verdict::Line(_)) => Some((*ra, (ra.kind(), first_word(*ra, m)), *v)),
            _ => None,
        })
        .collect();
    named.sort_by_key(|(r, _, _)| *r);
    let unexplained: Vec<Ref> = left
        .iter()
        .copied()
        .filter(|rb| !vb.contains_key(rb))
        .collect();
    for rb in &unexplained {
        let wanted = (rb.kind(), first_word(*rb, &mb[rb]));
        if let Some(at) = named.iter().position(|(_, s, _)| *s == wanted) {
            let (_, _, v) = named.remove(at);
            vb.insert(*rb, v);
        }
    }
    users.explain(&left, vb);
}

/// The differing entities of B that refer to each entity of a set, through its equal copies
/// (entities under one identity stand for each other: which of them a pairing took is chance).
struct Users {
    copies: HashMap<Ref, Vec<Ref>>,
    by: HashMap<Ref, Vec<Ref>>,
}

impl Users {
    fn of(c: &Comparison<'_>, mb: &HashMap<Ref, Masked>, of: &[Ref]) -> Users {
        let wanted: HashSet<Ref> = of.iter().copied().collect();
        let mut copies: HashMap<Ref, Vec<Ref>> = HashMap::new();
        for records in c.eb.values() {
            if records.iter().any(|(_, r)| wanted.contains(r)) {
                let all: Vec<Ref> = records.iter().map(|(_, r)| *r).collect();
                for r in &all {
                    copies.insert(*r, all.clone());
                }
            }
        }
        let mut by: HashMap<Ref, Vec<Ref>> = HashMap::new();
        let mut walker = crate::ir::RefWalker::default();
        let mut add = |r: Ref, _: &dyn RecordDyn| {
            if !mb.contains_key(&r) {
                return;
            }
            for &child in walker.refs(c.sb.m, r, c.sb.print) {
                if copies.contains_key(&child) && child != r {
                    by.entry(child).or_default().push(r);
                }
            }
        };
        for_each_entity!(c.sb.m, add);
        Users { copies, by }
    }

    /// Gives each entity of `left` without a verdict the line of its users once all of them
    /// are explained (until nothing changes).
    fn explain(&self, left: &[Ref], vb: &mut HashMap<Ref, Verdict>) {
        loop {
            let mut changed = false;
            for rb in left {
                if vb.contains_key(rb) {
                    continue;
                }
                let by = (self.copies.get(rb).into_iter().flatten())
                    .flat_map(|copy| self.by.get(copy).into_iter().flatten());
                let lines: Option<Vec<usize>> =
                    by.map(|u| vb.get(u).and_then(|v| v.line())).collect();
                if let Some(line) = lines.and_then(|l| l.first().copied()) {
                    vb.insert(*rb, Verdict::Cascade(line));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
}

/// Module-wide ledger lines that count entities' fields as not written: a word of their
/// message, and the fields (as the text form spells them).
const MODULE_WIDE: [(&str, &[&str]); 2] = [
    ("binding", &["bind=", "loc="]),
    ("variable location", &["loc="]),
];

/// The `module` record's fields and the words of the module-wide ledger line that says a
/// writer could not keep them.
const MODULE_FIELDS: [(&str, &str); 4] = [
    ("machine=", "machine"),
    ("addr_size=", "address size"),
    ("build_id=", "build id"),
    ("storage_path=", "storage path"),
];

/// The `module` record changed: explained when a module-wide ledger line names each field
/// that differs (the first such line), else unexplained.
fn module_verdict(a: &str, b: &str, ledger: &[Loss]) -> Verdict {
    let items = |r: &str| -> HashSet<String> {
        (crate::ir::text::split_items(r).into_iter())
            .map(str::to_string)
            .collect()
    };
    let (ia, ib) = (items(a), items(b));
    let mut first = None;
    for item in ia.symmetric_difference(&ib) {
        let line = MODULE_FIELDS
            .iter()
            .find(|(field, _)| item.starts_with(field))
            .and_then(|(_, words)| {
                ledger
                    .iter()
                    .position(|l| l.place == "module" && l.message.starts_with(words))
            });
        match line {
            Some(line) => first = Some(first.map_or(line, |f: usize| f.min(line))),
            None => return Verdict::Unexplained,
        }
    }
    first.map_or(Verdict::Unexplained, Verdict::Line)
}

/// A record without the items that start with `fields`.
fn without(record: &str, fields: &[&str]) -> Vec<String> {
    (crate::ir::text::split_items(record).into_iter())
        .filter(|item| !fields.iter().any(|f| item.starts_with(f)))
        .map(str::to_string)
        .collect()
}

/// Of two verdicts on the sides of one difference, the one a test must act on.
fn worse(x: Verdict, y: Verdict) -> Verdict {
    match (x, y) {
        (Verdict::Unexplained, _) | (_, Verdict::Unexplained) => Verdict::Unexplained,
        (Verdict::Echo, _) | (_, Verdict::Echo) => Verdict::Echo,
        (Verdict::Line(i), _) | (_, Verdict::Line(i)) => Verdict::Line(i),
        (Verdict::Cascade(i), Verdict::Cascade(_)) => Verdict::Cascade(i),
    }
}

/// The entity a ledger place names in `m`: its leading handle (`t3` of `t3 (member "dir")`).
fn place_ref(m: &Module, place: &str) -> Option<Ref> {
    let handle = place.split([' ', ':']).next()?;
    let digits = handle.find(|c: char| c.is_ascii_digit())?;
    let kind = EntityKind::from_prefix(&handle[..digits])?;
    let index = handle[digits..].parse().ok()?;
    let r = Ref::from_parts(kind, index);
    m.resolves(r).then_some(r)
}

/// Debug instructions a ledger place names (`%369 (DebugTypedef "float4")`, from a rewrite on
/// a module's own words), the kind of entity each becomes and its record's first word.
const INSTRUCTIONS: [(&str, EntityKind, Option<&str>); 10] = [
    ("DebugTypedef", EntityKind::Type, Some("typedef")),
    ("DebugTypeBasic", EntityKind::Type, Some("base")),
    ("DebugTypeMember", EntityKind::Type, Some("member")),
    ("DebugTypeEnum", EntityKind::Type, Some("enum")),
    ("DebugTypeComposite", EntityKind::Type, None),
    ("DebugFunction", EntityKind::Scope, Some("function")),
    ("DebugLocalVariable", EntityKind::Var, None),
    ("DebugGlobalVariable", EntityKind::Var, Some("global")),
    ("DebugCompilationUnit", EntityKind::Unit, None),
    ("DebugSource", EntityKind::File, None),
];

/// The differing entity of `m` a place naming a debug instruction and its name stands for:
/// the one of that kind, name and first word, when there is exactly one.
fn instruction_ref(m: &Module, ma: &HashMap<Ref, Masked>, place: &str) -> Option<Ref> {
    let (_, rest) = place.split_once(" (")?;
    let (instruction, name) = rest.split_once(" \"")?;
    let name = name.strip_suffix("\")")?;
    let (_, kind, keyword) = INSTRUCTIONS.iter().find(|(i, _, _)| *i == instruction)?;
    let named = |r: Ref| match r {
        Ref::Type(h) => m.types.get(h).name.as_deref() == Some(name),
        Ref::Scope(h) => m.scopes.get(h).name.as_deref() == Some(name),
        Ref::Var(h) => m.vars.get(h).name.as_deref() == Some(name),
        Ref::File(h) => m.files.get(h).name == name,
        _ => false,
    };
    let mut found = (ma.iter())
        .filter(|(r, _)| r.kind() == *kind && named(**r))
        .filter(|(r, masked)| {
            let record = masked.record.get(r.kind().noun().len() + 1..).unwrap_or("");
            keyword.map_or(true, |k| record.split(' ').next() == Some(k))
        })
        .map(|(r, _)| *r);
    match (found.next(), found.next()) {
        (Some(r), None) => Some(r),
        _ => None,
    }
}

/// The entities of one side under a key whose records differ from the other side's.
fn differing(this: &Records, other: &Records) -> HashSet<Ref> {
    let mut out = HashSet::new();
    for (key, records) in this {
        if other.get(key).map_or(true, |o| !same_records(records, o)) {
            out.extend(records.iter().map(|(_, r)| *r));
        }
    }
    out
}

/// Names references by identity, but a differing entity as a mask, and notes which it masked.
struct Masking<'a, 'm> {
    ids: &'a Identities<'m>,
    differing: &'a HashSet<Ref>,
    masked: RefCell<Vec<Ref>>,
}

impl Namer for Masking<'_, '_> {
    fn name(&self, r: Ref, out: &mut String) {
        if self.differing.contains(&r) {
            self.masked.borrow_mut().push(r);
            out.push_str("<~");
            out.push_str(r.kind().noun());
            out.push('>');
        } else {
            self.ids.name(r, out);
        }
    }
}

/// A record with its references to differing entities masked (`<~type>`), and those entities
/// in the order the record names them.
struct Masked {
    record: String,
    refs: Vec<Ref>,
}

fn masked_record(
    write: impl FnOnce(&mut ValueWriter<'_>),
    side: &Side<'_>,
    d: &HashSet<Ref>,
) -> Masked {
    let namer = Masking {
        ids: &side.names,
        differing: d,
        masked: RefCell::default(),
    };
    let mut line = String::new();
    write(&mut ValueWriter::new(&mut line, &namer, side.print));
    Masked {
        record: line,
        refs: namer.masked.into_inner(),
    }
}

/// The masked record of each differing entity of a side (its kind's noun first).
fn masked_entities(side: &Side<'_>, d: &HashSet<Ref>) -> HashMap<Ref, Masked> {
    let mut out = HashMap::new();
    let mut add = |r: Ref, e: &dyn RecordDyn| {
        if d.contains(&r) {
            let m = masked_record(|w| e.write_dyn(w), side, d);
            let record = format!("{} {}", r.kind().noun(), m.record);
            out.insert(r, Masked { record, ..m });
        }
    };
    for_each_entity!(side.m, add);
    out
}

/// Differing entities of A paired with entities of B.
struct Pairs {
    /// Equal once masked, or differing only in fields that refer to differing entities: an
    /// echo of what they refer to.
    echoes: Vec<(Ref, Ref)>,
    /// Left over under one key: the same entity, changed.
    changed: Vec<(Ref, Ref)>,
}

/// Pairs each differing entity of A with one of B: first those whose masked records are equal,
/// then those that differ only where A refers to a differing entity (a member whose type, an
/// approximated typedef, became the typedef's base), then, under one key, those left.
fn pair(
    c: &Comparison<'_>,
    ma: &HashMap<Ref, Masked>,
    mb: &HashMap<Ref, Masked>,
    unwritten: &[&str],
) -> Pairs {
    // The masked record (less the fields not written) and the first words of what it masks: a
    // pointer to a typedef and one to a qualified type mask alike, and are not one entity.
    let signature = |m: &HashMap<Ref, Masked>, r: &Ref| -> String {
        let mut sig = without(&m[r].record, unwritten).join("\u{2}");
        for masked in &m[r].refs {
            sig.push('\u{1}');
            sig.push_str(&first_word(*masked, &m[masked]));
        }
        sig
    };
    let mut by_masked: HashMap<String, Vec<Ref>> = HashMap::new();
    let mut bs: Vec<&Ref> = mb.keys().collect();
    bs.sort();
    for rb in bs.into_iter().rev() {
        by_masked.entry(signature(mb, rb)).or_default().push(*rb);
    }
    let mut as_: Vec<&Ref> = ma.keys().collect();
    as_.sort();
    let mut echoes = Vec::new();
    let mut paired_a = HashSet::new();
    let mut paired_b = HashSet::new();
    for ra in as_ {
        if let Some(rb) = by_masked.get_mut(&signature(ma, ra)).and_then(Vec::pop) {
            echoes.push((*ra, rb));
            paired_a.insert(*ra);
            paired_b.insert(rb);
        }
    }
    substitutions(
        c,
        ma,
        mb,
        unwritten,
        &mut echoes,
        &mut paired_a,
        &mut paired_b,
    );
    let mut changed = Vec::new();
    for (key, records) in &c.ea {
        let Some(others) = c.eb.get(key) else {
            continue;
        };
        let left_a = records
            .iter()
            .map(|(_, r)| *r)
            .filter(|r| ma.contains_key(r) && !paired_a.contains(r));
        let left_b = others
            .iter()
            .map(|(_, r)| *r)
            .filter(|r| mb.contains_key(r) && !paired_b.contains(r));
        changed.extend(left_a.zip(left_b));
    }
    Pairs { echoes, changed }
}

/// The first word of a differing entity's record (`typedef`, `pointer`, `member`).
fn first_word(r: Ref, m: &Masked) -> String {
    let record = m.record.get(r.kind().noun().len() + 1..).unwrap_or("");
    record.split(' ').next().unwrap_or("").to_string()
}

/// How many entities of B of one kind and first word a substitution tries for an entity of A.
const CANDIDATES: usize = 256;

/// Pairs entities of A and B (unpaired so far; under one key first, else of one kind and first
/// word) whose records differ only in fields where A refers to a differing entity.
fn substitutions(
    c: &Comparison<'_>,
    ma: &HashMap<Ref, Masked>,
    mb: &HashMap<Ref, Masked>,
    unwritten: &[&str],
    echoes: &mut Vec<(Ref, Ref)>,
    paired_a: &mut HashSet<Ref>,
    paired_b: &mut HashSet<Ref>,
) {
    let items = |m: &Masked| -> Vec<String> { without(&m.record, unwritten) };
    let shape = |r: Ref, it: &[String]| (r.kind(), it.get(1).cloned().unwrap_or_default());
    let mut key_of: HashMap<Ref, &String> = HashMap::new();
    for (key, records) in &c.ea {
        let differing = records.iter().filter(|(_, r)| ma.contains_key(r));
        key_of.extend(differing.map(|(_, r)| (*r, key)));
    }
    let mut b_items: HashMap<Ref, Vec<String>> = HashMap::new();
    let mut bucket: HashMap<(EntityKind, String), Vec<Ref>> = HashMap::new();
    let mut bs: Vec<Ref> = mb
        .keys()
        .copied()
        .filter(|r| !paired_b.contains(r))
        .collect();
    bs.sort();
    for rb in bs {
        let it = items(&mb[&rb]);
        bucket.entry(shape(rb, &it)).or_default().push(rb);
        b_items.insert(rb, it);
    }
    let mut as_: Vec<Ref> = ma
        .keys()
        .copied()
        .filter(|r| !paired_a.contains(r))
        .collect();
    as_.sort();
    for ra in as_ {
        let it = items(&ma[&ra]);
        let same_key = (key_of.get(&ra))
            .and_then(|k| c.eb.get(*k))
            .into_iter()
            .flatten()
            .map(|(_, r)| *r);
        let same_shape = bucket.get(&shape(ra, &it)).into_iter().flatten().copied();
        let found = (same_key.chain(same_shape.take(CANDIDATES)))
            .filter(|rb| !paired_b.contains(rb))
            .find(|rb| b_items.get(rb).is_some_and(|ib| substituted(&it, ib)));
        if let Some(rb) = found {
            echoes.push((ra, rb));
            paired_a.insert(ra);
            paired_b.insert(rb);
        }
    }
}

/// Whether record items `b` differ from `a` only where `a`'s items refer to a differing entity
/// (masked), field for field, if at all.
fn substituted(a: &[String], b: &[String]) -> bool {
    let only_a: Vec<&String> = a.iter().filter(|x| !b.contains(x)).collect();
    let only_b: Vec<&String> = b.iter().filter(|x| !a.contains(x)).collect();
    let field = |item: &str| match item.split_once('=') {
        Some((name, _)) if !name.contains(['<', '"', ' ']) => name.to_string(),
        _ => String::new(),
    };
    let mut fields_a: Vec<String> = only_a.iter().map(|x| field(x)).collect();
    // Equal masked records here refer to entities of other first words (a typedef on one
    // side, its base on the other): a substitution too.
    only_a.iter().all(|x| x.contains("<~"))
        && only_b.iter().all(|x| {
            let f = field(x);
            match fields_a.iter().position(|y| *y == f) {
                Some(at) => {
                    fields_a.remove(at);
                    true
                }
                None => false,
            }
        })
}

/// For each echo, the differing entities it refers to where its record differs from its
/// partner's (a function whose type changed echoes the type's line, not its file's): the masked
/// references inside the items of A's record that B's lacks; all of them when none is.
fn relevant_refs<'c>(
    c: &'c Comparison<'_>,
    ma: &HashMap<Ref, Masked>,
    mb: &HashMap<Ref, Masked>,
    echoes: &[(Ref, Ref)],
) -> HashMap<Ref, Vec<Ref>> {
    // The plain records of the differing entities only (borrowed).
    let raw = |records: &'c Records, differing: &HashMap<Ref, Masked>| -> HashMap<Ref, &'c str> {
        (records.values().flatten())
            .filter(|(_, r)| differing.contains_key(r))
            .map(|(text, r)| (*r, text.as_str()))
            .collect()
    };
    let (raw_a, raw_b) = (raw(&c.ea, ma), raw(&c.eb, mb));
    let split = crate::ir::text::split_items;
    let mut out = HashMap::new();
    for (ra, rb) in echoes {
        let Masked {
            record: masked,
            refs,
        } = &ma[ra];
        let (Some(a), Some(b)) = (raw_a.get(ra), raw_b.get(rb)) else {
            out.insert(*ra, refs.clone());
            continue;
        };
        let record = masked.get(ra.kind().noun().len() + 1..).unwrap_or("");
        let (items, ia, ib) = (split(record), split(a), split(b));
        let mut next = refs.iter();
        let mut in_changes = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let here: Vec<Ref> = next
                .by_ref()
                .take(item.matches("<~").count())
                .copied()
                .collect();
            if ia.get(i).is_some_and(|x| !ib.contains(x)) {
                in_changes.extend(here);
            }
        }
        out.insert(
            *ra,
            if in_changes.is_empty() {
                refs.clone()
            } else {
                in_changes
            },
        );
    }
    out
}

/// The verdict on each differing entity of A: a ledger line for those it names; for an echo
/// (paired with an entity of B of the same masked record), the line of the entities it masked
/// once all of them are explained; unexplained otherwise.
fn entity_verdicts(
    ma: &HashMap<Ref, Masked>,
    roots: &HashMap<Ref, usize>,
    relevant: &HashMap<Ref, Vec<Ref>>,
) -> HashMap<Ref, Verdict> {
    let mut v: HashMap<Ref, Verdict> = HashMap::new();
    for r in ma.keys() {
        v.insert(
            *r,
            match roots.get(r) {
                Some(&i) => Verdict::Line(i),
                None => Verdict::Unexplained,
            },
        );
    }
    let mut echoes: Vec<Ref> = (relevant.iter())
        .filter(|(ra, refs)| !roots.contains_key(ra) && !refs.is_empty())
        .map(|(ra, _)| *ra)
        .collect();
    echoes.sort();
    // Until nothing changes: an echo is explained once all it masks are (chains settle one
    // link a pass; a cycle with no ledger line stays unexplained).
    loop {
        let mut changed = false;
        for ra in &echoes {
            if v[ra] != Verdict::Unexplained {
                continue;
            }
            if let Some(line) = cause(&relevant[ra], &v) {
                v.insert(*ra, Verdict::Cascade(line));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Cycles (an anonymous composite and its members refer to each other): echoes that refer,
    // outside their cycle, only to explained entities are explained by them.
    let mut open: HashSet<Ref> = (echoes.iter().copied())
        .filter(|r| v[r] == Verdict::Unexplained)
        .collect();
    loop {
        let blocked: Vec<Ref> = (open.iter().copied())
            .filter(|r| {
                (relevant[r].iter())
                    .any(|m| !open.contains(m) && v.get(m).and_then(|x| x.line()).is_none())
            })
            .collect();
        if blocked.is_empty() {
            break;
        }
        for r in blocked {
            open.remove(&r);
        }
    }
    let line_outside = |r: &Ref| {
        let outside: Vec<Ref> = relevant[r]
            .iter()
            .copied()
            .filter(|m| !open.contains(m))
            .collect();
        (!outside.is_empty()).then(|| cause(&outside, &v)).flatten()
    };
    let mut sorted: Vec<Ref> = open.iter().copied().collect();
    sorted.sort();
    // A member that refers outside only within the cycle takes the line of another member.
    let any = sorted.iter().find_map(line_outside);
    let lines: Vec<(Ref, Option<usize>)> = sorted
        .iter()
        .map(|r| (*r, line_outside(r).or(any)))
        .collect();
    for (r, line) in lines {
        if let Some(line) = line {
            v.insert(r, Verdict::Cascade(line));
        }
    }
    for ra in &echoes {
        if v[ra] == Verdict::Unexplained {
            v.insert(*ra, Verdict::Echo);
        }
    }
    v
}

/// The ledger line behind references to differing entities, once each of them is explained.
fn cause(masked: &[Ref], v: &HashMap<Ref, Verdict>) -> Option<usize> {
    let mut first = None;
    for r in masked {
        let line = v.get(r).and_then(|x| x.line())?;
        first.get_or_insert(line);
    }
    first
}

/// The verdicts on the rows that differ, by (table, of A, record), one per occurrence.
fn row_verdicts(
    c: &Comparison<'_>,
    da: &HashSet<Ref>,
    db: &HashSet<Ref>,
    va: &HashMap<Ref, Verdict>,
    ledger: &[Loss],
) -> HashMap<(String, bool, String), Vec<Verdict>> {
    let mut out = HashMap::new();
    if c.sa.print.hide_code {
        return out;
    }
    let (a, b) = (c.sa.m, c.sb.m);
    table(
        &mut out, TABLES[0], &a.lines, &b.lines, c, da, db, va, ledger,
    );
    table(
        &mut out,
        TABLES[1],
        &a.scope_runs,
        &b.scope_runs,
        c,
        da,
        db,
        va,
        ledger,
    );
    table(
        &mut out, TABLES[2], &a.events, &b.events, c, da, db, va, ledger,
    );
    out
}

#[allow(clippy::too_many_arguments)]
fn table<R: Record>(
    out: &mut HashMap<(String, bool, String), Vec<Verdict>>,
    (name, word): (&str, &str),
    rows_a: &[R],
    rows_b: &[R],
    c: &Comparison<'_>,
    da: &HashSet<Ref>,
    db: &HashSet<Ref>,
    va: &HashMap<Ref, Verdict>,
    ledger: &[Loss],
) {
    let plain = |rows: &[R], side: &Side<'_>| -> Vec<String> {
        rows.iter()
            .map(|r| super::render(r, &side.names, side.print))
            .collect()
    };
    let (pa, pb) = (plain(rows_a, &c.sa), plain(rows_b, &c.sb));
    // The rows of each side the other does not have (as multisets), with their masked form.
    let left =
        |mine: &[String], theirs: &[String], rows: &[R], side: &Side<'_>, d: &HashSet<Ref>| {
            let mut count: HashMap<&str, usize> = HashMap::new();
            for t in theirs {
                *count.entry(t.as_str()).or_default() += 1;
            }
            let mut out = Vec::new();
            for (i, t) in mine.iter().enumerate() {
                match count.get_mut(t.as_str()) {
                    Some(n) if *n > 0 => *n -= 1,
                    _ => out.push((t.clone(), masked_record(|w| rows[i].write(w), side, d))),
                }
            }
            out
        };
    let only_a = left(&pa, &pb, rows_a, &c.sa, da);
    let only_b = left(&pb, &pa, rows_b, &c.sb, db);
    let counted = (ledger
        .iter()
        .position(|l| l.place == "module" && l.message.contains(word)))
    .map_or(Verdict::Unexplained, Verdict::Line);
    let mut b_by_masked: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, m)) in only_b.iter().enumerate().rev() {
        b_by_masked.entry(m.record.as_str()).or_default().push(j);
    }
    let mut b_verdicts = vec![counted; only_b.len()];
    for (text, m) in &only_a {
        let verdict = match b_by_masked.get_mut(m.record.as_str()).and_then(Vec::pop) {
            Some(j) => {
                let v = match m.refs.is_empty() {
                    true => Verdict::Unexplained,
                    false => cause(&m.refs, va).map_or(Verdict::Echo, Verdict::Cascade),
                };
                b_verdicts[j] = v;
                v
            }
            None => counted,
        };
        out.entry((name.to_string(), true, text.clone()))
            .or_default()
            .push(verdict);
    }
    for ((text, _), v) in only_b.iter().zip(b_verdicts) {
        out.entry((name.to_string(), false, text.clone()))
            .or_default()
            .push(v);
    }
}

/// The next entity of `records_by_text`'s list of (key, record).
fn take<'r>(
    by_record: &mut HashMap<(&'r str, &'r str), Vec<Ref>>,
    key: &'r str,
    record: &'r str,
) -> Option<Ref> {
    by_record.get_mut(&(key, record)).and_then(Vec::pop)
}

/// (key, record) → the entities with that record under that key (of the `keys` that differ),
/// to be taken from the end:
/// those without a partner on the other side last, so that a surplus copy (one side has an
/// entity more of one identity) is one of them.
fn records_by_text<'r>(
    records: &'r Records,
    keys: &HashSet<&str>,
    paired: &HashSet<Ref>,
) -> HashMap<(&'r str, &'r str), Vec<Ref>> {
    let mut out: HashMap<(&str, &str), Vec<Ref>> = HashMap::new();
    for (key, list) in records.iter().filter(|(k, _)| keys.contains(k.as_str())) {
        for (text, r) in list.iter().rev() {
            out.entry((key.as_str(), text.as_str()))
                .or_default()
                .push(*r);
        }
    }
    for refs in out.values_mut() {
        refs.sort_by_key(|r| !paired.contains(r));
    }
    out
}
