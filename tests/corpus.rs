//! The corpus runner: every trace in `corpus/` is audited and its findings
//! must equal, exactly, the hand-written expectation beside it. The full text
//! and JSON outputs are snapshot-tested on top (insta).
//!
//! Single-worker traces: `corpus/<name>.log` + `corpus/<name>.expect`.
//! Multi-worker scenarios: `corpus/<dir>/` (all files in it audited in one
//! run) + `corpus/<dir>/expect`.
//!
//! Expectation lines: `<line> <kind> <resource>` for single traces and
//! `<file>:<line> <kind> <resource>` in directories, where `<resource>` is
//! `connector:<name>`, `task:<conn>-<n>` or `-`; `#` starts a comment.

use herder_audit::audit::{self, Options, Report};
use herder_audit::finding::Finding;
use herder_audit::input;
use herder_audit::model::Resource;
use herder_audit::report::{json, text};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expected {
    file: String,
    line: u64,
    kind: String,
    resource: String,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} {} {}",
            self.file, self.line, self.kind, self.resource
        )
    }
}

fn resource_spec(r: Option<&Resource>) -> String {
    match r {
        None => "-".to_string(),
        Some(Resource::Connector(n)) => format!("connector:{n}"),
        Some(Resource::Task(t)) => format!("task:{t}"),
    }
}

fn parse_expect(path: &Path, default_file: Option<&str>) -> Vec<Expected> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut parts = l.splitn(3, ' ');
        let (loc, kind, resource) = match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c.trim()),
            _ => panic!(
                "{}:{}: malformed expectation {raw:?}",
                path.display(),
                i + 1
            ),
        };
        let (file, line) = match (loc.rsplit_once(':'), default_file) {
            (Some((f, n)), _) => (f.to_string(), n),
            (None, Some(f)) => (f.to_string(), loc),
            (None, None) => panic!("{}:{}: expected <file>:<line>", path.display(), i + 1),
        };
        let line = line
            .parse()
            .unwrap_or_else(|_| panic!("{}:{}: bad line number {loc:?}", path.display(), i + 1));
        assert!(
            herder_audit::finding::Kind::parse(kind).is_some(),
            "{}:{}: unknown kind {kind:?}",
            path.display(),
            i + 1
        );
        out.push(Expected {
            file,
            line,
            kind: kind.to_string(),
            resource: resource.to_string(),
        });
    }
    out.sort();
    out
}

fn actual(report: &Report, base: &Path) -> Vec<Expected> {
    let mut v: Vec<Expected> = report
        .findings()
        .map(|f: &Finding| {
            let name = report.source_name(f.trigger.source);
            let file = Path::new(name)
                .strip_prefix(base)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| name.to_string());
            Expected {
                file,
                line: f.trigger.line,
                kind: f.kind.as_str().to_string(),
                resource: resource_spec(f.resource.as_ref()),
            }
        })
        .collect();
    v.sort();
    v
}

/// The corpus cases: (name, inputs, expectation file, base for file names).
fn cases() -> Vec<(String, Vec<PathBuf>, PathBuf, PathBuf)> {
    let root = PathBuf::from("corpus");
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("corpus/ exists")
        .map(|e| e.expect("readable corpus entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            out.push((name, vec![p.clone()], p.join("expect"), p.clone()));
        } else if let Some(stem) = name.strip_suffix(".log") {
            out.push((
                stem.to_string(),
                vec![p.clone()],
                root.join(format!("{stem}.expect")),
                root.clone(),
            ));
        }
    }
    out
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
fn corpus_traces_produce_exactly_their_expected_findings() {
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() >= 15, "the corpus holds {} traces", cases.len());
    for (name, paths, expect, base) in &cases {
        let default_file = if paths[0].is_dir() {
            None
        } else {
            Some(format!("{name}.log"))
        };
        assert!(
            expect.exists(),
            "{name}: missing expectation file {}",
            expect.display()
        );
        let want = parse_expect(expect, default_file.as_deref());
        let report = run(paths, None);
        assert!(
            report.errors.is_empty(),
            "{name}: input errors {:?}",
            report.errors
        );
        let got = actual(&report, base);
        if got != want {
            let missing: Vec<String> = want
                .iter()
                .filter(|w| !got.contains(w))
                .map(|e| e.to_string())
                .collect();
            let extra: Vec<String> = got
                .iter()
                .filter(|g| !want.contains(g))
                .map(|e| e.to_string())
                .collect();
            failures.push(format!(
                "{name}:\n    missing: {missing:?}\n    unexpected: {extra:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "corpus mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn corpus_snapshots() {
    for (name, paths, _, _) in cases() {
        let report = run(&paths, None);
        let mut out = Vec::new();
        text::write_report(&report, &mut out).unwrap();
        let text = anstream::adapter::strip_str(&String::from_utf8(out).unwrap()).to_string();
        insta::assert_snapshot!(format!("{name}.text"), text);
        let doc = json::document(&report);
        insta::assert_json_snapshot!(format!("{name}.json"), doc);
    }
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
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (_, _, expect, _) in cases() {
        for e in parse_expect(&expect, Some("x")) {
            *seen.entry(e.kind).or_default() += 1;
        }
    }
    for k in [
        "unnecessary-stop",
        "foreign-start",
        "offset-mismatch-start",
        "double-start",
        "lost-assignment",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 2,
            "kind {k} expected at least twice, seen {seen:?}"
        );
    }
}
