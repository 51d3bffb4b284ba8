//! Following files (`-f`): findings come out as the file grows, across
//! rotation (the file renamed away and created again, or truncated), from
//! new logs appearing in a followed directory, and a quiet stream holds
//! back the cross-worker findings of the others for the idle timeout only.
//!
//! Every check is about order (a finding is read before the writer goes on
//! past the line that proves it), never about time.

mod support;

use std::path::Path;
use support::live::*;
use support::{corpus, lines_of, scratch};

fn found(kind: &str, source: &Path, line: u64) -> Found {
    Found {
        kind: kind.to_string(),
        source: source.display().to_string(),
        line,
    }
}

/// KAFKA-8676 (2.3.0): unnecessary stops on lines 60 and 62; both need the
/// assignment of line 24 and the task-config lines 58-59.
const K8676: &str = "fault-kafka-8676-2.3.0.log";

#[test]
fn a_followed_file_renamed_away_and_created_again() {
    let dir = scratch("rename");
    let log = dir.join("connect.log");
    let lines = lines_of(&corpus(K8676));
    std::fs::write(&log, join(&lines, 0, 30)).unwrap();
    let mut audit = Audit::start(&["-f", &log.display().to_string()], false);
    let mut script = in_chunks(&join(&lines, 30, 60), 300, |c| append(&log, c));
    script.push(Step::Pause("line 60".into()));
    script.push(rotate(&log, &dir.join("connect.log.1")));
    script.extend(in_chunks(&join(&lines, 60, 62), 300, |c| append(&log, c)));
    script.push(Step::Pause("line 62".into()));
    script.extend(in_chunks(&join(&lines, 62, lines.len()), 300, |c| {
        append(&log, c)
    }));
    let writer = Writer::start(script);
    writer.reached("line 60");
    audit.await_found(&[found("unnecessary-stop", &log, 60)]);
    writer.resume();
    writer.reached("line 62");
    // Read from the new file, judged with what the old one said. Line
    // numbers go on from the old file's: they count the lines read from
    // this path.
    audit.await_found(&[found("unnecessary-stop", &log, 62)]);
    assert_eq!(audit.found.len(), 2);
    writer.resume();
    writer.join();
    interrupt(audit, 1, "findings 2 (unnecessary-stop 2)");
}

/// A followed path rotated and then taken over by another worker's log (a
/// reused path: the new file names another group, a 3.8.0 worker of
/// corpus/fault-kafka-17105-3.8.0.log whose group is renamed here, and
/// starts mid-life). The stream then holds two groups: the new worker's
/// unprefixed Worker lines (`Stopping connector sink-new`, line 27 of its
/// log) go to it, the one herder holding sink-new, and its unnecessary stop
/// is reported as when the file is audited alone (issue 27 §7: from
/// 9be47cb until the herders were told apart by what they hold, such lines
/// were read by nobody).
#[test]
fn a_followed_path_taken_over_by_another_workers_log() {
    let dir = scratch("reused");
    let log = dir.join("connect.log");
    std::fs::copy(corpus(K8676), &log).unwrap();
    let mut audit = Audit::start(&["-f", &log.display().to_string()], false);
    audit.await_found(&[
        found("unnecessary-stop", &log, 60),
        found("unnecessary-stop", &log, 62),
    ]);
    let other = std::fs::read_to_string(corpus("fault-kafka-17105-3.8.0.log"))
        .unwrap()
        .replace("groupId=connect-cluster]", "groupId=connect-orders]");
    let mut script = vec![rotate(&log, &dir.join("connect.log.1"))];
    let lines: Vec<Vec<u8>> = other
        .as_bytes()
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    script.extend(in_chunks(&join(&lines, 0, lines.len()), 400, |c| {
        append(&log, c)
    }));
    script.push(Step::Pause("taken over".into()));
    let writer = Writer::start(script);
    writer.reached("taken over");
    // Line 27 of the new log, after the 85 lines of the old one.
    audit.await_found(&[found("unnecessary-stop", &log, 85 + 27)]);
    writer.resume();
    writer.join();
    let out = interrupt(audit, 1, "findings: 3 (unnecessary-stop 3)");
    assert!(
        out.iter()
            .any(|l| l.contains("@connect-orders") && l.contains("group connect-orders")),
        "{out:#?}"
    );
}

/// `log` is renamed to `to` and created again, empty (a log4j rotation).
fn rotate(log: &Path, to: &Path) -> Step {
    let (from, to) = (log.to_path_buf(), to.to_path_buf());
    run(move || {
        std::fs::rename(&from, &to).unwrap();
        std::fs::write(&from, b"").unwrap();
    })
}

/// Ends a follow run with SIGINT: it prints its summary, which holds
/// `summary_line`, and exits with `code`.
fn interrupt(audit: Audit, code: i32, summary_line: &str) -> Vec<String> {
    audit.signal("INT");
    let (status, out, err) = audit.wait();
    assert!(err.is_empty(), "{err}");
    let summary = out
        .iter()
        .position(|l| l == "summary")
        .unwrap_or_else(|| panic!("no summary in {out:#?}"));
    assert!(
        out[summary..].iter().any(|l| l.trim() == summary_line),
        "{summary_line:?} not in {:#?}",
        &out[summary..]
    );
    assert_eq!(status.code(), Some(code));
    out
}

/// KAFKA-9851 (2.5.0): a worker starts up; two lost assignments on line 48.
const K9851: &str = "fault-kafka-9851-2.5.0.log";

/// Truncates `path` and writes `data` into it (the same file).
fn rewrite(path: &Path, data: Vec<u8>) -> Step {
    let path = path.to_path_buf();
    run(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.write_all(&data).unwrap();
    })
}

#[test]
fn a_followed_file_truncated_and_written_again() {
    let dir = scratch("truncate");
    let log = dir.join("connect.log");
    let lines = lines_of(&corpus(K8676));
    std::fs::write(&log, join(&lines, 0, 30)).unwrap();
    let mut audit = Audit::start(&["-f", &log.display().to_string()], false);
    let mut script = in_chunks(&join(&lines, 30, 60), 300, |c| append(&log, c));
    script.push(Step::Pause("line 60".into()));
    // Truncated, then shorter than before: the length tells.
    script.push(rewrite(&log, join(&lines, 60, 62)));
    script.push(Step::Pause("line 62".into()));
    // Truncated and at once longer than before: only its first bytes
    // tell. (A worker restarting: a log of its own, read on in the same
    // stream.)
    script.push(rewrite(&log, std::fs::read(corpus(K9851)).unwrap()));
    script.push(Step::Pause("restarted".into()));
    let writer = Writer::start(script);
    writer.reached("line 60");
    audit.await_found(&[found("unnecessary-stop", &log, 60)]);
    writer.resume();
    writer.reached("line 62");
    audit.await_found(&[found("unnecessary-stop", &log, 62)]);
    writer.resume();
    writer.reached("restarted");
    // Line 48 of the new content, the 62 lines read before it counted.
    let lost = found("lost-assignment", &log, 62 + 48);
    audit.await_found(&[lost.clone(), lost]);
    assert_eq!(audit.found.len(), 4, "{:?}", audit.found);
    writer.resume();
    writer.join();
    interrupt(
        audit,
        1,
        "findings: 4 (unnecessary-stop 2, lost-assignment 2)",
    );
}

#[test]
fn new_logs_in_a_followed_directory_are_read_and_rotated_segments_are_not() {
    let dir = scratch("directory");
    let a = dir.join("a.log");
    std::fs::copy(corpus(K8676), &a).unwrap();
    let mut audit = Audit::start(&["-f", &dir.display().to_string()], false);
    // The run is reading the directory.
    audit.await_found(&[
        found("unnecessary-stop", &a, 60),
        found("unnecessary-stop", &a, 62),
    ]);
    // A new log appears and grows, in pieces.
    let b = dir.join("b.log");
    let lines = lines_of(&corpus("fault-kafka-17105-3.8.0.log"));
    let mut script = in_chunks(&join(&lines, 0, 27), 500, |c| append(&b, c));
    script.push(Step::Pause("b: line 27".into()));
    script.extend(in_chunks(&join(&lines, 27, lines.len()), 500, |c| {
        append(&b, c)
    }));
    // a.log rotates: a.log.1 is the old a.log (not a new log: its findings
    // are not reported again), and the worker restarts in the new a.log.
    let (from, to) = (a.clone(), dir.join("a.log.1"));
    script.push(run(move || std::fs::rename(&from, &to).unwrap()));
    script.push(append(&a, std::fs::read(corpus(K9851)).unwrap()));
    script.push(Step::Pause("a rotated".into()));
    // A third log: when it is read, the directory has been looked at
    // since the rotation.
    let c = dir.join("c.log");
    script.push(append(
        &c,
        std::fs::read(corpus("fault-lost-eager-task-2.2.0.log")).unwrap(),
    ));
    script.push(Step::Pause("c".into()));
    let writer = Writer::start(script);
    writer.reached("b: line 27");
    audit.await_found(&[found("unnecessary-stop", &b, 27)]);
    writer.resume();
    writer.reached("a rotated");
    // Line 48 of the new a.log, after the 85 lines of the old one.
    let lost = found("lost-assignment", &a, 85 + 48);
    audit.await_found(&[lost.clone(), lost]);
    writer.resume();
    writer.reached("c");
    audit.await_found(&[found("lost-assignment", &c, 71)]);
    writer.resume();
    writer.join();
    let out = interrupt(
        audit,
        1,
        "findings: 6 (unnecessary-stop 3, lost-assignment 3)",
    );
    let found = found_in(&out, false);
    assert_eq!(found.len(), 6, "{found:#?}");
}

/// Two workers (corpus/multi-conflicting-assignment): in generation 3 both
/// assignment lines list mongo-sink-0 (conflicting-assignment on
/// worker-a's, line 61, 14:10:22,923) and both start it (zombie on
/// worker-b's start, line 63, 14:10:22,929; worker-a's is line 63 at
/// 14:10:22,925).
fn two_workers(idle: &str) -> (Audit, Writer, std::path::PathBuf, std::path::PathBuf) {
    let dir = scratch(&format!("idle-{idle}"));
    let (a, b) = (dir.join("worker-a.log"), dir.join("worker-b.log"));
    let la = lines_of(&corpus("multi-conflicting-assignment/worker-a.log"));
    let lb = lines_of(&corpus("multi-conflicting-assignment/worker-b.log"));
    // worker-a has logged its start of mongo-sink-0 (14:10:22,925) and
    // goes quiet; worker-b logs up to its own (14:10:22,929).
    std::fs::write(&a, join(&la, 0, 63)).unwrap();
    std::fs::write(&b, join(&lb, 0, 40)).unwrap();
    let audit = Audit::start(
        &[
            "-f",
            "--idle-timeout",
            idle,
            &a.display().to_string(),
            &b.display().to_string(),
        ],
        false,
    );
    let mut script = in_chunks(&join(&lb, 40, 63), 700, |c| append(&b, c));
    script.push(Step::Pause("b: line 63".into()));
    // worker-a goes on (14:10:22,926 … 14:10:26,018).
    script.push(append(&a, join(&la, 63, 68)));
    script.push(Step::Pause("a: line 68".into()));
    script.push(append(&a, join(&la, 68, la.len())));
    script.push(append(&b, join(&lb, 63, lb.len())));
    (audit, Writer::start(script), a, b)
}

#[test]
fn a_quiet_worker_holds_back_cross_worker_findings_for_the_idle_timeout_only() {
    let (mut audit, writer, a, b) = two_workers("1");
    writer.reached("b: line 63");
    // worker-a is quiet at 14:10:22,925, before worker-b's start of
    // mongo-sink-0: once it has been quiet for the idle timeout, it no
    // longer holds the zombie back.
    audit.await_found(&[
        found("conflicting-assignment", &a, 61),
        found("zombie", &b, 63),
    ]);
    writer.resume();
    writer.reached("a: line 68");
    writer.resume();
    writer.join();
    audit.await_found(&[found("conflicting-assignment", &b, 120)]);
    interrupt(audit, 1, "findings: 3 (zombie 1, conflicting-assignment 2)");
}

#[test]
fn without_the_idle_timeout_a_quiet_worker_holds_back_until_it_goes_on() {
    let (mut audit, writer, a, b) = two_workers("86400");
    writer.reached("b: line 63");
    audit.await_found(&[found("conflicting-assignment", &a, 61)]);
    writer.resume();
    writer.reached("a: line 68");
    // worker-a's log time has passed worker-b's start: the zombie is final.
    audit.await_found(&[found("zombie", &b, 63)]);
    writer.resume();
    writer.join();
    audit.await_found(&[found("conflicting-assignment", &b, 120)]);
    interrupt(audit, 1, "findings: 3 (zombie 1, conflicting-assignment 2)");
}
