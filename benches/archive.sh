#!/usr/bin/env bash
# The macro benchmark (issue 5). Builds a ~1 GiB archive of 24 workers with the
# simulator (lifecycle lines a few percent of all lines, the rest client and
# connector chatter, REST access lines and stack traces), a ~2 GiB one (the
# same cluster running twice as long) and a gzipped copy, then prints, as
# medians of RUNS runs with the page cache warm:
#   1. herder-audit -j 1 against rg -j1 -c -F 'org.apache.kafka.connect.runtime'
#   2. herder-audit -j 2 against -j 1
#   3. peak RSS on the 1 GiB and the 2 GiB archive (/usr/bin/time -v)
#   4. herder-audit on the gzipped archive against gzip -dc of the same files
# Needs: hyperfine, rg, gzip, python3 and GNU time (Debian packages hyperfine,
# ripgrep, gzip, python3, time). Usage: benches/archive.sh [RUNS]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-7}"
for tool in hyperfine rg gzip python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "archive.sh: $tool is needed" >&2; exit 2; }
done
cargo build --release --locked --quiet
bin=target/release/herder-audit
dir="${BENCH_DIR:-target/bench}"
mkdir -p "$dir"
gen() { # name events
  if [ ! -f "$dir/$1/truth.json" ]; then
    rm -rf "${dir:?}/$1"
    "$bin" simulate --workers 24 --connectors 40 --events "$2" --noise 0.9 --seed 7 --out "$dir/$1" >&2
  fi
}
gen a1 400
gen a2 800
if [ ! -d "$dir/a1gz" ]; then
  mkdir -p "$dir/a1gz"
  for f in "$dir"/a1/*.log; do gzip -c -6 "$f" > "$dir/a1gz/$(basename "$f").gz"; done
fi
logs1=("$dir"/a1/*.log)
gz1=("$dir"/a1gz/*.gz)
cat "${logs1[@]}" "$dir"/a2/*.log "${gz1[@]}" > /dev/null # warm the page cache

median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"; }
hf() { hyperfine --style none --warmup 1 --runs "$runs" --export-json "$@" > /dev/null; }

hf "$dir/t1.json" \
  "rg -j1 -c -F 'org.apache.kafka.connect.runtime' ${logs1[*]}" \
  "$bin -j 1 --format jsonl ${logs1[*]}" \
  "$bin -j 2 --format jsonl ${logs1[*]}"
hf "$dir/t2.json" \
  "gzip -dc ${gz1[*]}" \
  "$bin -j 1 --format jsonl ${gz1[*]}"
rss() { /usr/bin/time -v "$bin" -j 2 --format jsonl "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {print $6}'; }
rss1=$(rss "${logs1[@]}")
rss2=$(rss "$dir"/a2/*.log)

python3 - "$dir" "$rss1" "$rss2" "$(du -sb "$dir/a1" | cut -f1)" "$(du -sb "$dir/a2" | cut -f1)" <<'EOF'
import json, sys
d, rss1, rss2, b1, b2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
t1 = [r["median"] for r in json.load(open(f"{d}/t1.json"))["results"]]
t2 = [r["median"] for r in json.load(open(f"{d}/t2.json"))["results"]]
rg, j1, j2 = t1
gz, ha = t2
print(f"archive: {b1/2**30:.2f} GiB (24 workers); doubled: {b2/2**30:.2f} GiB; medians of {json.load(open(f'{d}/t1.json'))['results'][0]['times'].__len__()} runs")
print(f"1. -j 1 vs rg -j1:        {j1:.3f} s / {rg:.3f} s = {j1/rg:.2f}x   (target <= 2)")
print(f"2. -j 2 speed-up:         {j1:.3f} s / {j2:.3f} s = {j1/j2:.2f}x   (target >= 1.7)")
print(f"3. peak RSS:              {rss1/1024:.1f} MiB on 1 GiB, {rss2/1024:.1f} MiB on 2 GiB   (target <= 64 MiB, no growth)")
print(f"4. gzip vs gzip -dc:      {ha:.3f} s / {gz:.3f} s = {ha/gz:.2f}x   (target <= 1.3)")
EOF
