"""Calibration harness: run the twin's engine in virtual time (no server, no sleeping) and compare with the report.

`run_cell` plays a cell -- n requests of `prompt_tokens` in / `max_tokens` out on one domain, `concurrency` at a
time -- through `Engine.plan/commit` back to back, and returns the per-request statistics the console computes:
output speed (completion tokens - tokens of the first chunk) / (t_last - t_first), TTFT, accepted length tau.
`python -m console.sim.model.calibrate` prints model-vs-report for the figures of docs/reference-deployment.md §3.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, field

from ..config.args import parse_argv, resolve_server_args
from ..config.deployment import Deployment, load_deployment
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
    prompts: list[int] = field(default_factory=list)  #: the prompt index of each row (tok_s order)
    completion_tokens: list[int] = field(default_factory=list)
    ttft_ok: list[float] = field(default_factory=list)  #: TTFT of the rows in tok_s order
    queue_s: list[float] = field(default_factory=list)  #: arrival to first admission
    finish_s: list[float] = field(default_factory=list)  #: model time each row's request finished (tok_s order)
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
                 dep: Deployment | None = None, mem_fraction: str = REFERENCE_MEM_FRACTION,
                 speed: float = 1.0) -> Engine:
    """An engine for a launch command (model flags + `arm_argv`), without a server. `node_seed=None` models the
    nominal node and launch (speed and launch factors 1, no drift) that the calibration compares with the report;
    with a node seed, `launch_seed` draws this launch's own variation (a relaunch: another launch seed). `speed`:
    every step `speed`× shorter (a constructed truth: the same arm `speed`× faster, for power measurements)."""
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
    engine.node.speed_factor /= speed
    return engine


def warm_up(engine: Engine, prompt_tokens: int, domain: str) -> None:
    """One unrecorded request long enough to pay the one-time JIT of the first long prefill (the console warms a
    server up before it measures)."""
    warm = max(prompt_tokens, engine.dep.prefill.jit_min_tokens)
    engine.submit(SimRequest(rid="warmup", prompt_tokens=warm, max_new_tokens=4, ignore_eos=True,
                             domain=domain, prompt_hash=-1), engine.clock)
    while engine.has_work():
        warm_plan = engine.plan()
        if warm_plan is None:  # as the measuring loop of run_cell: nothing left that can run
            break
        engine.commit(warm_plan)


def run_cell(arm: str | list[str], domain: str, *, prompt_tokens: int = 10_000, max_tokens: int = 2048,
             n: int = 16, concurrency: int = 1, seed: int = 0, node_seed: int | None = None, launch_seed: int = 0,
             temperature: float = 0.6, dep: Deployment | None = None, warmup: bool = True,
             prompt_set: int | None = None, engine: Engine | None = None, ignore_eos: bool = True,
             speed: float = 1.0) -> CellResult:
    """Play one cell in virtual time and collect per-request statistics. `arm`: a name of ARMS or the drafter
    flags. With `warmup`, one unrecorded request of the same prompt length runs first (it pays the one-time JIT of
    the first long prefill), as the console warms a server up before measuring. `prompt_set`: which prompts (the
    per-prompt acceptance follows them; default: one set per `seed`), so legs of a pair can share their prompts.
    `engine`: go on on a running engine (another leg in the same launch) instead of launching one."""
    if engine is None:
        engine = build_engine(ARMS[arm] if isinstance(arm, str) else arm, seed=seed, node_seed=node_seed,
                              launch_seed=launch_seed, dep=dep, speed=speed)
        if warmup:
            warm_up(engine, prompt_tokens, domain)
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
                         temperature=temperature, ignore_eos=ignore_eos, domain=domain, prompt_hash=hash((pset, i)),
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
                res.prompts.append(int(r.rid.split("-")[1]))
                res.step_ms.append(1000.0 * span / max(1, len(outs) - 1))
                res.hists.append(list(r.spec_hist))
                res.first_tokens.append(first.completion_tokens)
                res.completion_tokens.append(outs[-1].completion_tokens)
                res.ttft_ok.append(first.model_time_s - r.arrival_s)
                res.finish_s.append(outs[-1].model_time_s)
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


def session_legs(arm: str, domain: str, order: str = "ABA", *, repeat: int = 0, prompt_tokens: int = 10_000,
                 max_tokens: int = 2048, n: int = 16, b_arm: str | None = None,
                 dep: Deployment | None = None) -> list[CellResult]:
    """The legs of one same-node pair session as the console runs it: every leg a fresh launch (its own launch
    seed) on the node of this `repeat`, the same pinned prompts in every leg, the same --sim-seed. With `b_arm`
    None, B is A again (a self-pair). The variation comes from the twin's own sources: the node draw (shared
    by the legs), the launch factor and drift phase of each launch, the per-prompt acceptance (shared), the
    acceptance draws of each launch and the within-launch drift."""
    out = []
    for k, leg in enumerate(order):
        which = arm if leg == "A" or b_arm is None else b_arm
        out.append(run_cell(which, domain, prompt_tokens=prompt_tokens, max_tokens=max_tokens, n=n,
                            node_seed=repeat, launch_seed=1000 * repeat + k, prompt_set=repeat, dep=dep))
    return out


#: (arm, domain, prompt tokens, report value, what) -- docs/reference-deployment.md §3.
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


#: Load cells (BRL-2026-11; measured by an independent client): chat traffic, ~1k-token prompts, 512-token
#: outputs, `concurrency` streams kept busy (2 requests per stream). (arm, concurrency, figure, report value, what)
LOAD_CELLS = [
    ("nospec", 32, "aggregate", 845.0, "aggregate tok/s no-spec, 32 streams"),
    ("eagle3-d6", 32, "aggregate", 910.0, "aggregate tok/s EAGLE-3 d6, 32 streams"),
    ("dflash-b16", 32, "aggregate", 499.0, "aggregate tok/s DFlash b16, 32 streams"),
    ("dflash-b16", 1, "per_stream", 156.0, "per-stream tok/s DFlash b16, 1 stream"),
    ("dflash-b16", 8, "per_stream", 60.0, "per-stream tok/s DFlash b16, 8 streams"),
    ("dflash-b16", 32, "per_stream", 18.0, "per-stream tok/s DFlash b16, 32 streams"),
]
#: Load cells hold within this factor of the report (and in the report's order).
LOAD_FACTOR = 1.25
#: Batch-1 median TTFT (ms): (arm, prompt tokens, report value, tolerance as a factor, what). The report's two
#: EAGLE-3 figures (240 ms server-side at 10k, 256 ms at 8K) cannot both hold for a prefill that grows with the
#: prompt; the twin keeps the 10k one and holds the 8K one within a factor.
TTFT_CELLS = [
    ("eagle3-d6", 10_000, 240.0, 1.08, "TTFT ms EAGLE-3, 10k (server-side)"),
    ("eagle3-d6", 8192, 256.0, 1.35, "TTFT ms EAGLE-3, 8K"),
    ("dflash-b16", 8192, 1160.0, 1.08, "TTFT ms DFlash b16, 8K"),
]
KV_CELLS = [("nospec", 484_000), ("eagle3-d6", 336_000), ("dflash-b16", 295_000)]

#: The console's anchor (health) cell as the twin sees it: the shipped `health` prompt set's (domain, prompt
#: tokens) -- 2 prompts per domain, 38-75 tokens each plus the chat template's ~12 -- at 128 output tokens
#: (core/run/cell.py ANCHOR_PROTOCOL); tests/sim/test_calibration.py holds it to the shipped file.
HEALTH_PROMPTS = [("tool", 75), ("tool", 74), ("math", 60), ("math", 51), ("code", 46), ("code", 43), ("chat", 38),
                  ("chat", 42)]
HEALTH_TEMPLATE_TOKENS = 12
HEALTH_MAX_TOKENS = 128
#: The report's configuration-ledger findings (docs/reference-deployment.md §3, docs/twin.md §8):
#: draft depth at short context (health cells, EAGLE-3, one stream): k = 3 335 tok/s, k = 5 265-294 (two nodes)
HEALTH_DEPTH_CELLS = [(3, (335.0, 335.0)), (5, (265.0, 294.0))]
#: KV-cache dtype by domain, one session: native / fp8 tok/s (EAGLE-3 d6, 10k / 2048, one stream)
KV_DTYPE_CELLS = [("math", 1.34), ("tool", 0.94), ("code", 0.81)]
#: DFlash at 32 streams of short prompts (150 in / 512 out), every domain: the ledger's 499 vs 845 is chat at ~1k
#: (LOAD_CELLS); on short prompts the twin holds DFlash at or under no-spec (within this factor) and under EAGLE-3
SHORT_LOAD_PROMPT_TOKENS = 150
SHORT_LOAD_BREAK_EVEN = 1.03


@dataclass
class CalRow:
    """One model-vs-report line of the calibration table."""

    group: str  #: single, load, ttft, kv
    what: str
    report: float
    model: float
    factor: float  #: allowed factor either way (1.08 = +-8%)
    tau: float | None = None
    ttft_ms: float | None = None
    band: tuple[float, float] | None = None  #: the report gives a range: within `factor` of it either way

    @property
    def ratio(self) -> float:
        if self.band is not None:
            lo, hi = self.band
            return self.model / lo if self.model < lo else self.model / hi if self.model > hi else 1.0
        return self.model / self.report

    @property
    def ok(self) -> bool:
        return 1.0 / self.factor <= self.ratio <= self.factor

    def line(self) -> str:
        extra = ""
        if self.tau is not None:
            extra += f" tau {self.tau:4.2f}"
        if self.ttft_ms is not None:
            extra += f" TTFT {self.ttft_ms:6.0f} ms"
        small = self.report < 10
        ref = f"{self.report:.3f}" if small else f"{self.report:.1f}"
        if self.band and self.band[0] == 0.0:
            ref = f"<= {self.band[1]:g}"
        elif self.band and self.band[0] != self.band[1]:
            ref = f"{self.band[0]:.0f}-{self.band[1]:.0f}"
        model = f"{self.model:.3f}" if small else f"{self.model:.1f}"
        return (f"{self.group:<6} {self.what:<46} {ref:>9} {model:>9} "
                f"{100 * (self.ratio - 1):>+7.1f}%  (within x{self.factor:.2f}: {'ok' if self.ok else 'OUT'}){extra}")


def health_cell(arm: str | list[str], *, n_per_prompt: int = 4, dep: Deployment | None = None,
                seed: int = 0) -> tuple[float, float]:
    """The anchor (health) cell on one launch of the nominal node: median per-request tok/s and mean tau over the
    health prompts, each run `n_per_prompt` times."""
    rows: list[float] = []
    taus: list[float] = []
    for i, (domain, tokens) in enumerate(HEALTH_PROMPTS):
        r = run_cell(arm, domain, prompt_tokens=tokens + HEALTH_TEMPLATE_TOKENS, max_tokens=HEALTH_MAX_TOKENS,
                     n=n_per_prompt, dep=dep, seed=seed, prompt_set=1000 * seed + i)
        rows += r.tok_s
        taus += r.tau
    return statistics.median(rows), (statistics.fmean(taus) if taus else 1.0)


def ledger_rows(n: int = 16, dep: Deployment | None = None) -> list[CalRow]:
    """The report's configuration-ledger findings, model vs report (docs/twin.md §8): the health cell at k = 3 and
    k = 5, native / fp8 by domain, DFlash / no-spec at 32 streams of short prompts."""
    dep = dep or load_deployment()
    rows = []
    for k, (lo, hi) in HEALTH_DEPTH_CELLS:
        tok_s, tau = health_cell(eagle3(k), dep=dep)
        rows.append(CalRow("ledger", f"tok/s EAGLE-3 d{k} health cell", (lo + hi) / 2, tok_s, 1.08, tau,
                           band=(lo, hi)))
    fp8 = ["--kv-cache-dtype", "fp8_e4m3"]
    for domain, ref in KV_DTYPE_CELLS:
        native = run_cell(eagle3(6), domain, n=n, dep=dep)
        low = run_cell(eagle3(6) + fp8, domain, n=n, dep=dep)
        rows.append(CalRow("ledger", f"native / fp8 tok/s EAGLE-3 d6 {domain} 10k", ref,
                           native.median_tok_s / low.median_tok_s, 1.08, low.mean_tau))
    for domain in ("tool", "math", "code", "chat"):
        agg = {arm: run_cell(arm, domain, prompt_tokens=SHORT_LOAD_PROMPT_TOKENS, max_tokens=512, n=64,
                             concurrency=32, dep=dep).aggregate_tok_s for arm in ("nospec", "eagle3-d6", "dflash-b16")}
        rows.append(CalRow("short", f"DFlash / no-spec aggregate, 32 x {domain} short", 1.0,
                           agg["dflash-b16"] / agg["nospec"], SHORT_LOAD_BREAK_EVEN,
                           band=(0.0, 1.0)))
        rows.append(CalRow("short", f"DFlash / EAGLE-3 aggregate, 32 x {domain} short", 1.0,
                           agg["dflash-b16"] / agg["eagle3-d6"], 1.0, band=(0.0, 1.0)))
    return rows


def calibration_rows(n: int = 16, max_tokens: int = 2048, dep: Deployment | None = None) -> list[CalRow]:
    """Every calibrated cell, model vs report: single-stream tok/s, load, TTFT, KV capacity, the ledger."""
    dep = dep or load_deployment()
    rows = []
    for arm, domain, ptoks, ref, what in REPORT_CELLS:
        r = run_cell(arm, domain, prompt_tokens=ptoks, max_tokens=max_tokens, n=n, dep=dep)
        rows.append(CalRow("single", what, ref, r.median_tok_s, 1.08, r.mean_tau, r.median_ttft_ms))
    for arm, conc, figure, ref, what in LOAD_CELLS:
        r = run_cell(arm, "chat", prompt_tokens=1000, max_tokens=512, n=max(8, 2 * conc), concurrency=conc, dep=dep)
        got = r.aggregate_tok_s if figure == "aggregate" else r.median_tok_s
        rows.append(CalRow("load", what, ref, got, LOAD_FACTOR, r.mean_tau, r.median_ttft_ms))
    for arm, ptoks, ref, factor, what in TTFT_CELLS:
        r = run_cell(arm, "tool", prompt_tokens=ptoks, max_tokens=64, n=max(4, n // 2), dep=dep)
        rows.append(CalRow("ttft", what, ref, r.median_ttft_ms, factor))
    for arm, ref in KV_CELLS:
        cap = build_engine(ARMS[arm], dep=dep).capacity
        rows.append(CalRow("kv", f"KV capacity tokens {arm} (mem fraction 0.96)", ref, cap, 1.01))
    return rows + ledger_rows(n, dep)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m console.sim.model.calibrate", description=__doc__)
    p.add_argument("--n", type=int, default=16)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--deployment", default=None)
    a = p.parse_args(argv)
    dep = load_deployment(a.deployment)
    print(f"{'group':<6} {'cell':<46} {'report':>9} {'model':>9} {'diff':>8}")
    for row in calibration_rows(a.n, a.max_tokens, dep):
        print(row.line())
    print(f"\nsingle stream, 10k in / {a.max_tokens} out: median tok/s (tau, TTFT ms)")
    domains = ("tool", "math", "code", "chat")
    print(f"{'arm':<12}" + "".join(f"{d:>24}" for d in domains))
    for arm in ARMS:
        cells = [run_cell(arm, d, max_tokens=a.max_tokens, n=a.n, dep=dep) for d in domains]
        print(f"{arm:<12}" + "".join(f"{c.median_tok_s:>10.1f} ({c.mean_tau:4.2f}, {c.median_ttft_ms:4.0f})"
                                      for c in cells))
    print("\n32 concurrent streams, 10k in / 2048 out, tool (384K tokens wanted): per-stream tok/s, aggregate tok/s, "
          "TTFT, KV")
    for arm in ("nospec", "eagle3-d6", "dflash-b16"):
        c = run_cell(arm, "tool", n=32, concurrency=32, dep=dep)
        print(f"{arm:<12} {c.median_tok_s:>8.1f} tok/s/stream  {c.aggregate_tok_s:>7.0f} tok/s aggregate  "
              f"TTFT median {c.median_ttft_ms:>6.0f} ms, max {1000 * max(c.ttft_s):>6.0f} ms; capacity "
              f"{c.max_total_num_tokens}, at most {c.max_running} running, {c.max_queue} queued, peak usage "
              f"{c.peak_usage:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
