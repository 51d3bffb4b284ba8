//! The lines of each model step, in the chosen version's wording: which
//! class logs them, at which level, with which MDC, and which lines a
//! release prints or leaves out.

use super::out::Lvl;
use super::{Lg, M, Say, about, name, put_assign, put_list};
use crate::sim::model::data::{Assign, Proto, Res};
use crate::sim::model::{Rec, Target};
use crate::sim::version::{Site, TaskUpdateLine};

impl Say<'_> {
    // ------------------------------------------------------------ process

    /// A graceful shutdown, up to the stops of what still runs.
    pub fn shutdown_begins(&mut self) {
        self.emit(Lvl::Info, M::None, Lg::Connect, Site::Connect, |l, _| {
            l.s("Kafka Connect stopping")
        });
        self.dh(Lvl::Info, Site::HerderStopping, "Herder stopping");
        self.dh(
            Lvl::Info,
            Site::Halt,
            "Stopping connectors and tasks that are still assigned to this worker.",
        );
    }

    /// A graceful shutdown after the stops: leaving the group, closing.
    pub fn shutdown_ends(&mut self, member: &str) {
        let v = self.v();
        if v.leave_group_line() {
            let reason = v.leave_group_reason();
            self.emit(Lvl::Info, M::None, Lg::Coord, Site::LeaveGroup, |l, _| {
                l.s("Member ");
                l.s(member);
                l.s(" sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null)");
                if reason {
                    l.s(" due to the consumer is being closed");
                }
            });
            if v.close_resets_generation() {
                let reset = v.resetting_generation();
                self.emit(
                    Lvl::Info,
                    M::None,
                    Lg::Coord,
                    Site::ResettingGeneration,
                    |l, _| {
                        l.s(reset);
                        l.s("consumer pro-actively leaving the group");
                    },
                );
            }
        }
        self.emit(Lvl::Info, M::None, Lg::Kcbs, Site::ConfigStore, |l, _| {
            l.s("Closing KafkaConfigBackingStore")
        });
        self.emit(Lvl::Info, M::None, Lg::Kcbs, Site::ConfigStore, |l, _| {
            l.s("Closed KafkaConfigBackingStore")
        });
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Worker,
            Site::WorkerStopping,
            |l, _| l.s("Worker stopping"),
        );
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Worker,
            Site::WorkerStopped,
            |l, _| l.s("Worker stopped"),
        );
        self.dh(Lvl::Info, Site::HerderStopped, "Herder stopped");
        self.dh(Lvl::Info, Site::HerderStopped, "Herder stopped");
        self.emit(Lvl::Info, M::None, Lg::Connect, Site::Connect, |l, _| {
            l.s("Kafka Connect stopped")
        });
    }

    /// The worker loses the brokers (a slow leave begins).
    pub fn coordinator_lost(&mut self) {
        self.em.plain();
        self.coord(
            Site::CoordinatorDead,
            "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid, will attempt rediscovery",
        );
    }

    /// The worker reaches the brokers again.
    pub fn coordinator_found(&mut self) {
        self.em.plain();
        self.coord(
            Site::Discovered,
            "Discovered group coordinator broker-1:9092 (id: 2147483646 rack: null)",
        );
    }

    /// The heartbeat thread finds the herder stalled longer than the poll
    /// timeout (`rebalance.timeout.ms`) and leaves the group: no revocation
    /// (3.x). Returns the line of the LeaveGroup.
    pub fn poll_timeout_leave(&mut self, member: &str) -> u64 {
        self.emit(
            Lvl::Warn,
            M::None,
            Lg::CoordHeartbeat,
            Site::PollTimeout,
            |l, _| {
                l.s("consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.");
            },
        );
        let line = self.emit(
            Lvl::Info,
            M::None,
            Lg::CoordHeartbeat,
            Site::LeaveGroup,
            |l, _| {
                l.s("Member ");
                l.s(member);
                l.s(" sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null) due to consumer poll timeout has expired.");
            },
        );
        let reset = self.v().resetting_generation();
        self.emit(
            Lvl::Info,
            M::None,
            Lg::CoordHeartbeat,
            Site::ResettingGeneration,
            |l, _| {
                l.s(reset);
                l.s("consumer pro-actively leaving the group");
            },
        );
        self.emit_plain(
            Lvl::Info,
            M::None,
            Lg::CoordHeartbeat,
            Site::RequestJoin,
            |l, _| l.s("Request joining group due to: consumer pro-actively leaving the group"),
        );
        line
    }

    /// Self-revocation after `scheduled.rebalance.max.delay.ms` without the
    /// brokers; `last` is the last assignment received.
    pub fn revoking_unreachable(&mut self, last: &Assign) {
        let mut snap = last.clone();
        snap.rconns.clear();
        snap.rtasks.clear();
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Coord,
            Site::Unreachable,
            |l, names| {
                l.s("Broker coordinator was unreachable for 3000ms. Revoking previous assignment ");
                put_assign(l, names, &snap, false);
                l.s(" to avoid running tasks while not being a member the group");
            },
        );
    }

    // ------------------------------------------------------------ config topic

    /// The config listener's line for a record; its line number (0 when
    /// the record prints nothing).
    pub fn record(&mut self, rec: &Rec, proto: Proto) -> u64 {
        match rec {
            Rec::ConnConfig(c) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::ConnUpdated,
                about("Connector ", *c, " config updated"),
            ),
            Rec::Tombstone(c) => {
                let c = *c;
                if self.v().removal_line_new() {
                    self.emit(
                        Lvl::Info,
                        M::None,
                        Lg::Kcbs,
                        Site::ConfigStoreRemoval,
                        about("Successfully processed removal of connector '", c, "'"),
                    );
                } else {
                    self.emit(Lvl::Info, M::None, Lg::Kcbs, Site::ConfigStoreRemoval, about("Removed connector ", c, " due to null configuration. This is usually intentional and does not indicate an issue."));
                }
                self.emit(
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::ConnRemoved,
                    about("Connector ", c, " config removed"),
                )
            }
            Rec::TaskConfig => 0,
            Rec::Commit(listed) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::TasksUpdated,
                |l, n| {
                    l.s("Tasks [");
                    for (k, &(c, i)) in listed.iter().enumerate() {
                        if k > 0 {
                            l.s(", ");
                        }
                        l.s(name(n, c));
                        l.s("-");
                        l.num(i64::from(i));
                    }
                    l.s("] configs updated");
                },
            ),
            Rec::Target(c, _) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::TargetChange,
                about("Connector ", *c, " target state change"),
            ),
            Rec::Restart(c) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::RestartRequest,
                about(
                    "Received and enqueuing restart request for {connectorName='",
                    *c,
                    "', onlyFailed=false, includeTasks=true}",
                ),
            ),
            Rec::SessionKey if proto == Proto::Sessioned => {
                self.dh(Lvl::Info, Site::SessionKey, "Session key updated")
            }
            Rec::SessionKey => 0,
        }
    }

    /// A deleted connector's stop, announced by the cooperative herder.
    pub fn handling_removal(&mut self, c: u16) {
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::HandlingConn,
            about(
                "Handling connector-only config update by stopping connector ",
                c,
                "",
            ),
        );
    }

    /// A connector-config update's restart, announced.
    pub fn handling_connector_update(&mut self, c: u16) {
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::HandlingConn,
            about(
                "Handling connector-only config update by restarting connector ",
                c,
                "",
            ),
        );
    }

    /// The cooperative task-config handling line for the tasks `list`
    /// (3.3.0+ leave it out when the list is empty).
    pub fn handling_task_update(&mut self, list: &[Res]) {
        let wording = self.v().task_update_line();
        match wording {
            TaskUpdateLine::None => return,
            TaskUpdateLine::Stopping if list.is_empty() => return,
            _ => {}
        }
        self.emit(Lvl::Info, M::None, Lg::Herder, Site::HandlingTask, |l, n| {
            if wording == TaskUpdateLine::Stopping {
                l.s("Handling task config update by stopping tasks ");
                put_list(l, n, list);
                l.s(", which will be restarted after rebalance if still assigned to this worker");
            } else {
                l.s("Handling task config update by restarting tasks ");
                put_list(l, n, list);
            }
        });
    }

    /// The Worker applies a target state to a running connector.
    pub fn setting_state(&mut self, c: u16, t: Target) {
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Worker,
            Site::SettingState,
            |l, n| {
                l.s("Setting connector ");
                l.s(name(n, c));
                l.s(" state to ");
                l.s(t.name());
            },
        );
    }

    // ------------------------------------------------------------ KIP-745 restarts

    /// `Executing plan to restart …` (`done`: `Completed plan …`).
    pub fn restart_plan(&mut self, c: u16, tasks: u16, done: bool) {
        let n = i64::from(tasks);
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::RestartPlan,
            |l, names| {
                l.s(if done { "Completed " } else { "Executing " });
                l.s("plan to restart connector and ");
                l.num(n);
                l.s(" of ");
                l.num(n);
                l.s(" tasks for restart request for {connectorName='");
                l.s(name(names, c));
                l.s("', onlyFailed=false, includeTasks=true}");
            },
        );
    }

    /// `Task 'X' restart successful` / `Connector 'X' restart successful`.
    pub fn restart_successful(&mut self, r: Res) {
        let mdc = match r {
            Res::Conn(c) => M::Worker(c),
            Res::Task(..) => M::None,
        };
        self.emit(Lvl::Info, mdc, Lg::Herder, Site::RestartPlan, |l, names| {
            l.s(if r.is_task() { "Task '" } else { "Connector '" });
            super::put_res(l, names, r);
            l.s("' restart successful");
        });
    }

    // ------------------------------------------------------------ rebalances

    /// AbstractCoordinator's heartbeat failure when a rebalance begins.
    pub fn heartbeat_failed(&mut self) {
        self.coord(
            Site::Heartbeat,
            "Attempt to heartbeat failed since group is rebalancing",
        );
    }

    /// `Rebalance started`: the herder's onRevoked up to 2.2.2 (only with a
    /// previous assignment), WorkerCoordinator's from 2.3.0.
    pub fn rebalance_started(&mut self, had_assignment: bool) {
        if self.v().herder_rebalance_started() {
            if had_assignment {
                self.dh(Lvl::Info, Site::HerderRebalanceStarted, "Rebalance started");
            }
        } else {
            self.emit(
                Lvl::Info,
                M::None,
                Lg::WCoord,
                Site::RebalanceStarted,
                |l, _| l.s("Rebalance started"),
            );
        }
    }

    pub fn rejoining(&mut self) {
        self.coord(Site::Rejoining, "(Re-)joining group");
    }

    /// `Finished stopping tasks in preparation for rebalance` (+ the status
    /// flush line from 2.4.1).
    pub fn finished_stopping(&mut self) {
        self.dh(
            Lvl::Info,
            Site::FinishedStopping,
            "Finished stopping tasks in preparation for rebalance",
        );
        if self.v().flush_line() {
            self.dh(
                Lvl::Info,
                Site::FinishedFlushing,
                "Finished flushing status backing store in preparation for rebalance",
            );
        }
    }

    /// Eager onRevoked after a failed start of work: nothing to stop.
    pub fn skip_stopping(&mut self) {
        let msg = self.v().skip_stopping_wording();
        self.dh(Lvl::Info, Site::SkipStopping, msg);
    }

    /// The coordinator's join (and sync) lines of generation `g`.
    pub fn joined(&mut self, g: i32, member: &str, proto: Proto) {
        let gen_obj = self.v().generation_object();
        self.emit(Lvl::Info, M::None, Lg::Coord, Site::Joined, |l, _| {
            l.s("Successfully joined group with generation ");
            if gen_obj {
                l.s("Generation{generationId=");
                l.num(i64::from(g));
                l.s(", memberId='");
                l.s(member);
                l.s("', protocol='");
                l.s(proto.generation_name());
                l.s("'}");
            } else {
                l.num(i64::from(g));
            }
        });
        if self.v().synced_line() {
            self.emit(Lvl::Info, M::None, Lg::Coord, Site::Synced, |l, _| {
                l.s("Successfully synced group in generation Generation{generationId=");
                l.num(i64::from(g));
                l.s(", memberId='");
                l.s(member);
                l.s("', protocol='");
                l.s(proto.generation_name());
                l.s("'}");
            });
        }
    }

    /// The herder's assignment line.
    pub fn assignment(&mut self, g: i32, a: &Assign, proto: Proto) -> u64 {
        let v0 = self.v().v0_assignment();
        let with_version = self.v().joined_with_version();
        let pv = proto.version();
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::Assignment,
            |l, names| {
                if v0 {
                    l.s("Joined group and got assignment: ");
                    put_assign(l, names, a, true);
                } else if with_version {
                    l.s("Joined group at generation ");
                    l.num(i64::from(g));
                    l.s(" with protocol version ");
                    l.num(pv);
                    l.s(" and got assignment: ");
                    put_assign(l, names, a, false);
                    l.s(" with rebalance delay: ");
                    l.num(a.delay);
                } else {
                    l.s("Joined group at generation ");
                    l.num(i64::from(g));
                    l.s(" and got assignment: ");
                    put_assign(l, names, a, false);
                }
            },
        )
    }

    pub fn catching_up(&mut self) {
        self.dh(
            Lvl::Warn,
            Site::CatchingUp,
            "Catching up to assignment's config offset.",
        );
    }

    pub fn offset_mismatch(&mut self, snap: i64, assignment: i64) {
        self.emit(Lvl::Info, M::None, Lg::Herder, Site::Mismatch, |l, _| {
            l.s("Current config state offset ");
            l.num(snap);
            l.s(" does not match group assignment ");
            l.num(assignment);
            l.s(". Forcing rebalance.");
        });
    }

    pub fn behind(&mut self, snap: i64, assignment: i64) {
        self.emit(Lvl::Info, M::None, Lg::Herder, Site::Behind, |l, _| {
            l.s("Current config state offset ");
            l.num(snap);
            l.s(" is behind group assignment ");
            l.num(assignment);
            l.s(", reading to end of config log");
        });
    }

    pub fn finished_reading(&mut self, offset: i64) {
        self.emit(Lvl::Info, M::None, Lg::Herder, Site::FinishedReading, |l, _| {
            l.s("Finished reading to end of log and updated config snapshot, new config log offset: ");
            l.num(offset);
        });
    }

    pub fn starting_work(&mut self, offset: i64) -> u64 {
        self.emit(
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::StartingWork,
            |l, _| {
                l.s("Starting connectors and tasks using config offset ");
                l.num(offset);
            },
        )
    }

    pub fn finished_starting(&mut self) -> u64 {
        self.dh(
            Lvl::Info,
            Site::FinishedStarting,
            "Finished starting connectors and tasks",
        )
    }
}
