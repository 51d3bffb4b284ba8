#!/usr/bin/env bash
# `herder-audit watch` beside real Connect clusters: for each scenario, the
# harness (conformance/run.sh, unchanged) runs a real broker and workers of
# the release; the watcher follows their log directory as it is written; a
# real Prometheus (Debian's `prometheus`, 127.0.0.1 only) scrapes it every
# second and evaluates deploy/prometheus/herder-audit.rules.yml; the probe
# (benches/watch_latency.py) measures, at a scrape-independent point, the
# time from a proving line's write to /metrics counting its finding.
#
#   conformance/watch-e2e.sh --short      # CI: 3.9.1 clean and freeze-worker
#   conformance/watch-e2e.sh              # also kafka-16056 (3.9.1) and freeze-worker (4.4.0)
#   conformance/watch-e2e.sh 3.9.1:freeze-worker ...
#
# Expectations: a faulty scenario's ConnectZombie alert reaches `firing`
# in Prometheus (asked through its HTTP API); a clean scenario has no alert
# firing and no error-level finding (an alert with a `for` clause may be
# pending: the harness's scenarios rebalance faster than production). Results:
# target/watch-e2e/<release>-<scenario>/ (findings.jsonl, latency.txt,
# alerts.json). Brokers and workers run under the machine-wide lock
# (HERDER_KAFKA_LOCK, default /work/locks/kafka.lock, when its directory
# exists). Needs java, mvn, curl, python3, prometheus; builds the dist
# binary if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
out_root="$repo/target/watch-e2e"
bin="$repo/target/dist/herder-audit"

runs=()
case "${1:-}" in
    --short) runs=(3.9.1:clean 3.9.1:freeze-worker) ;;
    "") runs=(3.9.1:clean 3.9.1:freeze-worker 3.9.1:kafka-16056 4.4.0:freeze-worker) ;;
    *) runs=("$@") ;;
esac
for tool in java mvn curl python3 prometheus; do
    command -v "$tool" >/dev/null || { echo "conformance/watch-e2e.sh: $tool is required" >&2; exit 1; }
done
[ -x "$bin" ] || cargo build --profile dist --locked -q

lock="${HERDER_KAFKA_LOCK:-/work/locks/kafka.lock}"
locked=()
[ -d "$(dirname "$lock")" ] && locked=(flock "$lock")

watch_port=19464
prom_port=19090
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# firing ALERTNAME: is the alert firing in Prometheus?
alert_state() {
    curl -s "127.0.0.1:$prom_port/api/v1/alerts" | python3 -c '
import json, sys
name = sys.argv[1]
alerts = json.load(sys.stdin)["data"]["alerts"]
states = sorted({a["state"] for a in alerts if name in ("*", a["labels"]["alertname"])})
print(",".join(states) or "none")' "$1"
}

# The names of the alerts firing, or nothing.
alert_firing() {
    curl -s "127.0.0.1:$prom_port/api/v1/alerts" | python3 -c '
import json, sys
alerts = json.load(sys.stdin)["data"]["alerts"]
print(" ".join(sorted({a["labels"]["alertname"] for a in alerts if a["state"] == "firing"})))'
}

status=0
summary=()
for r in "${runs[@]}"; do
    release="${r%%:*}"
    scenario="${r#*:}"
    dir="$out_root/$release-$scenario"
    run="$dir/conformance/$release/$scenario"
    rm -rf "$dir"
    mkdir -p "$dir/prom"
    cat > "$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $repo/deploy/prometheus/herder-audit.rules.yml
scrape_configs:
  - job_name: herder-audit
    static_configs:
      - targets: ['127.0.0.1:$watch_port']
EOF
    t0=$(date +%s)
    CONFORMANCE_OUT="$dir/conformance" "${locked[@]}" conformance/run.sh --release "$release" --scenario "$scenario" \
        >"$dir/harness.out" 2>&1 &
    harness=$!
    pids+=("$harness")
    # The harness made its fresh log directory (once it holds the lock).
    while [ ! -d "$run/logs" ] && kill -0 "$harness" 2>/dev/null; do sleep 0.1; done
    [ -d "$run/logs" ] || { echo "watch-e2e: $r: the harness ended before it made its logs: $dir/harness.out" >&2; status=1; continue; }
    "$bin" watch "$run/logs" --listen "127.0.0.1:$watch_port" -o "$dir/findings.jsonl" --state "$dir/state.json" \
        2>"$dir/watch.stderr" &
    watcher=$!
    pids+=("$watcher")
    prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/prom" \
        --web.listen-address="127.0.0.1:$prom_port" --log.level=warn 2>"$dir/prometheus.log" &
    prom=$!
    pids+=("$prom")
    python3 benches/watch_latency.py probe --metrics "http://127.0.0.1:$watch_port/metrics" \
        --logs "$run/logs" --findings "$dir/findings.jsonl" --until "$dir/harness.done" \
        --label "$release $scenario" >"$dir/latency.txt" 2>&1 &
    probe=$!
    pids+=("$probe")
    harness_status=0
    wait "$harness" || harness_status=$?
    if [ "$harness_status" -ne 0 ]; then
        echo "watch-e2e: $r: the harness failed ($harness_status): $dir/harness.out" >&2
        status=1
    fi
    # What the watcher has, Prometheus sees within a scrape and an evaluation.
    verdict=""
    case "$scenario" in
        clean*|single|rolling-restart|stop|offsets|restart-failed)
            sleep 5
            firing="$(alert_firing)"
            errors=$(grep -c '"severity":"error"' "$dir/findings.jsonl" 2>/dev/null || true)
            if [ -z "$firing" ] && [ "${errors:-0}" = 0 ]; then
                verdict="clean: no alert firing, no error finding"
            else
                verdict="FAILED: firing: ${firing:-none}; ${errors:-0} error finding(s)"
                status=1
            fi ;;
        *)
            state=none
            for _ in $(seq 60); do
                state="$(alert_state ConnectZombie)"
                [[ "$state" == *firing* ]] && break
                sleep 1
            done
            if [[ "$state" == *firing* ]]; then
                verdict="ConnectZombie firing"
            else
                verdict="FAILED: ConnectZombie $state"
                status=1
            fi ;;
    esac
    curl -s "127.0.0.1:$prom_port/api/v1/alerts" >"$dir/alerts.json" || true
    touch "$dir/harness.done"
    wait "$probe" || true
    kill -TERM "$watcher" "$prom" 2>/dev/null || true
    wait "$watcher" "$prom" 2>/dev/null || true
    pids=()
    lat="$(tail -n 1 "$dir/latency.txt")"
    findings=$(grep -c . "$dir/findings.jsonl" 2>/dev/null || true)
    line="$release $scenario: $verdict; ${findings:-0} finding(s); latency $lat; $(( $(date +%s) - t0 )) s"
    echo "watch-e2e: $line" >&2
    summary+=("$line")
done
printf '%s\n' "${summary[@]}" >"$out_root/summary.txt"
exit "$status"
