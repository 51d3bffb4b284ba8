//! The state the cross-worker checks keep per group: per generation (of
//! an epoch) each worker's assignment and live instances, with indexes.

use super::RETIRE_MARGIN_MS;
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
/// (a few dozen at most: a vector beats a tree here).
#[derive(Debug, Default)]
pub(super) struct Live(pub(super) Vec<(Resource, Mark)>);

impl Live {
    pub(super) fn find(&self, r: &Resource) -> Result<usize, usize> {
        self.0.binary_search_by(|(x, _)| x.cmp(r))
    }
    pub(super) fn get(&self, r: &Resource) -> Option<&Mark> {
        self.find(r).ok().map(|i| &self.0[i].1)
    }
    pub(super) fn get_mut(&mut self, r: &Resource) -> Option<&mut Mark> {
        self.find(r).ok().map(|i| &mut self.0[i].1)
    }
    /// Sets the mark (replacing one there).
    pub(super) fn insert(&mut self, r: Resource, m: Mark) {
        match self.find(&r) {
            Ok(i) => self.0[i].1 = m,
            Err(i) => self.0.insert(i, (r, m)),
        }
    }
    /// Sets the mark unless one is there.
    pub(super) fn insert_new(&mut self, r: &Resource, m: impl FnOnce() -> Mark) {
        if let Err(i) = self.find(r) {
            self.0.insert(i, (r.clone(), m()));
        }
    }
    pub(super) fn remove(&mut self, r: &Resource) {
        if let Ok(i) = self.find(r) {
            self.0.remove(i);
        }
    }
    pub(super) fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.0.iter().map(|(r, _)| r)
    }
    pub(super) fn marks_mut(&mut self) -> impl Iterator<Item = &mut Mark> {
        self.0.iter_mut().map(|(_, m)| m)
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
    pub(super) conflicts: HashSet<(Option<Resource>, usize, usize)>,
    /// Index: the workers whose assignment holds a resource.
    pub(super) holders: HashMap<Resource, Workers>,
    /// Index: the workers on which a resource is live in this generation.
    pub(super) runners: HashMap<Resource, Workers>,
}

impl Bucket {
    pub(super) fn index(map: &mut HashMap<Resource, Workers>, r: &Resource, w: usize) {
        // Nearly always new to the generation (assignments are disjoint):
        // one lookup that inserts.
        map.entry(r.clone())
            .and_modify(|ws| ws.add(w))
            .or_insert_with(|| Workers {
                first: w,
                more: Vec::new(),
            });
    }
}

/// The workers of an index entry: nearly always one, so no allocation
/// until a second comes.
#[derive(Debug)]
pub(super) struct Workers {
    first: usize,
    more: Vec<usize>,
}

impl Workers {
    pub(super) fn add(&mut self, w: usize) {
        if self.first != w && !self.more.contains(&w) {
            self.more.push(w);
        }
    }
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }
}

/// The workers an index holds for `r` (none when absent).
pub(super) fn workers_of<'a>(
    map: &'a HashMap<Resource, Workers>,
    r: &Resource,
) -> impl Iterator<Item = usize> + 'a {
    map.get(r).into_iter().flat_map(Workers::iter)
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
    pub(super) episodes: HashSet<Episode>,
    /// Pairs of workers (lower index first) seen in one generation with
    /// comparable assignments: they are members of one cluster.
    pub(super) peers: HashSet<(usize, usize)>,
    /// Workers that left without revoking, and what they kept running.
    pub(super) leavers: super::leavers::Leavers,
    /// The largest holders and runners indexes of a generation so far
    /// (the capacity a new generation's indexes start with).
    pub(super) index_sizes: (usize, usize),
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

    /// The key of the generation worker `w` is in.
    pub(super) fn current(&self, w: usize) -> Option<(u32, i32)> {
        let ws = self.workers.get(&w)?;
        Some((ws.epoch, ws.generation?))
    }

    /// Forgets generations no fact can concern any more: every worker of
    /// the group has moved past them (a later generation, or a later epoch)
    /// or ended, or the group's log time is [`RETIRE_MARGIN_MS`] past their
    /// last assignment line.
    pub(super) fn retire(&mut self) {
        let workers = &self.workers;
        let newest = self.newest;
        self.buckets.retain(|&(epoch, generation), b| {
            let passed = workers.values().all(|ws| {
                ws.ended
                    || ws.epoch > epoch
                    || (ws.epoch == epoch && ws.generation.is_some_and(|x| x > generation))
            });
            let stale =
                matches!((newest, b.last_ts), (Some(p), Some(l)) if p.0 > l.0 + RETIRE_MARGIN_MS);
            !(passed || stale)
        });
        self.leavers.retire(newest);
        if !self.episodes.is_empty() {
            // An episode recurs only while both its instances run: forget
            // those of which one is no longer live anywhere.
            let live: HashSet<(SourceId, u64)> = self
                .buckets
                .values()
                .flat_map(|b| b.entries.values())
                .flat_map(|e| {
                    e.live
                        .0
                        .iter()
                        .map(|(_, m)| (m.instance.source, m.instance.line))
                })
                .chain(self.leavers.instances())
                .collect();
            self.episodes
                .retain(|(_, a, b)| live.contains(a) && live.contains(b));
        }
    }
}

/// A duplicate episode: the resource and both instances (their lines).
pub(super) type Episode = (Resource, (SourceId, u64), (SourceId, u64));
