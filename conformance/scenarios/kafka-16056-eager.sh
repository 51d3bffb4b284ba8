# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[kafka-16056-eager]=2
own_counting[kafka-16056-eager]=1
# KAFKA-16056 under the eager protocol (connect.protocol=eager): the same
# blocked taskConfigs() as kafka-16056. An eager member revokes everything
# at the start of each rebalance it takes part in; a member that leaves on
# its poll timeout takes part in none: does its work run on while the other
# worker starts it (duplicates in the topic)?
sc_kafka_16056_eager() {
    printf 'connect.protocol=eager\n' > "$run/config/eager.properties"
    EXTRA_WORKER_PROPS="$run/config/eager.properties"
    sc_kafka_16056
}
