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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Key;

    fn item(worker: &str) -> Item {
        Item::bare(Key::MIN, worker)
    }

    #[test]
    fn a_quiet_log_is_complete_to_its_clock_at_its_end_less_the_slack() {
        let epoch = Instant::now();
        let at = |ms: u64| epoch + Duration::from_millis(ms);
        let slack = Some(Duration::from_millis(250));
        let mut q = Quiet::new(false);
        // Nothing read yet: no clock.
        q.round(epoch, at(0), at(10), i64::MIN, false, true);
        assert_eq!(q.complete_to(epoch, slack), None);
        // Log time 1,000,000 read by 100 ms: its clock is at least
        // 999,900 ms ahead; a later read lagging behind does not lower it.
        q.round(epoch, at(90), at(100), 1_000_000, true, false);
        q.round(epoch, at(190), at(200), 1_000_050, true, false);
        // At its end in the round that began at 500 ms.
        q.round(epoch, at(500), at(510), 1_000_050, false, true);
        assert_eq!(q.complete_to(epoch, slack), Some(500 + 999_900 - 250));
        assert_eq!(q.complete_to(epoch, None), None, "off");
        // Reading again: no bound until it is at its end again.
        q.round(epoch, at(600), at(610), 1_000_700, true, false);
        assert_eq!(q.complete_to(epoch, slack), None);
    }

    #[test]
    fn several_workers_or_standard_input_are_never_bounded() {
        let epoch = Instant::now();
        let slack = Some(Duration::from_millis(250));
        let mut q = Quiet::new(false);
        q.items(&[item("a"), item("a")]);
        q.round(epoch, epoch, epoch, 5_000, true, true);
        assert!(q.complete_to(epoch, slack).is_some());
        q.items(&[item("b")]);
        assert_eq!(q.complete_to(epoch, slack), None);
        let mut s = Quiet::new(true);
        s.round(epoch, epoch, epoch, 5_000, true, true);
        assert_eq!(s.complete_to(epoch, slack), None);
    }
}
