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

fn dump_keys(v: Version, id: &Identity) -> Vec<String> {
    let host = id.host.to_string();
    let mut keys: Vec<(String, String)> = vec![
        ("access.control.allow.methods".into(), String::new()),
        ("access.control.allow.origin".into(), String::new()),
        (
            "bootstrap.servers".into(),
            "[broker-1:9092, broker-2:9092, broker-3:9092]".into(),
        ),
        ("client.dns.lookup".into(), "use_all_dns_ips".into()),
        ("client.id".into(), String::new()),
        ("config.providers".into(), "[]".into()),
        ("config.storage.replication.factor".into(), "3".into()),
        ("config.storage.topic".into(), "connect-configs".into()),
        ("connections.max.idle.ms".into(), "540000".into()),
        ("group.id".into(), id.group.to_string()),
        (
            "header.converter".into(),
            "class org.apache.kafka.connect.storage.SimpleHeaderConverter".into(),
        ),
        ("heartbeat.interval.ms".into(), "3000".into()),
        (
            "key.converter".into(),
            "class org.apache.kafka.connect.json.JsonConverter".into(),
        ),
        ("listeners".into(), "[http://0.0.0.0:8083]".into()),
        ("metadata.max.age.ms".into(), "300000".into()),
        ("metric.reporters".into(), "[]".into()),
        ("metrics.num.samples".into(), "2".into()),
        ("metrics.recording.level".into(), "INFO".into()),
        ("metrics.sample.window.ms".into(), "30000".into()),
        ("offset.flush.interval.ms".into(), "60000".into()),
        ("offset.flush.timeout.ms".into(), "5000".into()),
        ("offset.storage.partitions".into(), "25".into()),
        ("offset.storage.replication.factor".into(), "3".into()),
        ("offset.storage.topic".into(), "connect-offsets".into()),
        (
            "plugin.path".into(),
            "[/usr/share/java, /usr/share/confluent-hub-components]".into(),
        ),
        ("rebalance.timeout.ms".into(), "60000".into()),
        ("receive.buffer.bytes".into(), "32768".into()),
        ("reconnect.backoff.max.ms".into(), "1000".into()),
        ("reconnect.backoff.ms".into(), "50".into()),
        ("request.timeout.ms".into(), "40000".into()),
        ("rest.advertised.host.name".into(), host),
        ("rest.advertised.listener".into(), "null".into()),
        ("rest.advertised.port".into(), "8083".into()),
        ("rest.extension.classes".into(), "[]".into()),
        ("rest.host.name".into(), "null".into()),
        ("rest.port".into(), "8083".into()),
        ("retry.backoff.ms".into(), "100".into()),
        ("sasl.jaas.config".into(), "null".into()),
        ("sasl.mechanism".into(), "GSSAPI".into()),
        ("security.protocol".into(), "PLAINTEXT".into()),
        ("send.buffer.bytes".into(), "131072".into()),
        ("session.timeout.ms".into(), "10000".into()),
        ("ssl.client.auth".into(), "none".into()),
        ("ssl.enabled.protocols".into(), "[TLSv1.2]".into()),
        ("ssl.keystore.type".into(), "JKS".into()),
        ("ssl.protocol".into(), "TLSv1.2".into()),
        ("ssl.truststore.type".into(), "JKS".into()),
        ("status.storage.partitions".into(), "5".into()),
        ("status.storage.replication.factor".into(), "3".into()),
        ("status.storage.topic".into(), "connect-status".into()),
        ("task.shutdown.graceful.timeout.ms".into(), "5000".into()),
        (
            "value.converter".into(),
            "class io.confluent.connect.avro.AvroConverter".into(),
        ),
        ("worker.sync.timeout.ms".into(), "3000".into()),
        ("worker.unsync.backoff.ms".into(), "300000".into()),
    ];
    if v >= Version::V2_3 {
        keys.push((
            "connect.protocol".into(),
            id.proto.config_name().to_string(),
        ));
        keys.push((
            "scheduled.rebalance.max.delay.ms".into(),
            id.delay_ms.to_string(),
        ));
    }
    if v >= Version::V2_4 {
        keys.push((
            "inter.worker.key.generation.algorithm".into(),
            "HmacSHA256".into(),
        ));
        keys.push(("inter.worker.key.size".into(), "null".into()));
        keys.push(("inter.worker.key.ttl.ms".into(), "3600000".into()));
        keys.push((
            "inter.worker.signature.algorithm".into(),
            "HmacSHA256".into(),
        ));
        keys.push((
            "inter.worker.verification.algorithms".into(),
            "[HmacSHA256]".into(),
        ));
    }
    if v >= Version::V2_8 {
        keys.push(("topic.creation.enable".into(), "true".into()));
        keys.push(("socket.connection.setup.timeout.ms".into(), "10000".into()));
    }
    keys.sort();
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
