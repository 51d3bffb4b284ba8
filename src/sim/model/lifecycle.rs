//! Starts and stops of connectors and tasks on one worker, and the starts
//! that fail.

use super::{Cluster, Inst, Target, Why};
use crate::sim::data::Res;

/// What became of a start.
#[derive(Debug, Clone, Copy)]
pub(in crate::sim) struct Started {
    /// The line of its `Starting …`.
    pub line: u64,
    /// An instance runs.
    pub ok: bool,
    /// It failed with an exception the herder caught (a plan logs it).
    pub thrown: bool,
}

/// How a start fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The Worker cannot build it (`Failed to start …`).
    Worker,
    /// The herder cannot tell the connector's type (3.3.0+): it throws
    /// before the Worker is asked.
    UnknownType,
}

impl Cluster {
    /// Stops `r` on worker `w` (logs an ignored stop if it does not run).
    pub fn stop(&mut self, w: usize, r: Res, why: Why) {
        self.oracle.stop_attempt(w, r);
        self.workers[w].failed.remove(&r);
        let start = self.workers[w].running.get(&r).map(|i| i.start_line);
        match r {
            Res::Conn(c) => {
                let line = self.say(w).stopping_connector(c);
                if let Some(start) = start {
                    self.stopped(w, r, line, why, start);
                    self.say(w).connector_stopped(c);
                } else {
                    self.say(w).ignoring_connector_stop(c);
                }
            }
            Res::Task(c, i) => {
                if let Some(start) = start {
                    let line = self.say(w).stopping_task(c, i);
                    self.stopped(w, r, line, why, start);
                } else {
                    self.say(w).ignoring_task_stop(c, i);
                }
            }
        }
    }

    /// The instance of `r` started on `start` is gone.
    fn stopped(&mut self, w: usize, r: Res, line: u64, why: Why, start: u64) {
        let (oracle, names) = self.judge();
        oracle.stopped(&names, w, r, line, why, start);
        let wk = &mut self.workers[w];
        wk.running.remove(&r);
        if let Res::Task(c, i) = r {
            wk.run_tasks.retain(|&x| x != (c, i));
        }
        self.stats.stops += 1;
    }

    /// Starts `r` on worker `w` (the herder's `Starting …` and the
    /// Worker's lines); it may fail.
    pub fn start(&mut self, w: usize, r: Res, why: Why) -> Started {
        self.stats.starts += 1;
        let line = self.say(w).starting(r);
        let already = self.workers[w].running.contains_key(&r);
        {
            let (oracle, names) = self.judge();
            oracle.starting(&names, w, r, line, already);
        }
        if !already && let Some(how) = self.draw_failure(r) {
            self.start_fails(w, r, why, how);
            return Started {
                line,
                ok: false,
                thrown: how == Failure::UnknownType || !r.is_task(),
            };
        }
        match r {
            Res::Conn(c) => {
                if already {
                    // Worker.startConnector refuses it before creating
                    // anything; the running instance goes on.
                    self.say(w).connector_already_exists(c);
                    return Started {
                        line,
                        ok: false,
                        thrown: true,
                    };
                }
                self.say(w).creating_connector(c);
                self.workers[w].running.insert(r, Inst { start_line: line });
                if self
                    .conns
                    .get(usize::from(c))
                    .is_some_and(|x| x.stale && x.target == Target::Started)
                {
                    self.pending_gen.push(c);
                }
            }
            Res::Task(c, i) => {
                self.say(w).creating_task(c, i);
                if already {
                    self.say(w).task_already_exists(c, i);
                    return Started {
                        line,
                        ok: false,
                        thrown: true,
                    };
                }
                self.say(w).instantiating_task(c, i);
                self.workers[w].running.insert(r, Inst { start_line: line });
                self.workers[w].run_tasks.push((c, i));
                self.say(w).task_initialized(c, i);
            }
        }
        self.workers[w].failed.remove(&r);
        let (oracle, names) = self.judge();
        oracle.started(&names, w, r, line);
        Started {
            line,
            ok: true,
            thrown: false,
        }
    }

    /// Does this start fail, and how?
    fn draw_failure(&mut self, r: Res) -> Option<Failure> {
        if self.p.fail_rate <= 0.0 || !self.fail_rng.chance(self.p.fail_rate) {
            return None;
        }
        if r.is_task() && self.v.task_start_checks_type() && self.fail_rng.chance(0.3) {
            Some(Failure::UnknownType)
        } else {
            Some(Failure::Worker)
        }
    }

    /// A failed start: the lines of its path, and no instance. The
    /// resource stays FAILED while it stays assigned.
    fn start_fails(&mut self, w: usize, r: Res, why: Why, how: Failure) {
        self.count_event("failed-start");
        match (r, how) {
            (Res::Task(c, i), Failure::Worker) => {
                self.say(w).creating_task(c, i);
                self.say(w).task_start_failed(c, i);
            }
            (Res::Task(c, i), Failure::UnknownType) => {
                self.say(w).connector_type_unknown(c);
                // Only the start phase's callable logs the exception; a
                // REST restart hands it to the caller, a plan logs it itself.
                if why == Why::StartPhase {
                    self.say(w).could_not_instantiate_unknown_type(c, i);
                }
            }
            (Res::Conn(c), _) => {
                self.say(w).connector_start_failed(c);
                if self.v.async_connector_start() {
                    match why {
                        Why::RestartPlan => self.say(w).restart_failed(r, true),
                        Why::Restart => {}
                        _ => self.say(w).herder_connector_failed(c),
                    }
                }
            }
        }
        self.workers[w].failed.insert(r);
        self.oracle.start_failed(w, r);
    }
}
