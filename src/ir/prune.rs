//! Removing entities from a module: the dead ones go, references to them are redirected to a
//! replacement, and the survivors are renumbered. Done through the text form (print with a
//! renaming namer, parse back), so every reference field of every entity is covered by the one
//! codec that already knows them all.

use std::collections::HashMap;

use super::text::{self, for_each_entity, Namer, PrintOptions, RecordDyn, ValueWriter};
use super::{EntityKind, Module, Ref};

/// Why a removal could not be done.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    /// A kept entity refers to a removed one that has no replacement.
    #[error("{holder} refers to removed {target}, which has no replacement")]
    Dangling { holder: String, target: String },
    #[error("re-reading the pruned module: {0}")]
    Reparse(#[from] text::ParseError),
}

/// A module whose equal files (same name, directory, checksum and text) are one: the first of
/// them takes the others' references.
pub fn merge_equal_files(m: &Module) -> Result<Module, PruneError> {
    let mut first: HashMap<&crate::ir::File, Ref> = HashMap::new();
    let mut dead: HashMap<Ref, Option<Ref>> = HashMap::new();
    for (h, f) in m.files.iter() {
        match first.get(f) {
            Some(&kept) => {
                dead.insert(Ref::File(h), Some(kept));
            }
            None => {
                first.insert(f, Ref::File(h));
            }
        }
    }
    if dead.is_empty() {
        return Ok(m.clone());
    }
    remove(m, &dead)
}

/// A module without the entities of `dead`: each maps to the entity its references move to
/// (followed transitively; `None`: nothing may refer to it any more). Line rows, scope runs and
/// events that name a removed entity without a replacement are dropped with it.
pub fn remove(m: &Module, dead: &HashMap<Ref, Option<Ref>>) -> Result<Module, PruneError> {
    let names = Renames::new(m, dead);
    let mut out = text::header(&m.source);
    out.push('\n');
    let info = text::render_info(m, &names, PrintOptions::default());
    if !info.is_empty() {
        out.push_str(&info);
        out.push('\n');
    }
    let mut dangling = None;
    let mut line = |r: Ref, e: &dyn RecordDyn| {
        if dead.contains_key(&r) {
            return;
        }
        let mut body = String::new();
        e.write_dyn(&mut ValueWriter::new(
            &mut body,
            &names,
            PrintOptions::default(),
        ));
        if let Some(target) = names.take_dangling() {
            dangling.get_or_insert((r, target));
        }
        names.name(r, &mut out);
        out.push_str(" =");
        out.push_str(&body);
        out.push('\n');
    };
    for_each_entity!(m, line);
    if let Some((holder, target)) = dangling {
        let show = |r: Ref| format!("{}{}", r.kind().prefix(), r.index());
        return Err(PruneError::Dangling {
            holder: show(holder),
            target: show(target),
        });
    }
    let mut code = |record: &dyn RecordDyn| {
        let mut body = String::new();
        record.write_dyn(&mut ValueWriter::new(
            &mut body,
            &names,
            PrintOptions::default(),
        ));
        if names.take_dangling().is_none() {
            out.push_str(body.trim_start());
            out.push('\n');
        }
    };
    m.lines.iter().for_each(|r| code(r));
    m.scope_runs.iter().for_each(|r| code(r));
    m.events.iter().for_each(|r| code(r));
    Ok(text::parse(&out, "<pruned module>")?)
}

/// Names survivors by their new index and removed entities by their replacement's.
struct Renames<'a> {
    dead: &'a HashMap<Ref, Option<Ref>>,
    /// Per entity kind: old index → new index (None: removed).
    index: HashMap<EntityKind, Vec<Option<u32>>>,
    dangling: std::cell::Cell<Option<Ref>>,
}

impl<'a> Renames<'a> {
    fn new(m: &Module, dead: &'a HashMap<Ref, Option<Ref>>) -> Self {
        let mut index: HashMap<EntityKind, Vec<Option<u32>>> = HashMap::new();
        let mut number = |r: Ref, _: &dyn RecordDyn| {
            let slot = index.entry(r.kind()).or_default();
            let next = slot.iter().flatten().count() as u32;
            slot.push((!dead.contains_key(&r)).then_some(next));
        };
        for_each_entity!(m, number);
        Renames {
            dead,
            index,
            dangling: Default::default(),
        }
    }

    /// The surviving entity a reference ends at.
    fn target(&self, mut r: Ref) -> Option<Ref> {
        for _ in 0..=self.dead.len() {
            match self.dead.get(&r) {
                None => return Some(r),
                Some(None) => return None,
                Some(Some(next)) => r = *next,
            }
        }
        None
    }

    fn take_dangling(&self) -> Option<Ref> {
        self.dangling.take()
    }
}

impl Namer for Renames<'_> {
    fn name(&self, r: Ref, out: &mut String) {
        use std::fmt::Write;
        let new = self.target(r).and_then(|t| {
            let i = self.index.get(&t.kind())?.get(t.index())?.as_ref()?;
            Some((t.kind(), *i))
        });
        match new {
            Some((kind, i)) => {
                let _ = write!(out, "{}{i}", kind.prefix());
            }
            None => {
                self.dangling.set(Some(r));
                let _ = write!(out, "{}{}", r.kind().prefix(), r.index());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Handle, Ref};

    const TEXT: &str = "; dwarv-ir 1 source=ir
f0 = file \"a.c\"
u0 = unit c99 file=f0
t0 = base \"int\" enc=signed bits=32
t1 = base \"int\" enc=signed bits=32
s0 = function \"f\" in=u0 at=f0:1
s1 = block in=s0 at=f0:2:3
s2 = block in=s1 at=f0:3:5
v0 = local \"x\" type=t1 in=s2 at=f0:3
v1 = local \"y\" type=t0 in=s1 at=f0:2
";

    #[test]
    fn removed_entities_are_redirected_and_the_rest_renumbered() {
        let m = text::parse(TEXT, "t.dwir").unwrap();
        let dead = HashMap::from([
            (Ref::Scope(Handle::new(1)), Some(Ref::Scope(Handle::new(0)))),
            (Ref::Type(Handle::new(1)), Some(Ref::Type(Handle::new(0)))),
        ]);
        let out = text::print(&remove(&m, &dead).unwrap());
        assert!(out.contains("s1 = block in=s0 at=f0:3:5\n"), "{out}");
        assert!(
            out.contains("v0 = local \"x\" type=t0 in=s1 at=f0:3\n"),
            "{out}"
        );
        assert!(
            out.contains("v1 = local \"y\" type=t0 in=s0 at=f0:2\n"),
            "{out}"
        );
        assert!(!out.contains("t1 ="), "{out}");
    }

    #[test]
    fn a_reference_to_a_removed_entity_without_replacement_is_refused() {
        let m = text::parse(TEXT, "t.dwir").unwrap();
        let dead = HashMap::from([(Ref::Type(Handle::new(0)), None)]);
        let err = remove(&m, &dead).unwrap_err().to_string();
        assert_eq!(err, "v1 refers to removed t0, which has no replacement");
    }
}
