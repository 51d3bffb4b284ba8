#!/usr/bin/env bash
# The HTML report of the benchmark archive (24 workers, 6 million lines: the
# archive benches/archive.sh builds, same simulator flags) and how a browser
# copes with it. Prints, as medians of RUNS runs:
#   1. writing the report (--format html) against --format jsonl of the same
#      archive: time, peak RSS, output size
#   2. headless Chromium (a fresh one per run, driven over the DevTools
#      protocol on a pipe) loading the report: from navigating to the load
#      event and to the first frame drawn after it, against an empty page;
#      and the page's own figures (JSON.parse, drawing)
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
cargo build --profile dist --locked --quiet
bin=$PWD/target/dist/herder-audit
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

python3 - "$bin" "$browser" "$dir" "$runs" "${logs[@]}" <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time
bin, browser, d, runs, logs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
page = os.path.join(d, "a1.html")
med = statistics.median

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

class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe
    (--remote-debugging-pipe: commands on its fd 3, replies on its fd 4,
    each a JSON text ended by a NUL byte)."""

    def __init__(self):
        self.prof = tempfile.mkdtemp(prefix="html-bench-")
        r1, self.w = os.pipe()
        self.r, w2 = os.pipe()

        def fds():
            a, b = os.dup(r1), os.dup(w2)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
             f"--user-data-dir={self.prof}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.buf, self.n = b"", 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)

    def send(self, method, params=None, session=False):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return self.n

    def recv(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                sys.exit("html.sh: chromium closed the DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=False):
        i = self.send(method, params, session)
        while True:
            m = self.recv()
            if m.get("id") == i:
                if "error" in m:
                    sys.exit(f"html.sh: {method}: {m['error']}")
                return m.get("result", {})

    def load(self, url):
        """Seconds from navigating to the load event and to the second
        animation frame after it (the page drawn), and the data attributes
        the page set on <html>."""
        t = time.perf_counter()
        self.send("Page.navigate", {"url": url}, session=True)
        while self.recv().get("method") != "Page.loadEventFired":
            pass
        loaded = time.perf_counter() - t
        js = ("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => "
              "r(JSON.stringify(Object.assign({}, document.documentElement.dataset))))))")
        v = self.call("Runtime.evaluate", {"expression": js, "awaitPromise": True, "returnByValue": True}, session=True)
        return loaded, time.perf_counter() - t, json.loads(v["result"]["value"])

    def close(self):
        self.send("Browser.close")
        self.proc.wait(timeout=60)
        shutil.rmtree(self.prof, ignore_errors=True)

def fresh(url):
    b = Chromium()
    try:
        return b.load(url)
    finally:
        b.close()

base = [fresh("file://" + os.path.join(d, "empty.html")) for _ in range(runs)]
loads = [fresh("file://" + page) for _ in range(runs)]
benches = [fresh("file://" + page + "#bench")[2] for _ in range(runs)]
for _, _, a in loads + [(0, 0, b) for b in benches]:
    if a.get("rendered") != "1" or "jsErrors" in a:
        sys.exit(f"html.sh: the page did not render cleanly: {a}")
f = lambda a, k: float(a[k])
print(f"archive: {len(logs)} worker logs, {sum(os.path.getsize(l) for l in logs) / 2**30:.2f} GiB; "
      f"report {os.path.getsize(page) / 2**20:.1f} MiB, {loads[0][2].get('lanes')} lanes; medians of {runs} runs")
print(f"1. --format html:  {med([h[0] for h in html]):.2f} s, {med([h[1] for h in html]) / 1024:.1f} MiB peak RSS"
      f"   (--format jsonl: {med([j[0] for j in jsonl]):.2f} s, {med([j[1] for j in jsonl]) / 1024:.1f} MiB)")
print(f"2. chromium load:  drawn {med([l[1] for l in loads]):.2f} s after navigating (an empty page: "
      f"{med([b[1] for b in base]):.2f} s), load event at {med([l[0] for l in loads]):.2f} s; in the page: "
      f"JSON.parse {med([f(l[2], 'parseMs') for l in loads]):.0f} ms, drawing {med([f(l[2], 'renderMs') for l in loads]):.0f} ms")
print(f"3. redraws:        median {med([f(b, 'benchMedianMs') for b in benches]):.0f} ms, slowest "
      f"{max(f(b, 'benchMaxMs') for b in benches):.0f} ms over {benches[0].get('benchRedraws')} redraws per run "
      f"(zoom in, pan, zoom out, generation by generation)")
PY
