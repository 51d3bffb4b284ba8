//! nom parsers, one per message kind. (Being written.)

use super::{ConfigKey, Event, LoggerKind};
use crate::model::Resource;

/// Parses the message part of a line from a classified logger.
pub fn parse_message(_logger: LoggerKind, _msg: &str) -> Option<Event> {
    None
}

/// Continuation line of a failed start's stack trace.
pub fn parse_already_exists(_line: &str) -> Option<Resource> {
    None
}

/// Continuation line of a `DistributedConfig values:` dump.
pub fn parse_config_value(_line: &str) -> Option<(ConfigKey, String)> {
    None
}
