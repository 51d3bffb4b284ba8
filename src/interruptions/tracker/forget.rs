//! When an interruption is final, and what a long-running audit's tracker
//! (`herder-audit watch`) forgets because no later line can reach it, so
//! that its memory does not grow with the history it read: each
//! interruption once final (it was counted in the metrics at
//! that very log time, `Tracker::settled`), and, once a minute of log
//! time, the history the interruptions still to be settled cannot look up
//! ([`Tracker::sweep`]). What a line can still look up, and why the rest
//! cannot be, is said at each step; what a kept-everything tracker and a
//! sweeping one count is the same (`benches/watch-month-exact.sh` compares
//! the two over the simulated month, every series of `/metrics`).
//!
//! With `HERDER_AUDIT_KEEP_HISTORY` set, a watcher's tracker forgets the
//! final interruptions only (the comparison's reference).

use super::{Group, Seen, Tracker, WorkerState, ts};
use crate::model::SourceId;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Log time between two sweeps of the history.
const SWEEP_EVERY_MS: i64 = 60_000;

/// How far from a worker's latest line (log time) a generation may still
/// gain that worker's assignment line. A member logs its assignment when
/// its SyncGroup completes, within the rebalance timeout of joining
/// (Connect's `rebalance.timeout.ms`, 60 s by default); a worker that froze
/// in between logs it when it wakes, and can have joined only a generation
/// formed within that timeout of its last line. Ten minutes is far past
/// both.
const LATE_ASSIGNMENT_MS: i64 = FINAL_AFTER_MS;

/// How far behind log time a change is kept for stops still to come:
/// `price::change_before` looks from a stop 60 s back (and 1 s on), the
/// same change's sightings reach 30 s, and a stop's fact is handed on at
/// its own line's log time (facts come in key order, the key being their
/// stream's log time when made), so a later stop's line is not older than
/// log time now by more than a start under way holds it back (seconds).
const CHANGES_KEPT_MS: i64 = FINAL_AFTER_MS + 2 * 60_000;

/// `price::change_before`'s reach from a stop: back, and on.
const CHANGE_BEFORE_MS: i64 = 60_000;
const CHANGE_AFTER_MS: i64 = 1_000;

/// After its start, this much log time passes before a closed
/// interruption is counted as it stands even if a line could still change
/// it (a task that never logs that it finished initialization, a silent
/// worker that never logs again).
const FINAL_AFTER_MS: i64 = 10 * 60 * 1000;

/// A change logged up to this long after a stop may still be its cause
/// (`price::change_before` reaches 1 s past the stop).
const CAUSE_REACH_MS: i64 = 1_000;

impl Tracker {
    /// Interruptions recorded so far; their indices never change.
    pub(crate) fn recorded(&self) -> usize {
        self.interruptions.len()
    }

    /// Is interruption `i` final with log time at `now_ms`: closed, and no
    /// later line can change its length or cause? Its task logged that it
    /// runs again (or it is a connector), its worker's fate is no longer
    /// open (a silent worker that may turn out crashed or cut off), and log
    /// time passed its start far enough for a late change; or
    /// [`FINAL_AFTER_MS`] passed its start. `price`'s `Tracker::settled`
    /// settles its cause then.
    pub(in crate::interruptions) fn is_final(&self, i: usize, now_ms: i64) -> bool {
        let Some(it) = self.interruptions.get(i) else {
            return false;
        };
        let Some(to) = &it.to else {
            return false;
        };
        let to = ts(&to.line).unwrap_or(i64::MIN);
        let from = ts(&it.from.line).unwrap_or(i64::MIN);
        let open_fate = || {
            self.groups
                .values()
                .any(|g| g.awaiting.values().any(|&j| j == i))
                || self.workers.values().any(|w| w.fell_silent.contains(&i))
        };
        let last = from.max(to);
        now_ms >= last.saturating_add(FINAL_AFTER_MS)
            || (now_ms >= from.saturating_add(CAUSE_REACH_MS) && now_ms >= to && !open_fate())
    }
}

/// A set of generation numbers, as sorted disjoint ranges (those swept
/// are nearly all one run).
#[derive(Debug, Default, Clone)]
pub(super) struct Generations {
    ranges: Vec<(i32, i32)>,
}

impl Generations {
    pub(super) fn contains(&self, n: i32) -> bool {
        let k = self.ranges.partition_point(|&(a, _)| a <= n);
        k > 0 && self.ranges[k - 1].1 >= n
    }

    fn insert(&mut self, n: i32) {
        let k = self.ranges.partition_point(|&(a, _)| a <= n);
        let joins_before = k > 0 && i64::from(self.ranges[k - 1].1) + 1 >= i64::from(n);
        let joins_after = self
            .ranges
            .get(k)
            .is_some_and(|&(a, _)| i64::from(a) == i64::from(n) + 1);
        match (joins_before, joins_after) {
            (true, true) => {
                let (_, b) = self.ranges.remove(k);
                self.ranges[k - 1].1 = b;
            }
            (true, false) => self.ranges[k - 1].1 = self.ranges[k - 1].1.max(n),
            (false, true) => self.ranges[k].0 = n,
            (false, false) => self.ranges.insert(k, (n, n)),
        }
    }
}

impl Tracker {
    /// Forget from now on what can no longer matter ([`Tracker::forget`]);
    /// the end of the run then prices nothing.
    pub(crate) fn forget_as_it_goes(&mut self) {
        self.forgetful = true;
        self.keep_history = std::env::var_os("HERDER_AUDIT_KEEP_HISTORY").is_some();
    }

    /// With log time at `now_ms`: forgets the interruptions that are final
    /// (the metrics counted each at this log time) and, once a minute of
    /// log time, sweeps the history. Does nothing unless
    /// [`Tracker::forget_as_it_goes`] was called.
    pub(crate) fn forget(&mut self, now_ms: i64) {
        if !self.forgetful {
            return;
        }
        let done: HashSet<usize> = self
            .interruptions
            .iter()
            .map(|(i, _)| i)
            .filter(|&i| self.is_final(i, now_ms))
            .collect();
        if !done.is_empty() {
            for &i in &done {
                self.interruptions.forget(i);
                self.pending.forget(i);
            }
            for g in self.groups.values_mut() {
                g.awaiting.retain(|_, i| !done.contains(i));
            }
            for w in self.workers.values_mut() {
                w.fell_silent.retain(|i| !done.contains(i));
            }
        }
        if !self.keep_history && now_ms >= self.swept_ms.saturating_add(SWEEP_EVERY_MS) {
            self.swept_ms = now_ms;
            self.sweep(now_ms);
        }
    }

    /// Drops the assignment lines, rebalances, anchors and changes that no
    /// kept interruption and no later line can look up.
    fn sweep(&mut self, now_ms: i64) {
        // An assignment line is looked up as a stop's `because` (its
        // rebalance settles the cause): a kept interruption's, or a stop
        // judged later. A worker's replay judges the stops of a rebalance
        // against the assignment line it is reading, and hands on its facts
        // in order, so once a newer assignment line of that worker came,
        // no judgement names an older one: each worker's latest stays.
        let mut wanted: HashSet<(SourceId, u64)> =
            self.workers.values().filter_map(|w| w.assignment).collect();
        for p in self.pending.values() {
            if let Some(b) = &p.because {
                wanted.insert((b.source, b.line));
            }
        }
        let reborn: HashSet<Arc<str>> = self
            .groups
            .iter()
            .filter(|(_, g)| g.reborn)
            .map(|(n, _)| n.clone())
            .collect();
        self.assignment_lines
            .retain(|k, (g, _)| wanted.contains(k) || reborn.contains(g));
        let named: HashSet<(Arc<str>, i32)> = self.assignment_lines.values().cloned().collect();
        let mut gone = Vec::new();
        for (name, g) in &mut self.groups {
            if g.reborn {
                continue;
            }
            let open = open_generations(g, &self.workers, &self.rebalances);
            sweep_anchors(g, &open);
            // A rebalance is looked up by the generation of a kept
            // assignment line, and a generation still open gains
            // assignment lines; the others' are gone, and a late line of
            // theirs is not a new rebalance (`swept`).
            let Group {
                rebalances, swept, ..
            } = g;
            rebalances.retain(|n, i| {
                let keep = open.contains(n) || named.contains(&(name.clone(), *n));
                if !keep {
                    swept.insert(*n);
                    gone.push(*i);
                }
                keep
            });
        }
        for i in gone {
            self.rebalances.forget(i);
        }
        self.sweep_changes(now_ms);
    }

    /// Drops the changes no rebalance's trigger names, nor a connector's
    /// latest (a task count changes its kind), logged before what any
    /// kept interruption or later stop looks back to.
    fn sweep_changes(&mut self, now_ms: i64) {
        let mut named: HashSet<usize> = HashSet::default();
        let seen = self
            .rebalances
            .values()
            .flat_map(|r| r.seen.iter())
            .chain(self.groups.values().flat_map(|g| g.seen.iter()));
        for s in seen {
            if let Seen::Change(i) = s {
                named.insert(*i);
            }
        }
        for g in self.groups.values() {
            named.extend(g.changes.values().filter_map(|v| v.last().copied()));
        }
        let mut stops: Vec<i64> = self
            .interruptions
            .values()
            .filter_map(|it| ts(&it.from.line))
            .collect();
        stops.sort_unstable();
        // A change at `t` is looked up from a stop in [t - 1 s, t + 60 s].
        let near_stop = |t: i64| {
            let k = stops.partition_point(|&s| s < t.saturating_sub(CHANGE_AFTER_MS));
            stops
                .get(k)
                .is_some_and(|&s| s <= t.saturating_add(CHANGE_BEFORE_MS))
        };
        let since = now_ms.saturating_sub(CHANGES_KEPT_MS);
        let gone: Vec<usize> = self
            .changes
            .iter()
            .filter(|(i, c)| {
                !named.contains(i) && ts(&c.line).is_none_or(|t| t < since && !near_stop(t))
            })
            .map(|(i, _)| i)
            .collect();
        if gone.is_empty() {
            return;
        }
        for &i in &gone {
            self.changes.forget(i);
            self.change_seen_by.forget(i);
        }
        // Each connector's latest is named, so no list empties.
        for g in self.groups.values_mut() {
            for v in g.changes.values_mut() {
                v.retain(|&i| self.changes.get(i).is_some());
            }
        }
    }
}

/// The generations of `g` that may still gain an assignment line: formed
/// (first assignment line) within [`LATE_ASSIGNMENT_MS`] of the latest
/// line of a worker that has not logged one of it or a later one.
/// Generations only grow for each worker (a group whose did not is
/// `reborn` and not swept), so a worker past a generation does not log it.
fn open_generations(
    g: &Group,
    workers: &HashMap<Arc<str>, WorkerState>,
    rebalances: &super::Sparse<super::RebalanceAcc>,
) -> BTreeSet<i32> {
    let mut formed: Vec<(i32, i64)> = Vec::new();
    for (&n, &i) in &g.rebalances {
        if let Some(t) = rebalances.get(i).and_then(|r| ts(&r.line)) {
            formed.push((n, t));
        }
    }
    for (&n, m) in &g.anchors {
        if !g.rebalances.contains_key(&n)
            && let Some(&t) = m.values().min()
        {
            formed.push((n, t));
        }
    }
    formed
        .into_iter()
        .filter(|&(n, t)| {
            workers.values().any(|w| {
                w.generation.is_none_or(|p| p < n)
                    && t.abs_diff(w.last_ms) <= LATE_ASSIGNMENT_MS.unsigned_abs()
            })
        })
        .map(|(n, _)| n)
        .collect()
}

/// Keeps, of each closed generation, the anchors of the workers for which
/// it is the latest generation shared with some other worker.
///
/// A length across two workers' clocks (`tracker::measure`) is anchored in
/// the generation the second worker is in if the first was in it too, else
/// in the latest one both were in at or below it: with generations growing
/// for each worker, both are the latest generation the two shared, since
/// the second worker is in none above its own. So of each pair of workers
/// only their latest shared generation is ever looked up, and a later one
/// (both joining it) only replaces it. Open generations keep all (a late
/// member's line would make one the latest a pair shared).
fn sweep_anchors(g: &mut Group, open: &BTreeSet<i32>) {
    let mut index: HashMap<Arc<str>, usize> = HashMap::default();
    for m in g.anchors.values() {
        for w in m.keys() {
            let k = index.len();
            index.entry(w.clone()).or_insert(k);
        }
    }
    let words = index.len().div_ceil(64);
    // Per worker, the workers it shares a generation above the one at hand.
    let mut covered = vec![0u64; index.len() * words];
    for (n, m) in g.anchors.iter_mut().rev() {
        let members: Vec<usize> = m.keys().map(|w| index[w]).collect();
        let mut set = vec![0u64; words];
        for &i in &members {
            set[i / 64] |= 1 << (i % 64);
        }
        if !open.contains(n) {
            let latest_with_some = |i: usize| {
                (0..words).any(|k| {
                    let mut x = set[k] & !covered[i * words + k];
                    if k == i / 64 {
                        x &= !(1 << (i % 64));
                    }
                    x != 0
                })
            };
            let keep: HashSet<usize> = members
                .iter()
                .copied()
                .filter(|&i| latest_with_some(i))
                .collect();
            m.retain(|w, _| keep.contains(&index[w]));
        }
        for &i in &members {
            for k in 0..words {
                covered[i * words + k] |= set[k];
            }
        }
    }
    g.anchors.retain(|_, m| !m.is_empty());
}

#[cfg(test)]
mod tests {
    use super::super::{Group, measure};
    use super::{Generations, sweep_anchors};
    use crate::interruptions::Edge;
    use crate::model::{SourceId, SourceLine, Timestamp};
    use std::collections::{BTreeSet, HashMap};
    use std::sync::Arc;

    fn edge(worker: &str, t: i64) -> Edge {
        Edge {
            worker: Arc::from(worker),
            line: SourceLine {
                source: SourceId(0),
                line: 1,
                seq: 1,
                ts: Some(Timestamp(t)),
                text: Arc::from(""),
                msg: (0, 0),
            },
        }
    }

    /// Five workers in 60 generations, each in about two of three: every
    /// length across two workers' clocks measures the same after the
    /// sweep, which keeps far fewer anchors; an open generation keeps all.
    #[test]
    fn the_anchors_swept_are_none_a_length_looks_up() {
        let names = ["a", "b", "c", "d", "e"];
        let mut g = Group::default();
        let mut latest: HashMap<&str, i32> = HashMap::new();
        let mut seed: u64 = 7;
        for n in 1..=60 {
            for (k, w) in names.iter().enumerate() {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // `e` leaves after generation 10, `d` joins at 20.
                let member = match *w {
                    "e" => n <= 10,
                    "d" => n >= 20,
                    _ => true,
                };
                if member && !(seed >> 33).is_multiple_of(3) {
                    let t = i64::from(n) * 70_000 + k as i64 * 13;
                    g.anchors.entry(n).or_default().insert(Arc::from(*w), t);
                    latest.insert(w, n);
                }
            }
        }
        let count = |g: &Group| g.anchors.values().map(HashMap::len).sum::<usize>();
        let before = g.clone();
        sweep_anchors(&mut g, &BTreeSet::from([30]));
        assert!(
            count(&g) * 3 < count(&before),
            "{} of {}",
            count(&g),
            count(&before)
        );
        assert_eq!(
            g.anchors[&30], before.anchors[&30],
            "an open generation keeps all"
        );
        for x in names {
            for y in names {
                let (from, to) = (edge(x, 1_000), edge(y, 5_000_000));
                let c = latest.get(y).copied();
                assert_eq!(
                    measure(&before, &from, &to, c),
                    measure(&g, &from, &to, c),
                    "{x} -> {y}"
                );
            }
        }
    }

    #[test]
    fn generations_are_kept_as_ranges() {
        let mut g = Generations::default();
        for n in [5, 3, 4, 9, 7, 8, 1] {
            g.insert(n);
        }
        assert_eq!(g.ranges, vec![(1, 1), (3, 5), (7, 9)]);
        g.insert(2);
        g.insert(6);
        g.insert(6);
        assert_eq!(g.ranges, vec![(1, 9)]);
        assert!(g.contains(1) && g.contains(9) && !g.contains(0) && !g.contains(10));
        g.insert(i32::MAX);
        assert!(g.contains(i32::MAX) && !g.contains(i32::MAX - 1));
    }
}
