//! `foreign-start`: a connector or task is started that is not in the
//! worker's current assignment, or that the latest assignment revokes.

use super::Who;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::state::{Owned, Received};

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
    let reason = match origin {
        Origin::StartPhase => format!(
            "{r} was started in the post-rebalance start phase, but this worker's assignment does not hold it"
        ),
        Origin::Reconfigured(stop) => {
            ev.push(Evidence::new("stopped here for a task-config update", stop));
            format!(
                "{r} was restarted after its task-config update, but the rebalance had moved it off this worker"
            )
        }
        Origin::RestartPlan(plan) => {
            ev.push(Evidence::new("restart plan executed here", plan));
            upstream = Some("KAFKA-13719");
            format!(
                "{r} was started by a REST restart plan, but this worker's assignment does not hold it"
            )
        }
        Origin::Other => format!(
            "{r} was started outside any rebalance, but this worker's assignment does not hold it"
        ),
    };
    who.finding(
        Kind::ForeignStart,
        Some(r.clone()),
        start,
        ev,
        reason,
        upstream,
    )
}
