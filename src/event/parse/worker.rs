//! Worker-side lines (docs/log-formats.md §1.5, §1.6, §1.9): `Worker`, `WorkerConnector` and the
//! task classes (`WorkerTask`, `WorkerSinkTask`, `WorkerSourceTask`, …).

use nom::Parser;
use nom::branch::alt;
use nom::combinator::{eof, map, map_parser, value};
use nom::sequence::{preceded, terminated};

use super::common::tag;
use super::common::{
    PResult, any_rest, before_suffix, connector_rest, name, resource_rest, take_until, task_rest,
    until_last, worker_connector_ref, worker_task_ref,
};
use super::run;
use crate::event::{Event, Milestone, StartFailure, TargetState};
use crate::model::Resource;

/// Dispatches a `Worker` message on its first byte.
pub(super) fn parse_worker(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'C' => run(
            alt((creating_connector, creating_task, connector_unresponsive)),
            msg,
        ),
        b'I' => run(alt((instantiated, ignoring_stop, ignoring_await_stop)), msg),
        b'F' => run(alt((finished_creating_connector, failed_to_start)), msg),
        b'S' => run(
            alt((
                stopping,
                stopped_connector,
                setting_target_state,
                unclean_shutdown,
            )),
            msg,
        ),
        b'G' => run(graceful_stop, msg),
        b'W' => run(worker_milestone, msg),
        _ => None,
    }
}

/// Dispatches a `WorkerConnector` message on its first byte.
pub(super) fn parse_worker_connector(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'S' => run(scheduled_shutdown, msg),
        b'C' => run(completed_shutdown, msg),
        b'W' => run(alt((connector_start_error, connector_error)), msg),
        _ => None,
    }
}

/// Dispatches a task-class message (`WorkerSinkTask{id=…} …`). Most of these
/// lines are offset commits; the suffix checks reject them before any id is
/// parsed.
pub(super) fn parse_worker_task(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'W' | b'E' | b'A' => run(
            alt((task_initialized, task_failed_initialization, task_killed)),
            msg,
        ),
        _ => None,
    }
}

// ---- Worker: connectors ----

/// `Creating connector X of type T` (the name runs up to the last ` of type `).
fn creating_connector(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Creating connector "),
            terminated(until_last(" of type "), any_rest),
        ),
        |c| Event::Creating(Resource::Connector(name(c))),
    )
    .parse(i)
}

/// `Creating task X-n`
fn creating_task(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Creating task "), task_rest), |t| {
        Event::Creating(Resource::Task(t))
    })
    .parse(i)
}

/// `Instantiated connector X with version V of type class a.b.C` /
/// `Instantiated task X-n with version V of type a.b.C`: the id is what
/// precedes the last ` with version ` before the last ` of type `.
fn instantiated(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Instantiated "),
            terminated(
                map_parser(
                    until_last(" of type "),
                    map_parser(until_last(" with version "), resource_rest),
                ),
                any_rest,
            ),
        ),
        Event::Instantiated,
    )
    .parse(i)
}

/// `Finished creating connector X`
fn finished_creating_connector(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Finished creating connector "), connector_rest),
        Event::FinishedCreatingConnector,
    )
    .parse(i)
}

/// W `Failed to start connector X` / `Failed to start task X-n`
fn failed_to_start(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Failed to start "), resource_rest),
        |resource| Event::StartFailed {
            resource,
            how: StartFailure::Worker,
        },
    )
    .parse(i)
}

/// `Stopping connector X` / `Stopping task X-n`. A connector's own
/// `Stopping HttpSinkTask` is not this, nor is DH's `Stopping connectors and
/// tasks …`.
fn stopping(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Stopping "), resource_rest), Event::Stopping).parse(i)
}

/// `Stopped connector X` (≤ 2.4.1)
fn stopped_connector(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Stopped connector "), connector_rest), |c| {
        Event::Stopped(Resource::Connector(c))
    })
    .parse(i)
}

/// `Ignoring stop request for unowned connector|task X`
fn ignoring_stop(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Ignoring stop request for unowned "), resource_rest),
        Event::IgnoringStop,
    )
    .parse(i)
}

/// `Ignoring await stop request for non-present connector|task X` (2.6.3+)
fn ignoring_await_stop(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Ignoring await stop request for non-present "),
            resource_rest,
        ),
        Event::IgnoringAwaitStop,
    )
    .parse(i)
}

/// The task in `Graceful stop of task {} …`: a task id, or (pre-2.0 code
/// that passed the WorkerTask itself) `WorkerSinkTask{id=X-n}`.
fn graceful_task(i: &str) -> PResult<'_, Resource> {
    map(alt((worker_task_ref, task_rest)), Resource::Task).parse(i)
}

/// DEBUG `Graceful stop of connector|task X succeeded.` / ERROR `Graceful stop of task X failed.`
fn graceful_stop(i: &str) -> PResult<'_, Event> {
    let subject = |suffix: &'static str| {
        map_parser(
            before_suffix(suffix),
            alt((
                preceded(tag("task "), graceful_task),
                preceded(tag("connector "), map(connector_rest, Resource::Connector)),
            )),
        )
    };
    map(
        preceded(
            tag("Graceful stop of "),
            alt((
                map(subject(" succeeded."), |r| (r, true)),
                map(subject(" failed."), |r| (r, false)),
            )),
        ),
        |(resource, ok)| Event::GracefulStop { resource, ok },
    )
    .parse(i)
}

/// ERROR `Connector ‘X’ failed to properly shut down, has become
/// unresponsive, …` (U+2018/U+2019 in 2.6–2.8, ASCII quotes from 3.0).
fn connector_unresponsive(i: &str) -> PResult<'_, Event> {
    let curly = preceded(
        tag("Connector \u{2018}"),
        take_until("\u{2019} failed to properly shut down"),
    );
    let ascii = preceded(
        tag("Connector '"),
        take_until("' failed to properly shut down"),
    );
    map(terminated(alt((curly, ascii)), any_rest), |c: &str| {
        Event::ConnectorUnresponsive(name(c))
    })
    .parse(i)
}

/// `Setting connector X state to STARTED|PAUSED|STOPPED`
fn setting_target_state(i: &str) -> PResult<'_, Event> {
    let state = alt((
        value(TargetState::Started, tag("STARTED")),
        value(TargetState::Paused, tag("PAUSED")),
        value(TargetState::Stopped, tag("STOPPED")),
    ));
    map(
        (
            preceded(tag("Setting connector "), until_last(" state to ")),
            terminated(state, eof),
        ),
        |(c, state)| Event::SettingTargetState {
            connector: name(c),
            state,
        },
    )
    .parse(i)
}

/// WARN `Shutting down connectors|tasks {} uncleanly; herder should have shut
/// down … before the Worker is stopped`
fn unclean_shutdown(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::UncleanShutdown),
        (
            tag("Shutting down "),
            alt((tag("connectors "), tag("tasks "))),
            take_until(" uncleanly;"),
            any_rest,
        ),
    )
    .parse(i)
}

/// `Worker starting|started|stopping|stopped`
fn worker_milestone(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Worker "),
            terminated(
                alt((
                    value(Milestone::WorkerStarting, tag("starting")),
                    value(Milestone::WorkerStarted, tag("started")),
                    value(Milestone::WorkerStopping, tag("stopping")),
                    value(Milestone::WorkerStopped, tag("stopped")),
                )),
                eof,
            ),
        ),
        Event::Milestone,
    )
    .parse(i)
}

// ---- WorkerConnector ----

/// `Scheduled shutdown for WorkerConnector{id=X}` (2.6+)
fn scheduled_shutdown(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Scheduled shutdown for "), worker_connector_ref),
        Event::ScheduledShutdown,
    )
    .parse(i)
}

/// `Completed shutdown for WorkerConnector{id=X}` (2.6+)
fn completed_shutdown(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Completed shutdown for "), worker_connector_ref),
        |c| Event::Stopped(Resource::Connector(c)),
    )
    .parse(i)
}

/// `WorkerConnector{id=X} Error while starting connector` and `… Error
/// initializing connector`: the connector's start failed, and the Worker
/// keeps the FAILED instance.
fn connector_start_error(i: &str) -> PResult<'_, Event> {
    let body = alt((
        before_suffix(" Error while starting connector"),
        before_suffix(" Error initializing connector"),
    ));
    map(map_parser(body, worker_connector_ref), |c| {
        Event::StartFailed {
            resource: Resource::Connector(c),
            how: StartFailure::ConnectorStart,
        }
    })
    .parse(i)
}

/// The other WorkerConnector error lines (`… Error while shutting down
/// connector`, `… Connector raised an error`, `… Connector has failed`).
fn connector_error(i: &str) -> PResult<'_, Event> {
    let body = alt((
        before_suffix(" Error while shutting down connector"),
        before_suffix(" Connector raised an error"),
        before_suffix(" Connector has failed"),
    ));
    map(
        map_parser(body, worker_connector_ref),
        Event::ConnectorError,
    )
    .parse(i)
}

// ---- task classes ----

/// `WorkerSourceTask{id=X-n} Source task finished initialization and start` /
/// `WorkerSinkTask{id=X-n} Sink task finished initialization and start`
fn task_initialized(i: &str) -> PResult<'_, Event> {
    let body = alt((
        before_suffix(" Source task finished initialization and start"),
        before_suffix(" Sink task finished initialization and start"),
    ));
    map(map_parser(body, worker_task_ref), Event::TaskInitialized).parse(i)
}

/// `WorkerSinkTask{id=X-n} Task failed initialization and will not be started.`
fn task_failed_initialization(i: &str) -> PResult<'_, Event> {
    map(
        map_parser(
            before_suffix(" Task failed initialization and will not be started."),
            worker_task_ref,
        ),
        |t| Event::StartFailed {
            resource: Resource::Task(t),
            how: StartFailure::Initialization,
        },
    )
    .parse(i)
}

/// WT `{} Task threw an uncaught and unrecoverable exception` and
/// `{} Task is being killed and will not recover until manually restarted`
/// (two lines, ≤ 2.7), and the one-line form joined by `. ` (2.8+).
fn task_killed(i: &str) -> PResult<'_, Event> {
    let body = alt((
        before_suffix(
            " Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted",
        ),
        before_suffix(" Task threw an uncaught and unrecoverable exception"),
        before_suffix(" Task is being killed and will not recover until manually restarted"),
    ));
    map(map_parser(body, worker_task_ref), Event::TaskKilled).parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, TaskId};

    fn w(msg: &str) -> Option<Event> {
        parse_worker(msg)
    }
    fn wc(msg: &str) -> Option<Event> {
        parse_worker_connector(msg)
    }
    fn wt(msg: &str) -> Option<Event> {
        parse_worker_task(msg)
    }
    fn n(s: &str) -> Name {
        name(s)
    }
    fn conn(s: &str) -> Resource {
        Resource::Connector(n(s))
    }
    fn task(c: &str, i: u32) -> Resource {
        Resource::Task(TaskId::new(c, i))
    }

    #[test]
    fn creating() {
        assert_eq!(
            w(
                "Creating connector kinesis-source-local of type io.confluent.connect.kinesis.KinesisSourceConnector"
            ),
            Some(Event::Creating(conn("kinesis-source-local")))
        );
        assert_eq!(
            w("Creating connector a of type b of type x.Y"),
            Some(Event::Creating(conn("a of type b")))
        );
        assert_eq!(
            w("Creating task cdc-exam-0"),
            Some(Event::Creating(task("cdc-exam", 0)))
        );
        assert_eq!(w("Creating task cdc-exam"), None);
        assert_eq!(w("Creating Kafka admin client"), None);
    }

    #[test]
    fn instantiated() {
        assert_eq!(
            w(
                "Instantiated connector hdfs-sink-kerberos with version 5.4.0 of type class io.confluent.connect.hdfs.HdfsSinkConnector"
            ),
            Some(Event::Instantiated(conn("hdfs-sink-kerberos")))
        );
        assert_eq!(
            w(
                "Instantiated task replicate-europe-to-us-0 with version 6.1.1 of type io.confluent.connect.replicator.ReplicatorSourceTask"
            ),
            Some(Event::Instantiated(task("replicate-europe-to-us", 0)))
        );
        assert_eq!(
            w("Instantiated connector my conn with version 1.0 of type class a.B"),
            Some(Event::Instantiated(conn("my conn")))
        );
        assert_eq!(w("Instantiated task x with version 1 of type a.B"), None);
    }

    #[test]
    fn finished_creating_vs_creating() {
        assert_eq!(
            w("Finished creating connector kinesis-source-local"),
            Some(Event::FinishedCreatingConnector(n("kinesis-source-local")))
        );
        assert!(!matches!(
            w("Finished creating connector x"),
            Some(Event::Creating(_))
        ));
        assert!(!matches!(
            w("Creating connector x of type y"),
            Some(Event::FinishedCreatingConnector(_))
        ));
    }

    #[test]
    fn worker_start_failures() {
        assert_eq!(
            w("Failed to start connector my-conn"),
            Some(Event::StartFailed {
                resource: conn("my-conn"),
                how: StartFailure::Worker
            })
        );
        assert_eq!(
            w("Failed to start task my-conn-3"),
            Some(Event::StartFailed {
                resource: task("my-conn", 3),
                how: StartFailure::Worker
            })
        );
    }

    #[test]
    fn stops() {
        assert_eq!(
            w("Stopping connector http-sink"),
            Some(Event::Stopping(conn("http-sink")))
        );
        assert_eq!(
            w("Stopping task http-sink-0"),
            Some(Event::Stopping(task("http-sink", 0)))
        );
        assert_eq!(w("Stopping HttpSinkTask"), None);
        assert_eq!(w("Stopping task reader"), None);
        assert_eq!(
            w("Stopping connectors and tasks that are still assigned to this worker."),
            None
        );
        assert_eq!(
            w("Stopped connector a.b"),
            Some(Event::Stopped(conn("a.b")))
        );
        assert_eq!(
            w("Ignoring stop request for unowned connector http-sink"),
            Some(Event::IgnoringStop(conn("http-sink")))
        );
        assert_eq!(
            w("Ignoring stop request for unowned task http-sink-0"),
            Some(Event::IgnoringStop(task("http-sink", 0)))
        );
        assert_eq!(
            w("Ignoring await stop request for non-present connector http-sink"),
            Some(Event::IgnoringAwaitStop(conn("http-sink")))
        );
        assert_eq!(
            w("Ignoring await stop request for non-present task a-1"),
            Some(Event::IgnoringAwaitStop(task("a", 1)))
        );
        assert_eq!(
            w("Initializing: org.apache.kafka.connect.runtime.TransformationChain{}"),
            None
        );
    }

    #[test]
    fn graceful() {
        assert_eq!(
            w("Graceful stop of connector my conn succeeded."),
            Some(Event::GracefulStop {
                resource: conn("my conn"),
                ok: true
            })
        );
        assert_eq!(
            w("Graceful stop of task a-b-2 succeeded."),
            Some(Event::GracefulStop {
                resource: task("a-b", 2),
                ok: true
            })
        );
        assert_eq!(
            w("Graceful stop of task a-b-2 failed."),
            Some(Event::GracefulStop {
                resource: task("a-b", 2),
                ok: false
            })
        );
        assert_eq!(
            w("Graceful stop of task WorkerSinkTask{id=a-2} failed."),
            Some(Event::GracefulStop {
                resource: task("a", 2),
                ok: false
            })
        );
        assert_eq!(w("Graceful stop of task a-b-2"), None);
    }

    #[test]
    fn unresponsive_both_quote_styles() {
        let tail = " failed to properly shut down, has become unresponsive, and may be consuming external resources. Correct the configuration for this connector or remove the connector. After fixing the connector, it may be necessary to restart this worker to release any consumed resources.";
        assert_eq!(
            w(&format!("Connector \u{2018}my conn\u{2019}{tail}")),
            Some(Event::ConnectorUnresponsive(n("my conn")))
        );
        assert_eq!(
            w(&format!("Connector 'a-b'{tail}")),
            Some(Event::ConnectorUnresponsive(n("a-b")))
        );
    }

    #[test]
    fn target_states() {
        assert_eq!(
            w("Setting connector my conn state to PAUSED"),
            Some(Event::SettingTargetState {
                connector: n("my conn"),
                state: TargetState::Paused
            })
        );
        assert_eq!(
            w("Setting connector c state to STARTED"),
            Some(Event::SettingTargetState {
                connector: n("c"),
                state: TargetState::Started
            })
        );
        assert_eq!(
            w("Setting connector c state to STOPPED"),
            Some(Event::SettingTargetState {
                connector: n("c"),
                state: TargetState::Stopped
            })
        );
        assert_eq!(w("Setting connector c state to RUNNING"), None);
        assert_eq!(
            w(
                "Set up the key converter class org.apache.kafka.connect.storage.StringConverter for task kinesis-source-local-0 using the worker config"
            ),
            None
        );
    }

    #[test]
    fn worker_milestones() {
        for (m, ms) in [
            ("Worker starting", Milestone::WorkerStarting),
            ("Worker started", Milestone::WorkerStarted),
            ("Worker stopping", Milestone::WorkerStopping),
            ("Worker stopped", Milestone::WorkerStopped),
            (
                "Shutting down connectors [a, b] uncleanly; herder should have shut down connectors before the Worker is stopped",
                Milestone::UncleanShutdown,
            ),
            (
                "Shutting down tasks [a-0] uncleanly; herder should have shut down tasks before the Worker is stopped",
                Milestone::UncleanShutdown,
            ),
        ] {
            assert_eq!(w(m), Some(Event::Milestone(ms)), "{m}");
        }
        assert_eq!(
            w("Worker configuration property 'internal.key.converter' is deprecated"),
            None
        );
    }

    #[test]
    fn worker_connector_lines() {
        assert_eq!(
            wc("Scheduled shutdown for WorkerConnector{id=http-sink}"),
            Some(Event::ScheduledShutdown(n("http-sink")))
        );
        assert_eq!(
            wc("Completed shutdown for WorkerConnector{id=hdfs-sink}"),
            Some(Event::Stopped(conn("hdfs-sink")))
        );
        for suffix in [
            "Error while starting connector",
            "Error initializing connector",
        ] {
            assert_eq!(
                wc(&format!("WorkerConnector{{id=my conn}} {suffix}")),
                Some(Event::StartFailed {
                    resource: conn("my conn"),
                    how: StartFailure::ConnectorStart
                }),
                "{suffix}"
            );
        }
        for suffix in [
            "Error while shutting down connector",
            "Connector raised an error",
            "Connector has failed",
        ] {
            assert_eq!(
                wc(&format!("WorkerConnector{{id=my conn}} {suffix}")),
                Some(Event::ConnectorError(n("my conn"))),
                "{suffix}"
            );
        }
        assert_eq!(wc("WorkerConnector{id=x} Completed shutdown"), None);
    }

    #[test]
    fn task_class_lines() {
        assert_eq!(
            wt(
                "WorkerSourceTask{id=kinesis-source-local-0} Source task finished initialization and start"
            ),
            Some(Event::TaskInitialized(TaskId::new(
                "kinesis-source-local",
                0
            )))
        );
        assert_eq!(
            wt("WorkerSinkTask{id=my sink-1} Sink task finished initialization and start"),
            Some(Event::TaskInitialized(TaskId::new("my sink", 1)))
        );
        for cls in [
            "WorkerSinkTask",
            "WorkerSourceTask",
            "ExactlyOnceWorkerSourceTask",
        ] {
            assert_eq!(
                wt(&format!(
                    "{cls}{{id=a.b-4}} Task failed initialization and will not be started."
                )),
                Some(Event::StartFailed {
                    resource: task("a.b", 4),
                    how: StartFailure::Initialization
                }),
                "{cls}"
            );
        }
        for m in [
            "WorkerSourceTask{id=kinesis-source-local-0} Task threw an uncaught and unrecoverable exception",
            "WorkerSourceTask{id=kinesis-source-local-0} Task is being killed and will not recover until manually restarted",
            "WorkerSourceTask{id=kinesis-source-local-0} Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted",
        ] {
            assert_eq!(
                wt(m),
                Some(Event::TaskKilled(TaskId::new("kinesis-source-local", 0))),
                "{m}"
            );
        }
        for m in [
            "WorkerSourceTask{id=x-0} Committing offsets",
            "WorkerSourceTask{id=x-0} flushing 3 outstanding messages for offset commit",
            "WorkerSourceTask{id=x-0} Failed to flush, timed out while waiting for producer to flush outstanding 3 messages",
            "WorkerSinkTask{id=x} Task threw an uncaught and unrecoverable exception",
        ] {
            assert_eq!(wt(m), None, "{m}");
        }
    }
}
