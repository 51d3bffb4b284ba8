//! An interruption's length: on one worker's clock, or across two with
//! the skew taken out by a generation both joined; for a worker that fell
//! silent, bounded by the rebalance that noticed it.

use super::{Group, ts};
use crate::interruptions::{Clock, Edge, Interruption};
use crate::model::SourceLine;
use std::sync::Arc;

impl Group {
    /// The first rebalance another worker than `silent` began after
    /// `last`, with `silent`'s session timeout.
    pub(super) fn noticed(
        &self,
        silent: &Arc<str>,
        last: &SourceLine,
        timeout: i64,
    ) -> Option<(Edge, i64)> {
        let t = ts(last)?;
        self.rebalance_starts
            .iter()
            .find(|e| e.worker != *silent && ts(&e.line).is_some_and(|x| x > t))
            .map(|e| (e.clone(), timeout))
    }
}

/// An interruption's length up to `to`: from its first line, or, for a
/// worker that fell silent, from a session timeout before the rebalance
/// that noticed it if that is later.
pub(super) fn length(
    g: &Group,
    it: &Interruption,
    to: &Edge,
    generation: Option<i32>,
) -> (Option<i64>, Clock) {
    let (ms, clock) = measure(g, &it.from, to, generation);
    match &it.noticed {
        Some((seen, timeout)) => {
            let (since, _) = measure(g, seen, to, generation);
            let bounded = match (ms, since) {
                (Some(a), Some(b)) => Some(a.min(b + timeout)),
                (a, _) => a,
            };
            (bounded, clock)
        }
        None => (ms, clock),
    }
}

/// The length from `from` to `to`: exact on one worker's clock; across two,
/// the skew taken out with a generation both joined (the one `to`'s worker
/// was in, else the latest both were in).
pub(super) fn measure(
    g: &Group,
    from: &Edge,
    to: &Edge,
    generation: Option<i32>,
) -> (Option<i64>, Clock) {
    let (Some(a), Some(b)) = (ts(&from.line), ts(&to.line)) else {
        return (None, Clock::Unanchored);
    };
    let raw = b - a;
    if from.worker == to.worker {
        return (Some(raw), Clock::OneWorker);
    }
    let both = |n: &i32| {
        g.anchors.get(n).and_then(|m| {
            let x = m.get(&from.worker)?;
            let y = m.get(&to.worker)?;
            Some((*n, *x, *y))
        })
    };
    let anchor = generation.as_ref().and_then(both).or_else(|| {
        g.anchors
            .keys()
            .rev()
            .filter(|n| generation.is_none_or(|c| **n <= c))
            .find_map(both)
    });
    let (ms, clock) = match anchor {
        Some((n, x, y)) => (
            Some((b - y) + (x - a)),
            Clock::TwoWorkers {
                generation: n,
                raw_ms: raw,
            },
        ),
        None => (Some(raw), Clock::Unanchored),
    };
    (ms.map(|m| m.max(0)), clock)
}
