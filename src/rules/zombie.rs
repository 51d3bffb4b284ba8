//! `zombie` (one worker): an assignment line revokes a resource the worker
//! is running, and no stop of it was logged in that rebalance (cooperative
//! revocations are stopped before the assignment line).

use super::{Who, instance_evidence};
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::state::ResState;

/// Is a revoked resource in state `state` left running? A failed instance
/// (its start failed, even if the Worker still holds it) processes nothing
/// and is no zombie.
pub fn check(state: Option<&ResState>, attempted_stop: bool) -> bool {
    !attempted_stop
        && matches!(
            state,
            Some(ResState::Running {
                zombie_reported: false,
                ..
            }) | Some(ResState::Held { .. })
                | Some(ResState::Starting { .. })
        )
}

pub fn finding(
    who: &Who,
    r: &Resource,
    assignment: &SourceLine,
    state: Option<&ResState>,
    skipped: Option<&SourceLine>,
    rebalance_start: Option<&SourceLine>,
) -> Finding {
    let mut ev = vec![Evidence::new(
        "revoked here, with no stop logged",
        assignment,
    )];
    ev.extend(instance_evidence(state));
    if let Some(l) = rebalance_start {
        ev.push(Evidence::new("rebalance began here", l));
    }
    let upstream = skipped.map(|l| {
        ev.push(Evidence::new("the herder skipped stopping revoked work", l));
        "KAFKA-10763"
    });
    who.finding(
        Kind::Zombie,
        Some(r.clone()),
        assignment,
        ev,
        format!("{r} was revoked from this worker but never stopped: it keeps running"),
        upstream,
    )
}
