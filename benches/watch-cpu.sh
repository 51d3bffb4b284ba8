#!/usr/bin/env bash
# CPU of `herder-audit watch` under sustained input: 1,000 lines a second
# (the simulated month's lines, as they come: lifecycle lines and the
# rest) appended to 20 workers' logs in 10 ms batches for DURATION seconds
# (default 60), the watcher following them; its user+system CPU time over
# that period as a share of one core, against an idle watcher (no lines)
# measured the same way in the same run. Target: at most 2 % of a core per
# 1,000 lines/s.
#
#   benches/watch-cpu.sh [DURATION] [LINES_PER_SECOND]
#   BIN=path/to/herder-audit benches/watch-cpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${BIN:-target/dist/herder-audit}"
[ -n "${BIN:-}" ] || cargo build --profile dist --locked --quiet
duration="${1:-60}"
rate="${2:-1000}"
src=target/watch-month/logs
[ -f "$src/connect-1.log" ] || { echo "benches/watch-cpu.sh: run benches/watch-month.sh first (it makes the logs)" >&2; exit 1; }
python3 - "$bin" "$src" "$duration" "$rate" <<'PY'
import os, shutil, subprocess, sys, time
binary, src, duration, rate = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
tick = os.sysconf("SC_CLK_TCK")

def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick

def run(label, lines_per_s):
    live = f"target/watch-cpu/{label}"
    shutil.rmtree(live, ignore_errors=True)
    os.makedirs(live)
    readers = [open(os.path.join(src, f"connect-{w}.log"), "rb") for w in range(1, 21)]
    outs = [open(os.path.join(live, f"connect-{w}.log"), "ab", buffering=0) for w in range(1, 21)]
    # A first line each, so that every stream exists.
    for r, o in zip(readers, outs):
        o.write(r.readline())
    w = subprocess.Popen([binary, "watch", live, "--listen", "127.0.0.1:19473", "-j", "1", "-o", f"{live}.jsonl"],
                         stderr=subprocess.DEVNULL)
    time.sleep(3)
    c0, t0 = cpu(w.pid), time.time()
    n, step = 0, 0.01
    per_step = lines_per_s * step
    due = 0.0
    end = t0 + duration
    i = 0
    while time.time() < end:
        due += per_step
        while n < due:
            k = i % 20
            line = readers[k].readline()
            if line:
                outs[k].write(line)
            n += 1
            i += 1
        time.sleep(max(0.0, t0 + (n / lines_per_s if lines_per_s else 0) - time.time()) if lines_per_s else step)
    c1, t1 = cpu(w.pid), time.time()
    w.terminate(); w.wait()
    share = (c1 - c0) / (t1 - t0) * 100
    return share, n / (t1 - t0)

idle, _ = run("idle", 0)
busy, actual = run("busy", rate)
per_k = (busy - idle) / (actual / 1000) if actual else 0
print(f"idle watcher: {idle:.2f} % of a core; {actual:.0f} lines/s: {busy:.2f} % of a core; "
      f"{per_k:.2f} % per 1,000 lines/s above idle ({busy / (actual / 1000):.2f} % with the idle cost)")
PY
