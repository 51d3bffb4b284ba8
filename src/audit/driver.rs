//! The run: streams read in rounds of log time (in parallel), their items
//! merged up to the watermark and fed to the cross-worker stage, whose
//! findings go to the sink as they become final; the report at the end.
//!
//! Finite inputs are read in lockstep: each round reads every stream up to
//! the same log time, so memory holds one round of items. Live input
//! (stdin, `--follow`) is read as it comes: a stream with nothing more for
//! now is idle; it holds the watermark back for at most the idle timeout.

use super::merge::{Merger, Reducer};
use super::observe::{Observe, StreamStat};
use super::plan;
use super::report::{stitched_note, withheld_note};
use super::sink::{Collect, Sink, SourceTable};
use super::{InputReport, Options, Report};
use crate::input::Input;
use crate::input::live::{FollowEvents, LiveOpen, Notify};
use crate::model::Key;
use crate::model::{SourceId, Timestamp};
use crate::stream::Item;
use crate::stream::{Advance, StreamEnd, StreamReader, Until};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How soon the run looks again while items wait for a quiet stream's
/// bound to grow past them.
const QUIET_LOOK: Duration = Duration::from_millis(10);

/// How often followed directories are looked at for new logs.
const RESCAN: Duration = Duration::from_secs(1);

/// How long a live stream must have had nothing new before what its
/// replays hold back for lines that may follow (a start's failure, a
/// connector stop's `Ignoring stop request`) is final: lines a worker logs
/// at once may reach the pipe in separate writes.
const SETTLE: Duration = Duration::from_millis(5);

/// Log time one round covers at first; it adapts to keep rounds between
/// [`ROUND_MIN_BYTES`] and [`ROUND_MAX_BYTES`].
const ROUND_START_MS: i64 = 10 * 60 * 1000;
const ROUND_MIN_BYTES: u64 = 8 << 20;
const ROUND_MAX_BYTES: u64 = 64 << 20;

/// The same for live input (`--follow`, `herder-audit watch`): a follower
/// catching up with logs on disk holds one round's facts in memory, and
/// live input comes in far smaller steps than a batch reads; small rounds
/// keep that memory small (the merged order does not depend on them).
const LIVE_ROUND_MIN_BYTES: u64 = 256 << 10;
const LIVE_ROUND_MAX_BYTES: u64 = 2 << 20;

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
    pub records: Option<Arc<super::observe::RecordFeed>>,
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

    fn open(&self) -> LiveOpen {
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

/// Audits `inputs`, keeping every finding in the report.
pub fn audit(inputs: &[Input], opts: &Options) -> Report {
    let mut sink = Collect::default();
    // Collecting cannot fail.
    audit_to(inputs, opts, &mut sink).unwrap_or_default()
}

/// Audits `inputs`, handing each finding to `sink` as it becomes final.
/// Fails only when the sink does (a closed pipe).
pub fn audit_to(inputs: &[Input], opts: &Options, sink: &mut dyn Sink) -> io::Result<Report> {
    match opts.jobs {
        // One thread: no pool at all (cheap for many small audits).
        Some(0 | 1) => Run::new(inputs, opts, false).go(sink),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(|| Run::new(inputs, opts, true).go(sink)),
            Err(_) => Run::new(inputs, opts, true).go(sink),
        },
        None => Run::new(inputs, opts, true).go(sink),
    }
}

/// One stream being read.
struct Slot {
    proc: StreamReader,
    end: Option<StreamEnd>,
    /// Since when a live stream has had nothing to read.
    idle_since: Option<Instant>,
    /// What its replays held back was handed on since it went quiet.
    settled: bool,
    read_before: u64,
    /// How far it is known complete while quiet.
    quiet: super::quiet::Quiet,
    /// Bytes it read in the last round: what the next round's share of it
    /// is guessed to cost, to read the dearest streams first.
    last_read: u64,
}

struct Run<'a> {
    inputs: Vec<Input>,
    opts: &'a Options,
    parallel: bool,
    /// Segments per stream.
    segments: Vec<usize>,
    slots: Vec<Slot>,
    names: SourceTable,
    /// Families (directory, rotation base) of the streams read, so that a
    /// followed directory's rotated segments are not taken for new logs.
    families: std::collections::HashSet<(std::path::PathBuf, String)>,
    /// The inputs of the streams being read (those of streams dropped when
    /// they ended are not: a log created again at a path is read again).
    reading: std::collections::HashSet<Input>,
    last_rescan: Instant,
    /// The rank of the next stream added.
    next_rank: u32,
    /// Tells at once of logs created in followed directories.
    appear: super::appear::Appear,
    /// The topics read live: the source id of each of the feed's topics
    /// (by its place in the feed), the records and skipped records read so
    /// far, how many records of each cluster are items already, and the
    /// next item's sequence number.
    live_topics: super::live_topics::LiveTopics,
    /// The run's start, for the quiet streams' clocks.
    epoch: Instant,
}

/// The family of a file: its directory and the name before rotation.
fn family_of(input: &Input) -> Option<(std::path::PathBuf, String)> {
    let p = input.named_path()?;
    let dir = p.parent().map(|d| d.to_path_buf()).unwrap_or_default();
    // A kubelet container's logs across its restarts are one stream: the
    // followed log hands over to the next one itself.
    if crate::input::rotation::kubelet_container(&p).is_some() {
        return Some((dir, "<N>.log".to_string()));
    }
    let file = p.file_name()?.to_string_lossy().to_string();
    Some((
        dir,
        crate::input::rotation::rotation_base(&file).to_string(),
    ))
}

impl<'a> Run<'a> {
    fn new(inputs: &[Input], opts: &'a Options, parallel: bool) -> Run<'a> {
        let mut run = Run {
            inputs: Vec::new(),
            opts,
            parallel,
            segments: Vec::new(),
            slots: Vec::new(),
            names: SourceTable::default(),
            families: Default::default(),
            reading: Default::default(),
            last_rescan: Instant::now(),
            next_rank: 0,
            appear: super::appear::Appear::new(),
            live_topics: Default::default(),
            epoch: Instant::now(),
        };
        if let Some(l) = &opts.live
            && l.follow
        {
            run.appear.watch(&l.roots);
        }
        run.add(inputs);
        if let Some(w) = &opts.witness {
            // the topics' inputs, numbered after the logs'
            run.names.0.extend(w.inputs.iter().map(|i| i.name.clone()));
        }
        if let Some(feed) = opts.live.as_ref().and_then(|l| l.records.clone()) {
            // the live topics' inputs: numbered as inputs read no stream
            for (_, name) in &feed.inputs {
                run.live_topics.source(SourceId(run.inputs.len() as u32));
                run.inputs.push(Input::bytes(name.clone(), Vec::new()));
                run.names.0.push(name.clone());
            }
        }
        run
    }

    /// Adds `inputs` to the run, as streams ranked after those read so far.
    fn add(&mut self, inputs: &[Input]) {
        let base = self.inputs.len();
        self.inputs.extend(inputs.iter().cloned());
        self.names.0.extend(inputs.iter().map(Input::display));
        let live = self.opts.live.as_ref().map(Live::open);
        for s in plan::streams(inputs, self.parallel) {
            // Never one of a stream dropped (ranks tell streams apart).
            let rank = self.next_rank;
            self.next_rank += 1;
            let segs = s
                .segments
                .iter()
                .map(|&i| (SourceId((base + i) as u32), inputs[i].clone()))
                .collect();
            for &i in &s.segments {
                if let Some(f) = family_of(&inputs[i]) {
                    self.families.insert(f);
                }
                self.reading.insert(inputs[i].clone());
            }
            self.segments.push(s.segments.len());
            self.slots.push(Slot {
                proc: StreamReader::new(s.name, rank, segs, self.opts.keep_generations, true)
                    .with_live(live.clone())
                    .with_timeline(self.opts.timeline),
                end: None,
                idle_since: None,
                settled: false,
                read_before: 0,
                quiet: super::quiet::Quiet::new(
                    s.segments.iter().any(|&i| inputs[i] == Input::Stdin),
                ),
                last_read: 0,
            });
        }
    }

    /// Following directories: logs that appeared since the last look (not
    /// rotated segments of logs already read) become new streams.
    fn rescan(&mut self) {
        let Some(live) = &self.opts.live else { return };
        if !live.follow || live.roots.is_empty() || self.last_rescan.elapsed() < RESCAN {
            return;
        }
        self.last_rescan = Instant::now();
        // Directories first, then their logs: a log created in between
        // is told by its event.
        self.appear.watch(&live.roots);
        let (found, _) = crate::input::expand(&live.roots);
        let mut fresh: Vec<Input> = Vec::new();
        let mut fams = std::collections::HashSet::new();
        let observer = live.observer.clone();
        for i in found {
            if self.reading.contains(&i) || observer.as_ref().is_some_and(|o| !o.accept(&i)) {
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

    /// Reads one round; streams that end are finished at once.
    ///
    /// In parallel, the streams are taken one at a time from a queue,
    /// those that read the most in the last round first: each thread
    /// takes the next stream as soon as it is free (also the thread that
    /// fed the cross-worker stage meanwhile), so the round ends with small
    /// streams and the threads end it nearly together. Splitting the
    /// streams in halves between the threads (rayon's split of a slice)
    /// leaves one thread idle while the other reads what its half had left.
    fn read_round(slots: &mut [Slot], until: Until, parallel: bool) {
        let step = |s: &mut Slot| {
            if s.end.is_some() {
                return;
            }
            if s.proc.advance(until) == Advance::Done {
                s.end = Some(s.proc.finish());
            }
        };
        if !parallel {
            slots.iter_mut().for_each(step);
            return;
        }
        let mut queue: Vec<&mut Slot> = slots.iter_mut().filter(|s| s.end.is_none()).collect();
        // Stable: streams alike keep their rank order.
        queue.sort_by_key(|s| std::cmp::Reverse(s.last_read));
        let queue: Vec<std::sync::Mutex<&mut Slot>> =
            queue.into_iter().map(std::sync::Mutex::new).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let take = || {
            while let Some(s) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                // Each stream is taken once: its lock is never contended.
                step(&mut s.lock().unwrap_or_else(|e| e.into_inner()));
            }
        };
        let threads = rayon::current_num_threads().min(queue.len());
        rayon::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| take());
            }
            take();
        });
    }

    /// How long to wait for live input: `poll`, or less when a quiet
    /// stream is about to settle.
    fn wait_for(&self, poll: Duration, pending: bool) -> Duration {
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
    fn watermark(&self, now: Instant) -> Key {
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

    fn go(mut self, sink: &mut dyn Sink) -> io::Result<Report> {
        let mut merger = Merger::default();
        let mut reducer = Reducer::new();
        if let Some(w) = &self.opts.witness {
            merger.add(super::witness_items(w));
            reducer.witness = Some(crate::topics::cross::Cross::new(w.records.clone()));
        }
        let observer = self.opts.live.as_ref().and_then(|l| l.observer.clone());
        reducer.observer = observer.clone();
        let progress = Progress::new(self.opts.progress, &self.inputs, self.opts.live.is_some());
        let mut span = ROUND_START_MS;
        let mut until = Until::FirstStamp;
        // The items of one round go to the cross-worker stage while the
        // next round is read.
        let mut batch: (Vec<Item>, Key) = (Vec::new(), Key::MIN);
        let parallel = self.parallel;
        let stop = self.opts.live.as_ref().map(|l| l.stop.clone());
        let settle_early = self.opts.live.as_ref().is_some_and(|l| l.settle_early);
        loop {
            if settle_early {
                reducer.settle_among(self.slots.iter().map(|s| s.proc.rank()));
            }
            let stopping = stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
            let round_start = Instant::now();
            let fed = {
                let names = &self.names;
                let slots = &mut self.slots;
                let mut feed = |(items, watermark): (Vec<Item>, Key)| -> io::Result<()> {
                    for item in items {
                        reducer.push(item, names, sink)?;
                    }
                    reducer.advance_to(watermark, names, sink)
                };
                let batch = std::mem::replace(&mut batch, (Vec::new(), Key::MIN));
                if stopping {
                    // End cleanly: what was read is all there is.
                    for s in slots.iter_mut() {
                        if s.end.is_none() {
                            s.end = Some(s.proc.finish());
                        }
                    }
                    feed(batch)
                } else if parallel && !batch.0.is_empty() {
                    rayon::join(|| Self::read_round(slots, until, true), || feed(batch)).1
                } else {
                    let r = feed(batch);
                    Self::read_round(slots, until, parallel);
                    r
                }
            };
            fed?;
            let now = Instant::now();
            let read = self.take_round(
                (round_start, now),
                observer.as_deref(),
                &mut reducer,
                &mut merger,
            );
            if let Some(feed) = self.opts.live.as_ref().and_then(|l| l.records.as_ref()) {
                self.live_topics.take(feed, &mut merger, &mut reducer);
            }
            if let Some(o) = &observer {
                self.observe_streams(&**o, now);
            }
            // A log created before this moment joins before anything read
            // is released: its lines may come before what the others read.
            if self.appear.appeared() {
                self.last_rescan = Instant::now() - RESCAN;
                self.rescan();
            }
            let wm = self.watermark(now);
            batch = (merger.release(wm), wm);
            progress.update(&self.slots, reducer.counts.values().sum());
            if self.slots.iter().all(|s| s.end.is_some()) {
                match &self.opts.live {
                    // Following directories: new logs may still come.
                    // Or the topics read live.
                    Some(l)
                        if (l.follow && !l.roots.is_empty() || l.records.is_some())
                            && !l.stop.load(Ordering::Relaxed) =>
                    {
                        l.wake.wait(l.poll);
                        self.last_rescan = Instant::now() - RESCAN;
                        self.rescan();
                        continue;
                    }
                    _ => break,
                }
            }
            self.rescan();
            until = match self.next_until(until, &mut span, read) {
                Some(u) => u,
                None => {
                    // Only live streams with nothing to read: feed what is
                    // final, then wait for more.
                    if let Some(live) = &self.opts.live {
                        let (items, wm) = std::mem::replace(&mut batch, (Vec::new(), Key::MIN));
                        for item in items {
                            reducer.push(item, &self.names, sink)?;
                        }
                        reducer.advance_to(wm, &self.names, sink)?;
                        let wm = self.watermark(Instant::now());
                        batch = (merger.release(wm), wm);
                        if batch.0.is_empty() && !live.stop.load(Ordering::Relaxed) {
                            live.wake.wait(self.wait_for(live.poll, !merger.is_empty()));
                        }
                    }
                    Until::End
                }
            };
        }
        for item in batch.0.into_iter().chain(merger.release(Key::MAX)) {
            reducer.push(item, &self.names, sink)?;
        }
        reducer.finish(&self.names, sink)?;
        progress.finish();
        Ok(self.assemble(reducer, sink))
    }

    /// Takes what each stream handed on in the round just read: its
    /// items to the merger, the lines of unknown order to the reducer; a
    /// stream quiet for [`SETTLE`] hands on what it held back for lines
    /// that may follow. Returns the bytes read in the round.
    fn take_round(
        &mut self,
        (round_start, now): (Instant, Instant),
        observer: Option<&dyn Observe>,
        reducer: &mut Reducer,
        merger: &mut Merger,
    ) -> u64 {
        let mut read = 0;
        for s in &mut self.slots {
            let unordered = s.proc.take_unordered();
            if let Some(o) = observer {
                observe_step(o, &mut s.proc, unordered.len());
            }
            reducer.withhold(unordered);
            let items = s.proc.take_items();
            s.quiet.items(&items);
            merger.add(items);
            let total = s.proc.bytes_read.load(Ordering::Relaxed);
            let fresh = total - s.read_before;
            read += fresh;
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
    fn observe_streams(&mut self, o: &dyn Observe, now: Instant) {
        let stats: Vec<StreamStat<'_>> = self
            .slots
            .iter()
            .map(|s| StreamStat {
                name: &s.proc.name,
                bytes: s.read_before,
                lines: s.proc.lines_read(),
                idle: s.proc.state() == Advance::Idle,
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
                }
                self.slots.remove(i);
                self.segments.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Where the next round ends: a span of log time past the earliest
    /// stream paused (the span adapts to the bytes a round reads); `None`
    /// when no stream is paused (all done or idle).
    fn next_until(&self, until: Until, span: &mut i64, read: u64) -> Option<Until> {
        let paused = self
            .slots
            .iter()
            .filter_map(|s| match s.proc.state() {
                Advance::Paused(t) => Some(t),
                _ => None,
            })
            .min()?;
        if paused.0 == i64::MIN {
            return Some(Until::FirstStamp);
        }
        let (min, max) = if self.opts.live.is_some() {
            (LIVE_ROUND_MIN_BYTES, LIVE_ROUND_MAX_BYTES)
        } else {
            (ROUND_MIN_BYTES, ROUND_MAX_BYTES)
        };
        if matches!(until, Until::After(_)) {
            if read < min {
                *span = (*span * 2).min(7 * 24 * 3600 * 1000);
            } else if read > max {
                *span = (*span / 2).max(1000);
            }
        }
        Some(Until::After(Timestamp(paused.0.saturating_add(*span))))
    }

    /// The first stage alone (`herder-audit map`): every stream read (in
    /// rounds, as for a whole audit), its items written as they come, then
    /// what each stream leaves.
    fn go_map(
        mut self,
        out: &mut super::mapred::MapWriter<'_>,
    ) -> io::Result<Vec<super::InputError>> {
        let mut span = ROUND_START_MS;
        let mut until = Until::FirstStamp;
        loop {
            Self::read_round(&mut self.slots, until, self.parallel);
            let mut read = 0;
            for s in &mut self.slots {
                out.unordered(s.proc.take_unordered())?;
                out.items(s.proc.take_items())?;
                let total = s.proc.bytes_read.load(Ordering::Relaxed);
                s.last_read = total - s.read_before;
                read += s.last_read;
                s.read_before = total;
            }
            if self.slots.iter().all(|s| s.end.is_some()) {
                break;
            }
            until = self
                .next_until(until, &mut span, read)
                .unwrap_or(Until::End);
        }
        let mut errors = Vec::new();
        for (slot, segs) in self.slots.into_iter().zip(self.segments) {
            let Some(mut end) = slot.end else { continue };
            stitched_note(&mut end, segs);
            errors.extend(end.errors.iter().cloned());
            out.stream(&slot.proc, segs, end)?;
        }
        Ok(errors)
    }

    /// The report: inputs by id, workers in stream order.
    fn assemble(self, reducer: Reducer, sink: &mut dyn Sink) -> Report {
        let mut report = Report {
            inputs: self
                .inputs
                .iter()
                .enumerate()
                .map(|(i, inp)| InputReport::empty(SourceId(i as u32), inp.display()))
                .collect(),
            ..Report::default()
        };
        for (slot, segs) in self.slots.into_iter().zip(self.segments) {
            let Some(mut end) = slot.end else { continue };
            stitched_note(&mut end, segs);
            if segs > 1 {
                report
                    .stitched
                    .push((slot.proc.name.clone(), segs, end.repeats_skipped));
            }
            for r in end.inputs {
                let i = r.id.0 as usize;
                report.inputs[i] = r;
            }
            report.errors.extend(end.errors);
            for mut w in end.workers {
                if let Some(c) = reducer.cross_counts.get(&w.summary.worker) {
                    for (k, n) in c {
                        *w.summary.findings.entry(*k).or_default() += n;
                    }
                }
                if let Some(c) = reducer.withheld.get(&w.summary.worker) {
                    withheld_note(&mut w, c);
                }
                report.workers.push(w);
            }
        }
        report.same_worker = reducer.same_worker();
        if let (Some(x), Some(w)) = (&reducer.witness, &self.opts.witness) {
            report.inputs.extend(w.inputs.iter().cloned());
            report.topics = Some(x.summary(!self.inputs.is_empty(), &super::log_ids(&report)));
        }
        report.isolation = reducer.isolation.finish();
        report.counts = reducer.counts;
        report.findings = sink.take_kept();
        report
    }
}

/// Tells the observer what a stream's last step skipped or could not
/// order.
fn observe_step(o: &dyn Observe, proc: &mut StreamReader, unordered: usize) {
    if unordered > 0 {
        o.unordered(&proc.name, unordered);
    }
    let long = proc.take_too_long();
    if !long.is_empty() {
        o.too_long(&proc.name, &long);
    }
}

/// Runs the first stage alone: writes the items and ends of every stream
/// of `inputs` to `out` (see `audit::mapred`). Returns the input
/// errors the streams met (they are in the output too).
pub fn map_to(
    inputs: &[Input],
    opts: &Options,
    out: &mut super::mapred::MapWriter<'_>,
) -> io::Result<Vec<super::InputError>> {
    let mut go = |parallel| Run::new(inputs, opts, parallel).go_map(out);
    match opts.jobs {
        Some(0 | 1) => go(false),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(|| go(true)),
            Err(_) => go(true),
        },
        None => go(true),
    }
}

/// A progress bar (finite input) or a status line (live input) on stderr,
/// on a terminal only.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    live: bool,
}

impl Progress {
    fn new(enabled: bool, inputs: &[Input], live: bool) -> Progress {
        use std::io::IsTerminal;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let total: u64 = inputs
                .iter()
                .filter_map(|i| match i {
                    Input::File(p) | Input::Named { path: p, .. } => {
                        std::fs::metadata(p).ok().map(|m| m.len())
                    }
                    Input::Stdin => None,
                    Input::Bytes { data, .. } => Some(data.len() as u64),
                })
                .sum();
            let (len, template) = if live {
                (None, "{spinner} {msg} [{elapsed_precise}]")
            } else {
                (
                    Some(total),
                    "{spinner} {bytes}/{total_bytes} ({bytes_per_sec}) {msg} [{elapsed_precise}, ETA {eta}]",
                )
            };
            let bar =
                indicatif::ProgressBar::with_draw_target(len, indicatif::ProgressDrawTarget::hidden());
            bar.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_message(format!("{} file(s)", inputs.len()));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            live,
        }
    }

    fn update(&self, slots: &[Slot], findings: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.is_hidden() && (self.live || self.started.elapsed() > Duration::from_secs(1)) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        let total: u64 = slots.iter().map(|s| s.read_before).sum();
        bar.set_position(total);
        if self.live {
            let lines: u64 = slots.iter().map(|s| s.proc.lines_read()).sum();
            let generation = slots
                .iter()
                .filter_map(|s| s.proc.generation())
                .max()
                .map_or_else(|| "-".to_string(), |g| g.to_string());
            bar.set_message(format!(
                "{} stream(s), generation {generation}, {lines} lines, {findings} finding(s)",
                slots.len()
            ));
            bar.tick();
        } else {
            let done = slots.iter().filter(|s| s.end.is_some()).count();
            bar.set_message(format!("{done}/{} stream(s) done", slots.len()));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
