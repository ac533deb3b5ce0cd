//! The head (header and module-level section) as pass 2 writes it: which ids it holds so far,
//! the new ids and OpStrings it adds, and the ledger of its repairs. Pass 2 and the conversion
//! into another set (`to_set`) both write through it.

use rspirv::spirv::Op;

use crate::diag::Diagnostics;
use crate::spirv::binary::first_word;

use super::kinds::Kind;
use super::tables::Tables;
use super::words::{words_of, Declined};

/// What the head holds so far, beyond its words.
pub(super) struct Head<'t> {
    pub(super) tables: &'t Tables<'t>,
    /// Ids written, or defined in a function (a bit per id): nothing waits for them.
    done: Vec<u64>,
    /// The OpString "" references use: the module's, or a new one (`new_string`).
    empty_string: u32,
    new_string: bool,
    /// The OpStrings this pass adds (their words), which go at `strings_end`.
    pub(super) added_strings: Vec<u32>,
    pub(super) diagnostics: Diagnostics,
    /// The next id free (the bound once the pass is done): new ids (the OpString "", and into
    /// another set its constants and definitions) are taken from the input's bound on, skipping
    /// `taken`.
    pub(super) next_id: u32,
    /// The words past the input's bound that the code may use as ids (`Checked::taken`; sorted),
    /// and how many of them `next_id` has passed.
    taken: &'t [u32],
    taken_at: usize,
}

impl<'t> Head<'t> {
    /// An empty head for the module `tables` indexes, its new ids skipping `taken`.
    pub(super) fn new(tables: &'t Tables<'t>, taken: &'t [u32]) -> Self {
        Head {
            tables,
            done: tables.in_functions.clone(),
            empty_string: tables.empty_string,
            new_string: false,
            added_strings: Vec::new(),
            diagnostics: Diagnostics::default(),
            next_id: tables.def.len() as u32,
            taken,
            taken_at: 0,
        }
    }

    /// Written, or defined in a function (where nothing waits for it).
    pub(super) fn done(&self, id: u32) -> bool {
        self.done
            .get(id as usize / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub(super) fn mark_written(&mut self, id: u32) {
        self.done[id as usize / 64] |= 1 << (id % 64);
    }

    /// `Tables::kind_of`, knowing the OpString this pass adds.
    pub(super) fn kind_of(&self, id: u32) -> Kind {
        match self.new_string && id == self.empty_string {
            true => Kind::String,
            false => self.tables.kind_of(id),
        }
    }

    /// The id of an OpString "": the module's own, else one added (`new_string`).
    pub(super) fn empty_string(&mut self) -> Result<u32, Declined> {
        if self.empty_string == 0 {
            self.empty_string = self.add_string("")?;
            self.new_string = true;
        }
        Ok(self.empty_string)
    }

    /// A new OpString `s` (it goes at `strings_end`), and its id.
    pub(super) fn add_string(&mut self, s: &str) -> Result<u32, Declined> {
        let id = self.new_id()?;
        let at = self.added_strings.len();
        self.added_strings.extend([0, id]);
        self.added_strings.extend(words_of(s));
        self.added_strings[at] = first_word(self.added_strings.len() - at, Op::String);
        Ok(id)
    }

    /// A new id, none of the words the code may use as ids (the bound grows past it).
    pub(super) fn new_id(&mut self) -> Result<u32, Declined> {
        self.next_id = free_from(self.taken, &mut self.taken_at, self.next_id);
        if self.next_id == u32::MAX {
            return Err(Declined("no id free for a new instruction"));
        }
        self.next_id += 1;
        Ok(self.next_id - 1)
    }
}

/// The first id from `id` on that `taken` (sorted) has not (`u32::MAX` at the end of the id
/// space). `at` counts the words of `taken` passed: ids only grow, so those are passed for good.
fn free_from(taken: &[u32], at: &mut usize, mut id: u32) -> u32 {
    let rest = &taken[*at..];
    let mut k = rest.partition_point(|&t| t < id);
    while rest.get(k) == Some(&id) && id < u32::MAX {
        id += 1;
        k += 1;
    }
    *at += k;
    id
}

#[cfg(test)]
mod tests {
    use super::free_from;

    /// New ids pass over runs of taken words, and each taken word once.
    #[test]
    fn new_ids_skip_the_taken_words() {
        let taken = [29, 30, 32, 40, u32::MAX - 1, u32::MAX];
        let (mut at, mut next, mut given) = (0, 29, Vec::new());
        for _ in 0..5 {
            let id = free_from(&taken, &mut at, next);
            given.push(id);
            next = id + 1;
        }
        assert_eq!(given, [31, 33, 34, 35, 36]);
        assert_eq!(at, 3);
        assert_eq!(free_from(&taken, &mut at, 40), 41);
        assert_eq!(free_from(&taken, &mut at, u32::MAX - 1), u32::MAX);
        assert_eq!(at, taken.len() - 1);
    }
}
