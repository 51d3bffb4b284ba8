//! The witness beside the logs, on records built line by line in the
//! console consumer's shape (the real captures are audited whole in
//! tests/topics_real.rs).

use super::summary::StatusWorker;
use super::*;
use crate::model::{Key, TaskId, Timestamp};
use crate::topics::{dump, record};

/// The witness of console dumps (one source per dump, numbered from 10).
fn witness(dumps: &[(&str, &str)]) -> Witness {
    let mut recs = Vec::new();
    for (k, (topic, text)) in dumps.iter().enumerate() {
        let d = dump::read(SourceId(10 + k as u32), text.as_bytes());
        assert!(d.skipped.is_empty(), "{:?}", d.skipped);
        for mut raw in d.records {
            raw.at.topic = Some(Arc::from(*topic));
            recs.push(record::classify(raw).map_err(|e| e.message).unwrap());
        }
    }
    Witness::new(recs, &[])
}

fn log_line(line: u64, ts: i64, text: &str) -> SourceLine {
    SourceLine {
        source: SourceId(0),
        line,
        seq: line,
        ts: Some(Timestamp(ts)),
        text: Arc::from(text),
        msg: (0, text.len() as u32),
    }
}

const T0: i64 = 1_796_535_600_000;

/// `connector-c`, then two commits of task configs for c-0 and c-1: the
/// second byte-for-byte the first when `same`.
fn configs(same: bool) -> String {
    let second = if same { "f.txt" } else { "g.txt" };
    [
        format!("CreateTime:{}\tPartition:0\tOffset:0\tconnector-c\t{{\"properties\":{{\"name\":\"c\"}}}}", T0),
        format!("CreateTime:{}\tPartition:0\tOffset:1\ttask-c-0\t{{\"properties\":{{\"file\":\"f.txt\"}}}}", T0 + 100),
        format!("CreateTime:{}\tPartition:0\tOffset:2\ttask-c-1\t{{\"properties\":{{\"file\":\"h.txt\"}}}}", T0 + 100),
        format!("CreateTime:{}\tPartition:0\tOffset:3\tcommit-c\t{{\"tasks\":2}}", T0 + 101),
        format!("CreateTime:{}\tPartition:0\tOffset:4\ttask-c-0\t{{\"properties\":{{\"file\":\"{second}\"}}}}", T0 + 5000),
        format!("CreateTime:{}\tPartition:0\tOffset:5\ttask-c-1\t{{\"properties\":{{\"file\":\"h.txt\"}}}}", T0 + 5000),
        format!("CreateTime:{}\tPartition:0\tOffset:6\tcommit-c\t{{\"tasks\":2}}", T0 + 5001),
    ]
    .join("\n")
}

#[test]
fn worker_ids_come_from_rest_urls() {
    assert_eq!(
        worker_id("rest:http://127.0.0.1:18083/"),
        Some("127.0.0.1:18083")
    );
    assert_eq!(
        worker_id("rest:https://w-1.connect:8443"),
        Some("w-1.connect:8443")
    );
    assert_eq!(worker_id("client:connect-1"), None);
    assert_eq!(worker_id("rest:"), None);
}

#[test]
fn a_task_config_update_that_changed_nothing_is_an_unnecessary_stop() {
    let w = witness(&[("connect-configs", &configs(true))]);
    let x = Cross::new(Arc::new(w));
    let task = Resource::Task(TaskId::new("c", 0));
    let handling = log_line(
        20,
        T0 + 5100,
        "Handling task config update by stopping tasks [c-0]",
    );
    let stop = log_line(21, T0 + 5101, "Stopping task c-0");
    let label: Arc<str> = Arc::from("w1.log");
    let f = x
        .task_config_stop(&label, None, &task, &stop, &handling)
        .expect("the configs committed at offset 6 are those of offset 3");
    assert_eq!(f.kind, Kind::UnnecessaryStop);
    assert_eq!(f.trigger, stop);
    let recs: Vec<String> = f
        .evidence
        .iter()
        .filter_map(|e| e.record.as_ref().map(|r| r.to_string()))
        .collect();
    assert_eq!(
        recs,
        [
            "connect-configs[0]@1",
            "connect-configs[0]@3",
            "connect-configs[0]@4",
            "connect-configs[0]@6"
        ]
    );
    assert!(
        f.reason.contains("offset 6") && f.reason.contains("offset 3"),
        "{}",
        f.reason
    );
    // a real change, or a commit not yet written when the update was handled
    let changed = Cross::new(Arc::new(witness(&[("connect-configs", &configs(false))])));
    assert!(
        changed
            .task_config_stop(&label, None, &task, &stop, &handling)
            .is_none()
    );
    let early = log_line(
        20,
        T0 + 2000,
        "Handling task config update by stopping tasks [c-0]",
    );
    assert!(
        x.task_config_stop(&label, None, &task, &stop, &early)
            .is_none()
    );
}

const STATUS: &str = "\
CreateTime:1796535600000\tPartition:0\tOffset:0\tstatus-task-c-0\t{\"state\":\"RUNNING\",\"trace\":null,\"worker_id\":\"127.0.0.1:18083\",\"generation\":4}
CreateTime:1796535610000\tPartition:0\tOffset:1\tstatus-task-c-0\t{\"state\":\"RUNNING\",\"trace\":null,\"worker_id\":\"127.0.0.1:18085\",\"generation\":8}
CreateTime:1796535614000\tPartition:0\tOffset:2\tstatus-task-c-0\t{\"state\":\"UNASSIGNED\",\"trace\":null,\"worker_id\":\"127.0.0.1:18083\",\"generation\":7}";

fn log_zombie(at: i64) -> Finding {
    let line = log_line(30, at, "Starting task c-0");
    let other = log_line(5, T0, "Starting task c-0");
    Finding {
        kind: Kind::Zombie,
        worker: Arc::from("w3.log"),
        group: None,
        generation: Some(8),
        resource: Some(Resource::Task(TaskId::new("c", 0))),
        started: Vec::new(),
        trigger: line.clone(),
        evidence: vec![
            Evidence {
                role: "started here".into(),
                worker: None,
                line,
                record: None,
            },
            Evidence {
                role: "still running".into(),
                worker: Some(Arc::from("w1.log")),
                line: other,
                record: None,
            },
        ],
        reason: "task c-0 runs on two workers.".into(),
        upstream: None,
        fingerprint: None,
    }
}

fn key(ts: i64, seq: u64) -> Key {
    Key {
        ts,
        stream: u32::MAX,
        seq,
    }
}

/// Feeds the witness's records in key order up to log time `until`.
fn feed(x: &mut Cross, until: i64) {
    let w = x.w.clone();
    for (n, k) in w.keyed().into_iter().enumerate() {
        if k.ts <= until {
            x.record(k.line, key(k.ts, n as u64 + 1));
        }
    }
}

/// The witness of `STATUS` beside two logs: w1.log of worker `w1`, w3.log
/// of 127.0.0.1:18085.
fn with_logs(w1: &str) -> Cross {
    let mut x = Cross::new(Arc::new(witness(&[("connect-status", STATUS)])));
    for (label, id) in [("w1.log", w1), ("w3.log", "127.0.0.1:18085")] {
        x.note_worker(
            &Arc::from(label),
            Some(&Arc::from(format!("rest:http://{id}/"))),
        );
    }
    x
}

#[test]
fn the_log_zombie_takes_in_the_topics_zombie_and_gains_its_records() {
    let mut x = with_logs("127.0.0.1:18083");
    feed(&mut x, T0 + 20_000);
    // the topics' own zombie waits for its hold
    assert!(x.due(T0 + 20_000).is_empty());
    let mut f = log_zombie(T0 + 10_000);
    x.absorb(&mut f);
    let recs: Vec<String> = f
        .evidence
        .iter()
        .filter_map(|e| e.record.as_ref().map(|r| r.to_string()))
        .collect();
    assert_eq!(
        recs,
        [
            "connect-status[0]@0",
            "connect-status[0]@1",
            "connect-status[0]@2"
        ]
    );
    assert!(
        f.reason.ends_with("the status topic shows it too"),
        "{}",
        f.reason
    );
    assert_eq!((x.merged, x.backed), (1, 1));
    // taken in: never handed on alone
    assert!(x.finish().is_empty());
    let s = x.summary(
        true,
        &["127.0.0.1:18083".to_string(), "127.0.0.1:18085".to_string()].into(),
    );
    assert_eq!(s.absent().count(), 0);
    assert_eq!(s.alone, 0);
}

#[test]
fn without_a_log_zombie_the_topics_zombie_is_handed_on_after_its_hold() {
    let mut x = Cross::new(Arc::new(witness(&[("connect-status", STATUS)])));
    feed(&mut x, i64::MAX);
    let trigger = T0 + 14_000;
    assert!(x.due(trigger + HOLD_MS).is_empty());
    let due = x.due(trigger + HOLD_MS + 1);
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].finding.kind, Kind::Zombie);
    assert_eq!(due[0].deadline, trigger + HOLD_MS);
    // a log that names only one of the two workers: the other is absent
    let s = x.summary(true, &["127.0.0.1:18085".to_string()].into());
    let absent: Vec<&StatusWorker> = s.absent().collect();
    assert_eq!(absent.len(), 1);
    assert_eq!(absent[0].id, "127.0.0.1:18083");
    assert_eq!(absent[0].generations, (4, 7));
    assert_eq!(absent[0].findings, ["zombie task c-0"]);
    assert_eq!(s.alone, 1);
}

#[test]
fn a_log_zombie_of_other_workers_takes_nothing_in() {
    let mut x = with_logs("127.0.0.1:18084");
    feed(&mut x, i64::MAX);
    let mut f = log_zombie(T0 + 10_000);
    x.absorb(&mut f);
    assert_eq!(x.merged, 0);
    assert_eq!(x.finish().len(), 1);
}
