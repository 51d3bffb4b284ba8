//! Workers that leave their group without revoking (KAFKA-16056): on a
//! poll-timeout leave Kafka keeps the worker's connectors and tasks running
//! while the leader hands them to the others. The duplicates this makes
//! live *between* generations, where the same-generation comparison cannot
//! see them, so they are compared by log time:
//!
//! * at the departure, the leaver's live instances are noted;
//! * another worker of the group (a peer: seen in one generation with it,
//!   or on the same Kafka cluster) that starts one of them meanwhile is a
//!   suspect;
//! * the duplicate is provable, and a `zombie` is reported on the other
//!   worker's start line, when the leaver's instance ran from before that
//!   start to after it: before, because the start is in a generation
//!   formed after the leaver left (causality, whatever the clocks), or by
//!   the clocks beyond a skew margin (the two hosts' clocks may differ by
//!   that much); after, because the leaver's log goes on past the start
//!   plus the margin without stopping it (its stop after that instant, any
//!   later fact of the leaver, or the last line of its log, read or
//!   skipped, shows it). A stop within the margin, a restart of the leaver,
//!   or the end of its log before the margin clears the suspect: nothing is
//!   proved.
//!
//! A worker frozen past its session timeout (SIGSTOP, a GC or VM pause)
//! logs its departure (the fenced heartbeat) only when it resumes, after
//! the others already run its work: at the departure, starts of its live
//! instances by peers in generations formed after its own (it is no member
//! of them), logged before the departure line, are suspects as well. Its
//! resumed instances run until it stops them (a real 3.9.1 cluster frozen
//! 30 s wrote 296 duplicate records in that second).

use super::{CrossFinding, Ctx, Episode};
use crate::finding::Kind;
use crate::model::{Resource, SourceId, SourceLine, Timestamp};
use crate::replay::{Fact, FactKind};
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

/// Two hosts' clocks may differ by this much (hosts of one cluster keep
/// their clocks in step, NTP within milliseconds; pods of one node share
/// one): an overlap shorter than it proves nothing.
pub const SKEW_MS: i64 = 100;

/// An instance a worker kept running when it left.
#[derive(Debug, Clone)]
struct Kept {
    leaver: usize,
    epoch: u32,
    /// The generation it left.
    generation: i32,
    resource: Resource,
    /// Its start (or the assignment it was held from).
    instance: SourceLine,
    /// The departure.
    left: SourceLine,
    cluster: Option<Arc<str>>,
}

/// Another worker's live instance, in a generation after the leaver's, of
/// a resource the leaver keeps: found at the departure.
#[derive(Debug, Clone)]
pub(super) struct Earlier {
    pub(super) other: usize,
    pub(super) generation: i32,
    pub(super) resource: Resource,
    /// Its start (or the assignment it is held from).
    pub(super) start: SourceLine,
    pub(super) cluster: Option<Arc<str>>,
}

/// Another worker's start of a kept instance, not proved yet.
#[derive(Debug, Clone)]
struct Suspect {
    kept: Kept,
    other: usize,
    generation: i32,
    start: SourceLine,
    /// Proved when both still run after this log time.
    deadline: i64,
    /// Found at the departure, which the leaver logged after this start
    /// (it was frozen: no poll timeout, no known upstream issue).
    late: bool,
}

/// The leavers of one group.
#[derive(Debug, Default)]
pub(super) struct Leavers {
    kept: Vec<Kept>,
    suspects: Vec<Suspect>,
}

/// The departure is the heartbeat thread's session timeout (`Group
/// coordinator … is unavailable or invalid due to cause: session timed out
/// …`): the worker was cut off from the broker.
fn session_timed_out(left: &SourceLine) -> bool {
    left.text.contains("due to cause: session timed out")
}

fn ts(l: &SourceLine) -> Option<i64> {
    l.ts.map(|t| t.0)
}

impl Leavers {
    /// Worker `w` left without revoking; `open` are its live instances,
    /// `earlier` the instances of them others started in generations
    /// formed after its own, before this departure line.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn left(
        &mut self,
        w: usize,
        (epoch, generation): (u32, i32),
        open: Vec<(Resource, SourceLine)>,
        line: &SourceLine,
        cluster: Option<Arc<str>>,
        earlier: Vec<Earlier>,
        peers: &HashSet<(usize, usize)>,
    ) {
        for (resource, instance) in open {
            if self
                .kept
                .iter()
                .any(|k| k.leaver == w && k.resource == resource)
            {
                continue;
            }
            let kept = Kept {
                leaver: w,
                epoch,
                generation,
                resource,
                instance,
                left: line.clone(),
                cluster: cluster.clone(),
            };
            for e in earlier.iter().filter(|e| e.resource == kept.resource) {
                let same_cluster = match (&kept.cluster, &e.cluster) {
                    (Some(a), Some(b)) => a == b,
                    _ => peers.contains(&(w.min(e.other), w.max(e.other))),
                };
                // The other start is in a generation formed without the
                // leaver (it was out of the group then, whatever its log
                // shows later), after its instance began (by the clocks,
                // beyond their margin); the leaver's stop or later lines
                // past the margin prove its instance still ran.
                let Some(t) = ts(&e.start) else { continue };
                let after_instance = ts(&kept.instance).is_some_and(|a| a + SKEW_MS <= t);
                if !same_cluster || !after_instance {
                    continue;
                }
                if self
                    .suspects
                    .iter()
                    .any(|s| s.other == e.other && s.start == e.start)
                {
                    continue;
                }
                self.suspects.push(Suspect {
                    kept: kept.clone(),
                    other: e.other,
                    generation: e.generation,
                    start: e.start.clone(),
                    deadline: t + SKEW_MS,
                    late: true,
                });
            }
            self.kept.push(kept);
        }
    }

    /// Worker `w`, in generation `key` (epoch, generation), starts `r` at
    /// `line`: a suspect where a peer that left keeps `r` running.
    pub(super) fn started(
        &mut self,
        w: usize,
        key: (u32, i32),
        r: &Resource,
        line: &SourceLine,
        cluster: &Option<Arc<str>>,
        peers: &HashSet<(usize, usize)>,
    ) {
        let Some(t) = ts(line) else { return };
        for k in &self.kept {
            if k.leaver == w || k.epoch != key.0 || &k.resource != r {
                continue;
            }
            let same_cluster = match (&k.cluster, cluster) {
                (Some(a), Some(b)) => a == b,
                _ => peers.contains(&(w.min(k.leaver), w.max(k.leaver))),
            };
            // The start comes after the departure and after the leaver's
            // instance began: by causality when it is in a later generation
            // (formed after the leaver left: it is no member of it); else
            // by the clocks, beyond their margin.
            let later_generation = key.1 > k.generation;
            let after = ts(&k.left).is_some_and(|l| t + SKEW_MS >= l);
            let before = ts(&k.instance).is_some_and(|a| a + SKEW_MS <= t);
            if !same_cluster || !(later_generation || (after && before)) {
                continue;
            }
            self.suspects.push(Suspect {
                kept: k.clone(),
                other: w,
                generation: key.1,
                start: line.clone(),
                deadline: t + SKEW_MS,
                late: false,
            });
        }
    }

    /// Worker `w`'s start of `r` failed: it never ran.
    pub(super) fn failed(&mut self, w: usize, r: &Resource) {
        self.suspects
            .retain(|s| !(s.other == w && &s.kept.resource == r));
    }

    /// A fact of the leaver `w` may prove or clear suspects: its log goes
    /// on, it stops the instance, it restarts, its log ends.
    pub(super) fn leaver_fact(
        &mut self,
        labels: &[Arc<str>],
        group: &Arc<str>,
        w: usize,
        fact: &Fact,
        episodes: &mut HashSet<Episode>,
        out: &mut Vec<CrossFinding>,
    ) {
        if self.kept.is_empty() && self.suspects.is_empty() {
            return;
        }
        let now = ts(&fact.line);
        let mut keep = Vec::with_capacity(self.suspects.len());
        for s in std::mem::take(&mut self.suspects) {
            let r = &s.kept.resource;
            // (The other worker's later stop does not matter: its start
            // alone falls inside the leaver's instance.)
            if s.kept.leaver != w {
                keep.push(s);
                continue;
            }
            let past = now.is_some_and(|t| t > s.deadline);
            match &fact.kind {
                FactKind::Stop { resource, .. } if resource == r => {
                    if past {
                        prove(labels, group, &s, &fact.line, true, episodes, out);
                    }
                }
                // A restart ends the instance at an unknown moment (its
                // line belongs to the new process).
                FactKind::Reset => {}
                // The log's last line (read or skipped) past the margin: the
                // worker still logged then and never stopped the instance.
                // Before it, the end says nothing after that line.
                FactKind::End if past => prove(labels, group, &s, &fact.line, false, episodes, out),
                FactKind::End => {}
                _ if past => prove(labels, group, &s, &fact.line, false, episodes, out),
                _ => keep.push(s),
            }
        }
        self.suspects = keep;
        // The leaver's own instances end with its stops and its restart.
        match &fact.kind {
            FactKind::Stop { resource, .. } => self
                .kept
                .retain(|k| !(k.leaver == w && &k.resource == resource)),
            FactKind::Reset | FactKind::End => self.kept.retain(|k| k.leaver != w),
            _ => {}
        }
    }

    /// The instances (their start lines) a later fact may still pair.
    pub(super) fn instances(&self) -> impl Iterator<Item = (SourceId, u64)> + '_ {
        self.kept
            .iter()
            .map(|k| (k.instance.source, k.instance.line))
            .chain(self.suspects.iter().map(|s| (s.start.source, s.start.line)))
    }

    /// Forgets what no later fact can prove: kept instances and suspects
    /// older than the retirement margin.
    pub(super) fn retire(&mut self, newest: Option<Timestamp>) {
        let Some(now) = newest else { return };
        let old = |l: &SourceLine| ts(l).is_some_and(|t| now.0 > t + super::RETIRE_MARGIN_MS);
        self.suspects.retain(|s| !old(&s.start));
        let suspects = &self.suspects;
        self.kept.retain(|k| {
            !old(&k.left)
                || suspects
                    .iter()
                    .any(|s| s.kept.leaver == k.leaver && s.kept.resource == k.resource)
        });
    }
}

/// Reports the duplicate of suspect `s`, proved by the leaver's line `by`
/// (its stop of the instance when `stop`).
fn prove(
    labels: &[Arc<str>],
    group: &Arc<str>,
    s: &Suspect,
    by: &SourceLine,
    stop: bool,
    episodes: &mut HashSet<Episode>,
    out: &mut Vec<CrossFinding>,
) {
    let r = &s.kept.resource;
    let key = |l: &SourceLine| (l.source, l.line);
    let (a, b) = if s.kept.instance <= s.start {
        (key(&s.kept.instance), key(&s.start))
    } else {
        (key(&s.start), key(&s.kept.instance))
    };
    if !episodes.insert((r.clone(), a, b)) {
        return;
    }
    let ctx = Ctx {
        labels,
        group,
        generation: s.generation,
    };
    let (me, leaver) = (s.other, s.kept.leaver);
    let secs = |x: &SourceLine| match (ts(x), ts(&s.start)) {
        (Some(a), Some(b)) => format!("{:.1} s", (a - b) as f64 / 1000.0),
        _ => "some time".to_string(),
    };
    let proof = if stop {
        format!("stops it here, {} after the other start", secs(by))
    } else {
        format!(
            "still in its log {} after the other start, with no stop of it",
            secs(by)
        )
    };
    let evidence = vec![
        ctx.ev(
            format!("starts it in generation {}", s.generation),
            me,
            me,
            &s.start,
        ),
        ctx.ev(
            "the instance it kept was started here".into(),
            leaver,
            me,
            &s.kept.instance,
        ),
        ctx.ev(
            if s.late {
                "logs its departure only here, after the other start (frozen past its session timeout), without revoking what it runs".into()
            } else {
                "leaves the group here without revoking what it runs".into()
            },
            leaver,
            me,
            &s.kept.left,
        ),
        ctx.ev(proof, leaver, me, by),
    ];
    let mut f = ctx.finding(
        Kind::Zombie,
        me,
        Some(r.clone()),
        &s.start,
        evidence,
        format!(
            "{r} runs on two workers: {} left the group without stopping it, and {} started it while it still ran there",
            ctx.label(leaver),
            ctx.label(me)
        ),
    );
    // KAFKA-16056 is the poll-timeout leave; a session that timed out
    // while the worker was cut off from the broker is no Kafka bug.
    if !s.late && !session_timed_out(&s.kept.left) {
        f.upstream = Some("KAFKA-16056");
    }
    out.push(CrossFinding {
        worker: me,
        other: leaver,
        finding: f,
    });
}
