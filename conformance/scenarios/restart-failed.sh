# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
own_counting[restart-failed]=1
# KIP-745's restarts (3.0+) of FAILED tasks: our test connector's tasks fail
# on start while a marker file exists (fail.if.exists). Restarts while the
# cause is there (the tasks fail again), then the cause removed: one task
# restarted alone, the rest by onlyFailed=true, then all of them by
# onlyFailed=false.
sc_restart_failed() {
    needs_release 3.0.0 || return 1
    start_cluster
    local marker="$data/fail-on-start"
    touch "$marker"
    rest PUT /connectors/flaky/config "$(counting_config 3 "\"fail.if.exists\":\"$marker\"")"
    wait_status flaky RUNNING "FAILED FAILED FAILED"
    settle 3
    rest POST "/connectors/flaky/restart?includeTasks=true&onlyFailed=true"
    settle 5; wait_status flaky RUNNING "FAILED FAILED FAILED"
    rest POST /connectors/flaky/tasks/1/restart || true
    settle 3; wait_status flaky RUNNING "FAILED FAILED FAILED"
    rm -f "$marker"
    log "marker removed: the tasks can start"
    rest POST /connectors/flaky/tasks/0/restart
    wait_status flaky RUNNING "RUNNING FAILED FAILED"
    settle 3
    rest POST "/connectors/flaky/restart?includeTasks=true&onlyFailed=true"
    wait_running flaky 3
    settle 5
    rest POST "/connectors/flaky/restart?includeTasks=true&onlyFailed=false"
    settle 3; wait_running flaky 3
    settle 5
}
