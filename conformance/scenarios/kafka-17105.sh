# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-17105]=2
# KAFKA-17105 (3.8.0): a follower that learns of a new connector only after
# the leader has already assigned it starts it in that rebalance, then
# bounces it as a config update in the same tick; 3.9 starts it once. The
# follower is held (SIGSTOP, 1 s: far below its session timeout) while the
# connector is created on the leader, so that on SIGCONT the rebalance and the
# config record reach it together.
sc_kafka_17105() {
    start_cluster
    rest PUT /connectors/first/config "$(sink_config "$data/f.txt" "$tag-f" 1)"
    wait_running first 1
    settle 3
    local i
    for i in 1 2 3 4; do
        log "worker w2: SIGSTOP (1 s)"; kill -STOP "$(cat "$run/w2.pid")"
        rest PUT "/connectors/new$i/config" "$(sink_config "$data/n$i.txt" "$tag-n$i" 1)"
        sleep 1
        log "worker w2: SIGCONT"; kill -CONT "$(cat "$run/w2.pid")"
        wait_running "new$i" 1
        settle 2
    done
    settle 3
}
