//! What users deploy with `herder-audit watch` (deploy/) holds together with
//! what the watcher exports: every series the Grafana dashboard, the alert
//! rules and docs/watch.md name is exported, and docs/watch.md lists every
//! exported series; the container file's final stage holds only the static
//! binary; the Kubernetes manifests keep the safe posture. (The rules are
//! unit-tested with promtool and the manifests validated against the
//! Kubernetes schemas by deploy/check.sh, which .ci/run runs.)

use herder_audit::testing::Metrics;
use std::collections::BTreeSet;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// Every `herder_audit_…` name in a text.
fn names_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("herder_audit_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        out.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

#[test]
fn the_dashboard_queries_exported_series_only() {
    let exported = Metrics::series_names();
    let dash: serde_json::Value =
        serde_json::from_str(&read("deploy/grafana/herder-audit-dashboard.json")).unwrap();
    let panels = dash["panels"].as_array().unwrap();
    assert!(panels.len() >= 6);
    let mut named = BTreeSet::new();
    for p in panels {
        let targets = p["targets"].as_array().unwrap();
        assert!(
            !targets.is_empty(),
            "panel {} queries something",
            p["title"]
        );
        for t in targets {
            let expr = t["expr"].as_str().unwrap();
            let in_expr = names_in(expr);
            assert!(!in_expr.is_empty(), "{expr}");
            named.extend(in_expr);
        }
    }
    for t in dash["templating"]["list"].as_array().unwrap() {
        if let Some(q) = t["definition"].as_str() {
            named.extend(names_in(q));
        }
    }
    let unknown: Vec<_> = named.difference(&exported).collect();
    assert!(unknown.is_empty(), "not exported: {unknown:?}");
    // Findings, generations and the per-worker running set are shown.
    for must in [
        "herder_audit_findings_total",
        "herder_audit_generation",
        "herder_audit_running",
    ] {
        assert!(named.contains(must), "{must}");
    }
}

#[test]
fn the_rules_name_exported_series_only() {
    let exported = Metrics::series_names();
    let rules = names_in(&read("deploy/prometheus/herder-audit.rules.yml"));
    assert!(rules.len() >= 4);
    let unknown: Vec<_> = rules.difference(&exported).collect();
    assert!(unknown.is_empty(), "not exported: {unknown:?}");
}

#[test]
fn the_documentation_lists_every_series() {
    let exported = Metrics::series_names();
    let doc = read("docs/watch.md");
    let named = names_in(&doc);
    let missing: Vec<_> = exported.difference(&named).collect();
    assert!(
        missing.is_empty(),
        "docs/watch.md does not list {missing:?}"
    );
    let unknown: Vec<_> = named.difference(&exported).collect();
    assert!(unknown.is_empty(), "docs/watch.md names {unknown:?}");
}

#[test]
fn the_container_holds_only_the_static_binary() {
    let file = read("deploy/Containerfile");
    let lines: Vec<&str> = file
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let last_from = lines.iter().rposition(|l| l.starts_with("FROM ")).unwrap();
    assert_eq!(lines[last_from], "FROM scratch");
    let stage = &lines[last_from + 1..];
    let copies: Vec<_> = stage.iter().filter(|l| l.starts_with("COPY")).collect();
    assert_eq!(copies.len(), 1, "one file: {copies:?}");
    assert!(copies[0].ends_with("/herder-audit /herder-audit"));
    assert!(
        !stage.iter().any(|l| l.starts_with("RUN")),
        "nothing runs in the image"
    );
    let user = stage.iter().find_map(|l| l.strip_prefix("USER ")).unwrap();
    let uid: u32 = user.split(':').next().unwrap().parse().unwrap();
    assert!(uid != 0);
    let exposed: Vec<_> = stage.iter().filter(|l| l.starts_with("EXPOSE")).collect();
    assert_eq!(exposed, [&"EXPOSE 9464"]);
    assert!(
        stage
            .iter()
            .any(|l| l.starts_with("ENTRYPOINT [\"/herder-audit\"]"))
    );
    // The build stage links statically (musl).
    assert!(lines[..last_from].iter().any(|l| l.contains("alpine")));
}

#[test]
fn the_manifests_keep_the_safe_posture() {
    let m = read("deploy/kubernetes/node-agent.yaml");
    for must in [
        "readOnlyRootFilesystem: true",
        "allowPrivilegeEscalation: false",
        "privileged: false",
        "runAsNonRoot: true",
        "drop: [\"ALL\"]",
        "automountServiceAccountToken: false",
        "seccompProfile:",
    ] {
        assert!(m.contains(must), "{must}");
    }
    // The node's logs are mounted read-only.
    let mount = m.split("- name: pods\n").nth(1).unwrap();
    assert!(mount.trim_start().starts_with("mountPath: /var/log/pods"));
    assert!(mount.lines().nth(1).unwrap().contains("readOnly: true"));
    // One port: the metrics port; the network policy opens no other and
    // allows no egress.
    assert_eq!(m.matches("containerPort:").count(), 1);
    assert!(m.contains("containerPort: 9464"));
    assert!(m.contains("egress: []"));
    assert!(!m.contains("hostNetwork") && !m.contains("hostPort"));
    // The listen flag given is the metrics port.
    assert!(m.contains("- 0.0.0.0:9464"));
    let strimzi = read("deploy/kubernetes/strimzi-example.yaml");
    assert!(strimzi.contains("kind: KafkaConnect"));
    assert!(strimzi.contains("name: my-connect"));
    assert!(
        m.contains("kafka_my-connect-connect-"),
        "the agent reads that cluster's pods"
    );
}
