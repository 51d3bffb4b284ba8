//! The corpus runner: `corpus/` is checked with the same code as
//! `herder-audit check corpus/` (every trace's findings must equal,
//! exactly, the hand-written expectation beside it); the full text and
//! JSON outputs of the same audits are snapshot-tested on top (insta).
//!
//! Single-worker traces: `corpus/<name>.log` + `corpus/<name>.expect`.
//! Multi-worker scenarios: `corpus/<dir>/` (all its logs audited in one
//! run) + `corpus/<dir>/expect`. The expectation format is documented in
//! the README ("Testing Connect itself").

use herder_audit::audit::{self, Options, Report};
use herder_audit::check::discover::{self, TraceKind};
use herder_audit::check::{self, CheckOptions, Outcome, Status, expect};
use herder_audit::input;
use herder_audit::report::{json, text};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn corpus() -> (Vec<Outcome>, Vec<(String, String)>) {
    check::check_paths(&[PathBuf::from("corpus")], CheckOptions::default(), None)
}

/// A trace's snapshot name: its path under `corpus/` without `.log`, `/`
/// read as `-` (`real-kafka/2.3.0/kafka-8676` → `real-kafka-2.3.0-kafka-8676`:
/// nested traces of the same scenario name stay apart).
fn snapshot_name(o: &Outcome) -> String {
    let name = o.trace.name.as_str();
    let name = name.strip_prefix("corpus/").unwrap_or(name);
    let name = name.strip_suffix(".log").unwrap_or(name);
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

fn run(paths: &[PathBuf], jobs: Option<usize>) -> Report {
    let (inputs, errors) = input::expand(paths);
    assert!(errors.is_empty(), "{errors:?}");
    audit::audit(
        &inputs,
        &Options {
            jobs,
            ..Options::default()
        },
    )
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let all: Vec<PathBuf> = vec![PathBuf::from("corpus")];
    let one = run(&all, Some(1));
    let four = run(&all, Some(4));
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
    for k in herder_audit::finding::Kind::ALL.map(|k| k.as_str()) {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 2,
            "kind {k} expected at least twice, seen {seen:?}"
        );
    }
}
