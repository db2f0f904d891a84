"""FIFO through the arena_policy package, checking every protocol-2 message
before applying it: no slot is sent with the occupant the client already
has, no job state is sent unchanged, and no full state follows the first
decide. A violation is reported as an error, which ends the run. With the
argument "live", the policy also asks for the clock-driven fields and reads
them at every decision (they then enter the checksums as sent). fifo.FIFO
promises idle_when_nothing_waits, and a decide arena sends although no job
waits is a violation too; with the argument "all" the policy does not
promise it and gets every decision."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "python"))

import arena_policy as ap  # noqa: E402
import fifo  # noqa: E402

_apply = ap.Mirror.apply


def checked_apply(self, msg):
    if msg.get("full") and self.synced:
        raise AssertionError("decide %d: a full state without a resync" % msg["seq"])
    if not msg.get("full"):
        for first, n, o in msg.get("slots", ()):
            for s in range(first, first + n):
                if self.occupant[s] == o:
                    raise AssertionError("decide %d: slot %d sent with its occupant unchanged (%d)" % (msg["seq"], s, o))
                if self.cluster.slot_node[s] != self.cluster.slot_node[first]:
                    raise AssertionError("decide %d: run %d+%d crosses a node" % (msg["seq"], first, n))
        for a in msg.get("states", ()):
            j = self.jobs[a[0]]
            now = [j.id, j.status, j.gpus, None if j.grid is None else list(j.grid), j._remaining, j.total,
                   j.first_start, j.reconfigs, j._queue_time]
            if now == a:
                raise AssertionError("decide %d: job %d's state sent unchanged" % (msg["seq"], j.id))
    view = _apply(self, msg)
    if NOTHING_WAITS and not view.arrivals and not self.pending:
        raise AssertionError("decide %d: sent although no job waits (idle_when_nothing_waits)" % msg["seq"])
    return view


ap.Mirror.apply = checked_apply
NOTHING_WAITS = False

class LiveFIFO(fifo.FIFO):
    live = ("remaining", "queue_time")

    def decide(self, view):
        for j in view.iter_running():
            if not (0 <= j.remaining and j.progress <= 1):
                raise AssertionError("job %d: remaining %d, progress %f" % (j.id, j.remaining, j.progress))
        for j in view.iter_pending():
            if j.queue_time < 0:
                raise AssertionError("job %d: queue_time %f" % (j.id, j.queue_time))
        return super().decide(view)


class EveryFIFO(fifo.FIFO):
    idle_when_nothing_waits = False


if __name__ == "__main__":
    policy = {"live": LiveFIFO, "all": EveryFIFO}.get(sys.argv[1] if sys.argv[1:] else "", fifo.FIFO)()
    NOTHING_WAITS = policy.idle_when_nothing_waits
    ap.run(policy)
