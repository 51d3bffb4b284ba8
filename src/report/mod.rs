//! Printers: text diagnostics, JSON, JSON lines, and the replay view. They
//! read a [`Report`] and know nothing of parsing.

pub mod html;
pub mod html_timeline;
pub mod isolation;
mod isolation_json;
pub mod json;
mod json_bytes;
mod json_out;
mod quote;
pub mod sinks;
pub mod text;

use crate::audit::Report;
use crate::finding::{Kind, Severity};
use crate::rules::{StartReason, StopReason};
use std::collections::{BTreeMap, BTreeSet};

/// Totals over the whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    pub inputs: usize,
    pub bytes: u64,
    pub lines: u64,
    pub workers: usize,
    /// Clusters: distinct group ids (told apart by Kafka cluster id when
    /// the logs name one).
    pub groups: usize,
    /// Distinct generations across the clusters.
    pub rebalances: usize,
    /// Assignment lines read.
    pub generations: u64,
    pub errors: usize,
    pub errors_found: usize,
    pub warnings_found: usize,
    pub by_kind: BTreeMap<Kind, u64>,
    pub starts: BTreeMap<StartReason, u64>,
    pub stops: BTreeMap<StopReason, u64>,
}

impl RunSummary {
    pub fn of(report: &Report) -> RunSummary {
        let mut s = RunSummary {
            inputs: report.inputs.len(),
            bytes: report.inputs.iter().map(|i| i.bytes).sum(),
            lines: report.inputs.iter().map(|i| i.lines).sum(),
            workers: report.workers.len(),
            errors: report.errors.len(),
            ..RunSummary::default()
        };
        let mut groups = BTreeSet::new();
        // Per cluster, the generation ranges of its workers.
        let mut rebalances: BTreeMap<_, Vec<(i32, i32)>> = BTreeMap::new();
        for w in &report.workers {
            let ws = &w.summary;
            let cluster = (ws.group.clone(), ws.kafka_cluster.clone());
            if ws.group.is_some() {
                groups.insert(cluster.clone());
            }
            rebalances
                .entry(cluster)
                .or_default()
                .extend_from_slice(ws.generation_numbers.ranges());
            s.generations += u64::from(ws.generations);
            for (k, n) in &ws.starts {
                *s.starts.entry(*k).or_default() += n;
            }
            for (k, n) in &ws.stops {
                *s.stops.entry(*k).or_default() += n;
            }
        }
        s.groups = groups.len();
        s.rebalances = rebalances.into_values().map(distinct_in).sum();
        for (k, n) in &report.counts {
            *s.by_kind.entry(*k).or_default() += n;
            match k.severity() {
                Severity::Error => s.errors_found += *n as usize,
                Severity::Warning => s.warnings_found += *n as usize,
            }
        }
        s
    }
}

/// How many numbers the inclusive ranges cover together.
fn distinct_in(mut ranges: Vec<(i32, i32)>) -> usize {
    ranges.sort_unstable();
    let mut n = 0i64;
    let mut end: Option<i32> = None;
    for (a, b) in ranges {
        let from = match end {
            Some(e) if e >= b => continue,
            Some(e) if e >= a => e as i64 + 1,
            _ => a as i64,
        };
        n += b as i64 - from + 1;
        end = Some(b);
    }
    n as usize
}

#[cfg(test)]
mod tests {
    #[test]
    fn distinct_generations_over_workers() {
        assert_eq!(super::distinct_in(vec![]), 0);
        assert_eq!(super::distinct_in(vec![(1, 3), (2, 5), (4, 4), (9, 9)]), 6);
        assert_eq!(super::distinct_in(vec![(7, 9), (1, 2), (1, 9)]), 9);
    }
}
