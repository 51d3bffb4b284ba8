#!/usr/bin/env bash
# The Spark job against the one-machine binary (issue 10). Builds a simulated
# archive of 4 clusters (three group ids, two clusters sharing
# connect-cluster) holding >= 1 GiB of log text, every worker's log rotated
# at 10 MiB with the rotated segments gzipped, then prints:
#   1. wall time of `herder-audit -j 2 --format json` (median of RUNS runs,
#      page cache warm) and of the Spark job on local[2] (one run, JVM start
#      included), and the overhead ratio; both reports must be equal;
#   2. the size of the map output per million lifecycle lines, and the peak
#      RSS of `reduce --partial` over the largest group's map output (what one
#      executor must hold for one group).
# Needs what spark/ci.sh needs, and GNU time. Usage: benches/spark.sh [RUNS]
# (default 3). BENCH_DIR (default target/bench-spark) keeps the archive;
# BENCH_EVENTS (default 850) sizes it (a smaller one for a quick try).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
[ -x /usr/bin/time ] || { echo "spark.sh: GNU time (/usr/bin/time) is needed" >&2; exit 2; }
. spark/env.sh
dir="${BENCH_DIR:-target/bench-spark}"
archive="$dir/archive"
mkdir -p "$dir"
if [ ! -f "$archive/truth.json" ]; then
  rm -rf "$archive"
  "$bin" simulate --clusters 4 --workers 3 --connectors 8 --events "${BENCH_EVENTS:-850}" --noise 0.9 --seed 7 \
    --rotate-bytes 10M --gzip-rotated --fault skip-revoked-stop --fault-cluster 1 \
    --out "$archive" >&2
fi
find "$archive" -type f -exec cat {} + > /dev/null # warm the page cache

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
times=()
for _ in $(seq "$runs"); do
  t0=$(date +%s%N)
  code=0
  "$bin" -j 2 --format json "$archive" > "$dir/binary.json" || code=$?
  times+=("$(ms_since "$t0")")
done
t0=$(date +%s%N)
scode=0
"$venv/bin/python" spark/herder_audit_spark.py --master 'local[2]' --binary "$bin" \
  "$archive" "$dir/spark-out" 2> "$dir/spark.log" || scode=$?
tspark=$(ms_since "$t0")
same=no
cmp -s "$dir/binary.json" "$dir/spark-out/report.json" && [ "$code" = "$scode" ] && same=yes

# The map output of the largest group (the twins of connect-cluster, linked
# by their group id, reduced in one task), and what reducing it takes.
twins=("$archive"/east-connect-cluster "$archive"/west-connect-cluster)
"$bin" map -j 2 "${twins[@]}" -o "$dir/twins.map"
"$bin" --format json "${twins[@]}" > "$dir/twins.json" || true
rss=$(/usr/bin/time -v "$bin" reduce --partial "$dir/twins.map" -o /dev/null 2>&1 >/dev/null |
  awk '/Maximum resident/ {print $6}')

python3 - "$dir" "$archive" "$code" "$scode" "$tspark" "$same" "$rss" "${times[@]}" <<'EOF'
import json, os, statistics, sys
d, archive, code, scode, tspark, same, rss = sys.argv[1:8]
times = [int(t) / 1000 for t in sys.argv[8:]]
truth = json.load(open(os.path.join(archive, "truth.json")))
a = truth["archive"]
disk = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(archive) for f in fs)
groups = sorted({c["group"] for c in truth["clusters"]})
rep = json.load(open(os.path.join(d, "binary.json")))
life = sum(i["lifecycle_events"] for i in rep["inputs"])
twins = json.load(open(os.path.join(d, "twins.json")))
tlife = sum(i["lifecycle_events"] for i in twins["inputs"])
tmap = os.path.getsize(os.path.join(d, "twins.map"))
tb = statistics.median(times)
ts = int(tspark) / 1000
print(f"archive: {a['bytes'] / 2**30:.2f} GiB of log text ({a['lines']:,} lines, "
      f"{life:,} lifecycle lines) in {len(truth['files'])} files, {disk / 2**20:.0f} MiB on disk; "
      f"{a['clusters']} clusters, groups {', '.join(groups)}")
print(f"1. herder-audit -j 2:      {tb:.2f} s (median of {len(times)}, exit {code})")
print(f"   Spark local[2]:         {ts:.2f} s (one run, exit {scode}; same report: {same})")
print(f"   overhead:               {ts / tb:.2f}x")
print(f"2. map output:             {tmap / 2**20:.1f} MiB for {tlife:,} lifecycle lines of the largest "
      f"group = {tmap / tlife * 1e6 / 2**20:.0f} MiB per million lifecycle lines")
print(f"   reduce --partial RSS:   {int(rss) / 1024:.0f} MiB = "
      f"{int(rss) / 1024 / tlife * 1e6:.0f} MiB per million lifecycle lines")
EOF
grep '^herder-audit-spark' "$dir/spark.log" >&2 || true
[ "$same" = yes ] || { echo "spark.sh: the Spark report differs from the binary's" >&2; exit 1; }
