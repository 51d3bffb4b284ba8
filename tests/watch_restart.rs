//! `herder-audit watch` killed with SIGKILL at many points while its logs
//! are being written, and started again each time with the same state and
//! output files: at the end the output holds every finding the audit of the
//! whole logs proves, each exactly once.

#![cfg(unix)]

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::watch::{Rng, finding_keys, simulate, wait_for_lines};
use support::{BIN, scratch};

/// The logs of five simulated clusters (three workers each, one fault
/// each, single-worker and cross-worker kinds), as (relative path, bytes).
fn logs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for (i, fault) in [
        "kafka-8676",
        "double-start",
        "skip-revoked-stop",
        "offset-mismatch-start",
        "restart-moved-task",
    ]
    .iter()
    .enumerate()
    {
        let sim = dir.join(format!("sim-{fault}"));
        simulate(&sim, &format!("g-{fault}"), fault, 3 + i as u64);
        for w in 1..=3 {
            let rel = PathBuf::from(format!("g-{fault}/connect-{w}.log"));
            let bytes = std::fs::read(sim.join(format!("connect-{w}.log"))).unwrap();
            out.push((rel, bytes));
        }
    }
    out
}

/// Appends the next `n` lines of each log (fewer at its end).
fn append(live: &Path, logs: &[(PathBuf, Vec<u8>)], written: &mut [usize], n: usize) {
    for ((rel, bytes), at) in logs.iter().zip(written.iter_mut()) {
        let mut end = *at;
        for _ in 0..n {
            match memchr::memchr(b'\n', &bytes[end..]) {
                Some(i) => end += i + 1,
                None => {
                    end = bytes.len();
                    break;
                }
            }
        }
        if end == *at {
            continue;
        }
        let p = live.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .unwrap();
        f.write_all(&bytes[*at..end]).unwrap();
        *at = end;
    }
}

fn spawn(live: &Path, state: &Path, out: &Path) -> std::process::Child {
    std::process::Command::new(BIN)
        .arg("watch")
        .arg(live)
        .args(["--listen", "127.0.0.1:0", "--state-interval", "0.02"])
        .args(["--idle-timeout", "0.2", "-j", "1"])
        .arg("--state")
        .arg(state)
        .arg("-o")
        .arg(out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn kill_9_at_many_points_emits_every_finding_exactly_once() {
    let dir = scratch("restart");
    let logs = logs(&dir);
    let live = dir.join("live");
    let (state, out) = (dir.join("state.json"), dir.join("findings.jsonl"));
    let mut written = vec![0usize; logs.len()];
    let mut rng = Rng(0x5eed);
    let total_lines = logs
        .iter()
        .map(|(_, b)| memchr::memchr_iter(b'\n', b).count())
        .max()
        .unwrap();
    let kills = 14;
    // Findings in the output when each kill came.
    let mut at_kill = Vec::new();
    let emitted = |out: &Path| finding_keys(&std::fs::read(out).unwrap_or_default()).len();
    for round in 0..kills {
        let before = emitted(&out);
        let mut child = spawn(&live, &state, &out);
        // Lines keep coming while it runs; it dies at a random moment
        // while it reads the logs again, or (every other round) just
        // after it emitted a finding.
        let steps = rng.below(4) + 1;
        for _ in 0..steps {
            append(&live, &logs, &mut written, total_lines / (kills * 3));
            std::thread::sleep(Duration::from_millis(rng.below(400) as u64));
        }
        if round % 2 == 1 {
            let deadline = Instant::now() + Duration::from_secs(8);
            while emitted(&out) <= before && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(Duration::from_millis(rng.below(30) as u64));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        at_kill.push(emitted(&out));
    }
    append(&live, &logs, &mut written, usize::MAX);
    // The audit of the whole logs.
    let batch = std::process::Command::new(BIN)
        .arg(&live)
        .args(["--format", "jsonl", "-j", "1"])
        .output()
        .unwrap();
    let expected = finding_keys(&batch.stdout);
    assert!(
        expected.len() >= 6,
        "the faults make findings: {expected:?}"
    );
    // The kills came between findings, not only before the first.
    let between = at_kill
        .iter()
        .filter(|&&n| n > 0 && n < expected.len())
        .count();
    assert!(
        between >= 3,
        "findings in the output at each kill: {at_kill:?}"
    );
    let mut child = spawn(&live, &state, &out);
    let deadline = Instant::now() + Duration::from_secs(60);
    wait_for_lines(&out, expected.len(), deadline);
    // Anything more it would write comes now.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    child.wait().unwrap();
    let got = finding_keys(&std::fs::read(&out).unwrap());
    let mut counts: BTreeMap<_, usize> = BTreeMap::new();
    for k in &got {
        *counts.entry(k.clone()).or_default() += 1;
    }
    let repeated: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "emitted more than once: {repeated:?}");
    assert_eq!(got, expected, "every finding of the whole logs, once");
    let _ = std::fs::remove_dir_all(&dir);
}
