//! The state machine on hand-built event sequences (no parsing involved).

use super::*;
use crate::event::{Milestone, StartFailure, TaskUpdateWording};
use crate::finding::Kind;
use crate::model::{Assignment, Name, SourceId, TaskId};
use std::sync::Arc;

struct Run {
    r: WorkerReplay,
    seq: u64,
    /// Findings handed on as facts (facts mode).
    found: Vec<crate::finding::Finding>,
}

impl Run {
    fn new() -> Run {
        Run {
            r: WorkerReplay::new("w", true),
            seq: 0,
            found: Vec::new(),
        }
    }
    fn ev(&mut self, e: Event) -> &mut Run {
        self.ev_at(e, None)
    }
    fn ev_at(&mut self, e: Event, secs: Option<i64>) -> &mut Run {
        self.seq += 1;
        let l = SourceLine {
            source: SourceId(0),
            line: self.seq,
            seq: self.seq,
            ts: secs.map(|s| crate::model::Timestamp(s * 1000)),
            text: Arc::from(format!("{e:?}")),
            msg: (0, 0),
        };
        self.r.apply(&e, &l, LineCtx::default());
        self
    }
    fn finish(mut self) -> Vec<(u64, Kind, String)> {
        let (rep, facts) = self.r.finish_with_facts();
        self.found.extend(rep.findings);
        for f in facts {
            if let FactKind::Finding(x) | FactKind::ForeignStart { finding: x, .. } = f.kind {
                self.found.push(*x);
            }
        }
        self.found
            .iter()
            .map(|f| {
                (
                    f.trigger.line,
                    f.kind,
                    f.resource.as_ref().map_or("-".into(), |r| r.id()),
                )
            })
            .collect()
    }
}

fn n(s: &str) -> Name {
    Arc::from(s)
}
fn t(c: &str, i: u32) -> TaskId {
    TaskId::new(c, i)
}
fn task(c: &str, i: u32) -> Resource {
    Resource::Task(t(c, i))
}
fn conn(c: &str) -> Resource {
    Resource::Connector(n(c))
}

fn coop(
    generation: i32,
    offset: i64,
    conns: &[&str],
    tasks: &[TaskId],
    revoked: &[TaskId],
) -> Event {
    Event::Assignment {
        generation: Some(generation),
        protocol_version: Some(2),
        assignment: Assignment {
            error: 0,
            leader: "l".into(),
            leader_url: "http://l:8083/".into(),
            offset,
            connectors: conns.iter().map(|c| n(c)).collect(),
            tasks: tasks.to_vec(),
            revoked_connectors: Some(vec![]),
            revoked_tasks: Some(revoked.to_vec()),
            delay: Some(0),
        },
        rebalance_delay: Some(0),
    }
}

fn eager_v0(offset: i64, conns: &[&str], tasks: &[TaskId]) -> Event {
    Event::Assignment {
        generation: None,
        protocol_version: None,
        assignment: Assignment {
            offset,
            connectors: conns.iter().map(|c| n(c)).collect(),
            tasks: tasks.to_vec(),
            ..Assignment::default()
        },
        rebalance_delay: None,
    }
}

/// Worker start, first rebalance at `offset` starting `tasks`.
fn started(tasks: &[TaskId]) -> Run {
    let mut r = Run::new();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(1, 5, &[], tasks, &[]))
        .ev(Event::CatchingUp)
        .ev(Event::FinishedReadingToEnd { offset: 5 })
        .ev(Event::StartingWork { offset: 5 });
    for x in tasks {
        r.ev(Event::Starting(Resource::Task(x.clone())));
    }
    r.ev(Event::FinishedStartingWork);
    r
}

fn rebalance(r: &mut Run) -> &mut Run {
    r.ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(Event::JoinedGeneration {
            generation: 2,
            member_id: None,
            protocol: None,
            group: None,
        })
}

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
                tasks: vec![t("a", 0)],
                revoked_connectors: Some(vec![]),
                revoked_tasks: Some(vec![]),
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
                tasks: vec![t("a", 0)],
                revoked_connectors: Some(vec![]),
                revoked_tasks: Some(vec![]),
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

// ---- the instance life cycle: failed starts ----

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
                    FactKind::Stop { resource } => ("stop", resource.id()),
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

// ---- stale-config-start (KAFKA-8869) ----

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

impl Run {
    /// The reader says lines before the next one may have been missed.
    fn missed(&mut self) -> &mut Run {
        let l = SourceLine {
            source: SourceId(0),
            line: self.seq + 1,
            seq: self.seq + 1,
            ts: None,
            text: Arc::from("missed"),
            msg: (0, 0),
        };
        self.r.lines_missed_before(&l);
        self
    }
}

#[test]
fn no_finding_rests_on_lines_the_reader_missed() {
    // a-0 and a-1 run; their stops may be among the lines missed: a start
    // of a-0 is no double start, a revocation of a-1 no zombie, and the
    // unstarted a-0 of the next phase is not lost either.
    let mut r = started(&[t("a", 0), t("a", 1)]);
    r.missed().ev(Event::Starting(task("a", 0)));
    rebalance(&mut r)
        .ev(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
    // Without the missed lines, both are findings.
    let mut r = started(&[t("a", 0), t("a", 1)]);
    r.ev(Event::Starting(task("a", 0)));
    rebalance(&mut r).ev(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]));
    let kinds: Vec<Kind> = r.finish().into_iter().map(|(_, k, _)| k).collect();
    assert_eq!(kinds, vec![Kind::DoubleStart, Kind::Zombie]);
}

#[test]
fn what_is_seen_after_the_missed_lines_is_judged_again() {
    let mut r = started(&[t("a", 0)]);
    r.missed()
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::Starting(task("a", 0)));
    assert_eq!(r.finish(), vec![(11, Kind::DoubleStart, "a-0".into())]);
}
