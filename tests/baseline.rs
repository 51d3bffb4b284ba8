//! Baselines and comparisons through the binary: fingerprints agree
//! between a report and its JSON, a baseline still matches with shifted
//! line numbers (and renamed files, for workers with a REST URL), and
//! `diff` of two simulated runs shows the one injected fault.

mod support;

use herder_audit::testing::check::{self, CheckOptions};
use herder_audit::testing::parse_report;
use herder_audit::{Fingerprint, WorkerIdentity, fingerprint};
use herder_audit::{Identity, WorkerSummary};
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::*;

/// The identity a fingerprint takes from a worker's final summary.
fn identity(s: &WorkerSummary) -> WorkerIdentity {
    let client = (s.identified_by == Identity::ClientId)
        .then_some(s.client_id.as_deref())
        .flatten();
    WorkerIdentity::from_parts(&s.worker, s.rest_url.as_deref(), client, s.first_generation)
}

#[test]
fn fingerprints_from_reports_and_from_their_json_agree() {
    let (outcomes, _) =
        check::check_paths(&[PathBuf::from("corpus")], CheckOptions::default(), Some(1));
    let mut compared = 0;
    for o in &outcomes {
        let report = o.report.as_ref().unwrap();
        // Given as the finding became final, and as the worker's final
        // summary states its identity: the same for the corpus.
        let mut direct: Vec<Fingerprint> = Vec::new();
        for f in report.findings() {
            let given = f.fingerprint.clone().expect("every finding has one");
            let w = report
                .workers
                .iter()
                .find(|w| *w.summary.worker == *f.worker)
                .unwrap();
            let recomputed = fingerprint(f, &identity(&w.summary));
            assert_eq!(given, recomputed, "{}", o.trace.name);
            direct.push(given);
        }
        // Read back from the JSON report, with and without the fingerprints
        // it carries (reports of older versions have none).
        let doc = herder_audit::print::json::document(report);
        let mut bare = doc.clone();
        for f in bare["findings"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("fingerprint");
        }
        for d in [doc, bare] {
            let loaded = parse_report(&d.to_string(), "x").unwrap();
            let mut from_json: Vec<Fingerprint> =
                loaded.findings.into_iter().map(|f| f.fingerprint).collect();
            direct.sort();
            from_json.sort();
            assert_eq!(direct, from_json, "{}", o.trace.name);
        }
        compared += direct.len();
        // No line number, no time stamp in the message.
        for fp in &direct {
            assert!(
                !fp.message.contains("2019-") && !fp.message.contains("INFO"),
                "{fp}"
            );
        }
    }
    assert!(compared >= 30, "{compared}");
}

/// The 8676 JSON report's findings as (kind, resource id).
fn findings_of(json: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["resource"]["id"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_baseline_still_matches_with_shifted_line_numbers() {
    let d = scratch("baseline");
    let log = copy_log(K8676, &d);
    let base = d.join("base.json");
    let (code, out, _) = run(bin()
        .arg(&log)
        .args(["--format", "json", "--write-baseline"])
        .arg(&base));
    assert_eq!(code, 1);
    assert_eq!(read(&base), out, "--write-baseline writes the JSON report");

    // Unrelated lines added at the top and in the middle, one removed.
    let text = read(&log);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let noise = "[2019-08-20 10:41:00,000] INFO [Worker clientId=connect-1, groupId=connect-cluster] Unrelated chatter (org.example.Chatter)";
    lines.insert(3, noise.to_string());
    lines.insert(40, noise.to_string());
    lines.insert(40, noise.to_string());
    let committing = lines
        .iter()
        .position(|l| l.contains("Committing offsets"))
        .unwrap();
    lines.remove(committing);
    write(&log, &(lines.join("\n") + "\n"));

    let (code, out, err) = run(bin()
        .arg(&log)
        .args(["--color", "never", "--baseline"])
        .arg(&base));
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("error["), "{out}");
    assert!(
        out.contains(&format!(
            "  baseline {}: 2 known finding(s) not reported (unnecessary-stop 2); 0 of its 2 finding(s) no longer found\n",
            base.display()
        )),
        "{out}"
    );
    let (code, out, _) = run(bin()
        .arg(&log)
        .args(["--format", "json", "--baseline"])
        .arg(&base));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
    assert_eq!(v["baseline"]["known"], 2);
    let (_, out, _) = run(bin()
        .arg(&log)
        .args(["--format", "jsonl", "--baseline"])
        .arg(&base));
    let summary: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(
        (summary["type"].as_str(), &summary["baseline"]["known"]),
        (Some("summary"), &Value::from(2))
    );

    // A baseline without one of them: only that one is reported.
    let mut b: Value = serde_json::from_str(&read(&base)).unwrap();
    b["findings"].as_array_mut().unwrap().remove(1);
    let partial = d.join("partial.json");
    write(&partial, b.to_string());
    let (code, out, _) = run(bin()
        .arg(&log)
        .args(["--format", "json", "--baseline"])
        .arg(&partial));
    assert_eq!(code, 1);
    assert_eq!(
        findings_of(&out),
        vec![("unnecessary-stop".to_string(), "clicks-sink-1".to_string())]
    );

    // A ratchet: the same file as baseline and as new baseline.
    let ratchet = || {
        run(bin()
            .arg(&log)
            .args(["--no-summary", "--baseline"])
            .arg(&partial)
            .arg("--write-baseline")
            .arg(&partial))
    };
    assert_eq!(ratchet().0, 1, "the finding is new once");
    assert_eq!(ratchet().0, 0, "then it is in the baseline");

    // An unreadable baseline is an error naming it.
    write(&d.join("bad.json"), "{\"schema_version\": 1}");
    let (code, _, err) = run(bin().arg(&log).arg("--baseline").arg(d.join("bad.json")));
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.json: not a herder-audit JSON report"),
        "{err}"
    );
}

#[test]
fn workers_with_a_rest_url_match_whatever_their_files_are_called() {
    let d = scratch("rest");
    let a = d.join("a");
    let b = d.join("b");
    copy_dir("multi-restart-moved-task", &a, str::to_string);
    copy_dir("multi-restart-moved-task", &b, |f| format!("renamed-{f}"));
    let base = d.join("base.json");
    let (code, _, _) = run(bin()
        .arg(&a)
        .args(["--format", "json", "--write-baseline"])
        .arg(&base));
    assert_eq!(code, 1);
    let (code, out, err) = run(bin()
        .arg(&b)
        .args(["--color", "never", "--baseline"])
        .arg(&base));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 known finding(s) not reported"), "{out}");
}

fn simulate(out: &Path, fault: Option<&str>) -> PathBuf {
    let mut c = bin();
    c.args([
        "simulate", "--seed", "3", "--events", "20", "--noise", "0.2", "--out",
    ])
    .arg(out);
    if let Some(f) = fault {
        c.args(["--fault", f]);
    }
    let (code, _, err) = run(&mut c);
    assert_eq!(code, 0, "{err}");
    let json = out.with_extension("json");
    let (code, report, err) = run(bin().arg(out).args(["--format", "json"]));
    assert!(code <= 1, "{err}");
    write(&json, &report);
    json
}

#[test]
fn diff_of_two_simulated_runs_shows_the_injected_fault() {
    let d = scratch("diff");
    let clean = simulate(&d.join("clean"), None);
    let faulty = simulate(&d.join("faulty"), Some("spurious-stop"));
    let truth: Value = serde_json::from_str(&read(&d.join("faulty/truth.json"))).unwrap();
    let expected: Vec<(String, u64, String, String)> = truth["expected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
                e["resource"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(!expected.is_empty(), "the fault was injected");

    let (code, out, err) = run(bin()
        .args(["diff", "--format", "json"])
        .arg(&clean)
        .arg(&faulty));
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let appeared: Vec<(String, u64, String, String)> = v["appeared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let f = &a["finding"];
            let source = f["trigger"]["source"].as_str().unwrap();
            (
                Path::new(source)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_string(),
                f["trigger"]["line"].as_u64().unwrap(),
                f["kind"].as_str().unwrap().to_string(),
                f["resource"]["id"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    assert_eq!(appeared, expected);
    assert_eq!(v["disappeared"].as_array().unwrap().len(), 0);
    let n = expected.len() as i64;
    assert_eq!(v["findings_by_kind"]["unnecessary-stop"]["old"], 0);
    assert_eq!(v["findings_by_kind"]["unnecessary-stop"]["change"], n);
    assert_eq!(v["stops"]["unnecessary"]["new"], n);
    assert!(v["stops"]["unnecessary"]["old"] == 0);
    assert!(v["starts"].as_object().unwrap().contains_key("rebalance"));

    // Text, and the other way round: the finding disappeared (exit 0).
    let (code, out, _) = run(bin()
        .args(["diff", "--color", "never"])
        .arg(&faulty)
        .arg(&clean));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "disappeared ({n}):\n  - error[unnecessary-stop] task:"
        )),
        "{out}"
    );
    assert!(out.contains("appeared (0):\n"), "{out}");
    assert!(
        out.contains(&format!("\n0 appeared, {n} disappeared\n")),
        "{out}"
    );
    assert!(out.contains("  unnecessary-stop "), "{out}");

    // A report against itself: nothing changed.
    let (code, out, _) = run(bin()
        .args(["diff", "--color", "never"])
        .arg(&faulty)
        .arg(&faulty));
    assert_eq!(code, 0);
    assert!(out.ends_with("\n0 appeared, 0 disappeared\n"), "{out}");
    let (code, _, err) = run(bin().arg("diff").arg(&faulty).arg(d.join("none.json")));
    assert_eq!(code, 2);
    assert!(
        err.contains("none.json: no such file or directory"),
        "{err}"
    );
}
