//! `DistributedHerder` lines about rebalances: joining the group and the
//! assignment (docs/log-formats.md §1.2), the housekeeping lines around a
//! rebalance, and the config-offset checks (§1.3).

use nom::Parser;
use nom::branch::alt;
use nom::character::complete::{i32 as int32, i64 as int64};
use nom::combinator::{eof, map, value};
use nom::sequence::{preceded, terminated};

use crate::event::parse::common::tag;
use crate::event::parse::common::{PResult, any_rest, assignment, until_last};
use crate::event::{AssignmentFailure, Event};

// ---- assignment (docs/log-formats.md §1.2) ----

/// `Joined group and got assignment: A` (≤ 2.2.2, V0 shape).
pub(super) fn joined_v0(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Joined group and got assignment: "),
            terminated(assignment, eof),
        ),
        |assignment| Event::Assignment {
            generation: None,
            protocol_version: None,
            assignment,
            rebalance_delay: None,
        },
    )
    .parse(i)
}

/// `Joined group at generation N and got assignment: A` (2.3.x).
pub(super) fn joined_at_generation(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Joined group at generation "), int32),
            preceded(tag(" and got assignment: "), assignment),
            eof,
        ),
        |(generation, assignment, _)| Event::Assignment {
            generation: Some(generation),
            protocol_version: None,
            assignment,
            rebalance_delay: None,
        },
    )
    .parse(i)
}

/// `Joined group at generation N with protocol version P and got assignment:
/// A with rebalance delay: D` (2.4+).
pub(super) fn joined_with_protocol(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Joined group at generation "), int32),
            preceded(tag(" with protocol version "), int64),
            preceded(tag(" and got assignment: "), assignment),
            preceded(tag(" with rebalance delay: "), int64),
            eof,
        ),
        |(generation, version, assignment, delay, _)| Event::Assignment {
            generation: Some(generation),
            protocol_version: Some(version),
            assignment,
            rebalance_delay: Some(delay),
        },
    )
    .parse(i)
}

/// The three `Join group completed, but assignment failed…` wordings, with
/// the `we lagging` typo (≤ 3.5) and `we are lagging` (3.6+).
pub(super) fn assignment_failed(i: &str) -> PResult<'_, Event> {
    let how = alt((
        value(
            AssignmentFailure::Leader,
            tag(" and we are the leader. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::Lagging,
            tag(" and we lagging. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::Lagging,
            tag(" and we are lagging. Reading to end of config and retrying."),
        ),
        value(
            AssignmentFailure::UpToDate,
            tag(". We were up to date, so just retrying."),
        ),
    ));
    map(
        preceded(
            tag("Join group completed, but assignment failed"),
            terminated(how, eof),
        ),
        Event::AssignmentFailed,
    )
    .parse(i)
}

/// `Finished stopping tasks in preparation for rebalance`
pub(super) fn finished_stopping_for_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedStoppingForRebalance,
        (
            tag("Finished stopping tasks in preparation for rebalance"),
            eof,
        ),
    )
    .parse(i)
}

/// `Finished flushing status backing store in preparation for rebalance` (2.4+)
pub(super) fn finished_flushing_status(i: &str) -> PResult<'_, Event> {
    value(
        Event::FinishedFlushingStatus,
        (
            tag("Finished flushing status backing store in preparation for rebalance"),
            eof,
        ),
    )
    .parse(i)
}

/// `Wasn't unable to resume work after last rebalance, can skip stopping
/// connectors and tasks` (sic, ≤ 2.4) / `Wasn't able to …` (2.5+).
pub(super) fn skip_stopping_unresolved(i: &str) -> PResult<'_, Event> {
    value(
        Event::SkipStoppingUnresolved,
        (
            alt((tag("Wasn't unable"), tag("Wasn't able"))),
            tag(" to resume work after last rebalance, can skip stopping connectors and tasks"),
            eof,
        ),
    )
    .parse(i)
}

/// DEBUG `Requesting rebalance due to reconfiguration of tasks (needsReconfigRebalance: true)`
pub(super) fn reconfig_rebalance_requested(i: &str) -> PResult<'_, Event> {
    value(
        Event::ReconfigRebalanceRequested,
        (
            tag("Requesting rebalance due to reconfiguration of tasks"),
            any_rest,
        ),
    )
    .parse(i)
}

/// DEBUG `Scheduled rebalance at: {} (now: {} nextRequestTimeoutMs: {}) ` (≤ 3.3)
/// and `… (now: {} scheduledTick: {}) ` (3.5+).
pub(super) fn scheduled_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::ScheduledRebalance { reached: false },
        (tag("Scheduled rebalance at: "), any_rest),
    )
    .parse(i)
}

/// DEBUG `Requesting rebalance because scheduled rebalance timeout has been
/// reached (now: {} scheduledRebalance: {}` (≤ 3.6, unbalanced paren) and
/// `… reached now: {} scheduledRebalance: {}` (3.8+).
pub(super) fn scheduled_rebalance_reached(i: &str) -> PResult<'_, Event> {
    value(
        Event::ScheduledRebalance { reached: true },
        (
            tag("Requesting rebalance because scheduled rebalance timeout has been reached"),
            any_rest,
        ),
    )
    .parse(i)
}

/// WARN `worker poll timeout has expired. The last known action …` (3.8+)
pub(super) fn poll_timeout_expired(i: &str) -> PResult<'_, Event> {
    value(
        Event::PollTimeoutExpired,
        (tag("worker poll timeout has expired."), any_rest),
    )
    .parse(i)
}

/// DH `Rebalance started` (≤ 2.2.2, inside onRevoked).
pub(super) fn rebalance_started(i: &str) -> PResult<'_, Event> {
    value(
        Event::RebalanceStarted { by_herder: true },
        (tag("Rebalance started"), eof),
    )
    .parse(i)
}

// ---- config-offset checks (docs/log-formats.md §1.3) ----

/// DEBUG `Handling completed but unresolved rebalance` (2.6.3+)
pub(super) fn unresolved_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::UnresolvedRebalance,
        (tag("Handling completed but unresolved rebalance"), eof),
    )
    .parse(i)
}

/// WARN `Catching up to assignment's config offset.`
pub(super) fn catching_up(i: &str) -> PResult<'_, Event> {
    value(
        Event::CatchingUp,
        (tag("Catching up to assignment's config offset."), eof),
    )
    .parse(i)
}

/// `Current config state offset X is behind group assignment Y, reading to end of config log`
pub(super) fn config_behind(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Current config state offset "), int64),
            preceded(tag(" is behind group assignment "), int64),
            tag(", reading to end of config log"),
            eof,
        ),
        |(current, assignment, _, _)| Event::ConfigBehind {
            current,
            assignment,
        },
    )
    .parse(i)
}

/// `Current config state offset X does not match group assignment Y. Forcing rebalance.`
pub(super) fn config_mismatch(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Current config state offset "), int64),
            preceded(tag(" does not match group assignment "), int64),
            tag(". Forcing rebalance."),
            eof,
        ),
        |(current, assignment, _, _)| Event::ConfigMismatch {
            current,
            assignment,
        },
    )
    .parse(i)
}

/// `Reading to end of config log; current config state offset: X` (2.6.3+)
pub(super) fn reading_to_end(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Reading to end of config log; current config state offset: "),
            terminated(int64, eof),
        ),
        |current| Event::ReadingToEnd { current },
    )
    .parse(i)
}

/// `Finished reading to end of log and updated config snapshot, new config log offset: Z`
pub(super) fn finished_reading_to_end(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Finished reading to end of log and updated config snapshot, new config log offset: "),
            terminated(int64, eof),
        ),
        |offset| Event::FinishedReadingToEnd { offset },
    )
    .parse(i)
}

/// WARN `Didn't reach end of config log quickly enough`
pub(super) fn read_to_end_timed_out(i: &str) -> PResult<'_, Event> {
    value(
        Event::ReadToEndTimedOut,
        (tag("Didn't reach end of config log quickly enough"), eof),
    )
    .parse(i)
}

/// `Revoking current running assignment {} because after {} retries the
/// worker has not caught up with the latest Connect cluster updates` (2.5.1+)
pub(super) fn revoking_after_retries(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            (
                tag("Revoking current running assignment "),
                until_last(" because after "),
            ),
            terminated(int64, (tag(" retries"), any_rest)),
        ),
        |retries| Event::RevokingAfterRetries { retries },
    )
    .parse(i)
}
