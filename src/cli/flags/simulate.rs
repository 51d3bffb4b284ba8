//! The flags of `herder-audit simulate`, and what they ask the simulator
//! for: its parameters ([`Params`]) and the archive to write ([`Archive`]).

use crate::sim::{self, ALL_FAULTS, Archive, FaultKind, Layout, Params, Proto, Version, version};
use clap::Args;
use std::path::PathBuf;

/// `herder-audit simulate`: flags.
#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    /// Workers in the group.
    #[arg(long, default_value_t = 3)]
    pub workers: usize,
    /// Connectors created once the cluster is up.
    #[arg(long, default_value_t = 4)]
    pub connectors: usize,
    /// Random events after that (connector, task, REST and worker events).
    #[arg(long, default_value_t = 40)]
    pub events: usize,
    /// Seed: the same flags and seed give the same logs, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Group protocol: eager, cooperative (the version's default cooperative
    /// protocol), compatible or sessioned. Default: cooperative, or eager for
    /// releases before 2.3.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Kafka version whose wording is printed: 2.0.1, 2.2.2, 2.3.1, 2.4.1,
    /// 2.8.2, 3.0.2, 3.6.2, 3.9.1 or 4.4.0 (also 2.0, 2.3, 3.6, 3.9, 4, …).
    #[arg(long, default_value = "3.6.2")]
    pub kafka_version: String,
    /// Log layout: apache (`[%d] %p %m (%c:%L)`), apache-mdc (with
    /// `%X{connector.context}`), debezium, strimzi. Default: the version's shipped layout.
    #[arg(long)]
    pub layout: Option<String>,
    /// Inject one fault: kafka-8676, restart-moved-task,
    /// offset-mismatch-start, skip-revoked-stop, skip-start, double-start,
    /// spurious-stop, poll-timeout-leave (3.x), stale-config-start (up to 2.4).
    #[arg(long)]
    pub fault: Option<String>,
    /// Arm the fault before this event (0-based); default: drawn from the seed.
    #[arg(long)]
    pub fault_at: Option<usize>,
    /// Noise: probability that another noise record follows any record
    /// (mean ratio/(1-ratio) noise records per lifecycle line).
    #[arg(long, default_value_t = 0.8)]
    pub noise: f64,
    /// Probability that a start of a connector or task fails (as Kafka logs
    /// it for the version: `Failed to start task …`, `Couldn't instantiate
    /// task …`, `Task '…' restart failed`, …); normal behaviour, no finding.
    #[arg(long, default_value_t = sim::DEFAULT_FAIL_RATE)]
    pub fail_rate: f64,
    /// Largest task count of a connector.
    #[arg(long, default_value_t = 4)]
    pub max_tasks: u16,
    /// scheduled.rebalance.max.delay.ms
    #[arg(long, default_value_t = 300_000)]
    pub rebalance_delay_ms: i64,
    /// Probability that a worker reads a batch of config records late.
    #[arg(long, default_value_t = 0.25)]
    pub lag: f64,
    /// The Connect group id (with --clusters: the group id the two twin
    /// clusters share).
    #[arg(long, default_value = "connect-cluster")]
    pub group: String,
    /// Clusters to simulate. With more than one, an archive
    /// (OUT/<cluster>/connect-N/connect.log…): two clusters sharing the
    /// group id on different Kafka clusters, then other group ids.
    #[arg(long, default_value_t = 1)]
    pub clusters: usize,
    /// Rotate each worker's log once a segment holds this many bytes (as
    /// log4j's RollingFileAppender: connect.log, connect.log.1 the newest
    /// rotated segment, …). Suffixes K, M, G (KB, MB, GB: powers of 1024).
    #[arg(long, value_parser = parse_size)]
    pub rotate_bytes: Option<u64>,
    /// Write rotated segments gzipped (connect.log.N.gz); needs --rotate-bytes.
    #[arg(long)]
    pub gzip_rotated: bool,
    /// The cluster (0-based, in truth.json's order) the fault is injected into.
    #[arg(long, default_value_t = 0)]
    pub fault_cluster: usize,
    /// Output directory (created): the logs and `truth.json`.
    #[arg(long)]
    pub out: PathBuf,
}

/// `10485760`, `10M`, `10MB`, `512K`, `1G`.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    let digits = upper.trim_end_matches('B');
    let (num, mult) = match digits.chars().last() {
        Some('K') => (&digits[..digits.len() - 1], 1u64 << 10),
        Some('M') => (&digits[..digits.len() - 1], 1 << 20),
        Some('G') => (&digits[..digits.len() - 1], 1 << 30),
        _ if upper.len() == t.len() && digits.len() == t.len() => (digits, 1),
        _ => return Err(format!("not a size: {s}")),
    };
    num.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("not a size: {s} (e.g. 10485760, 10M, 512K)"))
}

impl SimArgs {
    /// Flags → parameters.
    pub fn params(&self) -> Result<Params, String> {
        let version = Version::parse(&self.kafka_version).ok_or_else(|| {
            format!(
                "unknown --kafka-version {}; one of: {}",
                self.kafka_version,
                version::ALL.map(Version::name).join(", ")
            )
        })?;
        let wanted = self.protocol.as_deref().unwrap_or(if version.eager_only() {
            "eager"
        } else {
            "cooperative"
        });
        let protocol = match wanted {
            "eager" => Proto::Eager,
            "compatible" => Proto::Compatible,
            "sessioned" => Proto::Sessioned,
            "cooperative" if version.eager_only() => {
                return Err(format!(
                    "Kafka {} has only the eager protocol",
                    version.name()
                ));
            }
            "cooperative" if version.default_cooperative() == "sessioned" => Proto::Sessioned,
            "cooperative" => Proto::Compatible,
            other => {
                return Err(format!(
                    "unknown --protocol {other}; one of: eager, cooperative, compatible, sessioned"
                ));
            }
        };
        let mut p = Params::new(self.seed, version, protocol);
        if let Some(l) = &self.layout {
            p.layout = Layout::parse(l).ok_or_else(|| {
                format!("unknown --layout {l}; one of: apache, apache-mdc, debezium, strimzi")
            })?;
        }
        if let Some(f) = &self.fault {
            let names: Vec<&str> = ALL_FAULTS.iter().map(|f| f.name()).collect();
            p.fault = Some(
                FaultKind::parse(f)
                    .ok_or_else(|| format!("unknown --fault {f}; one of: {}", names.join(", ")))?,
            );
        }
        p.workers = self.workers;
        p.connectors = self.connectors;
        p.events = self.events;
        p.fault_at = self.fault_at;
        p.noise = self.noise;
        p.fail_rate = self.fail_rate;
        p.max_tasks = self.max_tasks;
        p.delay_ms = self.rebalance_delay_ms;
        p.lag = self.lag.clamp(0.0, 1.0);
        p.group = self.group.clone();
        p.validate()?;
        Ok(p)
    }

    /// Flags → what to write.
    pub fn archive(&self) -> Result<Archive, String> {
        let a = Archive {
            base: self.params()?,
            clusters: self.clusters,
            rotate_bytes: self.rotate_bytes,
            gzip_rotated: self.gzip_rotated,
            fault_cluster: self.fault_cluster,
        };
        a.validate()?;
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("10M"), Ok(10 << 20));
        assert_eq!(parse_size("10MB"), Ok(10 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        for bad in ["", "0", "M", "10X", "-1", "1.5M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
