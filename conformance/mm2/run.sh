#!/usr/bin/env bash
# MirrorMaker 2 in dedicated mode, for real: two single-node KRaft clusters
# (A and B), one `org.apache.kafka.connect.mirror.MirrorMaker` JVM of the
# release under test replicating A->B and B->A (one DistributedHerder per
# flow, all in one log), logging with that release's shipped Connect
# logging config. Records are produced on both sides, the flows run, the
# JVM is optionally restarted, then stopped; its log files are copied as
# log4j wrote them, with a PROVENANCE.txt file.
#
#   conformance/mm2/run.sh --release 3.9.1 [--out DIR] [--restart] [--one-way]
#       [--port-base 29092] [--run-seconds 45] [--prefix r391]
#
# `--one-way`: only A->B replicates (B->A.enabled = false); MirrorMaker still
# runs a B->A herder for the heartbeats it emits into A, so the flows share
# one connector name (MirrorHeartbeatConnector) and not the others.
# Ports: broker A on PORT_BASE (controller +1), broker B on PORT_BASE+2
# (controller +3); all on 127.0.0.1. MirrorMaker opens no REST port.
# `--prefix` names the two cluster aliases (`<prefix>a`, `<prefix>b`), so
# the herders' groups (`<alias>-mm2`) are the capture's own.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$here/../lib.sh"
# shellcheck source=../topics.sh
source "$here/../topics.sh"

release="" out="" restart=0 one_way=0 port_base=29092 run_seconds=45 prefix=""
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --restart) restart=1; shift ;;
        --one-way) one_way=1; shift ;;
        --port-base) port_base="$2"; shift 2 ;;
        --run-seconds) run_seconds="$2"; shift 2 ;;
        --prefix) prefix="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "mm2/run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$release" ] || { echo "mm2/run.sh: --release R is required" >&2; exit 2; }
[ -n "$prefix" ] || prefix="r${release//./}"
out="${out:-$repo_dir/target/conformance/mm2/$release}"
alias_a="${prefix}a" alias_b="${prefix}b"
port_a="$port_base" port_b="$((port_base + 2))"

for p in "$port_a" "$((port_a + 1))" "$port_b" "$((port_b + 1))"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        echo "mm2/run.sh: 127.0.0.1:$p is in use; pick another --port-base" >&2
        exit 1
    fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/mm2-$release.XXXXXX")"
mm_pid_file="$work/mm2.pid"
cleanup() {
    stop_pid "$mm_pid_file"
    stop_pid "$work/A/broker.pid"
    stop_pid "$work/B/broker.pid"
}
trap cleanup EXIT INT TERM

worker_libs="$(fetch_jars "$release" worker mirror)"
broker_libs="$(fetch_jars "$broker_version" broker)"
tool_libs="$(fetch_jars "$broker_version" tools)"

# The release's own Connect logging config, as shipped in its config/ directory.
mkdir -p "$work/config" "$work/logs"
case "$release" in
    4.*)
        log_config="$work/config/connect-log4j2.yaml"
        cp "$here/config/4.x/connect-log4j2.yaml" "$log_config"
        log_opts=("-Dlog4j2.configurationFile=file:$log_config")
        ;;
    *)
        log_config="$work/config/connect-log4j.properties"
        cp "$here/config/3.x/connect-log4j.properties" "$log_config"
        log_opts=("-Dlog4j.configuration=file:$log_config")
        ;;
esac

echo "mm2: brokers on 127.0.0.1:$port_a ($alias_a) and 127.0.0.1:$port_b ($alias_b)" >&2
start_broker "$work/A" "$port_a"
start_broker "$work/B" "$port_b"

cat > "$work/config/mm2.properties" <<PROPS
clusters = $alias_a, $alias_b
$alias_a.bootstrap.servers = 127.0.0.1:$port_a
$alias_b.bootstrap.servers = 127.0.0.1:$port_b
$alias_a->$alias_b.enabled = true
$alias_a->$alias_b.topics = orders
$alias_b->$alias_a.enabled = $([ "$one_way" = 1 ] && echo false || echo true)
$alias_b->$alias_a.topics = orders
replication.factor = 1
checkpoints.topic.replication.factor = 1
heartbeats.topic.replication.factor = 1
offset-syncs.topic.replication.factor = 1
offset.storage.replication.factor = 1
status.storage.replication.factor = 1
config.storage.replication.factor = 1
tasks.max = 2
refresh.topics.interval.seconds = 5
refresh.groups.interval.seconds = 5
sync.topic.configs.interval.seconds = 10
emit.checkpoints.interval.seconds = 5
emit.heartbeats.interval.seconds = 2
scheduled.rebalance.max.delay.ms = 5000
PROPS

produce() { # BOOTSTRAP N
    seq -f "order-%g" "$2" | java -cp "$broker_libs/*" -Xmx256m \
        -Dlog4j.configuration=file:"$work/A/log4j.properties" \
        kafka.tools.ConsoleProducer --bootstrap-server "$1" --topic orders \
        >> "$work/produce.out" 2>&1
}
# The topic exists on both sides before the flows start.
produce "127.0.0.1:$port_a" 50
produce "127.0.0.1:$port_b" 50

start_mm2() {
    java -cp "$worker_libs/*" -Xms256m -Xmx768m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
        "-Dkafka.logs.dir=$work/logs" "${log_opts[@]}" \
        org.apache.kafka.connect.mirror.MirrorMaker "$work/config/mm2.properties" \
        >> "$work/mm2.stdout" 2>&1 &
    echo $! > "$mm_pid_file"
}

# wait_log PATTERN COUNT SECONDS: until the Connect log holds COUNT lines
# matching PATTERN.
wait_log() {
    local i n=0
    for ((i = 0; i < $3; i++)); do
        n="$(cat "$work"/logs/connect*.log 2>/dev/null | grep -c -- "$1" || true)"
        [ "$n" -ge "$2" ] && return 0
        kill -0 "$(cat "$mm_pid_file")" 2>/dev/null \
            || { echo "mm2: MirrorMaker exited (see $work/mm2.stdout)" >&2; return 1; }
        sleep 1
    done
    echo "mm2: only $n lines match '$1' after $3 s" >&2
    return 0
}

echo "mm2: starting MirrorMaker $release" >&2
start_mm2
# Both herders start their MirrorSourceConnector tasks (one-way: the one).
flows=$((2 - one_way))
wait_log "Starting task MirrorSourceConnector-0" "$flows" 180
produce "127.0.0.1:$port_a" 200
produce "127.0.0.1:$port_b" 200
sleep "$run_seconds"
if [ "$restart" = 1 ]; then
    echo "mm2: graceful restart" >&2
    stop_pid "$mm_pid_file"
    start_mm2
    wait_log "Starting task MirrorSourceConnector-0" "$((2 * flows))" 180
    produce "127.0.0.1:$port_a" 100
    produce "127.0.0.1:$port_b" 100
    sleep "$((run_seconds / 2))"
fi
echo "mm2: stopping MirrorMaker" >&2
stop_pid "$mm_pid_file"

# Ground truth: the records each side now holds in the replicated topics.
offsets() { # BOOTSTRAP
    java -cp "$broker_libs/*" -Xmx256m -Dlog4j.configuration=file:"$work/A/log4j.properties" \
        "$here/EndOffsets.java" "$1" 2>> "$work/produce.out"
}
offsets_a="$(offsets "127.0.0.1:$port_a")"
offsets_b="$(offsets "127.0.0.1:$port_b")"

mkdir -p "$out"
rm -rf "$out"/connect*.log* "$out/topics"
# each flow's internal topics live on its target cluster
dump_internal_topics "127.0.0.1:$port_a" "$out/topics" "$tool_libs" "$work/A/log4j.properties" "mm2-"{configs,status,offsets}".$alias_b.internal"
dump_internal_topics "127.0.0.1:$port_b" "$out/topics" "$tool_libs" "$work/A/log4j.properties" "mm2-"{configs,status,offsets}".$alias_a.internal"
cp -p "$work"/logs/connect*.log* "$out"/
{
    echo "release: $release (org.apache.kafka:connect-mirror, connect-runtime from the Maven repository)"
    echo "scenario: mm2-dedicated$([ "$one_way" = 1 ] && echo "-one-way (only $alias_a->$alias_b replicates; the $alias_b->$alias_a herder runs the heartbeats)")$([ "$restart" = 1 ] && echo ", one graceful JVM restart")"
    echo "harness: conformance/mm2/run.sh --release $release$([ "$restart" = 1 ] && echo " --restart")$([ "$one_way" = 1 ] && echo " --one-way") --prefix $prefix"
    echo "captured: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "java: $(java -version 2>&1 | head -1)"
    echo "brokers: Kafka $broker_version KRaft, $alias_a on 127.0.0.1:$port_a, $alias_b on 127.0.0.1:$port_b"
    echo "main class: org.apache.kafka.connect.mirror.MirrorMaker (one JVM, one DistributedHerder per flow)"
    echo "logging: $(basename "$log_config"), $(cd "$worker_libs" && ls | grep -E '^(slf4j-|log4j-|reload4j)' | tr '\n' ' ')"
    echo "files: $(cd "$out" && ls connect*.log* | tr '\n' ' ') (copied as written, unedited)"
    echo
    echo "--- mm2.properties"
    cat "$work/config/mm2.properties"
    echo
    echo "--- end offsets on $alias_a (topic:partition:offset)"
    echo "$offsets_a"
    echo
    echo "--- end offsets on $alias_b (topic:partition:offset)"
    echo "$offsets_b"
} > "$out/PROVENANCE.txt"
echo "mm2: logs in $out" >&2
rm -rf "$work"
