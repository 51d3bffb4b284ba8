//! Plain data of the simulated cluster: resources, assignments, target
//! states, config-topic records, why a start or stop happens, and the
//! catalogue of connector types (class names, versions, chatter). The
//! model, the emitter and the oracle all speak it; it imports nothing.

/// A connector (by index into the cluster's connector table) or one of its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Res {
    Conn(u16),
    Task(u16, u16),
}

impl Res {
    pub fn conn(self) -> u16 {
        match self {
            Res::Conn(c) | Res::Task(c, _) => c,
        }
    }
    pub fn is_task(self) -> bool {
        matches!(self, Res::Task(..))
    }
}

/// The group protocol the cluster runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Proto {
    Eager,
    Compatible,
    Sessioned,
}

impl Proto {
    pub fn cooperative(self) -> bool {
        !matches!(self, Proto::Eager)
    }
    /// `connect.protocol` value.
    pub fn config_name(self) -> &'static str {
        match self {
            Proto::Eager => "eager",
            Proto::Compatible => "compatible",
            Proto::Sessioned => "sessioned",
        }
    }
    /// Name in `Generation{… protocol='…'}`.
    pub fn generation_name(self) -> &'static str {
        match self {
            Proto::Eager => "default",
            Proto::Compatible => "compatible",
            Proto::Sessioned => "sessioned",
        }
    }
    pub fn version(self) -> i64 {
        match self {
            Proto::Eager => 0,
            Proto::Compatible => 1,
            Proto::Sessioned => 2,
        }
    }
}

/// What a leader sent one member.
#[derive(Debug, Clone, Default)]
pub struct Assign {
    pub error: i32,
    pub leader: String,
    pub leader_url: String,
    pub offset: i64,
    /// Assigned connectors and tasks, in wire order.
    pub conns: Vec<u16>,
    pub tasks: Vec<(u16, u16)>,
    pub rconns: Vec<u16>,
    pub rtasks: Vec<(u16, u16)>,
    pub delay: i64,
}

impl Assign {
    pub fn holds(&self, r: Res) -> bool {
        match r {
            Res::Conn(c) => self.conns.contains(&c),
            Res::Task(c, i) => self.tasks.contains(&(c, i)),
        }
    }
    pub fn revokes(&self, r: Res) -> bool {
        match r {
            Res::Conn(c) => self.rconns.contains(&c),
            Res::Task(c, i) => self.rtasks.contains(&(c, i)),
        }
    }
    pub fn resources(&self) -> Vec<Res> {
        self.conns
            .iter()
            .map(|&c| Res::Conn(c))
            .chain(self.tasks.iter().map(|&(c, i)| Res::Task(c, i)))
            .collect()
    }
    pub fn revoked(&self) -> Vec<Res> {
        self.rconns
            .iter()
            .map(|&c| Res::Conn(c))
            .chain(self.rtasks.iter().map(|&(c, i)| Res::Task(c, i)))
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Started,
    Paused,
    Stopped,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Started => "STARTED",
            Target::Paused => "PAUSED",
            Target::Stopped => "STOPPED",
        }
    }
}

/// A config-topic record.
#[derive(Debug, Clone)]
pub enum Rec {
    ConnConfig(u16),
    Tombstone(u16),
    TaskConfig,
    /// A task-config commit: the tasks the `Tasks [..] configs updated` line names.
    Commit(Vec<(u16, u16)>),
    Target(u16, Target),
    SessionKey,
    /// A KIP-745 restart request (`includeTasks=true`, `onlyFailed=false`).
    Restart(u16),
}

/// What a start or stop is for (the oracle judges with it; a failed
/// start prints per path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    StartPhase,
    /// A plain REST restart.
    Restart,
    /// A KIP-745 restart plan.
    RestartPlan,
    ConnectorConfig,
    Revoked,
    Eager,
    TaskConfig,
    Removed,
    Shutdown,
    SelfRevocation,
    Spurious,
}

/// A kind of connector, for class names and what its tasks talk about.
#[derive(Debug)]
pub struct ConnType {
    pub base_name: &'static str,
    pub class: &'static str,
    pub task_class: &'static str,
    pub plugin_version: &'static str,
    pub source: bool,
    /// Debezium MDC triple for the Debezium layout.
    pub dbz: Option<&'static str>,
    /// What its tasks log: (logger, line, message).
    pub chatter: &'static [(&'static str, u32, &'static str)],
    pub topic: &'static str,
}

pub const TYPES: &[ConnType] = &[
    ConnType {
        base_name: "jdbc-source-orders",
        class: "io.confluent.connect.jdbc.JdbcSourceConnector",
        task_class: "io.confluent.connect.jdbc.source.JdbcSourceTask",
        plugin_version: "10.7.4",
        source: true,
        dbz: None,
        chatter: &[
            (
                "io.confluent.connect.jdbc.source.TableQuerier",
                179,
                "Begin using SQL query: SELECT * FROM \"public\".\"orders\" WHERE \"public\".\"orders\".\"updated_at\" > ? AND \"public\".\"orders\".\"updated_at\" < ? ORDER BY \"public\".\"orders\".\"updated_at\" ASC",
            ),
            (
                "io.confluent.connect.jdbc.source.JdbcSourceTask",
                436,
                "No updates for TimestampIncrementingTableQuerier{table=\"public\".\"orders\", query='null', topicPrefix='pg-', incrementingColumn='id', timestampColumns=[updated_at]}",
            ),
        ],
        topic: "pg-orders",
    },
    ConnType {
        base_name: "mysql-inventory-cdc",
        class: "io.debezium.connector.mysql.MySqlConnector",
        task_class: "io.debezium.connector.mysql.MySqlConnectorTask",
        plugin_version: "2.4.2.Final",
        source: true,
        dbz: Some("mysql|inventory|binlog"),
        chatter: &[
            (
                "io.debezium.connector.common.BaseSourceTask",
                213,
                "2048 records sent during previous 00:01:00.004, last recorded offset of {server=inventory} partition is {transaction_id=null, ts_sec=1714640401, file=mysql-bin.000003, pos=197342, row=1, server_id=223344, event=2}",
            ),
            (
                "io.debezium.connector.mysql.MySqlStreamingChangeEventSource",
                1184,
                "Keepalive thread is running",
            ),
        ],
        topic: "inventory.customers",
    },
    ConnType {
        base_name: "s3-sink-events",
        class: "io.confluent.connect.s3.S3SinkConnector",
        task_class: "io.confluent.connect.s3.S3SinkTask",
        plugin_version: "10.5.7",
        source: false,
        dbz: None,
        chatter: &[
            (
                "io.confluent.connect.s3.TopicPartitionWriter",
                632,
                "Files committed to S3. Target commit offset for events-1 is 18342",
            ),
            (
                "io.confluent.connect.s3.format.avro.AvroRecordWriterProvider",
                81,
                "Opening record writer for: topics/events/partition=1/events+1+0000018000.avro",
            ),
        ],
        topic: "events",
    },
    ConnType {
        base_name: "es-sink-logs",
        class: "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
        task_class: "io.confluent.connect.elasticsearch.ElasticsearchSinkTask",
        plugin_version: "14.0.12",
        source: false,
        dbz: None,
        chatter: &[
            (
                "io.confluent.connect.elasticsearch.ElasticsearchClient",
                463,
                "Bulk request 1452 completed with 500 records in 38 ms",
            ),
            (
                "io.confluent.connect.elasticsearch.ElasticsearchSinkTask",
                127,
                "Putting 500 records to Elasticsearch.",
            ),
        ],
        topic: "app-logs",
    },
    ConnType {
        base_name: "hdfs-sink-clicks",
        class: "io.confluent.connect.hdfs.HdfsSinkConnector",
        task_class: "io.confluent.connect.hdfs.HdfsSinkTask",
        plugin_version: "10.2.5",
        source: false,
        dbz: None,
        chatter: &[(
            "io.confluent.connect.hdfs.TopicPartitionWriter",
            905,
            "Committed hdfs://namenode:8020/topics/clicks/partition=3/clicks+3+0000012000+0000012999.parquet for clicks-3",
        )],
        topic: "clicks",
    },
    ConnType {
        base_name: "mongo-source-users",
        class: "com.mongodb.kafka.connect.MongoSourceConnector",
        task_class: "com.mongodb.kafka.connect.source.MongoSourceTask",
        plugin_version: "1.11.0",
        source: true,
        dbz: None,
        chatter: &[(
            "com.mongodb.kafka.connect.source.StartedMongoSourceTask",
            372,
            "Watching for collection changes on 'app.users'",
        )],
        topic: "mongo.app.users",
    },
    ConnType {
        base_name: "http-sink-webhooks",
        class: "io.confluent.connect.http.HttpSinkConnector",
        task_class: "io.confluent.connect.http.HttpSinkTask",
        plugin_version: "1.7.3",
        source: false,
        dbz: None,
        chatter: &[(
            "io.confluent.connect.http.writer.HttpWriterImpl",
            142,
            "Submitting payload with 50 records to http://webhooks.internal:8080/ingest",
        )],
        topic: "webhook-events",
    },
    ConnType {
        base_name: "postgres-billing-cdc",
        class: "io.debezium.connector.postgresql.PostgresConnector",
        task_class: "io.debezium.connector.postgresql.PostgresConnectorTask",
        plugin_version: "2.4.2.Final",
        source: true,
        dbz: Some("postgres|billing|streaming"),
        chatter: &[(
            "io.debezium.connector.common.BaseSourceTask",
            213,
            "512 records sent during previous 00:00:59.998, last recorded offset of {server=billing} partition is {lsn_proc=24023128, lsn=24023128, txId=7411, ts_usec=1714640460123456}",
        )],
        topic: "billing.public.invoices",
    },
    ConnType {
        base_name: "file-source-audit",
        class: "org.apache.kafka.connect.file.FileStreamSourceConnector",
        task_class: "org.apache.kafka.connect.file.FileStreamSourceTask",
        plugin_version: "",
        source: true,
        dbz: None,
        chatter: &[(
            "org.apache.kafka.connect.file.FileStreamSourceTask",
            102,
            "Couldn't find file /var/log/audit/audit.log for FileStreamSourceTask, sleeping to wait for it to be created",
        )],
        topic: "audit",
    },
    ConnType {
        base_name: "bq-sink-analytics",
        class: "com.wepay.kafka.connect.bigquery.BigQuerySinkConnector",
        task_class: "com.wepay.kafka.connect.bigquery.BigQuerySinkTask",
        plugin_version: "2.5.0",
        source: false,
        dbz: None,
        chatter: &[(
            "com.wepay.kafka.connect.bigquery.write.batch.KCBQThreadPoolExecutor",
            67,
            "Batch loaded 500 rows",
        )],
        topic: "analytics",
    },
    ConnType {
        base_name: "mirror-source-dc2",
        class: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        task_class: "org.apache.kafka.connect.mirror.MirrorSourceTask",
        plugin_version: "",
        source: true,
        dbz: None,
        chatter: &[(
            "org.apache.kafka.connect.mirror.MirrorSourceTask",
            254,
            "Starting with 12 previously uncommitted partitions.",
        )],
        topic: "dc2.orders",
    },
    ConnType {
        base_name: "replicator-eu-us",
        class: "io.confluent.connect.replicator.ReplicatorSourceConnector",
        task_class: "io.confluent.connect.replicator.ReplicatorSourceTask",
        plugin_version: "7.5.1",
        source: true,
        dbz: None,
        chatter: &[(
            "io.confluent.connect.replicator.NewTopicMonitorThread",
            149,
            "Assigning topic partitions to 1 tasks...",
        )],
        topic: "sales_EUROPE",
    },
];

/// The `n`-th connector's name and type. Names never end in `-<digits>`, so
/// a task id (`<name>-<n>`) cannot be read as a connector name.
pub fn connector_name(n: usize) -> (String, usize) {
    let t = n % TYPES.len();
    let round = n / TYPES.len();
    let base = TYPES[t].base_name;
    let name = if round == 0 {
        base.to_string()
    } else {
        let mut suffix = String::new();
        let mut r = round;
        loop {
            suffix.insert(0, (b'a' + (r % 26) as u8) as char);
            r /= 26;
            if r == 0 {
                break;
            }
        }
        format!("{base}-{suffix}")
    };
    (name, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_never_end_in_digits() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..500 {
            let (name, _) = connector_name(n);
            assert!(
                !name
                    .rsplit('-')
                    .next()
                    .unwrap()
                    .chars()
                    .all(|c| c.is_ascii_digit())
            );
            assert!(seen.insert(name));
        }
    }
}
