//! What one worker's replay tells the cross-worker checks: its assignment
//! per generation and what it runs, as it happens.

use crate::model::{Resource, SourceLine};
use std::sync::Arc;

/// One fact, with the line that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The worker's group when the fact was made (`None`: not yet known).
    pub group: Option<Arc<str>>,
    /// The Kafka cluster id the worker logged, if it did.
    pub cluster: Option<Arc<str>>,
    pub line: SourceLine,
    pub kind: FactKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FactKind {
    /// An assignment line of generation `generation`: what it assigns and
    /// what the worker runs once its revocations were handled.
    Assignment {
        generation: i32,
        /// Sorted, without repeats.
        assigned: Arc<[Resource]>,
        leader: String,
        leader_url: String,
        offset: i64,
        error: i32,
        /// Live resources (sorted) and the line that identifies each
        /// instance (its start, or the assignment it has been held since).
        live: Vec<(Resource, SourceLine)>,
    },
    /// The start phase ended without starting these assigned resources:
    /// the herder counts them as running since `since` (their assignment).
    Held {
        resources: Vec<Resource>,
        since: SourceLine,
    },
    /// A start (the fact's line).
    Start {
        resource: Resource,
        generation: Option<i32>,
    },
    /// A stop, or the Worker saying it owns no such instance.
    Stop { resource: Resource },
    /// The worker restarted or its log ended: nothing it ran is known any more.
    Reset,
    /// The replay found a `foreign-start` (index into its findings): the
    /// cross-worker checks name the owner when they can.
    ForeignStart {
        resource: Resource,
        generation: Option<i32>,
        finding: usize,
    },
}
