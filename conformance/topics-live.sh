#!/usr/bin/env bash
# The internal topics read live, against a real broker: the config and
# status records a real Connect cluster wrote (a capture's console-consumer
# dumps, conformance/topics.sh) are produced again, key, value and time
# stamp, tombstones as tombstones (conformance/ReplayRecords.java), into
# fresh topics of a fresh single-node broker; then
#   * tests/topics_live.rs reads them back with herder-audit's Rust client
#     (by partition and offset, no group) and compares them with the dumps;
#   * herder-audit audits the topics live and from the dumps: same findings;
#   * herder-audit watch reads them live as they are written: the dumps'
#     findings; then the broker stops and the watcher says so and goes on.
#
#   conformance/topics-live.sh RUN_DIR      e.g. target/conformance-smoke/2.3.0/kafka-8676
#
# Needs java, mvn (the 3.9.1 broker jars) and cargo. Run it under the
# machine's Kafka lock where others run brokers: it uses BROKER_PORT (19092).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=conformance/lib.sh
source "$here/lib.sh"
cd "$repo_dir"
run="${1:?usage: conformance/topics-live.sh RUN_DIR}"
start=$(date +%s)
configs="$(ls "$run"/topics/*-configs.console.txt 2>/dev/null | head -1)"
status="$(ls "$run"/topics/*-status.console.txt 2>/dev/null | head -1)"
[ -n "$configs" ] && [ -n "$status" ] || { echo "topics-live: no console dumps in $run/topics" >&2; exit 1; }
port="${BROKER_PORT:-19092}"
work="$repo_dir/target/topics-live"
rm -rf "$work"
mkdir -p "$work"
trap 'stop_pid "$work/broker/broker.pid"' EXIT
broker_libs="$(fetch_jars "$broker_version" broker)"
start_broker "$work/broker" "$port"

# produce DUMP TOPIC: its records again, in order, each with its own time
# stamp, into TOPIC (one partition)
produce() {
    java -Xmx256m -XX:+UseSerialGC -cp "$broker_libs/*" \
        "-Dlog4j.configuration=file:$work/broker/log4j.properties" "$here/ReplayRecords.java" \
        "127.0.0.1:$port" "$2" "$1" > "$work/produce-$2.out" 2>&1 \
        || { cat "$work/produce-$2.out" >&2; return 1; }
}
produce "$configs" live-configs
produce "$status" live-status

status_code=0
HERDER_AUDIT_LIVE_BOOTSTRAP="127.0.0.1:$port" \
HERDER_AUDIT_LIVE_CONFIG="live-configs=$configs" \
HERDER_AUDIT_LIVE_STATUS="live-status=$status" \
    cargo test --locked -q --test topics_live -- --ignored || status_code=1

# HERDER_AUDIT_BIN: another build of the binary (default: the dist build)
bin="${HERDER_AUDIT_BIN:-target/dist/herder-audit}"
[ -n "${HERDER_AUDIT_BIN:-}" ] || [ -x "$bin" ] || cargo build --profile dist --locked -q
findings() { python3 -c 'import json,sys; print(sorted((f["kind"], f["resource"]["id"]) for f in json.load(sys.stdin)["findings"]))'; }
live="$("$bin" --bootstrap "127.0.0.1:$port" --config-topic live-configs --status-topic live-status --format json --fail-on never | findings)"
dumps="$("$bin" --topics "$configs" "$status" --format json --fail-on never | findings)"
if [ "$live" = "$dumps" ]; then
    echo "topics-live: live and dumps agree: $live"
else
    echo "topics-live: live $live, dumps $dumps" >&2
    status_code=1
fi

# herder-audit watch reads the topics live (docs/watch.md): the config
# records are there when it starts, the status records come while it runs
# (and the status topic is missing at first: it says so and tries again);
# its findings are the dumps'. Then the broker goes away: it says so on
# stderr and in its metrics, keeps serving, and ends cleanly on SIGTERM.
produce "$configs" watch-configs
"$bin" watch --bootstrap "127.0.0.1:$port" --config-topic watch-configs --status-topic watch-status \
    --topics-interval 0.2 --listen 127.0.0.1:0 -o "$work/watch.jsonl" 2> "$work/watch.err" &
watcher=$!
trap 'kill "$watcher" 2>/dev/null || true; stop_pid "$work/broker/broker.pid"' EXIT
addr=""
for _ in $(seq 100); do
    addr="$(sed -n 's|.*serving http://\([^/]*\)/metrics.*|\1|p' "$work/watch.err")"
    [ -n "$addr" ] && break
    sleep 0.1
done
metric() { python3 - "$addr" "$1" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen(f"http://{sys.argv[1]}/metrics", timeout=10).read().decode()
print(sum(float(l.rsplit(" ", 1)[1]) for l in body.splitlines() if l.startswith(sys.argv[2])))
PY
}
produce "$status" watch-status
jsonl_findings() { python3 -c 'import json,sys; print(sorted((f["kind"], f["resource"]["id"]) for f in map(json.loads, sys.stdin) if f.get("type") == "finding"))' < "$work/watch.jsonl"; }
watched=""
for _ in $(seq 120); do
    watched="$(jsonl_findings)"
    [ "$watched" = "$dumps" ] && [ "$(metric 'herder_audit_topic_records_read_total{topic="watch-status"}')" != "0" ] && break
    sleep 0.5
done
if [ "$watched" = "$dumps" ]; then
    echo "topics-live: watch --bootstrap and dumps agree: $watched"
else
    echo "topics-live: watch --bootstrap $watched, dumps $dumps" >&2
    status_code=1
fi
stop_pid "$work/broker/broker.pid"
down=0
for _ in $(seq 120); do
    if [ "$(metric 'herder_audit_topics_up')" = "0.0" ] \
        && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$(metric 'herder_audit_input_errors_total{reason="kafka"}')"; then
        down=1
        break
    fi
    sleep 0.5
done
if [ "$down" = 1 ] && kill -0 "$watcher" 2>/dev/null && grep -q "cannot read the topics" "$work/watch.err"; then
    echo "topics-live: the broker went away: the watcher said so and kept running"
else
    echo "topics-live: the broker went away: down=$down; the watcher's stderr:" >&2
    cat "$work/watch.err" >&2
    status_code=1
fi
kill -TERM "$watcher"
if wait "$watcher"; then :; else
    echo "topics-live: the watcher ended with status $?" >&2
    status_code=1
fi
echo "conformance/topics-live.sh: $(( $(date +%s) - start )) s, $([ "$status_code" = 0 ] && echo passed || echo FAILED)"
exit "$status_code"
