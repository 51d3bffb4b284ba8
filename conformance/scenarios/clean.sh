# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
sc_clean() {
    start_pipeline 3
    settle 5
    rest PUT /connectors/sink/config "$(sink_config "$data/out.txt" "$src_topic" 2)"
    wait_running sink 2
    rest PUT /connectors/sink/pause; settle 4
    rest PUT /connectors/sink/resume; wait_running sink 2
    rest POST /connectors/sink/tasks/0/restart; wait_running sink 2
    rest PUT /connectors/sink/config "$(sink_config "$data/out.txt" "$src_topic" 4)"
    wait_running sink 4
    rest DELETE /connectors/sink; settle 5
    rest PUT /connectors/sink/config "$(sink_config "$data/out2.txt" "$src_topic" 2)"
    wait_running sink 2
    settle 5
    rm -f "$run/feeding"
}
