//! The interruptions checked against what the cluster recorded: a real
//! capture's `checker.json` (docs/real-kafka.md, "The checker") lists, per
//! counting task, its gaps (no instance producing for 300 ms or more) and
//! its handovers (each new instance after the one before, with the pause
//! between them, however short), on the broker's clock. Per task, the
//! interruptions found are matched with the gaps in time: recall (gaps
//! found), precision (interruptions that were real: a gap or a handover),
//! and the error of each matched interruption's length against its gap.

use super::{Interruption, Isolation};
use crate::model::Resource;
use serde_json::Value;
use std::collections::HashMap;

/// Two intervals this close (ms) or overlapping are the same event.
const MATCH_SLACK_MS: i64 = 1_000;

/// One capture's comparison.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Gaps of the counting tasks across a change of instance (a stop or
    /// a death, and a start): interruptions of the task's life cycle.
    pub gaps: usize,
    /// Gaps within one instance (it paused and went on: a stall of the
    /// producer, a freeze shorter than the session): no start or stop to
    /// read in any log, so not counted in the recall.
    pub stalls: usize,
    /// Stalls an interruption matched nonetheless.
    pub stalls_found: usize,
    /// Gaps an interruption matched.
    pub gaps_found: usize,
    /// Interruptions (closed) of counting tasks, between their first and
    /// last record.
    pub interruptions: usize,
    /// Of those, matched to a gap or a handover.
    pub real: usize,
    /// Absolute error of each matched interruption's length against its
    /// gap, ms.
    pub errors_ms: Vec<i64>,
    /// Gaps no interruption matched: (task, start, ms).
    pub missed: Vec<(String, String, i64)>,
    /// Interruptions that matched nothing: (task, worker, line).
    pub unreal: Vec<(String, String, u64)>,
}

impl Comparison {
    pub fn recall(&self) -> Option<f64> {
        (self.gaps > 0).then(|| self.gaps_found as f64 / self.gaps as f64)
    }

    pub fn precision(&self) -> Option<f64> {
        (self.interruptions > 0).then(|| self.real as f64 / self.interruptions as f64)
    }

    /// The `q` quantile (0..=1, nearest rank) of the errors.
    pub fn error_quantile(&self, q: f64) -> Option<i64> {
        quantile(&self.errors_ms, q)
    }

    pub fn add(&mut self, o: &Comparison) {
        self.gaps += o.gaps;
        self.stalls += o.stalls;
        self.stalls_found += o.stalls_found;
        self.gaps_found += o.gaps_found;
        self.interruptions += o.interruptions;
        self.real += o.real;
        self.errors_ms.extend(&o.errors_ms);
        self.missed.extend(o.missed.iter().cloned());
        self.unreal.extend(o.unreal.iter().cloned());
    }
}

/// The nearest-rank quantile of `v`.
pub fn quantile(v: &[i64], q: f64) -> Option<i64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    let rank = ((q * s.len() as f64).ceil() as usize).clamp(1, s.len());
    Some(s[rank - 1])
}

/// The run's name of a worker (`w2`) from its label (a path with a `wN`
/// directory, as the harness lays captures out).
fn worker_name(label: &str) -> Option<&str> {
    label
        .split(['/', '\\'])
        .find(|c| c.len() > 1 && c.starts_with('w') && c[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// An interval on the broker's clock.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: i64,
    end: i64,
}

impl Span {
    fn meets(self, o: Span) -> bool {
        self.start <= o.end + MATCH_SLACK_MS && o.start <= self.end + MATCH_SLACK_MS
    }

    fn distance(self, o: Span) -> i64 {
        (self.start - o.start).abs() + (self.end - o.end).abs()
    }
}

/// Compares `iso` with a capture's parsed `checker.json`.
pub fn compare(iso: &Isolation, checker: &Value) -> Comparison {
    // Each worker's clock offset (broker minus worker), per worker name.
    let mut offset: HashMap<&str, i64> = HashMap::new();
    for c in checker["clocks"].as_array().into_iter().flatten() {
        if let (Some(w), Some(o)) = (c["worker"].as_str(), c["offset_ms"].as_i64()) {
            offset.entry(w).or_insert(o);
        }
    }
    let on_broker = |label: &str, ts: i64| -> i64 {
        ts + worker_name(label)
            .and_then(|w| offset.get(w))
            .copied()
            .unwrap_or(0)
    };
    let mut out = Comparison::default();
    let Some(tasks) = checker["tasks"].as_object() else {
        return out;
    };
    let mut by_task: HashMap<String, Vec<&Interruption>> = HashMap::new();
    for i in &iso.interruptions {
        if let (Resource::Task(t), Some(_)) = (&i.resource, &i.to) {
            by_task.entry(t.to_string()).or_default().push(i);
        }
    }
    for (task, t) in tasks {
        let span = |a: &Value, b: &Value| {
            Some(Span {
                start: a.as_i64()?,
                end: b.as_i64()?,
            })
        };
        let gaps: Vec<(Span, i64, String, bool)> = t["gaps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| {
                Some((
                    span(&g["start_ms"], &g["end_ms"])?,
                    g["ms"].as_i64()?,
                    g["start"].as_str().unwrap_or("").to_string(),
                    g["same_instance"].as_bool().unwrap_or(false),
                ))
            })
            .collect();
        let handovers: Vec<Span> = t["handovers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| span(&h["last_ms"], &h["first_ms"]))
            .collect();
        // Before the task's first record or after its last, the records
        // can neither confirm nor refute an interruption.
        let (first, last) = (
            t["first_ms"].as_i64().unwrap_or(i64::MIN),
            t["last_ms"].as_i64().unwrap_or(i64::MAX),
        );
        let found: Vec<(Span, i64, &Interruption)> = by_task
            .get(task)
            .into_iter()
            .flatten()
            .filter_map(|i| {
                let to = i.to.as_ref()?;
                let end_line = i.running.as_ref().unwrap_or(&to.line);
                // What herder-audit claims: the end, and the length.
                let b = on_broker(&to.worker, end_line.ts?.0);
                let ms = i.ms?;
                Some((
                    Span {
                        start: b - ms,
                        end: b,
                    },
                    ms,
                    *i,
                ))
            })
            .filter(|(s, _, _)| s.end > first && s.start < last)
            .collect();
        out.interruptions += found.len();
        // Each gap, in time order, takes the nearest interruption not taken.
        let mut taken = vec![false; found.len()];
        for (g, ms, start, stall) in &gaps {
            if *stall {
                out.stalls += 1;
            } else {
                out.gaps += 1;
            }
            let best = found
                .iter()
                .enumerate()
                .filter(|(k, (s, _, _))| !taken[*k] && s.meets(*g))
                .min_by_key(|(_, (s, _, _))| s.distance(*g));
            match best {
                Some((k, (_, found_ms, _))) => {
                    taken[k] = true;
                    if *stall {
                        out.stalls_found += 1;
                    } else {
                        out.gaps_found += 1;
                    }
                    out.errors_ms.push((found_ms - ms).abs());
                }
                None if *stall => {}
                None => out.missed.push((task.clone(), start.clone(), *ms)),
            }
        }
        for (k, (s, _, i)) in found.iter().enumerate() {
            if taken[k] || handovers.iter().any(|h| s.meets(*h)) {
                out.real += 1;
            } else {
                out.unreal
                    .push((task.clone(), i.from.worker.to_string(), i.from.line.line));
            }
        }
    }
    out.missed.sort();
    out.unreal.sort();
    out
}
