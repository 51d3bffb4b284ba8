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
