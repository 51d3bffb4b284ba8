//! The audit's two stages apart, so that they can run on different
//! machines (`herder-audit map`, `herder-audit reduce`; see docs/spark.md
//! and `docs/design.md`, "Orchestration").
//!
//! * **map** reads streams and writes, as JSON lines, every item they hand
//!   on (facts and final single-worker findings, keyed) and then, per
//!   stream, what it leaves: its inputs' statistics, its workers' summaries
//!   and identity, its errors.
//! * **reduce** reads any number of map outputs (any order, any split of
//!   the streams), merges their items in key order through the
//!   cross-worker stage and prints the report; with `--partial` it writes
//!   its findings, each with its place in the run's order, for a later
//!   reduce to combine with other parts. Parts checked apart (groups on
//!   different machines) combine into exactly the report of one run.
//!
//! Each output starts with a header naming its kind and schema version
//! and ends with an `end` record, so a truncated file is detected. Source
//! ids and stream ranks in a file are the file's own; names tie them
//! together across files.

mod reduce;

pub use reduce::{Topics, reduce_partial, reduce_to};

use super::{InputError, InputReport, Item};
use crate::finding::Finding;
use crate::model::{Key, SourceId, SourceLine};
use crate::replay::{Fact, FactKind, WorkerReport};
use crate::stream::{StreamEnd, StreamReader};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};

/// Version of the map and partial formats; bumped on any incompatible
/// change.
pub const MAP_SCHEMA_VERSION: u32 = 1;

/// The program that wrote a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    fn this() -> Tool {
        Tool {
            name: "herder-audit".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// What one stream leaves once read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamRecord {
    /// The stream's rank in the file.
    pub rank: u32,
    pub name: String,
    /// Its segments' source ids, in reading order.
    pub segments: Vec<SourceId>,
    pub repeats_skipped: u64,
    /// Groups its workers named (what `reduce --partial` is split by).
    pub groups: Vec<String>,
    pub workers: Vec<WorkerReport>,
    pub errors: Vec<InputError>,
}

/// One line of a map or partial output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Record {
    /// First line of a map output.
    Map {
        schema_version: u32,
        tool: Tool,
    },
    /// First line of a partial reduce.
    Partial {
        schema_version: u32,
        tool: Tool,
    },
    /// An input's statistics (its id is the file's own).
    Input(InputReport),
    Item(Item),
    Stream(StreamRecord),
    /// A final finding with its place in the run's order.
    Finding {
        order: (Key, Key),
        finding: Box<Finding>,
    },
    /// Lines of a map output's inputs whose order the export did not say
    /// (lines sharing a time stamp): findings that quote one are withheld
    /// by the reduce as by a whole run. Written only when there are some.
    Unordered {
        lines: Vec<(SourceId, u64)>,
    },
    /// Two streams found to be one worker.
    SameWorker {
        a: String,
        b: String,
    },
    /// An input that could not be listed (unreadable directory, …).
    Error(InputError),
    /// A partial's interruptions, rebalances and changes (its groups' own).
    Isolation(Box<crate::interruptions::Isolation>),
    /// Last line: how many items and findings came before.
    End {
        items: u64,
        findings: u64,
    },
}

/// Writes a map output.
pub struct MapWriter<'a> {
    out: &'a mut (dyn Write + Send),
    items: u64,
}

fn write_record(out: &mut dyn Write, r: &Record) -> io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    out.write_all(b"\n")
}

impl<'a> MapWriter<'a> {
    /// Starts a map output (writes its header).
    pub fn new(out: &'a mut (dyn Write + Send)) -> io::Result<MapWriter<'a>> {
        write_record(
            out,
            &Record::Map {
                schema_version: MAP_SCHEMA_VERSION,
                tool: Tool::this(),
            },
        )?;
        Ok(MapWriter { out, items: 0 })
    }

    pub fn items(&mut self, items: Vec<Item>) -> io::Result<()> {
        for i in items {
            self.items += 1;
            write_record(self.out, &Record::Item(i))?;
        }
        Ok(())
    }

    /// Lines whose order is unknown (none: nothing is written).
    pub fn unordered(&mut self, lines: Vec<(SourceId, u64)>) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        write_record(self.out, &Record::Unordered { lines })
    }

    /// What a stream leaves: its inputs, then the stream itself.
    pub(super) fn stream(
        &mut self,
        proc: &StreamReader,
        segs: usize,
        end: StreamEnd,
    ) -> io::Result<()> {
        let _ = segs;
        // Segments never opened (the stream was given up) are listed empty.
        let mut inputs = end.inputs;
        for (id, name) in proc.segment_names() {
            if !inputs.iter().any(|i| i.id == id) {
                inputs.push(InputReport::empty(id, name));
            }
        }
        for i in inputs {
            write_record(self.out, &Record::Input(i))?;
        }
        let mut groups: Vec<String> = end
            .workers
            .iter()
            .filter_map(|w| w.summary.group.clone())
            .collect();
        groups.sort();
        groups.dedup();
        write_record(
            self.out,
            &Record::Stream(StreamRecord {
                rank: proc.rank(),
                name: proc.name.clone(),
                segments: proc.segment_ids(),
                repeats_skipped: end.repeats_skipped,
                groups,
                workers: end.workers,
                errors: end.errors,
            }),
        )
    }

    /// Inputs that could not be listed.
    pub fn errors(&mut self, errors: Vec<InputError>) -> io::Result<()> {
        for e in errors {
            write_record(self.out, &Record::Error(e))?;
        }
        Ok(())
    }

    /// Ends the output.
    pub fn finish(self) -> io::Result<()> {
        write_record(
            self.out,
            &Record::End {
                items: self.items,
                findings: 0,
            },
        )?;
        self.out.flush()
    }
}

/// Rewrites the source ids of a line.
fn remap_line(l: &mut SourceLine, map: &dyn Fn(SourceId) -> SourceId) {
    l.source = map(l.source);
}

/// Rewrites the source ids of a finding's lines.
pub(crate) fn remap_finding(f: &mut Finding, map: &dyn Fn(SourceId) -> SourceId) {
    remap_line(&mut f.trigger, map);
    for e in &mut f.evidence {
        remap_line(&mut e.line, map);
    }
}

/// Rewrites the source ids of a fact's lines.
fn remap_fact(f: &mut Fact, map: &dyn Fn(SourceId) -> SourceId) {
    remap_line(&mut f.line, map);
    match &mut f.kind {
        FactKind::Assignment { live, .. } => {
            for (_, l) in live {
                remap_line(l, map);
            }
        }
        FactKind::Held { since, .. } => remap_line(since, map),
        FactKind::KeptFromBefore { left, stop, .. } => {
            remap_line(left, map);
            remap_line(stop, map);
        }
        FactKind::Finding(x) | FactKind::ForeignStart { finding: x, .. } => remap_finding(x, map),
        FactKind::Judged {
            because: Some(l), ..
        }
        | FactKind::Signal(crate::replay::Signal::Silence { last: l }) => remap_line(l, map),
        FactKind::Judged { .. }
        | FactKind::Signal(_)
        | FactKind::Start { .. }
        | FactKind::StartFailed { .. }
        | FactKind::Stop { .. }
        | FactKind::Left
        | FactKind::Reset
        | FactKind::End
        | FactKind::Record { .. } => {}
    }
}

/// Rewrites the source ids a worker's report refers to.
fn remap_worker(w: &mut WorkerReport, map: &dyn Fn(SourceId) -> SourceId) {
    for n in &mut w.summary.notes {
        if let Some((s, _)) = &mut n.line {
            *s = map(*s);
        }
    }
    for f in &mut w.findings {
        remap_finding(f, map);
    }
    for g in &mut w.generations {
        remap_line(&mut g.line, map);
    }
    if let Some(t) = &mut w.timeline {
        for p in t.points_mut() {
            p.source = map(p.source);
        }
    }
}
