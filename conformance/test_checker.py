"""Unit tests of conformance/checker.py on small hand-made histories.

    python3 -m unittest discover -s conformance -p 'test_*.py'
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402

T0 = 1_765_000_000_000  # 2025-12-06T05:46:40Z


def rec(task, worker, pid, instance, seq, time, append=None):
    value = {"task": task, "worker": worker, "pid": pid, "instance": instance, "seq": seq, "time": time}
    stamp = f"LogAppendTime:{append}" if append is not None else f"CreateTime:{time}"
    return f"{stamp}\tPartition:0\tOffset:0\t{json.dumps(value)}"


def stream(task, worker, pid, instance, seq0, t_start, t_end, step=100, skew=0):
    """An instance producing every `step` ms from t_start to t_end (true
    time); its clock `skew` ms off the broker's (LogAppendTime = true time)."""
    out, seq, t = [], seq0, t_start
    while t <= t_end:
        out.append(rec(task, worker, pid, instance, seq, t + skew, append=t + 2))
        seq += 1
        t += step
    return out


def finding(kind, worker, task, ts, severity="error", evidence=()):
    return {"kind": kind, "severity": severity, "worker": f"{worker}/connect.log", "generation": 5,
            "resource": {"type": "task", "id": task} if "-" in task else {"type": "connector", "id": task},
            "trigger": {"source": f"{worker}/connect.log", "line": 10, "timestamp": checker.iso(ts)[:-1], "text": "Starting task"},
            "evidence": list(evidence)}


def run(lines, findings=None):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "records.txt")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        audit = None if findings is None else {"findings": findings}
        return checker.check(p, audit, "audit.json")


class Overlap(unittest.TestCase):
    def test_two_instances_producing_at_once_are_an_overlap_caught_by_a_zombie(self):
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0, T0 + 10_000)
        b = stream("count-0", "w2", 22, "bbbbbbbb", 90, T0 + 9_000, T0 + 20_000)
        doc = run(a + b, [finding("zombie", "w2", "count-0", T0 + 8_900)])
        t = doc["tasks"]["count-0"]
        self.assertEqual(len(t["instances"]), 2)
        self.assertEqual(len(t["overlaps"]), 1)
        o = t["overlaps"][0]
        self.assertEqual(o["workers"], ["w1", "w2"])
        self.assertEqual(o["ms"], 1000)
        self.assertEqual(o["same_seq_records"], 11)  # seq 90..100 sent by both
        c = doc["comparison"]
        self.assertEqual((c["overlaps_caught"], c["overlaps_total"]), (1, 1))
        self.assertEqual((c["findings_confirmed"], c["findings_total"]), (1, 1))
        self.assertEqual(c["zombie_findings"][0]["evidence"], "records")
        self.assertEqual(checker.verdict(doc)[1], True)

    def test_an_overlap_no_finding_names_is_missed(self):
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0, T0 + 10_000)
        b = stream("count-0", "w2", 22, "bbbbbbbb", 90, T0 + 9_000, T0 + 20_000)
        doc = run(a + b, [finding("zombie", "w3", "count-0", T0 + 8_900), finding("zombie", "w2", "count-1", T0 + 8_900)])
        c = doc["comparison"]
        self.assertEqual((c["overlaps_caught"], c["overlaps_total"]), (0, 1))
        self.assertEqual(c["findings_confirmed"], 0)
        self.assertEqual(checker.verdict(doc)[1], False)

    def test_a_short_overlap_is_recorded_but_not_required(self):
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0, T0 + 10_000)
        b = stream("count-0", "w2", 22, "bbbbbbbb", 100, T0 + 9_900, T0 + 20_000)
        doc = run(a + b, [])
        self.assertEqual(doc["tasks"]["count-0"]["overlaps"][0]["ms"], 100)
        self.assertEqual(doc["comparison"]["overlaps_total"], 0)
        self.assertTrue(checker.verdict(doc)[1])

    def test_a_frozen_instance_overlaps_only_while_it_produces(self):
        # w1 frozen from T0+1 s to T0+21 s; w2 takes the task at T0+11 s; w1
        # produces again for 1 s after it resumes
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0, T0 + 1_000) + \
            stream("count-0", "w1", 11, "aaaaaaaa", 11, T0 + 21_000, T0 + 22_000)
        b = stream("count-0", "w2", 22, "bbbbbbbb", 5, T0 + 11_000, T0 + 30_000)
        doc = run(a + b, [finding("zombie", "w2", "count-0", T0 + 10_900)])
        o = doc["tasks"]["count-0"]["overlaps"]
        self.assertEqual(len(o), 1)
        self.assertEqual(o[0]["ms"], 1000)
        self.assertEqual(o[0]["start_ms"], T0 + 21_002)
        self.assertEqual(doc["comparison"]["overlaps_caught"], 1)
        gaps = doc["tasks"]["count-0"]["gaps"]
        self.assertEqual([(g["start_ms"] - T0, g["end_ms"] - T0) for g in gaps], [(1_002, 11_002)])


class Replay(unittest.TestCase):
    def test_a_new_instance_after_sigkill_resends_from_the_committed_offset(self):
        # w3's instance killed at T0+5 s (seq 0..50; committed up to 40); w1's
        # new instance starts at T0+20 s from seq 41
        a = stream("count-0", "w3", 33, "aaaaaaaa", 0, T0, T0 + 5_000)
        b = stream("count-0", "w1", 11, "bbbbbbbb", 41, T0 + 20_000, T0 + 25_000)
        doc = run(a + b, [])
        t = doc["tasks"]["count-0"]
        self.assertEqual(t["overlaps"], [])
        self.assertEqual(len(t["replays"]), 1)
        r = t["replays"][0]
        self.assertEqual((r["first_seq"], r["last_seq"], r["records"]), (41, 50, 10))
        self.assertEqual(r["of_instances"], ["aaaaaaaa"])
        self.assertFalse(r["during_overlap"])
        self.assertEqual(doc["totals"]["replayed_records"], 10)
        self.assertEqual(len(t["gaps"]), 1)
        g = t["gaps"][0]
        self.assertEqual((g["before"]["seq"], g["after"]["seq"]), (50, 41))
        self.assertEqual(g["ms"], 15_000)
        self.assertFalse(g["same_instance"])
        self.assertEqual(t["distinct_seq"], 92)
        h = t["handovers"]
        self.assertEqual([(x["from"], x["to"], x["workers"], x["ms"]) for x in h], [("aaaaaaaa", "bbbbbbbb", ["w3", "w1"], 15_000)])

    def test_a_zombie_finding_on_a_task_whose_records_show_no_overlap_is_unconfirmed(self):
        a = stream("count-0", "w3", 33, "aaaaaaaa", 0, T0, T0 + 5_000)
        b = stream("count-0", "w1", 11, "bbbbbbbb", 41, T0 + 20_000, T0 + 25_000)
        ev = [{"role": "started here", "worker": "w1/connect.log", "source": "w1/connect.log", "line": 7,
               "timestamp": "x", "text": "Starting task count-0"}]
        doc = run(a + b, [finding("zombie", "w1", "count-0", T0 + 19_900, evidence=ev)])
        z = doc["comparison"]["zombie_findings"][0]
        self.assertEqual((z["evidence"], z["confirmed"]), ("none", False))
        self.assertEqual(z["lines"][0]["line"], 7)


class Gap(unittest.TestCase):
    def test_gaps_of_300_ms_or_more_within_one_instance(self):
        a = stream("count-1", "w2", 22, "cccccccc", 0, T0, T0 + 1_000)
        a += stream("count-1", "w2", 22, "cccccccc", 11, T0 + 1_250, T0 + 2_000)   # 250 ms: no gap
        a += stream("count-1", "w2", 22, "cccccccc", 19, T0 + 2_450, T0 + 3_000)   # 500 ms: a gap
        doc = run(a, [])
        gaps = doc["tasks"]["count-1"]["gaps"]
        self.assertEqual(len(gaps), 1)
        self.assertEqual((gaps[0]["ms"], gaps[0]["before"]["seq"], gaps[0]["after"]["seq"]), (500, 18, 19))
        self.assertTrue(gaps[0]["same_instance"])
        self.assertEqual(doc["tasks"]["count-1"]["instances"][0]["seq_steps_not_one"], 0)
        self.assertEqual(doc["connectors"]["count"], {"tasks": 1, "instances": 1, "handovers": 0, "gaps": 1, "gap_ms": 500,
                                                      "longest_gap_ms": 500})


class Clocks(unittest.TestCase):
    def test_a_skewed_worker_is_placed_on_the_broker_clock(self):
        # w3's clock 5 s ahead: without the broker's append times its
        # instance would seem to start 5 s later and overlap nothing
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0, T0 + 10_000)
        b = stream("count-0", "w3", 33, "bbbbbbbb", 90, T0 + 9_000, T0 + 20_000, skew=5_000)
        doc = run(a + b, [finding("zombie", "w3", "count-0", T0 + 5_000 + 8_900)])
        self.assertEqual({c["worker"]: c["offset_ms"] for c in doc["clocks"]}, {"w1": 2, "w3": -4_998})
        o = doc["tasks"]["count-0"]["overlaps"]
        self.assertEqual(o[0]["ms"], 1000)
        self.assertEqual(doc["comparison"]["overlaps_caught"], 1)

    def test_create_time_means_the_workers_clocks_as_they_are(self):
        lines = [rec("s-0", "w1", 1, "a", n, T0 + 100 * n) for n in range(5)]
        doc = run(lines)
        self.assertEqual(doc["clocks"], [])
        self.assertEqual(doc["tasks"]["s-0"]["first_ms"], T0)


class Input(unittest.TestCase):
    def test_lines_that_are_no_producer_named_record_are_counted_not_fatal(self):
        lines = ["CreateTime:1\tPartition:0\tOffset:0\tsrc-0-17", "{not json", '{"task":"x"}',
                 rec("s-0", "w1", 1, "a", 0, T0), "", "Processed a total of 1 messages"]
        doc = run(lines)
        self.assertEqual(doc["records"], 1)
        self.assertEqual(doc["malformed_lines"], {"count": 4, "first": [1, 2, 3, 6]})

    def write_log(self, d, worker, lines):
        os.makedirs(os.path.join(d, worker), exist_ok=True)
        path = os.path.join(d, worker, "connect.log")
        with open(path, "w") as f:
            for ms, text in lines:
                f.write(f"[{checker.iso(ms)[:-1].replace('T', ' ').replace('.', ',')}] INFO {text} (org.apache.kafka.connect.runtime.Worker:1)\n")
        return path

    def zombie_with_logs(self, d, resource, stop_at):
        """w2 starts `resource` at T0 while w1 ran it since T0-10 s; w1 logs its
        stop at stop_at (None: never)."""
        kind, name = ("task", resource) if "-" in resource else ("connector", resource)
        w1 = [(T0 - 10_000, f"Starting {kind} {name}")] + ([(stop_at, f"Stopping {kind} {name}")] if stop_at else [])
        w1_path = self.write_log(d, "w1", w1)
        w2_path = self.write_log(d, "w2", [(T0, f"Starting {kind} {name}")])
        f = finding("zombie", "w2", resource, T0)
        f["trigger"]["source"] = w2_path
        f["evidence"] = [{"role": "the instance it kept was started here", "worker": "w1/connect.log", "source": w1_path,
                          "line": 1, "timestamp": "t"},
                         {"role": "starts it", "worker": "w2/connect.log", "source": w2_path, "line": 1, "timestamp": "t"}]
        return f

    def test_a_connector_finding_rests_on_the_other_workers_stop_line(self):
        with tempfile.TemporaryDirectory() as d:
            f = self.zombie_with_logs(d, "count", T0 + 5_000)
            doc = run([rec("s-0", "w1", 1, "a", 0, T0)], [f])
        z = doc["comparison"]["zombie_findings"][0]
        self.assertEqual((z["resource"], z["evidence"], z["confirmed"]), ("connector:count", "kafka-lines", True))
        self.assertEqual((z["stopped_there"]["line"], z["stopped_there"]["after_ms"]), (2, 5_000))
        self.assertEqual(doc["comparison"]["findings_confirmed_by_kafka_lines"], 1)

    def test_a_finding_whose_other_worker_stopped_first_or_never_is_unconfirmed(self):
        for stop in (T0 - 1_000, None):
            with tempfile.TemporaryDirectory() as d:
                f = self.zombie_with_logs(d, "count", stop)
                doc = run([rec("s-0", "w1", 1, "a", 0, T0)], [f])
            z = doc["comparison"]["zombie_findings"][0]
            self.assertEqual((z["evidence"], z["confirmed"]), ("none", False), stop)

    def test_a_cut_off_instance_whose_records_were_lost_rests_on_its_stop_line(self):
        # w1's records end at the cut (T0-6 s); w2 starts the task at T0 and
        # produces; w1 logs its stop 3 s later (its records never arrived)
        a = stream("count-0", "w1", 11, "aaaaaaaa", 0, T0 - 20_000, T0 - 6_000)
        b = stream("count-0", "w2", 22, "bbbbbbbb", 120, T0 + 200, T0 + 10_000)
        with tempfile.TemporaryDirectory() as d:
            f = self.zombie_with_logs(d, "count-0", T0 + 3_000)
            doc = run(a + b, [f])
        z = doc["comparison"]["zombie_findings"][0]
        self.assertEqual((z["evidence"], z["confirmed"]), ("kafka-lines", True))
        self.assertEqual(doc["comparison"]["findings_confirmed_by_records"], 0)

    def test_missing_records_file_is_an_empty_history(self):
        doc = checker.check("/nonexistent/records.txt", {"findings": []}, "audit.json")
        self.assertEqual((doc["records"], doc["tasks"]), (0, {}))

    def test_unreadable_audit_exits_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "audit.json")
            with open(bad, "w") as f:
                f.write("{")
            self.assertEqual(checker.main(["--records", os.path.join(d, "r.txt"), "--audit", bad, "--out", os.path.join(d, "c.json")]), 2)

    def test_worker_names_from_labels(self):
        self.assertEqual(checker.worker_name("w12/connect.log"), "w12")
        self.assertEqual(checker.worker_name("/tmp/run/logs/w3/connect.log.2026-12-01-10"), "w3")
        self.assertEqual(checker.worker_name("connect.log.gz@r391a-mm2"), "connect.log.gz@r391a-mm2")


if __name__ == "__main__":
    unittest.main()
