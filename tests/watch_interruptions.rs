//! `herder-audit watch` exports the interruptions by connector and cause
//! (`herder_audit_interruptions_total`, `herder_audit_downtime_seconds_total`):
//! each ended interruption counted once, with the cause and length the audit
//! of the whole logs gives it, and not again by a restart that reads the
//! logs again.

mod support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;
use support::watch::{Watcher, simulate};
use support::{bin, scratch_removed};

/// (connector, cause) → (interruptions, seconds).
type ByCause = BTreeMap<(String, String), (u64, f64)>;

/// The ended interruptions of the audit of the whole logs, and its
/// findings.
fn expected(dir: &Path) -> (ByCause, usize) {
    let out = bin()
        .arg(dir)
        .args(["--format", "json", "-j", "1"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut m = ByCause::new();
    for i in v["interruptions"].as_array().unwrap() {
        if i["to"].is_null() {
            continue;
        }
        let key = (
            i["resource"]["connector"].as_str().unwrap().to_string(),
            i["cause"]["kind"].as_str().unwrap().to_string(),
        );
        let e = m.entry(key).or_default();
        e.0 += 1;
        e.1 += i["ms"].as_i64().unwrap_or(0).max(0) as f64 / 1000.0;
    }
    (m, v["findings"].as_array().unwrap().len())
}

/// The two series of `/metrics`, by (connector, cause).
fn exported(w: &Watcher) -> ByCause {
    let (_, body) = w.get("/metrics");
    let mut m = ByCause::new();
    for l in body.lines() {
        let (series, slot) = if let Some(r) = l.strip_prefix("herder_audit_interruptions_total{") {
            (r, 0)
        } else if let Some(r) = l.strip_prefix("herder_audit_downtime_seconds_total{") {
            (r, 1)
        } else {
            continue;
        };
        let (labels, value) = series.split_once("} ").unwrap();
        let label = |name: &str| {
            labels
                .split(&format!("{name}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap()
                .to_string()
        };
        let e = m.entry((label("connector"), label("cause"))).or_default();
        let value: f64 = value.parse().unwrap();
        if slot == 0 {
            e.0 = value as u64;
        } else {
            e.1 = value;
        }
    }
    m
}

fn close(a: &ByCause, b: &ByCause) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, (na, sa)), (kb, (nb, sb)))| ka == kb && na == nb && (sa - sb).abs() < 1e-6)
}

#[test]
fn each_ended_interruption_is_counted_once_across_a_restart() {
    let dir = scratch_removed("watch-interruptions");
    let live = dir.join("live");
    for (n, fault) in ["kafka-8676", "poll-timeout-leave", "restart-moved-task"]
        .iter()
        .enumerate()
    {
        let sim = live.join(format!("cluster-{n}"));
        simulate(&sim, &format!("group-{n}"), fault, n as u64 + 3);
        let _ = std::fs::remove_file(sim.join("truth.json"));
        // A last line much later in log time: every interruption that
        // ended is final by then (nothing a later line could change).
        for w in 1..=3 {
            let p = sim.join(format!("connect-{w}.log"));
            let mut text = std::fs::read(&p).unwrap();
            if !text.ends_with(b"\n") {
                text.push(b'\n');
            }
            text.extend_from_slice(
                b"[2031-01-01 00:00:00,000] INFO The test's last line (org.example.Tail:1)\n",
            );
            std::fs::write(&p, text).unwrap();
        }
    }
    let (want, findings) = expected(&live);
    let total: u64 = want.values().map(|v| v.0).sum();
    assert!(
        total >= 10 && want.keys().any(|(_, c)| c == "other-connector"),
        "the faults interrupt work, some of it by other connectors' changes: {want:?}"
    );
    let state = dir.join("state.json");
    let args: Vec<&OsStr> = vec![
        live.as_os_str(),
        OsStr::new("--state"),
        state.as_os_str(),
        OsStr::new("-j"),
        OsStr::new("1"),
    ];
    let w = Watcher::start(&args);
    w.until(60, "every ended interruption counted", |w| {
        close(&exported(w), &want)
    });
    // Nothing more comes.
    std::thread::sleep(Duration::from_millis(500));
    assert!(close(&exported(&w), &want), "{:?}", exported(&w));
    assert!(w.stop().success());

    // Restarted on the same state: the logs are read again, nothing is
    // counted again.
    let w = Watcher::start(&args);
    w.until(60, "caught up", |w| {
        w.metric("herder_audit_ready").is_some_and(|v| v == 1.0)
    });
    // Its findings found again: it has gone through the logs again.
    w.until(60, "the findings found again", |w| {
        w.metric("herder_audit_findings_suppressed_total")
            .is_some_and(|v| v >= findings as f64)
    });
    std::thread::sleep(Duration::from_millis(3000));
    assert!(exported(&w).is_empty(), "{:?}", exported(&w));
    let stderr = w.stderr.clone();
    assert!(w.stop().success());
    let said = stderr.lock().unwrap().clone();
    assert!(
        said.contains(&format!(
            "0 interruption(s) counted, {total} found again and not counted"
        )),
        "{total}: {said}"
    );
}
