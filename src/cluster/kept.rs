//! Instances a worker whose log starts mid-life kept running from before
//! its log began ([`crate::replay::FactKind::KeptFromBefore`]): a frozen worker's log cut
//! to start shortly before the freeze shows its departure and its stops,
//! but not the assignment it held. Each such instance is compared with the
//! other workers' instances of its resource in the generations formed
//! without it (see docs/rules.md, "A frozen worker whose log starts
//! mid-life").

use super::CrossFinding;
use super::group::{Group, KeptFromBefore};
use super::leavers::SKEW_MS;
use super::{Ctx, Episode, Feed};
use crate::finding::Kind;
use crate::model::{Resource, SourceLine};
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

fn ts(l: &SourceLine) -> Option<i64> {
    l.ts.map(|t| t.0)
}

/// Generations of the leaver after the one it was fenced out of within
/// which the others' membership of its cluster may still show.
const KEPT_WAIT_GENERATIONS: i32 = 3;

/// A worker whose log starts mid-life ran `r` from before its log began
/// until `stop`: every other worker's instance of `r` in a later
/// generation of the group (formed without it) that began before that
/// stop, beyond the clocks' margin, and was not stopped within the margin
/// of its start ran beside it: a zombie on the other's start line. The
/// other worker must be known to be of the leaver's cluster (a peer, or the
/// same cluster id); where that shows only in a later generation, the
/// instance waits for it.
pub(super) fn kept_from_before(
    f: &Feed,
    group: &mut Group,
    (r, g): (&Resource, i32),
    (left, stop): (&SourceLine, &SourceLine),
    out: &mut Vec<CrossFinding>,
) {
    let mut k = KeptFromBefore {
        w: f.w,
        resource: r.clone(),
        generation: g,
        left: left.clone(),
        stop: stop.clone(),
        cluster: f.cluster.clone(),
        judged: Vec::new(),
    };
    if judge_kept(f.labels, f.group_name, group, &mut k, out) {
        group.kept_from_before.push(k);
    }
}

/// After an assignment: the kept instances waiting for their workers'
/// clusters to show are judged again, until the leaver is that many
/// generations past the one it left.
pub(super) fn rejudge_kept(
    labels: &[Arc<str>],
    group_name: &Arc<str>,
    group: &mut Group,
    out: &mut Vec<CrossFinding>,
) {
    if group.kept_from_before.is_empty() {
        return;
    }
    let mut waiting = std::mem::take(&mut group.kept_from_before);
    waiting.retain_mut(|k| {
        let past = group
            .workers
            .get(&k.w)
            .and_then(|ws| ws.generation)
            .is_some_and(|x| x > k.generation + KEPT_WAIT_GENERATIONS);
        !past && judge_kept(labels, group_name, group, k, out)
    });
    group.kept_from_before.extend(waiting);
}

/// Judges kept instance `k` against the others' instances; true while
/// some other instance may still turn out to be of its cluster.
fn judge_kept(
    labels: &[Arc<str>],
    group_name: &Arc<str>,
    group: &mut Group,
    k: &mut KeptFromBefore,
    out: &mut Vec<CrossFinding>,
) -> bool {
    let epoch = group.epoch;
    let Some(stop_ts) = k.stop.ts.map(|t| t.0) else {
        return false;
    };
    let mut found = Vec::new();
    let mut unknown = false;
    let from = (epoch, k.generation.saturating_add(1));
    for (&(_, generation), b) in group.buckets.range(from..=(epoch, i32::MAX)) {
        for (&o, entry) in &b.entries {
            if o == k.w || k.judged.contains(&o) {
                continue;
            }
            let Some((_, m)) = entry.live.iter().find(|(x, _)| **x == k.resource) else {
                continue;
            };
            let Some(start) = m.instance.ts.map(|t| t.0) else {
                continue;
            };
            let ran_past = m
                .until
                .as_ref()
                .is_none_or(|u| u.ts.is_some_and(|u| u.0 > start + SKEW_MS));
            if start + SKEW_MS > stop_ts || !ran_past {
                continue;
            }
            match (&k.cluster, &entry.cluster) {
                (Some(a), Some(b)) if a != b => continue,
                (Some(_), Some(_)) => {}
                _ if group.peers.contains(&(k.w.min(o), k.w.max(o))) => {}
                _ => {
                    unknown = true;
                    continue;
                }
            }
            found.push((o, generation, m.instance.clone()));
        }
    }
    for (o, generation, start) in found {
        if k.judged.contains(&o) {
            continue;
        }
        k.judged.push(o);
        let ctx = Ctx {
            labels,
            group: group_name,
            generation,
        };
        report(
            &ctx,
            (k.w, o),
            &k.resource,
            (&start, &k.left, &k.stop),
            &mut group.episodes,
            out,
        );
    }
    unknown
}

/// Reports the duplicate of worker `other`'s instance of `r` (its start
/// `start`) with the instance `leaver` kept from before its log began,
/// through its departure `left`, until its stop `stop`
/// ([`crate::replay::FactKind::KeptFromBefore`]).
fn report(
    ctx: &Ctx,
    (leaver, other): (usize, usize),
    r: &Resource,
    (start, left, stop): (&SourceLine, &SourceLine, &SourceLine),
    episodes: &mut HashSet<Episode>,
    out: &mut Vec<CrossFinding>,
) {
    let key = |l: &SourceLine| (l.source, l.line);
    if !episodes.insert((r.clone(), key(stop), key(start))) {
        return;
    }
    let secs = match (ts(stop), ts(start)) {
        (Some(a), Some(b)) => format!("{:.1} s", (a - b) as f64 / 1000.0),
        _ => "some time".to_string(),
    };
    let evidence = vec![
        ctx.ev(
            format!("starts it in generation {}", ctx.generation),
            other,
            other,
            start,
        ),
        ctx.ev(
            "logs its departure only here, after the other start, without revoking what it runs; its log shows no start of it".into(),
            leaver,
            other,
            left,
        ),
        ctx.ev(
            format!("stops it here, {secs} after the other start, in the rebalance whose assignment revokes it (it still owned it)"),
            leaver,
            other,
            stop,
        ),
    ];
    let f = ctx.finding(
        Kind::Zombie,
        other,
        Some(r.clone()),
        start,
        evidence,
        format!(
            "{r} runs on two workers: {} left the group without stopping it, and {} started it while it still ran there",
            ctx.label(leaver),
            ctx.label(other)
        ),
    );
    out.push(CrossFinding {
        worker: other,
        other: leaver,
        finding: f,
    });
}
