#!/usr/bin/env python3
"""The chaos scenario's generator (Jepsen's nemesis schedule): a seeded random
schedule of the faults and operations the harness has, as data.

    conformance/chaos.py --seed 7 --workers 4 --duration 180 --release 3.9.1 [--partition] [--out schedule.json]

The same arguments give the same schedule (Python's random.Random(seed)); the
schedule depends on nothing else. It prints one line per event for the
scenario to execute, `<t> <op> <target> <value>` (t: seconds after the
schedule starts; `-` for no value), and writes the whole schedule with its
inputs as JSON to --out.

Operations: SIGKILL of a worker and its start again (kill/start), SIGTERM and
start again (term/start), SIGSTOP past the session timeout and SIGCONT
(freeze/thaw), a worker cut off from everything and healed (cut/heal; only
with --partition), a connector's config updated (config), the several-task
connector's tasks.max up or down (tasks), pause/resume, stop/resume (3.5+),
delete and create again (delete/create), REST restarts of a connector, of
one task, or of the connector and all its tasks (restart; `all` is 3.0+).
Constraints that keep the cluster able to recover: at most two workers
faulty at once (at least two of four healthy), at most one cut off at once,
one operation in flight per connector (a paused connector is resumed, a
deleted one created again, before anything else touches it).
"""

import argparse
import json
import random
import sys

CONNECTORS = {"c1": 1, "c2": 3, "c3": 2, "sink": 2}
# the connector whose tasks.max goes up and down
SEVERAL = "c2"
WEIGHTS = {
    "kill": 10, "term": 6, "freeze": 10, "cut": 6,
    "config": 10, "tasks": 8, "pause": 6, "stop": 4, "delete": 6, "restart": 10,
}


def version(v):
    return tuple(int(x) for x in v.split("-")[0].split(".")[:3] if x.isdigit())


def schedule(seed, workers, duration, release, partition):
    rng = random.Random(seed)
    has_stop = version(release) >= (3, 5, 0)
    has_restart_all = version(release) >= (3, 0, 0)
    faulty_until = {w: 0.0 for w in range(1, workers + 1)}
    cut_until = 0.0
    busy_until = {c: 0.0 for c in CONNECTORS}
    tasks = dict(CONNECTORS)
    events = []
    t = 0.0

    def ev(at, op, target, value="-"):
        events.append({"t": round(at, 1), "op": op, "target": str(target), "value": str(value)})

    while True:
        t += rng.uniform(4.0, 14.0)
        if t >= duration:
            break
        ops = [o for o in WEIGHTS if (o != "cut" or partition) and (o != "stop" or has_stop)]
        op = rng.choices(ops, weights=[WEIGHTS[o] for o in ops])[0]
        if op in ("kill", "term", "freeze", "cut"):
            healthy = [w for w, u in faulty_until.items() if u <= t]
            if len(healthy) <= workers - 2 or (op == "cut" and cut_until > t) or not healthy:
                continue
            w = rng.choice(healthy)
            if op == "kill":
                d = rng.uniform(5.0, 30.0)
                ev(t, "kill", f"w{w}"); ev(t + d, "start", f"w{w}")
                faulty_until[w] = t + d + 10.0
            elif op == "term":
                d = rng.uniform(3.0, 15.0)
                ev(t, "term", f"w{w}"); ev(t + d, "start", f"w{w}")
                faulty_until[w] = t + d + 10.0
            elif op == "freeze":
                d = rng.uniform(12.0, 35.0)
                ev(t, "freeze", f"w{w}"); ev(t + d, "thaw", f"w{w}")
                faulty_until[w] = t + d + 5.0
            else:
                d = rng.uniform(12.0, 35.0)
                ev(t, "cut", f"w{w}"); ev(t + d, "heal", f"w{w}")
                faulty_until[w] = cut_until = t + d + 5.0
            continue
        free = [c for c, u in busy_until.items() if u <= t]
        if not free:
            continue
        c = SEVERAL if op == "tasks" else rng.choice(free)
        if busy_until[c] > t:
            continue
        if op == "config":
            ev(t, "config", c)
        elif op == "tasks":
            n = rng.choice([k for k in range(1, 5) if k != tasks[c]])
            tasks[c] = n
            ev(t, "tasks", c, n)
        elif op in ("pause", "stop"):
            d = rng.uniform(3.0, 15.0)
            ev(t, op, c); ev(t + d, "resume", c)
            busy_until[c] = t + d + 1.0
        elif op == "delete":
            d = rng.uniform(3.0, 15.0)
            ev(t, "delete", c); ev(t + d, "create", c)
            busy_until[c] = t + d + 1.0
        else:
            scopes = ["connector", "task"] + (["all"] if has_restart_all else [])
            scope = rng.choice(scopes)
            ev(t, "restart", c, f"task:{rng.randrange(tasks[c])}" if scope == "task" else scope)
    events.sort(key=lambda e: e["t"])
    return {
        "inputs": {"seed": seed, "workers": workers, "duration_s": duration, "release": release,
                   "partition": partition, "stop": has_stop, "restart_all": has_restart_all},
        "connectors": CONNECTORS,
        "events": events,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--duration", type=float, default=180.0)
    ap.add_argument("--release", required=True)
    ap.add_argument("--partition", action="store_true", help="the machine can cut a worker off (root, iptables, cgroup v2)")
    ap.add_argument("--out", help="write the schedule and its inputs as JSON here")
    a = ap.parse_args(argv)
    if a.workers < 2:
        ap.error("--workers must be 2 or more")
    s = schedule(a.seed, a.workers, a.duration, a.release, a.partition)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
    for e in s["events"]:
        print(f"{e['t']} {e['op']} {e['target']} {e['value']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
