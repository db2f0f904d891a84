"""Client side of arena's external-policy protocol (version 1), stdlib only.

A policy is a class with a ``decide(view)`` method returning a list of
actions; ``run(policy)`` speaks the protocol on stdin/stdout:

    import arena_policy as ap

    class MyPolicy(ap.Policy):
        name = "my-policy"
        def decide(self, view):
            return [ap.start(j.id, slots) ...]

    if __name__ == "__main__":
        ap.run(MyPolicy())

Run it with ``arena simulate --policy 'exec:python3 my_policy.py'``. The
protocol is documented in docs/writing-a-policy.md; in short, arena sends a
hello (cluster), then one "decide" message per scheduling point, and reads
one "actions" reply to each. Print debugging output to stderr: stdout is the
protocol channel.

Everything arena knows about a job is kept in ``Job`` objects that persist
across decisions (``self.jobs`` of the Policy, by id): the static part and
the estimator's answers arrive once, with the job; the dynamic part
(status, GPUs, progress) is refreshed at every decision.
"""

import json
import sys

PROTOCOL = 1


class Grid:
    """A uniform shape: ``nodes`` nodes of type ``gpu``, ``per_node`` GPUs each."""

    __slots__ = ("gpu", "nodes", "per_node")

    def __init__(self, gpu, nodes, per_node):
        self.gpu, self.nodes, self.per_node = gpu, nodes, per_node

    @classmethod
    def of(cls, d):
        return None if d is None else cls(d["gpu"], d["nodes"], d["per_node"])

    def key(self):
        return (self.gpu, self.nodes, self.per_node)

    @property
    def gpus(self):
        return self.nodes * self.per_node

    def __repr__(self):
        return "%s:%dx%d" % (self.gpu, self.nodes, self.per_node)


class Estimate:
    """The estimator's answer for a job on a grid: samples/s and s/iteration."""

    __slots__ = ("grid", "throughput", "iter_time")

    def __init__(self, d):
        self.grid = Grid.of(d)
        self.throughput, self.iter_time = d["throughput"], d["iter_time"]


class Job:
    """One job. Static fields: id, name, alias, model, batch, iterations, gpu,
    num_gpus (the request), submit, deadline, user, vc, best (the
    best-locality Grid of the request), estimates ({grid key: Estimate},
    feasible grids only). Dynamic fields (refreshed each decision): status,
    gpus (slots held), grid, progress, remaining, total, first_start,
    reconfigs, queue_time."""

    def __init__(self, d):
        for k in ("id", "name", "alias", "model", "batch", "iterations", "gpu",
                  "num_gpus", "submit", "deadline", "user", "vc"):
            setattr(self, k, d[k])
        self.best = Grid.of(d["best"])
        self.estimates = {}
        for e in d["estimates"]:
            est = Estimate(e)
            self.estimates[est.grid.key()] = est
        self.update(d)

    def update(self, d):
        self.status, self.gpus, self.grid = d["status"], d["gpus"], Grid.of(d["grid"])
        self.progress, self.remaining, self.total = d["progress"], d["remaining"], d["total"]
        self.first_start, self.reconfigs, self.queue_time = d["first_start"], d["reconfigs"], d["queue_time"]

    def estimate(self, grid):
        """The Estimate on grid, or None when the grid is infeasible."""
        return self.estimates.get(grid.key())

    def feasible(self, grid):
        return grid.key() in self.estimates


class Node:
    __slots__ = ("index", "gpu", "capacity", "first_slot")

    def __init__(self, index, d):
        self.index, self.gpu, self.capacity, self.first_slot = index, d["gpu"], d["capacity"], d["first_slot"]


class Cluster:
    """The hardware: nodes in order, slots numbered node by node."""

    def __init__(self, d):
        self.name, self.types, self.slots = d["name"], d["types"], d["slots"]
        self.nodes = [Node(i, n) for i, n in enumerate(d["nodes"])]
        self.nodes_of_type = {}
        for n in self.nodes:
            self.nodes_of_type.setdefault(n.gpu, []).append(n.index)


class View:
    """One decision: round, now (s), round_length (s), occupant (job id or -1
    per slot), and Job lists running, pending, arrivals, ended."""

    def __init__(self, msg, jobs, cluster):
        self.cluster = cluster
        self.round, self.now, self.round_length = msg["round"], msg["now"], msg["round_length"]
        self.occupant = msg["occupant"]
        for d in msg["arrivals"]:
            jobs[d["id"]] = Job(d)
        lists = {}
        for key in ("running", "pending", "arrivals", "ended"):
            out = []
            for d in msg[key]:
                j = jobs[d["id"]]
                j.update(d)
                out.append(j)
            lists[key] = out
        self.running, self.pending = lists["running"], lists["pending"]
        self.arrivals, self.ended = lists["arrivals"], lists["ended"]
        for j in self.ended:
            jobs.pop(j.id, None)


def start(job, gpus, reason=""):
    return {"kind": "start", "job": job, "gpus": list(gpus), "reason": reason}


def reallocate(job, gpus, reason=""):
    return {"kind": "reallocate", "job": job, "gpus": list(gpus), "reason": reason}


def suspend(job, reason=""):
    return {"kind": "suspend", "job": job, "reason": reason}


def drop(job, reason=""):
    return {"kind": "drop", "job": job, "reason": reason}


class Table:
    """A scratch copy of the slot table to plan on, with the placement rules
    of arena's policy/placement package (the baselines'): nodes visited in
    cluster order, ties kept in that order, the first idle slots of a node
    taken first."""

    def __init__(self, cluster, occupant):
        self.cluster, self.occupant = cluster, list(occupant)

    def free(self, n):
        node = self.cluster.nodes[n]
        occ = self.occupant
        return sum(1 for s in range(node.first_slot, node.first_slot + node.capacity) if occ[s] == -1)

    def free_of_type(self, gpu):
        return sum(self.free(n) for n in self.cluster.nodes_of_type.get(gpu, []))

    def take(self, job, n, q):
        node = self.cluster.nodes[n]
        got = [s for s in range(node.first_slot, node.first_slot + node.capacity)
               if self.occupant[s] in (-1, job)][:q]
        if len(got) < q:
            return None
        for s in got:
            self.occupant[s] = job
        return got

    def nodes_by_free(self, gpu, q):
        """Nodes of type gpu with >= q idle GPUs, most idle first (stable)."""
        cand = [(n, self.free(n)) for n in self.cluster.nodes_of_type.get(gpu, [])]
        cand = [c for c in cand if c[1] >= q]
        cand.sort(key=lambda c: -c[1])  # stable: node order breaks ties
        return [n for n, _ in cand]

    def place_most_free(self, job, grid):
        """Slots for job on grid on the nodes with the most idle GPUs, or None
        (the table is then unchanged). Go: placement.Table.PlaceMostFree."""
        nodes = self.nodes_by_free(grid.gpu, grid.per_node)
        if len(nodes) < grid.nodes:
            return None
        slots = []
        for n in nodes[:grid.nodes]:
            slots += self.take(job, n, grid.per_node)
        return slots


class Policy:
    """Base class: override decide(view); hello(cluster, info) is optional."""

    name = "python-policy"

    def hello(self, cluster, info):
        pass

    def decide(self, view):
        return []


class ProtocolError(Exception):
    pass


def run(policy, stdin=None, stdout=None):
    """Serve arena's protocol until bye or end of input."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    jobs = {}
    cluster = None
    policy.jobs = jobs

    def send(msg):
        stdout.write(json.dumps(msg, separators=(",", ":")))
        stdout.write("\n")
        stdout.flush()

    for line in stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            if msg["protocol"] != PROTOCOL:
                send({"type": "error", "message": "client speaks protocol %d, arena %d" % (PROTOCOL, msg["protocol"])})
                return
            cluster = Cluster(msg["cluster"])
            policy.cluster = cluster
            policy.hello(cluster, msg)
            send({"type": "hello", "protocol": PROTOCOL, "name": policy.name})
        elif kind == "decide":
            view = View(msg, jobs, cluster)
            try:
                actions = policy.decide(view)
            except Exception as e:  # report, then let arena end the run
                send({"type": "error", "message": "%s: %s" % (type(e).__name__, e)})
                raise
            send({"type": "actions", "round": view.round, "actions": actions or []})
        elif kind == "bye":
            return
        else:
            raise ProtocolError("unknown message type %r" % kind)
