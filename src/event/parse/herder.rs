//! `DistributedHerder` lines (docs/log-formats.md §1.2–§1.4, §1.7–§1.9),
//! including those of its RebalanceListener and ConfigUpdateListener.

use nom::Parser;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{i32 as int32, i64 as int64};
use nom::combinator::{eof, map, map_parser, value};
use nom::sequence::{preceded, terminated};

use super::common::{
    PResult, any_rest, assignment, before_suffix, connector_rest, name, resource_rest,
    restart_plan, restart_request, task_list, task_rest, until_last,
};
use super::run;
use crate::event::{
    AssignmentFailure, ConnectorUpdateAction, Event, Milestone, StartFailure, TaskUpdateWording,
};
use crate::model::Resource;

/// Dispatches a DH message on its first byte.
pub(super) fn parse(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'J' => run(
            alt((
                joined_v0,
                joined_at_generation,
                joined_with_protocol,
                assignment_failed,
            )),
            msg,
        ),
        b'S' => run(
            alt((
                starting_work,
                starting,
                skipping_reconfiguration,
                session_key_updated,
                halt_stopping_assigned,
                scheduled_rebalance,
            )),
            msg,
        ),
        b'F' => run(
            alt((
                finished_starting_work,
                finished_stopping_for_rebalance,
                finished_flushing_status,
                finished_reading_to_end,
                failed_to_start_connector,
                failed_to_shut_down,
            )),
            msg,
        ),
        b'C' => run(
            alt((
                connector_config_updated,
                connector_config_removed,
                connector_target_state_change,
                connector_restart_outcome,
                couldnt_instantiate,
                config_behind,
                config_mismatch,
                catching_up,
                task_count_change,
                completed_plan,
            )),
            msg,
        ),
        b'T' => run(alt((task_configs_updated, task_restart_outcome)), msg),
        b'H' => run(
            alt((
                herder_milestone,
                handling_connector_update,
                handling_task_update,
                unresolved_rebalance,
            )),
            msg,
        ),
        b'R' => run(
            alt((
                reading_to_end,
                revoking_after_retries,
                reconfig_rebalance_requested,
                scheduled_rebalance_reached,
                restart_requested,
                rebalance_started,
            )),
            msg,
        ),
        b'W' => run(skip_stopping_unresolved, msg),
        b'D' => run(read_to_end_timed_out, msg),
        b'E' => run(executing_plan, msg),
        b'U' => run(alt((unexpected_start_error, herder_crashed)), msg),
        b'w' => run(poll_timeout_expired, msg),
        _ => None,
    }
}

// ---- assignment (docs/log-formats.md §1.2) ----

/// `Joined group and got assignment: A` (≤ 2.2.2, V0 shape).
fn joined_v0(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Joined group and got assignment: "),
            terminated(assignment, eof),
        ),
        |assignment| Event::Assignment {
            generation: None,
            protocol_version: None,
            assignment,
            rebalance_delay: None,
        },
    )
    .parse(i)
}

/// `Joined group at generation N and got assignment: A` (2.3.x).
fn joined_at_generation(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Joined group at generation "), int32),
            preceded(tag(" and got assignment: "), assignment),
            eof,
        ),
        |(generation, assignment, _)| Event::Assignment {
            generation: Some(generation),
            protocol_version: None,
            assignment,
            rebalance_delay: None,
        },
    )
    .parse(i)
}

/// `Joined group at generation N with protocol version P and got assignment:
/// A with rebalance delay: D` (2.4+).
fn joined_with_protocol(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Joined group at generation "), int32),
            preceded(tag(" with protocol version "), int64),
            preceded(tag(" and got assignment: "), assignment),
            preceded(tag(" with rebalance delay: "), int64),
            eof,
        ),
        |(generation, version, assignment, delay, _)| Event::Assignment {
            generation: Some(generation),
            protocol_version: Some(version),
            assignment,
            rebalance_delay: Some(delay),
        },
    )
    .parse(i)
}

/// The three `Join group completed, but assignment failed…` wordings, with
/// the `we lagging` typo (≤ 3.5) and `we are lagging` (3.6+).
fn assignment_failed(i: &str) -> PResult<'_, Event> {
    let how = alt((
        value(
            AssignmentFailure::Leader,
            tag(" and we are the leader. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::Lagging,
            tag(" and we lagging. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::Lagging,
            tag(" and we are lagging. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::UpToDate,
            tag(". We were up to date, so just retrying."),
        ),
    ));
    map(
        preceded(
            tag("Join group completed, but assignment failed"),
            terminated(how, eof),
        ),
        Event::AssignmentFailed,
    )
    .parse(i)
}

/// `Finished stopping tasks in preparation for rebalance`
fn finished_stopping_for_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedStoppingForRebalance,
        (
            tag("Finished stopping tasks in preparation for rebalance"),
            eof,
        ),
    )
    .parse(i)
}

/// `Finished flushing status backing store in preparation for rebalance` (2.4+)
fn finished_flushing_status(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedFlushingStatus,
        (
            tag("Finished flushing status backing store in preparation for rebalance"),
            eof,
        ),
    )
    .parse(i)
}

/// `Wasn't unable to resume work after last rebalance, can skip stopping
/// connectors and tasks` (sic, ≤ 2.4) / `Wasn't able to …` (2.5+).
fn skip_stopping_unresolved(i: &str) -> PResult<'_, Event> {
    value(
        Event::SkipStoppingUnresolved,
        (
            alt((tag("Wasn't unable"), tag("Wasn't able"))),
            tag(" to resume work after last rebalance, can skip stopping connectors and tasks"),
            eof,
        ),
    )
    .parse(i)
}

/// DEBUG `Requesting rebalance due to reconfiguration of tasks (needsReconfigRebalance: true)`
fn reconfig_rebalance_requested(i: &str) -> PResult<'_, Event> {
    value(
        Event::ReconfigRebalanceRequested,
        (
            tag("Requesting rebalance due to reconfiguration of tasks"),
            any_rest,
        ),
    )
    .parse(i)
}

/// DEBUG `Scheduled rebalance at: {} (now: {} nextRequestTimeoutMs: {}) ` (≤ 3.3)
/// and `… (now: {} scheduledTick: {}) ` (3.5+).
fn scheduled_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::ScheduledRebalance { reached: false },
        (tag("Scheduled rebalance at: "), any_rest),
    )
    .parse(i)
}

/// DEBUG `Requesting rebalance because scheduled rebalance timeout has been
/// reached (now: {} scheduledRebalance: {}` (≤ 3.6, unbalanced paren) and
/// `… reached now: {} scheduledRebalance: {}` (3.8+).
fn scheduled_rebalance_reached(i: &str) -> PResult<'_, Event> {
    value(
        Event::ScheduledRebalance { reached: true },
        (
            tag("Requesting rebalance because scheduled rebalance timeout has been reached"),
            any_rest,
        ),
    )
    .parse(i)
}

/// WARN `worker poll timeout has expired. The last known action …` (3.8+)
fn poll_timeout_expired(i: &str) -> PResult<'_, Event> {
    value(
        Event::PollTimeoutExpired,
        (tag("worker poll timeout has expired."), any_rest),
    )
    .parse(i)
}

/// DH `Rebalance started` (≤ 2.2.2, inside onRevoked).
fn rebalance_started(i: &str) -> PResult<'_, Event> {
    value(
        Event::RebalanceStarted { by_herder: true },
        (tag("Rebalance started"), eof),
    )
    .parse(i)
}

// ---- config-offset checks (docs/log-formats.md §1.3) ----

/// DEBUG `Handling completed but unresolved rebalance` (2.6.3+)
fn unresolved_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::UnresolvedRebalance,
        (tag("Handling completed but unresolved rebalance"), eof),
    )
    .parse(i)
}

/// WARN `Catching up to assignment's config offset.`
fn catching_up(i: &str) -> PResult<'_, Event> {
    value(
        Event::CatchingUp,
        (tag("Catching up to assignment's config offset."), eof),
    )
    .parse(i)
}

/// `Current config state offset X is behind group assignment Y, reading to end of config log`
fn config_behind(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Current config state offset "), int64),
            preceded(tag(" is behind group assignment "), int64),
            tag(", reading to end of config log"),
            eof,
        ),
        |(current, assignment, _, _)| Event::ConfigBehind {
            current,
            assignment,
        },
    )
    .parse(i)
}

/// `Current config state offset X does not match group assignment Y. Forcing rebalance.`
fn config_mismatch(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Current config state offset "), int64),
            preceded(tag(" does not match group assignment "), int64),
            tag(". Forcing rebalance."),
            eof,
        ),
        |(current, assignment, _, _)| Event::ConfigMismatch {
            current,
            assignment,
        },
    )
    .parse(i)
}

/// `Reading to end of config log; current config state offset: X` (2.6.3+)
fn reading_to_end(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Reading to end of config log; current config state offset: "),
            terminated(int64, eof),
        ),
        |current| Event::ReadingToEnd { current },
    )
    .parse(i)
}

/// `Finished reading to end of log and updated config snapshot, new config log offset: Z`
fn finished_reading_to_end(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Finished reading to end of log and updated config snapshot, new config log offset: "),
            terminated(int64, eof),
        ),
        |offset| Event::FinishedReadingToEnd { offset },
    )
    .parse(i)
}

/// WARN `Didn't reach end of config log quickly enough`
fn read_to_end_timed_out(i: &str) -> PResult<'_, Event> {
    value(
        Event::ReadToEndTimedOut,
        (tag("Didn't reach end of config log quickly enough"), eof),
    )
    .parse(i)
}

/// `Revoking current running assignment {} because after {} retries the
/// worker has not caught up with the latest Connect cluster updates` (2.5.1+)
fn revoking_after_retries(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            (
                tag("Revoking current running assignment "),
                until_last(" because after "),
            ),
            terminated(int64, (tag(" retries"), any_rest)),
        ),
        |retries| Event::RevokingAfterRetries { retries },
    )
    .parse(i)
}

// ---- starting work (docs/log-formats.md §1.4) ----

/// `Starting connectors and tasks using config offset O`
fn starting_work(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Starting connectors and tasks using config offset "),
            terminated(int64, eof),
        ),
        |offset| Event::StartingWork { offset },
    )
    .parse(i)
}

/// `Finished starting connectors and tasks`
fn finished_starting_work(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedStartingWork,
        (tag("Finished starting connectors and tasks"), eof),
    )
    .parse(i)
}

/// `Starting connector X` / `Starting task X-n`. The word after `Starting`
/// decides, so `Starting connectors and tasks …` never gets here as a name.
fn starting(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Starting "), resource_rest), Event::Starting).parse(i)
}

/// ERROR `Couldn't instantiate task X-n because it has an invalid task
/// configuration. …` / `Couldn't instantiate connector X because it has an
/// invalid connector configuration. …` (≤ 2.4).
fn couldnt_instantiate(i: &str) -> PResult<'_, Event> {
    let task = preceded(
        tag("task "),
        map_parser(
            until_last(" because it has an invalid task configuration"),
            map(task_rest, Resource::Task),
        ),
    );
    let connector = preceded(
        tag("connector "),
        map_parser(
            until_last(" because it has an invalid connector configuration"),
            map(connector_rest, Resource::Connector),
        ),
    );
    map(
        preceded(
            tag("Couldn't instantiate "),
            terminated(alt((task, connector)), any_rest),
        ),
        |resource| Event::StartFailed {
            resource,
            how: StartFailure::CouldNotInstantiate,
        },
    )
    .parse(i)
}

/// ERROR `Unexpected error while trying to start connector X` (2.6.3+)
fn unexpected_start_error(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Unexpected error while trying to start connector "),
            connector_rest,
        ),
        |c| Event::StartFailed {
            resource: Resource::Connector(c),
            how: StartFailure::Unexpected,
        },
    )
    .parse(i)
}

/// ERROR `Failed to start connector 'X'` (2.6.3+, herder callback; quoted).
fn failed_to_start_connector(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Failed to start connector '"), before_suffix("'")),
        |c| Event::StartFailed {
            resource: Resource::Connector(name(c)),
            how: StartFailure::HerderCallback,
        },
    )
    .parse(i)
}

/// ERROR `Failed to shut down connector X`
fn failed_to_shut_down(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Failed to shut down connector "), connector_rest),
        Event::ShutdownFailed,
    )
    .parse(i)
}

// ---- config updates (docs/log-formats.md §1.7) ----

/// `Connector X config updated`
fn connector_config_updated(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" config updated")),
        |c| Event::ConnectorConfigUpdated(name(c)),
    )
    .parse(i)
}

/// `Connector X config removed`
fn connector_config_removed(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" config removed")),
        |c| Event::ConnectorConfigRemoved(name(c)),
    )
    .parse(i)
}

/// `Connector X target state change`
fn connector_target_state_change(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" target state change")),
        |c| Event::TargetStateChange(name(c)),
    )
    .parse(i)
}

/// `Tasks [..] configs updated` (the list may be `[]`).
fn task_configs_updated(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Tasks "),
            terminated(task_list, (tag(" configs updated"), eof)),
        ),
        Event::TaskConfigsUpdated,
    )
    .parse(i)
}

/// `Handling connector-only config update by restarting|stopping connector X`
fn handling_connector_update(i: &str) -> PResult<'_, Event> {
    let action = alt((
        value(ConnectorUpdateAction::Restarting, tag("restarting")),
        value(ConnectorUpdateAction::Stopping, tag("stopping")),
    ));
    map(
        (
            preceded(tag("Handling connector-only config update by "), action),
            preceded(tag(" connector "), connector_rest),
        ),
        |(action, connector)| Event::HandlingConnectorUpdate { connector, action },
    )
    .parse(i)
}

/// `Handling task config update by restarting tasks [..]` (2.3–3.2) and
/// `… by stopping tasks [..], which will be restarted after rebalance if
/// still assigned to this worker` (3.3+).
fn handling_task_update(i: &str) -> PResult<'_, Event> {
    let restarting = map(
        preceded(tag("restarting tasks "), terminated(task_list, eof)),
        |tasks| (tasks, TaskUpdateWording::Restarting),
    );
    let stopping = map(
        preceded(
            tag("stopping tasks "),
            terminated(
                task_list,
                (
                    tag(
                        ", which will be restarted after rebalance if still assigned to this worker",
                    ),
                    eof,
                ),
            ),
        ),
        |tasks| (tasks, TaskUpdateWording::Stopping),
    );
    map(
        preceded(
            tag("Handling task config update by "),
            alt((restarting, stopping)),
        ),
        |(tasks, wording)| Event::HandlingTaskUpdate { tasks, wording },
    )
    .parse(i)
}

/// `Skipping reconfiguration of connector X since it is not running` /
/// `… since its target state is S` (3.5+).
fn skipping_reconfiguration(i: &str) -> PResult<'_, Event> {
    let not_running = before_suffix(" since it is not running");
    let target_state = terminated(until_last(" since its target state is "), any_rest);
    map(
        preceded(
            tag("Skipping reconfiguration of connector "),
            alt((not_running, target_state)),
        ),
        |c| Event::SkippingReconfiguration(name(c)),
    )
    .parse(i)
}

/// DEBUG `Change in connector task count from A to B, writing updated task configurations` (≤ 3.3)
fn task_count_change(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Change in connector task count from "), int64),
            preceded(tag(" to "), int64),
            tag(", writing updated task configurations"),
            eof,
        ),
        |(from, to, _, _)| Event::TaskCountChanged {
            connector: None,
            from,
            to,
        },
    )
    .parse(i)
}

/// `Session key updated`
fn session_key_updated(i: &str) -> PResult<'_, Event> {
    value(Event::SessionKeyUpdated, (tag("Session key updated"), eof)).parse(i)
}

// ---- REST restarts, KIP-745 (docs/log-formats.md §1.8) ----

/// `Received and enqueuing restart request for {connectorName='X', onlyFailed=B, includeTasks=B}`
fn restart_requested(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Received and enqueuing "),
            terminated(restart_request, eof),
        ),
        |(connector, only_failed, include_tasks)| Event::RestartRequested {
            connector,
            only_failed,
            include_tasks,
        },
    )
    .parse(i)
}

/// `Executing plan to restart …`
fn executing_plan(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Executing "), terminated(restart_plan, eof)),
        |connector| Event::ExecutingPlan { connector },
    )
    .parse(i)
}

/// `Completed plan to restart …`
fn completed_plan(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Completed "), terminated(restart_plan, eof)),
        |connector| Event::CompletedPlan { connector },
    )
    .parse(i)
}

/// `successful` / `failed` after `' restart `.
fn restart_ok(i: &str) -> PResult<'_, bool> {
    terminated(
        alt((value(true, tag("successful")), value(false, tag("failed")))),
        eof,
    )
    .parse(i)
}

/// `Connector 'X' restart successful|failed`
fn connector_restart_outcome(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Connector '"), until_last("' restart ")),
            restart_ok,
        ),
        |(c, ok)| Event::RestartOutcome {
            resource: Resource::Connector(name(c)),
            ok,
        },
    )
    .parse(i)
}

/// `Task 'X-n' restart successful|failed`
fn task_restart_outcome(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(
                tag("Task '"),
                map_parser(until_last("' restart "), task_rest),
            ),
            restart_ok,
        ),
        |(t, ok)| Event::RestartOutcome {
            resource: Resource::Task(t),
            ok,
        },
    )
    .parse(i)
}

// ---- startup and shutdown (docs/log-formats.md §1.9) ----

/// `Herder starting|started|stopping|stopped`
fn herder_milestone(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Herder "),
            terminated(
                alt((
                    value(Milestone::HerderStarting, tag("starting")),
                    value(Milestone::HerderStarted, tag("started")),
                    value(Milestone::HerderStopping, tag("stopping")),
                    value(Milestone::HerderStopped, tag("stopped")),
                )),
                eof,
            ),
        ),
        Event::Milestone,
    )
    .parse(i)
}

/// `Stopping connectors and tasks that are still assigned to this worker.`
fn halt_stopping_assigned(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::HaltStoppingAssigned),
        (
            tag("Stopping connectors and tasks that are still assigned to this worker."),
            eof,
        ),
    )
    .parse(i)
}

/// ERROR `Uncaught exception in herder work thread, exiting: ` (the trailing
/// space is usually trimmed away).
fn herder_crashed(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::HerderCrashed),
        (
            tag("Uncaught exception in herder work thread, exiting:"),
            any_rest,
        ),
    )
    .parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, TaskId};

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
        assert_eq!(assignment.connectors, vec![n("inventory-connector")]);
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
        assert_eq!(assignment.tasks, vec![t("a", 0), t("b", 0), t("b", 1)]);
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
        assert_eq!(assignment.revoked_connectors, Some(vec![n("http-sink")]));
        assert_eq!(assignment.revoked_tasks, Some(vec![t("http-sink", 0)]));
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
        assert_eq!(
            p("Finished stopping tasks in preparation for rebalance"),
            Some(Event::FinishedStoppingForRebalance)
        );
        assert_eq!(
            p("Finished flushing status backing store in preparation for rebalance"),
            Some(Event::FinishedFlushingStatus)
        );
        assert_eq!(
            p(
                "Wasn't unable to resume work after last rebalance, can skip stopping connectors and tasks"
            ),
            Some(Event::SkipStoppingUnresolved)
        );
        assert_eq!(
            p(
                "Wasn't able to resume work after last rebalance, can skip stopping connectors and tasks"
            ),
            Some(Event::SkipStoppingUnresolved)
        );
        assert_eq!(
            p(
                "Requesting rebalance due to reconfiguration of tasks (needsReconfigRebalance: true)"
            ),
            Some(Event::ReconfigRebalanceRequested)
        );
        assert_eq!(
            p("Handling completed but unresolved rebalance"),
            Some(Event::UnresolvedRebalance)
        );
        assert_eq!(
            p("Rebalance started"),
            Some(Event::RebalanceStarted { by_herder: true })
        );
        assert_eq!(p("Rebalance failed."), None);
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
        assert_eq!(
            p(
                "Current config state offset -1 is behind group assignment 1, reading to end of config log"
            ),
            Some(Event::ConfigBehind {
                current: -1,
                assignment: 1
            })
        );
        assert_eq!(
            p(
                "Finished reading to end of log and updated config snapshot, new config log offset: 1"
            ),
            Some(Event::FinishedReadingToEnd { offset: 1 })
        );
        assert_eq!(
            p("Catching up to assignment's config offset."),
            Some(Event::CatchingUp)
        );
        assert_eq!(
            p("Reading to end of config log; current config state offset: 63"),
            Some(Event::ReadingToEnd { current: 63 })
        );
        assert_eq!(
            p("Didn't reach end of config log quickly enough"),
            Some(Event::ReadToEndTimedOut)
        );
        assert_eq!(
            p(
                "Current config state offset 63 does not match group assignment 61. Forcing rebalance."
            ),
            Some(Event::ConfigMismatch {
                current: 63,
                assignment: 61
            })
        );
        assert_eq!(
            p(
                "Revoking current running assignment Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[x], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} because after 5 retries the worker has not caught up with the latest Connect cluster updates"
            ),
            Some(Event::RevokingAfterRetries { retries: 5 })
        );
        assert_eq!(
            p(
                "Current config state offset x is behind group assignment 1, reading to end of config log"
            ),
            None
        );
    }

    #[test]
    fn starting_work_and_resources() {
        assert_eq!(
            p("Starting connectors and tasks using config offset -1"),
            Some(Event::StartingWork { offset: -1 })
        );
        assert_eq!(
            p("Starting connectors and tasks using config offset 7"),
            Some(Event::StartingWork { offset: 7 })
        );
        assert_eq!(
            p("Finished starting connectors and tasks"),
            Some(Event::FinishedStartingWork)
        );
        assert_eq!(
            p("Starting connector cdc-exam"),
            Some(Event::Starting(conn("cdc-exam")))
        );
        assert_eq!(
            p("Starting connector my conn.v1_2"),
            Some(Event::Starting(conn("my conn.v1_2")))
        );
        assert_eq!(
            p("Starting task replicate-europe-to-us-0"),
            Some(Event::Starting(task("replicate-europe-to-us", 0)))
        );
        assert_eq!(
            p("Starting task a b-12"),
            Some(Event::Starting(task("a b", 12)))
        );
        // look-alikes
        assert_eq!(
            p("Starting connectors and tasks using config offset x"),
            None
        );
        assert_eq!(p("Starting connectors and tasks"), None);
        assert_eq!(p("Starting task notatask"), None);
        assert_eq!(p("Starting KafkaConfigBackingStore"), None);
        assert_eq!(p("Starting connector "), None);
    }

    #[test]
    fn start_failures() {
        assert_eq!(
            p(
                "Couldn't instantiate task src-2 because it has an invalid task configuration. This task will not execute until reconfigured."
            ),
            Some(Event::StartFailed {
                resource: task("src", 2),
                how: StartFailure::CouldNotInstantiate
            })
        );
        assert_eq!(
            p(
                "Couldn't instantiate connector my conn because it has an invalid connector configuration. This connector will not execute until reconfigured."
            ),
            Some(Event::StartFailed {
                resource: conn("my conn"),
                how: StartFailure::CouldNotInstantiate
            })
        );
        assert_eq!(
            p("Unexpected error while trying to start connector a.b"),
            Some(Event::StartFailed {
                resource: conn("a.b"),
                how: StartFailure::Unexpected
            })
        );
        assert_eq!(
            p("Failed to start connector 'my-sink'"),
            Some(Event::StartFailed {
                resource: conn("my-sink"),
                how: StartFailure::HerderCallback
            })
        );
        assert_eq!(
            p("Failed to shut down connector x_y"),
            Some(Event::ShutdownFailed(n("x_y")))
        );
        assert_eq!(p("Failed to start connector x"), None);
        assert_eq!(
            p(
                "Unexpected error while trying to process restart request for {connectorName='a', onlyFailed=false, includeTasks=true}, the restart request will be skipped."
            ),
            None
        );
    }

    #[test]
    fn config_updates() {
        assert_eq!(
            p("Connector kinesis-source-local config updated"),
            Some(Event::ConnectorConfigUpdated(n("kinesis-source-local")))
        );
        assert_eq!(
            p("Connector my conn config updated"),
            Some(Event::ConnectorConfigUpdated(n("my conn")))
        );
        assert_eq!(
            p("Connector http-sink config removed"),
            Some(Event::ConnectorConfigRemoved(n("http-sink")))
        );
        assert_eq!(
            p("Connector a.b target state change"),
            Some(Event::TargetStateChange(n("a.b")))
        );
        assert_eq!(
            p("Tasks [a-0, a-1, b-0, b-1] configs updated"),
            Some(Event::TaskConfigsUpdated(vec![
                t("a", 0),
                t("a", 1),
                t("b", 0),
                t("b", 1)
            ]))
        );
        assert_eq!(
            p("Tasks [] configs updated"),
            Some(Event::TaskConfigsUpdated(vec![]))
        );
        assert_eq!(
            p("Handling connector-only config update by restarting connector a"),
            Some(Event::HandlingConnectorUpdate {
                connector: n("a"),
                action: ConnectorUpdateAction::Restarting
            })
        );
        assert_eq!(
            p("Handling connector-only config update by stopping connector http-sink"),
            Some(Event::HandlingConnectorUpdate {
                connector: n("http-sink"),
                action: ConnectorUpdateAction::Stopping
            })
        );
        assert_eq!(
            p("Handling task config update by restarting tasks []"),
            Some(Event::HandlingTaskUpdate {
                tasks: vec![],
                wording: TaskUpdateWording::Restarting
            })
        );
        assert_eq!(
            p("Handling task config update by restarting tasks [replicate-europe-to-us-0]"),
            Some(Event::HandlingTaskUpdate {
                tasks: vec![t("replicate-europe-to-us", 0)],
                wording: TaskUpdateWording::Restarting
            })
        );
        assert_eq!(
            p(
                "Handling task config update by stopping tasks [a-0, b c-1], which will be restarted after rebalance if still assigned to this worker"
            ),
            Some(Event::HandlingTaskUpdate {
                tasks: vec![t("a", 0), t("b c", 1)],
                wording: TaskUpdateWording::Stopping
            })
        );
        assert_eq!(
            p("Skipping reconfiguration of connector my conn since it is not running"),
            Some(Event::SkippingReconfiguration(n("my conn")))
        );
        assert_eq!(
            p("Skipping reconfiguration of connector c since its target state is STOPPED"),
            Some(Event::SkippingReconfiguration(n("c")))
        );
        assert_eq!(
            p("Skipping reconfiguration of connector c as generated configs appear unchanged"),
            None
        );
        assert_eq!(
            p("Change in connector task count from 1 to 2, writing updated task configurations"),
            Some(Event::TaskCountChanged {
                connector: None,
                from: 1,
                to: 2
            })
        );
        assert_eq!(p("Session key updated"), Some(Event::SessionKeyUpdated));
        assert_eq!(p("Tasks [a] configs updated"), None);
        assert_eq!(p("Connector  config updated"), None);
    }

    #[test]
    fn restarts() {
        assert_eq!(
            p(
                "Received and enqueuing restart request for {connectorName='src', onlyFailed=false, includeTasks=true}"
            ),
            Some(Event::RestartRequested {
                connector: n("src"),
                only_failed: false,
                include_tasks: true
            })
        );
        assert_eq!(
            p(
                "Executing plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=false, includeTasks=true}"
            ),
            Some(Event::ExecutingPlan {
                connector: n("src")
            })
        );
        assert_eq!(
            p(
                "Executing plan to restart 1 of 2 tasks for restart request for {connectorName='my conn', onlyFailed=true, includeTasks=true}"
            ),
            Some(Event::ExecutingPlan {
                connector: n("my conn")
            })
        );
        assert_eq!(
            p(
                "Completed plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=false, includeTasks=true}"
            ),
            Some(Event::CompletedPlan {
                connector: n("src")
            })
        );
        assert_eq!(
            p("Connector 'src' restart successful"),
            Some(Event::RestartOutcome {
                resource: conn("src"),
                ok: true
            })
        );
        assert_eq!(
            p("Connector 'src' restart failed"),
            Some(Event::RestartOutcome {
                resource: conn("src"),
                ok: false
            })
        );
        assert_eq!(
            p("Task 'src-1' restart successful"),
            Some(Event::RestartOutcome {
                resource: task("src", 1),
                ok: true
            })
        );
        assert_eq!(
            p("Task 'a-b-0' restart failed"),
            Some(Event::RestartOutcome {
                resource: task("a-b", 0),
                ok: false
            })
        );
        assert_eq!(p("Task 'src' restart failed"), None);
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
}
