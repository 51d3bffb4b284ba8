//! The internal topics read live during a run (`herder-audit watch
//! --bootstrap`): the records a reader thread polled
//! ([`super::observe::RecordFeed`]) join the witness, renewed with every
//! record kept so far, and their items join the merge, keyed by their time
//! stamps as a batch audit keys them.
//!
//! A watcher reads the status topic for months: the status records older
//! than [`compact::HORIZON_MS`] of log time are compacted to the state they
//! leave ([`crate::topics::compact`]) whenever the records kept have
//! doubled since the last compaction, so the witness (and the work of
//! renewing it at each poll) stays the size of the cluster's open runs and
//! its last hour, not of its history.

use super::merge::{Merger, Reducer};
use super::observe::RecordFeed;
use crate::model::SourceId;
use crate::topics::compact;
use std::collections::HashSet;
use std::sync::Arc;

/// Records kept below which no compaction is tried.
const COMPACT_FLOOR: usize = 4_096;

/// What the run has read of the live topics.
#[derive(Default)]
pub(super) struct LiveTopics {
    /// The source id of each of the feed's topics (by its place there).
    sources: Vec<SourceId>,
    /// The records kept (compacted: see the module's doc).
    records: Vec<crate::topics::record::Record>,
    /// Records skipped as unreadable.
    skipped: u64,
    /// The next item's sequence number.
    seq: u64,
    /// The latest time stamp read.
    latest: i64,
    /// The last compaction's cut (`i64::MIN`: none yet).
    cut: Option<i64>,
    /// Records kept at which the next compaction is tried.
    next_compaction: usize,
    /// Records kept below which no compaction is tried (`COMPACT_FLOOR`
    /// when 0).
    floor: usize,
}

impl LiveTopics {
    /// The next of the feed's topics is read under `id`.
    pub(super) fn source(&mut self, id: SourceId) {
        self.sources.push(id);
    }

    /// The records polled since the last call join the witness, their items
    /// the merge.
    pub(super) fn take(&mut self, feed: &RecordFeed, merger: &mut Merger, reducer: &mut Reducer) {
        let (mut records, skipped) = feed.take();
        if records.is_empty() && skipped.is_empty() {
            return;
        }
        // The reader names a record's source by its topic's place in the feed.
        let sources = &self.sources;
        let source = |s: SourceId| sources.get(s.0 as usize).copied().unwrap_or(s);
        let mut fresh = HashSet::new();
        for r in &mut records {
            r.raw.line.source = source(r.raw.line.source);
            fresh.insert((r.raw.line.source, r.raw.line.line));
            if let Some(ts) = r.raw.timestamp {
                self.latest = self.latest.max(ts);
            }
        }
        // Only records fed by earlier calls are compacted: a record read now
        // is audited whole first, however old (the topics' history, read
        // from the start while the logs are already at today).
        self.compact(reducer.now());
        self.records.extend(records);
        self.skipped += skipped.len() as u64;
        let mut w = crate::topics::cross::Witness::new(self.records.clone(), &[]);
        w.skipped = self.skipped;
        w.cut = self.cut.unwrap_or(i64::MIN);
        let w = Arc::new(w);
        let label: Arc<str> = Arc::from("topics");
        let mut items = Vec::new();
        for k in w.keyed() {
            if fresh.contains(&(k.line.source, k.line.line)) {
                self.seq += 1;
                items.push(super::record_item(&label, &k, self.seq));
            }
        }
        reducer.renew_witness(w);
        merger.add(items);
    }

    /// Compacts the status records older than the horizon behind the
    /// run's log time `now` (bounded by the latest record read: the logs
    /// may run ahead of the topics' writers' clocks) once the records kept
    /// have doubled since the last compaction.
    fn compact(&mut self, now: i64) {
        let floor = if self.floor == 0 {
            COMPACT_FLOOR
        } else {
            self.floor
        };
        if self.records.len() < self.next_compaction.max(floor) {
            return;
        }
        let cut = now.min(self.latest).saturating_sub(compact::HORIZON_MS);
        if self.cut.is_none_or(|c| cut > c) {
            self.records = compact::compact(std::mem::take(&mut self.records), cut);
            self.cut = Some(cut);
        }
        self.next_compaction = 2 * self.records.len();
    }
}

#[cfg(test)]
mod tests;
