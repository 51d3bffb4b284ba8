//! What the `herder-audit watch` tests share: simulated logs, the
//! findings of a JSON-lines output, the watcher run as a child with its
//! HTTP endpoint.

use super::bin::BIN;
use std::path::Path;
use std::time::{Duration, Instant};

/// A simulated 3-worker cluster with one fault, in `out`.
pub fn simulate(out: &Path, group: &str, fault: &str, seed: u64) {
    let st = std::process::Command::new(BIN)
        .args([
            "simulate",
            "--workers",
            "3",
            "--events",
            "30",
            "--noise",
            "0.2",
        ])
        .args([
            "--group",
            group,
            "--fault",
            fault,
            "--seed",
            &seed.to_string(),
        ])
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

/// A running watcher and the address it serves.
pub struct Watcher {
    pub child: std::process::Child,
    pub addr: String,
    /// Its standard error, as read so far by a thread.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Watcher {
    /// Starts `herder-audit watch ARGS --listen 127.0.0.1:0` and waits for
    /// the address it serves.
    pub fn start(args: &[&std::ffi::OsStr]) -> Watcher {
        use std::io::BufRead;
        let mut child = std::process::Command::new(BIN)
            .arg("watch")
            .args(args)
            .args(["--listen", "127.0.0.1:0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("serving http://").nth(1) {
                    let _ = tx.send(rest.split('/').next().unwrap_or("").to_string());
                }
                let mut s = keep.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the watcher serves");
        Watcher {
            child,
            addr,
            stderr,
        }
    }

    /// GET `path`: (status, body).
    pub fn get(&self, path: &str) -> (u16, String) {
        http_get(&self.addr, path)
    }

    /// The value of one series of `/metrics` (its name and labels as
    /// printed), or `None`.
    pub fn metric(&self, series: &str) -> Option<f64> {
        let (_, body) = self.get("/metrics");
        body.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    /// Waits until `cond` holds (or panics after `secs`).
    pub fn until(&self, secs: u64, what: &str, mut cond: impl FnMut(&Watcher) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if cond(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "timed out waiting for {what}; stderr:\n{}",
            self.stderr.lock().unwrap()
        );
    }

    /// SIGTERM, then waits for it to end.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.child.wait().unwrap()
    }
}

/// A plain HTTP/1.1 GET: (status, body).
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return (0, String::new());
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}
