//! The run's live side: waiting for input that is still being written,
//! following directories for new logs, how far a quiet stream is known
//! complete (the watermark), and what each round hands on while streams
//! settle.

use super::{RoundRead, Run, family_of};
use crate::audit::merge::{Merger, Reducer};
use crate::audit::observe::{Observe, StreamStat};
use crate::input::Input;
use crate::input::live::{FollowEvents, LiveOpen, Notify};
use crate::model::{Key, Timestamp};
use crate::stream::{Advance, StreamReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How soon the run looks again while items wait for a quiet stream's
/// bound to grow past them.
const QUIET_LOOK: Duration = Duration::from_millis(10);

/// How often followed directories are looked at for new logs.
pub(super) const RESCAN: Duration = Duration::from_secs(1);

/// How long a live stream must have had nothing new before what its
/// replays hold back for lines that may follow (a start's failure, a
/// connector stop's `Ignoring stop request`) is final: lines a worker logs
/// at once may reach the pipe in separate writes.
const SETTLE: Duration = Duration::from_millis(5);

/// The same for live input (`--follow`, `herder-audit watch`): a follower
/// catching up with logs on disk holds one round's facts in memory, and
/// live input comes in far smaller steps than a batch reads; small rounds
/// keep that memory small (the merged order does not depend on them).
pub(super) const LIVE_ROUND_MIN_BYTES: u64 = 256 << 10;
pub(super) const LIVE_ROUND_MAX_BYTES: u64 = 2 << 20;

/// How to wait for live input.
#[derive(Debug, Clone)]
pub struct Live {
    /// A stream silent this long no longer holds the others back.
    pub idle_timeout: Duration,
    /// How often quiet inputs are looked at again.
    pub poll: Duration,
    /// Signalled when live input arrives (stdin's reader thread).
    pub wake: Arc<Wake>,
    /// Set to end the run cleanly (SIGINT, SIGTERM).
    pub stop: Arc<AtomicBool>,
    /// Follow files at their end (`--follow`), and look for new logs in
    /// these directories.
    pub follow: bool,
    pub roots: Vec<std::path::PathBuf>,
    /// Told what the run reads and hands on (`herder-audit watch`).
    pub observer: Option<Arc<dyn Observe>>,
    /// A long-running service: a stream that ended is dropped (its
    /// summary is not kept for a report), and a followed file gone from
    /// its path this long ends its stream.
    pub forget_ended: Option<Duration>,
    /// Told of rotations, truncations and files gone.
    pub events: Option<Arc<dyn FollowEvents>>,
    /// Hand on a finding that waits for log time as soon as no stream can
    /// change it any more (`herder-audit watch`: its output is a finding
    /// at a time, not the run's order).
    pub settle_early: bool,
    /// The internal topics read live (`herder-audit watch --bootstrap`):
    /// their records join the witness and the merge as they come; the run
    /// goes on while the feed is there, with or without logs.
    pub records: Option<Arc<crate::audit::observe::RecordFeed>>,
    /// A quiet log read from a file no longer holds the others back past
    /// what its own clock says it has written (`super::quiet`), lines
    /// taking at most this long from their time stamp to their file;
    /// `None`: only the idle timeout lets the others go on.
    pub quiet_bound: Option<Duration>,
}

impl Live {
    pub fn new(idle_timeout: Duration) -> Live {
        Live {
            idle_timeout,
            poll: Duration::from_millis(100),
            wake: Arc::new(Wake::default()),
            stop: Arc::new(AtomicBool::new(false)),
            follow: false,
            roots: Vec::new(),
            observer: None,
            forget_ended: None,
            events: None,
            settle_early: false,
            records: None,
            quiet_bound: None,
        }
    }

    pub(super) fn open(&self) -> LiveOpen {
        LiveOpen {
            follow: self.follow,
            wake: self.wake.clone(),
            gone_after: self.forget_ended,
            events: self.events.clone(),
        }
    }
}

impl Notify for Wake {
    fn notify(&self) {
        Wake::notify(self);
    }
}

/// A wake-up call between threads (a flag and a condition variable).
#[derive(Debug, Default)]
pub struct Wake {
    flag: std::sync::Mutex<bool>,
    cond: std::sync::Condvar,
}

impl Wake {
    pub fn notify(&self) {
        let mut f = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        *f = true;
        self.cond.notify_all();
    }

    /// Waits until notified or `timeout` passed.
    pub fn wait(&self, timeout: Duration) {
        let f = self.flag.lock().unwrap_or_else(|e| e.into_inner());
        let (mut f, _) = self
            .cond
            .wait_timeout_while(f, timeout, |set| !*set)
            .unwrap_or_else(|e| e.into_inner());
        *f = false;
    }
}

impl Run<'_> {
    /// Following directories: logs that appeared since the last look (not
    /// rotated segments of logs already read) become new streams.
    pub(super) fn rescan(&mut self) {
        let Some(live) = &self.opts.live else { return };
        if !live.follow || live.roots.is_empty() || self.last_rescan.elapsed() < RESCAN {
            return;
        }
        self.last_rescan = Instant::now();
        // Directories first, then their logs: a log created in between
        // is told by its event.
        self.appear.watch(&live.roots);
        let (found, _) = crate::input::expand(&live.roots);
        let present: std::collections::HashSet<&Input> = found.iter().collect();
        self.ended.retain(|i, _| present.contains(i));
        let mut fresh: Vec<Input> = Vec::new();
        let mut fams = std::collections::HashSet::new();
        let observer = live.observer.clone();
        for i in found {
            if self.reading.contains(&i) || observer.as_ref().is_some_and(|o| !o.accept(&i)) {
                continue;
            }
            if self
                .ended
                .get(&i)
                .is_some_and(|m| FileMark::of(&i).as_ref() == Some(m))
            {
                continue;
            }
            match family_of(&i) {
                Some(f) if self.families.contains(&f) => {}
                // One file per new family: the live one (a fresh log has
                // no rotated segments yet).
                Some(f) if !fams.contains(&f) => {
                    fams.insert(f);
                    fresh.push(i);
                }
                Some(_) => {}
                None => {}
            }
        }
        if !fresh.is_empty() {
            self.add(&fresh);
        }
    }

    /// How long to wait for live input: `poll`, or less when a quiet
    /// stream is about to settle.
    pub(super) fn wait_for(&self, poll: Duration, pending: bool) -> Duration {
        // A quiet stream's bound grows with the clock: look again soon
        // while items wait for it.
        let bound = self.opts.live.as_ref().and_then(|l| l.quiet_bound);
        let soon = (pending && bound.is_some()).then_some(QUIET_LOOK);
        self.slots
            .iter()
            .filter(|s| !s.settled && s.proc.state() == Advance::Idle)
            .filter_map(|s| s.idle_since)
            .map(|t| SETTLE.saturating_sub(t.elapsed()))
            .chain(
                self.slots
                    .iter()
                    .any(|s| s.proc.head_pending())
                    .then_some(crate::stream::LIVE_HEAD_QUIET),
            )
            .chain(soon)
            .fold(poll, Duration::min)
    }

    /// The least key any stream may still hand on.
    pub(super) fn watermark(&self, now: Instant) -> Key {
        let timeout = self.opts.live.as_ref().map(|l| l.idle_timeout);
        let bound = self.opts.live.as_ref().and_then(|l| l.quiet_bound);
        self.slots
            .iter()
            .map(|s| match s.proc.state() {
                Advance::Done => Key::MAX,
                Advance::Paused(t) => s.proc.frontier_paused(t),
                Advance::Idle => match (s.idle_since, timeout) {
                    (Some(since), Some(t)) if now.duration_since(since) >= t => Key::MAX,
                    _ => match s.quiet.complete_to(self.epoch, bound).filter(|_| s.settled) {
                        Some(t) => s.proc.frontier_paused(Timestamp(t)),
                        None => s.proc.frontier(),
                    },
                },
            })
            .min()
            .unwrap_or(Key::MAX)
    }

    /// Takes what each stream handed on in the round just read: its
    /// items to the merger, the lines of unknown order to the reducer; a
    /// stream quiet for [`SETTLE`] hands on what it held back for lines
    /// that may follow. Returns what the round read and made.
    pub(super) fn take_round(
        &mut self,
        (round_start, now): (Instant, Instant),
        observer: Option<&dyn Observe>,
        reducer: &mut Reducer,
        merger: &mut Merger,
    ) -> RoundRead {
        let mut read = RoundRead::default();
        for s in &mut self.slots {
            let unordered = s.proc.take_unordered();
            if let Some(o) = observer {
                observe_step(o, &mut s.proc, unordered.len());
            }
            reducer.withhold(unordered);
            let items = s.proc.take_items();
            s.quiet.items(&items);
            read.items += items.len();
            merger.add(items);
            let total = s.proc.bytes_read.load(Ordering::Relaxed);
            let fresh = total - s.read_before;
            read.bytes += fresh;
            s.read_before = total;
            s.last_read = fresh;
            let idle = s.proc.state() == Advance::Idle;
            let frontier = s.proc.frontier().ts;
            s.quiet
                .round(self.epoch, round_start, now, frontier, fresh > 0, idle);
            if idle {
                if fresh > 0 || s.idle_since.is_none() {
                    s.idle_since = Some(now);
                    s.settled = false;
                }
                if !s.settled && s.idle_since.is_some_and(|t| now - t >= SETTLE) {
                    // Quiet now: what waits for more lines is final.
                    s.proc.flush_held();
                    reducer.withhold(s.proc.take_unordered());
                    merger.add(s.proc.take_items());
                    s.settled = true;
                }
            } else {
                s.idle_since = None;
            }
        }
        read
    }

    /// Tells the observer where every stream stands; with
    /// [`Live::forget_ended`], drops the streams that ended (their items
    /// are taken: what they leave is the observer's to tell).
    pub(super) fn observe_streams(&mut self, o: &dyn Observe, now: Instant) {
        let stats: Vec<StreamStat<'_>> = self
            .slots
            .iter()
            .map(|s| StreamStat {
                name: &s.proc.name,
                bytes: s.read_before,
                lines: s.proc.lines_read(),
                // an ended stream reads nothing more: idle, so that a
                // stream added and ended within one round does not hold
                // readiness back until `ended` removes it
                idle: s.end.is_some() || s.proc.state() == Advance::Idle,
                generation: s.proc.generation(),
            })
            .collect();
        o.streams(now, &stats);
        let forget = self
            .opts
            .live
            .as_ref()
            .is_some_and(|l| l.forget_ended.is_some());
        if !forget || self.slots.iter().all(|s| s.end.is_none()) {
            return;
        }
        let mut i = 0;
        while i < self.slots.len() {
            if let Some(end) = &self.slots[i].end {
                o.ended(&self.slots[i].proc.name, end);
                for id in self.slots[i].proc.segment_ids() {
                    let input = &self.inputs[id.0 as usize];
                    if let Some(f) = family_of(input) {
                        self.families.remove(&f);
                    }
                    self.reading.remove(input);
                    if let Some(m) = FileMark::of(input) {
                        self.ended.insert(input.clone(), m);
                    }
                }
                self.slots.remove(i);
                self.segments.remove(i);
            } else {
                i += 1;
            }
        }
    }
}

/// Tells the observer what a stream's last step skipped or could not
/// order.
pub(super) fn observe_step(o: &dyn Observe, proc: &mut StreamReader, unordered: usize) {
    if unordered > 0 {
        o.unordered(&proc.name, unordered);
    }
    let long = proc.take_too_long();
    if !long.is_empty() {
        o.too_long(&proc.name, &long);
    }
}

/// What tells a file changed: its length and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FileMark(u64, Option<std::time::SystemTime>);

impl FileMark {
    /// The file's mark now; `None` for what is not a file on disk.
    pub(super) fn of(input: &Input) -> Option<FileMark> {
        let m = std::fs::metadata(input.named_path()?).ok()?;
        Some(FileMark(m.len(), m.modified().ok()))
    }
}
