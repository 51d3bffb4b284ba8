//! What one worker's replay hands on to the rest of the audit, as it
//! happens: its assignment per generation and what it runs (for the
//! cross-worker checks), and its findings once they are final. These facts
//! are the boundary between the per-stream stage and the per-group stage of
//! the audit (see `docs/design.md`, "Orchestration"); they serialise, so the
//! two stages can run on different machines (`herder-audit map | reduce`).

use crate::event::{ConfigKey, Event, Milestone};
use crate::finding::Finding;
use crate::model::{Name, Resource, SourceLine};
use crate::rules::StopReason;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One fact, with the line that shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// The worker's group when the fact was made (`None`: not yet known).
    pub group: Option<Arc<str>>,
    /// The Kafka cluster id the worker logged, if it did.
    pub cluster: Option<Arc<str>>,
    /// The most stable id the worker's log revealed so far, with its kind:
    /// `rest:URL`, `member:ID` or `client:ID`; `None`: only its file
    /// identifies it.
    #[serde(default)]
    pub identity: Option<Arc<str>>,
    pub line: SourceLine,
    pub kind: FactKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fact", rename_all = "kebab-case")]
pub enum FactKind {
    /// An assignment line of generation `generation`: what it assigns and
    /// what the worker runs once its revocations were handled.
    Assignment {
        generation: i32,
        /// Sorted, without repeats.
        assigned: Arc<[Resource]>,
        /// Sorted, without repeats.
        #[serde(default)]
        revoked: Arc<[Resource]>,
        leader: String,
        leader_url: String,
        offset: i64,
        error: i32,
        /// Live resources (sorted) and the line that identifies each
        /// instance (its start, or the assignment it has been held since).
        live: Vec<(Resource, SourceLine)>,
    },
    /// The start phase ended without starting these assigned resources:
    /// the herder counts them as running since `since` (their assignment).
    Held {
        resources: Vec<Resource>,
        since: SourceLine,
    },
    /// A start (the fact's line).
    Start {
        resource: Resource,
        generation: Option<i32>,
        /// In a start phase: the config offset it started with (`Starting
        /// connectors and tasks using config offset N`), the snapshot the
        /// config topic's replay reproduces (docs/topics.md).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        config_offset: Option<i64>,
    },
    /// A start that failed (the fact's line): no instance runs.
    StartFailed { resource: Resource },
    /// A stop, or the Worker saying it owns no such instance.
    Stop {
        resource: Resource,
        /// A task stopped for a task-config update, the stop excused by it:
        /// the line that handles the update (the topics check whether the
        /// task configs really changed: docs/topics.md).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task_config: Option<SourceLine>,
    },
    /// The worker left its group without revoking what it runs (poll
    /// timeout, lost coordinator): its instances keep running.
    Left,
    /// The worker restarted or its log ended: nothing it ran is known any more.
    Reset,
    /// A worker whose log starts mid-life left its group without revoking
    /// (the fenced heartbeat naming `generation`) before its log showed what
    /// it held; back, it stopped `resource` (at `stop`) in the rebalance
    /// whose assignment (the fact's line) revokes it: it still owned it from
    /// `generation`, and, never started in its log, ran it from before the
    /// log's first line until `stop`. `left`: the departure line.
    KeptFromBefore {
        resource: Resource,
        generation: i32,
        left: SourceLine,
        stop: SourceLine,
    },
    /// A single-worker finding, final.
    Finding(Box<Finding>),
    /// A `foreign-start` finding: final once the cross-worker checks have
    /// named the owner of its resource where the other logs show one.
    ForeignStart {
        resource: Resource,
        generation: Option<i32>,
        finding: Box<Finding>,
    },
    /// The worker's stream ended: no fact of it follows.
    End,
    /// A record of Connect's internal topics (the second witness,
    /// docs/topics.md): record `record` of the witness's cluster `cluster`,
    /// keyed by its time stamp among the logs' facts.
    Record { cluster: u32, record: u32 },
    /// How the stop of `resource` at the fact's line was judged, and the
    /// line that justified it, if one did (the handling of a config update,
    /// a shutdown, the assignment that revoked it): what the interruptions
    /// (`src/interruptions/`) name as its cause. The cross-worker checks
    /// read nothing of it.
    Judged {
        resource: Resource,
        reason: StopReason,
        #[serde(default)]
        because: Option<SourceLine>,
    },
    /// A line that may cause or trigger interruptions: a config record, a
    /// REST restart request, the worker starting, stopping or leaving its
    /// group, a rejoin's reason. Read by the interruptions only.
    Signal(Signal),
}

/// What a [`FactKind::Signal`] line said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "signal", rename_all = "kebab-case")]
pub enum Signal {
    /// `Connector X config updated` (a creation when X was unknown).
    ConfigUpdated { connector: Name },
    /// `Connector X config removed`.
    ConfigRemoved { connector: Name },
    /// `Connector X target state change`.
    TargetState { connector: Name },
    /// `Tasks [...] configs updated`: the connectors named.
    TaskConfigs { connectors: Vec<Name> },
    /// A connector's task count changed.
    TaskCount {
        connector: Option<Name>,
        from: i64,
        to: i64,
    },
    /// `Received and enqueuing restart request for …`.
    RestartRequested { connector: Name },
    /// `Kafka Connect starting` / `Herder starting`: the worker (re)joins.
    WorkerStarting,
    /// `Kafka Connect stopping` / `Herder stopping`: an orderly shutdown.
    WorkerStopping,
    /// The worker's poll timeout expired, or its session (it left or was
    /// dropped without revoking).
    Departed { how: Departure },
    /// `Broker coordinator was unreachable …` / revoking after retries: the
    /// worker revoked its own work.
    CutOff,
    /// `Request joining group due to: …` / `LeaveGroup … due to …`: the
    /// reason string the client logged.
    Reason { text: String },
    /// `{} Source task finished initialization and start` (and the sink
    /// task's): the task is doing its work, not only starting.
    TaskRunning { resource: Resource },
    /// `Rebalance started` / `(Re-)joining group`: when the worker began a
    /// rebalance (the one that notices a silent member comes a session
    /// timeout after it fell silent).
    RebalanceStarted,
    /// The worker's `session.timeout.ms` (its config dump).
    SessionTimeout { ms: i64 },
    /// The worker logged nothing for a while before the fact's line (or
    /// starts again there): `last` is its line before the silence.
    Silence { last: SourceLine },
    /// `Current config state offset X does not match group assignment Y`,
    /// a failed assignment: the worker forces a rebalance.
    ForcedRebalance,
}

/// How a worker left its group without an orderly shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Departure {
    PollTimeout,
    SessionTimeout,
    Fenced,
}

/// The [`Signal`] an event gives the interruptions, if any (`shutdown`: the
/// worker is shutting down, so a departure is part of it).
pub(super) fn signal(ev: &Event, shutdown: bool) -> Option<Signal> {
    let departed = |how| (!shutdown).then_some(Signal::Departed { how });
    Some(match ev {
        Event::ConnectorConfigUpdated(c) => Signal::ConfigUpdated {
            connector: c.clone(),
        },
        Event::ConnectorConfigRemoved(c) => Signal::ConfigRemoved {
            connector: c.clone(),
        },
        Event::TargetStateChange(c) => Signal::TargetState {
            connector: c.clone(),
        },
        Event::TaskConfigsUpdated(tasks) => {
            let mut connectors: Vec<crate::model::Name> =
                tasks.iter().map(|t| t.connector.clone()).collect();
            connectors.sort();
            connectors.dedup();
            Signal::TaskConfigs { connectors }
        }
        Event::TaskCountChanged {
            connector,
            from,
            to,
        } => Signal::TaskCount {
            connector: connector.clone(),
            from: *from,
            to: *to,
        },
        Event::RestartRequested { connector, .. } => Signal::RestartRequested {
            connector: connector.clone(),
        },
        Event::Milestone(Milestone::ConnectStarting | Milestone::HerderStarting) => {
            Signal::WorkerStarting
        }
        Event::Milestone(Milestone::ConnectStopping | Milestone::HerderStopping) => {
            Signal::WorkerStopping
        }
        Event::PollTimeoutExpired => departed(Departure::PollTimeout)?,
        Event::SessionTimedOut => departed(Departure::SessionTimeout)?,
        Event::HeartbeatFenced { .. } => departed(Departure::Fenced)?,
        Event::CoordinatorUnreachable { .. } | Event::RevokingAfterRetries { .. } => Signal::CutOff,
        Event::RequestJoining { reason } => Signal::Reason {
            text: reason.clone(),
        },
        Event::LeaveGroup {
            reason: Some(r), ..
        } => Signal::Reason { text: r.clone() },
        Event::ConfigMismatch { .. } | Event::AssignmentFailed(_) => Signal::ForcedRebalance,
        Event::RebalanceStarted { .. } | Event::Rejoining { .. } => Signal::RebalanceStarted,
        Event::ConfigValue {
            key: ConfigKey::SessionTimeoutMs,
            value,
        } => Signal::SessionTimeout {
            ms: value.trim().parse().ok()?,
        },
        Event::TaskInitialized(t) => Signal::TaskRunning {
            resource: Resource::Task(t.clone()),
        },
        _ => return None,
    })
}
