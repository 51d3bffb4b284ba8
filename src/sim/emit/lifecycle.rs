//! The lines of starts and stops of connectors and tasks: the herder's
//! `Starting …`, the Worker's creation, instantiation and stop lines, the
//! task thread's first line, and the refusals.

use super::out::{Lvl, WorkerLog};
use super::{Lg, M, Say, about, name};
use crate::sim::model::data::{Res, TYPES};
use crate::sim::version::{Site, Version};

fn plugin_version(v: &'static str, kafka: Version) -> &'static str {
    if v.is_empty() { kafka.kafka_build() } else { v }
}

const ALREADY_EXISTS_TRACE: [&str; 8] = [
    "\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:434)",
    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startTask(DistributedHerder.java:1035)",
    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.access$1700(DistributedHerder.java:105)",
    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder$11.call(DistributedHerder.java:1050)",
    "\tat java.util.concurrent.FutureTask.run(FutureTask.java:266)",
    "\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149)",
    "\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)",
    "\tat java.lang.Thread.run(Thread.java:748)",
];

impl Say<'_> {
    // ------------------------------------------------------------ stops

    /// The Worker's `Stopping connector X`.
    pub fn stopping_connector(&mut self, c: u16) -> u64 {
        self.emit(
            Lvl::Info,
            M::Worker(c),
            Lg::Worker,
            Site::StoppingConnector,
            about("Stopping connector ", c, ""),
        )
    }

    /// What follows the stop of a running connector.
    pub fn connector_stopped(&mut self, c: u16) {
        if self.v().stopped_connector_line() {
            self.emit(
                Lvl::Info,
                M::Worker(c),
                Lg::Worker,
                Site::StoppedConnector,
                about("Stopped connector ", c, ""),
            );
        }
        if self.v().connector_shutdown_lines() {
            self.emit(
                Lvl::Info,
                M::Worker(c),
                Lg::WConn,
                Site::ScheduledShutdown,
                about("Scheduled shutdown for WorkerConnector{id=", c, "}"),
            );
            self.emit(
                Lvl::Info,
                M::Worker(c),
                Lg::WConn,
                Site::CompletedShutdown,
                about("Completed shutdown for WorkerConnector{id=", c, "}"),
            );
        }
    }

    /// The stop of a connector this worker does not run.
    pub fn ignoring_connector_stop(&mut self, c: u16) {
        self.emit(
            Lvl::Warn,
            M::Worker(c),
            Lg::Worker,
            Site::IgnoringStopConnector,
            about("Ignoring stop request for unowned connector ", c, ""),
        );
        if self.v().await_stop_connector_line() {
            self.emit(
                Lvl::Warn,
                M::Worker(c),
                Lg::Worker,
                Site::IgnoringAwaitConnector,
                about(
                    "Ignoring await stop request for non-present connector ",
                    c,
                    "",
                ),
            );
        }
    }

    /// The Worker's `Stopping task X-n`.
    pub fn stopping_task(&mut self, c: u16, i: u16) -> u64 {
        self.emit(
            Lvl::Info,
            M::Task(c, i),
            Lg::Worker,
            Site::StoppingTask,
            |l, n| {
                l.s("Stopping task ");
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
            },
        )
    }

    /// The stop of a task this worker does not run.
    pub fn ignoring_task_stop(&mut self, c: u16, i: u16) {
        self.emit(
            Lvl::Warn,
            M::Task(c, i),
            Lg::Worker,
            Site::IgnoringStopTask,
            |l, n| {
                l.s("Ignoring stop request for unowned task ");
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
            },
        );
        self.emit(
            Lvl::Warn,
            M::Task(c, i),
            Lg::Worker,
            Site::IgnoringAwaitTask,
            |l, n| {
                l.s("Ignoring await stop request for non-present task ");
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
            },
        );
    }

    // ------------------------------------------------------------ starts

    /// The herder's `Starting connector X` / `Starting task X-n`.
    pub fn starting(&mut self, r: Res) -> u64 {
        match r {
            Res::Conn(c) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::StartingConnector,
                about("Starting connector ", c, ""),
            ),
            Res::Task(c, i) => self.emit(
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::StartingTask,
                |l, n| {
                    l.s("Starting task ");
                    l.s(name(n, c));
                    l.s("-");
                    l.num(i64::from(i));
                },
            ),
        }
    }

    fn type_of(&self, c: u16) -> &'static crate::sim::model::data::ConnType {
        &TYPES[self.types.get(usize::from(c)).copied().unwrap_or(0) % TYPES.len()]
    }

    /// The Worker creates and starts a connector.
    pub fn creating_connector(&mut self, c: u16) {
        let ty = self.type_of(c);
        let (class, ver) = (ty.class, plugin_version(ty.plugin_version, self.v()));
        self.emit(
            Lvl::Info,
            M::Worker(c),
            Lg::Worker,
            Site::CreatingConnector,
            |l, n| {
                l.s("Creating connector ");
                l.s(name(n, c));
                l.s(" of type ");
                l.s(class);
            },
        );
        self.emit(
            Lvl::Info,
            M::Worker(c),
            Lg::Worker,
            Site::InstantiatedConnector,
            |l, n| {
                l.s("Instantiated connector ");
                l.s(name(n, c));
                l.s(" with version ");
                l.s(ver);
                l.s(" of type class ");
                l.s(class);
            },
        );
        self.emit(
            Lvl::Info,
            M::Worker(c),
            Lg::Worker,
            Site::FinishedCreating,
            about("Finished creating connector ", c, ""),
        );
    }

    /// The Worker's `Creating task X-n`.
    pub fn creating_task(&mut self, c: u16, i: u16) {
        self.emit(
            Lvl::Info,
            M::Task(c, i),
            Lg::Worker,
            Site::CreatingTask,
            |l, n| {
                l.s("Creating task ");
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
            },
        );
    }

    /// The Worker refuses a task that already runs here: the herder logs
    /// the exception.
    pub fn task_already_exists(&mut self, c: u16, i: u16) {
        let id = format!("{}-{i}", name(self.names, c));
        self.em.trace = std::iter::once(format!(
            "org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: {id}"
        ))
        .chain(ALREADY_EXISTS_TRACE.iter().map(|s| s.to_string()))
        .collect();
        self.emit(
            Lvl::Error,
            M::None,
            Lg::Herder,
            Site::CouldNotInstantiate,
            |l, _| {
                l.s("Couldn't instantiate task ");
                l.s(&id);
                l.s(" because it has an invalid task configuration. This task will not execute until reconfigured.");
            },
        );
    }

    /// The task's client config dump, `Instantiated task …` and the
    /// converters it sets up.
    pub fn instantiating_task(&mut self, c: u16, i: u16) {
        let ty = self.type_of(c);
        let source = ty.source;
        let (tclass, ver) = (ty.task_class, plugin_version(ty.plugin_version, self.v()));
        {
            let em = &mut *self.em;
            let nm = name(self.names, c);
            em.noise
                .task_start_dump(&mut em.logs[self.w], &mut em.clock, nm, i, source);
        }
        self.emit(
            Lvl::Info,
            M::Task(c, i),
            Lg::Worker,
            Site::InstantiatedTask,
            |l, n| {
                l.s("Instantiated task ");
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
                l.s(" with version ");
                l.s(ver);
                l.s(" of type ");
                l.s(tclass);
            },
        );
        for (kind, class, from) in [
            (
                "key",
                "class org.apache.kafka.connect.json.JsonConverter",
                "worker",
            ),
            (
                "value",
                "class io.confluent.connect.avro.AvroConverter",
                "connector",
            ),
            (
                "header",
                "class org.apache.kafka.connect.storage.SimpleHeaderConverter",
                "worker",
            ),
        ] {
            self.emit_plain(
                Lvl::Info,
                M::Task(c, i),
                Lg::Worker,
                Site::Converter,
                |l, n| {
                    l.s("Set up the ");
                    l.s(kind);
                    l.s(" converter ");
                    l.s(class);
                    l.s(" for task ");
                    l.s(name(n, c));
                    l.s("-");
                    l.num(i64::from(i));
                    l.s(" using the ");
                    l.s(from);
                    l.s(" config");
                },
            );
        }
    }

    /// The task thread's `… task finished initialization and start`.
    pub fn task_initialized(&mut self, c: u16, i: u16) {
        let source = self.type_of(c).source;
        let (tl, cls) = if source {
            (self.v().source_task_logger(), "WorkerSourceTask{id=")
        } else {
            (
                "org.apache.kafka.connect.runtime.WorkerSinkTask",
                "WorkerSinkTask{id=",
            )
        };
        let kind = if source {
            "} Source task finished initialization and start"
        } else {
            "} Sink task finished initialization and start"
        };
        self.emit(
            Lvl::Info,
            M::Task(c, i),
            Lg::Custom(tl),
            Site::TaskInit,
            |l: &mut WorkerLog, n| {
                l.s(cls);
                l.s(name(n, c));
                l.s("-");
                l.num(i64::from(i));
                l.s(kind);
            },
        );
    }
}
