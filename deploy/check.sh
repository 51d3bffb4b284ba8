#!/usr/bin/env bash
# Checks what users deploy (run by .ci/run): the alert rules with
# promtool's unit tests, the Kubernetes manifests against the Kubernetes
# schemas (PyPI's kubernetes-validate, offline: it ships them, in a venv
# under target/). tests/watch_deploy.rs checks the rest (dashboard, container
# file, posture) with `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v promtool >/dev/null || { echo "deploy/check.sh: promtool is missing (Debian: prometheus)" >&2; exit 1; }
(cd deploy/prometheus && promtool check rules herder-audit.rules.yml && promtool test rules herder-audit.rules.test.yml)

venv=target/k8s-venv
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet kubernetes-validate
fi
# Strict: an unknown field fails. The custom resources (Strimzi's
# KafkaConnect, the Prometheus Operator's PodMonitor) have no schema
# there; tests/watch_deploy.rs reads them.
"$venv/bin/kubernetes-validate" --strict --quiet deploy/kubernetes/node-agent.yaml deploy/kubernetes/strimzi-example.yaml
echo "deploy/check.sh: rules (promtool) and manifests (kubernetes-validate) pass"
