//! The internal topics beside the logs of real captures
//! (`corpus/real-kafka/<release>/<scenario>/`, whose `topics/` holds the
//! config, status and offsets topics dumped at the end of the run:
//! conformance/topics.sh). Each capture's findings that rest on a record
//! are listed, reviewed, in `tests/topics/expect/<release>-<scenario>`;
//! on top, every such finding is checked against what it claims:
//!
//! * a log `zombie` names the status records of both its workers' runs,
//!   each worker matched by its REST URL, each RUNNING (or PAUSED, an
//!   instance of a paused connector) written by the finding's last line
//!   (5 s allowed);
//! * the topics change no finding of the logs: the same findings (kind,
//!   resource, line) with and without them, records aside (and the
//!   `witnesses-disagree` warnings the records add);
//! * a `witnesses-disagree` quotes its worker's log lines and the status
//!   record the log contradicts, stamped at least 20 s before its trigger;
//! * `-j1`, `-j2` and `map | reduce --topics` print the same bytes.
//!
//! And one capture is audited with one worker's log left out: the summary
//! names it with what it ran, and the status topic alone proves its
//! zombie.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CAPTURES: &[&str] = &[
    "2.3.1/isolation",
    "2.8.2/chaos-s1",
    "2.8.2/chaos-s5",
    "2.8.2/chaos-s9",
    "3.6.2/chaos-s0",
    "3.6.2/chaos-s2",
    "3.6.2/chaos-s6",
    "3.9.1/chaos-s3",
    "3.9.1/chaos-s7",
    "3.9.1/isolation",
    "3.9.1/isolation-eager",
    "4.4.0/chaos-s1",
    "4.4.0/chaos-s4",
    "4.4.0/chaos-s8",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn capture(name: &str) -> PathBuf {
    root().join("corpus/real-kafka").join(name)
}

/// The worker directories of a capture (`w1`, `w2`, …), sorted.
fn workers(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('w'))
        })
        .collect();
    v.sort();
    v
}

fn run(args: &[&Path], extra: &[&str], stdin: Option<Vec<u8>>) -> Vec<u8> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_herder-audit"));
    c.current_dir(root())
        .args(args)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = c.spawn().unwrap();
    if let Some(data) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&data).unwrap();
    }
    child.wait_with_output().unwrap().stdout
}

/// Paths relative to the repository, as the expectations quote them.
fn rel(p: &Path) -> PathBuf {
    p.strip_prefix(root()).unwrap().to_path_buf()
}

fn audit_json(logs: &[PathBuf], topics: Option<&Path>, jobs: &str) -> Value {
    let logs: Vec<PathBuf> = logs.iter().map(|p| rel(p)).collect();
    let mut args: Vec<&Path> = logs.iter().map(PathBuf::as_path).collect();
    let t = topics.map(rel);
    let mut extra = vec!["--format", "json", "-j", jobs];
    let topics_arg;
    if let Some(t) = &t {
        topics_arg = t.to_string_lossy().to_string();
        extra.push("--topics");
        extra.push(&topics_arg);
    }
    if logs.is_empty() {
        args.clear();
    }
    serde_json::from_slice(&run(&args, &extra, None)).unwrap()
}

/// `kind resource file:line [records]` of a finding.
fn line_of(f: &Value) -> String {
    let t = &f["trigger"];
    let records: Vec<String> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| !e["record"].is_null())
        .map(|e| {
            let r = &e["record"];
            let topic = r["topic"].as_str().unwrap_or("?");
            let role = topic.rsplit('-').next().unwrap_or(topic);
            format!("{role}@{}", r["offset"])
        })
        .collect();
    let source = t["source"].as_str().unwrap();
    let source = source
        .split_once("/chaos-s")
        .or_else(|| source.split_once("/isolation"))
        .map_or(source, |(_, r)| r.split_once('/').map_or(r, |(_, x)| x));
    format!(
        "{} {} {}:{} [{}]",
        f["kind"].as_str().unwrap(),
        resource(f),
        source,
        t["line"],
        records.join(" ")
    )
}

fn findings(doc: &Value) -> &Vec<Value> {
    doc["findings"].as_array().unwrap()
}

/// `task:c1-0`, `connector:c1`, `-`.
fn resource(f: &Value) -> String {
    let r = &f["resource"];
    match (r["type"].as_str(), r["id"].as_str()) {
        (Some(t), Some(id)) => format!("{t}:{id}"),
        _ => "-".to_string(),
    }
}

/// What a finding is without its records: kind, resource, trigger.
fn bare(f: &Value) -> (String, String, String, u64) {
    (
        f["kind"].as_str().unwrap().to_string(),
        resource(f),
        f["trigger"]["source"].as_str().unwrap().to_string(),
        f["trigger"]["line"].as_u64().unwrap(),
    )
}

fn expected(name: &str) -> String {
    let p = root()
        .join("tests/topics/expect")
        .join(name.replace('/', "-"));
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The REST worker id of each worker label of a report.
fn worker_ids(doc: &Value) -> std::collections::BTreeMap<String, String> {
    doc["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| {
            let url = w["rest_url"].as_str()?;
            let id = url.split_once("://").map_or(url, |(_, r)| r);
            Some((
                w["worker"].as_str()?.to_string(),
                id.trim_end_matches('/').to_string(),
            ))
        })
        .collect()
}

/// A log zombie's records: for each of its two workers, a RUNNING (or
/// PAUSED) it wrote
/// by the finding's last line (+5 s).
fn check_zombie_records(name: &str, f: &Value, ids: &std::collections::BTreeMap<String, String>) {
    let ev = f["evidence"].as_array().unwrap();
    let mut labels = vec![f["worker"].as_str().unwrap().to_string()];
    labels.extend(
        ev.iter()
            .filter_map(|e| e["worker"].as_str().map(str::to_string)),
    );
    labels.sort();
    labels.dedup();
    let last = ev
        .iter()
        .filter(|e| e["record"].is_null())
        .filter_map(|e| e["timestamp"].as_str())
        .max()
        .unwrap()
        .to_string();
    for l in &labels {
        let id = &ids[l];
        let running = ev.iter().filter(|e| !e["record"].is_null()).any(|e| {
            let text = e["text"].as_str().unwrap();
            let stamp = e["timestamp"].as_str().unwrap();
            (text.contains("\"RUNNING\"") || text.contains("\"PAUSED\""))
                && text.contains(&format!("\"worker_id\":\"{id}\""))
                && stamp[..19] <= *plus_5s(&last)
        });
        assert!(
            running,
            "{name}: {}: no RUNNING or PAUSED record of {id}",
            line_of(f)
        );
    }
}

/// Seconds of the day of `2026-12-06T07:21:22.850`.
fn second_of_day(ts: &str) -> u32 {
    let (_, time) = ts.split_once('T').unwrap();
    let n = |a: usize| -> u32 { time[a..a + 2].parse().unwrap() };
    n(0) * 3600 + n(3) * 60 + n(6)
}

/// A `witnesses-disagree`: a warning from a log (its trigger a log line),
/// quoting log lines and status records, the contradicted record (the
/// latest one quoted) stamped at least 20 s before the trigger.
fn check_disagreement(name: &str, f: &Value) {
    assert_eq!(f["severity"], "warning", "{name}: {}", line_of(f));
    let ev = f["evidence"].as_array().unwrap();
    let records: Vec<&Value> = ev.iter().filter(|e| !e["record"].is_null()).collect();
    assert!(
        ev.iter().any(|e| e["record"].is_null()) && !records.is_empty(),
        "{name}: {}",
        line_of(f)
    );
    let last = records
        .iter()
        .filter_map(|e| e["timestamp"].as_str())
        .map(second_of_day)
        .max()
        .unwrap();
    let trigger = second_of_day(f["trigger"]["timestamp"].as_str().unwrap());
    assert!(trigger >= last + 20, "{name}: {}", line_of(f));
}

/// `2026-12-06T07:21:22.850` + 5 s, to the second (ISO strings compare
/// as times).
fn plus_5s(ts: &str) -> String {
    let (day, time) = ts.split_once('T').unwrap();
    let h: u32 = time[0..2].parse().unwrap();
    let m: u32 = time[3..5].parse().unwrap();
    let s: u32 = time[6..8].parse().unwrap();
    let t = h * 3600 + m * 60 + s + 5;
    format!(
        "{day}T{:02}:{:02}:{:02}",
        (t / 3600).min(23),
        t / 60 % 60,
        t % 60
    )
}

#[test]
fn real_captures_with_their_topics() {
    let mut mismatches = Vec::new();
    for name in CAPTURES {
        let dir = capture(name);
        let logs = workers(&dir);
        let topics = dir.join("topics");
        let with = audit_json(&logs, Some(&topics), "1");
        let without = audit_json(&logs, None, "1");
        // the logs' findings, unchanged (records aside)
        let mine: Vec<_> = findings(&with)
            .iter()
            .filter(|f| {
                !f["trigger"]["source"]
                    .as_str()
                    .unwrap()
                    .contains("/topics/")
                    && f["kind"] != "witnesses-disagree"
            })
            .map(bare)
            .collect();
        let theirs: Vec<_> = findings(&without).iter().map(bare).collect();
        assert_eq!(
            mine, theirs,
            "{name}: the topics changed the logs' findings"
        );
        let ids = worker_ids(&with);
        let mut got = String::new();
        for f in findings(&with) {
            let has_record = f["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| !e["record"].is_null());
            if !has_record {
                continue;
            }
            let from_logs = !f["trigger"]["source"]
                .as_str()
                .unwrap()
                .contains("/topics/");
            if f["kind"] == "zombie" && from_logs {
                check_zombie_records(name, f, &ids);
            }
            if f["kind"] == "witnesses-disagree" {
                check_disagreement(name, f);
            }
            got.push_str(&line_of(f));
            got.push('\n');
        }
        // every worker of the status topic has its log read
        let t = &with["topics"];
        assert_eq!(t["absent_logs"], serde_json::json!([]), "{name}");
        assert_eq!(t["with_logs"], true, "{name}");
        if got != expected(name) {
            mismatches.push(format!("== {name}\n{got}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join(""));
}

#[test]
fn thread_counts_and_map_reduce_print_the_same() {
    let dir = capture("4.4.0/chaos-s1");
    let logs: Vec<PathBuf> = workers(&dir).iter().map(|p| rel(p)).collect();
    let args: Vec<&Path> = logs.iter().map(PathBuf::as_path).collect();
    let topics = rel(&dir.join("topics"));
    let t = topics.to_string_lossy().to_string();
    let one = run(&args, &["-j", "1", "--topics", &t], None);
    let two = run(&args, &["-j", "2", "--topics", &t], None);
    assert_eq!(one, two);
    assert!(String::from_utf8_lossy(&one).contains("the status topic shows it too"));
    let mut map_args: Vec<&Path> = vec![Path::new("map")];
    map_args.extend(args.iter().copied());
    let mapped = run(&map_args, &[], None);
    let reduced = run(&[Path::new("reduce")], &["--topics", &t], Some(mapped));
    assert_eq!(
        String::from_utf8_lossy(&one),
        String::from_utf8_lossy(&reduced)
    );
}

/// 4.4.0 `chaos-s8` without w1's log: w1 (127.0.0.1:18083) was cut off
/// while it ran connector c1; w3 started c1 at generation 13
/// (status offset 25), and w1's UNASSIGNED of its own copy, at its
/// generation 12, is stamped 2 s later (offset 41): two workers ran c1 at
/// once, proven by the status topic alone. With w1's log read, the same
/// episode is w3's log zombie, which takes the topics' one in.
#[test]
fn an_incomplete_archive_names_the_absent_worker_and_the_topic_proves_its_zombie() {
    let dir = capture("4.4.0/chaos-s8");
    let logs: Vec<PathBuf> = workers(&dir)
        .into_iter()
        .filter(|p| !p.ends_with("w1"))
        .collect();
    let doc = audit_json(&logs, Some(&dir.join("topics")), "1");
    let t = &doc["topics"];
    assert_eq!(t["absent_logs"], serde_json::json!(["127.0.0.1:18083"]));
    let w1 = t["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["worker_id"] == "127.0.0.1:18083")
        .unwrap();
    assert_eq!(w1["log_read"], false);
    assert!(
        w1["ran"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("connector c1"))
    );
    assert_eq!(
        w1["unchecked_findings"],
        serde_json::json!(["zombie connector c1"])
    );
    let alone: Vec<String> = findings(&doc)
        .iter()
        .filter(|f| {
            f["trigger"]["source"]
                .as_str()
                .unwrap()
                .contains("/topics/")
        })
        .map(line_of)
        .collect();
    assert_eq!(
        alone,
        [
            "zombie connector:c1 topics/connect-4-4-0-chaos-s8-status.console.txt.gz:42 [status@0 status@25 status@41]"
        ]
    );
    let text = run(
        &logs
            .iter()
            .map(|p| rel(p))
            .collect::<Vec<_>>()
            .iter()
            .map(PathBuf::as_path)
            .collect::<Vec<_>>(),
        &["--topics", &rel(&dir.join("topics")).to_string_lossy()],
        None,
    );
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains(
            "incomplete archive: worker 127.0.0.1:18083 (generations 5-40) ran connector c1"
        ),
        "{text}"
    );
}

/// The topics alone: the summary says what they witnessed, not "0
/// workers".
#[test]
fn the_topics_alone_say_what_they_witnessed() {
    let dir = capture("3.9.1/chaos-s3");
    let out = run(
        &[],
        &["--topics", &rel(&dir.join("topics")).to_string_lossy()],
        None,
    );
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("4 worker(s) in the status topic"), "{out}");
    assert!(out.contains("run: the internal topics alone:"), "{out}");
    assert!(!out.contains("0 workers"), "{out}");
}
