#!/usr/bin/env python3
"""What each config update of connector `a` cost the other connectors, from
the records (the `isolation` scenarios; issue 26 §4).

    conformance/isolation.py corpus/real-kafka/2.3.0/isolation corpus/real-kafka/2.3.1/isolation ...

For every update of a (a `PUT /connectors/a/config` answered 200 in the
capture's PROVENANCE.txt, or ground-truth/rest.jsonl of a run directory),
the other connectors' task handovers (checker.json: a new instance of the
task) whose first record came within 10 s after it, and the pause each
had (the last record of the old instance to the first of the new), however
short. Prints a Markdown table, one row per capture.
"""

import datetime
import json
import os
import re
import sys

WINDOW_MS = 10_000


def updates(capture):
    """Epoch ms of a's config updates."""
    out = []
    rest = os.path.join(capture, "ground-truth", "rest.jsonl")
    if os.path.exists(rest):
        for line in open(rest):
            r = json.loads(line)
            if r["method"] == "PUT" and r["path"] == "/connectors/a/config" and r["code"] == 200:
                out.append(r["t"])
    else:
        pat = re.compile(r"^\s+(\S+Z) REST PUT /connectors/a/config -> 200$")
        for line in open(os.path.join(capture, "PROVENANCE.txt")):
            m = pat.match(line)
            if m:
                out.append(m.group(1))
    return [int(datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000) for t in out]


def row(capture):
    with open(os.path.join(capture, "checker.json")) as f:
        doc = json.load(f)
    ups = updates(capture)
    per = []
    for u in ups:
        hit = [h for name, t in doc["tasks"].items() if not name.startswith("a-")
               for h in t["handovers"] if u <= h["first_ms"] <= u + WINDOW_MS]
        per.append((len(hit), sum(max(0, h["ms"]) for h in hit), max([0] + [h["ms"] for h in hit])))
    own = [h for name, t in doc["tasks"].items() if name.startswith("a-") for h in t["handovers"]
           for u in ups if u <= h["first_ms"] <= u + WINDOW_MS]
    return ups, per, own


def main(argv):
    print("| capture | a's updates | other tasks restarted per update | their downtime per update (sum, longest) | a's own restarts (median pause) |")
    print("|---|---|---|---|---|")
    for capture in argv:
        ups, per, own = row(capture)
        pauses = sorted(h["ms"] for h in own)
        med = pauses[len(pauses) // 2] if pauses else 0
        print(f"| {capture} | {len(ups)} | {', '.join(str(n) for n, _, _ in per)} | "
              f"{', '.join(f'{s} ms ({m} ms)' for _, s, m in per)} | {len(own)} ({med} ms) |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
