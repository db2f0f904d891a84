"""First-come-first-served, the rules of arena's Go fcfs policy (and the Arena
artifact's FIFO): each job runs on exactly the GPU type and count it asked
for, at the best locality, on the nodes with the most idle GPUs; a job that
cannot run even there is dropped on arrival; a waiting job blocks every
later job of its GPU type; nothing is preempted, resized or moved.

    arena simulate --policy 'fcfs,exec:python3 examples/python/fifo.py'
"""

import arena_policy as ap


class FIFO(ap.Policy):
    name = "python-fifo"

    def place(self, table, job):
        if not job.feasible(job.best):
            return None
        return table.place_most_free(job.id, job.best)

    def decide(self, view):
        if not view.ended and not view.arrivals:
            return []
        table = ap.Table(self.cluster, view.occupant)
        actions = []
        pending_types = {}
        for j in view.pending:
            pending_types[j.gpu] = pending_types.get(j.gpu, 0) + 1
        # Restart pass over the pending queue in rounds where jobs ended,
        # head-of-line blocking per GPU type.
        if view.ended:
            blocked = set()
            for j in view.pending:
                if j.gpu in blocked:
                    continue
                slots = self.place(table, j)
                if slots is None:
                    blocked.add(j.gpu)
                    continue
                actions.append(ap.start(j.id, slots))
                pending_types[j.gpu] -= 1
        # New jobs in arrival order.
        for j in view.arrivals:
            if j.best.per_node == 0 or not j.feasible(j.best):
                actions.append(ap.drop(j.id, "infeasible at best locality"))
                continue
            if pending_types.get(j.gpu, 0) == 0:
                slots = self.place(table, j)
                if slots is not None:
                    actions.append(ap.start(j.id, slots))
                    continue
            pending_types[j.gpu] = pending_types.get(j.gpu, 0) + 1
        return actions


if __name__ == "__main__":
    ap.run(FIFO())
