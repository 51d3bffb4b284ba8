#!/usr/bin/env python3
"""Detection latency of `herder-audit watch`: from the moment a finding's
proving line is in a log file to the moment `/metrics` counts the finding.
The proving line is the last written of the lines the finding quotes
(its trigger and evidence).

The measuring point does not depend on a Prometheus scrape: this probe
reads the logs' growth and `/metrics` every 2 ms itself. A thread stamps
each log line when it first sees it in its file; another reads
`herder_audit_findings_total` and, when the sum grows, takes the new
findings from the watcher's `-o` file and looks up when the lines they
quote (their whole text) were first seen.

Two uses:

  watch_latency.py probe --metrics URL --logs DIR --findings FILE --until PATH
      measure beside a live cluster until PATH exists (the real-Kafka
      end-to-end run, conformance/watch-e2e.sh);
  watch_latency.py sim BIN [SEEDS] [WORKDIR]
      the simulator's faults (3 workers, several seeds), each written into
      log files line by line with the log's own pacing around the proving
      lines (gaps capped at 50 ms), the watcher following them.

Both print one line per finding and a JSON summary line (median, p90,
p99, max in ms).

With RESTAMP=1, `sim` writes each line with the time it is written as its
time stamp (the log's order kept, its gaps as written): log time then
flows with the clock, as a live cluster's does, where the simulated logs
(the default) run ahead of it wherever their gaps are capped or written at
once. WATCH_ARGS adds flags to the watcher (`--quiet-bound 0`: the build's
behaviour without the quiet logs' clock bound).
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime

POLL = 0.002
FAULTS = ["kafka-8676", "spurious-stop", "double-start", "skip-revoked-stop",
          "skip-start", "offset-mismatch-start", "restart-moved-task",
          "poll-timeout-leave"]
WINDOW = 30
CAP_S = 0.05


class Lines(threading.Thread):
    """Stamps every complete line of the files under a directory when it
    first appears."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root = root
        self.seen = {}
        self.offsets = {}
        self.partial = {}
        self.lock = threading.Lock()
        self.stop = False

    def run(self):
        while not self.stop:
            now = time.perf_counter()
            for dirpath, _, names in os.walk(self.root):
                for n in names:
                    p = os.path.join(dirpath, n)
                    try:
                        with open(p, "rb") as f:
                            f.seek(self.offsets.get(p, 0))
                            data = f.read()
                    except OSError:
                        continue
                    if not data:
                        continue
                    self.offsets[p] = self.offsets.get(p, 0) + len(data)
                    data = self.partial.pop(p, b"") + data
                    *lines, rest = data.split(b"\n")
                    if rest:
                        self.partial[p] = rest
                    with self.lock:
                        for line in lines:
                            text = line.rstrip(b"\r").decode("utf-8", "replace")
                            self.seen.setdefault(text, now)
            time.sleep(POLL)

    def when(self, text):
        with self.lock:
            return self.seen.get(text)


def findings_sum(url):
    try:
        body = urllib.request.urlopen(url, timeout=2).read().decode()
    except OSError:
        return None
    total = 0.0
    for line in body.splitlines():
        if line.startswith("herder_audit_findings_total"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def measure(url, logs, findings_file, done):
    """Measures until done() is true; returns [(kind, trigger, ms)]."""
    lines = Lines(logs)
    lines.start()
    out = []
    last = 0.0
    read_at = 0
    while not done():
        s = findings_sum(url)
        now = time.perf_counter()
        if s is not None and s > last:
            last = s
            try:
                with open(findings_file, "rb") as f:
                    f.seek(read_at)
                    data = f.read()
            except OSError:
                data = b""
            cut = data.rfind(b"\n") + 1
            read_at += cut
            for raw in data[:cut].splitlines():
                v = json.loads(raw)
                text = v["trigger"]["text"]
                # The proving line: the last written of the lines it
                # quotes (a cross-worker zombie's trigger is the other
                # worker's start; what proves it comes later).
                quoted = [text] + [e["text"] for e in v.get("evidence", [])]
                seen = [lines.when(t) for t in quoted]
                if any(w is None for w in seen):
                    time.sleep(0.05)
                    seen = [lines.when(t) for t in quoted]
                seen = [w for w in seen if w is not None]
                written = max(seen) if seen else None
                ms = (now - written) * 1000 if written is not None else None
                out.append((v["kind"], text, ms))
                print(f"{v['kind']:24} {'?' if ms is None else f'{ms:8.1f} ms'}  {text[:100]}", flush=True)
        time.sleep(POLL)
    lines.stop = True
    return out


def summary(results, label):
    ms = sorted(m for _, _, m in results if m is not None)
    if not ms:
        print(json.dumps({"label": label, "findings": len(results)}))
        return
    def q(p):
        return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))]
    print(json.dumps({"label": label, "findings": len(ms), "median_ms": round(statistics.median(ms), 1),
                      "p90_ms": round(q(0.90), 1), "p99_ms": round(q(0.99), 1), "max_ms": round(ms[-1], 1),
                      "unmatched": sum(1 for r in results if r[2] is None)}))


def stamp(line):
    if line.startswith(b"[") and len(line) > 24 and line[5:6] == b"-":
        try:
            return datetime.strptime(line[1:24].decode(), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        except ValueError:
            return None
    return None


RESTAMP = os.environ.get("RESTAMP") == "1"


def restamp(line):
    """The line stamped now (RESTAMP=1), else as it is."""
    if not RESTAMP or stamp(line) is None:
        return line
    now = datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:23].encode()
    return line[:1] + now + line[24:]


def write_paced(sim, live, expected):
    """Writes the simulated workers' logs into `live`, merged in log-time
    order: at once, except WINDOW lines around each proving line, which
    are written one by one with the log's pacing (capped at CAP_S)."""
    files = {}
    merged = []
    for name in sorted(os.listdir(sim)):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(sim, name), "rb") as f:
            lines = f.read().splitlines(keepends=True)
        prev = 0.0
        for n, line in enumerate(lines, start=1):
            prev = stamp(line) or prev
            merged.append((prev, name, n, line))
        files[name] = open(os.path.join(live, name), "ab", buffering=0)
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    paced = {(e["file"], n) for e in expected
             for n in range(max(1, e["line"] - WINDOW), e["line"] + WINDOW + 1)}
    batch = {}
    prev = None
    for ts, name, n, line in merged:
        if (name, n) not in paced:
            batch.setdefault(name, []).append(restamp(line))
            prev = ts
            continue
        for k, v in batch.items():
            files[k].write(b"".join(v))
        batch = {}
        if prev is not None:
            time.sleep(min(CAP_S, max(0.0, ts - prev)))
        files[name].write(restamp(line))
        prev = ts
    for k, v in batch.items():
        files[k].write(b"".join(v))
    for f in files.values():
        f.close()


def sim(binary, seeds, work):
    results = []
    port = 19472
    for seed in range(1, seeds + 1):
        for fault in FAULTS:
            d = os.path.join(work, f"{fault}-{seed}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            simdir = os.path.join(d, "sim")
            subprocess.run([binary, "simulate", "--workers", "3", "--events", "30", "--noise", "0.5",
                            "--fault", fault, "--seed", str(seed), "--out", simdir],
                           check=True, stderr=subprocess.DEVNULL)
            with open(os.path.join(simdir, "truth.json")) as f:
                expected = json.load(f)["expected"]
            if not expected:
                continue
            live = os.path.join(d, "live")
            os.makedirs(live)
            # The logs exist when the watcher starts, as a running
            # cluster's do (a log that appears later joins the others up
            # to a second late: the rescan's period).
            for name in os.listdir(simdir):
                if name.endswith(".log"):
                    open(os.path.join(live, name), "wb").close()
            findings = os.path.join(d, "findings.jsonl")
            url = f"http://127.0.0.1:{port}/metrics"
            w = subprocess.Popen([binary, "watch", live, "--listen", f"127.0.0.1:{port}", "-o", findings,
                                  "-j", "1"] + os.environ.get("WATCH_ARGS", "").split(), stderr=subprocess.DEVNULL)
            while findings_sum(url) is None:
                time.sleep(0.01)
            finished = threading.Event()

            def writer():
                write_paced(simdir, live, expected)
                time.sleep(2.0)
                finished.set()

            t = threading.Thread(target=writer)
            t.start()
            results += measure(url, live, findings, finished.is_set)
            t.join()
            w.terminate()
            w.wait()
    return results


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "probe":
        args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
        until = args["--until"]
        res = measure(args["--metrics"], args["--logs"], args["--findings"], lambda: os.path.exists(until))
        summary(res, args.get("--label", "live"))
    elif len(sys.argv) > 2 and sys.argv[1] == "sim":
        binary = sys.argv[2]
        seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 4
        work = sys.argv[4] if len(sys.argv) > 4 else "target/watch-latency"
        summary(sim(binary, seeds, work), "simulated faults")
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
