//! What the `herder-audit watch` tests share: the binary, scratch
//! directories, simulated logs, the findings of a JSON-lines output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_herder-audit")
}

/// A fresh directory under the system's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("herder-watch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A simulated 3-worker cluster with one fault, in `out`.
pub fn simulate(out: &Path, group: &str, fault: &str, seed: u64) {
    let st = std::process::Command::new(bin())
        .args(["simulate", "--workers", "3", "--events", "30", "--noise", "0.2"])
        .args(["--group", group, "--fault", fault, "--seed", &seed.to_string()])
        .arg("--out")
        .arg(out)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
}

/// (kind, worker, trigger text) of every finding line, sorted.
pub fn finding_keys(jsonl: &[u8]) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = jsonl
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "finding")
        .map(|v| {
            (
                v["kind"].as_str().unwrap_or("").to_string(),
                v["worker"].as_str().unwrap_or("").to_string(),
                v["trigger"]["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Waits until `file` holds at least `n` lines (or the deadline).
pub fn wait_for_lines(file: &Path, n: usize, deadline: Instant) {
    while Instant::now() < deadline {
        let have = std::fs::read(file)
            .map(|b| memchr::memchr_iter(b'\n', &b).count())
            .unwrap_or(0);
        if have >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}
