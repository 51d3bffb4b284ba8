//! Witnesses that disagree, on status records built line by line and log
//! facts fed in time order (the real captures are audited whole in
//! tests/topics_real.rs).

use super::*;
use crate::model::{SourceId, TaskId, Timestamp};
use crate::topics::cross::Witness;
use crate::topics::{dump, record};

const T0: i64 = 1_796_535_600_000;

fn witness(status: &[String]) -> Witness {
    let d = dump::read(SourceId(10), status.join("\n").as_bytes());
    assert!(d.skipped.is_empty(), "{:?}", d.skipped);
    let recs = d
        .records
        .into_iter()
        .map(|mut raw| {
            raw.at.topic = Some(Arc::from("connect-status"));
            record::classify(raw).map_err(|e| e.message).unwrap()
        })
        .collect();
    Witness::new(recs, &[])
}

fn st(ms: i64, offset: i64, key: &str, state: &str, worker: u16, generation: i32) -> String {
    format!(
        "CreateTime:{}\tPartition:0\tOffset:{offset}\t{key}\t{{\"state\":\"{state}\",\"trace\":null,\"worker_id\":\"127.0.0.1:{worker}\",\"generation\":{generation}}}",
        T0 + ms
    )
}

fn line(n: u64, ms: i64) -> SourceLine {
    let text = format!("line {n}");
    SourceLine {
        source: SourceId(0),
        line: n,
        seq: n,
        ts: Some(Timestamp(T0 + ms)),
        msg: (0, text.len() as u32),
        text: Arc::from(text),
    }
}

fn assignment(live: &[(Resource, SourceLine)]) -> FactKind {
    FactKind::Assignment {
        generation: 9,
        assigned: live.iter().map(|(r, _)| r.clone()).collect(),
        revoked: Arc::from([]),
        leader: "l".into(),
        leader_url: "http://127.0.0.1:18085/".into(),
        offset: 3,
        error: 0,
        live: live.to_vec(),
    }
}

#[allow(clippy::large_enum_variant)]
enum Step {
    Record(u32),
    Fact(u16, FactKind, SourceLine),
}

/// Feeds the steps in order; the disagreements found, as (resource,
/// trigger line, record offsets).
fn run(w: &Witness, steps: Vec<Step>) -> Vec<(Resource, u64, Vec<i64>)> {
    let mut d = Disagree::default();
    let mut out = Vec::new();
    for s in steps {
        match s {
            Step::Record(i) => d.record(w.seen(), 0, i),
            Step::Fact(port, kind, l) => {
                let id: Arc<str> = Arc::from(format!("127.0.0.1:{port}"));
                for (r, ev, _) in d.fact(w.seen(), &id, &kind, &l) {
                    let offs = ev
                        .iter()
                        .filter_map(|e| e.record.as_ref().and_then(|r| r.offset))
                        .collect();
                    out.push((r, l.line, offs));
                }
            }
        }
    }
    out
}

fn c() -> Resource {
    Resource::Connector(crate::model::Name::from("c"))
}

fn start(r: Resource) -> FactKind {
    FactKind::Start {
        resource: r,
        generation: Some(8),
        config_offset: None,
    }
}

fn stop(r: Resource) -> FactKind {
    FactKind::Stop {
        resource: r,
        task_config: None,
    }
}

/// The cut-off worker's UNASSIGNED lands after the new owner's RUNNING
/// (3.9.1 and 4.4.0 `partition`, 4.4.0 `chaos-s8`): the new owner's log
/// holds c 20 s on.
#[test]
fn unassigned_kept_while_another_worker_runs_it() {
    let w = witness(&[
        st(0, 0, "status-connector-c", "RUNNING", 18083, 4),
        st(1_000, 1, "status-connector-c", "RUNNING", 18085, 8),
        st(4_000, 2, "status-connector-c", "UNASSIGNED", 18083, 7),
    ]);
    let begun = line(1, 990);
    let steps = |held_at: i64| {
        vec![
            Step::Record(0),
            Step::Fact(18085, start(c()), begun.clone()),
            Step::Record(1),
            Step::Record(2),
            Step::Fact(18085, assignment(&[(c(), begun.clone())]), line(2, 10_000)),
            Step::Fact(18085, assignment(&[(c(), begun.clone())]), line(3, held_at)),
        ]
    };
    assert_eq!(run(&w, steps(24_000)), [(c(), 3, vec![1, 2])]);
    // 19 s on: not yet
    assert_eq!(run(&w, steps(23_000)), []);
    // a stop 20 s on proves it too; a log that ends before proves nothing
    let by_stop = vec![
        Step::Record(0),
        Step::Fact(18085, start(c()), begun.clone()),
        Step::Record(1),
        Step::Record(2),
        Step::Fact(18085, stop(c()), line(4, 30_000)),
    ];
    assert_eq!(run(&w, by_stop), [(c(), 4, vec![1, 2])]);
    let ended = vec![
        Step::Record(0),
        Step::Fact(18085, start(c()), begun.clone()),
        Step::Record(1),
        Step::Record(2),
        Step::Fact(18085, FactKind::End, line(5, 6_000)),
        Step::Fact(18085, stop(c()), line(6, 30_000)),
    ];
    assert_eq!(run(&w, ended), []);
}

/// A worker's own UNASSIGNED, or one written before the log started it,
/// is no disagreement; a later record ends one.
#[test]
fn what_looks_like_a_disagreement_but_is_not() {
    let w = witness(&[
        st(0, 0, "status-connector-c", "UNASSIGNED", 18083, 7),
        st(1_000, 1, "status-connector-c", "RUNNING", 18085, 8),
        st(2_000, 2, "status-connector-c", "UNASSIGNED", 18085, 8),
    ]);
    let begun = line(1, 990);
    // the UNASSIGNED precedes the start (the RUNNING is not fed: lost)
    let before = vec![
        Step::Record(0),
        Step::Fact(18085, start(c()), begun.clone()),
        Step::Fact(18085, stop(c()), line(2, 30_000)),
    ];
    assert_eq!(run(&w, before), []);
    // the worker's own UNASSIGNED
    let own = vec![
        Step::Record(0),
        Step::Fact(18085, start(c()), begun.clone()),
        Step::Record(1),
        Step::Record(2),
        Step::Fact(18085, stop(c()), line(2, 30_000)),
    ];
    assert_eq!(run(&w, own), []);
}

/// A worker cut off stops its task without a record (4.4.0 `chaos-s1`
/// c3-1) and rejoins without it: its RUNNING stays the latest status.
#[test]
fn running_kept_on_a_worker_that_stopped_it() {
    let t0: Resource = Resource::Task(TaskId::new("c", 0));
    let w = witness(&[
        st(0, 0, "status-task-c-0", "RUNNING", 18083, 5),
        st(40_000, 1, "status-task-c-0", "RUNNING", 18084, 9),
    ]);
    let steps = |rejoined: i64, later: bool| {
        let mut v = vec![
            Step::Fact(18083, start(t0.clone()), line(1, -10)),
            Step::Record(0),
            Step::Fact(18083, stop(t0.clone()), line(2, 5_000)),
        ];
        if later {
            v.push(Step::Record(1));
        }
        v.push(Step::Fact(18083, assignment(&[]), line(3, rejoined)));
        v
    };
    assert_eq!(run(&w, steps(30_000, false)), [(t0.clone(), 3, vec![0])]);
    // 10 s after the stop: a rebalance may be moving it still
    assert_eq!(run(&w, steps(15_000, false)), []);
    // another worker's RUNNING since: the topic is right again
    assert_eq!(run(&w, steps(50_000, true)), []);
    // held again by the assignment: not stopped for good
    let held = vec![
        Step::Fact(18083, start(t0.clone()), line(1, -10)),
        Step::Record(0),
        Step::Fact(18083, stop(t0.clone()), line(2, 5_000)),
        Step::Fact(18083, start(t0.clone()), line(3, 6_000)),
        Step::Fact(
            18083,
            assignment(&[(t0.clone(), line(3, 6_000))]),
            line(4, 30_000),
        ),
    ];
    assert_eq!(run(&w, held), []);
}
