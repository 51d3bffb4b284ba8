//! A list whose entries keep their index for good while some of them are
//! forgotten: the tracker's interruptions, changes and rebalances, which
//! refer to one another by index, in a long-running audit that drops what
//! can no longer matter (`Tracker::forget`).

use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub(super) struct Sparse<T> {
    kept: BTreeMap<usize, T>,
    /// Entries ever pushed: the next one's index.
    len: usize,
}

impl<T> Default for Sparse<T> {
    fn default() -> Self {
        Sparse {
            kept: BTreeMap::new(),
            len: 0,
        }
    }
}

impl<T> Sparse<T> {
    /// Entries ever pushed (forgotten ones included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Entries kept.
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    pub fn push(&mut self, t: T) {
        self.kept.insert(self.len, t);
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.kept.get(&i)
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.kept.get_mut(&i)
    }

    pub fn forget(&mut self, i: usize) {
        self.kept.remove(&i);
    }

    /// The kept entries with their indices, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (usize, &T)> {
        self.kept.iter().map(|(i, t)| (*i, t))
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.kept.values()
    }

    pub fn into_values(self) -> impl Iterator<Item = T> {
        self.kept.into_values()
    }
}

impl<T> std::ops::Index<usize> for Sparse<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.kept[&i]
    }
}

impl<T> std::ops::IndexMut<usize> for Sparse<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.kept.get_mut(&i).expect("an entry kept")
    }
}
