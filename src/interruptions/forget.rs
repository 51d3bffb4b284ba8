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

/// How far before the oldest interruption kept (or before log time less
/// [`FINAL_AFTER_MS`]) a change or an `unnecessary-stop` finding is kept:
/// further than `price::change_before` (60 s) or the same change's reach
/// (30 s) look back.
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
        if now_ms >= self.swept_ms.saturating_add(SWEEP_EVERY_MS) {
            self.swept_ms = now_ms;
            self.sweep(now_ms);
        }
    }

    /// Drops the rebalances, assignment lines and anchors of generations
    /// below each group's floor, and the changes and findings older than
    /// any kept or later interruption can look back to.
    fn sweep(&mut self, now_ms: i64) {
        // Per group, the lowest generation still wanted: a worker heard
        // within FINAL_AFTER_MS is in it (or later); a kept interruption
        // was stopped in it or justified by it. A worker silent longer has
        // no interruption that is not final, but for a kept one.
        let mut floor: BTreeMap<Arc<str>, i32> = BTreeMap::new();
        let mut lower = |g: &Arc<str>, n: i32| {
            let f = floor.entry(g.clone()).or_insert(n);
            *f = (*f).min(n);
        };
        let recent = now_ms.saturating_sub(FINAL_AFTER_MS);
        for w in self.workers.values() {
            if let (Some(g), Some(n)) = (&w.group, w.generation)
                && w.last_ms >= recent
            {
                lower(g, n);
            }
        }
        let mut oldest = recent;
        for (i, it) in self.interruptions.iter() {
            if let Some(n) = it.generation {
                lower(&it.group, n);
            }
            if let Some(t) = ts(&it.from.line) {
                oldest = oldest.min(t);
            }
            let because = self.pending.get(i).and_then(|p| p.because.as_ref());
            if let Some((g, n)) = because.and_then(|b| self.assignment_lines.get(&(b.source, b.line)))
            {
                lower(g, *n);
            }
        }
        // A group no recent worker nor kept interruption names keeps all.
        let below = |g: &Arc<str>, n: i32| floor.get(g).is_some_and(|f| n < *f);
        self.assignment_lines.retain(|_, (g, n)| !below(g, *n));
        self.rebalances.retain(|_, r| !below(&r.group, r.generation));
        for (name, g) in self.groups.iter_mut() {
            g.anchors.retain(|n, _| !below(name, *n));
            g.rebalances.retain(|n, _| !below(name, *n));
        }
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
        let since = oldest.saturating_sub(KEEP_BEFORE_MS);
        let old = |l: &crate::model::SourceLine| ts(l).is_none_or(|t| t < since);
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
        self.unnecessary.retain(|_, (trigger, _)| !old(trigger));
    }
}
