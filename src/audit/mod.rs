//! The library's entry point: inputs in, one [`Report`] out.
//!
//! Inputs are grouped into streams (a file with its rotated segments, or
//! stdin; see [`crate::input::families`]). All streams advance together in
//! rounds of log time: in each round every stream is read, in parallel, up
//! to the same time stamp; then the facts the replays produced go, in a
//! fixed order, to the cross-worker checker, which forgets generations every
//! worker has left behind. Memory stays bounded by workers × resources and
//! the output does not depend on the number of threads.

pub mod stream;

use crate::cluster::Checker;
use crate::finding::{Evidence, Finding, Severity};
use crate::input::{self, Input, families};
use crate::model::{SourceId, Timestamp};
use crate::replay::WorkerReport;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};
use stream::{StreamProcessor, Until};

/// How to audit.
#[derive(Debug, Clone)]
pub struct Options {
    /// Keep the per-generation state (for the replay view).
    pub keep_generations: bool,
    /// Worker threads; `None` = rayon's default (one per core).
    pub jobs: Option<usize>,
    /// Run the cross-worker checks.
    pub cross: bool,
    /// Show a progress bar on stderr (when it is a terminal and the run is
    /// long).
    pub progress: bool,
    /// Record each worker's timeline (for the HTML report).
    pub timeline: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            keep_generations: false,
            jobs: None,
            cross: true,
            progress: false,
            timeline: false,
        }
    }
}

/// What was read from one input.
#[derive(Debug, Clone, PartialEq)]
pub struct InputReport {
    pub id: SourceId,
    pub name: String,
    pub gzip: bool,
    pub bytes: u64,
    pub lines: u64,
    /// Lines holding one of the prefilter literals.
    pub candidates: u64,
    /// Lifecycle events read (per stream: on its first segment).
    pub events: u64,
    /// Lines skipped for their length: (line number, length in bytes).
    pub too_long: Vec<(u64, u64)>,
}

impl InputReport {
    pub fn empty(id: SourceId, name: String) -> InputReport {
        InputReport {
            id,
            name,
            gzip: false,
            bytes: 0,
            lines: 0,
            candidates: 0,
            events: 0,
            too_long: Vec::new(),
        }
    }
}

/// An input that could not be (fully) read.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub input: String,
    pub message: String,
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// One per input, indexed by [`SourceId`].
    pub inputs: Vec<InputReport>,
    pub workers: Vec<WorkerReport>,
    pub errors: Vec<InputError>,
    /// Streams of several segments: (stream name, segment count, events
    /// skipped as repeats of overlapping segments).
    pub stitched: Vec<(String, usize, u64)>,
    /// Pairs of streams that turned out to be the same worker.
    pub same_worker: Vec<(String, String)>,
}

impl Report {
    /// All findings, in a stable order: worker, then position.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.workers.iter().flat_map(|w| w.findings.iter())
    }

    pub fn count_at_least(&self, s: Severity) -> usize {
        self.findings().filter(|f| f.severity() >= s).count()
    }

    /// The name of a source, for quoting lines.
    pub fn source_name(&self, id: SourceId) -> &str {
        self.inputs
            .get(id.0 as usize)
            .map_or("<unknown>", |i| i.name.as_str())
    }
}

pub(crate) fn read_error(e: &std::io::Error, gzip: bool) -> String {
    if gzip {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof => "gzip stream is truncated".to_string(),
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
                format!("gzip stream is corrupt ({})", input::describe(e))
            }
            _ => format!("read failed: {}", input::describe(e)),
        }
    } else {
        format!("read failed: {}", input::describe(e))
    }
}

/// Log time one round covers at first; it adapts to keep rounds between
/// [`ROUND_MIN_BYTES`] and [`ROUND_MAX_BYTES`].
const ROUND_START_MS: i64 = 10 * 60 * 1000;
const ROUND_MIN_BYTES: u64 = 8 << 20;
const ROUND_MAX_BYTES: u64 = 64 << 20;

/// The cross-worker facts of one round, and how far each worker was read.
#[derive(Default)]
struct Batch {
    facts: Vec<(Option<Timestamp>, usize, u64, usize, crate::replay::Fact)>,
    progress: Vec<(usize, Option<Timestamp>, bool)>,
}

impl Batch {
    /// Feeds the facts in a fixed order (time, stream, position) and lets
    /// the checker forget what every worker has left behind.
    fn check(mut self, checker: &mut Checker) {
        self.facts.sort_by_key(|a| (a.0, a.1, a.2));
        for (_, _, _, w, f) in self.facts {
            checker.feed(w, f);
        }
        // Progress in worker order, for a deterministic retirement.
        self.progress.sort_by_key(|p| p.0);
        for (w, at, done) in self.progress {
            checker.progress(w, at, done);
        }
        checker.retire();
    }
}

/// Orders each family's segments by their first time stamps.
fn streams(inputs: &[Input], parallel: bool) -> Vec<families::Family> {
    let mut fams = families::group(inputs);
    let multi: Vec<usize> = fams
        .iter()
        .filter(|f| f.segments.len() > 1)
        .flat_map(|f| f.segments.iter().copied())
        .collect();
    let peek = |&i: &usize| {
        let ts = input::open(&inputs[i])
            .ok()
            .and_then(|(r, _)| families::first_timestamp(r));
        (i, ts)
    };
    let peeked: Vec<(usize, Option<Timestamp>)> = if parallel {
        multi.par_iter().map(peek).collect()
    } else {
        multi.iter().map(peek).collect()
    };
    let mut first = vec![None; inputs.len()];
    for (i, ts) in peeked {
        first[i] = ts;
    }
    for f in &mut fams {
        if f.segments.len() > 1 {
            families::order_segments(inputs, f, &first);
        }
    }
    fams
}

/// Audits `inputs` (already expanded into files and stdin).
pub fn audit(inputs: &[Input], opts: &Options) -> Report {
    match opts.jobs {
        // One thread: no pool at all (cheap for many small audits).
        Some(0 | 1) => run(inputs, opts, false),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(|| run(inputs, opts, true)),
            Err(_) => run(inputs, opts, true),
        },
        None => run(inputs, opts, true),
    }
}

fn run(inputs: &[Input], opts: &Options, parallel: bool) -> Report {
    let fams = streams(inputs, parallel);
    let mut procs: Vec<StreamProcessor> = fams
        .iter()
        .map(|f| {
            let segs = f
                .segments
                .iter()
                .map(|&i| (SourceId(i as u32), inputs[i].clone()))
                .collect();
            let label = if f.segments.len() == 1 {
                inputs[f.segments[0]].display()
            } else {
                f.name.clone()
            };
            let p = StreamProcessor::new(label, segs, opts.keep_generations, opts.cross);
            if opts.timeline { p.with_timeline() } else { p }
        })
        .collect();

    let mut checker = Checker::new();
    let mut workers: HashMap<(usize, String), usize> = HashMap::new();
    let progress = Progress::new(opts.progress, inputs);
    let mut span = ROUND_START_MS;
    let mut until = Until::FirstStamp;
    // The facts of one round are checked while the next round is read.
    let mut pending: Option<Batch> = None;
    loop {
        let scan = |procs: &mut Vec<StreamProcessor>| -> Vec<Option<Timestamp>> {
            if parallel {
                procs.par_iter_mut().map(|p| p.advance(until)).collect()
            } else {
                procs.iter_mut().map(|p| p.advance(until)).collect()
            }
        };
        let next = match pending.take() {
            Some(batch) if parallel => {
                let (next, ()) = rayon::join(|| scan(&mut procs), || batch.check(&mut checker));
                next
            }
            Some(batch) => {
                batch.check(&mut checker);
                scan(&mut procs)
            }
            None => scan(&mut procs),
        };
        let mut batch = Batch::default();
        for (si, p) in procs.iter_mut().enumerate() {
            for (label, fs) in p.take_facts() {
                let w = *workers
                    .entry((si, label.clone()))
                    .or_insert_with(|| checker.worker(label));
                batch
                    .facts
                    .extend(fs.into_iter().map(|f| (f.line.ts, si, f.line.seq, w, f)));
            }
        }
        for (&(si, _), &w) in &workers {
            batch.progress.push((w, next[si], procs[si].is_done()));
        }
        pending = Some(batch);
        let read = progress.update(&procs);
        let Some(min_next) = next.iter().flatten().min().copied() else {
            if procs.iter().all(StreamProcessor::is_done) {
                break;
            }
            // Streams left without time stamps: read them to the end.
            until = Until::End;
            continue;
        };
        if matches!(until, Until::After(_)) {
            if read < ROUND_MIN_BYTES {
                span = (span * 2).min(7 * 24 * 3600 * 1000);
            } else if read > ROUND_MAX_BYTES {
                span = (span / 2).max(1000);
            }
        }
        until = Until::After(Timestamp(min_next.0 + span));
    }
    if let Some(batch) = pending.take() {
        batch.check(&mut checker);
    }
    progress.finish();

    // Assemble: replays in stream order, inputs by id.
    let mut report = Report {
        inputs: inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| InputReport::empty(SourceId(i as u32), inp.display()))
            .collect(),
        ..Report::default()
    };
    let mut label_to_worker: BTreeMap<String, usize> = BTreeMap::new();
    for ((_, label), w) in &workers {
        label_to_worker.insert(label.clone(), *w);
    }
    let mut identities: HashMap<usize, (String, String)> = HashMap::new();
    for (si, p) in procs.into_iter().enumerate() {
        let segs = fams[si].segments.len();
        let (replays, reps, errs, skipped) = match crate::guard::guarded(|| p.finish()) {
            Ok(r) => r,
            Err(msg) => {
                report.errors.push(InputError {
                    input: fams[si].name.clone(),
                    message: format!(
                        "internal error at the end of the input: {msg} (please report this)"
                    ),
                });
                continue;
            }
        };
        if segs > 1 {
            report.stitched.push((fams[si].name.clone(), segs, skipped));
        }
        for r in reps {
            let i = r.id.0 as usize;
            report.inputs[i] = r;
        }
        report.errors.extend(errs);
        for replay in replays {
            let label = replay.label().to_string();
            if let (Some(w), Some(g)) = (label_to_worker.get(&label), replay.group())
                && let Some(id) = identity_key(&replay)
            {
                identities.insert(*w, (g.to_string(), id));
            }
            let mut wr = match crate::guard::guarded(|| replay.finish()) {
                Ok(wr) => wr,
                Err(msg) => {
                    report.errors.push(InputError {
                        input: label,
                        message: format!(
                            "internal error ending the replay: {msg} (please report this)"
                        ),
                    });
                    continue;
                }
            };
            if segs > 1 {
                wr.summary.notes.push(crate::replay::Note {
                    line: None,
                    text: format!("stitched from {segs} rotated segments in time order"),
                });
            }
            report.workers.push(wr);
        }
    }
    merge_cross(&mut report, checker, &identities);
    for w in &mut report.workers {
        w.findings.sort_by(|a, b| {
            (a.trigger.seq, a.kind, &a.resource).cmp(&(b.trigger.seq, b.kind, &b.resource))
        });
    }
    report
}

/// The most stable id a worker's log reveals (REST URL, member id, explicit client id).
fn identity_key(r: &crate::replay::WorkerReplay) -> Option<String> {
    r.identity().1
}

/// Adds the cross-worker findings to their workers, names the owners of
/// foreign starts, and drops comparisons between two streams of one worker.
fn merge_cross(
    report: &mut Report,
    checker: Checker,
    identities: &HashMap<usize, (String, String)>,
) {
    let by_label: HashMap<String, usize> = report
        .workers
        .iter()
        .enumerate()
        .map(|(i, w)| (w.summary.worker.clone(), i))
        .collect();
    let same = |a: usize, b: usize| matches!((identities.get(&a), identities.get(&b)), (Some(x), Some(y)) if x == y);
    let mut seen_same = std::collections::BTreeSet::new();
    for cf in &checker.findings {
        if same(cf.worker, cf.other) {
            let (a, b) = (
                checker.label(cf.worker).to_string(),
                checker.label(cf.other).to_string(),
            );
            seen_same.insert(if a < b { (a, b) } else { (b, a) });
            continue;
        }
        if let Some(&i) = by_label.get(checker.label(cf.worker)) {
            let f = cf.finding.clone();
            *report.workers[i]
                .summary
                .findings
                .entry(f.kind)
                .or_default() += 1;
            report.workers[i].findings.push(f);
        }
    }
    report.same_worker = seen_same.into_iter().collect();
    for o in &checker.owners {
        if same(o.worker, o.owner) {
            continue;
        }
        let Some(&i) = by_label.get(checker.label(o.worker)) else {
            continue;
        };
        let owner = checker.label(o.owner).to_string();
        if let Some(f) = report.workers[i].findings.get_mut(o.finding) {
            f.reason = format!(
                "{} (generation {} assigns it to {owner})",
                f.reason.trim_end_matches('.'),
                o.generation
            );
            f.evidence.push(Evidence {
                role: format!("assigned to {owner} in the same generation"),
                worker: Some(owner),
                line: o.line.clone(),
            });
            f.normalise();
        }
    }
}

/// A progress bar on stderr for long runs on a terminal.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    last: std::cell::Cell<u64>,
}

impl Progress {
    fn new(enabled: bool, inputs: &[Input]) -> Progress {
        use std::io::IsTerminal;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let total: u64 = inputs
                .iter()
                .filter_map(|i| match i {
                    Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
                    Input::Stdin => None,
                    Input::Bytes { data, .. } => Some(data.len() as u64),
                })
                .sum();
            let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::hidden());
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {bytes}/{total_bytes} ({bytes_per_sec}) {msg} [{elapsed_precise}, ETA {eta}]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_message(format!("{} file(s)", inputs.len()));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            last: std::cell::Cell::new(0),
        }
    }

    /// Updates the bar; returns the bytes read since the last update.
    fn update(&self, procs: &[StreamProcessor]) -> u64 {
        let total: u64 = procs
            .iter()
            .map(|p| p.bytes_read.load(std::sync::atomic::Ordering::Relaxed))
            .sum();
        let delta = total - self.last.replace(total);
        if let Some(bar) = &self.bar {
            if bar.is_hidden() && self.started.elapsed() > Duration::from_secs(1) {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_position(total);
            let done = procs.iter().filter(|p| p.is_done()).count();
            bar.set_message(format!("{done}/{} stream(s) done", procs.len()));
        }
        delta
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
