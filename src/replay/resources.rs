//! What one worker's replay knows of each resource, with the set of live
//! instances kept sorted between changes: every assignment fact carries
//! it, and most assignments follow one that left the map as it was.

use crate::model::{Resource, SourceLine};
use crate::state::ResState;
use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Default)]
pub(super) struct ResourceMap {
    map: HashMap<Resource, ResState>,
    /// The live resources (sorted) and the line each is live since, as of
    /// the last change of `map` (`None`: changed since).
    live: Option<Vec<(Resource, SourceLine)>>,
}

impl ResourceMap {
    pub fn get(&self, r: &Resource) -> Option<&ResState> {
        self.map.get(r)
    }

    pub fn get_mut(&mut self, r: &Resource) -> Option<&mut ResState> {
        self.live = None;
        self.map.get_mut(r)
    }

    pub fn insert(&mut self, r: Resource, st: ResState) -> Option<ResState> {
        self.live = None;
        self.map.insert(r, st)
    }

    pub fn clear(&mut self) {
        self.live = None;
        self.map.clear();
    }

    pub fn retain(&mut self, keep: impl FnMut(&Resource, &mut ResState) -> bool) {
        self.live = None;
        self.map.retain(keep);
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Resource, &ResState)> {
        self.map.iter()
    }

    /// The live resources, sorted, each with the line it is live since.
    pub fn live(&mut self) -> Vec<(Resource, SourceLine)> {
        if let Some(v) = &self.live {
            return v.clone();
        }
        // Counted first, so that the vector is allocated once, at its size.
        let n = self.map.values().filter(|s| s.is_live()).count();
        let mut v = Vec::with_capacity(n);
        v.extend(
            self.map
                .iter()
                .filter_map(|(r, s)| s.live_since().map(|l| (r.clone(), l.clone()))),
        );
        // Each resource is in the map once.
        v.sort_unstable_by(|x: &(Resource, SourceLine), y| x.0.cmp(&y.0));
        self.live = Some(v.clone());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SourceId, TaskId};

    fn line(n: u64) -> SourceLine {
        SourceLine {
            source: SourceId(0),
            line: n,
            seq: n,
            ts: None,
            text: "x".into(),
            msg: (0, 1),
        }
    }

    #[test]
    fn the_live_set_is_sorted_and_follows_every_change() {
        let mut m = ResourceMap::default();
        let b = Resource::Task(TaskId::new("b", 0));
        let a = Resource::Task(TaskId::new("a", 1));
        m.insert(b.clone(), ResState::Held { since: line(1) });
        m.insert(a.clone(), ResState::Starting { since: line(2) });
        let live = m.live();
        assert_eq!(live, vec![(a.clone(), line(2)), (b.clone(), line(1))]);
        assert_eq!(m.live(), live);
        m.insert(b.clone(), ResState::Stopped { at: line(3) });
        assert_eq!(m.live(), vec![(a.clone(), line(2))]);
        m.retain(|_, s| !matches!(s, ResState::Starting { .. }));
        assert_eq!(m.live(), vec![]);
        m.insert(a.clone(), ResState::Held { since: line(4) });
        if let Some(s) = m.get_mut(&a) {
            *s = ResState::Stopped { at: line(5) };
        }
        assert_eq!(m.live(), vec![]);
        m.insert(b.clone(), ResState::Held { since: line(6) });
        m.clear();
        assert_eq!(m.live(), vec![]);
    }
}
