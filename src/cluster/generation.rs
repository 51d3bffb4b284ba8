//! The checks within one generation: two workers' assignment lines that
//! claim one resource or carry different offsets (`conflicting-assignment`),
//! one resource live on two workers at once (`zombie`).

use super::leavers::Earlier;
use super::state::{Bucket, Entry, Episode, Group, Live, Mark, NONE};
use super::{CrossFinding, EPOCH_GAP_MS, ended_before, later};
use crate::finding::{Evidence, Finding, Kind, Sentence};
use crate::model::{Resource, SourceLine};
use crate::replay::{Fact, FactKind};
use rustc_hash::FxHashSet as HashSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Applies one fact of worker `w` to its group's state: assignments,
/// starts and stops within a generation (of an epoch), and workers that left
/// without revoking ([`super::leavers`]).
pub(super) fn feed_group(
    labels: &[Arc<str>],
    group_name: &Arc<str>,
    group: &mut Group,
    w: usize,
    fact: Fact,
    out: &mut Vec<CrossFinding>,
) {
    // A worker that left without revoking: its facts may prove (or
    // clear) a duplicate with a later start elsewhere.
    group
        .leavers
        .leaver_fact(labels, group_name, w, &fact, &mut group.episodes, out);
    match fact.kind {
        FactKind::Assignment {
            generation,
            assigned,
            leader,
            offset,
            error,
            live,
            ..
        } => {
            let epoch = group.epoch_of(w, generation);
            let ws = group.workers.entry(w).or_default();
            ws.generation = Some(generation);
            // The ids of the assigned resources, then of the live ones:
            // sorted all, and nearly always those of the worker's last
            // assignment, and the live among the assigned (one stream's
            // names: the same name is one allocation, compared at once),
            // so found there by a walk instead of a hash.
            let last = ws.last.take();
            let mut ids = std::mem::take(&mut group.scratch);
            ids.clear();
            let (before, before_ids) = match &last {
                Some((r, i)) => (&r[..], &i[..]),
                None => (&[][..], &[][..]),
            };
            let mut j = 0;
            for r in assigned.iter() {
                while j < before.len() && before[j] < *r {
                    j += 1;
                }
                let id = match (before.get(j), before_ids.get(j)) {
                    (Some(x), Some(&id)) if x == r => id,
                    _ => group.id(r),
                };
                ids.push(id);
            }
            let mut at = 0;
            let live: Vec<(Resource, u32, Mark)> = live
                .into_iter()
                .map(|(r, instance)| {
                    while at < assigned.len() && assigned[at] < r {
                        at += 1;
                    }
                    let id = match assigned.get(at) {
                        Some(x) if *x == r => ids[at],
                        _ => group.id(&r),
                    };
                    let mark = Mark {
                        instance,
                        from: fact.line.clone(),
                        until: None,
                    };
                    (r, id, mark)
                })
                .collect();
            // Ids of its cluster and its leader: `null` (and no cluster)
            // compare with everything.
            let cluster_id = group.text_id(fact.cluster.as_deref());
            let leader_id = match leader.as_str() {
                "null" => NONE,
                l => group.text_id(Some(l)),
            };
            let ts = fact.line.ts;
            let known = group.ids.len();
            let bucket = group.buckets.entry((epoch, generation)).or_default();
            if let (Some(first), Some(t)) = (bucket.first_ts, ts)
                && (t.0 - first.0).abs() > EPOCH_GAP_MS
            {
                *bucket = Bucket::default();
            }
            if bucket.entries.is_empty() {
                // A generation indexes about every resource of its group:
                // sized once instead of grown.
                bucket.holders.reserve(known);
                bucket.runners.reserve(known);
            }
            bucket.first_ts = bucket.first_ts.or(ts);
            if ts > bucket.last_ts {
                bucket.last_ts = ts;
            }
            // The replay sends them sorted by resource.
            let live = Live::sorted(live);
            for &id in &ids {
                bucket.holders.add(id, w);
            }
            for (_, id) in live.ids() {
                bucket.runners.add(id, w);
            }
            bucket.entries.insert(
                w,
                Entry {
                    line: fact.line.clone(),
                    cluster: fact.cluster.clone(),
                    assigned,
                    leader,
                    offset,
                    error,
                    live,
                    cluster_id,
                    leader_id,
                },
            );
            let ctx = Ctx {
                labels,
                group: group_name,
                generation,
            };
            conflicts(&ctx, bucket, w, &ids, out);
            let kept = bucket.entries[&w].assigned.clone();
            let bucket = &*bucket;
            for (r, id) in bucket.entries[&w].live.ids() {
                duplicates(&ctx, bucket, &mut group.episodes, w, r, id, out);
            }
            let mine = &bucket.entries[&w];
            for (&o, other) in &bucket.entries {
                if o != w && comparable(mine, other) {
                    group.peers.insert((w.min(o), w.max(o)));
                }
            }
            // The ids stay with the worker for its next assignment; the
            // vector of the last one is the next buffer.
            group.scratch = last.map(|(_, v)| v).unwrap_or_default();
            if let Some(ws) = group.workers.get_mut(&w) {
                ws.last = Some((kept, ids));
            }
        }
        FactKind::Held { resources, since } => {
            if let Some(key) = group.current(w)
                && group.buckets.contains_key(&key)
            {
                let mut ids = std::mem::take(&mut group.scratch);
                ids.clear();
                for r in &resources {
                    let id = group.id(r);
                    ids.push(id);
                }
                let Some(bucket) = group.buckets.get_mut(&key) else {
                    return;
                };
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: key.1,
                };
                if let Some(e) = bucket.entries.get_mut(&w) {
                    for (r, &id) in resources.iter().zip(&ids) {
                        e.live.insert_new(r, id, || Mark {
                            instance: since.clone(),
                            from: since.clone(),
                            until: None,
                        });
                        bucket.runners.add(id, w);
                    }
                }
                for (r, &id) in resources.iter().zip(&ids) {
                    duplicates(&ctx, bucket, &mut group.episodes, w, r, id, out);
                }
                group.scratch = ids;
            }
        }
        FactKind::Start { resource, .. } => {
            if let Some(key) = group.current(w) {
                group
                    .leavers
                    .started(w, key, &resource, &fact.line, &fact.cluster, &group.peers);
            }
            if let Some(key) = group.current(w)
                && group
                    .buckets
                    .get(&key)
                    .is_some_and(|b| b.entries.contains_key(&w))
            {
                let id = group.id(&resource);
                let Some(bucket) = group.buckets.get_mut(&key) else {
                    return;
                };
                let Some(e) = bucket.entries.get_mut(&w) else {
                    return;
                };
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: key.1,
                };
                e.live.insert(
                    resource.clone(),
                    id,
                    Mark {
                        instance: fact.line.clone(),
                        from: fact.line.clone(),
                        until: None,
                    },
                );
                bucket.runners.add(id, w);
                duplicates(&ctx, bucket, &mut group.episodes, w, &resource, id, out);
            }
        }
        FactKind::StartFailed { resource } => {
            // No instance ran: it never was live (a duplicate with it is
            // no duplicate).
            group.leavers.failed(w, &resource);
            if let Some(key) = group.current(w)
                && let Some(e) = group
                    .buckets
                    .get_mut(&key)
                    .and_then(|b| b.entries.get_mut(&w))
            {
                e.live.remove(&resource);
            }
        }
        FactKind::Stop { resource } => {
            if let Some(key) = group.current(w)
                && let Some(m) = group
                    .buckets
                    .get_mut(&key)
                    .and_then(|b| b.entries.get_mut(&w))
                    .and_then(|e| e.live.get_mut(&resource))
            {
                m.until.get_or_insert(fact.line.clone());
            }
        }
        FactKind::Left => {
            // What it runs keeps running, in no generation of the group:
            // compared by log time from now on.
            if let Some(key) = group.current(w)
                && let Some(e) = group.buckets.get(&key).and_then(|b| b.entries.get(&w))
            {
                let cluster = e.cluster.clone();
                let open: Vec<(Resource, SourceLine)> = e
                    .live
                    .iter()
                    .filter(|(_, m)| m.until.is_none())
                    .map(|(r, m)| (r.clone(), m.instance.clone()))
                    .collect();
                // Starts of its resources by others in generations formed
                // without it, logged before its departure line: a worker
                // frozen past its session timeout logs its fencing only when
                // it resumes, after the others took its work.
                let earlier: Vec<Earlier> = group
                    .buckets
                    .range((key.0, key.1.saturating_add(1))..=(key.0, i32::MAX))
                    .flat_map(|(&(_, g), b)| {
                        b.entries
                            .iter()
                            .filter(|&(&o, _)| o != w)
                            .flat_map(move |(&o, e)| {
                                e.live.iter().map(move |(r, m)| Earlier {
                                    other: o,
                                    generation: g,
                                    resource: r.clone(),
                                    start: m.instance.clone(),
                                    cluster: e.cluster.clone(),
                                })
                            })
                    })
                    .filter(|x| open.iter().any(|(r, _)| r == &x.resource))
                    .collect();
                group
                    .leavers
                    .left(w, key, open, &fact.line, cluster, earlier, &group.peers);
            }
        }
        FactKind::Reset => {
            let ws = group.workers.entry(w).or_default();
            if let Some(g) = ws.generation.take()
                && let Some(e) = group
                    .buckets
                    .get_mut(&(ws.epoch, g))
                    .and_then(|b| b.entries.get_mut(&w))
            {
                for m in e.live.marks_mut() {
                    m.until.get_or_insert(fact.line.clone());
                }
            }
        }
        FactKind::Finding(_) | FactKind::ForeignStart { .. } | FactKind::End => {}
    }
}

pub(super) struct Ctx<'a> {
    pub(super) labels: &'a [Arc<str>],
    pub(super) group: &'a Arc<str>,
    pub(super) generation: i32,
}

impl Ctx<'_> {
    pub(super) fn label(&self, w: usize) -> &str {
        self.labels.get(w).map_or("?", |l| l)
    }

    /// The label of worker `w`, shared.
    pub(super) fn shared_label(&self, w: usize) -> Arc<str> {
        match self.labels.get(w) {
            Some(l) => l.clone(),
            None => "?".into(),
        }
    }

    pub(super) fn finding(
        &self,
        kind: Kind,
        w: usize,
        resource: Option<Resource>,
        trigger: &SourceLine,
        evidence: Vec<Evidence>,
        reason: String,
    ) -> Finding {
        let mut f = Finding {
            kind,
            worker: self.shared_label(w),
            group: Some(self.group.clone()),
            generation: Some(self.generation),
            resource,
            started: Vec::new(),
            trigger: trigger.clone(),
            evidence,
            reason,
            upstream: None,
            fingerprint: None,
        };
        f.normalise();
        f
    }

    pub(super) fn ev(&self, role: String, w: usize, me: usize, line: &SourceLine) -> Evidence {
        Evidence {
            role,
            worker: (w != me).then(|| self.shared_label(w)),
            line: line.clone(),
            record: None,
        }
    }
}

/// May two workers' entries of one generation be compared? Not when they
/// name different Kafka clusters, nor when they name different leaders
/// without both naming the same cluster: two clusters may use the same
/// group id (the default `connect-cluster`), and the leader is the one fact
/// every member of a generation shares.
pub(super) fn comparable(a: &Entry, b: &Entry) -> bool {
    // By the ids of the texts (`NONE`: no cluster, a `null` leader).
    if a.cluster_id != NONE && b.cluster_id != NONE {
        return a.cluster_id == b.cluster_id;
    }
    a.leader_id == b.leader_id || a.leader_id == NONE || b.leader_id == NONE
}

/// Assignment conflicts between worker `w`'s new entry and the others.
fn conflicts(ctx: &Ctx, bucket: &mut Bucket, w: usize, ids: &[u32], out: &mut Vec<CrossFinding>) {
    let mine = &bucket.entries[&w];
    // The resources each other worker's assignment shares with this one.
    let mut shared: BTreeMap<usize, Vec<&Resource>> = BTreeMap::new();
    for (r, &id) in mine.assigned.iter().zip(ids) {
        for o in bucket.holders.workers(id) {
            if o != w {
                shared.entry(o).or_default().push(r);
            }
        }
    }
    // (key, resource, roles of the two lines, reason), per conflict: one
    // per shared resource, and the rare offset or leader conflict.
    let mut found = Vec::with_capacity(shared.values().map(Vec::len).sum());
    for (&o, other) in &bucket.entries {
        if o == w || !comparable(mine, other) {
            continue;
        }
        // The later assignment line triggers.
        let (tw, te, ow, oe) = if later(&other.line, &mine.line) {
            (o, other, w, mine)
        } else {
            (w, mine, o, other)
        };
        let pair = (w.min(o), w.max(o));
        let mut add = |r: Option<&Resource>, role_t: String, role_o: String, reason: String| {
            let key = (r.cloned(), pair.0, pair.1);
            if bucket.conflicts.contains(&key) {
                return;
            }
            let ev = vec![
                ctx.ev(role_t, tw, tw, &te.line),
                ctx.ev(role_o, ow, tw, &oe.line),
            ];
            let finding = ctx.finding(
                Kind::ConflictingAssignment,
                tw,
                r.cloned(),
                &te.line,
                ev,
                reason,
            );
            found.push((
                key,
                CrossFinding {
                    worker: tw,
                    other: ow,
                    finding,
                },
            ));
        };
        let (t, o_) = (ctx.label(tw), ctx.label(ow));
        let g = ctx.generation;
        for &r in shared.get(&o).map_or(&[][..], Vec::as_slice) {
            // Built piece by piece (a storm writes these for every pair),
            // each in a string of about its size (findings are kept).
            let rl = Sentence::resource_len(r);
            add(
                Some(r),
                Sentence::with_capacity(rl + 17)
                    .resource(r)
                    .s(" is assigned here")
                    .done(),
                Sentence::with_capacity(o_.len() + 36)
                    .s("and to ")
                    .s(o_)
                    .s(" here, in the same generation")
                    .done(),
                Sentence::with_capacity(rl + 60 + t.len() + o_.len())
                    .resource(r)
                    .s(" is assigned to two workers in generation ")
                    .int(i64::from(g))
                    .s(": ")
                    .s(t)
                    .s(" and ")
                    .s(o_)
                    .done(),
            );
        }
        if mine.error == 0 && other.error == 0 && mine.offset != other.offset {
            add(
                None,
                format!("config offset {} here", te.offset),
                format!("config offset {} for {o_} here", oe.offset),
                format!(
                    "workers of generation {g} were given different config offsets: {} ({t}) and {} ({o_})",
                    te.offset, oe.offset
                ),
            );
        } else if mine.leader_id != other.leader_id
            && mine.leader_id != NONE
            && other.leader_id != NONE
        {
            add(
                None,
                format!("leader {} here", te.leader),
                format!("leader {} for {o_} here", oe.leader),
                format!(
                    "workers of generation {g} were given different leaders: {} and {}",
                    te.leader, oe.leader
                ),
            );
        }
    }
    out.reserve(found.len());
    for (key, f) in found {
        bucket.conflicts.insert(key);
        out.push(f);
    }
}

/// Is resource `r`, live on worker `w` in this generation, also live on
/// another worker of the generation at an overlapping time?
fn duplicates(
    ctx: &Ctx,
    bucket: &Bucket,
    episodes: &mut HashSet<Episode>,
    w: usize,
    r: &Resource,
    id: u32,
    out: &mut Vec<CrossFinding>,
) {
    if bucket.runners.workers(id).all(|o| o == w) {
        // Live on no other worker of the generation.
        return;
    }
    let Some(mine_entry) = bucket.entries.get(&w) else {
        return;
    };
    let Some(mine) = mine_entry.live.by_id(id) else {
        return;
    };
    for o in bucket.runners.workers(id) {
        if o == w {
            continue;
        }
        let Some(other) = bucket.entries.get(&o) else {
            continue;
        };
        if !comparable(mine_entry, other) {
            continue;
        }
        let Some(theirs) = other.live.by_id(id) else {
            continue;
        };
        if ended_before(&theirs.until, &mine.from) || ended_before(&mine.until, &theirs.from) {
            continue;
        }
        let key = |l: &SourceLine| (l.source, l.line);
        let (a, b) = if mine.instance <= theirs.instance {
            (key(&mine.instance), key(&theirs.instance))
        } else {
            (key(&theirs.instance), key(&mine.instance))
        };
        if !episodes.insert((r.clone(), a, b)) {
            continue;
        }
        // The later "live from" line proves it.
        let (tw, tm, ow, om) = if later(&theirs.from, &mine.from) {
            (o, theirs, w, mine)
        } else {
            (w, mine, o, theirs)
        };
        // Per worker: the line it is live from, the instance's start, its
        // assignment of the generation. The other worker's lines name it
        // (its lines are shown under its own file).
        let g = ctx.generation;
        let mut ev = Vec::new();
        for (who, m) in [(tw, tm), (ow, om)] {
            let e = &bucket.entries[&who];
            let holds = if e.assigns(r) {
                "which assigns it"
            } else {
                "which does not assign it"
            };
            if e.line == m.from {
                ev.push(ctx.ev(
                    format!("runs it at its assignment of generation {g}, {holds}"),
                    who,
                    tw,
                    &m.from,
                ));
            } else {
                ev.push(ctx.ev(format!("starts it in generation {g}"), who, tw, &m.from));
                ev.push(ctx.ev(
                    format!("its assignment of generation {g}, {holds}"),
                    who,
                    tw,
                    &e.line,
                ));
            }
            if m.instance != m.from {
                ev.push(ctx.ev(
                    "the running instance was started here".to_string(),
                    who,
                    tw,
                    &m.instance,
                ));
            }
        }
        let f = ctx.finding(
            Kind::Zombie,
            tw,
            Some(r.clone()),
            &tm.from,
            ev,
            format!(
                "{r} runs on two workers in generation {}: {} and {}",
                ctx.generation,
                ctx.label(ow),
                ctx.label(tw)
            ),
        );
        out.push(CrossFinding {
            worker: tw,
            other: ow,
            finding: f,
        });
    }
}
