#!/usr/bin/env python3
"""Latency of live findings (issue 9), driven by benches/latency.sh.

From the moment a finding's trigger line has been written into the pipe
to the moment the finding is readable on herder-audit's standard output,
for single-worker findings. The traces come from the simulator's faults
(`simulate --fault KIND`, several seeds); truth.json names the file and
line of every expected finding. Each trace holding a worker-scope finding
is fed to `herder-audit --format jsonl` through a pipe, one write per
line, as a worker would log it: lines before a trigger are written at
once, then from WINDOW lines before the trigger to WINDOW lines after it
with the log's own pacing (the time stamps' differences, capped at
CAP_MS: a line stamped like the one before follows at once), then the
rest at once. A reader thread stamps each finding as it arrives.

Usage: latency.py BIN [SEEDS] [WORKDIR]   (prints a table and one JSON line)
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime

FAULTS = ["kafka-8676", "spurious-stop", "double-start", "skip-revoked-stop",
          "skip-start", "offset-mismatch-start", "restart-moved-task"]
WINDOW = 30
CAP_MS = 50


def stamp(line):
    """Log time (s) of an apache-layout line, or None."""
    if line.startswith(b"[") and len(line) > 24 and line[5:6] == b"-":
        try:
            t = datetime.strptime(line[1:24].decode(), "%Y-%m-%d %H:%M:%S,%f")
            return t.timestamp()
        except ValueError:
            return None
    return None


def feed(binary, path, triggers):
    """Feeds one trace; returns [(kind, line, latency s)] for `triggers`
    ({line: [kinds]}), and the findings that never came."""
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    audit = subprocess.Popen([binary, "--format", "jsonl", "--no-summary"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             bufsize=0)
    arrived = {}
    lock = threading.Lock()

    def read():
        for raw in audit.stdout:
            t = time.perf_counter()
            v = json.loads(raw)
            if v.get("type") != "finding":
                continue
            key = (v["kind"], v["trigger"]["line"])
            with lock:
                arrived.setdefault(key, []).append(t)

    reader = threading.Thread(target=read)
    reader.start()
    fd = audit.stdin.fileno()
    paced = set()
    for t in triggers:
        paced.update(range(max(1, t - WINDOW), t + WINDOW + 1))
    written = {}
    prev = None
    pending = []
    for n, line in enumerate(lines, start=1):
        if n not in paced:
            pending.append(line)
            prev = stamp(line) or prev
            continue
        if pending:
            os.write(fd, b"".join(pending))
            pending = []
        ts = stamp(line)
        if ts is not None and prev is not None and ts > prev:
            time.sleep(min(ts - prev, CAP_MS / 1000))
        prev = ts or prev
        os.write(fd, line)
        if n in triggers:
            written[n] = time.perf_counter()
    if pending:
        os.write(fd, b"".join(pending))
    audit.stdin.close()
    audit.wait()
    reader.join()
    out, missing = [], []
    for n, kinds in triggers.items():
        for k in kinds:
            got = arrived.get((k, n))
            if got:
                out.append((k, n, got.pop(0) - written[n]))
            else:
                missing.append((k, n))
    return out, missing


def main():
    binary = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    work = sys.argv[3] if len(sys.argv) > 3 else "target/bench/latency"
    os.makedirs(work, exist_ok=True)
    load_before = os.getloadavg()
    results, missing = [], []
    for fault in FAULTS:
        for seed in range(1, seeds + 1):
            out = os.path.join(work, "sim")
            shutil.rmtree(out, ignore_errors=True)
            subprocess.run([binary, "simulate", "--workers", "3", "--connectors", "4",
                            "--events", "20", "--noise", "0.3", "--seed", str(seed),
                            "--fault", fault, "--out", out],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(os.path.join(out, "truth.json")) as f:
                truth = json.load(f)
            per_file = {}
            for e in truth["expected"]:
                if e.get("scope") != "worker":
                    continue
                per_file.setdefault(e["file"], {}).setdefault(e["line"], []).append(e["kind"])
            for name, triggers in sorted(per_file.items()):
                got, lost = feed(binary, os.path.join(out, name), triggers)
                results.extend(got)
                missing.extend((fault, seed, name, k, n) for k, n in lost)
    load_after = os.getloadavg()
    by_kind = {}
    for k, _, lat in results:
        by_kind.setdefault(k, []).append(lat * 1000)
    print(f"{'kind':<24} {'n':>4} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    rows = sorted(by_kind.items()) + [("all but foreign-start",
                                       [l for k, v in by_kind.items() if k != "foreign-start" for l in v])]
    summary = {}
    for k, v in rows:
        if not v:
            continue
        v = sorted(v)
        med, p90, mx = statistics.median(v), v[int(0.9 * (len(v) - 1))], v[-1]
        summary[k] = {"n": len(v), "median_ms": round(med, 1), "p90_ms": round(p90, 1),
                      "max_ms": round(mx, 1)}
        print(f"{k:<24} {len(v):>4} {med:>10.1f} {p90:>8.1f} {mx:>8.1f}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"({os.cpu_count()} cores); findings that never came: {len(missing)}")
    for m in missing:
        print("  missing:", m)
    print(json.dumps({"summary": summary, "missing": len(missing),
                      "load": [round(load_before[0], 2), round(load_after[0], 2)]}))


if __name__ == "__main__":
    main()
