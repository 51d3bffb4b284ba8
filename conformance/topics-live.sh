#!/usr/bin/env bash
# The internal topics read live, against a real broker: the config and
# status records a real Connect cluster wrote (a capture's console-consumer
# dumps, conformance/topics.sh) are produced again, key, value and time
# stamp, tombstones as tombstones (conformance/ReplayRecords.java), into
# fresh topics of a fresh single-node broker; then
#   * tests/topics_live.rs reads them back with herder-audit's Rust client
#     (by partition and offset, no group) and compares them with the dumps;
#   * herder-audit audits the topics live and from the dumps: same findings.
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

[ -x target/dist/herder-audit ] || cargo build --profile dist --locked -q
findings() { python3 -c 'import json,sys; print(sorted((f["kind"], f["resource"]["id"]) for f in json.load(sys.stdin)["findings"]))'; }
live="$(target/dist/herder-audit --bootstrap "127.0.0.1:$port" --config-topic live-configs --status-topic live-status --format json --fail-on never | findings)"
dumps="$(target/dist/herder-audit --topics "$configs" "$status" --format json --fail-on never | findings)"
if [ "$live" = "$dumps" ]; then
    echo "topics-live: live and dumps agree: $live"
else
    echo "topics-live: live $live, dumps $dumps" >&2
    status_code=1
fi
echo "conformance/topics-live.sh: $(( $(date +%s) - start )) s, $([ "$status_code" = 0 ] && echo passed || echo FAILED)"
exit "$status_code"
