//! The status topic replayed: per connector and task, every state a worker
//! wrote (with its generation), and per worker the generations it wrote
//! at. A worker writes RUNNING when an instance starts (`put`: always
//! written), UNASSIGNED when it stops and FAILED when it fails (`putSafe`:
//! not written when the worker's copy of the topic shows another worker's
//! status at a newer generation), PAUSED, RESTARTING and STOPPED as they
//! happen, and a tombstone when the connector is deleted (DESTROYED).

use super::record::{State, StateKind, Status};
use crate::model::{Name, Resource};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One status record of a resource: its place in the replayed sequence and
/// what it says (`None`: a tombstone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub at: usize,
    pub state: Option<State>,
}

/// The status timelines.
#[derive(Debug, Clone, Default)]
pub struct Timelines {
    pub resources: BTreeMap<Resource, Vec<Entry>>,
    /// Per worker id: the generations of its records, in order.
    pub workers: BTreeMap<Arc<str>, Vec<(usize, i32)>>,
    /// Topics each connector was seen to use (2.5+): (topic, record).
    pub topics: BTreeMap<Name, Vec<(String, usize)>>,
}

impl Timelines {
    pub fn apply(&mut self, at: usize, rec: &Status) {
        let (resource, state) = match rec {
            Status::Connector { name, state } => (Resource::Connector(name.clone()), state),
            Status::Task { task, state } => (Resource::Task(task.clone()), state),
            Status::Topic {
                topic, connector, ..
            } => {
                self.topics
                    .entry(connector.clone())
                    .or_default()
                    .push((topic.clone(), at));
                return;
            }
        };
        if let Some(s) = state {
            self.workers
                .entry(s.worker.clone())
                .or_default()
                .push((at, s.generation));
        }
        self.resources.entry(resource).or_default().push(Entry {
            at,
            state: state.clone(),
        });
    }
}

/// Whether a state means the writer's instance no longer runs.
pub fn ends_run(s: &StateKind) -> bool {
    matches!(
        s,
        StateKind::Unassigned
            | StateKind::Failed
            | StateKind::Destroyed
            | StateKind::Paused
            | StateKind::Stopped
    )
}
