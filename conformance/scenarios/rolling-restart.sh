# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
sc_rolling_restart() {
    start_pipeline 3
    local i
    for ((i = 1; i <= workers; i++)); do
        stop_worker "$i"
        settle 3
        start_worker "$i"; wait_worker "$i"
        wait_running src 1; wait_running sink 3
    done
    # a worker added and removed
    local extra=$((workers + 1))
    start_worker "$extra"; wait_worker "$extra"; workers=$extra
    settle 10
    stop_worker "$extra"
    settle 15
    wait_running src 1; wait_running sink 3
    rm -f "$run/feeding"
}
