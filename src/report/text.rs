//! Text output in the style of rustc diagnostics: the finding and its
//! reason, then the evidence lines quoted with `file:line` and a label each;
//! then a summary per worker and for the run.

use super::RunSummary;
use crate::audit::{Names, Report};
use crate::finding::{Finding, Severity};
use crate::model::{Resource, SourceLine};
use crate::replay::WorkerSummary;
use anstyle::{AnsiColor, Style};
use std::collections::BTreeMap;
use std::io::{self, Write};

const ERR: Style = AnsiColor::Red.on_default().bold();
const WARN: Style = AnsiColor::Yellow.on_default().bold();
const BOLD: Style = Style::new().bold();
const GUTTER: Style = AnsiColor::Blue.on_default().bold();
const LABEL: Style = AnsiColor::Cyan.on_default();
const DIM: Style = Style::new().dimmed();

fn quoted(l: &SourceLine) -> String {
    let msg = l.message().trim();
    match l.ts {
        Some(ts) => format!("[{ts}] {msg}"),
        None => msg.to_string(),
    }
}

/// Writes one finding.
pub fn write_finding(report: &dyn Names, f: &Finding, out: &mut dyn Write) -> io::Result<()> {
    let (sev, style) = match f.severity() {
        Severity::Error => ("error", ERR),
        Severity::Warning => ("warning", WARN),
    };
    writeln!(
        out,
        "{style}{sev}[{}]{style:#}{BOLD}: {}{BOLD:#}",
        f.kind, f.reason
    )?;
    let trig = &f.trigger;
    let width = f
        .evidence
        .iter()
        .map(|e| e.line.line.to_string().len())
        .max()
        .unwrap_or(1)
        .max(trig.line.to_string().len());
    let pad = " ".repeat(width);
    writeln!(
        out,
        "{pad}{GUTTER}-->{GUTTER:#} {}:{}",
        report.source_name(trig.source),
        trig.line
    )?;
    let mut who = format!("worker {}", f.worker);
    if let Some(g) = &f.group {
        who.push_str(&format!(", group {g}"));
    }
    if let Some(g) = f.generation {
        who.push_str(&format!(", generation {g}"));
    }
    writeln!(out, "{pad} {GUTTER}={GUTTER:#} {who}")?;
    writeln!(out, "{pad} {GUTTER}|{GUTTER:#}")?;
    let mut current = (trig.source, None::<std::sync::Arc<str>>);
    for e in &f.evidence {
        let here = (e.line.source, e.worker.clone());
        if here != current {
            let w = e
                .worker
                .as_ref()
                .map(|w| format!(" (worker {w})"))
                .unwrap_or_default();
            writeln!(
                out,
                "{pad}{GUTTER}-->{GUTTER:#} {}{w}",
                report.source_name(e.line.source)
            )?;
            current = here;
        }
        let mark = if e.line == *trig && e.worker.is_none() {
            '^'
        } else {
            '-'
        };
        writeln!(
            out,
            "{GUTTER}{:>width$} |{GUTTER:#} {}",
            e.line.line,
            quoted(&e.line)
        )?;
        match &e.record {
            Some(r) => writeln!(
                out,
                "{pad} {GUTTER}|{GUTTER:#}   {LABEL}{mark} {} (record {r}){LABEL:#}",
                e.role
            )?,
            None => writeln!(
                out,
                "{pad} {GUTTER}|{GUTTER:#}   {LABEL}{mark} {}{LABEL:#}",
                e.role
            )?,
        }
    }
    if !f.started.is_empty() {
        let list: Vec<String> = f.started.iter().map(Resource::to_string).collect();
        writeln!(
            out,
            "{pad} {GUTTER}={GUTTER:#} started in that phase: {}",
            list.join(", ")
        )?;
    }
    if let Some(u) = f.upstream {
        writeln!(
            out,
            "{pad} {GUTTER}={GUTTER:#} known upstream regression: {u}"
        )?;
    }
    writeln!(out)
}

// `name` is a function pointer, not `impl Fn`: one copy per key type, not
// one per call site.
fn counts<K: Copy + Ord>(m: &BTreeMap<K, u64>, name: fn(K) -> &'static str) -> String {
    let total: u64 = m.values().sum();
    if total == 0 {
        return "0".to_string();
    }
    let parts: Vec<String> = m.iter().map(|(k, n)| format!("{} {n}", name(*k))).collect();
    format!("{total} ({})", parts.join(", "))
}

fn write_worker(report: &Report, s: &WorkerSummary, out: &mut dyn Write) -> io::Result<()> {
    let mut id = Vec::new();
    if let Some(c) = &s.client_id {
        id.push(format!("client {c}"));
    }
    if let Some(g) = &s.group {
        id.push(format!("group {g}"));
    }
    match (&s.rest_url, s.identified_by) {
        (Some(u), _) => id.push(format!("url {u}")),
        (None, crate::replay::Identity::MemberId) => {
            id.push(format!("member {}", s.member_id.as_deref().unwrap_or("?")))
        }
        (None, crate::replay::Identity::ClientId) => {
            id.push("identified by its client id".to_string())
        }
        _ => id.push("identified by its file only".to_string()),
    }
    if let Some(c) = &s.kafka_cluster {
        id.push(format!("kafka cluster {c}"));
    }
    if let Some(p) = s.protocol {
        id.push(format!("protocol {}", p.as_str()));
    }
    writeln!(
        out,
        "  {BOLD}{}{BOLD:#} {DIM}{}{DIM:#}",
        s.worker,
        id.join(", ")
    )?;
    let gens = match (s.first_generation, s.last_generation) {
        (Some(a), Some(b)) if a != b => format!("generations {a}..{b}"),
        (Some(a), _) => format!("generation {a}"),
        _ => "generation ?".to_string(),
    };
    let restarts = if s.restarts > 0 {
        format!(", {} restart(s)", s.restarts)
    } else {
        String::new()
    };
    writeln!(
        out,
        "    {gens} ({} assignment line(s)){restarts}",
        s.generations
    )?;
    writeln!(out, "    starts {}", counts(&s.starts, |k| k.as_str()))?;
    writeln!(out, "    stops {}", counts(&s.stops, |k| k.as_str()))?;
    if !s.findings.is_empty() {
        writeln!(out, "    findings {}", counts(&s.findings, |k| k.as_str()))?;
    }
    for n in &s.notes {
        match n.line {
            Some((src, l)) => writeln!(
                out,
                "    {DIM}note:{DIM:#} {}:{l}: {}",
                report.source_name(src),
                n.text
            )?,
            None => writeln!(out, "    {DIM}note:{DIM:#} {}", n.text)?,
        }
    }
    Ok(())
}

/// `12.3 KiB`: a byte count for people.
pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Writes the summary: per worker, then for the run.
pub fn write_summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{BOLD}summary{BOLD:#}")?;
    for w in &report.workers {
        write_worker(report, &w.summary, out)?;
    }
    for i in &report.inputs {
        for (line, len) in &i.too_long {
            writeln!(
                out,
                "  {WARN}warning{WARN:#}: {}:{line}: line of {} skipped (longer than the {} limit)",
                i.name,
                human_bytes(*len),
                human_bytes(crate::input::scan::MAX_LINE as u64)
            )?;
        }
    }
    for (name, segs, skipped) in &report.stitched {
        let rep = if *skipped > 0 {
            format!("; {skipped} repeated line(s) of overlapping segments skipped")
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {DIM}stream{DIM:#} {name}: {segs} rotated segments stitched in time order{rep}"
        )?;
    }
    for (a, b) in &report.same_worker {
        writeln!(
            out,
            "  {DIM}note:{DIM:#} {a} and {b} are the same worker (same identity); not compared with each other"
        )?;
    }
    if let Some(t) = &report.topics {
        write_topics(t, out)?;
    }
    let s = RunSummary::of(report);
    let inputs = if s.inputs == 1 { "input" } else { "inputs" };
    let workers = if s.workers == 1 { "worker" } else { "workers" };
    let verdict = format!(
        "{} error(s), {} warning(s)",
        s.errors_found, s.warnings_found
    );
    let style = if s.errors_found > 0 {
        ERR
    } else if s.warnings_found > 0 {
        WARN
    } else {
        BOLD
    };
    if report.workers.is_empty()
        && let Some(t) = &report.topics
    {
        // the topics alone: no log, so no worker, group or stop of a log
        writeln!(
            out,
            "  run: the internal topics alone: {} {inputs} ({}, {} lines), {} worker(s) in the status topic; {style}{verdict}{style:#}",
            s.inputs,
            human_bytes(s.bytes),
            s.lines,
            t.workers.len(),
        )?;
        if !s.by_kind.is_empty() {
            writeln!(out, "  findings: {}", counts(&s.by_kind, |k| k.as_str()))?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "  run: {} {inputs} ({}, {} lines), {} {workers} in {} cluster(s), {} rebalance(s); stops {}; {style}{verdict}{style:#}",
        s.inputs,
        human_bytes(s.bytes),
        s.lines,
        s.workers,
        s.groups,
        s.rebalances,
        counts(&s.stops, |k| k.as_str()),
    )?;
    if !s.by_kind.is_empty() {
        writeln!(out, "  findings: {}", counts(&s.by_kind, |k| k.as_str()))?;
    }
    Ok(())
}

/// What the internal topics witnessed (docs/topics.md, "Summary").
fn write_topics(t: &crate::topics::cross::Summary, out: &mut dyn Write) -> io::Result<()> {
    let records: Vec<String> = t
        .records
        .iter()
        .map(|(r, n)| format!("{n} {}", r.as_str()))
        .collect();
    let mut extra = String::new();
    if t.repeated > 0 {
        extra.push_str(&format!(", {} read twice and counted once", t.repeated));
    }
    if t.skipped > 0 {
        extra.push_str(&format!(", {} skipped", t.skipped));
    }
    let logs = t.workers.iter().filter(|w| w.log).count();
    let with_logs = if t.logs {
        format!(", {logs} of them with their log read")
    } else {
        String::new()
    };
    writeln!(
        out,
        "  {DIM}topics:{DIM:#} {} cluster(s), records: {}{extra}; {} worker(s) in the status topic{with_logs}",
        t.clusters,
        if records.is_empty() {
            "none".to_string()
        } else {
            records.join(", ")
        },
        t.workers.len(),
    )?;
    if t.logs {
        writeln!(
            out,
            "  {DIM}topics:{DIM:#} {} log finding(s) backed by records ({} of them also found by the topics alone); {} finding(s) by the topics alone",
            t.backed, t.merged, t.alone
        )?;
    }
    for w in t.absent() {
        let unchecked = if w.findings.is_empty() {
            String::new()
        } else {
            format!(
                "; proven by the status topic alone: {}",
                w.findings.join(", ")
            )
        };
        writeln!(
            out,
            "  {WARN}incomplete archive:{WARN:#} worker {} (generations {}-{}) ran {} by the status topic, but its log is absent: its starts, stops and assignments were not checked{unchecked}",
            w.id,
            w.generations.0,
            w.generations.1,
            w.ran.join(", ")
        )?;
    }
    Ok(())
}

/// The whole text report: findings, then the summary.
pub fn write_report(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for f in report.findings() {
        write_finding(report, f, out)?;
    }
    write_summary(report, out)
}

fn list(v: &[Resource]) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        v.iter().map(Resource::id).collect::<Vec<_>>().join(", ")
    }
}

/// The replay view: per worker and generation, the rebuilt state.
pub fn write_replay(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for w in &report.workers {
        let s = &w.summary;
        let g = s
            .group
            .as_deref()
            .map(|g| format!(" (group {g})"))
            .unwrap_or_default();
        writeln!(out, "{BOLD}worker {}{g}{BOLD:#}", s.worker)?;
        for r in &w.generations {
            let generation = r.generation.map_or("?".to_string(), |g| g.to_string());
            let proto = r.protocol.map_or("protocol ?", |p| p.as_str());
            writeln!(
                out,
                "  {BOLD}generation {generation}{BOLD:#} {DIM}{}:{} {proto}, leader {}, offset {}{}{}{DIM:#}",
                report.source_name(r.line.source),
                r.line.line,
                r.leader_url,
                r.offset,
                if r.error != 0 {
                    format!(", error {}", r.error)
                } else {
                    String::new()
                },
                r.delay
                    .filter(|d| *d > 0)
                    .map(|d| format!(", delay {d}"))
                    .unwrap_or_default(),
            )?;
            writeln!(out, "    assigned  {}", list(&r.assigned))?;
            if !r.revoked.is_empty() {
                writeln!(out, "    revoked   {}", list(&r.revoked))?;
            }
            let cfg = match (r.start_offset, r.config_offset) {
                (Some(s), Some(c)) => format!("started with offset {s}, snapshot at {c}"),
                (Some(s), None) => format!("started with offset {s}, snapshot offset unknown"),
                (None, _) => "no start of work".to_string(),
            };
            writeln!(out, "    config    {cfg}")?;
            writeln!(out, "    started   {}", list(&r.started))?;
            writeln!(out, "    stopped   {}", list(&r.stopped))?;
            match &r.running {
                Some(run) => writeln!(
                    out,
                    "    running   {}{}",
                    list(run),
                    if r.running_complete {
                        ""
                    } else {
                        " (+ what the log has not shown)"
                    }
                )?,
                None => writeln!(out, "    running   unknown")?,
            }
        }
        if w.generations.is_empty() {
            writeln!(out, "  no assignment line seen")?;
        }
    }
    Ok(())
}
