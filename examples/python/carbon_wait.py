"""Carbon-aware first-come-first-served, in the spirit of "Let's Wait
Awhile": each waiting job, in arrival order, runs on its requested GPU type
and count at the best locality if that fits now — unless it arrived less
than SLACK ago and the grid's carbon intensity now is above the lowest of
the hours before its slack runs out, in which case it waits for that hour.
A job infeasible on its request is dropped. No head-of-line blocking.

The intensity comes from arena's hello when the exec entry's energy option
names a model (docs/energy.md): its "energy" object holds the prices, the
GPU power and the carbon intensity, hour 0 at the first decision.

    arena simulate --policy "fcfs,exec(cmd='python3 examples/python/carbon_wait.py',energy=de-2020-06)"
"""

import math
from typing import Any, Dict, List, Optional

import arena_policy as ap

SLACK = 6 * 3600.0


class CarbonWait(ap.Policy):
    name = "python-carbon-wait"
    # It acts on the clock (a held job starts when its hour comes): every
    # decision matters.
    idle_when_quiet = False

    def hello(self, cluster: ap.Cluster, info: Dict[str, Any]) -> None:
        energy = info.get("energy") or {}
        self.hourly: List[float] = energy.get("carbon_g_per_kwh_hourly") or [energy.get("carbon_g_per_kwh", 0.0)]
        self.t0: Optional[float] = None

    def intensity(self, t: float) -> float:
        return self.hourly[int(math.floor(t / 3600)) % len(self.hourly)]

    def waits(self, now: float, left: float) -> bool:
        cur = self.intensity(now)
        low = cur
        h = (math.floor(now / 3600) + 1) * 3600
        while h <= now + left:
            low = min(low, self.intensity(h))
            h += 3600
        return cur > low

    def decide(self, view: ap.View) -> List[ap.Action]:
        if self.t0 is None:
            self.t0 = view.now - view.round * view.round_length
        now = view.now - self.t0
        actions: List[ap.Action] = []
        table = view.table()
        arrived = {j.id for j in view.arrivals}
        for j in view.pending + view.arrivals:
            if j.estimate(j.best) is None:
                if j.id in arrived:
                    actions.append(ap.drop(j.id, "infeasible on its request"))
                continue
            left = SLACK - (view.now - j.submit)
            if left > 0 and self.waits(now, left):
                continue
            slots = table.place_most_free(j.id, j.best)
            if slots is not None:
                actions.append(ap.start(j.id, slots))
        return actions


if __name__ == "__main__":
    ap.run(CarbonWait())
