//! Typed views that the JSON printers serialize straight from the report:
//! no tree of `serde_json::Value` is built and no text is copied. Each
//! struct declares its fields in sorted order, the order of a JSON object
//! (`serde_json::Map` sorts its keys), so that the bytes are those of the
//! value trees the printers built before; a map keyed by an enum is
//! written in the order of the enum's names ([`Entries`]). The tests
//! check every view against its own serialization through a `Value`.

use crate::audit::{Names, Report};
use crate::model::{Resource, SourceLine, Timestamp};
use crate::replay::WorkerSummary;
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct};
use std::collections::BTreeMap;

/// One quoted line: `line`, `source`, `text`, `timestamp`.
#[derive(Serialize)]
pub(super) struct LineOut<'a> {
    pub line: u64,
    pub source: &'a str,
    pub text: &'a str,
    pub timestamp: Option<Timestamp>,
}

impl<'a> LineOut<'a> {
    pub fn of(names: &'a dyn Names, l: &'a SourceLine) -> LineOut<'a> {
        LineOut {
            line: l.line,
            source: names.source_name(l.source),
            text: &l.text,
            timestamp: l.ts,
        }
    }
}

/// A [`Resource`] with its fields in sorted order: `connector`, `id`,
/// `task` (tasks), `type`.
pub(super) struct ResourceOut<'a>(pub &'a Resource);

impl Serialize for ResourceOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Resource::Connector(n) => {
                let mut st = s.serialize_struct("Resource", 3)?;
                st.serialize_field("connector", &**n)?;
                st.serialize_field("id", &**n)?;
                st.serialize_field("type", "connector")?;
                st.end()
            }
            Resource::Task(t) => {
                let mut st = s.serialize_struct("Resource", 4)?;
                st.serialize_field("connector", &*t.connector)?;
                st.serialize_field("id", &t.to_string())?;
                st.serialize_field("task", &t.index)?;
                st.serialize_field("type", "task")?;
                st.end()
            }
        }
    }
}

/// An enum that keys a JSON object by its serialized name.
pub(super) trait KeyName: Copy {
    fn key_name(self) -> &'static str;
}

macro_rules! key_name {
    ($($t:ty),*) => {$(
        impl KeyName for $t {
            fn key_name(self) -> &'static str {
                self.as_str()
            }
        }
    )*};
}
key_name!(
    crate::rules::StartReason,
    crate::rules::StopReason,
    crate::finding::Kind,
    crate::interruptions::CauseKind
);

/// A map's entries in the order of their keys' names.
pub(super) struct Entries<T>(Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for Entries<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The entries of `m`, each value seen through `f`, sorted by name.
pub(super) fn entries<'a, K: KeyName, V, T>(
    m: &'a BTreeMap<K, V>,
    f: impl Fn(&'a V) -> T,
) -> Entries<T> {
    let mut v: Vec<_> = m.iter().map(|(k, x)| (k.key_name(), f(x))).collect();
    v.sort_unstable_by_key(|e| e.0);
    Entries(v)
}

/// A worker's summary (`workers` of the document, `workers_detail` of the
/// JSON lines summary).
#[derive(Serialize)]
pub(super) struct WorkerOut<'a> {
    client_id: Option<&'a str>,
    findings: Entries<&'a u64>,
    first_generation: Option<i32>,
    generations: u32,
    group: Option<&'a str>,
    identified_by: crate::replay::Identity,
    kafka_cluster: Option<&'a str>,
    last_generation: Option<i32>,
    lifecycle_events: u64,
    member_id: Option<&'a str>,
    notes: Vec<NoteOut<'a>>,
    protocol: Option<crate::model::Protocol>,
    rest_url: Option<&'a str>,
    restarts: u32,
    starts: Entries<&'a u64>,
    stops: Entries<&'a u64>,
    worker: &'a str,
}

#[derive(Serialize)]
struct NoteOut<'a> {
    line: Option<u64>,
    source: Option<&'a str>,
    text: &'a str,
}

impl<'a> WorkerOut<'a> {
    pub fn of(report: &'a Report, s: &'a WorkerSummary) -> WorkerOut<'a> {
        WorkerOut {
            client_id: s.client_id.as_deref(),
            findings: entries(&s.findings, |n| n),
            first_generation: s.first_generation,
            generations: s.generations,
            group: s.group.as_deref(),
            identified_by: s.identified_by,
            kafka_cluster: s.kafka_cluster.as_deref(),
            last_generation: s.last_generation,
            lifecycle_events: s.events,
            member_id: s.member_id.as_deref(),
            notes: s
                .notes
                .iter()
                .map(|n| NoteOut {
                    line: n.line.map(|(_, l)| l),
                    source: n.line.map(|(src, _)| report.source_name(src)),
                    text: &n.text,
                })
                .collect(),
            protocol: s.protocol,
            rest_url: s.rest_url.as_deref(),
            restarts: s.restarts,
            starts: entries(&s.starts, |n| n),
            stops: entries(&s.stops, |n| n),
            worker: &s.worker,
        }
    }
}

/// Every worker's summary, in the report's order.
pub(super) struct WorkersOut<'a>(pub &'a Report);

impl Serialize for WorkersOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .workers
                .iter()
                .map(|w| WorkerOut::of(self.0, &w.summary)),
        )
    }
}

/// The run's totals (`summary` of the document; the JSON lines summary
/// line with `schema_version`, `type` and `workers_detail`).
#[derive(Serialize)]
pub(super) struct SummaryOut<'a> {
    bytes: u64,
    clusters: usize,
    errors: usize,
    findings: Found,
    findings_by_kind: Entries<&'a u64>,
    generations: u64,
    inputs: usize,
    lines: u64,
    rebalances: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<u32>,
    starts: Entries<&'a u64>,
    stops: Entries<&'a u64>,
    /// Through a `Value`, whose objects sort the keys of the nested
    /// structs too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<serde_json::Value>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind_of_line: Option<&'static str>,
    workers: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workers_detail: Option<WorkersOut<'a>>,
}

#[derive(Serialize)]
struct Found {
    error: usize,
    warning: usize,
}

impl<'a> SummaryOut<'a> {
    pub fn of(sum: &'a super::RunSummary) -> SummaryOut<'a> {
        SummaryOut {
            bytes: sum.bytes,
            clusters: sum.groups,
            errors: sum.errors,
            findings: Found {
                error: sum.errors_found,
                warning: sum.warnings_found,
            },
            findings_by_kind: entries(&sum.by_kind, |n| n),
            generations: sum.generations,
            inputs: sum.inputs,
            lines: sum.lines,
            rebalances: sum.rebalances,
            schema_version: None,
            starts: entries(&sum.starts, |n| n),
            stops: entries(&sum.stops, |n| n),
            topics: None,
            kind_of_line: None,
            workers: sum.workers,
            workers_detail: None,
        }
    }
}

/// An input error: `input`, `message` (and, as a JSON line,
/// `schema_version` and `type`).
#[derive(Serialize)]
pub(super) struct ErrorOut<'a> {
    input: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
}

impl<'a> ErrorOut<'a> {
    /// The report's errors; as JSON lines when `schema_version` is given.
    pub fn all(report: &'a Report, schema_version: Option<u32>) -> Vec<ErrorOut<'a>> {
        report
            .errors
            .iter()
            .map(|e| ErrorOut {
                input: &e.input,
                message: &e.message,
                schema_version,
                kind_of_line: schema_version.map(|_| "error"),
            })
            .collect()
    }
}

/// Serializes `v` as one JSON line into `buf` (cleared first) and hands
/// it to `out` in one piece.
pub(super) fn write_line<T: Serialize>(
    v: &T,
    buf: &mut Vec<u8>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    buf.clear();
    serde_json::to_writer(&mut *buf, v)?;
    buf.push(b'\n');
    out.write_all(buf)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::audit::{Options, audit};
    use std::path::PathBuf;

    /// `v` serialized straight and through a `serde_json::Value` (whose
    /// objects sort their keys) give the same bytes, compact and pretty.
    pub fn same_as_tree<T: Serialize>(v: &T) {
        let tree = serde_json::to_value(v).unwrap();
        assert_eq!(
            serde_json::to_string(v).unwrap(),
            serde_json::to_string(&tree).unwrap()
        );
        assert_eq!(
            serde_json::to_string_pretty(v).unwrap(),
            serde_json::to_string_pretty(&tree).unwrap()
        );
    }

    /// Reports of corpus traces whose summaries and isolation sections
    /// take every shape: notes, several start and stop reasons and
    /// finding kinds, interruptions on one worker and across two clocks,
    /// noticed departures, changes that interrupt other connectors.
    pub fn reports() -> Vec<Report> {
        [
            "corpus/fault-kafka-8676-2.3.0.log",
            "corpus/real-kafka/3.9.1/kill-worker",
            "corpus/real-kafka/3.9.1/clock-skew",
            "corpus/multi-zombie-kafka-10763",
            "corpus/multi-conflicting-assignment",
        ]
        .iter()
        .map(|path| {
            let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
            let (inputs, _) = crate::input::expand(&[p]);
            let opts = Options {
                jobs: Some(1),
                ..Options::default()
            };
            audit(&inputs, &opts)
        })
        .collect()
    }

    #[test]
    fn summaries_and_workers_serialize_as_their_trees() {
        for report in reports() {
            assert!(!report.workers.is_empty());
            let sum = crate::report::RunSummary::of(&report);
            same_as_tree(&SummaryOut::of(&sum));
            let mut line = SummaryOut::of(&sum);
            line.schema_version = Some(1);
            line.kind_of_line = Some("summary");
            line.workers_detail = Some(WorkersOut(&report));
            same_as_tree(&line);
            same_as_tree(&ErrorOut::all(&report, None));
            same_as_tree(&ErrorOut::all(&report, Some(1)));
        }
    }
}
