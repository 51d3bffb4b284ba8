//! What the records prove by themselves (docs/topics.md, "Checks"):
//!
//! * **zombie** from the status topic: one connector or task running on
//!   two workers at once, judged with the writers' generations, never
//!   with the latest state alone;
//! * **stale-config-start** (KAFKA-8869) from the config and status
//!   topics: a task of a re-created connector started before the new
//!   incarnation committed any task configs, so with the deleted
//!   incarnation's.
//!
//! Each finding quotes the records it rests on, each naming its topic,
//! partition and offset.

use super::Role;
use super::config::{Family, Replay, Snapshot};
use super::record::{Body, Record, State, StateKind};
use super::status::{Timelines, ends_run};
use crate::finding::{Evidence, Finding, Fingerprint, Kind, resource_spec};
use crate::model::{Name, Resource, TaskId};
use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// The records of one cluster's internal topics, in the order each topic
/// holds them.
#[derive(Debug, Clone, Default)]
pub struct Topics {
    pub records: Vec<Record>,
    /// Config records, by partition and offset.
    pub config: Vec<usize>,
    /// Status records, by partition and offset.
    pub status: Vec<usize>,
    /// Status records by time stamp (then partition and offset): the one
    /// order across the status topic's partitions.
    pub status_by_time: Vec<usize>,
    /// Records read twice (the same topic position, key and value from two
    /// dumps) and dropped.
    pub repeated: usize,
}

impl Topics {
    /// Orders records (in reading order) by topic; records read twice
    /// (two dumps of one topic) are kept once.
    pub fn new(records: Vec<Record>) -> Topics {
        let mut seen = HashSet::new();
        let mut t = Topics::default();
        for r in records {
            if let Some(o) = r.raw.at.offset {
                let id = (
                    r.role(),
                    r.raw.at.partition,
                    o,
                    r.raw.key.clone(),
                    r.raw.value.clone(),
                );
                if !seen.insert(id) {
                    t.repeated += 1;
                    continue;
                }
            }
            t.records.push(r);
        }
        let by_place = |i: &usize| {
            let a = &t.records[*i].raw.at;
            (a.partition.unwrap_or(0), a.offset.unwrap_or(i64::MAX), *i)
        };
        for (i, r) in t.records.iter().enumerate() {
            match r.body {
                Body::Config(_) => t.config.push(i),
                Body::Status(_) => t.status.push(i),
                Body::Offset { .. } => {}
            }
        }
        t.config.sort_unstable_by_key(by_place);
        t.status.sort_unstable_by_key(by_place);
        t.status_by_time = t.status.clone();
        t.status_by_time.sort_unstable_by_key(|i| {
            let r = &t.records[*i].raw;
            (r.timestamp.unwrap_or(i64::MIN), by_place(i))
        });
        t
    }

    /// The config topic replayed as a release of `family` reads it.
    pub fn config_replay(&self, family: Family) -> Replay {
        let mut r = Replay::new(family);
        for &i in &self.config {
            if let Body::Config(c) = &self.records[i].body {
                r.apply(i, self.records[i].raw.at.offset, c);
            }
        }
        r
    }

    /// The snapshot a worker of `family` holds once it has read the config
    /// topic up to `offset` (exclusive: the `config offset N` a worker
    /// prints), when the records' offsets are known.
    pub fn snapshot_at(&self, family: Family, offset: i64) -> Snapshot {
        self.replay_to(family, offset).snapshot
    }

    /// The config topic replayed up to `offset` (exclusive), histories
    /// included: [`Topics::snapshot_at`] with how it came to be.
    pub fn replay_to(&self, family: Family, offset: i64) -> Replay {
        let mut r = Replay::new(family);
        for &i in &self.config {
            let at = self.records[i].raw.at.offset;
            if at.is_none_or(|o| o >= offset) {
                break;
            }
            if let Body::Config(c) = &self.records[i].body {
                r.apply(i, at, c);
            }
        }
        r
    }

    /// The status timelines, each resource's in topic order.
    pub fn timelines(&self) -> Timelines {
        let mut t = Timelines::default();
        for &i in &self.status {
            if let Body::Status(s) = &self.records[i].body {
                t.apply(i, s);
            }
        }
        t
    }

    /// Record `i` as evidence, its role `role`.
    pub fn ev(&self, role: impl Into<String>, i: usize) -> Evidence {
        let r = &self.records[i].raw;
        Evidence {
            role: role.into(),
            worker: None,
            line: r.line.clone(),
            record: Some(r.at.clone()),
        }
    }

    fn finding(&self, p: Proof) -> Finding {
        let Proof {
            kind,
            worker,
            generation,
            resource,
            trigger,
            mut evidence,
            reason,
            upstream,
        } = p;
        // the records in time order (the dumps' own orders do not compare)
        super::sort_evidence(&mut evidence);
        let mut f = Finding {
            kind,
            worker: worker.clone(),
            group: None,
            generation: Some(generation),
            resource: Some(resource),
            started: Vec::new(),
            trigger: self.records[trigger].raw.line.clone(),
            evidence,
            reason,
            upstream,
            fingerprint: None,
        };
        // the record's key and state with numbers masked: the same record
        // of another run (its offsets and generations aside)
        let rec = &self.records[trigger];
        let state = state_of(self, trigger).map_or("null", |s| s.state.as_str());
        let message = mask_digits(&format!("{} {state}", rec.raw.key.as_deref().unwrap_or("")));
        f.fingerprint = Some(Fingerprint {
            kind: Cow::Borrowed(kind.as_str()),
            worker: Arc::from(format!("worker_id:{worker}")),
            group: None,
            resource: resource_spec(f.resource.as_ref()),
            generation_distance: None,
            message: Arc::from(message),
        });
        f
    }
}

/// The records of several clusters' topics apart: each status topic goes
/// with the config (and offsets) topic whose name shares the longest
/// beginning and end with it (`connect-a-status` with `connect-a-configs`,
/// `mm2-status.a.internal` with `mm2-configs.a.internal`), or the only one
/// when there is one of each; records of a dump that names no
/// topic are one topic. The clusters come in the order of their topics'
/// names.
pub fn by_cluster(records: Vec<Record>) -> Vec<Topics> {
    type TopicName = Option<Arc<str>>;
    let names = |role: Role| -> Vec<TopicName> {
        let mut v: Vec<TopicName> = records
            .iter()
            .filter(|r| r.role() == role)
            .map(|r| r.raw.at.topic.clone())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (configs, statuses, offsets) = (
        names(Role::Config),
        names(Role::Status),
        names(Role::Offsets),
    );
    let common = |a: &TopicName, b: &TopicName| -> usize {
        match (a, b) {
            (Some(a), Some(b)) => {
                // beginning and end: `connect-a-status` ~ `connect-a-configs`,
                // `mm2-status.a.internal` ~ `mm2-configs.a.internal`
                let head = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                let tail = a
                    .bytes()
                    .rev()
                    .zip(b.bytes().rev())
                    .take_while(|(x, y)| x == y)
                    .count();
                head + tail.min(a.len().min(b.len()) - head)
            }
            (None, None) => usize::MAX,
            _ => 0,
        }
    };
    // pairs by the longest common beginning first (the only pair when
    // there is one topic of each)
    let mut pairs: Vec<(usize, &TopicName, &TopicName)> = Vec::new();
    for st in &statuses {
        for c in &configs {
            let n = if statuses.len() == 1 && configs.len() == 1 {
                usize::MAX
            } else {
                common(st, c)
            };
            if n > 0 {
                pairs.push((n, st, c));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| (a.1, a.2).cmp(&(b.1, b.2))));
    let mut cluster_of: BTreeMap<(Role, TopicName), usize> = BTreeMap::new();
    let mut n = 0;
    for (_, st, c) in pairs {
        let (sk, ck) = ((Role::Status, st.clone()), (Role::Config, c.clone()));
        if !cluster_of.contains_key(&sk) && !cluster_of.contains_key(&ck) {
            cluster_of.insert(sk, n);
            cluster_of.insert(ck, n);
            n += 1;
        }
    }
    for st in &statuses {
        if let Entry::Vacant(e) = cluster_of.entry((Role::Status, st.clone())) {
            e.insert(n);
            n += 1;
        }
    }
    for c in &configs {
        if let Entry::Vacant(e) = cluster_of.entry((Role::Config, c.clone())) {
            e.insert(n);
            n += 1;
        }
    }
    for o in &offsets {
        let home = configs
            .iter()
            .map(|c| (common(o, c), c))
            .filter(|(k, _)| *k > 0)
            .max_by_key(|(k, _)| *k)
            .and_then(|(_, c)| cluster_of.get(&(Role::Config, c.clone())).copied());
        let k = home.unwrap_or_else(|| {
            n += 1;
            n - 1
        });
        cluster_of.insert((Role::Offsets, o.clone()), k);
    }
    let mut groups: Vec<Vec<Record>> = (0..n).map(|_| Vec::new()).collect();
    for r in records {
        let k = cluster_of[&(r.role(), r.raw.at.topic.clone())];
        groups[k].push(r);
    }
    groups
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(Topics::new)
        .collect()
}

/// Runs of digits as `#`.
fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What a check proved: the finding's parts.
struct Proof<'a> {
    kind: Kind,
    /// The worker id the proving record names.
    worker: &'a Arc<str>,
    generation: i32,
    resource: Resource,
    /// The record that made it provable.
    trigger: usize,
    evidence: Vec<Evidence>,
    reason: String,
    upstream: Option<&'static str>,
}

/// Each status record's place in time order (`status_by_time`), by its
/// index. Built by `insert`, not `collect` (which compiles a sort of its
/// own for each place that collects).
fn time_rank(t: &Topics) -> BTreeMap<usize, usize> {
    let mut pos = BTreeMap::new();
    for (p, &i) in t.status_by_time.iter().enumerate() {
        pos.insert(i, p);
    }
    pos
}

/// Every finding the records prove by themselves, in the order of the
/// records that made them provable.
pub fn check(t: &Topics) -> Vec<Finding> {
    let mut out: Vec<(usize, Finding)> = Vec::new();
    zombies(t, &t.timelines(), &mut out);
    stale_task_configs(t, &mut out);
    let pos = time_rank(t);
    out.sort_by_key(|(i, _)| (pos.get(i).copied().unwrap_or(usize::MAX), *i));
    out.into_iter().map(|(_, f)| f).collect()
}

fn state_of(t: &Topics, i: usize) -> Option<&super::record::State> {
    match &t.records[i].body {
        Body::Status(super::record::Status::Connector { state, .. })
        | Body::Status(super::record::Status::Task { state, .. }) => state.as_ref(),
        _ => None,
    }
}

/// An instance one worker runs: its RUNNING record, its place among the
/// resource's records, and its generation.
#[derive(Debug, Clone, Copy)]
struct Run {
    at: usize,
    /// Its place among the resource's records.
    ord: usize,
    generation: i32,
}

/// Zombies by the status topic. Per resource, in topic order, a worker's
/// RUNNING opens its run and its UNASSIGNED, FAILED, PAUSED, STOPPED or a
/// tombstone closes it. Two records prove two workers ran it at once:
///
/// * Z1: worker X writes RUNNING at generation g after worker V wrote
///   RUNNING at a newer generation gV > g and had not stopped: X started
///   it from an assignment the group had already replaced, while V ran it
///   (a worker back from a freeze finishing a start). Not when X's own
///   generation went back (a new process, or the group's generations
///   started again), nor unless a later status record shows the group at
///   gV or later (its generations did not start again).
/// * Z2: worker X, running it since generation gX, writes its stop after
///   V started it at gV > gX, at a generation g ≥ gV (X was a member of
///   generation gV or later and still ran it while V did: a worker back
///   from a freeze, stopping its copy only when it rejoined) or with a
///   time stamp later than V's RUNNING (by the writers' clocks X still
///   ran it when V started it: a worker cut off from the cluster, its
///   stop written when the partition healed).
///
/// A worker killed with SIGKILL writes nothing: its run stays open, and no
/// record of it follows unless it starts the resource again (a new run);
/// so an open run alone proves nothing, and neither does an absent stop
/// (a stop's UNASSIGNED is not written when the stopping worker already
/// saw another's newer RUNNING).
fn zombies(t: &Topics, tl: &Timelines, out: &mut Vec<(usize, Finding)>) {
    let z = Zombies::new(t, tl);
    for (resource, entries) in &tl.resources {
        let mut open: BTreeMap<Arc<str>, Run> = BTreeMap::new();
        for (ord, e) in entries.iter().enumerate() {
            let Some(s) = &e.state else {
                open.clear();
                continue;
            };
            match s.state {
                StateKind::Running => {
                    if let Some(f) = z.late_start(resource, &open, e.at, s) {
                        out.push((e.at, f));
                    }
                    let run = Run {
                        at: e.at,
                        ord,
                        generation: s.generation,
                    };
                    open.insert(s.worker.clone(), run);
                }
                k if ends_run(&k) => {
                    let Some(mine) = open.remove(&s.worker) else {
                        continue;
                    };
                    if let Some(f) = z.late_stop(resource, &open, mine, e.at, s) {
                        out.push((e.at, f));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The status topic in time order, for the zombie rules.
struct Zombies<'a> {
    t: &'a Topics,
    tl: &'a Timelines,
    /// Each status record's place in time order.
    pos: BTreeMap<usize, usize>,
    /// From each place on, the highest generation written.
    later_max: Vec<i32>,
}

impl<'a> Zombies<'a> {
    fn new(t: &'a Topics, tl: &'a Timelines) -> Zombies<'a> {
        let pos = time_rank(t);
        let gens: Vec<i32> = t
            .status_by_time
            .iter()
            .map(|&i| state_of(t, i).map_or(i32::MIN, |s| s.generation))
            .collect();
        let mut later_max = vec![i32::MIN; gens.len() + 1];
        for p in (0..gens.len()).rev() {
            later_max[p] = later_max[p + 1].max(gens[p]);
        }
        Zombies {
            t,
            tl,
            pos,
            later_max,
        }
    }

    /// The highest generation worker `w` wrote before place `p`.
    fn before_max(&self, w: &Arc<str>, p: usize) -> Option<i32> {
        self.tl
            .workers
            .get(w)?
            .iter()
            .filter(|(i, _)| self.pos.get(i).is_some_and(|&q| q < p))
            .map(|(_, g)| *g)
            .max()
    }

    /// A zombie finding made provable by record `at` (state `s`).
    fn zombie(
        &self,
        resource: &Resource,
        at: usize,
        s: &State,
        evidence: Vec<Evidence>,
        reason: String,
    ) -> Finding {
        self.t.finding(Proof {
            kind: Kind::Zombie,
            worker: &s.worker,
            generation: s.generation,
            resource: resource.clone(),
            trigger: at,
            evidence,
            reason,
            upstream: None,
        })
    }

    /// Z1: RUNNING `at` (state `s`) started from an assignment another
    /// open run's newer generation had replaced.
    fn late_start(
        &self,
        resource: &Resource,
        open: &BTreeMap<Arc<str>, Run>,
        at: usize,
        s: &State,
    ) -> Option<Finding> {
        let (v, vr) = open
            .iter()
            .filter(|(w, r)| **w != s.worker && r.generation > s.generation)
            .max_by_key(|(_, r)| r.generation)?;
        let p = self.pos[&at];
        let went_back = self
            .before_max(&s.worker, p)
            .is_some_and(|m| m > s.generation);
        if went_back || self.later_max[p + 1] < vr.generation {
            return None;
        }
        let t = self.t;
        let reason = format!(
            "{resource} was started by worker {} at generation {} while worker {v} ran it since generation {}, and had not stopped it: two workers ran it at once (by the status topic)",
            s.worker, s.generation, vr.generation
        );
        let evidence = vec![
            t.ev(
                format!("RUNNING on {v}, generation {}", vr.generation),
                vr.at,
            ),
            t.ev(
                format!(
                    "RUNNING on {} at the older generation {}",
                    s.worker, s.generation
                ),
                at,
            ),
        ];
        Some(self.zombie(resource, at, s, evidence, reason))
    }

    /// Z2: the stop `at` (state `s`) of `mine`, written after another
    /// worker's newer RUNNING at a generation at least as new or later by
    /// the clocks.
    fn late_stop(
        &self,
        resource: &Resource,
        open: &BTreeMap<Arc<str>, Run>,
        mine: Run,
        at: usize,
        s: &State,
    ) -> Option<Finding> {
        let t = self.t;
        let ts = |i: usize| t.records[i].raw.timestamp;
        let stopped_after = |r: &Run| match (ts(at), ts(r.at)) {
            (Some(a), Some(b)) => a > b,
            _ => false,
        };
        let (v, vr) = open
            .iter()
            .filter(|(w, r)| {
                **w != s.worker
                    && r.generation > mine.generation
                    && r.ord > mine.ord
                    && (s.generation >= r.generation || stopped_after(r))
            })
            .min_by_key(|(_, r)| r.generation)?;
        let how = if s.generation >= vr.generation {
            format!("stopped it only at generation {}", s.generation)
        } else {
            format!(
                "stopped it (generation {}) later by its clock than {v} started it",
                s.generation
            )
        };
        let reason = format!(
            "{resource} ran on worker {} from generation {} and {how}, while worker {v} ran it since generation {}: two workers ran it at once (by the status topic)",
            s.worker, mine.generation, vr.generation
        );
        let evidence = vec![
            t.ev(
                format!("RUNNING on {}, generation {}", s.worker, mine.generation),
                mine.at,
            ),
            t.ev(
                format!("RUNNING on {v}, generation {}", vr.generation),
                vr.at,
            ),
            t.ev(
                format!(
                    "{} on {} only now, at generation {}",
                    s.state.as_str(),
                    s.worker,
                    s.generation
                ),
                at,
            ),
        ];
        Some(self.zombie(resource, at, s, evidence, reason))
    }
}

/// KAFKA-8869 by the records: connector C deleted and created again, and a
/// task of C written RUNNING (by its time stamp) after the re-creation and
/// before the new incarnation's first commit of task configs: the only
/// task configs committed for it were the deleted incarnation's, which a
/// worker up to 2.5.0 keeps after the deletion and starts the task with.
/// The order between the two topics is the order of their records' time
/// stamps (the writers' clocks).
fn stale_task_configs(t: &Topics, out: &mut Vec<(usize, Finding)>) {
    let replay = t.config_replay(Family::UpTo2_5_0);
    let ts = |i: usize| t.records[i].raw.timestamp;
    for (name, h) in &replay.history {
        for (k, inc) in h.incarnations.iter().enumerate().skip(1) {
            let prev = &h.incarnations[k - 1];
            let Some(deleted) = prev.deleted else {
                continue;
            };
            // the deleted incarnation's last complete task-config set
            let Some(old) = h
                .commits
                .iter()
                .rev()
                .find(|c| c.incarnation == k - 1 && c.applied.is_some() && c.at < deleted)
            else {
                continue;
            };
            let new_commit = h
                .commits
                .iter()
                .find(|c| c.incarnation == k && c.at > inc.created);
            let (Some(from), until) = (ts(inc.created), new_commit.and_then(|c| ts(c.at))) else {
                continue;
            };
            for task in 0..old.tasks {
                let id = TaskId::new(name, task);
                stale_start(
                    t,
                    name,
                    &id,
                    from,
                    until,
                    deleted,
                    inc.created,
                    old,
                    new_commit,
                    out,
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn stale_start(
    t: &Topics,
    name: &Name,
    id: &TaskId,
    from: i64,
    until: Option<i64>,
    deleted: usize,
    created: usize,
    old: &super::config::Commit,
    new_commit: Option<&super::config::Commit>,
    out: &mut Vec<(usize, Finding)>,
) {
    let resource = Resource::Task(id.clone());
    let hit = t.status.iter().copied().find(|&i| {
        let r = &t.records[i];
        let is_task =
            matches!(&r.body, Body::Status(super::record::Status::Task { task, .. }) if task == id);
        let running = state_of(t, i).is_some_and(|s| s.state == StateKind::Running);
        let when = r.raw.timestamp;
        is_task && running && when.is_some_and(|w| w >= from && until.is_none_or(|u| w < u))
    });
    let Some(i) = hit else { return };
    let s = state_of(t, i).expect("a RUNNING record has a state");
    let mut ev = vec![
        t.ev(format!("connector {name} deleted"), deleted),
        t.ev(format!("connector {name} created again"), created),
        t.ev(
            format!(
                "the deleted incarnation's task configs committed ({} task(s))",
                old.tasks
            ),
            old.at,
        ),
        t.ev(
            format!("{id} RUNNING on {}, generation {}", s.worker, s.generation),
            i,
        ),
    ];
    if let Some(tc) = old.applied.as_ref().and_then(|a| a.get(&id.index)) {
        ev.push(t.ev(format!("the deleted incarnation's config of {id}"), *tc));
    }
    let new = match new_commit {
        Some(c) => {
            ev.push(t.ev(
                format!(
                    "the new incarnation's task configs committed only here ({} task(s))",
                    c.tasks
                ),
                c.at,
            ));
            "before the new incarnation committed its own"
        }
        None => "and the new incarnation never committed its own",
    };
    let reason = format!(
        "task {id} was started after connector {name} was deleted and created again, {new}: it ran with the deleted connector's task config (by the config and status topics)"
    );
    let f = t.finding(Proof {
        kind: Kind::StaleConfigStart,
        worker: &s.worker,
        generation: s.generation,
        resource,
        trigger: i,
        evidence: ev,
        reason,
        upstream: Some("KAFKA-8869"),
    });
    out.push((i, f));
}

#[cfg(test)]
mod tests;
