//! A log's `stale-config-start` against the config topic (docs/topics.md,
//! "stale-config-start: the start's config offset"): the task was started
//! in a start phase at `config offset N`, and the config topic replayed up
//! to N (the snapshot the worker held, `Topics::snapshot_at`) shows which
//! task config it held for the task and why that config was stale:
//!
//! * **superseded**: the connector's task configs committed by N are fewer
//!   than the task's index (the task no longer exists), and the config the
//!   snapshot still holds for it is one of an older commit of the same
//!   connector (the snapshot keeps it: `ClusterConfigState.taskConfig`);
//! * **of a deleted incarnation** (KAFKA-8869): the connector was deleted
//!   and created again by N, the new incarnation committed no task configs
//!   by then, and the only config held for the task is the deleted
//!   incarnation's (kept by releases up to 2.5.0; later ones drop it, and
//!   could not have started the task from it).
//!
//! A config topic is compacted: a task config rewritten later may be gone
//! from a dump, and then the snapshot at N lacks it. Nothing is said then:
//! an absent record proves nothing.

use super::check::Topics;
use super::config::{Family, Replay};
use super::record::Body;
use crate::finding::Evidence;
use crate::model::TaskId;

fn ev(t: &Topics, i: usize, role: String) -> Evidence {
    let r = &t.records[i].raw;
    Evidence {
        role,
        worker: None,
        line: r.line.clone(),
        record: Some(r.at.clone()),
    }
}

fn offset(t: &Topics, i: usize) -> String {
    t.records[i]
        .raw
        .at
        .offset
        .map_or("?".to_string(), |o| o.to_string())
}

/// The config records backing a log's stale start of `task` at config
/// offset `n`, and what they show (a clause for the finding's reason).
pub fn backing(t: &Topics, task: &TaskId, n: i64) -> Option<(Vec<Evidence>, String)> {
    // the topic must reach N, every record's offset known
    let offsets: Option<Vec<i64>> = t
        .config
        .iter()
        .map(|&i| t.records[i].raw.at.offset)
        .collect();
    if offsets?.iter().max().is_none_or(|&m| m < n - 1) {
        return None;
    }
    // releases up to 2.5.0 keep a deleted incarnation's task configs; in
    // every other respect the replay is every release's up to N
    let mut r = Replay::new(Family::UpTo2_5_0);
    for &i in &t.config {
        let at = t.records[i].raw.at.offset;
        if at.is_none_or(|o| o >= n) {
            break;
        }
        if let Body::Config(c) = &t.records[i].body {
            r.apply(i, at, c);
        }
    }
    let c = &task.connector;
    let snap = &r.snapshot;
    let h = r.history.get(c)?;
    let held = *snap.task_configs.get(task)?;
    let made_live = h.commits.iter().find(|k| {
        k.applied
            .as_ref()
            .is_some_and(|a| a.get(&task.index) == Some(&held.at))
    })?;
    let current = h.incarnations.len().checked_sub(1)?;
    let mut out = vec![
        ev(
            t,
            held.at,
            format!("the config of {task} held at config offset {n}"),
        ),
        ev(
            t,
            made_live.at,
            format!("{} task config(s) of {c} committed", made_live.tasks),
        ),
    ];
    if held.incarnation == current && snap.connectors.contains_key(c) {
        let count = snap.task_counts.get(c).copied().unwrap_or(0);
        let last = h.commits.last()?;
        if task.index < count || snap.inconsistent.contains(c) || last.at == made_live.at {
            return None;
        }
        out.push(ev(
            t,
            last.at,
            format!("{count} task config(s) of {c} committed: the live set at config offset {n}"),
        ));
        let why = format!(
            "the config topic at config offset {n} agrees: connector {c}'s live task configs, committed at offset {}, are {count} task(s), without {task}; the config of {task} held there is the superseded one committed at offset {}",
            offset(t, last.at),
            offset(t, made_live.at)
        );
        return Some((out, why));
    }
    // of a deleted incarnation, the new one with no commit by N
    let old = h.incarnations.get(held.incarnation)?;
    let deleted = old.deleted?;
    let next = h.incarnations.get(held.incarnation + 1)?;
    let new_commit = h
        .commits
        .iter()
        .any(|k| k.incarnation > held.incarnation && k.applied.is_some());
    if new_commit || !snap.connectors.contains_key(c) {
        return None;
    }
    out.push(ev(t, deleted, format!("connector {c} deleted")));
    out.push(ev(t, next.created, format!("connector {c} created again")));
    let why = format!(
        "the config topic at config offset {n} agrees: connector {c} was deleted (offset {}) and created again (offset {}) with no task configs committed since, and the only config of {task} held there is the deleted connector's, committed at offset {}",
        offset(t, deleted),
        offset(t, next.created),
        offset(t, made_live.at)
    );
    Some((out, why))
}
