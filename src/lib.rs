//! herder-audit: replays Kafka Connect distributed-worker logs and proves
//! whether every connector/task start and stop was justified.

pub mod audit;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod cluster;
pub mod event;
pub mod exit;
pub mod explain;
pub mod finding;
pub mod guard;
pub mod harness;
pub mod input;
pub mod interruptions;
pub mod layout;
pub mod model;
pub mod replay;
pub mod report;
pub mod rules;
pub mod sim;
pub mod state;
pub mod stream;
pub mod time;
pub mod topics;
pub mod watch;

/// The in-memory log of the tests, shared with the integration tests'
/// support module.
#[cfg(test)]
#[path = "../tests/support/shared_buf.rs"]
mod shared_buf;
