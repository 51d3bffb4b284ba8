# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[single]=2
own_counting[single]=1
# One connector only (2.3.0 bounces every connector's tasks on any change,
# KAFKA-8676, so a clean run of it has one): a counting source with 2 tasks
# over the workers, tasks.max up to 3, the last worker restarted gracefully.
sc_single() {
    start_cluster
    rest PUT /connectors/s/config "$(counting_config 2)"
    wait_running s 2
    settle 4
    rest PUT /connectors/s/config "$(counting_config 3)"
    wait_running s 3
    settle 4
    stop_worker "$workers"
    settle 4
    start_worker "$workers"; wait_worker "$workers"
    settle 12
    wait_running s 3
}
