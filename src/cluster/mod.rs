//! Cross-worker checks: what no single worker's log can prove. Workers of
//! one group are compared generation by generation (same generation number
//! in the same group; different groups never mix):
//!
//! * `zombie`: one resource running on two workers in the same generation,
//!   reported once per duplicate episode on the line where it becomes
//!   provable (the later of the two instances' "live in this generation"
//!   lines: a start, or an assignment line it was held at);
//! * `conflicting-assignment`: two workers' assignment lines of one
//!   generation claim the same resource, or carry different config offsets
//!   or leaders (reported on the later line);
//! * the owner of a `foreign-start`'s resource, when its log is present.
//!
//! Facts arrive roughly in time order (the orchestrator advances all streams
//! in lockstep); state is kept per generation only until every worker of the
//! group has moved past it, so memory stays bounded by workers × resources.

use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Key, Resource, SourceId, SourceLine, Timestamp};
use crate::replay::{Fact, FactKind};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How long (log time) past a generation's last assignment line a worker
/// that never reported that generation may still report it.
pub const RETIRE_MARGIN_MS: i64 = 6 * 3600 * 1000;

/// Generations whose assignment lines lie further apart than this are not
/// the same generation (the group was deleted and recreated).
const EPOCH_GAP_MS: i64 = 24 * 3600 * 1000;

#[derive(Debug, Clone)]
struct Mark {
    /// Identifies the instance: its start line, or the assignment it is
    /// held from.
    instance: SourceLine,
    /// From this line on it is live in this generation.
    from: SourceLine,
    /// Stopped at this line in this generation.
    until: Option<SourceLine>,
}

/// The live instances of one worker in one generation, sorted by resource
/// (a few dozen at most: a vector beats a tree here).
#[derive(Debug, Default)]
struct Live(Vec<(Resource, Mark)>);

impl Live {
    fn find(&self, r: &Resource) -> Result<usize, usize> {
        self.0.binary_search_by(|(x, _)| x.cmp(r))
    }
    fn get(&self, r: &Resource) -> Option<&Mark> {
        self.find(r).ok().map(|i| &self.0[i].1)
    }
    fn get_mut(&mut self, r: &Resource) -> Option<&mut Mark> {
        self.find(r).ok().map(|i| &mut self.0[i].1)
    }
    /// Sets the mark (replacing one there).
    fn insert(&mut self, r: Resource, m: Mark) {
        match self.find(&r) {
            Ok(i) => self.0[i].1 = m,
            Err(i) => self.0.insert(i, (r, m)),
        }
    }
    /// Sets the mark unless one is there.
    fn insert_new(&mut self, r: &Resource, m: impl FnOnce() -> Mark) {
        if let Err(i) = self.find(r) {
            self.0.insert(i, (r.clone(), m()));
        }
    }
    fn remove(&mut self, r: &Resource) {
        if let Ok(i) = self.find(r) {
            self.0.remove(i);
        }
    }
    fn resources(&self) -> impl Iterator<Item = &Resource> {
        self.0.iter().map(|(r, _)| r)
    }
    fn marks_mut(&mut self) -> impl Iterator<Item = &mut Mark> {
        self.0.iter_mut().map(|(_, m)| m)
    }
}

#[derive(Debug)]
struct Entry {
    line: SourceLine,
    cluster: Option<Arc<str>>,
    /// Sorted, without repeats.
    assigned: Arc<[Resource]>,
    leader: String,
    offset: i64,
    error: i32,
    live: Live,
}

impl Entry {
    fn assigns(&self, r: &Resource) -> bool {
        self.assigned.binary_search(r).is_ok()
    }
}

#[derive(Debug, Default)]
struct Bucket {
    first_ts: Option<Timestamp>,
    last_ts: Option<Timestamp>,
    entries: BTreeMap<usize, Entry>,
    conflicts: HashSet<(Option<Resource>, usize, usize)>,
    /// Index: the workers whose assignment holds a resource.
    holders: HashMap<Resource, Workers>,
    /// Index: the workers on which a resource is live in this generation.
    runners: HashMap<Resource, Workers>,
}

impl Bucket {
    fn index(map: &mut HashMap<Resource, Workers>, r: &Resource, w: usize) {
        match map.get_mut(r) {
            Some(ws) => ws.add(w),
            None => {
                map.insert(
                    r.clone(),
                    Workers {
                        first: w,
                        more: Vec::new(),
                    },
                );
            }
        }
    }
}

/// The workers of an index entry: nearly always one, so no allocation
/// until a second comes.
#[derive(Debug)]
struct Workers {
    first: usize,
    more: Vec<usize>,
}

impl Workers {
    fn add(&mut self, w: usize) {
        if self.first != w && !self.more.contains(&w) {
            self.more.push(w);
        }
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }
}

/// The workers an index holds for `r` (none when absent).
fn workers_of<'a>(
    map: &'a HashMap<Resource, Workers>,
    r: &Resource,
) -> impl Iterator<Item = usize> + 'a {
    map.get(r).into_iter().flat_map(Workers::iter)
}

#[derive(Debug, Default)]
struct WState {
    generation: Option<i32>,
    position: Option<Timestamp>,
    ended: bool,
}

#[derive(Debug, Default)]
struct Group {
    workers: BTreeMap<usize, WState>,
    /// Facts of the group fed so far (retirement runs every
    /// [`RETIRE_EVERY`] of them: a point that depends on the group's facts
    /// alone, so that checking groups apart or together agrees).
    fed: u64,
    /// The latest log time any fact of the group showed.
    newest: Option<Timestamp>,
    buckets: BTreeMap<i32, Bucket>,
    /// Duplicate episodes already reported: resource and both instances.
    episodes: HashSet<Episode>,
}

/// Facts of a group between two retirements of its old generations.
const RETIRE_EVERY: u64 = 256;

impl Group {
    /// Forgets generations no fact can concern any more: every worker of
    /// the group has moved past them or ended, or the group's log time is
    /// [`RETIRE_MARGIN_MS`] past their last assignment line.
    fn retire(&mut self) {
        let workers = &self.workers;
        let newest = self.newest;
        self.buckets.retain(|generation, b| {
            let passed = workers
                .values()
                .all(|ws| ws.ended || ws.generation.is_some_and(|x| x > *generation));
            let stale =
                matches!((newest, b.last_ts), (Some(p), Some(l)) if p.0 > l.0 + RETIRE_MARGIN_MS);
            !(passed || stale)
        });
    }
}

/// A duplicate episode: the resource and both instances (their lines).
type Episode = (Resource, (SourceId, u64), (SourceId, u64));

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
    labels: Vec<String>,
    /// Per worker: its group and identity as its latest fact gave them.
    identities: Vec<Who>,
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
}

/// A worker as its facts describe it.
#[derive(Debug, Default)]
struct Who {
    group: Option<Arc<str>>,
    /// `rest:URL`, `member:ID`, `client:ID` (latest fact).
    identity: Option<Arc<str>>,
    /// The generation of its first assignment line.
    first_generation: Option<i32>,
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

fn later<'a>(a: &'a SourceLine, b: &'a SourceLine) -> bool {
    // Is `a` later than `b`? By time stamp; without one, not later.
    matches!((a.ts, b.ts), (Some(x), Some(y)) if x > y)
}

fn ended_before(until: &Option<SourceLine>, from: &SourceLine) -> bool {
    matches!((until.as_ref().and_then(|u| u.ts), from.ts), (Some(u), Some(f)) if u < f)
}

impl Checker {
    pub fn new() -> Checker {
        Checker::default()
    }

    /// Registers a worker; returns its index.
    pub fn worker(&mut self, label: String) -> usize {
        self.labels.push(label);
        self.identities.push(Who::default());
        self.labels.len() - 1
    }

    pub fn label(&self, w: usize) -> &str {
        self.labels.get(w).map_or("?", String::as_str)
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
        let label = self.label(worker);
        let who = match self.identities.get(worker) {
            Some(id) => crate::baseline::WorkerIdentity::from_fact(
                label,
                id.identity.as_deref(),
                id.first_generation,
            ),
            None => crate::baseline::WorkerIdentity::label_only(label),
        };
        finding.fingerprint = Some(crate::baseline::fingerprint(&finding, &who));
        self.out.push(Emitted {
            worker,
            finding,
            cross,
            order,
        });
    }

    /// Hands on cross-worker findings, except those between two streams of
    /// one worker (noted instead).
    fn emit_cross(&mut self, found: Vec<CrossFinding>) {
        for cf in found {
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
                for g in self.groups.values_mut() {
                    if let Some(ws) = g.workers.get_mut(&w) {
                        ws.ended = true;
                    }
                }
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
            let mut out = Vec::new();
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
        self.emit_cross(found.0);
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
        let Some(bucket) = self.groups.get(group).and_then(|gr| gr.buckets.get(&g)) else {
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
        let owner = self.label(owner).to_string();
        f.reason = format!(
            "{} (generation {g} assigns it to {owner})",
            f.reason.trim_end_matches('.')
        );
        f.evidence.push(Evidence {
            role: format!("assigned to {owner} in the same generation"),
            worker: Some(owner),
            line,
        });
        f.normalise();
        true
    }

    /// Forgets, in every group, generations no fact can concern any more
    /// (see [`Group::retire`]).
    pub fn retire(&mut self) {
        for g in self.groups.values_mut() {
            g.retire();
        }
    }

    /// Generations held in memory (for tests and the memory bound).
    pub fn held_generations(&self) -> usize {
        self.groups.values().map(|g| g.buckets.len()).sum()
    }
}

/// Applies one fact of worker `w` to its group's state.
fn feed_group(
    labels: &[String],
    group_name: &str,
    group: &mut Group,
    w: usize,
    fact: Fact,
    out: &mut Vec<CrossFinding>,
) {
    let ws = group.workers.entry(w).or_default();
    match fact.kind {
        FactKind::Assignment {
            generation,
            assigned,
            leader,
            offset,
            error,
            live,
            ..
        } => {
            ws.generation = Some(generation);
            let ts = fact.line.ts;
            let bucket = group.buckets.entry(generation).or_default();
            if let (Some(first), Some(t)) = (bucket.first_ts, ts)
                && (t.0 - first.0).abs() > EPOCH_GAP_MS
            {
                *bucket = Bucket::default();
            }
            bucket.first_ts = bucket.first_ts.or(ts);
            if ts > bucket.last_ts {
                bucket.last_ts = ts;
            }
            // The replay sends them sorted by resource.
            let live = Live(
                live.into_iter()
                    .map(|(r, instance)| {
                        (
                            r,
                            Mark {
                                instance,
                                from: fact.line.clone(),
                                until: None,
                            },
                        )
                    })
                    .collect(),
            );
            bucket.entries.insert(
                w,
                Entry {
                    line: fact.line.clone(),
                    cluster: fact.cluster.clone(),
                    assigned,
                    leader,
                    offset,
                    error,
                    live,
                },
            );
            let e = &bucket.entries[&w];
            for res in e.assigned.iter() {
                Bucket::index(&mut bucket.holders, res, w);
            }
            for res in e.live.resources() {
                Bucket::index(&mut bucket.runners, res, w);
            }
            let ctx = Ctx {
                labels,
                group: group_name,
                generation,
            };
            conflicts(&ctx, bucket, w, out);
            let resources: Vec<Resource> = bucket.entries[&w].live.resources().cloned().collect();
            for r in resources {
                duplicates(&ctx, bucket, &mut group.episodes, w, &r, out);
            }
        }
        FactKind::Held { resources, since } => {
            if let Some(g) = ws.generation
                && let Some(bucket) = group.buckets.get_mut(&g)
            {
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: g,
                };
                if let Some(e) = bucket.entries.get_mut(&w) {
                    for r in &resources {
                        e.live.insert_new(r, || Mark {
                            instance: since.clone(),
                            from: since.clone(),
                            until: None,
                        });
                        Bucket::index(&mut bucket.runners, r, w);
                    }
                }
                for r in &resources {
                    duplicates(&ctx, bucket, &mut group.episodes, w, r, out);
                }
            }
        }
        FactKind::Start { resource, .. } => {
            if let Some(g) = ws.generation
                && let Some(bucket) = group.buckets.get_mut(&g)
                && let Some(e) = bucket.entries.get_mut(&w)
            {
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: g,
                };
                e.live.insert(
                    resource.clone(),
                    Mark {
                        instance: fact.line.clone(),
                        from: fact.line.clone(),
                        until: None,
                    },
                );
                Bucket::index(&mut bucket.runners, &resource, w);
                duplicates(&ctx, bucket, &mut group.episodes, w, &resource, out);
            }
        }
        FactKind::StartFailed { resource } => {
            // No instance ran: it never was live (a duplicate with it is
            // no duplicate).
            if let Some(g) = ws.generation
                && let Some(e) = group
                    .buckets
                    .get_mut(&g)
                    .and_then(|b| b.entries.get_mut(&w))
            {
                e.live.remove(&resource);
            }
        }
        FactKind::Stop { resource } => {
            if let Some(g) = ws.generation
                && let Some(m) = group
                    .buckets
                    .get_mut(&g)
                    .and_then(|b| b.entries.get_mut(&w))
                    .and_then(|e| e.live.get_mut(&resource))
            {
                m.until.get_or_insert(fact.line.clone());
            }
        }
        FactKind::Reset | FactKind::Left => {
            if let Some(g) = ws.generation.take()
                && let Some(e) = group
                    .buckets
                    .get_mut(&g)
                    .and_then(|b| b.entries.get_mut(&w))
            {
                for m in e.live.marks_mut() {
                    m.until.get_or_insert(fact.line.clone());
                }
            }
        }
        FactKind::Finding(_) | FactKind::ForeignStart { .. } | FactKind::End => {}
    }
}

struct Ctx<'a> {
    labels: &'a [String],
    group: &'a str,
    generation: i32,
}

impl Ctx<'_> {
    fn label(&self, w: usize) -> &str {
        self.labels.get(w).map_or("?", String::as_str)
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
            worker: self.label(w).to_string(),
            group: Some(self.group.to_string()),
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
            worker: (w != me).then(|| self.label(w).to_string()),
            line: line.clone(),
        }
    }
}

/// May two workers' entries of one generation be compared? Not when they
/// name different Kafka clusters, nor when they name different leaders
/// without both naming the same cluster: two clusters may use the same
/// group id (the default `connect-cluster`), and the leader is the one fact
/// every member of a generation shares.
fn comparable(a: &Entry, b: &Entry) -> bool {
    match (&a.cluster, &b.cluster) {
        (Some(x), Some(y)) => x == y,
        _ => a.leader == b.leader || a.leader == "null" || b.leader == "null",
    }
}

/// Assignment conflicts between worker `w`'s new entry and the others.
fn conflicts(ctx: &Ctx, bucket: &mut Bucket, w: usize, out: &mut Vec<CrossFinding>) {
    let mine = &bucket.entries[&w];
    // The resources each other worker's assignment shares with this one.
    let mut shared: BTreeMap<usize, Vec<&Resource>> = BTreeMap::new();
    for r in mine.assigned.iter() {
        for o in workers_of(&bucket.holders, r) {
            if o != w {
                shared.entry(o).or_default().push(r);
            }
        }
    }
    // (key, resource, roles of the two lines, reason), per conflict.
    let mut found = Vec::new();
    for (&o, other) in &bucket.entries {
        if o == w || !comparable(mine, other) {
            continue;
        }
        // The later assignment line triggers.
        let (tw, te, ow, oe) = if later(&other.line, &mine.line) {
            (o, other, w, mine)
        } else {
            (w, mine, o, other)
        };
        let pair = (w.min(o), w.max(o));
        let mut add = |r: Option<&Resource>, role_t: String, role_o: String, reason: String| {
            let key = (r.cloned(), pair.0, pair.1);
            if bucket.conflicts.contains(&key) {
                return;
            }
            let ev = vec![
                ctx.ev(role_t, tw, tw, &te.line),
                ctx.ev(role_o, ow, tw, &oe.line),
            ];
            let finding = ctx.finding(
                Kind::ConflictingAssignment,
                tw,
                r.cloned(),
                &te.line,
                ev,
                reason,
            );
            found.push((
                key,
                CrossFinding {
                    worker: tw,
                    other: ow,
                    finding,
                },
            ));
        };
        let (t, o_) = (ctx.label(tw), ctx.label(ow));
        let g = ctx.generation;
        for &r in shared.get(&o).map_or(&[][..], Vec::as_slice) {
            add(
                Some(r),
                format!("{r} is assigned here"),
                format!("and to {o_} here, in the same generation"),
                format!("{r} is assigned to two workers in generation {g}: {t} and {o_}"),
            );
        }
        if mine.error == 0 && other.error == 0 && mine.offset != other.offset {
            add(
                None,
                format!("config offset {} here", te.offset),
                format!("config offset {} for {o_} here", oe.offset),
                format!(
                    "workers of generation {g} were given different config offsets: {} ({t}) and {} ({o_})",
                    te.offset, oe.offset
                ),
            );
        } else if mine.leader != other.leader && mine.leader != "null" && other.leader != "null" {
            add(
                None,
                format!("leader {} here", te.leader),
                format!("leader {} for {o_} here", oe.leader),
                format!(
                    "workers of generation {g} were given different leaders: {} and {}",
                    te.leader, oe.leader
                ),
            );
        }
    }
    for (key, f) in found {
        bucket.conflicts.insert(key);
        out.push(f);
    }
}

/// Is resource `r`, live on worker `w` in this generation, also live on
/// another worker of the generation at an overlapping time?
fn duplicates(
    ctx: &Ctx,
    bucket: &Bucket,
    episodes: &mut HashSet<Episode>,
    w: usize,
    r: &Resource,
    out: &mut Vec<CrossFinding>,
) {
    let Some(mine) = bucket.entries.get(&w).and_then(|e| e.live.get(r)) else {
        return;
    };
    let mine_entry = &bucket.entries[&w];
    for o in workers_of(&bucket.runners, r) {
        let Some(other) = bucket.entries.get(&o) else {
            continue;
        };
        if o == w || !comparable(mine_entry, other) {
            continue;
        }
        let Some(theirs) = other.live.get(r) else {
            continue;
        };
        if ended_before(&theirs.until, &mine.from) || ended_before(&mine.until, &theirs.from) {
            continue;
        }
        let key = |l: &SourceLine| (l.source, l.line);
        let (a, b) = if mine.instance <= theirs.instance {
            (key(&mine.instance), key(&theirs.instance))
        } else {
            (key(&theirs.instance), key(&mine.instance))
        };
        if !episodes.insert((r.clone(), a, b)) {
            continue;
        }
        // The later "live from" line proves it.
        let (tw, tm, ow, om) = if later(&theirs.from, &mine.from) {
            (o, theirs, w, mine)
        } else {
            (w, mine, o, theirs)
        };
        // Per worker: the line it is live from, the instance's start, its
        // assignment of the generation. The other worker's lines name it
        // (its lines are shown under its own file).
        let g = ctx.generation;
        let mut ev = Vec::new();
        for (who, m) in [(tw, tm), (ow, om)] {
            let e = &bucket.entries[&who];
            let holds = if e.assigns(r) {
                "which assigns it"
            } else {
                "which does not assign it"
            };
            if e.line == m.from {
                ev.push(ctx.ev(
                    format!("runs it at its assignment of generation {g}, {holds}"),
                    who,
                    tw,
                    &m.from,
                ));
            } else {
                ev.push(ctx.ev(format!("starts it in generation {g}"), who, tw, &m.from));
                ev.push(ctx.ev(
                    format!("its assignment of generation {g}, {holds}"),
                    who,
                    tw,
                    &e.line,
                ));
            }
            if m.instance != m.from {
                ev.push(ctx.ev(
                    "the running instance was started here".to_string(),
                    who,
                    tw,
                    &m.instance,
                ));
            }
        }
        let f = ctx.finding(
            Kind::Zombie,
            tw,
            Some(r.clone()),
            &tm.from,
            ev,
            format!(
                "{r} runs on two workers in generation {}: {} and {}",
                ctx.generation,
                ctx.label(ow),
                ctx.label(tw)
            ),
        );
        out.push(CrossFinding {
            worker: tw,
            other: ow,
            finding: f,
        });
    }
}

#[cfg(test)]
mod tests;
