# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
own_counting[isolation]=1
# Isolation (issue 26 §4): three counting-source connectors a, b, c with 2
# tasks each over three workers; a's config is updated three times, 15 s
# apart, while b and c run. The records of b's and c's tasks show what each
# update cost them: nothing under incremental cooperative rebalancing with
# KAFKA-8676's fix (2.3.1+), a bounce of every task on 2.3.0 (KAFKA-8676),
# a stop of everything at every rebalance under the eager protocol
# (isolation-eager).
sc_isolation() {
    start_cluster
    local c rev
    for c in a b c; do rest PUT "/connectors/$c/config" "$(counting_config 2)"; done
    for c in a b c; do wait_running "$c" 2; done
    settle 10
    for rev in 2 3 4; do
        log "isolation: a's config updated (revision $rev) while b and c run"
        rest PUT /connectors/a/config "$(counting_config 2 "\"revision\":\"$rev\"")"
        settle 15
    done
    for c in a b c; do wait_running "$c" 2 30 || true; done
}
