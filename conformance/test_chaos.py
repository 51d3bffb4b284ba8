"""Unit tests of conformance/chaos.py, the nemesis schedule's generator.

    python3 -m unittest discover -s conformance -p 'test_*.py'
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos  # noqa: E402

FAULTS = {"kill": "start", "term": "start", "freeze": "thaw", "cut": "heal"}


def spans(s):
    """(worker, op, start, end) of every fault in a schedule."""
    open_, out = {}, []
    for e in s["events"]:
        if e["op"] in FAULTS:
            open_[e["target"]] = (e["op"], e["t"])
        elif e["op"] in FAULTS.values():
            op, t = open_.pop(e["target"])
            out.append((e["target"], op, t, e["t"]))
    return out


class Schedule(unittest.TestCase):
    def test_the_seed_reproduces_the_schedule(self):
        a = chaos.schedule(7, 4, 180, "3.9.1", True)
        b = chaos.schedule(7, 4, 180, "3.9.1", True)
        self.assertEqual(a, b)
        self.assertNotEqual(a["events"], chaos.schedule(8, 4, 180, "3.9.1", True)["events"])

    def test_every_fault_is_undone_and_at_most_two_workers_are_faulty_at_once(self):
        for seed in range(40):
            s = chaos.schedule(seed, 4, 180, "3.9.1", True)
            sp = spans(s)
            faults = sum(1 for e in s["events"] if e["op"] in FAULTS)
            self.assertEqual(len(sp), faults, seed)
            for _, _, t0, _ in sp:
                live = [x for x in sp if x[2] <= t0 < x[3]]
                self.assertLessEqual(len(live), 2, (seed, t0))
                self.assertLessEqual(sum(1 for x in live if x[1] == "cut"), 1, (seed, t0))

    def test_a_release_gets_only_what_it_has(self):
        for seed in range(40):
            old = chaos.schedule(seed, 4, 180, "2.8.2", False)
            ops = {e["op"] for e in old["events"]}
            self.assertFalse(ops & {"stop", "cut"}, seed)
            self.assertNotIn("all", {e["value"] for e in old["events"] if e["op"] == "restart"}, seed)
            self.assertEqual(old["inputs"], {"seed": seed, "workers": 4, "duration_s": 180, "release": "2.8.2",
                                             "partition": False, "stop": False, "restart_all": False})

    def test_a_connector_has_one_operation_in_flight(self):
        for seed in range(40):
            s = chaos.schedule(seed, 4, 180, "4.4.0", True)
            pending = {}
            for e in s["events"]:
                c = e["target"]
                if e["op"] in ("pause", "stop", "delete"):
                    self.assertNotIn(c, pending, (seed, e))
                    pending[c] = e["op"]
                elif e["op"] in ("resume", "create"):
                    self.assertIn(c, pending, (seed, e))
                    del pending[c]
                elif c in chaos.CONNECTORS:
                    self.assertNotIn(c, pending, (seed, e))
            self.assertEqual(pending, {}, seed)


if __name__ == "__main__":
    unittest.main()
