//! A worker's log that appears while `herder-audit watch` runs joins the
//! others before their later lines are final: the watcher's findings are
//! the audit's of the whole logs, the cross-worker ones included.

mod support;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;
use support::watch::{Watcher, finding_keys, simulate};
use support::{bin, scratch_removed};

/// The lines of every log of `sim`, merged in the order of their time
/// stamps: (log name, line).
fn merged(sim: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for w in 1..=3 {
        let name = format!("connect-{w}.log");
        let text = std::fs::read(sim.join(&name)).unwrap();
        let mut stamp = String::new();
        for (n, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            // `[2024-05-02 10:00:00,000]`: continuation lines keep the last.
            if line.first() == Some(&b'[') && line.len() > 25 {
                stamp = String::from_utf8_lossy(&line[1..24]).to_string();
            }
            all.push((stamp.clone(), w, n, name.clone(), line.to_vec()));
        }
    }
    all.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
    all.into_iter().map(|(_, _, _, n, l)| (n, l)).collect()
}

#[test]
fn a_log_created_while_the_watcher_runs_loses_no_cross_worker_finding() {
    let scratch = scratch_removed("appear");
    let dir = scratch.to_path_buf();
    let sim = dir.join("sim");
    // A poll-timeout leave: zombies across workers, most on connect-3.
    simulate(&sim, "connect-cluster", "poll-timeout-leave", 4);
    let lines = merged(&sim);
    let live = dir.join("live");
    std::fs::create_dir_all(&live).unwrap();
    // connect-1 and connect-2 run; connect-3's log does not exist yet.
    for n in ["connect-1.log", "connect-2.log"] {
        std::fs::write(live.join(n), b"").unwrap();
    }
    let out = dir.join("out.jsonl");
    let args: Vec<&OsStr> = vec![live.as_os_str(), OsStr::new("-o"), out.as_os_str()];
    let w = Watcher::start(&args);
    w.until(30, "ready", |w| w.get("/readyz").0 == 200);
    // The cluster writes its lines in time order, a few at a time; the
    // third worker's log is created with its first line.
    let mut files = std::collections::HashMap::new();
    for (i, chunk) in lines.chunks(15).enumerate() {
        for (name, line) in chunk {
            use std::io::Write;
            let f = files.entry(name.clone()).or_insert_with(|| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(live.join(name))
                    .unwrap()
            });
            f.write_all(line).unwrap();
        }
        if i % 4 == 0 {
            std::thread::sleep(Duration::from_millis(3));
        }
    }
    drop(files);
    let total = lines.len() as f64;
    w.until(60, "every line read", |w| {
        let (_, body) = w.get("/metrics");
        let read: f64 = body
            .lines()
            .filter(|l| l.starts_with("herder_audit_lines_read_total{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        read >= total
    });
    // Past the idle timeout: what waited for the quiet logs is final.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(w.stop().success());
    let watched = finding_keys(&std::fs::read(&out).unwrap());
    let audit = bin()
        .args(["--format", "jsonl", "--fail-on", "never"])
        .arg(&live)
        .output()
        .unwrap();
    let audited = finding_keys(&audit.stdout);
    assert!(
        audited.iter().any(|(k, _, _)| k == "zombie"),
        "the scenario has cross-worker zombies"
    );
    assert!(
        audited.iter().any(|(_, w, _)| w.ends_with("connect-3.log")),
        "the late log's worker is in a finding: {audited:#?}"
    );
    assert_eq!(watched, audited);
}
