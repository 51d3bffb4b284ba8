#!/usr/bin/env bash
# Real Connect clusters as the ground truth: one KRaft broker, N distributed
# workers of the release under test (each its own JVM, REST port and the
# release's own shipped logging config), a scenario driven through the REST
# API with faults, the cluster's own account of what happened, every worker's
# log files as written, and the audit of them.
#
#   conformance/run.sh --release 3.9.1 --scenario kill-worker [--workers 3]
#   conformance/run.sh --jars /path/to/connect/libs --scenario clean
#   conformance/run.sh --release 3.9.1 --scenario clean --layout strimzi
#   conformance/run.sh --release 4.4.0 --scenario kill-worker --layout json
#   conformance/run.sh --release 3.9.1 --scenario chaos --seed 7
#   conformance/run.sh --all
#   conformance/run.sh --list
#
# Output: target/conformance/<release>/<scenario>/ (see docs/real-kafka.md).
# The whole script is one function, and the scenario files
# (conformance/scenarios/NAME.sh) and the matrix (conformance/matrix) are read
# before anything runs: editing them while a run is in flight cannot change
# what that run executes.
main() {
set -euo pipefail
# shellcheck source=conformance/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=conformance/topics.sh
source "$conformance_dir/topics.sh"

release=""
scenario=""
workers=""
jars=""
layout=""
seed=""
all=""
out_root="${CONFORMANCE_OUT:-$repo_dir/target/conformance}"

# The release matrix of --all (release:scenario[:layout]): conformance/matrix.
mapfile -t matrix < <(grep -v '^[[:space:]]*\(#\|$\)' "$conformance_dir/matrix")

# One file per scenario: conformance/scenarios/NAME.sh defines sc_NAME (dashes
# as underscores) and may set default_workers[NAME] (3 when it does not); all
# are read here, before anything runs. A file may also set
# own_counting[NAME].
scenarios=""
declare -A default_workers=()
# Every scenario runs our counting test connector (conformance/test-connector/):
# start_cluster creates `count` (2 tasks) beside what the scenario creates,
# unless own_counting[NAME]=1 says the scenario's own connectors are
# counting sources (2.3.0 bounces every connector's tasks at any change,
# KAFKA-8676: a clean one-connector run there can have no second one).
declare -A own_counting=()
for f in "$conformance_dir"/scenarios/*.sh; do
    # shellcheck source=/dev/null
    source "$f"
    scenarios="${scenarios:+$scenarios }$(basename "$f" .sh)"
done

usage() {
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    echo "scenarios: $scenarios"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --release) release="$2"; shift 2 ;;
        --scenario) scenario="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --jars) jars="$2"; shift 2 ;;
        --layout) layout="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --out) out_root="$2"; shift 2 ;;
        --all) all=1; shift ;;
        --list) printf '%s\n' "${matrix[@]}"; exit 0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "conformance/run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

# absolute: the workers run in their run directory
mkdir -p "$out_root"
out_root="$(cd "$out_root" && pwd)"

if [ -n "$all" ]; then
    start=$(date +%s)
    failed=0
    local pair rel sc lay sd
    for pair in "${matrix[@]}"; do
        # release:scenario[:layout][:seed=N] (a third field seed=N is a seed)
        IFS=: read -r rel sc lay sd <<< "$pair"
        case "$lay" in seed=*) sd="$lay"; lay="" ;; esac
        "$0" --release "$rel" --scenario "$sc" ${lay:+--layout "$lay"} ${sd:+--seed "${sd#seed=}"} --out "$out_root" \
            || failed=$((failed + 1))
    done
    echo "conformance: ${#matrix[@]} runs, $failed failed, $(( $(date +%s) - start )) s"
    [ "$failed" = 0 ]
    exit
fi

[ -n "$scenario" ] || { echo "conformance/run.sh: --scenario is required" >&2; usage >&2; exit 2; }
case " $scenarios " in *" $scenario "*) ;; *) echo "conformance/run.sh: unknown scenario '$scenario'" >&2; exit 2 ;; esac
custom_jars=""
if [ -n "$jars" ]; then
    custom_jars=1
    [ -d "$jars" ] || { echo "conformance/run.sh: --jars $jars is not a directory" >&2; exit 2; }
    jars="$(cd "$jars" && pwd)"
    if [ -z "$release" ]; then
        # the release of a user's build: the version of its connect-runtime jar
        release="$(find "$jars" -maxdepth 1 -name 'connect-runtime-*.jar' ! -name '*test*' | head -1 | sed 's/.*connect-runtime-\(.*\)\.jar/\1/')"
        [ -n "$release" ] || { echo "conformance/run.sh: no connect-runtime-*.jar in $jars; pass --release" >&2; exit 2; }
    fi
fi
[ -n "$release" ] || { echo "conformance/run.sh: --release (or --jars) is required" >&2; exit 2; }

: "${workers:=${default_workers[$scenario]:-3}}"
[ "$workers" -ge 1 ] && [ "$workers" -le 8 ] || { echo "conformance/run.sh: --workers must be 1..8" >&2; exit 2; }

label="$release"
[ -n "$jars" ] && label="custom-$release"
case "$seed" in ''|[0-9]*) ;; *) echo "conformance/run.sh: --seed must be a number" >&2; exit 2 ;; esac
# a seeded scenario (chaos) is captured per seed: chaos-s7
variant="$scenario${seed:+-s$seed}${layout:+-$layout}"
run="$out_root/$label/$variant"
rm -rf "$run"
mkdir -p "$run/logs" "$run/stdout" "$run/ground-truth" "$run/config"
tag="$(echo "$label-$variant" | tr -c 'a-zA-Z0-9\n-' '-')"
broker_port="${BROKER_PORT:-19092}"
rest_base="${REST_PORT_BASE:-18083}"
bootstrap="127.0.0.1:$broker_port"
t0=$(date +%s)
log() { echo "[$(date -u +%H:%M:%S)] $label $scenario: $*" | tee -a "$run/harness.log" >&2; }

if [ -z "$jars" ]; then
    # a 4.x JSON layout needs log4j2's JsonTemplateLayout jar beside the
    # release's own (Maven profile json)
    case "$release:$layout" in
        4.*:json) jars="$(fetch_jars "$release" worker json)" ;;
        *) jars="$(fetch_jars "$release" worker)" ;;
    esac
fi
broker_libs="$(fetch_jars "$broker_version" broker)"
tool_libs="$(fetch_jars "$broker_version" tools)"

# The shipped logging config of the release.
case "$release" in
    4.*) log_cfg="$conformance_dir/log4j/4.x/connect-log4j2.yaml"; log_flag="-Dlog4j2.configurationFile=$log_cfg" ;;
    *)
        log_cfg="$conformance_dir/log4j/$release/connect-log4j.properties"
        [ -f "$log_cfg" ] || log_cfg="$(find "$conformance_dir/log4j" -name connect-log4j.properties | sort -V \
            | awk -v r="$release" -F/ '{ v=$(NF-1); if (v "" <= r "") last=$0 } END { print last }')"
        log_flag="-Dlog4j.configuration=file:$log_cfg" ;;
esac
# --layout NAME: a layout the audit claims to read, not the shipped one:
# conformance/log4j/layouts/NAME.properties (log4j 1.2 releases, up to 3.9)
# or NAME.yaml (log4j2, 4.x).
if [ -n "$layout" ]; then
    case "$release" in
        4.*) log_cfg="$conformance_dir/log4j/layouts/$layout.yaml"; log_flag="-Dlog4j2.configurationFile=$log_cfg" ;;
        *) log_cfg="$conformance_dir/log4j/layouts/$layout.properties"; log_flag="-Dlog4j.configuration=file:$log_cfg" ;;
    esac
    [ -f "$log_cfg" ] || { echo "conformance/run.sh: no layout $log_cfg for $release" >&2; exit 2; }
fi
# Up to 2.3 the shipped config logs to the console only; the shipped
# scripts (`connect-distributed.sh -daemon`) send it to connectDistributed.out.
console_only=""
grep -q connectAppender "$log_cfg" 2>/dev/null || case "$log_cfg" in *.yaml) ;; *) console_only=1 ;; esac

# Our counting test connector is on every worker's class path: its records
# name their producer (worker, task, instance, sequence number, time), the
# history conformance/checker.py judges. Without the release's FileStream
# connectors (4.4.0) the scenarios run it in their place as well.
test_connectors=""
compgen -G "$jars/connect-file-*.jar" >/dev/null || test_connectors=1
test_jar="$repo_dir/target/test-connector/blocking-connector-1.jar"
if [ ! -f "$test_jar" ] || [ -n "$(find "$conformance_dir/test-connector" -newer "$test_jar" -type f)" ]; then
    mvn -q -B -f "$conformance_dir/test-connector/pom.xml" package >&2 \
        || { echo "conformance/run.sh: could not build conformance/test-connector" >&2; exit 1; }
fi
extra_cp=":$test_jar"
# every counting source writes to this one topic (its records name their
# task), created with message.timestamp.type=LogAppendTime: the broker's
# clock beside each worker's own
records_topic="$tag-records"

pids=()
cleanup() {
    local p
    for p in "$run"/w*.pid "$run"/consumer.pid "$run"/snapshots.pid "$run/broker/broker.pid"; do
        [ -f "$p" ] || continue
        kill -CONT "$(cat "$p")" 2>/dev/null || true
        stop_pid "$p"
    done
    if declare -F scenario_cleanup >/dev/null; then scenario_cleanup || true; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------- workers

# worker_env[I]: VAR=VALUE words in worker I's environment (set by a
# scenario before it starts the worker; e.g. faketime's LD_PRELOAD)
declare -A worker_env=()

worker_port() { echo $((rest_base + $1 - 1)); }
worker_url() { echo "http://127.0.0.1:$(worker_port "$1")"; }

write_worker_config() {
    local i="$1" port
    port="$(worker_port "$i")"
    cat > "$run/config/w$i.properties" <<PROPS
bootstrap.servers=$bootstrap
group.id=connect-$tag
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter.schemas.enable=false
offset.storage.topic=connect-$tag-offsets
offset.storage.replication.factor=1
offset.storage.partitions=1
config.storage.topic=connect-$tag-configs
config.storage.replication.factor=1
status.storage.topic=connect-$tag-status
status.storage.replication.factor=1
status.storage.partitions=1
offset.flush.interval.ms=2000
listeners=http://127.0.0.1:$port
rest.advertised.host.name=127.0.0.1
rest.advertised.port=$port
session.timeout.ms=8000
heartbeat.interval.ms=2000
rebalance.timeout.ms=15000
worker.sync.timeout.ms=5000
scheduled.rebalance.max.delay.ms=10000
task.shutdown.graceful.timeout.ms=3000
PROPS
    cat "${EXTRA_WORKER_PROPS:-/dev/null}" >> "$run/config/w$i.properties"
}

start_worker() {
    local i="$1"
    [ -f "$run/config/w$i.properties" ] || write_worker_config "$i"
    mkdir -p "$run/logs/w$i"
    local opts=(-Xms128m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
        -Djava.net.preferIPv4Stack=true "-Dkafka.logs.dir=$run/logs/w$i" "$log_flag" "-Dherder.audit.worker=w$i")
    local out="$run/stdout/w$i.out"
    [ -n "$console_only" ] && out="$run/logs/w$i/connectDistributed.out"
    # the run directory as the working directory: nothing of the repository
    # is on the worker's path (the FileStream connectors are on its class path)
    # a scenario that cuts workers off (partition) puts each in a cgroup
    # of its own: worker_cgroup DIR, set by the scenario before it starts
    (cd "$run" && { [ -z "${worker_cgroup:-}" ] || { mkdir -p "$worker_cgroup/w$i" && echo "$BASHPID" > "$worker_cgroup/w$i/cgroup.procs"; }; } \
        && exec env ${worker_env[$i]:-} java "${opts[@]}" -cp "$jars/*$extra_cp" org.apache.kafka.connect.cli.ConnectDistributed \
        "$run/config/w$i.properties" >> "$out" 2>&1) &
    echo $! > "$run/w$i.pid"
    log "worker w$i started (pid $!, REST $(worker_url "$i"))"
}

# wait_worker I: until its REST API answers.
wait_worker() {
    local i="$1" n
    for ((n = 0; n < 240; n++)); do
        curl -sf "$(worker_url "$i")/" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    log "worker w$i: REST API did not answer in 120 s"
    return 1
}

stop_worker() { log "worker w$1: graceful stop (SIGTERM)"; stop_pid "$run/w$1.pid"; rm -f "$run/w$1.pid"; }
kill_worker() {
    log "worker w$1: SIGKILL"
    kill -9 "$(cat "$run/w$1.pid")"
    wait "$(cat "$run/w$1.pid")" 2>/dev/null || true
    rm -f "$run/w$1.pid"
}
live_worker() {
    local i
    for ((i = 1; i <= workers; i++)); do
        [ -f "$run/w$i.pid" ] && [ ! -f "$run/w$i.frozen" ] && { echo "$i"; return; }
    done
    echo 1
}

# ---------------------------------------------------------------- REST

rest() { # rest METHOD PATH [JSON]
    local method="$1" path="$2" body="${3:-}" url
    url="$(worker_url "$(live_worker)")$path"
    local args=(-s -o "$run/ground-truth/last-response.json" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json')
    [ -n "$body" ] && args+=(--data "$body")
    local code n
    for ((n = 0; n < 30; n++)); do
        code="$(curl "${args[@]}" "$url" || true)"
        case "$code" in
            2*) log "REST $method $path -> $code"; echo "{\"t\":\"$(date -u +%FT%T.%3NZ)\",\"method\":\"$method\",\"path\":\"$path\",\"code\":$code}" >> "$run/ground-truth/rest.jsonl"; return 0 ;;
            409|500|503|000) sleep 1 ;; # rebalance in progress, not the leader yet, restarting
            *) break ;;
        esac
    done
    log "REST $method $path -> $code: $(head -c 300 "$run/ground-truth/last-response.json" 2>/dev/null)"
    return 1
}

# snapshot: GET /connectors?expand=status&expand=info to status.jsonl.
snapshot() {
    local body
    body="$(curl -sf -m 10 "$(worker_url "$(live_worker)")/connectors?expand=status&expand=info" 2>/dev/null)" || return 0
    echo "{\"t\":\"$(date -u +%FT%T.%3NZ)\",\"connectors\":$body}" >> "$run/ground-truth/status.jsonl"
}
snapshots_loop() { while sleep 2; do snapshot; done; }

# wait_running NAME TASKS [SECONDS]: until the connector and TASKS tasks run.
wait_running() {
    local name="$1" tasks="$2" secs="${3:-120}" n
    for ((n = 0; n < secs; n++)); do
        if curl -sf "$(worker_url "$(live_worker)")/connectors/$name/status" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
want = int(sys.argv[1])
# tasks 0..want-1 RUNNING; a task id past tasks.max may stay listed
# (UNASSIGNED: 2.3 keeps the status of a removed task), not RUNNING
run = {t["id"] for t in s["tasks"] if t["state"] == "RUNNING"}
ok = s["connector"]["state"] == "RUNNING" and run == set(range(want))
sys.exit(0 if ok else 1)' "$tasks" 2>/dev/null; then
            log "$name: connector and $tasks task(s) RUNNING"
            return 0
        fi
        sleep 1
    done
    log "$name: not RUNNING with $tasks task(s) after ${secs}s"
    return 1
}

# wait_status NAME CONNECTOR_STATE [TASK_STATES [SECONDS]]: until the
# connector is in CONNECTOR_STATE and its tasks 0, 1, … in TASK_STATES (one
# state per task, space-separated; "" for no task: a STOPPED connector).
wait_status() {
    local name="$1" want="$2" tasks="${3:-}" secs="${4:-120}" n
    for ((n = 0; n < secs; n++)); do
        if curl -sf "$(worker_url "$(live_worker)")/connectors/$name/status" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
tasks = sorted(s["tasks"], key=lambda t: t["id"])
ok = s["connector"]["state"] == sys.argv[1] and [t["state"] for t in tasks] == sys.argv[2].split()
sys.exit(0 if ok else 1)' "$want" "$tasks" 2>/dev/null; then
            log "$name: connector $want, tasks [${tasks}]"
            return 0
        fi
        sleep 1
    done
    log "$name: not connector $want, tasks [${tasks}] after ${secs}s: $(curl -s "$(worker_url "$(live_worker)")/connectors/$name/status")"
    return 1
}

# get_json PATH FILE: GET PATH into ground-truth/FILE (logged like rest).
get_json() {
    local code
    code="$(curl -s -o "$run/ground-truth/$2" -w '%{http_code}' "$(worker_url "$(live_worker)")$1" || true)"
    log "REST GET $1 -> $code: $(head -c 300 "$run/ground-truth/$2")"
    echo "{\"t\":\"$(date -u +%FT%T.%3NZ)\",\"method\":\"GET\",\"path\":\"$1\",\"code\":$code}" >> "$run/ground-truth/rest.jsonl"
    case "$code" in 2*) return 0 ;; *) return 1 ;; esac
}

# needs_release VERSION: fail the scenario on releases older than VERSION.
needs_release() {
    [ "$(printf '%s\n%s\n' "$1" "$release" | sort -V | head -1)" = "$1" ] && return 0
    log "$scenario needs Kafka $1 or later (this is $release)"
    return 1
}

# settle SECONDS: let the cluster work, taking snapshots.
settle() { log "settle $1 s"; sleep "$1"; }

# counting_config TASKS [EXTRA]: the config of a counting source with TASKS
# tasks writing to the records topic; EXTRA: more "key":"value" pairs.
counting_config() {
    echo "{\"connector.class\":\"io.herderaudit.conformance.BlockingSourceConnector\",\"tasks.max\":\"$1\",\"topic\":\"$records_topic\"${2:+,$2}}"
}

source_connector() { # NAME FILE TOPIC
    if [ -n "$test_connectors" ]; then
        echo "{\"name\":\"$1\",\"config\":$(counting_config 1)}"
        return
    fi
    echo "{\"name\":\"$1\",\"config\":{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSourceConnector\",\"tasks.max\":\"1\",\"file\":\"$2\",\"topic\":\"$3\"}}"
}
sink_config() { # FILE TOPIC TASKS
    if [ -n "$test_connectors" ]; then
        # a counting source in the sink's place
        counting_config "$3"
        return
    fi
    echo "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"tasks.max\":\"$3\",\"file\":\"$1\",\"topics\":\"$2\"}"
}

# A producer of lines for the source connectors: line-N appended every 100 ms.
feed() {
    local f="$1" n=0
    : > "$f"
    while [ -f "$run/feeding" ]; do
        n=$((n + 1))
        echo "line-$n" >> "$f"
        sleep 0.1
    done
}

# dump_topic TOPIC: the topic's records (console consumer) and a count of
# records seen more than once (duplicates the cluster really made).
dump_topic() {
    local topic="$1" out="$run/ground-truth/topic-$1.txt"
    java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "-Dlog4j.configuration=file:$run/broker/log4j.properties" \
        -cp "$tool_libs/*" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$bootstrap" --topic "$topic" \
        --from-beginning --timeout-ms 8000 > "$out" 2>"$run/ground-truth/consumer-$topic.err" || true
    local total dups
    total=$(wc -l < "$out")
    dups=$(sort "$out" | uniq -d | wc -l)
    log "topic $topic: $total records, $dups duplicated"
    echo "{\"topic\":\"$topic\",\"records\":$total,\"duplicated\":$dups}" >> "$run/ground-truth/topics.jsonl"
}

# dump_records: the records topic with each record's timestamp, partition and
# offset (console consumer) to ground-truth/records.txt; "duplicated" counts
# (task, seq) pairs written more than once, whatever instance wrote them.
dump_records() {
    local out="$run/ground-truth/records.txt"
    java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "-Dlog4j.configuration=file:$run/broker/log4j.properties" \
        -cp "$tool_libs/*" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$bootstrap" \
        --topic "$records_topic" --from-beginning --timeout-ms 8000 --property print.timestamp=true \
        --property print.partition=true --property print.offset=true \
        > "$out" 2>"$run/ground-truth/consumer-records.err" || true
    local counts
    counts="$(python3 -c '
import json, sys
seen, total, dups = set(), 0, 0
for line in open(sys.argv[1]):
    i = line.find("{")
    if i < 0:
        continue
    try:
        r = json.loads(line[i:])
        key = (r["task"], r["seq"])
    except (ValueError, KeyError, TypeError):
        continue
    total += 1
    dups += key in seen
    seen.add(key)
print(total, dups)' "$out")"
    log "topic $records_topic: ${counts% *} records, ${counts#* } (task, seq) written twice"
    echo "{\"topic\":\"$records_topic\",\"records\":${counts% *},\"duplicated\":${counts#* }}" >> "$run/ground-truth/topics.jsonl"
}

# ---------------------------------------------------------------- scenarios

data="$run/data"
mkdir -p "$data"
src_topic="$tag-lines"

start_cluster() {
    local i
    for ((i = 1; i <= workers; i++)); do
        start_worker "$i"
        wait_worker "$i"
    done
    # the REST API answers before the worker has joined its group: let the
    # joins settle, so that no scenario's first request races them
    settle 6
    if [ -z "${own_counting[$scenario]:-}" ] && [ -z "${count_started:-}" ]; then
        count_started=1
        rest PUT /connectors/count/config "$(counting_config 2)"
        wait_running count 2
    fi
}

# task_owner CONNECTOR: the number of the worker that runs its task 0 (as
# the status API says).
task_owner() {
    local owner i
    owner="$(curl -sf "$(worker_url 1)/connectors/$1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tasks"][0]["worker_id"])')"
    for ((i = 1; i <= workers; i++)); do
        case "$owner" in *":$(worker_port "$i")") break ;; esac
    done
    echo "$i"
}

# start_pipeline N: the cluster, a file fed line by line into source src
# (its records the ground truth) and sink with N tasks, all running.
start_pipeline() {
    start_cluster
    touch "$run/feeding"; feed "$data/in.txt" & echo $! > "$run/feeder.pid"
    rest POST /connectors "$(source_connector src "$data/in.txt" "$src_topic")"
    rest PUT /connectors/sink/config "$(sink_config "$data/out.txt" "$src_topic" "$1")"
    wait_running src 1; wait_running sink "$1"
}

# ---------------------------------------------------------------- run

cat > "$run/PROVENANCE" <<PROV
release: $release
scenario: $scenario
${layout:+layout: $layout
}${seed:+seed: $seed
}workers: $workers
command: ${CHAOS_DURATION:+CHAOS_DURATION=$CHAOS_DURATION }conformance/run.sh --release $release --scenario $scenario --workers $workers${layout:+ --layout $layout}${seed:+ --seed $seed}${custom_jars:+ --jars <dir>}
jars: $( [ "$label" = "$release" ] && echo "Maven Central (conformance/pom.xml), org.apache.kafka:connect-runtime:$release" || echo "a user's build: $(ls "$jars" | grep -c '\.jar$') jars, connect-runtime $release")
broker: Kafka $broker_version, single-node KRaft, 127.0.0.1:$broker_port
connectors: $( [ -n "$test_connectors" ] && echo "conformance/test-connector (BlockingSourceConnector, counting tasks) in place of FileStreamSource/Sink: no connect-file jar of this release" || echo "FileStreamSource/FileStreamSink of the release")
logging: $(realpath --relative-to="$repo_dir" "$log_cfg") ($([ -n "$layout" ] && echo "layout $layout, not the shipped config" || echo "as shipped by the release")${console_only:+; console only: captured as connectDistributed.out})
java: $(java -version 2>&1 | head -1)
date: $(date -u +%FT%TZ)
PROV

log "broker $broker_version on $bootstrap"
start_broker "$run/broker" "$broker_port"
create_topic "$tool_libs" "$bootstrap" "$records_topic" message.timestamp.type=LogAppendTime >> "$run/harness.log" 2>&1 \
    || log "could not create $records_topic (LogAppendTime): the workers create it, the checker uses their clocks alone"
snapshots_loop & echo $! > "$run/snapshots.pid"

status=0
"sc_${scenario//-/_}" || status=$?
[ "$status" = 0 ] || log "scenario failed (status $status)"
stop_pid "$run/snapshots.pid"; rm -f "$run/snapshots.pid"
snapshot
[ -f "$run/feeder.pid" ] && { rm -f "$run/feeding"; stop_pid "$run/feeder.pid"; rm -f "$run/feeder.pid"; }
for p in "$run"/w*.pid; do
    [ -f "$p" ] || continue
    n="$(basename "$p" .pid)"; log "worker $n: graceful stop (SIGTERM)"; stop_pid "$p"; rm -f "$p"
done
[ -f "$data/in.txt" ] && [ -z "$test_connectors" ] && dump_topic "$src_topic"
dump_records
dump_internal_topics "$bootstrap" "$run/topics" "$tool_libs" "$run/broker/log4j.properties" "connect-$tag-"{configs,status,offsets} 2>&1 | tee -a "$run/harness.log" >&2
stop_pid "$run/broker/broker.pid"

# The trace: every worker's log files as written, and its audit.
audit="$repo_dir/target/dist/herder-audit"
if [ -x "$audit" ]; then
    "$audit" "$run/logs" > "$run/audit.txt" 2>&1 || true
    "$audit" "$run/logs" --format json > "$run/audit.json" 2>/dev/null || true
    log "audit: $(grep -cE '^(error|warning)' "$run/audit.txt" || true) finding line(s); see $run/audit.txt"
else
    log "no $audit: build it (cargo build --profile dist) to audit the capture"
fi
# The checker over the recorded history, compared with the audit.
checker_args=(--records "$run/ground-truth/records.txt" --out "$run/checker.json")
[ -f "$run/audit.json" ] && checker_args+=(--audit "$run/audit.json")
checked=0
python3 "$conformance_dir/checker.py" "${checker_args[@]}" > "$run/checker.txt" 2>&1 || checked=$?
log "$(tail -1 "$run/checker.txt")$([ "$checked" = 1 ] && echo ' (NOT every overlap caught and finding confirmed)')"
[ "$checked" -le 1 ] || log "checker could not run (status $checked): see $run/checker.txt"
echo "wall: $(( $(date +%s) - t0 )) s" >> "$run/PROVENANCE"
log "done in $(( $(date +%s) - t0 )) s: $run"
exit "$status"
}
main "$@"
