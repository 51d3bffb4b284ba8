# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
sc_freeze_worker() {
    start_pipeline 3
    settle 5
    # freeze the worker that runs the source task, past its session timeout
    # and the scheduled rebalance delay, while the others take its work
    local i
    i="$(task_owner src)"
    log "worker w$i (runs src-0): SIGSTOP"
    kill -STOP "$(cat "$run/w$i.pid")"; touch "$run/w$i.frozen"
    settle 30
    log "worker w$i: SIGCONT"
    kill -CONT "$(cat "$run/w$i.pid")"; rm -f "$run/w$i.frozen"
    settle 20
    wait_running src 1 || true
    rm -f "$run/feeding"
}
