//! The config topic replayed as a worker's `KafkaConfigBackingStore` reads
//! it: after each record, the snapshot a worker would hand its herder
//! (`ClusterConfigState`: connector configs, target states, committed task
//! configs and counts, inconsistent connectors), and the history of every
//! connector (incarnations, config versions, task-config sets with the
//! commit that made each live, target states). docs/topics.md, "Replaying
//! the config topic", gives the rules and the releases they come from.

use super::record::{Config, TargetState};
use crate::model::{Name, TaskId};
use std::collections::{BTreeMap, BTreeSet};

/// How a release reads the config topic where releases differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Up to 2.5.0: a connector's tombstone removes its config only; its
    /// committed task configs and task count stay (KAFKA-8869).
    UpTo2_5_0,
    /// 2.5.1–3.3: the tombstone also removes its task configs and count.
    From2_5_1,
    /// 3.4.0–3.7.0: and the task configs written but not yet committed.
    From3_4,
    /// 3.7.1+: a commit for a connector without a config is ignored (the
    /// connector is removed again).
    From3_7_1,
}

impl Family {
    pub fn latest() -> Family {
        Family::From3_7_1
    }
    /// The family of a release `major.minor[.patch]`.
    pub fn of_release(v: &str) -> Option<Family> {
        let num = |s: Option<&str>| -> Option<u32> {
            let s = s?;
            let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            s[..end].parse().ok()
        };
        let mut it = v.split('.');
        let major = num(it.next())?;
        let minor = num(it.next())?;
        let patch = num(it.next()).unwrap_or(0);
        Some(match (major, minor, patch) {
            (0..=1, _, _) | (2, 0..=4, _) | (2, 5, 0) => Family::UpTo2_5_0,
            (2, _, _) | (3, 0..=3, _) => Family::From2_5_1,
            (3, 4..=6, _) | (3, 7, 0) => Family::From3_4,
            _ => Family::From3_7_1,
        })
    }
}

/// A record's index in the replayed sequence.
pub type At = usize;

/// One incarnation of a connector: from the config record that created it
/// to the tombstone that deleted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incarnation {
    pub created: At,
    pub deleted: Option<At>,
}

/// A committed task-config set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub at: At,
    pub tasks: u32,
    /// The task config records it made live (task index → record), or
    /// `None` when the set was incomplete (the connector became
    /// inconsistent).
    pub applied: Option<BTreeMap<u32, At>>,
    /// The connector's incarnation when the commit was read.
    pub incarnation: usize,
}

/// What the config topic says of one connector over time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct History {
    pub incarnations: Vec<Incarnation>,
    /// Config records (creations and updates), in order.
    pub configs: Vec<At>,
    pub commits: Vec<Commit>,
    pub target_states: Vec<(At, Option<TargetState>)>,
    pub restarts: Vec<At>,
}

/// A task config the snapshot holds: the record, and the incarnation of its
/// connector it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskConfig {
    pub at: At,
    pub incarnation: usize,
}

/// What a worker holds after reading the topic up to some record
/// (`ClusterConfigState`), each entry naming the record it came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// The offset a worker reports for this snapshot: the last record's
    /// offset + 1 (`Starting connectors and tasks using config offset N`).
    pub offset: Option<i64>,
    pub connectors: BTreeMap<Name, At>,
    pub target_states: BTreeMap<Name, TargetState>,
    pub task_counts: BTreeMap<Name, u32>,
    pub task_configs: BTreeMap<TaskId, TaskConfig>,
    pub deferred: BTreeMap<Name, BTreeMap<u32, TaskConfig>>,
    pub inconsistent: BTreeSet<Name>,
}

impl Snapshot {
    /// `ClusterConfigState.tasks(connector)`: tasks 0..count, none while the
    /// connector is inconsistent.
    pub fn tasks(&self, connector: &Name) -> Vec<TaskId> {
        if self.inconsistent.contains(connector) {
            return Vec::new();
        }
        let n = self.task_counts.get(connector).copied().unwrap_or(0);
        (0..n).map(|i| TaskId::new(connector, i)).collect()
    }
}

/// The replay.
#[derive(Debug, Clone)]
pub struct Replay {
    pub family: Family,
    pub snapshot: Snapshot,
    pub history: BTreeMap<Name, History>,
}

impl Replay {
    pub fn new(family: Family) -> Replay {
        Replay {
            family,
            snapshot: Snapshot::default(),
            history: BTreeMap::new(),
        }
    }

    fn incarnation(&self, c: &Name) -> usize {
        self.history
            .get(c)
            .map_or(0, |h| h.incarnations.len().saturating_sub(1))
    }

    /// Applies record `at` (at Kafka offset `offset`, when known).
    pub fn apply(&mut self, at: At, offset: Option<i64>, rec: &Config) {
        if let Some(o) = offset {
            self.snapshot.offset = Some(o + 1);
        }
        match rec {
            Config::Connector { name, config } => self.connector(at, name, config.is_some()),
            Config::Task { task, config } => {
                // a null task config is ignored by every release
                if config.is_some() {
                    let inc = self.incarnation(&task.connector);
                    self.snapshot
                        .deferred
                        .entry(task.connector.clone())
                        .or_default()
                        .insert(
                            task.index,
                            TaskConfig {
                                at,
                                incarnation: inc,
                            },
                        );
                }
            }
            Config::Commit { connector, tasks } => self.commit(at, connector, *tasks),
            Config::TargetState { connector, state } => {
                let s = &mut self.snapshot;
                match state {
                    Some(t) => {
                        s.target_states.insert(connector.clone(), *t);
                    }
                    None => {
                        s.target_states.remove(connector);
                        if s.connectors.contains_key(connector) {
                            s.target_states
                                .insert(connector.clone(), TargetState::Started);
                        }
                    }
                }
                self.history
                    .entry(connector.clone())
                    .or_default()
                    .target_states
                    .push((at, *state));
            }
            Config::Restart { connector, .. } => self
                .history
                .entry(connector.clone())
                .or_default()
                .restarts
                .push(at),
            Config::TaskCount { .. } | Config::SessionKey { .. } | Config::LoggerLevel { .. } => {}
        }
    }

    fn connector(&mut self, at: At, name: &Name, present: bool) {
        let family = self.family;
        let s = &mut self.snapshot;
        let h = self.history.entry(name.clone()).or_default();
        if present {
            if !s.connectors.contains_key(name) {
                h.incarnations.push(Incarnation {
                    created: at,
                    deleted: None,
                });
            }
            h.configs.push(at);
            s.connectors.insert(name.clone(), at);
            s.target_states
                .entry(name.clone())
                .or_insert(TargetState::Started);
            return;
        }
        if let Some(i) = h.incarnations.last_mut().filter(|i| i.deleted.is_none()) {
            i.deleted = Some(at);
        }
        s.connectors.remove(name);
        if family >= Family::From2_5_1 {
            s.task_counts.remove(name);
            s.task_configs.retain(|t, _| t.connector != *name);
        }
        if family >= Family::From3_4 {
            s.deferred.remove(name);
        }
    }

    fn commit(&mut self, at: At, connector: &Name, tasks: u32) {
        let inc = self.incarnation(connector);
        let s = &mut self.snapshot;
        if self.family >= Family::From3_7_1 && !s.connectors.contains_key(connector) {
            // processConnectorRemoval, then nothing
            s.task_counts.remove(connector);
            s.task_configs.retain(|t, _| t.connector != *connector);
            s.deferred.remove(connector);
            return;
        }
        let deferred = s.deferred.remove(connector).unwrap_or_default();
        let complete = (0..tasks).all(|i| deferred.contains_key(&i));
        let applied = if complete {
            for (i, tc) in &deferred {
                s.task_configs.insert(TaskId::new(connector, *i), *tc);
            }
            s.inconsistent.remove(connector);
            Some(deferred.iter().map(|(i, tc)| (*i, tc.at)).collect())
        } else {
            s.inconsistent.insert(connector.clone());
            None
        };
        s.task_counts.insert(connector.clone(), tasks);
        self.history
            .entry(connector.clone())
            .or_default()
            .commits
            .push(Commit {
                at,
                tasks,
                applied,
                incarnation: inc,
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Name;

    fn n(s: &str) -> Name {
        Name::from(s)
    }
    fn conn(name: &str, present: bool) -> Config {
        Config::Connector {
            name: n(name),
            config: present.then(BTreeMap::new),
        }
    }
    fn task(name: &str, i: u32) -> Config {
        Config::Task {
            task: TaskId::new(name, i),
            config: Some(BTreeMap::new()),
        }
    }
    fn commit(name: &str, tasks: u32) -> Config {
        Config::Commit {
            connector: n(name),
            tasks,
        }
    }

    /// The kafka-8869 scenario: c with 2 tasks, deleted, created again
    /// with 3 tasks; the snapshot between the re-creation and its commit.
    fn replay_8869(family: Family) -> (Snapshot, Replay) {
        let recs = [
            conn("c", true),
            task("c", 0),
            task("c", 1),
            commit("c", 2),
            conn("c", false),
            conn("c", true),
        ];
        let mut r = Replay::new(family);
        for (i, rec) in recs.iter().enumerate() {
            r.apply(i, Some(i as i64), rec);
        }
        let window = r.snapshot.clone();
        for (i, rec) in [task("c", 0), task("c", 1), task("c", 2), commit("c", 3)]
            .iter()
            .enumerate()
        {
            r.apply(6 + i, Some(6 + i as i64), rec);
        }
        (window, r)
    }

    #[test]
    fn up_to_2_5_0_the_deleted_incarnations_tasks_stay_live() {
        let (window, r) = replay_8869(Family::UpTo2_5_0);
        assert_eq!(window.offset, Some(6));
        assert_eq!(window.tasks(&n("c")).len(), 2);
        let tc = window.task_configs[&TaskId::new("c", 0)];
        assert_eq!((tc.at, tc.incarnation), (1, 0));
        let h = &r.history[&n("c")];
        assert_eq!(h.incarnations.len(), 2);
        assert_eq!(h.incarnations[0].deleted, Some(4));
        assert_eq!(h.commits[1].incarnation, 1);
        assert_eq!(r.snapshot.tasks(&n("c")).len(), 3);
        assert_eq!(r.snapshot.task_configs[&TaskId::new("c", 0)].incarnation, 1);
    }

    #[test]
    fn from_2_5_1_deletion_removes_the_tasks() {
        for f in [Family::From2_5_1, Family::From3_4, Family::From3_7_1] {
            let (window, r) = replay_8869(f);
            assert!(window.tasks(&n("c")).is_empty(), "{f:?}");
            assert_eq!(r.snapshot.tasks(&n("c")).len(), 3, "{f:?}");
        }
    }

    #[test]
    fn an_incomplete_set_makes_the_connector_inconsistent_until_a_complete_one() {
        let mut r = Replay::new(Family::latest());
        r.apply(0, Some(10), &conn("c", true));
        r.apply(1, Some(11), &task("c", 1));
        r.apply(2, Some(12), &commit("c", 2));
        assert!(r.snapshot.inconsistent.contains(&n("c")));
        assert!(r.snapshot.tasks(&n("c")).is_empty());
        assert_eq!(r.history[&n("c")].commits[0].applied, None);
        r.apply(3, Some(13), &task("c", 0));
        r.apply(4, Some(14), &task("c", 1));
        r.apply(5, Some(15), &commit("c", 2));
        assert!(r.snapshot.inconsistent.is_empty());
        assert_eq!(r.snapshot.tasks(&n("c")).len(), 2);
        assert_eq!(r.snapshot.offset, Some(16));
    }

    #[test]
    fn a_commit_without_a_connector_is_ignored_from_3_7_1() {
        let mut r = Replay::new(Family::From3_7_1);
        r.apply(0, Some(0), &task("gone", 0));
        r.apply(1, Some(1), &commit("gone", 1));
        assert!(r.snapshot.task_counts.is_empty());
        let mut r = Replay::new(Family::From3_4);
        r.apply(0, Some(0), &task("gone", 0));
        r.apply(1, Some(1), &commit("gone", 1));
        assert_eq!(r.snapshot.task_counts[&n("gone")], 1);
    }

    #[test]
    fn families_of_releases() {
        assert_eq!(Family::of_release("2.3.1"), Some(Family::UpTo2_5_0));
        assert_eq!(Family::of_release("2.5.0"), Some(Family::UpTo2_5_0));
        assert_eq!(Family::of_release("2.5.1"), Some(Family::From2_5_1));
        assert_eq!(Family::of_release("2.6.0"), Some(Family::From2_5_1));
        assert_eq!(Family::of_release("3.3.2"), Some(Family::From2_5_1));
        assert_eq!(Family::of_release("3.7.0"), Some(Family::From3_4));
        assert_eq!(Family::of_release("3.7.2"), Some(Family::From3_7_1));
        assert_eq!(Family::of_release("3.9.1"), Some(Family::From3_7_1));
        assert_eq!(Family::of_release("4.4.0"), Some(Family::From3_7_1));
        assert_eq!(Family::of_release("x"), None);
    }
}
