//! The isolation sections (issue 26): interruptions, rebalances, changes
//! and each connector's downtime, as JSON (`interruptions`, `rebalances`,
//! `changes`, `downtime`; docs/json-schema.md) and as the text summary's
//! isolation section (short, or full with `--isolation full`).

use super::quote::line_json as line;
use crate::audit::Names;
use crate::interruptions::{
    Cause, Change, Clock, ConnectorDowntime, Cost, Edge, Interruption, Isolation, Rebalance,
    Trigger,
};
use crate::model::{Resource, SourceLine};
use serde_json::{Value, json};
use std::io::{self, Write};

fn edge(names: &dyn Names, e: &Edge) -> Value {
    let mut v = line(names, &e.line);
    v["worker"] = json!(&*e.worker);
    v
}

fn cost(c: &Cost) -> Value {
    json!({"interruptions": c.interruptions, "tasks": c.tasks, "ms": c.ms, "still_down": c.still_down})
}

fn cause(names: &dyn Names, c: &Cause) -> Value {
    json!({
        "kind": c.kind.as_str(),
        "via": c.via,
        "connector": c.connector.as_deref(),
        "worker": c.worker.as_deref(),
        "finding": c.finding.as_ref().map(|l| line(names, l)),
        "upstream": c.upstream,
        "lines": c.lines.iter().map(|(role, l)| {
            let mut v = line(names, l);
            v["role"] = json!(role);
            v
        }).collect::<Vec<_>>(),
    })
}

fn clock(c: &Clock) -> Value {
    match c {
        Clock::OneWorker => json!({"kind": "one-worker"}),
        Clock::TwoWorkers { generation, raw_ms } => {
            json!({"kind": "two-workers", "generation": generation, "raw_ms": raw_ms})
        }
        Clock::Unanchored => json!({"kind": "unanchored"}),
    }
}

pub fn interruption_json(names: &dyn Names, i: &Interruption) -> Value {
    json!({
        "group": &*i.group,
        "resource": i.resource,
        "from": edge(names, &i.from),
        "from_stop": i.stopped,
        "to": i.to.as_ref().map(|e| edge(names, e)),
        "running": i.running.as_ref().map(|l| line(names, l)),
        "noticed": i.noticed.as_ref().map(|(e, timeout)| {
            let mut v = edge(names, e);
            v["session_timeout_ms"] = json!(timeout);
            v
        }),
        "still_down": i.to.is_none(),
        "ms": i.ms.filter(|_| i.to.is_some()),
        "clock": clock(&i.clock),
        "cause": cause(names, &i.cause),
        "by_others": i.by_others(),
        "generation": i.generation,
        "change": i.change,
    })
}

fn trigger(names: &dyn Names, t: &Trigger) -> Value {
    json!({
        "kind": t.kind,
        "how": t.how,
        "worker": t.worker.as_deref(),
        "connector": t.connector.as_deref(),
        "reason": t.reason,
        "line": t.line.as_ref().map(|l| line(names, l)),
        "change": t.change,
    })
}

pub fn rebalance_json(names: &dyn Names, r: &Rebalance) -> Value {
    json!({
        "group": &*r.group,
        "generation": r.generation,
        "line": line(names, &r.line),
        "trigger": trigger(names, &r.trigger),
        "running_before": r.running_before,
        "retained": r.retained,
        "moved": r.moved,
        "restarted": r.restarted,
        "started": r.started,
        "stopped": r.stopped,
        "downtime_ms": r.downtime_ms,
        "tasks_before": r.tasks_before,
        "tasks_retained": r.tasks_retained,
    })
}

pub fn change_json(names: &dyn Names, c: &Change) -> Value {
    json!({
        "group": &*c.group,
        "connector": &*c.connector,
        "kind": c.kind.as_str(),
        "line": line(names, &c.line),
        "worker": &*c.worker,
        "own": cost(&c.own),
        "others": cost(&c.others),
        "other_connectors": c.other_connectors.iter().map(|n| &**n).collect::<Vec<_>>(),
        "upstream": c.upstream,
    })
}

pub fn downtime_json(d: &ConnectorDowntime) -> Value {
    json!({
        "group": &*d.group,
        "connector": &*d.connector,
        "total": cost(&d.total),
        "longest_ms": d.longest_ms,
        "by_cause": d.by_cause.iter().map(|(k, c)| (k.as_str().to_string(), cost(c))).collect::<serde_json::Map<_, _>>(),
        "by_others": cost(&d.by_others),
    })
}

/// The four sections, keyed as the JSON document names them.
pub fn sections(names: &dyn Names, iso: &Isolation) -> [(&'static str, Value); 4] {
    [
        (
            "interruptions",
            iso.interruptions
                .iter()
                .map(|i| interruption_json(names, i))
                .collect::<Vec<_>>()
                .into(),
        ),
        (
            "rebalances",
            iso.rebalances
                .iter()
                .map(|r| rebalance_json(names, r))
                .collect::<Vec<_>>()
                .into(),
        ),
        (
            "changes",
            iso.changes
                .iter()
                .map(|c| change_json(names, c))
                .collect::<Vec<_>>()
                .into(),
        ),
        (
            "downtime",
            iso.connectors
                .iter()
                .map(downtime_json)
                .collect::<Vec<_>>()
                .into(),
        ),
    ]
}

/// JSON lines: one object per interruption, rebalance, change and
/// connector, `type` naming which.
pub fn write_jsonl(
    names: &dyn Names,
    iso: &Isolation,
    schema_version: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let lines = iso
        .interruptions
        .iter()
        .map(|i| ("interruption", interruption_json(names, i)))
        .chain(
            iso.rebalances
                .iter()
                .map(|r| ("rebalance", rebalance_json(names, r))),
        )
        .chain(
            iso.changes
                .iter()
                .map(|c| ("change", change_json(names, c))),
        )
        .chain(
            iso.connectors
                .iter()
                .map(|d| ("downtime", downtime_json(d))),
        );
    for (kind, mut v) in lines {
        v["type"] = json!(kind);
        v["schema_version"] = json!(schema_version);
        serde_json::to_writer(&mut *out, &v)?;
        writeln!(out)?;
    }
    Ok(())
}

/// How much of the isolation section the text summary prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Per connector, and the changes that interrupted other connectors.
    #[default]
    Short,
    /// Everything: each interruption, rebalance and change.
    Full,
}

pub(crate) fn secs(ms: i64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn when(l: &SourceLine) -> String {
    l.ts.map_or_else(|| format!("line {}", l.line), |t| t.to_string())
}

fn res(r: &Resource) -> String {
    match r {
        Resource::Connector(n) => format!("connector {n}"),
        Resource::Task(t) => format!("task {t}"),
    }
}

/// One change and its blast radius, as a sentence.
pub fn change_sentence(c: &Change) -> String {
    let mut s = format!(
        "connector {} {} at {} ({})",
        c.connector,
        c.kind.as_str(),
        when(&c.line),
        c.worker
    );
    if c.others.interruptions == 0 {
        s.push_str(" → no other connector interrupted");
    } else {
        s.push_str(&format!(
            " → {} task(s) of {} other connector(s) stopped, {} of task downtime",
            c.others.tasks,
            c.other_connectors.len(),
            secs(c.others.ms)
        ));
        if c.others.still_down > 0 {
            s.push_str(&format!(", {} still down", c.others.still_down));
        }
        if let Some(u) = &c.upstream {
            s.push_str(&format!(" ({u})"));
        }
    }
    s
}

/// A rebalance's effect, as a sentence.
pub fn rebalance_sentence(r: &Rebalance) -> String {
    let mut s = format!(
        "generation {}: {} of {} kept running",
        r.generation, r.retained, r.running_before
    );
    for (n, what) in [
        (r.moved, "moved"),
        (r.restarted, "restarted in place"),
        (r.started, "started"),
        (r.stopped, "stopped"),
    ] {
        if n > 0 {
            s.push_str(&format!(", {n} {what}"));
        }
    }
    if r.moved + r.restarted > 0 {
        s.push_str(&format!(" ({} of downtime)", secs(r.downtime_ms)));
    }
    let t = &r.trigger;
    s.push_str(&format!("; set off by {}", t.kind));
    if let Some(h) = &t.how {
        s.push_str(&format!(" ({h})"));
    }
    if let Some(w) = &t.worker {
        s.push_str(&format!(" {w}"));
    }
    if let Some(c) = &t.connector {
        s.push_str(&format!(" of {c}"));
    }
    if let Some(reason) = &t.reason {
        s.push_str(&format!(", reason: {reason}"));
    }
    s
}

fn interruption_sentence(i: &Interruption) -> String {
    let len = match (&i.to, i.ms) {
        (None, _) => "still down".to_string(),
        (Some(_), Some(ms)) => match i.clock {
            Clock::OneWorker => secs(ms),
            Clock::TwoWorkers { generation, .. } => {
                format!(
                    "{} (two workers' clocks, aligned at generation {generation})",
                    secs(ms)
                )
            }
            Clock::Unanchored => format!("{} (two workers' clocks, not aligned)", secs(ms)),
        },
        (Some(_), None) => "length unknown".to_string(),
    };
    let mut cause = i.cause.kind.as_str().to_string();
    if let Some(c) = &i.cause.connector
        && i.by_others()
    {
        cause.push_str(&format!(" {c}"));
    }
    if let Some(w) = &i.cause.worker {
        cause.push_str(&format!(" {w}"));
    }
    if let Some(v) = &i.cause.via {
        cause.push_str(&format!(", via {v}"));
    }
    if let Some(u) = &i.cause.upstream {
        cause.push_str(&format!(" ({u})"));
    }
    let moved = match &i.to {
        Some(t) if t.worker != i.from.worker => format!(" → {}", t.worker),
        _ => String::new(),
    };
    format!(
        "{} at {} on {}{moved}: {len}; {cause}",
        res(&i.resource),
        when(&i.from.line),
        i.from.worker
    )
}

/// The text summary's isolation section.
pub fn write_text(iso: &Isolation, detail: Detail, out: &mut dyn Write) -> io::Result<()> {
    if iso.interruptions.is_empty() && detail == Detail::Short {
        return Ok(());
    }
    let total: Cost = iso.connectors.iter().fold(Cost::default(), |mut a, d| {
        a.interruptions += d.total.interruptions;
        a.tasks += d.total.tasks;
        a.ms += d.total.ms;
        a.still_down += d.total.still_down;
        a
    });
    writeln!(out)?;
    writeln!(
        out,
        "isolation: {} interruption(s), {} of downtime, {} still down",
        total.interruptions,
        secs(total.ms),
        total.still_down
    )?;
    for d in &iso.connectors {
        let causes: Vec<String> = d
            .by_cause
            .iter()
            .map(|(k, c)| format!("{} {}×/{}", k.as_str(), c.interruptions, secs(c.ms)))
            .collect();
        writeln!(
            out,
            "  connector {}: {} interruption(s), {} total, longest {}; caused by others {}×/{}; by cause: {}",
            d.connector,
            d.total.interruptions,
            secs(d.total.ms),
            secs(d.longest_ms),
            d.by_others.interruptions,
            secs(d.by_others.ms),
            causes.join(", ")
        )?;
    }
    for c in iso
        .changes
        .iter()
        .filter(|c| detail == Detail::Full || c.others.interruptions > 0)
    {
        writeln!(out, "  change: {}", change_sentence(c))?;
    }
    if detail == Detail::Short {
        return Ok(());
    }
    for r in &iso.rebalances {
        writeln!(out, "  rebalance: {}", rebalance_sentence(r))?;
    }
    for i in &iso.interruptions {
        writeln!(out, "  interruption: {}", interruption_sentence(i))?;
    }
    Ok(())
}
