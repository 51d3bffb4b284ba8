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
use super::config::Family;
use crate::finding::Evidence;
use crate::model::TaskId;

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
    let r = t.replay_to(Family::UpTo2_5_0, n);
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
        t.ev(
            format!("the config of {task} held at config offset {n}"),
            held.at,
        ),
        t.ev(
            format!("{} task config(s) of {c} committed", made_live.tasks),
            made_live.at,
        ),
    ];
    if held.incarnation == current && snap.connectors.contains_key(c) {
        let count = snap.task_counts.get(c).copied().unwrap_or(0);
        let last = h.commits.last()?;
        if task.index < count || snap.inconsistent.contains(c) || last.at == made_live.at {
            return None;
        }
        out.push(t.ev(
            format!("{count} task config(s) of {c} committed: the live set at config offset {n}"),
            last.at,
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
    out.push(t.ev(format!("connector {c} deleted"), deleted));
    out.push(t.ev(format!("connector {c} created again"), next.created));
    let why = format!(
        "the config topic at config offset {n} agrees: connector {c} was deleted (offset {}) and created again (offset {}) with no task configs committed since, and the only config of {task} held there is the deleted connector's, committed at offset {}",
        offset(t, deleted),
        offset(t, next.created),
        offset(t, made_live.at)
    );
    Some((out, why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SourceId;
    use crate::topics::{dump, record};
    use std::sync::Arc;

    fn topics(text: &str) -> Topics {
        let d = dump::read(SourceId(0), text.as_bytes());
        assert!(d.skipped.is_empty(), "{:?}", d.skipped);
        let recs = d
            .records
            .into_iter()
            .map(|mut raw| {
                raw.at.topic = Some(Arc::from("connect-configs"));
                record::classify(raw).map_err(|e| e.message).unwrap()
            })
            .collect();
        Topics::new(recs)
    }

    fn offsets(ev: &[Evidence]) -> Vec<i64> {
        ev.iter()
            .map(|e| e.record.as_ref().unwrap().offset.unwrap())
            .collect()
    }

    /// The real 2.4.1 `kafka-8869` config topic: c (2 tasks) deleted at
    /// offset 5, created again at 7, its new task configs committed at 11.
    #[test]
    fn real_2_4_1_kafka_8869_a_start_at_offset_8_holds_the_deleted_incarnations_config() {
        let text = std::fs::read_to_string(format!(
            "{}/tests/topics/2.4.1-kafka-8869/connect-2-4-1-kafka-8869-configs.console.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let t = topics(&text);
        let (ev, why) = backing(&t, &TaskId::new("c", 1), 8).unwrap();
        assert_eq!(offsets(&ev), [3, 4, 5, 7]);
        assert!(
            why.contains("deleted (offset 5) and created again (offset 7)"),
            "{why}"
        );
        assert!(why.contains("committed at offset 4"), "{why}");
        // after the new incarnation's commit, the config held is its own
        assert!(backing(&t, &TaskId::new("c", 1), 12).is_none());
        // a task the deleted incarnation never had: nothing held
        assert!(backing(&t, &TaskId::new("c", 2), 8).is_none());
        // an offset the dump does not reach proves nothing
        assert!(backing(&t, &TaskId::new("c", 1), 500).is_none());
    }

    /// Three tasks committed, then one: task 2 started at an offset past
    /// the second commit holds the first commit's config (superseded);
    /// started before it, its config was live.
    #[test]
    fn a_task_the_live_set_no_longer_holds_is_superseded() {
        let text = [
            "CreateTime:1000\tPartition:0\tOffset:0\tconnector-c\t{\"properties\":{\"name\":\"c\"}}",
            "CreateTime:1001\tPartition:0\tOffset:1\ttask-c-0\t{\"properties\":{\"i\":\"0\"}}",
            "CreateTime:1001\tPartition:0\tOffset:2\ttask-c-1\t{\"properties\":{\"i\":\"1\"}}",
            "CreateTime:1001\tPartition:0\tOffset:3\ttask-c-2\t{\"properties\":{\"i\":\"2\"}}",
            "CreateTime:1002\tPartition:0\tOffset:4\tcommit-c\t{\"tasks\":3}",
            "CreateTime:2000\tPartition:0\tOffset:5\ttask-c-0\t{\"properties\":{\"i\":\"0\"}}",
            "CreateTime:2001\tPartition:0\tOffset:6\tcommit-c\t{\"tasks\":1}",
            "CreateTime:2002\tPartition:0\tOffset:7\tsession-key\t{\"key\":\"k\",\"algorithm\":\"HmacSHA256\",\"creation-timestamp\":1}",
        ]
        .join("\n");
        let t = topics(&text);
        let (ev, why) = backing(&t, &TaskId::new("c", 2), 8).unwrap();
        assert_eq!(offsets(&ev), [3, 4, 6]);
        assert!(
            why.contains("committed at offset 6, are 1 task(s), without c-2"),
            "{why}"
        );
        assert!(backing(&t, &TaskId::new("c", 2), 5).is_none());
        assert!(backing(&t, &TaskId::new("c", 0), 8).is_none());
    }
}
