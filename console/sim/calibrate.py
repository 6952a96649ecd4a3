"""Calibration harness: run the twin's engine in virtual time (no server, no sleeping) and compare with the report.

`run_cell` plays a cell -- n requests of `prompt_tokens` in / `max_tokens` out on one domain, `concurrency` at a
time -- through `Engine.plan/commit` back to back, and returns the per-request statistics the console computes:
output speed (completion tokens - tokens of the first chunk) / (t_last - t_first), TTFT, accepted length tau.
`python -m console.sim.calibrate` prints model-vs-report for the figures of domain.md section 3.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, field

from .args import parse_argv, resolve_server_args
from .deployment import Deployment, load_deployment
from .engine import Engine, RequestOutput, SimRequest
from .memory import plan_memory

MODEL = ["--model-path", "moonshotai/Kimi-K2.6", "--tp", "4", "--trust-remote-code"]
#: The reference mem fraction at which the report's KV capacities (484K / 336K / 295K) hold.
REFERENCE_MEM_FRACTION = "0.96"


def eagle3(depth: int) -> list[str]:
    return ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "lightseekorg/kimi-k2.6-eagle3-mla",
            "--speculative-num-steps", str(depth), "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", str(depth + 1)]


def dflash(block: int) -> list[str]:
    return ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z-lab/Kimi-K2.6-DFlash",
            "--speculative-dflash-block-size", str(block)]


ARMS: dict[str, list[str]] = {
    "nospec": [],
    "eagle3-d3": eagle3(3),
    "eagle3-d5": eagle3(5),
    "eagle3-d6": eagle3(6),
    "eagle3-d7": eagle3(7),
    "dflash-b16": dflash(16),
}


@dataclass
class CellResult:
    """Per-request figures of one simulated cell (model time)."""

    arm: str
    domain: str
    prompt_tokens: int
    max_tokens: int
    concurrency: int
    tok_s: list[float] = field(default_factory=list)
    ttft_s: list[float] = field(default_factory=list)
    tau: list[float] = field(default_factory=list)
    step_ms: list[float] = field(default_factory=list)
    hists: list[list[int]] = field(default_factory=list)  #: spec_correct_drafts_histogram per request (tok_s order)
    first_tokens: list[int] = field(default_factory=list)  #: tokens of the first output (tok_s order)
    completion_tokens: list[int] = field(default_factory=list)
    ttft_ok: list[float] = field(default_factory=list)  #: TTFT of the rows in tok_s order
    queue_s: list[float] = field(default_factory=list)  #: arrival to first admission
    max_total_num_tokens: int = 0
    makespan_s: float = 0.0  #: first arrival to last finish
    total_tokens: int = 0
    steps: int = 0  #: forwards played
    max_running: int = 0
    max_queue: int = 0
    peak_usage: float = 0.0  #: peak KV token usage (fraction of capacity)
    retractions: int = 0
    engine: Engine | None = None

    @property
    def aggregate_tok_s(self) -> float:
        """Output tokens of the whole cell per second of makespan."""
        return self.total_tokens / self.makespan_s if self.makespan_s > 0 else 0.0

    @property
    def median_tok_s(self) -> float:
        return statistics.median(self.tok_s)

    @property
    def median_ttft_ms(self) -> float:
        return 1000.0 * statistics.median(self.ttft_s)

    @property
    def mean_tau(self) -> float:
        return statistics.fmean(self.tau) if self.tau else 1.0


def build_engine(arm_argv: list[str], *, seed: int = 0, node_seed: int | None = None, launch_seed: int = 0,
                 dep: Deployment | None = None, mem_fraction: str = REFERENCE_MEM_FRACTION) -> Engine:
    """An engine for a launch command (model flags + `arm_argv`), without a server. `node_seed=None` models the
    nominal node and launch (speed and launch factors 1, no drift) that the calibration compares with the report;
    with a node seed, `launch_seed` draws this launch's own variation (a relaunch: another launch seed)."""
    dep = dep or load_deployment()
    argv = MODEL + ["--mem-fraction-static", mem_fraction, "--sim-seed", str(seed), "--sim-node-seed",
                    str(node_seed or 0), "--sim-launch-seed", str(launch_seed)] + arm_argv
    ns, sim = parse_argv(argv)
    cfg = resolve_server_args(ns, sim, argv, dep)
    engine = Engine(cfg, dep, plan_memory(cfg, dep))
    if node_seed is None:
        engine.node.speed_factor = 1.0
        engine.node.launch_factor = 1.0
        engine.node.drift_amplitude = 0.0
    return engine


def run_cell(arm: str | list[str], domain: str, *, prompt_tokens: int = 10_000, max_tokens: int = 2048,
             n: int = 16, concurrency: int = 1, seed: int = 0, node_seed: int | None = None, launch_seed: int = 0,
             temperature: float = 0.6, dep: Deployment | None = None, warmup: bool = True,
             prompt_set: int | None = None, engine: Engine | None = None) -> CellResult:
    """Play one cell in virtual time and collect per-request statistics. `arm`: a name of ARMS or the drafter
    flags. With `warmup`, one unrecorded request of the same prompt length runs first (it pays the one-time JIT of
    the first long prefill), as the console warms a server up before measuring. `prompt_set`: which prompts (the
    per-prompt acceptance follows them; default: one set per `seed`), so legs of a pair can share their prompts.
    `engine`: go on on a running engine (another leg in the same launch) instead of launching one."""
    if engine is None:
        engine = build_engine(ARMS[arm] if isinstance(arm, str) else arm, seed=seed, node_seed=node_seed,
                              launch_seed=launch_seed, dep=dep)
        if warmup:  # long enough to pay the one-time JIT of the first long prefill
            warm = max(prompt_tokens, engine.dep.prefill.jit_min_tokens)
            engine.submit(SimRequest(rid="warmup", prompt_tokens=warm, max_new_tokens=4, ignore_eos=True,
                                     domain=domain, prompt_hash=-1), engine.clock)
            while engine.has_work():
                engine.commit(engine.plan())
    res = CellResult(arm if isinstance(arm, str) else " ".join(arm), domain, prompt_tokens, max_tokens, concurrency,
                     max_total_num_tokens=engine.capacity)
    outputs: dict[int, list[RequestOutput]] = {}
    pending = list(range(n))
    active: list[SimRequest] = []
    pset = seed if prompt_set is None else prompt_set

    def launch(i: int) -> None:
        outs: list[RequestOutput] = []
        outputs[i] = outs
        req = SimRequest(rid=f"cal-{i}", prompt_tokens=prompt_tokens, max_new_tokens=max_tokens,
                         temperature=temperature, ignore_eos=True, domain=domain, prompt_hash=hash((pset, i)),
                         sink=outs.append)
        engine.submit(req, engine.clock)
        active.append(req)

    start = engine.clock
    while pending and len(active) < concurrency:
        launch(pending.pop(0))
    while engine.has_work():
        plan = engine.plan()
        if plan is None:
            break
        engine.commit(plan)
        res.steps += 1
        done = [r for r in active if r.finished]
        for r in done:
            active.remove(r)
            outs = outputs[int(r.rid.split("-")[1])]
            first = outs[0]
            span = outs[-1].model_time_s - first.model_time_s
            if span > 0:
                res.tok_s.append((outs[-1].completion_tokens - first.completion_tokens) / span)
                res.step_ms.append(1000.0 * span / max(1, len(outs) - 1))
                res.hists.append(list(r.spec_hist))
                res.first_tokens.append(first.completion_tokens)
                res.completion_tokens.append(outs[-1].completion_tokens)
                res.ttft_ok.append(first.model_time_s - r.arrival_s)
            res.ttft_s.append(first.model_time_s - r.arrival_s)
            res.queue_s.append((r.admitted_s or r.arrival_s) - r.arrival_s)
            res.retractions += r.num_retractions
            if r.spec_verify_ct:
                res.tau.append(1.0 + r.spec_num_correct_drafts / r.spec_verify_ct)
            res.total_tokens += r.n_out
            res.makespan_s = engine.clock - start
            if pending:
                launch(pending.pop(0))
        res.max_running = max(res.max_running, len(engine.running))
        res.max_queue = max(res.max_queue, len(engine.waiting))
        res.peak_usage = max(res.peak_usage, engine.num_used_tokens() / engine.capacity if engine.capacity else 0)
    res.engine = engine
    return res


#: (arm, domain, prompt tokens, report value, what) -- domain.md section 3.
REPORT_CELLS = [
    ("nospec", "tool", 10_000, 150.9, "tok/s no-spec 10k/2048"),
    ("eagle3-d6", "tool", 10_000, 487.2, "tok/s EAGLE-3 d6 tool 10k (re-runs 474-512)"),
    ("eagle3-d7", "tool", 10_000, 505.9, "tok/s EAGLE-3 d7 tool 10k"),
    ("eagle3-d6", "math", 10_000, 419.2, "tok/s EAGLE-3 d6 math 10k (re-runs 405-422)"),
    ("eagle3-d3", "chat", 1_000, 243.0, "tok/s EAGLE-3 chat short prompt"),
    ("eagle3-d3", "tool", 1_000, 313.0, "tok/s EAGLE-3 tool short (289-337)"),
    ("eagle3-d3", "math", 1_000, 324.0, "tok/s EAGLE-3 math short"),
    ("eagle3-d3", "code", 1_000, 290.0, "tok/s EAGLE-3 code short"),
    ("dflash-b16", "chat", 1_000, 180.0, "tok/s DFlash chat short (174-185)"),
    ("dflash-b16", "tool", 1_000, 238.0, "tok/s DFlash tool short (218-258)"),
    ("dflash-b16", "math", 1_000, 278.0, "tok/s DFlash math short"),
    ("dflash-b16", "code", 1_000, 244.0, "tok/s DFlash code short (233-255)"),
]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m console.sim.calibrate", description=__doc__)
    p.add_argument("--n", type=int, default=16)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--deployment", default=None)
    a = p.parse_args(argv)
    dep = load_deployment(a.deployment)
    print(f"{'cell':<48} {'report':>8} {'model':>8} {'diff':>7} {'tau':>5} {'TTFT ms':>8}")
    for arm, domain, ptoks, ref, what in REPORT_CELLS:
        r = run_cell(arm, domain, prompt_tokens=ptoks, max_tokens=a.max_tokens, n=a.n, dep=dep)
        print(f"{what:<48} {ref:>8.1f} {r.median_tok_s:>8.1f} {100 * (r.median_tok_s / ref - 1):>+6.1f}% "
              f"{r.mean_tau:>5.2f} {r.median_ttft_ms:>8.0f}")
    for arm, ref in (("nospec", 484_000), ("eagle3-d6", 336_000), ("dflash-b16", 295_000)):
        cap = build_engine(ARMS[arm], dep=dep).capacity
        print(f"{'KV capacity ' + arm + ' (mem fraction 0.96)':<48} {ref:>8d} {cap:>8d} {100 * (cap / ref - 1):>+6.1f}%")
    print(f"\nsingle stream, 10k in / {a.max_tokens} out: median tok/s (tau, TTFT ms)")
    domains = ("tool", "math", "code", "chat")
    print(f"{'arm':<12}" + "".join(f"{d:>24}" for d in domains))
    for arm in ARMS:
        cells = [run_cell(arm, d, max_tokens=a.max_tokens, n=a.n, dep=dep) for d in domains]
        print(f"{arm:<12}" + "".join(f"{c.median_tok_s:>10.1f} ({c.mean_tau:4.2f}, {c.median_ttft_ms:4.0f})"
                                      for c in cells))
    print("\n32 concurrent streams, 10k in / 2048 out, tool: per-stream tok/s, aggregate tok/s, median TTFT")
    for arm in ("nospec", "eagle3-d6", "dflash-b16"):
        c = run_cell(arm, "tool", n=32, concurrency=32, dep=dep)
        print(f"{arm:<12} {c.median_tok_s:>8.1f} tok/s/stream  {c.aggregate_tok_s:>7.0f} tok/s aggregate  "
              f"TTFT {c.median_ttft_ms:>6.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
