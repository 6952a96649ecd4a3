"""Long runs of the twin's engine in virtual time (seeded, no server) fed to the console's acceptance rules
(console.core.measure.health), as the runtime feeds them: every finished request of every cell, keyed by prompt set
and domain, on the modelled node's clock. Shared by tests/sim/test_acceptance_alarms.py and
tests/bench/test_acceptance_alarms.py."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from console.core.measure import health
from console.sim.model.calibrate import ARMS, build_engine, eagle3, run_cell, warm_up
from tests.sim.twin_pairs import rows_of

#: the traffic a normal run cycles through: (prompt set name, domain, prompt tokens, max tokens, concurrency)
TRAFFIC = [("tool-short", "tool", 600, 256, 1), ("math-short", "math", 500, 256, 1), ("code-short", "code", 550, 256, 1),
           ("chat-short", "chat", 450, 256, 1), ("tool", "tool", 10_000, 512, 1), ("math", "math", 10_000, 512, 1),
           ("chat-short", "chat", 450, 256, 4), ("tool-short", "tool", 600, 256, 4)]


def arm_argv(arm: str) -> list[str]:
    return list(ARMS[arm]) if arm in ARMS else eagle3(int(arm.split("-d")[1]))


@dataclass
class Run:
    """What a run fed the rules and what they raised."""

    monitor: health.HealthMonitor
    requests: int = 0
    model_s: float = 0.0
    raised: list[tuple[health.Alarm, int, float]] = field(default_factory=list)  #: alarm, request #, model s
    collapse_at: tuple[int, float] | None = None  #: the first collapsed request's number and its finish time


def play(arm: str, seed: int, cells: int, *, n: int = 8, algorithm: str = "EAGLE3", extra: tuple[str, ...] = (),
         collapse_after_cells: int | None = None, factor: float = 0.0, relaunch_every: int = 6,
         monitor: health.HealthMonitor | None = None) -> Run:
    """`cells` cells of `n` requests of the TRAFFIC mix (drawn by `seed`) on one arm, relaunched every
    `relaunch_every` cells (a fresh launch seed, the same node, the monitor's baselines kept). With
    `collapse_after_cells`, the launch after that many cells carries the acceptance-collapse fault from its first
    request (`factor`)."""
    rng = random.Random(f"health:{arm}:{seed}")
    mon = monitor or health.HealthMonitor(algorithm)
    run = Run(mon)
    engine = None
    t_base = 0.0
    collapsed = False
    for c in range(cells):
        if engine is None or c % relaunch_every == 0 or (collapse_after_cells is not None and c == collapse_after_cells):
            if engine is not None:
                t_base += engine.clock
            fault = collapse_after_cells is not None and c >= collapse_after_cells
            argv = arm_argv(arm) + list(extra) + (["--sim-fault", f"acceptance-collapse:after_requests=1,factor={factor}"]
                                                  if fault else [])
            engine = build_engine(argv, seed=seed, node_seed=seed % 7 + 1, launch_seed=1000 * seed + c)
            warm_up(engine, 2048, "chat")
            collapsed = fault
        pset, domain, ptok, mt, conc = TRAFFIC[rng.randrange(len(TRAFFIC))]
        res = run_cell(arm_argv(arm), domain, prompt_tokens=ptok, max_tokens=mt, n=n, concurrency=conc,
                       prompt_set=rng.randrange(10 ** 6), engine=engine)
        rows = rows_of(res, f"{c}-")
        for rec, t in zip(rows, res.finish_s, strict=True):
            t_s = t_base + t
            if collapsed and run.collapse_at is None:
                run.collapse_at = (run.requests, t_s)
            o = health.observe(rec, f"{pset} · {domain}", t_s, run.requests, conc)
            run.requests += 1
            run.model_s = t_s
            if o is None:
                continue
            for a in mon.feed(o):
                if a.active:
                    run.raised.append((a, run.requests - 1, t_s))
    return run
