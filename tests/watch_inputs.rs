//! `herder-audit watch` over a kubelet node directory while the inputs do
//! what they do on a real node: rotation, truncation, a container restart,
//! a file that stops growing, a burst of 100,000 lines, a 50 MiB line, a
//! pod directory deleted. It keeps running, says each on standard error and
//! in its metrics, and audits the rest; then the HTTP endpoints.

#![cfg(unix)]

mod support;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use support::scratch;
use support::watch::{Watcher, finding_keys, simulate};

/// A log's lines in the CRI format the kubelet writes.
fn cri(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 2);
    for (i, line) in text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        write!(
            out,
            "2024-05-02T10:00:00.{:09}Z stdout F ",
            i % 1_000_000_000
        )
        .unwrap();
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fn append(p: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// Splits `bytes` at a line boundary near its `at`/`of` part.
fn split(bytes: &[u8], at: usize, of: usize) -> (&[u8], &[u8]) {
    let mid = bytes.len() * at / of;
    let cut = memchr::memchr(b'\n', &bytes[mid..]).map_or(bytes.len(), |i| mid + i + 1);
    bytes.split_at(cut)
}

#[test]
fn a_node_directory_through_rotation_truncation_restarts_bursts_and_deletion() {
    let dir = scratch("inputs");
    let sim = dir.join("sim");
    simulate(&sim, "connect-cluster", "kafka-8676", 3);
    let logs: Vec<Vec<u8>> = (1..=3)
        .map(|w| cri(&std::fs::read(sim.join(format!("connect-{w}.log"))).unwrap()))
        .collect();
    let pods = dir.join("pods");
    let container = |w: usize| -> PathBuf {
        pods.join(format!(
            "kafka_connect-{w}_0f1e2d3c-aaaa-bbbb-cccc-00000000000{w}/connect"
        ))
    };
    for (w, log) in logs.iter().enumerate() {
        std::fs::create_dir_all(container(w)).unwrap();
        append(&container(w).join("0.log"), split(log, 1, 3).0);
    }
    let (state, out) = (dir.join("state.json"), dir.join("out.jsonl"));
    let args: Vec<&OsStr> = vec![
        pods.as_os_str(),
        OsStr::new("--state"),
        state.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
        OsStr::new("--gone-after"),
        OsStr::new("1"),
    ];
    let w = Watcher::start(&args);
    // Ready: every log read to its end once. A file rotated or truncated
    // before the watcher's first read of it is, to any follower, a file
    // like any other (/readyz once answered 200 before the first read,
    // and this test failed about 1 run in 8).
    w.until(60, "ready", |w| w.get("/readyz").0 == 200);
    assert_eq!(w.get("/healthz").0, 200);
    let series = |w: &Watcher, s: &str| w.metric(s).unwrap_or(0.0);

    // Rotation: the kubelet keeps 0.log's file as 0.log.<date> and the
    // runtime writes a new 0.log; here the new file takes the path at once
    // (a hard link, then a rename over it). The path missing for a moment
    // between a rename and a creation is `src/input/live.rs`'s own test.
    let c0 = container(0);
    std::fs::hard_link(c0.join("0.log"), c0.join("0.log.20240502-100000")).unwrap();
    let (_, rest0) = split(&logs[0], 1, 3);
    let (mid0, end0) = split(rest0, 1, 2);
    append(&c0.join("0.log.next"), mid0);
    std::fs::rename(c0.join("0.log.next"), c0.join("0.log")).unwrap();
    w.until(30, "the rotation", |w| {
        series(w, "herder_audit_follow_events_total{event=\"rotated\"}") >= 1.0
    });

    // Truncation (copytruncate), then the log goes on.
    let c1 = container(1);
    std::fs::write(c1.join("0.log"), b"").unwrap();
    let (_, rest1) = split(&logs[1], 1, 3);
    // What follows the truncation is shorter than what was read before
    // it: the length tells (a copy truncated and grown past the read
    // position is told by its first bytes: src/input/live.rs's test).
    let (mid1, end1) = split(rest1, 1, 8);
    append(&c1.join("0.log"), mid1);
    w.until(30, "the truncation", |w| {
        series(w, "herder_audit_follow_events_total{event=\"truncated\"}") >= 1.0
    });

    // The container restarts: its next log is the same stream.
    let c2 = container(2);
    let (_, rest2) = split(&logs[2], 1, 3);
    append(&c2.join("1.log"), rest2);
    w.until(30, "the restarted container's log", |w| {
        series(
            w,
            "herder_audit_follow_events_total{event=\"next-container-log\"}",
        ) >= 1.0
    });

    // A burst of 100,000 lines, and a line of 50 MiB, then the rest.
    let burst: Vec<u8> = (0..100_000)
        .flat_map(|i| {
            format!("2024-05-02T10:00:01.{i:09}Z stdout F [2024-05-02 10:00:01,000] INFO noise {i} (org.example.Noise)\n")
                .into_bytes()
        })
        .collect();
    append(&c0.join("0.log"), &burst);
    let mut huge = b"2024-05-02T10:00:02.000000000Z stdout F ".to_vec();
    huge.resize(huge.len() + (50 << 20), b'x');
    huge.push(b'\n');
    append(&c1.join("0.log"), &huge);
    drop(huge);
    append(&c0.join("0.log"), end0);
    append(&c1.join("0.log"), end1);
    w.until(60, "the long line said", |w| {
        series(
            w,
            "herder_audit_input_errors_total{reason=\"too-long-line\"}",
        ) >= 1.0
    });
    w.until(60, "the burst read", |w| {
        w.get("/metrics")
            .1
            .lines()
            .filter(|l| l.starts_with("herder_audit_lines_read_total{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .any(|n| n >= 100_000.0)
    });
    assert_eq!(w.get("/healthz").0, 200, "still running");

    // A file that stops growing: its worker's silence grows.
    w.until(30, "a silent worker", |w| {
        w.get("/metrics").1.lines().any(|l| {
            l.starts_with("herder_audit_worker_silence_seconds{")
                && l.contains("kafka/connect-1/connect")
                && l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()) >= Some(1.0)
        })
    });

    // The pod is deleted: its stream ends, its series go.
    std::fs::remove_dir_all(pods.join("kafka_connect-2_0f1e2d3c-aaaa-bbbb-cccc-000000000002"))
        .unwrap();
    w.until(30, "the pod gone", |w| {
        series(w, "herder_audit_follow_events_total{event=\"gone\"}") >= 1.0
            && !w.get("/metrics").1.contains("kafka/connect-2/connect")
    });

    // The HTTP endpoints.
    let (status, page) = w.get("/?window=2h");
    assert_eq!(status, 200);
    assert!(page.contains("<html") && page.contains("kafka/connect-0/connect"));
    assert_eq!(w.get("/?window=soon").0, 400);
    assert_eq!(w.get("/nothing").0, 404);
    let (_, metrics) = w.get("/metrics");
    assert!(metrics.contains("herder_audit_build_info{"));
    assert!(
        !metrics.contains("# EOF"),
        "Prometheus text unless OpenMetrics is asked for"
    );

    let stderr = w.stderr.lock().unwrap().clone();
    for said in [
        "replaced (rotated)",
        "truncated",
        "the container restarted",
        "a line of 52428",
        "lines read in one step",
        "gone (deleted)",
    ] {
        assert!(stderr.contains(said), "stderr says {said:?}:\n{stderr}");
    }
    assert!(w.stop().success());

    // The fault's findings were emitted, each once.
    let got = finding_keys(&std::fs::read(&out).unwrap());
    let stops = got.iter().filter(|k| k.0 == "unnecessary-stop").count();
    assert!(stops >= 1, "{got:?}");
    let mut unique = got.clone();
    unique.dedup();
    assert_eq!(unique, got);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard input: findings on standard output as JSON lines while the
/// pipe is open; the watcher ends when it closes.
#[test]
fn standard_input_in_findings_out() {
    use std::io::Read;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fault-kafka-8676-2.3.0.log");
    let mut child = std::process::Command::new(support::BIN)
        .args(["watch", "--listen", "127.0.0.1:0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(corpus).unwrap())
        .unwrap();
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    assert!(child.wait().unwrap().success());
    let got = finding_keys(&out);
    assert_eq!(got.len(), 2, "{}", String::from_utf8_lossy(&out));
    assert!(
        got.iter()
            .all(|k| k.0 == "unnecessary-stop" && k.1 == "<stdin>")
    );
}
