//! Archives: the same logs rotated into segments, some gzipped, with an
//! overlapping duplicate, must give the same findings as the plain logs.

mod support;

use herder_audit::Report;
use std::path::{Path, PathBuf};
use support::{audit_paths, gzip, scratch};

/// Findings without their positions: kind, resource, worker's group and
/// the text of the trigger and evidence lines.
fn essence(r: &Report) -> Vec<String> {
    let mut v: Vec<String> = r
        .findings()
        .map(|f| {
            let ev: Vec<&str> = f.evidence.iter().map(|e| &*e.line.text).collect();
            format!(
                "{} {:?} {:?} {} | {}",
                f.kind,
                f.resource,
                f.generation,
                f.trigger.text,
                ev.join(" | ")
            )
        })
        .collect();
    v.sort();
    v
}

/// Writes `text` as rotated segments under `dir`: `connect.log.2.gz`
/// (oldest, gzipped), `connect.log.1`, `connect.log` (newest), plus
/// `connect.log.1.gz`, a gzipped copy of `.1` (a duplicate segment), and an
/// overlap: `.1` repeats the last lines of `.2`.
fn rotate(text: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (a, b) = (lines.len() / 3, 2 * lines.len() / 3);
    let oldest: String = lines[..a].concat();
    let middle: String = lines[a.saturating_sub(3)..b].concat();
    let newest: String = lines[b..].concat();
    std::fs::write(dir.join("connect.log.2.gz"), gzip(oldest.as_bytes())).unwrap();
    std::fs::write(dir.join("connect.log.1"), &middle).unwrap();
    std::fs::write(dir.join("connect.log.1.gz"), gzip(middle.as_bytes())).unwrap();
    std::fs::write(dir.join("connect.log"), &newest).unwrap();
}

#[test]
fn rotated_gzipped_segments_give_the_same_findings_as_plain_logs() {
    let traces = [
        "corpus/fault-kafka-8676-2.3.0.log",
        "corpus/fault-kafka-10763-2.7.0.log",
        "corpus/fault-kafka-9851-2.5.0.log",
        "corpus/fault-reconfigured-task-restarted-after-move-2.5.0.log",
        "corpus/clean-coop-3.6-worker-joins.log",
        "corpus/fault-offset-mismatch-read-timeout-3.0.2.log",
    ];
    let plain_dir = scratch("plain");
    let rotated_dir = scratch("rotated");
    for (i, t) in traces.iter().enumerate() {
        let text = std::fs::read_to_string(t).unwrap();
        std::fs::create_dir_all(plain_dir.join(format!("w{i}"))).unwrap();
        std::fs::write(plain_dir.join(format!("w{i}/connect.log")), &text).unwrap();
        rotate(&text, &rotated_dir.join(format!("w{i}")));
    }
    let plain = audit_paths(std::slice::from_ref(&plain_dir), None);
    let rotated = audit_paths(std::slice::from_ref(&rotated_dir), Some(2));
    assert!(rotated.errors.is_empty(), "{:?}", rotated.errors);
    assert!(!essence(&plain).is_empty());
    assert_eq!(essence(&plain), essence(&rotated));
    assert_eq!(rotated.workers.len(), traces.len());
    assert_eq!(rotated.stitched.len(), traces.len());
    assert!(
        rotated
            .stitched
            .iter()
            .all(|(_, segs, skipped)| *segs == 4 && *skipped > 0),
        "{:?}",
        rotated.stitched
    );
    // Same summary counts too.
    let count = |r: &Report| {
        r.workers
            .iter()
            .map(|w| {
                (
                    w.summary.generations,
                    w.summary.stops.clone(),
                    w.summary.starts.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(count(&plain), count(&rotated));
}

#[test]
fn segments_are_ordered_by_their_first_timestamp_not_their_names() {
    let text = std::fs::read_to_string("corpus/fault-kafka-10763-2.7.0.log").unwrap();
    let d = scratch("names");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let half = lines.len() / 2;
    // Misleading names: the older half is called `.1`'s successor `.0`…
    std::fs::write(d.join("connect.log.7"), lines[half..].concat()).unwrap();
    std::fs::write(d.join("connect.log.9"), lines[..half].concat()).unwrap();
    let plain = audit_paths(&[PathBuf::from("corpus/fault-kafka-10763-2.7.0.log")], None);
    let rotated = audit_paths(&[d], None);
    assert_eq!(essence(&plain), essence(&rotated));
}
