//! Repeats of overlapping rotated segments: the part of a segment that
//! holds what earlier segments of the stream already held is skipped.

use crate::model::Timestamp;
use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Skips the part of a rotated segment that repeats what earlier segments
/// of the stream already held (overlapping or duplicated segments).
#[derive(Debug, Default)]
pub(super) struct Dedupe {
    /// Latest time stamp of an event read so far in the stream.
    pub(super) last_ts: Option<Timestamp>,
    /// Hashes of the event lines stamped `last_ts`.
    at_last: HashSet<u64>,
    /// In a new segment and not yet past the overlap.
    pub(super) armed: bool,
    /// Events skipped as repeats.
    pub(super) skipped: u64,
    /// More segments follow: record what the next one may repeat.
    pub(super) record: bool,
}

fn hash_line(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

impl Dedupe {
    /// Is this event line a repeat? (Also records it when it is new.)
    pub(super) fn repeat(&mut self, ts: Option<Timestamp>, text: &str) -> bool {
        if self.armed {
            match (ts, self.last_ts) {
                (None, _) => {
                    self.skipped += 1;
                    return true;
                }
                (Some(t), Some(last))
                    if t < last || (t == last && self.at_last.contains(&hash_line(text))) =>
                {
                    self.skipped += 1;
                    return true;
                }
                _ => self.armed = false,
            }
        }
        if let Some(t) = ts {
            if Some(t) > self.last_ts {
                self.last_ts = Some(t);
                self.at_last.clear();
            }
            if self.record && Some(t) == self.last_ts {
                self.at_last.insert(hash_line(text));
            }
        }
        false
    }
}
