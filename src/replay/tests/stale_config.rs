//! stale-config-start (KAFKA-8869): a recreated connector's task started
//! before its new task configs were read.

use super::*;

/// A worker running `a` and `a-0`; `a` is deleted and created again (2.4.1:
/// the revocation of the deleted work, then the assignment of the new
/// connector with the old task id).
fn recreated(old_tasks: bool) -> Run {
    let tasks: &[TaskId] = if old_tasks { &[t("a", 0)] } else { &[] };
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::ConnectorConfigRemoved(n("a")))
        .ev(Event::HandlingConnectorUpdate {
            connector: n("a"),
            action: ConnectorUpdateAction::Stopping,
        })
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(Event::Stopping(task("a", 0)))
        .ev(coop(2, 6, &[], &[], &[t("a", 0)]))
        .ev(Event::FinishedReadingToEnd { offset: 6 })
        .ev(Event::StartingWork { offset: 6 })
        .ev(Event::FinishedStartingWork)
        .ev(Event::ConnectorConfigUpdated(n("a")))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(3, 7, &["a"], tasks, &[]))
        .ev(Event::FinishedReadingToEnd { offset: 7 })
        .ev(Event::StartingWork { offset: 7 });
    r
}

#[test]
fn a_recreated_connectors_task_started_before_its_configs_is_stale() {
    let mut r = recreated(true);
    r.ev(Event::Starting(conn("a")))
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork)
        // The new connector's configs differ: the task is restarted.
        .ev(Event::TaskConfigsUpdated(vec![t("a", 0)]))
        .ev(Event::HandlingTaskUpdate {
            tasks: vec![t("a", 0)],
            wording: TaskUpdateWording::Restarting,
        })
        .ev(Event::Stopping(task("a", 0)))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(4, 8, &["a"], &[t("a", 0)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 8 })
        .ev(Event::StartingWork { offset: 8 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![(26, Kind::StaleConfigStart, "a-0".into())]);
}

#[test]
fn a_recreated_connectors_task_started_after_its_configs_is_not() {
    // 2.5.1+: only the connector is assigned until its task configs come.
    let mut r = recreated(false);
    r.ev(Event::Starting(conn("a")))
        .ev(Event::FinishedStartingWork)
        .ev(Event::TaskConfigsUpdated(vec![t("a", 0)]))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(4, 8, &["a"], &[t("a", 0)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 8 })
        .ev(Event::StartingWork { offset: 8 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn a_worker_restart_after_the_recreation_hides_the_task_configs() {
    // The restarted worker reads the config topic without logging it: the
    // new connector's task configs may be in what it read.
    let mut r = recreated(true);
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(4, 8, &["a"], &[t("a", 0)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 8 })
        .ev(Event::StartingWork { offset: 8 })
        .ev(Event::Starting(conn("a")))
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}

/// A worker running `a-0` reads `a`'s task configs for one task (tasks.max
/// lowered), then `gain` comes in its next assignment (real 4.4.0
/// chaos-s4: a leader that had read less handed out the removed task).
fn lowered(claim: &[TaskId], gain: &[TaskId]) -> Run {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::TaskConfigsUpdated(claim.to_vec()))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(2, 6, &[], gain, &[]))
        .ev(Event::FinishedReadingToEnd { offset: 6 })
        .ev(Event::StartingWork { offset: 6 });
    for x in gain {
        r.ev(Event::Starting(Resource::Task(x.clone())));
    }
    r.ev(Event::FinishedStartingWork);
    r
}

#[test]
fn a_task_the_connectors_latest_task_configs_no_longer_hold_is_stale() {
    let r = lowered(&[t("a", 0)], &[t("a", 1), t("a", 2)]);
    assert_eq!(
        r.finish(),
        vec![
            (16, Kind::StaleConfigStart, "a-1".into()),
            (17, Kind::StaleConfigStart, "a-2".into()),
        ]
    );
}

#[test]
fn a_task_the_latest_task_configs_hold_is_not() {
    // Raised again: the latest line names the task.
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::TaskConfigsUpdated(vec![t("a", 0)]));
    let raised = lowered(&[t("a", 0), t("a", 1)], &[t("a", 1)]);
    assert_eq!(raised.finish(), vec![]);
    assert_eq!(r.finish(), vec![]);
    // A line naming another connector's tasks too (up to 2.3.0 every such
    // line names every task, KAFKA-8676) is not one commit of `a`'s.
    let multi = lowered(&[t("a", 0), t("b", 0)], &[t("a", 1)]);
    assert_eq!(multi.finish(), vec![]);
    // Not the whole set 0..k: no count can be read from it.
    let partial = lowered(&[t("a", 2)], &[t("a", 1)]);
    assert_eq!(partial.finish(), vec![]);
}

#[test]
fn a_worker_restart_after_the_task_configs_hides_later_ones() {
    // The restarted worker reads the config topic without logging it: the
    // task may have come back in what it read.
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::TaskConfigsUpdated(vec![t("a", 0)]))
        .ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(2, 6, &[], &[t("a", 1)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 6 })
        .ev(Event::StartingWork { offset: 6 })
        .ev(Event::Starting(task("a", 1)))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}
