//! The run: streams read in rounds of log time (in parallel), their items
//! merged up to the watermark and fed to the cross-worker stage, whose
//! findings go to the sink as they become final; the report at the end.
//!
//! Finite inputs are read in lockstep: each round reads every stream up to
//! the same log time, so memory holds one round of items. Live input
//! (stdin, `--follow`) is read as it comes: a stream with nothing more for
//! now is idle; it holds the watermark back for at most the idle timeout.

mod live;
mod progress;

pub use live::{Live, Wake};

use super::merge::{Merger, Reducer};
use super::plan;
use super::report::{stitched_note, withheld_note};
use super::sink::{Collect, Sink, SourceTable};
use super::{InputReport, Options, Report};
use crate::input::Input;
use crate::model::{Key, SourceId, Timestamp};
use crate::stream::{Advance, StreamEnd, StreamReader, Until};
use live::{LIVE_ROUND_MAX_BYTES, LIVE_ROUND_MIN_BYTES, RESCAN};
use progress::Progress;
use std::io;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Log time one round covers at first; it adapts to keep rounds between
/// [`ROUND_MIN_BYTES`] and [`ROUND_MAX_BYTES`].
const ROUND_START_MS: i64 = 10 * 60 * 1000;
const ROUND_MIN_BYTES: u64 = 8 << 20;
const ROUND_MAX_BYTES: u64 = 64 << 20;
/// Items (facts) one round may make before the next round's span is
/// halved; a span is doubled only while a round makes at most half
/// this. A round's items are all held at once (in the streams' vectors,
/// then the merger's batch; with `-j 2` or more, one round's batch is fed
/// while the next round's items are made): in a group of many workers
/// every rebalance is a fact per worker, and a group of 200 workers
/// joining one by one makes tens of thousands of facts in minutes of log
/// time and few bytes (docs/performance.md, "Round 8").
const ROUND_MAX_ITEMS: usize = 8 << 10;

/// What one round read and made.
#[derive(Debug, Default, Clone, Copy)]
struct RoundRead {
    bytes: u64,
    items: usize,
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
    /// Files whose streams ended and were dropped while the file stayed
    /// (a file that is no log, read to its end), as they were then: found
    /// again unchanged, they are not read again.
    ended: std::collections::HashMap<Input, live::FileMark>,
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
            ended: Default::default(),
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

    /// Reads one round; streams that end are finished at once.
    fn read_round(slots: &mut [Slot], until: Until, parallel: bool) {
        Self::read_round_beside(slots, until, parallel, || ());
    }

    /// Reads one round, running `first` on this thread meanwhile: in
    /// parallel, the streams are taken one at a time from a queue, those
    /// that read the most in the last round first, by the pool's other
    /// threads at once and by this one once `first` is done; each thread
    /// takes the next stream as soon as it is free, so the round ends
    /// with small streams and the threads end it nearly together.
    ///
    /// `first` (the cross-worker stage fed the last round's items) is one
    /// task that cannot be split, and the round waits for it: it starts at
    /// once on the thread already running, and the reading, which can be
    /// split, waits for the other threads to wake. Handed to the pool
    /// instead (`rayon::join`), it was stolen by the other thread only
    /// once that thread woke, and the round ended that much later.
    /// Splitting the streams in halves between the threads (rayon's split
    /// of a slice) leaves one thread idle while the other reads what its
    /// half had left.
    fn read_round_beside<R: Send>(
        slots: &mut [Slot],
        until: Until,
        parallel: bool,
        first: impl FnOnce() -> R + Send,
    ) -> R {
        let step = |s: &mut Slot| {
            if s.end.is_some() {
                return;
            }
            if s.proc.advance(until) == Advance::Done {
                s.end = Some(s.proc.finish());
            }
        };
        if !parallel {
            let r = first();
            slots.iter_mut().for_each(step);
            return r;
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
        // The other threads, as many as there are streams: with one stream
        // left, it is read beside `first`.
        let others = (rayon::current_num_threads().saturating_sub(1)).min(queue.len());
        rayon::scope(|scope| {
            for _ in 0..others {
                scope.spawn(|_| take());
            }
            let r = first();
            take();
            r
        })
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
        // next round is read: released from the merger (in key order, up
        // to the round's watermark) by the task that feeds them, so that
        // merging them is not serial between rounds.
        let mut pending = Key::MIN;
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
                let merger = &mut merger;
                let mut feed = |watermark: Key| -> io::Result<()> {
                    for item in merger.release(watermark) {
                        reducer.push(item, names, sink)?;
                    }
                    reducer.advance_to(watermark, names, sink)
                };
                let batch = std::mem::replace(&mut pending, Key::MIN);
                if stopping {
                    // End cleanly: what was read is all there is.
                    for s in slots.iter_mut() {
                        if s.end.is_none() {
                            s.end = Some(s.proc.finish());
                        }
                    }
                    feed(batch)
                } else {
                    Self::read_round_beside(slots, until, parallel, || feed(batch))
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
            pending = self.watermark(now);
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
                        let wm = std::mem::replace(&mut pending, Key::MIN);
                        for item in merger.release(wm) {
                            reducer.push(item, &self.names, sink)?;
                        }
                        reducer.advance_to(wm, &self.names, sink)?;
                        pending = self.watermark(Instant::now());
                        if !merger.ready(pending) && !live.stop.load(Ordering::Relaxed) {
                            live.wake.wait(self.wait_for(live.poll, !merger.is_empty()));
                        }
                    }
                    Until::End
                }
            };
        }
        let last = merger.release(pending);
        for item in last.chain(merger.release(Key::MAX)) {
            reducer.push(item, &self.names, sink)?;
        }
        reducer.finish(&self.names, sink)?;
        progress.finish();
        Ok(self.assemble(reducer, sink))
    }

    /// Where the next round ends: a span of log time past the earliest
    /// stream paused (the span adapts to the bytes a round reads); `None`
    /// when no stream is paused (all done or idle).
    fn next_until(&self, until: Until, span: &mut i64, read: RoundRead) -> Option<Until> {
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
            if read.bytes < min && read.items <= ROUND_MAX_ITEMS / 2 {
                *span = (*span * 2).min(7 * 24 * 3600 * 1000);
            } else if read.bytes > max || read.items > ROUND_MAX_ITEMS {
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
            let mut read = RoundRead::default();
            for s in &mut self.slots {
                out.unordered(s.proc.take_unordered())?;
                let items = s.proc.take_items();
                read.items += items.len();
                out.items(items)?;
                let total = s.proc.bytes_read.load(Ordering::Relaxed);
                s.last_read = total - s.read_before;
                read.bytes += s.last_read;
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
