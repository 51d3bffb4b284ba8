# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-8869-failed]=1
# KAFKA-8869 with failed starts: a sink connector whose tasks fail to start
# (its file lies in a directory that does not exist), deleted and created
# again under its name with a file that can be written. On 2.4.1 the
# re-created connector's tasks start from the deleted connector's configs
# (the missing directory: they fail again) before its new configs arrive;
# what then restarts them, and what each start prints, is what this run shows.
sc_kafka_8869_failed() {
    start_cluster
    rest PUT /connectors/c/config "$(sink_config "$data/missing/c.txt" "$tag-c" 2)"
    settle 10
    rest DELETE /connectors/c
    settle 5
    rest PUT /connectors/c/config "$(sink_config "$data/c2.txt" "$tag-c" 3)"
    wait_running c 3 60 || true
    settle 5
}
