//! Per-worker replay: typed events in, state transitions and findings out
//! (docs/design.md, "The replay model"). One [`WorkerReplay`] per worker
//! stream; it knows nothing of layouts, and decisions are delegated to the
//! pure rules in [`crate::rules`].
//!
//! This file holds the replay's state and feeds it events
//! ([`WorkerReplay::apply`]), which `apply.rs` applies by what they are
//! about; what the replay hands on (facts, findings once final, the report
//! at its end) is in `output`; starts, stops and rebalances are judged in
//! `starts`, `stops` and `rebalance`.

mod apply;
pub mod facts;
mod last;
mod output;
mod rebalance;
mod resources;
mod starts;
mod stops;
mod summary;
pub mod timeline;

pub(crate) use crate::state;
use facts::signal;
pub use facts::{Departure, Fact, FactKind, Signal};
pub use summary::{GenerationRecord, Identity, Note, WorkerReport, WorkerSummary};

use crate::event::{ConfigKey, ConnectorUpdateAction, Event, Milestone, StartFailure, TargetState};
use crate::finding::{Evidence, Finding};
use crate::model::{Line, Protocol, Resource, SourceLine, TaskId};
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
    /// A departure without revocation logged before the log showed any
    /// assignment (a log that starts mid-life), and the generation the
    /// departure line names: what the rebalance after it revokes and
    /// stops, it held from before (see [`FactKind::KeptFromBefore`]).
    blind_left: Option<(SourceLine, Option<i32>)>,
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
    last_line: Option<last::LastLine>,
    /// While the lines read last are all of a process's preamble (its
    /// config dump, cluster id, advertised URL…): the line read before
    /// them. A new process logs its preamble before `Kafka Connect
    /// starting`, so in a log a restarted worker appends to, that line is
    /// the old process's last.
    before_preamble: Option<Option<SourceLine>>,
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
    /// A field the group or identity is made of changed since the last
    /// fact: `group_arc` and `identity_arc` are made again.
    who_changed: bool,
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
    /// Every connector and task a `Starting …` line of this log named.
    started_names: HashSet<Resource>,
    /// An empty resource set, shared by the facts that name none.
    no_resources: Arc<[Resource]>,
}

/// Two lines of one rebalance further apart than this (log time) suggest
/// that lines are missing between them; such a rebalance is not judged.
pub const WINDOW_GAP_MS: i64 = 10 * 60 * 1000;

/// A worker that logged nothing for this long (log time) before a line, or
/// that starts again, hands on the last line before the silence: the last
/// proof that what it ran was running (see `src/interruptions/`).
pub const SILENCE_MS: i64 = 5_000;

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
            before_preamble: None,
            tail_line: None,
            facts: None,
            facts_held_from: None,
            group_arc: None,
            identity_arc: None,
            identity_buf: String::new(),
            who_changed: true,
            held_from: 0,
            withdrawn: Vec::new(),
            handed_on: 0,
            begun: false,
            kafka_cluster: None,
            timeline: None,
            started_names: HashSet::default(),
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

    /// Does this worker hold `r` now, as far as its log shows? `Some(true)`:
    /// its latest assignment (received or owned) holds it, or an instance
    /// of it is live (or failed but still registered with the Worker);
    /// `Some(false)`: neither, and what it holds is known (an assignment
    /// line was read, or the worker's start made everything known);
    /// `None`: unknown (a log that starts mid-life, before its first
    /// assignment line).
    pub fn holds_now(&self, r: &Resource) -> Option<bool> {
        let state = self.inc.res.get(r);
        if state.is_some_and(|s| {
            s.is_live()
                || matches!(
                    s,
                    ResState::Failed {
                        registered: true,
                        ..
                    }
                )
        }) {
            return Some(true);
        }
        let assigned = self.inc.received.as_ref().map(|x| &x.assignment);
        let owned = self.inc.owned.as_ref().map(|o| &o.assignment);
        if assigned.into_iter().chain(owned).any(|a| a.holds(r)) {
            return Some(true);
        }
        (self.inc.received.is_some() || self.inc.baseline.is_some()).then_some(false)
    }

    /// Is the worker's start of `r` under way (its `Starting …` line read,
    /// the Worker's answer still coming)?
    pub fn is_starting(&self, r: &Resource) -> bool {
        matches!(self.inc.res.get(r), Some(ResState::Starting { .. }))
    }

    /// Is the worker inside a rebalance (its first line read, its
    /// assignment line not yet)?
    pub fn in_rebalance(&self) -> bool {
        self.inc.window.is_some()
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

    fn note(&mut self, line: Option<&Line>, text: String) {
        self.summary.notes.push(Note {
            line: line.map(|l| (l.source, l.line)),
            text,
        });
    }

    fn count_stop(&mut self, why: StopReason, stop: &Stop) {
        let because = self.stop_context(why, &stop.resource);
        self.count_stop_because(why, stop, because);
    }

    /// The line of the context that justified a stop judged `why`, if one
    /// did (the assignment of a rebalance is passed by its judge).
    fn stop_context(&self, why: StopReason, r: &Resource) -> Option<SourceLine> {
        let ctx = &self.inc.ctx;
        let conn = r.connector_name();
        let task_update = || match (r, &ctx.task_update) {
            (Resource::Task(t), Some(tu)) if tu.tasks.contains(t) => Some(tu.line.clone()),
            _ => None,
        };
        match why {
            StopReason::TaskConfig => task_update(),
            StopReason::ConnectorConfig | StopReason::ConnectorRemoved => {
                ctx.connector.get(conn).map(|c| c.line.clone())
            }
            StopReason::Unnecessary => {
                task_update().or_else(|| ctx.connector.get(conn).map(|c| c.line.clone()))
            }
            StopReason::TargetStopped => ctx.target_stopped.get(conn).cloned(),
            StopReason::Shutdown => ctx.shutdown.clone(),
            StopReason::SelfRevocation => ctx.self_revocation.clone(),
            StopReason::RestartPlan => ctx.restart_plan.clone(),
            _ => None,
        }
    }

    /// Counts a stop judged `why` (justified by the line `because`) and
    /// hands the judgement on as a fact.
    fn count_stop_because(&mut self, why: StopReason, stop: &Stop, because: Option<SourceLine>) {
        self.fact(
            &stop.line.as_line(),
            FactKind::Judged {
                resource: stop.resource.clone(),
                reason: why,
                because,
            },
        );
        *self.summary.stops.entry(why).or_default() += 1;
        if let Some(g) = self.generations.last_mut() {
            g.stop_reasons.push(why);
        }
        if let Some(t) = &mut self.timeline {
            t.judged(&stop.resource, &stop.line.as_line(), why);
        }
    }

    /// A note for the worker's summary about how its log was read (its
    /// layout, say), at `line`.
    pub fn note_reading(&mut self, line: &Line, text: String) {
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

    pub fn lines_missed_before(&mut self, line: &Line) {
        self.flush_unconfirmed();
        self.inc.res.clear();
        self.inc.last_start.clear();
        self.inc.self_revoked.clear();
        self.inc.baseline = None;
        self.fact(line, FactKind::Reset);
    }

    /// Feeds one event read from `line`.
    pub fn apply(&mut self, ev: &Event, line: &Line, ctx: LineCtx) {
        if let Event::Starting(r) = ev
            && !self.started_names.contains(r)
        {
            self.started_names.insert(r.clone());
        }
        self.summary.events += u64::from(ev.counted());
        self.note_line(ev, line, ctx);
        let _ = self.identity_event(ev, line)
            || self.membership_event(ev, line)
            || self.offset_event(ev, line)
            || self.instance_event(ev, line)
            || self.config_event(ev, line);
        if self.facts.is_some()
            && let Some(s) = signal(ev, self.inc.ctx.shutdown.is_some())
        {
            self.fact(line, FactKind::Signal(s));
        }
        // Last: the text is shared if anything above kept the line.
        match &mut self.last_line {
            Some(l) => l.set(line),
            None => self.last_line = Some(last::LastLine::new(line)),
        }
    }

    /// What every line read tells, whatever its event: findings made final,
    /// the timeline, where the log starts, time going back, gaps in a
    /// rebalance, the worker's group and client id, stops confirmed.
    fn note_line(&mut self, ev: &Event, line: &Line, ctx: LineCtx) {
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
        if let (Some(w), Some(prev)) = (&mut self.inc.window, &mut self.last_line)
            && let (Some(a), Some(b)) = (prev.ts, line.ts)
            && b.0 - a.0 > WINDOW_GAP_MS
            && w.gap.is_none()
        {
            w.gap = Some((prev.keep(), line.keep()));
        }
        self.silence(ev, line);
        if is_preamble(ev) {
            if self.before_preamble.is_none() {
                self.before_preamble = Some(self.last_line.as_mut().map(last::LastLine::keep));
            }
        } else {
            self.before_preamble = None;
        }
        if let Some(g) = ctx.group_id
            && self.group.as_deref() != Some(g)
        {
            self.group = Some(g.to_string());
            self.who_changed = true;
        }
        if let Some(c) = ctx.client_id
            && self.client_id.as_deref() != Some(c)
        {
            self.client_id = Some(c.to_string());
            self.who_changed = true;
        }
        if !is_stop_family(ev) {
            self.flush_unconfirmed();
        }
        if !is_preamble(ev) && !matches!(ev, Event::Milestone(_)) {
            self.inc.active = true;
        }
    }

    /// The worker logged nothing for [`SILENCE_MS`] before `line`, or a
    /// process starts there: a `Silence` fact from its last line before.
    /// A process starting after a preamble of its own was silent since the
    /// line before that preamble (the old process's last, if it died); at
    /// the start of the log, since its last line.
    fn silence(&mut self, ev: &Event, line: &Line) {
        let Some(prev) = &mut self.last_line else {
            return;
        };
        let starting = matches!(
            ev,
            Event::Milestone(Milestone::ConnectStarting | Milestone::HerderStarting)
        );
        let before = match &self.before_preamble {
            Some(Some(before)) if starting => Some(before),
            _ => None,
        };
        let last_ts = before.map_or(prev.ts, |b| b.ts);
        if self.facts.is_none()
            || !(starting
                || matches!((last_ts, line.ts), (Some(a), Some(b)) if b.0 - a.0 >= SILENCE_MS))
        {
            return;
        }
        let last = match before {
            Some(b) => b.clone(),
            None => prev.keep(),
        };
        self.fact(line, FactKind::Signal(Signal::Silence { last }));
    }

    fn set_observed(&mut self, p: Protocol) {
        self.inc.protocol = Some(p);
    }

    fn config_value(&mut self, key: ConfigKey, value: &str) {
        self.who_changed = true;
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

    fn milestone(&mut self, m: Milestone, line: &Line) {
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
                self.inc.baseline = Some(line.keep());
                self.inc.process_start = Some(line.keep());
                self.inc.offset = Some((-1, line.keep()));
            }
            Milestone::ConnectStopping
            | Milestone::HerderStopping
            | Milestone::HaltStoppingAssigned
            | Milestone::WorkerStopping
            | Milestone::UncleanShutdown
            | Milestone::HerderCrashed
                if self.inc.ctx.shutdown.is_none() =>
            {
                self.inc.ctx.shutdown = Some(line.keep());
            }
            _ => {}
        }
    }

    /// The incarnation ends (restart or end of log): what is still pending
    /// cannot be judged.
    fn end_incarnation(&mut self, line: &Line, why: &str) {
        self.flush_unconfirmed();
        if let Some(ps) = &self.inc.start_phase {
            let at = ps.phase.line.clone();
            self.note(
                Some(&at.as_line()),
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
            let at = w.opened.clone().unwrap_or_else(|| line.keep());
            self.note(
                Some(&at.as_line()),
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
