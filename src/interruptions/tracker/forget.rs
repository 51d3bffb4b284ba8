//! A long-running audit's tracker (`herder-audit watch`) forgets each
//! interruption once final (it was counted in the metrics at that very log
//! time, `Tracker::settled`). The rebalances, assignment lines, anchors and
//! changes of past generations are kept: a sweep of them (commit 3ce04e9
//! and b063f02) made a watcher's counts differ from a batch audit's, an
//! anchor a length across two workers' clocks needs being dropped too soon.

use super::Tracker;
use std::collections::HashSet;

impl Tracker {
    /// Forget from now on what can no longer matter ([`Tracker::forget`]);
    /// the end of the run then prices nothing.
    pub(crate) fn forget_as_it_goes(&mut self) {
        self.forgetful = true;
    }

    /// With log time at `now_ms`: forgets the interruptions that are final
    /// (the metrics counted each at this log time). Does nothing unless [`Tracker::forget_as_it_goes`] was called.
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
    }
}
