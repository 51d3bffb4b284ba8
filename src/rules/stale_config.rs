//! `stale-config-start` (KAFKA-8869): a connector deleted and created again
//! under the same name has a task started before the new connector wrote
//! any task configs, so the task runs with the deleted connector's configs
//! (docs/rules.md, `stale-config-start`).

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
