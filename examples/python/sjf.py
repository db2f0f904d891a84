"""Shortest-job-first without preemption: at every decision, the waiting jobs
(pending and new) are tried in order of their estimated remaining time on
their requested grid (remaining iterations x seconds per iteration from the
estimates arena sends, both on the engine's iteration scale), ties by
arrival; each runs on its requested GPU type and count at the best locality
if that fits now. A job infeasible on its request is dropped. No
head-of-line blocking: a short job may pass a long one that does not fit.

    arena simulate --policy 'fcfs,exec:python3 examples/python/sjf.py'

``import arena_policy`` finds the package installed (pip install ./python)
or, from a checkout, examples/python/arena_policy.py: a symbolic link to
python/arena_policy/__init__.py.
"""

from typing import List, Tuple

import arena_policy as ap


class SJF(ap.Policy):
    name = "python-sjf"
    # Waiting jobs only: a pending job's remaining is exact without "live".
    idle_when_quiet = True
    # Nor does one where no job waits (no arrival, nothing pending): ended
    # jobs free GPUs nobody asked for; arena does not send it.
    idle_when_nothing_waits = True

    def decide(self, view: ap.View) -> List[ap.Action]:
        if not view.ended and not view.arrivals:
            return []  # nothing freed, nothing new: the same jobs still do not fit
        actions: List[ap.Action] = []
        waiting: List[Tuple[float, float, int, ap.Job]] = []
        for j in view.pending + view.arrivals:
            est = j.estimate(j.best)
            if est is None:
                actions.append(ap.drop(j.id, "infeasible on its request"))
                continue
            waiting.append((j.remaining * est.iter_time, j.submit, j.id, j))
        waiting.sort(key=lambda w: w[:3])
        table = view.table()
        for _, _, _, j in waiting:
            slots = table.place_most_free(j.id, j.best)
            if slots is not None:
                actions.append(ap.start(j.id, slots))
        return actions


if __name__ == "__main__":
    ap.run(SJF())
