//! Many streams within a small open-file limit: 600 worker logs (30
//! simulated clusters of 20 workers; a quarter of the logs rotated, their
//! older half gzipped) audited under `ulimit -n 64` give the same output as
//! without the limit, with one thread and with more threads than cores.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{BIN, bin, gzip, run, scratch, write};

const CLUSTERS: usize = 30;
const WORKERS: usize = 20;

/// Splits `log` into an older half, gzipped beside it as `<log>.1.gz`, and
/// the newer half left in place (a rotation).
fn rotate(log: &Path) {
    let text = std::fs::read_to_string(log).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (old, new) = lines.split_at(lines.len() / 2);
    let gz = PathBuf::from(format!("{}.1.gz", log.display()));
    write(&gz, gzip(old.concat().as_bytes()));
    write(log, new.concat());
}

fn archive() -> PathBuf {
    let dir = scratch("many-streams");
    for c in 1..=CLUSTERS {
        let out = dir.join(format!("c{c:02}"));
        let (code, _, err) = run(bin().args([
            "simulate",
            "--workers",
            &WORKERS.to_string(),
            "--connectors",
            "1",
            "--events",
            "1",
            "--noise",
            "0",
            "--seed",
            &c.to_string(),
            "--group",
            &format!("group-{c}"),
            "--out",
            out.to_str().unwrap(),
        ]));
        assert_eq!(code, 0, "simulate: {err}");
        std::fs::remove_file(out.join("truth.json")).unwrap();
        for w in (1..=WORKERS).filter(|w| w % 4 == 0) {
            rotate(&out.join(format!("connect-{w}.log")));
        }
    }
    dir
}

/// Audits `dir` under an open-file limit (soft and hard) of `limit`.
fn audit_limited(
    limit: Option<u32>,
    jobs: &str,
    format: &str,
    dir: &Path,
) -> (i32, String, String) {
    let args = ["-j", jobs, "--format", format, dir.to_str().unwrap()];
    match limit {
        None => run(bin().args(args)),
        Some(n) => run(Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
            .arg(BIN)
            .args(args)),
    }
}

#[test]
fn six_hundred_logs_under_an_open_file_limit_of_64() {
    let dir = archive();
    let (code, expected, err) = audit_limited(None, "2", "jsonl", &dir);
    assert!(err.is_empty(), "{err}");
    assert!(code == 0 || code == 1, "exit {code}");
    // Every worker was audited, every rotated log stitched.
    let summary: serde_json::Value =
        serde_json::from_str(expected.lines().last().unwrap()).unwrap();
    assert_eq!(summary["workers"], CLUSTERS * WORKERS);
    assert_eq!(summary["inputs"], CLUSTERS * (WORKERS + WORKERS / 4));
    assert_eq!(summary["errors"], 0);
    for jobs in ["1", "5"] {
        let (c, out, err) = audit_limited(Some(64), jobs, "jsonl", &dir);
        assert!(err.is_empty(), "-j {jobs}: {err}");
        assert_eq!(c, code, "-j {jobs}");
        assert!(out == expected, "-j {jobs}: output differs under the limit");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
