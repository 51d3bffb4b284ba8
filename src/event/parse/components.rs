//! The smaller loggers: `Connect`, `KafkaConfigBackingStore`,
//! `WorkerGroupMember`, `AbstractHerder` and the `AbstractConfig` dump header.

use nom::Parser;
use nom::branch::alt;
use nom::character::complete::i64 as int64;
use nom::combinator::{eof, map, value};
use nom::sequence::{preceded, terminated};

use super::common::tag;
use super::common::{PResult, any_rest, before_suffix, name, until_last};
use super::run;
use crate::event::{Event, Milestone};

/// `Connect` (C): `Kafka Connect starting|started|stopping|stopped`.
pub(super) fn parse_connect(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'K' => run(alt((connect_milestone, kafka_cluster_id)), msg),
        _ => None,
    }
}

/// ConnectUtils `Kafka cluster ID: <id>`: which Kafka cluster the worker uses.
fn kafka_cluster_id(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Kafka cluster ID: "), any_rest), |id: &str| {
        Event::KafkaClusterId(id.trim().to_string())
    })
    .parse(i)
}

/// `KafkaConfigBackingStore` (KCBS).
pub(super) fn parse_config_store(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'S' => run(alt((config_store_milestone, removal_processed)), msg),
        b'C' => run(config_store_milestone, msg),
        b'R' => run(removed_null_config, msg),
        _ => None,
    }
}

/// `WorkerGroupMember` (WGM).
pub(super) fn parse_group_member(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'T' => run(group_member_stopped, msg),
        _ => None,
    }
}

/// `AbstractHerder` (AH).
pub(super) fn parse_abstract_herder(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'C' => run(connector_task_count_changed, msg),
        b'U' => run(connector_type_unknown, msg),
        _ => None,
    }
}

/// `RestServer`: `Advertised URI: http://host:8083/`, the worker's REST
/// identity.
pub(super) fn parse_rest_server(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'A' => run(advertised_uri, msg),
        _ => None,
    }
}

fn advertised_uri(i: &str) -> PResult<'_, Event> {
    map(preceded(tag("Advertised URI: "), any_rest), |u: &str| {
        Event::AdvertisedUrl(u.trim().to_string())
    })
    .parse(i)
}

/// `AbstractConfig` / `DistributedConfig`: the dump header.
pub(super) fn parse_config_dump(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'D' => run(distributed_config_dump, msg),
        _ => None,
    }
}

/// `Kafka Connect starting|started|stopping|stopped`
fn connect_milestone(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Kafka Connect "),
            terminated(
                alt((
                    value(Milestone::ConnectStarting, tag("starting")),
                    value(Milestone::ConnectStarted, tag("started")),
                    value(Milestone::ConnectStopping, tag("stopping")),
                    value(Milestone::ConnectStopped, tag("stopped")),
                )),
                eof,
            ),
        ),
        Event::Milestone,
    )
    .parse(i)
}

/// `Starting|Started|Closing|Closed KafkaConfigBackingStore`
fn config_store_milestone(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::ConfigStore),
        (
            alt((
                tag("Starting"),
                tag("Started"),
                tag("Closing"),
                tag("Closed"),
            )),
            tag(" KafkaConfigBackingStore"),
            eof,
        ),
    )
    .parse(i)
}

/// `Removed connector X due to null configuration. This is usually
/// intentional and does not indicate an issue.` (2.0.x)
fn removed_null_config(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Removed connector "),
            terminated(until_last(" due to null configuration"), any_rest),
        ),
        |c| Event::ConnectorRemovedFromStore(name(c)),
    )
    .parse(i)
}

/// `Successfully processed removal of connector 'X'` (2.2+)
fn removal_processed(i: &str) -> PResult<'_, Event> {
    map(
        preceded(
            tag("Successfully processed removal of connector '"),
            before_suffix("'"),
        ),
        |c| Event::ConnectorRemovedFromStore(name(c)),
    )
    .parse(i)
}

/// WGM DEBUG `The Connect group member has stopped.`
fn group_member_stopped(i: &str) -> PResult<'_, Event> {
    value(
        Event::Milestone(Milestone::GroupMemberStopped),
        (tag("The Connect group member has stopped."), eof),
    )
    .parse(i)
}

/// AH DEBUG `Connector X task count changed from A to B` (3.5+)
/// `Unable to retrieve connector type` (its exception on the lines after).
fn connector_type_unknown(i: &str) -> PResult<'_, Event> {
    value(
        Event::ConnectorTypeUnknown,
        terminated(tag("Unable to retrieve connector type"), eof),
    )
    .parse(i.trim_end())
}

fn connector_task_count_changed(i: &str) -> PResult<'_, Event> {
    map(
        (
            preceded(tag("Connector "), until_last(" task count changed from ")),
            int64,
            preceded(tag(" to "), terminated(int64, eof)),
        ),
        |(c, from, to)| Event::TaskCountChanged {
            connector: Some(name(c)),
            from,
            to,
        },
    )
    .parse(i)
}

/// `DistributedConfig values: ` (the trailing space may have been trimmed).
fn distributed_config_dump(i: &str) -> PResult<'_, Event> {
    value(
        Event::DistributedConfigDump,
        (tag("DistributedConfig values:"), alt((eof, tag(" "))), eof),
    )
    .parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advertised_uri_line() {
        assert_eq!(
            parse_rest_server("Advertised URI: http://connect-1:8083/"),
            Some(Event::AdvertisedUrl("http://connect-1:8083/".into()))
        );
        assert_eq!(parse_rest_server("Added connector for http://:8083"), None);
    }

    #[test]
    fn connect_milestones() {
        for (m, ms) in [
            ("Kafka Connect starting", Milestone::ConnectStarting),
            ("Kafka Connect started", Milestone::ConnectStarted),
            ("Kafka Connect stopping", Milestone::ConnectStopping),
            ("Kafka Connect stopped", Milestone::ConnectStopped),
        ] {
            assert_eq!(parse_connect(m), Some(Event::Milestone(ms)), "{m}");
        }
        assert_eq!(
            parse_connect("Kafka Connect distributed worker initialization took 8587ms"),
            None
        );
        assert_eq!(
            parse_connect("Kafka cluster ID: UI3GwUYnTQaPDsdk3RmKKg"),
            Some(Event::KafkaClusterId("UI3GwUYnTQaPDsdk3RmKKg".into()))
        );
    }

    #[test]
    fn config_store() {
        for m in [
            "Starting KafkaConfigBackingStore",
            "Started KafkaConfigBackingStore",
            "Closing KafkaConfigBackingStore",
            "Closed KafkaConfigBackingStore",
        ] {
            assert_eq!(
                parse_config_store(m),
                Some(Event::Milestone(Milestone::ConfigStore)),
                "{m}"
            );
        }
        assert_eq!(
            parse_config_store("Successfully processed removal of connector 'http-sink'"),
            Some(Event::ConnectorRemovedFromStore(name("http-sink")))
        );
        assert_eq!(
            parse_config_store(
                "Removed connector my conn due to null configuration. This is usually intentional and does not indicate an issue."
            ),
            Some(Event::ConnectorRemovedFromStore(name("my conn")))
        );
        for m in [
            "Ignoring task configuration for task http-sink-0 because it is unexpectedly null",
            "Starting KafkaOffsetBackingStore",
            "Successfully processed removal of connector ''",
        ] {
            assert_eq!(parse_config_store(m), None, "{m}");
        }
    }

    #[test]
    fn group_member_and_abstract_herder() {
        assert_eq!(
            parse_group_member("The Connect group member has stopped."),
            Some(Event::Milestone(Milestone::GroupMemberStopped))
        );
        assert_eq!(
            parse_abstract_herder("Connector my-conn task count changed from 2 to 0"),
            Some(Event::TaskCountChanged {
                connector: Some(name("my-conn")),
                from: 2,
                to: 0
            })
        );
        assert_eq!(
            parse_abstract_herder("Connector a has change in configuration for task a-0"),
            None
        );
        assert_eq!(
            parse_abstract_herder("Unable to retrieve connector type"),
            Some(Event::ConnectorTypeUnknown)
        );
        assert_eq!(
            parse_abstract_herder("Unable to retrieve connector type of x"),
            None
        );
    }

    #[test]
    fn config_dump_header() {
        assert_eq!(
            parse_config_dump("DistributedConfig values: "),
            Some(Event::DistributedConfigDump)
        );
        assert_eq!(
            parse_config_dump("DistributedConfig values:"),
            Some(Event::DistributedConfigDump)
        );
        assert_eq!(parse_config_dump("DistributedConfig values: x"), None);
        assert_eq!(parse_config_dump("ConsumerConfig values: "), None);
    }
}
