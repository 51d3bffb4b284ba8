//! Starts and stops of connectors and tasks on one worker.

use super::{Cluster, Inst, Target, Why};
use crate::sim::model::data::Res;

impl Cluster {
    /// Stops `r` on worker `w` (logs an ignored stop if it does not run).
    pub fn stop(&mut self, w: usize, r: Res, why: Why) {
        self.oracle.stop_attempt(w, r);
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

    /// Starts `r` on worker `w` (the herder's `Starting …` and the Worker's lines).
    pub fn start(&mut self, w: usize, r: Res, _why: Why) -> u64 {
        self.stats.starts += 1;
        let line = self.say(w).starting(r);
        let already = self.workers[w].running.contains_key(&r);
        {
            let (oracle, names) = self.judge();
            oracle.starting(&names, w, r, line, already);
        }
        match r {
            Res::Conn(c) => {
                self.say(w).creating_connector(c);
                if !already {
                    self.workers[w].running.insert(r, Inst { start_line: line });
                }
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
                    return line;
                }
                self.say(w).instantiating_task(c, i);
                self.workers[w].running.insert(r, Inst { start_line: line });
                self.workers[w].run_tasks.push((c, i));
                self.say(w).task_initialized(c, i);
            }
        }
        let (oracle, names) = self.judge();
        oracle.started(&names, w, r, line);
        line
    }
}
