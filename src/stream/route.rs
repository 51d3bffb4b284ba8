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
//! only when it is provably that herder's:
//!
//! * every herder that may have written it is known with all it runs: the
//!   JVM is a MirrorMaker that said how many herders it starts (`Kafka
//!   MirrorMaker starting with N herders.`) and that many logged `Herder
//!   starting` since; from then on a herder runs only what it started,
//!   each start announced by its own prefixed `Starting connector|task …`;
//! * and each connector and task the line names (in its message or its MDC
//!   `[<conn>|worker]`, `[<conn>|task-<n>]`) is named by the prefixed lines
//!   of that herder and of no other.
//!
//! Before that, a line of the Worker about an instance (its creation, start
//! failure, stop) goes to the herder that holds the named connector or task
//! at that moment (assigned, or an instance of it live), when exactly one
//! herder does and every other herder is known not to (its latest
//! assignment line lacks it and no instance of it is live): only a herder
//! that holds an instance logs such a line. This needs no MirrorMaker line
//! (a log that starts mid-life, a path another worker's log took over), but
//! every herder that may have written the line must have shown itself: not
//! while MirrorMaker builds its herders, nor while fewer have logged than it
//! said it starts.
//!
//! A Worker's `Stopping …` of a connector or task that several herders hold,
//! logged while each of them is inside a rebalance, is parked: under a
//! cooperative protocol the stops of a rebalance are its revocations,
//! logged before the assignment line that names them, so it goes to the
//! first of those herders whose next assignment line revokes what it names;
//! a herder whose next assignment keeps it did not stop it. A parked line
//! no herder takes is left unattributed.
//!
//! Any other unprefixed line (naming nothing, or a connector or task several
//! flows run: every flow has a `MirrorSourceConnector`; or written while
//! MirrorMaker builds its herders) is left unattributed: counted and never
//! read, and the herders that may have written it lose track of what they
//! run, so no finding rests on it or on its absence.

use crate::event::{Event, Milestone};
use crate::layout::MdcScope;
use crate::model::{Name, Resource, TaskId};
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
    /// `Kafka MirrorMaker starting with 2 herders.`: that many herders run.
    Starting(usize),
    /// Any other MirrorMaker line.
    Other,
}

/// Reads a MirrorMaker message (`%m`, without layout).
pub fn mirror_line(msg: &str) -> MirrorLine {
    if msg.starts_with("Kafka MirrorMaker initializing") || msg.starts_with("creating herder for ")
    {
        return MirrorLine::Building;
    }
    msg.strip_prefix("Kafka MirrorMaker starting with ")
        .and_then(|r| r.strip_suffix(" herders."))
        .and_then(|n| n.parse().ok())
        .map_or(MirrorLine::Other, MirrorLine::Starting)
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
    /// A stop of `resource`, held by each of `candidates`, all inside a
    /// rebalance: the first of them whose next assignment line revokes it
    /// stopped it (see the module's doc). `suspects` as for
    /// [`Route::Unattributed`], if none does.
    Park {
        resource: Resource,
        candidates: Vec<u32>,
        suspects: Vec<u32>,
    },
    /// A line about the whole MirrorMaker JVM, every herder's (those that
    /// come later too): its REST server's `Advertised URI` (one server per
    /// JVM, KIP-710).
    Jvm,
}

/// What a herder's replay says of a resource now
/// ([`crate::replay::WorkerReplay::holds_now`]), and whether the herder is
/// inside a rebalance.
pub trait Holdings {
    fn holds(&self, herder: u32, r: &Resource) -> Option<bool>;
    /// The herder's start of `r` is under way (its `Starting …` line read,
    /// the Worker's answer still coming).
    fn starting(&self, herder: u32, r: &Resource) -> bool;
    fn in_rebalance(&self, herder: u32) -> bool;
}

/// A connector or a task a line names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Named {
    Conn(Name),
    Task(TaskId),
}

impl Named {
    fn connector(&self) -> &Name {
        match self {
            Named::Conn(n) => n,
            Named::Task(t) => &t.connector,
        }
    }

    fn resource(&self) -> Resource {
        match self {
            Named::Conn(n) => Resource::Connector(n.clone()),
            Named::Task(t) => Resource::Task(t.clone()),
        }
    }
}

#[derive(Debug, Default)]
struct Herder {
    group: Option<String>,
    /// Connectors and tasks this herder's prefixed lines name (a task's
    /// connector with it).
    names: HashSet<Named>,
    /// It logged `Herder starting` since MirrorMaker last began building
    /// its herders: every connector and task it runs since, it started
    /// with a prefixed `Starting …` line.
    fresh: bool,
}

/// The herders of one stream and what their prefixed lines named.
#[derive(Debug, Default)]
pub struct Herders {
    herders: Vec<Herder>,
    /// A MirrorMaker line was read: the stream may hold several herders.
    mirror: bool,
    /// MirrorMaker is building its herders.
    building: bool,
    /// How many herders MirrorMaker said it starts.
    expected: Option<usize>,
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
            MirrorLine::Building => {
                self.building = true;
                self.expected = None;
                for h in &mut self.herders {
                    h.fresh = false;
                }
            }
            MirrorLine::Starting(n) => {
                self.building = false;
                self.expected = Some(n);
            }
            MirrorLine::Other => {}
        }
    }

    /// Is every herder that may have written a line known, with all it
    /// started? Only in a MirrorMaker JVM whose herders all logged their
    /// start after MirrorMaker said how many it starts.
    fn complete(&self) -> bool {
        !self.building
            && self
                .expected
                .is_some_and(|n| self.herders.iter().filter(|h| h.fresh).count() >= n)
    }

    /// Has every herder that may write a line shown itself? Not while
    /// MirrorMaker builds its herders, nor while fewer herders have logged
    /// than it said it starts.
    fn all_shown(&self) -> bool {
        !self.building && self.expected.is_none_or(|n| self.herders.len() >= n)
    }

    /// The one herder holding every resource of `named` while every other
    /// herder is known to hold none of them (see the module's doc).
    fn holder(&self, named: &[Named], holdings: &impl Holdings) -> Option<u32> {
        if named.is_empty() || !self.all_shown() {
            return None;
        }
        let mut holder = None;
        for i in 0..self.herders.len() as u32 {
            let said: Vec<Option<bool>> = named
                .iter()
                .map(|n| holdings.holds(i, &n.resource()))
                .collect();
            if said.contains(&Some(false)) {
                continue;
            }
            if !said.iter().all(|h| *h == Some(true)) || holder.is_some() {
                return None;
            }
            holder = Some(i);
        }
        holder
    }

    /// The Worker's answer to a start (`Creating …`, `Instantiated …`, its
    /// failure, `Finished creating connector …`) is the herder's whose start
    /// of what it names is under way, when one herder's alone is.
    fn starter(&self, ev: &Event, named: &[Named], holdings: &impl Holdings) -> Option<u32> {
        let answer = matches!(
            ev,
            Event::Creating(_)
                | Event::Instantiated(_)
                | Event::StartFailed { .. }
                | Event::AlreadyExists(_)
                | Event::FinishedCreatingConnector(_)
        );
        if !answer || named.is_empty() || !self.all_shown() {
            return None;
        }
        let mut starters = (0..self.herders.len() as u32)
            .filter(|&i| named.iter().all(|n| holdings.starting(i, &n.resource())));
        match (starters.next(), starters.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    }

    /// The herders that may have stopped `r` now, when there are several
    /// and each is inside a rebalance (`None` otherwise).
    fn stop_candidates(&self, r: &Resource, holdings: &impl Holdings) -> Option<Vec<u32>> {
        if !self.all_shown() {
            return None;
        }
        let candidates: Vec<u32> = (0..self.herders.len() as u32)
            .filter(|&i| holdings.holds(i, r) != Some(false))
            .collect();
        (candidates.len() > 1 && candidates.iter().all(|&i| holdings.in_rebalance(i)))
            .then_some(candidates)
    }

    /// The herder of a line carrying the prefix of group `group`: the
    /// stream's first herder takes the first group named.
    fn prefixed(&mut self, group: &str) -> usize {
        if let Some(i) = self
            .herders
            .iter()
            .position(|h| h.group.as_deref() == Some(group))
        {
            return i;
        }
        match self.herders.first_mut() {
            Some(first) if first.group.is_none() => {
                first.group = Some(group.to_string());
                0
            }
            _ => {
                self.herders.push(Herder {
                    group: Some(group.to_string()),
                    ..Herder::default()
                });
                self.herders.len() - 1
            }
        }
    }

    /// Where the line of event `ev` goes: `group` from its LogContext
    /// prefix, `mdc` its MDC (connector and scope).
    pub fn route(
        &mut self,
        ev: &Event,
        group: Option<&str>,
        mdc: Option<(&str, MdcScope)>,
        holdings: &impl Holdings,
    ) -> Route {
        if let Some(g) = group {
            let i = self.prefixed(g);
            let herder = &mut self.herders[i];
            if *ev == Event::Milestone(Milestone::HerderStarting) {
                herder.fresh = true;
            }
            // Only a MirrorMaker JVM's unprefixed lines are ever attributed
            // by name (it says so on its first line): a worker's log pays
            // nothing for them.
            if !self.mirror {
                return Route::Herder(i as u32);
            }
            for n in names(ev) {
                if let Named::Task(t) = &n {
                    herder.names.insert(Named::Conn(t.connector.clone()));
                }
                herder.names.insert(n);
            }
            return Route::Herder(i as u32);
        }
        if !self.several() {
            if self.herders.is_empty() {
                self.herders.push(Herder::default());
            }
            return Route::Herder(0);
        }
        if self.mirror && matches!(ev, Event::AdvertisedUrl(_)) {
            return Route::Jvm;
        }
        let mut named = names(ev);
        if let Some((conn, scope)) = mdc {
            named.push(match scope {
                MdcScope::Task(n) | MdcScope::TaskOffsets(n) => Named::Task(TaskId::new(conn, n)),
                MdcScope::Worker | MdcScope::Other => Named::Conn(Name::from(conn)),
            });
        }
        if let Some(i) = self.starter(ev, &named, holdings) {
            return Route::Herder(i);
        }
        if is_instance_line(ev)
            && let Some(i) = self.holder(&named, holdings)
        {
            return Route::Herder(i);
        }
        if let Some(r) = stop_of(ev)
            && named.iter().all(|n| n.resource() == r)
            && let Some(candidates) = self.stop_candidates(&r, holdings)
        {
            self.unattributed += 1;
            return Route::Park {
                resource: r.clone(),
                candidates,
                suspects: self.suspects(&named),
            };
        }
        // Every connector and task the line names must be one herder's,
        // the same one.
        let mut owner = None;
        if self.complete() {
            for n in &named {
                let mut owners = self
                    .herders
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| h.names.contains(n))
                    .map(|(i, _)| i as u32);
                match (owners.next(), owners.next()) {
                    (Some(i), None) if owner.is_none_or(|o| o == i) => owner = Some(i),
                    _ => {
                        owner = None;
                        break;
                    }
                }
            }
        }
        match owner {
            Some(i) => Route::Herder(i),
            None => {
                self.unattributed += 1;
                // A task's report that it started tells nothing a herder
                // relies on: unread, it hides no start or stop.
                let suspects = match ev {
                    Event::TaskInitialized(_) => Vec::new(),
                    _ => self.suspects(&named),
                };
                Route::Unattributed { suspects }
            }
        }
    }

    /// The herders that may have written a line naming these: those that
    /// named one of its connectors (or of its tasks' connectors) and, as
    /// what they run is not fully known, every herder outside a
    /// MirrorMaker JVM and every herder that did not log its start since
    /// MirrorMaker last built its herders.
    fn suspects(&self, named: &[Named]) -> Vec<u32> {
        self.herders
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                !self.mirror
                    || !h.fresh
                    || named
                        .iter()
                        .any(|n| h.names.contains(&Named::Conn(n.connector().clone())))
            })
            .map(|(i, _)| i as u32)
            .collect()
    }
}

/// Does only a herder that holds (or is starting) the instance an event
/// names log it? The Worker's lines of an instance's creation, start
/// failure and stop; not `Ignoring stop request for unowned …` (logged by
/// a herder that does not hold it), nor `Setting connector X state to S`
/// (logged before the Worker checks that it runs X: every worker of the
/// group logs it), nor config-topic lines (each herder reads its own config
/// topic, whatever it holds).
fn is_instance_line(ev: &Event) -> bool {
    matches!(
        ev,
        Event::StartFailed { .. }
            | Event::Creating(_)
            | Event::Instantiated(_)
            | Event::FinishedCreatingConnector(_)
            | Event::Stopping(_)
            | Event::Stopped(_)
            | Event::GracefulStop { .. }
            | Event::ScheduledShutdown(_)
            | Event::ConnectorUnresponsive(_)
            | Event::ShutdownFailed(_)
            | Event::ConnectorError(_)
            | Event::TaskInitialized(_)
            | Event::TaskKilled(_)
            | Event::AlreadyExists(_)
    )
}

/// The resource a line of the Worker's stop of it names (the stop, and the
/// lines that report how it went).
fn stop_of(ev: &Event) -> Option<Resource> {
    match ev {
        Event::Stopping(r) | Event::Stopped(r) | Event::GracefulStop { resource: r, .. } => {
            Some(r.clone())
        }
        Event::ScheduledShutdown(n) | Event::ConnectorUnresponsive(n) => {
            Some(Resource::Connector(n.clone()))
        }
        _ => None,
    }
}

/// The connectors and tasks an event names.
fn names(ev: &Event) -> Vec<Named> {
    let res = |r: &Resource| match r {
        Resource::Connector(n) => Named::Conn(n.clone()),
        Resource::Task(t) => Named::Task(t.clone()),
    };
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
        | E::AlreadyExists(r) => vec![res(r)],
        E::TaskInitialized(t) | E::TaskKilled(t) => vec![Named::Task(t.clone())],
        E::TaskConfigsUpdated(ts) | E::HandlingTaskUpdate { tasks: ts, .. } => {
            ts.iter().cloned().map(Named::Task).collect()
        }
        E::Assignment { assignment: a, .. } => a
            .connectors
            .iter()
            .chain(a.revoked_connectors.iter().flat_map(|v| v.iter()))
            .cloned()
            .map(Named::Conn)
            .chain(
                a.tasks
                    .iter()
                    .chain(a.revoked_tasks.iter().flat_map(|v| v.iter()))
                    .cloned()
                    .map(Named::Task),
            )
            .collect(),
        _ => named_connectors(ev)
            .into_iter()
            .cloned()
            .map(Named::Conn)
            .collect(),
    }
}

/// The connectors an event names that names no task.
fn named_connectors(ev: &Event) -> Vec<&Name> {
    use Event as E;
    match ev {
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
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Name;

    fn task(c: &str, i: u32) -> Resource {
        Resource::Task(TaskId::new(c, i))
    }

    fn conn(c: &str) -> Resource {
        Resource::Connector(Name::from(c))
    }

    const STARTING: Event = Event::Milestone(Milestone::HerderStarting);

    /// Herders whose replays know nothing of what they hold.
    struct Unknown;

    impl Holdings for Unknown {
        fn holds(&self, _: u32, _: &Resource) -> Option<bool> {
            None
        }
        fn starting(&self, _: u32, _: &Resource) -> bool {
            false
        }
        fn in_rebalance(&self, _: u32) -> bool {
            false
        }
    }

    /// A MirrorMaker JVM whose two herders A-mm2 and B-mm2 started.
    fn started() -> Herders {
        let mut h = Herders::default();
        h.mirror_maker(mirror_line("Kafka MirrorMaker initializing ..."));
        h.mirror_maker(mirror_line("creating herder for A->B"));
        h.mirror_maker(mirror_line("creating herder for B->A"));
        h.mirror_maker(mirror_line("Kafka MirrorMaker starting with 2 herders."));
        assert_eq!(
            h.route(&STARTING, Some("A-mm2"), None, &Unknown),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(&STARTING, Some("B-mm2"), None, &Unknown),
            Route::Herder(1)
        );
        h
    }

    #[test]
    fn one_herder_takes_every_line() {
        let mut h = Herders::default();
        let ev = Event::Creating(task("a", 0));
        assert_eq!(
            h.route(&ev, None, Some(("a", MdcScope::Task(0))), &Unknown),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(&Event::Starting(task("a", 0)), Some("g"), None, &Unknown),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(
                &Event::Milestone(Milestone::WorkerStopping),
                None,
                None,
                &Unknown
            ),
            Route::Herder(0)
        );
        assert!(!h.several());
        assert_eq!(h.group(0), Some("g"));
        assert_eq!(h.unattributed, 0);
    }

    #[test]
    fn each_group_is_its_own_herder() {
        let mut h = Herders::default();
        let ev = Event::SessionKeyUpdated;
        assert_eq!(
            h.route(&ev, Some("A-mm2"), None, &Unknown),
            Route::Herder(0)
        );
        assert_eq!(
            h.route(&ev, Some("B-mm2"), None, &Unknown),
            Route::Herder(1)
        );
        assert_eq!(
            h.route(&ev, Some("A-mm2"), None, &Unknown),
            Route::Herder(0)
        );
        assert!(h.several());
        assert!(!h.mirror());
        assert_eq!(h.group(1), Some("B-mm2"));
        // Two groups but no MirrorMaker line: nobody knows whether a third
        // herder runs the connector, so an unprefixed line is nobody's,
        // and either herder may have written it.
        h.route(
            &Event::Starting(conn("solo")),
            Some("A-mm2"),
            None,
            &Unknown,
        );
        assert_eq!(
            h.route(&Event::Creating(conn("solo")), None, None, &Unknown),
            Route::Unattributed {
                suspects: vec![0, 1]
            }
        );
    }

    #[test]
    fn unprefixed_lines_go_only_where_what_they_name_is_one_herders() {
        let mut h = started();
        let msc = "MirrorSourceConnector";
        h.route(&Event::Starting(conn(msc)), Some("A-mm2"), None, &Unknown);
        h.route(&Event::Starting(conn(msc)), Some("B-mm2"), None, &Unknown);
        h.route(
            &Event::Starting(task(msc, 0)),
            Some("A-mm2"),
            None,
            &Unknown,
        );
        h.route(
            &Event::Starting(conn("Heartbeat")),
            Some("B-mm2"),
            None,
            &Unknown,
        );
        // Both herders run the connector: its Worker lines are nobody's.
        let stop = Event::Stopping(conn(msc));
        assert_eq!(
            h.route(&stop, None, Some((msc, MdcScope::Worker)), &Unknown),
            Route::Unattributed {
                suspects: vec![0, 1]
            }
        );
        // Only A started task 0: its lines are A's, by message or MDC.
        let create = Event::Creating(task(msc, 0));
        assert_eq!(
            h.route(&create, None, Some((msc, MdcScope::Task(0))), &Unknown),
            Route::Herder(0)
        );
        let any = Event::Milestone(Milestone::WorkerStopping);
        assert_eq!(
            h.route(&any, None, Some((msc, MdcScope::TaskOffsets(0))), &Unknown),
            Route::Herder(0)
        );
        // Only B named the heartbeat connector.
        assert_eq!(
            h.route(&Event::Creating(conn("Heartbeat")), None, None, &Unknown),
            Route::Herder(1)
        );
        // A line naming nothing, and one whose MDC and message disagree.
        assert_eq!(
            h.route(&any, None, None, &Unknown),
            Route::Unattributed { suspects: vec![] }
        );
        assert_eq!(
            h.route(
                &create,
                None,
                Some(("Heartbeat", MdcScope::Worker)),
                &Unknown
            ),
            Route::Unattributed {
                suspects: vec![0, 1]
            }
        );
        assert_eq!(h.unattributed, 3);
    }

    #[test]
    fn nothing_unprefixed_is_anyones_until_every_herder_started() {
        let mut h = Herders::default();
        h.mirror_maker(mirror_line("creating herder for A->B"));
        // While MirrorMaker builds its herders (config dumps, cluster IDs).
        assert_eq!(
            h.route(&Event::KafkaClusterId("x".into()), None, None, &Unknown),
            Route::Unattributed { suspects: vec![] }
        );
        h.mirror_maker(mirror_line("Kafka MirrorMaker starting with 2 herders."));
        h.route(&STARTING, Some("A-mm2"), None, &Unknown);
        h.route(&Event::Starting(conn("c")), Some("A-mm2"), None, &Unknown);
        // B has not started: it may run c from before for all we know.
        assert_eq!(
            h.route(&Event::Creating(conn("c")), None, None, &Unknown),
            Route::Unattributed { suspects: vec![0] }
        );
        h.route(&STARTING, Some("B-mm2"), None, &Unknown);
        assert_eq!(
            h.route(&Event::Creating(conn("c")), None, None, &Unknown),
            Route::Herder(0)
        );
        // A restart of the JVM: its herders start afresh.
        h.mirror_maker(mirror_line("Kafka MirrorMaker initializing ..."));
        h.mirror_maker(mirror_line("Kafka MirrorMaker starting with 2 herders."));
        h.route(&STARTING, Some("B-mm2"), None, &Unknown);
        assert_eq!(
            h.route(&Event::Creating(conn("c")), None, None, &Unknown),
            Route::Unattributed { suspects: vec![0] }
        );
        assert_eq!(h.unattributed, 3);
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
            MirrorLine::Starting(2)
        );
        assert_eq!(
            mirror_line("Kafka MirrorMaker starting with two herders."),
            MirrorLine::Other
        );
        assert_eq!(mirror_line("Kafka MirrorMaker started"), MirrorLine::Other);
        assert!(is_mirror_wording("Kafka MirrorMaker stopping"));
        assert!(!is_mirror_wording("Kafka Connect starting"));
    }

    #[test]
    fn assignments_name_their_connectors_and_tasks() {
        let a = crate::model::Assignment {
            error: 0,
            leader: "l".into(),
            leader_url: "u".into(),
            offset: 1,
            connectors: vec![Name::from("c")].into(),
            tasks: vec![TaskId::new("d", 0)].into(),
            revoked_connectors: Some(vec![Name::from("e")].into()),
            revoked_tasks: None,
            delay: None,
        };
        let ev = Event::Assignment {
            generation: Some(1),
            protocol_version: None,
            assignment: a,
            rebalance_delay: None,
        };
        assert_eq!(
            names(&ev),
            [
                Named::Conn(Name::from("c")),
                Named::Conn(Name::from("e")),
                Named::Task(TaskId::new("d", 0))
            ]
        );
        let ev = Event::TaskConfigsUpdated(vec![TaskId::new("d", 1)]);
        assert_eq!(names(&ev), [Named::Task(TaskId::new("d", 1))]);
        assert_eq!(
            names(&Event::ConnectorConfigUpdated(Name::from("c"))),
            [Named::Conn(Name::from("c"))]
        );
    }
}
