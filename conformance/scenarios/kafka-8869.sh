# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-8869]=1
# KAFKA-8869 (2.4.1): a connector deleted and created again under its name
# starts its tasks with the deleted connector's task configs; 2.5.1 waits.
sc_kafka_8869() {
    start_cluster
    rest PUT /connectors/c/config "$(sink_config "$data/c.txt" "$tag-c" 2)"
    wait_running c 2
    settle 5
    rest DELETE /connectors/c
    settle 5
    rest PUT /connectors/c/config "$(sink_config "$data/c2.txt" "$tag-c" 3)"
    wait_running c 3
    settle 5
}
