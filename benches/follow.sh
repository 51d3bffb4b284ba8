#!/usr/bin/env bash
# Memory over days of following (issue 9): herder-audit reading a pipe that a
# generator fills on the fly (benches/follow.py: the benchmark archive's
# 24-worker cluster, seed 7, simulated and interleaved into one compose-style
# stream, again and again with log time moving forward from run to run: the
# workers restart two days later and the group's history starts over), for
# 1x and for 10x the size of the benchmark archive (benches/archive.sh).
# Prints the peak resident set of both runs (getrusage, as GNU time -v
# reports it) and the resident set sampled after every GiB of the 10x run;
# the peak at the end of the 10x run must be no higher than its peak after
# 3 GiB (within 5%, allocator noise): memory does not grow with the length
# of the stream. (1x, a single run, lacks the transient of a run boundary,
# where every worker restarts: ~1 MiB.) MODE=seeds makes every run another history (seeds
# 7, 8, ...): its peak is then the peak of the busiest history, not a
# growth (compare with a 1x run of that seed).
# Needs python3. Usage: benches/follow.sh [REPS] [EVENTS] [MODE]   (default 10 400 same)
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${1:-10}"
events="${2:-400}"
mode="${3:-same}"
command -v python3 >/dev/null || { echo "follow.sh: python3 is needed" >&2; exit 2; }
cargo build --profile dist --locked --quiet
bin=target/dist/herder-audit
dir="${BENCH_DIR:-target/bench}/follow"
mkdir -p "$dir"
python3 benches/follow.py "$bin" 1 "$events" "$dir" same > "$dir/x1.json"
python3 benches/follow.py "$bin" "$reps" "$events" "$dir" "$mode" > "$dir/x$reps.json"
python3 - "$dir/x1.json" "$dir/x$reps.json" <<'EOF'
import json, sys
one, many = (json.load(open(p)) for p in sys.argv[1:3])
def line(r):
    return (f"{r['reps']:>3}x: {r['bytes'] / 2**30:6.2f} GiB, {r['lines']:>11,} lines, "
            f"{r['findings']} finding(s), {r['seconds']:7.1f} s ({r['mode']}), "
            f"peak RSS {r['max_rss_kib'] / 1024:6.1f} MiB")
print(line(one))
print(line(many))
print("RSS after each GiB of the longer run (MiB):",
      " ".join(f"{s.get('VmRSS', 0) / 1024:.1f}" for s in many["samples"]))
print(f"peak RSS {many['reps']}x / 1x = {many['max_rss_kib'] / 1024:.1f} / "
      f"{one['max_rss_kib'] / 1024:.1f} MiB = {many['max_rss_kib'] / one['max_rss_kib']:.2f}")
# Growth with the length of the stream: the peak at the end against the
# peak after the first few runs (each run boundary restarts every worker:
# for a moment the old cluster state and the new one are both held, a
# transient of ~1 MiB that 1x, a single run, never has).
hwm = [s["VmHWM"] for s in many["samples"]]
base = hwm[min(2, len(hwm) - 1)] if hwm else one["max_rss_kib"]
ratio = many["max_rss_kib"] / base
ok = ratio <= 1.05
print(f"peak RSS at the end / after {min(3, len(hwm)) or 1} GiB = {many['max_rss_kib'] / 1024:.1f} / "
      f"{base / 1024:.1f} MiB = {ratio:.2f}   (target: no growth, 5% for allocator noise) "
      f"{'ok' if ok else 'GROWS'}")
sys.exit(0 if ok else 1)
EOF
