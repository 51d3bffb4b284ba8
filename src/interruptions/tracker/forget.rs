//! A long-running audit's tracker (`herder-audit watch`) forgets what can
//! no longer matter, so that its memory stays flat over a month of logs:
//! an interruption once final (it was counted in the metrics at that very
//! log time, `Tracker::settled`), and the rebalances, assignment lines,
//! anchors, changes and `unnecessary-stop` evidence that no interruption
//! still kept, nor one still to come, can reach.

use super::{FINAL_AFTER_MS, Seen, Tracker, ts};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// Log time between two sweeps of the rebalances and changes.
const SWEEP_EVERY_MS: i64 = 60_000;

/// The sweep of generations, changes and rebalances is off: with it, a
/// watcher's counts differ from a batch audit's (`tests/watch_interruptions.rs`
/// never sees every ended interruption counted; over the simulated month 1
/// interruption of 104,136 and 199 of 1,802 downtime series differ), most
/// likely an anchor a length across two workers' clocks needs dropped too
/// soon. Until that is found, only final interruptions are forgotten.
const SWEEP: bool = false;

/// How far before log time less [`FINAL_AFTER_MS`] a change or an
/// `unnecessary-stop` finding is kept (or before a kept interruption's
/// stop): further than `price::change_before` (60 s) or the same change's
/// reach (30 s) look back.
const KEEP_BEFORE_MS: i64 = 2 * 60_000;

impl Tracker {
    /// Forget from now on what can no longer matter ([`Tracker::forget`]);
    /// the end of the run then prices nothing.
    pub(crate) fn forget_as_it_goes(&mut self) {
        self.forgetful = true;
    }

    /// With log time at `now_ms`: forgets the interruptions that are final
    /// (the metrics counted each at this log time), and, once a minute of
    /// log time, what no kept or later interruption can reach. Does
    /// nothing unless [`Tracker::forget_as_it_goes`] was called.
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
        if SWEEP && now_ms >= self.swept_ms.saturating_add(SWEEP_EVERY_MS) {
            self.swept_ms = now_ms;
            self.sweep(now_ms);
        }
    }

    /// Drops the rebalances, assignment lines and anchors of generations
    /// below each group's floor, and the changes and findings older than
    /// any kept or later interruption can look back to.
    fn sweep(&mut self, now_ms: i64) {
        // Per group, the lowest generation a worker heard within
        // FINAL_AFTER_MS is in: it and later ones are kept. A worker silent
        // longer has no interruption that is not final but the kept ones,
        // whose own generations are kept one by one: the one each was
        // stopped in, its stopping worker's latest (the anchor a length
        // across two workers is measured with) and the one that justified
        // it (its cause's rebalance). An interruption still open (a deleted
        // connector's work, never started again) must not hold back all
        // that came after it.
        let mut floor: BTreeMap<Arc<str>, i32> = BTreeMap::new();
        let recent = now_ms.saturating_sub(FINAL_AFTER_MS);
        let mut wanted: HashSet<(Arc<str>, i32)> = HashSet::new();
        for w in self.workers.values() {
            let (Some(g), Some(n)) = (&w.group, w.generation) else {
                continue;
            };
            if w.last_ms >= recent {
                let f = floor.entry(g.clone()).or_insert(n);
                *f = (*f).min(n);
            } else {
                // A silent worker's latest: what its takeovers, found when
                // it logs again, are measured across.
                wanted.insert((g.clone(), n));
            }
        }
        // Stops (log time) of the kept interruptions, and their lines.
        let mut stops: Vec<i64> = Vec::new();
        let mut lines: HashSet<(crate::model::SourceId, u64)> = HashSet::new();
        for (i, it) in self.interruptions.iter() {
            if let Some(n) = it.generation {
                wanted.insert((it.group.clone(), n));
            }
            if let Some(n) = self.workers.get(&it.from.worker).and_then(|w| w.generation) {
                wanted.insert((it.group.clone(), n));
            }
            stops.extend(ts(&it.from.line));
            lines.insert((it.from.line.source, it.from.line.line));
            let because = self.pending.get(i).and_then(|p| p.because.as_ref());
            if let Some(k) = because.and_then(|b| self.assignment_lines.get(&(b.source, b.line))) {
                wanted.insert(k.clone());
            }
        }
        // A group no recent worker names keeps all.
        let drop = |g: &Arc<str>, n: i32| {
            floor.get(g).is_some_and(|f| n < *f) && !wanted.contains(&(g.clone(), n))
        };
        self.assignment_lines.retain(|_, (g, n)| !drop(g, *n));
        self.rebalances.retain(|_, r| !drop(&r.group, r.generation));
        for (name, g) in self.groups.iter_mut() {
            g.anchors.retain(|n, _| !drop(name, *n));
            g.rebalances.retain(|n, _| !drop(name, *n));
        }
        stops.sort_unstable();
        let since = recent.saturating_sub(KEEP_BEFORE_MS);
        // A change is looked back to from a stop at most KEEP_BEFORE_MS
        // later (or 1 s earlier).
        let near_stop = |t: i64| {
            let k = stops.partition_point(|&s| s < t.saturating_sub(1_000));
            stops
                .get(k)
                .is_some_and(|&s| s <= t.saturating_add(KEEP_BEFORE_MS))
        };
        let old = |l: &crate::model::SourceLine| ts(l).is_none_or(|t| t < since && !near_stop(t));
        // The changes a kept or coming rebalance names, or a connector's
        // latest, stay; others once older than any look-back.
        let mut named: HashSet<usize> = HashSet::new();
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
            named.extend(g.latest_change.values().copied());
        }
        let gone: Vec<usize> = self
            .changes
            .iter()
            .filter(|(i, c)| !named.contains(i) && old(&c.line))
            .map(|(i, _)| i)
            .collect();
        for i in gone {
            self.changes.forget(i);
            self.change_seen_by.forget(i);
        }
        self.unnecessary
            .retain(|k, (trigger, _)| lines.contains(k) || ts(trigger).is_some_and(|t| t >= since));
    }
}
