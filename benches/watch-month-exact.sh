#!/usr/bin/env bash
# Exactness of the watcher's sweep over the simulated month of
# benches/watch-month.sh (the same logs, made here if absent): the same
# binary run twice, one after the other, once sweeping its history (as it
# always does) and once keeping it all (HERDER_AUDIT_KEEP_HISTORY=1), each
# to the end of the logs; then every series of `/metrics` compared, but
# those that follow the wall clock (each worker's silence, its last line's
# and each finding kind's last reading time, the state file's writes). Prints the series compared and those that differ
# (none, when the sweep drops only what no line can reach).
#
#   benches/watch-month-exact.sh            # builds the dist binary
#   BIN=path/to/herder-audit benches/watch-month-exact.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/month-logs.sh
port=19472
pid=
trap '[ -z "$pid" ] || kill $pid 2>/dev/null || true' EXIT

# series MODE: runs the watcher to the end of the logs and keeps the
# series of /metrics (sorted, without the wall clock's) in $out/exact-MODE.txt.
series() {
    local mode=$1
    rm -f "$out/exact-$mode.state"
    if [ "$mode" = kept ]; then
        export HERDER_AUDIT_KEEP_HISTORY=1
    else
        unset HERDER_AUDIT_KEEP_HISTORY
    fi
    "$bin" watch "$out/logs" --listen "127.0.0.1:$port" --state "$out/exact-$mode.state" \
        -o /dev/null -j 1 2>"$out/exact-$mode.stderr" &
    pid=$!
    unset HERDER_AUDIT_KEEP_HISTORY
    until [ "$(curl -s -m 10 -o /dev/null -w '%{http_code}' "127.0.0.1:$port/readyz")" = 200 ]; do
        kill -0 $pid || { echo "watch-month-exact.sh: the watcher ($mode) ended early" >&2; exit 1; }
        sleep 1
    done
    # Ready: read to the end. Scraped until two scrapes a second apart agree.
    local a b
    a=$(scrape)
    while sleep 1; b=$(scrape); [ "$a" != "$b" ]; do a=$b; done
    printf '%s\n' "$a" >"$out/exact-$mode.txt"
    kill -TERM $pid
    wait $pid || true
    pid=
    rm -f "$out/exact-$mode.state"
}
scrape() {
    curl -s -m 30 "127.0.0.1:$port/metrics" |
        grep -v -e '^#' -e '^herder_audit_worker_silence_seconds' -e '^herder_audit_state_writes_total' \
            -e '^herder_audit_worker_last_line_timestamp_seconds' -e '^herder_audit_last_finding_timestamp_seconds' |
        LC_ALL=C sort
}
series kept
series swept
n=$(wc -l <"$out/exact-kept.txt")
d=$(LC_ALL=C comm -3 "$out/exact-kept.txt" "$out/exact-swept.txt" | wc -l)
echo "series compared: $n (kept) / $(wc -l <"$out/exact-swept.txt") (swept); lines that differ: $d"
for s in herder_audit_interruptions_total herder_audit_downtime_seconds_total; do
    echo "$s: $(grep -c "^$s" "$out/exact-kept.txt") series"
done
if [ "$d" -ne 0 ]; then
    LC_ALL=C diff "$out/exact-kept.txt" "$out/exact-swept.txt" | head -20
    exit 1
fi
echo IDENTICAL
