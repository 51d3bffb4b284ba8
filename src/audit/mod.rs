//! The library's entry point: inputs in, findings out as they become
//! final, one [`Report`] at the end.
//!
//! The audit is two stages joined by a stream of facts (see
//! `docs/design.md`, "Orchestration"):
//!
//! 1. per stream (a file with its rotated segments, or stdin): lines →
//!    events → the replay of each worker in it, which hands on [`Item`]s:
//!    its facts for the cross-worker checks and its findings once final,
//!    each keyed by log time ([`Key`]);
//! 2. per group: the items of all streams merged in key order, up to a
//!    watermark no stream can still go below ([`merge`]), feed the
//!    cross-worker checker, whose output is the run's findings in the
//!    order they became final.
//!
//! Streams advance together in rounds of log time, in parallel; the merged
//! order depends only on the items, not on the rounds or the threads, so
//! the output is the same for any `-j`, and the same when the two stages
//! run apart (`herder-audit map | herder-audit reduce`). Memory stays
//! bounded by workers × resources: nothing is kept per line, findings are
//! handed to the [`Sink`] as they become final, and the checker forgets
//! generations every worker has left behind.

mod driver;
mod herders;
pub mod mapred;
pub mod merge;
pub mod observe;
pub mod plan;
pub mod processor;
mod repeats;
pub mod sink;
pub mod stream;

pub use crate::model::Key;
pub use driver::{Live, audit, audit_to, map_to};
pub use merge::Item;
pub use observe::{Observe, StreamStat};
pub use sink::{Collect, Names, Sink};

use crate::finding::{Finding, Kind, Severity};
use crate::input;
use crate::model::SourceId;
use crate::replay::WorkerReport;
use std::collections::BTreeMap;

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
    /// Live input (stdin, `--follow`): how to wait for more.
    pub live: Option<Live>,
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
            live: None,
            timeline: false,
        }
    }
}

/// What was read from one input.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    pub input: String,
    pub message: String,
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// One per input, indexed by [`SourceId`].
    pub inputs: Vec<InputReport>,
    /// Workers in stream order.
    pub workers: Vec<WorkerReport>,
    pub errors: Vec<InputError>,
    /// Streams of several segments: (stream name, segment count, events
    /// skipped as repeats of overlapping segments).
    pub stitched: Vec<(String, usize, u64)>,
    /// Pairs of streams that turned out to be the same worker.
    pub same_worker: Vec<(String, String)>,
    /// The findings in the order they became final, when the sink kept
    /// them ([`Collect`]); printers that stream do not.
    pub findings: Vec<Finding>,
    /// Findings per kind over the whole run, kept or not.
    pub counts: BTreeMap<Kind, u64>,
}

impl Report {
    /// The findings kept, in the order they became final.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter()
    }

    /// Findings of this severity or worse over the whole run.
    pub fn count_at_least(&self, s: Severity) -> usize {
        self.counts
            .iter()
            .filter(|(k, _)| k.severity() >= s)
            .map(|(_, n)| *n as usize)
            .sum()
    }

    /// The name of a source, for quoting lines.
    pub fn source_name(&self, id: SourceId) -> &str {
        self.inputs
            .get(id.0 as usize)
            .map_or("<unknown>", |i| i.name.as_str())
    }
}

impl Names for Report {
    fn source_name(&self, id: SourceId) -> &str {
        Report::source_name(self, id)
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
