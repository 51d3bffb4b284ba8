//! The corpus runner: `corpus/` is checked with the same code as
//! `herder-audit check corpus/` (every trace's findings must equal,
//! exactly, the hand-written expectation beside it); the full text and
//! JSON outputs of the same audits are snapshot-tested on top (insta).
//!
//! Single-worker traces: `corpus/<name>.log` + `corpus/<name>.expect`.
//! Multi-worker scenarios: `corpus/<dir>/` (all its logs audited in one
//! run) + `corpus/<dir>/expect`. The expectation format is documented in
//! docs/testing-connect.md.

mod support;

use herder_audit::Report;
use herder_audit::print::{json, text};
use herder_audit::testing::check::discover::{self, TraceKind};
use herder_audit::testing::check::{self, CheckOptions, Outcome, Status, expect};
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::audit_paths;

fn corpus() -> (Vec<Outcome>, Vec<(String, String)>) {
    check::check_paths(&[PathBuf::from("corpus")], CheckOptions::default(), None)
}

/// A trace's snapshot name: the log's name without `.log`, or the
/// directory's; a trace in a subdirectory of the corpus
/// (`corpus/real-kafka/3.9.1/mm2-dedicated`) is named by its whole path
/// below `corpus/`, `/` written `-`, so that nested traces of the same
/// name do not share a snapshot.
fn snapshot_name(o: &Outcome) -> String {
    let path = o
        .trace
        .name
        .strip_prefix("corpus/")
        .unwrap_or(&o.trace.name);
    let name = path.strip_suffix(".log").unwrap_or(path);
    name.replace('/', "-")
}

#[test]
fn corpus_traces_produce_exactly_their_expected_findings() {
    let (outcomes, errors) = corpus();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        outcomes.len() >= 15,
        "the corpus holds {} traces",
        outcomes.len()
    );
    for kind in [TraceKind::File, TraceKind::Directory] {
        assert!(outcomes.iter().any(|o| o.trace.kind == kind), "{kind:?}");
    }
    if outcomes.iter().any(|o| o.status != Status::Ok) {
        let mut out = Vec::new();
        check::text::write(&outcomes, &mut out).unwrap();
        panic!(
            "corpus mismatches:\n{}",
            anstream::adapter::strip_str(&String::from_utf8_lossy(&out))
        );
    }
    assert_eq!(check::exit_status(&outcomes, 0), 0);
}

/// Logs captured from real Connect clusters (`conformance/run.sh`) are
/// nested directory traces, `corpus/real-kafka/<release>/<scenario>/`,
/// each with its provenance, found by the same search as the rest.
#[test]
fn real_kafka_captures_are_nested_directory_traces() {
    let (outcomes, errors) = corpus();
    assert!(errors.is_empty(), "{errors:?}");
    let real: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.trace.name.starts_with("corpus/real-kafka/"))
        .collect();
    assert!(real.len() >= 6, "{} real-Kafka traces", real.len());
    let mut releases = std::collections::BTreeSet::new();
    for o in &real {
        assert_eq!(o.trace.kind, TraceKind::Directory, "{}", o.trace.name);
        assert_eq!(o.status, Status::Ok, "{}", o.trace.name);
        assert!(
            o.trace.base.join("PROVENANCE.txt").is_file(),
            "{} has no PROVENANCE.txt",
            o.trace.name
        );
        let rel = o.trace.name["corpus/real-kafka/".len()..]
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        releases.insert(rel);
    }
    for line in ["2.", "3.", "4."] {
        assert!(
            releases.iter().any(|r| r.starts_with(line)),
            "no {line}x capture among {releases:?}"
        );
    }
}

#[test]
fn corpus_snapshots() {
    let (outcomes, _) = corpus();
    for o in &outcomes {
        let name = snapshot_name(o);
        let report = o.report.as_ref().expect("every corpus trace is audited");
        let mut out = Vec::new();
        text::write_report(report, &mut out).unwrap();
        let text = anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string();
        insta::assert_snapshot!(format!("{name}.text"), text);
        let doc = json::document(report);
        insta::assert_json_snapshot!(format!("{name}.json"), doc);
    }
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let all: Vec<PathBuf> = vec![PathBuf::from("corpus")];
    let one = audit_paths(&all, Some(1));
    let four = audit_paths(&all, Some(4));
    let render = |r: &Report| {
        let mut out = Vec::new();
        text::write_report(r, &mut out).unwrap();
        json::write_jsonl(r, &mut out).unwrap();
        out
    };
    assert_eq!(render(&one), render(&four));
}

#[test]
fn every_kind_appears_in_the_corpus() {
    let (traces, errors) = discover::discover(&[PathBuf::from("corpus")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &traces {
        let text = std::fs::read_to_string(&t.expect).unwrap();
        let file = expect::parse(&text, t.default_file.as_deref()).unwrap();
        for e in file.entries() {
            *seen.entry(e.kind.as_str()).or_default() += 1;
        }
    }
    // a finding made only with the internal topics read (the corpus is
    // audited without them): counted in the reviewed expectations of the
    // real captures audited with their topics (tests/topics_real.rs)
    let with_topics = [herder_audit::Kind::WitnessesDisagree.as_str()];
    for entry in std::fs::read_dir("tests/topics/expect").unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some(k) = with_topics.iter().find(|k| l.starts_with(&format!("{k} "))) {
                *seen.entry(k).or_default() += 1;
            }
        }
    }
    for k in herder_audit::Kind::ALL.map(|k| k.as_str()) {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 2,
            "kind {k} expected at least twice, seen {seen:?}"
        );
    }
}

/// `herder-audit corpus/`, the README's first command, audits every trace
/// of the corpus in one run: it must report exactly the union of the
/// traces' expectations, no more (no finding pairs two traces as one
/// cluster) and no fewer. The traces are found by the code `check` uses,
/// nested directories included.
#[test]
fn the_whole_corpus_reports_exactly_the_sum_of_its_expectations() {
    let (traces, errors) = discover::discover(&[PathBuf::from("corpus")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut expected = Vec::new();
    for t in &traces {
        assert!(t.has_expectation(), "{} has no expectation file", t.name);
        let text = std::fs::read_to_string(&t.expect).unwrap();
        let file = expect::parse(&text, t.default_file.as_deref()).unwrap();
        for e in file.entries() {
            let path = t.base.join(&e.file).to_string_lossy().into_owned();
            expected.push(format!("{path}:{} {} {}", e.line, e.kind, e.resource));
        }
    }
    let out = support::bin()
        .args(["corpus", "--format", "json"])
        .output()
        .expect("runs herder-audit");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let resource = match f["resource"]["type"].as_str() {
                Some(kind) => format!("{kind}:{}", f["resource"]["id"].as_str().unwrap()),
                None => "-".to_string(),
            };
            format!(
                "{}:{} {} {resource}",
                f["trigger"]["source"].as_str().unwrap(),
                f["trigger"]["line"],
                f["kind"].as_str().unwrap()
            )
        })
        .collect();
    expected.sort();
    found.sort();
    assert!(expected.len() >= 50, "{} expectations", expected.len());
    let missing: Vec<_> = expected.iter().filter(|e| !found.contains(e)).collect();
    let extra: Vec<_> = found.iter().filter(|f| !expected.contains(f)).collect();
    assert_eq!(
        found, expected,
        "\nmissing: {missing:#?}\nnot expected: {extra:#?}"
    );
    let by_severity = &doc["summary"]["findings"];
    let total = by_severity["error"].as_u64().unwrap() + by_severity["warning"].as_u64().unwrap();
    assert_eq!(total, expected.len() as u64, "{}", doc["summary"]);
}
