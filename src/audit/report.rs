//! What a run produced ([`Report`]), and the notes its assembly adds to
//! the workers' summaries (findings withheld, streams stitched).

use super::sink::Names;
use crate::finding::{Finding, Kind, Severity};
use crate::model::SourceId;
use crate::replay::{Note, WorkerReport};
use crate::stream::{InputError, InputReport, StreamEnd};
use std::collections::BTreeMap;

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
    /// them ([`Collect`](super::Collect)); printers that stream do not.
    pub findings: Vec<Finding>,
    /// Findings per kind over the whole run, kept or not.
    pub counts: BTreeMap<Kind, u64>,
    /// What the internal topics witnessed, when they were read
    /// (docs/topics.md).
    pub topics: Option<crate::topics::cross::Summary>,
    /// Interruptions, rebalances and changes, priced (issue 26).
    pub isolation: crate::interruptions::Isolation,
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

/// Takes the findings withheld for resting on lines whose order is unknown
/// out of a worker's counts, and says so in its summary.
pub(super) fn withheld_note(
    w: &mut crate::replay::WorkerReport,
    withheld: &std::collections::BTreeMap<(crate::finding::Kind, bool), u64>,
) {
    let mut total = 0;
    for (&(kind, counted), &n) in withheld {
        total += n;
        if counted && let Some(c) = w.summary.findings.get_mut(&kind) {
            *c = c.saturating_sub(n);
            if *c == 0 {
                w.summary.findings.remove(&kind);
            }
        }
    }
    w.summary.notes.push(crate::replay::Note {
        line: None,
        text: format!(
            "{total} finding(s) not reported: each quotes a line that shares its time stamp with another line of this worker, and the export does not say their order"
        ),
    });
}

/// Says in the summary of a stream's workers that it was stitched from
/// rotated segments.
pub(super) fn stitched_note(end: &mut StreamEnd, segs: usize) {
    if segs > 1 {
        for w in &mut end.workers {
            w.summary.notes.push(Note {
                line: None,
                text: format!("stitched from {segs} rotated segments in time order"),
            });
        }
    }
}
