//! herder-audit: replays Kafka Connect distributed-worker logs and proves
//! whether every connector/task start and stop was justified.

pub mod event;
pub mod model;
pub mod layout;
pub mod finding;
pub mod replay;
pub mod rules;
pub mod input;
