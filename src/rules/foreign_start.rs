//! `foreign-start`: a connector or task is started that is not in the
//! worker's current assignment, or that the latest assignment revokes.

use super::Who;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::replay::state::{Owned, Received};

/// Why the start is foreign, if it is.
pub fn check(owned: Option<&Owned>, latest: Option<&Received>, r: &Resource) -> Option<Foreign> {
    if let Some(rec) = latest
        && rec.assignment.revokes(r)
    {
        return Some(Foreign::Revoked(rec.line.clone()));
    }
    let owned = owned?;
    if owned.holds(r) {
        None
    } else {
        Some(Foreign::NotAssigned(owned.line.clone()))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Foreign {
    /// The latest assignment line revokes it.
    Revoked(SourceLine),
    /// The worker's current assignment (this line) does not hold it.
    NotAssigned(SourceLine),
}

/// How the start came about, for the reason sentence.
#[derive(Debug, Clone)]
pub enum Origin {
    /// The post-rebalance start phase.
    StartPhase,
    /// Restart of a task stopped for a task-config update (this line).
    Reconfigured(SourceLine),
    /// Inside a KIP-745 restart plan (this line).
    RestartPlan(SourceLine),
    /// Any other start (REST restart, connector-config restart, …).
    Other,
}

pub fn finding(
    who: &Who,
    r: &Resource,
    start: &SourceLine,
    why: &Foreign,
    origin: &Origin,
    owner: Option<(&str, &SourceLine)>,
) -> Finding {
    let mut ev = vec![Evidence::new("started here", start)];
    let (assign_line, not_held) = match why {
        Foreign::Revoked(l) => (l, "revoked from this worker here"),
        Foreign::NotAssigned(l) => (
            l,
            "this worker's current assignment, which does not hold it",
        ),
    };
    ev.push(Evidence::new(not_held, assign_line));
    let mut upstream = None;
    let how = match origin {
        Origin::StartPhase => "in the post-rebalance start phase",
        Origin::Reconfigured(stop) => {
            ev.push(Evidence::new("stopped here for a task-config update", stop));
            "as the restart of a reconfigured task, after the rebalance moved it away"
        }
        Origin::RestartPlan(plan) => {
            ev.push(Evidence::new("restart plan executed here", plan));
            upstream = Some("KAFKA-13719");
            "by a REST restart plan"
        }
        Origin::Other => "outside any rebalance",
    };
    if let Some((worker, line)) = owner {
        ev.push(Evidence {
            role: format!("assigned to {worker} in the same generation"),
            worker: Some(worker.to_string()),
            line: line.clone(),
        });
    }
    let owner_txt = owner
        .map(|(w, _)| format!(" (it belongs to {w})"))
        .unwrap_or_default();
    who.finding(
        Kind::ForeignStart,
        Some(r.clone()),
        start,
        ev,
        format!(
            "{r} was started {how} although this worker's assignment does not hold it{owner_txt}"
        ),
        upstream,
    )
}
