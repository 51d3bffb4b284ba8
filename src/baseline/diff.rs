//! `herder-audit diff OLD.json NEW.json`: the findings that appeared and
//! disappeared between two runs (by fingerprint), and how the per-kind
//! finding counts and the start and stop justification counts changed.

use super::load::{LoadedFinding, LoadedReport};
use anstyle::{AnsiColor, Style};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};

/// Old and new value of a count.
pub type Change = (u64, u64);

/// The difference of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub old: String,
    pub new: String,
    pub old_findings: usize,
    pub new_findings: usize,
    /// New findings whose fingerprint the old run did not have (as often).
    pub appeared: Vec<LoadedFinding>,
    /// Old findings the new run no longer has.
    pub disappeared: Vec<LoadedFinding>,
    pub kinds: BTreeMap<String, Change>,
    pub starts: BTreeMap<String, Change>,
    pub stops: BTreeMap<String, Change>,
}

/// Findings of `a` that `b` does not match, one for one by fingerprint.
fn unmatched(a: &[LoadedFinding], b: &[LoadedFinding]) -> Vec<LoadedFinding> {
    let mut left: HashMap<_, usize> = HashMap::new();
    for f in b {
        *left.entry(&f.fingerprint).or_default() += 1;
    }
    a.iter()
        .filter(|f| match left.get_mut(&f.fingerprint) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

// The maps here are built by `insert`, not `collect`: collecting into a
// `BTreeMap` compiles a sort of its own for each place that does it.
fn counts(v: Option<&Value>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (k, n) in v.and_then(Value::as_object).into_iter().flatten() {
        if let Some(n) = n.as_u64() {
            out.insert(k.clone(), n);
        }
    }
    out
}

fn changes(old: BTreeMap<String, u64>, new: BTreeMap<String, u64>) -> BTreeMap<String, Change> {
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter()
        .map(|k| {
            (
                k.clone(),
                (
                    old.get(k).copied().unwrap_or(0),
                    new.get(k).copied().unwrap_or(0),
                ),
            )
        })
        .collect()
}

fn kinds_of(r: &LoadedReport) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for f in &r.findings {
        *m.entry(f.fingerprint.kind.to_string()).or_default() += 1;
    }
    m
}

/// Compares two loaded reports.
pub fn diff(old: &LoadedReport, new: &LoadedReport) -> Diff {
    Diff {
        old: old.path.clone(),
        new: new.path.clone(),
        old_findings: old.findings.len(),
        new_findings: new.findings.len(),
        appeared: unmatched(&new.findings, &old.findings),
        disappeared: unmatched(&old.findings, &new.findings),
        kinds: changes(kinds_of(old), kinds_of(new)),
        starts: changes(
            counts(old.summary.get("starts")),
            counts(new.summary.get("starts")),
        ),
        stops: changes(
            counts(old.summary.get("stops")),
            counts(new.summary.get("stops")),
        ),
    }
}

const ADD: Style = AnsiColor::Red.on_default().bold();
const GONE: Style = AnsiColor::Green.on_default();
const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut v = v;
    for p in path {
        v = v.get(p)?;
    }
    v.as_str()
}

fn write_finding(
    f: &LoadedFinding,
    sign: char,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let v = &f.value;
    let fp = &f.fingerprint;
    let severity = str_at(v, &["severity"]).unwrap_or("error");
    let mut who = format!("worker {}", str_at(v, &["worker"]).unwrap_or("?"));
    if let Some(g) = &fp.group {
        who.push_str(&format!(", group {g}"));
    }
    if let Some(g) = v.get("generation").and_then(Value::as_i64) {
        who.push_str(&format!(", generation {g}"));
    }
    writeln!(
        out,
        "  {style}{sign} {severity}[{}]{style:#} {} {DIM}({who}){DIM:#}",
        fp.kind,
        crate::check::expect::render_resource(&fp.resource),
    )?;
    if let Some(reason) = str_at(v, &["reason"]) {
        writeln!(out, "      {reason}")?;
    }
    let source = str_at(v, &["trigger", "source"]).unwrap_or("?");
    let line = v
        .get("trigger")
        .and_then(|t| t.get("line"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    writeln!(out, "      {DIM}--> {source}:{line}: {}{DIM:#}", fp.message)
}

fn write_table(
    title: &str,
    rows: &BTreeMap<String, Change>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let width = rows
        .keys()
        .map(|k| k.len() + 2)
        .max()
        .unwrap_or(0)
        .max(title.len());
    writeln!(
        out,
        "{BOLD}{title:<width$}  {:>7}  {:>7}  {:>7}{BOLD:#}",
        "old", "new", "change"
    )?;
    if rows.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for (k, (a, b)) in rows {
        let delta = *b as i64 - *a as i64;
        let d = if delta == 0 {
            String::new()
        } else {
            format!("{delta:+}")
        };
        writeln!(out, "  {k:<w$}  {a:>7}  {b:>7}  {d:>7}", w = width - 2)?;
    }
    Ok(())
}

/// The text rendering.
pub fn write_text(d: &Diff, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{BOLD}diff{BOLD:#} {} ({} finding(s)) -> {} ({} finding(s))\n",
        d.old, d.old_findings, d.new, d.new_findings
    )?;
    writeln!(out, "{BOLD}appeared ({}):{BOLD:#}", d.appeared.len())?;
    for f in &d.appeared {
        write_finding(f, '+', ADD, out)?;
    }
    writeln!(out, "{BOLD}disappeared ({}):{BOLD:#}", d.disappeared.len())?;
    for f in &d.disappeared {
        write_finding(f, '-', GONE, out)?;
    }
    writeln!(out)?;
    write_table("findings by kind", &d.kinds, out)?;
    write_table("stops by justification", &d.stops, out)?;
    write_table("starts by reason", &d.starts, out)?;
    writeln!(
        out,
        "\n{} appeared, {} disappeared",
        d.appeared.len(),
        d.disappeared.len()
    )
}

fn changes_json(m: &BTreeMap<String, Change>) -> Value {
    let mut o = serde_json::Map::new();
    for (k, (a, b)) in m {
        o.insert(
            k.clone(),
            json!({"old": a, "new": b, "change": *b as i64 - *a as i64}),
        );
    }
    Value::Object(o)
}

fn findings_json(v: &[LoadedFinding]) -> Vec<Value> {
    v.iter()
        .map(|f| json!({"fingerprint": f.fingerprint, "finding": f.value}))
        .collect()
}

/// The JSON rendering.
pub fn document(d: &Diff) -> Value {
    json!({
        "schema_version": crate::report::json::SCHEMA_VERSION,
        "tool": {"name": "herder-audit", "version": env!("CARGO_PKG_VERSION")},
        "old": {"report": d.old, "findings": d.old_findings},
        "new": {"report": d.new, "findings": d.new_findings},
        "appeared": findings_json(&d.appeared),
        "disappeared": findings_json(&d.disappeared),
        "findings_by_kind": changes_json(&d.kinds),
        "stops": changes_json(&d.stops),
        "starts": changes_json(&d.starts),
    })
}
