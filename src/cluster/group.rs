//! The state the cross-worker checks keep per group: per generation (of
//! an epoch) each worker's assignment and live instances, with indexes.

use super::RETIRE_MARGIN_MS;
use super::leavers::Earlier;
use crate::model::{Resource, SourceId, SourceLine, Timestamp};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub(super) struct Mark {
    /// Identifies the instance: its start line, or the assignment it is
    /// held from.
    pub(super) instance: SourceLine,
    /// From this line on it is live in this generation.
    pub(super) from: SourceLine,
    /// Stopped at this line in this generation.
    pub(super) until: Option<SourceLine>,
}

/// The live instances of one worker in one generation, sorted by resource
/// (a few dozen at most: a vector beats a tree here), each with the id its
/// group gave the resource ([`Group::id`]): other workers' instances are
/// found by id, without comparing names.
#[derive(Debug, Default)]
pub(super) struct Live(Vec<(Resource, u32, Mark)>);

impl Live {
    /// From resources sorted without repeats, each with its id.
    pub(super) fn sorted(items: Vec<(Resource, u32, Mark)>) -> Live {
        Live(items)
    }
    fn find(&self, r: &Resource) -> Result<usize, usize> {
        self.0.binary_search_by(|(x, _, _)| x.cmp(r))
    }
    /// The mark of the resource with id `id`.
    pub(super) fn by_id(&self, id: u32) -> Option<&Mark> {
        self.0.iter().find(|x| x.1 == id).map(|x| &x.2)
    }
    pub(super) fn get_mut(&mut self, r: &Resource) -> Option<&mut Mark> {
        self.find(r).ok().map(|i| &mut self.0[i].2)
    }
    /// Sets the mark (replacing one there).
    pub(super) fn insert(&mut self, r: Resource, id: u32, m: Mark) {
        match self.find(&r) {
            Ok(i) => self.0[i].2 = m,
            Err(i) => self.0.insert(i, (r, id, m)),
        }
    }
    /// Sets the mark unless one is there.
    pub(super) fn insert_new(&mut self, r: &Resource, id: u32, m: impl FnOnce() -> Mark) {
        if let Err(i) = self.find(r) {
            self.0.insert(i, (r.clone(), id, m()));
        }
    }
    pub(super) fn remove(&mut self, r: &Resource) {
        if let Ok(i) = self.find(r) {
            self.0.remove(i);
        }
    }
    /// Resources (in order) with their ids and marks.
    pub(super) fn all(&self) -> impl Iterator<Item = &(Resource, u32, Mark)> {
        self.0.iter()
    }
    /// Resources (in order) with their ids.
    pub(super) fn ids(&self) -> impl Iterator<Item = (&Resource, u32)> {
        self.0.iter().map(|(r, id, _)| (r, *id))
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = (&Resource, &Mark)> {
        self.0.iter().map(|(r, _, m)| (r, m))
    }
    pub(super) fn marks(&self) -> impl Iterator<Item = &Mark> {
        self.0.iter().map(|(_, _, m)| m)
    }
    pub(super) fn marks_mut(&mut self) -> impl Iterator<Item = &mut Mark> {
        self.0.iter_mut().map(|(_, _, m)| m)
    }
}

#[derive(Debug)]
pub(super) struct Entry {
    pub(super) line: SourceLine,
    pub(super) cluster: Option<Arc<str>>,
    /// Sorted, without repeats.
    pub(super) assigned: Arc<[Resource]>,
    pub(super) leader: String,
    pub(super) offset: i64,
    pub(super) error: i32,
    pub(super) live: Live,
    /// The ids ([`Group::text_id`]) of its Kafka cluster (`NONE`: none)
    /// and its leader (`NONE`: `null`), compared for
    /// [`super::generation::comparable`] without comparing texts.
    pub(super) cluster_id: u32,
    pub(super) leader_id: u32,
}

impl Entry {
    pub(super) fn assigns(&self, r: &Resource) -> bool {
        self.assigned.binary_search(r).is_ok()
    }
}

#[derive(Debug, Default)]
pub(super) struct Bucket {
    pub(super) first_ts: Option<Timestamp>,
    pub(super) last_ts: Option<Timestamp>,
    pub(super) entries: BTreeMap<usize, Entry>,
    /// Conflicts reported: the resource's id ([`Group::id`]; `NONE`:
    /// an offset or leader conflict) and the pair of workers.
    pub(super) conflicts: HashSet<(u32, usize, usize)>,
    /// Index: the workers whose assignment holds a resource.
    pub(super) holders: Index,
    /// Index: the workers on which a resource is live in this generation.
    pub(super) runners: Index,
}

/// No worker, no link, no text.
pub(super) const NONE: u32 = u32::MAX;

/// The workers per resource id of one generation, in the order they came
/// (kept for every assignment line of the generation, also one a worker
/// replaced by a later line). Nearly always one worker per resource: it is
/// held in the slot of the id; the others in a list linked from there.
/// Plain integers: dropping an index frees two vectors.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// Per id: the first worker and the link to the next (`NONE`: none).
    heads: Vec<(u32, u32)>,
    /// More workers: (worker, link to the next).
    more: Vec<(u32, u32)>,
}

impl Index {
    /// Room for the ids `0..n` without growing.
    pub(super) fn reserve(&mut self, n: usize) {
        self.heads.reserve(n.saturating_sub(self.heads.len()));
    }

    /// Adds worker `w` to resource `id` (once).
    pub(super) fn add(&mut self, id: u32, w: usize) {
        let (i, w) = (id as usize, w as u32);
        if i >= self.heads.len() {
            self.heads.resize(i + 1, (NONE, NONE));
        }
        let head = &mut self.heads[i];
        if head.0 == NONE {
            head.0 = w;
            return;
        }
        if head.0 == w {
            return;
        }
        let new = self.more.len() as u32;
        if head.1 == NONE {
            head.1 = new;
            self.more.push((w, NONE));
            return;
        }
        let mut at = head.1 as usize;
        loop {
            let (x, next) = self.more[at];
            if x == w {
                return;
            }
            if next == NONE {
                self.more[at].1 = new;
                self.more.push((w, NONE));
                return;
            }
            at = next as usize;
        }
    }

    /// The workers of resource `id` (none when absent), in the order
    /// they came.
    pub(super) fn workers(&self, id: u32) -> impl Iterator<Item = usize> + '_ {
        let (first, mut link) = self.heads.get(id as usize).copied().unwrap_or((NONE, NONE));
        (first != NONE)
            .then_some(first as usize)
            .into_iter()
            .chain(std::iter::from_fn(move || {
                let &(w, next) = self.more.get(link as usize)?;
                link = next;
                Some(w as usize)
            }))
    }
}

/// Where a worker of a group stands.
#[derive(Debug, Default)]
pub(super) struct WState {
    /// The generation it is in (`None`: not yet known, or reset by a
    /// restart).
    pub(super) generation: Option<i32>,
    /// The epoch of the group it is in (see [`Group::epoch_of`]).
    pub(super) epoch: u32,
    pub(super) position: Option<Timestamp>,
    pub(super) ended: bool,
    /// Its latest assigned resources and their ids: the next assignment
    /// (nearly the same set, the same names) takes its ids from them by a
    /// walk instead of hashing each name.
    pub(super) last: Option<(Arc<[Resource]>, Vec<u32>)>,
}

/// The state of one group.
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) workers: BTreeMap<usize, WState>,
    /// Facts of the group fed so far (retirement runs every
    /// [`RETIRE_EVERY`] of them: a point that depends on the group's facts
    /// alone, so that checking groups apart or together agrees).
    pub(super) fed: u64,
    /// The latest log time any fact of the group showed.
    pub(super) newest: Option<Timestamp>,
    /// The latest epoch and the highest generation seen in it.
    pub(super) epoch: u32,
    pub(super) max_generation: Option<i32>,
    /// Per (epoch, generation).
    pub(super) buckets: BTreeMap<(u32, i32), Bucket>,
    /// Duplicate episodes already reported: resource and both instances.
    pub(super) episodes: HashSet<super::Episode>,
    /// Pairs of workers (lower index first) seen in one generation with
    /// comparable assignments: they are members of one cluster.
    pub(super) peers: HashSet<(usize, usize)>,
    /// Workers that left without revoking, and what they kept running.
    pub(super) leavers: super::leavers::Leavers,
    /// Instances kept from before a worker's log began
    /// ([`crate::replay::FactKind::KeptFromBefore`]) whose duplicates
    /// with a worker not yet known to be of its cluster wait for the
    /// generations that show it.
    pub(super) kept_from_before: Vec<KeptFromBefore>,
    /// A dense id per resource the group's facts named (the same name
    /// from two workers is two allocations: compared once here, by
    /// value), for the generations' indexes.
    pub(super) ids: HashMap<Resource, u32>,
    /// The same for cluster ids and leaders.
    pub(super) texts: HashMap<Arc<str>, u32>,
    /// The two texts asked for last, with their ids: a group's members
    /// name one cluster and, per generation, one leader, found again
    /// without hashing them.
    pub(super) recent_texts: [Option<(Arc<str>, u32)>; 2],
    /// A buffer of ids, reused from fact to fact.
    pub(super) scratch: Vec<u32>,
    /// What laggards may still need of the generations retired past them.
    pub(super) lagging: Lagging,
}

/// Facts of a group between two retirements of its old generations.
pub(super) const RETIRE_EVERY: u64 = 256;

impl Group {
    /// The epoch an assignment of generation `g` by worker `w` belongs to.
    /// A group emptied and created again starts at generation 1: a
    /// generation below the worker's own previous one, or (for a worker
    /// that just (re)started) well below the highest of the group's latest
    /// epoch, starts a new epoch, or joins the one a peer already started.
    /// A worker lagging behind the others (reporting a generation it was
    /// still in, or one just below the group's highest: clocks of two hosts
    /// differ) stays where it is.
    pub(super) fn epoch_of(&mut self, w: usize, g: i32) -> u32 {
        let latest = self.epoch;
        let max = self.max_generation;
        let ws = self.workers.entry(w).or_default();
        let fresh = ws.generation.is_none();
        let regress = ws.generation.is_some_and(|x| g < x);
        let below = max.is_some_and(|m| g.saturating_add(1) < m);
        if regress || (fresh && below) {
            if ws.epoch == latest {
                // The first worker of a new epoch.
                self.epoch += 1;
                self.max_generation = None;
            }
            ws.epoch = self.epoch;
        } else if fresh && ws.epoch < latest {
            ws.epoch = latest;
        }
        let e = ws.epoch;
        if e == self.epoch {
            self.max_generation = Some(self.max_generation.map_or(g, |m| m.max(g)));
        }
        e
    }

    /// The id of resource `r` in this group.
    pub(super) fn id(&mut self, r: &Resource) -> u32 {
        if let Some(&id) = self.ids.get(r) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(r.clone(), id);
        id
    }

    /// The id of a Kafka cluster id or a leader in this group (no
    /// cluster: [`NONE`]).
    pub(super) fn text_id(&mut self, t: Option<&str>) -> u32 {
        let Some(t) = t else {
            return NONE;
        };
        for (text, id) in self.recent_texts.iter().flatten() {
            if **text == *t {
                return *id;
            }
        }
        let (text, id) = match self.texts.get_key_value(t) {
            Some((text, &id)) => (text.clone(), id),
            None => {
                let id = self.texts.len() as u32;
                let text: Arc<str> = Arc::from(t);
                self.texts.insert(text.clone(), id);
                (text, id)
            }
        };
        // The older of the two gives way.
        self.recent_texts.swap(0, 1);
        self.recent_texts[0] = Some((text, id));
        id
    }

    /// The key of the generation worker `w` is in.
    pub(super) fn current(&self, w: usize) -> Option<(u32, i32)> {
        let ws = self.workers.get(&w)?;
        Some((ws.epoch, ws.generation?))
    }

    /// The ids of what worker `w`'s own generation assigns it or it runs,
    /// when it is behind a later generation of its epoch (a laggard);
    /// sorted.
    fn wants(&self, w: usize) -> Option<Vec<u32>> {
        let ws = self.workers.get(&w).filter(|ws| !ws.ended)?;
        let g = ws.generation?;
        // Only a worker behind a generation of its epoch lags.
        self.buckets
            .range((ws.epoch, g.saturating_add(1))..=(ws.epoch, i32::MAX))
            .next()?;
        let e = self.buckets.get(&(ws.epoch, g))?.entries.get(&w)?;
        // The ids of its assignment are those its worker keeps for the
        // next (the same list), else the group's.
        let mut ids: Vec<u32> = match &ws.last {
            Some((assigned, ids)) if Arc::ptr_eq(assigned, &e.assigned) => ids.clone(),
            _ => e
                .assigned
                .iter()
                .filter_map(|r| self.ids.get(r).copied())
                .collect(),
        };
        ids.extend(e.live.all().filter(|x| x.2.until.is_none()).map(|x| x.1));
        ids.sort_unstable();
        ids.dedup();
        Some(ids)
    }

    /// Forgets generations no fact can concern any more: every worker of
    /// the group has moved past them (a later generation, or a later epoch)
    /// or ended, or the group's log time is [`RETIRE_MARGIN_MS`] past their
    /// last assignment line.
    ///
    /// A worker still in an earlier generation of the epoch (a laggard:
    /// stopped, crashed, frozen) does not hold a generation back once every
    /// other worker went past it. The generation is closed: its members
    /// rejoined for the next one or were removed, and the laggard, which
    /// logged no assignment of it, was no member. What a later line of the
    /// laggard can still need from it is only what its departure compares
    /// (a frozen worker logs it when it resumes, [`super::leavers`]): the
    /// others' instances of the resources its own generation assigns it or
    /// it runs. Those are kept ([`Lagging`]), the rest goes.
    pub(super) fn retire(&mut self) {
        let newest = self.newest;
        // Which generations go: stale ones, and those every worker passed
        // (with the laggards they leave behind).
        let mut stale_keys = Vec::new();
        let mut passed_keys: Vec<((u32, i32), Vec<usize>)> = Vec::new();
        for (&(epoch, generation), b) in &self.buckets {
            let stale =
                matches!((newest, b.last_ts), (Some(p), Some(l)) if p.0 > l.0 + RETIRE_MARGIN_MS);
            if stale {
                stale_keys.push((epoch, generation));
                continue;
            }
            let mut laggards = Vec::new();
            let passed = self.workers.iter().all(|(&w, ws)| {
                let past = ws.ended
                    || ws.epoch > epoch
                    || (ws.epoch == epoch && ws.generation.is_some_and(|x| x > generation));
                let behind = ws.epoch == epoch && ws.generation.is_some_and(|x| x < generation);
                if behind {
                    laggards.push(w);
                }
                past || behind
            });
            if passed {
                passed_keys.push(((epoch, generation), laggards));
            }
        }
        // What each laggard's own generation assigns it or it runs: what
        // its departure compares (found before any generation goes).
        let mut wants: BTreeMap<usize, Option<Vec<u32>>> = BTreeMap::new();
        for &w in passed_keys.iter().flat_map(|(_, l)| l) {
            wants.entry(w).or_insert_with(|| self.wants(w));
        }
        for key in stale_keys {
            self.buckets.remove(&key);
        }
        for (key, laggards) in passed_keys {
            let Some(b) = self.buckets.remove(&key) else {
                continue;
            };
            for w in laggards {
                if let (Some(Some(rs)), Some(g)) = (wants.get(&w), self.workers[&w].generation) {
                    self.lagging.keep(w, (key.0, g), rs, key, &b);
                }
            }
        }
        let workers = &self.workers;
        let lagging = &mut self.lagging;
        lagging.retire(workers, newest);
        self.leavers.retire(newest);
        if !self.episodes.is_empty() {
            // An episode recurs only while both its instances run: forget
            // those of which one is no longer live anywhere.
            let live: HashSet<(SourceId, u64)> = self
                .buckets
                .values()
                .flat_map(|b| b.entries.values())
                .flat_map(|e| e.live.marks().map(|m| (m.instance.source, m.instance.line)))
                .chain(self.leavers.instances())
                .collect();
            self.episodes
                .retain(|(_, a, b)| live.contains(a) && live.contains(b));
        }
    }
}

/// The instances a laggard's departure may still compare, from the
/// generations retired past it ([`Group::retire`]): per laggard, the
/// others' instances of the resources it holds, once each (the earliest
/// generation that showed it), with the last assignment time of that
/// generation (forgotten [`RETIRE_MARGIN_MS`] after it, as the generation
/// itself would have been).
#[derive(Debug, Default)]
pub(super) struct Lagging(BTreeMap<usize, LaggardKept>);

type EarlierKey = (usize, Resource, (SourceId, u64), Option<Arc<str>>);

#[derive(Debug, Default)]
pub(super) struct LaggardKept {
    /// The epoch and generation the laggard was in.
    at: (u32, i32),
    /// (other worker, resource, its instance's line, its cluster) → the
    /// instance and its generation's last assignment time.
    seen: HashMap<EarlierKey, (Option<Timestamp>, Earlier)>,
}

impl Lagging {
    /// Generation `key` (bucket `b`) retires past laggard `w`: the others'
    /// instances of what `w`'s own generation assigns it or it runs.
    pub(super) fn keep(
        &mut self,
        w: usize,
        at: (u32, i32),
        wants: &[u32],
        key: (u32, i32),
        b: &Bucket,
    ) {
        let kept = self.0.entry(w).or_default();
        if kept.at != at {
            kept.at = at;
            kept.seen.clear();
        }
        for (&o, e) in &b.entries {
            if o == w {
                continue;
            }
            for (r, id, m) in e.live.all() {
                if wants.binary_search(id).is_err() {
                    continue;
                }
                let k = (
                    o,
                    r.clone(),
                    (m.instance.source, m.instance.line),
                    e.cluster.clone(),
                );
                let earlier = Earlier {
                    other: o,
                    generation: key.1,
                    resource: r.clone(),
                    start: m.instance.clone(),
                    cluster: e.cluster.clone(),
                };
                // The earliest generation that showed it is the one its
                // departure would have met first.
                match kept.seen.get_mut(&k) {
                    Some(x) if x.1.generation > key.1 => *x = (b.last_ts, earlier),
                    Some(_) => {}
                    None => {
                        kept.seen.insert(k, (b.last_ts, earlier));
                    }
                }
            }
        }
    }

    /// Forgets what no laggard can use: a laggard that moved on (another
    /// generation or epoch), ended or restarted; instances whose
    /// generation is [`RETIRE_MARGIN_MS`] old.
    pub(super) fn retire(&mut self, workers: &BTreeMap<usize, WState>, newest: Option<Timestamp>) {
        self.0.retain(|w, kept| {
            let Some(ws) = workers.get(w) else {
                return false;
            };
            if ws.ended || Some(kept.at) != ws.generation.map(|g| (ws.epoch, g)) {
                return false;
            }
            kept.seen.retain(|_, (last, _)| {
                !matches!((newest, *last), (Some(p), Some(l)) if p.0 > l.0 + RETIRE_MARGIN_MS)
            });
            !kept.seen.is_empty()
        });
    }

    /// The instances kept for laggard `w` in `at`, of generations after
    /// it.
    pub(super) fn of(&self, w: usize, at: (u32, i32)) -> impl Iterator<Item = &Earlier> {
        self.0
            .get(&w)
            .filter(|k| k.at == at)
            .into_iter()
            .flat_map(|k| k.seen.values().map(|(_, e)| e))
    }

    #[cfg(test)]
    /// Instances kept (memory bound).
    pub(super) fn len(&self) -> usize {
        self.0.values().map(|k| k.seen.len()).sum()
    }
}

/// An instance a worker whose log starts mid-life ran from before its log
/// began until `stop`, through its departure `left` from generation
/// `generation` (the replay's [`crate::replay::FactKind::KeptFromBefore`]),
/// judged in `kept.rs`.
#[derive(Debug, Clone)]
pub(super) struct KeptFromBefore {
    pub(super) w: usize,
    pub(super) resource: Resource,
    pub(super) generation: i32,
    pub(super) left: SourceLine,
    pub(super) stop: SourceLine,
    pub(super) cluster: Option<Arc<str>>,
    /// The other workers whose duplicate with it was already judged.
    pub(super) judged: Vec<usize>,
}
