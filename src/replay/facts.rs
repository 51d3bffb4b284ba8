//! What one worker's replay hands on to the rest of the audit, as it
//! happens: its assignment per generation and what it runs (for the
//! cross-worker checks), and its findings once they are final. These facts
//! are the boundary between the per-stream stage and the per-group stage of
//! the audit (see `docs/design.md`, "Orchestration"); they serialise, so the
//! two stages can run on different machines (`herder-audit map | reduce`).

use crate::finding::Finding;
use crate::model::{Resource, SourceLine};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One fact, with the line that shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// The worker's group when the fact was made (`None`: not yet known).
    pub group: Option<Arc<str>>,
    /// The Kafka cluster id the worker logged, if it did.
    pub cluster: Option<Arc<str>>,
    /// The most stable id the worker's log revealed so far, with its kind:
    /// `rest:URL`, `member:ID` or `client:ID`; `None`: only its file
    /// identifies it.
    #[serde(default)]
    pub identity: Option<Arc<str>>,
    pub line: SourceLine,
    pub kind: FactKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fact", rename_all = "kebab-case")]
pub enum FactKind {
    /// An assignment line of generation `generation`: what it assigns and
    /// what the worker runs once its revocations were handled.
    Assignment {
        generation: i32,
        /// Sorted, without repeats.
        assigned: Arc<[Resource]>,
        /// Sorted, without repeats.
        #[serde(default)]
        revoked: Arc<[Resource]>,
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
    /// A start that failed (the fact's line): no instance runs.
    StartFailed { resource: Resource },
    /// A stop, or the Worker saying it owns no such instance.
    Stop { resource: Resource },
    /// The worker left its group without revoking what it runs (poll
    /// timeout, lost coordinator): its instances keep running.
    Left,
    /// The worker restarted or its log ended: nothing it ran is known any more.
    Reset,
    /// A worker whose log starts mid-life left its group without revoking
    /// (the fenced heartbeat naming `generation`) before its log showed what
    /// it held; back, it stopped `resource` (at `stop`) in the rebalance
    /// whose assignment (the fact's line) revokes it: it still owned it from
    /// `generation`, and, never started in its log, ran it from before the
    /// log's first line until `stop`. `left`: the departure line.
    KeptFromBefore {
        resource: Resource,
        generation: i32,
        left: SourceLine,
        stop: SourceLine,
    },
    /// A single-worker finding, final.
    Finding(Box<Finding>),
    /// A `foreign-start` finding: final once the cross-worker checks have
    /// named the owner of its resource where the other logs show one.
    ForeignStart {
        resource: Resource,
        generation: Option<i32>,
        finding: Box<Finding>,
    },
    /// The worker's stream ended: no fact of it follows.
    End,
}
