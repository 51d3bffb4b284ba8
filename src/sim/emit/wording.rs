//! The table of line templates: for every line the model's steps print,
//! per release, its wording, level, logger, MDC and log site. One row per
//! line and range of releases; a line with no row for a release is not
//! printed by it. Adding a release's wordings is adding rows here (and its
//! start-up order in `startup.rs`); the `Say` methods only pick the lines
//! and hand over the facts they name.
//!
//! A wording is literal text with placeholders in angle brackets, filled
//! from the [`Arg`]s of the call: `<conn>` (a connector's name), `<task>`
//! (`name-n`), `<tasks>` (task ids separated by `, `), `<list>` (`[a,
//! b-0]`), `<assignment>` / `<assignment-v0>` (an `Assignment{…}` as the
//! extended or the V0 protocol prints it), and named numbers and strings
//! (`<generation>`, `<member>`, …).

use super::Lg;
use super::out::{Lvl, WorkerLog};
use super::{name, put_assign, put_list, put_res};
use crate::sim::data::{Assign, Res};
use crate::sim::version::{Site, Version};

/// The lines of the model's steps (see the table for their wordings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sim) enum Ln {
    // start-up and shutdown
    KafkaVersion,
    KafkaCommitId,
    ClusterId,
    AdvertisedUri,
    RestListening,
    RestResources,
    ConnectStarting,
    ConnectStarted,
    ConnectStopping,
    ConnectStopped,
    HerderStarting,
    HerderStarted,
    HerderStopping,
    HerderStopped,
    Halt,
    WorkerStarting,
    WorkerStarted,
    WorkerStopping,
    WorkerStopped,
    ConfigStoreStarting,
    ConfigStoreStarted,
    ConfigStoreClosing,
    ConfigStoreClosed,
    ConfigLogRead,
    // the coordinator
    Discovered,
    CoordinatorDead,
    HeartbeatRebalancing,
    LeaveGroupOnClose,
    ResetOnClose,
    PollTimeout,
    LeaveGroupOnPollTimeout,
    ResetOnPollTimeout,
    Unreachable,
    RebalanceStartedHerder,
    RebalanceStarted,
    Rejoining,
    Joined,
    Synced,
    // the herder's rebalance steps
    Assignment,
    FinishedStopping,
    FinishedFlushing,
    SkipStopping,
    CatchingUp,
    Behind,
    FinishedReading,
    Mismatch,
    StartingWork,
    FinishedStarting,
    // the config topic and its handling
    ConnectorUpdated,
    Removal,
    ConnectorRemoved,
    TasksUpdated,
    TargetChange,
    RestartRequest,
    SessionKey,
    HandlingRemoval,
    HandlingConnectorUpdate,
    HandlingTaskUpdate,
    SettingState,
    ExecutingPlan,
    CompletedPlan,
    TaskRestartOk,
    ConnectorRestartOk,
    ConnectorRestartOkNotStarted,
    TaskRestartFailed,
    ConnectorRestartFailed,
    // starts and stops
    StartingConnector,
    StartingTask,
    CreatingConnector,
    InstantiatedConnector,
    FinishedCreating,
    CreatingTask,
    InstantiatedTask,
    Converter,
    SourceTaskStarted,
    SinkTaskStarted,
    StoppingConnector,
    StoppedConnector,
    ScheduledShutdown,
    CompletedShutdown,
    IgnoringStopConnector,
    IgnoringAwaitConnector,
    StoppingTask,
    IgnoringStopTask,
    IgnoringAwaitTask,
    // failed starts
    FailedToStartTask,
    FailedToStartConnector,
    HerderConnectorFailed,
    UnknownConnectorType,
    CouldNotInstantiateConnector,
    CouldNotInstantiate,
}

/// The number of [`Ln`] values.
const LINES: usize = Ln::CouldNotInstantiate as usize + 1;

/// Whose `%X{connector.context}` a line carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    None,
    /// `[<conn>|worker] `: the connector of the `Conn` (or `Task`) argument.
    Conn,
    /// `[<conn>|task-<n>] `: the `Task` argument.
    Task,
}

/// Whether the line states a lifecycle fact (the auditor must read it) or
/// is plain context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Fact,
    Plain,
}

/// One row of the table: a line's template for a range of releases.
#[derive(Debug)]
pub(super) struct Row {
    pub ln: Ln,
    pub from: Version,
    pub to: Version,
    pub lvl: Lvl,
    pub ctx: Ctx,
    pub lg: Lg,
    pub site: Site,
    pub kind: Kind,
    pub text: &'static str,
}

/// A fact a line names, for its placeholders (and its MDC).
#[derive(Debug, Clone, Copy)]
pub(in crate::sim) enum Arg<'a> {
    /// `<conn>`
    Conn(u16),
    /// `<task>`, and `<conn>` its connector's name.
    Task(u16, u16),
    /// `<tasks>`: task ids separated by `, `.
    Tasks(&'a [(u16, u16)]),
    /// `<list>`: `[a, b-0]`.
    List(&'a [Res]),
    /// `<assignment>` and `<assignment-v0>`.
    Assign(&'a Assign),
    /// A named number.
    Num(&'static str, i64),
    /// A named string.
    Str(&'static str, &'a str),
}

impl Arg<'_> {
    /// Writes the value of `<key>` if this argument holds it.
    fn write(&self, key: &str, l: &mut WorkerLog, names: &[String]) -> bool {
        match (*self, key) {
            (Arg::Conn(c) | Arg::Task(c, _), "conn") => l.s(name(names, c)),
            (Arg::Task(c, i), "task") => put_res(l, names, Res::Task(c, i)),
            (Arg::Tasks(ts), "tasks") => {
                for (k, &(c, i)) in ts.iter().enumerate() {
                    if k > 0 {
                        l.s(", ");
                    }
                    put_res(l, names, Res::Task(c, i));
                }
            }
            (Arg::List(items), "list") => put_list(l, names, items),
            (Arg::Assign(a), "assignment") => put_assign(l, names, a, false),
            (Arg::Assign(a), "assignment-v0") => put_assign(l, names, a, true),
            (Arg::Num(k, n), _) if k == key => l.num(n),
            (Arg::Str(k, s), _) if k == key => l.s(s),
            _ => return false,
        }
        true
    }
}

/// Writes a template's text with its placeholders filled from `args`.
pub(super) fn render(text: &str, args: &[Arg], l: &mut WorkerLog, names: &[String]) {
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        l.s(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            rest = &rest[open..];
            break;
        };
        let key = &after[..close];
        let done = args.iter().any(|a| a.write(key, l, names));
        debug_assert!(done, "no argument for <{key}> in {text:?}");
        rest = &after[close + 1..];
    }
    l.s(rest);
}

/// Each line's row for release `v` (None: the release does not print it).
pub(super) fn rows_for(v: Version) -> Vec<Option<&'static Row>> {
    let mut index = vec![None; LINES];
    for row in ROWS {
        if row.from <= v && v <= row.to {
            index[row.ln as usize] = Some(row);
        }
    }
    index
}

/// The class a line's logger names in release `v`.
pub(super) fn logger(v: Version, lg: Lg) -> &'static str {
    match lg {
        Lg::Herder | Lg::HerderHeartbeat => {
            "org.apache.kafka.connect.runtime.distributed.DistributedHerder"
        }
        // AbstractCoordinator's statements log under the subclass from 3.0.
        Lg::Coord | Lg::CoordHeartbeat if v >= Version::V3_0 => {
            "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator"
        }
        Lg::Coord | Lg::CoordHeartbeat => {
            "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
        }
        Lg::WCoord => "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator",
        Lg::Worker => "org.apache.kafka.connect.runtime.Worker",
        Lg::WConn => "org.apache.kafka.connect.runtime.WorkerConnector",
        Lg::Connect => "org.apache.kafka.connect.runtime.Connect",
        Lg::Kcbs => "org.apache.kafka.connect.storage.KafkaConfigBackingStore",
        Lg::KbLog => "org.apache.kafka.connect.util.KafkaBasedLog",
        Lg::Rest => "org.apache.kafka.connect.runtime.rest.RestServer",
        Lg::Custom(s) => s,
    }
}

use Ctx as C;
use Kind::{Fact, Plain};
use Lvl::{Error, Info, Warn};
use Version as V;

const FIRST: Version = V::V2_0;
const LAST: Version = V::V4_4;

const APP_INFO: Lg = Lg::Custom("org.apache.kafka.common.utils.AppInfoParser");
const APP_INFO_INTERNALS: Lg = Lg::Custom("org.apache.kafka.common.utils.internals.AppInfoParser");
const CONNECT_UTILS: Lg = Lg::Custom("org.apache.kafka.connect.util.ConnectUtils");
const WORKER_CONFIG: Lg = Lg::Custom("org.apache.kafka.connect.runtime.WorkerConfig");
const ABSTRACT_HERDER: Lg = Lg::Custom("org.apache.kafka.connect.runtime.AbstractHerder");
const SOURCE_TASK: Lg = Lg::Custom("org.apache.kafka.connect.runtime.WorkerSourceTask");
const ABSTRACT_SOURCE_TASK: Lg =
    Lg::Custom("org.apache.kafka.connect.runtime.AbstractWorkerSourceTask");
const SINK_TASK: Lg = Lg::Custom("org.apache.kafka.connect.runtime.WorkerSinkTask");

#[allow(clippy::too_many_arguments)]
const fn row(
    ln: Ln,
    (from, to): (Version, Version),
    lvl: Lvl,
    ctx: Ctx,
    lg: Lg,
    site: Site,
    kind: Kind,
    text: &'static str,
) -> Row {
    Row {
        ln,
        from,
        to,
        lvl,
        ctx,
        lg,
        site,
        kind,
        text,
    }
}

const fn all() -> (Version, Version) {
    (FIRST, LAST)
}
const fn since(v: Version) -> (Version, Version) {
    (v, LAST)
}
const fn until(v: Version) -> (Version, Version) {
    (FIRST, v)
}

/// The table. Rows of one line never overlap in releases (a test checks).
#[rustfmt::skip]
pub(super) const ROWS: &[Row] = &[
    // ---------------------------------------------------------------- start-up and shutdown
    row(Ln::KafkaVersion, until(V::V3_9), Info, C::None, APP_INFO, Site::AppInfo, Plain, "Kafka version: <build>"),
    row(Ln::KafkaVersion, since(V::V4_4), Info, C::None, APP_INFO_INTERNALS, Site::AppInfo, Plain, "Kafka version: <build>"),
    row(Ln::KafkaCommitId, until(V::V3_9), Info, C::None, APP_INFO, Site::AppInfoCommit, Plain, "Kafka commitId: <commit>"),
    row(Ln::KafkaCommitId, since(V::V4_4), Info, C::None, APP_INFO_INTERNALS, Site::AppInfoCommit, Plain, "Kafka commitId: <commit>"),
    row(Ln::ClusterId, until(V::V3_0), Info, C::None, CONNECT_UTILS, Site::ClusterId, Fact, "Kafka cluster ID: <cluster-id>"),
    row(Ln::ClusterId, since(V::V3_6), Info, C::None, WORKER_CONFIG, Site::ClusterId, Fact, "Kafka cluster ID: <cluster-id>"),
    row(Ln::AdvertisedUri, all(), Info, C::None, Lg::Rest, Site::RestServer, Fact, "Advertised URI: http://<host>:8083/"),
    row(Ln::RestListening, all(), Info, C::None, Lg::Rest, Site::RestServer, Plain, "REST server listening at http://10.0.2.<ip>:8083/, advertising URL http://<host>:8083/"),
    row(Ln::RestResources, all(), Info, C::None, Lg::Rest, Site::RestServer, Plain, "REST resources initialized; server is started and ready to handle requests"),
    row(Ln::ConnectStarting, all(), Info, C::None, Lg::Connect, Site::Connect, Fact, "Kafka Connect starting"),
    row(Ln::ConnectStarted, all(), Info, C::None, Lg::Connect, Site::Connect, Fact, "Kafka Connect started"),
    row(Ln::ConnectStopping, all(), Info, C::None, Lg::Connect, Site::Connect, Fact, "Kafka Connect stopping"),
    row(Ln::ConnectStopped, all(), Info, C::None, Lg::Connect, Site::Connect, Fact, "Kafka Connect stopped"),
    row(Ln::HerderStarting, all(), Info, C::None, Lg::Herder, Site::HerderStarting, Fact, "Herder starting"),
    row(Ln::HerderStarted, all(), Info, C::None, Lg::Herder, Site::HerderStarted, Fact, "Herder started"),
    row(Ln::HerderStopping, all(), Info, C::None, Lg::Herder, Site::HerderStopping, Fact, "Herder stopping"),
    row(Ln::HerderStopped, all(), Info, C::None, Lg::Herder, Site::HerderStopped, Fact, "Herder stopped"),
    row(Ln::Halt, all(), Info, C::None, Lg::Herder, Site::Halt, Fact, "Stopping connectors and tasks that are still assigned to this worker."),
    row(Ln::WorkerStarting, all(), Info, C::None, Lg::Worker, Site::WorkerStarting, Fact, "Worker starting"),
    row(Ln::WorkerStarted, all(), Info, C::None, Lg::Worker, Site::WorkerStarted, Fact, "Worker started"),
    row(Ln::WorkerStopping, all(), Info, C::None, Lg::Worker, Site::WorkerStopping, Fact, "Worker stopping"),
    row(Ln::WorkerStopped, all(), Info, C::None, Lg::Worker, Site::WorkerStopped, Fact, "Worker stopped"),
    row(Ln::ConfigStoreStarting, all(), Info, C::None, Lg::Kcbs, Site::ConfigStore, Fact, "Starting KafkaConfigBackingStore"),
    row(Ln::ConfigStoreStarted, all(), Info, C::None, Lg::Kcbs, Site::ConfigStore, Fact, "Started KafkaConfigBackingStore"),
    row(Ln::ConfigStoreClosing, all(), Info, C::None, Lg::Kcbs, Site::ConfigStore, Fact, "Closing KafkaConfigBackingStore"),
    row(Ln::ConfigStoreClosed, all(), Info, C::None, Lg::Kcbs, Site::ConfigStore, Fact, "Closed KafkaConfigBackingStore"),
    row(Ln::ConfigLogRead, all(), Info, C::None, Lg::KbLog, Site::KafkaBasedLog, Plain, "Finished reading KafkaBasedLog for topic connect-configs"),

    // ---------------------------------------------------------------- the coordinator
    // 4.4.0 prints the coordinator node as `(id: +1 rack: null isFenced: false)`.
    row(Ln::Discovered, until(V::V3_9), Info, C::None, Lg::Coord, Site::Discovered, Plain, "Discovered group coordinator broker-1:9092 (id: 2147483646 rack: null)"),
    row(Ln::Discovered, since(V::V4_4), Info, C::None, Lg::Coord, Site::Discovered, Plain, "Discovered group coordinator broker-1:9092 (id: +1 rack: null isFenced: false)"),
    row(Ln::CoordinatorDead, until(V::V2_4), Info, C::None, Lg::Coord, Site::CoordinatorDead, Plain, "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid, will attempt rediscovery"),
    // A worker cut off from the brokers (2.7.0+ source; real 2.8.2 and 3.6.2
    // `chaos-s*`, 3.9.1 and 4.4.0 `partition`): the auditor reads it as a
    // departure. Up to 3.2.x no space before `isDisconnected`.
    row(Ln::CoordinatorDead, (V::V2_8, V::V3_0), Info, C::None, Lg::Coord, Site::CoordinatorDead, Fact, "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: session timed out without receiving a heartbeat response.isDisconnected: false. Rediscovery will be attempted."),
    row(Ln::CoordinatorDead, (V::V3_6, V::V3_9), Info, C::None, Lg::Coord, Site::CoordinatorDead, Fact, "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: session timed out without receiving a heartbeat response. isDisconnected: false. Rediscovery will be attempted."),
    row(Ln::CoordinatorDead, since(V::V4_4), Info, C::None, Lg::Coord, Site::CoordinatorDead, Fact, "Group coordinator broker-1:9092 (id: +1 rack: null isFenced: false) is unavailable or invalid due to cause: session timed out without receiving a heartbeat response. isDisconnected: false. Rediscovery will be attempted."),
    row(Ln::HeartbeatRebalancing, until(V::V2_8), Info, C::None, Lg::Coord, Site::Heartbeat, Fact, "Attempt to heartbeat failed since group is rebalancing"),
    row(Ln::LeaveGroupOnClose, (V::V2_2, V::V2_3), Info, C::None, Lg::Coord, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null)"),
    row(Ln::LeaveGroupOnClose, (V::V2_4, V::V3_9), Info, C::None, Lg::Coord, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null) due to the consumer is being closed"),
    row(Ln::LeaveGroupOnClose, since(V::V4_4), Info, C::None, Lg::Coord, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: +1 rack: null isFenced: false) due to the consumer is being closed"),
    // (seen in the 3.1.0, 3.6.2 and 3.9.1 captures; not in 2.5.1's)
    row(Ln::ResetOnClose, (V::V3_0, V::V3_0), Info, C::None, Lg::Coord, Site::ResettingGeneration, Fact, "Resetting generation due to: consumer pro-actively leaving the group"),
    row(Ln::ResetOnClose, since(V::V3_6), Info, C::None, Lg::Coord, Site::ResettingGeneration, Fact, "Resetting generation and member id due to: consumer pro-actively leaving the group"),
    row(Ln::PollTimeout, (V::V3_0, V::V3_6), Warn, C::None, Lg::CoordHeartbeat, Site::PollTimeout, Fact, "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records."),
    // 3.8.0 to 4.4.0: the herder's own warning, which names the last action of its thread.
    row(Ln::PollTimeout, since(V::V3_9), Warn, C::None, Lg::HerderHeartbeat, Site::PollTimeout, Fact, "worker poll timeout has expired. The last known action being performed by the worker is : not known and may contribute to the timeout. Please review the last action (if known) for any corrective actions. One of the ways of addressing this can be increasing the rebalance.timeout.ms configuration value. Please note that rebalance.timeout.ms also controls the maximum allowed time for each worker to join the group once a rebalance has begun so the set value should not be very high"),
    row(Ln::LeaveGroupOnPollTimeout, (V::V3_0, V::V3_6), Info, C::None, Lg::CoordHeartbeat, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null) due to consumer poll timeout has expired."),
    row(Ln::LeaveGroupOnPollTimeout, (V::V3_9, V::V3_9), Info, C::None, Lg::CoordHeartbeat, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null) due to worker poll timeout has expired."),
    row(Ln::LeaveGroupOnPollTimeout, since(V::V4_4), Info, C::None, Lg::CoordHeartbeat, Site::LeaveGroup, Fact, "Member <member> sending LeaveGroup request to coordinator broker-1:9092 (id: +1 rack: null isFenced: false) due to worker poll timeout has expired."),
    row(Ln::ResetOnPollTimeout, (V::V3_0, V::V3_0), Info, C::None, Lg::CoordHeartbeat, Site::ResettingGeneration, Fact, "Resetting generation due to: consumer pro-actively leaving the group"),
    row(Ln::ResetOnPollTimeout, since(V::V3_6), Info, C::None, Lg::CoordHeartbeat, Site::ResettingGeneration, Fact, "Resetting generation and member id due to: consumer pro-actively leaving the group"),
    // No `Request joining group due to: consumer pro-actively leaving the
    // group` after it: WorkerCoordinator's requestRejoin(String) override
    // logs it at DEBUG (3.0.2 to 3.9.0 source; real 3.6.2 `chaos-s0`, `-s2`).
    // WorkerCoordinator's own logger in every release (2.4.1 to 3.9.0 source; real 2.8.2 `chaos-s*`).
    row(Ln::Unreachable, since(V::V2_4), Info, C::None, Lg::WCoord, Site::Unreachable, Fact, "Broker coordinator was unreachable for 3000ms. Revoking previous assignment <assignment> to avoid running tasks while not being a member the group"),
    // `Rebalance started`: the herder's onRevoked up to 2.2.2 (only with a
    // previous assignment), WorkerCoordinator's from 2.3.0.
    row(Ln::RebalanceStartedHerder, until(V::V2_2), Info, C::None, Lg::Herder, Site::HerderRebalanceStarted, Fact, "Rebalance started"),
    row(Ln::RebalanceStarted, since(V::V2_3), Info, C::None, Lg::WCoord, Site::RebalanceStarted, Fact, "Rebalance started"),
    row(Ln::Rejoining, all(), Info, C::None, Lg::Coord, Site::Rejoining, Fact, "(Re-)joining group"),
    row(Ln::Joined, until(V::V2_4), Info, C::None, Lg::Coord, Site::Joined, Fact, "Successfully joined group with generation <generation>"),
    row(Ln::Joined, since(V::V2_8), Info, C::None, Lg::Coord, Site::Joined, Fact, "Successfully joined group with generation Generation{generationId=<generation>, memberId='<member>', protocol='<protocol>'}"),
    row(Ln::Synced, since(V::V2_8), Info, C::None, Lg::Coord, Site::Synced, Fact, "Successfully synced group in generation Generation{generationId=<generation>, memberId='<member>', protocol='<protocol>'}"),

    // ---------------------------------------------------------------- the herder's rebalance steps
    row(Ln::Assignment, until(V::V2_2), Info, C::None, Lg::Herder, Site::Assignment, Fact, "Joined group and got assignment: <assignment-v0>"),
    row(Ln::Assignment, (V::V2_3, V::V2_3), Info, C::None, Lg::Herder, Site::Assignment, Fact, "Joined group at generation <generation> and got assignment: <assignment>"),
    row(Ln::Assignment, since(V::V2_4), Info, C::None, Lg::Herder, Site::Assignment, Fact, "Joined group at generation <generation> with protocol version <protocol-version> and got assignment: <assignment> with rebalance delay: <delay>"),
    row(Ln::FinishedStopping, all(), Info, C::None, Lg::Herder, Site::FinishedStopping, Fact, "Finished stopping tasks in preparation for rebalance"),
    row(Ln::FinishedFlushing, since(V::V2_4), Info, C::None, Lg::Herder, Site::FinishedFlushing, Fact, "Finished flushing status backing store in preparation for rebalance"),
    row(Ln::SkipStopping, until(V::V2_4), Info, C::None, Lg::Herder, Site::SkipStopping, Fact, "Wasn't unable to resume work after last rebalance, can skip stopping connectors and tasks"),
    row(Ln::SkipStopping, since(V::V2_8), Info, C::None, Lg::Herder, Site::SkipStopping, Fact, "Wasn't able to resume work after last rebalance, can skip stopping connectors and tasks"),
    row(Ln::CatchingUp, all(), Warn, C::None, Lg::Herder, Site::CatchingUp, Fact, "Catching up to assignment's config offset."),
    row(Ln::Behind, all(), Info, C::None, Lg::Herder, Site::Behind, Fact, "Current config state offset <snapshot> is behind group assignment <offset>, reading to end of config log"),
    row(Ln::FinishedReading, all(), Info, C::None, Lg::Herder, Site::FinishedReading, Fact, "Finished reading to end of log and updated config snapshot, new config log offset: <offset>"),
    row(Ln::Mismatch, all(), Info, C::None, Lg::Herder, Site::Mismatch, Fact, "Current config state offset <snapshot> does not match group assignment <offset>. Forcing rebalance."),
    row(Ln::StartingWork, all(), Info, C::None, Lg::Herder, Site::StartingWork, Fact, "Starting connectors and tasks using config offset <offset>"),
    row(Ln::FinishedStarting, all(), Info, C::None, Lg::Herder, Site::FinishedStarting, Fact, "Finished starting connectors and tasks"),

    // ---------------------------------------------------------------- the config topic and its handling
    row(Ln::ConnectorUpdated, all(), Info, C::None, Lg::Herder, Site::ConnUpdated, Fact, "Connector <conn> config updated"),
    row(Ln::Removal, until(V::V2_0), Info, C::None, Lg::Kcbs, Site::ConfigStoreRemoval, Fact, "Removed connector <conn> due to null configuration. This is usually intentional and does not indicate an issue."),
    row(Ln::Removal, since(V::V2_2), Info, C::None, Lg::Kcbs, Site::ConfigStoreRemoval, Fact, "Successfully processed removal of connector '<conn>'"),
    row(Ln::ConnectorRemoved, all(), Info, C::None, Lg::Herder, Site::ConnRemoved, Fact, "Connector <conn> config removed"),
    row(Ln::TasksUpdated, all(), Info, C::None, Lg::Herder, Site::TasksUpdated, Fact, "Tasks [<tasks>] configs updated"),
    row(Ln::TargetChange, all(), Info, C::None, Lg::Herder, Site::TargetChange, Fact, "Connector <conn> target state change"),
    row(Ln::RestartRequest, all(), Info, C::None, Lg::Herder, Site::RestartRequest, Fact, "Received and enqueuing restart request for {connectorName='<conn>', onlyFailed=false, includeTasks=true}"),
    row(Ln::SessionKey, all(), Info, C::None, Lg::Herder, Site::SessionKey, Fact, "Session key updated"),
    // From 3.9 the rebalance's revocation stops a deleted connector.
    row(Ln::HandlingRemoval, until(V::V3_6), Info, C::None, Lg::Herder, Site::HandlingConn, Fact, "Handling connector-only config update by stopping connector <conn>"),
    row(Ln::HandlingConnectorUpdate, all(), Info, C::None, Lg::Herder, Site::HandlingConn, Fact, "Handling connector-only config update by restarting connector <conn>"),
    // 2.3.0 to 3.2.x print it even with no task; 3.3.0+ leave it out then.
    row(Ln::HandlingTaskUpdate, (V::V2_3, V::V3_0), Info, C::None, Lg::Herder, Site::HandlingTask, Fact, "Handling task config update by restarting tasks <list>"),
    row(Ln::HandlingTaskUpdate, since(V::V3_6), Info, C::None, Lg::Herder, Site::HandlingTask, Fact, "Handling task config update by stopping tasks <list>, which will be restarted after rebalance if still assigned to this worker"),
    // The Worker logs it outside the connector's context.
    row(Ln::SettingState, all(), Info, C::None, Lg::Worker, Site::SettingState, Fact, "Setting connector <conn> state to <state>"),
    row(Ln::ExecutingPlan, all(), Info, C::None, Lg::Herder, Site::RestartPlan, Fact, "Executing plan to restart connector and <tasks-restarted> of <tasks-restarted> tasks for restart request for {connectorName='<conn>', onlyFailed=false, includeTasks=true}"),
    row(Ln::CompletedPlan, all(), Info, C::None, Lg::Herder, Site::RestartPlan, Fact, "Completed plan to restart connector and <tasks-restarted> of <tasks-restarted> tasks for restart request for {connectorName='<conn>', onlyFailed=false, includeTasks=true}"),
    row(Ln::TaskRestartOk, all(), Info, C::None, Lg::Herder, Site::RestartPlan, Fact, "Task '<task>' restart successful"),
    // The connector's start callback: for a connector whose target state is
    // STARTED the herder thread logs it once its task configs are requested
    // (no MDC: real 3.6.2, 3.9.1, 4.4.0); for a PAUSED or STOPPED one the
    // connector's thread logs it as it takes that state, in its LoggingContext.
    row(Ln::ConnectorRestartOk, all(), Info, C::None, Lg::Herder, Site::RestartPlan, Fact, "Connector '<conn>' restart successful"),
    row(Ln::ConnectorRestartOkNotStarted, all(), Info, C::Conn, Lg::Herder, Site::RestartPlan, Fact, "Connector '<conn>' restart successful"),
    row(Ln::TaskRestartFailed, all(), Error, C::None, Lg::Herder, Site::RestartPlan, Fact, "Task '<task>' restart failed"),
    // The same callback, called by Worker.startConnector's catch inside the
    // connector's LoggingContext (3.0.2 to 3.9.0 source, 4.4.0 bytecode).
    row(Ln::ConnectorRestartFailed, all(), Error, C::Conn, Lg::Herder, Site::RestartPlan, Fact, "Connector '<conn>' restart failed"),

    // ---------------------------------------------------------------- starts and stops
    row(Ln::StartingConnector, all(), Info, C::None, Lg::Herder, Site::StartingConnector, Fact, "Starting connector <conn>"),
    row(Ln::StartingTask, all(), Info, C::None, Lg::Herder, Site::StartingTask, Fact, "Starting task <task>"),
    row(Ln::CreatingConnector, all(), Info, C::Conn, Lg::Worker, Site::CreatingConnector, Fact, "Creating connector <conn> of type <class>"),
    row(Ln::InstantiatedConnector, all(), Info, C::Conn, Lg::Worker, Site::InstantiatedConnector, Fact, "Instantiated connector <conn> with version <version> of type class <class>"),
    row(Ln::FinishedCreating, all(), Info, C::Conn, Lg::Worker, Site::FinishedCreating, Fact, "Finished creating connector <conn>"),
    row(Ln::CreatingTask, all(), Info, C::Task, Lg::Worker, Site::CreatingTask, Fact, "Creating task <task>"),
    row(Ln::InstantiatedTask, all(), Info, C::Task, Lg::Worker, Site::InstantiatedTask, Fact, "Instantiated task <task> with version <version> of type <class>"),
    row(Ln::Converter, all(), Info, C::Task, Lg::Worker, Site::Converter, Plain, "Set up the <converter-kind> converter <class> for task <task> using the <converter-from> config"),
    // WorkerSourceTask up to 3.0, AbstractWorkerSourceTask after.
    row(Ln::SourceTaskStarted, until(V::V3_0), Info, C::Task, SOURCE_TASK, Site::TaskInit, Fact, "WorkerSourceTask{id=<task>} Source task finished initialization and start"),
    row(Ln::SourceTaskStarted, since(V::V3_6), Info, C::Task, ABSTRACT_SOURCE_TASK, Site::TaskInit, Fact, "WorkerSourceTask{id=<task>} Source task finished initialization and start"),
    row(Ln::SinkTaskStarted, all(), Info, C::Task, SINK_TASK, Site::TaskInit, Fact, "WorkerSinkTask{id=<task>} Sink task finished initialization and start"),
    row(Ln::StoppingConnector, all(), Info, C::Conn, Lg::Worker, Site::StoppingConnector, Fact, "Stopping connector <conn>"),
    row(Ln::StoppedConnector, until(V::V2_4), Info, C::Conn, Lg::Worker, Site::StoppedConnector, Fact, "Stopped connector <conn>"),
    row(Ln::ScheduledShutdown, since(V::V2_8), Info, C::Conn, Lg::WConn, Site::ScheduledShutdown, Fact, "Scheduled shutdown for WorkerConnector{id=<conn>}"),
    row(Ln::CompletedShutdown, since(V::V2_8), Info, C::Conn, Lg::WConn, Site::CompletedShutdown, Fact, "Completed shutdown for WorkerConnector{id=<conn>}"),
    row(Ln::IgnoringStopConnector, all(), Warn, C::Conn, Lg::Worker, Site::IgnoringStopConnector, Fact, "Ignoring stop request for unowned connector <conn>"),
    row(Ln::IgnoringAwaitConnector, since(V::V2_8), Warn, C::Conn, Lg::Worker, Site::IgnoringAwaitConnector, Fact, "Ignoring await stop request for non-present connector <conn>"),
    row(Ln::StoppingTask, all(), Info, C::Task, Lg::Worker, Site::StoppingTask, Fact, "Stopping task <task>"),
    row(Ln::IgnoringStopTask, all(), Warn, C::Task, Lg::Worker, Site::IgnoringStopTask, Fact, "Ignoring stop request for unowned task <task>"),
    row(Ln::IgnoringAwaitTask, all(), Warn, C::Task, Lg::Worker, Site::IgnoringAwaitTask, Fact, "Ignoring await stop request for non-present task <task>"),

    // ---------------------------------------------------------------- failed starts
    row(Ln::FailedToStartTask, all(), Error, C::Task, Lg::Worker, Site::FailedToStartTask, Fact, "Failed to start task <task>"),
    row(Ln::FailedToStartConnector, all(), Error, C::Conn, Lg::Worker, Site::FailedToStartConnector, Fact, "Failed to start connector <conn>"),
    // The herder's asynchronous start logs a failure in its callback (2.6.3+).
    row(Ln::HerderConnectorFailed, since(V::V2_8), Error, C::Conn, Lg::Herder, Site::HerderConnectorFailed, Fact, "Failed to start connector '<conn>'"),
    row(Ln::UnknownConnectorType, all(), Warn, C::None, ABSTRACT_HERDER, Site::UnknownConnectorType, Plain, "Unable to retrieve connector type"),
    // Up to 2.5 the herder's start callable catches what the Worker's start threw.
    row(Ln::CouldNotInstantiateConnector, until(V::V2_4), Error, C::None, Lg::Herder, Site::CouldNotInstantiate, Fact, "Couldn't instantiate connector <conn> because it has an invalid connector configuration. This connector will not execute until reconfigured."),
    row(Ln::CouldNotInstantiate, all(), Error, C::None, Lg::Herder, Site::CouldNotInstantiate, Fact, "Couldn't instantiate task <task> because it has an invalid task configuration. This task will not execute until reconfigured."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_one_line_never_overlap_and_name_known_placeholders() {
        for v in crate::sim::version::ALL {
            let mut seen = [false; LINES];
            for r in ROWS.iter().filter(|r| r.from <= v && v <= r.to) {
                assert!(!seen[r.ln as usize], "{:?} twice for {v}", r.ln);
                seen[r.ln as usize] = true;
            }
        }
        let known = [
            "conn",
            "task",
            "tasks",
            "list",
            "assignment",
            "assignment-v0",
        ];
        for r in ROWS {
            assert!(r.from <= r.to, "{:?}", r.ln);
            let mut rest = r.text;
            while let Some(i) = rest.find('<') {
                let end = rest[i..].find('>').expect("closed placeholder") + i;
                let key = &rest[i + 1..end];
                assert!(
                    known.contains(&key) || key.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                    "{key}"
                );
                rest = &rest[end + 1..];
            }
        }
    }
}
