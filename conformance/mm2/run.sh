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
#       [--nodes 2 --freeze 30]
#
# `--nodes N`: N MirrorMaker JVMs (nodes) with the same flows, each with the
# internal REST server of KIP-710 (`dedicated.mode.enable.internal.rest`,
# 3.5+; node I listens on 127.0.0.1:PORT_BASE+100+I) and its own log
# directory (captured as nI/). `--freeze S`: once every node runs, the last
# node is held by SIGSTOP for S seconds (past the herders' 10 s session
# timeout), then SIGCONT. With --freeze the run also writes, beside the whole
# logs, a copy that starts mid-life (OUT-since/): each node's log from the
# first record logged at or after 10 s before the freeze, as
# `kubectl logs --since-time` gives it (the lines are not changed; a record's
# continuation lines stay with it).
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

release="" out="" restart=0 one_way=0 port_base=29092 run_seconds=45 prefix="" nodes=1 freeze=0
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --restart) restart=1; shift ;;
        --one-way) one_way=1; shift ;;
        --port-base) port_base="$2"; shift 2 ;;
        --run-seconds) run_seconds="$2"; shift 2 ;;
        --prefix) prefix="$2"; shift 2 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --freeze) freeze="$2"; shift 2 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        *) echo "mm2/run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$release" ] || { echo "mm2/run.sh: --release R is required" >&2; exit 2; }
[ "$nodes" -ge 1 ] && [ "$nodes" -le 4 ] || { echo "mm2/run.sh: --nodes must be 1..4" >&2; exit 2; }
[ "$freeze" = 0 ] || [ "$nodes" -ge 2 ] || { echo "mm2/run.sh: --freeze needs --nodes 2 or more" >&2; exit 2; }
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
    local n
    for ((n = 1; n <= nodes; n++)); do
        [ -f "$work/mm2-n$n.pid" ] && kill -CONT "$(cat "$work/mm2-n$n.pid")" 2>/dev/null
        stop_pid "$work/mm2-n$n.pid"
    done
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

# mirror_maker LOG_DIR PROPERTIES OUT PID_FILE HEAP: one MirrorMaker JVM.
mirror_maker() {
    java -cp "$worker_libs/*" -Xms256m "-Xmx$5" -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
        "-Dkafka.logs.dir=$1" "${log_opts[@]}" \
        org.apache.kafka.connect.mirror.MirrorMaker "$2" >> "$3" 2>&1 &
    echo $! > "$4"
}

start_mm2() { mirror_maker "$work/logs" "$work/config/mm2.properties" "$work/mm2.stdout" "$mm_pid_file" 768m; }

# start_node I: node I of a multi-node dedicated cluster: the same flows,
# its own internal REST listener and log directory.
start_node() {
    local i="$1"
    mkdir -p "$work/logs/n$i"
    { cat "$work/config/mm2.properties"
      echo "dedicated.mode.enable.internal.rest = true"
      echo "listeners = http://127.0.0.1:$((port_base + 100 + i))"
    } > "$work/config/mm2-n$i.properties"
    mirror_maker "$work/logs/n$i" "$work/config/mm2-n$i.properties" "$work/mm2-n$i.stdout" "$work/mm2-n$i.pid" 512m
}

# since DIR T OUT: each log file of DIR from its first record at or after
# T (epoch seconds), as `kubectl logs --since-time` would give it.
since() {
    python3 - "$1" "$2" "$3" <<'PY'
import datetime, os, re, sys
src, t, dst = sys.argv[1], float(sys.argv[2]), sys.argv[3]
stamp = re.compile(r"^\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)[,.](\d{3})")
for root, _, files in os.walk(src):
    for name in files:
        if not name.startswith("connect"):
            continue
        out, keep = [], False
        for line in open(os.path.join(root, name), encoding="utf-8", errors="surrogateescape"):
            m = stamp.match(line)
            if m and not keep:
                at = datetime.datetime.strptime(m.group(1).replace("T", " "), "%Y-%m-%d %H:%M:%S").replace(
                    tzinfo=datetime.timezone.utc).timestamp() + int(m.group(2)) / 1000
                keep = at >= t
            if keep:
                out.append(line)
        d = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.writelines(out)
PY
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

flows=$((2 - one_way))
since_t=""
if [ "$nodes" -gt 1 ]; then
    echo "mm2: starting $nodes MirrorMaker $release nodes" >&2
    for ((n = 1; n <= nodes; n++)); do start_node "$n"; done
    # the first node's pid for wait_log's liveness check
    cp "$work/mm2-n1.pid" "$mm_pid_file"
    wait_log_nodes() { # PATTERN COUNT SECONDS over every node's log
        local i c=0
        for ((i = 0; i < $3; i++)); do
            c="$(cat "$work"/logs/n*/connect*.log 2>/dev/null | grep -c -- "$1" || true)"
            [ "$c" -ge "$2" ] && return 0
            sleep 1
        done
        echo "mm2: only $c lines match '$1' after $3 s" >&2
    }
    wait_log_nodes "Starting task MirrorSourceConnector-" "$((2 * flows))" 180
    produce "127.0.0.1:$port_a" 200
    produce "127.0.0.1:$port_b" 200
    sleep "$run_seconds"
    if [ "$freeze" != 0 ]; then
        since_t="$(( $(date +%s) - 10 ))"
        echo "mm2: node $nodes frozen (SIGSTOP) for $freeze s" >&2
        kill -STOP "$(cat "$work/mm2-n$nodes.pid")"
        produce "127.0.0.1:$port_a" 100
        produce "127.0.0.1:$port_b" 100
        sleep "$freeze"
        echo "mm2: node $nodes thawed (SIGCONT)" >&2
        kill -CONT "$(cat "$work/mm2-n$nodes.pid")"
        sleep "$run_seconds"
    fi
    echo "mm2: stopping the nodes" >&2
    for ((n = nodes; n >= 1; n--)); do stop_pid "$work/mm2-n$n.pid"; done
    rm -f "$mm_pid_file"
    restart=0
else
echo "mm2: starting MirrorMaker $release" >&2
start_mm2
# Both herders start their MirrorSourceConnector tasks (one-way: the one).
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
fi

# Ground truth: the records each side now holds in the replicated topics.
offsets() { # BOOTSTRAP
    java -cp "$broker_libs/*" -Xmx256m -Dlog4j.configuration=file:"$work/A/log4j.properties" \
        "$here/EndOffsets.java" "$1" 2>> "$work/produce.out"
}
offsets_a="$(offsets "127.0.0.1:$port_a")"
offsets_b="$(offsets "127.0.0.1:$port_b")"

mkdir -p "$out"
rm -rf "$out"/connect*.log* "$out"/n[0-9]* "$out/topics"
# each flow's internal topics live on its target cluster
dump_internal_topics "127.0.0.1:$port_a" "$out/topics" "$tool_libs" "$work/A/log4j.properties" "mm2-"{configs,status,offsets}".$alias_b.internal"
dump_internal_topics "127.0.0.1:$port_b" "$out/topics" "$tool_libs" "$work/A/log4j.properties" "mm2-"{configs,status,offsets}".$alias_a.internal"
if [ "$nodes" -gt 1 ]; then
    for ((n = 1; n <= nodes; n++)); do mkdir -p "$out/n$n"; cp -p "$work"/logs/n$n/connect*.log* "$out/n$n/"; done
else
    cp -p "$work"/logs/connect*.log* "$out"/
fi
provenance() {
    echo "release: $release (org.apache.kafka:connect-mirror, connect-runtime from the Maven repository)"
    echo "scenario: mm2-dedicated$([ "$one_way" = 1 ] && echo "-one-way (only $alias_a->$alias_b replicates; the $alias_b->$alias_a herder runs the heartbeats)")$([ "$restart" = 1 ] && echo ", one graceful JVM restart")$([ "$nodes" -gt 1 ] && echo ", $nodes nodes (internal REST, KIP-710)")$([ "$freeze" != 0 ] && echo ", node n$nodes frozen (SIGSTOP) for $freeze s")"
    echo "harness: conformance/mm2/run.sh --release $release$([ "$restart" = 1 ] && echo " --restart")$([ "$one_way" = 1 ] && echo " --one-way")$([ "$nodes" -gt 1 ] && echo " --nodes $nodes")$([ "$freeze" != 0 ] && echo " --freeze $freeze") --prefix $prefix"
    echo "captured: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "java: $(java -version 2>&1 | head -1)"
    echo "brokers: Kafka $broker_version KRaft, $alias_a on 127.0.0.1:$port_a, $alias_b on 127.0.0.1:$port_b"
    echo "main class: org.apache.kafka.connect.mirror.MirrorMaker (one JVM per node, one DistributedHerder per flow)"
    echo "logging: $(basename "$log_config"), $(cd "$worker_libs" && ls | grep -E '^(slf4j-|log4j-|reload4j)' | tr '\n' ' ')"
    echo "files: $(cd "$out" && find . -name 'connect*.log*' | sort | tr '\n' ' ') (copied as written, unedited)"
    echo
    echo "--- mm2.properties"
    cat "$work/config/mm2.properties"
    echo
    echo "--- end offsets on $alias_a (topic:partition:offset)"
    echo "$offsets_a"
    echo
    echo "--- end offsets on $alias_b (topic:partition:offset)"
    echo "$offsets_b"
}
provenance > "$out/PROVENANCE.txt"
if [ -n "$since_t" ]; then
    # the same run's logs as a log that starts mid-life
    rm -rf "$out-since"
    since "$out" "$since_t" "$out-since"
    { provenance | sed "s|^files: .*|files: each node's log from its first record at or after $(date -u -d "@$since_t" +%FT%TZ) (10 s before the freeze; \`kubectl logs --since-time\`), the lines unchanged|"
    } > "$out-since/PROVENANCE.txt"
fi
echo "mm2: logs in $out" >&2
rm -rf "$work"
