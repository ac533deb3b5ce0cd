//! A value per entity of one module, kept in one vector by kind and index: a lookup is two array
//! reads, where a hash map of `Ref` pays a hash and a probe into a table that outgrows the caches
//! as the module grows (the SPIR-V writer looks up every entity's state many times).

use rustc_hash::FxHashMap;

use super::{EntityKind, Module, Ref};

pub struct RefMap<T> {
    /// Where each kind's slots begin in `slots`, and how many it has (the module's count).
    base: [(usize, usize); EntityKind::TABLE.len()],
    slots: Vec<Option<T>>,
    /// References past the module's arenas (a module not verified): kept aside.
    beyond: FxHashMap<Ref, T>,
}

impl<T> RefMap<T> {
    /// An empty map with a slot for every entity of `m`.
    pub fn new(m: &Module) -> Self {
        let mut base = [(0, 0); EntityKind::TABLE.len()];
        let mut at = 0;
        for (kind, _, _) in EntityKind::TABLE {
            let n = m.count(kind);
            base[kind as usize] = (at, n);
            at += n;
        }
        RefMap {
            base,
            slots: std::iter::repeat_with(|| None).take(at).collect(),
            beyond: FxHashMap::default(),
        }
    }

    fn slot(&self, r: Ref) -> Option<usize> {
        let (at, n) = self.base[r.kind() as usize];
        (r.index() < n).then(|| at + r.index())
    }

    pub fn get(&self, r: &Ref) -> Option<&T> {
        match self.slot(*r) {
            Some(i) => self.slots[i].as_ref(),
            None => self.beyond.get(r),
        }
    }

    pub fn contains_key(&self, r: &Ref) -> bool {
        self.get(r).is_some()
    }

    pub fn insert(&mut self, r: Ref, v: T) {
        match self.slot(r) {
            Some(i) => self.slots[i] = Some(v),
            None => {
                self.beyond.insert(r, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Handle, Module};

    #[test]
    fn keeps_each_kind_apart_and_takes_references_past_the_module() {
        let m: Module = crate::ir::text::parse(
            "; dwarv-ir 1\nf0 = file \"a.c\"\nf1 = file \"b.c\"\n",
            "test.dwir",
        )
        .unwrap();
        let mut map = RefMap::new(&m);
        map.insert(Ref::File(Handle::new(1)), 7);
        map.insert(Ref::Type(Handle::new(0)), 8);
        map.insert(Ref::File(Handle::new(5)), 9);
        assert_eq!(map.get(&Ref::File(Handle::new(1))), Some(&7));
        assert_eq!(map.get(&Ref::File(Handle::new(0))), None);
        assert_eq!(map.get(&Ref::Type(Handle::new(0))), Some(&8));
        assert_eq!(map.get(&Ref::File(Handle::new(5))), Some(&9));
        assert!(!map.contains_key(&Ref::Unit(Handle::new(0))));
    }
}
