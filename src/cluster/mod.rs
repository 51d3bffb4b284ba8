//! Cross-worker checks: what no single worker's log can prove. Workers of
//! one group are compared generation by generation (same generation number
//! in the same group and the same epoch of it; different groups never mix),
//! and across generations by log time where a worker left without revoking:
//!
//! * `zombie`: one resource running on two workers in the same generation,
//!   reported once per duplicate episode on the line where it becomes
//!   provable (the later of the two instances' "live in this generation"
//!   lines: a start, or an assignment line it was held at); or started by
//!   one worker while another that left the group without revoking still
//!   runs it (KAFKA-16056, [`leavers`]);
//! * `conflicting-assignment`: two workers' assignment lines of one
//!   generation claim the same resource, or carry different config offsets
//!   or leaders (reported on the later line);
//! * the owner of a `foreign-start`'s resource, when its log is present.
//!
//! A group emptied and created again starts at generation 1: its
//! generations form a new epoch, never compared with the old one's
//! ([`group::Group::epoch_of`]). Facts arrive in the order of log time
//! across workers (merged by the orchestrator); state is kept per
//! generation only until every worker of the group has moved past it, so
//! memory stays bounded by workers × resources.

mod generation;
mod group;
mod kept;
pub mod leavers;

use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Key, Resource, SourceId, SourceLine};
use crate::replay::{Fact, FactKind};
use generation::feed_group;
use group::{Group, RETIRE_EVERY};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How long (log time) past a generation's last assignment line a worker
/// that never reported that generation may still report it.
pub const RETIRE_MARGIN_MS: i64 = 6 * 3600 * 1000;

/// Generations whose assignment lines lie further apart than this are not
/// the same generation (the group was deleted and recreated).
const EPOCH_GAP_MS: i64 = 24 * 3600 * 1000;

/// A finding across workers, with the workers it involves.
#[derive(Debug, Clone)]
pub struct CrossFinding {
    /// The worker whose line triggers it.
    pub worker: usize,
    /// The other worker.
    pub other: usize,
    pub finding: Finding,
}

/// A final finding, in the order the checker made it final.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// The worker it belongs to (whose line triggers it).
    pub worker: usize,
    pub finding: Finding,
    /// Made by the cross-worker checks (not by the worker's own replay).
    pub cross: bool,
    /// Its place in the run's output: the key of the fact that made it
    /// final and its rank among that fact's findings; or, for a finding
    /// that waited for log time to pass `t`, the key just after `t` and the
    /// key of the fact that made it. Sorting by it gives the order of
    /// the whole run, whichever groups were checked together.
    pub order: (Key, Key),
}

/// The cross-worker checker. Facts go in ([`Checker::feed`]) in the order of
/// log time across workers; final findings come out ([`Checker::out`]),
/// single-worker findings passed through, cross-worker ones made here.
#[derive(Debug, Default)]
pub struct Checker {
    groups: BTreeMap<Arc<str>, Group>,
    labels: Vec<Arc<str>>,
    /// Per worker: its group and identity as its latest fact gave them.
    identities: Vec<KnownWorker>,
    /// Final findings not yet taken.
    pub out: Vec<Emitted>,
    /// Pairs of workers found to be the same worker (same identity), by label.
    pub same_worker: std::collections::BTreeSet<(String, String)>,
    /// `foreign-start` findings waiting (a little log time) for the owner's
    /// assignment line.
    pending_foreign: Vec<PendingForeign>,
    /// The key of the fact being fed, and how many findings it made.
    clock: Key,
    made: u64,
    /// The cross-worker findings of the fact being fed (kept for its
    /// capacity).
    scratch: Vec<CrossFinding>,
}

/// A worker as its facts describe it.
#[derive(Debug, Default)]
struct KnownWorker {
    group: Option<Arc<str>>,
    /// `rest:URL`, `member:ID`, `client:ID` (latest fact).
    identity: Option<Arc<str>>,
    /// The generation of its first assignment line.
    first_generation: Option<i32>,
    /// Its fingerprints' worker id, and the identity it was made from
    /// (made again when the identity changes).
    fingerprint_id: Option<(Option<Arc<str>>, Arc<str>)>,
}

/// A `foreign-start` whose resource's owner is not known yet.
#[derive(Debug)]
struct PendingForeign {
    worker: usize,
    group: Arc<str>,
    generation: i32,
    resource: Resource,
    finding: Finding,
    /// Log time after which it is handed on without an owner.
    deadline: i64,
    /// The key of the fact that brought it.
    origin: Key,
}

/// How long (log time) a `foreign-start` waits for its owner's assignment
/// line: the members of a generation log theirs within moments.
pub const OWNER_WAIT_MS: i64 = 2000;

pub(crate) fn later<'a>(a: &'a SourceLine, b: &'a SourceLine) -> bool {
    // Is `a` later than `b`? By time stamp; without one, not later.
    matches!((a.ts, b.ts), (Some(x), Some(y)) if x > y)
}

pub(crate) fn ended_before(until: &Option<SourceLine>, from: &SourceLine) -> bool {
    matches!((until.as_ref().and_then(|u| u.ts), from.ts), (Some(u), Some(f)) if u < f)
}

impl Checker {
    #[cfg(test)]
    pub fn new() -> Checker {
        Checker::default()
    }

    /// Registers a worker; returns its index.
    pub fn worker(&mut self, label: String) -> usize {
        self.labels.push(label.into());
        self.identities.push(KnownWorker::default());
        self.labels.len() - 1
    }

    pub fn label(&self, w: usize) -> &str {
        self.labels.get(w).map_or("?", |l| l)
    }

    /// Are `a` and `b` two streams of one worker (the same log read twice)?
    fn same(&self, a: usize, b: usize) -> bool {
        match (self.identities.get(a), self.identities.get(b)) {
            (Some(x), Some(y)) => {
                x.group.is_some()
                    && x.identity.is_some()
                    && x.group == y.group
                    && x.identity == y.identity
            }
            _ => false,
        }
    }

    /// The next fact fed has this key (its findings are ordered by it).
    pub fn clock(&mut self, key: Key) {
        if key != self.clock {
            self.clock = key;
            self.made = 0;
        }
    }

    /// Hands a final finding on, with its fingerprint (the worker's
    /// identity as known now).
    fn emit(&mut self, worker: usize, finding: Finding, cross: bool) {
        self.made += 1;
        let order = (
            self.clock,
            Key {
                ts: 0,
                stream: 0,
                seq: self.made,
            },
        );
        self.emit_at(worker, finding, cross, order);
    }

    fn emit_at(&mut self, worker: usize, mut finding: Finding, cross: bool, order: (Key, Key)) {
        use crate::finding::WorkerIdentity;
        let label = self.labels.get(worker).map_or("?", |l| l);
        let who = match self.identities.get_mut(worker) {
            Some(id) => {
                // One id per identity, shared by the worker's fingerprints.
                let fresh = match &id.fingerprint_id {
                    Some((made_from, fp)) if *made_from == id.identity => fp.clone(),
                    _ => {
                        let fp = WorkerIdentity::from_fact(label, id.identity.as_deref(), None).id;
                        id.fingerprint_id = Some((id.identity.clone(), fp.clone()));
                        fp
                    }
                };
                WorkerIdentity {
                    id: fresh,
                    first_generation: id.first_generation,
                }
            }
            None => WorkerIdentity::label_only(label),
        };
        finding.fingerprint = Some(crate::finding::fingerprint(&finding, &who));
        self.out.push(Emitted {
            worker,
            finding,
            cross,
            order,
        });
    }

    /// Hands on cross-worker findings, except those between two streams of
    /// one worker (noted instead).
    fn emit_cross(&mut self, found: &mut Vec<CrossFinding>) {
        for cf in found.drain(..) {
            if self.same(cf.worker, cf.other) {
                let (a, b) = (
                    self.label(cf.worker).to_string(),
                    self.label(cf.other).to_string(),
                );
                self.same_worker.insert(if a < b { (a, b) } else { (b, a) });
                continue;
            }
            self.emit(cf.worker, cf.finding, true);
        }
    }

    /// A finding about worker `w` made beside the checker (the internal
    /// topics' cross-checks, docs/topics.md), final now, after the
    /// current fact's.
    pub fn emit_witnessed(&mut self, w: usize, finding: Finding) {
        self.emit(w, finding, true);
    }

    /// Feeds one fact of worker `w`.
    pub fn feed(&mut self, w: usize, fact: Fact) {
        if let Some(id) = self.identities.get_mut(w) {
            id.group.clone_from(&fact.group);
            id.identity.clone_from(&fact.identity);
            if let FactKind::Assignment { generation, .. } = &fact.kind {
                id.first_generation.get_or_insert(*generation);
            }
        }
        match fact.kind {
            // What the interruptions read: nothing for these checks.
            FactKind::Judged { .. } | FactKind::Signal(_) => return,
            FactKind::Finding(f) => {
                self.emit(w, *f, false);
                return;
            }
            FactKind::ForeignStart {
                resource,
                generation,
                finding,
            } => {
                let mut finding = *finding;
                if let (Some(g), Some(group)) = (generation, &fact.group)
                    && !self.name_owner(w, group, g, &resource, &mut finding)
                {
                    let deadline = fact.line.ts.map_or(i64::MIN, |t| t.0 + OWNER_WAIT_MS);
                    self.pending_foreign.push(PendingForeign {
                        worker: w,
                        group: group.clone(),
                        generation: g,
                        resource,
                        finding,
                        deadline,
                        origin: self.clock,
                    });
                    return;
                }
                self.emit(w, finding, false);
                return;
            }
            FactKind::End => {
                let mut out = Vec::new();
                for (name, g) in self.groups.iter_mut() {
                    if let Some(ws) = g.workers.get_mut(&w) {
                        ws.ended = true;
                        // The log's last line may prove what a worker that
                        // left without revoking still ran.
                        g.leavers.leaver_fact(
                            &self.labels,
                            name,
                            w,
                            &fact,
                            &mut g.episodes,
                            &mut out,
                        );
                    }
                }
                self.emit_cross(&mut out);
                return;
            }
            _ => {}
        }
        let Some(group_name) = fact.group.clone() else {
            return;
        };
        let found = {
            let labels = &self.labels;
            let group = self.groups.entry(group_name.clone()).or_default();
            if let Some(t) = fact.line.ts {
                group.newest = group.newest.max(Some(t));
            }
            let ws = group.workers.entry(w).or_default();
            if let Some(t) = fact.line.ts {
                ws.position = ws.position.max(Some(t));
            }
            group.fed += 1;
            let retire = group.fed.is_multiple_of(RETIRE_EVERY);
            // A vector reused from fact to fact.
            let mut out = std::mem::take(&mut self.scratch);
            let assignment = match &fact.kind {
                FactKind::Assignment { generation, .. } => Some(*generation),
                _ => None,
            };
            feed_group(labels, &group_name, group, w, fact, &mut out);
            if retire {
                group.retire();
            }
            (out, assignment)
        };
        let mut out = found.0;
        self.emit_cross(&mut out);
        self.scratch = out;
        if let Some(g) = found.1 {
            self.owners_reported(&group_name, g);
        }
    }

    /// Log time has reached `now` (the key of the next fact, or the
    /// watermark): `foreign-start` findings whose wait is over are handed on.
    pub fn advance_to(&mut self, now: i64) {
        if self.pending_foreign.iter().all(|p| p.deadline >= now) {
            return;
        }
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending_foreign)
            .into_iter()
            .partition(|p| p.deadline < now);
        self.pending_foreign = keep;
        self.hand_on(due);
    }

    /// A live audit's shortcut past [`OWNER_WAIT_MS`] (called once log
    /// time reached the watermark): a waiting `foreign-start` is final
    /// once no fact still to come can name its owner. `streams` gives, per
    /// stream of the run, the workers its facts named so far. A stream can
    /// still bring the owner's assignment line unless it named workers and
    /// each of them has ended or reported the start's generation or a later
    /// one in the group (each member of a generation logs its assignment
    /// once, and a worker that went on never reports an earlier generation
    /// in the same epoch: [`group::Group::epoch_of`]). A stream that named
    /// no worker yet may be a member still to log it. The finding is the
    /// one the wait would have made (no owner), handed on with the same
    /// order.
    pub fn settle_foreign(&mut self, streams: &[&[usize]]) {
        if self.pending_foreign.is_empty() {
            return;
        }
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending_foreign)
            .into_iter()
            .partition(|p| {
                streams.iter().all(|workers| {
                    !workers.is_empty() && workers.iter().all(|&o| o == p.worker || self.past(o, p))
                })
            });
        self.pending_foreign = keep;
        self.hand_on(due);
    }

    /// Has worker `o` gone past the generation of `p` (it cannot report
    /// that generation any more)?
    fn past(&self, o: usize, p: &PendingForeign) -> bool {
        let Some(g) = self.groups.get(&p.group) else {
            return false;
        };
        let epoch = g.workers.get(&p.worker).map_or(0, |ws| ws.epoch);
        g.workers.get(&o).is_some_and(|ws| {
            ws.ended
                || ws.epoch > epoch
                || (ws.epoch == epoch && ws.generation.is_some_and(|x| x >= p.generation))
        })
    }

    /// The run is over: everything waiting is handed on.
    pub fn finish(&mut self) {
        let due = std::mem::take(&mut self.pending_foreign);
        self.hand_on(due);
    }

    fn hand_on(&mut self, mut due: Vec<PendingForeign>) {
        due.sort_by_key(|p| (p.deadline, p.origin));
        for p in due {
            // Made final as log time passed its deadline: just after it.
            let at = Key {
                ts: p.deadline.saturating_add(1),
                stream: 0,
                seq: 0,
            };
            self.emit_at(p.worker, p.finding, false, (at, p.origin));
        }
    }

    /// A worker reported generation `g` of `group`: waiting foreign starts
    /// of that generation whose resource it holds get their owner.
    fn owners_reported(&mut self, group: &Arc<str>, g: i32) {
        if !self
            .pending_foreign
            .iter()
            .any(|p| p.generation == g && &p.group == group)
        {
            return;
        }
        let mut keep = Vec::new();
        for mut p in std::mem::take(&mut self.pending_foreign) {
            if p.generation == g
                && &p.group == group
                && self.name_owner(p.worker, group, g, &p.resource, &mut p.finding)
            {
                self.emit(p.worker, p.finding, false);
            } else {
                keep.push(p);
            }
        }
        self.pending_foreign = keep;
    }

    /// A `foreign-start` of worker `w` in generation `g`: names the worker
    /// whose assignment of that generation holds the resource, when its log
    /// is read and it reported the generation before the start.
    fn name_owner(&self, w: usize, group: &str, g: i32, r: &Resource, f: &mut Finding) -> bool {
        let Some(gr) = self.groups.get(group) else {
            return false;
        };
        let epoch = gr.workers.get(&w).map_or(0, |ws| ws.epoch);
        let Some(bucket) = gr.buckets.get(&(epoch, g)) else {
            return false;
        };
        let Some((owner, line)) = bucket
            .entries
            .iter()
            .find(|(ow, e)| **ow != w && e.assigns(r) && !self.same(w, **ow))
            .map(|(ow, e)| (*ow, e.line.clone()))
        else {
            return false;
        };
        let owner: Arc<str> = match self.labels.get(owner) {
            Some(l) => l.clone(),
            None => "?".into(),
        };
        f.reason = format!(
            "{} (generation {g} assigns it to {owner})",
            f.reason.trim_end_matches('.')
        );
        f.evidence.push(Evidence {
            role: format!("assigned to {owner} in the same generation"),
            worker: Some(owner),
            line,
            record: None,
        });
        f.normalise();
        true
    }

    #[cfg(test)]
    /// Forgets, in every group, generations no fact can concern any more
    /// (see [`Group::retire`]).
    pub fn retire(&mut self) {
        for g in self.groups.values_mut() {
            g.retire();
        }
    }

    #[cfg(test)]
    /// Generations held in memory (for tests and the memory bound).
    pub fn held_generations(&self) -> usize {
        self.groups.values().map(|g| g.buckets.len()).sum()
    }

    #[cfg(test)]
    /// Instances kept for laggards from generations retired past them
    /// (memory bound).
    pub fn held_for_laggards(&self) -> usize {
        self.groups.values().map(|g| g.lagging.len()).sum()
    }

    #[cfg(test)]
    /// Duplicate episodes remembered (memory bound).
    pub fn held_episodes(&self) -> usize {
        self.groups.values().map(|g| g.episodes.len()).sum()
    }
}

/// A duplicate episode: the resource and both instances (their lines).
type Episode = (Resource, (SourceId, u64), (SourceId, u64));

/// What a cross-worker finding is about: the workers' labels, the group
/// and the generation.
struct Ctx<'a> {
    labels: &'a [Arc<str>],
    group: &'a Arc<str>,
    generation: i32,
}

impl Ctx<'_> {
    fn label(&self, w: usize) -> &str {
        self.labels.get(w).map_or("?", |l| l)
    }

    /// The label of worker `w`, shared.
    fn shared_label(&self, w: usize) -> Arc<str> {
        match self.labels.get(w) {
            Some(l) => l.clone(),
            None => "?".into(),
        }
    }

    fn finding(
        &self,
        kind: Kind,
        w: usize,
        resource: Option<Resource>,
        trigger: &SourceLine,
        evidence: Vec<Evidence>,
        reason: String,
    ) -> Finding {
        let mut f = Finding {
            kind,
            worker: self.shared_label(w),
            group: Some(self.group.clone()),
            generation: Some(self.generation),
            resource,
            started: Vec::new(),
            trigger: trigger.clone(),
            evidence,
            reason,
            upstream: None,
            fingerprint: None,
        };
        f.normalise();
        f
    }

    fn ev(&self, role: String, w: usize, me: usize, line: &SourceLine) -> Evidence {
        Evidence {
            role,
            worker: (w != me).then(|| self.shared_label(w)),
            line: line.clone(),
            record: None,
        }
    }
}

/// One fact of worker `w` being fed to its group (what generation.rs and
/// kept.rs judge it with).
struct Feed<'a> {
    labels: &'a [Arc<str>],
    group_name: &'a Arc<str>,
    w: usize,
    line: &'a SourceLine,
    cluster: &'a Option<Arc<str>>,
}

impl Feed<'_> {
    fn ctx(&self, generation: i32) -> Ctx<'_> {
        Ctx {
            labels: self.labels,
            group: self.group_name,
            generation,
        }
    }
}

#[cfg(test)]
mod tests;
