"""Tests of the arena_policy client on hand-written protocol-2 messages.

The checksums in these messages are computed here from the protocol's
definition (docs/writing-a-policy.md: CRC-32 of little-endian int64
sequences) with struct, independently of the client's own code; that arena
computes the same values is checked by arena's Go tests, which run the
client with a checksum at every decision.
"""

import io
import json
import os
import random
import struct
import sys
import unittest
import zlib

try:  # the installed package (make test-python installs it first) …
    import arena_policy as ap
except ImportError:  # … or the checkout's
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import arena_policy as ap

CLUSTER = {"name": "t", "types": ["a40", "a10"], "slots": 8,
           "nodes": [{"gpu": "a40", "capacity": 2, "first_slot": 0},
                     {"gpu": "a40", "capacity": 2, "first_slot": 2},
                     {"gpu": "a10", "capacity": 4, "first_slot": 4}]}

STATUS = {"pending": 1, "running": 2, "finished": 3, "dropped": 4}


def crc(values):
    return zlib.crc32(b"".join(struct.pack("<q", v) for v in values))


def check_of(occupant, running, pending, jobs):
    """The checksums by the protocol's definition; jobs: id -> state dict."""
    q = [len(running)] + running + [len(pending)] + pending
    js = []
    for i in running + pending:
        _, status, gpus, _, remaining, total, _, reconfigs, _ = jobs[i]
        js += [i, STATUS[status], len(gpus)] + gpus + [remaining, total, reconfigs]
    return {"occupant": crc(occupant), "queues": crc(q), "jobs": crc(js)}


def state(i, status="pending", gpus=(), grid=None, remaining=100, reconfigs=0, first_start=-1):
    """A state array (STATE_FIELDS)."""
    return [i, status, list(gpus), grid, remaining, 100, first_start, reconfigs, 0]


def job(i, gpu="a40", n=2, **kw):
    """A job array (JOB_FIELDS): the state, then the static part."""
    return state(i, **kw) + ["trace-%d" % i, "job_%04d" % (i + 1), "m", 8, 100, 1000, gpu, n, 0, 0, "u", "v",
                             [gpu, 1, n], 0]


TABLE = {"id": 0, "estimates": [["a40", 1, 2, 50.0, 2.0], ["a40", 2, 1, 40.0, 2.5], ["a10", 1, 2, 20.0, 5.0]]}
A40x2 = ["a40", 1, 2]


def stream():
    """Three decisions: job 0 arrives (full), job 0 runs on slots 0-1 and
    job 1 arrives and waits, job 0 ends and job 1 runs on slots 2-3."""
    full = {"type": "decide", "seq": 1, "round": 0, "now": 0, "round_length": 300, "full": True,
            "tables": [TABLE], "arrivals": [job(0)], "occupant": [-1] * 8,
            "check": check_of([-1] * 8, [], [], {})}
    s0 = state(0, "running", [0, 1], A40x2, first_start=300, reconfigs=1)
    occ1 = [0, 0] + [-1] * 6
    d2 = {"type": "decide", "seq": 2, "round": 1, "now": 300, "round_length": 300,
          "slots": [[0, 2, 0]], "running_added": [0], "states": [s0], "arrivals": [job(1)],
          "check": check_of(occ1, [0], [], {0: s0})}
    s1 = state(1, "running", [2, 3], A40x2, first_start=900, reconfigs=1)
    occ2 = [-1, -1, 1, 1] + [-1] * 4
    d3 = {"type": "decide", "seq": 3, "round": 3, "now": 900, "round_length": 300,
          "slots": [[0, 2, -1], [2, 2, 1]], "running_removed": [0], "running_added": [1],
          "states": [s1], "ended": [state(0, "finished", remaining=0, reconfigs=1, first_start=300)],
          "arrivals": [], "check": check_of(occ2, [1], [], {1: s1})}
    return full, d2, d3


class MirrorTest(unittest.TestCase):
    def mirror(self, live=()):
        return ap.Mirror(ap.Cluster(CLUSTER), live)

    def test_deltas_keep_the_mirror(self):
        m = self.mirror()
        full, d2, d3 = stream()
        v = m.apply(full)
        self.assertEqual([j.id for j in v.arrivals], [0])
        j0 = v.arrivals[0]
        self.assertEqual(j0.iterations, 100)  # engine scale
        self.assertEqual(j0.trace_iterations, 1000)
        self.assertTrue(j0.feasible(("a40", 1, 2)))
        self.assertFalse(j0.feasible(("a40", 1, 1)))
        self.assertEqual(j0.estimate(ap.Grid("a40", 2, 1)).iter_time, 2.5)
        v = m.apply(d2)
        self.assertIs(v.running[0], j0)  # the same object across decisions
        self.assertEqual(v.occupant, [0, 0] + [-1] * 6)
        self.assertEqual([v.free(n) for n in range(3)], [0, 2, 4])
        self.assertEqual(v.pending, [])
        v = m.apply(d3)
        self.assertEqual([j.id for j in v.running], [1])
        self.assertEqual([j.id for j in v.ended], [0])
        self.assertEqual(v.ended[0].status, "finished")
        self.assertEqual(v.ended[0].progress, 1.0)
        self.assertEqual([v.free(n) for n in range(3)], [2, 0, 4])
        self.assertNotIn(0, m.jobs)

    def test_topology_and_contention(self):
        # A cluster with a topology (docs/topology.md) carries it in the
        # hello; a decide lists the running jobs slowed by contention, and
        # a decide without the key has none.
        c = dict(CLUSTER, topology={"domain_nodes": 1, "tiers": [{"name": "rack", "nodes": 2, "oversubscription": 3}],
                                    "domain": [0, 1, 2], "groups": [[0, 0, 1]]})
        m = ap.Mirror(ap.Cluster(c), ())
        self.assertEqual(m.cluster.topology["groups"][0][2], 1)
        self.assertIsNone(ap.Cluster(CLUSTER).topology)
        full, d2, d3 = stream()
        self.assertEqual(m.apply(full).contention, {})
        d2 = dict(d2, contention=[[0, 1.25]])
        self.assertEqual(m.apply(d2).contention, {0: 1.25})
        self.assertEqual(m.apply(d3).contention, {})

    def test_pending_queue_order_and_counts(self):
        m = self.mirror()
        full = {"type": "decide", "seq": 1, "round": 0, "now": 0, "round_length": 300, "full": True,
                "tables": [TABLE], "jobs": [job(5), job(6, gpu="a10"), job(7)], "pending": [5, 6, 7],
                "arrivals": [], "occupant": [-1] * 8}
        v = m.apply(full)
        self.assertEqual([j.id for j in v.pending], [5, 6, 7])
        self.assertEqual((v.pending_of_type("a40"), v.pending_of_type("a10")), (2, 1))
        # 6 leaves (dropped), 5 moves to the end.
        d = {"type": "decide", "seq": 2, "round": 1, "now": 300, "round_length": 300,
             "pending_removed": [5, 6], "pending_added": [5], "gone": [6], "arrivals": []}
        v = m.apply(d)
        self.assertEqual([j.id for j in v.iter_pending()], [7, 5])
        self.assertEqual((v.pending_of_type("a40"), v.pending_of_type("a10")), (2, 0))
        self.assertNotIn(6, m.jobs)

    def test_corrupted_mirror_is_detected(self):
        m = self.mirror()
        full, d2, d3 = stream()
        m.apply(full)
        m.apply(d2)
        m.occupant[5] = 42  # a policy wrote to the view's occupant
        with self.assertRaises(ap.OutOfStep) as e:
            m.apply(d3)
        self.assertIn("occupant checksum", str(e.exception))
        self.assertFalse(m.synced)

    def test_corrupted_job_state_is_detected(self):
        m = self.mirror()
        full, d2, d3 = stream()
        m.apply(full)
        m.apply(d2)
        m.running[0].gpus = [0, 2]
        with self.assertRaises(ap.OutOfStep) as e:
            m.apply(dict(d2, seq=3, slots=[], states=[], running_added=[], arrivals=[],
                         check=check_of([0, 0] + [-1] * 6, [0], [], {0: d2["states"][0]})))
        self.assertIn("jobs checksum", str(e.exception))

    def test_sequence_gap_is_detected(self):
        m = self.mirror()
        full, d2, d3 = stream()
        m.apply(full)
        with self.assertRaises(ap.OutOfStep):
            m.apply(d3)  # d2 lost

    def test_stale_fields_raise(self):
        m = self.mirror()
        full, d2, _ = stream()
        m.apply(full)
        v = m.apply(d2)
        j0, j1 = v.running[0], v.arrivals[0]
        with self.assertRaises(ap.StaleField):
            j0.remaining
        with self.assertRaises(ap.StaleField):
            j0.progress
        self.assertEqual(j1.remaining, 100)  # a waiting job's remaining is exact
        with self.assertRaises(ap.StaleField):
            j1.queue_time
        m = self.mirror(live=("remaining", "queue_time"))
        m.apply(full)
        v = m.apply(d2)
        self.assertEqual(v.running[0].remaining, 100)
        self.assertEqual(v.arrivals[0].queue_time, 0)


def reference_place(cluster, occupant, job, grid):
    """PlaceMostFree by its definition (the version-1 client's scan): nodes
    of the type with >= per_node idle slots, most idle first, ties in node
    order; the first idle (or job's own) slots of each."""
    gpu, k, q = grid
    occ = list(occupant)

    def free(n):
        return sum(1 for s in cluster.nodes[n].slots() if occ[s] == -1)
    cand = [n for n in cluster.nodes_of_type.get(gpu, []) if free(n) >= q]
    cand.sort(key=lambda n: -free(n))
    if len(cand) < k or k <= 0 or q <= 0:
        return None, occupant
    slots = []
    for n in cand[:k]:
        got = [s for s in cluster.nodes[n].slots() if occ[s] in (-1, job)][:q]
        for s in got:
            occ[s] = job
        slots += got
    return slots, occ


class TableTest(unittest.TestCase):
    def test_hand_worked(self):
        c = ap.Cluster(CLUSTER)
        t = ap.Table(c, [-1, 3, -1, -1, 4, -1, -1, -1])
        # a40 nodes: node 0 has 1 idle, node 1 has 2: node 1 first.
        self.assertEqual(t.place_most_free(9, ap.Grid("a40", 1, 2)), [2, 3])
        self.assertEqual(t.place_most_free(8, ap.Grid("a40", 1, 2)), None)
        self.assertEqual(t.place_most_free(8, ap.Grid("a40", 1, 1)), [0])
        self.assertEqual(t.place_most_free(7, ap.Grid("a10", 1, 3)), [5, 6, 7])
        self.assertEqual(t.occupant, [8, 3, 9, 9, 4, 7, 7, 7])
        self.assertEqual(t.free_of_type("a40"), 0)

    def test_matches_the_definition(self):
        rnd = random.Random(1)
        nodes, first = [], 0
        for i in range(12):
            cap = rnd.choice([1, 2, 4, 8])
            nodes.append({"gpu": rnd.choice(["a", "b"]), "capacity": cap, "first_slot": first})
            first += cap
        c = ap.Cluster({"name": "r", "types": ["a", "b"], "slots": first, "nodes": nodes})
        for trial in range(300):
            occ = [rnd.choice([-1, -1, 1, 2]) for _ in range(first)]
            t = ap.Table(c, occ)
            want_occ = occ
            for job in range(10, 14):
                grid = (rnd.choice(["a", "b"]), rnd.choice([1, 2, 3]), rnd.choice([1, 2, 4]))
                want, want_occ = reference_place(c, want_occ, job, grid)
                self.assertEqual(t.place_most_free(job, grid), want, (trial, job, grid))
                self.assertEqual(t.occupant, want_occ)


    def test_mirror_table_matches_the_definition(self):
        """view.table() plans on copies of the mirror's idle counts (a
        bytearray per type, a list where a node has more than 255 GPUs) and
        leaves the mirror as it was."""
        rnd = random.Random(2)
        for caps in ([1, 2, 4, 8], [2, 300]):
            nodes, first = [], 0
            for i in range(6):
                cap = rnd.choice(caps)
                nodes.append({"gpu": rnd.choice(["a", "b"]), "capacity": cap, "first_slot": first})
                first += cap
            cl = {"name": "r", "types": ["a", "b"], "slots": first, "nodes": nodes}
            c = ap.Cluster(cl)
            for trial in range(50):
                occ = [rnd.choice([-1, -1, 1, 2]) for _ in range(first)]
                m = ap.Mirror(c)
                full = {"type": "decide", "seq": 1, "round": 0, "now": 0, "round_length": 300, "full": True,
                        "arrivals": [], "occupant": occ}
                v = m.apply(full)
                before = {g: list(f) for g, f in m.free.items()}
                t = v.table()
                want_occ = occ
                for job in range(10, 14):
                    grid = (rnd.choice(["a", "b"]), rnd.choice([1, 2, 3]), rnd.choice([1, 2, 4, 150]))
                    want, want_occ = reference_place(c, want_occ, job, grid)
                    self.assertEqual(t.place_most_free(job, grid), want, (caps, trial, job, grid))
                    self.assertEqual(t.occupant, want_occ)
                self.assertEqual({g: list(f) for g, f in m.free.items()}, before)
                self.assertEqual(m.occupant, occ)


class RunTest(unittest.TestCase):
    def serve(self, policy, messages):
        inp = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        out = io.StringIO()
        ap.run(policy, inp, out)
        return [json.loads(line) for line in out.getvalue().splitlines()]

    def test_resync_after_corruption(self):
        class Corrupting(ap.Policy):
            name = "corrupting"

            def decide(self, view):
                if view.round == 1:
                    view.occupant[6] = 99  # breaks the mirror
                return [ap.start(j.id, [4, 5]) for j in view.arrivals if j.id == 1]

        full, d2, d3 = stream()
        # arena answers the resync with the full state at seq 4.
        resent = {"type": "decide", "seq": 4, "round": 3, "now": 900, "round_length": 300, "full": True,
                  "tables": [TABLE], "jobs": [job(1, status="running", gpus=[2, 3], grid=A40x2, first_start=900, reconfigs=1),
                           job(0, status="finished", remaining=0)], "running": [1],
                  "occupant": [-1, -1, 1, 1] + [-1] * 4,
                  "ended": [state(0, "finished", remaining=0)], "arrivals": [], "check": d3["check"]}
        hello = {"type": "hello", "protocol": 1, "protocols": [1, 2], "timing": "exact", "view": "optimal",
                 "cluster": CLUSTER, "state_fields": ap.STATE_FIELDS, "job_fields": ap.JOB_FIELDS}
        stderr, sys.stderr = sys.stderr, io.StringIO()
        self.addCleanup(lambda: print(sys.stderr.getvalue() if isinstance(sys.stderr, io.StringIO) else "", file=stderr))
        try:
            replies = self.serve(Corrupting(), [hello, full, d2, d3, resent, {"type": "bye"}])
        finally:
            sys.stderr = stderr
        self.assertEqual(replies[0], {"type": "hello", "protocol": 2, "name": "corrupting", "live": [],
                                      "idle_when_quiet": False})
        self.assertEqual([r["type"] for r in replies[1:]], ["actions", "actions", "resync", "actions"])
        self.assertEqual(replies[2]["actions"], [{"kind": "start", "job": 1, "gpus": [4, 5], "reason": ""}])
        self.assertEqual(replies[3]["round"], 3)

    def test_hello_promises(self):
        """idle_when_nothing_waits goes in the hello only when promised (an
        arena before it refuses unknown keys)."""
        hello = {"type": "hello", "protocol": 1, "protocols": [1, 2], "timing": "exact", "view": "optimal",
                 "cluster": CLUSTER, "state_fields": ap.STATE_FIELDS, "job_fields": ap.JOB_FIELDS}

        class Waits(ap.Policy):
            idle_when_nothing_waits = True
        self.assertNotIn("idle_when_nothing_waits", self.serve(ap.Policy(), [hello])[0])
        self.assertIs(self.serve(Waits(), [hello])[0]["idle_when_nothing_waits"], True)

    def test_hello_energy(self):
        """The hello's energy object reaches Policy.hello, and energy_of
        reads it: prices and watts by type, an hourly intensity that
        repeats past its end; None without one. Hand-written message."""
        energy = {"model": "site", "price_tier": "on-demand", "usd_per_gpu_hour": {"a40": 1.5, "a10": 1.006},
                  "watts": {"a40": {"tdp": 300, "idle": 30}, "a10": {"tdp": 150, "idle": 25}},
                  "usd_per_kwh": 0.06, "pue": 1.3, "carbon_g_per_kwh_hourly": [100.0, 200.0, 300.0]}
        hello = {"type": "hello", "protocol": 1, "protocols": [1, 2], "timing": "exact", "view": "optimal",
                 "cluster": CLUSTER, "state_fields": ap.STATE_FIELDS, "job_fields": ap.JOB_FIELDS, "energy": energy}
        seen = {}

        class Rec(ap.Policy):
            def hello(self, cluster, info):
                seen["energy"] = ap.energy_of(info)
        self.serve(Rec(), [hello])
        e = seen["energy"]
        self.assertEqual((e.model, e.pue, e.usd_per_kwh, e.usd_per_gpu_hour["a40"], e.watts["a10"]["idle"]),
                         ("site", 1.3, 0.06, 1.5, 25))
        self.assertEqual([e.intensity(t) for t in (0, 3599, 3600, 7200, 10800, 4 * 3600 + 1)],
                         [100.0, 100.0, 200.0, 300.0, 100.0, 200.0])
        self.assertEqual(ap.Energy({"carbon_g_per_kwh": 57}).intensity(1e6), 57)
        del hello["energy"]
        self.serve(Rec(), [hello])
        self.assertIsNone(seen["energy"])

    def test_old_arena_refused(self):
        hello = {"type": "hello", "protocol": 1, "timing": "exact", "view": "optimal", "cluster": CLUSTER}
        replies = self.serve(ap.Policy(), [hello])
        self.assertEqual(replies[0]["type"], "error")
        self.assertIn("protocol 2", replies[0]["message"])


if __name__ == "__main__":
    unittest.main()
