//! The lines of each model step: which lines of the table (`wording.rs`)
//! a step prints, in which order, with which facts. Which lines a release
//! prints or leaves out, and how they read, is the table's.

use super::{Arg, Ln, Say};
use crate::sim::data::{Assign, Proto, Rec, Res, Target};
use crate::sim::version::TaskUpdateLine;

impl Say<'_> {
    // ------------------------------------------------------------ process

    /// A graceful shutdown, up to the stops of what still runs.
    pub fn shutdown_begins(&mut self) {
        self.line(Ln::ConnectStopping, &[]);
        self.line(Ln::HerderStopping, &[]);
        self.line(Ln::Halt, &[]);
    }

    /// A graceful shutdown after the stops: leaving the group, closing.
    pub fn shutdown_ends(&mut self, member: &str) {
        self.line(Ln::LeaveGroupOnClose, &[Arg::Str("member", member)]);
        self.line(Ln::ResetOnClose, &[]);
        self.line(Ln::ConfigStoreClosing, &[]);
        self.line(Ln::ConfigStoreClosed, &[]);
        self.line(Ln::WorkerStopping, &[]);
        self.line(Ln::WorkerStopped, &[]);
        self.line(Ln::HerderStopped, &[]);
        self.line(Ln::HerderStopped, &[]);
        self.line(Ln::ConnectStopped, &[]);
    }

    /// The worker loses the brokers (a slow leave begins); the line's number.
    pub fn coordinator_lost(&mut self) -> u64 {
        self.line(Ln::CoordinatorDead, &[])
    }

    /// The worker reaches the brokers again.
    pub fn coordinator_found(&mut self) {
        self.line(Ln::Discovered, &[]);
    }

    /// The heartbeat thread finds the herder stalled longer than the poll
    /// timeout (`rebalance.timeout.ms`) and leaves the group: no revocation
    /// (3.x). Returns the line of the LeaveGroup.
    pub fn poll_timeout_leave(&mut self, member: &str) -> u64 {
        self.line(Ln::PollTimeout, &[]);
        let line = self.line(Ln::LeaveGroupOnPollTimeout, &[Arg::Str("member", member)]);
        self.line(Ln::ResetOnPollTimeout, &[]);
        line
    }

    /// Self-revocation after `scheduled.rebalance.max.delay.ms` without the
    /// brokers; `last` is the last assignment received.
    pub fn revoking_unreachable(&mut self, last: &Assign) {
        let mut snap = last.clone();
        snap.rconns.clear();
        snap.rtasks.clear();
        self.line(Ln::Unreachable, &[Arg::Assign(&snap)]);
    }

    // ------------------------------------------------------------ config topic

    /// The config listener's line for a record; its line number (0 when
    /// the record prints nothing).
    pub fn record(&mut self, rec: &Rec, proto: Proto) -> u64 {
        match rec {
            Rec::ConnConfig(c) => self.line(Ln::ConnectorUpdated, &[Arg::Conn(*c)]),
            Rec::Tombstone(c) => {
                self.line(Ln::Removal, &[Arg::Conn(*c)]);
                self.line(Ln::ConnectorRemoved, &[Arg::Conn(*c)])
            }
            Rec::TaskConfig => 0,
            Rec::Commit(listed) => self.line(Ln::TasksUpdated, &[Arg::Tasks(listed)]),
            Rec::Target(c, _) => self.line(Ln::TargetChange, &[Arg::Conn(*c)]),
            Rec::Restart(c) => self.line(Ln::RestartRequest, &[Arg::Conn(*c)]),
            Rec::SessionKey if proto == Proto::Sessioned => self.line(Ln::SessionKey, &[]),
            Rec::SessionKey => 0,
        }
    }

    /// A deleted connector's stop, announced by the cooperative herder.
    pub fn handling_removal(&mut self, c: u16) {
        self.line(Ln::HandlingRemoval, &[Arg::Conn(c)]);
    }

    /// A connector-config update's restart, announced.
    pub fn handling_connector_update(&mut self, c: u16) {
        self.line(Ln::HandlingConnectorUpdate, &[Arg::Conn(c)]);
    }

    /// The cooperative task-config handling line for the tasks `list`
    /// (3.3.0+ leave it out when the list is empty).
    pub fn handling_task_update(&mut self, list: &[Res]) {
        if list.is_empty() && self.v().task_update_line() == TaskUpdateLine::Stopping {
            return;
        }
        self.line(Ln::HandlingTaskUpdate, &[Arg::List(list)]);
    }

    /// The Worker applies a target state to a running connector.
    pub fn setting_state(&mut self, c: u16, t: Target) {
        self.line(
            Ln::SettingState,
            &[Arg::Conn(c), Arg::Str("state", t.name())],
        );
    }

    // ------------------------------------------------------------ KIP-745 restarts

    /// `Executing plan to restart …` (`done`: `Completed plan …`).
    pub fn restart_plan(&mut self, c: u16, tasks: u16, done: bool) {
        let ln = if done {
            Ln::CompletedPlan
        } else {
            Ln::ExecutingPlan
        };
        let n = Arg::Num("tasks-restarted", i64::from(tasks));
        self.line(ln, &[Arg::Conn(c), n]);
    }

    /// `Task 'X' restart successful` / `Connector 'X' restart successful`
    /// (`on_tick`: a connector whose target state is STARTED, logged by the
    /// herder's thread; otherwise by the connector's, under its MDC).
    pub fn restart_successful(&mut self, r: Res, on_tick: bool) {
        match r {
            Res::Conn(c) if on_tick => self.line(Ln::ConnectorRestartOk, &[Arg::Conn(c)]),
            Res::Conn(c) => self.line(Ln::ConnectorRestartOkNotStarted, &[Arg::Conn(c)]),
            Res::Task(c, i) => self.line(Ln::TaskRestartOk, &[Arg::Task(c, i)]),
        };
    }

    // ------------------------------------------------------------ rebalances

    /// AbstractCoordinator's heartbeat failure when a rebalance begins.
    pub fn heartbeat_failed(&mut self) {
        self.line(Ln::HeartbeatRebalancing, &[]);
    }

    /// `Rebalance started`: the herder's onRevoked up to 2.2.2 (only with a
    /// previous assignment), WorkerCoordinator's from 2.3.0.
    pub fn rebalance_started(&mut self, had_assignment: bool) {
        if had_assignment {
            self.line(Ln::RebalanceStartedHerder, &[]);
        }
        self.line(Ln::RebalanceStarted, &[]);
    }

    pub fn rejoining(&mut self) {
        self.line(Ln::Rejoining, &[]);
    }

    /// `Finished stopping tasks in preparation for rebalance` (+ the status
    /// flush line from 2.4.1).
    pub fn finished_stopping(&mut self) {
        self.line(Ln::FinishedStopping, &[]);
        self.line(Ln::FinishedFlushing, &[]);
    }

    /// Eager onRevoked after a failed start of work: nothing to stop.
    pub fn skip_stopping(&mut self) {
        self.line(Ln::SkipStopping, &[]);
    }

    /// The coordinator's join (and sync) lines of generation `g`.
    pub fn joined(&mut self, g: i32, member: &str, proto: Proto) {
        let args = [
            Arg::Num("generation", i64::from(g)),
            Arg::Str("member", member),
            Arg::Str("protocol", proto.generation_name()),
        ];
        self.line(Ln::Joined, &args);
        self.line(Ln::Synced, &args);
    }

    /// The herder's assignment line.
    pub fn assignment(&mut self, g: i32, a: &Assign, proto: Proto) -> u64 {
        self.line(
            Ln::Assignment,
            &[
                Arg::Num("generation", i64::from(g)),
                Arg::Num("protocol-version", proto.version()),
                Arg::Assign(a),
                Arg::Num("delay", a.delay),
            ],
        )
    }

    pub fn catching_up(&mut self) {
        self.line(Ln::CatchingUp, &[]);
    }

    pub fn offset_mismatch(&mut self, snap: i64, assignment: i64) {
        let args = [Arg::Num("snapshot", snap), Arg::Num("offset", assignment)];
        self.line(Ln::Mismatch, &args);
    }

    pub fn behind(&mut self, snap: i64, assignment: i64) {
        let args = [Arg::Num("snapshot", snap), Arg::Num("offset", assignment)];
        self.line(Ln::Behind, &args);
    }

    pub fn finished_reading(&mut self, offset: i64) {
        self.line(Ln::FinishedReading, &[Arg::Num("offset", offset)]);
    }

    pub fn starting_work(&mut self, offset: i64) -> u64 {
        self.line(Ln::StartingWork, &[Arg::Num("offset", offset)])
    }

    pub fn finished_starting(&mut self) -> u64 {
        self.line(Ln::FinishedStarting, &[])
    }
}
