"""Client of arena's exec protocol, version 2 (standard library only).

A policy is a class with a ``decide(view)`` method returning a list of
actions; ``run(policy)`` speaks the protocol on stdin/stdout::

    import arena_policy as ap

    class MyPolicy(ap.Policy):
        name = "my-policy"
        def decide(self, view):
            table = view.table()
            return [ap.start(j.id, slots) for j in view.arrivals
                    if (slots := table.place_most_free(j.id, j.best)) is not None]

    if __name__ == "__main__":
        ap.run(MyPolicy())

Run it with ``arena simulate --policy 'exec:python3 my_policy.py'``; check it
with ``arena policies check 'exec:python3 my_policy.py'``. Print debugging
output to stderr: stdout is the protocol channel.

Protocol 2 sends, after a first full decision, only what changed since the
previous one; this module keeps the mirror (``Mirror``) of everything arena
knows — the slot table, the queues in order, every job — and hands the policy
a ``View`` of it at each decision. A sequence number and periodic checksums
from arena let the mirror notice it went astray; it then asks arena for the
full state (a resync) instead of deciding on a stale view.

Units: times in seconds of simulated time (``now``, ``submit``,
``deadline``, ``queue_time``, ``first_start``, ``iter_time``); throughput in
samples per second; iteration counts on the engine's scale (the trace's count
divided by the run's iteration scale), except ``Job.trace_iterations``.

Two job fields change with the clock rather than with events: a running
job's ``remaining`` (and ``progress``) and a pending job's ``queue_time``.
arena sends them at every change only to a policy that lists them in
``Policy.live``; otherwise reading them where they would be stale raises
``StaleField``, so a policy never silently decides on an old value.

docs/writing-a-policy.md documents the protocol and this API.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from array import array
from typing import IO, Any, Callable, Dict, MutableSequence, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

__all__ = [
    "PROTOCOL", "Grid", "Estimate", "Job", "Node", "Cluster", "View", "Table", "Mirror",
    "Policy", "Action", "start", "reallocate", "suspend", "drop", "run",
    "ProtocolError", "StaleField", "OutOfStep", "Energy", "energy_of",
]

#: The protocol version this client speaks.
PROTOCOL = 2

#: Idle slot marker in occupant lists.
NO_JOB = -1

#: The layout of a job's state array in protocol 2 (arena's hello lists it).
STATE_FIELDS = ["id", "status", "gpus", "grid", "remaining", "total", "first_start", "reconfigs", "queue_time"]
#: The layout of a new job's array: its state, then its static part.
JOB_FIELDS = STATE_FIELDS + ["name", "alias", "model", "batch", "iterations", "trace_iterations", "gpu",
                             "num_gpus", "submit", "deadline", "user", "vc", "best", "estimates"]

# Status codes of the checksums (arena's sim.Status values).
_STATUS_CODE = {"not-arrived": 0, "pending": 1, "running": 2, "finished": 3, "dropped": 4, "failed": 5}

# ARENA_POLICY_STRICT=1 makes a mirror out of step an error instead of a
# resync (tests: arena's record and the mirror must never disagree).
_STRICT = os.environ.get("ARENA_POLICY_STRICT", "") not in ("", "0")

#: An action as sent to arena: {"kind", "job", "gpus", "reason"}.
Action = Dict[str, Any]


class ProtocolError(Exception):
    """A message arena sent that this client cannot follow."""


class OutOfStep(Exception):
    """The mirror no longer matches arena's state (a sequence gap or a
    checksum mismatch); ``run`` answers with a resync request."""


class StaleField(AttributeError):
    """A clock-driven field read where arena does not keep it current (add
    its name to ``Policy.live``)."""


class Grid(NamedTuple):
    """A uniform shape: ``nodes`` nodes of GPU type ``gpu``, ``per_node``
    GPUs on each. A tuple, so it is hashable and compares by value."""

    gpu: str
    nodes: int
    per_node: int

    @property
    def gpus(self) -> int:
        """Total GPUs, nodes × per_node."""
        return self.nodes * self.per_node

    def key(self) -> Tuple[str, int, int]:
        """The grid as a plain tuple (version-1 API; a Grid is its own key)."""
        return (self.gpu, self.nodes, self.per_node)

    def __repr__(self) -> str:
        return "%s:%dx%d" % (self.gpu, self.nodes, self.per_node)


#: A grid as a plain tuple (gpu, nodes, per_node): the key type of
#: ``Job.estimates``; a Grid is one, and so is any equal plain tuple.
GridKey = Tuple[str, int, int]

# Grid from a wire list [gpu, nodes, per_node] without NamedTuple's Python-level
# __new__ (a Grid per started job and arrival on a long trace).
_grid: Any = tuple.__new__


class Estimate(NamedTuple):
    """arena's estimator's answer for a job on a feasible grid."""

    grid: Grid
    #: Samples per second of the whole job on the grid.
    throughput: float
    #: Seconds per iteration (one iteration on the engine's scale).
    iter_time: float


class Job:
    """One job, kept across decisions (the same object from arrival to end).

    Static fields (from the arrival):

    - ``id`` (int): the protocol's job id (0-based trace row); arena's own
      messages call the job ``alias``.
    - ``name`` (str): the trace's job name; ``alias`` (str): ``job_%04d`` of
      id + 1, as in arena's results and error messages.
    - ``model`` (str), ``batch`` (int, samples per iteration).
    - ``iterations`` (int): the job's whole work, **engine scale** (the
      trace's count ÷ the iteration scale; the denominator of ``progress``).
    - ``trace_iterations`` (int): the trace's count, before the iteration
      scale — for reference only; compare ``remaining`` with ``iterations``.
    - ``gpu`` (str), ``num_gpus`` (int): the requested GPU type and count.
    - ``submit`` (s), ``deadline`` (s, 0 = none): trace times.
    - ``user``, ``vc`` (str).
    - ``best`` (Grid): the best-locality grid of the request.
    - ``estimates`` ({Grid: Estimate}): every feasible candidate grid; a
      grid not in it is infeasible. Shared by jobs of the same workload and
      request; do not modify it.

    Dynamic fields (current at every decision unless noted):

    - ``status`` (str): "pending", "running", "finished", "dropped" or
      "failed" (failed on its own past its retries; runs with job failures).
    - ``gpus`` (list of int): global GPU slots held while running.
    - ``grid`` (Grid or None): the shape of ``gpus`` while running.
    - ``remaining`` (int, engine scale): iterations left — for a running
      job only with "remaining" in ``Policy.live``.
    - ``progress`` (float, 0…1): 1 − remaining / iterations (same rule).
    - ``total`` (int, engine scale): the artifact's iter_num (iterations at
      arrival, reset to remaining on suspension); not the job's whole work.
    - ``first_start`` (s, −1 before the first start), ``reconfigs`` (int).
    - ``queue_time`` (s): time spent pending — for a pending job only with
      "queue_time" in ``Policy.live``.
    """

    __slots__ = ("id", "name", "alias", "model", "batch", "iterations", "trace_iterations",
                 "gpu", "num_gpus", "submit", "deadline", "user", "vc", "best", "estimates",
                 "status", "gpus", "grid", "_remaining", "total", "first_start", "reconfigs",
                 "_queue_time", "_live")

    id: int
    name: str
    alias: str
    model: str
    batch: int
    iterations: int
    trace_iterations: int
    gpu: str
    num_gpus: int
    submit: float
    deadline: float
    user: str
    vc: str
    best: Grid
    estimates: Dict[GridKey, Estimate]
    status: str
    gpus: List[int]
    grid: Optional[Grid]
    total: int
    first_start: float
    reconfigs: int
    _remaining: int
    _queue_time: float
    _live: Tuple[bool, bool]

    def __init__(self, a: Sequence[Any], tables: Dict[int, Dict[GridKey, Estimate]], live: Tuple[bool, bool] = (True, True)):
        # a is a job array (JOB_FIELDS): the state, then the static part.
        (self.name, self.alias, self.model, self.batch, self.iterations, self.trace_iterations,
         self.gpu, self.num_gpus, self.submit, self.deadline, self.user, self.vc, best, table) = a[9:]
        self.best = _grid(Grid, best)
        self.estimates = tables[table]
        self._live = live
        # The state, as update() takes it (inlined: one Job per arrival).
        (self.id, self.status, self.gpus, grid, self._remaining, self.total,
         self.first_start, self.reconfigs, self._queue_time) = a[:9]
        self.grid = None if grid is None else _grid(Grid, grid)

    def update(self, a: Sequence[Any]) -> None:
        """Take a state array (STATE_FIELDS; arena's, not for policies to call)."""
        (_, self.status, self.gpus, grid, self._remaining, self.total,
         self.first_start, self.reconfigs, self._queue_time) = a[:9]
        self.grid = None if grid is None else _grid(Grid, grid)

    @property
    def remaining(self) -> int:
        """Iterations left, engine scale (see the class doc)."""
        if self.status == "running" and not self._live[0]:
            raise StaleField("job %d (%s): remaining of a running job is not kept current; "
                             "add \"remaining\" to your Policy's live" % (self.id, self.alias))
        return self._remaining

    @property
    def progress(self) -> float:
        """Fraction done, 0…1: 1 − remaining / iterations (1 when iterations ≤ 0)."""
        rem = self.remaining
        if self.iterations <= 0:
            return 1.0
        return 1 - rem / self.iterations

    @property
    def queue_time(self) -> float:
        """Seconds spent pending (see the class doc)."""
        if self.status == "pending" and not self._live[1]:
            raise StaleField("job %d (%s): queue_time of a pending job is not kept current; "
                             "add \"queue_time\" to your Policy's live" % (self.id, self.alias))
        return self._queue_time

    def estimate(self, grid: Tuple[str, int, int]) -> Optional[Estimate]:
        """The Estimate on grid, or None when the grid is infeasible."""
        return self.estimates.get(grid)

    def feasible(self, grid: Tuple[str, int, int]) -> bool:
        """Whether the estimator finds grid feasible for this job."""
        return grid in self.estimates

    def __repr__(self) -> str:
        return "Job(%d %s %s %s)" % (self.id, self.alias, self.name, self.status)


class Node:
    """A node: ``index`` in cluster order, GPU type ``gpu``, ``capacity``
    GPUs, global slots ``first_slot`` … first_slot + capacity − 1."""

    __slots__ = ("index", "gpu", "capacity", "first_slot")

    def __init__(self, index: int, d: Dict[str, Any]):
        self.index, self.gpu, self.capacity, self.first_slot = index, d["gpu"], d["capacity"], d["first_slot"]

    def slots(self) -> range:
        """The node's global slot numbers."""
        return range(self.first_slot, self.first_slot + self.capacity)


class Energy:
    """The hello's "energy" object (with the exec entry's energy option;
    docs/energy.md), the model over the cluster spec's energy section if it
    has one: ``model``, ``price_tier``, ``usd_per_gpu_hour`` ({gpu: $ at
    the tier}), ``watts`` ({gpu: {"tdp": W, "idle": W}}), ``usd_per_kwh``,
    ``pue`` and ``hourly``, the grid's carbon intensity in g CO2eq/kWh hour
    by hour from hour 0 (one value for a constant intensity)."""

    def __init__(self, d: Dict[str, Any]):
        self.model: str = d.get("model", "")
        self.price_tier: str = d.get("price_tier", "on-demand")
        self.usd_per_gpu_hour: Dict[str, float] = dict(d.get("usd_per_gpu_hour") or {})
        self.watts: Dict[str, Dict[str, float]] = {k: dict(v) for k, v in (d.get("watts") or {}).items()}
        self.usd_per_kwh: float = d.get("usd_per_kwh", 0.0)
        self.pue: float = d.get("pue", 1.0)
        self.hourly: List[float] = list(d.get("carbon_g_per_kwh_hourly") or [d.get("carbon_g_per_kwh", 0.0)])

    def intensity(self, t: float) -> float:
        """g CO2eq/kWh at t seconds after hour 0; a series repeats past
        its end, as arena's accounting reads it."""
        return self.hourly[int(t // 3600) % len(self.hourly)]


def energy_of(info: Dict[str, Any]) -> Optional[Energy]:
    """The hello's energy object as an Energy; None when the exec entry
    names no energy model."""
    e = info.get("energy")
    return Energy(e) if e else None


class Cluster:
    """The hardware: ``name``, GPU ``types``, ``slots`` (total GPUs),
    ``nodes`` in order (slots numbered node by node), ``nodes_of_type``
    ({gpu: [node index…]}) and ``slot_node`` (node index of every slot)."""

    def __init__(self, d: Dict[str, Any]):
        self.name: str = d["name"]
        self.types: List[str] = d["types"]
        self.slots: int = d["slots"]
        self.nodes: List[Node] = [Node(i, n) for i, n in enumerate(d["nodes"])]
        # The network topology (docs/topology.md), or None: its
        # "domain_nodes", "tiers" ([{name, nodes, oversubscription}]),
        # "domain" (each node's fast domain) and "groups" (per tier, each
        # node's switch group).
        self.topology: Optional[Dict[str, Any]] = d.get("topology")
        self.nodes_of_type: Dict[str, List[int]] = {}
        for n in self.nodes:
            self.nodes_of_type.setdefault(n.gpu, []).append(n.index)
        self.slot_node: List[int] = [0] * self.slots
        # Position of each node within its type's list (Table's free lists).
        self.type_pos: List[int] = [0] * len(self.nodes)
        for idx in self.nodes_of_type.values():
            for pos, i in enumerate(idx):
                self.type_pos[i] = pos
        for n in self.nodes:
            for s in n.slots():
                self.slot_node[s] = n.index
        # Per slot, its node's GPU type and position in that type's list.
        self.slot_gpu: List[str] = [self.nodes[n].gpu for n in self.slot_node]
        self.slot_pos: List[int] = [self.type_pos[n] for n in self.slot_node]
        # Per GPU type, in its node order: each node's first slot and
        # capacity (Table.place_most_free's inner loop reads only these).
        self.type_first: Dict[str, List[int]] = {g: [self.nodes[n].first_slot for n in idx]
                                                 for g, idx in self.nodes_of_type.items()}
        self.type_cap: Dict[str, List[int]] = {g: [self.nodes[n].capacity for n in idx]
                                               for g, idx in self.nodes_of_type.items()}

    def total_gpus(self, gpu: str) -> int:
        """GPUs of type gpu in the cluster."""
        return sum(self.nodes[n].capacity for n in self.nodes_of_type.get(gpu, []))

    def node_capacity(self, gpu: str) -> int:
        """The largest node of type gpu (0 if none)."""
        return max((self.nodes[n].capacity for n in self.nodes_of_type.get(gpu, [])), default=0)


#: Idle GPUs per node of one GPU type, in node order: a bytearray when every
#: node has at most 255 GPUs (a Table copies it on its first placement of the
#: type in a decision — a memcpy, where a list of 1,280 ints took 20 µs — and
#: ``index`` finds a count with memchr), a list otherwise.
FreeList = MutableSequence[int]


def _free_lists(cluster: Cluster, occupant: Sequence[int]) -> Tuple[Dict[str, FreeList], Dict[str, List[int]]]:
    """Idle GPUs of every node, per GPU type in node order, and per type how
    many nodes have each count of idle GPUs (index 0 … largest node)."""
    free: Dict[str, FreeList] = {}
    counts: Dict[str, List[int]] = {}
    for gpu, idx in cluster.nodes_of_type.items():
        f = []
        cap = max(cluster.nodes[n].capacity for n in idx)
        cnt = [0] * (cap + 1)
        for n in idx:
            node = cluster.nodes[n]
            k = sum(1 for s in node.slots() if occupant[s] == NO_JOB)
            f.append(k)
            cnt[k] += 1
        free[gpu], counts[gpu] = (bytearray(f) if cap <= 255 else f), cnt
    return free, counts


class Table:
    """A scratch copy of the slot table to plan on, with the placement rules
    of arena's policy/placement package (Go: placement.Table): nodes visited
    in cluster order, ties kept in that order, the first idle slots of a node
    taken first. ``view.table()`` makes one from the mirror without scanning
    the slots; ``Table(cluster, occupant)`` from any occupant list. Planning
    on it changes neither the view nor the mirror."""

    def __init__(self, cluster: Cluster, occupant: Sequence[int],
                 _free: Optional[Tuple[Dict[str, FreeList], Dict[str, List[int]]]] = None):
        self.cluster = cluster
        self._base = occupant
        self._over: Dict[int, int] = {}  # slot → job, the planned changes
        if _free is None:
            free, counts = _free_lists(cluster, occupant)
            self._own = set(free)
        else:  # the mirror's, copied per GPU type on the first change
            free, counts = dict(_free[0]), dict(_free[1])
            self._own = set()
        self._free = free      # per GPU type, idle GPUs of its nodes in order
        self._counts = counts  # per GPU type, nodes by idle GPUs

    def _lists(self, gpu: str) -> Tuple[FreeList, List[int]]:
        """The type's free and count lists, the table's own copies."""
        if gpu not in self._own:
            self._own.add(gpu)
            self._free[gpu] = self._free[gpu][:]
            self._counts[gpu] = self._counts[gpu][:]
        return self._free[gpu], self._counts[gpu]

    def at(self, slot: int) -> int:
        """The slot's occupant in this plan (job id or −1)."""
        return self._over.get(slot, self._base[slot])

    @property
    def occupant(self) -> List[int]:
        """The plan's whole slot table (a new list)."""
        occ = list(self._base)
        for s, j in self._over.items():
            occ[s] = j
        return occ

    def free(self, n: int) -> int:
        """Idle GPUs on node n."""
        c = self.cluster
        return self._free[c.nodes[n].gpu][c.type_pos[n]]

    def free_of_type(self, gpu: str) -> int:
        """Idle GPUs of type gpu."""
        return sum(self._free.get(gpu, ()))

    def _set(self, s: int, job: int) -> None:
        over = self._over
        old = over.get(s, self._base[s])
        if old == job:
            return
        over[s] = job
        if old == NO_JOB or job == NO_JOB:
            c = self.cluster
            f, cnt = self._lists(c.slot_gpu[s])
            pos = c.slot_pos[s]
            k = f[pos]
            cnt[k] -= 1
            k += 1 if job == NO_JOB else -1
            cnt[k] += 1
            f[pos] = k

    def take(self, job: int, n: int, q: int) -> Optional[List[int]]:
        """The first q slots of node n that are idle or job's own, now job's;
        None (table unchanged) when there are fewer. Go: Table.Take."""
        node = self.cluster.nodes[n]
        base, over = self._base, self._over
        first, cap = node.first_slot, node.capacity
        f, cnt = self._lists(node.gpu)
        pos = self.cluster.type_pos[n]
        if q == cap and f[pos] == cap:  # a whole idle node: no slot to look at
            got = list(range(first, first + cap))
            over.update(dict.fromkeys(got, job))
            cnt[cap] -= 1
            cnt[0] += 1
            f[pos] = 0
            return got
        got = []
        idle = 0
        for s in range(first, first + cap):
            o = over.get(s, base[s]) if over else base[s]
            if o == NO_JOB:
                idle += 1
            elif o != job:
                continue
            got.append(s)
            if len(got) == q:
                break
        if len(got) < q:
            return None
        for s in got:
            over[s] = job
        if idle:
            k = f[pos]
            cnt[k] -= 1
            k -= idle
            cnt[k] += 1
            f[pos] = k
        return got

    def clear(self, job: int) -> None:
        """Frees every slot job holds in the plan. Go: Table.Clear."""
        for s in range(self.cluster.slots):
            if self.at(s) == job:
                self._set(s, NO_JOB)

    def release(self, slots: Iterable[int]) -> None:
        """Frees the given slots in the plan."""
        for s in slots:
            self._set(s, NO_JOB)

    def nodes_by_free(self, gpu: str, q: int, k: Optional[int] = None) -> List[int]:
        """Nodes of type gpu with ≥ q idle GPUs, most idle first, ties in
        node order (Go: Table.NodesByFree); the first k only when k is given."""
        free = self._free.get(gpu)
        if not free:
            return []
        cnt = self._counts[gpu]
        idx = self.cluster.nodes_of_type[gpu]
        out: List[int] = []
        want = len(free) if k is None else k
        c = len(cnt) - 1
        while c >= max(q, 0) and len(out) < want:
            m = min(cnt[c], want - len(out))
            i = -1
            for _ in range(m):
                i = free.index(c, i + 1)
                out.append(idx[i])
            c -= 1
        return out

    def place_most_free(self, job: int, grid: Tuple[str, int, int]) -> Optional[List[int]]:
        """Slots for job on grid on the nodes with the most idle GPUs, or
        None (the table is then unchanged). Go: Table.PlaceMostFree
        (NodesByFree, then Take on each node)."""
        # nodes_by_free and take in one function: a placement per started
        # job is most of a FIFO's own time on a long trace.
        gpu, k, q = grid
        if k <= 0 or q <= 0:
            return None
        cnt = self._counts.get(gpu)
        if cnt is None or q >= len(cnt) or sum(cnt[q:]) < k:
            return None
        free, cnt = self._lists(gpu)
        # The k nodes with the most idle GPUs (≥ q), ties in node order,
        # chosen before any is taken.
        picked: List[int] = []
        c = len(cnt) - 1
        need = k
        index = free.index
        while need:
            m = cnt[c]
            if m:
                if m > need:
                    m = need
                need -= m
                i = -1
                for _ in range(m):
                    i = index(c, i + 1)
                    picked.append(i)
            c -= 1
        firsts, caps = self.cluster.type_first[gpu], self.cluster.type_cap[gpu]
        base, over = self._base, self._over
        if c + 1 == q and q == len(cnt) - 1:
            # Whole nodes of the type's largest size (every picked node
            # had all its GPUs idle): no slot to look at.
            slots = [s for pos in picked for s in range(firsts[pos], firsts[pos] + q)]
            over.update(dict.fromkeys(slots, job))
            for pos in picked:
                free[pos] = 0
            cnt[q] -= k
            cnt[0] += k
            return slots
        slots = []
        for pos in picked:
            first, cap, f0 = firsts[pos], caps[pos], free[pos]
            got: Sequence[int]
            if f0 == cap:  # a whole idle node: its first q slots
                got = range(first, first + q)
                idle = q
            else:  # the first q slots idle or job's own
                part: List[int] = []
                idle = 0
                for s in range(first, first + cap):
                    o = over.get(s, base[s])
                    if o == NO_JOB:
                        idle += 1
                    elif o != job:
                        continue
                    part.append(s)
                    if len(part) == q:
                        break
                got = part
            over.update(dict.fromkeys(got, job))
            slots += got
            if idle:
                cnt[f0] -= 1
                cnt[f0 - idle] += 1
                free[pos] = f0 - idle
        return slots


class View:
    """One decision.

    - ``round`` (int), ``now`` (s), ``round_length`` (s).
    - ``cluster`` (Cluster).
    - ``occupant`` (list of int): job id or −1 per global GPU slot; the
      mirror's own list — read it, do not change it (plan on ``table()``).
      GPUs of ``ended`` jobs are already free.
    - ``running`` (list of Job): the running queue, start order.
    - ``pending`` (list of Job): the pending queue, queue order; arrivals are
      not in it.
    - ``arrivals`` (list of Job): submitted since the last decision, in
      order; those neither started nor dropped join the pending queue's end.
    - ``ended`` (list of Job): finished since the last decision.
    - ``nodes`` (list of (state, until) per node, or None in a run without
      cluster events): state "up", "draining", "reclaiming" or "down";
      until, when a drain's or reclaim's notice expires. Free GPUs of nodes
      not up read −2 in ``occupant`` (not idle).
    - ``nodes_changed`` (bool): some node's availability changed since the
      last decision.
    - ``interrupted`` (list of Job): stopped by a node failure since the
      last decision; already in ``pending``, progress since their last
      checkpoint lost.
    - ``contention`` ({job id: slowdown}): on a cluster with a topology,
      the running jobs slowed by jobs sharing their uplinks (iteration
      time over their time alone on the fabric); a running job not in it
      runs at its time alone (docs/topology.md).

    ``running`` and ``pending`` are built when first read (a long pending
    queue costs nothing to a policy that does not look at it);
    ``iter_running()`` / ``iter_pending()`` walk them without a copy, and
    ``pending_of_type(gpu)`` counts without a walk.
    """

    def __init__(self, mirror: "Mirror", msg: Dict[str, Any], arrivals: List[Job], ended: List[Job],
                 interrupted: Optional[List[Job]] = None):
        self._m = mirror
        self.cluster = mirror.cluster
        self.round: int = msg["round"]
        self.now: float = msg["now"]
        self.round_length: float = msg["round_length"]
        self.occupant: List[int] = mirror.occupant
        self.arrivals = arrivals
        self.ended = ended
        self.nodes: Optional[List[Tuple[str, float]]] = mirror.nodes
        self.nodes_changed: bool = "nodes" in msg
        self.interrupted: List[Job] = interrupted or []
        self.contention: Dict[int, float] = {int(i): float(x) for i, x in msg.get("contention", ())}
        self._running: Optional[List[Job]] = None
        self._pending: Optional[List[Job]] = None

    @property
    def running(self) -> List[Job]:
        if self._running is None:
            self._running = list(self._m.running.values())
        return self._running

    @property
    def pending(self) -> List[Job]:
        if self._pending is None:
            self._pending = list(self._m.pending.values())
        return self._pending

    def iter_running(self) -> Iterator[Job]:
        return iter(self._m.running.values())

    def iter_pending(self) -> Iterator[Job]:
        return iter(self._m.pending.values())

    def pending_of_type(self, gpu: str) -> int:
        """Jobs in the pending queue that requested GPU type gpu."""
        return self._m.pending_types.get(gpu, 0)

    def job(self, id: int) -> Optional[Job]:
        """A running, pending or arriving job by id."""
        return self._m.jobs.get(id)

    def free(self, n: int) -> int:
        """Idle GPUs on node n."""
        c = self.cluster
        return self._m.free[c.nodes[n].gpu][c.type_pos[n]]

    def table(self) -> Table:
        """A scratch Table of the current slot table to plan on."""
        return Table(self.cluster, self._m.occupant, (self._m.free, self._m.counts))


def _crc(values: List[int]) -> int:
    a = array("q", values)
    if sys.byteorder == "big":
        a.byteswap()
    return zlib.crc32(a.tobytes())


class Mirror:
    """The client's copy of arena's state, kept from protocol-2 decide
    messages: ``occupant``, ``running`` and ``pending`` ({id: Job} in queue
    order), ``jobs`` (every running, pending and arriving job by id), the
    estimate tables, idle GPUs per node (``free``, per GPU type in node
    order; ``counts``: per type, nodes by idle GPUs) and pending jobs per
    requested type (``pending_types``)."""

    def __init__(self, cluster: Cluster, live: Iterable[str] = ()):
        live = set(live)
        self.cluster = cluster
        self.live: Tuple[bool, bool] = ("remaining" in live, "queue_time" in live)
        self.seq = 0
        self.reset()

    def reset(self) -> None:
        """Forget everything (before a full decide)."""
        self.occupant: List[int] = [NO_JOB] * self.cluster.slots
        self.free, self.counts = _free_lists(self.cluster, self.occupant)
        # Per slot, its GPU type's free and count lists (_set_runs).
        slot_gpu = self.cluster.slot_gpu
        self._slot_free = [self.free[g] for g in slot_gpu]
        self._slot_counts = [self.counts[g] for g in slot_gpu]
        self.running: Dict[int, Job] = {}
        self.pending: Dict[int, Job] = {}
        if not hasattr(self, "jobs"):
            self.jobs: Dict[int, Job] = {}
        self.jobs.clear()  # the same dict: Policy.jobs refers to it
        self.tables: Dict[int, Dict[GridKey, Estimate]] = {}
        self.pending_types: Dict[str, int] = {}
        self.synced = False
        self.nodes: Optional[List[Tuple[str, float]]] = None

    def _job(self, a: Sequence[Any]) -> Job:
        j = Job(a, self.tables, self.live)
        self.jobs[j.id] = j
        return j

    def _set_runs(self, runs: Iterable[Sequence[int]]) -> None:
        """Apply [first slot, count, job] runs (each within one node)."""
        occ, slot_free, slot_counts = self.occupant, self._slot_free, self._slot_counts
        slot_pos = self.cluster.slot_pos
        for first, n, job in runs:
            end = first + n
            idle = occ[first:end].count(NO_JOB)
            occ[first:end] = [job] * n
            delta = n - idle if job == NO_JOB else -idle
            if delta:
                f, cnt, pos = slot_free[first], slot_counts[first], slot_pos[first]
                k = f[pos]
                cnt[k] -= 1
                k += delta
                cnt[k] += 1
                f[pos] = k

    def _pend_add(self, j: Job) -> None:
        self.pending[j.id] = j
        self.pending_types[j.gpu] = self.pending_types.get(j.gpu, 0) + 1

    def _pend_del(self, id: int) -> None:
        j = self.pending.pop(id)
        self.pending_types[j.gpu] -= 1

    def apply(self, msg: Dict[str, Any]) -> View:
        """Apply one decide message and return its View. Raises OutOfStep
        when the message does not follow from the mirror (the caller asks
        for a resync; the mirror must then take a full message)."""
        full = msg.get("full", False)
        seq = msg["seq"]
        if not full and (not self.synced or seq != self.seq + 1):
            self.synced = False
            raise OutOfStep("decide %d after %d" % (seq, self.seq))
        self.seq = seq
        if full:
            self.reset()
        for t in msg.get("tables", ()):
            est: Dict[GridKey, Estimate] = {}
            for gpu, nodes, per_node, thr, it in t["estimates"]:
                g = Grid(gpu, nodes, per_node)
                est[g] = Estimate(g, thr, it)
            self.tables[t["id"]] = est
        jobs = self.jobs
        try:
            if full:
                for d in msg.get("jobs", ()):
                    self._job(d)
                self._set_runs((s, 1, o) for s, o in enumerate(msg.get("occupant", ())) if o != NO_JOB)
                for id in msg.get("running", ()):
                    self.running[id] = jobs[id]
                for id in msg.get("pending", ()):
                    self._pend_add(jobs[id])
            else:
                self._set_runs(msg.get("slots", ()))
                running = self.running
                for id in msg.get("running_removed", ()):
                    del running[id]
                for id in msg.get("running_added", ()):
                    running[id] = jobs[id]
                for id in msg.get("pending_removed", ()):
                    self._pend_del(id)
                for id in msg.get("pending_added", ()):
                    self._pend_add(jobs[id])
                for a in msg.get("states", ()):
                    jobs[a[0]].update(a)
            ended = []
            for a in msg.get("ended", ()):
                j = jobs.pop(a[0])
                j.update(a)
                ended.append(j)
            for id in msg.get("gone", ()):
                jobs.pop(id)
            interrupted = [jobs[id] for id in msg.get("interrupted", ())]
            if "nodes" in msg:
                self.nodes = [(s, u) for s, u in msg["nodes"]]
        except (KeyError, ValueError, TypeError, IndexError) as e:
            self.synced = False
            raise OutOfStep("decide %d does not follow from the mirror: %s: %s" % (seq, type(e).__name__, e))
        arrivals = [self._job(d) for d in msg["arrivals"]]
        self.synced = True
        check = msg.get("check")
        if check is not None:
            got = self.checksums()
            for k in ("occupant", "queues", "jobs"):
                if got[k] != check[k]:
                    self.synced = False
                    raise OutOfStep("decide %d: the mirror's %s checksum is %d, arena's %d" % (seq, k, got[k], check[k]))
        return View(self, msg, arrivals, ended, interrupted)

    def checksums(self) -> Dict[str, int]:
        """CRC-32 of the mirror as arena computes them from what it sent
        (docs/writing-a-policy.md, "check")."""
        q: List[int] = [len(self.running)]
        q += self.running
        q.append(len(self.pending))
        q += self.pending
        js: List[int] = []
        for queue in (self.running, self.pending):
            for j in queue.values():
                js += (j.id, _STATUS_CODE.get(j.status, -1), len(j.gpus))
                js += j.gpus
                js += (j._remaining, j.total, j.reconfigs)
        return {"occupant": _crc(self.occupant), "queues": _crc(q), "jobs": _crc(js)}


def start(job: int, gpus: Iterable[int], reason: str = "") -> Action:
    """Run pending or arriving job on the global GPU slots gpus."""
    return {"kind": "start", "job": job, "gpus": list(gpus), "reason": reason}


def reallocate(job: int, gpus: Iterable[int], reason: str = "") -> Action:
    """Move running job to gpus (resize, migration or GPU-type change)."""
    return {"kind": "reallocate", "job": job, "gpus": list(gpus), "reason": reason}


def suspend(job: int, reason: str = "") -> Action:
    """Put running job back at the end of the pending queue, progress kept."""
    return {"kind": "suspend", "job": job, "reason": reason}


def drop(job: int, reason: str = "") -> Action:
    """Remove a pending or arriving job for good."""
    return {"kind": "drop", "job": job, "reason": reason}


class Policy:
    """Base class: override ``decide(view)``; ``hello(cluster, info)`` is
    optional (info is arena's hello: "timing" exact|artifact, "view", and
    with the exec entry's energy option "energy": prices, GPU power and
    carbon intensity; docs/energy.md).

    Class attributes:

    - ``name``: labels the policy in arena's messages.
    - ``live``: clock-driven fields to keep current, any of "remaining"
      (running jobs) and "queue_time" (pending jobs); each costs a state
      message per job and decision.
    - ``idle_when_quiet``: promise that a decision with no arrival and no
      ended job returns no action and changes nothing later decisions depend
      on; arena then skips such decisions (Go: sim.QuietRounds). A policy
      that acts on elapsed time (preemption) must leave it False.
    - ``idle_when_nothing_waits``: promise that a decision with no arrival
      and an empty pending queue returns no action and changes nothing
      later decisions depend on (ended jobs alone free GPUs nobody waits
      for); arena then does not send such decisions, and their ended jobs
      and changes come with the next one. True for a policy that only
      starts waiting jobs (FIFO, SJF); False for one that also moves,
      resizes or preempts running jobs.

    After the hello, ``self.cluster`` is the Cluster and ``self.jobs`` the
    mirror's jobs by id.
    """

    name: str = "python-policy"
    live: Sequence[str] = ()
    idle_when_quiet: bool = False
    idle_when_nothing_waits: bool = False
    cluster: Cluster
    jobs: Dict[int, Job]

    def hello(self, cluster: Cluster, info: Dict[str, Any]) -> None:
        pass

    def decide(self, view: View) -> List[Action]:
        return []


# The C scanner json.loads ends in (not in the type stubs).
_scan: Callable[[str, int], Tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _loads(line: bytes) -> Any:
    """json.loads of one message line, without its encoding detection and
    whitespace regular expressions when the line is a plain object (arena
    writes UTF-8, no leading whitespace): one per decision."""
    text = line.decode()
    try:
        msg, end = _scan(text, 0)
    except StopIteration:
        return json.loads(text)  # raises the error json would
    if end != len(text) and text[end:].strip():
        return json.loads(text)
    return msg


def run(policy: Policy, stdin: Optional[IO[bytes]] = None, stdout: Optional[IO[str]] = None) -> None:
    """Serve arena's protocol until bye or end of input."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout
    mirror: Optional[Mirror] = None
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    loads = _loads

    def send(msg: Dict[str, Any]) -> None:
        out.write(dumps(msg) + "\n")
        out.flush()

    for line in inp:
        if line[:1] != b"{" and not line.strip():
            continue
        msg = loads(line)
        kind = msg.get("type")
        if kind == "decide":
            if mirror is None:
                raise ProtocolError("decide before hello")
            try:
                view = mirror.apply(msg)
            except OutOfStep as e:
                if _STRICT:
                    send({"type": "error", "message": "ARENA_POLICY_STRICT: %s" % e})
                    raise
                print("arena_policy: %s; asking arena for the full state" % e, file=sys.stderr)
                send({"type": "resync", "round": msg["round"], "message": str(e)})
                continue
            try:
                actions = policy.decide(view)
            except Exception as e:  # report, then let arena end the run
                send({"type": "error", "message": "%s: %s" % (type(e).__name__, e)})
                raise
            send({"type": "actions", "round": view.round, "actions": actions or []})
        elif kind == "hello":
            offered = msg.get("protocols", [msg.get("protocol")])
            if PROTOCOL not in offered:
                send({"type": "error", "message": "this client speaks protocol %d; arena offers %s" % (PROTOCOL, offered)})
                return
            if msg.get("state_fields") != STATE_FIELDS or msg.get("job_fields") != JOB_FIELDS:
                send({"type": "error", "message": "arena's job layout %s differs from this client's %s"
                      % (msg.get("job_fields"), JOB_FIELDS)})
                return
            cluster = Cluster(msg["cluster"])
            mirror = Mirror(cluster, policy.live)
            policy.cluster, policy.jobs = cluster, mirror.jobs
            policy.hello(cluster, msg)
            reply = {"type": "hello", "protocol": PROTOCOL, "name": policy.name, "live": list(policy.live),
                     "idle_when_quiet": bool(policy.idle_when_quiet)}
            if policy.idle_when_nothing_waits:  # only then: an arena before it refuses the key
                reply["idle_when_nothing_waits"] = True
            send(reply)
        elif kind == "bye":
            return
        else:
            raise ProtocolError("unknown message type %r" % kind)
