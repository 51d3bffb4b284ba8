# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-13719]=2
own_counting[kafka-13719]=1
# KAFKA-13719 (3.0, 3.1.0): a KIP-745 restart plan (includeTasks) starts on
# the connector's worker tasks assigned to another worker; fixed in 3.1.1/3.2.
sc_kafka_13719() {
    [ "$workers" -ge 2 ] || { log "kafka-13719 needs two workers or more"; return 1; }
    start_cluster
    # a counting source: a task restarted on both workers shows as two
    # instances producing at once
    rest PUT /connectors/r/config "$(counting_config 4)"
    wait_running r 4
    settle 5
    rest POST "/connectors/r/restart?includeTasks=true&onlyFailed=false"
    settle 8
    wait_running r 4
    settle 3
}
