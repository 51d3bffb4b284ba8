//! How far a quiet live log is known complete, by its own clock
//! (`herder-audit watch --quiet-bound`): a log at its end holds the merge
//! back at its last line's time stamp, for at most the idle timeout; but a
//! line the worker has not written yet will be stamped later than the
//! moment it was found at its end, on the worker's clock. This bounds that
//! moment in log time from below, so that the merge can go past it at once.
//!
//! For one stream, `offset` is the largest (log time read − the watcher's
//! monotonic clock when the round that read it ended): each line was
//! stamped before it was read, so the worker's clock (log time) runs at
//! least `offset` ahead of the watcher's. A line not in the file when a
//! round began reading it at `eof` is written after `eof`, so stamped
//! after `eof + offset − slack`, where `slack` bounds how long a line may
//! take from its time stamp to its file (the logging call, a buffered
//! appender, a container runtime). That is the stream's frontier while it
//! stays quiet, growing with the watcher's clock.
//!
//! Sound for a stream with one worker's lines (one clock), read from a
//! file, whose clock does not step back: a multiplexed stream (several
//! workers, several clocks, as `kubectl logs --prefix` gives) and
//! standard input never get a bound. docs/watch.md, "Measured", says
//! what it gains and what it assumes.

use crate::stream::Item;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One stream's clock, as its reads show it.
#[derive(Debug, Default)]
pub(super) struct Quiet {
    /// The largest (log time read − watcher time in ms) so far.
    offset: Option<i64>,
    /// When the latest round that found the stream at its end began.
    eof: Option<Instant>,
    /// The worker label of its items, and whether it had several.
    worker: Option<Arc<str>>,
    multiplexed: bool,
    /// Standard input: never bounded.
    stdin: bool,
}

fn ms(epoch: Instant, t: Instant) -> i64 {
    t.saturating_duration_since(epoch).as_millis() as i64
}

impl Quiet {
    pub(super) fn new(stdin: bool) -> Quiet {
        Quiet {
            stdin,
            ..Quiet::default()
        }
    }

    /// The items a step handed on: a second worker's makes the stream
    /// multiplexed (no bound any more).
    pub(super) fn items(&mut self, items: &[Item]) {
        for it in items {
            match &self.worker {
                None => self.worker = Some(it.worker.clone()),
                Some(w) if *w != it.worker => self.multiplexed = true,
                Some(_) => {}
            }
        }
    }

    /// After a round that began at `start` and ended at `now`: the
    /// stream's frontier time stamp (`i64::MIN`: none yet), whether it read
    /// anything, and whether it is at its end.
    pub(super) fn round(
        &mut self,
        epoch: Instant,
        start: Instant,
        now: Instant,
        frontier_ts: i64,
        fresh: bool,
        idle: bool,
    ) {
        if fresh && frontier_ts != i64::MIN {
            let o = frontier_ts.saturating_sub(ms(epoch, now));
            self.offset = Some(self.offset.map_or(o, |x| x.max(o)));
        }
        self.eof = if idle { Some(start) } else { None };
    }

    /// The log time before which the stream, quiet now, can hand on
    /// nothing more; `None` when it cannot be bounded.
    pub(super) fn complete_to(&self, epoch: Instant, slack: Option<Duration>) -> Option<i64> {
        let slack = slack?;
        if self.stdin || self.multiplexed {
            return None;
        }
        let (offset, eof) = (self.offset?, self.eof?);
        Some(
            ms(epoch, eof)
                .saturating_add(offset)
                .saturating_sub(slack.as_millis() as i64),
        )
    }
}
