//! Per-worker replay: typed events in, state transitions and findings out
//! (docs/design.md, "The replay model"). One [`WorkerReplay`] per worker
//! stream; it knows nothing of layouts, and decisions are delegated to the
//! pure rules in [`crate::rules`].
//!
//! This file holds the replay's state and feeds it events
//! ([`WorkerReplay::apply`]); what the replay hands on (facts, findings once
//! final, the report at its end) is in `output`; starts, stops and
//! rebalances are judged in `starts`, `stops` and `rebalance`.

pub mod facts;
mod output;
mod rebalance;
mod resources;
mod starts;
mod stops;
mod summary;
pub mod timeline;

pub use crate::state;
pub use facts::{Fact, FactKind};
pub use summary::{GenerationRecord, Identity, Note, WorkerReport, WorkerSummary};

use crate::event::{ConfigKey, ConnectorUpdateAction, Event, Milestone, StartFailure, TargetState};
use crate::finding::{Evidence, Finding};
use crate::model::{Protocol, Resource, SourceLine, TaskId};
use crate::rules::offset_mismatch::Trouble;
use crate::rules::{
    StartReason, StopReason, Who, double_start, foreign_start, lost_assignment, offset_mismatch,
    stale_config, unnecessary_stop, zombie,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use state::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Facts about a line that come from its layout rather than its message.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineCtx<'a> {
    /// `[Worker clientId=…, groupId=…]`
    pub client_id: Option<&'a str>,
    pub group_id: Option<&'a str>,
}

/// State of the current process incarnation (reset when the worker restarts).
#[derive(Debug, Default)]
struct Incarnation {
    /// The worker's start is in the log: everything not mentioned since is
    /// known not running.
    baseline: Option<SourceLine>,
    protocol: Option<Protocol>,
    generation: Option<i32>,
    joined: Option<(i32, Option<Protocol>)>,
    received: Option<Received>,
    owned: Option<Owned>,
    res: resources::ResourceMap,
    tasks_to_restart: HashMap<TaskId, SourceLine>,
    offset: Option<(i64, SourceLine)>,
    window: Option<Window>,
    start_phase: Option<PhaseState>,
    /// A mismatch, failed assignment or failed read logged since the latest
    /// assignment line.
    trouble: Option<(Trouble, SourceLine)>,
    ctx: Contexts,
    pending_stops: Vec<Stop>,
    unconfirmed: Vec<(Resource, SourceLine)>,
    /// Latest start attempt of each resource.
    last_start: HashMap<Resource, Attempt>,
    /// The task of the latest `Starting task` line (what a following
    /// `Unable to retrieve connector type` outside a start phase is of).
    last_task_start: Option<Resource>,
    /// Resources in state `Starting`: they become `Running` once the lines
    /// of their start are past ([`WorkerReplay::settle`]).
    starting: Vec<Resource>,
    /// Resources stopped by a self-revocation and not started since.
    self_revoked: HashSet<Resource>,
    /// The poll timeout expired (the LeaveGroup that follows is a departure
    /// without revocation).
    poll_timeout: Option<SourceLine>,
    /// Something other than start-up noise happened since the reset.
    active: bool,
    /// The worker's start (`Kafka Connect starting`, `Herder starting`):
    /// the config topic it read then was read silently.
    process_start: Option<SourceLine>,
}

/// One start attempt: the herder's `Starting …` line and what followed it.
#[derive(Debug, Clone)]
struct Attempt {
    line: SourceLine,
    /// What was known about the resource just before the start.
    prev: Option<ResState>,
    /// The double-start finding it produced (absolute index, see
    /// [`WorkerReplay::push`]).
    double: Option<usize>,
    /// The Worker answered the start (`Creating …`, `Instantiated …`, its
    /// own failure line): it did not already hold the resource.
    answered: bool,
    /// The Worker refused it: an instance already existed.
    refused: bool,
    /// The `stale-config-start` finding it produced (absolute index):
    /// withdrawn if the start fails (no data was handled with the old
    /// configuration).
    stale: Option<usize>,
}

#[derive(Debug)]
struct PhaseState {
    phase: StartPhase,
    /// The assignment the phase belongs to is in the log.
    judgeable: bool,
}

/// Replays one worker's lifecycle events.
pub struct WorkerReplay {
    label: String,
    inc: Incarnation,
    configured_protocol: Option<Protocol>,
    group: Option<String>,
    client_id: Option<String>,
    member_id: Option<crate::model::Name>,
    rest_host: Option<String>,
    rest_port: Option<String>,
    /// `Advertised URI: …` (RestServer).
    advertised_url: Option<String>,
    /// The leader URL of an assignment whose leader is this worker.
    leader_self_url: Option<String>,
    /// Config-topic facts per connector; they survive restarts (the config
    /// topic does). Boxed: every worker holds one per connector of the
    /// group, and the table's spare buckets then cost a pointer each.
    config: HashMap<crate::model::Name, Box<ConfigFacts>>,
    findings: Vec<Finding>,
    summary: WorkerSummary,
    generations: Vec<GenerationRecord>,
    keep_generations: bool,
    last_line: Option<SourceLine>,
    /// The last line of the log, read or skipped, when later than
    /// `last_line`: how far the log reaches (its `End` fact carries it).
    tail_line: Option<SourceLine>,
    /// Facts for the cross-worker checks, when they are wanted.
    facts: Option<Vec<Fact>>,
    /// Facts from this index on wait for the outcome of a start (a `Start`
    /// fact is withdrawn if the start fails while its lines are coming, so
    /// that the cross-worker checks never count an instance that never ran).
    facts_held_from: Option<usize>,
    /// Shared copy of the group name for facts.
    group_arc: Option<Arc<str>>,
    /// Shared copy of the identity for facts.
    identity_arc: Option<Arc<str>>,
    /// Scratch for the identity value, compared with `identity_arc`.
    identity_buf: String,
    /// Findings pushed since the last [`WorkerReplay::flush_findings`]
    /// start at this index of `findings` (facts mode: findings are handed
    /// on as facts once final, and not kept).
    held_from: usize,
    /// Findings withdrawn before they were handed on (absolute indices): a
    /// start they were about turned out to fail.
    withdrawn: Vec<usize>,
    /// Findings handed on and dropped so far (facts mode).
    handed_on: usize,
    /// A line past the start-up preamble was seen.
    begun: bool,
    /// `Kafka cluster ID: …`: tells clusters with the same group id apart.
    kafka_cluster: Option<Arc<str>>,
    /// The timeline for the HTML report, when it is wanted.
    timeline: Option<Box<timeline::Recorder>>,
    /// An empty resource set, shared by the facts that name none.
    no_resources: Arc<[Resource]>,
}

/// Two lines of one rebalance further apart than this (log time) suggest
/// that lines are missing between them; such a rebalance is not judged.
pub const WINDOW_GAP_MS: i64 = 10 * 60 * 1000;

/// Start-up lines that say who the worker is, not what it does.
fn is_preamble(ev: &Event) -> bool {
    matches!(
        ev,
        Event::DistributedConfigDump
            | Event::ConfigValue { .. }
            | Event::KafkaClusterId(_)
            | Event::AdvertisedUrl(_)
            | Event::Milestone(
                Milestone::ConfigStore | Milestone::WorkerStarting | Milestone::WorkerStarted
            )
    )
}

fn is_stop_family(ev: &Event) -> bool {
    matches!(
        ev,
        Event::Stopping(_)
            | Event::IgnoringStop(_)
            | Event::IgnoringAwaitStop(_)
            | Event::Stopped(_)
            | Event::ScheduledShutdown(_)
            | Event::GracefulStop { .. }
            | Event::ConnectorUnresponsive(_)
            | Event::ShutdownFailed(_)
            | Event::ConfigValue { .. }
            | Event::AlreadyExists(_)
    )
}

impl WorkerReplay {
    /// `keep_generations`: keep a record per generation (the replay view and
    /// cross-worker checks need them).
    pub fn new(label: impl Into<String>, keep_generations: bool) -> WorkerReplay {
        let label = label.into();
        WorkerReplay {
            summary: WorkerSummary::new(&label),
            label,
            inc: Incarnation::default(),
            configured_protocol: None,
            group: None,
            client_id: None,
            member_id: None,
            rest_host: None,
            rest_port: None,
            advertised_url: None,
            leader_self_url: None,
            config: HashMap::default(),
            findings: Vec::new(),
            generations: Vec::new(),
            keep_generations,
            last_line: None,
            tail_line: None,
            facts: None,
            facts_held_from: None,
            group_arc: None,
            identity_arc: None,
            identity_buf: String::new(),
            held_from: 0,
            withdrawn: Vec::new(),
            handed_on: 0,
            begun: false,
            kafka_cluster: None,
            timeline: None,
            no_resources: Arc::from([]),
        }
    }

    /// Record the worker's [`timeline::Timeline`] (for the HTML report).
    pub fn with_timeline(mut self) -> WorkerReplay {
        self.timeline = Some(Box::default());
        self
    }

    /// Collect facts for the cross-worker checks ([`WorkerReplay::take_facts`]).
    pub fn with_facts(mut self) -> WorkerReplay {
        self.facts = Some(Vec::new());
        self
    }

    /// The most stable id the log reveals, and what kind it is (`None`:
    /// only the file identifies the worker).
    pub fn identity(&self) -> (Identity, Option<String>) {
        let mut v = String::new();
        match self.write_identity(&mut v) {
            Identity::FilePath => (Identity::FilePath, None),
            kind => (kind, Some(v)),
        }
    }

    /// Writes the value of [`WorkerReplay::identity`] to `out` (nothing
    /// for [`Identity::FilePath`]) and returns its kind.
    pub(super) fn write_identity(&self, out: &mut String) -> Identity {
        if let Some(u) = &self.advertised_url {
            out.push_str(u);
            return Identity::RestUrl;
        }
        match (&self.rest_host, &self.rest_port) {
            (Some(h), Some(p)) => {
                for part in ["http://", h, ":", p, "/"] {
                    out.push_str(part);
                }
                return Identity::RestUrl;
            }
            _ => {
                if let Some(u) = &self.leader_self_url {
                    out.push_str(u);
                    return Identity::RestUrl;
                }
            }
        }
        if let Some(m) = &self.member_id {
            out.push_str(m);
            return Identity::MemberId;
        }
        // `connect-<n>` is a per-JVM counter: every worker is `connect-1`.
        let default = |c: &str| {
            c.strip_prefix("connect-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        };
        match &self.client_id {
            Some(c) if !default(c) => {
                out.push_str(c);
                Identity::ClientId
            }
            _ => Identity::FilePath,
        }
    }

    fn rest_url(&self) -> Option<String> {
        if let Some(u) = &self.advertised_url {
            return Some(u.clone());
        }
        match (&self.rest_host, &self.rest_port) {
            (Some(h), Some(p)) => Some(format!("http://{h}:{p}/")),
            _ => self.leader_self_url.clone(),
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// The worker's group, once a line or its config has named it.
    pub fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// The generation the worker is in, when known.
    pub fn generation(&self) -> Option<i32> {
        self.inc.generation
    }

    /// Lifecycle events applied so far.
    pub fn events(&self) -> u64 {
        self.summary.events
    }

    fn who(&self) -> Who<'_> {
        Who {
            worker: &self.label,
            group: self.group.as_deref(),
            generation: self.inc.generation,
        }
    }

    fn protocol(&self) -> Option<Protocol> {
        self.inc.protocol.or(self.configured_protocol)
    }

    fn note(&mut self, line: Option<&SourceLine>, text: String) {
        self.summary.notes.push(Note {
            line: line.map(|l| (l.source, l.line)),
            text,
        });
    }

    fn count_stop(&mut self, why: StopReason, stop: &Stop) {
        *self.summary.stops.entry(why).or_default() += 1;
        if let Some(g) = self.generations.last_mut() {
            g.stop_reasons.push(why);
        }
        if let Some(t) = &mut self.timeline {
            t.judged(&stop.resource, &stop.line, why);
        }
    }

    /// A note for the worker's summary about how its log was read (its
    /// layout, say), at `line`.
    pub fn note_reading(&mut self, line: &SourceLine, text: String) {
        self.note(Some(line), text);
    }

    /// A note on how the log was read, tied to no line.
    pub fn note_unread(&mut self, text: String) {
        self.note(None, text);
    }

    /// Lines before `line` may not all have been read (the reader could not
    /// find them). What the worker ran is unknown from here on, as at the
    /// start of a log that begins mid-life: no finding may rest on a stop
    /// or start among the lines missed (README, "Unknown is not empty").
    /// Stops already waiting for their judgement keep it.
    /// The log reaches `line` (the last line of a segment, whatever it
    /// says): the worker was still logging then.
    pub fn log_goes_on(&mut self, line: SourceLine) {
        if self.tail_line.as_ref().is_none_or(|t| t.ts <= line.ts) {
            self.tail_line = Some(line);
        }
    }

    pub fn lines_missed_before(&mut self, line: &SourceLine) {
        self.flush_unconfirmed();
        self.inc.res.clear();
        self.inc.last_start.clear();
        self.inc.self_revoked.clear();
        self.inc.baseline = None;
        self.fact(line, FactKind::Reset);
    }

    /// Feeds one event read from `line`.
    pub fn apply(&mut self, ev: &Event, line: &SourceLine, ctx: LineCtx) {
        self.summary.events += 1;
        // A start's findings may still be amended by the lines of its
        // failure (`Task already exists in this worker`), which may come
        // after the other starts of a start phase; anything else makes
        // everything pushed so far final.
        if !matches!(
            ev,
            Event::Starting(_)
                | Event::Creating(_)
                | Event::Instantiated(_)
                | Event::FinishedCreatingConnector(_)
                | Event::TaskInitialized(_)
                | Event::StartFailed { .. }
                | Event::ConnectorTypeUnknown
                | Event::RestartOutcome { ok: false, .. }
                | Event::AlreadyExists(_)
                | Event::ConfigValue { .. }
        ) {
            self.flush_findings();
        }
        if let Some(t) = &mut self.timeline {
            t.event(ev, line);
        }
        if !self.begun && !is_preamble(ev) {
            self.begun = true;
            if !matches!(
                ev,
                Event::Milestone(Milestone::ConnectStarting | Milestone::HerderStarting)
            ) {
                self.note(
                    Some(line),
                    "the log starts mid-life: what ran before this line is unknown".to_string(),
                );
            }
        }
        if let Some(t) = line.ts
            && let Some(prev) = self.last_line.as_ref().and_then(|l| l.ts)
            && t.0 + 1000 < prev.0
        {
            self.summary.time_reversals += 1;
        }
        if let (Some(w), Some(prev)) = (&mut self.inc.window, &self.last_line)
            && let (Some(a), Some(b)) = (prev.ts, line.ts)
            && b.0 - a.0 > WINDOW_GAP_MS
            && w.gap.is_none()
        {
            w.gap = Some((prev.clone(), line.clone()));
        }
        self.last_line = Some(line.clone());
        if let Some(g) = ctx.group_id
            && self.group.as_deref() != Some(g)
        {
            self.group = Some(g.to_string());
        }
        if let Some(c) = ctx.client_id
            && self.client_id.as_deref() != Some(c)
        {
            self.client_id = Some(c.to_string());
        }
        if !is_stop_family(ev) {
            self.flush_unconfirmed();
        }
        if !is_preamble(ev) && !matches!(ev, Event::Milestone(_)) {
            self.inc.active = true;
        }
        match ev {
            Event::Milestone(m) => self.milestone(*m, line),
            Event::RebalanceStarted { by_herder } => {
                self.open_window(line);
                if *by_herder {
                    // ≤ 2.2.2: logged by the herder inside onRevoked, eager only.
                    self.set_observed(Protocol::Eager);
                }
            }
            Event::Rejoining { .. } => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.joined = true;
                }
            }
            Event::JoinedGeneration {
                generation,
                member_id,
                protocol,
                ..
            }
            | Event::SyncedGeneration {
                generation,
                member_id,
                protocol,
            } => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.joined = true;
                    if protocol.is_some() {
                        w.protocol = *protocol;
                    }
                }
                self.inc.joined = Some((*generation, *protocol));
                if let Some(m) = member_id {
                    self.member_id = Some(m.clone());
                }
                if let Some(p) = protocol {
                    self.set_observed(*p);
                }
            }
            Event::PollTimeoutExpired => self.inc.poll_timeout = Some(line.clone()),
            // Fenced out of the generation (session expired, or a rebalance
            // completed without it): a departure that revokes nothing, like
            // a poll-timeout leave.
            Event::HeartbeatFenced { .. } if self.inc.ctx.shutdown.is_none() => {
                self.fact(line, FactKind::Left);
            }
            // Its session expired unseen (cut off from the broker): the
            // broker drops it while its work runs on until it revokes (a
            // real 3.9.1 worker cut off 35 s ran its source task 2 s past
            // another worker's start of it: 39 duplicate records).
            Event::SessionTimedOut if self.inc.ctx.shutdown.is_none() => {
                self.fact(line, FactKind::Left);
            }
            Event::LeaveGroup { reason, .. } => {
                // A departure that revokes nothing (KAFKA-16056; also
                // KAFKA-9849's read timeout up to 2.5.0): what the worker
                // runs keeps running while the leader hands it to others.
                // A shutdown's LeaveGroup comes after its stops.
                let why = reason.as_deref().unwrap_or("");
                let departs = why.contains("poll timeout has expired")
                    || why.contains("taking too long to read the log")
                    || (reason.is_none() && self.inc.poll_timeout.is_some());
                if departs && self.inc.ctx.shutdown.is_none() {
                    self.fact(line, FactKind::Left);
                }
                self.inc.poll_timeout = None;
            }
            Event::RevokingPreviousAssignment => {
                self.open_window(line);
                self.set_observed(Protocol::Eager);
            }
            Event::CooperativeRebalanceTriggered => {
                self.open_window(line);
                if self.inc.protocol.is_none() {
                    self.inc.protocol = Some(Protocol::Compatible);
                }
            }
            Event::CoordinatorUnreachable { .. } | Event::RevokingAfterRetries { .. } => {
                self.inc.ctx.self_revocation = Some(line.clone());
                if self.inc.protocol.is_none() {
                    self.inc.protocol = Some(Protocol::Compatible);
                }
            }
            Event::Assignment {
                generation,
                protocol_version,
                assignment,
                rebalance_delay: _,
            } => self.assignment(*generation, *protocol_version, assignment, line),
            Event::SkipStoppingUnresolved => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.skip_stopping = Some(line.clone());
                }
            }
            Event::AssignmentFailed(_) => {
                self.inc.trouble = Some((Trouble::AssignmentFailed, line.clone()));
            }
            Event::ReadToEndTimedOut => {
                self.inc.trouble = Some((Trouble::ReadTimedOut, line.clone()));
            }
            Event::ConfigMismatch { current, .. } => {
                self.inc.trouble = Some((Trouble::Mismatch, line.clone()));
                self.inc.offset = Some((*current, line.clone()));
            }
            Event::ConfigBehind { current, .. } | Event::ReadingToEnd { current } => {
                self.inc.offset = Some((*current, line.clone()));
            }
            Event::FinishedReadingToEnd { offset } => {
                self.inc.offset = Some((*offset, line.clone()));
            }
            Event::StartingWork { offset } => self.start_phase(*offset, line),
            Event::FinishedStartingWork => self.close_phase(Some(line)),
            Event::Starting(r) => self.start(r, line),
            Event::StartFailed { resource, how } => self.start_failed(resource, *how, line),
            // Outside a start phase (its tasks start on several threads and
            // name themselves in `Couldn't instantiate task X`), right after
            // the herder's `Starting task X` that no Worker line answered:
            // that start threw (a REST restart of the task, 3.3.0+).
            Event::ConnectorTypeUnknown if self.inc.start_phase.is_none() => {
                if let Some(r) = self.inc.last_task_start.take()
                    && self.inc.last_start.get(&r).is_some_and(|a| !a.answered)
                {
                    self.start_failed(&r, StartFailure::UnknownType, line);
                }
            }
            Event::RestartOutcome {
                resource,
                ok: false,
            } => self.start_failed(resource, StartFailure::RestartPlan, line),
            Event::Creating(r) | Event::Instantiated(r) => self.answered(r),
            Event::FinishedCreatingConnector(c) => {
                self.answered(&Resource::Connector(c.clone()));
            }
            Event::AlreadyExists(r) => self.already_exists(r, line),
            Event::Stopping(r) => match r {
                Resource::Connector(_) => self.inc.unconfirmed.push((r.clone(), line.clone())),
                Resource::Task(_) => self.stop(r, line),
            },
            Event::IgnoringStop(r) => {
                // The Worker owns no such instance: not a stop, but now
                // known not to run.
                self.inc.unconfirmed.retain(|(u, _)| u != r);
                // A task-config update stops the connector's assigned tasks,
                // failed ones included, and restarts them all after the
                // rebalance.
                if let (Resource::Task(t), Some(tu)) = (r, &self.inc.ctx.task_update)
                    && tu.tasks.contains(t)
                {
                    self.inc.tasks_to_restart.insert(t.clone(), line.clone());
                }
                let prev = self.mark_stopped(r, line);
                if prev.as_ref().is_some_and(ResState::is_live) {
                    self.fact(
                        line,
                        FactKind::Stop {
                            resource: r.clone(),
                        },
                    );
                }
            }
            Event::AdvertisedUrl(u) => self.advertised_url = Some(u.clone()),
            Event::KafkaClusterId(id) => self.kafka_cluster = Some(Arc::from(id.as_str())),
            Event::IgnoringAwaitStop(r) => {
                if let Some(w) = &mut self.inc.window {
                    w.stop_attempts.insert(r.clone());
                }
            }
            Event::Stopped(r) => self.confirm(r),
            Event::ScheduledShutdown(n) => self.confirm(&Resource::Connector(n.clone())),
            Event::GracefulStop { resource, .. } => self.confirm(resource),
            Event::ConnectorConfigUpdated(c) => {
                let facts = self.config.entry(c.clone()).or_default();
                facts.updated = Some(line.clone());
                if facts.removed.is_some() && facts.recreated.is_none() {
                    facts.recreated = Some(Box::new(line.clone()));
                }
                self.inc.offset = None;
            }
            Event::ConnectorConfigRemoved(c) => {
                let facts = self.config.entry(c.clone()).or_default();
                facts.removed = Some(Box::new(line.clone()));
                facts.recreated = None;
                self.inc.offset = None;
            }
            Event::TargetStateChange(c) => {
                self.config.entry(c.clone()).or_default().target_change = Some(line.seq);
                self.inc.offset = None;
                // The target state moved again: a stop it excused is over
                // (a worker that runs none of the connector's work may log
                // no `Setting connector X state to …` of the resume; a new
                // stop logs its `Setting … STOPPED` right after this line).
                self.inc.ctx.target_stopped.remove(c);
            }
            Event::TaskConfigsUpdated(tasks) => self.task_claim(tasks, line),
            Event::HandlingConnectorUpdate { connector, action } => {
                self.inc.ctx.connector.insert(
                    connector.clone(),
                    ConnectorCtx {
                        action: *action,
                        line: line.clone(),
                    },
                );
            }
            Event::HandlingTaskUpdate { tasks, .. } => {
                if self.inc.protocol.is_none() {
                    // Only the cooperative path handles task configs this way.
                    self.inc.protocol = Some(Protocol::Compatible);
                }
                self.inc.ctx.task_update = Some(TaskUpdateCtx {
                    line: line.clone(),
                    tasks: tasks.iter().cloned().collect(),
                });
            }
            Event::SettingTargetState { connector, state } => {
                if *state == TargetState::Stopped {
                    let at = line.clone();
                    self.inc.ctx.target_stopped.insert(connector.clone(), at);
                } else {
                    // Resumed or paused: stops are no longer excused.
                    self.inc.ctx.target_stopped.remove(connector);
                }
            }
            // Config records without a connector: the snapshot may move past
            // the last known offset without a catch-up.
            Event::SessionKeyUpdated | Event::RestartRequested { .. } => self.inc.offset = None,
            Event::ExecutingPlan { .. } => self.inc.ctx.restart_plan = Some(line.clone()),
            Event::CompletedPlan { .. } => self.inc.ctx.restart_plan = None,
            Event::ConfigValue { key, value } => self.config_value(*key, value),
            _ => {}
        }
    }

    fn set_observed(&mut self, p: Protocol) {
        self.inc.protocol = Some(p);
    }

    fn config_value(&mut self, key: ConfigKey, value: &str) {
        match key {
            ConfigKey::ConnectProtocol => self.configured_protocol = Protocol::from_name(value),
            ConfigKey::GroupId if self.group.is_none() => self.group = Some(value.to_string()),
            ConfigKey::ClientId
                if value != "null" && !value.is_empty() && self.client_id.is_none() =>
            {
                self.client_id = Some(value.to_string())
            }
            ConfigKey::RestAdvertisedHostName if value != "null" => {
                self.rest_host = Some(value.to_string())
            }
            ConfigKey::RestAdvertisedPort if value != "null" => {
                self.rest_port = Some(value.to_string())
            }
            _ => {}
        }
    }

    fn milestone(&mut self, m: Milestone, line: &SourceLine) {
        match m {
            Milestone::ConnectStarting | Milestone::HerderStarting => {
                let fresh = self.inc.baseline.is_some() && !self.inc.active;
                if !fresh {
                    let had_state = self.inc.active;
                    self.end_incarnation(line, "the worker restarted");
                    self.fact(line, FactKind::Reset);
                    self.inc = Incarnation::default();
                    if had_state {
                        self.summary.restarts += 1;
                        self.note(Some(line), "worker restarted: state reset".to_string());
                    }
                    if let Some(t) = &mut self.timeline {
                        t.known_from(line, true);
                    }
                }
                self.inc.baseline = Some(line.clone());
                self.inc.process_start = Some(line.clone());
                self.inc.offset = Some((-1, line.clone()));
            }
            Milestone::ConnectStopping
            | Milestone::HerderStopping
            | Milestone::HaltStoppingAssigned
            | Milestone::WorkerStopping
            | Milestone::UncleanShutdown
            | Milestone::HerderCrashed
                if self.inc.ctx.shutdown.is_none() =>
            {
                self.inc.ctx.shutdown = Some(line.clone());
            }
            _ => {}
        }
    }

    /// The incarnation ends (restart or end of log): what is still pending
    /// cannot be judged.
    fn end_incarnation(&mut self, line: &SourceLine, why: &str) {
        self.flush_unconfirmed();
        if let Some(ps) = &self.inc.start_phase {
            let at = ps.phase.line.clone();
            self.note(
                Some(&at),
                format!("{why} during this start phase: what it left unstarted is not judged"),
            );
        }
        self.close_phase(None);
        let pending = self.inc.pending_stops.len();
        if pending > 0 {
            self.note(
                Some(line),
                format!("{why} before {pending} stop(s) could be told from restarts; not judged"),
            );
        }
        self.resolve_pending(None);
        if let Some(w) = self.inc.window.take() {
            let at = w.opened.clone().unwrap_or_else(|| line.clone());
            self.note(
                Some(&at),
                format!(
                    "{why} during this rebalance, before its assignment line; {} stop(s) in it not judged",
                    w.stops.len()
                ),
            );
            for s in &w.stops {
                self.count_stop(StopReason::NotJudged, s);
            }
        }
        self.close_generation();
    }
}

fn fmt_gen(g: Option<i32>) -> String {
    g.map_or_else(|| "?".to_string(), |g| g.to_string())
}

#[cfg(test)]
mod tests;
