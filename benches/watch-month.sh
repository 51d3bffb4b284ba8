#!/usr/bin/env bash
# Memory of `herder-audit watch` over a simulated month: a 20-worker
# cluster with the simulator's ordinary churn (connectors created,
# reconfigured, deleted, paused, restarted; workers joining, leaving,
# crashing; rebalances), 24,000 events over about 30 days of log time,
# fed through the watcher as fast as it reads (the logs are on disk when it
# starts). Prints the resident set against the lines read, every second,
# and the peak (target: flat, at most 64 MiB).
#
#   benches/watch-month.sh            # builds the dist binary
#   BIN=path/to/herder-audit benches/watch-month.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/month-logs.sh
first=$(head -c 24 "$out/logs/connect-1.log")
last=$(tail -n 1 "$out/logs/connect-1.log" | head -c 24)
echo "logs: $(du -sh "$out/logs" | cut -f1), log time $first .. $last"
rm -f "$out/state.json" "$out/findings.jsonl"
port=19471
"$bin" watch "$out/logs" --listen "127.0.0.1:$port" --state "$out/state.json" -o "$out/findings.jsonl" -j 1 \
    2>"$out/watch.stderr" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
lines() {
    curl -s -m 10 "127.0.0.1:$port/metrics" | awk '/^herder_audit_lines_read_total/ { n += $2 } END { printf "%d", n }'
}
ready() { [ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "127.0.0.1:$port/readyz")" = 200 ]; }
start=$(date +%s.%N)
peak=0
printf '%8s %14s %10s\n' seconds lines_read rss_mib | tee "$out/rss.txt"
while kill -0 $pid 2>/dev/null; do
    sleep 1
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "$hwm" -gt "$peak" ] && peak=$hwm
    t=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%8.1f %14s %10.1f\n' "$t" "$(lines)" "$(echo "$rss / 1024" | bc -l)" | tee -a "$out/rss.txt"
    if ready; then break; fi
done
curl -s "127.0.0.1:$port/metrics" >"$out/metrics.txt"
# The stop: how long the watcher takes to end once told (SIGTERM), and
# its resident set meanwhile (what it does at the end is no longer fed).
stop_at=$(date +%s.%N)
kill -TERM $pid
stop_peak=0
while kill -0 $pid 2>/dev/null; do
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$stop_peak" ] && stop_peak=$rss
    sleep 0.2
done
wait $pid || true
trap - EXIT
printf 'stopped in %.1f s (RSS up to %.1f MiB meanwhile)\n' "$(echo "$(date +%s.%N) - $stop_at" | bc)" "$(echo "$stop_peak / 1024" | bc -l)"
printf 'peak RSS %.1f MiB; findings %s; ' "$(echo "$peak / 1024" | bc -l)" "$(wc -l < "$out/findings.jsonl")"
grep -c . "$out/watch.stderr" | xargs printf '%s stderr lines\n'
