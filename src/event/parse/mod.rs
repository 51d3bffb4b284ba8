//! nom parsers, one per message kind (being written). This first part holds
//! the shared building blocks and the continuation-line parsers.

mod common;
mod continuation;

use super::{Event, LoggerKind};

pub use common::{GenerationText, assignment, generation, name_list, task_id, task_list};
pub use continuation::{parse_already_exists, parse_config_value};

/// Parses the message part of a line from a classified logger.
pub fn parse_message(_logger: LoggerKind, _msg: &str) -> Option<Event> {
    None
}
