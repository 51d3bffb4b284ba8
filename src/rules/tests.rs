use super::unnecessary_stop::{
    ConfigVerdict, connector_config_change, rebalance_stop, task_config_change,
};
use super::*;
use crate::model::{Assignment, Protocol, Resource, SourceId, SourceLine, TaskId};
use crate::state::{ConfigFacts, KnownOffset, Owned, Received, ResState};
use std::sync::Arc;

fn line(seq: u64) -> SourceLine {
    SourceLine {
        source: SourceId(0),
        line: seq,
        seq,
        ts: None,
        text: Arc::from(format!("line {seq}")),
        msg: (0, 0),
    }
}

fn task(c: &str, i: u32) -> Resource {
    Resource::Task(TaskId::new(c, i))
}

fn assignment(tasks: &[(&str, u32)], revoked: &[(&str, u32)]) -> Assignment {
    Assignment {
        offset: 10,
        tasks: tasks.iter().map(|(c, i)| TaskId::new(c, *i)).collect(),
        revoked_connectors: Some(vec![].into()),
        revoked_tasks: Some(revoked.iter().map(|(c, i)| TaskId::new(c, *i)).collect()),
        delay: Some(0),
        ..Assignment::default()
    }
}

#[test]
fn single_connector_claim_after_start_justifies_a_task_config_stop() {
    let facts = ConfigFacts {
        single_claim: Some(line(5)),
        ..ConfigFacts::default()
    };
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(3))),
        ConfigVerdict::Changed(line(5))
    );
    // The claim predates the instance: no change since it started.
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(7))),
        ConfigVerdict::Unchanged(Some(line(5)))
    );
    // Start unknown: any claim in the log counts.
    assert_eq!(
        task_config_change(Some(&facts), None),
        ConfigVerdict::Changed(line(5))
    );
}

#[test]
fn multi_connector_claim_needs_another_sign_of_change() {
    let mut facts = ConfigFacts {
        multi_claim: Some(Box::new(line(5))),
        ..ConfigFacts::default()
    };
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(3))),
        ConfigVerdict::Kafka8676(line(5))
    );
    assert_eq!(
        task_config_change(Some(&facts), None),
        ConfigVerdict::Kafka8676(line(5))
    );
    facts.updated = Some(line(4));
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(3))),
        ConfigVerdict::Changed(line(5))
    );
    // The connector's own update happened before the instance: no sign.
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(4))),
        ConfigVerdict::Kafka8676(line(5))
    );
    facts.count_change = Some(line(5).seq);
    assert_eq!(
        task_config_change(Some(&facts), Some(&line(4))),
        ConfigVerdict::Changed(line(5))
    );
}

#[test]
fn no_claim_at_all() {
    assert_eq!(
        task_config_change(None, Some(&line(1))),
        ConfigVerdict::Unchanged(None)
    );
    assert_eq!(task_config_change(None, None), ConfigVerdict::Unknown);
    assert_eq!(
        task_config_change(Some(&ConfigFacts::default()), None),
        ConfigVerdict::Unknown
    );
}

#[test]
fn connector_config_freshness() {
    let facts = ConfigFacts {
        updated: Some(line(5)),
        ..ConfigFacts::default()
    };
    assert_eq!(
        connector_config_change(Some(&facts), Some(&line(3))),
        ConfigVerdict::Changed(line(5))
    );
    assert_eq!(
        connector_config_change(Some(&facts), Some(&line(6))),
        ConfigVerdict::Unchanged(Some(line(5)))
    );
    assert_eq!(
        connector_config_change(Some(&facts), None),
        ConfigVerdict::Changed(line(5))
    );
    assert_eq!(connector_config_change(None, None), ConfigVerdict::Unknown);
}

#[test]
fn rebalance_stops() {
    let a = assignment(&[("a", 0)], &[("b", 0)]);
    let coop = Some(Protocol::Sessioned);
    assert_eq!(
        rebalance_stop(coop, false, &a, &task("b", 0)),
        StopReason::Revoked
    );
    assert_eq!(
        rebalance_stop(coop, false, &a, &task("a", 0)),
        StopReason::Unnecessary
    );
    assert_eq!(
        rebalance_stop(coop, false, &a, &task("c", 0)),
        StopReason::NotAssigned
    );
    assert_eq!(
        rebalance_stop(coop, true, &a, &task("a", 0)),
        StopReason::EagerRebalance
    );
    assert_eq!(
        rebalance_stop(Some(Protocol::Eager), false, &a, &task("a", 0)),
        StopReason::EagerRebalance
    );
    assert_eq!(
        rebalance_stop(None, false, &a, &task("a", 0)),
        StopReason::ProtocolUnknown
    );
}

fn received(a: Assignment, seq: u64) -> Received {
    Received::new(std::sync::Arc::new(a), Some(Protocol::Sessioned), line(seq))
}

#[test]
fn foreign_starts() {
    let rec = received(assignment(&[("a", 0)], &[("b", 0)]), 2);
    let owned = Owned::from(&rec);
    assert_eq!(
        foreign_start::check(Some(&owned), Some(&rec), &task("a", 0)),
        None
    );
    assert_eq!(
        foreign_start::check(Some(&owned), Some(&rec), &task("b", 0)),
        Some(foreign_start::Foreign::Revoked(line(2)))
    );
    assert_eq!(
        foreign_start::check(Some(&owned), Some(&rec), &task("c", 1)),
        Some(foreign_start::Foreign::NotAssigned(line(2)))
    );
    assert_eq!(foreign_start::check(None, None, &task("c", 1)), None);
}

#[test]
fn double_starts_and_zombies_need_a_live_instance() {
    let running = ResState::Running {
        since: line(1),
        zombie_reported: false,
    };
    let held = ResState::Held { since: line(1) };
    let stopped = ResState::Stopped { at: line(2) };
    assert!(double_start::check(Some(&running)));
    assert!(double_start::check(Some(&held)));
    assert!(!double_start::check(Some(&stopped)));
    assert!(!double_start::check(None));
    assert!(zombie::check(Some(&running), false));
    assert!(!zombie::check(Some(&running), true));
    assert!(!zombie::check(Some(&stopped), false));
    assert!(!zombie::check(None, false));
    let reported = ResState::Running {
        since: line(1),
        zombie_reported: true,
    };
    assert!(!zombie::check(Some(&reported), false));
    // A start under way counts; a failed one does not, even where the
    // Worker still holds the failed instance.
    let starting = ResState::Starting { since: line(1) };
    assert!(double_start::check(Some(&starting)));
    assert!(zombie::check(Some(&starting), false));
    for registered in [false, true] {
        let failed = ResState::Failed {
            at: line(2),
            start: Some(line(1)),
            registered,
        };
        assert!(!double_start::check(Some(&failed)));
        assert!(!zombie::check(Some(&failed), false));
        assert!(!failed.is_live());
        assert_eq!(failed.started_at(), Some(&line(1)));
    }
}

#[test]
fn lost_needs_known_not_running() {
    let stopped = ResState::Stopped { at: line(2) };
    assert_eq!(
        lost_assignment::check(Some(&stopped), false),
        Some(Some(line(2)))
    );
    assert_eq!(lost_assignment::check(None, true), Some(None));
    assert_eq!(lost_assignment::check(None, false), None);
    let held = ResState::Held { since: line(1) };
    assert_eq!(lost_assignment::check(Some(&held), true), None);
    // A failed start is not lost, and a lost resource is reported once.
    for registered in [false, true] {
        let failed = ResState::Failed {
            at: line(3),
            start: Some(line(2)),
            registered,
        };
        assert_eq!(lost_assignment::check(Some(&failed), true), None);
    }
    assert_eq!(
        lost_assignment::check(Some(&ResState::Lost { at: line(3) }), true),
        None
    );
}

#[test]
fn offset_mismatch_reasons() {
    let rec = received(assignment(&[], &[]), 2);
    let known = |x| KnownOffset::Known(x, line(1));
    assert!(offset_mismatch::check(None, None, &known(3), 10).is_none());
    assert!(offset_mismatch::check(Some(&rec), None, &known(10), 10).is_none());
    assert!(offset_mismatch::check(Some(&rec), None, &KnownOffset::Unknown, 10).is_none());
    let (why, _) = offset_mismatch::check(Some(&rec), None, &KnownOffset::Unknown, 9).unwrap();
    assert!(why.contains("offset 9"), "{why}");
    let (why, ev) = offset_mismatch::check(Some(&rec), None, &known(7), 10).unwrap();
    assert!(why.contains("at offset 7"), "{why}");
    assert_eq!(ev.len(), 2);
    let (why, _) = offset_mismatch::check(
        Some(&rec),
        Some((offset_mismatch::Trouble::Mismatch, &line(3))),
        &known(10),
        10,
    )
    .unwrap();
    assert!(why.contains("herder itself"), "{why}");
    let mut failed = rec.clone();
    std::sync::Arc::make_mut(&mut failed.assignment).error = 1;
    let (why, _) = offset_mismatch::check(Some(&failed), None, &known(10), 10).unwrap();
    assert!(why.contains("error=1"), "{why}");
}

#[test]
fn a_task_started_from_a_deleted_connectors_configs_is_stale() {
    let recreated = ConfigFacts {
        removed: Some(Box::new(line(3))),
        recreated: Some(Box::new(line(5))),
        updated: Some(line(5)),
        ..ConfigFacts::default()
    };
    let stale = stale_config::check(Some(&recreated), None).expect("stale");
    assert_eq!((stale.removed.line, stale.recreated.line), (3, 5));
    // The worker started after the re-creation, or before it.
    assert!(stale_config::check(Some(&recreated), Some(&line(6))).is_none());
    assert!(stale_config::check(Some(&recreated), Some(&line(1))).is_some());
    // Restarted between the removal and the `config updated`: the start-up
    // read may have held an unlogged re-creation.
    assert!(stale_config::check(Some(&recreated), Some(&line(4))).is_none());
    // 2.5.1+: the new connector's task configs come before its tasks start.
    let configured = ConfigFacts {
        single_claim: Some(line(7)),
        task_set: Some(Box::new([0])),
        ..recreated.clone()
    };
    assert!(stale_config::check(Some(&configured), None).is_none());
    // A claim before the re-creation is the deleted connector's.
    let old_claim = ConfigFacts {
        single_claim: Some(line(2)),
        ..recreated.clone()
    };
    assert!(stale_config::check(Some(&old_claim), None).is_some());
    // A claim naming other connectors' tasks as well may hold the new
    // configs too: nothing is proved.
    let multi = ConfigFacts {
        multi_claim: Some(Box::new(line(8))),
        ..recreated.clone()
    };
    assert!(stale_config::check(Some(&multi), None).is_none());
}

#[test]
fn no_stale_start_without_the_removal_in_the_log() {
    // The log starts after the removal: only `config updated` is seen.
    let updated = ConfigFacts {
        updated: Some(line(5)),
        ..ConfigFacts::default()
    };
    assert!(stale_config::check(Some(&updated), None).is_none());
    assert!(stale_config::check(None, None).is_none());
    // Removed and not created again (yet).
    let removed = ConfigFacts {
        removed: Some(Box::new(line(3))),
        ..ConfigFacts::default()
    };
    assert!(stale_config::check(Some(&removed), None).is_none());
}

#[test]
fn a_task_past_the_latest_task_count_is_superseded() {
    let lowered = ConfigFacts {
        single_claim: Some(line(4)),
        task_set: Some(Box::new([0, 1])),
        ..ConfigFacts::default()
    };
    let s = stale_config::superseded(Some(&lowered), None, 2).expect("superseded");
    assert_eq!((s.claim.line, s.count), (4, 2));
    assert!(stale_config::superseded(Some(&lowered), None, 1).is_none());
    // Started again after the claim: it may have read later ones silently.
    assert!(stale_config::superseded(Some(&lowered), Some(&line(5)), 2).is_none());
    assert!(stale_config::superseded(Some(&lowered), Some(&line(3)), 2).is_some());
    // A later claim naming other connectors' tasks too proves nothing.
    let multi = ConfigFacts {
        multi_claim: Some(Box::new(line(6))),
        ..lowered.clone()
    };
    assert!(stale_config::superseded(Some(&multi), None, 2).is_none());
    // Removed since: KAFKA-8869's case, not this one.
    let removed = ConfigFacts {
        removed: Some(Box::new(line(6))),
        ..lowered.clone()
    };
    assert!(stale_config::superseded(Some(&removed), None, 2).is_none());
    // Not the whole set 0..k.
    let gap = ConfigFacts {
        task_set: Some(Box::new([0, 2])),
        ..lowered.clone()
    };
    assert!(stale_config::superseded(Some(&gap), None, 3).is_none());
    assert!(stale_config::superseded(None, None, 2).is_none());
}
