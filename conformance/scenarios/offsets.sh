# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
# KIP-875's offset endpoints (3.6+), on stopped connectors: the source's
# offsets read and written back as they are (PATCH: no record twice), the
# sink's consumer offsets rewound to 0 (PATCH), then deleted (DELETE), each
# followed by a resume. The responses go to ground-truth/offsets-*.json.
sc_offsets() {
    needs_release 3.6.0 || return 1
    start_pipeline 2
    settle 8
    get_json /connectors/src/offsets offsets-src-running.json
    rest PUT /connectors/src/stop; wait_status src STOPPED ""
    settle 2
    get_json /connectors/src/offsets offsets-src-stopped.json
    rest PATCH /connectors/src/offsets "$(cat "$run/ground-truth/offsets-src-stopped.json")"
    rest PUT /connectors/src/resume; wait_running src 1
    settle 3
    rest PUT /connectors/sink/stop; wait_status sink STOPPED ""
    settle 2
    get_json /connectors/sink/offsets offsets-sink-stopped.json
    if [ -n "$test_connectors" ]; then
        # the counting source in the sink's place: its own offsets back
        rest PATCH /connectors/sink/offsets "$(cat "$run/ground-truth/offsets-sink-stopped.json")"
    else
        rest PATCH /connectors/sink/offsets "{\"offsets\":[{\"partition\":{\"kafka_topic\":\"$src_topic\",\"kafka_partition\":0},\"offset\":{\"kafka_offset\":0}}]}"
    fi
    get_json /connectors/sink/offsets offsets-sink-patched.json
    rest PUT /connectors/sink/resume; wait_running sink 2
    settle 3
    rest PUT /connectors/sink/stop; wait_status sink STOPPED ""
    settle 2
    rest DELETE /connectors/sink/offsets
    get_json /connectors/sink/offsets offsets-sink-deleted.json
    rest PUT /connectors/sink/resume; wait_running sink 2
    settle 5
    rm -f "$run/feeding"
}
