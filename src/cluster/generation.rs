//! The checks within one generation: two workers' assignment lines that
//! claim one resource or carry different offsets (`conflicting-assignment`),
//! one resource live on two workers at once (`zombie`).

use super::leavers::Earlier;
use super::state::{Bucket, Entry, Episode, Group, Live, Mark, workers_of};
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
            let ts = fact.line.ts;
            let bucket = group.buckets.entry((epoch, generation)).or_default();
            if let (Some(first), Some(t)) = (bucket.first_ts, ts)
                && (t.0 - first.0).abs() > EPOCH_GAP_MS
            {
                *bucket = Bucket::default();
            }
            if bucket.entries.is_empty() && bucket.holders.capacity() == 0 {
                // A new generation indexes about as many resources as the
                // largest before it: sized once instead of grown.
                bucket.holders.reserve(group.index_sizes.0);
                bucket.runners.reserve(group.index_sizes.1);
            }
            bucket.first_ts = bucket.first_ts.or(ts);
            if ts > bucket.last_ts {
                bucket.last_ts = ts;
            }
            // The replay sends them sorted by resource.
            let live = Live(
                live.into_iter()
                    .map(|(r, instance)| {
                        (
                            r,
                            Mark {
                                instance,
                                from: fact.line.clone(),
                                until: None,
                            },
                        )
                    })
                    .collect(),
            );
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
                },
            );
            let e = &bucket.entries[&w];
            for res in e.assigned.iter() {
                Bucket::index(&mut bucket.holders, res, w);
            }
            for res in e.live.resources() {
                Bucket::index(&mut bucket.runners, res, w);
            }
            let ctx = Ctx {
                labels,
                group: group_name,
                generation,
            };
            conflicts(&ctx, bucket, w, out);
            group.index_sizes.0 = group.index_sizes.0.max(bucket.holders.len());
            group.index_sizes.1 = group.index_sizes.1.max(bucket.runners.len());
            let bucket = &*bucket;
            for r in bucket.entries[&w].live.resources() {
                duplicates(&ctx, bucket, &mut group.episodes, w, r, out);
            }
            let mine = &bucket.entries[&w];
            for (&o, other) in &bucket.entries {
                if o != w && comparable(mine, other) {
                    group.peers.insert((w.min(o), w.max(o)));
                }
            }
        }
        FactKind::Held { resources, since } => {
            if let Some(key) = group.current(w)
                && let Some(bucket) = group.buckets.get_mut(&key)
            {
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: key.1,
                };
                if let Some(e) = bucket.entries.get_mut(&w) {
                    for r in &resources {
                        e.live.insert_new(r, || Mark {
                            instance: since.clone(),
                            from: since.clone(),
                            until: None,
                        });
                        Bucket::index(&mut bucket.runners, r, w);
                    }
                }
                for r in &resources {
                    duplicates(&ctx, bucket, &mut group.episodes, w, r, out);
                }
            }
        }
        FactKind::Start { resource, .. } => {
            if let Some(key) = group.current(w) {
                group
                    .leavers
                    .started(w, key, &resource, &fact.line, &fact.cluster, &group.peers);
            }
            if let Some(key) = group.current(w)
                && let Some(bucket) = group.buckets.get_mut(&key)
                && let Some(e) = bucket.entries.get_mut(&w)
            {
                let ctx = Ctx {
                    labels,
                    group: group_name,
                    generation: key.1,
                };
                e.live.insert(
                    resource.clone(),
                    Mark {
                        instance: fact.line.clone(),
                        from: fact.line.clone(),
                        until: None,
                    },
                );
                Bucket::index(&mut bucket.runners, &resource, w);
                duplicates(&ctx, bucket, &mut group.episodes, w, &resource, out);
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
                    .0
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
                                e.live.0.iter().map(move |(r, m)| Earlier {
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
        }
    }
}

/// May two workers' entries of one generation be compared? Not when they
/// name different Kafka clusters, nor when they name different leaders
/// without both naming the same cluster: two clusters may use the same
/// group id (the default `connect-cluster`), and the leader is the one fact
/// every member of a generation shares.
pub(super) fn comparable(a: &Entry, b: &Entry) -> bool {
    match (&a.cluster, &b.cluster) {
        (Some(x), Some(y)) => x == y,
        _ => a.leader == b.leader || a.leader == "null" || b.leader == "null",
    }
}

/// Assignment conflicts between worker `w`'s new entry and the others.
fn conflicts(ctx: &Ctx, bucket: &mut Bucket, w: usize, out: &mut Vec<CrossFinding>) {
    let mine = &bucket.entries[&w];
    // The resources each other worker's assignment shares with this one.
    let mut shared: BTreeMap<usize, Vec<&Resource>> = BTreeMap::new();
    for r in mine.assigned.iter() {
        for o in workers_of(&bucket.holders, r) {
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
        } else if mine.leader != other.leader && mine.leader != "null" && other.leader != "null" {
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
    out: &mut Vec<CrossFinding>,
) {
    let Some(mine) = bucket.entries.get(&w).and_then(|e| e.live.get(r)) else {
        return;
    };
    let mine_entry = &bucket.entries[&w];
    for o in workers_of(&bucket.runners, r) {
        let Some(other) = bucket.entries.get(&o) else {
            continue;
        };
        if o == w || !comparable(mine_entry, other) {
            continue;
        }
        let Some(theirs) = other.live.get(r) else {
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
