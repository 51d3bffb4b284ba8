//! The facts one worker's replay keeps: plain data, no behaviour beyond
//! small queries. Rules read it; [`crate::replay::WorkerReplay`] updates
//! it. It sits below both, so that the rules need nothing of the replay.

use crate::event::ConnectorUpdateAction;
use crate::model::{Assignment, Name, Protocol, Resource, SourceLine, TaskId};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// What the log has shown about one connector or task on this worker: the
/// instance life cycle of docs/design.md ("The instance life cycle"):
/// starting → running | failed → stopped, plus held (running from before
/// the log shows it) and lost (reported once).
#[derive(Debug, Clone, PartialEq)]
pub enum ResState {
    /// The herder logged `Starting …` at `since`; the Worker's answer (the
    /// lines of its start, or of its failure) is still coming. It becomes
    /// `Running` once the lines of the start are past, `Failed` if one of
    /// them reports a failure.
    Starting { since: SourceLine },
    /// An instance started at `since` (the herder's `Starting …` line).
    Running {
        since: SourceLine,
        /// A zombie finding was already made for this instance.
        zombie_reported: bool,
    },
    /// Held since the assignment line `since`, whose start phase did not
    /// start it: the herder counts it as running from before.
    Held { since: SourceLine },
    /// Known not running since this line (a stop, or the Worker saying it
    /// owns no such instance).
    Stopped { at: SourceLine },
    /// Known not running since `at`, assigned, and already reported as a
    /// `lost-assignment` (one finding per episode).
    Lost { at: SourceLine },
    /// The last start attempt failed at `at`: no instance processes data,
    /// and Kafka does not retry it while it stays assigned.
    Failed {
        at: SourceLine,
        /// The herder's start line of the attempt, when the log shows it.
        start: Option<SourceLine>,
        /// The Worker still holds the failed instance (a connector whose
        /// `start()` threw, a task that failed initialization): its later
        /// `Stopping …` is a real stop.
        registered: bool,
    },
}

impl ResState {
    /// An instance is (believed to be) running, or its start is under way.
    pub fn is_live(&self) -> bool {
        matches!(
            self,
            ResState::Starting { .. } | ResState::Running { .. } | ResState::Held { .. }
        )
    }
    /// The herder's start line of the instance, when the log shows it
    /// (a failed instance included: config freshness is judged from it).
    pub fn started_at(&self) -> Option<&SourceLine> {
        match self {
            ResState::Starting { since } | ResState::Running { since, .. } => Some(since),
            ResState::Failed { start, .. } => start.as_ref(),
            _ => None,
        }
    }
    /// The line from which the instance is known to be live.
    pub fn live_since(&self) -> Option<&SourceLine> {
        match self {
            ResState::Starting { since }
            | ResState::Running { since, .. }
            | ResState::Held { since } => Some(since),
            _ => None,
        }
    }
}

/// The last assignment line received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Shared with [`Owned`] (one copy of the lists per assignment).
    pub assignment: Arc<Assignment>,
    /// What it assigns, sorted, without repeats: built once, shared by the
    /// assignment fact and the start phase's judgement.
    pub assigned: Arc<[Resource]>,
    pub protocol: Option<Protocol>,
    pub line: SourceLine,
}

impl Received {
    pub fn new(
        assignment: Arc<Assignment>,
        protocol: Option<Protocol>,
        line: SourceLine,
    ) -> Received {
        Received {
            assigned: sorted_set(assignment.resources()),
            assignment,
            protocol,
            line,
        }
    }
}

impl Received {
    /// The assignment `a` received after `prev`: what it shares with the
    /// previous assignment (a worker is mostly assigned what it had) is
    /// shared, not copied and sorted again.
    pub fn after(
        prev: Option<&Received>,
        a: &Assignment,
        protocol: Option<Protocol>,
        line: SourceLine,
    ) -> Received {
        let (assignment, assigned) = match prev {
            Some(p) if *p.assignment == *a => (p.assignment.clone(), p.assigned.clone()),
            Some(p) if p.assignment.connectors == a.connectors && p.assignment.tasks == a.tasks => {
                (Arc::new(a.clone()), p.assigned.clone())
            }
            _ => return Received::new(Arc::new(a.clone()), protocol, line),
        };
        Received {
            assignment,
            assigned,
            protocol,
            line,
        }
    }
}

/// The resources, sorted, without repeats, in one allocation (unless a
/// resource repeats).
pub fn sorted_set(resources: impl Iterator<Item = Resource>) -> Arc<[Resource]> {
    let mut v: Arc<[Resource]> = resources.collect();
    if let Some(s) = Arc::get_mut(&mut v) {
        s.sort_unstable();
    }
    if v.windows(2).any(|w| w[0] == w[1]) {
        let mut d = v.to_vec();
        d.dedup();
        v = Arc::from(d);
    }
    v
}

/// What the worker owns: the lists of the last successful assignment.
#[derive(Debug, Clone)]
pub struct Owned {
    /// As the assignment lists them (a few dozen: a scan beats hashing).
    pub assignment: Arc<Assignment>,
    pub line: SourceLine,
}

impl Owned {
    pub fn from(received: &Received) -> Owned {
        Owned {
            assignment: received.assignment.clone(),
            line: received.line.clone(),
        }
    }
    pub fn holds(&self, r: &Resource) -> bool {
        self.assignment.holds(r)
    }
}

/// The herder's config snapshot offset, when the log pins it down.
#[derive(Debug, Clone, PartialEq)]
pub enum KnownOffset {
    Unknown,
    Known(i64, SourceLine),
}

/// A rebalance in progress: from its first marker to the assignment line.
#[derive(Debug, Clone, Default)]
pub struct Window {
    /// First line of the rebalance (`Rebalance started`, `(Re-)joining group`, …).
    pub opened: Option<SourceLine>,
    /// The worker sent its join request (`(Re-)joining group` or a
    /// coordinator `Successfully joined…`): stops after it are cooperative
    /// revocations, stops before it are eager `onJoinPrepare` stops.
    pub joined: bool,
    /// Stops logged in this window, judged when the assignment arrives.
    pub stops: Vec<Stop>,
    /// Resources the herder tried to stop in this window (real or ignored).
    pub stop_attempts: HashSet<Resource>,
    /// Stops logged before the join request: the eager signature.
    pub stopped_before_join: bool,
    /// `Wasn't (un)able to resume work … can skip stopping …`
    pub skip_stopping: Option<SourceLine>,
    /// Protocol named by the coordinator's `Generation{…}` in this window.
    pub protocol: Option<Protocol>,
    /// Two consecutive lines of the window lie further apart in time than a
    /// rebalance takes: lines are probably missing in between.
    pub gap: Option<(SourceLine, SourceLine)>,
}

/// A stop whose judgement waits for later lines.
#[derive(Debug, Clone)]
pub struct Stop {
    pub resource: Resource,
    pub line: SourceLine,
    /// What was known about the instance just before the stop.
    pub prev: Option<ResState>,
}

/// `Starting connectors and tasks using config offset O` … `Finished starting …`
#[derive(Debug, Clone)]
pub struct StartPhase {
    pub line: SourceLine,
    /// The config offset it starts with (`O`).
    pub offset: i64,
    pub started: Vec<(Resource, SourceLine)>,
    pub failed: HashSet<Resource>,
    /// Why the phase started on a mismatched config, with the lines that show it.
    pub mismatch: Option<(String, Vec<(String, SourceLine)>)>,
}

/// `Handling task config update by … tasks [..]` and the stops it announces.
#[derive(Debug, Clone)]
pub struct TaskUpdateCtx {
    pub line: SourceLine,
    pub tasks: HashSet<TaskId>,
}

/// `Handling connector-only config update by restarting|stopping connector X`.
#[derive(Debug, Clone)]
pub struct ConnectorCtx {
    pub action: ConnectorUpdateAction,
    pub line: SourceLine,
}

/// Config-topic facts the worker logged about one connector (every worker
/// logs every record it reads through its config listener). The lines a
/// connector seldom has (a removal, a re-creation, a claim shared with
/// other connectors) are boxed: each worker holds these facts for every
/// connector of the group, and an empty line takes a pointer, not a line.
#[derive(Debug, Clone, Default)]
pub struct ConfigFacts {
    /// Latest `Connector X config updated`.
    pub updated: Option<SourceLine>,
    /// Latest `Connector X config removed`.
    pub removed: Option<Box<SourceLine>>,
    /// The first `Connector X config updated` after the latest removal: the
    /// connector created again under the same name.
    pub recreated: Option<Box<SourceLine>>,
    /// Latest `Connector X target state change`: its place in the stream
    /// ([`SourceLine::seq`]). Only its order is read (it is never quoted),
    /// so its text is not kept: every worker logs one per connector.
    pub target_change: Option<u64>,
    /// Latest `Tasks [..] configs updated` naming only this connector's tasks.
    pub single_claim: Option<SourceLine>,
    /// Latest `Tasks [..] configs updated` naming this and other connectors' tasks.
    pub multi_claim: Option<Box<SourceLine>>,
    /// Latest claim line after which this connector's task set differs:
    /// its place in the stream ([`SourceLine::seq`]; only its order is read).
    pub count_change: Option<u64>,
    /// The task indices the last claim named for this connector.
    /// (Sorted, without repeats; a slice: a tree's node would cost several
    /// times more, once per worker and connector.)
    pub task_set: Option<Box<[u32]>>,
}

/// Per-connector bookkeeping of the contexts that justify stops.
#[derive(Debug, Clone, Default)]
pub struct Contexts {
    pub task_update: Option<TaskUpdateCtx>,
    pub connector: HashMap<Name, ConnectorCtx>,
    pub target_stopped: HashMap<Name, SourceLine>,
    pub shutdown: Option<SourceLine>,
    pub self_revocation: Option<SourceLine>,
    pub restart_plan: Option<SourceLine>,
}
