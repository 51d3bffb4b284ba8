//! Follows the facts of every worker, in key order, and records each
//! interruption as it opens and closes; the causes are settled at the end
//! (`price.rs`), once every rebalance's trigger is known.

use super::sparse::Sparse;
use super::{Change, ChangeKind, Clock, Edge, Interruption};
use crate::finding::Kind;
use crate::model::{Name, Resource, SourceId, SourceLine};
use crate::replay::{Departure, Fact, FactKind, Signal};
use crate::rules::StopReason;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

mod forget;

/// A config record logged by another worker this long (log time) after the
/// first sighting of the same change is the same change.
const SAME_CHANGE_MS: i64 = 30_000;

/// What set a rebalance off, as seen before its first assignment line.
#[derive(Debug, Clone)]
pub(super) enum Seen {
    Joined(Arc<str>, SourceLine),
    Left(Arc<str>, &'static str, SourceLine),
    CutOff(Arc<str>, SourceLine),
    Change(usize),
    Forced(Arc<str>, SourceLine),
}

/// A rebalance being followed.
#[derive(Debug, Clone)]
pub(super) struct RebalanceAcc {
    pub group: Arc<str>,
    pub generation: i32,
    pub line: SourceLine,
    pub seen: Vec<Seen>,
    pub reasons: Vec<(String, SourceLine)>,
    pub running_before: u64,
    pub tasks_before: u64,
    pub started: u64,
}

/// What a stop was judged, kept until the causes are settled.
#[derive(Debug, Clone, Default)]
pub(super) struct Pending {
    pub reason: Option<StopReason>,
    pub because: Option<SourceLine>,
    /// A worker's own fate (crashed, frozen, cut off).
    pub fate: Option<super::CauseKind>,
}

#[derive(Debug, Default, Clone)]
struct WorkerState {
    generation: Option<i32>,
    /// The last line before the worker's latest silence, and the line
    /// that ended it.
    silence: Option<(SourceLine, SourceLine)>,
    /// Interruptions opened because the worker fell silent while another
    /// took its work: upgraded if it turns out to have crashed or been
    /// cut off.
    fell_silent: Vec<usize>,
    shutting_down: bool,
    session_timeout_ms: Option<i64>,
    /// Its session expired or it lost the coordinator, and it has not
    /// joined since: cut off (its records no longer reach Kafka).
    cut_off: bool,
    /// Log time of its latest fact's line, and its latest assignment line
    /// (what [`Tracker::forget`]'s sweep keeps within reach).
    last_ms: i64,
    assignment: Option<(SourceId, u64)>,
}

/// Kafka Connect's default `session.timeout.ms`.
const DEFAULT_SESSION_TIMEOUT_MS: i64 = 10_000;

/// Rebalance starts kept per group (to date a silent worker's end).
const REBALANCE_STARTS_KEPT: usize = 256;

/// A start elsewhere of what a worker still ran: an interruption if that
/// worker turns out to have been silent (frozen, dead) across the start.
#[derive(Debug, Clone)]
struct Takeover {
    resource: Resource,
    from_worker: Arc<str>,
    start: Edge,
}

#[derive(Debug, Default, Clone)]
struct Group {
    /// Per resource, the workers running it and since when (hashed: the
    /// one walk in resource order, `Tracker::reset`'s, sorts what it found).
    running: HashMap<Resource, Vec<(Arc<str>, SourceLine)>>,
    /// Open interruptions (index) per resource.
    open: HashMap<Resource, usize>,
    /// Per generation, each worker's assignment line time (ms).
    anchors: BTreeMap<i32, HashMap<Arc<str>, i64>>,
    /// What may trigger the next rebalance.
    seen: Vec<Seen>,
    reasons: Vec<(String, SourceLine)>,
    /// Generation → index into the rebalances.
    rebalances: HashMap<i32, usize>,
    /// Each connector's latest change (index).
    latest_change: HashMap<Name, usize>,
    takeovers: Vec<Takeover>,
    /// Interruptions closed by a start of a task on a worker, until the
    /// task says it finished initialization there.
    awaiting: HashMap<(Resource, Arc<str>), usize>,
    /// The latest rebalance starts, each worker's.
    rebalance_starts: std::collections::VecDeque<Edge>,
    /// Generations whose rebalance was swept away (`forget.rs`): an
    /// assignment line of one is not a new rebalance.
    swept: forget::Generations,
    /// A worker's generation went down (the group removed and made anew):
    /// the lookups by generation can reach anything, so nothing of the
    /// group's history is swept from then on.
    reborn: bool,
}

impl Group {
    /// The first rebalance another worker than `silent` began after
    /// `last`, with `silent`'s session timeout.
    fn noticed(&self, silent: &Arc<str>, last: &SourceLine, timeout: i64) -> Option<(Edge, i64)> {
        let t = ts(last)?;
        self.rebalance_starts
            .iter()
            .find(|e| e.worker != *silent && ts(&e.line).is_some_and(|x| x > t))
            .map(|e| (e.clone(), timeout))
    }
}

/// Follows facts in key order; [`Tracker::finish`] gives the
/// [`super::Isolation`].
#[derive(Debug, Default, Clone)]
pub struct Tracker {
    groups: HashMap<Arc<str>, Group>,
    workers: HashMap<Arc<str>, WorkerState>,
    pub(super) interruptions: Sparse<Interruption>,
    pub(super) pending: Sparse<Pending>,
    pub(super) changes: Sparse<Change>,
    /// Per change, the workers that logged it.
    change_seen_by: Sparse<Vec<Arc<str>>>,
    pub(super) rebalances: Sparse<RebalanceAcc>,
    /// Assignment lines → (group, generation).
    pub(super) assignment_lines: HashMap<(SourceId, u64), (Arc<str>, i32)>,
    /// `unnecessary-stop` findings: each evidence line → the trigger and
    /// the upstream pattern.
    pub(super) unnecessary: HashMap<(SourceId, u64), (SourceLine, Option<&'static str>)>,
    /// A long-running audit's (`herder-audit watch`): what can no longer
    /// matter is forgotten ([`Tracker::forget`]) and the end prices
    /// nothing.
    pub(super) forgetful: bool,
    /// Log time of the latest sweep of the history (`forget.rs`).
    swept_ms: i64,
    /// A forgetful tracker that keeps its history all the same (the
    /// reference a sweeping one is compared with).
    keep_history: bool,
}

fn ts(l: &SourceLine) -> Option<i64> {
    l.ts.map(|t| t.0)
}

fn same_line(a: &SourceLine, b: &SourceLine) -> bool {
    a.source == b.source && a.line == b.line
}

impl Tracker {
    #[cfg(test)]
    pub fn new() -> Tracker {
        Tracker::default()
    }

    /// Feeds one fact of `worker` (facts in key order over all workers).
    pub fn feed(&mut self, worker: &Arc<str>, fact: &Fact) {
        if let FactKind::Finding(f) = &fact.kind {
            if f.kind == Kind::UnnecessaryStop {
                let found = (f.trigger.clone(), f.upstream);
                for e in &f.evidence {
                    self.unnecessary
                        .insert((e.line.source, e.line.line), found.clone());
                }
                self.unnecessary
                    .insert((f.trigger.source, f.trigger.line), found);
            }
            return;
        }
        let Some(group) = fact.group.clone() else {
            return;
        };
        let t = ts(&fact.line).unwrap_or(i64::MIN);
        match self.workers.get_mut(worker) {
            Some(w) => w.last_ms = w.last_ms.max(t),
            None => {
                let w = WorkerState {
                    last_ms: t,
                    ..WorkerState::default()
                };
                self.workers.insert(worker.clone(), w);
            }
        }
        let line = &fact.line;
        match &fact.kind {
            FactKind::Assignment {
                generation, live, ..
            } => self.assignment(&group, worker, *generation, line, live),
            FactKind::Held { resources, since } => {
                let g = self.groups.entry(group).or_default();
                for r in resources {
                    run(g, r, worker, since);
                }
            }
            FactKind::Start { resource, .. } => self.start(&group, worker, resource, line),
            FactKind::StartFailed { resource } => {
                self.stop(&group, worker, resource, line);
                if let Some(&i) = self.group(&group).open.get(resource)
                    && same_line(&self.interruptions[i].from.line, line)
                {
                    self.pending[i].fate = Some(super::CauseKind::Failed);
                }
            }
            FactKind::Stop { resource, .. } => self.stop(&group, worker, resource, line),
            FactKind::Judged {
                resource,
                reason,
                because,
            } => {
                if let Some(&i) = self.group(&group).open.get(resource)
                    && same_line(&self.interruptions[i].from.line, line)
                {
                    self.pending[i].reason = Some(*reason);
                    self.pending[i].because.clone_from(because);
                }
            }
            FactKind::Reset => self.reset(&group, worker, line),
            FactKind::Signal(s) => self.signal(&group, worker, s, line),
            FactKind::Left
            | FactKind::End
            | FactKind::Finding(_)
            | FactKind::ForeignStart { .. }
            // A kept instance's stop (a log starting mid-life) and a topics
            // record say nothing the interruptions measure from the logs.
            | FactKind::KeptFromBefore { .. }
            | FactKind::Record { .. } => {}
        }
    }

    fn group(&mut self, g: &Arc<str>) -> &mut Group {
        self.groups.entry(g.clone()).or_default()
    }

    fn assignment(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        generation: i32,
        line: &SourceLine,
        live: &[(Resource, SourceLine)],
    ) {
        self.assignment_lines
            .insert((line.source, line.line), (group.clone(), generation));
        let mut went_down = false;
        if let Some(w) = self.workers.get_mut(worker) {
            went_down = w.generation.is_some_and(|p| generation < p);
            w.generation = Some(generation);
            w.assignment = Some((line.source, line.line));
            w.shutting_down = false;
            w.cut_off = false;
        }
        let g = self.groups.entry(group.clone()).or_default();
        g.reborn |= went_down;
        if let Some(t) = ts(line) {
            g.anchors
                .entry(generation)
                .or_default()
                .insert(worker.clone(), t);
        }
        for (r, since) in live {
            run(g, r, worker, since);
        }
        if !g.rebalances.contains_key(&generation) && !g.swept.contains(generation) {
            let running = g.running.iter().filter(|(_, w)| !w.is_empty());
            let (mut n, mut tasks) = (0, 0);
            for (r, _) in running {
                n += 1;
                tasks += u64::from(matches!(r, Resource::Task(_)));
            }
            g.rebalances.insert(generation, self.rebalances.len());
            self.rebalances.push(RebalanceAcc {
                group: group.clone(),
                generation,
                line: line.clone(),
                seen: std::mem::take(&mut g.seen),
                reasons: std::mem::take(&mut g.reasons),
                running_before: n,
                tasks_before: tasks,
                started: 0,
            });
        }
    }

    fn start(&mut self, group: &Arc<str>, worker: &Arc<str>, r: &Resource, line: &SourceLine) {
        let generation = self.workers.get(worker).and_then(|w| w.generation);
        let edge = Edge {
            worker: worker.clone(),
            line: line.clone(),
        };
        let g = self.groups.entry(group.clone()).or_default();
        if let Some(i) = g.open.remove(r) {
            let clock = length(g, &self.interruptions[i], &edge, generation);
            let it = &mut self.interruptions[i];
            (it.ms, it.clock) = clock;
            it.to = Some(edge);
            if matches!(r, Resource::Task(_)) {
                g.awaiting.insert((r.clone(), worker.clone()), i);
            }
        } else {
            // The latest start is the instance the group counts on: the
            // others were moved away from (or their workers are gone); a
            // silent one's takeover is an interruption (resolved when it
            // logs again), a live one's is not.
            let mut others: Vec<Arc<str>> = Vec::new();
            let mut was_running = false;
            if let Some(v) = g.running.get_mut(r) {
                was_running = !v.is_empty();
                v.retain(|(w, _)| {
                    let mine = same_worker(w, worker);
                    if !mine {
                        others.push(w.clone());
                    }
                    mine
                });
            }
            for from_worker in &others {
                g.takeovers.push(Takeover {
                    resource: r.clone(),
                    from_worker: from_worker.clone(),
                    start: edge.clone(),
                });
            }
            if !was_running
                && let Some(&ri) = generation.and_then(|n| g.rebalances.get(&n))
                && let Some(rb) = self.rebalances.get_mut(ri)
            {
                rb.started += 1;
            }
            run(g, r, worker, line);
            // A silence of the other worker's already handed on (its facts
            // were held back, keyed before this start) that spans it.
            // Or a worker cut off since: it went silent when the cut began.
            for o in others {
                let Some(ws) = self.workers.get(&o) else {
                    continue;
                };
                let covering = ws.silence.clone().filter(|(last, end)| {
                    matches!((ts(last), ts(line), ts(end)), (Some(a), Some(b), Some(c)) if a <= b && (b <= c || ws.cut_off))
                });
                let cut = ws.cut_off;
                if let Some((last, _)) = covering {
                    self.resolve_takeovers(group, &o, &last, false);
                    if cut {
                        for i in self
                            .workers
                            .get(&o)
                            .map(|w| w.fell_silent.clone())
                            .unwrap_or_default()
                        {
                            if let Some(p) = self.pending.get_mut(i) {
                                p.fate = Some(super::CauseKind::WorkerCutOff);
                            }
                        }
                    }
                }
            }
            return;
        }
        run(g, r, worker, line);
    }

    fn stop(&mut self, group: &Arc<str>, worker: &Arc<str>, r: &Resource, line: &SourceLine) {
        let generation = self.workers.get(worker).and_then(|w| w.generation);
        let g = self.groups.entry(group.clone()).or_default();
        g.awaiting.remove(&(r.clone(), worker.clone()));
        let running = match g.running.get_mut(r) {
            Some(v) => v,
            None => g.running.entry(r.clone()).or_default(),
        };
        running.retain(|(w, _)| !same_worker(w, worker));
        if !running.is_empty() || g.open.contains_key(r) {
            return;
        }
        // Any takeover of it is moot: the worker stopped it itself.
        g.takeovers
            .retain(|t| !(t.resource == *r && t.from_worker == *worker));
        let from = Edge {
            worker: worker.clone(),
            line: line.clone(),
        };
        g.open.insert(r.clone(), self.interruptions.len());
        self.interruptions
            .push(interruption(group, r, from, true, generation));
        self.pending.push(Pending::default());
    }

    /// The worker starts again (or lines were missed): what it ran is
    /// gone, since the last line before its silence if it went silent.
    fn reset(&mut self, group: &Arc<str>, worker: &Arc<str>, line: &SourceLine) {
        let ws = self.workers.entry(worker.clone()).or_default();
        let last = match &ws.silence {
            Some((last, end)) if same_line(end, line) => Some(last.clone()),
            _ => None,
        };
        let crashed = last.is_some() && !ws.shutting_down;
        let upgrade = std::mem::take(&mut ws.fell_silent);
        if crashed {
            for i in upgrade {
                if let Some(p) = self.pending.get_mut(i) {
                    p.fate = Some(super::CauseKind::WorkerCrashed);
                }
            }
        }
        let generation = ws.generation;
        let timeout = ws.session_timeout_ms.unwrap_or(DEFAULT_SESSION_TIMEOUT_MS);
        let g = self.groups.entry(group.clone()).or_default();
        let mut gone = Vec::new();
        for (r, v) in g.running.iter_mut() {
            let before = v.len();
            v.retain(|(w, _)| !same_worker(w, worker));
            if before != v.len() && v.is_empty() && !g.open.contains_key(r) {
                gone.push(r.clone());
            }
        }
        // In resource order: the interruptions' indices follow it.
        gone.sort_unstable();
        let from_line = last.unwrap_or_else(|| line.clone());
        for r in gone {
            let from = Edge {
                worker: worker.clone(),
                line: from_line.clone(),
            };
            g.open.insert(r.clone(), self.interruptions.len());
            let mut it = interruption(group, &r, from, false, generation);
            if crashed {
                it.noticed = g.noticed(worker, &from_line, timeout);
            }
            self.interruptions.push(it);
            self.pending.push(Pending {
                fate: Some(if crashed {
                    super::CauseKind::WorkerCrashed
                } else {
                    super::CauseKind::Unknown
                }),
                ..Pending::default()
            });
        }
        // Takeovers of its work: it was silent, then restarted.
        self.resolve_takeovers(group, worker, &from_line, crashed);
    }

    /// Starts elsewhere of what `worker` ran, after its last line `last`
    /// before a silence: it was not running them then.
    fn resolve_takeovers(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        last: &SourceLine,
        crashed: bool,
    ) {
        let Some(g) = self.groups.get_mut(group) else {
            return;
        };
        let (mut mine, rest): (Vec<Takeover>, Vec<Takeover>) = std::mem::take(&mut g.takeovers)
            .into_iter()
            .partition(|t| t.from_worker == *worker);
        g.takeovers = rest;
        // The first start elsewhere ended the interruption; later ones
        // moved a running task.
        mine.sort_by_key(|t| (t.resource.clone(), t.start.line.ts));
        mine.dedup_by(|b, a| a.resource == b.resource);
        let timeout = self
            .workers
            .get(worker)
            .and_then(|w| w.session_timeout_ms)
            .unwrap_or(DEFAULT_SESSION_TIMEOUT_MS);
        for t in mine {
            if !matches!((ts(last), ts(&t.start.line)), (Some(a), Some(b)) if a <= b) {
                continue;
            }
            if let Some(v) = g.running.get_mut(&t.resource) {
                v.retain(|(w, _)| !same_worker(w, worker));
            }
            let from = Edge {
                worker: worker.clone(),
                line: last.clone(),
            };
            let generation = self.workers.get(&t.start.worker).and_then(|w| w.generation);
            let mut it = interruption(group, &t.resource, from, false, generation);
            it.noticed = g.noticed(worker, last, timeout);
            (it.ms, it.clock) = length(g, &it, &t.start, generation);
            it.to = Some(t.start);
            let i = self.interruptions.len();
            self.interruptions.push(it);
            self.pending.push(Pending {
                fate: Some(if crashed {
                    super::CauseKind::WorkerCrashed
                } else {
                    super::CauseKind::WorkerFrozen
                }),
                ..Pending::default()
            });
            if let Some(w) = self.workers.get_mut(worker) {
                w.fell_silent.push(i);
            }
        }
    }

    fn signal(&mut self, group: &Arc<str>, worker: &Arc<str>, s: &Signal, line: &SourceLine) {
        let seen = match s {
            Signal::Silence { last } => {
                self.silence(group, worker, last, line);
                return;
            }
            Signal::ConfigUpdated { connector } => {
                self.config_updated(group, worker, connector, line)
            }
            Signal::ConfigRemoved { connector } => {
                self.change(group, worker, connector, ChangeKind::Deletion, line)
            }
            Signal::TargetState { connector } => {
                self.change(group, worker, connector, ChangeKind::TargetState, line)
            }
            Signal::RestartRequested { connector } => {
                self.change(group, worker, connector, ChangeKind::RestartRequest, line)
            }
            Signal::TaskCount {
                connector: Some(c), ..
            } => {
                if let Some(&i) = self.group(group).latest_change.get(c)
                    && let Some(ch) = self.changes.get_mut(i)
                    && ch.kind == ChangeKind::ConfigUpdate
                {
                    ch.kind = ChangeKind::TasksMax;
                }
                None
            }
            Signal::TaskCount { .. } | Signal::TaskConfigs { .. } => None,
            Signal::RebalanceStarted => {
                let g = self.group(group);
                if g.rebalance_starts.len() == REBALANCE_STARTS_KEPT {
                    g.rebalance_starts.pop_front();
                }
                g.rebalance_starts.push_back(Edge {
                    worker: worker.clone(),
                    line: line.clone(),
                });
                None
            }
            Signal::SessionTimeout { ms } => {
                self.workers
                    .entry(worker.clone())
                    .or_default()
                    .session_timeout_ms = Some(*ms);
                None
            }
            Signal::TaskRunning { resource } => {
                self.task_running(group, worker, resource, line);
                None
            }
            Signal::WorkerStarting => Some(Seen::Joined(worker.clone(), line.clone())),
            Signal::WorkerStopping => {
                self.workers
                    .entry(worker.clone())
                    .or_default()
                    .shutting_down = true;
                Some(Seen::Left(worker.clone(), "shutdown", line.clone()))
            }
            Signal::Departed { how } => {
                if *how == Departure::SessionTimeout {
                    self.workers.entry(worker.clone()).or_default().cut_off = true;
                }
                let how = match how {
                    Departure::PollTimeout => "poll-timeout",
                    Departure::SessionTimeout => "session-timeout",
                    Departure::Fenced => "fenced",
                };
                Some(Seen::Left(worker.clone(), how, line.clone()))
            }
            Signal::CutOff => {
                self.cut_off(worker);
                Some(Seen::CutOff(worker.clone(), line.clone()))
            }
            Signal::Reason { text } => {
                self.group(group).reasons.push((text.clone(), line.clone()));
                None
            }
            Signal::ForcedRebalance => Some(Seen::Forced(worker.clone(), line.clone())),
        };
        if let Some(s) = seen {
            self.group(group).seen.push(s);
        }
    }

    /// `worker` was silent from `last` (a restart, or a worker heard again
    /// after a freeze or a cut): what others took over meanwhile is
    /// resolved.
    fn silence(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        last: &SourceLine,
        line: &SourceLine,
    ) {
        let ws = self.workers.entry(worker.clone()).or_default();
        // The same silence seen again (a restarted process's preamble,
        // then its `Kafka Connect starting`): what it already took over
        // stays its.
        let again = ws.silence.as_ref().is_some_and(|(l, _)| same_line(l, last));
        ws.silence = Some((last.clone(), line.clone()));
        if !again {
            ws.fell_silent.clear();
        }
        self.resolve_takeovers(group, worker, last, false);
    }

    /// A connector's config written: its creation, or an update of one
    /// the group knows.
    fn config_updated(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        connector: &Arc<str>,
        line: &SourceLine,
    ) -> Option<Seen> {
        let g = self.group(group);
        let known = g.latest_change.contains_key(connector)
            || g.running.keys().any(|r| r.connector_name() == connector);
        let kind = if known {
            ChangeKind::ConfigUpdate
        } else {
            ChangeKind::Creation
        };
        self.change(group, worker, connector, kind, line)
    }

    /// A task's first proof of running on `worker`: the interruption that
    /// waited for it ends here.
    fn task_running(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        resource: &Resource,
        line: &SourceLine,
    ) {
        let key = (resource.clone(), worker.clone());
        let generation = self.workers.get(worker).and_then(|w| w.generation);
        let g = self.group(group);
        if let Some(i) = g.awaiting.remove(&key)
            && self.interruptions.get(i).is_some()
        {
            let edge = Edge {
                worker: worker.clone(),
                line: line.clone(),
            };
            let g = &self.groups[group];
            let it = &mut self.interruptions[i];
            (it.ms, it.clock) = length(g, it, &edge, generation);
            it.running = Some(line.clone());
        }
    }

    /// `worker` was cut off from the group: the work it fell silent on is
    /// down for that reason.
    fn cut_off(&mut self, worker: &Arc<str>) {
        let ws = self.workers.entry(worker.clone()).or_default();
        ws.cut_off = true;
        for &i in &ws.fell_silent {
            if let Some(p) = self.pending.get_mut(i) {
                p.fate = Some(super::CauseKind::WorkerCutOff);
            }
        }
    }

    /// A change logged by `worker`: the same change as one another worker
    /// logged shortly before, or a new one.
    fn change(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        connector: &Name,
        kind: ChangeKind,
        line: &SourceLine,
    ) -> Option<Seen> {
        let t = ts(line);
        let same = self.changes.iter().rev().map(|(i, _)| i).find(|&i| {
            let c = &self.changes[i];
            c.group == *group
                && c.connector == *connector
                && (c.kind == kind
                    || matches!(
                        (c.kind, kind),
                        (
                            ChangeKind::Creation | ChangeKind::TasksMax,
                            ChangeKind::ConfigUpdate
                        )
                    ))
                && !self.change_seen_by[i].contains(worker)
                && matches!((ts(&c.line), t), (Some(a), Some(b)) if (b - a).abs() <= SAME_CHANGE_MS)
        });
        if let Some(i) = same {
            self.change_seen_by[i].push(worker.clone());
            return None;
        }
        let i = self.changes.len();
        self.changes.push(Change {
            group: group.clone(),
            connector: connector.clone(),
            kind,
            line: line.clone(),
            worker: worker.clone(),
            own: Default::default(),
            others: Default::default(),
            other_connectors: Vec::new(),
            upstream: None,
        });
        self.change_seen_by.push(vec![worker.clone()]);
        self.group(group).latest_change.insert(connector.clone(), i);
        Some(Seen::Change(i))
    }
}

/// `worker` runs `r` since `since`.
fn run(g: &mut Group, r: &Resource, worker: &Arc<str>, since: &SourceLine) {
    let v = match g.running.get_mut(r) {
        Some(v) => v,
        None => g.running.entry(r.clone()).or_default(),
    };
    if !v.iter().any(|(w, _)| same_worker(w, worker)) {
        v.push((worker.clone(), since.clone()));
    }
}

/// The same worker: one name is nearly always one allocation (the
/// stream's), so the pointers answer before the bytes are compared.
fn same_worker(a: &Arc<str>, b: &Arc<str>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

fn interruption(
    group: &Arc<str>,
    r: &Resource,
    from: Edge,
    stopped: bool,
    generation: Option<i32>,
) -> Interruption {
    Interruption {
        group: group.clone(),
        resource: r.clone(),
        from,
        stopped,
        to: None,
        running: None,
        noticed: None,
        ms: None,
        clock: Clock::OneWorker,
        cause: super::Cause::of(super::CauseKind::Unknown),
        generation,
        change: None,
    }
}

/// An interruption's length up to `to`: from its first line, or, for a
/// worker that fell silent, from a session timeout before the rebalance
/// that noticed it if that is later.
fn length(
    g: &Group,
    it: &Interruption,
    to: &Edge,
    generation: Option<i32>,
) -> (Option<i64>, Clock) {
    let (ms, clock) = measure(g, &it.from, to, generation);
    match &it.noticed {
        Some((seen, timeout)) => {
            let (since, _) = measure(g, seen, to, generation);
            let bounded = match (ms, since) {
                (Some(a), Some(b)) => Some(a.min(b + timeout)),
                (a, _) => a,
            };
            (bounded, clock)
        }
        None => (ms, clock),
    }
}

/// The length from `from` to `to`: exact on one worker's clock; across two,
/// the skew taken out with a generation both joined (the one `to`'s worker
/// was in, else the latest both were in).
fn measure(g: &Group, from: &Edge, to: &Edge, generation: Option<i32>) -> (Option<i64>, Clock) {
    let (Some(a), Some(b)) = (ts(&from.line), ts(&to.line)) else {
        return (None, Clock::Unanchored);
    };
    let raw = b - a;
    if from.worker == to.worker {
        return (Some(raw), Clock::OneWorker);
    }
    let both = |n: &i32| {
        g.anchors.get(n).and_then(|m| {
            let x = m.get(&from.worker)?;
            let y = m.get(&to.worker)?;
            Some((*n, *x, *y))
        })
    };
    let anchor = generation.as_ref().and_then(both).or_else(|| {
        g.anchors
            .keys()
            .rev()
            .filter(|n| generation.is_none_or(|c| **n <= c))
            .find_map(both)
    });
    let (ms, clock) = match anchor {
        Some((n, x, y)) => (
            Some((b - y) + (x - a)),
            Clock::TwoWorkers {
                generation: n,
                raw_ms: raw,
            },
        ),
        None => (Some(raw), Clock::Unanchored),
    };
    (ms.map(|m| m.max(0)), clock)
}
