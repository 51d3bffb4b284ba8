//! Settling the causes once every rebalance's trigger is known, and pricing
//! the interruptions per rebalance, per change and per connector.

use super::sparse::Sparse;
use super::tracker::{Pending, RebalanceAcc, Seen, Tracker};
use super::{
    Cause, CauseKind, Change, ChangeKind, ConnectorDowntime, Interruption, Isolation, Rebalance,
    Trigger,
};
use crate::model::{Name, Resource, SourceLine};
use crate::rules::StopReason;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A change logged this long (log time) before a stop may have caused it.
const CHANGE_REACH_MS: i64 = 60_000;

pub(super) fn settle(t: Tracker) -> Isolation {
    // Indices into the changes are the report's: nothing may be forgotten.
    debug_assert_eq!(t.changes.kept(), t.changes.len());
    let triggers: Vec<Trigger> = t
        .rebalances
        .values()
        .map(|r| trigger(r, &t.changes))
        .collect();
    let kept: Vec<&RebalanceAcc> = t.rebalances.values().collect();
    // By generation, then group: the group's name (text) compared only
    // between rebalances of the same generation.
    let by_generation: BTreeMap<(i32, Arc<str>), usize> = kept
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.generation, r.group.clone()), i))
        .collect();
    let mut interruptions = Vec::with_capacity(t.interruptions.kept());
    for (mut it, p) in t.interruptions.values().cloned().zip(t.pending.values()) {
        let rebalance = p
            .because
            .as_ref()
            .and_then(|b| t.assignment_lines.get(&(b.source, b.line)))
            .and_then(|(g, n)| by_generation.get(&(*n, g.clone())).copied());
        cause(&t, &mut it, p, rebalance.map(|i| (kept[i], &triggers[i])));
        interruptions.push(it);
    }
    // A deleted connector's work is gone, not interrupted.
    interruptions.retain(|i| {
        i.to.is_some()
            || t.changes
                .values()
                .rfind(|c| c.connector == *i.resource.connector_name() && c.group == i.group)
                .is_none_or(|c| c.kind != ChangeKind::Deletion)
    });
    let changes = price_changes(t.changes.into_values().collect(), &interruptions);
    let rebalances = t
        .rebalances
        .into_values()
        .zip(triggers)
        .map(|(r, tr)| effect(r, tr, &interruptions))
        .collect();
    let connectors = per_connector(&interruptions);
    let mut iso = Isolation {
        interruptions,
        rebalances,
        changes,
        connectors,
    };
    iso.canonical();
    iso
}

impl Tracker {
    /// Interruption `i` with its cause settled, once it is final with log
    /// time at `now_ms` (`Tracker::is_final`). For a long-running audit
    /// that counts each interruption once as it ends (`herder-audit
    /// watch`'s metrics).
    pub(crate) fn settled(&self, i: usize, now_ms: i64) -> Option<Interruption> {
        self.is_final(i, now_ms).then(|| settle_one(self, i))
    }
}

/// Interruption `i` alone with its cause settled, as [`settle`] settles it.
fn settle_one(t: &Tracker, i: usize) -> Interruption {
    let mut it = t.interruptions[i].clone();
    let p = &t.pending[i];
    let rebalance = p
        .because
        .as_ref()
        .and_then(|b| t.assignment_lines.get(&(b.source, b.line)))
        .and_then(|(g, n)| {
            t.rebalances
                .values()
                .rfind(|r| r.generation == *n && r.group == *g)
        })
        .map(|r| (r, trigger(r, &t.changes)));
    cause(t, &mut it, p, rebalance.as_ref().map(|(r, tr)| (*r, tr)));
    it
}

/// What set a rebalance off: a member joining or leaving, else a change,
/// else a forced rebalance, else unknown; with the last reason logged.
fn trigger(r: &RebalanceAcc, changes: &Sparse<Change>) -> Trigger {
    let mut t = Trigger {
        kind: "unknown".to_string(),
        how: None,
        worker: None,
        connector: None,
        reason: r.reasons.last().map(|(s, _)| s.clone()),
        line: r.reasons.last().map(|(_, l)| l.clone()),
        change: None,
    };
    let member = r
        .seen
        .iter()
        .rev()
        .find(|s| matches!(s, Seen::Joined(..) | Seen::Left(..) | Seen::CutOff(..)));
    let change = r.seen.iter().rev().find_map(|s| match s {
        Seen::Change(i) if changes.get(*i).is_some() => Some(*i),
        _ => None,
    });
    let forced = r.seen.iter().rev().find(|s| matches!(s, Seen::Forced(..)));
    match (member, change, forced) {
        (Some(Seen::Joined(w, l)), _, _) => {
            (t.kind, t.worker, t.line) = (
                "worker-joined".to_string(),
                Some(w.clone()),
                Some(l.clone()),
            )
        }
        (Some(Seen::Left(w, how, l)), _, _) => {
            t.how = Some(how.to_string());
            (t.kind, t.worker, t.line) =
                ("worker-left".to_string(), Some(w.clone()), Some(l.clone()))
        }
        (Some(Seen::CutOff(w, l)), _, _) => {
            (t.kind, t.worker, t.line) = (
                "worker-cut-off".to_string(),
                Some(w.clone()),
                Some(l.clone()),
            )
        }
        (_, Some(i), _) => {
            let c = &changes[i];
            t.kind = c.kind.as_str().to_string();
            t.connector = Some(c.connector.clone());
            t.line = Some(c.line.clone());
            t.change = Some(i);
        }
        (_, _, Some(Seen::Forced(w, l))) => {
            (t.kind, t.worker, t.line) = ("forced".to_string(), Some(w.clone()), Some(l.clone()))
        }
        _ => {}
    }
    t
}

/// The latest change of `group` (of `connector`, if given) logged before
/// `at` and at most [`CHANGE_REACH_MS`] earlier, with `kinds` if given.
fn change_before(
    changes: &Sparse<Change>,
    group: &Arc<str>,
    connector: Option<&Name>,
    at: &SourceLine,
    kinds: &[ChangeKind],
) -> Option<usize> {
    let at = at.ts?.0;
    changes.iter().rev().map(|(i, _)| i).find(|&i| {
        let c = &changes[i];
        // The group's name (text) compared last.
        connector.is_none_or(|n| *n == c.connector)
            && (kinds.is_empty() || kinds.contains(&c.kind))
            && c.line
                .ts
                .is_some_and(|t| t.0 <= at + 1000 && at - t.0 <= CHANGE_REACH_MS)
            && c.group == *group
    })
}

/// The cause of a change to its own connector's work.
fn own_kind(k: ChangeKind) -> CauseKind {
    match k {
        ChangeKind::TasksMax => CauseKind::TasksMax,
        ChangeKind::TargetState => CauseKind::PauseStop,
        ChangeKind::RestartRequest => CauseKind::Restart,
        _ => CauseKind::ConfigUpdate,
    }
}

fn cause(
    t: &Tracker,
    it: &mut Interruption,
    p: &Pending,
    rebalance: Option<(&RebalanceAcc, &Trigger)>,
) {
    let own = it.resource.connector_name().clone();
    let mut c = Cause::of(p.fate.unwrap_or(CauseKind::Unknown));
    if p.fate.is_some() && p.reason.is_none() {
        c.worker = Some(it.from.worker.clone());
        let role = if it.stopped {
            "failed here"
        } else {
            "its worker's last line before it went silent"
        };
        c.lines.push((role.to_string(), it.from.line.clone()));
    }
    if let Some(b) = &p.because {
        c.lines.push(("justified by".to_string(), b.clone()));
    }
    let mut change = None;
    let finding = t
        .unnecessary
        .get(&(it.from.line.source, it.from.line.line))
        .cloned();
    match p.reason {
        Some(
            why @ (StopReason::TaskConfig
            | StopReason::ConnectorConfig
            | StopReason::ConnectorRemoved
            | StopReason::TargetStopped
            | StopReason::Restart
            | StopReason::RestartPlan),
        ) => {
            // Its own connector's change: the latest of the kinds that make
            // such a stop, its cause named after what it was.
            let (fallback, kinds): (CauseKind, &[ChangeKind]) = match why {
                StopReason::TargetStopped => (CauseKind::PauseStop, &[ChangeKind::TargetState]),
                StopReason::Restart | StopReason::RestartPlan => {
                    (CauseKind::Restart, &[ChangeKind::RestartRequest])
                }
                _ => (CauseKind::ConfigUpdate, &[]),
            };
            change = change_before(&t.changes, &it.group, Some(&own), &it.from.line, kinds);
            c.kind = change.map_or(fallback, |i| own_kind(t.changes[i].kind));
            c.connector = Some(own.clone());
        }
        Some(StopReason::Shutdown) => {
            c.kind = CauseKind::WorkerLeft;
            c.worker = Some(it.from.worker.clone());
        }
        Some(StopReason::SelfRevocation) => {
            c.kind = CauseKind::WorkerCutOff;
            c.worker = Some(it.from.worker.clone());
        }
        Some(
            why @ (StopReason::Revoked | StopReason::EagerRebalance | StopReason::Unnecessary),
        ) => {
            c.via = Some(
                match why {
                    StopReason::Revoked => "revocation",
                    StopReason::EagerRebalance => "eager-rebalance",
                    _ => "unnecessary-stop",
                }
                .to_string(),
            );
            c.kind = match why {
                StopReason::Revoked => CauseKind::Balance,
                StopReason::EagerRebalance => CauseKind::EagerRebalance,
                _ => CauseKind::UnnecessaryStop,
            };
            it.generation = rebalance.map(|(r, _)| r.generation);
            match rebalance {
                Some((_, tr)) => by_trigger(&mut c, &mut change, tr, &own, t),
                None => {
                    // Outside a rebalance: the change handled just before.
                    change = change_before(&t.changes, &it.group, None, &it.from.line, &[]);
                    if let Some(i) = change {
                        let ch = &t.changes[i];
                        c.connector = Some(ch.connector.clone());
                        if ch.connector != own {
                            c.kind = CauseKind::OtherChange;
                        }
                    }
                }
            }
        }
        _ => {}
    }
    if !matches!(
        p.reason,
        Some(StopReason::Revoked | StopReason::EagerRebalance | StopReason::Unnecessary)
    ) && it.stopped
    {
        it.generation = None;
    }
    if let Some(i) = change {
        c.lines
            .push(("change logged here".to_string(), t.changes[i].line.clone()));
    }
    if let Some((trig, upstream)) = finding {
        c.finding = Some(trig);
        c.upstream = upstream.map(str::to_string);
    }
    it.change = change;
    it.cause = c;
}

/// A rebalance-made stop, caused by what set the rebalance off.
fn by_trigger(c: &mut Cause, change: &mut Option<usize>, tr: &Trigger, own: &Name, t: &Tracker) {
    if let Some(i) = tr.change {
        let ch = &t.changes[i];
        *change = Some(i);
        c.connector = Some(ch.connector.clone());
        c.kind = if ch.connector == *own {
            own_kind(ch.kind)
        } else {
            CauseKind::OtherChange
        };
        return;
    }
    let kind = match tr.kind.as_str() {
        "worker-joined" => CauseKind::WorkerJoined,
        "worker-left" => CauseKind::WorkerLeft,
        "worker-cut-off" => CauseKind::WorkerCutOff,
        _ => return,
    };
    c.kind = kind;
    c.worker.clone_from(&tr.worker);
    if let Some(l) = &tr.line {
        c.lines
            .push(("rebalance set off here".to_string(), l.clone()));
    }
}

fn price_changes(mut changes: Vec<Change>, interruptions: &[Interruption]) -> Vec<Change> {
    for i in interruptions {
        let Some(ci) = i.change else { continue };
        let ch = &mut changes[ci];
        if *i.resource.connector_name() == ch.connector {
            ch.own.add(i);
        } else {
            ch.others.add(i);
            if !ch.other_connectors.contains(i.resource.connector_name()) {
                ch.other_connectors
                    .push(i.resource.connector_name().clone());
            }
            if ch.upstream.is_none() {
                ch.upstream.clone_from(&i.cause.upstream);
            }
        }
    }
    for ch in &mut changes {
        ch.other_connectors.sort();
    }
    changes
}

fn effect(r: RebalanceAcc, trigger: Trigger, interruptions: &[Interruption]) -> Rebalance {
    let mut out = Rebalance {
        group: r.group,
        generation: r.generation,
        line: r.line,
        trigger,
        running_before: r.running_before,
        retained: 0,
        moved: 0,
        restarted: 0,
        started: r.started,
        stopped: 0,
        downtime_ms: 0,
        tasks_before: r.tasks_before,
        tasks_retained: 0,
    };
    let mut tasks_hit = 0;
    for i in interruptions
        .iter()
        .filter(|i| i.generation == Some(out.generation) && i.group == out.group)
    {
        match &i.to {
            None => out.stopped += 1,
            Some(_) if i.moved() => out.moved += 1,
            Some(_) => out.restarted += 1,
        }
        out.downtime_ms += i.ms.filter(|_| i.to.is_some()).unwrap_or(0);
        tasks_hit += u64::from(matches!(i.resource, Resource::Task(_)));
    }
    let hit = out.moved + out.restarted + out.stopped;
    out.retained = out.running_before.saturating_sub(hit);
    out.tasks_retained = out.tasks_before.saturating_sub(tasks_hit);
    out
}

fn per_connector(interruptions: &[Interruption]) -> Vec<ConnectorDowntime> {
    let mut m: BTreeMap<(Arc<str>, Name), ConnectorDowntime> = BTreeMap::new();
    for i in interruptions {
        let c = i.resource.connector_name();
        let d = m
            .entry((i.group.clone(), c.clone()))
            .or_insert_with(|| ConnectorDowntime {
                group: i.group.clone(),
                connector: c.clone(),
                ..ConnectorDowntime::default()
            });
        d.total.add(i);
        if i.to.is_some() {
            d.longest_ms = d.longest_ms.max(i.ms.unwrap_or(0));
        }
        d.by_cause.entry(i.cause.kind).or_default().add(i);
        if i.by_others() {
            d.by_others.add(i);
        }
    }
    m.into_values().collect()
}
