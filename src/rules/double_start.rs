//! `double-start`: a resource is started while an instance already runs on
//! the same worker (including a start the Worker refuses because the task
//! already exists).

use super::{Who, instance_evidence};
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use crate::state::ResState;

/// Is a start of a resource in state `prev` a second instance?
pub fn check(prev: Option<&ResState>) -> bool {
    prev.is_some_and(ResState::is_live)
}

pub fn finding(who: &Who, r: &Resource, start: &SourceLine, prev: Option<&ResState>) -> Finding {
    let mut ev = vec![Evidence::new("started again here", start)];
    ev.extend(instance_evidence(prev));
    who.finding(
        Kind::DoubleStart,
        Some(r.clone()),
        start,
        ev,
        format!("{r} was started while an instance of it was still running on this worker, never stopped"),
        None,
    )
}

/// The Worker refused the start: `… already exists`.
pub fn refused(
    who: &Who,
    r: &Resource,
    start: &SourceLine,
    refusal: &SourceLine,
    prev: Option<&ResState>,
) -> Finding {
    let mut ev = vec![
        Evidence::new("started again here", start),
        Evidence::new("the Worker refuses: an instance already exists", refusal),
    ];
    ev.extend(instance_evidence(prev));
    who.finding(
        Kind::DoubleStart,
        Some(r.clone()),
        start,
        ev,
        format!("{r} was started while an instance of it already existed on this worker"),
        None,
    )
}
