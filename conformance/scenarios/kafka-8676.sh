# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-8676]=1
own_counting[kafka-8676]=1
# KAFKA-8676 (2.3.0): a config update of one connector bounces the tasks of
# every connector under the cooperative protocol; 2.3.1 restarts only its own.
# Both are counting sources: b's interruption shows in its records as well.
sc_kafka_8676() {
    start_cluster
    rest PUT /connectors/a/config "$(counting_config 2)"
    rest PUT /connectors/b/config "$(counting_config 2)"
    wait_running a 2; wait_running b 2
    settle 5
    rest PUT /connectors/a/config "$(counting_config 2 '"revision":"2"')"
    settle 5
    wait_running a 2; wait_running b 2
    settle 3
}
