//! Group-membership lines (docs/log-formats.md §1.1): `AbstractCoordinator` (≤ 2.8) and
//! `WorkerCoordinator` (its own lines, and AC's from 3.0 on), plus the
//! assignors' `Was selected to perform assignments…`.

use nom::Parser;
use nom::branch::alt;
use nom::character::complete::i64 as int64;
use nom::combinator::{eof, map, not, opt, value};
use nom::sequence::{preceded, terminated};

use super::common::{PResult, any_rest, assignment, generation, rest1, take_until, until_last};
use super::common::{name, tag};
use super::run;
use crate::event::Event;

/// Dispatches a WC / AC message on its first byte.
pub(super) fn parse(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'(' => run(rejoining, msg),
        b'S' => run(
            alt((joined_generation, synced_generation, leave_group_plain)),
            msg,
        ),
        b'R' => run(
            alt((
                rebalance_started,
                rebalance_failed,
                request_joining,
                revoking_previous,
                resetting_generation,
            )),
            msg,
        ),
        b'c' | b'T' => run(poll_timeout, msg),
        b'A' => run(alt((heartbeat_rebalancing, heartbeat_fenced)), msg),
        b'M' => run(leave_group, msg),
        b'C' => run(cooperative_rebalance, msg),
        b'B' => run(coordinator_unreachable, msg),
        b'W' => run(leader_lacks_config, msg),
        b'G' => run(session_timed_out, msg),
        b'J' => run(join_group_unknown_member, msg),
        _ => None,
    }
}

/// `(Re-)joining group` / 0.11-era `(Re-)joining group <group>`.
fn rejoining(i: &str) -> PResult<'_, Event> {
    preceded(
        tag("(Re-)joining group"),
        alt((
            value(None, eof),
            map(preceded(tag(" "), rest1), |g: &str| Some(g.to_string())),
        )),
    )
    .map(|group| Event::Rejoining { group })
    .parse(i)
}

/// `Successfully joined group with generation 7`,
/// `… with generation Generation{generationId=7, memberId='…', protocol='…'}`,
/// 0.11-era `Successfully joined group <group> with generation 1`.
fn joined_generation(i: &str) -> PResult<'_, Event> {
    let no_group = map(tag("with generation "), |_| None);
    let group = map(until_last(" with generation "), Some);
    map(
        preceded(
            tag("Successfully joined group "),
            (alt((no_group, group)), terminated(generation, eof)),
        ),
        |(group, g)| Event::JoinedGeneration {
            generation: g.id,
            member_id: g.member_id.map(name),
            protocol: g.protocol,
            group: group.map(str::to_string),
        },
    )
    .parse(i)
}

/// `Successfully synced group in generation Generation{…}` (2.6.3+).
fn synced_generation(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Successfully synced group in generation "),
            terminated(generation, eof),
        ),
        |g| Event::SyncedGeneration {
            generation: g.id,
            member_id: g.member_id.map(name),
            protocol: g.protocol,
        },
    )
    .parse(i)
}

/// WC `Rebalance started` (2.3.0+). `Rebalance failed.` is not this.
fn rebalance_started(i: &str) -> PResult<'_, Event> {
    value(
        Event::RebalanceStarted { by_herder: false },
        (tag("Rebalance started"), eof),
    )
    .parse(i)
}

/// AC `Rebalance failed.` ([`Event::RebalanceFailed`]): its cause follows
/// on the next line.
fn rebalance_failed(i: &str) -> PResult<'_, Event> {
    value(Event::RebalanceFailed, (tag("Rebalance failed."), eof)).parse(i)
}

/// `Request joining group due to: <reason>` (WC DEBUG 3.0+, AC INFO 3.3+).
fn request_joining(i: &str) -> PResult<'_, Event> {
    map(
        preceded(tag("Request joining group due to: "), rest1),
        |r| Event::RequestJoining {
            reason: r.to_string(),
        },
    )
    .parse(i)
}

/// WC DEBUG `Revoking previous assignment {}`.
fn revoking_previous(i: &str) -> PResult<'_, Event> {
    value(
        Event::RevokingPreviousAssignment,
        (tag("Revoking previous assignment "), any_rest),
    )
    .parse(i)
}

/// AC `Attempt to heartbeat failed since group is rebalancing` (≤ 2.8).
fn heartbeat_rebalancing(i: &str) -> PResult<'_, Event> {
    value(
        Event::HeartbeatRebalancing,
        (
            tag("Attempt to heartbeat failed since group is rebalancing"),
            eof,
        ),
    )
    .parse(i)
}

/// The heartbeat thread finds the worker out of the group's generation
/// ([`Event::HeartbeatFenced`]). The `stale …, ignoring the error` variant
/// (a generation the worker already left behind) is not this.
fn heartbeat_fenced(i: &str) -> PResult<'_, Event> {
    let current = map(
        (
            tag("Attempt to heartbeat with "),
            not(tag("stale ")),
            take_until(" failed due to "),
            tag(" failed due to "),
            take_until(", resetting generation"),
            tag(", resetting generation"),
            eof,
        ),
        |(_, _, g, _, e, _, _): (&str, (), &str, &str, &str, &str, &str)| {
            (e.to_string(), generation_id(g))
        },
    );
    let unknown_member = map(
        (
            tag("Attempt to heartbeat failed for since member id "),
            take_until(" is not valid."),
            tag(" is not valid."),
            eof,
        ),
        |_| ("UNKNOWN_MEMBER_ID".to_string(), None),
    );
    let illegal_generation = map(
        (
            tag("Attempt to heartbeat failed since generation "),
            take_until(" is not current"),
            tag(" is not current"),
            eof,
        ),
        |(_, g, _, _): (&str, &str, &str, &str)| ("ILLEGAL_GENERATION".to_string(), g.parse().ok()),
    );
    map(
        alt((current, unknown_member, illegal_generation)),
        |(error, generation)| Event::HeartbeatFenced { error, generation },
    )
    .parse(i)
}

/// `JoinGroup failed: The coordinator is not aware of this member. Need to
/// re-join the group. Sent generation was Generation{generationId=N, …}`
/// (2.7+, AC's JoinGroup response handler; up to 2.6 the UNKNOWN_MEMBER_ID
/// JoinGroup response is logged at DEBUG only): the worker rejoined with
/// the member id of generation N, which the coordinator no longer knows (its
/// session expired, a frozen worker resuming before its heartbeat thread
/// learns it): fenced out of N like [`Event::HeartbeatFenced`], and, as
/// there, nothing is revoked (a cooperative `onJoinPrepare` keeps the
/// assignment). A member that sent no generation (`generationId=-1`) left
/// none.
fn join_group_unknown_member(i: &str) -> PResult<'_, Event> {
    let (rest, g) = preceded(
        (
            tag("JoinGroup failed: The coordinator is not aware of this member."),
            take_until("Sent generation was "),
            tag("Sent generation was "),
        ),
        any_rest,
    )
    .parse(i)?;
    match generation_id(g) {
        Some(n) if n >= 0 => Ok((
            rest,
            Event::HeartbeatFenced {
                error: "UNKNOWN_MEMBER_ID".to_string(),
                generation: Some(n),
            },
        )),
        _ => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Verify,
        ))),
    }
}

/// The generation `Generation{generationId=N, …}` names (2.6+).
fn generation_id(s: &str) -> Option<i32> {
    let rest = s.strip_prefix("Generation{generationId=")?;
    let end = rest.find(|c: char| c != '-' && !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

/// `Group coordinator <node> is unavailable or invalid due to cause:
/// session timed out without receiving a heartbeat response.…`
/// ([`Event::SessionTimedOut`]; 2.7+). Other causes (a disconnect, an
/// error response) and 2.0–2.6's cause-less wording are not this: the
/// session may still be alive.
fn session_timed_out(i: &str) -> PResult<'_, Event> {
    value(
        Event::SessionTimedOut,
        (
            tag("Group coordinator "),
            take_until(" is unavailable or invalid due to cause: "),
            tag(" is unavailable or invalid due to cause: "),
            tag("session timed out without receiving a heartbeat response"),
            any_rest,
        ),
    )
    .parse(i)
}

/// `Member <id> sending LeaveGroup request to coordinator <node>` (2.2–2.3)
/// and `… due to <reason>` (2.4+). The node prints as
/// `kafka1:9092 (id: 2147483646 rack: null)`; the reason starts after the
/// first ` due to `.
fn leave_group(i: &str) -> PResult<'_, Event> {
    let reason = opt(preceded((take_until(" due to "), tag(" due to ")), rest1));
    map(
        (
            preceded(
                tag("Member "),
                take_until(" sending LeaveGroup request to coordinator "),
            ),
            tag(" sending LeaveGroup request to coordinator "),
            reason,
            any_rest,
        ),
        |(member, _, reason, _)| Event::LeaveGroup {
            member_id: member.to_string(),
            reason: reason.map(str::to_string),
        },
    )
    .parse(i)
}

/// `Sending LeaveGroup request to coordinator <node>` (2.1).
fn leave_group_plain(i: &str) -> PResult<'_, Event> {
    map(
        (tag("Sending LeaveGroup request to coordinator "), any_rest),
        |_| Event::LeaveGroup {
            member_id: String::new(),
            reason: None,
        },
    )
    .parse(i)
}

/// The poll timeout expired: `consumer poll timeout has expired. This
/// means …` (3.0–3.7) and `This member will leave the group because
/// consumer poll timeout has expired. …` (2.1–2.3).
fn poll_timeout(i: &str) -> PResult<'_, Event> {
    value(
        Event::PollTimeoutExpired,
        (
            alt((
                tag("consumer poll timeout has expired."),
                tag("This member will leave the group because consumer poll timeout has expired."),
            )),
            any_rest,
        ),
    )
    .parse(i)
}

/// `Resetting generation due to: …` (3.0–3.1), `Resetting generation and
/// member id due to: …` (3.2+).
fn resetting_generation(i: &str) -> PResult<'_, Event> {
    value(
        Event::ResettingGeneration,
        (
            tag("Resetting generation "),
            take_until("due to: "),
            any_rest,
        ),
    )
    .parse(i)
}

/// WC DEBUG `Cooperative rebalance triggered. Keeping assignment {} until it's explicitly revoked.`
fn cooperative_rebalance(i: &str) -> PResult<'_, Event> {
    value(
        Event::CooperativeRebalanceTriggered,
        (tag("Cooperative rebalance triggered."), any_rest),
    )
    .parse(i)
}

/// WC `Broker coordinator was unreachable for {}ms. Revoking previous
/// assignment {} to avoid running tasks while not being a member the group`
/// (2.4+). The assignment is `None` when its text does not parse.
fn coordinator_unreachable(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Broker coordinator was unreachable for "), int64),
            tag("ms. Revoking previous assignment "),
            opt(assignment),
            any_rest,
        ),
        |(millis, _, assignment, _)| Event::CoordinatorUnreachable { millis, assignment },
    )
    .parse(i)
}

/// EA / ICA (WC ≤ 2.2.2) `Was selected to perform assignments, but do not have
/// latest config found in sync request. Returning an empty configuration to
/// trigger re-sync.`
pub(super) fn leader_lacks_config(i: &str) -> PResult<'_, Event> {
    value(
        Event::LeaderLacksConfig,
        (
            tag("Was selected to perform assignments, but do not have latest config"),
            any_rest,
        ),
    )
    .parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Protocol;

    fn p(msg: &str) -> Option<Event> {
        parse(msg)
    }

    #[test]
    fn poll_timeout_departures() {
        let p = |m: &str| parse(m);
        assert_eq!(
            p(
                "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies …"
            ),
            Some(Event::PollTimeoutExpired)
        );
        assert_eq!(
            p(
                "This member will leave the group because consumer poll timeout has expired. This means …"
            ),
            Some(Event::PollTimeoutExpired)
        );
        assert_eq!(
            p("Resetting generation and member id due to: consumer pro-actively leaving the group"),
            Some(Event::ResettingGeneration)
        );
        assert_eq!(
            p("Resetting generation due to: consumer pro-actively leaving the group"),
            Some(Event::ResettingGeneration)
        );
        assert_eq!(
            p("Sending LeaveGroup request to coordinator kafka1:9092 (id: 2147483646 rack: null)"),
            Some(Event::LeaveGroup {
                member_id: String::new(),
                reason: None
            })
        );
        assert_eq!(p("consumer is closing"), None);
    }

    #[test]
    fn rejoining_with_and_without_group() {
        assert_eq!(
            p("(Re-)joining group"),
            Some(Event::Rejoining { group: None })
        );
        assert_eq!(
            p("(Re-)joining group 1"),
            Some(Event::Rejoining {
                group: Some("1".into())
            })
        );
        assert_eq!(p("(Re-)joining group "), None);
    }

    #[test]
    fn joined_generation_all_wordings() {
        assert_eq!(
            p("Successfully joined group with generation 7"),
            Some(Event::JoinedGeneration {
                generation: 7,
                member_id: None,
                protocol: None,
                group: None
            })
        );
        assert_eq!(
            p(
                "Successfully joined group with generation Generation{generationId=5, memberId='connect-1-d24c7c49-2e9f-47ea-96e2-4232d3f39d64', protocol='sessioned'}"
            ),
            Some(Event::JoinedGeneration {
                generation: 5,
                member_id: Some("connect-1-d24c7c49-2e9f-47ea-96e2-4232d3f39d64".into()),
                protocol: Some(Protocol::Sessioned),
                group: None
            })
        );
        assert_eq!(
            p(
                "Successfully joined group with generation Generation{generationId=3, memberId='m', protocol='compatible'}"
            ),
            Some(Event::JoinedGeneration {
                generation: 3,
                member_id: Some("m".into()),
                protocol: Some(Protocol::Compatible),
                group: None
            })
        );
        // 0.11-era, sample 09.
        assert_eq!(
            p("Successfully joined group 1 with generation 2"),
            Some(Event::JoinedGeneration {
                generation: 2,
                member_id: None,
                protocol: None,
                group: Some("1".into())
            })
        );
        assert_eq!(p("Successfully joined group with generation x"), None);
        assert_eq!(p("Successfully joined group with generation 7 extra"), None);
    }

    #[test]
    fn synced_generation() {
        assert_eq!(
            p(
                "Successfully synced group in generation Generation{generationId=4, memberId='connect-1-85e0', protocol='default'}"
            ),
            Some(Event::SyncedGeneration {
                generation: 4,
                member_id: Some("connect-1-85e0".into()),
                protocol: Some(Protocol::Eager)
            })
        );
    }

    #[test]
    fn rebalance_started_not_failed() {
        assert_eq!(
            p("Rebalance started"),
            Some(Event::RebalanceStarted { by_herder: false })
        );
        assert_eq!(p("Rebalance failed."), Some(Event::RebalanceFailed));
        assert_eq!(p("Rebalance failed. again"), None);
        assert_eq!(p("Rebalance started now"), None);
    }

    #[test]
    fn request_joining() {
        // sample 18
        assert_eq!(
            p("Request joining group due to: rebalance failed due to 'The group member needs to have a valid member id before actually entering a consumer group.' (MemberIdRequiredException)"),
            Some(Event::RequestJoining {
                reason: "rebalance failed due to 'The group member needs to have a valid member id before actually entering a consumer group.' (MemberIdRequiredException)".into()
            })
        );
        assert_eq!(
            p("Request joining group due to: connect worker requested rejoin"),
            Some(Event::RequestJoining {
                reason: "connect worker requested rejoin".into()
            })
        );
    }

    #[test]
    fn leave_group_both_wordings() {
        assert_eq!(
            p(
                "Member connect-1-3a9d sending LeaveGroup request to coordinator kafka1:9092 (id: 2147483646 rack: null)"
            ),
            Some(Event::LeaveGroup {
                member_id: "connect-1-3a9d".into(),
                reason: None
            })
        );
        assert_eq!(
            p(
                "Member connect-1-3a9d sending LeaveGroup request to coordinator kafka1:9092 (id: 2147483646 rack: null) due to taking too long to read the log"
            ),
            Some(Event::LeaveGroup {
                member_id: "connect-1-3a9d".into(),
                reason: Some("taking too long to read the log".into())
            })
        );
        assert_eq!(
            p(
                "Member m sending LeaveGroup request to coordinator k:1 (id: 1 rack: null) due to worker poll timeout has expired."
            ),
            Some(Event::LeaveGroup {
                member_id: "m".into(),
                reason: Some("worker poll timeout has expired.".into())
            })
        );
    }

    #[test]
    fn revocations_and_cooperative() {
        assert_eq!(
            p(
                "Revoking previous assignment Assignment{error=0, leader='null', leaderUrl='null', offset=-1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0}"
            ),
            Some(Event::RevokingPreviousAssignment)
        );
        assert_eq!(
            p(
                "Cooperative rebalance triggered. Keeping assignment Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} until it's explicitly revoked."
            ),
            Some(Event::CooperativeRebalanceTriggered)
        );
    }

    #[test]
    fn coordinator_unreachable() {
        let e = p(
            "Broker coordinator was unreachable for 3000ms. Revoking previous assignment Assignment{error=0, leader='connect-1-3a9d', leaderUrl='http://w1:8083/', offset=42, connectorIds=[src], taskIds=[src-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0} to avoid running tasks while not being a member the group",
        );
        match e {
            Some(Event::CoordinatorUnreachable {
                millis: 3000,
                assignment: Some(a),
            }) => {
                assert_eq!(a.offset, 42);
                assert_eq!(a.tasks.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            p(
                "Broker coordinator was unreachable for 3000ms. Revoking previous assignment garbled to avoid running tasks while not being a member the group"
            ),
            Some(Event::CoordinatorUnreachable {
                millis: 3000,
                assignment: None
            })
        );
    }

    #[test]
    fn heartbeat_and_leader() {
        assert_eq!(
            p("Attempt to heartbeat failed since group is rebalancing"),
            Some(Event::HeartbeatRebalancing)
        );
        assert_eq!(
            p("Attempt to heartbeat failed for since member id connect-1-3a9d is not valid."),
            Some(Event::HeartbeatFenced {
                error: "UNKNOWN_MEMBER_ID".into(),
                generation: None
            })
        );
        assert_eq!(
            p("Attempt to heartbeat failed since generation 7 is not current"),
            Some(Event::HeartbeatFenced {
                error: "ILLEGAL_GENERATION".into(),
                generation: Some(7)
            })
        );
        assert_eq!(
            p(
                "Attempt to heartbeat with Generation{generationId=7, memberId='connect-1-3a9d', protocol='sessioned'} and group instance id Optional.empty failed due to UNKNOWN_MEMBER_ID, resetting generation"
            ),
            Some(Event::HeartbeatFenced {
                error: "UNKNOWN_MEMBER_ID".into(),
                generation: Some(7)
            })
        );
        assert_eq!(
            p(
                "JoinGroup failed: The coordinator is not aware of this member. Need to re-join the group. Sent generation was Generation{generationId=8, memberId='connect-1-3a9d', protocol='sessioned'}"
            ),
            Some(Event::HeartbeatFenced {
                error: "UNKNOWN_MEMBER_ID".into(),
                generation: Some(8)
            })
        );
        // Not a member of any generation: it left none.
        assert_eq!(
            p(
                "JoinGroup failed: The coordinator is not aware of this member. Need to re-join the group. Sent generation was Generation{generationId=-1, memberId='connect-1-3a9d', protocol='null'}"
            ),
            None
        );
        // Other JoinGroup failures are no departure.
        assert_eq!(
            p(
                "JoinGroup failed: This is not the correct coordinator. Marking coordinator unknown. Sent generation was Generation{generationId=-1, memberId='', protocol='null'}"
            ),
            None
        );
        assert_eq!(
            p(
                "Attempt to heartbeat with stale Generation{generationId=7, memberId='connect-1-3a9d', protocol='sessioned'} and group instance id Optional.empty failed due to ILLEGAL_GENERATION, ignoring the error"
            ),
            None
        );
        assert_eq!(
            p(
                "Was selected to perform assignments, but do not have latest config found in sync request. Returning an empty configuration to trigger re-sync."
            ),
            Some(Event::LeaderLacksConfig)
        );
    }

    #[test]
    fn session_timed_out() {
        // real 3.9.1 (corpus/real-kafka/3.9.1/partition)
        assert_eq!(
            p(
                "Group coordinator 127.0.0.1:19092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: session timed out without receiving a heartbeat response. isDisconnected: false. Rediscovery will be attempted."
            ),
            Some(Event::SessionTimedOut)
        );
        // 2.7.0 prints no space before isDisconnected
        assert_eq!(
            p(
                "Group coordinator kafka1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: session timed out without receiving a heartbeat response.isDisconnected: false. Rediscovery will be attempted."
            ),
            Some(Event::SessionTimedOut)
        );
        for m in [
            "Group coordinator kafka1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: coordinator unavailable. isDisconnected: true. Rediscovery will be attempted.",
            "Group coordinator kafka1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: error response NOT_COORDINATOR. isDisconnected: false. Rediscovery will be attempted.",
        ] {
            assert_eq!(p(m), None, "{m}");
        }
    }

    #[test]
    fn rejects_other_coordinator_lines() {
        for m in [
            "Discovered group coordinator broker:9092 (id: 2147483646 rack: null)",
            "Join group failed with org.apache.kafka.common.errors.MemberIdRequiredException: x",
            "Successfully joined group",
            "Group coordinator kafka1:9092 (id: 2147483646 rack: null) is unavailable or invalid, will attempt rediscovery",
            "",
        ] {
            assert_eq!(p(m), None, "{m}");
        }
    }
}
