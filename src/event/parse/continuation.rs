//! Facts read from the continuation lines of a multi-line record: the stack
//! trace of a failed start, and the body of a `DistributedConfig values:` dump.
//! These lines carry arbitrary decoration in front (`# `, tabs, docker
//! prefixes), so the interesting text is located with `memchr::memmem` first.

use memchr::memmem;

use super::common::{name, task_id};
use crate::event::ConfigKey;
use crate::model::Resource;

/// `Worker.startTask`: 2.x → 4.x (`… + id`).
const TASK_EXISTS: &str = "Task already exists in this worker: ";
/// `Worker.startTask` in the 0.9/0.10 line: `…; the herder should not have
/// requested that this : " + id`.
const TASK_EXISTS_OLD: &str =
    "Task already exists in this worker; the herder should not have requested that this : ";
/// `Worker.startConnector`, every version: `"Connector with name " + connName + " already exists"`.
const CONNECTOR_EXISTS: &str = "Connector with name ";
const CONNECTOR_EXISTS_END: &str = " already exists";

/// Finds `Task already exists in this worker: X-n` (or the 0.10 wording) or
/// `Connector with name X already exists` anywhere in a raw stack-trace line.
pub fn parse_already_exists(line: &str) -> Option<Resource> {
    let line = line.trim_end();
    let bytes = line.as_bytes();
    for needle in [TASK_EXISTS, TASK_EXISTS_OLD] {
        if let Some(k) = memmem::find(bytes, needle.as_bytes()) {
            // `k + needle.len()` ends an ASCII literal: a char boundary.
            let id = line[k + needle.len()..].trim();
            return task_id(id).map(Resource::Task);
        }
    }
    let k = memmem::find(bytes, CONNECTOR_EXISTS.as_bytes())?;
    let rest = &line[k + CONNECTOR_EXISTS.len()..];
    let end = rest.rfind(CONNECTOR_EXISTS_END)?;
    let conn = &rest[..end];
    (!conn.is_empty()).then(|| Resource::Connector(name(conn)))
}

/// Maps a configuration key of the dump to the keys the replay cares about.
fn config_key(key: &str) -> Option<ConfigKey> {
    Some(match key {
        "connect.protocol" => ConfigKey::ConnectProtocol,
        "group.id" => ConfigKey::GroupId,
        "client.id" => ConfigKey::ClientId,
        "rest.advertised.host.name" => ConfigKey::RestAdvertisedHostName,
        "rest.advertised.port" => ConfigKey::RestAdvertisedPort,
        "rest.advertised.listener" => ConfigKey::RestAdvertisedListener,
        "listeners" => ConfigKey::Listeners,
        "rest.host.name" => ConfigKey::RestHostName,
        "rest.port" => ConfigKey::RestPort,
        "scheduled.rebalance.max.delay.ms" => ConfigKey::ScheduledRebalanceMaxDelayMs,
        "session.timeout.ms" => ConfigKey::SessionTimeoutMs,
        _ => return None,
    })
}

/// A `\tkey = value` line of a `DistributedConfig values:` dump, with any
/// decoration before the tab (`# `, a docker prefix). The key is the last
/// whitespace-separated word before the first ` = `, and must be preceded by
/// whitespace (continuation lines are indented); the value is trimmed and
/// `null` stays `null`. Keys the replay does not use give `None`.
pub fn parse_config_value(line: &str) -> Option<(ConfigKey, String)> {
    let eq = memmem::find(line.as_bytes(), b" =")?;
    let (left, right) = (&line[..eq], &line[eq + 2..]);
    // The value follows ` = `; an empty value prints as `key = ` (trimmed to `key =`).
    if !(right.is_empty() || right.starts_with(' ')) {
        return None;
    }
    let left = left.trim_end();
    let start = left.rfind(char::is_whitespace)?;
    // `start` is the index of an ASCII whitespace char or of a multi-byte one;
    // skip it by its UTF-8 length.
    let ws_len = left[start..].chars().next().map_or(1, char::len_utf8);
    let key = config_key(&left[start + ws_len..])?;
    Some((key, right.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TaskId;

    #[test]
    fn task_already_exists() {
        let t = |c: &str, i| Some(Resource::Task(TaskId::new(c, i)));
        assert_eq!(
            parse_already_exists(
                "org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: src-2"
            ),
            t("src", 2)
        );
        assert_eq!(
            parse_already_exists(
                "# Caused by: org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: my conn-a-10\r"
            ),
            t("my conn-a", 10)
        );
        assert_eq!(
            parse_already_exists(
                "kafka-connect-1  | \torg.apache.kafka.connect.errors.ConnectException: Task already exists in this worker; the herder should not have requested that this : x.y-0"
            ),
            t("x.y", 0)
        );
        assert_eq!(
            parse_already_exists("ConnectException: Task already exists in this worker: nope"),
            None
        );
    }

    #[test]
    fn connector_already_exists() {
        assert_eq!(
            parse_already_exists(
                "\torg.apache.kafka.connect.errors.ConnectException: Connector with name my conn already exists"
            ),
            Some(Resource::Connector(name("my conn")))
        );
        assert_eq!(
            parse_already_exists("# ConnectException: Connector with name a-b.c_d already exists "),
            Some(Resource::Connector(name("a-b.c_d")))
        );
        assert_eq!(
            parse_already_exists("Connector with name  already exists"),
            None
        );
        assert_eq!(
            parse_already_exists(
                "\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:411)"
            ),
            None
        );
        assert_eq!(
            parse_already_exists("Connector with name x is missing"),
            None
        );
        assert_eq!(parse_already_exists(""), None);
    }

    #[test]
    fn config_values() {
        let v = |k, s: &str| Some((k, s.to_string()));
        assert_eq!(
            parse_config_value("\tconnect.protocol = sessioned"),
            v(ConfigKey::ConnectProtocol, "sessioned")
        );
        assert_eq!(
            parse_config_value("# \tgroup.id = connect-cluster"),
            v(ConfigKey::GroupId, "connect-cluster")
        );
        assert_eq!(
            parse_config_value("kafka-connect-1  | \trest.advertised.host.name = connect"),
            v(ConfigKey::RestAdvertisedHostName, "connect")
        );
        assert_eq!(
            parse_config_value("\trest.advertised.port = null"),
            v(ConfigKey::RestAdvertisedPort, "null")
        );
        assert_eq!(
            parse_config_value("\trest.advertised.listener = null"),
            v(ConfigKey::RestAdvertisedListener, "null")
        );
        assert_eq!(
            parse_config_value("\tlisteners = [http://0.0.0.0:8083]"),
            v(ConfigKey::Listeners, "[http://0.0.0.0:8083]")
        );
        assert_eq!(
            parse_config_value("\trest.host.name = "),
            v(ConfigKey::RestHostName, "")
        );
        assert_eq!(
            parse_config_value("\trest.host.name ="),
            v(ConfigKey::RestHostName, "")
        );
        assert_eq!(
            parse_config_value("        rest.port = 8083"),
            v(ConfigKey::RestPort, "8083")
        );
        assert_eq!(
            parse_config_value("\tscheduled.rebalance.max.delay.ms = 300000"),
            v(ConfigKey::ScheduledRebalanceMaxDelayMs, "300000")
        );
        assert_eq!(
            parse_config_value("\tclient.id = "),
            v(ConfigKey::ClientId, "")
        );
        // keys we ignore, and non-dump lines
        assert_eq!(parse_config_value("\tadmin.listeners = null"), None);
        assert_eq!(
            parse_config_value("\tconfig.storage.topic = connect-configs"),
            None
        );
        assert_eq!(parse_config_value("connect.protocol = sessioned"), None);
        assert_eq!(parse_config_value("\tconnect.protocol=sessioned"), None);
        assert_eq!(parse_config_value("\tx.connect.protocol = y"), None);
        assert_eq!(parse_config_value(""), None);
        assert_eq!(
            parse_config_value("\u{3000}group.id = é"),
            v(ConfigKey::GroupId, "é")
        );
    }
}
