//! Lines of layouts that print no logger (`%d %p %m%n`): which Connect class
//! printed a message, told from its wording and from the worker's
//! LogContext prefix (`[Worker clientId=…, groupId=…] `).
//!
//! Checked against the Kafka source of every release from 2.0.1 to 3.9.0:
//!
//! * Each lifecycle wording the auditor reads is printed by one class only:
//!   `Stopping task {}`, `Stopping connector {}`, `Creating task {}`,
//!   `Creating connector {} of type {}`, `Instantiated …`, `Finished
//!   creating connector {}`, `Failed to start task|connector {}`, `Ignoring
//!   [await] stop request …`, `Stopped connector {}`, `Setting connector {}
//!   state to {}`, `Graceful stop of …`, `Shutting down connectors|tasks {}
//!   uncleanly…`, `Worker starting|started|stopping|stopped` by `Worker`;
//!   `Scheduled|Completed shutdown for WorkerConnector{…}` by
//!   `WorkerConnector`; `Starting connector|task {}`, `Failed to start
//!   connector '<name>'` (quoted), `Herder starting…` and the rebalance,
//!   config and restart lines by `DistributedHerder`; the task lines name
//!   their class in the message (`WorkerSinkTask{id=…} …`).
//! * The one wording two classes print is `Rebalance started`:
//!   `DistributedHerder` up to 2.2.2, `WorkerCoordinator` from 2.3.0. And
//!   the herder's `Failed to start connector '<name>'` (2.6.3+) reads as the
//!   Worker's `Failed to start connector {}` of a connector whose name is
//!   quoted.
//! * The prefix tells the two groups of classes apart: from 2.3.0 it is on
//!   every line of `DistributedHerder`, `WorkerCoordinator`, the group
//!   member, the assignors and (up to 2.8) `AbstractCoordinator` in the
//!   worker; up to 2.2.2 on all of those but `DistributedHerder`. It is
//!   never on `Worker`, `WorkerConnector`, task, `AbstractHerder`,
//!   `KafkaConfigBackingStore`, `Connect` or `RestServer` lines. So a
//!   prefixed `Rebalance started` is the coordinator's and an unprefixed one
//!   the herder's, a prefixed `Failed to start connector '…'` the herder's
//!   and an unprefixed one the Worker's, and a prefixed line is never read
//!   as a `Worker` line.
//!
//! An unprefixed coordinator line (`(Re-)joining group`, 0.11-era) may be a
//! sink task consumer's: it is attributed to `AbstractCoordinator`, whose
//! lines the caller checks against the worker's group as it does for lines
//! that name that logger.

use super::{components, coordinator, herder, worker};
use crate::event::{Event, LoggerKind};

/// A parser of one class's messages.
type Family = fn(&str) -> Option<Event>;

/// Classes whose lines carry the worker's LogContext prefix, in the order
/// they are tried.
const PREFIXED: [(LoggerKind, Family); 3] = [
    (LoggerKind::WorkerCoordinator, coordinator::parse),
    (LoggerKind::Herder, herder::parse),
    (
        LoggerKind::WorkerGroupMember,
        components::parse_group_member,
    ),
];

/// Classes whose lines carry no prefix (`DistributedHerder` up to 2.2.2;
/// `AbstractCoordinator` in the 0.11-era coordinator lines).
const UNPREFIXED: [(LoggerKind, Family); 11] = [
    (LoggerKind::Worker, worker::parse_worker),
    (LoggerKind::Herder, herder::parse),
    (LoggerKind::WorkerConnector, worker::parse_worker_connector),
    (LoggerKind::WorkerTask, worker::parse_worker_task),
    (
        LoggerKind::AbstractHerder,
        components::parse_abstract_herder,
    ),
    (LoggerKind::Connect, components::parse_connect),
    (
        LoggerKind::ConfigBackingStore,
        components::parse_config_store,
    ),
    (LoggerKind::AbstractConfig, components::parse_config_dump),
    (LoggerKind::RestServer, components::parse_rest_server),
    (LoggerKind::AbstractCoordinator, coordinator::parse),
    (
        LoggerKind::WorkerGroupMember,
        components::parse_group_member,
    ),
];

/// The class that printed `msg` (the message of a line whose layout prints
/// no logger) and the event it says; `prefixed`: the line carries the
/// worker's LogContext prefix (already stripped from `msg`).
pub fn attribute(msg: &str, prefixed: bool) -> Option<(LoggerKind, Event)> {
    let families: &[(LoggerKind, Family)] = if prefixed { &PREFIXED } else { &UNPREFIXED };
    families
        .iter()
        .find_map(|(kind, parse)| parse(msg).map(|ev| (*kind, ev)))
}

/// Every class that accepts `msg`, prefixed or not (tests: each wording
/// has one class).
#[cfg(test)]
pub(super) fn candidates(msg: &str, prefixed: bool) -> Vec<LoggerKind> {
    let families: &[(LoggerKind, Family)] = if prefixed { &PREFIXED } else { &UNPREFIXED };
    families
        .iter()
        .filter(|(_, parse)| parse(msg).is_some())
        .map(|(kind, _)| *kind)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, Resource, TaskId};

    /// One message per wording the auditor reads (from the Kafka
    /// source, 2.0.1 → 3.9), without layout, MDC or prefix.
    const WORDINGS: &[&str] = &[
        // coordinator (WC, AC)
        "(Re-)joining group",
        "(Re-)joining group connect-cluster",
        "Successfully joined group with generation 7",
        "Successfully joined group with generation Generation{generationId=7, memberId='connect-1-a', protocol='sessioned'}",
        "Successfully synced group in generation Generation{generationId=7, memberId='connect-1-a', protocol='sessioned'}",
        "Attempt to heartbeat failed since group is rebalancing",
        "JoinGroup failed: The coordinator is not aware of this member. Need to re-join the group. Sent generation was Generation{generationId=8, memberId='connect-1-a', protocol='sessioned'}",
        "Request joining group due to: connect worker requested rejoin",
        "Member connect-1-a sending LeaveGroup request to coordinator broker:9092 (id: 2147483646 rack: null) due to the consumer is being closed",
        "Revoking previous assignment Assignment{error=0, leader='null', leaderUrl='null', offset=-1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0}",
        "Cooperative rebalance triggered. Keeping assignment Assignment{error=0, leader='a', leaderUrl='u', offset=3, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} until it's explicitly revoked.",
        "Broker coordinator was unreachable for 3000ms. Revoking previous assignment Assignment{error=0, leader='a', leaderUrl='u', offset=3, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} to avoid running tasks while not being a member the group",
        "Was selected to perform assignments, but do not have latest config found in sync request. Returning an empty configuration to trigger re-sync.",
        // DistributedHerder
        "Joined group and got assignment: Assignment{error=0, leader='a', leaderUrl='u', offset=3, connectorIds=[c], taskIds=[c-0]}",
        "Joined group at generation 4 with protocol version 2 and got assignment: Assignment{error=0, leader='a', leaderUrl='u', offset=3, connectorIds=[c], taskIds=[c-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0",
        "Finished stopping tasks in preparation for rebalance",
        "Finished flushing status backing store in preparation for rebalance",
        "Wasn't able to resume work after last rebalance, can skip stopping connectors and tasks",
        "Join group completed, but assignment failed and we are the leader. Reading to end of config and retrying.",
        "Catching up to assignment's config offset.",
        "Current config state offset 3 is behind group assignment 5, reading to end of config log",
        "Finished reading to end of log and updated config snapshot, new config log offset: 5",
        "Didn't reach end of config log quickly enough",
        "Current config state offset 3 does not match group assignment 5. Forcing rebalance.",
        "Starting connectors and tasks using config offset 5",
        "Finished starting connectors and tasks",
        "Starting connector c",
        "Starting task c-0",
        "Couldn't instantiate task c-0 because it has an invalid task configuration. This task will not execute until reconfigured.",
        "Connector c config updated",
        "Connector c config removed",
        "Tasks [c-0, c-1] configs updated",
        "Connector c target state change",
        "Handling connector-only config update by restarting connector c",
        "Handling task config update by restarting tasks [c-0]",
        "Skipping reconfiguration of connector c since it is not running",
        "Session key updated",
        "Herder starting",
        "Herder stopped",
        "Stopping connectors and tasks that are still assigned to this worker.",
        "Received and enqueuing restart request for {connectorName='c', onlyFailed=false, includeTasks=true}",
        "Task 'c-0' restart successful",
        "Connector 'c' restart failed",
        // Worker
        "Creating connector c of type io.x.C",
        "Instantiated connector c with version 1.0 of type class io.x.C",
        "Finished creating connector c",
        "Failed to start connector c",
        "Stopping connector c",
        "Ignoring stop request for unowned connector c",
        "Stopped connector c",
        "Creating task c-0",
        "Instantiated task c-0 with version 1.0 of type io.x.CTask",
        "Failed to start task c-0",
        "Stopping task c-0",
        "Ignoring stop request for unowned task c-0",
        "Ignoring await stop request for non-present task c-0",
        "Graceful stop of task c-0 failed.",
        "Setting connector c state to PAUSED",
        "Shutting down tasks [c-0] uncleanly; herder should have shut down tasks before the Worker is stopped",
        "Worker starting",
        // WorkerConnector, task classes
        "Scheduled shutdown for WorkerConnector{id=c}",
        "Completed shutdown for WorkerConnector{id=c}",
        "WorkerConnector{id=c} Error while starting connector",
        "WorkerSinkTask{id=c-0} Sink task finished initialization and start",
        "WorkerSourceTask{id=c-0} Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted",
        // the others
        "Connector c task count changed from 1 to 2",
        "Kafka Connect starting",
        "Kafka cluster ID: abc",
        "Starting KafkaConfigBackingStore",
        "Successfully processed removal of connector 'c'",
        "The Connect group member has stopped.",
        "DistributedConfig values: ",
        "Advertised URI: http://w1:8083/",
    ];

    /// The distinct class parsers (the lists name `coordinator::parse`
    /// twice, as WC and as AC).
    fn parsers() -> Vec<Family> {
        let mut v: Vec<Family> = Vec::new();
        for (_, f) in PREFIXED.iter().chain(UNPREFIXED.iter()) {
            if !v.iter().any(|g| std::ptr::fn_addr_eq(*g, *f)) {
                v.push(*f);
            }
        }
        v
    }

    #[test]
    fn each_wording_is_printed_by_one_class() {
        let parsers = parsers();
        assert_eq!(parsers.len(), 11);
        for msg in WORDINGS {
            let n = parsers.iter().filter(|p| p(msg).is_some()).count();
            assert_eq!(n, 1, "{msg}");
        }
        // The two shared wordings.
        for msg in ["Rebalance started", "Failed to start connector 'c'"] {
            let n = parsers.iter().filter(|p| p(msg).is_some()).count();
            assert_eq!(n, 2, "{msg}");
        }
    }

    #[test]
    fn the_prefix_tells_the_herder_from_the_coordinator() {
        assert_eq!(
            attribute("Rebalance started", true),
            Some((
                LoggerKind::WorkerCoordinator,
                Event::RebalanceStarted { by_herder: false }
            ))
        );
        assert_eq!(
            attribute("Rebalance started", false),
            Some((
                LoggerKind::Herder,
                Event::RebalanceStarted { by_herder: true }
            ))
        );
    }

    #[test]
    fn the_prefix_tells_the_herders_failed_start_from_the_workers() {
        let (kind, ev) = attribute("Failed to start connector 'c'", true).unwrap();
        assert_eq!(kind, LoggerKind::Herder);
        assert!(matches!(
            ev,
            Event::StartFailed {
                how: crate::event::StartFailure::HerderCallback,
                ..
            }
        ));
        let (kind, _) = attribute("Failed to start connector 'c'", false).unwrap();
        assert_eq!(kind, LoggerKind::Worker);
    }

    #[test]
    fn prefixed_lines_are_never_worker_lines() {
        assert_eq!(attribute("Stopping task c-0", true), None);
        assert_eq!(attribute("Creating connector c of type x", true), None);
        assert_eq!(
            attribute("Stopping task c-0", false),
            Some((
                LoggerKind::Worker,
                Event::Stopping(Resource::Task(TaskId::new("c", 0)))
            ))
        );
        // 2.3+ herder lines carry the prefix, ≤ 2.2.2 ones do not.
        for prefixed in [true, false] {
            assert_eq!(
                attribute("Starting connector c", prefixed),
                Some((
                    LoggerKind::Herder,
                    Event::Starting(Resource::Connector(Name::from("c")))
                ))
            );
        }
    }

    #[test]
    fn unprefixed_coordinator_lines_are_left_to_the_group_check() {
        assert_eq!(
            attribute("(Re-)joining group connect-c", false).map(|(k, _)| k),
            Some(LoggerKind::AbstractCoordinator)
        );
        assert_eq!(
            attribute("(Re-)joining group", true).map(|(k, _)| k),
            Some(LoggerKind::WorkerCoordinator)
        );
    }

    #[test]
    fn every_wording_is_attributed_with_or_without_the_prefix_it_has() {
        for msg in WORDINGS {
            let any = attribute(msg, true).or_else(|| attribute(msg, false));
            assert!(any.is_some(), "{msg}");
            assert_eq!(
                any.map(|(_, e)| e),
                crate::event::parse_message(LoggerKind::Unknown, msg),
                "{msg}"
            );
        }
    }

    #[test]
    fn candidates_list_every_class_accepting_a_wording() {
        assert_eq!(
            candidates("Rebalance started", false),
            vec![LoggerKind::Herder, LoggerKind::AbstractCoordinator]
        );
        assert_eq!(candidates("Stopping task c-0", true), vec![]);
    }
}
