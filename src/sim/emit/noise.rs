//! Realistic lines that carry no lifecycle fact: Kafka client lines (their
//! own LogContext, including sink-task consumers' group joins), offset
//! commits, connector chatter, REST access logs, config dumps and stack
//! traces. Every record is written whole; the auditor must skip them all.

use super::out::{Clock, Lvl, Mdc, Th, WorkerLog};
use crate::sim::data::{ConnType, TYPES};
use crate::sim::rng::Rng;
use crate::sim::version::Version;

/// What noise may mention on one worker right now.
pub struct NoiseCtx<'a> {
    pub version: Version,
    /// Running tasks: (connector index, task index).
    pub tasks: &'a [(u16, u16)],
    pub names: &'a [String],
    /// Connector index → index into [`TYPES`].
    pub types: &'a [usize],
    /// Debezium layout: connector threads print their own MDC triple.
    pub debezium: bool,
    /// The Connect group id.
    pub group: &'a str,
    /// The Kafka cluster's id.
    pub cluster_id: &'a str,
}

/// Draws noise records: after each lifecycle line, another noise record
/// follows with probability `ratio` (so `ratio/(1-ratio)` on average).
pub struct Noise {
    rng: Rng,
    ratio: f64,
    seq: u64,
}

const PRODUCER_KEYS: &[&str] = &[
    "\tacks = -1",
    "\tbatch.size = 16384",
    "\tbootstrap.servers = [broker-1:9092, broker-2:9092, broker-3:9092]",
    "\tbuffer.memory = 33554432",
    "\tclient.dns.lookup = use_all_dns_ips",
    "\tclient.id = connector-producer",
    "\tcompression.type = none",
    "\tconnections.max.idle.ms = 540000",
    "\tdelivery.timeout.ms = 2147483647",
    "\tenable.idempotence = false",
    "\tinterceptor.classes = []",
    "\tkey.serializer = class org.apache.kafka.common.serialization.ByteArraySerializer",
    "\tlinger.ms = 0",
    "\tmax.block.ms = 9223372036854775807",
    "\tmax.in.flight.requests.per.connection = 1",
    "\tmax.request.size = 1048576",
    "\tmetadata.max.age.ms = 300000",
    "\tmetadata.max.idle.ms = 300000",
    "\tmetric.reporters = []",
    "\tmetrics.num.samples = 2",
    "\tmetrics.recording.level = INFO",
    "\tmetrics.sample.window.ms = 30000",
    "\tpartitioner.class = class org.apache.kafka.clients.producer.internals.DefaultPartitioner",
    "\treceive.buffer.bytes = 32768",
    "\treconnect.backoff.max.ms = 1000",
    "\treconnect.backoff.ms = 50",
    "\trequest.timeout.ms = 2147483647",
    "\tretries = 2147483647",
    "\tretry.backoff.ms = 100",
    "\tsasl.client.callback.handler.class = null",
    "\tsasl.jaas.config = null",
    "\tsasl.kerberos.kinit.cmd = /usr/bin/kinit",
    "\tsasl.kerberos.min.time.before.relogin = 60000",
    "\tsasl.kerberos.service.name = null",
    "\tsasl.mechanism = GSSAPI",
    "\tsecurity.protocol = PLAINTEXT",
    "\tsend.buffer.bytes = 131072",
    "\tssl.cipher.suites = null",
    "\tssl.enabled.protocols = [TLSv1.2, TLSv1.3]",
    "\tssl.endpoint.identification.algorithm = https",
    "\tssl.key.password = null",
    "\tssl.keystore.location = null",
    "\tssl.keystore.type = JKS",
    "\tssl.protocol = TLSv1.3",
    "\tssl.truststore.location = null",
    "\tssl.truststore.type = JKS",
    "\ttransaction.timeout.ms = 60000",
    "\ttransactional.id = null",
    "\tvalue.serializer = class org.apache.kafka.common.serialization.ByteArraySerializer",
];

const CONSUMER_KEYS: &[&str] = &[
    "\tallow.auto.create.topics = true",
    "\tauto.commit.interval.ms = 5000",
    "\tauto.offset.reset = earliest",
    "\tbootstrap.servers = [broker-1:9092, broker-2:9092, broker-3:9092]",
    "\tcheck.crcs = true",
    "\tclient.dns.lookup = use_all_dns_ips",
    "\tclient.rack = ",
    "\tconnections.max.idle.ms = 540000",
    "\tdefault.api.timeout.ms = 60000",
    "\tenable.auto.commit = false",
    "\texclude.internal.topics = true",
    "\tfetch.max.bytes = 52428800",
    "\tfetch.max.wait.ms = 500",
    "\tfetch.min.bytes = 1",
    "\theartbeat.interval.ms = 3000",
    "\tinterceptor.classes = []",
    "\tinternal.leave.group.on.close = true",
    "\tisolation.level = read_uncommitted",
    "\tkey.deserializer = class org.apache.kafka.common.serialization.ByteArrayDeserializer",
    "\tmax.partition.fetch.bytes = 1048576",
    "\tmax.poll.interval.ms = 300000",
    "\tmax.poll.records = 500",
    "\tmetadata.max.age.ms = 300000",
    "\tmetric.reporters = []",
    "\tmetrics.num.samples = 2",
    "\tmetrics.recording.level = INFO",
    "\tpartition.assignment.strategy = [class org.apache.kafka.clients.consumer.RangeAssignor, class org.apache.kafka.clients.consumer.CooperativeStickyAssignor]",
    "\treceive.buffer.bytes = 65536",
    "\treconnect.backoff.max.ms = 1000",
    "\treconnect.backoff.ms = 50",
    "\trequest.timeout.ms = 30000",
    "\tretry.backoff.ms = 100",
    "\tsasl.jaas.config = null",
    "\tsasl.mechanism = GSSAPI",
    "\tsecurity.protocol = PLAINTEXT",
    "\tsend.buffer.bytes = 131072",
    "\tsession.timeout.ms = 45000",
    "\tsocket.connection.setup.timeout.max.ms = 30000",
    "\tsocket.connection.setup.timeout.ms = 10000",
    "\tssl.enabled.protocols = [TLSv1.2, TLSv1.3]",
    "\tssl.endpoint.identification.algorithm = https",
    "\tssl.keystore.type = JKS",
    "\tssl.protocol = TLSv1.3",
    "\tssl.truststore.type = JKS",
    "\tvalue.deserializer = class org.apache.kafka.common.serialization.ByteArrayDeserializer",
];

const SOURCE_TRACE: &[&str] = &[
    "java.sql.SQLRecoverableException: IO Error: Connection reset",
    "\tat oracle.jdbc.driver.T4CConnection.logon(T4CConnection.java:801)",
    "\tat oracle.jdbc.driver.PhysicalConnection.connect(PhysicalConnection.java:782)",
    "\tat io.confluent.connect.jdbc.util.CachedConnectionProvider.getConnection(CachedConnectionProvider.java:56)",
    "\tat io.confluent.connect.jdbc.source.JdbcSourceTask.poll(JdbcSourceTask.java:394)",
    "\tat org.apache.kafka.connect.runtime.WorkerSourceTask.poll(WorkerSourceTask.java:289)",
    "\tat org.apache.kafka.connect.runtime.WorkerSourceTask.execute(WorkerSourceTask.java:256)",
    "\tat org.apache.kafka.connect.runtime.WorkerTask.doRun(WorkerTask.java:189)",
    "\tat org.apache.kafka.connect.runtime.WorkerTask.run(WorkerTask.java:239)",
    "\tat java.base/java.util.concurrent.Executors$RunnableAdapter.call(Executors.java:515)",
    "\tat java.base/java.util.concurrent.FutureTask.run(FutureTask.java:264)",
    "\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1128)",
    "\tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:628)",
    "\tat java.base/java.lang.Thread.run(Thread.java:829)",
    "Caused by: java.net.SocketException: Connection reset",
    "\tat java.base/java.net.SocketInputStream.read(SocketInputStream.java:186)",
    "\tat oracle.net.ns.Packet.receive(Packet.java:311)",
    "\t... 13 more",
];

const SINK_TRACE: &[&str] = &[
    "org.apache.kafka.clients.consumer.RetriableCommitFailedException: Offset commit failed with a retriable exception. You should retry committing the latest consumed offsets.",
    "Caused by: org.apache.kafka.common.errors.TimeoutException: The request timed out.",
];

const NETWORK_TRACE: &[&str] = &[
    "org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: fetchMetadata",
    "\tat org.apache.kafka.clients.admin.KafkaAdminClient$Call.fail(KafkaAdminClient.java:834)",
    "\tat org.apache.kafka.clients.admin.KafkaAdminClient$AdminClientRunnable.processRequests(KafkaAdminClient.java:1363)",
    "\tat org.apache.kafka.clients.admin.KafkaAdminClient$AdminClientRunnable.run(KafkaAdminClient.java:1466)",
    "\tat java.base/java.lang.Thread.run(Thread.java:829)",
];

const PLUGINS: &[&str] = &[
    "io.confluent.connect.jdbc.JdbcSourceConnector",
    "io.confluent.connect.jdbc.JdbcSinkConnector",
    "io.debezium.connector.mysql.MySqlConnector",
    "io.debezium.connector.postgresql.PostgresConnector",
    "io.confluent.connect.s3.S3SinkConnector",
    "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
    "io.confluent.connect.hdfs.HdfsSinkConnector",
    "com.mongodb.kafka.connect.MongoSourceConnector",
    "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "org.apache.kafka.connect.transforms.InsertField$Value",
    "org.apache.kafka.connect.transforms.TimestampRouter",
    "org.apache.kafka.connect.transforms.RegexRouter",
    "org.apache.kafka.connect.json.JsonConverter",
    "org.apache.kafka.connect.storage.StringConverter",
    "io.confluent.connect.avro.AvroConverter",
];

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

const REST_PATHS: &[&str] = &[
    "GET /connectors HTTP/1.1\" 200 ",
    "GET /connectors?expand=status HTTP/1.1\" 200 ",
    "GET /connector-plugins HTTP/1.1\" 200 ",
    "GET / HTTP/1.1\" 200 ",
];

impl Noise {
    pub fn new(rng: Rng, ratio: f64) -> Noise {
        Noise {
            rng,
            ratio: ratio.clamp(0.0, 0.995),
            seq: 0,
        }
    }

    /// The noise records that follow one lifecycle line.
    pub fn after(&mut self, log: &mut WorkerLog, clock: &mut Clock, cx: &NoiseCtx) {
        if self.ratio <= 0.0 {
            return;
        }
        let mut n = 0;
        while n < 400 && self.rng.chance(self.ratio) {
            clock.advance(self.rng.range(0, 1));
            self.one(log, clock, cx);
            n += 1;
        }
    }

    /// A number of noise records (idle time), `ratio`-scaled.
    pub fn count_for(&mut self, base: u32) -> u32 {
        if self.ratio <= 0.0 {
            return 0;
        }
        let mean = self.ratio / (1.0 - self.ratio) * f64::from(base);
        (mean * (0.5 + self.rng.unit())) as u32
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// One noise record.
    pub fn one(&mut self, log: &mut WorkerLog, clock: &mut Clock, cx: &NoiseCtx) {
        self.seq += 1;
        let roll = self.rng.below(100);
        if !cx.tasks.is_empty() && roll < 55 {
            let (c, i) = cx.tasks[self.rng.index(cx.tasks.len())];
            self.task_line(log, clock, cx, c, i);
            return;
        }
        // Weighted: REST access and client chatter are common, dumps and
        // stack traces rare (they come with client creation and failures).
        let pick = match self.rng.below(60) {
            0..=7 => 0,
            8..=17 => 2,
            18..=21 => 3,
            22..=46 => 4,
            47..=48 => 7,
            49 => 8,
            50 => 9,
            _ => 10,
        };
        match pick {
            0 => {
                let v = cx.version;
                log.head(clock, Lvl::Info, Mdc::None, Th::Main);
                log.s("[Producer clientId=producer-");
                log.num(self.rng.range(1, 4));
                log.s("] Cluster ID: ");
                log.s(cx.cluster_id);
                log.tail(
                    "org.apache.kafka.clients.Metadata",
                    if v >= Version::V3_0 { 287 } else { 279 },
                );
            }
            2 => {
                log.head(clock, Lvl::Info, Mdc::None, Th::ConfigLog);
                log.s("[Consumer clientId=consumer-");
                log.s(cx.group);
                log.s("-");
                log.num(self.rng.range(1, 3));
                log.s(", groupId=");
                log.s(cx.group);
                log.s("] Resetting offset for partition connect-status-");
                log.num(self.rng.range(0, 4));
                log.s(" to position FetchPosition{offset=");
                log.num(self.rng.range(0, 90_000));
                log.s(", offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[broker-2:9092 (id: 2 rack: null)], epoch=0}}.");
                log.tail(
                    "org.apache.kafka.clients.consumer.internals.SubscriptionState",
                    398,
                );
            }
            3 => {
                log.head(clock, Lvl::Warn, Mdc::None, Th::Main);
                log.s("[Producer clientId=producer-");
                log.num(self.rng.range(1, 3));
                log.s("] Connection to node ");
                log.num(self.rng.range(1, 3));
                log.s(" (broker-2/10.0.3.14:9092) could not be established. Broker may not be available.");
                log.tail("org.apache.kafka.clients.NetworkClient", 814);
            }
            4..=6 => self.rest(log, clock),
            7 => {
                // (4.x moved AppInfoParser to common.utils.internals.)
                let app_info = if cx.version >= Version::V4_4 {
                    "org.apache.kafka.common.utils.internals.AppInfoParser"
                } else {
                    "org.apache.kafka.common.utils.AppInfoParser"
                };
                log.head(clock, Lvl::Info, Mdc::None, Th::Main);
                log.s("Kafka version: ");
                log.s(cx.version.kafka_build());
                log.tail(app_info, 119);
                log.head(clock, Lvl::Info, Mdc::None, Th::Main);
                log.s("Kafka commitId: ");
                log.s(cx.version.commit_id());
                log.tail(app_info, 120);
            }
            8 => {
                log.head(clock, Lvl::Error, Mdc::None, Th::Main);
                log.s("Failed to get cluster metadata");
                log.tail("org.apache.kafka.connect.util.ConnectUtils", 74);
                log.trace(NETWORK_TRACE);
            }
            9 => {
                let dump = if self.rng.chance(0.5) {
                    (
                        "ProducerConfig values: ",
                        "org.apache.kafka.clients.producer.ProducerConfig",
                        PRODUCER_KEYS,
                    )
                } else {
                    (
                        "ConsumerConfig values: ",
                        "org.apache.kafka.clients.consumer.ConsumerConfig",
                        CONSUMER_KEYS,
                    )
                };
                log.head(clock, Lvl::Info, Mdc::None, Th::Main);
                log.s(dump.0);
                log.newline();
                for k in dump.2 {
                    log.cont(k);
                }
                log.end_multi(dump.1, 370);
            }
            _ => {
                log.head(clock, Lvl::Info, Mdc::None, Th::Heartbeat);
                log.s("[AdminClient clientId=adminclient-");
                log.num(self.rng.range(1, 8));
                log.s("] Node ");
                log.num(self.rng.range(-3, 3));
                log.s(" disconnected.");
                log.tail("org.apache.kafka.clients.NetworkClient", 977);
            }
        }
    }

    fn rest(&mut self, log: &mut WorkerLog, clock: &mut Clock) {
        let stamp = clock.stamp();
        let t = String::from_utf8_lossy(&stamp).into_owned();
        log.head(clock, Lvl::Info, Mdc::None, Th::Rest);
        log.s("10.0.4.");
        log.num(self.rng.range(2, 250));
        log.s(" - - [");
        // dd/Mon/yyyy:HH:mm:ss +0000 from `yyyy-MM-dd HH:mm:ss,SSS`
        let month: usize = t.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
        log.s(t.get(8..10).unwrap_or("01"));
        log.s("/");
        log.s(MONTHS[(month.clamp(1, 12)) - 1]);
        log.s("/");
        log.s(t.get(0..4).unwrap_or("2024"));
        log.s(":");
        log.s(t.get(11..19).unwrap_or("00:00:00"));
        log.s(" +0000] \"");
        let p = REST_PATHS[self.rng.index(REST_PATHS.len())];
        log.s(p);
        log.num(self.rng.range(2, 4000));
        log.s(" \"-\" \"Prometheus/2.45.0\" ");
        log.num(self.rng.range(1, 40));
        log.tail("org.apache.kafka.connect.runtime.rest.RestServer", 62);
    }

    fn task_line(&mut self, log: &mut WorkerLog, clock: &mut Clock, cx: &NoiseCtx, c: u16, i: u16) {
        let Some(name) = cx.names.get(usize::from(c)) else {
            return;
        };
        let ty = &TYPES[cx.types.get(usize::from(c)).copied().unwrap_or(0) % TYPES.len()];
        let name = name.as_str();
        let id_cls = if ty.source {
            "WorkerSourceTask{id="
        } else {
            "WorkerSinkTask{id="
        };
        // A record of the task class itself: `WorkerSourceTask{id=name-i…`.
        let task_record = |log: &mut WorkerLog, clock: &mut Clock, lvl: Lvl, mdc: Mdc| {
            log.head(clock, lvl, mdc, Th::Task);
            log.s(id_cls);
            log.s(name);
            log.s("-");
            log.num(i64::from(i));
        };
        let roll = self.rng.below(60);
        match roll {
            0..=20 => {
                let (logger, line, msg) = ty.chatter[self.rng.index(ty.chatter.len())];
                let mdc = match (cx.debezium, ty.dbz) {
                    (true, Some(t)) => Mdc::Dbz(t),
                    _ => Mdc::Task(name, i),
                };
                log.head(clock, Lvl::Info, mdc, Th::Task);
                log.s(msg);
                log.tail(logger, line);
            }
            21..=32 if ty.source => {
                let logger = "org.apache.kafka.connect.runtime.WorkerSourceTask";
                task_record(log, clock, Lvl::Info, Mdc::Offsets(name, i));
                log.s("} Committing offsets");
                log.tail(logger, 478);
                task_record(log, clock, Lvl::Info, Mdc::Offsets(name, i));
                log.s("} flushing ");
                log.num(self.rng.range(0, 900));
                log.s(" outstanding messages for offset commit");
                log.tail(logger, 495);
                task_record(log, clock, Lvl::Info, Mdc::Offsets(name, i));
                log.s("} Finished commitOffsets successfully in ");
                log.num(self.rng.range(1, 60));
                log.s(" ms");
                log.tail(logger, 574);
            }
            21..=32 => self.sink_consumer_line(log, clock, cx, (name, i), ty),
            33..=38 if !ty.source => {
                task_record(log, clock, Lvl::Info, Mdc::Task(name, i));
                log.s("} Committing offsets asynchronously using sequence number ");
                log.num(self.rng.range(1, 5000));
                log.s(": {");
                log.s(ty.topic);
                log.s("-");
                log.num(i64::from(i));
                log.s("=OffsetAndMetadata{offset=");
                log.num(self.rng.range(0, 2_000_000));
                log.s(", leaderEpoch=null, metadata=''}}");
                log.tail("org.apache.kafka.connect.runtime.WorkerSinkTask", 353);
            }
            39 if ty.source => {
                log.head(clock, Lvl::Error, Mdc::Task(name, i), Th::Task);
                log.s("Failed to run query for table TimestampIncrementingTableQuerier{table=\"public\".\"orders\", query='null', topicPrefix='pg-', incrementingColumn='id', timestampColumns=[updated_at]}: {}");
                log.tail("io.confluent.connect.jdbc.source.JdbcSourceTask", 419);
                log.trace(SOURCE_TRACE);
            }
            39 => {
                task_record(log, clock, Lvl::Warn, Mdc::Task(name, i));
                log.s("} Offset commit failed during close");
                log.tail("org.apache.kafka.connect.runtime.WorkerSinkTask", 437);
                log.trace(SINK_TRACE);
            }

            _ => {
                log.head(clock, Lvl::Info, Mdc::Task(name, i), Th::Task);
                if ty.source {
                    log.s("[Producer clientId=connector-producer-");
                    log.s(name);
                    log.s("-");
                    log.num(i64::from(i));
                    log.s("] Resetting the last seen epoch of partition ");
                    log.s(ty.topic);
                    log.s("-");
                    log.num(self.rng.range(0, 11));
                    log.s(" to 0 since the associated topicId changed from null to 3q4n7Zc8R8ux1eEFBzVtVQ");
                    log.tail("org.apache.kafka.clients.Metadata", 402);
                } else {
                    log.s("[Consumer clientId=connector-consumer-");
                    log.s(name);
                    log.s("-");
                    log.num(i64::from(i));
                    log.s(", groupId=connect-");
                    log.s(name);
                    log.s("] Fetch position FetchPosition{offset=");
                    log.num(self.rng.range(0, 2_000_000));
                    log.s(", offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[broker-3:9092 (id: 3 rack: null)], epoch=0}} is out of range for partition ");
                    log.s(ty.topic);
                    log.s("-");
                    log.num(i64::from(i));
                    log.s(", resetting offset");
                    log.tail("org.apache.kafka.clients.consumer.internals.Fetcher", 1413);
                }
            }
        }
    }

    /// A sink task's consumer: its own LogContext, including group lines
    /// that read like the worker's own.
    fn sink_consumer_line(
        &mut self,
        log: &mut WorkerLog,
        clock: &mut Clock,
        cx: &NoiseCtx,
        (name, i): (&str, u16),
        ty: &ConnType,
    ) {
        let cc = cx.version.consumer_coordinator_logger();
        let pick = self.rng.below(4);
        log.head(clock, Lvl::Info, Mdc::Task(name, i), Th::Task);
        log.s("[Consumer clientId=connector-consumer-");
        log.s(name);
        log.s("-");
        log.num(i64::from(i));
        log.s(", groupId=connect-");
        log.s(name);
        log.s("] ");
        match pick {
            0 => {
                log.s("(Re-)joining group");
                log.tail(cc, 535);
            }
            1 => {
                log.s("Successfully joined group with generation ");
                if cx.version.generation_object() {
                    log.s("Generation{generationId=");
                    log.num(self.rng.range(1, 40));
                    log.s(", memberId='connector-consumer-");
                    log.s(name);
                    log.s("-");
                    log.num(i64::from(i));
                    log.s("-5c1b0a9e-21c4-4f0e-9d0a-6f1f3c7b2e11', protocol='range'}");
                } else {
                    log.num(self.rng.range(1, 40));
                }
                log.tail(cc, 591);
            }
            2 => {
                log.s("Adding newly assigned partitions: ");
                log.s(ty.topic);
                log.s("-");
                log.num(i64::from(i));
                log.tail(
                    "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator",
                    291,
                );
            }
            _ => {
                log.s("Setting offset for partition ");
                log.s(ty.topic);
                log.s("-");
                log.num(i64::from(i));
                log.s(" to the committed offset FetchPosition{offset=");
                log.num(self.rng.range(0, 2_000_000));
                log.s(", offsetEpoch=Optional[0], currentLeader=LeaderAndEpoch{leader=Optional[broker-1:9092 (id: 1 rack: null)], epoch=0}}");
                log.tail(
                    "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator",
                    851,
                );
            }
        }
    }

    /// Plugin scanning at process start.
    pub fn plugins(&mut self, log: &mut WorkerLog, clock: &mut Clock) {
        let n = self.count_for(6).min(PLUGINS.len() as u32 * 3);
        let dcl = "org.apache.kafka.connect.runtime.isolation.DelegatingClassLoader";
        for k in 0..n {
            clock.advance(self.rng.range(0, 2));
            let p = PLUGINS[(k as usize) % PLUGINS.len()];
            log.head(clock, Lvl::Info, Mdc::None, Th::Main);
            match k % 3 {
                0 => {
                    log.s("Loading plugin from: /usr/share/java/");
                    log.s(p.rsplit('.').next().unwrap_or(p));
                    log.tail(dcl, 246);
                }
                1 => {
                    log.s(
                        "Registered loader: PluginClassLoader{pluginLocation=file:/usr/share/java/",
                    );
                    log.s(p.rsplit('.').next().unwrap_or(p));
                    log.s("/}");
                    log.tail(dcl, 269);
                }
                _ => {
                    log.s("Added plugin '");
                    log.s(p);
                    log.s("'");
                    log.tail(dcl, 198);
                }
            }
        }
    }

    /// The config dumps a task prints when it starts (`ratio`-gated).
    pub fn task_start_dump(
        &mut self,
        log: &mut WorkerLog,
        clock: &mut Clock,
        name: &str,
        i: u16,
        source: bool,
    ) {
        if !self.rng.chance(self.ratio) {
            return;
        }
        let (head, logger, keys) = if source {
            (
                "ProducerConfig values: ",
                "org.apache.kafka.clients.producer.ProducerConfig",
                PRODUCER_KEYS,
            )
        } else {
            (
                "ConsumerConfig values: ",
                "org.apache.kafka.clients.consumer.ConsumerConfig",
                CONSUMER_KEYS,
            )
        };
        log.head(clock, Lvl::Info, Mdc::Task(name, i), Th::Herder);
        log.s(head);
        log.newline();
        for k in keys {
            log.cont(k);
        }
        log.end_multi(logger, 370);
    }
}
