//! The isolation sections (issue 26) as JSON: `interruptions`,
//! `rebalances`, `changes` and `downtime` (docs/json-schema.md), in the
//! document and as JSON lines (`type` naming which). Typed views of the
//! [`Isolation`] serialized straight, fields in sorted order as in
//! [`super::json_out`].

use super::json_bytes;
use super::json_out::{Entries, KeyName, LineOut, ResourceOut, entries};
use crate::audit::Names;
use crate::interruptions::{
    Cause, Change, Clock, ConnectorDowntime, Cost, Edge, Interruption, Isolation, Rebalance,
    Trigger,
};
use crate::model::{Name, SourceLine, Timestamp};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

/// `type` and `schema_version` of a JSON line; absent in the document.
#[derive(Clone, Copy, Default)]
struct Line {
    kind: Option<&'static str>,
    schema_version: Option<u32>,
}

/// A line with the worker it was read on (and, for the member that
/// noticed a departure, its session timeout).
#[derive(Serialize)]
struct EdgeOut<'a> {
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_timeout_ms: Option<i64>,
    source: &'a str,
    text: &'a str,
    timestamp: Option<Timestamp>,
    worker: &'a str,
}

impl<'a> EdgeOut<'a> {
    fn of(names: &'a dyn Names, e: &'a Edge, timeout: Option<i64>) -> EdgeOut<'a> {
        EdgeOut {
            line: e.line.line,
            session_timeout_ms: timeout,
            source: names.source_name(e.line.source),
            text: &e.line.text,
            timestamp: e.line.ts,
            worker: &e.worker,
        }
    }
}

#[derive(Serialize)]
struct CostOut {
    interruptions: u64,
    ms: i64,
    still_down: u64,
    tasks: u64,
}

impl CostOut {
    fn of(c: &Cost) -> CostOut {
        CostOut {
            interruptions: c.interruptions,
            ms: c.ms,
            still_down: c.still_down,
            tasks: c.tasks,
        }
    }
}

#[derive(Serialize)]
struct RoleLineOut<'a> {
    line: u64,
    role: &'a str,
    source: &'a str,
    text: &'a str,
    timestamp: Option<Timestamp>,
}

#[derive(Serialize)]
struct CauseOut<'a> {
    connector: Option<&'a str>,
    finding: Option<LineOut<'a>>,
    kind: &'static str,
    lines: Vec<RoleLineOut<'a>>,
    upstream: Option<&'a str>,
    via: Option<&'a str>,
    worker: Option<&'a str>,
}

impl<'a> CauseOut<'a> {
    fn of(names: &'a dyn Names, c: &'a Cause) -> CauseOut<'a> {
        CauseOut {
            connector: c.connector.as_deref(),
            finding: c.finding.as_ref().map(|l| LineOut::of(names, l)),
            kind: c.kind.as_str(),
            lines: c
                .lines
                .iter()
                .map(|(role, l)| RoleLineOut {
                    line: l.line,
                    role,
                    source: names.source_name(l.source),
                    text: &l.text,
                    timestamp: l.ts,
                })
                .collect(),
            upstream: c.upstream.as_deref(),
            via: c.via.as_deref(),
            worker: c.worker.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct ClockOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<i32>,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_ms: Option<i64>,
}

impl ClockOut {
    fn of(c: &Clock) -> ClockOut {
        let (kind, generation, raw_ms) = match *c {
            Clock::OneWorker => ("one-worker", None, None),
            Clock::TwoWorkers { generation, raw_ms } => {
                ("two-workers", Some(generation), Some(raw_ms))
            }
            Clock::Unanchored => ("unanchored", None, None),
        };
        ClockOut {
            generation,
            kind,
            raw_ms,
        }
    }
}

#[derive(Serialize)]
struct InterruptionOut<'a> {
    by_others: bool,
    cause: CauseOut<'a>,
    change: Option<usize>,
    clock: ClockOut,
    from: EdgeOut<'a>,
    from_stop: bool,
    generation: Option<i32>,
    group: &'a str,
    ms: Option<i64>,
    noticed: Option<EdgeOut<'a>>,
    resource: ResourceOut<'a>,
    running: Option<LineOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    still_down: bool,
    to: Option<EdgeOut<'a>>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
}

impl<'a> InterruptionOut<'a> {
    fn of(names: &'a dyn Names, i: &'a Interruption, l: Line) -> InterruptionOut<'a> {
        InterruptionOut {
            by_others: i.by_others(),
            cause: CauseOut::of(names, &i.cause),
            change: i.change,
            clock: ClockOut::of(&i.clock),
            from: EdgeOut::of(names, &i.from, None),
            from_stop: i.stopped,
            generation: i.generation,
            group: &i.group,
            ms: i.ms.filter(|_| i.to.is_some()),
            noticed: i
                .noticed
                .as_ref()
                .map(|(e, timeout)| EdgeOut::of(names, e, Some(*timeout))),
            resource: ResourceOut(&i.resource),
            running: i.running.as_ref().map(|l| LineOut::of(names, l)),
            schema_version: l.schema_version,
            still_down: i.to.is_none(),
            to: i.to.as_ref().map(|e| EdgeOut::of(names, e, None)),
            kind_of_line: l.kind,
        }
    }
}

#[derive(Serialize)]
struct TriggerOut<'a> {
    change: Option<usize>,
    connector: Option<&'a str>,
    how: Option<&'a str>,
    kind: &'a str,
    line: Option<LineOut<'a>>,
    reason: Option<&'a str>,
    worker: Option<&'a str>,
}

impl<'a> TriggerOut<'a> {
    fn of(names: &'a dyn Names, t: &'a Trigger) -> TriggerOut<'a> {
        TriggerOut {
            change: t.change,
            connector: t.connector.as_deref(),
            how: t.how.as_deref(),
            kind: &t.kind,
            line: t.line.as_ref().map(|l| LineOut::of(names, l)),
            reason: t.reason.as_deref(),
            worker: t.worker.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct RebalanceOut<'a> {
    downtime_ms: i64,
    generation: i32,
    group: &'a str,
    line: LineOut<'a>,
    moved: u64,
    restarted: u64,
    retained: u64,
    running_before: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    started: u64,
    stopped: u64,
    tasks_before: u64,
    tasks_retained: u64,
    trigger: TriggerOut<'a>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
}

impl<'a> RebalanceOut<'a> {
    fn of(names: &'a dyn Names, r: &'a Rebalance, l: Line) -> RebalanceOut<'a> {
        RebalanceOut {
            downtime_ms: r.downtime_ms,
            generation: r.generation,
            group: &r.group,
            line: LineOut::of(names, &r.line),
            moved: r.moved,
            restarted: r.restarted,
            retained: r.retained,
            running_before: r.running_before,
            schema_version: l.schema_version,
            started: r.started,
            stopped: r.stopped,
            tasks_before: r.tasks_before,
            tasks_retained: r.tasks_retained,
            trigger: TriggerOut::of(names, &r.trigger),
            kind_of_line: l.kind,
        }
    }
}

#[derive(Serialize)]
struct ChangeOut<'a> {
    connector: &'a str,
    group: &'a str,
    kind: &'static str,
    line: LineOut<'a>,
    other_connectors: Vec<&'a str>,
    others: CostOut,
    own: CostOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
    upstream: Option<&'a str>,
    worker: &'a str,
}

impl<'a> ChangeOut<'a> {
    fn of(names: &'a dyn Names, c: &'a Change, l: Line) -> ChangeOut<'a> {
        ChangeOut {
            connector: &c.connector,
            group: &c.group,
            kind: c.kind.as_str(),
            line: LineOut::of(names, &c.line),
            other_connectors: c.other_connectors.iter().map(|n| &**n).collect(),
            others: CostOut::of(&c.others),
            own: CostOut::of(&c.own),
            schema_version: l.schema_version,
            kind_of_line: l.kind,
            upstream: c.upstream.as_deref(),
            worker: &c.worker,
        }
    }
}

#[derive(Serialize)]
struct DowntimeOut<'a> {
    by_cause: Entries<CostOut>,
    by_others: CostOut,
    connector: &'a str,
    group: &'a str,
    longest_ms: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    total: CostOut,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind_of_line: Option<&'static str>,
}

impl<'a> DowntimeOut<'a> {
    fn of(d: &'a ConnectorDowntime, l: Line) -> DowntimeOut<'a> {
        DowntimeOut {
            by_cause: entries(&d.by_cause, CostOut::of),
            by_others: CostOut::of(&d.by_others),
            connector: &d.connector,
            group: &d.group,
            longest_ms: d.longest_ms,
            schema_version: l.schema_version,
            total: CostOut::of(&d.total),
            kind_of_line: l.kind,
        }
    }
}

fn tree<T: Serialize>(items: impl Iterator<Item = T>) -> Value {
    Value::Array(
        items
            .map(|x| serde_json::to_value(x).unwrap_or(Value::Null))
            .collect(),
    )
}

/// The four sections, keyed as the JSON document names them.
pub fn sections(names: &dyn Names, iso: &Isolation) -> [(&'static str, Value); 4] {
    let l = Line::default();
    [
        (
            "interruptions",
            tree(
                iso.interruptions
                    .iter()
                    .map(|i| InterruptionOut::of(names, i, l)),
            ),
        ),
        (
            "rebalances",
            tree(iso.rebalances.iter().map(|r| RebalanceOut::of(names, r, l))),
        ),
        (
            "changes",
            tree(iso.changes.iter().map(|c| ChangeOut::of(names, c, l))),
        ),
        (
            "downtime",
            tree(iso.connectors.iter().map(|d| DowntimeOut::of(d, l))),
        ),
    ]
}

/// JSON lines: one object per interruption, rebalance, change and
/// connector, `type` naming which; each written into `buf` (the bytes
/// serde_json writes for the views above, by [`super::json_bytes`]: the
/// lines quote log lines, and serde_json's escape was most of their cost)
/// and handed to `out` in one piece.
pub fn write_jsonl(
    names: &dyn Names,
    iso: &Isolation,
    schema_version: u32,
    buf: &mut Vec<u8>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut w = Lines {
        names,
        schema_version,
        shared: json_bytes::Shared::default(),
        sources: json_bytes::Sources::default(),
    };
    // One line written into `buf`, then handed on whole.
    let mut put = |write: &mut dyn FnMut(&mut Vec<u8>)| {
        buf.clear();
        write(buf);
        buf.push(b'\n');
        out.write_all(buf)
    };
    for i in &iso.interruptions {
        put(&mut |b| w.interruption(i, b))?;
    }
    for r in &iso.rebalances {
        put(&mut |b| w.rebalance(r, b))?;
    }
    for c in &iso.changes {
        put(&mut |b| w.change(c, b))?;
    }
    for d in &iso.connectors {
        put(&mut |b| w.downtime(d, b))?;
    }
    Ok(())
}

/// Writes the JSON lines of the views above, fields in their (sorted)
/// order, `schema_version` and `type` always present; shared names and
/// source names quoted once.
struct Lines<'a> {
    names: &'a dyn Names,
    schema_version: u32,
    shared: json_bytes::Shared,
    sources: json_bytes::Sources,
}

impl Lines<'_> {
    /// [`InterruptionOut`].
    fn interruption(&mut self, i: &Interruption, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"by_others\":");
        boolean(i.by_others(), out);
        out.extend_from_slice(b",\"cause\":");
        self.cause(&i.cause, out);
        out.extend_from_slice(b",\"change\":");
        opt_unsigned(i.change, out);
        out.extend_from_slice(b",\"clock\":{");
        match i.clock {
            Clock::OneWorker => out.extend_from_slice(b"\"kind\":\"one-worker\"}"),
            Clock::TwoWorkers { generation, raw_ms } => {
                out.extend_from_slice(b"\"generation\":");
                json_bytes::integer(generation, out);
                out.extend_from_slice(b",\"kind\":\"two-workers\",\"raw_ms\":");
                json_bytes::integer(raw_ms, out);
                out.push(b'}');
            }
            Clock::Unanchored => out.extend_from_slice(b"\"kind\":\"unanchored\"}"),
        }
        out.extend_from_slice(b",\"from\":");
        self.edge(&i.from, None, out);
        out.extend_from_slice(b",\"from_stop\":");
        boolean(i.stopped, out);
        out.extend_from_slice(b",\"generation\":");
        json_bytes::opt_integer(i.generation, out);
        out.extend_from_slice(b",\"group\":");
        self.shared.string(&i.group, out);
        out.extend_from_slice(b",\"ms\":");
        json_bytes::opt_integer(i.ms.filter(|_| i.to.is_some()), out);
        out.extend_from_slice(b",\"noticed\":");
        match &i.noticed {
            Some((e, timeout)) => self.edge(e, Some(*timeout), out),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"resource\":");
        json_bytes::resource_line(&i.resource, &mut self.shared, out);
        out.extend_from_slice(b",\"running\":");
        self.opt_line(i.running.as_ref(), out);
        self.schema_version(out);
        out.extend_from_slice(b",\"still_down\":");
        boolean(i.to.is_none(), out);
        out.extend_from_slice(b",\"to\":");
        match &i.to {
            Some(e) => self.edge(e, None, out),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"type\":\"interruption\"}");
    }

    /// [`CauseOut`].
    fn cause(&mut self, c: &Cause, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"connector\":");
        self.shared
            .opt_string(c.connector.as_ref().map(Name::as_arc), out);
        out.extend_from_slice(b",\"finding\":");
        self.opt_line(c.finding.as_ref(), out);
        out.extend_from_slice(b",\"kind\":");
        json_bytes::string(c.kind.as_str(), out);
        out.extend_from_slice(b",\"lines\":[");
        for (k, (role, l)) in c.lines.iter().enumerate() {
            // RoleLineOut: line, role, source, text, timestamp.
            out.extend_from_slice(if k > 0 { b",{\"line\":" } else { b"{\"line\":" });
            json_bytes::unsigned(l.line, out);
            out.extend_from_slice(b",\"role\":");
            json_bytes::string(role, out);
            self.source_text_stamp(l, out);
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"upstream\":");
        json_bytes::opt_string(c.upstream.as_deref(), out);
        out.extend_from_slice(b",\"via\":");
        json_bytes::opt_string(c.via.as_deref(), out);
        out.extend_from_slice(b",\"worker\":");
        self.shared.opt_string(c.worker.as_ref(), out);
        out.push(b'}');
    }

    /// [`EdgeOut`].
    fn edge(&mut self, e: &Edge, timeout: Option<i64>, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"line\":");
        json_bytes::unsigned(e.line.line, out);
        if let Some(t) = timeout {
            out.extend_from_slice(b",\"session_timeout_ms\":");
            json_bytes::integer(t, out);
        }
        self.source_text_stamp(&e.line, out);
        out.extend_from_slice(b",\"worker\":");
        self.shared.string(&e.worker, out);
        out.push(b'}');
    }

    /// [`LineOut`], or `null`.
    fn opt_line(&mut self, l: Option<&SourceLine>, out: &mut Vec<u8>) {
        let Some(l) = l else {
            out.extend_from_slice(b"null");
            return;
        };
        out.extend_from_slice(b"{\"line\":");
        json_bytes::unsigned(l.line, out);
        self.source_text_stamp(l, out);
        out.push(b'}');
    }

    /// A line's `source`, `text` and `timestamp` fields, each after a comma.
    fn source_text_stamp(&mut self, l: &SourceLine, out: &mut Vec<u8>) {
        out.extend_from_slice(b",\"source\":");
        self.sources
            .string(l.source.0, self.names.source_name(l.source), out);
        out.extend_from_slice(b",\"text\":");
        json_bytes::string(&l.text, out);
        out.extend_from_slice(b",\"timestamp\":");
        match l.ts {
            Some(t) => json_bytes::plain(t.iso().as_bytes(), out),
            None => out.extend_from_slice(b"null"),
        }
    }

    fn schema_version(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b",\"schema_version\":");
        json_bytes::integer(self.schema_version, out);
    }

    /// [`RebalanceOut`].
    fn rebalance(&mut self, r: &Rebalance, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"downtime_ms\":");
        json_bytes::integer(r.downtime_ms, out);
        out.extend_from_slice(b",\"generation\":");
        json_bytes::integer(r.generation, out);
        out.extend_from_slice(b",\"group\":");
        self.shared.string(&r.group, out);
        out.extend_from_slice(b",\"line\":");
        self.opt_line(Some(&r.line), out);
        let counts: [(&[u8], u64); 4] = [
            (b",\"moved\":", r.moved),
            (b",\"restarted\":", r.restarted),
            (b",\"retained\":", r.retained),
            (b",\"running_before\":", r.running_before),
        ];
        unsigned_fields(&counts, out);
        self.schema_version(out);
        let counts: [(&[u8], u64); 4] = [
            (b",\"started\":", r.started),
            (b",\"stopped\":", r.stopped),
            (b",\"tasks_before\":", r.tasks_before),
            (b",\"tasks_retained\":", r.tasks_retained),
        ];
        unsigned_fields(&counts, out);
        // TriggerOut: change, connector, how, kind, line, reason, worker.
        let t = &r.trigger;
        out.extend_from_slice(b",\"trigger\":{\"change\":");
        opt_unsigned(t.change, out);
        out.extend_from_slice(b",\"connector\":");
        self.shared
            .opt_string(t.connector.as_ref().map(Name::as_arc), out);
        out.extend_from_slice(b",\"how\":");
        json_bytes::opt_string(t.how.as_deref(), out);
        out.extend_from_slice(b",\"kind\":");
        json_bytes::string(&t.kind, out);
        out.extend_from_slice(b",\"line\":");
        self.opt_line(t.line.as_ref(), out);
        out.extend_from_slice(b",\"reason\":");
        json_bytes::opt_string(t.reason.as_deref(), out);
        out.extend_from_slice(b",\"worker\":");
        self.shared.opt_string(t.worker.as_ref(), out);
        out.extend_from_slice(b"},\"type\":\"rebalance\"}");
    }

    /// [`ChangeOut`].
    fn change(&mut self, c: &Change, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"connector\":");
        self.shared.string(c.connector.as_arc(), out);
        out.extend_from_slice(b",\"group\":");
        self.shared.string(&c.group, out);
        out.extend_from_slice(b",\"kind\":");
        json_bytes::string(c.kind.as_str(), out);
        out.extend_from_slice(b",\"line\":");
        self.opt_line(Some(&c.line), out);
        out.extend_from_slice(b",\"other_connectors\":[");
        for (k, n) in c.other_connectors.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            self.shared.string(n.as_arc(), out);
        }
        out.extend_from_slice(b"],\"others\":");
        cost(&c.others, out);
        out.extend_from_slice(b",\"own\":");
        cost(&c.own, out);
        self.schema_version(out);
        out.extend_from_slice(b",\"type\":\"change\",\"upstream\":");
        json_bytes::opt_string(c.upstream.as_deref(), out);
        out.extend_from_slice(b",\"worker\":");
        self.shared.string(&c.worker, out);
        out.push(b'}');
    }

    /// [`DowntimeOut`].
    fn downtime(&mut self, d: &ConnectorDowntime, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"by_cause\":{");
        let mut by_cause: Vec<(&str, &Cost)> =
            d.by_cause.iter().map(|(k, c)| (k.key_name(), c)).collect();
        by_cause.sort_unstable_by_key(|e| e.0);
        for (k, (name, c)) in by_cause.into_iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            json_bytes::string(name, out);
            out.push(b':');
            cost(c, out);
        }
        out.extend_from_slice(b"},\"by_others\":");
        cost(&d.by_others, out);
        out.extend_from_slice(b",\"connector\":");
        self.shared.string(d.connector.as_arc(), out);
        out.extend_from_slice(b",\"group\":");
        self.shared.string(&d.group, out);
        out.extend_from_slice(b",\"longest_ms\":");
        json_bytes::integer(d.longest_ms, out);
        self.schema_version(out);
        out.extend_from_slice(b",\"total\":");
        cost(&d.total, out);
        out.extend_from_slice(b",\"type\":\"downtime\"}");
    }
}

/// [`CostOut`].
fn cost(c: &Cost, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"interruptions\":");
    json_bytes::unsigned(c.interruptions, out);
    out.extend_from_slice(b",\"ms\":");
    json_bytes::integer(c.ms, out);
    out.extend_from_slice(b",\"still_down\":");
    json_bytes::unsigned(c.still_down, out);
    out.extend_from_slice(b",\"tasks\":");
    json_bytes::unsigned(c.tasks, out);
    out.push(b'}');
}

/// Counts, each after its `,"key":`.
fn unsigned_fields(fields: &[(&[u8], u64)], out: &mut Vec<u8>) {
    for (key, n) in fields {
        out.extend_from_slice(key);
        json_bytes::unsigned(*n, out);
    }
}

fn opt_unsigned(n: Option<usize>, out: &mut Vec<u8>) {
    match n {
        Some(n) => json_bytes::unsigned(n as u64, out),
        None => out.extend_from_slice(b"null"),
    }
}

fn boolean(b: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::json_out::tests::{reports, same_as_tree};

    #[test]
    fn every_view_serializes_as_its_tree() {
        let mut shapes = [0usize; 6];
        for report in reports() {
            let iso = &report.isolation;
            for l in [
                Line::default(),
                Line {
                    kind: Some("x"),
                    schema_version: Some(1),
                },
            ] {
                for i in &iso.interruptions {
                    same_as_tree(&InterruptionOut::of(&report, i, l));
                    shapes[0] += usize::from(i.noticed.is_some());
                    shapes[1] += usize::from(matches!(i.clock, Clock::TwoWorkers { .. }));
                    shapes[2] += usize::from(!i.cause.lines.is_empty());
                }
                for r in &iso.rebalances {
                    same_as_tree(&RebalanceOut::of(&report, r, l));
                    shapes[3] += usize::from(r.trigger.line.is_some());
                }
                for c in &iso.changes {
                    same_as_tree(&ChangeOut::of(&report, c, l));
                    shapes[4] += usize::from(!c.other_connectors.is_empty());
                }
                for d in &iso.connectors {
                    same_as_tree(&DowntimeOut::of(d, l));
                    shapes[5] += usize::from(d.by_cause.len() > 1);
                }
            }
        }
        // Each shape was met at least once.
        assert!(shapes.iter().all(|&n| n > 0), "{shapes:?}");
    }

    #[test]
    fn json_lines_are_the_views_bytes() {
        let mut lines = 0;
        for report in reports() {
            let iso = &report.isolation;
            let (mut buf, mut got) = (Vec::new(), Vec::new());
            write_jsonl(&report, iso, 7, &mut buf, &mut got).unwrap();
            let line = |kind| Line {
                kind: Some(kind),
                schema_version: Some(7),
            };
            let mut want = Vec::new();
            let mut put = |v: &dyn erased::View| {
                v.write(&mut want);
                want.push(b'\n');
                lines += 1;
            };
            for i in &iso.interruptions {
                put(&InterruptionOut::of(&report, i, line("interruption")));
            }
            for r in &iso.rebalances {
                put(&RebalanceOut::of(&report, r, line("rebalance")));
            }
            for c in &iso.changes {
                put(&ChangeOut::of(&report, c, line("change")));
            }
            for d in &iso.connectors {
                put(&DowntimeOut::of(d, line("downtime")));
            }
            assert_eq!(String::from_utf8(got), String::from_utf8(want));
        }
        assert!(lines > 0);
    }

    mod erased {
        /// A view serde_json writes.
        pub trait View {
            fn write(&self, out: &mut Vec<u8>);
        }

        impl<T: serde::Serialize> View for T {
            fn write(&self, out: &mut Vec<u8>) {
                serde_json::to_writer(out, self).unwrap();
            }
        }
    }
}
