//! A worker process's start-up lines, with the `DistributedConfig values:`
//! dump that names its protocol, group and advertised REST address.

use super::out::{Lvl, Mdc, Th};
use super::{Arg, Ln, Say};
use crate::sim::data::Proto;
use crate::sim::version::{Site, Version};

/// What a worker's start-up lines name about it.
pub(in crate::sim) struct Identity<'a> {
    /// Its index in the cluster (for its IP address).
    pub index: usize,
    pub host: &'a str,
    pub group: &'a str,
    pub proto: Proto,
    /// `scheduled.rebalance.max.delay.ms`
    pub delay_ms: i64,
}

/// The `DistributedConfig values:` dump's keys that every version logs with
/// the same value (a table, not code: this is cold and was one large
/// function of `String` pairs).
const DUMP_KEYS: &[(&str, &str)] = &[
    ("access.control.allow.methods", ""),
    ("access.control.allow.origin", ""),
    (
        "bootstrap.servers",
        "[broker-1:9092, broker-2:9092, broker-3:9092]",
    ),
    ("client.dns.lookup", "use_all_dns_ips"),
    ("client.id", ""),
    ("config.providers", "[]"),
    ("config.storage.replication.factor", "3"),
    ("config.storage.topic", "connect-configs"),
    ("connections.max.idle.ms", "540000"),
    (
        "header.converter",
        "class org.apache.kafka.connect.storage.SimpleHeaderConverter",
    ),
    ("heartbeat.interval.ms", "3000"),
    (
        "key.converter",
        "class org.apache.kafka.connect.json.JsonConverter",
    ),
    ("listeners", "[http://0.0.0.0:8083]"),
    ("metadata.max.age.ms", "300000"),
    ("metric.reporters", "[]"),
    ("metrics.num.samples", "2"),
    ("metrics.recording.level", "INFO"),
    ("metrics.sample.window.ms", "30000"),
    ("offset.flush.interval.ms", "60000"),
    ("offset.flush.timeout.ms", "5000"),
    ("offset.storage.partitions", "25"),
    ("offset.storage.replication.factor", "3"),
    ("offset.storage.topic", "connect-offsets"),
    (
        "plugin.path",
        "[/usr/share/java, /usr/share/confluent-hub-components]",
    ),
    ("rebalance.timeout.ms", "60000"),
    ("receive.buffer.bytes", "32768"),
    ("reconnect.backoff.max.ms", "1000"),
    ("reconnect.backoff.ms", "50"),
    ("request.timeout.ms", "40000"),
    ("rest.advertised.listener", "null"),
    ("rest.advertised.port", "8083"),
    ("rest.extension.classes", "[]"),
    ("rest.host.name", "null"),
    ("rest.port", "8083"),
    ("retry.backoff.ms", "100"),
    ("sasl.jaas.config", "null"),
    ("sasl.mechanism", "GSSAPI"),
    ("security.protocol", "PLAINTEXT"),
    ("send.buffer.bytes", "131072"),
    ("session.timeout.ms", "10000"),
    ("ssl.client.auth", "none"),
    ("ssl.enabled.protocols", "[TLSv1.2]"),
    ("ssl.keystore.type", "JKS"),
    ("ssl.protocol", "TLSv1.2"),
    ("ssl.truststore.type", "JKS"),
    ("status.storage.partitions", "5"),
    ("status.storage.replication.factor", "3"),
    ("status.storage.topic", "connect-status"),
    ("task.shutdown.graceful.timeout.ms", "5000"),
    (
        "value.converter",
        "class io.confluent.connect.avro.AvroConverter",
    ),
    ("worker.sync.timeout.ms", "3000"),
    ("worker.unsync.backoff.ms", "300000"),
];

fn dump_keys(v: Version, id: &Identity) -> Vec<String> {
    let delay = id.delay_ms.to_string();
    let mut keys: Vec<(&str, &str)> = DUMP_KEYS.to_vec();
    keys.push(("group.id", id.group));
    keys.push(("rest.advertised.host.name", id.host));
    if v >= Version::V2_3 {
        keys.push(("connect.protocol", id.proto.config_name()));
        keys.push(("scheduled.rebalance.max.delay.ms", delay.as_str()));
    }
    if v >= Version::V2_4 {
        keys.extend([
            ("inter.worker.key.generation.algorithm", "HmacSHA256"),
            ("inter.worker.key.size", "null"),
            ("inter.worker.key.ttl.ms", "3600000"),
            ("inter.worker.signature.algorithm", "HmacSHA256"),
            ("inter.worker.verification.algorithms", "[HmacSHA256]"),
        ]);
    }
    if v >= Version::V2_8 {
        keys.push(("topic.creation.enable", "true"));
        keys.push(("socket.connection.setup.timeout.ms", "10000"));
    }
    keys.sort_unstable();
    keys.into_iter()
        .map(|(k, val)| format!("\t{k} = {val}"))
        .collect()
}

impl Say<'_> {
    /// Start-up, up to `Kafka Connect started`; the worker then joins the group.
    pub fn startup(&mut self, id: &Identity) {
        let v = self.em.v;
        {
            let em = &mut *self.em;
            em.clock.set_at_least(self.lnow);
            em.noise.plugins(&mut em.logs[self.w], &mut em.clock);
        }
        let keys = dump_keys(v, id);
        {
            let em = &mut *self.em;
            em.clock.advance(3);
            let log = &mut em.logs[self.w];
            log.head(&mut em.clock, Lvl::Info, Mdc::None, Th::Main);
            log.s("DistributedConfig values: ");
            log.newline();
            for k in &keys {
                log.cont(k);
            }
            log.end_multi(
                "org.apache.kafka.connect.runtime.distributed.DistributedConfig",
                v.line(Site::Dump),
            );
        }
        self.line(Ln::KafkaVersion, &[Arg::Str("build", v.kafka_build())]);
        self.line(Ln::KafkaCommitId, &[Arg::Str("commit", v.commit_id())]);
        let cluster = self.em.cluster_id.clone();
        let cluster_id = [Arg::Str("cluster-id", &cluster)];
        // ConnectUtils up to 3.3, WorkerConfig from 3.4.0: both read.
        self.line(Ln::ClusterId, &cluster_id);
        // RestServer logs its advertised URL each time it is asked for it:
        // once before it listens, then as the herder and the REST resources
        // are set up (2.3.1, 2.4.1, 3.6.2 and 3.9.1 alike).
        let host = [Arg::Str("host", id.host)];
        self.line(Ln::AdvertisedUri, &host);
        self.line(
            Ln::RestListening,
            &[
                Arg::Num("ip", 11 + id.index as i64),
                Arg::Str("host", id.host),
            ],
        );
        // (3.9.1 and 4.4.0 as 3.6.2.)
        let again = if v >= Version::V3_6 {
            3
        } else if v >= Version::V2_4 {
            2
        } else {
            1
        };
        for _ in 0..again {
            self.line(Ln::AdvertisedUri, &host);
        }
        // 2.8 to 3.3 look the cluster id up again for each backing store's
        // admin client (2.8.2: six more times; 3.1.0, 3.2.3 alike).
        if matches!(v, Version::V2_8 | Version::V3_0) {
            for _ in 0..6 {
                self.line(Ln::ClusterId, &cluster_id);
            }
        }
        self.line(Ln::ConnectStarting, &[]);
        self.line(Ln::HerderStarting, &[]);
        self.line(Ln::WorkerStarting, &[]);
        self.line(Ln::WorkerStarted, &[]);
        // The main thread's `Kafka Connect started` races the herder thread,
        // which reads the config topic and then logs `Herder started`. Both
        // orders are real (2.3.0, 2.3.1, 2.4.1 and 3.8.0 captures show
        // each); the simulator prints the one its release's captures show:
        // the main thread first in 2.4.1, 2.5.1 and 3.6.2, the herder first
        // in 2.3.x, 2.8.2, 3.1.0 and 3.2.3.
        // From 3.9 the herder logs `Herder started` after its first
        // assignment line (the model prints it there), and the main thread
        // is done before: `Kafka Connect started` follows the config store
        // and the coordinator's discovery (4.4.0 captures).
        let main_first = matches!(v, Version::V2_4 | Version::V3_6);
        let herder_later = v.herder_started_after_join();
        if main_first {
            self.connect_started();
        }
        self.line(Ln::ConfigStoreStarting, &[]);
        self.line(Ln::ConfigLogRead, &[]);
        self.line(Ln::ConfigStoreStarted, &[]);
        if !herder_later {
            self.line(Ln::HerderStarted, &[]);
        }
        self.line(Ln::Discovered, &[]);
        if !main_first {
            self.connect_started();
        }
    }

    /// The herder thread's `Herder started` once its first assignment is
    /// in (3.9+).
    pub fn herder_started(&mut self) {
        self.line(Ln::HerderStarted, &[]);
    }

    fn connect_started(&mut self) {
        self.line(Ln::RestResources, &[]);
        self.line(Ln::ConnectStarted, &[]);
    }
}
