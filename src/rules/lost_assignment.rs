//! `lost-assignment`: a rebalance completed, but an assigned, non-revoked
//! resource known not to be running was neither started nor failed.

use super::Who;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::state::ResState;

/// Is a resource in state `state` lost once the start phase has ended
/// without starting it? `baseline_empty` says that resources the log never
/// mentioned are known not to run (worker restart, eager rebalance). Returns
/// `Some(line)` with the line that shows it was not running, `Some(None)`
/// when the baseline shows it, `None` when it is not lost or unknown.
pub fn check(state: Option<&ResState>, baseline_empty: bool) -> Option<Option<SourceLine>> {
    match state {
        Some(ResState::Stopped { at }) => Some(Some(at.clone())),
        // A failed start is the herder's attempt: the task stays FAILED
        // until reconfigured or restarted, and is not started again.
        Some(_) => None,
        None if baseline_empty => Some(None),
        None => None,
    }
}

pub fn finding(
    who: &Who,
    r: &Resource,
    assignment: &SourceLine,
    finished: &SourceLine,
    not_running: Option<&SourceLine>,
    baseline: Option<&SourceLine>,
    upstream: Option<&'static str>,
) -> Finding {
    let mut ev = vec![
        Evidence::new("assigned here, not revoked", assignment),
        Evidence::new("start phase finished without starting it", finished),
    ];
    if let Some(l) = not_running {
        ev.push(Evidence::new("not running since", l));
    } else if let Some(l) = baseline {
        ev.push(Evidence::new("nothing running since", l));
    }
    who.finding(
        Kind::LostAssignment,
        Some(r.clone()),
        finished,
        ev,
        format!("{r} is assigned to this worker, was not running, and the rebalance completed without starting it"),
        upstream,
    )
}
