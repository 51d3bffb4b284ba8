//! Typed lifecycle events: what a Connect worker said, independent of how the
//! line was laid out. One nom parser per message kind lives in [`parse`];
//! [`parse_message`] picks the family by logger and tries its parsers.

pub mod parse;

use crate::model::{Assignment, Name, Protocol, Resource, TaskId};

pub use parse::{attribute, parse_already_exists, parse_config_value, parse_message};

/// The logger (`%c`) a line came from, reduced to the classes whose lines the
/// auditor reads. `Unknown` is for layouts that print no logger: every family
/// is then tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoggerKind {
    /// `org.apache.kafka.connect.runtime.distributed.DistributedHerder`
    Herder,
    /// `…distributed.WorkerCoordinator`
    WorkerCoordinator,
    /// `org.apache.kafka.clients.consumer.internals.AbstractCoordinator` (≤ 2.8)
    AbstractCoordinator,
    /// `…distributed.WorkerGroupMember`
    WorkerGroupMember,
    /// `…distributed.EagerAssignor` / `…IncrementalCooperativeAssignor`
    Assignor,
    /// `org.apache.kafka.connect.runtime.Worker`
    Worker,
    /// `org.apache.kafka.connect.runtime.WorkerConnector`
    WorkerConnector,
    /// `WorkerTask`, `WorkerSinkTask`, `WorkerSourceTask`,
    /// `AbstractWorkerSourceTask`, `ExactlyOnceWorkerSourceTask`
    WorkerTask,
    /// `org.apache.kafka.connect.runtime.AbstractHerder`
    AbstractHerder,
    /// `org.apache.kafka.connect.runtime.Connect`, and the classes that log
    /// `Kafka cluster ID: …`: `…util.ConnectUtils` up to 3.3.x,
    /// `…runtime.WorkerConfig` from 3.4.0
    Connect,
    /// `org.apache.kafka.connect.storage.KafkaConfigBackingStore`
    ConfigBackingStore,
    /// `org.apache.kafka.common.config.AbstractConfig` (config dumps)
    AbstractConfig,
    /// `org.apache.kafka.connect.runtime.rest.RestServer`
    RestServer,
    /// No logger printed by the layout.
    Unknown,
}

impl LoggerKind {
    pub const ALL: [LoggerKind; 14] = [
        LoggerKind::Herder,
        LoggerKind::WorkerCoordinator,
        LoggerKind::AbstractCoordinator,
        LoggerKind::WorkerGroupMember,
        LoggerKind::Assignor,
        LoggerKind::Worker,
        LoggerKind::WorkerConnector,
        LoggerKind::WorkerTask,
        LoggerKind::AbstractHerder,
        LoggerKind::Connect,
        LoggerKind::ConfigBackingStore,
        LoggerKind::AbstractConfig,
        LoggerKind::RestServer,
        LoggerKind::Unknown,
    ];

    /// Classifies a full logger name; `None` for loggers the auditor ignores.
    pub fn classify(logger: &str) -> Option<LoggerKind> {
        const R: &str = "org.apache.kafka.connect.runtime.";
        if let Some(rest) = logger.strip_prefix(R) {
            return Some(match rest {
                "distributed.DistributedHerder" => LoggerKind::Herder,
                "distributed.WorkerCoordinator" => LoggerKind::WorkerCoordinator,
                "distributed.WorkerGroupMember" => LoggerKind::WorkerGroupMember,
                "distributed.EagerAssignor" | "distributed.IncrementalCooperativeAssignor" => {
                    LoggerKind::Assignor
                }
                "Worker" => LoggerKind::Worker,
                "WorkerConnector" => LoggerKind::WorkerConnector,
                "WorkerTask"
                | "WorkerSinkTask"
                | "WorkerSourceTask"
                | "AbstractWorkerSourceTask"
                | "ExactlyOnceWorkerSourceTask" => LoggerKind::WorkerTask,
                "AbstractHerder" => LoggerKind::AbstractHerder,
                "Connect" | "WorkerConfig" => LoggerKind::Connect,
                "rest.RestServer" => LoggerKind::RestServer,
                _ => return None,
            });
        }
        match logger {
            "org.apache.kafka.clients.consumer.internals.AbstractCoordinator" => {
                Some(LoggerKind::AbstractCoordinator)
            }
            "org.apache.kafka.connect.util.ConnectUtils" => Some(LoggerKind::Connect),
            "org.apache.kafka.connect.storage.KafkaConfigBackingStore" => {
                Some(LoggerKind::ConfigBackingStore)
            }
            "org.apache.kafka.common.config.AbstractConfig"
            | "org.apache.kafka.connect.runtime.distributed.DistributedConfig" => {
                Some(LoggerKind::AbstractConfig)
            }
            _ => None,
        }
    }
}

impl LoggerKind {
    /// For loggers most of whose lines are not lifecycle lines: fragments
    /// one of which every lifecycle message of theirs holds. A line without
    /// any is rejected from its raw bytes (the hot path's second test).
    pub fn keywords(self) -> Option<&'static [&'static [u8]]> {
        Some(match self {
            // Offset commits, flushes, …: only the task lifecycle lines
            // (`WorkerSinkTask{id=x-0} Task threw …`, `… Task failed …`,
            // `… Source task finished initialization and start`).
            LoggerKind::WorkerTask => &[b"} Task ", b"task finished initialization"],
            // REST access lines: only the advertised URL.
            LoggerKind::RestServer => &[b"Advertised URI: "],
            LoggerKind::Connect => &[b"Kafka Connect ", b"Kafka cluster ID: "],
            LoggerKind::ConfigBackingStore => &[
                b"KafkaConfigBackingStore",
                b"Removed connector ",
                b"removal of connector",
            ],
            _ => return None,
        })
    }
}

/// Which of the three `Join group completed, but assignment failed…` cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignmentFailure {
    /// `… and we are the leader. Reading to end of config and retrying.`
    Leader,
    /// `… and we lagging.` / `… and we are lagging.`
    Lagging,
    /// `… We were up to date, so just retrying.`
    UpToDate,
}

/// How a start attempt failed (docs/rules.md, "Failed starts").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFailure {
    /// DH `Couldn't instantiate task|connector … invalid … configuration`
    CouldNotInstantiate,
    /// DH `Unexpected error while trying to start connector <name>` (2.6.0+)
    Unexpected,
    /// DH `Failed to start connector '<name>'` (2.6.0+, callback)
    HerderCallback,
    /// W `Failed to start connector {}` / `Failed to start task {}`: not
    /// registered.
    Worker,
    /// WSink/WSrc `{} Task failed initialization and will not be started.`:
    /// the task stays registered, FAILED.
    Initialization,
    /// WConn `{} Error while starting connector` / `{} Error initializing
    /// connector`: the connector stays registered, FAILED.
    ConnectorStart,
    /// DH `Task '<task>' restart failed` / `Connector '<name>' restart
    /// failed` (KIP-745 plans, 3.0.0+): read from
    /// [`Event::RestartOutcome`], never parsed as such.
    RestartPlan,
    /// AH `Unable to retrieve connector type` right after the herder's
    /// `Starting task X` outside a start phase (a REST restart of the task,
    /// 3.3.0+): `startTask` throws before the Worker is asked and the
    /// exception goes to the REST caller, no other line. Read from
    /// [`Event::ConnectorTypeUnknown`].
    UnknownType,
}

impl StartFailure {
    /// Does the Worker keep the failed instance (so that its later stop is
    /// a real `Stopping …`)? `None`: the line does not say.
    pub fn registered(self) -> Option<bool> {
        match self {
            StartFailure::Initialization | StartFailure::ConnectorStart => Some(true),
            StartFailure::Worker | StartFailure::UnknownType => Some(false),
            StartFailure::CouldNotInstantiate
            | StartFailure::Unexpected
            | StartFailure::HerderCallback
            | StartFailure::RestartPlan => None,
        }
    }
}

/// `Setting connector X state to S` / target states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    Started,
    Paused,
    Stopped,
}

/// `Handling connector-only config update by {restarting|stopping} connector X`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectorUpdateAction {
    Restarting,
    Stopping,
}

/// Which wording of the task-config stop line was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskUpdateWording {
    /// `Handling task config update by restarting tasks [..]` (2.3.0–3.2.x)
    Restarting,
    /// `Handling task config update by stopping tasks [..], which will be
    /// restarted after rebalance if still assigned to this worker` (3.3.0+)
    Stopping,
}

/// Startup/shutdown milestones of the process and its components
/// (docs/log-formats.md §1.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Milestone {
    /// C `Kafka Connect starting`: a new process.
    ConnectStarting,
    ConnectStarted,
    ConnectStopping,
    ConnectStopped,
    /// DH `Herder starting`
    HerderStarting,
    HerderStarted,
    /// DH `Herder stopping`
    HerderStopping,
    /// DH `Herder stopped` (printed twice)
    HerderStopped,
    WorkerStarting,
    WorkerStarted,
    WorkerStopping,
    WorkerStopped,
    /// DH.halt `Stopping connectors and tasks that are still assigned to this worker.`
    HaltStoppingAssigned,
    /// W `Shutting down connectors|tasks {} uncleanly; …`
    UncleanShutdown,
    /// DH `Uncaught exception in herder work thread, exiting: `
    HerderCrashed,
    /// KCBS `Starting|Started|Closing|Closed KafkaConfigBackingStore`
    ConfigStore,
    /// WGM DEBUG `The Connect group member has stopped.`
    GroupMemberStopped,
}

/// A worker configuration key the replay cares about, read from the
/// `DistributedConfig values:` dump (continuation lines `\tkey = value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigKey {
    ConnectProtocol,
    GroupId,
    ClientId,
    RestAdvertisedHostName,
    RestAdvertisedPort,
    RestAdvertisedListener,
    Listeners,
    RestHostName,
    RestPort,
    ScheduledRebalanceMaxDelayMs,
    /// Read for the interruptions only (how long a silent worker stays a
    /// member): not counted as a lifecycle event.
    SessionTimeoutMs,
}

impl Event {
    /// Does the event count among the lifecycle events of the summaries?
    /// (`session.timeout.ms` was read later than the others, for the
    /// interruptions; counting it would change every count printed
    /// before.)
    #[inline]
    pub fn counted(&self) -> bool {
        !matches!(
            self,
            Event::ConfigValue {
                key: ConfigKey::SessionTimeoutMs,
                ..
            }
        )
    }
}

/// One lifecycle fact, as logged. Variants are named after what the worker
/// said, not after what it means: meaning is the replay's job.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    // ---- process / component lifecycle (docs/log-formats.md §1.9) ----
    Milestone(Milestone),

    // ---- group membership (docs/log-formats.md §1.1, §1.10) ----
    /// `Rebalance started` (WC 2.3.0+, DH ≤ 2.2.2 inside onRevoked).
    RebalanceStarted {
        by_herder: bool,
    },
    /// `(Re-)joining group` (0.11-era: `(Re-)joining group <group>`).
    Rejoining {
        group: Option<String>,
    },
    /// `Successfully joined group with generation N` or
    /// `… with generation Generation{generationId=N, memberId='…', protocol='…'}`
    /// (0.11-era: `Successfully joined group <group> with generation N`).
    JoinedGeneration {
        generation: i32,
        /// Interned: the same id comes back in every join and sync.
        member_id: Option<Name>,
        protocol: Option<Protocol>,
        group: Option<String>,
    },
    /// `Successfully synced group in generation Generation{…}` (2.6.3+).
    SyncedGeneration {
        generation: i32,
        member_id: Option<Name>,
        protocol: Option<Protocol>,
    },
    /// AC `Attempt to heartbeat failed since group is rebalancing`.
    HeartbeatRebalancing,
    /// The coordinator no longer counts the worker a member of its
    /// generation (session expired, or a rebalance completed without it):
    /// AC `Attempt to heartbeat with <generation> and group instance id <id>
    /// failed due to <error>, resetting generation` (2.6+), `Attempt to
    /// heartbeat failed for since member id <id> is not valid.` and
    /// `Attempt to heartbeat failed since generation <n> is not current`
    /// (up to 2.5.x). Nothing is revoked on this path. `generation`: the
    /// generation it was fenced out of, where the line names it.
    HeartbeatFenced {
        error: String,
        generation: Option<i32>,
    },
    /// AC's heartbeat thread saw no heartbeat response for the session
    /// timeout: `Group coordinator <node> is unavailable or invalid due to
    /// cause: session timed out without receiving a heartbeat response.
    /// isDisconnected: <b>. Rediscovery will be attempted.` (2.7+). The
    /// broker expires such a member, and the others may take its work; it
    /// revokes nothing until it reaches the coordinator again or gives up
    /// on it (`Broker coordinator was unreachable for <n>ms. Revoking …`).
    SessionTimedOut,
    /// AC `Rebalance failed.` (2.6.1–2.8.x, KAFKA-10134): a JoinGroup or
    /// SyncGroup that failed; the exception on the next line says why. By
    /// itself nothing: its continuation line
    /// `org.apache.kafka.common.errors.UnknownMemberIdException: The
    /// coordinator is not aware of this member.` is read as
    /// [`Event::HeartbeatFenced`] (in 2.6.x the only INFO line of a rejoin
    /// the coordinator refused: the JoinGroup response handler logs
    /// UNKNOWN_MEMBER_ID at DEBUG).
    RebalanceFailed,
    /// `Request joining group due to: <reason>` (3.x).
    RequestJoining {
        reason: String,
    },
    /// `Member <id> sending LeaveGroup request to coordinator <c>[ due to <reason>]`.
    LeaveGroup {
        member_id: String,
        reason: Option<String>,
    },
    /// WC DEBUG `Revoking previous assignment {}` (eager only from 2.3.0).
    RevokingPreviousAssignment,
    /// WC DEBUG `Cooperative rebalance triggered. Keeping assignment {} until it's explicitly revoked.`
    CooperativeRebalanceTriggered,
    /// WC `Broker coordinator was unreachable for {}ms. Revoking previous assignment {} to avoid …`
    CoordinatorUnreachable {
        millis: i64,
        assignment: Option<Assignment>,
    },
    /// EA/ICA/WC `Was selected to perform assignments, but do not have latest config …`
    LeaderLacksConfig,

    // ---- assignment and revocation (docs/log-formats.md §1.2) ----
    /// `Joined group and got assignment: A` (≤ 2.2.2: generation `None`,
    /// version `None`), `Joined group at generation N and got assignment: A`
    /// (2.3.x), `Joined group at generation N with protocol version P and got
    /// assignment: A with rebalance delay: D` (2.4+).
    Assignment {
        generation: Option<i32>,
        protocol_version: Option<i64>,
        assignment: Assignment,
        rebalance_delay: Option<i64>,
    },
    /// `Finished stopping tasks in preparation for rebalance`
    FinishedStoppingForRebalance,
    /// `Finished flushing status backing store in preparation for rebalance`
    FinishedFlushingStatus,
    /// `Wasn't unable to resume work after last rebalance, can skip stopping
    /// connectors and tasks` (sic) / `Wasn't able to …`.
    SkipStoppingUnresolved,
    /// DEBUG `Requesting rebalance due to reconfiguration of tasks (needsReconfigRebalance: true)`
    ReconfigRebalanceRequested,
    /// DEBUG `Scheduled rebalance at: …` / `Requesting rebalance because scheduled rebalance timeout has been reached …`
    ScheduledRebalance {
        reached: bool,
    },
    /// The worker's poll timeout expired and it leaves the group without
    /// revoking: DH WARN `worker poll timeout has expired. …` (3.8+), AC/WC
    /// WARN `consumer poll timeout has expired. …` (3.0–3.7), AC WARN
    /// `This member will leave the group because consumer poll timeout has
    /// expired. …` (2.1–2.3).
    PollTimeoutExpired,
    /// AC/WC `Resetting generation [and member id] due to: <reason>` (3.0+).
    ResettingGeneration,

    // ---- config-offset checks (docs/log-formats.md §1.3) ----
    /// DEBUG `Handling completed but unresolved rebalance`
    UnresolvedRebalance,
    /// WARN `Join group completed, but assignment failed …`
    AssignmentFailed(AssignmentFailure),
    /// WARN `Catching up to assignment's config offset.`
    CatchingUp,
    /// `Current config state offset X is behind group assignment Y, reading to end of config log`
    ConfigBehind {
        current: i64,
        assignment: i64,
    },
    /// `Reading to end of config log; current config state offset: X` (2.6.3+)
    ReadingToEnd {
        current: i64,
    },
    /// `Finished reading to end of log and updated config snapshot, new config log offset: Z`
    FinishedReadingToEnd {
        offset: i64,
    },
    /// WARN `Didn't reach end of config log quickly enough`
    ReadToEndTimedOut,
    /// `Current config state offset X does not match group assignment Y. Forcing rebalance.`
    ConfigMismatch {
        current: i64,
        assignment: i64,
    },
    /// `Revoking current running assignment {} because after {} retries the worker has not caught up …`
    RevokingAfterRetries {
        retries: i64,
    },

    // ---- starting work (docs/log-formats.md §1.4) ----
    /// `Starting connectors and tasks using config offset O`
    StartingWork {
        offset: i64,
    },
    /// `Finished starting connectors and tasks`
    FinishedStartingWork,
    /// DH `Starting connector X` / `Starting task X-n`
    Starting(Resource),
    /// Any failed start (see `StartFailure`).
    StartFailed {
        resource: Resource,
        how: StartFailure,
    },
    /// DH `Failed to shut down connector <name>`
    ShutdownFailed(Name),

    // ---- worker side (docs/log-formats.md §1.5, §1.6) ----
    /// W `Creating connector X of type T` / `Creating task X-n`
    Creating(Resource),
    /// W `Instantiated connector X with version V of type T` / `Instantiated task …`
    Instantiated(Resource),
    /// W `Finished creating connector X`
    FinishedCreatingConnector(Name),
    /// W `Stopping connector X` / `Stopping task X-n`
    Stopping(Resource),
    /// W `Ignoring stop request for unowned connector|task X`
    IgnoringStop(Resource),
    /// W `Ignoring await stop request for non-present connector|task X`
    IgnoringAwaitStop(Resource),
    /// W `Stopped connector X` (≤ 2.4.1), WConn `Completed shutdown for WorkerConnector{id=X}`
    Stopped(Resource),
    /// WConn `Scheduled shutdown for WorkerConnector{id=X}`
    ScheduledShutdown(Name),
    /// W DEBUG `Graceful stop of … succeeded.` / ERROR `Graceful stop of task {} failed.`
    GracefulStop {
        resource: Resource,
        ok: bool,
    },
    /// W `Connector '{}' failed to properly shut down, has become unresponsive, …`
    ConnectorUnresponsive(Name),
    /// W `Setting connector X state to S`
    SettingTargetState {
        connector: Name,
        state: TargetState,
    },
    /// WConn `WorkerConnector{id=X} Connector raised an error` and the other
    /// error lines that are not a failed start (`Error while shutting down
    /// connector`, `Connector has failed`); `… Error while starting
    /// connector` and `… Error initializing connector` are
    /// [`Event::StartFailed`] (`StartFailure::ConnectorStart`).
    ConnectorError(Name),
    /// `{} Source task finished initialization and start` / `{} Sink task …`
    TaskInitialized(TaskId),
    /// `{} Task threw an uncaught and unrecoverable exception[. Task is being killed …]`
    TaskKilled(TaskId),

    // ---- config updates and target state (docs/log-formats.md §1.7) ----
    /// DH `Connector X config updated`
    ConnectorConfigUpdated(Name),
    /// DH `Connector X config removed`
    ConnectorConfigRemoved(Name),
    /// DH `Tasks [..] configs updated`
    TaskConfigsUpdated(Vec<TaskId>),
    /// DH `Connector X target state change`
    TargetStateChange(Name),
    /// DH `Handling connector-only config update by restarting|stopping connector X`
    HandlingConnectorUpdate {
        connector: Name,
        action: ConnectorUpdateAction,
    },
    /// DH `Handling task config update by restarting tasks [..]` /
    /// `… by stopping tasks [..], which will be restarted after rebalance if still assigned to this worker`
    HandlingTaskUpdate {
        tasks: Vec<TaskId>,
        wording: TaskUpdateWording,
    },
    /// DH `Skipping reconfiguration of connector X since it is not running` / `… since its target state is S`
    SkippingReconfiguration(Name),
    /// AH WARN `Unable to retrieve connector type` (3.3.0+: the connector's
    /// class cannot be loaded; a task start asking for it throws before the
    /// Worker is asked, `StartFailure::UnknownType`)
    ConnectorTypeUnknown,
    /// AH/DH DEBUG task-count lines: `Connector X task count changed from A to B`,
    /// `Change in connector task count from A to B, writing updated task configurations`
    TaskCountChanged {
        connector: Option<Name>,
        from: i64,
        to: i64,
    },
    /// KCBS `Removed connector X due to null configuration…` / `Successfully processed removal of connector 'X'`
    ConnectorRemovedFromStore(Name),
    /// DH `Session key updated`
    SessionKeyUpdated,

    // ---- REST restarts, KIP-745 (docs/log-formats.md §1.8) ----
    /// `Received and enqueuing restart request for {connectorName='X', onlyFailed=B, includeTasks=B}`
    RestartRequested {
        connector: Name,
        only_failed: bool,
        include_tasks: bool,
    },
    /// `Executing plan to restart …`
    ExecutingPlan {
        connector: Name,
    },
    /// `Completed plan to restart …`
    CompletedPlan {
        connector: Name,
    },
    /// `Connector 'X' restart successful|failed`, `Task 'X-n' restart successful|failed`
    RestartOutcome {
        resource: Resource,
        ok: bool,
    },

    // ---- facts read from continuation lines ----
    /// `ConnectException: Task already exists in this worker: X-n` /
    /// `Connector with name X already exists` (stack trace of a failed start).
    AlreadyExists(Resource),
    /// RestServer `Advertised URI: http://host:8083/`
    AdvertisedUrl(String),
    /// `Kafka cluster ID: <id>` (ConnectUtils up to 3.3.x, WorkerConfig
    /// from 3.4.0)
    KafkaClusterId(String),
    /// `\tconnect.protocol = sessioned` inside a `DistributedConfig values:` dump.
    ConfigValue {
        key: ConfigKey,
        value: String,
    },
    /// AbstractConfig `DistributedConfig values: ` — the dump header.
    DistributedConfigDump,
}

impl Event {
    /// Does this event open a multi-line record whose continuation lines the
    /// scanner should hand to [`parse_config_value`] / [`parse_already_exists`]?
    pub fn continuation(&self) -> Continuation {
        match self {
            Event::DistributedConfigDump => Continuation::ConfigDump,
            Event::StartFailed { .. } | Event::RestartOutcome { ok: false, .. } => {
                Continuation::StartFailure
            }
            Event::RebalanceFailed => Continuation::RebalanceFailure,
            _ => Continuation::None,
        }
    }
}

/// What the continuation lines following an event may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continuation {
    None,
    ConfigDump,
    StartFailure,
    /// The exception of AC's `Rebalance failed.`, on the next line.
    RebalanceFailure,
}
