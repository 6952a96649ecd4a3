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


#: requests of the anchor each launch runs (the health cell's 8)
ANCHOR_N = 8


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
         monitor: health.HealthMonitor | None = None, anchor: bool = True, history: Run | None = None) -> Run:
    """`cells` cells of `n` requests of the TRAFFIC mix (drawn by `seed`) on one arm, relaunched every
    `relaunch_every` cells (a fresh launch seed, the same node, the monitor's baselines kept), each launch anchored
    as the console does (the health cell: the first anchor read as requests, later ones against it). With
    `collapse_after_cells`, the drafter collapses mid-launch from that cell's first request on (the
    acceptance-collapse fault with `factor`). `history`: an earlier run of the same arm (its monitor and its
    baselines go on, as the console seeds a key's baseline from the arm's recorded cells)."""
    rng = random.Random(f"health:{arm}:{seed}")
    mon = history.monitor if history is not None else (monitor or health.HealthMonitor(algorithm))
    run = Run(mon)
    offset = history.requests + 1000 if history is not None else 0
    engine = None
    t_base = 0.0
    first_anchor: health.Reading | None = None
    collapse_req: int | None = None  #: the engine request counter at which the collapse begins

    def feed(o, t_s):
        for a in mon.feed(o):
            if a.active:
                run.raised.append((a, run.requests - 1, t_s))

    for c in range(cells):
        if engine is None or c % relaunch_every == 0:
            if engine is not None:
                t_base += engine.clock
            argv = arm_argv(arm) + list(extra)
            launch_cells = range(c, c + relaunch_every)
            if collapse_after_cells is not None and collapse_after_cells in launch_cells:
                before = collapse_after_cells - c  # cells of this launch before the collapse
                collapse_req = 1 + (ANCHOR_N + 1 if anchor else 0) + before * n  # warm-ups, anchor, cells
                argv += ["--sim-fault", f"acceptance-collapse:after_requests={collapse_req},factor={factor}"]
            engine = build_engine(argv, seed=seed, node_seed=seed % 7 + 1, launch_seed=1000 * seed + c)
            warm_up(engine, 2048, "chat")
            if anchor:
                res = run_cell(arm_argv(arm), "chat", prompt_tokens=60, max_tokens=128, n=ANCHOR_N, prompt_set=-1,
                               engine=engine)
                obs = [o for o in (health.observe(r, "anchor", t_base + t, offset + run.requests)
                                   for r, t in zip(rows_of(res, f"a{c}-"), res.finish_s, strict=True)) if o]
                if first_anchor is None:
                    first_anchor = health.pooled(obs)
                    for o in obs:
                        feed(o, o.t_s)
                else:
                    t_s = t_base + res.finish_s[-1]
                    for a in mon.anchor("anchor", health.pooled(obs), first_anchor, t_s, offset + run.requests):
                        if a.active:
                            run.raised.append((a, run.requests, t_s))
        pset, domain, ptok, mt, conc = TRAFFIC[rng.randrange(len(TRAFFIC))]
        res = run_cell(arm_argv(arm), domain, prompt_tokens=ptok, max_tokens=mt, n=n, concurrency=conc,
                       prompt_set=rng.randrange(10 ** 6), engine=engine)
        rows = rows_of(res, f"{c}-")
        for rec, t in zip(rows, res.finish_s, strict=True):
            t_s = t_base + t
            if c == collapse_after_cells and run.collapse_at is None:
                run.collapse_at = (run.requests, t_s)
            o = health.observe(rec, f"{pset} · {domain}", t_s, offset + run.requests, conc)
            run.requests += 1
            run.model_s = t_s
            if o is not None:
                feed(o, t_s)
    return run
