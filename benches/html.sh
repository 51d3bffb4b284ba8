#!/usr/bin/env bash
# The HTML report of the benchmark archive (24 workers, 6 million lines: the
# archive benches/archive.sh builds, same simulator flags) and how a browser
# copes with it. Prints, as medians of RUNS runs:
#   1. writing the report (--format html) against --format jsonl of the same
#      archive: time, peak RSS, output size
#   2. headless Chromium loading the report: wall time of a run against the
#      same browser on an empty page, and the page's own figures (from
#      navigation start to the timeline drawn, JSON.parse, drawing)
#   3. redraws while zooming, panning and stepping through generations
#      (the page's `#bench` mode): median and slowest
# Needs: python3, GNU time and Debian's chromium (or HERDER_AUDIT_CHROMIUM).
# Usage: benches/html.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
browser="${HERDER_AUDIT_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
for tool in python3 /usr/bin/time "$browser"; do
  [ -n "$tool" ] && command -v "$tool" >/dev/null || { echo "html.sh: ${tool:-chromium} is needed" >&2; exit 2; }
done
cargo build --release --locked --quiet
bin=$PWD/target/release/herder-audit
dir="${BENCH_DIR:-target/bench}"
mkdir -p "$dir"
if [ ! -f "$dir/a1/truth.json" ]; then
  rm -rf "${dir:?}/a1"
  "$bin" simulate --workers 24 --connectors 40 --events 400 --noise 0.9 --seed 7 --out "$dir/a1" >&2
fi
dir=$(cd "$dir" && pwd)
logs=("$dir"/a1/*.log)
cat "${logs[@]}" > /dev/null # warm the page cache
printf '<!DOCTYPE html><html><body></body></html>\n' > "$dir/empty.html"

python3 - "$bin" "$browser" "$dir" "$runs" "${logs[@]}" <<'EOF'
import os, re, shutil, statistics, subprocess, sys, tempfile, time
bin, browser, d, runs, logs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
page = os.path.join(d, "a1.html")

def timed(args):
    t = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-v"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t
    if out.returncode not in (0, 1):
        sys.exit(f"html.sh: {' '.join(args[:3])} failed: {out.stderr[-500:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1))
    return secs, rss

html = [timed([bin, "-j", "2", "--format", "html", "--output", page] + logs) for _ in range(runs)]
jsonl = [timed([bin, "-j", "2", "--format", "jsonl", "--output", os.devnull] + logs) for _ in range(runs)]
med = lambda xs: statistics.median(xs)

def chromium(url):
    prof = tempfile.mkdtemp(prefix="html-bench-")
    t = time.perf_counter()
    out = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
                          f"--user-data-dir={prof}", "--dump-dom", url],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=600)
    wall = time.perf_counter() - t
    shutil.rmtree(prof, ignore_errors=True)
    head = out.stdout[:4000]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', head.split(">", 2)[1] if ">" in head else ""))
    return wall, attrs

base = [chromium("file://" + os.path.join(d, "empty.html"))[0] for _ in range(runs)]
loads = [chromium("file://" + page) for _ in range(runs)]
benches = [chromium("file://" + page + "#bench")[1] for _ in range(runs)]
for _, a in loads:
    if a.get("rendered") != "1" or "js-errors" in a:
        sys.exit(f"html.sh: the page did not render cleanly: {a}")
f = lambda a, k: float(a[k])
size = os.path.getsize(page)
print(f"archive: {len(logs)} worker logs, {sum(os.path.getsize(l) for l in logs) / 2**30:.2f} GiB; report {size / 2**20:.1f} MiB; "
      f"{loads[0][1].get('lanes')} lanes; medians of {runs} runs")
print(f"1. --format html:  {med([h[0] for h in html]):.2f} s, {med([h[1] for h in html]) / 1024:.1f} MiB peak RSS"
      f"   (--format jsonl: {med([j[0] for j in jsonl]):.2f} s, {med([j[1] for j in jsonl]) / 1024:.1f} MiB)")
load = med([l[0] for l in loads])
print(f"2. chromium load:  {load:.2f} s wall against {med(base):.2f} s for an empty page (+{load - med(base):.2f} s); "
      f"in the page, from navigation start: timeline drawn at {med([f(l[1], 'ready-ms') for l in loads]):.0f} ms "
      f"(JSON.parse {med([f(l[1], 'parse-ms') for l in loads]):.0f} ms, drawing {med([f(l[1], 'render-ms') for l in loads]):.0f} ms), "
      f"load event at {med([f(l[1], 'load-ms') for l in loads]):.0f} ms")
print(f"3. redraws:        median {med([f(b, 'bench-median-ms') for b in benches]):.0f} ms, slowest "
      f"{max(f(b, 'bench-max-ms') for b in benches):.0f} ms over {benches[0].get('bench-redraws')} redraws per run "
      f"(zoom in, pan, zoom out, generation by generation)")
EOF
