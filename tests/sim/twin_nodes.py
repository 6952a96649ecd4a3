"""A node the fit is not told about, and campaigns on it, played on the twin in virtual time: shared by
tests/sim/test_node_fit.py and tests/bench/test_node_fit.py. The hidden node perturbs the reference deployment's
step and acceptance model (software +12%, per-request +30%, HBM −20%, attention −30%, EAGLE-3's draft step +25%,
its conditionals −0.03 to −0.04); campaign A measures some arms, campaign B others on the same node."""

from __future__ import annotations

import dataclasses
import statistics

from console.core.measure import stats
from console.core.measure.nodefit import CellObs
from console.sim.config.deployment import Deployment, load_deployment
from console.sim.model.calibrate import build_engine, eagle3, run_cell

DOMAINS = (("tool", 1000), ("math", 8000))
A_ARMS = (0, 2, 3, 5)  # EAGLE-3 depths measured (0: no speculation)
A_CONC = (1, 4)
B_ARMS = (4, 6, 7)
B_CONC = (1, 2, 8)
MAX_TOKENS = 512


def hidden_node(base: Deployment | None = None, seed: int | None = None) -> Deployment:
    """The hidden node: the fixed perturbation above, or with `seed` one drawn (software x0.9-1.2, per-request
    x0.8-1.4, HBM x0.75-1.05, attention x0.6-1.1, draft step x0.8-1.3, conditionals -0.06 to +0.03)."""
    d = base or load_deployment()
    f = (1.12, 1.3, 0.8, 0.7, 1.25, -0.04, -0.03)
    if seed is not None:
        import random
        r = random.Random(seed)
        dc = r.uniform(-0.06, 0.03)
        f = (r.uniform(0.9, 1.2), r.uniform(0.8, 1.4), r.uniform(0.75, 1.05), r.uniform(0.6, 1.1),
             r.uniform(0.8, 1.3), dc, dc + r.uniform(-0.01, 0.01))
    st = dataclasses.replace(d.step, software_base_ms=d.step.software_base_ms * f[0],
                             per_request_ms=d.step.per_request_ms * f[1])
    nd = dataclasses.replace(d.node, hbm_bandwidth_gbs=d.node.hbm_bandwidth_gbs * f[2],
                             attn_tflops=d.node.attn_tflops * f[3])
    e = d.drafters["eagle3"]
    acc = {k: dataclasses.replace(v, c1_short=v.c1_short + f[5], c1_long=v.c1_long + f[6])
           for k, v in e.acceptance.items()}
    e2 = dataclasses.replace(e, acceptance=acc, draft_step_ms=e.draft_step_ms * f[4])
    return dataclasses.replace(d, step=st, node=nd, drafters={**d.drafters, "eagle3": e2})


def cell(depth: int, domain: str, prompt_tokens: int, concurrency: int, dep: Deployment, n: int = 16,
         seed: int = 0) -> CellObs:
    """One cell on `dep` (nominal node) as the fit reads a recorded one."""
    argv = eagle3(depth) if depth else []
    r = run_cell(argv, domain, prompt_tokens=prompt_tokens, max_tokens=MAX_TOKENS, n=max(n, 2 * concurrency),
                 concurrency=concurrency, dep=dep, seed=seed)
    h = stats.pool_histograms(r.hists) if depth else []
    algo = "EAGLE3" if depth else None
    return CellObs(source=f"twin:{algo or 'nospec'}-d{depth}-{domain}-{prompt_tokens}-c{concurrency}", algorithm=algo,
                   draft_tokens=depth + 1 if depth else 1, steps=depth or None, domain=domain,
                   prompt_set=f"{domain}-{prompt_tokens}", prompt_tokens=prompt_tokens, max_tokens=MAX_TOKENS,
                   concurrency=concurrency, n=len(r.tok_s), median_tok_s=r.median_tok_s,
                   tau=stats.histogram_tau(h) if h else 1.0, hist=tuple(h),
                   ttft_median_s=statistics.median(r.ttft_s), capacity=r.max_total_num_tokens,
                   key=f"{'EAGLE3 d' + str(depth) if depth else 'nospec'} · {domain} {prompt_tokens} · c{concurrency}")


def campaign(depths, concs, dep: Deployment, seed: int = 0) -> list[CellObs]:
    return [cell(k, dom, ptok, c, dep, seed=seed) for k in depths for dom, ptok in DOMAINS for c in concs]


def true_tax(dep: Deployment) -> float:
    """The hidden node's verify tax as the fit states it: one more depth at batch 1, d6 → d7, 10k of context."""
    six, seven = build_engine(eagle3(6), dep=dep).steps, build_engine(eagle3(7), dep=dep).steps
    return seven.decode_ms(1, 10_000.0) - six.decode_ms(1, 10_000.0)
