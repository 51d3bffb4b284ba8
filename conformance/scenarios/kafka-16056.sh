# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-16056]=2
own_counting[kafka-16056]=1
# KAFKA-16056: a connector whose taskConfigs() blocks the herder thread past
# rebalance.timeout.ms (our test connector, conformance/test-connector/):
# the worker leaves the group on its poll timeout without revoking, the
# leader hands its tasks to the others after the scheduled delay, and both
# instances of each moved task write records: duplicates in the topic.
sc_kafka_16056() {
    [ "$workers" -ge 2 ] || { log "kafka-16056 needs two workers or more"; return 1; }
    start_cluster
    local marker="$data/block-once"
    rest PUT /connectors/counter/config "$(counting_config "$workers")"
    wait_running counter "$workers"
    settle 8
    touch "$marker"
    # the update makes the owner restart the connector and ask it for task
    # configs: that call sleeps 40 s on the owner's herder thread
    rest PUT /connectors/counter/config "$(counting_config "$workers" "\"block.ms\":\"40000\",\"block.marker\":\"$marker\"")"
    settle 60
    wait_running counter "$workers" || true
    settle 5
}
