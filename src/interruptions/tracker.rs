//! Follows the facts of every worker, in key order, and records each
//! interruption as it opens and closes; the causes are settled at the end
//! (`price.rs`), once every rebalance's trigger is known.

use super::sparse::Sparse;
use super::{Change, Clock, Edge, Interruption};
use crate::finding::Kind;
use crate::model::{Name, Resource, SourceId, SourceLine};
use crate::replay::{Fact, FactKind};
use crate::rules::StopReason;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

mod forget;
mod length;
mod signals;

use length::length;
#[cfg(test)]
use length::measure;

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
    /// Each connector's changes (indices, in order; the last is its
    /// latest): what [`Tracker::change`] looks among for the same change
    /// seen by another worker, without walking the whole run's.
    changes: HashMap<Name, Vec<usize>>,
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
        let Some(group) = fact.group.as_ref() else {
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
            } => self.assignment(group, worker, *generation, line, live),
            FactKind::Held { resources, since } => {
                let g = group_of(&mut self.groups, group);
                for r in resources {
                    run(g, r, worker, since);
                }
            }
            FactKind::Start { resource, .. } => self.start(group, worker, resource, line),
            FactKind::StartFailed { resource } => {
                self.stop(group, worker, resource, line);
                if let Some(&i) = self.group(group).open.get(resource)
                    && same_line(&self.interruptions[i].from.line, line)
                {
                    self.pending[i].fate = Some(super::CauseKind::Failed);
                }
            }
            FactKind::Stop { resource, .. } => self.stop(group, worker, resource, line),
            FactKind::Judged {
                resource,
                reason,
                because,
            } => {
                if let Some(&i) = self.group(group).open.get(resource)
                    && same_line(&self.interruptions[i].from.line, line)
                {
                    self.pending[i].reason = Some(*reason);
                    self.pending[i].because.clone_from(because);
                }
            }
            FactKind::Reset => self.reset(group, worker, line),
            FactKind::Signal(s) => self.signal(group, worker, s, line),
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
        group_of(&mut self.groups, g)
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
        let g = group_of(&mut self.groups, group);
        g.reborn |= went_down;
        if let Some(t) = ts(line) {
            // Room for as many workers as the latest generation had (each
            // growth of a new map from empty rehashed it).
            let room = g.anchors.last_key_value().map_or(0, |(_, m)| m.len());
            g.anchors
                .entry(generation)
                .or_insert_with(|| HashMap::with_capacity_and_hasher(room, Default::default()))
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
        let g = group_of(&mut self.groups, group);
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
                    let mine = w == worker;
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
        let g = group_of(&mut self.groups, group);
        if !g.awaiting.is_empty() {
            g.awaiting.remove(&(r.clone(), worker.clone()));
        }
        let running = match g.running.get_mut(r) {
            Some(v) => v,
            None => g.running.entry(r.clone()).or_default(),
        };
        running.retain(|(w, _)| w != worker);
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
        let g = group_of(&mut self.groups, group);
        let mut gone = Vec::new();
        for (r, v) in g.running.iter_mut() {
            let before = v.len();
            v.retain(|(w, _)| w != worker);
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
                v.retain(|(w, _)| w != worker);
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
}

/// The group named `g`, made if new. One `entry` (its key's clone is two
/// atomic counts) costs less than a lookup then an insert by reference.
fn group_of<'a>(groups: &'a mut HashMap<Arc<str>, Group>, g: &Arc<str>) -> &'a mut Group {
    groups.entry(g.clone()).or_default()
}

/// `worker` runs `r` since `since`.
fn run(g: &mut Group, r: &Resource, worker: &Arc<str>, since: &SourceLine) {
    let v = match g.running.get_mut(r) {
        Some(v) => v,
        None => g.running.entry(r.clone()).or_default(),
    };
    if !v.iter().any(|(w, _)| w == worker) {
        v.push((worker.clone(), since.clone()));
    }
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
