//! The checks within one generation: two workers' assignment lines that
//! claim one resource or carry different offsets (`conflicting-assignment`),
//! one resource live on two workers at once (`zombie`).

use super::group::{Bucket, Entry, Group, Live, Mark, NONE};
use super::leavers::Earlier;
use super::{CrossFinding, Ctx, EPOCH_GAP_MS, Episode, Feed, ended_before, later};
use crate::finding::{Kind, Sentence};
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
    let feed = Feed {
        labels,
        group_name,
        w,
        line: &fact.line,
        cluster: &fact.cluster,
    };
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
            let a = Assigned {
                generation,
                assigned,
                leader,
                offset,
                error,
                live,
            };
            assignment(&feed, group, a, out);
            super::kept::rejudge_kept(labels, group_name, group, out);
        }
        FactKind::Held { resources, since } => held(&feed, group, &resources, &since, out),
        FactKind::Start { resource, .. } => start(&feed, group, &resource, out),
        FactKind::StartFailed { resource } => start_failed(&feed, group, &resource),
        FactKind::Stop { resource, .. } => stop(&feed, group, &resource),
        FactKind::Left => left(&feed, group),
        FactKind::KeptFromBefore {
            resource,
            generation,
            left,
            stop,
        } => super::kept::kept_from_before(
            &feed,
            group,
            (&resource, generation),
            (&left, &stop),
            out,
        ),
        FactKind::Reset => reset(&feed, group),
        FactKind::Finding(_)
        | FactKind::ForeignStart { .. }
        | FactKind::End
        | FactKind::Record { .. }
        | FactKind::Judged { .. }
        | FactKind::Signal(_) => {}
    }
}

/// What an assignment fact says.
struct Assigned {
    generation: i32,
    assigned: Arc<[Resource]>,
    leader: String,
    offset: i64,
    error: i32,
    live: Vec<(Resource, SourceLine)>,
}

/// An assignment line: the worker's entry in its generation, then the
/// checks it makes possible (conflicts with the other entries, duplicates
/// of what it runs), and the workers it shows to be of one cluster.
fn assignment(f: &Feed, group: &mut Group, a: Assigned, out: &mut Vec<CrossFinding>) {
    let w = f.w;
    let epoch = group.epoch_of(w, a.generation);
    let ws = group.workers.entry(w).or_default();
    ws.generation = Some(a.generation);
    let last = ws.last.take();
    let ids = assigned_ids(group, last.as_ref(), &a.assigned);
    let live = live_marks(group, &a.assigned, &ids, a.live, f.line);
    // Ids of its cluster and its leader: `null` (and no cluster)
    // compare with everything.
    let cluster_id = group.text_id(f.cluster.as_deref());
    let leader_id = match a.leader.as_str() {
        "null" => NONE,
        l => group.text_id(Some(l)),
    };
    let known = group.ids.len();
    let bucket = bucket_at(&mut group.buckets, (epoch, a.generation), f.line.ts, known);
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
            line: f.line.clone(),
            cluster: f.cluster.clone(),
            assigned: a.assigned,
            leader: a.leader,
            offset: a.offset,
            error: a.error,
            live,
            cluster_id,
            leader_id,
        },
    );
    let ctx = f.ctx(a.generation);
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

/// The ids of the assigned resources: sorted all, and nearly always those
/// of the worker's `last` assignment (one stream's names: the same name is
/// one allocation, compared at once), so found there by a walk instead of
/// a hash.
fn assigned_ids(
    group: &mut Group,
    last: Option<&(Arc<[Resource]>, Vec<u32>)>,
    assigned: &Arc<[Resource]>,
) -> Vec<u32> {
    let mut ids = std::mem::take(&mut group.scratch);
    ids.clear();
    // The same list as the last (the replay shares an unchanged one).
    if let Some((r, i)) = last
        && Arc::ptr_eq(r, assigned)
        && i.len() == r.len()
    {
        ids.extend_from_slice(i);
        return ids;
    }
    let (before, before_ids) = match last {
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
    ids
}

/// The live resources of an assignment line, with their ids (the live
/// among the assigned, found by a walk) and marks.
fn live_marks(
    group: &mut Group,
    assigned: &[Resource],
    ids: &[u32],
    live: Vec<(Resource, SourceLine)>,
    line: &SourceLine,
) -> Vec<(Resource, u32, Mark)> {
    let mut at = 0;
    live.into_iter()
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
                from: line.clone(),
                until: None,
            };
            (r, id, mark)
        })
        .collect()
}

/// The bucket of generation `key`, started again when a line stamped `ts`
/// is too far from its first (the same number in a later epoch the group
/// did not show), sized for the `known` resources of the group.
fn bucket_at(
    buckets: &mut BTreeMap<(u32, i32), Bucket>,
    key: (u32, i32),
    ts: Option<crate::model::Timestamp>,
    known: usize,
) -> &mut Bucket {
    let bucket = buckets.entry(key).or_default();
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
    bucket
}

/// Resources the worker holds since `since` without starting them (a
/// completed start phase): live in its current generation.
fn held(
    f: &Feed,
    group: &mut Group,
    resources: &[Resource],
    since: &SourceLine,
    out: &mut Vec<CrossFinding>,
) {
    let w = f.w;
    if let Some(key) = group.current(w)
        && group.buckets.contains_key(&key)
    {
        let mut ids = std::mem::take(&mut group.scratch);
        ids.clear();
        for r in resources {
            let id = group.id(r);
            ids.push(id);
        }
        let Some(bucket) = group.buckets.get_mut(&key) else {
            return;
        };
        let ctx = f.ctx(key.1);
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

/// A start: live in the worker's current generation from its line.
fn start(f: &Feed, group: &mut Group, resource: &Resource, out: &mut Vec<CrossFinding>) {
    let w = f.w;
    if let Some(key) = group.current(w) {
        group
            .leavers
            .started(w, key, resource, f.line, f.cluster, &group.peers);
    }
    if let Some(key) = group.current(w)
        && group
            .buckets
            .get(&key)
            .is_some_and(|b| b.entries.contains_key(&w))
    {
        let id = group.id(resource);
        let Some(bucket) = group.buckets.get_mut(&key) else {
            return;
        };
        let Some(e) = bucket.entries.get_mut(&w) else {
            return;
        };
        let ctx = f.ctx(key.1);
        e.live.insert(
            resource.clone(),
            id,
            Mark {
                instance: f.line.clone(),
                from: f.line.clone(),
                until: None,
            },
        );
        bucket.runners.add(id, w);
        duplicates(&ctx, bucket, &mut group.episodes, w, resource, id, out);
    }
}

/// A start that failed: no instance ran, it never was live (a duplicate
/// with it is no duplicate).
fn start_failed(f: &Feed, group: &mut Group, resource: &Resource) {
    group.leavers.failed(f.w, resource);
    if let Some(key) = group.current(f.w)
        && let Some(e) = group
            .buckets
            .get_mut(&key)
            .and_then(|b| b.entries.get_mut(&f.w))
    {
        e.live.remove(resource);
    }
}

/// A stop: the instance live until its line.
fn stop(f: &Feed, group: &mut Group, resource: &Resource) {
    if let Some(key) = group.current(f.w)
        && let Some(m) = group
            .buckets
            .get_mut(&key)
            .and_then(|b| b.entries.get_mut(&f.w))
            .and_then(|e| e.live.get_mut(resource))
    {
        m.until.get_or_insert(f.line.clone());
    }
}

/// The worker left without revoking: what it runs keeps running, in no
/// generation of the group: compared by log time from now on.
fn left(f: &Feed, group: &mut Group) {
    let w = f.w;
    // A worker whose generation is unknown (its log starts mid-life) holds
    // back the generations the others pass, as any member does, until it
    // shows one (or the retirement margin passes).
    group.workers.entry(w).or_default();
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
            // And those of the generations retired past it.
            .chain(group.lagging.of(w, key).cloned())
            .filter(|x| open.iter().any(|(r, _)| r == &x.resource))
            .collect();
        // In the order of their generations, each generation's by worker
        // and resource (as the generations held give them).
        let mut earlier = earlier;
        earlier.sort_by(|a, b| {
            (a.generation, a.other, &a.resource).cmp(&(b.generation, b.other, &b.resource))
        });
        group
            .leavers
            .left(w, key, open, f.line, cluster, earlier, &group.peers);
    }
}

/// The worker restarted or its log ended: what it ran ends there.
fn reset(f: &Feed, group: &mut Group) {
    let ws = group.workers.entry(f.w).or_default();
    if let Some(g) = ws.generation.take()
        && let Some(e) = group
            .buckets
            .get_mut(&(ws.epoch, g))
            .and_then(|b| b.entries.get_mut(&f.w))
    {
        for m in e.live.marks_mut() {
            m.until.get_or_insert(f.line.clone());
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
    let mut shared: BTreeMap<usize, Vec<(&Resource, u32)>> = BTreeMap::new();
    for (r, &id) in mine.assigned.iter().zip(ids) {
        for o in bucket.holders.workers(id) {
            if o != w {
                shared.entry(o).or_default().push((r, id));
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
        let mut add =
            |r: Option<(&Resource, u32)>, role_t: String, role_o: String, reason: String| {
                let key = (r.map_or(NONE, |(_, id)| id), pair.0, pair.1);
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
                    r.map(|(r, _)| r.clone()),
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
        for &(r, id) in shared.get(&o).map_or(&[][..], Vec::as_slice) {
            // Built piece by piece (a storm writes these for every pair),
            // each in a string of about its size (findings are kept).
            let rl = Sentence::resource_len(r);
            add(
                Some((r, id)),
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
