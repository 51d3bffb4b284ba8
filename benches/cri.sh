#!/usr/bin/env bash
# A kubelet node archive against the plain archive: the same simulated
# cluster (8 workers, ~130 MB, one injected fault) as plain worker logs and
# as the CRI files the kubelet keeps under
# /var/log/pods/<ns>_<pod>_<uid>/<container>/ (`<RFC3339Nano> stdout F|P
# <part>`, records past 16 KiB split into parts as containerd and CRI-O split
# them, each log rotated into 0.log, 0.log.<date> and a gzipped
# 0.log.<date>.gz); the plain archive is rotated alike (connect.log,
# connect.log.1, connect.log.2.gz). Both are audited with -j 1 and -j 2; the
# table gives the medians (hyperfine), the CRI/plain ratio and the peak RSS
# (GNU time), and checks that both runs report the same findings.
#
# Needs: hyperfine, python3, gzip, GNU time (Debian packages hyperfine,
# python3, gzip, time).
#
# Usage: benches/cri.sh [RUNS]   (default 5; BENCH_DIR: where the archives
#        are built, default target/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
for tool in hyperfine python3 gzip /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "cri.sh: $tool is needed" >&2; exit 2; }
done
cargo build --profile dist --locked --quiet
bin=target/dist/herder-audit
dir="${BENCH_DIR:-target/bench}"
mkdir -p "$dir"
sim="$dir/cri-sim"
plain="$dir/cri-plain"
node="$dir/cri-node"
if [ ! -f "$sim/truth.json" ]; then
  rm -rf "$sim"
  "$bin" simulate --workers 8 --connectors 20 --events 125 --noise 0.9 --seed 3 --fault double-start --out "$sim" > /dev/null 2>&1
fi
if [ ! -f "$node/done" ]; then
  rm -rf "$node" "$plain"
  python3 - "$sim" "$node" "$plain" <<'PY'
import gzip, os, sys
src, dst, flat = sys.argv[1], sys.argv[2], sys.argv[3]
PART = 16 * 1024
for i, name in enumerate(sorted(f for f in os.listdir(src) if f.endswith(".log"))):
    pod = name[:-4].lower().replace("_", "-").replace(".", "-")
    d = os.path.join(dst, "pods", f"connect_{pod}_0f1e2d3c-0000-4000-8000-{i:012x}", "connect")
    os.makedirs(d)
    lines = open(os.path.join(src, name), "rb").read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    third = len(lines) // 3
    segments = [("0.log.20250304-091500.gz", lines[:third]),
                ("0.log.20250304-101500", lines[third:2 * third]),
                ("0.log", lines[2 * third:])]
    # The plain pair: the same rotation of the worker's own file.
    wd = os.path.join(flat, pod)
    os.makedirs(wd)
    for fname, seg in (("connect.log.2.gz", lines[:third]), ("connect.log.1", lines[third:2 * third]), ("connect.log", lines[2 * third:])):
        data = b"".join(l + b"\n" for l in seg)
        path = os.path.join(wd, fname)
        if fname.endswith(".gz"):
            with gzip.open(path, "wb", compresslevel=6) as f:
                f.write(data)
        else:
            open(path, "wb").write(data)
    n = 0
    for fname, seg in segments:
        out = bytearray()
        for line in seg:
            parts = [line[k:k + PART] for k in range(0, len(line), PART)] or [b""]
            for k, p in enumerate(parts):
                n += 1
                tag = b"F" if k == len(parts) - 1 else b"P"
                out += b"2025-03-04T10:%02d:%02d.%09dZ stdout %s " % ((n // 60_000_000) % 60, (n // 1_000_000) % 60, n % 1_000_000_000, tag)
                out += p + b"\n"
        path = os.path.join(d, fname)
        if fname.endswith(".gz"):
            with gzip.open(path, "wb", compresslevel=6) as f:
                f.write(out)
        else:
            open(path, "wb").write(out)
PY
  touch "$node/done"
fi
size() { du -sb "$@" | awk '{s += $1} END {printf "%.0f MiB", s / 2^20}'; }
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"; }
ratio() { python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f"{a:.3f} s / {b:.3f} s = {a/b:.2f}x")' "$1" "$2"; }
rss() { /usr/bin/time -f '%M' -o "$dir/cri-rss.txt" "$bin" "$@" > /dev/null || true; python3 -c 'import sys; print(f"{int(sys.argv[1])/1024:.1f} MiB")' "$(tail -1 "$dir/cri-rss.txt")"; }
find "$plain" "$node" -type f -exec cat {} + > /dev/null
"$bin" --format jsonl "$plain" > "$dir/cri-plain.jsonl" || true
"$bin" --format jsonl "$node" > "$dir/cri-node.jsonl" || true
same=$(python3 - "$dir/cri-plain.jsonl" "$dir/cri-node.jsonl" <<'PY'
import json, sys
def kinds(p):
    out = []
    for l in open(p):
        try:
            r = json.loads(l)
        except ValueError:
            continue
        if isinstance(r, dict) and "kind" in r and "trigger" in r:
            out.append((r["kind"], json.dumps(r.get("resource"), sort_keys=True), r["trigger"].get("text")))
    return sorted(out)
a, b = kinds(sys.argv[1]), kinds(sys.argv[2])
print(f"{len(a)} / {len(b)} findings, {'same' if a == b else 'DIFFERENT'}")
PY
)
hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$dir/cri.json" \
  "$bin -j 1 --format jsonl $plain" "$bin -j 1 --format jsonl $node" \
  "$bin -j 2 --format jsonl $plain" "$bin -j 2 --format jsonl $node" > /dev/null || true
printf '%-44s %s\n' "archive" "figure"
printf '%-44s %s\n' "plain ($(size "$plain")), CRI node ($(size "$node/pods"))" "$same"
printf '%-44s %s\n' "-j 1, CRI node against plain" "$(ratio "$(median "$dir/cri.json" 1)" "$(median "$dir/cri.json" 0)")"
printf '%-44s %s\n' "-j 2, CRI node against plain" "$(ratio "$(median "$dir/cri.json" 3)" "$(median "$dir/cri.json" 2)")"
printf '%-44s %s / %s\n' "peak RSS -j 2, plain / CRI node" "$(rss -j 2 --format jsonl "$plain")" "$(rss -j 2 --format jsonl "$node")"
echo "load: $(uptime)"
