//! The internal topics read live during a run (`herder-audit watch
//! --bootstrap`): the records a reader thread polled
//! ([`super::observe::RecordFeed`]) join the witness, renewed with every
//! record read so far, and their items join the merge, keyed by their time
//! stamps as a batch audit keys them.

use super::merge::{Merger, Reducer};
use super::observe::RecordFeed;
use crate::model::SourceId;
use std::sync::Arc;

/// What the run has read of the live topics.
#[derive(Default)]
pub(super) struct LiveTopics {
    /// The source id of each of the feed's topics (by its place there).
    sources: Vec<SourceId>,
    records: Vec<crate::topics::record::Record>,
    skipped: Vec<crate::topics::Skipped>,
    /// Per cluster, how many of its records are items already.
    keyed: Vec<usize>,
    /// The next item's sequence number.
    seq: u64,
}

impl LiveTopics {
    /// The next of the feed's topics is read under `id`.
    pub(super) fn source(&mut self, id: SourceId) {
        self.sources.push(id);
    }

    /// The records polled since the last call join the witness, their items
    /// the merge.
    pub(super) fn take(&mut self, feed: &RecordFeed, merger: &mut Merger, reducer: &mut Reducer) {
        let (mut records, mut skipped) = feed.take();
        if records.is_empty() && skipped.is_empty() {
            return;
        }
        // The reader names a record's source by its topic's place in the feed.
        let sources = &self.sources;
        let source = |s: SourceId| sources.get(s.0 as usize).copied().unwrap_or(s);
        for r in &mut records {
            r.raw.line.source = source(r.raw.line.source);
        }
        for k in &mut skipped {
            k.source = source(k.source);
        }
        self.records.extend(records);
        self.skipped.extend(skipped);
        let w = Arc::new(crate::topics::cross::Witness::new(
            self.records.clone(),
            &self.skipped,
        ));
        let label: Arc<str> = Arc::from("topics");
        let mut items = Vec::new();
        let clusters = w.clusters.len().max(self.keyed.len());
        self.keyed.resize(clusters, 0);
        for k in w.keyed() {
            if (k.record as usize) < self.keyed[k.cluster as usize] {
                continue;
            }
            self.seq += 1;
            items.push(super::record_item(&label, &k, self.seq));
        }
        for (c, topics) in w.clusters.iter().enumerate() {
            self.keyed[c] = topics.records.len();
        }
        reducer.renew_witness(w);
        merger.add(items);
    }
}
