"""First-come-first-served, the rules of arena's Go fcfs policy (and the Arena
artifact's FIFO): each job runs on exactly the GPU type and count it asked
for, at the best locality, on the nodes with the most idle GPUs; a job that
cannot run even there is dropped on arrival; a waiting job blocks every
later job of its GPU type; nothing is preempted, resized or moved.

    arena simulate --policy 'fcfs,exec:python3 examples/python/fifo.py'

``import arena_policy`` finds the package installed (pip install ./python)
or, from a checkout, examples/python/arena_policy.py: a symbolic link to
python/arena_policy/__init__.py (the package is one module).
"""

from typing import Dict, List, Set

import arena_policy as ap


class FIFO(ap.Policy):
    name = "python-fifo"
    # A decision without arrivals or ended jobs does nothing: arena skips it.
    idle_when_quiet = True
    # Nor does one where no job waits (no arrival, nothing pending): ended
    # jobs free GPUs nobody asked for; arena does not send it.
    idle_when_nothing_waits = True

    def decide(self, view: ap.View) -> List[ap.Action]:
        # Faults: an interruption or a node coming back frees or brings
        # capacity as an ended job does.
        freed = bool(view.ended or view.interrupted or view.nodes_changed)
        if not freed and not view.arrivals:
            return []
        table = view.table()
        actions: List[ap.Action] = []
        # Pending jobs per GPU type, kept by the mirror (no walk of the queue).
        started: Dict[str, int] = {}
        # Restart pass over the pending queue in rounds where jobs ended,
        # head-of-line blocking per GPU type: it stops once every type with a
        # pending job is blocked (nothing later could start).
        if freed:
            blocked: Set[str] = set()
            types = sum(1 for g in self.cluster.types if view.pending_of_type(g) > 0)
            for j in view.iter_pending():
                if len(blocked) >= types:
                    break
                if j.gpu in blocked:
                    continue
                slots = table.place_most_free(j.id, j.best) if j.best in j.estimates else None
                if slots is None:
                    blocked.add(j.gpu)
                    continue
                actions.append(ap.start(j.id, slots))
                started[j.gpu] = started.get(j.gpu, 0) + 1
        # New jobs in arrival order.
        joined: Dict[str, int] = {}
        for j in view.arrivals:
            best = j.best
            if best.per_node == 0 or best not in j.estimates:
                actions.append(ap.drop(j.id, "infeasible at best locality"))
                continue
            waiting = view.pending_of_type(j.gpu) - started.get(j.gpu, 0) + joined.get(j.gpu, 0)
            if waiting == 0:
                slots = table.place_most_free(j.id, best)
                if slots is not None:
                    actions.append(ap.start(j.id, slots))
                    continue
            joined[j.gpu] = joined.get(j.gpu, 0) + 1
        return actions


if __name__ == "__main__":
    ap.run(FIFO())
