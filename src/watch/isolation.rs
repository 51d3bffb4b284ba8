//! The interruptions as metrics: `herder_audit_interruptions_total` and
//! `herder_audit_downtime_seconds_total`, by connector and cause. Each
//! interruption is counted once, when it has ended and no later line can
//! change its length or cause (`Tracker::settled`); its identity goes into
//! the state file beside the findings', so a restarted watcher, which reads
//! its logs again, does not count it a second time.

use super::metrics::Metrics;
use super::state::{Book, key, resource_text};
use crate::interruptions::{Interruption, Tracker};

/// Which of the tracker's interruptions are still to be counted.
#[derive(Debug, Default)]
pub struct Counting {
    /// Interruptions below this index have been looked at.
    seen: usize,
    /// Looked at and not final yet (open, or a line may still change it).
    waiting: Vec<usize>,
    /// Counted in this run, and found again after a restart (not counted).
    pub counted: u64,
    pub repeated: u64,
}

/// An interruption's identity: its group, resource and both ends' workers
/// and whole lines (time stamps included), whatever rotation removed
/// before it.
pub fn key_of(i: &Interruption) -> u64 {
    let to = i.to.as_ref();
    let ends = format!(
        "{}\n{}\n{}",
        i.from.line.text,
        to.map_or("", |t| &*t.worker),
        to.map_or("", |t| &*t.line.text)
    );
    key(
        "interruption",
        &i.from.worker,
        Some(&i.group),
        &resource_text(Some(&i.resource)),
        &ends,
    )
}

impl Counting {
    /// Counts the interruptions that became final by log time `now_ms`.
    pub fn step(&mut self, t: &Tracker, now_ms: i64, metrics: &mut Metrics, book: &mut Book) {
        let recorded = t.recorded();
        self.waiting.extend(self.seen..recorded);
        self.seen = recorded;
        self.waiting.retain(|&i| {
            let Some(it) = t.settled(i, now_ms) else {
                return true;
            };
            let k = key_of(&it);
            let ts = it.to.as_ref().and_then(|e| e.line.ts).map(|t| t.0);
            if book.emitted(k, ts) {
                self.repeated += 1;
            } else {
                metrics.interruption(&it.resource, it.cause.kind.as_str(), it.ms);
                book.record(k, ts);
                self.counted += 1;
            }
            false
        });
    }
}
