//! Compaction changes no finding a record newer than the cut makes, on the
//! real dumps of tests/topics/ and on random status topics.

use super::*;
use crate::finding::Finding;
use crate::model::SourceId;
use crate::topics::check::{by_cluster, check};
use crate::topics::{dump, record};
use proptest::prelude::*;

fn records(dumps: &[(String, String)]) -> Vec<Record> {
    let mut out = Vec::new();
    for (k, (topic, text)) in dumps.iter().enumerate() {
        let d = dump::read(SourceId(k as u32), text.as_bytes());
        assert!(d.skipped.is_empty(), "{:?}", d.skipped);
        for mut raw in d.records {
            raw.at.topic = Some(Arc::from(topic.as_str()));
            out.push(record::classify(raw).map_err(|e| e.message).unwrap());
        }
    }
    out
}

/// The findings of the records, with the time stamp of each one's trigger.
fn findings(records: Vec<Record>) -> Vec<(i64, String)> {
    let f: Vec<Finding> = by_cluster(records).iter().flat_map(check).collect();
    let mut v: Vec<(i64, String)> = f
        .iter()
        .map(|f| {
            let ts = f.trigger.ts.map_or(i64::MIN, |t| t.0);
            (ts, serde_json::to_string(f).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Every finding triggered at or after `cut` is the same with the records
/// compacted at `cut`, and compacting keeps every record from `cut` on.
fn same_after(recs: &[Record], cut: i64) {
    let all = findings(recs.to_vec());
    let compacted = compact(recs.to_vec(), cut);
    let newer = |r: &&Record| r.raw.timestamp.is_none_or(|t| t >= cut);
    assert_eq!(
        recs.iter().filter(newer).count(),
        compacted.iter().filter(newer).count()
    );
    let after = |v: Vec<(i64, String)>| -> Vec<String> {
        v.into_iter()
            .filter(|(t, _)| *t >= cut)
            .map(|(_, s)| s)
            .collect()
    };
    assert_eq!(
        after(all),
        after(findings(compacted)),
        "findings from {cut} on"
    );
}

#[test]
fn the_real_dumps_findings_survive_every_cut() {
    let base = format!("{}/tests/topics", env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for dir in std::fs::read_dir(&base).unwrap() {
        let dir = dir.unwrap().path();
        if dir.file_name().unwrap() == "expect" {
            continue;
        }
        let mut dumps = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let Some(topic) = name.strip_suffix(".console.txt") else {
                continue;
            };
            dumps.push((topic.to_string(), std::fs::read_to_string(&p).unwrap()));
        }
        dumps.sort();
        let recs = records(&dumps);
        let mut stamps: Vec<i64> = recs.iter().filter_map(|r| r.raw.timestamp).collect();
        stamps.sort_unstable();
        stamps.dedup();
        for &cut in stamps.iter().step_by(3) {
            same_after(&recs, cut);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} cuts");
}

/// A status topic of one partition, record by record: (time stamp, key,
/// state, worker, generation), offsets from 0.
fn status(rows: &[(i64, &str, &str, &str, i32)]) -> Vec<Record> {
    let text: String = rows
        .iter()
        .enumerate()
        .map(|(o, (ts, key, s, w, g))| {
            format!(
                "CreateTime:{ts}\tPartition:0\tOffset:{o}\t{key}\t{{\"state\":\"{s}\",\"trace\":null,\"worker_id\":\"{w}\",\"generation\":{g}}}\n"
            )
        })
        .collect();
    records(&[("connect-status".into(), text)])
}

#[test]
fn old_runs_closed_are_dropped_open_ones_kept() {
    let recs = status(&[
        (1_000, "status-task-c-0", "RUNNING", "a:1", 1),
        (2_000, "status-task-c-0", "UNASSIGNED", "a:1", 2),
        (3_000, "status-task-c-0", "RUNNING", "b:1", 2),
        (4_000, "status-task-c-1", "RUNNING", "a:1", 2),
        (5_000, "status-task-c-1", "UNASSIGNED", "a:1", 3),
        (6_000, "status-task-c-1", "RUNNING", "b:1", 3),
        (7_000, "status-task-c-1", "UNASSIGNED", "b:1", 4),
        (8_000, "status-task-c-1", "RUNNING", "a:1", 4),
        (20_000, "status-task-c-0", "RUNNING", "a:1", 5),
    ]);
    // c-0: a's closed run dropped, b's open run kept (also c-0's latest);
    // c-1: a's open run kept (also a's highest and c-1's latest), b's
    // highest (its close, alone: it opens nothing); the newer record kept.
    assert_eq!(kept(&recs, 10_000), vec![2, 6, 7, 8]);
    assert_eq!(kept(&recs, 0), (0..9).collect::<Vec<_>>());
}

#[test]
fn a_run_a_new_process_replaced_stays_ended() {
    // a runs c-0 at generation 5, restarts (generation 1), stops it; b
    // runs it; then, past the cut, x starts it at 4 and a record at 6
    // shows the group newer: no run at 5 was open, so no zombie
    let recs = status(&[
        (1_000, "status-task-c-0", "RUNNING", "a:1", 5),
        (2_000, "status-task-c-0", "RUNNING", "a:1", 1),
        (3_000, "status-task-c-0", "UNASSIGNED", "a:1", 1),
        (4_000, "status-task-c-0", "RUNNING", "b:1", 2),
        (20_000, "status-task-c-0", "RUNNING", "x:1", 4),
        (21_000, "status-task-c-1", "RUNNING", "y:1", 6),
    ]);
    // a's highest (0) with what ended it (1), and what ended that (2)
    assert_eq!(kept(&recs, 10_000), vec![0, 1, 2, 3, 4, 5]);
    same_after(&recs, 10_000);
}

/// A random status topic: three workers, two tasks and a connector; runs
/// opened and closed, generations that mostly rise, a worker that writes
/// at an old generation now and then (back from a freeze), a new process
/// whose generations start again, tombstones.
fn topic(ops: &[(u8, u8, u8, u8, u16)]) -> String {
    let mut out = String::new();
    let mut generation = 1i32;
    let mut ts = 1_000_000i64;
    for (o, &(w, r, s, g, dt)) in ops.iter().enumerate() {
        ts += i64::from(dt) * 100;
        let key = ["status-task-c-0", "status-task-c-1", "status-connector-c"][r as usize % 3];
        let worker = ["10.0.0.1:8083", "10.0.0.2:8083", "10.0.0.3:8083"][w as usize % 3];
        let gen_written = match g % 6 {
            0 => {
                generation += 1;
                generation
            }
            1 => generation - 2,
            2 => 1,
            _ => generation,
        };
        let value = match s % 7 {
            6 => "null".to_string(),
            k => {
                let state = [
                    "RUNNING",
                    "RUNNING",
                    "UNASSIGNED",
                    "FAILED",
                    "PAUSED",
                    "RESTARTING",
                ][k as usize];
                format!(
                    r#"{{"state":"{state}","trace":null,"worker_id":"{worker}","generation":{gen_written}}}"#
                )
            }
        };
        out.push_str(&format!(
            "CreateTime:{ts}\tPartition:0\tOffset:{o}\t{key}\t{value}\n"
        ));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_topics_findings_survive_every_cut(
        ops in proptest::collection::vec((0u8..3, 0u8..3, 0u8..7, 0u8..6, 0u16..600), 1..80),
        at in 0usize..80,
    ) {
        let recs = records(&[("connect-status".into(), topic(&ops))]);
        let cut = recs[at % recs.len()].raw.timestamp.unwrap();
        same_after(&recs, cut);
    }
}
