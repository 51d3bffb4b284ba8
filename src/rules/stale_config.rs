//! `stale-config-start`: a task started from task configs the worker has
//! already seen superseded. Either a connector deleted and created again
//! under the same name has a task started before the new connector wrote
//! any task configs, so the task runs with the deleted connector's configs
//! (KAFKA-8869), or a task is started whose index the connector's latest
//! task configs, already read, no longer hold (tasks.max lowered: the task
//! runs with the config of the connector's previous task set) (docs/rules.md,
//! `stale-config-start`).

use super::Who;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::state::ConfigFacts;

/// The lines that make a task start stale.
#[derive(Debug, Clone, PartialEq)]
pub struct Stale {
    /// `Connector X config removed`.
    pub removed: SourceLine,
    /// The first `Connector X config updated` after it: the re-creation.
    pub recreated: SourceLine,
}

/// Is a start of a task of the connector `facts` describes stale?
/// `process_start` is the worker's latest start in the log: the config topic
/// it read silently then may hold the new connector and its task configs, so
/// a removal or a re-creation before it proves nothing. Every such start is reported: each
/// runs the task with the deleted connector's configs again (an eager
/// rebalance restarts it with them).
pub fn check(facts: Option<&ConfigFacts>, process_start: Option<&SourceLine>) -> Option<Stale> {
    let f = facts?;
    // Unknown is not empty: without the removal in the log there is no
    // re-creation to speak of.
    let removed = f.removed.as_deref()?;
    let recreated = f.recreated.as_deref()?;
    // A start between the removal and the re-creation read the config topic
    // silently too (a restarted worker logs no `config updated` for the
    // records it reads at start-up: 3.6.2 kill-worker capture): the
    // connector may have been created again, unlogged, while it was down,
    // and the `config updated` after it be a reconfiguration.
    if !removed.before(recreated) || process_start.is_some_and(|p| removed.before(p)) {
        return None;
    }
    // Any `Tasks [...] configs updated` line naming the connector's tasks
    // since the re-creation may carry the new connector's configs (2.5.1+:
    // the tasks are assigned only after it).
    let claimed = [f.single_claim.as_ref(), f.multi_claim.as_deref()]
        .into_iter()
        .flatten()
        .any(|c| recreated.before(c));
    if claimed {
        return None;
    }
    Some(Stale {
        removed: removed.clone(),
        recreated: recreated.clone(),
    })
}

/// The line that superseded a task's config: the connector's latest task
/// configs, already read, hold fewer tasks than the index started.
#[derive(Debug, Clone, PartialEq)]
pub struct Superseded {
    /// `Tasks [X-0, …, X-(count-1)] configs updated`.
    pub claim: SourceLine,
    /// How many tasks the connector has since that line.
    pub count: u32,
}

/// Is a start of task `index` of the connector `facts` describes made from
/// a task config the worker has already read superseded? It is when the
/// latest `Tasks [...] configs updated` line naming the connector's tasks
/// names only its tasks, exactly `X-0 … X-(k-1)`, and `index` ≥ k. A
/// connector's task configs are always written whole, tasks `0 … k-1` and a
/// commit of their count (`KafkaConfigBackingStore.putTaskConfigs`), and the
/// line names the tasks of that commit; the backing store keeps the configs
/// of the tasks past the count (`taskConfigs.putAll`, nothing removed), and
/// `DistributedHerder.startTask` starts an assigned task from them when the
/// leader's assignment was made from an older snapshot (real 4.4.0
/// chaos-s4: tasks.max lowered from 3 to 1 while a worker was frozen; after
/// its thaw it logs `Tasks [c2-0] configs updated`, stops c2-1 for it, and
/// starts c2-1 again in the next generation, whose leader had read less).
/// `process_start` as in [`check`]: a claim before the worker's latest
/// start may have been followed by others it read silently.
pub fn superseded(
    facts: Option<&ConfigFacts>,
    process_start: Option<&SourceLine>,
    index: u32,
) -> Option<Superseded> {
    let f = facts?;
    let claim = f.single_claim.as_ref()?;
    // A line naming other connectors' tasks as well (up to 2.3.0 every
    // such line names every task, KAFKA-8676) is not one commit: nothing
    // is proved after it.
    if f.multi_claim.as_deref().is_some_and(|m| claim.before(m)) {
        return None;
    }
    if process_start.is_some_and(|p| claim.before(p)) {
        return None;
    }
    // A removal since belongs to KAFKA-8869's case (or to no finding).
    if f.removed.as_deref().is_some_and(|r| claim.before(r)) {
        return None;
    }
    let set = f.task_set.as_deref()?;
    let count = u32::try_from(set.len()).ok()?;
    // The set is sorted without repeats: it is 0..count exactly when its
    // last index is count - 1.
    let whole = set.last().is_some_and(|&last| last + 1 == count);
    (whole && index >= count).then(|| Superseded {
        claim: claim.clone(),
        count,
    })
}

pub fn superseded_finding(who: &Who, r: &Resource, start: &SourceLine, s: &Superseded) -> Finding {
    let c = r.connector_name();
    let ev = vec![
        Evidence::new(
            format!(
                "the connector's task configs read here: {} task(s), without this one",
                s.count
            ),
            &s.claim,
        ),
        Evidence::new(
            "started here, with no task configs naming it read since",
            start,
        ),
    ];
    who.finding(
        Kind::StaleConfigStart,
        Some(r.clone()),
        start,
        ev,
        format!(
            "{r} was started after this worker read connector {c}'s task configs for {} task(s), which no longer include it: it runs with a task config the connector has superseded",
            s.count
        ),
        None,
    )
}

pub fn finding(who: &Who, r: &Resource, start: &SourceLine, stale: &Stale) -> Finding {
    let c = r.connector_name();
    let ev = vec![
        Evidence::new("the connector is deleted here", &stale.removed),
        Evidence::new("created again under the same name here", &stale.recreated),
        Evidence::new(
            "started here, before the new connector wrote any task configs",
            start,
        ),
    ];
    who.finding(
        Kind::StaleConfigStart,
        Some(r.clone()),
        start,
        ev,
        format!(
            "{r} was started after connector {c} was deleted and created again, with no task configs of the new connector since: it runs with the deleted connector's task configs"
        ),
        Some("KAFKA-8869"),
    )
}
