//! Tests of the `DistributedHerder` parsers, one message kind at a time,
//! through the dispatcher [`parse`] (the first-byte switch included).

use super::parse;
use crate::event::parse::common::name;
use crate::event::{
    AssignmentFailure, ConnectorUpdateAction, Event, Milestone, StartFailure, TaskUpdateWording,
};
use crate::model::{Name, Resource, TaskId};

fn p(msg: &str) -> Option<Event> {
    parse(msg)
}
fn n(s: &str) -> Name {
    name(s)
}
fn t(c: &str, i: u32) -> TaskId {
    TaskId::new(c, i)
}
fn conn(s: &str) -> Resource {
    Resource::Connector(n(s))
}
fn task(c: &str, i: u32) -> Resource {
    Resource::Task(t(c, i))
}

/// Each message parses to its event (`None`: no parser takes it).
fn parses(cases: &[(&str, Option<Event>)]) {
    for (m, want) in cases {
        assert_eq!(&p(m), want, "{m}");
    }
}

#[test]
fn assignment_v0() {
    // sample 08
    let e = p("Joined group and got assignment: Assignment{error=0, leader='connect-1-6c8faeb1-5771-4049-9587-866bc4fcc92c', leaderUrl='http://localhost:8082/', offset=-1, connectorIds=[], taskIds=[]}").unwrap();
    let Event::Assignment {
        generation: None,
        protocol_version: None,
        assignment,
        rebalance_delay: None,
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(assignment.offset, -1);
    assert!(!assignment.is_extended());
    // sample 10
    let e = p("Joined group and got assignment: Assignment{error=0, leader='connect-1-4d60cb71-cb93-4388-8908-6f0d299a9d94', leaderUrl='http://172.17.0.7:9092/', offset=1, connectorIds=[inventory-connector], taskIds=[]}").unwrap();
    let Event::Assignment { assignment, .. } = e else {
        panic!()
    };
    assert_eq!(*assignment.connectors, vec![n("inventory-connector")]);
}

#[test]
fn assignment_2_3() {
    let e = p("Joined group at generation 8 and got assignment: Assignment{error=0, leader='connect-1-3a9d', leaderUrl='http://w1:8083/', offset=45, connectorIds=[a], taskIds=[a-0, b-0, b-1], revokedConnectorIds=[], revokedTaskIds=[], delay=0}").unwrap();
    let Event::Assignment {
        generation: Some(8),
        protocol_version: None,
        assignment,
        rebalance_delay: None,
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(*assignment.tasks, vec![t("a", 0), t("b", 0), t("b", 1)]);
    assert_eq!(assignment.delay, Some(0));
}

#[test]
fn assignment_2_4() {
    // sample 03 (gen 4 revokes)
    let e = p("Joined group at generation 4 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-1-3b5b3704-b325-47a7-9528-d1daa049e5e6', leaderUrl='http://connect:8083/', offset=7, connectorIds=[], taskIds=[], revokedConnectorIds=[http-sink], revokedTaskIds=[http-sink-0], delay=0} with rebalance delay: 0").unwrap();
    let Event::Assignment {
        generation: Some(4),
        protocol_version: Some(2),
        assignment,
        rebalance_delay: Some(0),
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(
        assignment.revoked_connectors.as_deref(),
        Some(&vec![n("http-sink")][..])
    );
    assert_eq!(
        assignment.revoked_tasks.as_deref(),
        Some(&vec![t("http-sink", 0)][..])
    );
    let e = p("Joined group at generation 9 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-1-3a9d', leaderUrl='http://w1:8083/', offset=60, connectorIds=[], taskIds=[sink-0], revokedConnectorIds=[], revokedTaskIds=[], delay=300000} with rebalance delay: 300000").unwrap();
    assert!(matches!(
        e,
        Event::Assignment {
            rebalance_delay: Some(300000),
            ..
        }
    ));
    assert_eq!(
        p(
            "Joined group at generation 9 with protocol version 2 and got assignment: Assignment{broken} with rebalance delay: 0"
        ),
        None
    );
}

#[test]
fn assignment_failures() {
    use AssignmentFailure::*;
    for (m, how) in [
        (
            "Join group completed, but assignment failed and we are the leader. Reading to end of config and retrying.",
            Leader,
        ),
        (
            "Join group completed, but assignment failed and we lagging. Reading to end of config and retrying.",
            Lagging,
        ),
        (
            "Join group completed, but assignment failed and we are lagging. Reading to end of config and retrying.",
            Lagging,
        ),
        (
            "Join group completed, but assignment failed. We were up to date, so just retrying.",
            UpToDate,
        ),
    ] {
        assert_eq!(p(m), Some(Event::AssignmentFailed(how)), "{m}");
    }
    assert_eq!(p("Join group completed, but assignment failed"), None);
}

#[test]
fn rebalance_housekeeping() {
    parses(&[
        (
            "Finished stopping tasks in preparation for rebalance",
            Some(Event::FinishedStoppingForRebalance),
        ),
        (
            "Finished flushing status backing store in preparation for rebalance",
            Some(Event::FinishedFlushingStatus),
        ),
        (
            "Wasn't unable to resume work after last rebalance, can skip stopping connectors and tasks",
            Some(Event::SkipStoppingUnresolved),
        ),
        (
            "Wasn't able to resume work after last rebalance, can skip stopping connectors and tasks",
            Some(Event::SkipStoppingUnresolved),
        ),
        (
            "Requesting rebalance due to reconfiguration of tasks (needsReconfigRebalance: true)",
            Some(Event::ReconfigRebalanceRequested),
        ),
        (
            "Handling completed but unresolved rebalance",
            Some(Event::UnresolvedRebalance),
        ),
        (
            "Rebalance started",
            Some(Event::RebalanceStarted { by_herder: true }),
        ),
        ("Rebalance failed.", None),
    ]);
}

#[test]
fn scheduled_rebalance_all_four_wordings() {
    for m in [
        "Scheduled rebalance at: 1700000300000 (now: 1700000000000 nextRequestTimeoutMs: 300000)",
        "Scheduled rebalance at: 1700000300000 (now: 1700000000000 scheduledTick: 1700000300000)",
    ] {
        assert_eq!(
            p(m),
            Some(Event::ScheduledRebalance { reached: false }),
            "{m}"
        );
    }
    for m in [
        "Requesting rebalance because scheduled rebalance timeout has been reached (now: 1700000300000 scheduledRebalance: 1700000300001",
        "Requesting rebalance because scheduled rebalance timeout has been reached now: 1700000300001 scheduledRebalance: 1700000300000",
    ] {
        assert_eq!(
            p(m),
            Some(Event::ScheduledRebalance { reached: true }),
            "{m}"
        );
    }
    assert_eq!(
        p(
            "worker poll timeout has expired. The last known action being performed by the worker is : starting 4 connector(s) and task(s) after a rebalance and may contribute to the timeout. …"
        ),
        Some(Event::PollTimeoutExpired)
    );
}

#[test]
fn config_offsets() {
    // sample 06
    parses(&[
        (
            "Current config state offset -1 is behind group assignment 1, reading to end of config log",
            Some(Event::ConfigBehind {
                current: -1,
                assignment: 1,
            }),
        ),
        (
            "Finished reading to end of log and updated config snapshot, new config log offset: 1",
            Some(Event::FinishedReadingToEnd { offset: 1 }),
        ),
        (
            "Catching up to assignment's config offset.",
            Some(Event::CatchingUp),
        ),
        (
            "Reading to end of config log; current config state offset: 63",
            Some(Event::ReadingToEnd { current: 63 }),
        ),
        (
            "Didn't reach end of config log quickly enough",
            Some(Event::ReadToEndTimedOut),
        ),
        (
            "Current config state offset 63 does not match group assignment 61. Forcing rebalance.",
            Some(Event::ConfigMismatch {
                current: 63,
                assignment: 61,
            }),
        ),
        (
            "Revoking current running assignment Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[x], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} because after 5 retries the worker has not caught up with the latest Connect cluster updates",
            Some(Event::RevokingAfterRetries { retries: 5 }),
        ),
        (
            "Current config state offset x is behind group assignment 1, reading to end of config log",
            None,
        ),
    ]);
}

#[test]
fn starting_work_and_resources() {
    parses(&[
        (
            "Starting connectors and tasks using config offset -1",
            Some(Event::StartingWork { offset: -1 }),
        ),
        (
            "Starting connectors and tasks using config offset 7",
            Some(Event::StartingWork { offset: 7 }),
        ),
        (
            "Finished starting connectors and tasks",
            Some(Event::FinishedStartingWork),
        ),
        (
            "Starting connector cdc-exam",
            Some(Event::Starting(conn("cdc-exam"))),
        ),
        (
            "Starting connector my conn.v1_2",
            Some(Event::Starting(conn("my conn.v1_2"))),
        ),
        (
            "Starting task replicate-europe-to-us-0",
            Some(Event::Starting(task("replicate-europe-to-us", 0))),
        ),
        (
            "Starting task a b-12",
            Some(Event::Starting(task("a b", 12))),
        ),
    ]);
    // look-alikes
    parses(&[
        ("Starting connectors and tasks using config offset x", None),
        ("Starting connectors and tasks", None),
        ("Starting task notatask", None),
        ("Starting KafkaConfigBackingStore", None),
        ("Starting connector ", None),
    ]);
}

#[test]
fn start_failures() {
    parses(&[
        (
            "Couldn't instantiate task src-2 because it has an invalid task configuration. This task will not execute until reconfigured.",
            Some(Event::StartFailed {
                resource: task("src", 2),
                how: StartFailure::CouldNotInstantiate,
            }),
        ),
        (
            "Couldn't instantiate connector my conn because it has an invalid connector configuration. This connector will not execute until reconfigured.",
            Some(Event::StartFailed {
                resource: conn("my conn"),
                how: StartFailure::CouldNotInstantiate,
            }),
        ),
        (
            "Unexpected error while trying to start connector a.b",
            Some(Event::StartFailed {
                resource: conn("a.b"),
                how: StartFailure::Unexpected,
            }),
        ),
        (
            "Failed to start connector 'my-sink'",
            Some(Event::StartFailed {
                resource: conn("my-sink"),
                how: StartFailure::HerderCallback,
            }),
        ),
        (
            "Failed to shut down connector x_y",
            Some(Event::ShutdownFailed(n("x_y"))),
        ),
        ("Failed to start connector x", None),
        (
            "Unexpected error while trying to process restart request for {connectorName='a', onlyFailed=false, includeTasks=true}, the restart request will be skipped.",
            None,
        ),
    ]);
}

#[test]
fn config_updates() {
    parses(&[
        (
            "Connector kinesis-source-local config updated",
            Some(Event::ConnectorConfigUpdated(n("kinesis-source-local"))),
        ),
        (
            "Connector my conn config updated",
            Some(Event::ConnectorConfigUpdated(n("my conn"))),
        ),
        (
            "Connector http-sink config removed",
            Some(Event::ConnectorConfigRemoved(n("http-sink"))),
        ),
        (
            "Connector a.b target state change",
            Some(Event::TargetStateChange(n("a.b"))),
        ),
        (
            "Tasks [a-0, a-1, b-0, b-1] configs updated",
            Some(Event::TaskConfigsUpdated(vec![
                t("a", 0),
                t("a", 1),
                t("b", 0),
                t("b", 1),
            ])),
        ),
        (
            "Tasks [] configs updated",
            Some(Event::TaskConfigsUpdated(vec![])),
        ),
        (
            "Handling connector-only config update by restarting connector a",
            Some(Event::HandlingConnectorUpdate {
                connector: n("a"),
                action: ConnectorUpdateAction::Restarting,
            }),
        ),
        (
            "Handling connector-only config update by stopping connector http-sink",
            Some(Event::HandlingConnectorUpdate {
                connector: n("http-sink"),
                action: ConnectorUpdateAction::Stopping,
            }),
        ),
        (
            "Handling task config update by restarting tasks []",
            Some(Event::HandlingTaskUpdate {
                tasks: vec![],
                wording: TaskUpdateWording::Restarting,
            }),
        ),
        (
            "Handling task config update by restarting tasks [replicate-europe-to-us-0]",
            Some(Event::HandlingTaskUpdate {
                tasks: vec![t("replicate-europe-to-us", 0)],
                wording: TaskUpdateWording::Restarting,
            }),
        ),
        (
            "Handling task config update by stopping tasks [a-0, b c-1], which will be restarted after rebalance if still assigned to this worker",
            Some(Event::HandlingTaskUpdate {
                tasks: vec![t("a", 0), t("b c", 1)],
                wording: TaskUpdateWording::Stopping,
            }),
        ),
        (
            "Skipping reconfiguration of connector my conn since it is not running",
            Some(Event::SkippingReconfiguration(n("my conn"))),
        ),
        (
            "Skipping reconfiguration of connector c since its target state is STOPPED",
            Some(Event::SkippingReconfiguration(n("c"))),
        ),
        (
            "Skipping reconfiguration of connector c as generated configs appear unchanged",
            None,
        ),
        (
            "Change in connector task count from 1 to 2, writing updated task configurations",
            Some(Event::TaskCountChanged {
                connector: None,
                from: 1,
                to: 2,
            }),
        ),
        ("Session key updated", Some(Event::SessionKeyUpdated)),
        ("Tasks [a] configs updated", None),
        ("Connector  config updated", None),
    ]);
}

#[test]
fn restarts() {
    parses(&[
        (
            "Received and enqueuing restart request for {connectorName='src', onlyFailed=false, includeTasks=true}",
            Some(Event::RestartRequested {
                connector: n("src"),
                only_failed: false,
                include_tasks: true,
            }),
        ),
        (
            "Executing plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=false, includeTasks=true}",
            Some(Event::ExecutingPlan {
                connector: n("src"),
            }),
        ),
        (
            "Executing plan to restart 1 of 2 tasks for restart request for {connectorName='my conn', onlyFailed=true, includeTasks=true}",
            Some(Event::ExecutingPlan {
                connector: n("my conn"),
            }),
        ),
        (
            "Completed plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=false, includeTasks=true}",
            Some(Event::CompletedPlan {
                connector: n("src"),
            }),
        ),
        (
            "Connector 'src' restart successful",
            Some(Event::RestartOutcome {
                resource: conn("src"),
                ok: true,
            }),
        ),
        (
            "Connector 'src' restart failed",
            Some(Event::RestartOutcome {
                resource: conn("src"),
                ok: false,
            }),
        ),
        (
            "Task 'src-1' restart successful",
            Some(Event::RestartOutcome {
                resource: task("src", 1),
                ok: true,
            }),
        ),
        (
            "Task 'a-b-0' restart failed",
            Some(Event::RestartOutcome {
                resource: task("a-b", 0),
                ok: false,
            }),
        ),
        ("Task 'src' restart failed", None),
    ]);
}

#[test]
fn milestones() {
    for (m, ms) in [
        ("Herder starting", Milestone::HerderStarting),
        ("Herder started", Milestone::HerderStarted),
        ("Herder stopping", Milestone::HerderStopping),
        ("Herder stopped", Milestone::HerderStopped),
        (
            "Stopping connectors and tasks that are still assigned to this worker.",
            Milestone::HaltStoppingAssigned,
        ),
        (
            "Uncaught exception in herder work thread, exiting: ",
            Milestone::HerderCrashed,
        ),
        (
            "Uncaught exception in herder work thread, exiting:",
            Milestone::HerderCrashed,
        ),
    ] {
        assert_eq!(p(m), Some(Event::Milestone(ms)), "{m}");
    }
    assert_eq!(p("Herder started in 3 ms"), None);
}

#[test]
fn rejects_other_herder_lines() {
    for m in [
        "Received target state change for unknown connector: x",
        "Removing connectors from running assignment [a]",
        "Received assignment: Assignment{error=0}",
        "Tasks to restart from currently running assignment: []",
        "Stopping connector x",
        "Connector x",
        "x",
    ] {
        assert_eq!(p(m), None, "{m}");
    }
}
