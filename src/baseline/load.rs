//! Reading a JSON report of an earlier run (`--format json`, or `--format
//! jsonl`) back: its findings with their fingerprints, and its summary.

use crate::finding::fingerprint::{Fingerprint, WorkerIdentity, distance, message_text};
use crate::report::json::SCHEMA_VERSION;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One finding of a loaded report.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedFinding {
    pub fingerprint: Fingerprint,
    /// The finding as the report has it.
    pub value: Value,
}

/// A report read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedReport {
    pub path: String,
    pub findings: Vec<LoadedFinding>,
    /// The `summary` object (empty when the report has none).
    pub summary: Value,
}

/// Reads a JSON (or JSON lines) report; the error names the file.
pub fn read_report(path: &Path) -> Result<LoadedReport, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{name}: {}", crate::input::describe(&e)))?;
    parse_report(&text, &name).map_err(|e| format!("{name}: {e}"))
}

/// Parses a report's text.
pub fn parse_report(text: &str, name: &str) -> Result<LoadedReport, String> {
    let (findings, workers, summary) = match serde_json::from_str::<Value>(text) {
        Ok(doc) if doc.get("type").is_none() => {
            check_version(&doc)?;
            let findings = doc
                .get("findings")
                .and_then(Value::as_array)
                .ok_or("not a herder-audit JSON report (no `findings` list)")?
                .clone();
            let workers = array(&doc, "workers");
            (findings, workers, doc.get("summary").cloned())
        }
        whole => {
            // JSON lines: findings, errors, then one summary line.
            let mut findings = Vec::new();
            let mut summary = None;
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let v: Value = serde_json::from_str(line).map_err(|e| {
                    if let (0, Err(whole)) = (i, &whole) {
                        format!("not a JSON report: {whole}")
                    } else {
                        format!("line {}: {e}", i + 1)
                    }
                })?;
                check_version(&v)?;
                match v.get("type").and_then(Value::as_str) {
                    Some("finding") => findings.push(v),
                    Some("summary") => summary = Some(v),
                    _ => {}
                }
            }
            let summary = summary.ok_or("not a herder-audit JSON report (no summary line)")?;
            let workers = array(&summary, "workers_detail");
            (findings, workers, Some(summary))
        }
    };
    let identities: HashMap<String, WorkerIdentity> = workers
        .iter()
        .filter_map(|w| {
            let label = w.get("worker")?.as_str()?;
            let client = (w.get("identified_by").and_then(Value::as_str) == Some("client-id"))
                .then(|| w.get("client_id").and_then(Value::as_str))
                .flatten();
            let first = w
                .get("first_generation")
                .and_then(Value::as_i64)
                .and_then(|g| i32::try_from(g).ok());
            Some((
                label.to_string(),
                WorkerIdentity::from_parts(
                    label,
                    w.get("rest_url").and_then(Value::as_str),
                    client,
                    first,
                ),
            ))
        })
        .collect();
    let findings = findings
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let fingerprint = fingerprint_of(&value, &identities)
                .ok_or_else(|| format!("finding {} lacks kind, worker or trigger", i + 1))?;
            Ok(LoadedFinding { fingerprint, value })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(LoadedReport {
        path: name.to_string(),
        findings,
        summary: summary.unwrap_or(Value::Null),
    })
}

fn array(v: &Value, key: &str) -> Vec<Value> {
    v.get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn check_version(v: &Value) -> Result<(), String> {
    match v.get("schema_version").and_then(Value::as_u64) {
        Some(n) if n == u64::from(SCHEMA_VERSION) => Ok(()),
        Some(n) => Err(format!(
            "report schema version {n} is not supported (this herder-audit reads {SCHEMA_VERSION})"
        )),
        None => Err("not a herder-audit JSON report (no schema_version)".to_string()),
    }
}

/// The fingerprint of a finding object of a report.
pub fn fingerprint_of(
    f: &Value,
    identities: &HashMap<String, WorkerIdentity>,
) -> Option<Fingerprint> {
    if let Some(fp) = f.get("fingerprint")
        && let Ok(fp) = serde_json::from_value::<Fingerprint>(fp.clone())
    {
        return Some(fp);
    }
    let kind = f.get("kind")?.as_str()?;
    let worker = f.get("worker")?.as_str()?;
    let who = identities
        .get(worker)
        .cloned()
        .unwrap_or_else(|| WorkerIdentity::label_only(worker));
    let resource = match f.get("resource") {
        Some(Value::Object(r)) => {
            format!("{}:{}", r.get("type")?.as_str()?, r.get("id")?.as_str()?)
        }
        _ => "-".to_string(),
    };
    let generation = f
        .get("generation")
        .and_then(Value::as_i64)
        .and_then(|g| i32::try_from(g).ok());
    let text = f.get("trigger")?.get("text")?.as_str()?;
    Some(Fingerprint {
        kind: kind.to_string().into(),
        worker: who.id,
        group: f.get("group").and_then(Value::as_str).map(Into::into),
        resource,
        generation_distance: distance(generation, who.first_generation),
        message: message_text(text).into(),
    })
}
