//! What a replay hands back: findings, a summary, and (on request) the
//! rebuilt state per generation for the replay view.

use crate::finding::{Finding, Kind};
use crate::model::{Assignment, Line, Protocol, Resource, SourceId, SourceLine};
use crate::rules::{StartReason, StopReason};
use std::collections::BTreeMap;

/// Something the replay could not know or had to assume, said plainly.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Note {
    pub line: Option<(SourceId, u64)>,
    pub text: String,
}

/// What identifies a worker (docs/rules.md, "Identity and groups"): its
/// advertised REST URL, else the member id the coordinator gave it, else an
/// explicit client id, else only the file it was read from
/// (`clientId=connect-1` is the same in every JVM).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Identity {
    RestUrl,
    MemberId,
    /// An explicit `client.id` (or the host:port default of Kafka 3.7+).
    ClientId,
    FilePath,
}

impl Identity {
    pub fn as_str(self) -> &'static str {
        match self {
            Identity::RestUrl => "rest-url",
            Identity::MemberId => "member-id",
            Identity::ClientId => "client-id",
            Identity::FilePath => "file-path",
        }
    }
}

/// A set of generation numbers, kept as sorted, disjoint, non-adjacent
/// ranges: a worker goes through runs of consecutive generations, so a log
/// followed for days costs a few ranges, not a number per rebalance.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenerationSet(Vec<(i32, i32)>);

impl GenerationSet {
    pub fn insert(&mut self, g: i32) {
        let v = &mut self.0;
        // The first range starting after `g`; the one before may hold it.
        let i = v.partition_point(|&(a, _)| a <= g);
        if i > 0 && v[i - 1].1 >= g {
            return;
        }
        let joins_prev = i > 0 && v[i - 1].1.checked_add(1) == Some(g);
        let joins_next = i < v.len() && g.checked_add(1) == Some(v[i].0);
        match (joins_prev, joins_next) {
            (true, true) => {
                v[i - 1].1 = v[i].1;
                v.remove(i);
            }
            (true, false) => v[i - 1].1 = g,
            (false, true) => v[i].0 = g,
            (false, false) => v.insert(i, (g, g)),
        }
    }

    /// The ranges, inclusive, in order.
    pub fn ranges(&self) -> &[(i32, i32)] {
        &self.0
    }

    /// The numbers, in order.
    pub fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        self.0.iter().flat_map(|&(a, b)| a..=b)
    }

    pub fn len(&self) -> u64 {
        self.0
            .iter()
            .map(|&(a, b)| (b as i64 - a as i64 + 1) as u64)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Counts and identity of one worker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkerSummary {
    pub worker: String,
    pub group: Option<String>,
    pub client_id: Option<String>,
    pub member_id: Option<String>,
    pub rest_url: Option<String>,
    pub kafka_cluster: Option<String>,
    pub identified_by: Identity,
    pub protocol: Option<Protocol>,
    /// Lifecycle events read.
    pub events: u64,
    /// Worker restarts seen (a new `Kafka Connect starting` after activity).
    pub restarts: u32,
    /// Assignment lines read.
    pub generations: u32,
    pub first_generation: Option<i32>,
    pub last_generation: Option<i32>,
    /// The generation numbers seen.
    pub generation_numbers: GenerationSet,
    pub starts: BTreeMap<StartReason, u64>,
    pub stops: BTreeMap<StopReason, u64>,
    pub findings: BTreeMap<Kind, u64>,
    pub time_reversals: u64,
    pub notes: Vec<Note>,
}

impl WorkerSummary {
    pub fn new(worker: &str) -> WorkerSummary {
        WorkerSummary {
            worker: worker.to_string(),
            group: None,
            client_id: None,
            member_id: None,
            rest_url: None,
            kafka_cluster: None,
            identified_by: Identity::FilePath,
            protocol: None,
            events: 0,
            restarts: 0,
            generations: 0,
            first_generation: None,
            last_generation: None,
            generation_numbers: GenerationSet::default(),
            starts: BTreeMap::new(),
            stops: BTreeMap::new(),
            findings: BTreeMap::new(),
            time_reversals: 0,
            notes: Vec::new(),
        }
    }
}

/// The rebuilt state of one generation on one worker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenerationRecord {
    pub generation: Option<i32>,
    pub protocol: Option<Protocol>,
    pub line: SourceLine,
    pub error: i32,
    pub leader: String,
    pub leader_url: String,
    pub offset: i64,
    pub delay: Option<i64>,
    pub assigned: Vec<Resource>,
    pub revoked: Vec<Resource>,
    /// Config offset the start phase used (`Starting … using config offset O`).
    pub start_offset: Option<i64>,
    /// The worker's known config snapshot offset when work started.
    pub config_offset: Option<i64>,
    pub started: Vec<Resource>,
    pub stopped: Vec<Resource>,
    pub stop_reasons: Vec<StopReason>,
    /// Running after the start phase (or when the next rebalance began).
    pub running: Option<Vec<Resource>>,
    /// `running` is the whole running set (the log showed the worker's
    /// start or an eager rebalance); otherwise more may run unseen.
    pub running_complete: bool,
}

impl GenerationRecord {
    pub fn new(
        generation: Option<i32>,
        protocol: Option<Protocol>,
        a: &Assignment,
        line: &Line,
    ) -> GenerationRecord {
        GenerationRecord {
            generation,
            protocol,
            line: line.keep(),
            error: a.error,
            leader: a.leader.clone(),
            leader_url: a.leader_url.clone(),
            offset: a.offset,
            delay: a.delay,
            assigned: a.resources().collect(),
            revoked: a.revoked().collect(),
            start_offset: None,
            config_offset: None,
            started: Vec::new(),
            stopped: Vec::new(),
            stop_reasons: Vec::new(),
            running: None,
            running_complete: false,
        }
    }
}

/// Everything one worker's replay produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkerReport {
    pub summary: WorkerSummary,
    pub findings: Vec<Finding>,
    pub generations: Vec<GenerationRecord>,
    /// The worker's timeline, when the replay recorded one.
    pub timeline: Option<super::timeline::Timeline>,
}

#[cfg(test)]
mod tests {
    use super::GenerationSet;

    #[test]
    fn generation_sets_keep_runs_as_ranges() {
        let mut s = GenerationSet::default();
        for g in [5, 6, 7, 7, 9, 1, 8, 3, 2, i32::MAX, i32::MIN] {
            s.insert(g);
        }
        assert_eq!(
            s.ranges(),
            [(i32::MIN, i32::MIN), (1, 3), (5, 9), (i32::MAX, i32::MAX)]
        );
        assert_eq!(s.len(), 10);
        assert_eq!(s.iter().skip(1).take(4).collect::<Vec<_>>(), [1, 2, 3, 5]);
        s.insert(4);
        assert_eq!(s.ranges()[1], (1, 9));
    }
}
