#!/usr/bin/env bash
# The macro benchmark: herder-audit on simulated archives of several shapes,
# timed against baselines run in the same invocation, page cache warm.
#
#   current     24 workers, ~1 GiB (lifecycle lines ~2.5 % of all lines, the
#               rest client and connector chatter, REST access lines, stack
#               traces), the same cluster running twice as long (~2 GiB), and
#               a gzipped copy of the first.
#   dense       16 workers, ~1.1 GiB, lifecycle lines ~5 % (a rebalance or a
#               task-config restart every ~200 lines; the workers share the
#               group's generations).
#   many-small  2,000 worker logs of ~95 KiB (100 clusters of 20 workers,
#               each cluster its own group), against 16 logs of ~16 MiB.
#   storm       ~256 MiB: a cluster of 8 workers plus a copy of its logs under
#               other REST URLs, so that every assignment of the copy claims
#               what the original's claims (>= 10,000 conflicting-assignment
#               findings); against two unrelated clusters of the same size
#               (no finding).
#
#   group200    one group of 200 workers that share every generation (peak
#               RSS).
#
# Prints one table with every figure (medians of RUNS runs, hyperfine; peak
# RSS from GNU time). Times are wall clock; on a shared machine compare the
# ratios, which are taken within one invocation, and the load printed.
#
# Beside each time ratio, an instruction ratio: user-space instructions of
# `herder-audit -j 1 --format jsonl` against those of the baseline over the
# same bytes (per MiB of input), counted by `perf stat -e instructions:u`
# where the machine's counters allow it, else by valgrind's callgrind
# (about 50 times slower, so it counts on the smaller inputs named in each
# row). Counts are repeatable for a binary and an input whatever else runs
# on the machine: decide by them, read the times for what they cost.
#
# Needs: hyperfine, rg, gzip, python3, GNU time, and valgrind or a perf
# with instruction counters (Debian packages hyperfine, ripgrep, gzip,
# python3, time, valgrind).
#
# Usage: benches/archive.sh [--shape current|dense|many-small|storm|group200|all]
#                           [--instructions-only] [RUNS]
#        (default: all shapes, 5 runs; --instructions-only: no timing and
#        no RSS, only the instruction rows; BENCH_DIR: where the archives
#        are built, default target/bench; COUNTER=perf|callgrind to choose
#        the counter)
set -euo pipefail
cd "$(dirname "$0")/.."
shape=all
if [ "${1:-}" = "--shape" ]; then
  shape="${2:?--shape needs a value}"
  shift 2
fi
case "$shape" in
  current|dense|many-small|storm|group200|all) ;;
  *) echo "archive.sh: unknown shape $shape (current, dense, many-small, storm, group200, all)" >&2; exit 2 ;;
esac
timing=1
if [ "${1:-}" = "--instructions-only" ]; then
  timing=0
  shift
fi
runs="${1:-5}"
for tool in rg gzip python3; do
  command -v "$tool" >/dev/null || { echo "archive.sh: $tool is needed" >&2; exit 2; }
done
if [ "$timing" = 1 ]; then
  for tool in hyperfine /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "archive.sh: $tool is needed" >&2; exit 2; }
  done
fi
# The instruction counter: perf where the counters exist (not in most
# virtual machines), else callgrind.
counter="${COUNTER:-}"
if [ -z "$counter" ]; then
  if command -v perf > /dev/null && perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -q '^[0-9]'; then
    counter=perf
  elif command -v valgrind > /dev/null; then
    counter=callgrind
  else
    echo "archive.sh: valgrind (or perf with instruction counters) is needed" >&2
    exit 2
  fi
fi
cargo build --profile dist --locked --quiet
bin=target/dist/herder-audit
dir="${BENCH_DIR:-target/bench}"
mkdir -p "$dir"
# This run's own rows and measurements: two runs may share the archives'
# directory, never these.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rows="$scratch/rows.tsv"
: > "$rows"
want() { [ "$shape" = all ] || [ "$shape" = "$1" ]; }

# sim NAME ARGS...: a simulated cluster, built once.
sim() {
  local name="$1"
  shift
  if [ ! -f "$dir/$name/truth.json" ]; then
    rm -rf "${dir:?}/$name"
    "$bin" simulate "$@" --out "$dir/$name" > /dev/null
  fi
}
# median FILE INDEX: a hyperfine median, in seconds.
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"; }
hf() { hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$@" > /dev/null; }
# rss ARGS...: peak RSS (KiB) of one herder-audit run.
rss() { /usr/bin/time -f '%M' -o "$scratch/rss.txt" "$bin" "$@" > /dev/null || true; tail -1 "$scratch/rss.txt"; }
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$rows"; }
# count CMD...: user-space instructions of one run (its output discarded).
count() {
  if [ "$counter" = perf ]; then
    perf stat -x, -e instructions:u -o "$dir/count.txt" "$@" > /dev/null || true
    awk -F, '/instructions/ {print $1}' "$dir/count.txt"
  else
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
      awk '/Collected :/ {print $NF}'
  fi
}
# instr NAME LABEL TARGET BASE FILES...: herder-audit -j 1 --format jsonl
# against the baseline BASE (rg, or gzip for .gz files) over FILES, in
# instructions per MiB of input.
instr() {
  local name="$1" label="$2" target="$3" base="$4"
  shift 4
  local bytes a b
  bytes=$(du -cbL "$@" | tail -1 | cut -f1)
  if [ "$base" = rg ]; then
    b=$(count rg -j1 -c -F org.apache.kafka.connect.runtime "$@")
  else
    b=$(count gzip -dc "$@")
  fi
  a=$(count "$bin" -j 1 --fail-on never --format jsonl "$@")
  row "$name" "instructions ($counter), $label" "$(python3 -c 'import sys; a,b,n=map(int,sys.argv[1:]); m=n/2**20; print(f"{a/m/1e6:.2f} M/MiB / {b/m/1e6:.2f} M/MiB = {a/b:.2f}x")' "$a" "$b" "$bytes")" "$target"
}
ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f"{a:.3f} s / {b:.3f} s = {a/b:.2f}x")' "$1" "$2"; }
mib() { python3 -c 'import sys; print(f"{int(sys.argv[1])/1024:.1f} MiB")' "$1"; }
size() { du -sbL "$@" | awk '{s += $1} END {if (s >= 2^30) printf "%.2f GiB", s / 2^30; else printf "%.0f MiB", s / 2^20}'; }
# versus_rg NAME LABEL FILES...: -j 1 against rg -j1, -j 2 against -j 1.
versus_rg() {
  local name="$1" label="$2"
  shift 2
  cat "$@" > /dev/null
  hf "$scratch/$name.json" \
    "rg -j1 -c -F org.apache.kafka.connect.runtime $*" \
    "$bin -j 1 --format jsonl $*" \
    "$bin -j 2 --format jsonl $*"
  local rg j1 j2
  rg=$(median "$scratch/$name.json" 0)
  j1=$(median "$scratch/$name.json" 1)
  j2=$(median "$scratch/$name.json" 2)
  row "$name" "time, $label, -j 1 against rg -j1 -c -F" "$(ratio "$j1" "$rg")" "-"
  row "$name" "time, -j 2 speed-up over -j 1" "$(ratio "$j1" "$j2")" ">= 1.85x"
}
# storm_pair: the storm archive (a cluster of 8 workers and its twin under
# other REST URLs) and a clean archive of the same size (two unrelated
# clusters), built once; sets the arrays storm and clean.
storm_pair() {
  sim storm-a --workers 8 --connectors 20 --events 125 --noise 0.9 --seed 1
  sim clean-b --workers 8 --connectors 20 --events 125 --noise 0.9 --seed 2
  if [ ! -f "$dir/storm/done" ]; then
    # The copy: the same logs under other advertised URLs (other workers
    # to the auditor), the same leader and generations.
    rm -rf "$dir/storm" "$dir/clean"
    mkdir -p "$dir/storm/a" "$dir/storm/twin" "$dir/clean"
    cp "$dir"/storm-a/*.log "$dir/storm/a/"
    for f in "$dir"/storm-a/*.log; do
      sed 's#host.name = connect-#host.name = twin-#' "$f" > "$dir/storm/twin/$(basename "$f")"
    done
    ln -s "$(cd "$dir/storm-a" && pwd)" "$dir/clean/a"
    ln -s "$(cd "$dir/clean-b" && pwd)" "$dir/clean/b"
    touch "$dir/storm/done"
  fi
  storm=("$dir"/storm/a/*.log "$dir"/storm/twin/*.log)
  clean=("$dir"/storm-a/*.log "$dir"/clean-b/*.log)
}

load_before=$(uptime)

if want current; then
  # Instructions: 16 workers sharing their group's generations (~16 MiB a
  # log, 2.5 % lifecycle lines), one of their logs alone, and gzipped
  # copies of four of them.
  sim big16 --workers 16 --connectors 40 --events 125 --noise 0.9 --seed 11
  if [ ! -f "$dir/big16gz/done" ]; then
    mkdir -p "$dir/big16gz"
    for f in "$dir"/big16/connect-{1,2,3,4}.log; do gzip -c -6 "$f" > "$dir/big16gz/$(basename "$f").gz"; done
    touch "$dir/big16gz/done"
  fi
  instr current "one worker's log ($(size "$dir"/big16/connect-1.log)), -j 1 against rg" "<= 1.2x" rg "$dir"/big16/connect-1.log
  instr current "16 workers ($(size "$dir"/big16/*.log)), -j 1 against rg" "<= 1.4x" rg "$dir"/big16/*.log
  instr current "4 gzipped logs ($(size "$dir"/big16gz/*.gz) compressed), -j 1 against gzip -dc" "<= 0.5x" gzip "$dir"/big16gz/*.gz
  if [ "$timing" = 1 ]; then
    sim a1 --workers 24 --connectors 40 --events 400 --noise 0.9 --seed 7
    sim a2 --workers 24 --connectors 40 --events 800 --noise 0.9 --seed 7
    if [ ! -f "$dir/a1gz/done" ]; then
      mkdir -p "$dir/a1gz"
      for f in "$dir"/a1/*.log; do gzip -c -6 "$f" > "$dir/a1gz/$(basename "$f").gz"; done
      touch "$dir/a1gz/done"
    fi
    versus_rg current "24 workers, $(size "$dir"/a1/*.log)" "$dir"/a1/*.log
    versus_rg current "16 workers, $(size "$dir"/big16/*.log)" "$dir"/big16/*.log
    gz=("$dir"/a1gz/*.gz)
    cat "${gz[@]}" > /dev/null
    hf "$scratch/gz.json" "gzip -dc ${gz[*]}" "$bin -j 1 --format jsonl ${gz[*]}"
    row current "time, gzipped, -j 1 against gzip -dc" "$(ratio "$(median "$scratch/gz.json" 1)" "$(median "$scratch/gz.json" 0)")" "<= 0.5x"
    row current "peak RSS -j 2, 1 GiB / 2 GiB" "$(mib "$(rss -j 2 --format jsonl "$dir"/a1/*.log)") / $(mib "$(rss -j 2 --format jsonl "$dir"/a2/*.log)")" "<= 64 MiB, flat"
  fi
fi

if want dense; then
  # Instructions on a smaller archive of the same shape (16 workers,
  # lifecycle lines ~5 %).
  sim dense-small --workers 16 --connectors 40 --events 200 --noise 0.8 --seed 7
  instr dense "16 workers ($(size "$dir"/dense-small/*.log)), -j 1 against rg" "<= 2.0x" rg "$dir"/dense-small/*.log
  if [ "$timing" = 1 ]; then
    sim dense --workers 16 --connectors 40 --events 1500 --noise 0.8 --seed 7
    versus_rg dense "$(size "$dir"/dense/*.log)" "$dir"/dense/*.log
    row dense "peak RSS -j 2" "$(mib "$(rss -j 2 --format jsonl "$dir"/dense/*.log)")" "<= 64 MiB"
  fi
fi

if want many-small; then
  if [ ! -f "$dir/small/done" ]; then
    rm -rf "$dir/small"
    for i in $(seq 1 100); do
      "$bin" simulate --workers 20 --connectors 2 --events 3 --noise 0.3 --seed "$i" \
        --group "group-$i" --out "$dir/small/c$i" > /dev/null 2>&1
      rm "$dir/small/c$i/truth.json"
    done
    touch "$dir/small/done"
  fi
  sim big16 --workers 16 --connectors 40 --events 125 --noise 0.9 --seed 11
  small=$(find "$dir/small" -name '*.log' | wc -l)
  tenth=("$dir"/small/c{1,2,3,4,5,6,7,8,9,10}/*.log)
  instr many-small "${#tenth[@]} small logs, 10 clusters ($(size "${tenth[@]}")), -j 1 against rg" "<= 3x" rg "${tenth[@]}"
  third=()
  for i in $(seq 1 30); do third+=("$dir"/small/c"$i"/*.log); done
  instr many-small "${#third[@]} small logs, 30 clusters ($(size "${third[@]}")), -j 1 against rg" "<= 3x" rg "${third[@]}"
  if [ "$timing" = 1 ]; then
    big=("$dir"/big16/*.log)
    cat "${big[@]}" > /dev/null
    find "$dir/small" -name '*.log' -exec cat {} + > /dev/null
    hf "$scratch/small.json" "rg -j1 -c -F org.apache.kafka.connect.runtime $dir/small" "$bin -j 1 --format jsonl $dir/small"
    row many-small "time, $small logs ($(size "$dir/small")), -j 1 against rg -j1" "$(ratio "$(median "$scratch/small.json" 1)" "$(median "$scratch/small.json" 0)")" "-"
    row many-small "peak RSS -j 2: $small small logs / ${#big[@]} logs of 16 MiB" "$(mib "$(rss -j 2 --format jsonl "$dir/small")") / $(mib "$(rss -j 2 --format jsonl "${big[@]}")")" "<= 64 MiB both"
    row many-small "peak RSS -j 1: $small small logs / ${#big[@]} logs of 16 MiB" "$(mib "$(rss -j 1 --format jsonl "$dir/small")") / $(mib "$(rss -j 1 --format jsonl "${big[@]}")")" "<= 64 MiB both"
  fi
fi

if want group200; then
  sim group200 --workers 200 --connectors 100 --events 100 --noise 0.5 --seed 3
  g=("$dir"/group200/*.log)
  if [ "$timing" = 1 ]; then
    row group200 "peak RSS -j 1 / -j 2: one group of ${#g[@]} workers ($(size "${g[@]}"))" "$(mib "$(rss -j 1 --format jsonl "${g[@]}")") / $(mib "$(rss -j 2 --format jsonl "${g[@]}")")" "<= 64 MiB"
  fi
fi

if want storm; then
  storm_pair
  instr_pair() {
    local a b
    b=$(count "$bin" -j 1 --fail-on never --format jsonl "${clean[@]}")
    a=$(count "$bin" -j 1 --fail-on never --format jsonl "${storm[@]}")
    row storm "instructions ($counter), storm jsonl -j 1 against the clean archive" "$(python3 -c 'import sys; a,b=map(int,sys.argv[1:]); print(f"{a/1e6:.1f} M / {b/1e6:.1f} M = {a/b:.2f}x")' "$a" "$b")" "<= 1.25x"
  }
  instr_pair
  if [ "$timing" = 1 ]; then
    cat "${storm[@]}" "${clean[@]}" > /dev/null
    found=$("$bin" --fail-on never --format jsonl "${storm[@]}" | python3 -c 'import json,sys; print(sum(json.loads(l)["findings"]["error"] + json.loads(l)["findings"]["warning"] for l in sys.stdin if "\"summary\"" in l))')
    hf "$scratch/storm.json" "$bin --fail-on never --format jsonl ${clean[*]}" "$bin --fail-on never --format jsonl ${storm[*]}"
    row storm "time, $found findings ($(size "${storm[@]}")), jsonl, against the clean archive" "$(ratio "$(median "$scratch/storm.json" 1)" "$(median "$scratch/storm.json" 0)")" "<= 1.25x"
    row storm "peak RSS: jsonl / json / clean jsonl" "$(mib "$(rss --fail-on never --format jsonl "${storm[@]}")") / $(mib "$(rss --fail-on never --format json "${storm[@]}")") / $(mib "$(rss --fail-on never --format jsonl "${clean[@]}")")" "jsonl <= 64 MiB"
  fi
fi

load_after=$(uptime)
python3 - "$rows" "$runs" "$load_before" "$load_after" <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print(f"times: medians of {sys.argv[2]} runs; load before: {sys.argv[3].split('load average:')[-1].strip()}, after: {sys.argv[4].split('load average:')[-1].strip()}")
head = ("shape", "figure", "measured", "target")
w = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
fmt = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print(fmt(head))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows:
    print(fmt(r))
EOF
