//! `--topics` and `--bootstrap` on the command line (docs/topics.md): the
//! topics alone read no standard input, their findings name their records
//! in text and JSON, bad records are named and skipped, and flags are
//! checked.

mod support;

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{bin, scratch};

const REAL: &str = "tests/topics/2.4.1-kafka-8869";

/// Runs with standard input a pipe that is never written nor closed: a run
/// that read it would never end.
fn run_with_open_stdin(args: &[&str]) -> (i32, String, String) {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).unwrap();
        s
    });
    let mut e = String::new();
    err.read_to_string(&mut e).unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("herder-audit {args:?} waited for standard input");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code().unwrap(), reader.join().unwrap(), e)
}

#[test]
fn the_topics_alone_read_no_standard_input() {
    let (code, out, err) = run_with_open_stdin(&["--topics", REAL, "--color", "never"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.matches("error[stale-config-start]").count(), 2, "{out}");
    assert!(
        out.contains("(record connect-2-4-1-kafka-8869-status[0]@10)"),
        "{out}"
    );
    assert!(
        out.contains("known upstream regression: KAFKA-8869"),
        "{out}"
    );
}

#[test]
fn json_findings_name_their_records() {
    let out = bin()
        .args(["--topics", REAL, "--format", "json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &doc["findings"][0];
    assert_eq!(f["kind"], "stale-config-start");
    assert_eq!(f["worker"], "127.0.0.1:18083");
    let records: Vec<String> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let r = &e["record"];
            format!(
                "{}[{}]@{}",
                r["topic"].as_str().unwrap(),
                r["partition"],
                r["offset"]
            )
        })
        .collect();
    assert!(
        records.contains(&"connect-2-4-1-kafka-8869-status[0]@10".to_string()),
        "{records:?}"
    );
    assert_eq!(doc["summary"]["inputs"], 2);
    // JSON lines: the same finding, the same records
    let out = bin()
        .args(["--topics", REAL, "--format", "jsonl"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["evidence"], f["evidence"]);
}

#[test]
fn bad_records_are_named_and_the_rest_audited() {
    let dir = scratch("bad-records");
    let status = std::fs::read_to_string(format!(
        "{REAL}/connect-2-4-1-kafka-8869-status.console.txt"
    ))
    .unwrap();
    let mut lines: Vec<&str> = status.lines().collect();
    lines.insert(
        3,
        "CreateTime:1\tPartition:0\tOffset:99\tstatus-task-c-0\t{\"state\":",
    );
    lines.insert(5, "CreateTime:1\tPartition:0\tOffset:98\tbogus-key\t{}");
    let bad = dir.join("connect-2-4-1-kafka-8869-status.console.txt");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    std::fs::copy(
        format!("{REAL}/connect-2-4-1-kafka-8869-configs.console.txt"),
        dir.join("connect-2-4-1-kafka-8869-configs.console.txt"),
    )
    .unwrap();
    let out = bin()
        .args([
            "--topics".as_ref(),
            dir.as_os_str(),
            "--no-summary".as_ref(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}:4: warning: record skipped", bad.display())),
        "{err}"
    );
    assert!(
        err.contains(":6: warning: record skipped: `bogus-key`"),
        "{err}"
    );
    assert_eq!(
        stdout.matches("error[stale-config-start]").count(),
        2,
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_are_checked() {
    // a topic without --bootstrap
    let out = bin()
        .args(["--config-topic", "c"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // --bootstrap without a topic: named, exit 2
    let out = bin()
        .args(["--bootstrap", "127.0.0.1:1"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bootstrap needs --config-topic"));
    // an unsupported protocol, from the environment: named, exit 2
    let out = bin()
        .args(["--bootstrap", "127.0.0.1:1", "--status-topic", "s"])
        .env("HERDER_AUDIT_KAFKA_SECURITY_PROTOCOL", "SSL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("security.protocol SSL is not supported yet"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // a missing dump: named, exit 2
    let out = bin()
        .args(["--topics", "no/such/dump"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dump"));
}
