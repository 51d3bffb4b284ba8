#!/usr/bin/env python3
"""Memory over days of following (issue 9), driven by benches/follow.sh.

Feeds `herder-audit --format jsonl` (reading standard input: live input)
through a pipe with a stream generated on the fly: REPS runs of the
simulator (the benchmark archive's cluster: 24 workers, 40 connectors,
EVENTS events, noise 0.9, seed 7; with MODE `seeds`, seeds 7, 8, … so that
every run is another history), each run's 24 worker logs
interleaved in time order into one `docker compose logs -f`-style stream
(`connect-N  | ` before every line), its time stamps moved on so that log
time only goes forward from run to run (each run starts two days after the
previous one ended: the workers restart, the group's generations start
again). Samples the audit's resident set (/proc/PID/status) after every
GiB written and reports its peak (VmHWM and getrusage's ru_maxrss, which
GNU time -v prints as "Maximum resident set size").

Usage: follow.py BIN REPS [EVENTS] [WORKDIR] [same|seeds]   (prints one JSON line)
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

RECORD = re.compile(rb"\n(?=\[\d{4}-\d\d-\d\d )")


def simulate(binary, seed, events, out):
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(
        [binary, "simulate", "--workers", "24", "--connectors", "40",
         "--events", str(events), "--noise", "0.9", "--seed", str(seed),
         "--out", out],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def records(out):
    """Every record (a line and its continuation lines) of every worker
    log in `out`, as (time stamp, worker, record), in time order."""
    recs = []
    for name in sorted(os.listdir(out)):
        if not name.endswith(".log"):
            continue
        worker = name[:-4].encode()
        with open(os.path.join(out, name), "rb") as f:
            data = f.read()
        for r in RECORD.split(data.rstrip(b"\n")):
            recs.append((r[1:24], worker, r))
    recs.sort(key=lambda t: (t[0], t[1]))
    return recs


def shifted(day, by):
    d = datetime.date.fromisoformat(day.decode()) + datetime.timedelta(days=by)
    return d.isoformat().encode()


def status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def main():
    binary, reps = sys.argv[1], int(sys.argv[2])
    events = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    work = sys.argv[4] if len(sys.argv) > 4 else "target/bench/follow"
    mode = sys.argv[5] if len(sys.argv) > 5 else "same"
    os.makedirs(work, exist_ok=True)
    sim = os.path.join(work, "sim")
    audit = subprocess.Popen([binary, "--format", "jsonl"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # The findings are read (and counted) as they come.
    import threading
    counts = {"findings": 0, "summary": None}

    def read():
        for line in audit.stdout:
            if line.startswith(b'{"bytes"') or b'"type":"summary"' in line:
                counts["summary"] = json.loads(line)
            else:
                counts["findings"] += 1

    reader = threading.Thread(target=read)
    reader.start()
    written = 0
    next_sample = 1 << 30
    samples = []
    shift = 0
    started = time.time()
    last_day = None
    for rep in range(reps):
        simulate(binary, 7 + (rep if mode == "seeds" else 0), events, sim)
        recs = records(sim)
        first = datetime.date.fromisoformat(recs[0][0][:10].decode())
        if last_day is not None:
            # Two days after the previous run's last day.
            shift = (last_day - first).days + 2
        days = {}
        buf = []
        size = 0
        for _, worker, r in recs:
            day = r[1:11]
            new = days.get(day)
            if new is None:
                new = days[day] = shifted(day, shift)
            prefix = worker + b"  | "
            body = b"[" + new + r[11:]
            if b"\n" in body:
                body = body.replace(b"\n", b"\n" + prefix)
            buf.append(prefix)
            buf.append(body)
            buf.append(b"\n")
            size += len(prefix) + len(body) + 1
            if size >= 1 << 20:
                audit.stdin.write(b"".join(buf))
                written += size
                buf, size = [], 0
                if written >= next_sample:
                    s = status(audit.pid)
                    samples.append({"gib": round(written / (1 << 30), 2), **s})
                    next_sample += 1 << 30
        audit.stdin.write(b"".join(buf))
        written += size
        last_day = max(datetime.date.fromisoformat(d.decode()) for d in days) + \
            datetime.timedelta(days=shift)
        del recs
    shutil.rmtree(sim, ignore_errors=True)
    final = status(audit.pid)
    audit.stdin.close()
    _, code, usage = os.wait4(audit.pid, 0)
    reader.join()
    summary = counts["summary"] or {}
    print(json.dumps({
        "reps": reps,
        "mode": mode,
        "bytes": written,
        "seconds": round(time.time() - started, 1),
        "exit": os.waitstatus_to_exitcode(code),
        "findings": counts["findings"],
        "lines": summary.get("lines"),
        "workers": summary.get("workers"),
        "generations": summary.get("generations"),
        "vm_hwm_kib_before_close": final.get("VmHWM"),
        "max_rss_kib": usage.ru_maxrss,
        "samples": samples,
    }))


if __name__ == "__main__":
    main()
