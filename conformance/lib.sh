# shellcheck shell=bash
# Shared pieces of the real-cluster harness: Kafka jars from Maven Central
# (conformance/pom.xml, cached under target/kafka/) and a single-node KRaft
# broker on 127.0.0.1. Source this file; every function fails loudly.

conformance_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "$conformance_dir/.." && pwd)"
kafka_cache="${KAFKA_CACHE:-$repo_dir/target/kafka}"

# The broker release: recent, KRaft, and it still serves 2.x clients.
broker_version="${BROKER_VERSION:-3.9.1}"

# logging_profile VERSION: the Maven profile of the logging binding that
# release ships (2.x–3.1 get log4j 1.2 through connect-runtime itself).
logging_profile() {
    case "$1" in
        4.*) echo log4j2 ;;
        3.[2-9].*) echo reload4j ;;
        *) echo "" ;;
    esac
}

# has_connect_file VERSION: whether Maven Central serves connect-file of
# VERSION. It serves none for 4.2.2, 4.3.2 and 4.4.0 (their connect-runtime,
# connect-json and kafka_2.13 are there), and 4.3.1's does not load in a
# 4.4.0 worker (AppInfoParser moved): those runs get our own test connector
# instead.
has_connect_file() {
    case "$1" in
        4.2.2|4.3.2|4.4.0) return 1 ;;
        *) return 0 ;;
    esac
}

# fetch_jars VERSION ROLE [EXTRA_PROFILES]: copy the jars of ROLE (worker,
# broker) of release VERSION into $kafka_cache/VERSION/ROLE once; prints the
# directory.
fetch_jars() {
    local version="$1" role="$2" extra="${3:-}"
    local out="$kafka_cache/$version/$role${extra:+-${extra//,/-}}"
    if [ ! -f "$out/.complete" ]; then
        local profiles="$role"
        local binding
        binding="$(logging_profile "$version")"
        [ -n "$binding" ] && profiles="$profiles,$binding"
        [ "$role" = worker ] && has_connect_file "$version" && profiles="$profiles,file"
        [ -n "$extra" ] && profiles="$profiles,$extra"
        rm -rf "$out"
        mkdir -p "$out"
        mvn -q -B -f "$conformance_dir/pom.xml" -Dkafka.version="$version" -P"$profiles" \
            dependency:copy-dependencies -DoutputDirectory="$out" >&2 \
            || { echo "conformance: mvn could not fetch $role jars of Kafka $version" >&2; return 1; }
        touch "$out/.complete"
    fi
    echo "$out"
}

# wait_port PORT SECONDS: until something listens on 127.0.0.1:PORT.
wait_port() {
    local port="$1" secs="$2" i
    for ((i = 0; i < secs * 10; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "conformance: nothing listens on 127.0.0.1:$port after ${secs}s" >&2
    return 1
}

# start_broker DIR PORT: format and start a single-node KRaft broker with
# its data and logs under DIR, listening on 127.0.0.1:PORT (controller on
# PORT+1). Writes DIR/broker.pid.
start_broker() {
    local dir="$1" port="$2" libs
    libs="$(fetch_jars "$broker_version" broker)" || return 1
    mkdir -p "$dir/data" "$dir/logs"
    cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((port + 1))
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
    cat > "$dir/log4j.properties" <<PROPS
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$dir/logs/broker.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
    local java_opts=(-Xms256m -Xmx512m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true
        "-Dlog4j.configuration=file:$dir/log4j.properties")
    local uuid
    uuid="$(java -cp "$libs/*" "${java_opts[@]}" kafka.tools.StorageTool random-uuid)" || return 1
    java -cp "$libs/*" "${java_opts[@]}" kafka.tools.StorageTool format -t "$uuid" \
        -c "$dir/server.properties" > "$dir/logs/format.out" 2>&1 \
        || { echo "conformance: broker storage format failed (see $dir/logs/format.out)" >&2; return 1; }
    java -cp "$libs/*" "${java_opts[@]}" kafka.Kafka "$dir/server.properties" \
        > "$dir/logs/broker.out" 2>&1 &
    echo $! > "$dir/broker.pid"
    wait_port "$port" 120 || { tail -20 "$dir/logs/broker.out" >&2; return 1; }
}

# create_topic TOOL_LIBS BOOTSTRAP TOPIC [KEY=VALUE...]: a topic of one
# partition (replication factor 1) with those configs, unless it exists.
create_topic() {
    local libs="$1" bootstrap="$2" topic="$3" c args=()
    shift 3
    for c in "$@"; do args+=(--config "$c"); done
    java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$libs/*" org.apache.kafka.tools.TopicCommand \
        --bootstrap-server "$bootstrap" --create --if-not-exists --topic "$topic" --partitions 1 \
        --replication-factor 1 "${args[@]}"
}

# stop_pid FILE: SIGTERM the process in FILE, SIGKILL after 30 s.
stop_pid() {
    local f="$1" pid i
    [ -f "$f" ] || return 0
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
}
