//! The status topic kept bounded in a long-running audit (`herder-audit
//! watch --bootstrap`): a watcher reads every status record for months,
//! and the witness it renews at each poll would otherwise hold (and replay)
//! all of them. The records stamped more than [`HORIZON_MS`] before the
//! run's log time are compacted to the state they leave behind, which is
//! all a later record or log line can still meet:
//!
//! * per connector or task, the RUNNING record of each run still open (a
//!   worker's RUNNING not yet closed by its UNASSIGNED, FAILED, PAUSED,
//!   STOPPED or DESTROYED, nor by a tombstone): the zombie rules pair a
//!   new record only with open runs ([`super::check`]), and a log's start
//!   meets only its worker's latest run ([`super::cross`]);
//! * per connector or task, its latest record: what the REST API shows,
//!   which the disagreement checks compare with the logs
//!   ([`super::disagree`]);
//! * per worker, its record at the highest generation it wrote (the later
//!   one on a tie) and, if it is a RUNNING whose run ended, the record that
//!   ended it (a close, a tombstone, or the worker's next RUNNING of it,
//!   and so on): the zombie rules ask whether a worker's generation went
//!   back (a new process) against the highest it wrote before;
//! * every config record, every status record of a topic a connector used,
//!   and every record without a time stamp.
//!
//! What is lost: a finding that needs two records more than the horizon
//! apart. The zombie rule Z1 waits for a later record to show the group at
//! the newer generation; it comes at the next rebalance, seconds later, not
//! an hour. A record older than the horizon is never again the trigger of a
//! finding of the topics alone ([`super::cross::Cross::renewed`]): its
//! findings were handed on when it was read.

use super::record::{Body, Record, StateKind, Status};
use super::status::ends_run;
use crate::model::Resource;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// How far behind the run's log time a status record is compacted: far
/// past the longest hold of a finding ([`super::cross::HOLD_MS`]), the
/// disagreement's settling time and the clock slack between two hosts.
pub const HORIZON_MS: i64 = 3_600_000;

/// Which of `records` (in reading order) a live run keeps when those
/// stamped before `cut` are compacted (see the module's doc): their
/// indexes, in order.
pub fn kept(records: &[Record], cut: i64) -> Vec<usize> {
    type Topic = Option<Arc<str>>;
    let mut keep: HashSet<usize> = HashSet::new();
    // per topic and resource: each worker's open run, and the latest record
    let mut open: HashMap<(Topic, Resource), BTreeMap<Arc<str>, usize>> = HashMap::new();
    let mut latest: HashMap<(Topic, Resource), usize> = HashMap::new();
    // per topic and worker: the record at its highest generation
    let mut highest: HashMap<(Topic, Arc<str>), (i32, usize)> = HashMap::new();
    // a run's RUNNING → the record that ended it: its close, a tombstone,
    // or the same worker's next RUNNING (which opens a run of its own)
    let mut ended_by: HashMap<usize, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let old = r.raw.timestamp.is_some_and(|ts| ts < cut);
        let (resource, state) = match &r.body {
            Body::Status(Status::Connector { name, state }) if old => {
                (Resource::Connector(name.clone()), state)
            }
            Body::Status(Status::Task { task, state }) if old => {
                (Resource::Task(task.clone()), state)
            }
            _ => {
                keep.insert(i);
                continue;
            }
        };
        let topic = r.raw.at.topic.clone();
        let key = (topic.clone(), resource);
        latest.insert(key.clone(), i);
        let runs = open.entry(key).or_default();
        let Some(s) = state else {
            for (_, run) in std::mem::take(runs) {
                ended_by.insert(run, i);
            }
            continue;
        };
        let h = highest
            .entry((topic, s.worker.clone()))
            .or_insert((s.generation, i));
        if s.generation >= h.0 {
            *h = (s.generation, i);
        }
        if s.state == StateKind::Running {
            if let Some(run) = runs.insert(s.worker.clone(), i) {
                ended_by.insert(run, i);
            }
        } else if ends_run(&s.state)
            && let Some(run) = runs.remove(&s.worker)
        {
            ended_by.insert(run, i);
        }
    }
    keep.extend(open.values().flat_map(|runs| runs.values().copied()));
    keep.extend(latest.values().copied());
    // a worker's highest record, if a RUNNING since ended, is kept with
    // what ended it (and so on): kept alone, it would open a run the
    // worker no longer has
    for &(_, mut i) in highest.values() {
        keep.insert(i);
        while let Some(&e) = ended_by.get(&i) {
            keep.insert(e);
            i = e;
        }
    }
    let mut v: Vec<usize> = keep.into_iter().collect();
    v.sort_unstable();
    v
}

/// `records` with those stamped before `cut` compacted ([`kept`]).
pub fn compact(records: Vec<Record>, cut: i64) -> Vec<Record> {
    let keep = kept(&records, cut);
    let mut next = keep.iter().copied().peekable();
    records
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| {
            (next.peek() == Some(&i)).then(|| {
                next.next();
                r
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
