//! `--format json` (one document) and `--format jsonl` (one finding per
//! line, then the summary). The schema is documented in docs/json-schema.md; bump
//! [`SCHEMA_VERSION`] on any incompatible change.

use super::RunSummary;
use super::json_bytes;
use super::json_out::{
    ErrorOut, LineOut, ResourceOut, SummaryOut, WorkerOut, WorkersOut, write_line,
};
use super::quote::line_json;
use crate::audit::{Names, Report};
use crate::finding::{Evidence, Finding, Fingerprint};
use crate::model::{RecordRef, Resource};
use crate::replay::{GenerationRecord, WorkerSummary};
use serde::Serialize;
use serde_json::{Value, json};
use std::io::{self, Write};

pub const SCHEMA_VERSION: u32 = 1;

fn evidence_json(report: &dyn Names, e: &Evidence) -> Value {
    let mut v = line_json(report, &e.line);
    v["role"] = json!(e.role);
    v["worker"] = json!(e.worker);
    if let Some(r) = &e.record {
        v["record"] = json!(RecordOut(r));
    }
    v
}

/// An internal-topic record's place (docs/topics.md), fields sorted:
/// `offset`, `partition`, `topic`.
struct RecordOut<'a>(&'a RecordRef);

impl Serialize for RecordOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Record", 3)?;
        st.serialize_field("offset", &self.0.offset)?;
        st.serialize_field("partition", &self.0.partition)?;
        st.serialize_field("topic", &self.0.topic.as_deref())?;
        st.end()
    }
}

#[derive(Serialize)]
struct EvidenceOut<'a> {
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<RecordOut<'a>>,
    role: &'a str,
    source: &'a str,
    text: &'a str,
    timestamp: Option<crate::model::Timestamp>,
    worker: Option<&'a str>,
}

/// A finding as [`finding_json`] prints it (and, for JSON lines, with
/// `schema_version` and `type`), serialized straight from the finding: no
/// tree of values is built and the line texts are not copied. Fields are
/// in sorted order, as in a JSON object, and so are those of the small
/// nested values ([`FingerprintOut`], [`ResourceOut`]).
#[derive(Serialize)]
struct FindingOut<'a> {
    evidence: Vec<EvidenceOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<FingerprintOut<'a>>,
    generation: Option<i32>,
    group: Option<&'a str>,
    kind: crate::finding::Kind,
    reason: &'a str,
    resource: Option<ResourceOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    severity: crate::finding::Severity,
    started: ResourcesOut<'a>,
    trigger: LineOut<'a>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
    upstream: Option<&'static str>,
    worker: &'a str,
}

/// A [`Fingerprint`] with its fields in sorted order (as a JSON object of
/// its serialization prints them).
#[derive(Serialize)]
struct FingerprintOut<'a> {
    generation_distance: Option<i64>,
    group: Option<&'a str>,
    kind: &'a str,
    message: &'a str,
    resource: &'a str,
    worker: &'a str,
}

impl<'a> FingerprintOut<'a> {
    fn of(fp: &'a Fingerprint) -> FingerprintOut<'a> {
        FingerprintOut {
            generation_distance: fp.generation_distance,
            group: fp.group.as_deref(),
            kind: &fp.kind,
            message: &fp.message,
            resource: &fp.resource,
            worker: &fp.worker,
        }
    }
}

struct ResourcesOut<'a>(&'a [Resource]);

impl Serialize for ResourcesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(ResourceOut))
    }
}

impl<'a> FindingOut<'a> {
    fn of(names: &'a dyn Names, f: &'a Finding, line: bool) -> FindingOut<'a> {
        FindingOut {
            evidence: f
                .evidence
                .iter()
                .map(|e| EvidenceOut {
                    line: e.line.line,
                    record: e.record.as_ref().map(RecordOut),
                    role: &e.role,
                    source: names.source_name(e.line.source),
                    text: &e.line.text,
                    timestamp: e.line.ts,
                    worker: e.worker.as_deref(),
                })
                .collect(),
            fingerprint: f.fingerprint.as_ref().map(FingerprintOut::of),
            generation: f.generation,
            group: f.group.as_deref(),
            kind: f.kind,
            reason: &f.reason,
            resource: f.resource.as_ref().map(ResourceOut),
            schema_version: line.then_some(SCHEMA_VERSION),
            severity: f.severity(),
            started: ResourcesOut(&f.started),
            trigger: LineOut::of(names, &f.trigger),
            kind_of_line: line.then_some("finding"),
            upstream: f.upstream,
            worker: &f.worker,
        }
    }
}

pub fn finding_json(report: &dyn Names, f: &Finding) -> Value {
    let mut v = json!({
        "kind": f.kind,
        "severity": f.severity(),
        "worker": f.worker,
        "group": f.group,
        "generation": f.generation,
        "resource": f.resource,
        "started": f.started,
        "trigger": line_json(report, &f.trigger),
        "evidence": f.evidence.iter().map(|e| evidence_json(report, e)).collect::<Vec<_>>(),
        "reason": f.reason,
        "upstream": f.upstream,
    });
    if let Some(fp) = &f.fingerprint {
        v["fingerprint"] = serde_json::to_value(fp).unwrap_or(Value::Null);
    }
    v
}

fn worker_json(report: &Report, s: &WorkerSummary) -> Value {
    serde_json::to_value(WorkerOut::of(report, s)).unwrap_or(Value::Null)
}

fn summary_json(sum: &RunSummary) -> Value {
    serde_json::to_value(SummaryOut::of(sum)).unwrap_or(Value::Null)
}

fn inputs_json(report: &Report) -> Vec<Value> {
    report
        .inputs
        .iter()
        .map(|i| {
            json!({
                "name": i.name,
                "gzip": i.gzip,
                "bytes": i.bytes,
                "lines": i.lines,
                "lifecycle_events": i.events,
                "skipped_long_lines": i.too_long.iter().map(|(l, n)| json!({"line": l, "bytes": n})).collect::<Vec<_>>(),
            })
        })
        .collect()
}

fn errors_json(report: &Report) -> Vec<ErrorOut<'_>> {
    ErrorOut::all(report, None)
}

fn tool() -> Value {
    json!({"name": "herder-audit", "version": env!("CARGO_PKG_VERSION")})
}

/// The whole report as one JSON document.
pub fn document(report: &Report) -> Value {
    let mut doc = document_without_findings(report);
    doc["findings"] = report
        .findings()
        .map(|f| finding_json(report, f))
        .collect::<Vec<_>>()
        .into();
    doc
}

/// [`document`] with an empty `findings` array.
fn document_without_findings(report: &Report) -> Value {
    let mut doc = document_without_topics(report);
    if let Some(t) = &report.topics {
        doc["topics"] = json!(t);
    }
    doc
}

fn document_without_topics(report: &Report) -> Value {
    let sum = RunSummary::of(report);
    let mut doc = json!({
        "schema_version": SCHEMA_VERSION,
        "tool": tool(),
        "inputs": inputs_json(report),
        "errors": errors_json(report),
        "stitched": report.stitched.iter().map(|(n, k, skipped)| json!({"stream": n, "segments": k, "repeated_events_skipped": skipped})).collect::<Vec<_>>(),
        "same_worker": report.same_worker.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
        "findings": [],
        "workers": report.workers.iter().map(|w| worker_json(report, &w.summary)).collect::<Vec<_>>(),
        "summary": summary_json(&sum),
    });
    for (k, v) in super::isolation_json::sections(report, &report.isolation) {
        doc[k] = v;
    }
    doc
}

pub fn write_json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    write_json_with(report, &[], out)
}

/// [`write_json`] with more top-level fields. The findings are turned into
/// JSON one at a time as they are written: a run with many findings never
/// holds their JSON trees all at once. The bytes are those of
/// [`document`] printed whole.
pub fn write_json_with(
    report: &Report,
    extra: &[(&str, Value)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut doc = document_without_findings(report);
    for (k, v) in extra {
        doc[*k] = v.clone();
    }
    serde_json::to_writer_pretty(&mut *out, &Streamed { doc: &doc, report })?;
    writeln!(out)
}

/// A document whose `findings` are serialized from the report as they are
/// written.
struct Streamed<'a> {
    doc: &'a Value,
    report: &'a Report,
}

struct Findings<'a>(&'a Report);

impl Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(fields) = self.doc else {
            return self.doc.serialize(s);
        };
        let mut m = s.serialize_map(Some(fields.len()))?;
        for (k, v) in fields {
            if k == "findings" {
                m.serialize_entry(k, &Findings(self.report))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.findings.len()))?;
        for f in self.0.findings() {
            seq.serialize_element(&FindingOut::of(self.0, f, false))?;
        }
        seq.end()
    }
}

/// One finding as a JSON line (`"type": "finding"`): the bytes
/// `serde_json::to_writer` writes for `FindingOut`, written by
/// `json_bytes` into a buffer reused from line to line and handed to
/// `out` in one piece.
pub fn write_jsonl_finding(names: &dyn Names, f: &Finding, out: &mut dyn Write) -> io::Result<()> {
    thread_local! {
        static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LINE.with_borrow_mut(|buf| {
        buf.clear();
        push_jsonl_finding(names, f, buf);
        let r = out.write_all(buf);
        if buf.capacity() > 1 << 20 {
            // One huge finding does not keep its buffer.
            *buf = Vec::new();
        }
        r
    })
}

/// Appends the JSON line of `f` (with its newline) to `buf`, as
/// [`write_jsonl_finding`] writes it.
pub fn push_jsonl_finding(names: &dyn Names, f: &Finding, buf: &mut Vec<u8>) {
    thread_local! {
        static CARRY: std::cell::RefCell<Carry> = std::cell::RefCell::new(Carry::default());
    }
    CARRY.with_borrow_mut(|carried| {
        finding_line(names, f, carried, buf);
        buf.push(b'\n');
    })
}

/// What writing JSON lines keeps from one finding to the next: the last
/// trigger's quoted text and time stamp (the findings of one line follow
/// each other) and the quoted forms of shared strings and source names.
#[derive(Default)]
struct Carry {
    text: json_bytes::Carried,
    stamps: Stamps,
    shared: json_bytes::Shared,
    sources: json_bytes::Sources,
}

/// [`FindingOut::of`] with `line: true`, as serde_json writes it (fields
/// in the same, sorted, order).
fn finding_line(names: &dyn Names, f: &Finding, carry: &mut Carry, out: &mut Vec<u8>) {
    use json_bytes::{Quoted, opt_integer, plain, string};
    // The punctuation and keys between two values are written as one
    // piece: `"…":` after the value before.
    let mut texts = Quoted::default();
    let Carry {
        text: carried,
        stamps,
        shared,
        sources,
    } = carry;
    out.extend_from_slice(b"{\"evidence\":[");
    for (k, e) in f.evidence.iter().enumerate() {
        // EvidenceOut: line, role, source, text, timestamp, worker.
        out.extend_from_slice(if k > 0 { b",{\"line\":" } else { b"{\"line\":" });
        json_bytes::unsigned(e.line.line, out);
        if let Some(r) = &e.record {
            // RecordOut: offset, partition, topic.
            out.extend_from_slice(b",\"record\":{\"offset\":");
            opt_integer(r.offset, out);
            out.extend_from_slice(b",\"partition\":");
            opt_integer(r.partition, out);
            out.extend_from_slice(b",\"topic\":");
            json_bytes::opt_string(r.topic.as_deref(), out);
            out.push(b'}');
        }
        out.extend_from_slice(b",\"role\":");
        string(&e.role, out);
        out.extend_from_slice(b",\"source\":");
        sources.string(e.line.source.0, names.source_name(e.line.source), out);
        out.extend_from_slice(b",\"text\":");
        texts.string(&e.line.text, carried, out);
        out.extend_from_slice(b",\"timestamp\":");
        stamps.write(e.line.ts, out);
        out.extend_from_slice(b",\"worker\":");
        shared.opt_string(e.worker.as_ref(), out);
        out.push(b'}');
    }
    out.extend_from_slice(b"],");
    if let Some(fp) = &f.fingerprint {
        // FingerprintOut: generation_distance, group, kind, message,
        // resource, worker.
        out.extend_from_slice(b"\"fingerprint\":{\"generation_distance\":");
        opt_integer(fp.generation_distance, out);
        out.extend_from_slice(b",\"group\":");
        shared.opt_string(fp.group.as_ref(), out);
        out.extend_from_slice(b",\"kind\":");
        match &fp.kind {
            // A kind's own name.
            std::borrow::Cow::Borrowed(k) => plain(k.as_bytes(), out),
            std::borrow::Cow::Owned(k) => string(k, out),
        }
        out.extend_from_slice(b",\"message\":");
        shared.string(&fp.message, out);
        out.extend_from_slice(b",\"resource\":");
        string(&fp.resource, out);
        out.extend_from_slice(b",\"worker\":");
        shared.string(&fp.worker, out);
        out.extend_from_slice(b"},");
    }
    out.extend_from_slice(b"\"generation\":");
    opt_integer(f.generation, out);
    out.extend_from_slice(b",\"group\":");
    shared.opt_string(f.group.as_ref(), out);
    out.extend_from_slice(b",\"kind\":");
    plain(f.kind.as_str().as_bytes(), out);
    out.extend_from_slice(b",\"reason\":");
    string(&f.reason, out);
    out.extend_from_slice(b",\"resource\":");
    match &f.resource {
        Some(r) => json_bytes::resource_line(r, shared, out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"schema_version\":");
    json_bytes::integer(SCHEMA_VERSION, out);
    out.extend_from_slice(b",\"severity\":");
    plain(f.severity().as_str().as_bytes(), out);
    out.extend_from_slice(b",\"started\":[");
    for (k, r) in f.started.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        json_bytes::resource_line(r, shared, out);
    }
    // LineOut: line, source, text, timestamp.
    let l = &f.trigger;
    out.extend_from_slice(b"],\"trigger\":{\"line\":");
    json_bytes::unsigned(l.line, out);
    out.extend_from_slice(b",\"source\":");
    sources.string(l.source.0, names.source_name(l.source), out);
    out.extend_from_slice(b",\"text\":");
    let (from, to) = texts.string(&l.text, carried, out);
    carried.keep(&l.text, &out[from..to]);
    out.extend_from_slice(b",\"timestamp\":");
    stamps.write(l.ts, out);
    out.extend_from_slice(b"},\"type\":\"finding\",\"upstream\":");
    json_bytes::opt_string(f.upstream, out);
    out.extend_from_slice(b",\"worker\":");
    shared.string(&f.worker, out);
    out.push(b'}');
}

/// Time stamps as a finding's lines print them (`Timestamp::iso`, which
/// needs no escape), each distinct one formatted once: a finding's lines
/// often share theirs.
#[derive(Default)]
struct Stamps {
    last: Option<(crate::model::Timestamp, String)>,
}

impl Stamps {
    fn write(&mut self, ts: Option<crate::model::Timestamp>, out: &mut Vec<u8>) {
        let Some(t) = ts else {
            out.extend_from_slice(b"null");
            return;
        };
        match &self.last {
            Some((u, iso)) if *u == t => json_bytes::plain(iso.as_bytes(), out),
            _ => {
                let iso = t.iso();
                json_bytes::plain(iso.as_bytes(), out);
                self.last = Some((t, iso));
            }
        }
    }
}

/// What follows the findings in JSON lines: one line per input error
/// (`"type": "error"`), then one `"type": "summary"` line.
pub fn write_jsonl_tail(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    write_jsonl_tail_with(report, &[], out)
}

/// [`write_jsonl_tail`] with more fields in the summary line. Each line
/// is serialized from typed views of the report ([`super::json_out`]),
/// the bytes those of the value trees with their keys sorted; only a
/// summary line with more fields is built as a tree, to place them.
pub fn write_jsonl_tail_with(
    report: &Report,
    extra: &[(&str, Value)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut buf = Vec::new();
    super::isolation_json::write_jsonl(report, &report.isolation, SCHEMA_VERSION, &mut buf, out)?;
    for e in ErrorOut::all(report, Some(SCHEMA_VERSION)) {
        write_line(&e, &mut buf, out)?;
    }
    let sum = RunSummary::of(report);
    let mut line = SummaryOut::of(&sum);
    line.schema_version = Some(SCHEMA_VERSION);
    line.kind_of_line = Some("summary");
    line.workers_detail = Some(WorkersOut(report));
    line.topics = report.topics.as_ref().map(|t| json!(t));
    if extra.is_empty() {
        return write_line(&line, &mut buf, out);
    }
    let mut v = serde_json::to_value(&line)?;
    for (k, x) in extra {
        v[*k] = x.clone();
    }
    write_line(&v, &mut buf, out)
}

/// The kept findings (`"type": "finding"`), then `write_jsonl_tail`.
pub fn write_jsonl(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for f in report.findings() {
        write_jsonl_finding(report, f, out)?;
    }
    write_jsonl_tail(report, out)
}

fn resources(v: &[Resource]) -> Vec<String> {
    v.iter().map(|r| r.to_string()).collect()
}

fn generation_json(report: &Report, g: &GenerationRecord) -> Value {
    json!({
        "generation": g.generation,
        "protocol": g.protocol,
        "assignment": line_json(report, &g.line),
        "error": g.error,
        "leader": g.leader,
        "leader_url": g.leader_url,
        "offset": g.offset,
        "delay": g.delay,
        "assigned": resources(&g.assigned),
        "revoked": resources(&g.revoked),
        "start_offset": g.start_offset,
        "config_offset": g.config_offset,
        "started": resources(&g.started),
        "stopped": resources(&g.stopped),
        "running": g.running.as_deref().map(resources),
        "running_complete": g.running_complete,
    })
}

/// The replay view as JSON.
pub fn write_replay_json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let v = json!({
        "schema_version": SCHEMA_VERSION,
        "tool": tool(),
        "workers": report.workers.iter().map(|w| json!({
            "worker": w.summary.worker,
            "group": w.summary.group,
            "generations": w.generations.iter().map(|g| generation_json(report, g)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "errors": errors_json(report),
    });
    serde_json::to_writer_pretty(&mut *out, &v)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::sink::SourceTable;
    use crate::finding::{Kind, fingerprint::WorkerIdentity};
    use crate::model::{SourceId, SourceLine, TaskId, Timestamp};
    use std::sync::Arc;

    fn line(source: u32, n: u64, ts: Option<i64>, text: &str) -> SourceLine {
        SourceLine {
            source: SourceId(source),
            line: n,
            seq: n,
            ts: ts.map(Timestamp),
            text: Arc::from(text),
            msg: (0, 0),
        }
    }

    /// Findings of every shape the small values take: a task, a connector
    /// and no resource; started lists empty and not; a fingerprint with
    /// and without a generation distance; lines to escape, shared and
    /// repeated texts, time stamps shared and not.
    fn findings() -> Vec<Finding> {
        let a = line(
            0,
            3,
            Some(1_566_298_800_216),
            "[2019-08-20 11:00:00,216] INFO \"quoted\" \\ tab\there (x.Y:1)",
        );
        let b = line(1, 3, Some(1_566_298_800_216), &a.text);
        let c = line(1, 9, None, "  at a.B(C.java:1)\u{1}");
        let task = Resource::Task(TaskId::new("sink\"a", 12));
        let conn = Resource::Connector(crate::model::Name::from("jdbc-source"));
        let mut out = Vec::new();
        for (k, (resource, started)) in [
            (Some(task.clone()), vec![]),
            (Some(conn.clone()), vec![conn.clone(), task.clone()]),
            (None, vec![task]),
        ]
        .into_iter()
        .enumerate()
        {
            let mut f = Finding {
                kind: Kind::ALL[k * 3 % 8],
                worker: "w/connect-1.log".into(),
                group: (k != 1).then(|| "connect-cluster".into()),
                generation: (k != 2).then_some(7 + k as i32),
                resource,
                started,
                trigger: a.clone(),
                evidence: vec![
                    Evidence::new("assigned here", &a),
                    Evidence {
                        role: "and \"there\"".into(),
                        worker: Some("w/twin.log".into()),
                        line: b.clone(),
                        record: None,
                    },
                    // a record of an internal topic (docs/topics.md)
                    Evidence {
                        role: "RUNNING here".into(),
                        worker: None,
                        line: b.clone(),
                        record: Some(RecordRef {
                            topic: (k != 1).then(|| "connect-status".into()),
                            partition: Some(k as i32),
                            offset: (k != 2).then_some(57),
                        }),
                    },
                    Evidence::new("then", &c),
                ],
                reason: format!("reason {k}: \"x\"\n"),
                upstream: (k == 1).then_some("KAFKA-1"),
                fingerprint: None,
            };
            let first = (k != 1).then_some(2);
            let who = WorkerIdentity::from_parts("w/connect-1.log", None, None, first);
            if k < 2 {
                f.fingerprint = Some(crate::finding::fingerprint(&f, &who));
            }
            out.push(f);
        }
        out
    }

    #[test]
    fn finding_lines_are_the_serialized_value_trees() {
        let names = SourceTable(vec!["w/connect-1.log".into(), "w/twin.log".into()]);
        // One carry through them all, as from one finding to the next.
        let mut carry = Carry::default();
        for f in findings().into_iter().chain(findings()) {
            let mut buf = Vec::new();
            finding_line(&names, &f, &mut carry, &mut buf);
            let ours = String::from_utf8(buf).unwrap();
            let mut tree = finding_json(&names, &f);
            tree["schema_version"] = json!(SCHEMA_VERSION);
            tree["type"] = json!("finding");
            assert_eq!(ours, serde_json::to_string(&tree).unwrap());
            assert_eq!(
                ours,
                serde_json::to_string(&FindingOut::of(&names, &f, true)).unwrap()
            );
            assert_eq!(
                serde_json::to_string_pretty(&FindingOut::of(&names, &f, false)).unwrap(),
                serde_json::to_string_pretty(&finding_json(&names, &f)).unwrap()
            );
        }
    }
}
