//! Per-worker replay: typed events in, state transitions and findings out
//! (SPEC §3). One [`WorkerReplay`] per worker stream; it knows nothing of
//! layouts, and decisions are delegated to the pure rules in [`crate::rules`].

pub mod facts;
pub mod state;
mod summary;

pub use facts::{Fact, FactKind};
pub use summary::{GenerationRecord, Identity, Note, WorkerReport, WorkerSummary};

use crate::event::{ConfigKey, ConnectorUpdateAction, Event, Milestone, StartFailure, TargetState};
use crate::finding::{Evidence, Finding};
use crate::model::{Protocol, Resource, SourceLine, TaskId};
use crate::rules::offset_mismatch::Trouble;
use crate::rules::{
    StartReason, StopReason, Who, double_start, foreign_start, lost_assignment, offset_mismatch,
    unnecessary_stop, zombie,
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
    res: HashMap<Resource, ResState>,
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
    /// Latest start of each resource: its line, the state before it and the
    /// double-start finding it produced (index into the findings).
    last_start: HashMap<Resource, (SourceLine, Option<ResState>, Option<usize>)>,
    /// Resources stopped by a self-revocation and not started since.
    self_revoked: HashSet<Resource>,
    /// Something other than start-up noise happened since the reset.
    active: bool,
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
    member_id: Option<String>,
    rest_host: Option<String>,
    rest_port: Option<String>,
    /// `Advertised URI: …` (RestServer).
    advertised_url: Option<String>,
    /// The leader URL of an assignment whose leader is this worker.
    leader_self_url: Option<String>,
    /// Config-topic facts per connector; they survive restarts (the config
    /// topic does).
    config: HashMap<crate::model::Name, ConfigFacts>,
    findings: Vec<Finding>,
    summary: WorkerSummary,
    generations: Vec<GenerationRecord>,
    keep_generations: bool,
    last_line: Option<SourceLine>,
    /// Facts for the cross-worker checks, when they are wanted.
    facts: Option<Vec<Fact>>,
    /// Shared copy of the group name for facts.
    group_arc: Option<Arc<str>>,
    /// A line past the start-up preamble was seen.
    begun: bool,
    /// `Kafka cluster ID: …`: tells clusters with the same group id apart.
    kafka_cluster: Option<Arc<str>>,
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
            facts: None,
            group_arc: None,
            begun: false,
            kafka_cluster: None,
        }
    }

    /// Collect facts for the cross-worker checks ([`WorkerReplay::take_facts`]).
    pub fn with_facts(mut self) -> WorkerReplay {
        self.facts = Some(Vec::new());
        self
    }

    /// The facts collected since the last call.
    pub fn take_facts(&mut self) -> Vec<Fact> {
        self.facts.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn fact(&mut self, line: &SourceLine, kind: FactKind) {
        if let Some(f) = &mut self.facts {
            if self.group_arc.as_deref() != self.group.as_deref() {
                self.group_arc = self.group.as_deref().map(Arc::from);
            }
            f.push(Fact {
                group: self.group_arc.clone(),
                cluster: self.kafka_cluster.clone(),
                line: line.clone(),
                kind,
            });
        }
    }

    /// The most stable id the log reveals, and what kind it is (`None`:
    /// only the file identifies the worker).
    pub fn identity(&self) -> (Identity, Option<String>) {
        if let Some(u) = self.rest_url() {
            return (Identity::RestUrl, Some(u));
        }
        if let Some(m) = &self.member_id {
            return (Identity::MemberId, Some(m.clone()));
        }
        // `connect-<n>` is a per-JVM counter: every worker is `connect-1`.
        let default = |c: &str| {
            c.strip_prefix("connect-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        };
        match &self.client_id {
            Some(c) if !default(c) => (Identity::ClientId, Some(c.clone())),
            _ => (Identity::FilePath, None),
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

    fn push(&mut self, f: Finding) -> usize {
        *self.summary.findings.entry(f.kind).or_default() += 1;
        self.findings.push(f);
        self.findings.len() - 1
    }

    fn count_stop(&mut self, why: StopReason) {
        *self.summary.stops.entry(why).or_default() += 1;
        if let Some(g) = self.generations.last_mut() {
            g.stop_reasons.push(why);
        }
    }

    /// Feeds one event read from `line`.
    pub fn apply(&mut self, ev: &Event, line: &SourceLine, ctx: LineCtx) {
        self.summary.events += 1;
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
            Event::AlreadyExists(r) => self.already_exists(r, line),
            Event::Stopping(r) => match r {
                Resource::Connector(_) => self.inc.unconfirmed.push((r.clone(), line.clone())),
                Resource::Task(_) => self.stop(r, line),
            },
            Event::IgnoringStop(r) => {
                // The Worker owns no such instance: not a stop, but now
                // known not to run.
                self.inc.unconfirmed.retain(|(u, _)| u != r);
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
                self.config.entry(c.clone()).or_default().updated = Some(line.clone());
                self.inc.offset = None;
            }
            Event::ConnectorConfigRemoved(c) => {
                self.config.entry(c.clone()).or_default().removed = Some(line.clone());
                self.inc.offset = None;
            }
            Event::TargetStateChange(c) => {
                self.config.entry(c.clone()).or_default().target_change = Some(line.clone());
                self.inc.offset = None;
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
                }
                self.inc.baseline = Some(line.clone());
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

    /// A rebalance begins (if one is not already in progress).
    fn open_window(&mut self, line: &SourceLine) {
        if self.inc.window.is_some() {
            return;
        }
        self.boundary(line);
        self.inc.window = Some(Window {
            opened: Some(line.clone()),
            ..Window::default()
        });
    }

    /// Something that ends the stable phase: unexplained stops are judged
    /// now, an unfinished start phase is closed, config contexts end.
    fn boundary(&mut self, line: &SourceLine) {
        self.close_phase(None);
        self.resolve_pending(Some(line));
        self.inc.ctx.task_update = None;
        self.inc.ctx.connector.clear();
    }

    fn flush_unconfirmed(&mut self) {
        for (r, l) in std::mem::take(&mut self.inc.unconfirmed) {
            self.stop(&r, &l);
        }
    }

    fn confirm(&mut self, r: &Resource) {
        if let Some(i) = self.inc.unconfirmed.iter().position(|(u, _)| u == r) {
            let (r, l) = self.inc.unconfirmed.remove(i);
            self.stop(&r, &l);
        }
    }

    /// A real stop of `r` at `line`.
    /// Records a stop attempt of `r` at `line` (for the rebalance's zombie
    /// check) and that it no longer runs; returns what was known before.
    fn mark_stopped(&mut self, r: &Resource, line: &SourceLine) -> Option<ResState> {
        if let Some(w) = &mut self.inc.window {
            w.stop_attempts.insert(r.clone());
        }
        self.inc
            .res
            .insert(r.clone(), ResState::Stopped { at: line.clone() })
    }

    fn stop(&mut self, r: &Resource, line: &SourceLine) {
        let prev = self.mark_stopped(r, line);
        self.fact(
            line,
            FactKind::Stop {
                resource: r.clone(),
            },
        );
        if let Some(g) = self.generations.last_mut() {
            g.stopped.push(r.clone());
        }
        let stop = Stop {
            resource: r.clone(),
            line: line.clone(),
            prev,
        };
        let conn = r.connector_name().clone();
        let ctx = &self.inc.ctx;
        if ctx.shutdown.is_some() {
            return self.count_stop(StopReason::Shutdown);
        }
        if ctx.self_revocation.is_some() {
            self.inc.self_revoked.insert(r.clone());
            return self.count_stop(StopReason::SelfRevocation);
        }
        if ctx.restart_plan.is_some() {
            return self.count_stop(StopReason::RestartPlan);
        }
        if let (Resource::Task(t), Some(tu)) = (r, &ctx.task_update)
            && tu.tasks.contains(t)
        {
            let handling = tu.line.clone();
            self.inc.tasks_to_restart.insert(t.clone(), line.clone());
            let start = stop.prev.as_ref().and_then(ResState::started_at);
            let verdict = unnecessary_stop::task_config_change(self.config.get(&conn), start);
            let owned_line = self
                .inc
                .owned
                .as_ref()
                .filter(|o| o.holds(r))
                .map(|o| o.line.clone());
            let finding = owned_line.as_ref().and_then(|ol| {
                unnecessary_stop::task_config(&self.who(), &stop, &verdict, &handling, Some(ol))
            });
            return match finding {
                Some(f) => {
                    self.push(f);
                    self.count_stop(StopReason::Unnecessary)
                }
                None => self.count_stop(StopReason::TaskConfig),
            };
        }
        if let (Resource::Connector(_), Some(cc)) = (r, ctx.connector.get(&conn)) {
            let handling = cc.line.clone();
            return match cc.action {
                ConnectorUpdateAction::Stopping => self.count_stop(StopReason::ConnectorRemoved),
                ConnectorUpdateAction::Restarting => {
                    let start = stop.prev.as_ref().and_then(ResState::started_at);
                    let verdict =
                        unnecessary_stop::connector_config_change(self.config.get(&conn), start);
                    match unnecessary_stop::connector_config(
                        &self.who(),
                        &stop,
                        &verdict,
                        &handling,
                    ) {
                        Some(f) => {
                            self.push(f);
                            self.count_stop(StopReason::Unnecessary)
                        }
                        None => self.count_stop(StopReason::ConnectorConfig),
                    }
                }
            };
        }
        if ctx.target_stopped.contains_key(&conn) {
            return self.count_stop(StopReason::TargetStopped);
        }
        if let Some(w) = &mut self.inc.window {
            if !w.joined {
                w.stopped_before_join = true;
            }
            w.stops.push(stop);
            return;
        }
        self.inc.pending_stops.push(stop);
    }

    /// Judges stops outside any rebalance that no start has explained.
    /// `boundary` is the line that ends the wait (`None`: the log ended).
    fn resolve_pending(&mut self, boundary: Option<&SourceLine>) {
        for stop in std::mem::take(&mut self.inc.pending_stops) {
            let Some(b) = boundary else {
                self.count_stop(StopReason::NotJudged);
                continue;
            };
            let owned = self.inc.owned.as_ref();
            match (self.protocol(), owned) {
                (Some(p), Some(o)) if p.is_cooperative() && o.holds(&stop.resource) => {
                    let f = unnecessary_stop::unexplained(&self.who(), &stop, &o.line, b);
                    self.push(f);
                    self.count_stop(StopReason::Unnecessary);
                }
                (_, Some(o)) if !o.holds(&stop.resource) => {
                    self.count_stop(StopReason::NotAssigned)
                }
                (None, _) => self.count_stop(StopReason::ProtocolUnknown),
                _ => self.count_stop(StopReason::NotJudged),
            }
        }
    }

    fn task_claim(&mut self, tasks: &[TaskId], line: &SourceLine) {
        self.inc.offset = None;
        let mut by_conn: BTreeMap<&crate::model::Name, BTreeSet<u32>> = BTreeMap::new();
        for t in tasks {
            by_conn.entry(&t.connector).or_default().insert(t.index);
        }
        let multi = by_conn.len() > 1;
        for (c, set) in by_conn {
            let facts = self.config.entry(c.clone()).or_default();
            if multi {
                facts.multi_claim = Some(line.clone());
            } else {
                facts.single_claim = Some(line.clone());
            }
            if facts.task_set.as_ref().is_some_and(|old| *old != set) {
                facts.count_change = Some(line.clone());
            }
            facts.task_set = Some(set);
        }
    }

    fn assignment(
        &mut self,
        generation: Option<i32>,
        version: Option<i64>,
        a: &crate::model::Assignment,
        line: &SourceLine,
    ) {
        // A window the log saw open; `opened: None` when the assignment line
        // is the first sign of the rebalance (the log starts mid-rebalance).
        let window = match self.inc.window.take() {
            Some(w) => w,
            None => {
                self.boundary(line);
                Window::default()
            }
        };
        let generation = generation.or_else(|| self.inc.joined.map(|(g, _)| g));
        let joined_protocol = self
            .inc
            .joined
            .filter(|(g, _)| Some(*g) == generation)
            .and_then(|(_, p)| p);
        let explicit = version
            .and_then(Protocol::from_version)
            .or_else(|| (!a.is_extended()).then_some(Protocol::Eager))
            .or(window.protocol)
            .or(joined_protocol)
            .or_else(|| a.has_revocations().then_some(Protocol::Compatible));
        if let Some(p) = explicit {
            self.inc.protocol = Some(p);
        }
        let eager_signature = window.stopped_before_join && window.opened.is_some();
        let protocol = if eager_signature && explicit.is_none() {
            Some(Protocol::Eager)
        } else {
            explicit.or(self.protocol())
        };
        self.inc.generation = generation;
        let who_gen = generation;

        if let Some((a, b)) = &window.gap {
            let mins = match (a.ts, b.ts) {
                (Some(x), Some(y)) => (y.0 - x.0) / 60_000,
                _ => 0,
            };
            self.note(
                Some(b),
                format!(
                    "generation {}: the log jumps {mins} min inside the rebalance (lines {} to {}); lines may be missing, so its stops and revocations are not judged",
                    fmt_gen(generation),
                    a.line,
                    b.line
                ),
            );
            for _ in &window.stops {
                self.count_stop(StopReason::NotJudged);
            }
        }
        let judge_window = window.gap.is_none();
        // Stops logged during the rebalance, judged against this assignment.
        for stop in window.stops.iter().filter(|_| judge_window) {
            let why =
                unnecessary_stop::rebalance_stop(protocol, eager_signature, a, &stop.resource);
            if why == StopReason::Unnecessary {
                let mut who = self.who();
                who.generation = who_gen;
                let f = unnecessary_stop::in_rebalance(&who, stop, line);
                self.push(f);
            }
            self.count_stop(why);
        }
        if protocol.is_none() && !window.stops.is_empty() {
            self.note(
                Some(line),
                format!(
                    "generation {}: protocol unknown; {} rebalance stop(s) not judged",
                    fmt_gen(generation),
                    window.stops.len()
                ),
            );
        }

        // Revoked work must have been stopped before this line.
        let cooperative = protocol.is_some_and(Protocol::is_cooperative);
        if cooperative && window.opened.is_some() && judge_window {
            for r in a.revoked().collect::<Vec<_>>() {
                let st = self.inc.res.get(&r).cloned();
                if zombie::check(st.as_ref(), window.stop_attempts.contains(&r)) {
                    let f = zombie::finding(
                        &self.who(),
                        &r,
                        line,
                        st.as_ref(),
                        window.skip_stopping.as_ref(),
                        window.opened.as_ref(),
                    );
                    self.push(f);
                    let since = st
                        .as_ref()
                        .and_then(ResState::live_since)
                        .cloned()
                        .unwrap_or_else(|| line.clone());
                    self.inc.res.insert(
                        r,
                        ResState::Running {
                            since,
                            zombie_reported: true,
                        },
                    );
                }
            }
        }

        if protocol == Some(Protocol::Eager) && window.opened.is_some() {
            // Eager: the rebalance stopped everything; what the log never
            // showed running is not running now.
            self.inc
                .res
                .retain(|_, s| !matches!(s, ResState::Held { .. }));
            if self.inc.baseline.is_none() {
                self.inc.baseline = window.opened.clone();
            }
        }

        let received = Received {
            assignment: a.clone(),
            generation,
            protocol,
            line: line.clone(),
        };
        if !a.failed() {
            self.inc.owned = Some(Owned::from(&received));
        }
        if self.member_id.as_deref() == Some(a.leader.as_str()) && a.leader_url != "null" {
            self.leader_self_url = Some(a.leader_url.clone());
        }
        if let Some(g) = generation {
            let mut live: Vec<(Resource, SourceLine)> = self
                .inc
                .res
                .iter()
                .filter_map(|(r, s)| s.live_since().map(|l| (r.clone(), l.clone())))
                .collect();
            live.sort();
            let kind = FactKind::Assignment {
                generation: g,
                assigned: {
                    let mut v: Vec<Resource> = a.resources().collect();
                    v.sort();
                    v.dedup();
                    Arc::from(v)
                },
                leader: a.leader.clone(),
                leader_url: a.leader_url.clone(),
                offset: a.offset,
                error: a.error,
                live,
            };
            self.fact(line, kind);
        }
        self.inc.received = Some(received);
        self.inc.trouble = None;
        self.inc.ctx.self_revocation = None;
        self.summary.generations += 1;
        self.summary.first_generation = self.summary.first_generation.or(generation);
        if let Some(g) = generation {
            self.summary.last_generation = generation;
            if self.summary.generation_numbers.last() != Some(&g) {
                self.summary.generation_numbers.push(g);
            }
        }
        self.close_generation();
        if self.keep_generations {
            self.generations
                .push(GenerationRecord::new(generation, protocol, a, line));
        } else {
            self.generations.clear();
            self.generations
                .push(GenerationRecord::new(generation, protocol, a, line));
        }
    }

    fn close_generation(&mut self) {
        let running: Vec<Resource> = {
            let mut v: Vec<Resource> = self
                .inc
                .res
                .iter()
                .filter(|(_, s)| s.is_live())
                .map(|(r, _)| r.clone())
                .collect();
            v.sort();
            v
        };
        let complete = self.inc.baseline.is_some();
        if let Some(g) = self.generations.last_mut()
            && g.running.is_none()
        {
            g.running = Some(running);
            g.running_complete = complete;
        }
    }

    fn start_phase(&mut self, offset: i64, line: &SourceLine) {
        self.boundary(line);
        let judgeable = self.inc.received.is_some() && self.inc.window.is_none();
        if !judgeable {
            self.note(
                Some(line),
                format!(
                    "generation {}: assignment line not seen; starts not judged",
                    fmt_gen(self.inc.joined.map(|(g, _)| g))
                ),
            );
        }
        // A start phase ends any rebalance whose assignment line was lost.
        if let Some(w) = self.inc.window.take() {
            for _ in &w.stops {
                self.count_stop(StopReason::NotJudged);
            }
        }
        let known = match &self.inc.offset {
            Some((x, l)) => KnownOffset::Known(*x, l.clone()),
            None => KnownOffset::Unknown,
        };
        let mismatch = if judgeable {
            offset_mismatch::check(
                self.inc.received.as_ref(),
                self.inc.trouble.as_ref().map(|(t, l)| (*t, l)),
                &known,
                offset,
            )
        } else {
            None
        };
        if let Some(g) = self.generations.last_mut() {
            g.start_offset = Some(offset);
            g.config_offset = match known {
                KnownOffset::Known(x, _) => Some(x),
                KnownOffset::Unknown => None,
            };
        }
        self.inc.start_phase = Some(PhaseState {
            phase: StartPhase {
                line: line.clone(),
                offset,
                started: Vec::new(),
                failed: HashSet::default(),
                mismatch,
            },
            judgeable,
        });
    }

    /// Ends the start phase; `finished` is the `Finished starting…` line
    /// (`None`: it ended without one, so nothing is judged lost).
    fn close_phase(&mut self, finished: Option<&SourceLine>) {
        let Some(ps) = self.inc.start_phase.take() else {
            return;
        };
        if let Some(f) = offset_mismatch::finding(&self.who(), &ps.phase) {
            self.push(f);
        }
        let started: HashSet<Resource> = ps.phase.started.iter().map(|(r, _)| r.clone()).collect();
        let received = self.inc.received.clone();
        if let (Some(fin), Some(rec), true) = (finished, received.as_ref(), ps.judgeable)
            && !rec.assignment.failed()
        {
            let mut assigned: Vec<Resource> = rec.assignment.resources().collect();
            assigned.sort();
            for r in assigned {
                if started.contains(&r)
                    || ps.phase.failed.contains(&r)
                    || rec.assignment.revokes(&r)
                {
                    continue;
                }
                let st = self.inc.res.get(&r);
                let Some(not_running) = lost_assignment::check(st, self.inc.baseline.is_some())
                else {
                    continue;
                };
                let upstream = self.inc.self_revoked.contains(&r).then_some("KAFKA-9851");
                let f = lost_assignment::finding(
                    &self.who(),
                    &r,
                    &rec.line,
                    fin,
                    not_running.as_ref(),
                    self.inc.baseline.as_ref(),
                    upstream,
                );
                self.push(f);
                // Reported once: the episode lasts until it starts or stops again.
                let at = not_running.unwrap_or_else(|| fin.clone());
                self.inc.res.insert(r, ResState::Lost { at });
            }
            // The herder now counts the whole assignment as running
            // (cooperative); what the log never showed is held from here.
            if rec.protocol.is_none_or(Protocol::is_cooperative) {
                let mut held = Vec::new();
                for r in rec.assignment.resources() {
                    if !self.inc.res.contains_key(&r) {
                        let since = rec.line.clone();
                        self.inc.res.insert(r.clone(), ResState::Held { since });
                        held.push(r);
                    }
                }
                if !held.is_empty() {
                    held.sort();
                    let since = rec.line.clone();
                    self.fact(
                        fin,
                        FactKind::Held {
                            resources: held,
                            since,
                        },
                    );
                }
            }
        }
        self.inc.tasks_to_restart.clear();
        // The running set of a generation is taken when its start phase ends.
        if let Some(g) = self.generations.last_mut() {
            g.running = None;
        }
        self.close_generation();
    }

    fn start(&mut self, r: &Resource, line: &SourceLine) {
        // A pending unexplained stop of the same resource was a restart.
        let mut restarted = false;
        if let Some(i) = self.inc.pending_stops.iter().position(|s| &s.resource == r) {
            self.inc.pending_stops.remove(i);
            self.count_stop(StopReason::Restart);
            restarted = true;
        }
        let prev = self.inc.res.get(r).cloned();
        let in_phase = self.inc.start_phase.as_ref().map(|p| p.judgeable);
        let reconfigured = match r {
            Resource::Task(t) => self.inc.tasks_to_restart.get(t).cloned(),
            _ => None,
        };
        let origin = if in_phase.is_some() {
            match &reconfigured {
                Some(stop) => foreign_start::Origin::Reconfigured(stop.clone()),
                None => foreign_start::Origin::StartPhase,
            }
        } else if let Some(plan) = &self.inc.ctx.restart_plan {
            foreign_start::Origin::RestartPlan(plan.clone())
        } else {
            foreign_start::Origin::Other
        };
        let reason = match (&origin, restarted) {
            (foreign_start::Origin::StartPhase | foreign_start::Origin::Reconfigured(_), _) => {
                StartReason::Rebalance
            }
            (foreign_start::Origin::RestartPlan(_), _) => StartReason::RestartPlan,
            (_, true) => StartReason::Restart,
            _ if self.inc.ctx.connector.contains_key(r.connector_name()) => StartReason::Restart,
            _ => StartReason::Other,
        };
        *self.summary.starts.entry(reason).or_default() += 1;
        if let Some(g) = self.generations.last_mut() {
            g.started.push(r.clone());
        }

        let generation = self.inc.generation;
        self.fact(
            line,
            FactKind::Start {
                resource: r.clone(),
                generation,
            },
        );
        let judgeable = in_phase != Some(false);
        if judgeable
            && let Some(why) =
                foreign_start::check(self.inc.owned.as_ref(), self.inc.received.as_ref(), r)
        {
            let f = foreign_start::finding(&self.who(), r, line, &why, &origin);
            let finding = self.push(f);
            self.fact(
                line,
                FactKind::ForeignStart {
                    resource: r.clone(),
                    generation,
                    finding,
                },
            );
        }
        let mut double = None;
        if double_start::check(prev.as_ref()) {
            let f = double_start::finding(&self.who(), r, line, prev.as_ref());
            double = Some(self.push(f));
        }
        self.inc
            .last_start
            .insert(r.clone(), (line.clone(), prev, double));
        self.inc.res.insert(
            r.clone(),
            ResState::Running {
                since: line.clone(),
                zombie_reported: false,
            },
        );
        if let Some(ps) = &mut self.inc.start_phase {
            ps.phase.started.push((r.clone(), line.clone()));
        }
        if let Resource::Task(t) = r {
            self.inc.tasks_to_restart.remove(t);
        }
        if let Resource::Connector(c) = r {
            self.inc.ctx.connector.remove(c);
            self.inc.ctx.target_stopped.remove(c);
        }
        self.inc.self_revoked.remove(r);
    }

    fn start_failed(&mut self, r: &Resource, how: StartFailure, line: &SourceLine) {
        if let Some(ps) = &mut self.inc.start_phase {
            ps.phase.failed.insert(r.clone());
        }
        if how == StartFailure::Initialization {
            // The task stays registered with the Worker (FAILED status).
            return;
        }
        self.inc
            .res
            .insert(r.clone(), ResState::Failed { at: line.clone() });
    }

    fn already_exists(&mut self, r: &Resource, line: &SourceLine) {
        let Some((start, prev, double)) = self.inc.last_start.get(r).cloned() else {
            return;
        };
        match double {
            Some(i) => {
                if let Some(f) = self.findings.get_mut(i) {
                    f.evidence.push(Evidence::new(
                        "the Worker refuses: an instance already exists",
                        line,
                    ));
                    f.normalise();
                }
            }
            None => {
                let f = double_start::refused(&self.who(), r, &start, line, prev.as_ref());
                let i = self.push(f);
                if let Some(e) = self.inc.last_start.get_mut(r) {
                    e.2 = Some(i);
                }
            }
        }
        // The old instance is still running.
        let since = prev
            .as_ref()
            .and_then(ResState::live_since)
            .cloned()
            .unwrap_or(start);
        self.inc.res.insert(
            r.clone(),
            ResState::Running {
                since,
                zombie_reported: true,
            },
        );
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
            for _ in &w.stops {
                self.count_stop(StopReason::NotJudged);
            }
        }
        self.close_generation();
    }

    /// Ends the replay.
    pub fn finish(mut self) -> WorkerReport {
        if let Some(l) = self.last_line.clone() {
            self.end_incarnation(&l, "the log ends");
            self.fact(&l, FactKind::Reset);
        }
        self.summary.group = self.group.clone();
        self.summary.client_id = self.client_id.clone();
        self.summary.member_id = self.member_id.clone();
        self.summary.protocol = self.protocol();
        self.summary.rest_url = self.rest_url();
        self.summary.kafka_cluster = self.kafka_cluster.as_deref().map(str::to_string);
        self.summary.identified_by = self.identity().0;
        if self.summary.time_reversals > 0 {
            let n = self.summary.time_reversals;
            self.note(None, format!("timestamps go backwards {n} time(s)"));
        }
        WorkerReport {
            summary: self.summary,
            findings: self.findings,
            generations: if self.keep_generations {
                self.generations
            } else {
                Vec::new()
            },
        }
    }
}

fn fmt_gen(g: Option<i32>) -> String {
    g.map_or_else(|| "?".to_string(), |g| g.to_string())
}

#[cfg(test)]
mod tests;
