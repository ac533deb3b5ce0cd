//! Typed arenas: entities live in vectors and refer to each other by index.
//!
//! A handle is only an index; it may dangle in a module that was parsed from text but not yet
//! validated. Code that runs after [`crate::ir::verify`] may index with [`Arena::get`] freely.

use std::fmt;
use std::marker::PhantomData;

/// Index of a `T` in an [`Arena<T>`].
pub struct Handle<T> {
    index: u32,
    _kind: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub const fn new(index: u32) -> Self {
        Handle {
            index,
            _kind: PhantomData,
        }
    }
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A growable vector of `T` addressed by [`Handle<T>`].
#[derive(Clone, PartialEq)]
pub struct Arena<T> {
    items: Vec<T>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { items: Vec::new() }
    }
}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.items).finish()
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, value: T) -> Handle<T> {
        let index = u32::try_from(self.items.len()).expect("arena holds at most u32::MAX entities");
        self.items.push(value);
        Handle::new(index)
    }
    /// Room for `additional` more entities, allocated at once.
    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve_exact(additional);
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The entity, or `None` when the handle dangles.
    pub fn try_get(&self, handle: Handle<T>) -> Option<&T> {
        self.items.get(handle.index())
    }
    pub fn contains(&self, handle: Handle<T>) -> bool {
        handle.index() < self.items.len()
    }
    /// The entity. Panics on a dangling handle: use on validated modules only.
    pub fn get(&self, handle: Handle<T>) -> &T {
        &self.items[handle.index()]
    }
    pub fn get_mut(&mut self, handle: Handle<T>) -> &mut T {
        &mut self.items[handle.index()]
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Handle<T>, &T)> + '_ {
        self.items
            .iter()
            .enumerate()
            .map(|(i, v)| (Handle::new(i as u32), v))
    }
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }
}
