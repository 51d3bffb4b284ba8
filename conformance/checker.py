#!/usr/bin/env python3
"""The checker of the real-Kafka harness: a program over the recorded history.

Every counting source task (conformance/test-connector/) writes a record every
100 ms naming its producer: task, worker, pid, instance (new at every start()),
sequence number and the worker's clock. From the records topic's dump this
derives, per task: its instances and their lifetimes, **overlaps** (two
instances producing in the same interval: a zombie in fact), **gaps** (no
instance producing for GAP ms or more: an interruption) and **replays** (an
instance re-sending sequence numbers an earlier one sent: at-least-once
delivery after a restart, not a fault). Given the audit's JSON report, it then
compares: every overlap of OVERLAP ms or more must be matched by a `zombie`
finding on that task, every `zombie` finding by an overlap, or, for a resource
that writes no records (a connector, a sink task, a FileStream task), by
Kafka's own lines (the finding's evidence). The schema of checker.json is in
docs/real-kafka.md ("The checker").

    conformance/checker.py --records ground-truth/records.txt [--audit audit.json] [--out checker.json]
    conformance/checker.py --capture corpus/real-kafka/3.9.1/chaos-s7 --audit-bin target/release/herder-audit
    conformance/checker.py --summary corpus/real-kafka     # the aggregate of every checker.json below

Exit status: 0 when every overlap is caught and every zombie finding
confirmed, 1 otherwise, 2 when the input cannot be read.
"""

import argparse
import datetime
import gzip
import json
import os
import re
import subprocess
import sys

SCHEMA = 1
OVERLAP_MS = 200
GAP_MS = 300
# how far before an overlap a zombie finding's trigger line may lie (a
# frozen worker's task overlaps its new owner's only when it resumes) and
# how far after it
MATCH_BEFORE_MS = 60_000
MATCH_AFTER_MS = 10_000


class InputError(Exception):
    pass


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def iso(ms):
    if ms is None:
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_log_time(text):
    """A log's ISO time (herder-audit's trigger timestamps: the worker's local
    time, the harness's machines run in UTC) as epoch milliseconds."""
    if not text:
        return None
    try:
        t = datetime.datetime.fromisoformat(text.replace(",", "."))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return int(t.timestamp() * 1000)


# ---------------------------------------------------------------- records

FIELDS = ("task", "worker", "pid", "instance", "seq", "time")


def parse_record_line(line):
    """One line of the console consumer's dump: optional `Name:value` fields
    separated by tabs (CreateTime/LogAppendTime, Partition, Offset), then the
    record's JSON value. Returns a dict, or None for a line that is not a
    producer-named record."""
    i = line.find("{")
    if i < 0:
        return None
    try:
        value = json.loads(line[i:])
    except ValueError:
        return None
    if not isinstance(value, dict) or any(k not in value for k in FIELDS):
        return None
    if not isinstance(value["seq"], int) or not isinstance(value["time"], int):
        return None
    rec = {k: value[k] for k in FIELDS}
    rec["worker"] = str(rec["worker"])
    rec["instance"] = str(rec["instance"])
    rec["task"] = str(rec["task"])
    rec["append"] = None
    rec["offset"] = None
    for field in line[:i].split("\t"):
        name, _, v = field.strip().partition(":")
        if name == "LogAppendTime" and v.lstrip("-").isdigit():
            rec["append"] = int(v)
        elif name == "Offset" and v.isdigit():
            rec["offset"] = int(v)
    return rec


def read_records(path):
    records, malformed = [], []
    try:
        with open_text(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                rec = parse_record_line(line)
                if rec is None:
                    malformed.append(n)
                else:
                    rec["line"] = n
                    records.append(rec)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from e
    return records, malformed


def clock_offsets(records):
    """Per worker JVM (worker, pid): the broker's clock minus the worker's, as
    the least (append time - record time) over its records when the topic
    stamps LogAppendTime (each worker's own clock may be skewed: clock-skew);
    0 when it does not."""
    out = {}
    for r in records:
        if r["append"] is None:
            continue
        key = (r["worker"], r["pid"])
        d = r["append"] - r["time"]
        if key not in out or d < out[key]:
            out[key] = d
    return out


def segments(times, gap_ms):
    """Runs of times (sorted) with no step of gap_ms or more: [start, end]."""
    out = []
    for t in times:
        if out and t - out[-1][1] < gap_ms:
            out[-1][1] = t
        else:
            out.append([t, t])
    return out


def intersect(a, b):
    """Total length and first/last instant of the intersection of two lists
    of [start, end] segments."""
    total, first, last = 0, None, None
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
            first = lo if first is None else first
            last = hi
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total, first, last


def point(r):
    return {"instance": r["instance"], "worker": r["worker"], "pid": r["pid"], "seq": r["seq"],
            "time_ms": r["time"], "at_ms": r["at"], "at": iso(r["at"])}


def check_task(task, recs, gap_ms):
    """Instances, overlaps, gaps and replays of one task's records (each with
    its corrected time `at`)."""
    recs.sort(key=lambda r: (r["at"], r["offset"] if r["offset"] is not None else r["line"]))
    by_inst = {}
    for r in recs:
        by_inst.setdefault(r["instance"], []).append(r)
    instances = []
    segs = {}
    for inst, rs in sorted(by_inst.items(), key=lambda kv: kv[1][0]["at"]):
        seqs = [r["seq"] for r in rs]
        holes = sum(1 for a, b in zip(seqs, seqs[1:]) if b != a + 1)
        segs[inst] = segments([r["at"] for r in rs], gap_ms)
        instances.append({
            "instance": inst, "worker": rs[0]["worker"], "pid": rs[0]["pid"], "records": len(rs),
            "first_seq": seqs[0], "last_seq": seqs[-1], "seq_steps_not_one": holes,
            "first_ms": rs[0]["at"], "last_ms": rs[-1]["at"], "first": iso(rs[0]["at"]), "last": iso(rs[-1]["at"]),
            "active": [{"start_ms": s, "end_ms": e} for s, e in segs[inst]],
        })
    overlaps, held = [], []
    for i, a in enumerate(instances):
        for b in instances[i + 1:]:
            if b["first_ms"] > a["last_ms"] or a["first_ms"] > b["last_ms"]:
                continue
            ms, first, last = intersect(segs[a["instance"]], segs[b["instance"]])
            if ms <= 0:
                # lifetimes that intersect without both producing at once:
                # one instance silent (frozen, cut off) while the other ran
                lo, hi = max(a["first_ms"], b["first_ms"]), min(a["last_ms"], b["last_ms"])
                held.append({"task": task, "instances": [a["instance"], b["instance"]], "workers": [a["worker"], b["worker"]],
                             "start_ms": lo, "end_ms": hi, "start": iso(lo), "end": iso(hi), "ms": hi - lo})
                continue
            sa = {r["seq"] for r in by_inst[a["instance"]]}
            both = sum(1 for r in by_inst[b["instance"]] if r["seq"] in sa)
            overlaps.append({
                "task": task, "instances": [a["instance"], b["instance"]], "workers": [a["worker"], b["worker"]],
                "pids": [a["pid"], b["pid"]], "start_ms": first, "end_ms": last, "start": iso(first), "end": iso(last),
                "ms": ms, "same_seq_records": both,
            })
    gaps = []
    for prev, nxt in zip(recs, recs[1:]):
        if nxt["at"] - prev["at"] >= gap_ms:
            gaps.append({"start_ms": prev["at"], "end_ms": nxt["at"], "start": iso(prev["at"]), "end": iso(nxt["at"]),
                         "ms": nxt["at"] - prev["at"], "before": point(prev), "after": point(nxt),
                         "same_instance": prev["instance"] == nxt["instance"]})
    # each instance's start after the one before it (by first record): the
    # task's restarts, moves and replacements, however short the pause
    handovers = []
    for a, b in zip(instances, instances[1:]):
        handovers.append({"from": a["instance"], "to": b["instance"], "workers": [a["worker"], b["worker"]],
                          "last_ms": a["last_ms"], "first_ms": b["first_ms"], "at": iso(b["first_ms"]),
                          "ms": b["first_ms"] - a["last_ms"]})
    replays = []
    sent = set()
    sent_by = {}
    for inst in instances:
        rs = by_inst[inst["instance"]]
        again = [r["seq"] for r in rs if r["seq"] in sent]
        if again:
            of = sorted({sent_by[s] for s in again})
            replays.append({"instance": inst["instance"], "worker": inst["worker"], "records": len(again),
                            "first_seq": min(again), "last_seq": max(again), "of_instances": of,
                            "during_overlap": any(inst["instance"] in o["instances"] for o in overlaps)})
        for r in rs:
            if r["seq"] not in sent:
                sent.add(r["seq"])
                sent_by[r["seq"]] = inst["instance"]
    return {
        "records": len(recs), "distinct_seq": len(sent), "first_ms": recs[0]["at"], "last_ms": recs[-1]["at"],
        "instances": instances, "handovers": handovers, "overlaps": overlaps, "silent_overlaps": held, "gaps": gaps,
        "replays": replays,
    }


def check_records(records, gap_ms=GAP_MS):
    offsets = clock_offsets(records)
    for r in records:
        r["at"] = r["time"] + offsets.get((r["worker"], r["pid"]), 0)
    by_task = {}
    for r in records:
        by_task.setdefault(r["task"], []).append(r)
    tasks = {t: check_task(t, rs, gap_ms) for t, rs in sorted(by_task.items())}
    clocks = [{"worker": w, "pid": p, "offset_ms": d} for (w, p), d in sorted(offsets.items())]
    return tasks, clocks


# ---------------------------------------------------------------- audit

def worker_name(label):
    """The harness's worker (w1, w2, …) of a finding's worker label (the
    log's path in the capture: w2/connect.log, w2/connectDistributed.out)."""
    if not label:
        return None
    parts = [p for p in re.split(r"[/\\]", label) if re.fullmatch(r"w\d+", p)]
    return parts[-1] if parts else label


def line_ref(e):
    """A line the audit cites, by place: no text (checker.json lies in the
    capture's directory trace, whose every file the auditor reads: a log
    line quoted here would be read as one)."""
    return {"source": e.get("source"), "line": e.get("line"), "timestamp": e.get("timestamp"),
            "worker": e.get("worker"), "role": e.get("role")}


STAMP = re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)[,.](\d{3})")


def stop_after(finding, at_ms, offset_of):
    """Kafka's own word that the other worker still ran the resource after
    the finding's start: the first `Stopping task X` / `Stopping connector X`
    line in the other worker's log (the evidence's other source, and the
    files beside it: rotated segments) later than at_ms, each log's time put
    on the broker's clock by its worker's offset. None when there is none
    (a worker SIGKILLed never logs its stop)."""
    res = finding.get("resource") or {}
    kind = {"task": "task", "connector": "connector"}.get(res.get("type"))
    if kind is None or at_ms is None:
        return None
    needle = re.compile(r"\bStopping " + kind + " " + re.escape(res.get("id", "")) + r"(?![\w-])")
    trigger = (finding.get("trigger") or {}).get("source")
    others = {e.get("source") for e in finding.get("evidence", []) if e.get("source") and e.get("source") != trigger}
    best = None
    for src in sorted(others):
        d = os.path.dirname(src) or "."
        base = os.path.basename(src).split(".")[0]
        try:
            files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith(base))
        except OSError:
            continue
        off = offset_of.get(worker_name(src), 0)
        for path in files:
            try:
                with open_text(path) as f:
                    for n, line in enumerate(f, 1):
                        if "Stopping" not in line or not needle.search(line):
                            continue
                        m = STAMP.search(line)
                        if not m:
                            continue
                        t = parse_log_time(f"{m.group(1)}T{m.group(2)}.{m.group(3)}")
                        if t is not None and t + off > at_ms and (best is None or t + off < best[0]):
                            best = (t + off, path, n, f"{m.group(1)}T{m.group(2)}.{m.group(3)}")
            except OSError:
                continue
    if best is None:
        return None
    return {"source": best[1], "line": best[2], "timestamp": best[3], "after_ms": best[0] - at_ms}


def compare(tasks, clocks, audit, overlap_ms=OVERLAP_MS):
    """Overlaps against zombie findings and back."""
    offsets = {}
    for c in clocks:
        offsets.setdefault(c["worker"], []).append(c["offset_ms"])
    offset_of = {w: sorted(v)[len(v) // 2] for w, v in offsets.items()}
    findings = audit.get("findings", [])
    zombies = []
    for f in findings:
        if f.get("kind") != "zombie":
            continue
        res = f.get("resource") or {}
        w = worker_name(f.get("worker"))
        t = parse_log_time((f.get("trigger") or {}).get("timestamp"))
        zombies.append({"finding": f, "resource": f"{res.get('type')}:{res.get('id')}", "task": res.get("id") if res.get("type") == "task" else None,
                        "worker": w, "at_ms": None if t is None else t + offset_of.get(w, 0)})

    def matches(z, o):
        return (z["task"] == o["task"] and z["worker"] in o["workers"] and z["at_ms"] is not None
                and o["start_ms"] - MATCH_BEFORE_MS <= z["at_ms"] <= o["end_ms"] + MATCH_AFTER_MS)

    others = {}
    for f in findings:
        res = f.get("resource") or {}
        if res.get("type") == "task" and f.get("kind") != "zombie":
            others.setdefault(res.get("id"), []).append(f)
    overlaps = []
    for t in tasks.values():
        for o in t["overlaps"]:
            hit = [z for z in zombies if matches(z, o)]
            entry = {k: o[k] for k in ("task", "workers", "instances", "start", "end", "ms")}
            entry["significant"] = o["ms"] >= overlap_ms
            entry["caught"] = bool(hit)
            entry["by"] = [{"worker": z["finding"].get("worker"), "line": (z["finding"].get("trigger") or {}).get("line"),
                            "source": (z["finding"].get("trigger") or {}).get("source")} for z in hit]
            if not hit:
                entry["other_findings_on_task"] = [{"kind": f.get("kind"), "worker": f.get("worker"),
                                                    "line": (f.get("trigger") or {}).get("line")} for f in others.get(o["task"], [])]
            overlaps.append(entry)
    out_findings = []
    for z in zombies:
        f = z["finding"]
        entry = {"resource": z["resource"], "worker": f.get("worker"), "generation": f.get("generation"),
                 "trigger": line_ref(f.get("trigger") or {})}
        if z["task"] in tasks:
            hit = [o for o in tasks[z["task"]]["overlaps"] if matches(z, o)]
            silent = [o for o in tasks[z["task"]]["silent_overlaps"] if matches(z, o)]
            stop = None if hit or silent else stop_after(f, z["at_ms"], offset_of)
            if hit:
                entry["evidence"] = "records"
            elif silent:
                entry["evidence"] = "records-silent"
            elif stop:
                # the other instance's records never reached the topic (a
                # worker cut off: its buffered records are dropped), but
                # Kafka logged its stop after this start
                entry["evidence"] = "kafka-lines"
                entry["stopped_there"] = stop
            else:
                entry["evidence"] = "none"
            entry["confirmed"] = bool(hit or silent or stop)
            entry["overlaps"] = [{"instances": o["instances"], "workers": o["workers"], "start": o["start"], "ms": o["ms"],
                                  "silent": o in silent} for o in hit + silent]
            if not hit:
                entry["lines"] = [line_ref(e) for e in f.get("evidence", [])]
        else:
            # no records of its own (a connector, a sink or FileStream task):
            # Kafka's lines are the evidence: the other worker's own
            # `Stopping …` of it, logged after this start
            stop = stop_after(f, z["at_ms"], offset_of)
            entry["evidence"] = "kafka-lines" if stop else "none"
            entry["confirmed"] = stop is not None
            entry["stopped_there"] = stop
            entry["lines"] = [line_ref(e) for e in f.get("evidence", [])]
        out_findings.append(entry)
    sig = [o for o in overlaps if o["significant"]]
    return {
        "overlaps": overlaps,
        "zombie_findings": out_findings,
        "overlaps_caught": sum(o["caught"] for o in sig),
        "overlaps_total": len(sig),
        "findings_confirmed": sum(f["confirmed"] for f in out_findings),
        "findings_confirmed_by_records": sum(f["confirmed"] and f["evidence"] == "records" for f in out_findings),
        "findings_confirmed_by_silent_overlap": sum(f["confirmed"] and f["evidence"] == "records-silent" for f in out_findings),
        "findings_confirmed_by_kafka_lines": sum(f["confirmed"] and f["evidence"] == "kafka-lines" for f in out_findings),
        "findings_total": len(out_findings),
        "error_findings": {k: sum(1 for f in findings if f.get("kind") == k and f.get("severity") == "error")
                           for k in sorted({f.get("kind") for f in findings if f.get("severity") == "error"})},
    }


# ---------------------------------------------------------------- document

def connectors(tasks):
    """Per connector (a task's name less its last `-N`): its tasks, their
    instances and handovers (every new instance after the first), their
    gaps and the gaps' total length (a task's downtime as its records show
    it, the first record to the last)."""
    out = {}
    for name, t in tasks.items():
        c = out.setdefault(name.rsplit("-", 1)[0], {"tasks": 0, "instances": 0, "handovers": 0, "gaps": 0, "gap_ms": 0,
                                                    "longest_gap_ms": 0})
        c["tasks"] += 1
        c["instances"] += len(t["instances"])
        c["handovers"] += len(t["handovers"])
        c["gaps"] += len(t["gaps"])
        c["gap_ms"] += sum(g["ms"] for g in t["gaps"])
        c["longest_gap_ms"] = max([c["longest_gap_ms"]] + [g["ms"] for g in t["gaps"]])
    return dict(sorted(out.items()))


def check(records_path, audit=None, audit_name=None, gap_ms=GAP_MS, overlap_ms=OVERLAP_MS):
    records, malformed = read_records(records_path) if records_path and os.path.exists(records_path) else ([], [])
    tasks, clocks = check_records(records, gap_ms)
    doc = {
        "schema": SCHEMA,
        "tool": "conformance/checker.py",
        "thresholds": {"overlap_ms": overlap_ms, "gap_ms": gap_ms},
        "records_file": os.path.basename(records_path) if records_path else None,
        "records": len(records),
        "malformed_lines": {"count": len(malformed), "first": malformed[:10]},
        "clocks": clocks,
        "tasks": tasks,
        "totals": {
            "tasks": len(tasks),
            "instances": sum(len(t["instances"]) for t in tasks.values()),
            "overlaps": sum(len(t["overlaps"]) for t in tasks.values()),
            "overlaps_significant": sum(1 for t in tasks.values() for o in t["overlaps"] if o["ms"] >= overlap_ms),
            "overlap_ms": sum(o["ms"] for t in tasks.values() for o in t["overlaps"]),
            "gaps": sum(len(t["gaps"]) for t in tasks.values()),
            "replayed_records": sum(r["records"] for t in tasks.values() for r in t["replays"]),
        },
        "connectors": connectors(tasks),
        "audit": None,
        "comparison": None,
    }
    if audit is not None:
        doc["audit"] = audit_name
        doc["comparison"] = compare(tasks, clocks, audit, overlap_ms)
    return doc


def verdict(doc):
    c = doc["comparison"]
    tot = doc["totals"]
    line = (f"checker: {doc['records']} records, {tot['tasks']} tasks, {tot['instances']} instances; "
            f"{tot['overlaps_significant']} overlaps >= {doc['thresholds']['overlap_ms']} ms, {tot['gaps']} gaps, "
            f"{tot['replayed_records']} replayed records")
    if c is None:
        return line + "; no audit to compare", True
    ok = c["overlaps_caught"] == c["overlaps_total"] and c["findings_confirmed"] == c["findings_total"]
    line += (f"; overlaps caught {c['overlaps_caught']}/{c['overlaps_total']}; zombie findings confirmed "
             f"{c['findings_confirmed']}/{c['findings_total']} (records {c['findings_confirmed_by_records']}, "
             f"a silent instance's lifetime {c['findings_confirmed_by_silent_overlap']}, "
             f"Kafka's lines {c['findings_confirmed_by_kafka_lines']})")
    return line, ok


def find_records(capture):
    for name in ("records.txt.gz", "records.txt", os.path.join("ground-truth", "records.txt")):
        p = os.path.join(capture, name)
        if os.path.exists(p):
            return p
    return None


def run_audit(binary, capture):
    try:
        p = subprocess.run([binary, capture, "--format", "json"], capture_output=True, text=True, check=False)
    except OSError as e:
        raise InputError(f"{binary}: {e.strerror or e}") from e
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        raise InputError(f"{binary} {capture}: no JSON report ({p.stderr.strip()[:200]})") from e


def summary(roots):
    rows = []
    for root in roots:
        for d, _, files in os.walk(root):
            if "checker.json" in files:
                with open(os.path.join(d, "checker.json")) as f:
                    doc = json.load(f)
                wall = "-"
                if "PROVENANCE.txt" in files:
                    with open(os.path.join(d, "PROVENANCE.txt"), errors="replace") as f:
                        m = re.search(r"^captured wall: (\d+ s)$", f.read(), re.M)
                    wall = m.group(1) if m else "-"
                rows.append((os.path.relpath(d, root), doc, wall))
    rows.sort()
    agg = {"captures": len(rows), "with_records": 0, "overlaps_caught": 0, "overlaps_total": 0, "findings_confirmed": 0,
           "findings_total": 0, "by_records": 0, "by_silent": 0, "by_lines": 0}
    print("| capture | wall | records | tasks | instances | overlaps >= 200 ms caught | zombie findings confirmed "
          "(records / silent / lines) | gaps | replayed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, doc, wall in rows:
        c, t = doc.get("comparison") or {}, doc["totals"]
        agg["with_records"] += doc["records"] > 0
        for k, src in (("overlaps_caught", "overlaps_caught"), ("overlaps_total", "overlaps_total"),
                       ("findings_confirmed", "findings_confirmed"), ("findings_total", "findings_total"),
                       ("by_records", "findings_confirmed_by_records"), ("by_silent", "findings_confirmed_by_silent_overlap"),
                       ("by_lines", "findings_confirmed_by_kafka_lines")):
            agg[k] += c.get(src, 0)
        print(f"| {name} | {wall} | {doc['records']} | {t['tasks']} | {t['instances']} | "
              f"{c.get('overlaps_caught', 0)}/{c.get('overlaps_total', 0)} | {c.get('findings_confirmed', 0)}/{c.get('findings_total', 0)} "
              f"({c.get('findings_confirmed_by_records', 0)} / {c.get('findings_confirmed_by_silent_overlap', 0)} / "
              f"{c.get('findings_confirmed_by_kafka_lines', 0)}) | {t['gaps']} | {t['replayed_records']} |")
    print(f"\n{agg['captures']} captures ({agg['with_records']} with producer-named records): overlaps caught "
          f"{agg['overlaps_caught']}/{agg['overlaps_total']}; zombie findings confirmed {agg['findings_confirmed']}/"
          f"{agg['findings_total']} ({agg['by_records']} by overlapping records, {agg['by_silent']} by a silent instance's "
          f"lifetime, {agg['by_lines']} by Kafka's lines)")
    return agg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", help="the records topic's dump (console consumer; .gz read as such)")
    ap.add_argument("--audit", help="herder-audit's JSON report of the same run")
    ap.add_argument("--capture", help="a capture directory: its records.txt[.gz]; with --audit-bin, its audit")
    ap.add_argument("--audit-bin", help="herder-audit binary to audit --capture with")
    ap.add_argument("--out", help="write checker.json here (default: stdout; with --capture, CAPTURE/checker.json)")
    ap.add_argument("--summary", nargs="+", metavar="DIR", help="aggregate every checker.json under DIR")
    ap.add_argument("--overlap-ms", type=int, default=OVERLAP_MS)
    ap.add_argument("--gap-ms", type=int, default=GAP_MS)
    a = ap.parse_args(argv)
    try:
        if a.summary:
            agg = summary(a.summary)
            ok = agg["overlaps_caught"] == agg["overlaps_total"] and agg["findings_confirmed"] == agg["findings_total"]
            return 0 if ok else 1
        records, audit, audit_name, out = a.records, None, None, a.out
        if a.capture:
            records = records or find_records(a.capture)
            out = out or os.path.join(a.capture, "checker.json")
            if a.audit_bin:
                audit, audit_name = run_audit(a.audit_bin, a.capture), f"{os.path.basename(a.audit_bin)} {a.capture}"
        if a.audit:
            try:
                with open(a.audit) as f:
                    audit = json.load(f)
            except (OSError, ValueError) as e:
                raise InputError(f"{a.audit}: {e}") from e
            audit_name = os.path.basename(a.audit)
        if records is None and audit is None:
            ap.error("--records, --capture or --summary is required")
        doc = check(records, audit, audit_name, a.gap_ms, a.overlap_ms)
    except InputError as e:
        print(f"conformance/checker.py: {e}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=1, sort_keys=False) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    line, ok = verdict(doc)
    print(line, file=sys.stderr if not out else sys.stdout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
