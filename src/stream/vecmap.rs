//! A map of a few entries (a stream's replays, its herders), kept in key
//! order in a vector and searched with a borrowed key: a file holds one
//! stream or a few, and every line looks its replay up, so the lookup
//! builds no owned key and walks no tree.

use std::cmp::Ordering;

/// Entries in key order; looked up by a probe that compares a stored key
/// with the one sought (`Ordering` of the stored key against it).
#[derive(Debug)]
pub(super) struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> VecMap<K, V> {
        VecMap {
            entries: Vec::new(),
        }
    }
}

impl<K, V> VecMap<K, V> {
    #[inline(always)]
    fn search(&self, probe: impl Fn(&K) -> Ordering) -> Result<usize, usize> {
        // One entry nearly always: compared once.
        if let [(k, _)] = self.entries.as_slice() {
            return match probe(k) {
                Ordering::Equal => Ok(0),
                Ordering::Less => Err(1),
                Ordering::Greater => Err(0),
            };
        }
        self.entries.binary_search_by(|(k, _)| probe(k))
    }

    #[inline(always)]
    pub(super) fn get(&self, probe: impl Fn(&K) -> Ordering) -> Option<&V> {
        self.search(probe).ok().map(|i| &self.entries[i].1)
    }

    #[inline(always)]
    pub(super) fn get_mut(&mut self, probe: impl Fn(&K) -> Ordering) -> Option<&mut V> {
        self.search(probe).ok().map(|i| &mut self.entries[i].1)
    }

    #[inline(always)]
    pub(super) fn contains(&self, probe: impl Fn(&K) -> Ordering) -> bool {
        self.search(probe).is_ok()
    }

    /// The value at the key `probe` seeks, made (`make`: its key, which
    /// `probe` must find equal, and value) when there is none.
    #[inline(always)]
    pub(super) fn get_or_insert_with(
        &mut self,
        probe: impl Fn(&K) -> Ordering,
        make: impl FnOnce() -> (K, V),
    ) -> &mut V {
        let i = match self.search(probe) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, make());
                i
            }
        };
        &mut self.entries[i].1
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// The probe of a replay's key: stream label and herder.
#[inline(always)]
pub(super) fn slot(
    stream: Option<&str>,
    herder: u32,
) -> impl Fn(&(Option<String>, u32)) -> Ordering {
    move |k| (k.0.as_deref(), k.1).cmp(&(stream, herder))
}

/// The probe of a replay's key as stored.
#[inline(always)]
pub(super) fn slot_of(key: &(Option<String>, u32)) -> impl Fn(&(Option<String>, u32)) -> Ordering {
    slot(key.0.as_deref(), key.1)
}

/// The probe of a stream label.
#[inline(always)]
pub(super) fn label(stream: Option<&str>) -> impl Fn(&Option<String>) -> Ordering {
    move |k| k.as_deref().cmp(&stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn keeps_the_order_and_answers_of_a_btree_map() {
        let keys: Vec<(Option<String>, u32)> = vec![
            (Some("b".into()), 1),
            (None, 0),
            (Some("a".into()), 0),
            (Some("b".into()), 0),
            (None, 2),
            (Some("a".into()), 0),
            (None, 1),
        ];
        let mut tree = BTreeMap::new();
        let mut map = VecMap::default();
        for (n, k) in keys.iter().enumerate() {
            tree.entry(k.clone()).or_insert(n);
            let probe = slot(k.0.as_deref(), k.1);
            map.get_or_insert_with(&probe, || (k.clone(), n));
            assert!(map.contains(&probe));
        }
        let walked: Vec<_> = map.keys().cloned().zip(map.values().copied()).collect();
        let expected: Vec<_> = tree.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(walked, expected);
        for k in [(None, 0), (Some("a"), 1), (Some("c"), 0), (Some("b"), 1)] {
            assert_eq!(
                map.get(slot(k.0, k.1)),
                tree.get(&(k.0.map(str::to_string), k.1))
            );
        }
    }
}
