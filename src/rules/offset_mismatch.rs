//! `offset-mismatch-start`: the post-rebalance start of work proceeds while
//! the worker's config snapshot does not match the assignment (docs/rules.md).

use super::Who;
use crate::finding::{Evidence, Finding, Kind};
use crate::model::SourceLine;
use crate::state::{KnownOffset, Received, StartPhase};

/// What the herder itself reported about an assignment's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    /// `Current config state offset X does not match group assignment Y. Forcing rebalance.`
    Mismatch,
    /// `Didn't reach end of config log quickly enough`
    ReadTimedOut,
    /// `Join group completed, but assignment failed …`
    AssignmentFailed,
}

impl Trouble {
    fn says(self) -> &'static str {
        match self {
            Trouble::Mismatch => {
                "that its config snapshot does not match the assignment and a rebalance is needed"
            }
            Trouble::ReadTimedOut => {
                "that it could not read the config log to the assignment's offset"
            }
            Trouble::AssignmentFailed => "that the assignment failed",
        }
    }
}

/// Why starting work at `offset` was wrong, with the lines that show it;
/// `None` when it was right or cannot be judged (no assignment seen).
pub fn check(
    latest: Option<&Received>,
    trouble: Option<(Trouble, &SourceLine)>,
    known: &KnownOffset,
    offset: i64,
) -> Option<(String, Vec<(String, SourceLine)>)> {
    let rec = latest?;
    let a = &rec.assignment;
    let assigned = ("assignment received here".to_string(), rec.line.clone());
    if offset != a.offset {
        return Some((
            format!(
                "work was started with config offset {offset}, but the latest assignment carries offset {}",
                a.offset
            ),
            vec![assigned],
        ));
    }
    if a.failed() {
        return Some((
            format!(
                "work was started on an assignment that failed with error={} (config mismatch at the leader)",
                a.error
            ),
            vec![assigned],
        ));
    }
    if let Some((t, l)) = trouble {
        return Some((
            format!(
                "work was started on an assignment for which the herder itself had reported {}",
                t.says()
            ),
            vec![
                assigned,
                ("the herder reports it here".to_string(), l.clone()),
            ],
        ));
    }
    if let KnownOffset::Known(x, line) = known
        && *x != a.offset
    {
        return Some((
            format!(
                "work was started while the worker's config snapshot was at offset {x}, not at the assignment's offset {}",
                a.offset
            ),
            vec![
                assigned,
                (
                    format!("config snapshot offset {x} known here"),
                    line.clone(),
                ),
            ],
        ));
    }
    None
}

pub fn finding(who: &Who, phase: &StartPhase) -> Option<Finding> {
    let (reason, lines) = phase.mismatch.as_ref()?;
    let mut ev: Vec<Evidence> = lines
        .iter()
        .map(|(r, l)| Evidence::new(r.clone(), l))
        .collect();
    ev.push(Evidence::new("start of work here", &phase.line));
    for (r, l) in &phase.started {
        ev.push(Evidence::new(
            format!("{r} started on the mismatched config"),
            l,
        ));
    }
    let mut f = who.finding(
        Kind::OffsetMismatchStart,
        None,
        &phase.line,
        ev,
        reason.clone(),
        None,
    );
    f.started = phase.started.iter().map(|(r, _)| r.clone()).collect();
    Some(f)
}
