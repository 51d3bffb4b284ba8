# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
sc_kill_worker() {
    start_pipeline 4
    settle 5
    kill_worker "$workers"
    # the session timeout, then scheduled.rebalance.max.delay.ms (cooperative)
    settle 25
    wait_running src 1; wait_running sink 4
    start_worker "$workers"; wait_worker "$workers"
    settle 15
    rm -f "$run/feeding"
}
