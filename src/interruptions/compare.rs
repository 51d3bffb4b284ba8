//! The interruptions checked against what the cluster recorded: a real
//! capture's `checker.json` (docs/real-kafka.md, "The checker") lists, per
//! counting task, its gaps (no instance producing for 300 ms or more) and
//! its handovers (each new instance after the one before, with the pause
//! between them, however short), on the broker's clock. Per task, the
//! interruptions found are matched with the gaps in time (gaps first, then
//! stalls, as many as can be: `assign`): recall (gaps found), precision
//! (interruptions that were real: a gap or a handover), and the error of
//! each matched interruption's length against its gap.

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

/// A gap in a counting task's records (or a stall, within one instance).
#[derive(Debug)]
struct Gap {
    span: Span,
    ms: i64,
    start: String,
    stall: bool,
}

/// What herder-audit claims for one of the task's closed interruptions:
/// its span on the broker's clock, its length, and the interruption.
struct Claim<'a> {
    span: Span,
    ms: i64,
    it: &'a Interruption,
}

/// Each worker's clock offset (broker minus worker), per worker name.
fn clock_offsets(checker: &Value) -> HashMap<&str, i64> {
    let mut offset = HashMap::new();
    for c in checker["clocks"].as_array().into_iter().flatten() {
        if let (Some(w), Some(o)) = (c["worker"].as_str(), c["offset_ms"].as_i64()) {
            offset.entry(w).or_insert(o);
        }
    }
    offset
}

fn span(a: &Value, b: &Value) -> Option<Span> {
    Some(Span {
        start: a.as_i64()?,
        end: b.as_i64()?,
    })
}

/// A task's gaps and stalls, in the checker's order.
fn gaps_of(t: &Value) -> Vec<Gap> {
    t["gaps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| {
            Some(Gap {
                span: span(&g["start_ms"], &g["end_ms"])?,
                ms: g["ms"].as_i64()?,
                start: g["start"].as_str().unwrap_or("").to_string(),
                stall: g["same_instance"].as_bool().unwrap_or(false),
            })
        })
        .collect()
}

fn handovers_of(t: &Value) -> Vec<Span> {
    t["handovers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| span(&h["last_ms"], &h["first_ms"]))
        .collect()
}

/// The task's closed interruptions on the broker's clock, those that end
/// after its first record and begin before its last (outside, the records
/// can neither confirm nor refute one).
fn claims<'a>(
    found: &[&'a Interruption],
    t: &Value,
    offset: &HashMap<&str, i64>,
) -> Vec<Claim<'a>> {
    let (first, last) = (
        t["first_ms"].as_i64().unwrap_or(i64::MIN),
        t["last_ms"].as_i64().unwrap_or(i64::MAX),
    );
    found
        .iter()
        .filter_map(|&it| {
            let to = it.to.as_ref()?;
            let end_line = it.running.as_ref().unwrap_or(&to.line);
            // What herder-audit claims: the end, and the length.
            let shift = worker_name(&to.worker)
                .and_then(|w| offset.get(w))
                .copied()
                .unwrap_or(0);
            let end = end_line.ts?.0 + shift;
            let ms = it.ms?;
            Some(Claim {
                span: Span {
                    start: end - ms,
                    end,
                },
                ms,
                it,
            })
        })
        .filter(|c| c.span.end > first && c.span.start < last)
        .collect()
}

/// Matches gaps with the claims that meet them, each claim to one gap or
/// stall at most: gaps first, then stalls with the claims left. Within
/// each, the nearest pairs are taken first; a gap (stall) left without a
/// claim then takes one along an augmenting path (a claim it meets, whose
/// gap moves on to another it meets, …), so that as many gaps as possible
/// are matched and a stall never takes a claim a gap needs. Gives, per
/// gap, its claim.
fn assign(gaps: &[Gap], claims: &[Span]) -> Vec<Option<usize>> {
    let meets: Vec<Vec<usize>> = gaps
        .iter()
        .map(|g| {
            let mut v: Vec<usize> = (0..claims.len())
                .filter(|&k| claims[k].meets(g.span))
                .collect();
            v.sort_by_key(|&k| (claims[k].distance(g.span), k));
            v
        })
        .collect();
    let mut m = Matching {
        meets,
        of_gap: vec![None; gaps.len()],
        of_claim: vec![None; claims.len()],
    };
    for stall in [false, true] {
        let mut pairs: Vec<(i64, usize, usize)> = (0..gaps.len())
            .filter(|&g| gaps[g].stall == stall)
            .flat_map(|g| {
                m.meets[g]
                    .iter()
                    .map(move |&k| (claims[k].distance(gaps[g].span), g, k))
            })
            .collect();
        pairs.sort_unstable();
        for (_, g, k) in pairs {
            if m.of_gap[g].is_none() && m.of_claim[k].is_none() {
                m.of_gap[g] = Some(k);
                m.of_claim[k] = Some(g);
            }
        }
        for (g, gap) in gaps.iter().enumerate() {
            if gap.stall == stall && m.of_gap[g].is_none() {
                m.augment(g, &mut vec![false; claims.len()]);
            }
        }
    }
    m.of_gap
}

/// A matching of gaps with claims being built.
struct Matching {
    /// Per gap, the claims that meet it, nearest first.
    meets: Vec<Vec<usize>>,
    of_gap: Vec<Option<usize>>,
    of_claim: Vec<Option<usize>>,
}

impl Matching {
    /// Finds gap `g` a claim, moving matched gaps on to other claims they
    /// meet if need be (none loses its claim); `seen`: claims already on
    /// the path.
    fn augment(&mut self, g: usize, seen: &mut [bool]) -> bool {
        for j in 0..self.meets[g].len() {
            let k = self.meets[g][j];
            if seen[k] {
                continue;
            }
            seen[k] = true;
            let free = match self.of_claim[k] {
                None => true,
                Some(other) => self.augment(other, seen),
            };
            if free {
                self.of_gap[g] = Some(k);
                self.of_claim[k] = Some(g);
                return true;
            }
        }
        false
    }
}

/// Compares `iso` with a capture's parsed `checker.json`.
pub fn compare(iso: &Isolation, checker: &Value) -> Comparison {
    let offset = clock_offsets(checker);
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
        let found = claims(by_task.get(task).map_or(&[], |v| &v[..]), t, &offset);
        let gaps = gaps_of(t);
        let spans: Vec<Span> = found.iter().map(|c| c.span).collect();
        let matched = assign(&gaps, &spans);
        tally(&mut out, task, &gaps, &matched, &found, &handovers_of(t));
    }
    out.missed.sort();
    out.unreal.sort();
    out
}

/// Adds one task's matching to `out`.
fn tally(
    out: &mut Comparison,
    task: &str,
    gaps: &[Gap],
    matched: &[Option<usize>],
    found: &[Claim],
    handovers: &[Span],
) {
    out.interruptions += found.len();
    let mut taken = vec![false; found.len()];
    for (g, m) in gaps.iter().zip(matched) {
        let (all, hit) = if g.stall {
            (&mut out.stalls, &mut out.stalls_found)
        } else {
            (&mut out.gaps, &mut out.gaps_found)
        };
        *all += 1;
        match m {
            Some(k) => {
                *hit += 1;
                taken[*k] = true;
                out.errors_ms.push((found[*k].ms - g.ms).abs());
            }
            None if g.stall => {}
            None => out.missed.push((task.to_string(), g.start.clone(), g.ms)),
        }
    }
    for (c, taken) in found.iter().zip(taken) {
        if taken || handovers.iter().any(|h| c.span.meets(*h)) {
            out.real += 1;
        } else {
            out.unreal.push((
                task.to_string(),
                c.it.from.worker.to_string(),
                c.it.from.line.line,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(start: i64, end: i64, stall: bool) -> Gap {
        Gap {
            span: Span { start, end },
            ms: end - start,
            start: String::new(),
            stall,
        }
    }

    fn claim(start: i64, end: i64) -> Span {
        Span { start, end }
    }

    #[test]
    fn a_stall_just_before_a_gap_does_not_take_its_interruption() {
        // A stall ending 500 ms before a gap, and one interruption that
        // lies on the gap but meets the stall within the slack.
        let gaps = [gap(0, 10_000, true), gap(10_500, 12_500, false)];
        assert_eq!(assign(&gaps, &[claim(10_400, 12_600)]), [None, Some(0)]);
        // With a second interruption, the stall gets it.
        assert_eq!(
            assign(&gaps, &[claim(10_400, 12_600), claim(100, 9_900)]),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn a_gap_moves_its_neighbour_on_rather_than_go_without() {
        // Interruption 0 is nearest to gap 0, which also meets
        // interruption 1; gap 1 meets only interruption 0.
        let gaps = [gap(1_000, 2_000, false), gap(2_600, 3_000, false)];
        let claims = [claim(1_100, 2_100), claim(0, 1_500)];
        assert_eq!(assign(&gaps, &claims), [Some(1), Some(0)]);
        // Nearest first: each gap its own when both are free.
        let claims = [claim(2_300, 3_050), claim(1_000, 2_050)];
        assert_eq!(assign(&gaps, &claims), [Some(1), Some(0)]);
    }

    #[test]
    fn an_interruption_meeting_nothing_is_left_unmatched() {
        let gaps = [gap(1_000, 2_000, false)];
        assert_eq!(assign(&gaps, &[claim(5_000, 6_000)]), [None]);
        assert_eq!(
            assign(&[], &[claim(5_000, 6_000)]),
            Vec::<Option<usize>>::new()
        );
    }
}
