"""A twin of the operator's own node (docs/twin.md#9-a-twin-of-your-node): the node's parameters fitted from recorded
cells, each with its uncertainty and the cells it came from. Pure: cells in (`CellObs`), a `NodeFit` out; reading
cells from disk is core/sessions/nodefile.py, serving as the fitted node is the twin's (`--sim-node`).

The step model the fit identifies — implied step time (τ / median per-request tok/s, ms) of a cell at B streams,
verify width n (1 without speculation) and mean context L (prompt + half the output):

    step = base + per_request · (B − 1) + per_kctx · B · L / 1000 + per_qkctx · (n − 1) · B · L / 1000
           + [speculative] · (spec_fixed[f] + draft[f] · (n − 1) + verify[f] · (S(B · n) − S(B)))

f the drafter family (EAGLE for EAGLE/EAGLE3/STANDALONE, DFLASH, NGRAM): `draft[f]` the drafter's pass per depth,
`verify[f]` the target's cost of one more verified token at batch 1, S(T) the token cost of a forward of T tokens
(linear, or the base model's routed-expert curve, concave at batch; the better fit is kept), `spec_fixed[f]` what
speculation costs a step at any depth; the verify tax is draft + verify (one more depth at batch 1); per_qkctx the
attention of each further verified token over the context. The implied step of a cell at c streams has the other
streams' prefill stalls taken out first (`decode_step_ms`): the twin plays those itself.
Weighted least squares over the cells (weights: their request counts); a term whose column does not vary across
the cells is not identified and takes, in order, the session's verify-tax probe, the published figure or the base
deployment's own, and the file says which (`source`). Acceptance: per family and traffic domain, the conditional
c_i = p_i / p_(i−1) of every measured position pooled over the cells' histograms (whatever depth each drafted),
one curve per context the cells measured (cells within 1.41x pool), interpolated in log10(context) between them
(the twin's `FittedAcceptance`): a chain drafter's horizon at very short context is a per-position effect no
single shift holds. Prefill: median TTFT of single-stream cells against prompt tokens.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from console.core.measure.forecast import REPORT_VERIFY_TAX_MS as PUBLISHED_TAX_MS

#: the context (tokens) the derived verify tax is stated at (the published tax's: 10k)
TAX_CONTEXT = 10_000.0


@dataclass(frozen=True)
class CellObs:
    """One recorded cell as the fit reads it."""

    source: str  #: where it was read (cell directory)
    algorithm: str | None  #: SGLang's speculative algorithm, None without speculation
    draft_tokens: int  #: verify width n (1 without speculation)
    steps: int | None
    domain: str
    prompt_set: str
    prompt_tokens: float  #: mean prompt tokens of the rows
    max_tokens: int
    concurrency: int
    n: int  #: rows in the statistic
    median_tok_s: float
    tau: float
    hist: tuple[int, ...] = ()
    ttft_median_s: float | None = None
    capacity: int | None = None
    key: str = ""  #: a readable cell key (arm · set · c)
    stalls: float | None = None  #: other requests' prefills inside a request's decode span (mean; None: c − 1)
    temperature: float = 0.6

    @property
    def context(self) -> float:
        return self.prompt_tokens + self.max_tokens / 2

    @property
    def implied_step_ms(self) -> float:
        return 1000.0 * self.tau / self.median_tok_s

    @property
    def family(self) -> str | None:
        return family_of(self.algorithm)


def family_of(algorithm: str | None) -> str | None:
    """The family the fit keys a drafter's terms by (the twin's `fit_family` says the same on its side of the
    layers): EAGLE for EAGLE, EAGLE3, STANDALONE, NEXTN; else the algorithm."""
    if not algorithm:
        return None
    a = algorithm.upper()
    return "EAGLE" if a in ("EAGLE", "EAGLE3", "STANDALONE", "NEXTN") else a


@dataclass
class Param:
    value: float
    sd: float | None
    source: str  #: fitted | probe | published | base
    cells: int = 0
    note: str = ""


@dataclass
class AcceptanceFit:
    """A family's acceptance on one domain at one context: the conditional c_i of every draft position measured
    (pooled over the cells' histograms whose mean context is within 1.41x of `context`; chain acceptance of
    position i does not depend on the depth drafted). A domain measured at several contexts has one of these per
    context, and the twin interpolates between them (console/sim/config/deployment.py: `curve_at`)."""

    family: str
    domain: str
    conditionals_at: list[float]  #: c_1..c_K at `context`
    steps: list[int]  #: verify steps each position's conditional rests on
    context: float
    cells: int = 0
    source: str = "fitted"
    temperature: float = 0.6  #: the cells' sampling temperature (mean)

    @property
    def c1(self) -> float:
        return self.conditionals_at[0]


@dataclass
class NodeFit:
    name: str
    base: str
    step: dict[str, Param] = field(default_factory=dict)
    prefill: dict[str, Param] = field(default_factory=dict)
    acceptance: list[AcceptanceFit] = field(default_factory=list)
    capacity: dict[str, int] = field(default_factory=dict)  #: "ALGORITHM:n" (or "none") → max_total_num_tokens
    cells: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    residual_sd_pct: float | None = None
    verify_shape: str = "linear"  #: S(T) of the verify term: "linear" or "moe" (the base model's routed experts)

    def to_json(self) -> dict:
        return asdict(self)

    def tax(self, family: str) -> Param | None:
        return self.step.get(f"tax:{family}")

    def acceptance_of(self, family: str, domain: str) -> list[AcceptanceFit]:
        """The family's measured curves on `domain`, by context (empty: not fitted)."""
        return sorted((a for a in self.acceptance if a.family == family and a.domain == domain),
                      key=lambda a: a.context)

    def step_ms(self, batch: int, draft_tokens: int, context: float, family: str | None,
                shape: Callable[[int], float] = float) -> float:
        """The fitted step model at `batch` streams, verify width `draft_tokens`, mean context `context`."""
        s = self.step
        v = (s["base"].value + s["per_request"].value * (batch - 1) + s["per_kctx"].value * batch * context / 1000
             + s["per_qkctx"].value * (draft_tokens - 1) * batch * context / 1000)
        if family is not None:
            v += (s[f"spec_fixed:{family}"].value + s[f"draft:{family}"].value * (draft_tokens - 1)
                  + s[f"verify:{family}"].value * (shape(batch * draft_tokens) - shape(batch)))
        return v


class FitError(ValueError):
    """The cells cannot identify what was asked (one line naming what is missing)."""


def capacity_key(algorithm: str | None, draft_tokens: int) -> str:
    return f"{algorithm.upper()}:{draft_tokens}" if algorithm else "none"


def fit_node(cells: Sequence[CellObs], *, name: str, base: str, base_step: dict[str, float],
             probe_tax_ms: dict[str, tuple[float, float | None]] | None = None,
             base_prefill: dict[str, float] | None = None,
             moe_shape: Callable[[int], float] | None = None) -> NodeFit:
    """The node's parameters from `cells`. `base_step`: the base deployment's own values of the step terms
    (base, per_request, per_kctx, spec_fixed:<f>, draft:<f>, tax:<f>) for the terms the cells cannot identify;
    `probe_tax_ms`: family → (ms, sd) from a verify-tax probe recorded beside the cells; `moe_shape`: the base
    model's token cost S(T) of a forward of T tokens in units of its first extra token (routed experts: concave
    at batch), tried beside a linear one — the one that fits better is kept (`verify_shape`)."""
    cells = [c for c in cells if c.median_tok_s > 0 and c.n > 0]
    if not cells:
        raise FitError("twin fit: no cell with a measured median tok/s (give session or campaign directories)")
    shapes: dict[str, Callable[[int], float]] = {"linear": float}
    if moe_shape is not None:
        shapes["moe"] = moe_shape
    prefill = _fit_prefill(cells, base_prefill or {})
    best: NodeFit | None = None
    for shape_name, shape in shapes.items():
        f = _fit_steps(cells, name, base, base_step, probe_tax_ms or {}, shape, shape_name, prefill)
        if best is None or (f.residual_sd_pct or 0) < (best.residual_sd_pct or 0) - 1e-9:
            best = f
    assert best is not None
    out = best
    out.acceptance = _fit_acceptance(cells)
    out.prefill = prefill
    for c in cells:
        if c.capacity:
            out.capacity[capacity_key(c.algorithm, c.draft_tokens)] = int(c.capacity)
    return out


def decode_step_ms(c: CellObs, prefill: dict[str, Param]) -> float:
    """A cell's decode step time: its implied step with the other streams' prefills taken out. At c streams in a
    closed loop each request lives through admissions of other requests, each a prefill forward that stalls the batch
    (SGLang runs prefill first), which its per-request tok/s counts: span = steps · step + stalls · P, the stalls
    counted off the rows' own clocks (other requests' first tokens inside a request's decode span; without
    timestamps, the steady state's c − 1)."""
    stalls = float(c.concurrency - 1) if c.stalls is None else c.stalls
    if c.concurrency <= 1 or stalls <= 0 or "fixed_ms" not in prefill or c.max_tokens <= 1:
        return c.implied_step_ms
    p_ms = prefill["fixed_ms"].value + prefill["per_token_ms"].value * c.prompt_tokens
    out_tokens = c.max_tokens - 1
    span_ms = 1000.0 * out_tokens / c.median_tok_s
    steps = out_tokens / c.tau
    return max(0.1 * c.implied_step_ms, (span_ms - stalls * p_ms) / steps)


def _fit_steps(cells: Sequence[CellObs], name: str, base: str, base_step: dict[str, float],
               probe_tax_ms: dict[str, tuple[float, float | None]], shape: Callable[[int], float], shape_name: str,
               prefill: dict[str, Param]) -> NodeFit:
    out = NodeFit(name=name, base=base, cells=[c.source for c in cells], verify_shape=shape_name)
    families = sorted({c.family for c in cells if c.family})
    cols: list[str] = ["base", "per_request", "per_kctx", "per_qkctx"]
    for f in families:
        cols += [f"spec_fixed:{f}", f"draft:{f}", f"verify:{f}"]

    def x_of(c: CellObs) -> dict[str, float]:
        b = c.concurrency
        d = {"base": 1.0, "per_request": b - 1.0, "per_kctx": b * c.context / 1000,
             "per_qkctx": (c.draft_tokens - 1) * b * c.context / 1000}
        for f in families:
            on = 1.0 if c.family == f else 0.0
            d[f"spec_fixed:{f}"] = on
            d[f"draft:{f}"] = on * (c.draft_tokens - 1)
            d[f"verify:{f}"] = on * (shape(b * c.draft_tokens) - shape(b))
        return d

    X = np.array([[x_of(c)[k] for k in cols] for c in cells])
    y = np.array([decode_step_ms(c, prefill) for c in cells])
    w = np.array([float(c.n) for c in cells]) / y ** 2  # relative residuals: a cell's error in %, weighted by its rows
    fixed: dict[str, Param] = {}
    concs = {c.concurrency for c in cells}
    ctxs = {round(c.context, -1) for c in cells}
    if len(concs) < 2:
        fixed["per_request"] = Param(base_step["per_request"], None, "base", 0,
                                     f"one concurrency only ({min(concs)}): the base deployment's per-request cost")
    if len(ctxs) < 2:
        fixed["per_kctx"] = Param(base_step["per_kctx"], None, "base", 0,
                                  "one context length only: the base deployment's context cost")
        fixed["per_qkctx"] = Param(base_step.get("per_qkctx", 0.0), None, "base", 0)
    elif not any(c.family for c in cells) or len({(c.draft_tokens, round(c.context, -1)) for c in cells}) < 3:
        fixed["per_qkctx"] = Param(base_step.get("per_qkctx", 0.0), None, "base", 0,
                                   "too few verify widths × contexts for the attention of verified tokens over the "
                                   "context: the base deployment's")
    for f in families:
        fc = [c for c in cells if c.family == f]
        widths = {c.draft_tokens for c in fc}
        batches = {c.concurrency for c in fc}
        draft_base = base_step.get(f"draft:{f}", 0.0)
        if len(widths) < 2:
            pr = probe_tax_ms.get(f)
            if pr is not None:
                tax, sd, src, why = pr[0], pr[1], "probe", "the verify-tax probe recorded with the cells"
            elif f == "EAGLE":
                tax, sd, src, why = PUBLISHED_TAX_MS, None, "published", (
                    "the published tax (Kimi-K2.6 on 4xB200; another model's differs: probe it, `probe verify-tax`)")
            else:
                tax, sd, src, why = base_step.get(f"tax:{f}", 0.0), None, "base", "the base deployment's"
            fixed[f"draft:{f}"] = Param(draft_base, None, "base", 0)
            fixed[f"verify:{f}"] = Param(max(0.0, tax - draft_base), sd, src, 0,
                                         f"{f} at one verify width ({min(widths)}): the verify tax is {why}")
        elif len(batches) < 2:
            fixed[f"draft:{f}"] = Param(draft_base, None, "base", 0,
                                        f"{f} at one concurrency: its draft pass and verify cost cannot be told apart; "
                                        "the draft pass is the base deployment's")
        if not any(c.family is None for c in cells):
            fixed[f"spec_fixed:{f}"] = Param(base_step.get(f"spec_fixed:{f}", 0.0), None, "base", 0,
                                             "no cell without speculation: the base deployment's fixed cost of "
                                             "speculation")
    free = [k for k in cols if k not in fixed]
    if len(cells) < len(free):
        raise FitError(f"twin fit: {len(cells)} cell observation(s) for {len(free)} step terms ({', '.join(free)}): "
                       f"record more cells (another depth, concurrency or context)")
    y_adj = y - sum(X[:, cols.index(k)] * p.value for k, p in fixed.items())
    sw = np.sqrt(w)
    while True:  # backward elimination: a cost the cells cannot tell from 0 (|t| < 1, or < 0) is dropped, refit
        Xf = X[:, [cols.index(k) for k in free]]
        beta, *_ = np.linalg.lstsq(Xf * sw[:, None], y_adj * sw, rcond=None)
        resid = y_adj - Xf @ beta
        dof = len(cells) - len(free)
        s2 = float(np.sum(w * resid ** 2) / dof) if dof > 0 else None
        try:
            cov = np.linalg.inv((Xf * w[:, None]).T @ Xf) * s2 if s2 is not None else None
        except np.linalg.LinAlgError:
            cov = None
        sds = [float(math.sqrt(max(cov[i, i], 0.0))) if cov is not None else None for i in range(len(free))]
        weak = [(beta[i] / sds[i] if sds[i] else (0.0 if beta[i] < 0 else math.inf), k)
                for i, k in enumerate(free) if k != "base" and (beta[i] < 0 or (sds[i] is not None
                                                                                and abs(beta[i]) < sds[i]))]
        if not weak:
            break
        _, k = min(weak)
        i = free.index(k)
        fixed[k] = Param(0.0, None, "dropped", 0, f"{k}: the cells cannot tell it from 0 ({beta[i]:+.3g} ms"
                         + (f" ± {sds[i]:.2g}" if sds[i] is not None else "") + "): 0")
        free.remove(k)
    for i, k in enumerate(free):
        out.step[k] = Param(float(beta[i]), sds[i], "fitted", int(np.count_nonzero(Xf[:, i])))
    out.step.update(fixed)
    out.notes += [p.note for p in fixed.values() if p.note]
    for f in families:  # the verify tax as the reference defines it: one more depth at batch 1, d6 → d7, 10k
        d, v, q = out.step[f"draft:{f}"], out.step[f"verify:{f}"], out.step["per_qkctx"]
        unit = shape(8) - shape(7)
        parts = [x for x in (d.sd, None if v.sd is None else v.sd * unit,
                             None if q.sd is None else q.sd * TAX_CONTEXT / 1000) if x is not None]
        src = "fitted" if "fitted" in (d.source, v.source, q.source) else v.source
        out.step[f"tax:{f}"] = Param(d.value + v.value * unit + q.value * TAX_CONTEXT / 1000,
                                     math.sqrt(sum(x * x for x in parts)) if parts else None, src,
                                     max(d.cells, v.cells, q.cells),
                                     "derived: draft + verify · (S(8) − S(7)) + per_qkctx · 10: one more depth at "
                                     "batch 1 from d6 to d7 at 10k of context, as the published 0.397 ms is")
    pred = np.array([out.step_ms(c.concurrency, c.draft_tokens, c.context, c.family, shape) for c in cells])
    out.residual_sd_pct = float(100 * np.sqrt(np.average((y / pred - 1) ** 2, weights=w)))
    return out


#: cells whose mean contexts are within this factor pool into one acceptance curve
CONTEXT_BIN = 10 ** 0.15


def _fit_acceptance(cells: Sequence[CellObs]) -> list[AcceptanceFit]:
    out = []
    groups: dict[tuple[str, str], list[CellObs]] = {}
    for c in cells:
        if c.family and c.hist and sum(c.hist):
            groups.setdefault((c.family, c.domain), []).append(c)
    for (fam, dom), cs in sorted(groups.items()):
        bins: list[list[CellObs]] = []
        for c in sorted(cs, key=lambda c: c.context):
            if bins and c.context <= bins[-1][0].context * CONTEXT_BIN:
                bins[-1].append(c)
            else:
                bins.append([c])
        for b in bins:
            fit = _pooled_curve(fam, dom, b)
            if fit is not None:
                out.append(fit)
    return out


def _pooled_curve(fam: str, dom: str, cs: list[CellObs]) -> AcceptanceFit | None:
    """The conditionals of cells at one context, pooled over their histograms (a position needs >= 5 steps)."""
    k_max = max((c.steps or c.draft_tokens - 1) for c in cs)
    num = [0.0] * k_max  # steps reaching position i + 1 (accepted >= i + 1)
    den = [0.0] * k_max  # steps reaching position i (accepted >= i)
    for c in cs:
        k = c.steps or c.draft_tokens - 1
        h = list(c.hist) + [0] * max(0, k + 1 - len(c.hist))
        tails = [sum(h[j:]) for j in range(k + 2)]
        for i in range(k):
            if tails[i] <= 0:
                break
            num[i] += tails[i + 1]
            den[i] += tails[i]
    conds = []
    for i in range(k_max):
        if den[i] < 5:
            break
        conds.append(min(0.98, max(0.02, num[i] / den[i])))
    if not conds:
        return None
    wts = [float(sum(c.hist)) for c in cs]
    ctx = 10 ** float(np.average([math.log10(c.context) for c in cs], weights=wts))
    return AcceptanceFit(fam, dom, conds, [int(den[i]) for i in range(len(conds))], ctx, len(cs),
                         temperature=float(np.average([c.temperature for c in cs], weights=wts)))


def _fit_prefill(cells: Sequence[CellObs], base: dict[str, float]) -> dict[str, Param]:
    pts = [(c.prompt_tokens, 1000 * c.ttft_median_s) for c in cells if c.concurrency == 1 and c.ttft_median_s]
    if len({round(p, -1) for p, _ in pts}) >= 2:
        x, y = np.array([p for p, _ in pts]), np.array([t for _, t in pts])
        slope, icpt = np.polyfit(x, y, 1)
        return {"fixed_ms": Param(float(icpt), None, "fitted", len(pts)),
                "per_token_ms": Param(float(slope), None, "fitted", len(pts))}
    if pts and base:
        # one prompt length: the base's shape scaled to the measured TTFT
        p, t = pts[0]
        model = base["fixed_ms"] + base["per_token_ms"] * p
        k = t / model if model > 0 else 1.0
        return {"fixed_ms": Param(base["fixed_ms"] * k, None, "base", len(pts), "one prompt length: the base's "
                                  "prefill scaled to the measured TTFT"),
                "per_token_ms": Param(base["per_token_ms"] * k, None, "base", len(pts))}
    return {}
