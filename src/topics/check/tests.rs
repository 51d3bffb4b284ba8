//! The checks on real dumps (tests/topics/: the config and status topics of
//! real clusters, conformance/topics.sh) and on the record patterns the
//! real ones show, built line by line.

use super::*;
use crate::finding::Kind;
use crate::model::{SourceId, TaskId};
use crate::topics::config::Family;
use crate::topics::{dump, record};

/// The typed records of console dumps (one source per dump).
fn records(dumps: &[(&str, &str)]) -> Vec<Record> {
    let mut out = Vec::new();
    for (k, (topic, text)) in dumps.iter().enumerate() {
        let d = dump::read(SourceId(k as u32), text.as_bytes());
        assert!(d.skipped.is_empty(), "{:?}", d.skipped);
        for mut raw in d.records {
            raw.at.topic = Some(Arc::from(*topic));
            out.push(record::classify(raw).map_err(|e| e.message).unwrap());
        }
    }
    out
}

fn findings(dumps: &[(&str, &str)]) -> Vec<Finding> {
    by_cluster(records(dumps)).iter().flat_map(check).collect()
}

fn real(dir: &str) -> Vec<Finding> {
    let base = format!("{}/tests/topics/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut dumps = Vec::new();
    for e in std::fs::read_dir(&base).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let topic = name.strip_suffix(".console.txt").unwrap().to_string();
        dumps.push((topic, std::fs::read_to_string(&p).unwrap()));
    }
    dumps.sort();
    let refs: Vec<(&str, &str)> = dumps
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    findings(&refs)
}

fn summary(f: &[Finding]) -> Vec<String> {
    f.iter()
        .map(|f| {
            let at = f.evidence.iter().find(|e| e.line == f.trigger).unwrap();
            format!(
                "{} {} {} gen {} @{}",
                f.kind,
                f.resource.as_ref().unwrap().id(),
                f.worker,
                f.generation.unwrap(),
                at.record.as_ref().unwrap()
            )
        })
        .collect()
}

#[test]
fn real_2_4_1_kafka_8869_stale_task_configs() {
    let f = real("2.4.1-kafka-8869");
    assert_eq!(
        summary(&f),
        [
            "stale-config-start c-0 127.0.0.1:18083 gen 6 @connect-2-4-1-kafka-8869-status[0]@10",
            "stale-config-start c-1 127.0.0.1:18083 gen 6 @connect-2-4-1-kafka-8869-status[0]@11",
        ]
    );
    assert_eq!(f[0].upstream, Some("KAFKA-8869"));
    // the records it rests on, each named by topic, partition and offset
    let named: Vec<String> = f[0]
        .evidence
        .iter()
        .map(|e| e.record.as_ref().unwrap().to_string())
        .collect();
    assert_eq!(
        named,
        [
            "connect-2-4-1-kafka-8869-configs[0]@2",
            "connect-2-4-1-kafka-8869-configs[0]@4",
            "connect-2-4-1-kafka-8869-configs[0]@5",
            "connect-2-4-1-kafka-8869-configs[0]@7",
            "connect-2-4-1-kafka-8869-status[0]@10",
            "connect-2-4-1-kafka-8869-configs[0]@11",
        ]
    );
    assert!(f[0].fingerprint.is_some());
}

#[test]
fn real_3_9_1_partition_zombie_by_the_status_topic_alone() {
    // w1 (18083) cut off at 06:58:01 for 35 s: w3 (18085) starts connector
    // src at generation 8; w1's stop of its own copy, at its generation 7,
    // is stamped 3.9 s later and reaches the topic when the partition
    // heals. (Its copy of task src-0 it stops without a record: not
    // provable here; the logs prove both.)
    let f = real("3.9.1-partition");
    assert_eq!(
        summary(&f),
        ["zombie src 127.0.0.1:18083 gen 7 @connect-3-9-1-partition-status[0]@35"]
    );
    let named: Vec<String> = f[0]
        .evidence
        .iter()
        .map(|e| e.record.as_ref().unwrap().to_string())
        .collect();
    assert_eq!(
        named,
        [
            "connect-3-9-1-partition-status[0]@0",
            "connect-3-9-1-partition-status[0]@33",
            "connect-3-9-1-partition-status[0]@35",
        ]
    );
    assert!(
        f[0].reason.contains("later by its clock"),
        "{}",
        f[0].reason
    );
    // the same on 4.4.0
    assert_eq!(
        summary(&real("4.4.0-partition")),
        ["zombie src 127.0.0.1:18083 gen 7 @connect-4-4-0-partition-status[0]@11"]
    );
}

#[test]
fn the_snapshot_a_worker_reads_at_a_config_offset() {
    let base = format!(
        "{}/tests/topics/2.4.1-kafka-8869",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(format!(
        "{base}/connect-2-4-1-kafka-8869-configs.console.txt"
    ))
    .unwrap();
    let t = Topics::new(records(&[("connect-2-4-1-kafka-8869-configs", &text)]));
    let c: Name = Name::from("c");
    // at offset 8 (the re-creation read, its task configs not yet): 2.4.1
    // still holds the deleted incarnation's two tasks, 2.5.1 none
    let old = t.snapshot_at(Family::UpTo2_5_0, 8);
    assert_eq!(old.offset, Some(8));
    assert_eq!(old.tasks(&c).len(), 2);
    let cfg = old.task_configs[&TaskId::new("c", 0)];
    assert_eq!(
        (t.records[cfg.at].raw.at.offset, cfg.incarnation),
        (Some(2), 0)
    );
    assert!(t.snapshot_at(Family::From2_5_1, 8).tasks(&c).is_empty());
    // after the new commit (offset 11): three tasks of the new incarnation
    let new = t.snapshot_at(Family::UpTo2_5_0, 12);
    assert_eq!(new.tasks(&c).len(), 3);
    assert_eq!(new.task_configs[&TaskId::new("c", 0)].incarnation, 1);
}

#[test]
fn real_captures_without_a_provable_finding() {
    // 3.9.1 removes the deleted incarnation's tasks (no stale start); a
    // SIGKILLed worker back under the same id; a frozen worker that stops
    // its copy without a record (2.4.1, 3.9.1, 4.4.0); KAFKA-16056's worker that
    // left the group and stopped its copies silently.
    for dir in [
        "3.9.1-kafka-8869",
        "2.5.1-kill-worker",
        "3.9.1-kill-worker",
        "4.4.0-kill-worker",
        "2.4.1-freeze-worker",
        "3.9.1-freeze-worker",
        "4.4.0-freeze-worker",
        "3.9.1-kafka-16056",
    ] {
        assert_eq!(summary(&real(dir)), Vec::<String>::new(), "{dir}");
    }
}

#[test]
fn clusters_are_kept_apart() {
    // two clusters whose workers have the same ids: read together, no
    // record of one is set against the other's
    let base = format!("{}/tests/topics", env!("CARGO_MANIFEST_DIR"));
    let read =
        |d: &str, t: &str| std::fs::read_to_string(format!("{base}/{d}/{t}.console.txt")).unwrap();
    let a = read("4.4.0-kill-worker", "connect-4-4-0-kill-worker-status");
    let b = read("2.4.1-freeze-worker", "connect-2-4-1-freeze-worker-status");
    let c = read("2.4.1-kafka-8869", "connect-2-4-1-kafka-8869-status");
    let cc = read("2.4.1-kafka-8869", "connect-2-4-1-kafka-8869-configs");
    let f = findings(&[
        ("connect-4-4-0-kill-worker-status", &a),
        ("connect-2-4-1-freeze-worker-status", &b),
        ("connect-2-4-1-kafka-8869-status", &c),
        ("connect-2-4-1-kafka-8869-configs", &cc),
    ]);
    assert_eq!(f.len(), 2, "{:#?}", summary(&f));
    assert!(f.iter().all(|f| f.kind == Kind::StaleConfigStart));
}

#[test]
fn mirror_maker_flows_pair_by_their_source_alias() {
    // the same records under each flow's names: a's status with a's
    // configs, whatever the order
    let base = format!(
        "{}/tests/topics/2.4.1-kafka-8869",
        env!("CARGO_MANIFEST_DIR")
    );
    let read = |t: &str| {
        std::fs::read_to_string(format!("{base}/connect-2-4-1-kafka-8869-{t}.console.txt")).unwrap()
    };
    let (cfg, st) = (read("configs"), read("status"));
    let t = by_cluster(records(&[
        ("mm2-configs.b.internal", &cfg),
        ("mm2-status.a.internal", &st),
        ("mm2-configs.a.internal", &cfg),
        ("mm2-status.b.internal", &st),
    ]));
    assert_eq!(t.len(), 2);
    for c in &t {
        let mut names: Vec<String> = c
            .records
            .iter()
            .map(|r| r.raw.at.topic.as_deref().unwrap().to_string())
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 2, "{names:?}");
        assert_eq!(
            names[0][names[0].len() - 10..],
            names[1][names[1].len() - 10..]
        );
        assert_eq!(summary(&check(c)).len(), 2);
    }
}

/// A status record as the 3.9.1 console consumer prints it.
fn st(ms: i64, offset: i64, key: &str, state: &str, worker: u16, generation: i32) -> String {
    format!(
        "CreateTime:{ms}\tPartition:0\tOffset:{offset}\tstatus-{key}\t{{\"state\":\"{state}\",\"trace\":null,\"worker_id\":\"127.0.0.1:{worker}\",\"generation\":{generation}}}\n"
    )
}

fn status(lines: &[String]) -> Vec<Finding> {
    findings(&[("connect-status", &lines.concat())])
}

#[test]
fn a_start_from_a_replaced_assignment_is_a_zombie() {
    // w1 runs t-0 at 6, is frozen; w3 gets it at 8; w1, back, finishes a
    // start from generation 6; the group goes on at 9
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        st(2000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(3000, 2, "task-t-0", "RUNNING", 18083, 6),
        st(4000, 3, "task-t-0", "UNASSIGNED", 18085, 9),
    ]);
    assert_eq!(
        summary(&f),
        ["zombie t-0 127.0.0.1:18083 gen 6 @connect-status[0]@2"]
    );
    assert_eq!(f[0].evidence.len(), 2);
    assert!(
        f[0].reason.contains("two workers ran it at once"),
        "{}",
        f[0].reason
    );
}

#[test]
fn a_group_that_started_again_is_no_zombie() {
    // the same records, but nothing later shows the group at 8 or more:
    // its generations may have started again (an emptied group)
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        st(2000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(3000, 2, "task-t-0", "RUNNING", 18083, 2),
        st(4000, 3, "task-t-0", "UNASSIGNED", 18083, 3),
    ]);
    assert!(f.is_empty(), "{:?}", summary(&f));
    // the late writer's own generation went back: a new process
    let f = status(&[
        st(500, 0, "connector-t", "RUNNING", 18083, 7),
        st(1000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(3000, 2, "task-t-0", "RUNNING", 18083, 2),
        st(4000, 3, "task-t-0", "UNASSIGNED", 18085, 9),
    ]);
    assert!(f.is_empty(), "{:?}", summary(&f));
}

#[test]
fn a_stop_only_at_a_newer_generation_is_a_zombie() {
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        st(2000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(3000, 2, "task-t-0", "UNASSIGNED", 18083, 9),
    ]);
    assert_eq!(
        summary(&f),
        ["zombie t-0 127.0.0.1:18083 gen 9 @connect-status[0]@2"]
    );
    assert_eq!(f[0].evidence.len(), 3);
}

#[test]
fn a_stop_written_after_the_new_start_by_the_clocks_is_a_zombie() {
    // a worker cut off: its stop, at its old generation, stamped after the
    // new owner's start
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        st(20000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(30000, 2, "task-t-0", "UNASSIGNED", 18083, 6),
    ]);
    assert_eq!(
        summary(&f),
        ["zombie t-0 127.0.0.1:18083 gen 6 @connect-status[0]@2"]
    );
    // the same stop stamped before the new start: written late, no overlap
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        st(20000, 1, "task-t-0", "RUNNING", 18085, 8),
        st(15000, 2, "task-t-0", "UNASSIGNED", 18083, 6),
    ]);
    assert!(f.is_empty(), "{:?}", summary(&f));
}

#[test]
fn what_looks_like_two_owners_but_is_not() {
    // SIGKILL: w3 writes nothing, w1 takes over, w3 comes back under the
    // same id and starts it again at a newer generation
    let kill = [
        st(1000, 0, "task-t-0", "RUNNING", 18085, 7),
        st(2000, 1, "task-t-0", "RUNNING", 18083, 9),
        st(3000, 2, "task-t-0", "UNASSIGNED", 18083, 11),
        st(4000, 3, "task-t-0", "RUNNING", 18085, 12),
    ];
    assert!(status(&kill).is_empty());
    // restarts on one worker; an orderly move (stop, then start elsewhere)
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 3),
        st(1100, 1, "task-t-0", "UNASSIGNED", 18083, 3),
        st(1200, 2, "task-t-0", "RUNNING", 18083, 3),
        st(2000, 3, "task-t-0", "UNASSIGNED", 18083, 4),
        st(2100, 4, "task-t-0", "RUNNING", 18084, 5),
        st(2200, 5, "task-t-0", "PAUSED", 18084, 5),
        st(2300, 6, "task-t-0", "RUNNING", 18084, 5),
    ]);
    assert!(f.is_empty(), "{:?}", summary(&f));
    // a deleted connector's tombstone ends every run
    let f = status(&[
        st(1000, 0, "task-t-0", "RUNNING", 18083, 6),
        "CreateTime:1500\tPartition:0\tOffset:1\tstatus-task-t-0\tnull\n".to_string(),
        st(2000, 2, "task-t-0", "RUNNING", 18085, 8),
        st(3000, 3, "task-t-0", "UNASSIGNED", 18083, 9),
    ]);
    assert!(f.is_empty(), "{:?}", summary(&f));
}
