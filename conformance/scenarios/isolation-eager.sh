# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
own_counting[isolation-eager]=1
# `isolation` with connect.protocol=eager on every worker: each rebalance
# revokes every connector and task of every member first.
sc_isolation_eager() {
    printf 'connect.protocol=eager\n' > "$run/config/eager.properties"
    EXTRA_WORKER_PROPS="$run/config/eager.properties"
    sc_isolation
}
