#!/usr/bin/env bash
# Latency of live findings (issue 9): from the moment a single-worker
# finding's trigger line is written into the pipe to the moment the finding
# is readable on herder-audit's standard output (benches/latency.py: traces
# of the simulator's faults, fed one write per line with the log's own
# pacing). Prints median, 90th percentile and maximum per finding kind and
# over all single-worker kinds but `foreign-start` (which waits for the
# owner's assignment line: 2 s of log time, or the idle timeout),
# with the load average. Goal: median <= 20 ms, max <= 100 ms.
# Needs python3. Usage: benches/latency.sh [SEEDS]   (default 16: > 100 findings)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "latency.sh: python3 is needed" >&2; exit 2; }
cargo build --profile dist --locked --quiet
python3 benches/latency.py target/dist/herder-audit "${1:-16}" "${BENCH_DIR:-target/bench}/latency"
