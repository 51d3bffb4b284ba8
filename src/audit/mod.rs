//! The library's entry point: inputs in, one [`Report`] out.

pub mod stream;

use crate::finding::{Finding, Severity};
use crate::input::{self, Input, scan};
use crate::model::SourceId;
use crate::replay::WorkerReport;
use rayon::prelude::*;
use stream::StreamSink;

/// How to audit.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Keep the per-generation state (for the replay view).
    pub keep_generations: bool,
    /// Worker threads; `None` = rayon's default (one per core).
    pub jobs: Option<usize>,
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
    /// Lifecycle events read.
    pub events: u64,
    /// Lines skipped for their length: (line number, length in bytes).
    pub too_long: Vec<(u64, u64)>,
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
    pub inputs: Vec<InputReport>,
    pub workers: Vec<WorkerReport>,
    pub errors: Vec<InputError>,
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

/// Reads and replays one input.
fn audit_one(
    id: SourceId,
    input: &Input,
    opts: &Options,
) -> (InputReport, Vec<WorkerReport>, Option<InputError>) {
    let name = input.display();
    let mut rep = InputReport {
        id,
        name: name.clone(),
        gzip: false,
        bytes: 0,
        lines: 0,
        candidates: 0,
        events: 0,
        too_long: Vec::new(),
    };
    let (mut reader, gzip) = match input::open(input) {
        Ok(r) => r,
        Err(e) => {
            let err = InputError {
                input: name,
                message: input::describe(&e),
            };
            return (rep, Vec::new(), Some(err));
        }
    };
    rep.gzip = gzip;
    let mut sink = StreamSink::new(id, name.clone(), opts.keep_generations);
    let (stats, err) = scan::scan(&mut reader, &mut sink);
    rep.bytes = stats.bytes;
    rep.lines = stats.lines;
    rep.candidates = stats.candidates;
    rep.events = sink.events;
    rep.too_long = std::mem::take(&mut sink.too_long);
    let error = err.map(|e| InputError {
        input: name.clone(),
        message: format!(
            "{} after line {}; the lines before it were audited",
            read_error(&e, gzip),
            stats.lines
        ),
    });
    let mut workers: Vec<WorkerReport> = sink
        .into_replays()
        .into_iter()
        .map(|r| r.finish())
        .collect();
    for w in &mut workers {
        w.findings
            .sort_by(|a, b| a.trigger.seq.cmp(&b.trigger.seq).then(a.kind.cmp(&b.kind)));
    }
    (rep, workers, error)
}

fn read_error(e: &std::io::Error, gzip: bool) -> String {
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

/// Audits `inputs` (already expanded into files and stdin).
pub fn audit(inputs: &[Input], opts: &Options) -> Report {
    let run = || -> Vec<_> {
        inputs
            .par_iter()
            .enumerate()
            .map(|(i, input)| audit_one(SourceId(i as u32), input, opts))
            .collect()
    };
    let results = match opts.jobs {
        Some(n) => match rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
        {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        },
        None => run(),
    };
    let mut report = Report::default();
    for (rep, workers, err) in results {
        report.inputs.push(rep);
        report.workers.extend(workers);
        report.errors.extend(err);
    }
    report
}
