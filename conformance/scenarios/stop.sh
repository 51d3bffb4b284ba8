# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
# KIP-875's stop (3.5+): a stopped connector keeps its config but has no
# tasks (its task configs are written empty) and runs nowhere; resume makes
# it generate them again. Stop then resume, pause then stop then resume, and
# the source stopped and resumed (its task goes on from its committed offset:
# no record twice).
sc_stop() {
    needs_release 3.5.0 || return 1
    start_pipeline 3
    settle 5
    rest PUT /connectors/sink/stop; wait_status sink STOPPED ""
    settle 5
    rest PUT /connectors/sink/resume; wait_running sink 3
    settle 3
    rest PUT /connectors/sink/pause; wait_status sink PAUSED "PAUSED PAUSED PAUSED"
    settle 3
    rest PUT /connectors/sink/stop; wait_status sink STOPPED ""
    settle 3
    rest PUT /connectors/sink/resume; wait_running sink 3
    settle 3
    rest PUT /connectors/src/stop; wait_status src STOPPED ""
    settle 3
    rest PUT /connectors/src/resume; wait_running src 1
    settle 5
    rm -f "$run/feeding"
}
