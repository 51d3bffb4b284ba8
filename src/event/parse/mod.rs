//! nom parsers, one per message kind, grouped by the logger family that
//! prints them (docs/log-formats.md §1):
//!
//! * `coordinator` — `WorkerCoordinator` / `AbstractCoordinator` (§1.1) and
//!   the assignors' `Was selected to perform assignments…`;
//! * `herder` — `DistributedHerder` (§1.2–1.4, §1.7–1.9);
//! * `worker` — `Worker`, `WorkerConnector` and the task classes (§1.5–1.6);
//! * `components` — `Connect`, `KafkaConfigBackingStore`,
//!   `WorkerGroupMember`, `AbstractHerder`, the config dump header;
//! * `continuation` — facts on continuation lines (stack traces, config dumps);
//! * `common` — the shared building blocks (ids, lists, assignment, generation).
//!
//! [`parse_message`] is on the hot path: it is called for every line of a
//! relevant logger, and most of those lines are not lifecycle messages. Each
//! family first switches on the message's first byte, and every parser opens
//! with a literal (`tag`, or a `strip_suffix` for messages that end in one), so
//! a line that is not a lifecycle message is rejected after a few byte
//! comparisons and without allocating. Only a successful parse allocates (the
//! [`Event`] owns its data).

mod attribution;
mod common;
mod components;
mod continuation;
mod coordinator;
mod herder;
mod worker;

#[cfg(test)]
mod tests;

use nom::Parser;

use super::{Event, LoggerKind};

pub use attribution::attribute;
#[cfg(test)]
use common::generation;
#[cfg(test)]
use common::name_list;
pub use common::{assignment, task_id, task_list};
pub use continuation::{parse_already_exists, parse_config_value};

/// Parses the `%m` part of a line from a classified logger into an [`Event`].
///
/// `msg` must already be stripped of the layout, the MDC context and the
/// `[Worker clientId=…, groupId=…] ` prefix, and trimmed at the end. Lines
/// are tried only against the formats their logger family prints (a few
/// formats belong to several families across versions, and are accepted from
/// each); [`LoggerKind::Unknown`] tries every family, coordinator first (so
/// `Rebalance started` is the 2.3+ coordinator line there). Where the
/// layout prints no logger but the prefix is known, `attribute` tells the
/// class from the wording.
pub fn parse_message(logger: LoggerKind, msg: &str) -> Option<Event> {
    match logger {
        LoggerKind::Herder => herder::parse(msg),
        LoggerKind::WorkerCoordinator | LoggerKind::AbstractCoordinator => coordinator::parse(msg),
        LoggerKind::Assignor => assignor(msg),
        LoggerKind::WorkerGroupMember => components::parse_group_member(msg),
        LoggerKind::Worker => worker::parse_worker(msg),
        LoggerKind::WorkerConnector => worker::parse_worker_connector(msg),
        LoggerKind::WorkerTask => worker::parse_worker_task(msg),
        LoggerKind::AbstractHerder => components::parse_abstract_herder(msg),
        LoggerKind::Connect => components::parse_connect(msg),
        LoggerKind::ConfigBackingStore => components::parse_config_store(msg),
        LoggerKind::AbstractConfig => components::parse_config_dump(msg),
        LoggerKind::RestServer => components::parse_rest_server(msg),
        // Whether the line had the worker's prefix is not known either:
        // the prefixed classes first (so `Rebalance started` is the 2.3+
        // coordinator line), then the others.
        LoggerKind::Unknown => attribute(msg, true)
            .or_else(|| attribute(msg, false))
            .map(|(_, ev)| ev),
    }
}

/// EA / ICA: only `Was selected to perform assignments…`.
fn assignor(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'W' => run(coordinator::leader_lacks_config, msg),
        _ => None,
    }
}

/// Runs a whole-message parser: the event if it matched all of `msg`.
fn run<'a, P>(mut parser: P, msg: &'a str) -> Option<Event>
where
    P: Parser<&'a str, Output = Event, Error = nom::error::Error<&'a str>>,
{
    match parser.parse(msg) {
        Ok(("", event)) => Some(event),
        _ => None,
    }
}
