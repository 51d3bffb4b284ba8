//! The lines of starts and stops of connectors and tasks: the herder's
//! `Starting …`, the Worker's creation, instantiation and stop lines, the
//! task thread's first line, and the refusals.

use super::{Arg, Ln, Say, name};
use crate::sim::data::{Res, TYPES};
use crate::sim::version::Version;

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
        self.line(Ln::StoppingConnector, &[Arg::Conn(c)])
    }

    /// What follows the stop of a running connector.
    pub fn connector_stopped(&mut self, c: u16) {
        self.line(Ln::StoppedConnector, &[Arg::Conn(c)]);
        self.line(Ln::ScheduledShutdown, &[Arg::Conn(c)]);
        self.line(Ln::CompletedShutdown, &[Arg::Conn(c)]);
    }

    /// The stop of a connector this worker does not run.
    pub fn ignoring_connector_stop(&mut self, c: u16) {
        self.line(Ln::IgnoringStopConnector, &[Arg::Conn(c)]);
        self.line(Ln::IgnoringAwaitConnector, &[Arg::Conn(c)]);
    }

    /// The Worker's `Stopping task X-n`.
    pub fn stopping_task(&mut self, c: u16, i: u16) -> u64 {
        self.line(Ln::StoppingTask, &[Arg::Task(c, i)])
    }

    /// The stop of a task this worker does not run.
    pub fn ignoring_task_stop(&mut self, c: u16, i: u16) {
        self.line(Ln::IgnoringStopTask, &[Arg::Task(c, i)]);
        self.line(Ln::IgnoringAwaitTask, &[Arg::Task(c, i)]);
    }

    // ------------------------------------------------------------ starts

    /// The herder's `Starting connector X` / `Starting task X-n`.
    pub fn starting(&mut self, r: Res) -> u64 {
        match r {
            Res::Conn(c) => self.line(Ln::StartingConnector, &[Arg::Conn(c)]),
            Res::Task(c, i) => self.line(Ln::StartingTask, &[Arg::Task(c, i)]),
        }
    }

    fn type_of(&self, c: u16) -> &'static crate::sim::data::ConnType {
        &TYPES[self.types.get(usize::from(c)).copied().unwrap_or(0) % TYPES.len()]
    }

    /// The Worker creates and starts a connector.
    pub fn creating_connector(&mut self, c: u16) {
        let ty = self.type_of(c);
        let (class, ver) = (ty.class, plugin_version(ty.plugin_version, self.v()));
        let args = [
            Arg::Conn(c),
            Arg::Str("class", class),
            Arg::Str("version", ver),
        ];
        self.line(Ln::CreatingConnector, &args);
        self.line(Ln::InstantiatedConnector, &args);
        self.line(Ln::FinishedCreating, &args);
    }

    /// The Worker's `Creating task X-n`.
    pub fn creating_task(&mut self, c: u16, i: u16) {
        self.line(Ln::CreatingTask, &[Arg::Task(c, i)]);
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
        self.line(Ln::CouldNotInstantiate, &[Arg::Task(c, i)]);
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
        self.line(
            Ln::InstantiatedTask,
            &[
                Arg::Task(c, i),
                Arg::Str("version", ver),
                Arg::Str("class", tclass),
            ],
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
            self.line(
                Ln::Converter,
                &[
                    Arg::Task(c, i),
                    Arg::Str("converter-kind", kind),
                    Arg::Str("class", class),
                    Arg::Str("converter-from", from),
                ],
            );
        }
    }

    /// The task thread's `… task finished initialization and start`.
    pub fn task_initialized(&mut self, c: u16, i: u16) {
        if self.type_of(c).source {
            self.line(Ln::SourceTaskStarted, &[Arg::Task(c, i)]);
        } else {
            self.line(Ln::SinkTaskStarted, &[Arg::Task(c, i)]);
        }
    }
}

/// The executor frames under a start that runs on the herder's
/// start-and-stop pool (Java 8 frames up to 2.8, Java 11 ones from 3.0).
fn pool_frames(v: Version) -> [&'static str; 4] {
    if v >= Version::V3_0 {
        [
            "\tat java.base/java.util.concurrent.FutureTask.run(FutureTask.java:264)",
            "\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1128)",
            "\tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:628)",
            "\tat java.base/java.lang.Thread.run(Thread.java:829)",
        ]
    } else {
        [
            "\tat java.util.concurrent.FutureTask.run(FutureTask.java:266)",
            "\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149)",
            "\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)",
            "\tat java.lang.Thread.run(Thread.java:748)",
        ]
    }
}

/// What a failed plugin lookup says: no class of that name on this
/// worker's plugin path.
fn missing_plugin(kind: &str, class: &str) -> String {
    format!(
        "org.apache.kafka.connect.errors.ConnectException: Failed to find any class that implements {kind} and which name matches {class}, available {}s are: PluginDesc{{klass=class org.apache.kafka.connect.file.FileStreamSinkConnector, name='org.apache.kafka.connect.file.FileStreamSinkConnector', type=sink, typeName='sink', location='classpath'}}, PluginDesc{{klass=class org.apache.kafka.connect.file.FileStreamSourceConnector, name='org.apache.kafka.connect.file.FileStreamSourceConnector', type=source, typeName='source', location='classpath'}}",
        kind.to_ascii_lowercase()
    )
}

impl Say<'_> {
    fn set_trace(&mut self, head: String, frames: &[&str]) {
        let pool = pool_frames(self.v());
        self.em.trace = std::iter::once(head)
            .chain(frames.iter().chain(pool.iter()).map(|s| s.to_string()))
            .collect();
    }

    /// The Worker cannot build the task (its value converter is not on
    /// this worker's plugin path): `Failed to start task X-n` and the
    /// exception; no instance.
    pub fn task_start_failed(&mut self, c: u16, i: u16) {
        self.set_trace(
            "org.apache.kafka.common.config.ConfigException: Invalid value io.confluent.connect.avro.AvroConverter for configuration value.converter: Class io.confluent.connect.avro.AvroConverter could not be found.".into(),
            &[
                "\tat org.apache.kafka.common.config.ConfigDef.parseType(ConfigDef.java:744)",
                "\tat org.apache.kafka.common.config.ConfigDef.parseValue(ConfigDef.java:490)",
                "\tat org.apache.kafka.common.config.ConfigDef.parse(ConfigDef.java:483)",
                "\tat org.apache.kafka.common.config.AbstractConfig.<init>(AbstractConfig.java:113)",
                "\tat org.apache.kafka.connect.runtime.ConnectorConfig.<init>(ConnectorConfig.java:232)",
                "\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:622)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startTask(DistributedHerder.java:1885)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.lambda$getTaskStartingCallable$30(DistributedHerder.java:1927)",
            ],
        );
        self.line(Ln::FailedToStartTask, &[Arg::Task(c, i)]);
    }

    /// The herder cannot load the connector class on this worker (3.3.0+):
    /// AbstractHerder's warning, before any Worker line.
    pub fn connector_type_unknown(&mut self, c: u16) {
        let class = self.type_of(c).class;
        self.set_trace(
            missing_plugin("Connector", class),
            &[
                "\tat org.apache.kafka.connect.runtime.isolation.Plugins.connectorClass(Plugins.java:244)",
                "\tat org.apache.kafka.connect.runtime.AbstractHerder.getConnector(AbstractHerder.java:762)",
                "\tat org.apache.kafka.connect.runtime.AbstractHerder.connectorType(AbstractHerder.java:720)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startTask(DistributedHerder.java:1875)",
            ],
        );
        self.line(Ln::UnknownConnectorType, &[]);
    }

    /// The start phase's task callable catches the herder's exception
    /// for a task of an unknown type.
    pub fn could_not_instantiate_unknown_type(&mut self, c: u16, i: u16) {
        let id = format!("{}-{i}", name(self.names, c));
        self.set_trace(
            format!("org.apache.kafka.connect.errors.ConnectException: Failed to start task {id} since it is not a recognizable type (source or sink)"),
            &[
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startTask(DistributedHerder.java:1920)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.lambda$getTaskStartingCallable$30(DistributedHerder.java:1927)",
            ],
        );
        self.line(Ln::CouldNotInstantiate, &[Arg::Task(c, i)]);
    }

    /// The Worker cannot create the connector (its class is not on this
    /// worker's plugin path): `Creating connector …`, then `Failed to start
    /// connector X` and the exception; no instance.
    pub fn connector_start_failed(&mut self, c: u16) {
        let class = self.type_of(c).class;
        self.line(
            Ln::CreatingConnector,
            &[Arg::Conn(c), Arg::Str("class", class)],
        );
        self.set_trace(
            missing_plugin("Connector", class),
            &[
                "\tat org.apache.kafka.connect.runtime.isolation.Plugins.connectorClass(Plugins.java:244)",
                "\tat org.apache.kafka.connect.runtime.isolation.Plugins.newConnector(Plugins.java:216)",
                "\tat org.apache.kafka.connect.runtime.Worker.startConnector(Worker.java:309)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startConnector(DistributedHerder.java:1975)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.lambda$getConnectorStartingCallable$32(DistributedHerder.java:1981)",
            ],
        );
        self.line(Ln::FailedToStartConnector, &[Arg::Conn(c)]);
    }

    /// The Worker refuses a connector that already runs here (`Connector
    /// with name X already exists`): the herder's start callback logs it
    /// (2.6.3+), or up to 2.5 its start callable (`Couldn't instantiate
    /// connector X …`).
    pub fn connector_already_exists(&mut self, c: u16) {
        let cname = name(self.names, c).to_string();
        let exists = format!(
            "org.apache.kafka.connect.errors.ConnectException: Connector with name {cname} already exists"
        );
        if self.v().async_connector_start() {
            self.set_trace(
                format!("org.apache.kafka.connect.errors.ConnectException: Failed to start connector: {cname}"),
                &[
                    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.lambda$startConnector$33(DistributedHerder.java:1954)",
                    "\tat org.apache.kafka.connect.runtime.Worker.startConnector(Worker.java:292)",
                    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startConnector(DistributedHerder.java:1975)",
                ],
            );
            self.em.trace.push(format!("Caused by: {exists}"));
            self.em.trace.push("\t... 8 more".into());
            self.line(Ln::HerderConnectorFailed, &[Arg::Conn(c)]);
        } else {
            self.set_trace(
                exists,
                &[
                    "\tat org.apache.kafka.connect.runtime.Worker.startConnector(Worker.java:237)",
                    "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startConnector(DistributedHerder.java:1012)",
                ],
            );
            self.line(Ln::CouldNotInstantiateConnector, &[Arg::Conn(c)]);
        }
    }

    /// The herder's start callback for a connector that failed (2.6.3+).
    pub fn herder_connector_failed(&mut self, c: u16) {
        let class = self.type_of(c).class;
        let cname = name(self.names, c).to_string();
        self.set_trace(
            format!("org.apache.kafka.connect.errors.ConnectException: Failed to start connector: {cname}"),
            &[
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.lambda$startConnector$33(DistributedHerder.java:1954)",
                "\tat org.apache.kafka.connect.runtime.Worker.startConnector(Worker.java:335)",
                "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startConnector(DistributedHerder.java:1975)",
            ],
        );
        self.em
            .trace
            .push(format!("Caused by: {}", missing_plugin("Connector", class)));
        self.em.trace.push("\t... 8 more".into());
        self.line(Ln::HerderConnectorFailed, &[Arg::Conn(c)]);
    }

    /// A KIP-745 plan's `Task 'X' restart failed` / `Connector 'X' restart
    /// failed` (`thrown`: with the exception the start threw).
    pub fn restart_failed(&mut self, r: Res, thrown: bool) {
        if thrown {
            let head = match r {
                Res::Conn(c) => format!(
                    "org.apache.kafka.connect.errors.ConnectException: Failed to start connector: {}",
                    name(self.names, c)
                ),
                Res::Task(c, i) => format!(
                    "org.apache.kafka.connect.errors.ConnectException: Failed to start task {}-{i} since it is not a recognizable type (source or sink)",
                    name(self.names, c)
                ),
            };
            self.set_trace(
                head,
                &["\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.doRestartConnectorAndTasks(DistributedHerder.java:1499)"],
            );
        }
        match r {
            Res::Conn(c) => self.line(Ln::ConnectorRestartFailed, &[Arg::Conn(c)]),
            Res::Task(c, i) => self.line(Ln::TaskRestartFailed, &[Arg::Task(c, i)]),
        };
    }
}
