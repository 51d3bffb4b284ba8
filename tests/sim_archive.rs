//! An archive of several simulated clusters, every worker's log rotated by
//! size with the older segments gzipped, audited in one run over all its
//! files, must give exactly the union of the clusters' truths (same file,
//! line, kind and resource, as in `tests/sim_props.rs`): one fault in one
//! cluster, and nothing between the two clusters that share the group id
//! `connect-cluster` on different Kafka clusters (their connectors have the
//! same names, so any comparison of the two would report duplicates).

mod support;

use herder_audit::testing::sim::{
    self, Archive, ArchiveTruth, FaultKind, Layout, Params, Proto, Version,
};
use herder_audit::{Options, Report, audit, expand};
use std::collections::BTreeSet;
use std::path::Path;
use support::scratch;

/// A finding as compared: (file relative to the archive, line, kind, resource).
type Key = (String, u64, String, String);

fn audit_dir(dir: &Path) -> Report {
    let (inputs, errors) = expand(&[dir.to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    let opts = Options {
        jobs: Some(2),
        cross: true,
        ..Options::default()
    };
    let report = audit(&inputs, &opts);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    report
}

fn found(report: &Report, dir: &Path) -> BTreeSet<Key> {
    let prefix = format!("{}/", dir.display());
    report
        .findings()
        .map(|f| {
            let source = report.source_name(f.trigger.source);
            (
                source.strip_prefix(&prefix).unwrap_or(source).to_string(),
                f.trigger.line,
                f.kind.as_str().to_string(),
                f.resource
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |r| r.id()),
            )
        })
        .collect()
}

fn wanted(t: &ArchiveTruth) -> BTreeSet<Key> {
    t.expected
        .iter()
        .map(|e| {
            (
                e.file.clone(),
                e.line,
                e.kind.to_string(),
                e.resource.clone(),
            )
        })
        .collect()
}

fn archive(version: Version, proto: Proto, fault: FaultKind, in_cluster: usize) -> Archive {
    let mut p = Params::new(11, version, proto);
    p.workers = 3;
    p.connectors = 4;
    p.events = 40;
    p.noise = 0.4;
    p.fault = Some(fault);
    // Failed starts too, as in tests/sim_props.rs.
    p.fail_rate = 0.05;
    Archive {
        base: p,
        clusters: 4,
        rotate_bytes: Some(96 * 1024),
        gzip_rotated: true,
        fault_cluster: in_cluster,
    }
}

/// Writes and audits `a`; checks the archive's shape and the findings.
fn check(name: &str, a: &Archive) {
    let dir = scratch(name);
    let t = sim::write_archive(a, &dir).unwrap();
    // Shape: four clusters, three group ids, twins on two Kafka clusters.
    assert_eq!(t.clusters.len(), 4);
    let (east, west) = (&t.clusters[0], &t.clusters[1]);
    assert_eq!(east.group, "connect-cluster");
    assert_eq!(west.group, "connect-cluster");
    assert_ne!(east.kafka_cluster_id, west.kafka_cluster_id);
    let groups: BTreeSet<&str> = t.clusters.iter().map(|c| c.group.as_str()).collect();
    assert_eq!(groups.len(), 3, "{groups:?}");
    // Rotated segments, older ones gzipped; every file listed exists.
    assert!(t.files.iter().any(|f| f.gzip && f.file.ends_with(".gz")));
    for f in &t.files {
        assert!(dir.join(&f.file).is_file(), "{}", f.file);
        assert_eq!(f.gzip, f.file.ends_with(".gz"));
    }
    let fault = t.clusters[a.fault_cluster].fault.as_ref().unwrap();
    assert!(fault.injected, "{fault:?}");
    assert!(
        t.clusters
            .iter()
            .enumerate()
            .all(|(k, c)| (k == a.fault_cluster) == c.fault.is_some())
    );
    let want = wanted(&t);
    assert!(!want.is_empty());
    assert!(
        t.expected
            .iter()
            .all(|e| e.cluster.as_deref() == Some(t.clusters[a.fault_cluster].name.as_str())),
        "{:?}",
        t.expected
    );
    let report = audit_dir(&dir);
    let workers: usize = t.clusters.iter().map(|c| c.scenario.workers).sum();
    assert_eq!(report.workers.len(), workers);
    let got = found(&report, &dir);
    let missing: Vec<&Key> = want.difference(&got).collect();
    let extra: Vec<&Key> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{name}: missing {missing:?}\nextra {extra:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn archive_of_clusters_audits_as_the_union_of_their_truths() {
    // A cross-worker fault in one of the twins.
    check(
        "twin",
        &archive(
            Version::V3_0,
            Proto::Sessioned,
            FaultKind::RestartMovedTask,
            1,
        ),
    );
    // A single-worker fault in the other twin, eager.
    let mut a = archive(Version::V2_4, Proto::Eager, FaultKind::SkipStart, 0);
    a.base.layout = Layout::Strimzi;
    check("eager", &a);
    // 3.4+ logs the Kafka cluster id from WorkerConfig; a fault elsewhere.
    check(
        "other-group",
        &archive(
            Version::V3_6,
            Proto::Sessioned,
            FaultKind::SkipRevokedStop,
            2,
        ),
    );
}
