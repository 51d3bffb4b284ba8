//! The isolation sections (issue 26) as JSON: `interruptions`,
//! `rebalances`, `changes` and `downtime` (docs/json-schema.md), in the
//! document and as JSON lines (`type` naming which). Typed views of the
//! [`Isolation`] serialized straight, fields in sorted order as in
//! [`super::json_out`].

use super::json_out::{Entries, LineOut, ResourceOut, entries, write_line};
use crate::audit::Names;
use crate::interruptions::{
    Cause, Change, Clock, ConnectorDowntime, Cost, Edge, Interruption, Isolation, Rebalance,
    Trigger,
};
use crate::model::Timestamp;
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
/// connector, `type` naming which; each serialized into `buf` and handed
/// to `out` in one piece.
pub fn write_jsonl(
    names: &dyn Names,
    iso: &Isolation,
    schema_version: u32,
    buf: &mut Vec<u8>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let line = |kind| Line {
        kind: Some(kind),
        schema_version: Some(schema_version),
    };
    for i in &iso.interruptions {
        write_line(
            &InterruptionOut::of(names, i, line("interruption")),
            buf,
            out,
        )?;
    }
    for r in &iso.rebalances {
        write_line(&RebalanceOut::of(names, r, line("rebalance")), buf, out)?;
    }
    for c in &iso.changes {
        write_line(&ChangeOut::of(names, c, line("change")), buf, out)?;
    }
    for d in &iso.connectors {
        write_line(&DowntimeOut::of(d, line("downtime")), buf, out)?;
    }
    Ok(())
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
}
