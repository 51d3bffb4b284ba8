//! The herders of one stream. A Connect worker runs one `DistributedHerder`;
//! MirrorMaker 2 in dedicated mode (`org.apache.kafka.connect.mirror.MirrorMaker`)
//! runs one per replication flow in one JVM, all writing to one log, each a
//! member of its own group (`<source>-mm2`). Each herder is a worker of its
//! own: a line carrying the LogContext prefix `[Worker clientId=…,
//! groupId=<g>]` is the herder of group `<g>`'s.
//!
//! `Worker`, `WorkerConnector` and task lines carry no prefix. In a stream
//! with one herder they are its own. In a stream with several (two groups
//! seen in prefixes, or a MirrorMaker line) such a line is given to a herder
//! only when it is provably that herder's: the connector it names (in its
//! message or its MDC `[<conn>|…]`) is named by the prefixed lines of that
//! herder and of no other herder of the stream. Any other unprefixed line
//! (lines naming no connector, connectors several flows run — every flow's
//! `MirrorSourceConnector` has the same name — or lines written while
//! MirrorMaker builds its herders) is left unattributed: it is counted and
//! never read, so no finding rests on it.

use crate::event::Event;
use crate::model::Name;
use rustc_hash::FxHashSet as HashSet;

/// The logger MirrorMaker's own lines name.
pub const MIRROR_MAKER_LOGGER: &str = "org.apache.kafka.connect.mirror.MirrorMaker";

/// What a MirrorMaker line says about the herders of its JVM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MirrorLine {
    /// `Kafka MirrorMaker initializing ...`, `creating herder for A->B`:
    /// MirrorMaker is building its herders; its lines until the herders
    /// start cannot be told apart.
    Building,
    /// `Kafka MirrorMaker starting with 2 herders.`: the herders run.
    Starting,
    /// Any other MirrorMaker line.
    Other,
}

/// Reads a MirrorMaker message (`%m`, without layout).
pub fn mirror_line(msg: &str) -> MirrorLine {
    if msg.starts_with("Kafka MirrorMaker initializing") || msg.starts_with("creating herder for ")
    {
        MirrorLine::Building
    } else if msg.starts_with("Kafka MirrorMaker starting with ") {
        MirrorLine::Starting
    } else {
        MirrorLine::Other
    }
}

/// Is this logger-less message one of MirrorMaker's? (Its wordings are its
/// own; no Connect class prints them.)
pub fn is_mirror_wording(msg: &str) -> bool {
    msg.starts_with("Kafka MirrorMaker ") || msg.starts_with("creating herder for ")
}

/// Where a line goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The herder at this index of the stream (0: the stream's first).
    Herder(u32),
    /// Nobody's provably: counted, not read. `suspects`: the herders
    /// whose prefixed lines named a connector the line names (it may be
    /// any of theirs): what they run is unknown from here on.
    Unattributed { suspects: Vec<u32> },
}

#[derive(Debug, Default)]
struct Herder {
    group: Option<String>,
    /// Connectors this herder's prefixed lines name.
    connectors: HashSet<Name>,
}

/// The herders of one stream and what their prefixed lines named.
#[derive(Debug, Default)]
pub struct Herders {
    herders: Vec<Herder>,
    /// A MirrorMaker line was read: the stream may hold several herders.
    mirror: bool,
    /// MirrorMaker is building its herders.
    building: bool,
    /// Unprefixed lines with a lifecycle event that no herder provably
    /// wrote.
    pub unattributed: u64,
}

impl Herders {
    /// Does the stream hold (or may it hold) more than one herder?
    pub fn several(&self) -> bool {
        self.mirror || self.herders.len() > 1
    }

    /// A MirrorMaker line was read.
    pub fn mirror(&self) -> bool {
        self.mirror
    }

    /// The group of the herder at `index`, once a prefix named it.
    pub fn group(&self, index: u32) -> Option<&str> {
        self.herders.get(index as usize)?.group.as_deref()
    }

    /// A MirrorMaker line.
    pub fn mirror_maker(&mut self, line: MirrorLine) {
        self.mirror = true;
        match line {
            MirrorLine::Building => self.building = true,
            MirrorLine::Starting => self.building = false,
            MirrorLine::Other => {}
        }
    }

    /// The herder of a line carrying the prefix of group `group`: the
    /// stream's first herder takes the first group named.
    fn prefixed(&mut self, group: &str) -> u32 {
        if let Some(i) = self
            .herders
            .iter()
            .position(|h| h.group.as_deref() == Some(group))
        {
            return i as u32;
        }
        match self.herders.first_mut() {
            None => self.herders.push(Herder {
                group: Some(group.to_string()),
                ..Herder::default()
            }),
            Some(first) if first.group.is_none() => first.group = Some(group.to_string()),
            Some(_) => self.herders.push(Herder {
                group: Some(group.to_string()),
                ..Herder::default()
            }),
        }
        self.herders
            .iter()
            .position(|h| h.group.as_deref() == Some(group))
            .unwrap_or(0) as u32
    }

    /// Where the line of event `ev` goes: `group` from its LogContext
    /// prefix, `mdc` the connector its MDC names.
    pub fn route(&mut self, ev: &Event, group: Option<&str>, mdc: Option<&str>) -> Route {
        if let Some(g) = group {
            let i = self.prefixed(g);
            let herder = &mut self.herders[i as usize];
            for c in named_connectors(ev) {
                if !herder.connectors.contains(c) {
                    herder.connectors.insert(c.clone());
                }
            }
            return Route::Herder(i);
        }
        if !self.several() {
            if self.herders.is_empty() {
                self.herders.push(Herder::default());
            }
            return Route::Herder(0);
        }
        let named = named_connectors(ev);
        if self.building {
            self.unattributed += 1;
            return Route::Unattributed {
                suspects: self.suspects(&named),
            };
        }
        let mut owner = None;
        // Every connector the line names must be one herder's, the same one.
        let all: Vec<&str> = named.iter().map(|n| &***n).chain(mdc).collect();
        for c in &all {
            let mut owners = self
                .herders
                .iter()
                .enumerate()
                .filter(|(_, h)| h.connectors.contains(*c))
                .map(|(i, _)| i as u32);
            match (owners.next(), owners.next()) {
                (Some(i), None) if owner.is_none_or(|o| o == i) => owner = Some(i),
                _ => {
                    owner = None;
                    break;
                }
            }
        }
        match owner {
            Some(i) if !all.is_empty() => Route::Herder(i),
            _ => {
                self.unattributed += 1;
                Route::Unattributed {
                    suspects: self.suspects(&named),
                }
            }
        }
    }

    /// The herders that named any of these connectors.
    fn suspects(&self, named: &[&Name]) -> Vec<u32> {
        self.herders
            .iter()
            .enumerate()
            .filter(|(_, h)| named.iter().any(|n| h.connectors.contains(&***n)))
            .map(|(i, _)| i as u32)
            .collect()
    }
}

/// The connectors an event names.
fn named_connectors(ev: &Event) -> Vec<&Name> {
    use Event as E;
    match ev {
        E::Starting(r)
        | E::StartFailed { resource: r, .. }
        | E::Creating(r)
        | E::Instantiated(r)
        | E::Stopping(r)
        | E::IgnoringStop(r)
        | E::IgnoringAwaitStop(r)
        | E::Stopped(r)
        | E::GracefulStop { resource: r, .. }
        | E::RestartOutcome { resource: r, .. }
        | E::AlreadyExists(r) => vec![r.connector_name()],
        E::ShutdownFailed(n)
        | E::FinishedCreatingConnector(n)
        | E::ScheduledShutdown(n)
        | E::ConnectorUnresponsive(n)
        | E::SettingTargetState { connector: n, .. }
        | E::ConnectorError(n)
        | E::ConnectorConfigUpdated(n)
        | E::ConnectorConfigRemoved(n)
        | E::TargetStateChange(n)
        | E::HandlingConnectorUpdate { connector: n, .. }
        | E::SkippingReconfiguration(n)
        | E::ConnectorRemovedFromStore(n)
        | E::RestartRequested { connector: n, .. }
        | E::ExecutingPlan { connector: n }
        | E::CompletedPlan { connector: n } => vec![n],
        E::TaskCountChanged {
            connector: Some(n), ..
        } => vec![n],
        E::TaskInitialized(t) | E::TaskKilled(t) => vec![&t.connector],
        E::TaskConfigsUpdated(ts) | E::HandlingTaskUpdate { tasks: ts, .. } => {
            ts.iter().map(|t| &t.connector).collect()
        }
        E::Assignment { assignment: a, .. } => a
            .connectors
            .iter()
            .chain(a.tasks.iter().map(|t| &t.connector))
            .chain(a.revoked_connectors.iter().flatten())
            .chain(a.revoked_tasks.iter().flatten().map(|t| &t.connector))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Milestone;
    use crate::model::{Resource, TaskId};
    use std::sync::Arc;

    fn task(c: &str, i: u32) -> Resource {
        Resource::Task(TaskId::new(c, i))
    }

    fn conn(c: &str) -> Resource {
        Resource::Connector(Arc::from(c))
    }

    #[test]
    fn one_herder_takes_every_line() {
        let mut h = Herders::default();
        let ev = Event::Creating(task("a", 0));
        assert_eq!(h.route(&ev, None, Some("a")), Route::Herder(0));
        assert_eq!(
            h.route(&Event::Starting(task("a", 0)), Some("g"), None),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(&Event::Milestone(Milestone::WorkerStopping), None, None),
            Route::Herder(0)
        );
        assert!(!h.several());
        assert_eq!(h.group(0), Some("g"));
        assert_eq!(h.unattributed, 0);
    }

    #[test]
    fn each_group_is_its_own_herder() {
        let mut h = Herders::default();
        assert_eq!(
            h.route(&Event::SessionKeyUpdated, Some("A-mm2"), None),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(&Event::SessionKeyUpdated, Some("B-mm2"), None),
            Route::Herder(1)
        );
        assert_eq!(
            h.route(&Event::SessionKeyUpdated, Some("A-mm2"), None),
            Route::Herder(0)
        );
        assert!(h.several());
        assert_eq!(h.group(1), Some("B-mm2"));
    }

    #[test]
    fn unprefixed_lines_go_only_where_their_connector_is_one_herders() {
        let mut h = Herders::default();
        h.route(
            &Event::Starting(conn("MirrorSourceConnector")),
            Some("A-mm2"),
            None,
        );
        h.route(
            &Event::Starting(conn("MirrorSourceConnector")),
            Some("B-mm2"),
            None,
        );
        h.route(
            &Event::Starting(conn("MirrorHeartbeatConnector")),
            Some("B-mm2"),
            None,
        );
        // Both flows run MirrorSourceConnector: its Worker lines are nobody's.
        let shared = Event::Creating(task("MirrorSourceConnector", 0));
        assert_eq!(
            h.route(&shared, None, Some("MirrorSourceConnector")),
            Route::Unattributed {
                suspects: vec![0, 1]
            }
        );
        // Only B's herder named the heartbeat connector.
        let own = Event::Creating(task("MirrorHeartbeatConnector", 0));
        assert_eq!(
            h.route(&own, None, Some("MirrorHeartbeatConnector")),
            Route::Herder(1)
        );
        // The MDC alone can prove it.
        assert_eq!(
            h.route(
                &Event::Milestone(Milestone::WorkerStopping),
                None,
                Some("MirrorHeartbeatConnector")
            ),
            Route::Herder(1)
        );
        // A line naming no connector, and one whose MDC and message disagree.
        assert_eq!(
            h.route(&Event::Milestone(Milestone::WorkerStopping), None, None),
            Route::Unattributed { suspects: vec![] }
        );
        assert_eq!(
            h.route(&own, None, Some("MirrorSourceConnector")),
            Route::Unattributed { suspects: vec![1] }
        );
        assert_eq!(h.unattributed, 3);
    }

    #[test]
    fn mirror_maker_lines_make_a_stream_of_several_herders() {
        let mut h = Herders::default();
        h.mirror_maker(mirror_line("creating herder for A->B"));
        // While it builds its herders, nothing unprefixed is anyone's.
        assert_eq!(
            h.route(&Event::KafkaClusterId("x".into()), None, None),
            Route::Unattributed { suspects: vec![] }
        );
        h.mirror_maker(mirror_line("Kafka MirrorMaker starting with 2 herders."));
        h.route(&Event::Starting(conn("c")), Some("A-mm2"), None);
        assert_eq!(
            h.route(&Event::Creating(conn("c")), None, Some("c")),
            Route::Herder(0)
        );
        assert_eq!(h.unattributed, 1);
    }

    #[test]
    fn mirror_wordings() {
        assert_eq!(
            mirror_line("Kafka MirrorMaker initializing ..."),
            MirrorLine::Building
        );
        assert_eq!(
            mirror_line("creating herder for A->B"),
            MirrorLine::Building
        );
        assert_eq!(
            mirror_line("Kafka MirrorMaker starting with 2 herders."),
            MirrorLine::Starting
        );
        assert_eq!(mirror_line("Kafka MirrorMaker started"), MirrorLine::Other);
        assert!(is_mirror_wording("Kafka MirrorMaker stopping"));
        assert!(!is_mirror_wording("Kafka Connect starting"));
    }

    #[test]
    fn assignments_name_their_connectors() {
        let a = crate::model::Assignment {
            error: 0,
            leader: "l".into(),
            leader_url: "u".into(),
            offset: 1,
            connectors: vec![Arc::from("c")],
            tasks: vec![TaskId::new("d", 0)],
            revoked_connectors: Some(vec![Arc::from("e")]),
            revoked_tasks: None,
            delay: None,
        };
        let ev = Event::Assignment {
            generation: Some(1),
            protocol_version: None,
            assignment: a,
            rebalance_delay: None,
        };
        let names: Vec<&str> = named_connectors(&ev).into_iter().map(|n| &**n).collect();
        assert_eq!(names, ["c", "d", "e"]);
    }
}
