//! Rebalances, stops, starts and restarts over a worker's life: clean
//! lives, stops the protocol justifies or not, restarts, double starts,
//! lost assignments, stale snapshots, eager rebalances, worker restarts and
//! gaps in log time.

use super::*;

#[test]
fn a_clean_cooperative_life_has_no_finding() {
    let mut r = started(&[t("a", 0), t("a", 1)]);
    rebalance(&mut r)
        .ev(Event::Stopping(task("a", 1)))
        .ev(Event::FinishedStoppingForRebalance)
        .ev(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn a_rebalance_stop_of_kept_work_is_unnecessary() {
    let mut r = started(&[t("a", 0), t("a", 1)]);
    rebalance(&mut r).ev(Event::Stopping(task("a", 0))).ev(coop(
        2,
        5,
        &[],
        &[t("a", 0)],
        &[t("a", 1)],
    ));
    let f = r.finish();
    // Line 14 stops a-0, which stays assigned; a-1 is revoked but never
    // stopped: a zombie on the assignment line.
    assert_eq!(
        f,
        vec![
            (14, Kind::UnnecessaryStop, "a-0".into()),
            (15, Kind::Zombie, "a-1".into())
        ]
    );
}

#[test]
fn unknown_protocol_judges_no_rebalance_stop() {
    let mut r = Run::new();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::Rejoining { group: None })
        .ev(Event::Assignment {
            generation: Some(1),
            protocol_version: None,
            assignment: Assignment {
                offset: -1,
                tasks: vec![t("a", 0)].into(),
                revoked_connectors: Some(vec![].into()),
                revoked_tasks: Some(vec![].into()),
                delay: Some(0),
                ..Assignment::default()
            },
            rebalance_delay: None,
        })
        .ev(Event::StartingWork { offset: -1 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork)
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(Event::Stopping(task("a", 0)))
        .ev(Event::Assignment {
            generation: Some(2),
            protocol_version: None,
            assignment: Assignment {
                offset: -1,
                tasks: vec![t("a", 0)].into(),
                revoked_connectors: Some(vec![].into()),
                revoked_tasks: Some(vec![].into()),
                delay: Some(0),
                ..Assignment::default()
            },
            rebalance_delay: None,
        });
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn a_log_starting_mid_rebalance_proves_no_zombie() {
    let mut r = Run::new();
    r.ev(coop(7, 5, &[], &[], &[t("a", 0)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn stop_then_start_outside_a_rebalance_is_a_restart() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::Stopping(task("a", 0)))
        .ev(Event::Starting(task("a", 0)));
    rebalance(&mut r);
    let rep = r.r.finish();
    assert!(rep.findings.is_empty());
    assert_eq!(rep.summary.stops.get(&StopReason::Restart), Some(&1));
}

#[test]
fn an_unexplained_stop_is_judged_at_the_next_rebalance() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::Stopping(task("a", 0)));
    rebalance(&mut r);
    assert_eq!(r.finish(), vec![(10, Kind::UnnecessaryStop, "a-0".into())]);
}

#[test]
fn an_ignored_connector_stop_is_no_stop() {
    let mut r = started(&[]);
    r.ev(Event::Stopping(conn("x")))
        .ev(Event::IgnoringStop(conn("x")));
    rebalance(&mut r);
    let rep = r.r.finish();
    assert!(rep.findings.is_empty());
    assert!(rep.summary.stops.is_empty());
}

#[test]
fn task_config_stop_without_a_change_is_unnecessary() {
    let mut r = started(&[t("a", 0), t("b", 0)]);
    r.ev(Event::TaskConfigsUpdated(vec![t("a", 0), t("b", 0)]))
        .ev(Event::HandlingTaskUpdate {
            tasks: vec![t("a", 0), t("b", 0)],
            wording: TaskUpdateWording::Restarting,
        })
        .ev(Event::Stopping(task("a", 0)))
        .ev(Event::Stopping(task("b", 0)));
    let f = r.finish();
    assert_eq!(
        f,
        vec![
            (13, Kind::UnnecessaryStop, "a-0".into()),
            (14, Kind::UnnecessaryStop, "b-0".into())
        ]
    );
}

#[test]
fn reconfigured_task_moved_away_must_not_restart() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::TaskConfigsUpdated(vec![t("a", 0)]))
        .ev(Event::HandlingTaskUpdate {
            tasks: vec![t("a", 0)],
            wording: TaskUpdateWording::Stopping,
        })
        .ev(Event::Stopping(task("a", 0)));
    rebalance(&mut r)
        .ev(coop(2, 6, &[], &[], &[t("a", 0)]))
        .ev(Event::StartingWork { offset: 6 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![(18, Kind::ForeignStart, "a-0".into())]);
}

#[test]
fn refused_start_is_a_double_start() {
    let mut r = Run::new();
    r.ev(Event::Starting(task("a", 0)))
        .ev(Event::StartFailed {
            resource: task("a", 0),
            how: StartFailure::CouldNotInstantiate,
        })
        .ev(Event::AlreadyExists(task("a", 0)));
    assert_eq!(r.finish(), vec![(1, Kind::DoubleStart, "a-0".into())]);
}

#[test]
fn known_running_start_is_a_double_start_once() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::Starting(task("a", 0)))
        .ev(Event::StartFailed {
            resource: task("a", 0),
            how: StartFailure::CouldNotInstantiate,
        })
        .ev(Event::AlreadyExists(task("a", 0)));
    let rep = r.r.finish();
    assert_eq!(rep.findings.len(), 1);
    assert_eq!(
        rep.findings[0].evidence.len(),
        3,
        "{:#?}",
        rep.findings[0].evidence
    );
}

#[test]
fn self_revoked_work_not_restarted_is_lost() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::CoordinatorUnreachable {
        millis: 3000,
        assignment: None,
    })
    .ev(Event::Stopping(task("a", 0)))
    .ev(Event::FinishedStoppingForRebalance)
    .ev(coop(5, 5, &[], &[t("a", 0)], &[]))
    .ev(Event::StartingWork { offset: 5 })
    .ev(Event::FinishedStartingWork);
    let rep = r.r.finish();
    let f: Vec<_> = rep.findings.iter().map(|f| (f.kind, f.upstream)).collect();
    assert_eq!(f, vec![(Kind::LostAssignment, Some("KAFKA-9851"))]);
}

#[test]
fn starting_on_a_stale_snapshot() {
    let mut r = started(&[]);
    rebalance(&mut r)
        .ev(coop(2, 9, &[], &[], &[]))
        .ev(Event::StartingWork { offset: 9 })
        .ev(Event::FinishedStartingWork);
    // The snapshot is known at 5 (read to the end at line 6): no catch-up.
    assert_eq!(
        r.finish(),
        vec![(13, Kind::OffsetMismatchStart, "-".into())]
    );
}

#[test]
fn a_config_update_makes_the_offset_unknown() {
    let mut r = started(&[]);
    r.ev(Event::ConnectorConfigUpdated(n("x")));
    rebalance(&mut r)
        .ev(coop(2, 9, &["x"], &[], &[]))
        .ev(Event::StartingWork { offset: 9 })
        .ev(Event::Starting(conn("x")))
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn eager_rebalances_stop_everything_legitimately() {
    let mut r = Run::new();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::Rejoining { group: None })
        .ev(eager_v0(-1, &["x"], &[t("x", 0)]))
        .ev(Event::StartingWork { offset: -1 })
        .ev(Event::Starting(conn("x")))
        .ev(Event::Starting(task("x", 0)))
        .ev(Event::FinishedStartingWork)
        .ev(Event::RebalanceStarted { by_herder: true })
        .ev(Event::Stopping(conn("x")))
        .ev(Event::Stopping(task("x", 0)))
        .ev(Event::FinishedStoppingForRebalance)
        .ev(Event::Rejoining { group: None })
        .ev(eager_v0(-1, &["x"], &[t("x", 0)]))
        .ev(Event::StartingWork { offset: -1 })
        .ev(Event::Starting(conn("x")))
        .ev(Event::FinishedStartingWork);
    let rep = r.r.finish();
    let f: Vec<_> = rep
        .findings
        .iter()
        .map(|f| {
            (
                f.trigger.line,
                f.kind,
                f.resource.as_ref().map(Resource::id),
            )
        })
        .collect();
    // x-0 was stopped by the rebalance and not started again.
    assert_eq!(f, vec![(16, Kind::LostAssignment, Some("x-0".into()))]);
    assert_eq!(rep.summary.stops.get(&StopReason::EagerRebalance), Some(&2));
}

#[test]
fn restart_resets_the_state() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::Milestone(Milestone::ConnectStarting))
        .ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::Rejoining { group: None })
        .ev(coop(3, 5, &[], &[t("a", 0)], &[]))
        .ev(Event::ConfigBehind {
            current: -1,
            assignment: 5,
        })
        .ev(Event::FinishedReadingToEnd { offset: 5 })
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    let rep = r.r.finish();
    assert!(rep.findings.is_empty(), "{:#?}", rep.findings);
    assert_eq!(rep.summary.restarts, 1);
}

#[test]
fn a_restarted_worker_must_catch_up_before_starting() {
    let mut r = started(&[t("a", 0)]);
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::Rejoining { group: None })
        .ev(coop(3, 5, &[], &[t("a", 0)], &[]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::FinishedStartingWork);
    // The new process's snapshot is empty (-1) until it reads the config log.
    assert_eq!(
        r.finish(),
        vec![(13, Kind::OffsetMismatchStart, "-".into())]
    );
}

#[test]
fn a_time_jump_inside_a_rebalance_leaves_it_unjudged() {
    let mut r = started(&[t("a", 0), t("a", 1)]);
    r.ev_at(Event::RebalanceStarted { by_herder: false }, Some(100))
        .ev_at(Event::Rejoining { group: None }, Some(100))
        .ev_at(Event::Stopping(task("a", 0)), Some(101))
        // Two hours later: whatever happened in between is not in the log.
        .ev_at(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]), Some(7300));
    let rep = r.r.finish();
    assert!(rep.findings.is_empty(), "{:#?}", rep.findings);
    assert!(
        rep.summary
            .notes
            .iter()
            .any(|n| n.text.contains("jumps 119 min")),
        "{:?}",
        rep.summary.notes
    );
}

/// A connector stopped (KIP-875) and resumed later, on a worker that runs
/// only one of its tasks: its resume may log no `Setting connector X state
/// to STARTED` here, only the herder's `target state change`. A later
/// rebalance stop of the task is judged again, not excused by the old stop.
#[test]
fn a_target_state_change_ends_the_stopped_excuse() {
    use crate::event::TargetState;
    let stopped_then = |resume: bool| {
        let mut r = started(&[t("a", 0)]);
        r.ev(Event::TargetStateChange(n("a")))
            .ev(Event::SettingTargetState {
                connector: n("a"),
                state: TargetState::Stopped,
            });
        if resume {
            r.ev(Event::TargetStateChange(n("a")));
        }
        rebalance(&mut r)
            .ev(Event::Stopping(task("a", 0)))
            .ev(coop(2, 5, &[], &[t("a", 0)], &[]));
        r.finish()
    };
    // Still stopped: the stop is the stopped connector's.
    assert_eq!(stopped_then(false), vec![]);
    // Resumed: the task stays assigned and is not revoked.
    let f = stopped_then(true);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].1, Kind::UnnecessaryStop);
}

/// A worker killed and started again into the same log: the new process's
/// preamble (config dump, advertised URL) comes before `Kafka Connect
/// starting`, and the old process's last line is the one before it.
#[test]
fn a_process_started_into_the_same_log_is_silent_from_the_old_one_s_last_line() {
    let mut r = Run::new();
    r.r = WorkerReplay::new("w", true).with_facts();
    r.ev_at(Event::Milestone(Milestone::ConnectStarting), Some(0))
        .ev_at(Event::StartingWork { offset: -1 }, Some(1))
        .ev_at(Event::Starting(task("a", 0)), Some(2)) // line 3: the last
        .ev_at(Event::DistributedConfigDump, Some(20))
        .ev_at(Event::AdvertisedUrl("http://w:8083/".into()), Some(24))
        .ev_at(Event::Milestone(Milestone::ConnectStarting), Some(25));
    let silences: Vec<(u64, u64)> =
        r.r.take_facts()
            .into_iter()
            .filter_map(|f| match f.kind {
                FactKind::Signal(Signal::Silence { last }) => Some((f.line.line, last.line)),
                _ => None,
            })
            .collect();
    // The gap before the dump, then the new process's start: both from
    // line 3, not from the advertised URL just before `starting`.
    assert_eq!(silences, [(4, 3), (6, 3)]);
}
