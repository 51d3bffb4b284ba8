//! Gaps: a log cut anywhere must not invent a finding. Every corpus trace is
//! cut at every line boundary, keeping the lines before the cut (a log that
//! ends mid-life) and the lines after it (a log that starts mid-life); each
//! part may only produce findings the whole trace produces.

mod support;

use herder_audit::Report;
use std::collections::BTreeSet;
use std::path::PathBuf;
use support::{audit_bytes, cases};

type Key = (String, String, String);

fn keys(r: &Report) -> BTreeSet<Key> {
    r.findings()
        .map(|f| {
            (
                f.kind.to_string(),
                f.resource.as_ref().map(|r| r.id()).unwrap_or_default(),
                f.trigger.text.to_string(),
            )
        })
        .collect()
}

/// The single-file traces of the corpus.
fn traces() -> Vec<PathBuf> {
    cases().into_iter().filter(|p| p.is_file()).collect()
}

#[test]
fn cut_traces_invent_no_finding() {
    let mut problems = Vec::new();
    let mut cuts = 0;
    for p in traces() {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.display().to_string();
        let full = keys(&audit_bytes(&name, text.as_str()));
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for k in 1..lines.len() {
            for (part, which) in [
                (lines[..k].concat(), "first"),
                (lines[k..].concat(), "last"),
            ] {
                cuts += 1;
                let got = keys(&audit_bytes(&name, part.as_str()));
                for extra in got.difference(&full) {
                    let n = if which == "first" { k } else { lines.len() - k };
                    problems.push(format!("{name}, {which} {n} lines: {extra:?}"));
                }
            }
        }
    }
    assert!(cuts > 1000, "only {cuts} cuts");
    assert!(
        problems.is_empty(),
        "{} invented finding(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
