# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
# Clock skew: w2's clock 3 s behind, w3's 5 s ahead (libfaketime, from
# Debian's faketime: LD_PRELOAD with FAKETIME=-3s / +5s; the monotonic
# clock left alone, so timeouts run true), then kill-worker's faults on
# the skewed workers: w3 killed and started again, then w2. Each log's
# timestamps are its own worker's clock. Needs libfaketime (FAKETIME_LIB).
sc_clock_skew() {
    local lib="${FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1}"
    [ -f "$lib" ] || { log "clock-skew needs libfaketime ($lib; apt-get install faketime)"; return 1; }
    [ "$workers" -ge 3 ] || { log "clock-skew needs three workers or more"; return 1; }
    worker_env[2]="LD_PRELOAD=$lib FAKETIME=-3s FAKETIME_DONT_FAKE_MONOTONIC=1"
    worker_env[3]="LD_PRELOAD=$lib FAKETIME=+5s FAKETIME_DONT_FAKE_MONOTONIC=1"
    log "w2's clock 3 s behind, w3's 5 s ahead"
    start_pipeline 4
    settle 5
    kill_worker 3
    settle 25
    wait_running src 1; wait_running sink 4
    start_worker 3; wait_worker 3
    settle 15
    kill_worker 2
    settle 25
    wait_running src 1; wait_running sink 4
    start_worker 2; wait_worker 2
    settle 15
    wait_running src 1; wait_running sink 4
    rm -f "$run/feeding"
}
