//! What the topics witnessed in a run, for the reports: [`Summary`], made
//! by [`Cross::summary`] once the run is over.

use super::Cross;
use crate::topics::Role;
use crate::topics::record::StateKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

impl Cross {
    /// What the topics witnessed, beside the logs read (`logs`: whether
    /// the run read any).
    pub fn summary(&self, logs: bool, log_ids: &BTreeSet<String>) -> Summary {
        let mut s = Summary {
            clusters: self.w.clusters.len() as u64,
            skipped: self.w.skipped,
            merged: self.merged,
            backed: self.backed,
            alone: self.handed,
            logs,
            ..Summary::default()
        };
        for t in &self.w.clusters {
            s.repeated += t.repeated as u64;
            for r in &t.records {
                *s.records.entry(r.role()).or_default() += 1;
            }
            let tl = t.timelines();
            let mut seen: BTreeMap<Arc<str>, StatusWorker> = BTreeMap::new();
            for (resource, entries) in &tl.resources {
                for e in entries {
                    let Some(st) = &e.state else { continue };
                    let w = seen
                        .entry(st.worker.clone())
                        .or_insert_with(|| StatusWorker {
                            id: st.worker.to_string(),
                            log: log_ids.contains(&*st.worker),
                            generations: (st.generation, st.generation),
                            ran: Vec::new(),
                            findings: Vec::new(),
                        });
                    w.generations.0 = w.generations.0.min(st.generation);
                    w.generations.1 = w.generations.1.max(st.generation);
                    // resources in their order, each once
                    let r = resource.to_string();
                    if st.state == StateKind::Running && w.ran.last() != Some(&r) {
                        w.ran.push(r);
                    }
                }
            }
            s.workers.extend(seen.into_values());
        }
        s.workers.sort_by(|a, b| a.id.cmp(&b.id));
        for alone in &self.w.alone {
            for w in &mut s.workers {
                if !w.log && alone.ids.contains(w.id.as_str()) {
                    let r = alone
                        .finding
                        .resource
                        .as_ref()
                        .map_or(String::new(), |r| r.to_string());
                    w.findings
                        .push(format!("{} {r}", alone.finding.kind.as_str()));
                }
            }
        }
        for w in &mut s.workers {
            w.findings.dedup();
        }
        s.absent = s.absent().map(|w| w.id.clone()).collect();
        s
    }
}

/// What the topics witnessed in a run (docs/topics.md, "An incomplete
/// archive"); serialised as the JSON report's `topics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Clusters told apart by their topics' names.
    pub clusters: u64,
    /// Records read per topic role.
    pub records: BTreeMap<Role, u64>,
    /// Records read twice (two dumps of one topic) and counted once.
    #[serde(rename = "records_read_twice")]
    pub repeated: u64,
    /// Records skipped as unreadable.
    #[serde(rename = "records_skipped")]
    pub skipped: u64,
    /// Whether logs were audited beside the topics.
    #[serde(rename = "with_logs")]
    pub logs: bool,
    /// Every worker the status topic names.
    pub workers: Vec<StatusWorker>,
    /// The workers the status topic shows running work whose logs are
    /// absent (only when logs were read).
    #[serde(rename = "absent_logs")]
    pub absent: Vec<String>,
    /// Findings of the topics alone handed on (not taken in by a log
    /// finding).
    #[serde(rename = "findings_of_the_topics_alone")]
    pub alone: u64,
    /// Log findings that took in a finding of the topics alone.
    #[serde(rename = "log_findings_that_took_in_a_topics_finding")]
    pub merged: u64,
    /// Log findings that gained records.
    #[serde(rename = "log_findings_backed_by_records")]
    pub backed: u64,
}

/// A worker the status topic names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusWorker {
    /// Its `worker_id`.
    #[serde(rename = "worker_id")]
    pub id: String,
    /// Whether its log was read (a log whose REST URL names it).
    #[serde(rename = "log_read")]
    pub log: bool,
    /// The lowest and highest generation it wrote at.
    pub generations: (i32, i32),
    /// What it wrote RUNNING for (`connector c`, `task c-0`).
    pub ran: Vec<String>,
    /// Without its log: the findings the topics prove about it alone
    /// (what the logs could not check).
    #[serde(rename = "unchecked_findings")]
    pub findings: Vec<String>,
}

impl Summary {
    /// Workers the status topic shows running work whose logs are absent
    /// (only when logs were read).
    pub fn absent(&self) -> impl Iterator<Item = &StatusWorker> {
        self.workers
            .iter()
            .filter(|w| self.logs && !w.log && !w.ran.is_empty())
    }
}
