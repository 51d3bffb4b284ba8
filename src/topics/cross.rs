//! The topics beside the logs (docs/topics.md, "Checks with the logs"):
//! the records join the audit's item stream, keyed by their time stamps,
//! and meet the logs' findings in the cross-worker stage.
//!
//! * [`Witness`]: what was read, before the run: the records per cluster
//!   and the findings they prove by themselves ([`super::check`]), each
//!   with the record that made it provable.
//! * [`Cross`]: the witness during the run. Each record comes in key
//!   order among the logs' facts ([`Cross::record`]); a finding of the
//!   topics alone waits [`HOLD_MS`] of log time past its record for a log
//!   finding of the same episode; a log `zombie` gains the status records
//!   of both its workers' runs and takes in the topics' `zombie` of the
//!   same resource and workers ([`Cross::absorb`]): one finding with both
//!   witnesses, not two.
//! * [`Summary`]: what the topics witnessed, and which workers the status
//!   topic shows running work whose logs were not read.
//!
//! Workers are matched by the status records' `worker_id` (the REST
//! advertised `host:port`) and the logs' REST URL.

use super::Skipped;
use super::check::{self, Topics};
use super::record::{Body, StateKind, Status};
use super::status::ends_run;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceId, SourceLine};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

mod summary;
pub use summary::Summary;

/// How long (log time) a finding of the topics alone waits past its record
/// for a log finding of the same episode to take it in.
pub const HOLD_MS: i64 = 60_000;

/// How long after a log's start line its RUNNING record may be stamped
/// (the status write follows the start; the clocks may differ a little).
const RUNNING_SLACK_MS: i64 = 5_000;

/// How much later than the log line handling a task-config update its
/// commit record may be stamped (the clocks of two hosts).
pub const COMMIT_SLACK_MS: i64 = 1_000;

/// Worker `id`'s run of a resource (`entries`: its status records) whose
/// instance the log shows from `from`: the latest RUNNING or PAUSED it
/// wrote by then (an instance starts RUNNING, or PAUSED when its
/// connector is paused; [`RUNNING_SLACK_MS`] allowed for the write after
/// the start line), unless a RUNNING closed before `from` (a previous
/// run: the topic holds none of this one); and, for a RUNNING, the record
/// closing it, if any.
fn run_of(
    t: &Topics,
    entries: &[super::status::Entry],
    id: &Arc<str>,
    from: i64,
) -> Option<(usize, Option<usize>)> {
    let ts = |i: usize| t.records[i].raw.timestamp;
    let mine: Vec<(usize, &super::record::State)> = entries
        .iter()
        .filter_map(|e| e.state.as_ref().map(|s| (e.at, s)))
        .filter(|(_, s)| s.worker == *id)
        .collect();
    let until = from.saturating_add(RUNNING_SLACK_MS);
    let k = (0..mine.len())
        .filter(|&k| matches!(mine[k].1.state, StateKind::Running | StateKind::Paused))
        .rfind(|&k| ts(mine[k].0).is_none_or(|x| x <= until))?;
    if mine[k].1.state != StateKind::Running {
        return Some((mine[k].0, None));
    }
    let close = mine[k + 1..]
        .iter()
        .map_while(|(at, s)| (s.state != StateKind::Running).then_some((*at, s)))
        .find(|(_, s)| ends_run(&s.state))
        .map(|(at, _)| at);
    if close.and_then(ts).is_some_and(|x| x < from) {
        return None;
    }
    Some((mine[k].0, close))
}

/// Whether two commits made live the same task configs, byte for byte.
fn same_task_configs(t: &Topics, a: &super::config::Commit, b: &super::config::Commit) -> bool {
    let (Some(x), Some(y)) = (&a.applied, &b.applied) else {
        return false;
    };
    let config = |i: usize| match &t.records[i].body {
        Body::Config(super::record::Config::Task { config, .. }) => Some(config),
        _ => None,
    };
    a.tasks == b.tasks
        && (0..a.tasks).all(|n| match (x.get(&n), y.get(&n)) {
            (Some(&p), Some(&q)) => config(p).is_some() && config(p) == config(q),
            _ => false,
        })
}

/// A finding the topics prove by themselves, and where it stands.
#[derive(Debug, Clone)]
struct Alone {
    finding: Finding,
    /// The worker ids its records name.
    ids: BTreeSet<Arc<str>>,
    /// Its records' time span (ms).
    span: (i64, i64),
}

/// The records of the run's topics, and what they prove alone.
#[derive(Debug, Default)]
pub struct Witness {
    pub clusters: Vec<Topics>,
    /// Each cluster's config topic replayed (its connectors' histories).
    configs: Vec<super::config::Replay>,
    /// Each cluster's status timelines.
    timelines: Vec<super::status::Timelines>,
    alone: Vec<Alone>,
    /// Per cluster and record: the findings it is the trigger of.
    by_trigger: HashMap<(u32, u32), Vec<usize>>,
    /// Records skipped as unreadable.
    pub skipped: u64,
    /// Each record's cluster and place there, by its input line.
    places: HashMap<(SourceId, u64), (u32, usize)>,
    /// A live run's compaction: status records stamped before this were
    /// compacted ([`super::compact`]); `i64::MIN` when none was.
    pub cut: i64,
}

/// A record as an item of the audit: its time stamp, place and line.
pub struct Keyed<'a> {
    pub ts: i64,
    pub cluster: u32,
    pub record: u32,
    pub line: &'a SourceLine,
}

impl Witness {
    pub fn new(records: Vec<super::record::Record>, skipped: &[Skipped]) -> Witness {
        let clusters = check::by_cluster(records);
        let mut w = Witness {
            skipped: skipped.len() as u64,
            cut: i64::MIN,
            ..Witness::default()
        };
        for (c, t) in clusters.iter().enumerate() {
            for (i, r) in t.records.iter().enumerate() {
                w.places
                    .insert((r.raw.line.source, r.raw.line.line), (c as u32, i));
            }
            let place = &w.places;
            for f in check::check(t) {
                let at = |l: &SourceLine| {
                    place
                        .get(&(l.source, l.line))
                        .and_then(|&(k, i)| (k == c as u32).then_some(i))
                };
                let Some(trigger) = at(&f.trigger) else {
                    continue;
                };
                let mut ids = BTreeSet::new();
                let mut span = (i64::MAX, i64::MIN);
                for e in &f.evidence {
                    let Some(i) = at(&e.line) else { continue };
                    if let Some(s) = state_of(t, i) {
                        ids.insert(s.worker.clone());
                    }
                    if let Some(ts) = t.records[i].raw.timestamp {
                        span = (span.0.min(ts), span.1.max(ts));
                    }
                }
                w.by_trigger
                    .entry((c as u32, trigger as u32))
                    .or_default()
                    .push(w.alone.len());
                w.alone.push(Alone {
                    finding: f,
                    ids,
                    span,
                });
            }
        }
        w.timelines = clusters.iter().map(Topics::timelines).collect();
        w.configs = clusters
            .iter()
            .map(|t| t.config_replay(super::config::Family::latest()))
            .collect();
        w.clusters = clusters;
        w
    }

    /// The cluster and place of the record read as `line`, if the witness
    /// holds it.
    pub fn place(&self, line: &SourceLine) -> Option<(u32, usize)> {
        self.places.get(&(line.source, line.line)).copied()
    }

    /// What the disagreement checks read ([`super::disagree`]).
    pub fn seen(&self) -> super::disagree::Seen<'_> {
        super::disagree::Seen {
            clusters: &self.clusters,
            timelines: &self.timelines,
        }
    }

    /// The config and status records, each keyed by its time stamp
    /// (`i64::MIN` without one), in time order.
    pub fn keyed(&self) -> Vec<Keyed<'_>> {
        let mut v: Vec<Keyed<'_>> = Vec::new();
        for (c, t) in self.clusters.iter().enumerate() {
            for &i in t.config.iter().chain(&t.status) {
                let r = &t.records[i].raw;
                v.push(Keyed {
                    ts: r.timestamp.unwrap_or(i64::MIN),
                    cluster: c as u32,
                    record: i as u32,
                    line: &r.line,
                });
            }
        }
        v.sort_by_key(|k| (k.ts, k.cluster, k.record));
        v
    }
}

fn state_of(t: &Topics, i: usize) -> Option<&super::record::State> {
    match &t.records.get(i)?.body {
        Body::Status(Status::Connector { state, .. })
        | Body::Status(Status::Task { state, .. }) => state.as_ref(),
        _ => None,
    }
}

/// `rest:http://127.0.0.1:8083/` → `127.0.0.1:8083`, the `worker_id` the
/// worker writes in its status records.
pub fn worker_id(identity: &str) -> Option<&str> {
    let url = identity.strip_prefix("rest:")?;
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let id = rest.split('/').next().unwrap_or(rest);
    (!id.is_empty()).then_some(id)
}

/// What knows a finding of the topics alone across renewed witnesses.
type AloneId = (Kind, Option<Resource>, SourceId, u64);

/// The identities of a finding of the topics alone: its kind, resource
/// and trigger record; a `stale-config-start` also by its re-creation
/// record (its trigger, the first RUNNING after it, changes when a live
/// run compacts the earlier ones away).
fn alone_ids(f: &Finding) -> Vec<AloneId> {
    let mut v = vec![(f.kind, f.resource.clone(), f.trigger.source, f.trigger.line)];
    if f.kind == Kind::StaleConfigStart
        && let Some(created) = f.evidence.get(1)
    {
        v.push((
            f.kind,
            f.resource.clone(),
            created.line.source,
            created.line.line,
        ));
    }
    v
}

/// A finding the witness hands on, with its place in the run's order:
/// the log time it became final (past its record's hold) and the key
/// of its record's item.
pub struct Due {
    pub finding: Finding,
    pub deadline: i64,
    pub origin: crate::model::Key,
}

/// The witness during the run.
#[derive(Debug)]
pub struct Cross {
    w: Arc<Witness>,
    /// Findings of the topics alone whose record was read, waiting:
    /// (deadline, index, the key of their record).
    waiting: Vec<(i64, usize, crate::model::Key)>,
    alone: Vec<bool>,
    /// The logs' workers: label → worker id (from their REST URL).
    ids: HashMap<Arc<str>, Option<Arc<str>>>,
    /// Log findings that took in a finding of the topics alone.
    pub merged: u64,
    /// Log findings that gained records.
    pub backed: u64,
    /// Findings of the topics alone handed on.
    pub handed: u64,
    /// The records fed so far (by their lines) and their keys, for
    /// [`Cross::renewed`].
    fed: Vec<((SourceId, u64), crate::model::Key)>,
    /// The findings of the topics alone handed on or taken in, over every
    /// witness of the run (a live run's witness drops records).
    done: BTreeSet<AloneId>,
    /// Witnesses that disagree ([`super::disagree`]).
    disagree: super::disagree::Disagree,
    /// The config offset of each start in a start phase, by its line.
    start_offsets: HashMap<(SourceId, u64), i64>,
}

impl Cross {
    pub fn new(w: Arc<Witness>) -> Cross {
        Cross {
            alone: vec![false; w.alone.len()],
            waiting: Vec::new(),
            ids: HashMap::new(),
            merged: 0,
            backed: 0,
            handed: 0,
            fed: Vec::new(),
            done: BTreeSet::new(),
            disagree: super::disagree::Disagree::default(),
            start_offsets: HashMap::new(),
            w,
        }
    }

    /// The same run over a witness of more records (the topics read live
    /// since; the records fed so far keep their places, unless compacted
    /// away): what was handed on or taken in stays so (a finding of the
    /// topics alone known by [`alone_ids`]), the records fed so far start
    /// their holds again in the new witness, and a record compacted or
    /// older than the new witness's cut triggers nothing again (its
    /// findings were handed on when it was read).
    pub fn renewed(self, w: Arc<Witness>) -> Cross {
        let mut done = self.done;
        for (a, _) in self.alone.iter().enumerate().filter(|(_, d)| **d) {
            done.extend(alone_ids(&self.w.alone[a].finding));
        }
        let mut disagree = self.disagree;
        disagree.renew();
        let cut = w.cut;
        let alone = w
            .alone
            .iter()
            .map(|a| {
                a.finding.trigger.ts.is_some_and(|t| t.0 < cut)
                    || alone_ids(&a.finding).iter().any(|id| done.contains(id))
            })
            .collect();
        let mut c = Cross {
            alone,
            waiting: Vec::new(),
            ids: self.ids,
            merged: self.merged,
            backed: self.backed,
            handed: self.handed,
            fed: Vec::new(),
            done,
            disagree,
            start_offsets: self.start_offsets,
            w,
        };
        for ((source, line), key) in self.fed {
            c.refeed(source, line, key);
        }
        c
    }

    /// A record fed before is fed again to a renewed witness, if it holds
    /// it still.
    fn refeed(&mut self, source: SourceId, line: u64, key: crate::model::Key) {
        let Some(&(cluster, record)) = self.w.places.get(&(source, line)) else {
            return;
        };
        self.fed.push(((source, line), key));
        self.disagree.record(self.w.seen(), cluster, record as u32);
        self.hold(cluster, record, key);
    }

    /// A log worker's label and identity, as its latest fact gave them.
    pub fn note_worker(&mut self, label: &Arc<str>, identity: Option<&Arc<str>>) {
        let id = identity.and_then(|i| worker_id(i)).map(Arc::<str>::from);
        match self.ids.get_mut(label) {
            Some(known) => {
                if id.is_some() && *known != id {
                    *known = id;
                }
            }
            None => {
                self.ids.insert(label.clone(), id);
            }
        }
    }

    /// The record read as `line` comes, its item keyed `key`: the
    /// findings it proves alone start their hold. (A record a live run's
    /// witness compacted away since its item was made is passed over.)
    pub fn record(&mut self, line: &SourceLine, key: crate::model::Key) {
        self.refeed(line.source, line.line, key);
    }

    /// The findings record `record` of cluster `cluster` proves alone start
    /// their hold.
    fn hold(&mut self, cluster: u32, record: usize, key: crate::model::Key) {
        if let Some(found) = self.w.by_trigger.get(&(cluster, record as u32)) {
            for &a in found {
                let deadline = key.ts.saturating_add(HOLD_MS);
                self.waiting.push((deadline, a, key));
            }
        }
    }

    /// A fact of log worker `label` (its line `line`): the status topic's
    /// disagreements with the logs it proves ([`super::disagree`]), as
    /// findings of that worker.
    pub fn log_fact(
        &mut self,
        label: &Arc<str>,
        group: Option<&Arc<str>>,
        kind: &crate::replay::FactKind,
        line: &SourceLine,
    ) -> Vec<Finding> {
        if let crate::replay::FactKind::Start {
            config_offset: Some(n),
            ..
        } = kind
        {
            self.start_offsets.insert((line.source, line.line), *n);
        }
        let Some(Some(id)) = self.ids.get(label).cloned() else {
            return Vec::new();
        };
        self.disagree
            .fact(self.w.seen(), &id, kind, line)
            .into_iter()
            .map(|d| super::disagree::finding(label, group, line, d))
            .collect()
    }

    /// Findings of the topics alone whose hold ended before log time `now`.
    pub fn due(&mut self, now: i64) -> Vec<Due> {
        if self.waiting.iter().all(|(d, ..)| *d >= now) {
            return Vec::new();
        }
        let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(d, ..)| *d < now);
        self.waiting = keep;
        self.hand_on(due)
    }

    /// The run is over: every finding still waiting is handed on.
    pub fn finish(&mut self) -> Vec<Due> {
        let due = std::mem::take(&mut self.waiting);
        self.hand_on(due)
    }

    fn hand_on(&mut self, mut due: Vec<(i64, usize, crate::model::Key)>) -> Vec<Due> {
        due.sort_by_key(|&(d, a, k)| (d, k, a));
        let mut out = Vec::new();
        for (deadline, a, origin) in due {
            if std::mem::replace(&mut self.alone[a], true) {
                continue;
            }
            self.handed += 1;
            out.push(Due {
                finding: self.w.alone[a].finding.clone(),
                deadline,
                origin,
            });
        }
        out
    }

    /// A log's task stopped at `stop` for the task-config update handled at
    /// `handling`, the stop excused by it: an `unnecessary-stop` when the
    /// task configs committed for its connector by then (the latest commit
    /// stamped no later than the handling line, with [`COMMIT_SLACK_MS`])
    /// are byte-for-byte those of the commit before it (the task-config
    /// twin of KAFKA-17105: a connector writing the same task configs
    /// again, every task of it restarted for nothing).
    pub fn task_config_stop(
        &self,
        label: &Arc<str>,
        group: Option<&Arc<str>>,
        resource: &Resource,
        stop: &SourceLine,
        handling: &SourceLine,
    ) -> Option<Finding> {
        let Resource::Task(task) = resource else {
            return None;
        };
        let until = handling.ts?.0.saturating_add(COMMIT_SLACK_MS);
        for (c, t) in self.w.clusters.iter().enumerate() {
            let Some(h) = self.w.configs[c].history.get(&task.connector) else {
                continue;
            };
            let ts = |i: usize| t.records[i].raw.timestamp;
            let applied: Vec<&super::config::Commit> = h
                .commits
                .iter()
                .filter(|k| k.applied.is_some() && ts(k.at).is_some_and(|x| x <= until))
                .collect();
            let [.., old, new] = applied[..] else {
                continue;
            };
            if old.incarnation != new.incarnation || !same_task_configs(t, old, new) {
                return None;
            }
            let (Some(a), Some(b)) = (old.applied.as_ref(), new.applied.as_ref()) else {
                continue;
            };
            let mut evidence = vec![
                Evidence {
                    role: "stopped here".into(),
                    worker: None,
                    line: stop.clone(),
                    record: None,
                },
                Evidence {
                    role: "for a task-config update".into(),
                    worker: None,
                    line: handling.clone(),
                    record: None,
                },
            ];
            let mut records = vec![
                ev(t, old.at, format!("{} task config(s) committed", old.tasks)),
                ev(
                    t,
                    new.at,
                    format!("the same {} task config(s) committed again", new.tasks),
                ),
            ];
            if let (Some(&x), Some(&y)) = (a.get(&task.index), b.get(&task.index)) {
                records.push(ev(t, x, format!("the config of {task}")));
                records.push(ev(
                    t,
                    y,
                    format!("the config of {task} written again, unchanged"),
                ));
            }
            super::sort_evidence(&mut records);
            let off = |i: usize| {
                t.records[i]
                    .raw
                    .at
                    .offset
                    .map_or("?".to_string(), |o| o.to_string())
            };
            let reason = format!(
                "task {task} was stopped for a task-config update, but the task configs of connector {} committed at config offset {} are byte-for-byte those committed at offset {}: nothing changed for it (by the config topic)",
                task.connector,
                off(new.at),
                off(old.at)
            );
            let mut f = Finding {
                kind: Kind::UnnecessaryStop,
                worker: label.clone(),
                group: group.cloned(),
                generation: None,
                resource: Some(resource.clone()),
                started: Vec::new(),
                trigger: stop.clone(),
                evidence: std::mem::take(&mut evidence),
                reason,
                upstream: None,
                fingerprint: None,
            };
            f.normalise();
            f.evidence.extend(records);
            return Some(f);
        }
        None
    }

    /// A log finding becomes final: a `zombie` gains the status records of
    /// its workers' runs (read so far), and takes in the topics' `zombie`
    /// of the same resource and workers whose records lie within
    /// [`HOLD_MS`] of its lines.
    pub fn absorb(&mut self, f: &mut Finding) {
        if f.kind == Kind::StaleConfigStart {
            self.stale_start(f);
        }
        if f.kind != Kind::Zombie {
            return;
        }
        let Some(resource) = f.resource.clone() else {
            return;
        };
        // each worker's id and the earliest of its lines (its instance's
        // start, or the assignment it was held at)
        let mut first: BTreeMap<Arc<str>, i64> = BTreeMap::new();
        let own = std::iter::once((&f.worker, &f.trigger));
        let lines = f
            .evidence
            .iter()
            .filter(|e| e.record.is_none())
            .map(|e| (e.worker.as_ref().unwrap_or(&f.worker), &e.line));
        for (label, line) in own.chain(lines) {
            let (Some(Some(id)), Some(ts)) = (self.ids.get(label), line.ts) else {
                continue;
            };
            let t = first.entry(id.clone()).or_insert(ts.0);
            *t = (*t).min(ts.0);
        }
        if first.len() != 2 {
            return;
        }
        let ids: BTreeSet<Arc<str>> = first.keys().cloned().collect();
        let times: Vec<i64> = std::iter::once(&f.trigger)
            .chain(f.evidence.iter().map(|e| &e.line))
            .filter_map(|l| l.ts.map(|t| t.0))
            .collect();
        let (lo, hi) = (
            times.iter().min().copied().unwrap_or(i64::MIN),
            times.iter().max().copied().unwrap_or(i64::MAX),
        );
        let mut added: Vec<Evidence> = Vec::new();
        let mut overlap = false;
        for c in 0..self.w.clusters.len() {
            overlap |= self.runs_of(c, &resource, &first, &mut added);
        }
        let mut took = false;
        for (a, alone) in self.w.alone.iter().enumerate() {
            let fits = !self.alone[a]
                && alone.finding.kind == Kind::Zombie
                && alone.finding.resource.as_ref() == Some(&resource)
                && alone.ids == ids
                && alone.span.0 <= hi.saturating_add(HOLD_MS)
                && alone.span.1 >= lo.saturating_sub(HOLD_MS);
            if !fits {
                continue;
            }
            self.alone[a] = true;
            took = true;
            // its roles first: they say what each record proves
            added.splice(0..0, alone.finding.evidence.iter().cloned());
        }
        if added.is_empty() {
            return;
        }
        // one entry per record, in time order, after the log lines
        let mut seen = BTreeSet::new();
        added.retain(|e| seen.insert((e.line.source, e.line.line)));
        super::sort_evidence(&mut added);
        self.backed += 1;
        if took {
            self.merged += 1;
            f.reason = format!(
                "{}; the status topic shows it too",
                f.reason.trim_end_matches('.')
            );
        } else {
            let how = if overlap {
                "both runs, overlapping"
            } else {
                "both runs"
            };
            f.reason = format!(
                "{} (the status topic holds {how})",
                f.reason.trim_end_matches('.')
            );
        }
        f.evidence.extend(added);
    }

    /// A log's `stale-config-start` of a task started at a known config
    /// offset gains the config records of the snapshot it was started
    /// from ([`super::stale`]).
    fn stale_start(&mut self, f: &mut Finding) {
        let Some(Resource::Task(task)) = &f.resource else {
            return;
        };
        let Some(&n) = self.start_offsets.get(&(f.trigger.source, f.trigger.line)) else {
            return;
        };
        for t in &self.w.clusters {
            let Some((mut records, why)) = super::stale::backing(t, task, n) else {
                continue;
            };
            super::sort_evidence(&mut records);
            self.backed += 1;
            f.reason = format!("{}; {why}", f.reason.trim_end_matches('.'));
            f.evidence.extend(records);
            return;
        }
    }

    /// The status records of the two workers' runs of `resource` in
    /// cluster `c` (`first`: each worker id and the earliest of its lines
    /// in the finding): each worker's RUNNING, and the record closing the
    /// older run when it is stamped after the newer run's RUNNING (the
    /// topic showing the overlap, which this returns).
    fn runs_of(
        &self,
        c: usize,
        resource: &Resource,
        first: &BTreeMap<Arc<str>, i64>,
        out: &mut Vec<Evidence>,
    ) -> bool {
        let t = &self.w.clusters[c];
        let Some(entries) = self.w.timelines[c].resources.get(resource) else {
            return false;
        };
        let mut runs: Vec<(i64, usize, Option<usize>, &Arc<str>)> = Vec::new();
        for (id, &from) in first {
            if let Some((start, end)) = run_of(t, entries, id, from) {
                let ts = t.records[start].raw.timestamp.unwrap_or(i64::MIN);
                runs.push((ts, start, end, id));
            }
        }
        runs.sort_unstable();
        for &(_, start, _, id) in &runs {
            if let Some(s) = state_of(t, start) {
                let what = s.state.as_str();
                out.push(ev(
                    t,
                    start,
                    format!("{what} on {id}, generation {}", s.generation),
                ));
            }
        }
        let [(_, _, Some(end), id), (newer, ..)] = runs[..] else {
            return false;
        };
        let Some(s) = state_of(t, end) else {
            return false;
        };
        if t.records[end].raw.timestamp.is_none_or(|x| x <= newer) {
            return false;
        }
        out.push(ev(
            t,
            end,
            format!(
                "{} on {id} only now, at generation {}: the two runs overlap",
                s.state.as_str(),
                s.generation
            ),
        ));
        true
    }
}

fn ev(t: &Topics, i: usize, role: String) -> Evidence {
    t.ev(role, i)
}

#[cfg(test)]
mod tests;
