//! `check --format json`: one document with every trace's result (schema
//! in docs/testing-connect.md).

use super::{Outcome, Totals};
use crate::check::expect::Entry;
use crate::report::json::{SCHEMA_VERSION, finding_json};
use serde_json::{Value, json};
use std::io::{self, Write};

fn entry_json(e: &Entry) -> Value {
    json!({
        "expectation_line": e.at,
        "text": e.raw.trim(),
        "file": e.file,
        "line": e.line,
        "kind": e.kind,
        "resource": e.resource,
        "worker": e.worker,
        "generation": e.generation,
        "comment": e.comment.as_deref().map(str::trim),
    })
}

fn trace_json(o: &Outcome) -> Value {
    let unexpected: Vec<Value> = match &o.report {
        Some(report) => o
            .unexpected_findings()
            .into_iter()
            .map(|(u, f)| {
                json!({
                    "expectation": u.entry.raw,
                    "finding": finding_json(report, f),
                    "diagnostic": super::plain_diagnostic(report, f),
                })
            })
            .collect(),
        None => Vec::new(),
    };
    json!({
        "name": o.trace.name,
        "kind": match o.trace.kind {
            super::discover::TraceKind::File => "file",
            super::discover::TraceKind::Directory => "directory",
        },
        "expectation_file": o.trace.expect.display().to_string(),
        "status": o.status.as_str().to_ascii_lowercase(),
        "expected": o.expected,
        "found": o.found,
        "missing": o.missing.iter().map(entry_json).collect::<Vec<_>>(),
        "unexpected": unexpected,
        "error": o.error,
        "bless": o.bless.map(|c| json!({"added": c.added, "removed": c.removed, "moved": c.moved})),
    })
}

/// The check document.
pub fn document(outcomes: &[Outcome], errors: &[(String, String)]) -> Value {
    let t = Totals::of(outcomes);
    json!({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "herder-audit", "version": env!("CARGO_PKG_VERSION")},
        "traces": outcomes.iter().map(trace_json).collect::<Vec<_>>(),
        "errors": errors.iter().map(|(p, m)| json!({"path": p, "message": m})).collect::<Vec<_>>(),
        "summary": {
            "traces": outcomes.len(),
            "passed": t.passed,
            "failed": t.not_passed(),
            "mismatched": t.failed,
            "new": t.new,
            "errors": t.errors,
            "blessed": t.blessed,
        },
    })
}

pub fn write(
    outcomes: &[Outcome],
    errors: &[(String, String)],
    out: &mut dyn Write,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &document(outcomes, errors))?;
    writeln!(out)
}
