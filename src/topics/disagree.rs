//! Witnesses that disagree (docs/topics.md, "witnesses-disagree"): the
//! status topic keeps a connector or task in a state the logs prove wrong
//! while the logs go on.
//!
//! * **UNASSIGNED kept while another worker runs it**: the latest status
//!   record of R is worker X's UNASSIGNED, stamped after worker Y's log
//!   started R, and Y's log still shows R running at least
//!   [`SETTLE_MS`] after that record (an assignment holding R, or R's
//!   stop), no other status record of R written in between: the REST API
//!   said R was unassigned while Y ran it. (A worker cut off from the
//!   cluster writes its revocation's UNASSIGNED when the partition heals,
//!   after the new owner's RUNNING.)
//! * **RUNNING kept on a worker that stopped it**: the latest status
//!   record of R is worker X's RUNNING, stamped before X's log stopped R,
//!   and X's log goes on: an assignment at least [`SETTLE_MS`] after the
//!   stop that does not hold R, no status record of R written since: X's
//!   UNASSIGNED was never written (suppressed, or lost).
//!
//! Both are bounded by what the log proves after the record: a worker
//! shutting down writes its last UNASSIGNED (or has it suppressed) in some
//! order with the others' at the end of every run, and its log ends there;
//! a disagreement that lasts only until the logs end is not reported.
//! This is a Kafka-side inconsistency (a warning): no connector or task
//! ran where it should not.

use super::check::Topics;
use super::record::{Body, State, StateKind, Status};
use super::status::Timelines;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceId, SourceLine};
use crate::replay::FactKind;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How long the logs must show the disagreement past the record (or the
/// stop) before it is reported: longer than a worker's shutdown takes to
/// reach the next status write, and than a rebalance takes to start what
/// it moved.
pub const SETTLE_MS: i64 = 20_000;

/// A log's instance of a resource: the line it runs since (its start, or
/// the assignment it is held at), and its stop once stopped.
#[derive(Debug, Clone)]
struct Instance {
    start: SourceLine,
    stop: Option<SourceLine>,
}

/// What the checks read of the witness: each cluster's records and status
/// timelines.
#[derive(Clone, Copy)]
pub struct Seen<'a> {
    pub clusters: &'a [Topics],
    pub timelines: &'a [Timelines],
}

/// The disagreement check's state during the run.
#[derive(Debug, Default)]
pub struct Disagree {
    /// Per cluster and resource: its latest status record fed (records
    /// come in time-stamp order).
    latest: HashMap<(u32, Resource), usize>,
    /// Per worker id and resource: the log's latest instance.
    instances: HashMap<(Arc<str>, Resource), Instance>,
    /// Records already reported as disagreeing, by their lines (a live
    /// run's witness renewed keeps the lines, not the places).
    reported: HashSet<(SourceId, u64)>,
}

fn status_of(t: &Topics, i: usize) -> Option<(Resource, Option<&State>)> {
    match &t.records.get(i)?.body {
        Body::Status(Status::Connector { name, state }) => {
            Some((Resource::Connector(name.clone()), state.as_ref()))
        }
        Body::Status(Status::Task { task, state }) => {
            Some((Resource::Task(task.clone()), state.as_ref()))
        }
        _ => None,
    }
}

/// Record `i`'s input line.
fn place(t: &Topics, i: usize) -> (SourceId, u64) {
    let l = &t.records[i].raw.line;
    (l.source, l.line)
}

fn ts(line: &SourceLine) -> Option<i64> {
    line.ts.map(|t| t.0)
}

fn line_ev(role: &str, line: &SourceLine) -> Evidence {
    Evidence {
        role: role.into(),
        worker: None,
        line: line.clone(),
        record: None,
    }
}

impl Disagree {
    /// The records fed so far are fed again (a renewed witness): the
    /// latest per resource is rebuilt from them.
    pub fn renew(&mut self) {
        self.latest.clear();
    }

    /// Status record `record` of cluster `cluster` was fed.
    pub fn record(&mut self, w: Seen<'_>, cluster: u32, record: u32) {
        let Some(t) = w.clusters.get(cluster as usize) else {
            return;
        };
        if let Some((r, _)) = status_of(t, record as usize) {
            self.latest.insert((cluster, r), record as usize);
        }
    }

    /// A fact of the log of worker `id` (its REST worker id), at `line`:
    /// the disagreements it proves.
    pub fn fact(
        &mut self,
        w: Seen<'_>,
        id: &Arc<str>,
        kind: &FactKind,
        line: &SourceLine,
    ) -> Vec<(Resource, Vec<Evidence>, String)> {
        let mut out = Vec::new();
        match kind {
            FactKind::Start { resource, .. } => {
                self.instances.insert(
                    (id.clone(), resource.clone()),
                    Instance {
                        start: line.clone(),
                        stop: None,
                    },
                );
            }
            FactKind::Held { resources, since } => {
                for r in resources {
                    self.open(id, r, since);
                }
            }
            FactKind::Stop { resource, .. } => {
                let key = (id.clone(), resource.clone());
                if let Some(i) = self.instances.get(&key).filter(|i| i.stop.is_none()) {
                    let start = i.start.clone();
                    out.extend(self.unassigned_kept(w, id, resource, &start, line, "stopped"));
                }
                if let Some(i) = self.instances.get_mut(&key) {
                    i.stop.get_or_insert_with(|| line.clone());
                }
            }
            FactKind::Assignment { live, .. } => {
                for (r, since) in live {
                    self.open(id, r, since);
                    let start = self.instances[&(id.clone(), r.clone())].start.clone();
                    out.extend(self.unassigned_kept(w, id, r, &start, line, "held"));
                }
                let stopped: Vec<(Resource, SourceLine)> = self
                    .instances
                    .iter()
                    .filter(|((i, r), _)| i == id && !live.iter().any(|(l, _)| l == r))
                    .filter_map(|((_, r), inst)| inst.stop.clone().map(|s| (r.clone(), s)))
                    .collect();
                for (r, stop) in stopped {
                    out.extend(self.running_kept(w, id, &r, &stop, line));
                }
            }
            FactKind::Reset | FactKind::End => {
                self.instances.retain(|(i, _), _| i != id);
            }
            _ => {}
        }
        // the same order however the maps iterate
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Worker `id` runs `r` since `since` (the line an assignment names)
    /// unless its log already shows an instance running.
    fn open(&mut self, id: &Arc<str>, r: &Resource, since: &SourceLine) {
        let key = (id.clone(), r.clone());
        match self.instances.get_mut(&key) {
            Some(i) if i.stop.is_none() => {}
            _ => {
                self.instances.insert(
                    key,
                    Instance {
                        start: since.clone(),
                        stop: None,
                    },
                );
            }
        }
    }

    /// Worker `id`'s log runs `r` since `start` and still does at `proof`
    /// (an assignment holding it, or its stop): the latest status record of
    /// `r` an UNASSIGNED of another worker, stamped after `start` and at
    /// least [`SETTLE_MS`] before `proof`.
    fn unassigned_kept(
        &mut self,
        w: Seen<'_>,
        id: &Arc<str>,
        r: &Resource,
        start: &SourceLine,
        proof: &SourceLine,
        how: &str,
    ) -> Option<(Resource, Vec<Evidence>, String)> {
        let (s0, p) = (ts(start)?, ts(proof)?);
        for (c, t) in w.clusters.iter().enumerate() {
            let Some(&l) = self.latest.get(&(c as u32, r.clone())) else {
                continue;
            };
            let Some((_, Some(st))) = status_of(t, l) else {
                continue;
            };
            let Some(lt) = t.records[l].raw.timestamp else {
                continue;
            };
            let fits = st.state == StateKind::Unassigned
                && st.worker != *id
                && lt > s0
                && p >= lt.saturating_add(SETTLE_MS);
            if !fits || !self.reported.insert(place(t, l)) {
                continue;
            }
            let mut ev = vec![
                line_ev(&format!("{r} started here"), start),
                line_ev(
                    &format!(
                        "{how} here, {} s after the record: still running",
                        (p - lt) / 1000
                    ),
                    proof,
                ),
            ];
            if let Some(run) = own_running(t, w, c, r, id, l) {
                ev.push(t.ev(format!("RUNNING on {id}, generation {}", run.1), run.0));
            }
            ev.push(t.ev(
                format!(
                    "UNASSIGNED on {}, generation {}: the latest status of {r}",
                    st.worker, st.generation
                ),
                l,
            ));
            let reason = format!(
                "the status topic holds {r} UNASSIGNED (written by worker {} at generation {}) while this worker's log runs it, {} s on with no status record since: the two witnesses disagree (the REST API reports it unassigned)",
                st.worker,
                st.generation,
                (p - lt) / 1000
            );
            return Some((r.clone(), ev, reason));
        }
        None
    }

    /// Worker `id`'s log stopped `r` at `stop` and, at `proof` (an
    /// assignment at least [`SETTLE_MS`] later), does not hold it: the
    /// latest status record of `r` its own RUNNING, stamped before the
    /// stop.
    fn running_kept(
        &mut self,
        w: Seen<'_>,
        id: &Arc<str>,
        r: &Resource,
        stop: &SourceLine,
        proof: &SourceLine,
    ) -> Option<(Resource, Vec<Evidence>, String)> {
        let (s, p) = (ts(stop)?, ts(proof)?);
        if p < s.saturating_add(SETTLE_MS) {
            return None;
        }
        for (c, t) in w.clusters.iter().enumerate() {
            let Some(&l) = self.latest.get(&(c as u32, r.clone())) else {
                continue;
            };
            let Some((_, Some(st))) = status_of(t, l) else {
                continue;
            };
            let fits = st.state == StateKind::Running
                && st.worker == *id
                && t.records[l].raw.timestamp.is_some_and(|x| x <= s);
            if !fits || !self.reported.insert(place(t, l)) {
                continue;
            }
            let ev = vec![
                t.ev(
                    format!(
                        "RUNNING on {id}, generation {}: the latest status of {r}",
                        st.generation
                    ),
                    l,
                ),
                line_ev(&format!("{r} stopped here"), stop),
                line_ev(
                    &format!(
                        "{} s later this worker's assignment does not hold it",
                        (p - s) / 1000
                    ),
                    proof,
                ),
            ];
            let reason = format!(
                "the status topic holds {r} RUNNING on this worker (generation {}) while its log stopped it {} s before and goes on without it, no status record since: the two witnesses disagree (the REST API reports it running here)",
                st.generation,
                (p - s) / 1000
            );
            return Some((r.clone(), ev, reason));
        }
        None
    }
}

/// Worker `id`'s latest RUNNING of `r` among the records fed before `l`
/// (in the resource's topic order), with its generation.
fn own_running(
    t: &Topics,
    w: Seen<'_>,
    c: usize,
    r: &Resource,
    id: &Arc<str>,
    l: usize,
) -> Option<(usize, i32)> {
    let entries = w.timelines.get(c)?.resources.get(r)?;
    let lt = t.records[l].raw.timestamp;
    entries
        .iter()
        .filter(|e| t.records[e.at].raw.timestamp <= lt && e.at != l)
        .filter_map(|e| e.state.as_ref().map(|s| (e.at, s)))
        .filter(|(_, s)| s.worker == *id && s.state == StateKind::Running)
        .map(|(at, s)| (at, s.generation))
        .next_back()
}

/// A disagreement as a finding of worker `label`'s log.
pub fn finding(
    label: &Arc<str>,
    group: Option<&Arc<str>>,
    proof: &SourceLine,
    (resource, evidence, reason): (Resource, Vec<Evidence>, String),
) -> Finding {
    let (lines, records): (Vec<Evidence>, Vec<Evidence>) =
        evidence.into_iter().partition(|e| e.record.is_none());
    let mut f = Finding {
        kind: Kind::WitnessesDisagree,
        worker: label.clone(),
        group: group.cloned(),
        generation: None,
        resource: Some(resource),
        started: Vec::new(),
        trigger: proof.clone(),
        evidence: lines,
        reason,
        upstream: None,
        fingerprint: None,
    };
    f.normalise();
    f.evidence.extend(records);
    f
}

#[cfg(test)]
mod tests;
