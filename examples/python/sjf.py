"""Shortest-job-first without preemption: at every decision, the waiting jobs
(pending and new) are tried in order of their estimated remaining time on
their requested grid (remaining iterations x seconds per iteration from the
estimates arena sends), ties by arrival; each runs on its requested GPU type
and count at the best locality if that fits now. A job infeasible on its
request is dropped. No head-of-line blocking: a short job may pass a long
one that does not fit.

    arena simulate --policy 'fcfs,exec:python3 examples/python/sjf.py'
"""

import arena_policy as ap


class SJF(ap.Policy):
    name = "python-sjf"

    def decide(self, view):
        actions = []
        waiting = []
        for j in list(view.pending) + list(view.arrivals):
            est = j.estimate(j.best)
            if est is None:
                actions.append(ap.drop(j.id, "infeasible on its request"))
                continue
            waiting.append((j.remaining * est.iter_time, j.submit, j.id, j))
        waiting.sort(key=lambda w: w[:3])
        table = ap.Table(self.cluster, view.occupant)
        for _, _, _, j in waiting:
            slots = table.place_most_free(j.id, j.best)
            if slots is not None:
                actions.append(ap.start(j.id, slots))
        return actions


if __name__ == "__main__":
    ap.run(SJF())
