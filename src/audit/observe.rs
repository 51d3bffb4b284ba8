//! What a long-running audit (`herder-audit watch`) is told as it goes:
//! the items handed to the cross-worker stage, what each stream has read,
//! lines skipped or of unknown order, and streams that ended. The audit
//! calls an [`Observe`] given in [`super::Live::observer`]; it never
//! changes what the audit finds.

use crate::stream::{Item, StreamEnd};
use std::time::Instant;

/// Where one stream stands after a step of the run.
#[derive(Debug, Clone, Copy)]
pub struct StreamStat<'a> {
    /// The stream's name (a kubelet container's `ns/pod/container`, a
    /// file, `<stdin>`).
    pub name: &'a str,
    /// Bytes and lines read so far (bytes of a gzip segment: compressed).
    pub bytes: u64,
    pub lines: u64,
    /// Live input with nothing more for now (an ended stream is idle).
    pub idle: bool,
    /// The latest generation a worker of the stream is in.
    pub generation: Option<i32>,
}

/// Told what the audit reads and hands on. Calls come from the run's
/// thread, in order; an implementation keeps its own state behind a lock.
pub trait Observe: Send + Sync + std::fmt::Debug {
    /// Whether a log found in a followed directory is read (`false`: it is
    /// not a Connect worker's, as the watcher was told).
    fn accept(&self, input: &crate::input::Input) -> bool {
        let _ = input;
        true
    }

    /// An item, as it goes to the cross-worker stage (in key order).
    fn item(&self, item: &Item) {
        let _ = item;
    }

    /// Every stream of the run, after each step (`now`: when the step's
    /// reading ended).
    fn streams(&self, now: Instant, streams: &[StreamStat<'_>]) {
        let _ = (now, streams);
    }

    /// Lines of `stream` whose order is unknown (findings quoting them are
    /// withheld), found in the last step.
    fn unordered(&self, stream: &str, lines: usize) {
        let _ = (stream, lines);
    }

    /// Lines of `stream` skipped for their length ((line, bytes) each),
    /// found in the last step.
    fn too_long(&self, stream: &str, lines: &[(u64, u64)]) {
        let _ = (stream, lines);
    }

    /// A stream ended (its file gone, stdin closed, an error): what it
    /// leaves. With [`super::Live::forget_ended`] the run drops it next.
    fn ended(&self, stream: &str, end: &StreamEnd) {
        let _ = (stream, end);
    }

    /// The interruptions the facts fed so far show (`tracker`), with log
    /// time at `now_ms`: called after each step's items, for a service that
    /// counts each interruption once as it ends.
    fn isolation(&self, tracker: &crate::interruptions::Tracker, now_ms: i64) {
        let _ = (tracker, now_ms);
    }
}

/// The internal topics read live beside the logs (`herder-audit watch
/// --bootstrap`): a reader thread hands the records it polls to the run,
/// which adds them to the witness and their items to the merge as they
/// come (docs/watch.md, "The internal topics, live").
#[derive(Debug)]
pub struct RecordFeed {
    /// Each topic's input name (`kafka://HOST:PORT/TOPIC`), by topic.
    pub inputs: Vec<(String, String)>,
    fresh: std::sync::Mutex<Fresh>,
}

#[derive(Debug, Default)]
struct Fresh {
    records: Vec<crate::topics::record::Record>,
    skipped: Vec<crate::topics::Skipped>,
}

impl RecordFeed {
    /// A feed of these topics (`(topic, input name)`).
    pub fn new(inputs: Vec<(String, String)>) -> RecordFeed {
        RecordFeed {
            inputs,
            fresh: Default::default(),
        }
    }

    /// Records polled (their source ids are set by the run).
    pub fn push(
        &self,
        records: Vec<crate::topics::record::Record>,
        skipped: Vec<crate::topics::Skipped>,
    ) {
        let mut f = self.fresh.lock().unwrap_or_else(|e| e.into_inner());
        f.records.extend(records);
        f.skipped.extend(skipped);
    }

    /// What was pushed since the last call.
    pub(crate) fn take(
        &self,
    ) -> (
        Vec<crate::topics::record::Record>,
        Vec<crate::topics::Skipped>,
    ) {
        let mut f = self.fresh.lock().unwrap_or_else(|e| e.into_inner());
        (
            std::mem::take(&mut f.records),
            std::mem::take(&mut f.skipped),
        )
    }
}
