//! The instance life cycle: failed starts. A start that fails while its
//! lines are coming is never handed on (its facts and findings are held
//! back until its outcome is known); a failed resource stays failed while
//! it stays assigned.

use super::*;

impl Run {
    fn with_facts() -> Run {
        Run {
            r: WorkerReplay::new("w", true).with_facts(),
            seq: 0,
            found: Vec::new(),
        }
    }
    /// The facts handed on so far, as (line, kind name, resource); the
    /// findings among them are kept for [`Run::finish`].
    fn facts(&mut self) -> Vec<(u64, &'static str, String)> {
        let facts = self.r.take_facts();
        for f in &facts {
            if let FactKind::Finding(x) | FactKind::ForeignStart { finding: x, .. } = &f.kind {
                self.found.push((**x).clone());
            }
        }
        facts
            .into_iter()
            .filter_map(|f| {
                let (kind, r) = match &f.kind {
                    FactKind::Start { resource, .. } => ("start", resource.id()),
                    FactKind::StartFailed { resource } => ("start-failed", resource.id()),
                    FactKind::Stop { resource, .. } => ("stop", resource.id()),
                    FactKind::Held { resources, .. } => (
                        "held",
                        resources
                            .iter()
                            .map(Resource::id)
                            .collect::<Vec<_>>()
                            .join(","),
                    ),
                    FactKind::Assignment { live, .. } => (
                        "live",
                        live.iter()
                            .map(|(r, _)| r.id())
                            .collect::<Vec<_>>()
                            .join(","),
                    ),
                    _ => return None,
                };
                Some((f.line.line, kind, r))
            })
            .collect()
    }
    fn state(&self, r: &Resource) -> Option<&ResState> {
        self.r.inc.res.get(r)
    }
}

fn failed(r: &Resource, how: StartFailure) -> Event {
    Event::StartFailed {
        resource: r.clone(),
        how,
    }
}

/// A worker start whose first start phase starts `a-0`, which fails with
/// `how`; the facts of it are taken.
fn failing_start(how: StartFailure) -> Run {
    let mut r = Run::with_facts();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(1, 5, &[], &[t("a", 0), t("a", 1)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 5 })
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::Starting(task("a", 1)))
        .ev(Event::Creating(task("a", 0)))
        .ev(Event::Creating(task("a", 1)))
        .ev(failed(&task("a", 0), how))
        .ev(Event::FinishedStartingWork);
    r
}

#[test]
fn a_start_that_fails_while_its_lines_come_is_never_handed_on() {
    let mut r = failing_start(StartFailure::Worker);
    // Line 8 (`Starting task a-1`) ran; line 7 (a-0) is withdrawn.
    assert_eq!(
        r.facts(),
        vec![(4, "live", String::new()), (8, "start", "a-1".into())]
    );
    assert!(matches!(
        r.state(&task("a", 0)),
        Some(ResState::Failed {
            registered: false,
            start: Some(s),
            ..
        }) if s.line == 7
    ));
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn a_start_is_held_back_until_its_outcome_is_known() {
    let mut r = Run::with_facts();
    r.ev(Event::Starting(task("a", 0)))
        .ev(Event::Creating(task("a", 0)));
    assert_eq!(r.facts(), vec![]);
    assert!(matches!(
        r.state(&task("a", 0)),
        Some(ResState::Starting { .. })
    ));
    // Any other line settles it.
    r.ev(Event::SessionKeyUpdated);
    assert_eq!(r.facts(), vec![(1, "start", "a-0".into())]);
    assert!(matches!(
        r.state(&task("a", 0)),
        Some(ResState::Running { .. })
    ));
}

#[test]
fn a_failure_after_the_start_was_handed_on_is_a_start_failed_fact() {
    // 2.6.0+: a connector's start fails on its own thread, after the
    // herder went on (`WorkerConnector{id=c} Error while starting
    // connector`, then `Failed to start connector 'c'`).
    let mut r = Run::with_facts();
    r.ev(Event::Starting(conn("c")))
        .ev(Event::Creating(conn("c")))
        .ev(Event::FinishedCreatingConnector(n("c")))
        .ev(Event::FinishedStartingWork)
        .ev(failed(&conn("c"), StartFailure::ConnectorStart))
        .ev(failed(&conn("c"), StartFailure::HerderCallback));
    assert_eq!(
        r.facts(),
        vec![(1, "start", "c".into()), (5, "start-failed", "c".into())]
    );
    // The Worker keeps the FAILED connector: the herder's line does not
    // undo that.
    assert!(matches!(
        r.state(&conn("c")),
        Some(ResState::Failed {
            registered: true,
            ..
        })
    ));
}

#[test]
fn a_failed_restart_in_a_plan_leaves_nothing_running() {
    // KIP-745: `Task 'a-0' restart failed` with a stack of its own (the
    // start threw before the Worker logged anything).
    let mut r = started(&[t("a", 0)]);
    r.r.facts = Some(Vec::new());
    r.ev(Event::ExecutingPlan { connector: n("a") })
        .ev(Event::Stopping(task("a", 0)))
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::RestartOutcome {
            resource: task("a", 0),
            ok: false,
        })
        .ev(Event::CompletedPlan { connector: n("a") });
    let facts = r.facts();
    assert!(
        !facts.iter().any(|(l, k, _)| *k == "start" && *l == 12),
        "{facts:?}"
    );
    assert!(matches!(
        r.state(&task("a", 0)),
        Some(ResState::Failed { .. })
    ));
    // Revoked later with no stop logged: no zombie (nothing runs).
    rebalance(&mut r)
        .ev(coop(2, 5, &[], &[], &[t("a", 0)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    let facts = r.facts();
    assert!(facts.contains(&(18, "live", String::new())), "{facts:?}");
    let found = r.finish();
    assert!(!found.iter().any(|f| f.1 == Kind::Zombie), "{found:?}");
}

#[test]
fn a_failed_resource_stays_failed_while_it_stays_assigned() {
    let mut r = failing_start(StartFailure::Worker);
    r.facts();
    for g in 2..5 {
        r.ev(Event::RebalanceStarted { by_herder: false })
            .ev(Event::Rejoining { group: None })
            .ev(coop(g, 5, &[], &[t("a", 0), t("a", 1)], &[]))
            .ev(Event::StartingWork { offset: 5 })
            .ev(Event::FinishedStartingWork);
    }
    // Neither lost nor running, in any generation.
    let live: Vec<_> = r.facts().into_iter().filter(|f| f.1 == "live").collect();
    assert_eq!(live.len(), 3);
    assert!(live.iter().all(|(_, _, l)| l == "a-1"), "{live:?}");
    assert_eq!(r.finish(), vec![]);
}

#[test]
fn a_task_config_update_restarts_failed_tasks_too() {
    let mut r = failing_start(StartFailure::Worker);
    r.ev(Event::TaskConfigsUpdated(vec![t("a", 0), t("a", 1)]))
        .ev(Event::HandlingTaskUpdate {
            tasks: vec![t("a", 0), t("a", 1)],
            wording: TaskUpdateWording::Stopping,
        })
        .ev(Event::IgnoringStop(task("a", 0)))
        .ev(Event::IgnoringAwaitStop(task("a", 0)))
        .ev(Event::Stopping(task("a", 1)));
    rebalance(&mut r)
        .ev(coop(2, 6, &[], &[t("a", 0), t("a", 1)], &[]))
        .ev(Event::FinishedReadingToEnd { offset: 6 })
        .ev(Event::StartingWork { offset: 6 })
        .ev(Event::Starting(task("a", 1)))
        .ev(Event::FinishedStartingWork);
    // a-0 was stopped (for a failed task: `Ignoring stop request`) and is
    // due to be restarted: not starting it loses it.
    assert_eq!(r.finish(), vec![(25, Kind::LostAssignment, "a-0".into())]);
}

#[test]
fn an_eager_rebalance_retries_a_failed_start() {
    let mut r = Run::new();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::Rejoining { group: None })
        .ev(eager_v0(5, &[], &[t("a", 0)]))
        .ev(Event::FinishedReadingToEnd { offset: 5 })
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::Starting(task("a", 0)))
        .ev(failed(&task("a", 0), StartFailure::Worker))
        .ev(Event::FinishedStartingWork)
        .ev(Event::RebalanceStarted { by_herder: true })
        .ev(Event::Rejoining { group: None })
        .ev(eager_v0(5, &[], &[t("a", 0)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![(13, Kind::LostAssignment, "a-0".into())]);
}

#[test]
fn a_task_failing_initialization_is_held_by_the_worker_but_not_running() {
    let mut r = failing_start(StartFailure::Initialization);
    assert!(matches!(
        r.state(&task("a", 0)),
        Some(ResState::Failed {
            registered: true,
            ..
        })
    ));
    // Revoked: the Worker stops the failed instance for real.
    rebalance(&mut r)
        .ev(Event::Stopping(task("a", 0)))
        .ev(coop(2, 5, &[], &[t("a", 1)], &[t("a", 0)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    let rep = r.r.finish();
    assert!(rep.findings.is_empty(), "{:#?}", rep.findings);
    assert_eq!(
        rep.summary.stops.get(&StopReason::Revoked).copied(),
        Some(1)
    );
}

#[test]
fn a_held_connector_refused_without_a_cause_runs_on() {
    // 2.6.x-2.7.x: `Failed to start connector 'c'` with no Worker line
    // since `Starting connector c`, while c runs: the Worker refused it.
    let mut r = Run::with_facts();
    r.ev(Event::Starting(conn("c")))
        .ev(Event::Creating(conn("c")))
        .ev(Event::FinishedStartingWork)
        .ev(Event::Starting(conn("c")))
        .ev(failed(&conn("c"), StartFailure::HerderCallback))
        .ev(Event::SessionKeyUpdated);
    assert!(matches!(
        r.state(&conn("c")),
        Some(ResState::Running { since, .. }) if since.line == 1
    ));
    // The second start never reached the cross-worker checks; the first
    // instance is on their books still.
    let facts = r.facts();
    assert_eq!(
        facts.iter().filter(|f| f.1 == "start").count(),
        1,
        "{facts:?}"
    );
    let found = std::mem::take(&mut r.found);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, Kind::DoubleStart);
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.role.contains("refuses") && e.line.line == 5),
        "{:#?}",
        found[0].evidence
    );
}

/// A REST restart of a task whose connector class this worker cannot load
/// (3.3.0+, `DistributedHerder.restartTask`): `Starting task a-0`, then
/// AbstractHerder's `Unable to retrieve connector type` and nothing else:
/// `startTask` threw before the Worker was asked, so no instance runs.
#[test]
fn an_unknown_connector_type_after_a_task_start_fails_it() {
    let run = |answered: bool| {
        let mut r = Run::with_facts();
        r.ev(Event::Starting(task("a", 0)));
        if answered {
            r.ev(Event::Creating(task("a", 0)));
        }
        r.ev(Event::ConnectorTypeUnknown)
            .ev(Event::SessionKeyUpdated);
        let facts = r.facts();
        (facts, r.state(&task("a", 0)).cloned())
    };
    let (facts, state) = run(false);
    assert_eq!(facts, vec![]);
    assert!(
        matches!(
            state,
            Some(ResState::Failed {
                registered: false,
                ..
            })
        ),
        "{state:?}"
    );
    // The Worker answered the start: the warning is of something else
    // (a REST call asking for the connector's type).
    let (facts, state) = run(true);
    assert_eq!(facts, vec![(1, "start", "a-0".into())]);
    assert!(matches!(state, Some(ResState::Running { .. })), "{state:?}");
}
