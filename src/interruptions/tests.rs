//! The interruptions of corpus traces, audited whole.

use super::*;
use crate::audit::{Options, audit};
use crate::input::expand;
use std::path::PathBuf;

fn isolation(path: &str) -> Isolation {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    let (inputs, _) = expand(&[p]);
    let opts = Options {
        jobs: Some(1),
        ..Options::default()
    };
    audit(&inputs, &opts).isolation
}

#[test]
fn kafka_8676_config_update_interrupts_the_other_connector() {
    let iso = isolation("corpus/fault-kafka-8676-2.3.0.log");
    let others: Vec<&Interruption> = iso
        .interruptions
        .iter()
        .filter(|i| i.resource.connector_name().as_ref() == "clicks-sink")
        .collect();
    assert_eq!(others.len(), 2, "{iso:#?}");
    for i in &others {
        assert_eq!(i.cause.kind, CauseKind::OtherChange);
        assert_eq!(i.cause.connector.as_deref(), Some("inventory-src"));
        assert_eq!(i.cause.via.as_deref(), Some("unnecessary-stop"));
        assert_eq!(i.cause.upstream.as_deref(), Some("KAFKA-8676"));
        assert!(i.cause.finding.is_some(), "the finding is cross-referenced");
        assert!(i.by_others());
        assert_eq!(i.clock, Clock::OneWorker);
        assert!(i.ms.is_some_and(|ms| ms > 0));
    }
    let change = iso
        .changes
        .iter()
        .find(|c| c.connector.as_ref() == "inventory-src" && c.kind == ChangeKind::ConfigUpdate)
        .expect("the config update");
    assert_eq!(change.others.tasks, 2);
    assert_eq!(change.other_connectors.len(), 1);
    assert_eq!(change.upstream.as_deref(), Some("KAFKA-8676"));
    let sink = iso
        .connectors
        .iter()
        .find(|d| d.connector.as_ref() == "clicks-sink")
        .unwrap();
    assert_eq!(sink.by_others.interruptions, 2);
    assert_eq!(sink.by_others.ms, sink.total.ms);
    // Its own connector's tasks were restarted for its own change.
    assert!(iso.interruptions.iter().any(|i| {
        i.resource.connector_name().as_ref() == "inventory-src"
            && i.cause.kind == CauseKind::ConfigUpdate
            && !i.by_others()
    }));
}

#[test]
fn a_killed_worker_s_tasks_move_after_its_session() {
    let iso = isolation("corpus/real-kafka/3.9.1/kill-worker");
    let moved: Vec<&Interruption> = iso
        .interruptions
        .iter()
        .filter(|i| i.moved() && matches!(i.resource, Resource::Task(_)))
        .collect();
    assert!(!moved.is_empty(), "{iso:#?}");
    for i in &moved {
        assert!(matches!(i.clock, Clock::TwoWorkers { .. }), "{i:#?}");
    }
    let r = iso.rebalances.iter().find(|r| r.moved > 0).unwrap();
    assert_eq!(
        r.retained + r.moved + r.restarted + r.stopped,
        r.running_before
    );
}

#[test]
fn clocks_apart_are_aligned_at_a_generation() {
    // w2's clock is 3 s behind, w3's 5 s ahead: a length across two of
    // them is taken from a generation both joined, never the plain
    // difference of their time stamps.
    let iso = isolation("corpus/real-kafka/3.9.1/clock-skew");
    let across: Vec<&Interruption> = iso
        .interruptions
        .iter()
        .filter(|i| matches!(i.clock, Clock::TwoWorkers { .. }))
        .collect();
    assert!(!across.is_empty());
    assert!(across.iter().any(|i| match i.clock {
        Clock::TwoWorkers { raw_ms, .. } => (raw_ms - i.ms.unwrap()).abs() > 1000,
        _ => false,
    }));
}

#[test]
fn a_snapshot_prices_what_was_fed_so_far() {
    let iso = isolation("corpus/fault-kafka-8676-2.3.0.log");
    let by = iso.downtime_by_cause();
    let (n, s) = by[&("clicks-sink".to_string(), "other-connector")];
    assert_eq!(n, 2);
    assert!(s > 0.0);
    assert!(Tracker::new().snapshot().is_empty());
}

#[test]
fn merged_parts_are_in_the_run_s_order() {
    let a = isolation("corpus/fault-kafka-8676-2.3.0.log");
    let b = isolation("corpus/real-kafka/3.9.1/kill-worker");
    let merged = Isolation::merge(vec![b.clone(), a.clone()]);
    let again = Isolation::merge(vec![a, b]);
    assert_eq!(merged, again);
    for i in &merged.interruptions {
        if let Some(c) = i.change {
            assert_eq!(merged.changes[c].group, i.group);
        }
    }
}

/// The tracker fed by hand: `w1` runs a-0, b-0 and c-0, falls silent after
/// its line 3 (killed), and a new process starts in its log: the first
/// line of its preamble (line 10) and its `Kafka Connect starting` (line
/// 12) both say it was silent since line 3. `w2` takes a-0 over before the
/// preamble and c-0 during it.
#[test]
fn a_worker_restarted_into_its_log_crashed_at_its_old_last_line() {
    use crate::model::{SourceId, SourceLine, Timestamp};
    use crate::replay::{Fact, FactKind, Signal};
    use std::sync::Arc;
    let line = |source: u32, n: u64, ms: i64| SourceLine {
        source: SourceId(source),
        line: n,
        seq: n,
        ts: Some(Timestamp(ms)),
        text: Arc::from(""),
        msg: (0, 0),
    };
    let fact = |l: &SourceLine, kind: FactKind| Fact {
        group: Some(Arc::from("g")),
        cluster: None,
        identity: None,
        line: l.clone(),
        kind,
    };
    let task = |c: &str| Resource::Task(crate::model::TaskId::new(c, 0));
    let start = |r: Resource| FactKind::Start {
        resource: r,
        generation: Some(1),
        config_offset: None,
    };
    let (w1, w2): (Arc<str>, Arc<str>) = (Arc::from("w1"), Arc::from("w2"));
    let mut t = Tracker::new();
    t.feed(&w1, &fact(&line(1, 1, 1_000), start(task("a"))));
    t.feed(&w1, &fact(&line(1, 2, 1_100), start(task("b"))));
    let last = line(1, 3, 2_000);
    t.feed(&w1, &fact(&last, start(task("c"))));
    t.feed(&w2, &fact(&line(2, 1, 15_000), start(task("a"))));
    let silent = |l: &SourceLine| fact(l, FactKind::Signal(Signal::Silence { last: last.clone() }));
    t.feed(&w1, &silent(&line(1, 10, 20_000)));
    t.feed(&w2, &fact(&line(2, 2, 21_000), start(task("c"))));
    let starting = line(1, 12, 22_000);
    t.feed(&w1, &silent(&starting));
    t.feed(&w1, &fact(&starting, FactKind::Reset));
    let iso = t.finish();
    let of = |c: &str| {
        iso.interruptions
            .iter()
            .find(|i| i.resource == task(c))
            .unwrap_or_else(|| panic!("no interruption of {c}-0: {iso:#?}"))
    };
    for (c, to) in [("a", Some(15_000)), ("b", None), ("c", Some(21_000))] {
        let i = of(c);
        assert_eq!(
            (i.from.worker.as_ref(), i.from.line.line),
            ("w1", 3),
            "{i:#?}"
        );
        assert_eq!(i.cause.kind, CauseKind::WorkerCrashed, "{i:#?}");
        assert_eq!(i.to.as_ref().and_then(|e| e.line.ts).map(|t| t.0), to);
    }
}
