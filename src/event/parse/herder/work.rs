//! `DistributedHerder` lines about the work it runs: starting connectors and
//! tasks and failed starts (docs/log-formats.md §1.4), config updates
//! (§1.7), REST restarts (§1.8), and the herder's startup and shutdown
//! (§1.9).

use nom::Parser;
use nom::branch::alt;
use nom::character::complete::i64 as int64;
use nom::combinator::{eof, map, map_parser, value};
use nom::sequence::{preceded, terminated};

use crate::event::parse::common::tag;
use crate::event::parse::common::{
    PResult, any_rest, before_suffix, connector_rest, name, resource_rest, restart_plan,
    restart_request, task_list, task_rest, until_last,
};
use crate::event::{ConnectorUpdateAction, Event, Milestone, StartFailure, TaskUpdateWording};
use crate::model::Resource;

// ---- starting work (docs/log-formats.md §1.4) ----

/// `Starting connectors and tasks using config offset O`
pub(super) fn starting_work(i: &str) -> PResult<'_, Event> {
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
pub(super) fn finished_starting_work(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedStartingWork,
        (tag("Finished starting connectors and tasks"), eof),
    )
    .parse(i)
}

/// `Starting connector X` / `Starting task X-n`. The word after `Starting`
/// decides, so `Starting connectors and tasks …` never gets here as a name.
pub(super) fn starting(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Starting "), resource_rest), Event::Starting).parse(i)
}

/// ERROR `Couldn't instantiate task X-n because it has an invalid task
/// configuration. …` / `Couldn't instantiate connector X because it has an
/// invalid connector configuration. …` (≤ 2.4).
pub(super) fn couldnt_instantiate(i: &str) -> PResult<'_, Event> {
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
pub(super) fn unexpected_start_error(i: &str) -> PResult<'_, Event> {
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
pub(super) fn failed_to_start_connector(i: &str) -> PResult<'_, Event> {
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
pub(super) fn failed_to_shut_down(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Failed to shut down connector "), connector_rest),
        Event::ShutdownFailed,
    )
    .parse(i)
}

// ---- config updates (docs/log-formats.md §1.7) ----

/// `Connector X config updated`
pub(super) fn connector_config_updated(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" config updated")),
        |c| Event::ConnectorConfigUpdated(name(c)),
    )
    .parse(i)
}

/// `Connector X config removed`
pub(super) fn connector_config_removed(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" config removed")),
        |c| Event::ConnectorConfigRemoved(name(c)),
    )
    .parse(i)
}

/// `Connector X target state change`
pub(super) fn connector_target_state_change(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Connector "), before_suffix(" target state change")),
        |c| Event::TargetStateChange(name(c)),
    )
    .parse(i)
}

/// `Tasks [..] configs updated` (the list may be `[]`).
pub(super) fn task_configs_updated(i: &str) -> PResult<'_, Event> {
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
pub(super) fn handling_connector_update(i: &str) -> PResult<'_, Event> {
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
pub(super) fn handling_task_update(i: &str) -> PResult<'_, Event> {
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
pub(super) fn skipping_reconfiguration(i: &str) -> PResult<'_, Event> {
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
pub(super) fn task_count_change(i: &str) -> PResult<'_, Event> {
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
pub(super) fn session_key_updated(i: &str) -> PResult<'_, Event> {
    value(Event::SessionKeyUpdated, (tag("Session key updated"), eof)).parse(i)
}

// ---- REST restarts, KIP-745 (docs/log-formats.md §1.8) ----

/// `Received and enqueuing restart request for {connectorName='X', onlyFailed=B, includeTasks=B}`
pub(super) fn restart_requested(i: &str) -> PResult<'_, Event> {
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
pub(super) fn executing_plan(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Executing "), terminated(restart_plan, eof)),
        |connector| Event::ExecutingPlan { connector },
    )
    .parse(i)
}

/// `Completed plan to restart …`
pub(super) fn completed_plan(i: &str) -> PResult<'_, Event> {
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
pub(super) fn connector_restart_outcome(i: &str) -> PResult<'_, Event> {
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
pub(super) fn task_restart_outcome(i: &str) -> PResult<'_, Event> {
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
pub(super) fn herder_milestone(i: &str) -> PResult<'_, Event> {
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
pub(super) fn halt_stopping_assigned(i: &str) -> PResult<'_, Event> {
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
pub(super) fn herder_crashed(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::HerderCrashed),
        (
            tag("Uncaught exception in herder work thread, exiting:"),
            any_rest,
        ),
    )
    .parse(i)
}
