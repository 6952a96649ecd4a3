"""Depth forecast (docs/measurement.md#forecast): price other draft depths from one measured cell, before running
them. This module is the one forecast; everything that prices a depth (the flip box, the forecast screen, the
pair recorder, `serving-console forecast`) goes through `sessions.forecasts.cell_forecast`, which calls it.

From the cell at depth k0: per-position acceptance p_1..p_k0 (pooled histogram), its median tok/s and τ,
hence its implied step time step(k0) = τ/tok/s. For another depth k (chain drafting):

    p_i (i > k0)  = p_{i−1} · c̄,  c̄ = mean of the last two measured conditionals p_i/p_{i−1}   (extrapolated)
    τ(k)          = 1 + Σ_{i≤k} p_i
    step(k)       = step(k0) + (k − k0) · verify tax
    tok/s(k)      = τ(k) / step(k)

The verify tax (ms one more verified token adds to a step) follows one policy (`choose_verify_tax`), and a
forecast always shows its source and uncertainty:

1. probed: measured by the verify-tax probe (dummy draft weights at two widths), with its CI;
2. fitted: the slope of per-request implied step time against verified tokens per step, across ≥ 2 widths on the
   same prompt set in this session, used only when its bootstrap 95% CI excludes zero (a non-physical or
   unresolved fit — two noisy anchors of different launches, say — is never used);
3. published: the report's 0.397 ms, labelled as such, with the reason the fit was not used — only for the model
   it was measured on (Kimi-K2.6, `REFERENCE_MODEL`); any other model gets no forecast until its tax is probed or
   fitted (the real CPU server's tax is ~42 ms/token: the published figure would price its depths 100× too cheap).

Every forecast carries what it was computed from, so it can be checked after the arm runs (`compare`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from console.core.measure import stats

REPORT_VERIFY_TAX_MS = 0.397
"""Verify cost per extra drafted token, chain drafting, measured in the seed report
(docs/reference-deployment.md §3)."""

REFERENCE_MODEL = "moonshotai/Kimi-K2.6"
"""The model the published tax was measured on (on 4×B200, TP 4)."""


def published_applies(model_path: str | None) -> bool:
    """Whether the published tax describes this model (the reference model, or its twin; an unknown model: yes, as
    before any model was recorded)."""
    if not model_path:
        return True
    return model_path.removeprefix("sim:").rstrip("/").lower() == REFERENCE_MODEL.lower()


@dataclass(frozen=True)
class VerifyTax:
    """The ms one more verified token adds to a step, with where it comes from."""

    ms: float
    source: str
    """'probed' | 'fitted' | 'published' | 'given'."""
    text: str
    """One line for the screen after the figure: its source and uncertainty (screens print 'verify tax
    {ms} ms/token: {text}')."""
    ci_ms: tuple[float, float] | None = None
    """Bootstrap 95% CI (probed, fitted)."""


PUBLISHED_TAX = VerifyTax(REPORT_VERIFY_TAX_MS, "published",
                          "published (chain drafting, measured on the reference node; docs/reference-deployment.md §3)")


def given_tax(ms: float, why: str = "given (--verify-tax-ms)") -> VerifyTax:
    return VerifyTax(ms, "given", why)


def fit_verify_tax(cells: Sequence[tuple[int, Sequence[float]]], *, seed: int = 0, n_boot: int = 1000,
                   what: str = "") -> tuple[VerifyTax | None, str]:
    """Fit the verify tax across cells of one prompt set: (verified tokens per step, per-request implied step
    times in ms) per cell. Slope of the cells' median step against width; CI from a bootstrap that resamples
    each cell's requests. (None, why) when there are fewer than 2 widths, or when the fit is not physical (≤ 0)
    or not resolved (its CI includes 0)."""
    pts = [(int(w), np.asarray([x for x in xs if x and x > 0], dtype=float)) for w, xs in cells]
    pts = [(w, xs) for w, xs in pts if xs.size]
    widths = sorted({w for w, _ in pts})
    if len(widths) < 2:
        return None, (f"one verify width measured ({widths[0]} tokens)" if widths else "no measured width")
    x = np.array([w for w, _ in pts], dtype=float)
    y = np.array([float(np.median(xs)) for _, xs in pts])
    slope = stats.verify_tax_ms(list(zip(x.tolist(), y.tolist(), strict=True)))
    assert slope is not None  # two widths at least
    rng = np.random.default_rng(seed)
    boots = np.empty(n_boot)
    for b in range(n_boot):
        yb = np.array([float(np.median(rng.choice(xs, size=xs.size, replace=True))) for _, xs in pts])
        boots[b] = np.polyfit(x, yb, 1)[0]
    lo, hi = (float(v) for v in np.percentile(boots, [2.5, 97.5]))
    span = f"{slope:+.3f} ms [{lo:+.3f}, {hi:+.3f}] across widths {', '.join(map(str, widths))}{what}"
    if slope <= 0:
        return None, f"the session's fit {span} is not physical (a verified token cannot save time)"
    if lo <= 0:
        return None, f"the session's fit {span} is not resolved (its 95% CI includes 0)"
    return VerifyTax(slope, "fitted", f"fitted in this session, 95% CI [{lo:.3f}, {hi:.3f}] across widths "
                                      f"{', '.join(map(str, widths))}{what}", (lo, hi)), ""


@dataclass(frozen=True)
class SlopeFit:
    """A straight line through the medians of per-request step times at several widths, with a bootstrap 95% CI
    of its slope (ms per verified token) that resamples each width's requests."""

    slope_ms: float
    ci_ms: tuple[float, float]
    intercept_ms: float
    widths: tuple[int, ...]
    medians_ms: tuple[float, ...]
    n: tuple[int, ...]
    launch_sd_ms: float | None = None
    """With three or more legs: the scatter of the legs' medians about the line beyond what their requests explain
    (each leg is its own launch: an estimate of launch-to-launch variation, n − 2 degrees of freedom). Its effect
    on the slope is in `ci_ms`; None with two legs, where nothing can estimate it."""
    ci_requests_ms: tuple[float, float] | None = None
    """The CI from the requests alone (no between-leg term): whether the slope is resolved is decided on it, since
    a scatter estimate of one or two degrees of freedom is too rough to refuse a fit on."""
    estimator: str = "medians, bootstrap"
    """"medians, bootstrap" (every leg ≥ MIN_BOOTSTRAP_REQUESTS requests) or "means, t interval" (a smaller leg:
    `medians_ms` then holds the legs' means)."""


@dataclass(frozen=True)
class ProbeFit:
    """The verify-tax probe's fit (docs/measurement.md#the-verify-tax-probe): `verify` from legs at several verify
    widths with the drafter's passes held constant (ms per verified token: the drafter's cost cancels); `chain`
    from chain legs (topk 1) at several depths (ms per depth: one more verified token and one more draft pass);
    where both ran, the draft pass is their difference. A depth forecast's tax is `chain` when measured (the price
    of one more depth), else `verify` (labelled as the verify cost alone)."""

    verify: SlopeFit | None = None
    chain: SlopeFit | None = None
    draft_pass_ms: float | None = None
    draft_pass_ci_ms: tuple[float, float] | None = None

    def tax(self, where: str = "") -> VerifyTax:
        v = self.verify
        if self.chain is not None:
            lo, hi = self.chain.ci_ms
            parts = [f"one more depth at depths {', '.join(str(w - 1) for w in self.chain.widths)}"]
            if v is not None:
                parts.append(f"verify {v.slope_ms:.3f} ms/token at widths {', '.join(map(str, v.widths))}")
            if self.draft_pass_ms is not None:
                parts.append(f"draft pass {self.draft_pass_ms:.3f} ms")
            return VerifyTax(self.chain.slope_ms, "probed", f"probed{where}, 95% CI [{lo:.3f}, {hi:.3f}]: "
                                                           + "; ".join(parts), (lo, hi))
        assert v is not None
        lo, hi = v.ci_ms
        return VerifyTax(v.slope_ms, "probed",
                         f"probed{where}, 95% CI [{lo:.3f}, {hi:.3f}] at widths {', '.join(map(str, v.widths))} "
                         f"(verify cost only: without chain legs the draft pass per depth is not in it)", (lo, hi))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> ProbeFit:
        def sf(x: dict | None) -> SlopeFit | None:
            if not x:
                return None
            return SlopeFit(float(x["slope_ms"]), tuple(x["ci_ms"]), float(x["intercept_ms"]),
                            tuple(int(w) for w in x["widths"]), tuple(float(m) for m in x["medians_ms"]),
                            tuple(int(n) for n in x["n"]), x.get("launch_sd_ms"),
                            tuple(x["ci_requests_ms"]) if x.get("ci_requests_ms") else None,
                            x.get("estimator") or "medians, bootstrap")
        v, c = sf(d.get("verify")), sf(d.get("chain"))
        if v is None and c is None:
            raise ValueError("a probe fit with neither verify nor chain legs")
        dp_ci = d.get("draft_pass_ci_ms")
        return cls(v, c, d.get("draft_pass_ms"), tuple(dp_ci) if dp_ci else None)


def _boot_slopes(pts: Sequence[tuple[int, np.ndarray]], rng: np.random.Generator, n_boot: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap slopes (resampling each leg's requests) and the legs' bootstrap medians (n_boot × legs)."""
    x = np.array([w for w, _ in pts], dtype=float)
    out = np.empty(n_boot)
    meds = np.empty((n_boot, len(pts)))
    for b in range(n_boot):
        meds[b] = [float(np.median(rng.choice(xs, size=xs.size, replace=True))) for _, xs in pts]
        out[b] = np.polyfit(x, meds[b], 1)[0]
    return out, meds


def _slope_fit(cells: Sequence[tuple[int, Sequence[float]]], what: str) -> tuple[SlopeFit | None, list, str]:
    pts = [(int(w), np.asarray([v for v in xs if v and v > 0], dtype=float)) for w, xs in cells]
    pts = [(w, xs) for w, xs in pts if xs.size]
    widths = sorted({w for w, _ in pts})
    if len(widths) < 2:
        return None, pts, f"{what}: fewer than two widths with measured requests ({widths or 'none'})"
    x = np.array([w for w, _ in pts], dtype=float)
    y = np.array([float(np.median(xs)) for _, xs in pts])
    slope, icpt = np.polyfit(x, y, 1)
    return SlopeFit(float(slope), (0.0, 0.0), float(icpt), tuple(w for w, _ in pts), tuple(y.tolist()),
                    tuple(int(xs.size) for _, xs in pts)), pts, ""


#: below this many requests in any leg, the bootstrap of a leg's median has too few distinct values (2 requests: 3,
#: 4 requests: 35) for a percentile interval — it sat its own point at an edge ("0.365 ms … 95% CI [0.077, 0.375]",
#: #30) — and the fit takes the t interval of the slope through the legs' means instead (`_t_draws`)
MIN_BOOTSTRAP_REQUESTS = 5


def _t_draws(pts: Sequence[tuple[int, np.ndarray]], rng: np.random.Generator, n_boot: int
             ) -> tuple[float, float, np.ndarray, np.ndarray, float, int]:
    """The slope through the legs' MEAN step times with its request-part standard error from the legs' pooled
    within-leg variance (s², Σ(n − 1) degrees of freedom): Var(slope) = s² Σ (w − w̄)² / n / Sxx². Returns (slope,
    intercept, t draws of the slope's sampling error (point-free), per-leg variances of the mean, mean s², df)."""
    x = np.array([w for w, _ in pts], dtype=float)
    means = np.array([float(np.mean(xs)) for _, xs in pts])
    slope, icpt = np.polyfit(x, means, 1)
    df = int(sum(xs.size - 1 for _, xs in pts))
    ss = float(sum(np.sum((xs - xs.mean()) ** 2) for _, xs in pts))
    s2 = ss / df if df > 0 else 0.0
    n = np.array([xs.size for _, xs in pts], dtype=float)
    sxx = float(np.sum((x - x.mean()) ** 2))
    se = (s2 * float(np.sum((x - x.mean()) ** 2 / n))) ** 0.5 / sxx
    draws = se * rng.standard_t(max(df, 1), size=n_boot)
    return float(slope), float(icpt), draws, s2 / n, s2, df


def _resolved(cells: Sequence[tuple[int, Sequence[float]]], what: str, rng: np.random.Generator, n_boot: int,
              launch_sd: float | None = None) -> tuple[SlopeFit | None, np.ndarray | None, str]:
    """`launch_sd`: the between-leg scatter estimated elsewhere (the verify legs, same node), used when this group
    has too few legs to estimate its own. Legs of MIN_BOOTSTRAP_REQUESTS requests or more: the slope through the
    legs' medians and a percentile bootstrap resampling each leg's requests; a leg with fewer: the slope through
    the legs' means and its t interval (`_t_draws`), both centred on the point."""
    f, pts, why = _slope_fit(cells, what)
    if f is None:
        return None, None, why
    x = np.array([w for w, _ in pts], dtype=float)
    small = min(xs.size for _, xs in pts) < MIN_BOOTSTRAP_REQUESTS
    if small:
        slope, icpt, err, var_mean, _s2, _df = _t_draws(pts, rng, n_boot)
        f = replace(f, slope_ms=slope, intercept_ms=icpt,
                    medians_ms=tuple(float(np.mean(xs)) for _, xs in pts))
        boots = slope + err
        leg_var = float(np.mean(var_mean))
    else:
        boots, meds = _boot_slopes(pts, rng, n_boot)
        leg_var = float(np.mean(np.var(meds, axis=0)))
    req_lo, req_hi = np.percentile(boots, [2.5, 97.5])
    ci_req = (float(req_lo), float(req_hi))
    if len(pts) >= 3:  # between-leg scatter beyond the requests' own: launch-to-launch variation, into the CI
        resid = np.array(f.medians_ms) - (f.intercept_ms + f.slope_ms * x)
        launch_sd = max(0.0, float(np.sum(resid ** 2)) / (len(pts) - 2) - leg_var) ** 0.5
    if launch_sd:
        boots = boots + rng.normal(0.0, launch_sd / float(np.sum((x - x.mean()) ** 2)) ** 0.5, boots.size)
    ci_lo, ci_hi = np.percentile(boots, [2.5, 97.5])
    f = replace(f, ci_ms=(float(ci_lo), float(ci_hi)), launch_sd_ms=launch_sd, ci_requests_ms=ci_req,
                estimator="means, t interval" if small else "medians, bootstrap")
    if f.slope_ms <= 0:
        return None, None, (f"{what}: slope {f.slope_ms:+.3f} ms/token is not physical (a verified token cannot "
                            "save time)")
    if ci_req[0] <= 0:
        return None, None, (f"{what}: slope {f.slope_ms:+.3f} ms/token is not resolved (95% CI of its requests "
                            f"[{ci_req[0]:+.3f}, {ci_req[1]:+.3f}] includes 0): more requests or wider widths")
    return f, boots, ""


def probe_fit(verify_cells: Sequence[tuple[int, Sequence[float]]],
              chain_cells: Sequence[tuple[int, Sequence[float]]] = (), *, seed: int = 0, n_boot: int = 2000
              ) -> tuple[ProbeFit | None, str]:
    """Fit the probe: each cell is (verified tokens per step, per-request step times in ms), the verify legs'
    and the chain legs'. (None, why) when neither group gives a resolved, physical slope (≥ 2 widths, slope > 0,
    95% CI above 0). The draft pass (chain − verify) takes its CI from the same bootstrap draws."""
    rng = np.random.default_rng(seed)
    v, vb, vwhy = _resolved(verify_cells, "verify legs", rng, n_boot) if verify_cells else (None, None, "")
    c, cb, cwhy = _resolved(chain_cells, "chain legs", rng, n_boot, v.launch_sd_ms if v is not None else None) \
        if chain_cells else (None, None, "")
    why = "; ".join(w for w in (vwhy, cwhy) if w)
    if v is None and c is None:
        return None, why or "no legs"
    dp: float | None = None
    dp_ci: tuple[float, float] | None = None
    if v is not None and c is not None and vb is not None and cb is not None:
        dp = c.slope_ms - v.slope_ms
        dp_lo, dp_hi = np.percentile(cb - vb, [2.5, 97.5])
        dp_ci = (float(dp_lo), float(dp_hi))
    return ProbeFit(v, c, dp, dp_ci), why


def choose_verify_tax(probed: VerifyTax | None = None, fitted: tuple[VerifyTax | None, str] | None = None
                      ) -> VerifyTax:
    """The policy: probed → fitted (resolved, positive) → published (saying why the fit was not used)."""
    if probed is not None:
        return probed
    if fitted is not None and fitted[0] is not None:
        return fitted[0]
    why = fitted[1] if fitted is not None and fitted[1] else ""
    if not why:
        return PUBLISHED_TAX
    return VerifyTax(PUBLISHED_TAX.ms, "published", f"{PUBLISHED_TAX.text}; {why}")


@dataclass(frozen=True)
class DepthForecast:
    depth: int
    tau: float
    step_ms: float
    tok_s: float
    extrapolated_positions: int
    """How many positions beyond the measured ones this depth needed (0 = all measured)."""


@dataclass
class Forecast:
    base_depth: int
    base_tok_s: float
    base_tau: float
    base_step_ms: float
    positions: list[float]
    tax: VerifyTax
    points: list[DepthForecast] = field(default_factory=list)
    cell_dir: str | None = None

    @property
    def verify_tax_ms(self) -> float:
        return self.tax.ms

    @property
    def tax_source(self) -> str:
        """The tax's line as screens show it (figure, source, uncertainty)."""
        return self.tax.text

    def at(self, depth: int) -> DepthForecast | None:
        return next((p for p in self.points if p.depth == depth), None)

    def to_json(self) -> dict:
        d = asdict(self)
        d["verify_tax_ms"], d["tax_source"] = self.tax.ms, self.tax.text
        return d


def extend_positions(p: Sequence[float], k: int) -> list[float]:
    """p_1..p_k: measured values, continued geometrically by the mean of the last two conditionals."""
    out = list(p)
    if len(out) >= k or not out:
        return out[:k]
    cond = [c for c in stats.conditional_acceptance(out) if c is not None]
    tail = cond[-2:] if len(cond) >= 2 else cond[-1:]
    c = sum(tail) / len(tail) if tail else 0.0
    c = min(max(c, 0.0), 1.0)
    while len(out) < k:
        out.append(out[-1] * c)
    return out


LIST_FLOOR = 0.005
"""An extrapolated p_i below this prints as 0.00: a forecast lists it no more (one line says how many)."""


def listed_positions(p: Sequence[float], k: int, floor: float = LIST_FLOOR) -> tuple[list[float], int]:
    """The p_1..p_k a forecast lists: every measured one, then the extrapolated ones while they are ≥ `floor`;
    and how many extrapolated positions past those were left out (each would read 0.00)."""
    ext = extend_positions(p, k)
    n = min(len(p), k)
    while n < len(ext) and ext[n] >= floor:
        n += 1
    return ext[:n], len(ext) - n


def draft_positions(family: str, depth: int) -> int:
    """Draft positions verified per step at a depth as operators name it: EAGLE-like drafters propose `steps`
    tokens (positions 1..steps); a DFLASH block of B verifies B − 1 drafted tokens after the anchor token."""
    return depth - 1 if family.lower() == "dflash" else depth


def forecast(positions: Sequence[float], base_depth: int, base_tok_s: float, base_tau: float,
             depths: Sequence[int], tax: VerifyTax = PUBLISHED_TAX, cell_dir: str | None = None,
             family: str = "eagle3") -> Forecast:
    """`base_depth` and `depths` in the family's own terms (EAGLE: steps; DFLASH: block size)."""
    if base_tok_s <= 0 or base_tau <= 0:
        raise ValueError("the base cell needs a positive median tok/s and τ")
    step0 = stats.implied_step_ms(base_tau, base_tok_s)
    assert step0 is not None  # a positive tok/s
    fc = Forecast(base_depth=base_depth, base_tok_s=base_tok_s, base_tau=base_tau, base_step_ms=step0,
                  positions=list(positions), tax=tax, cell_dir=cell_dir)
    tax_ms = tax.ms
    k0 = draft_positions(family, base_depth)
    for d in sorted(set(depths)):
        k = draft_positions(family, d)
        if k < 1:
            continue
        pk = extend_positions(positions, k)
        tau = 1.0 + sum(pk[:k])
        step = step0 + (k - k0) * tax_ms
        if step <= 0:
            continue
        fc.points.append(DepthForecast(depth=d, tau=tau, step_ms=step, tok_s=1000.0 * tau / step,
                                       extrapolated_positions=max(0, k - len(positions))))
    return fc


@dataclass(frozen=True)
class Comparison:
    depth: int
    predicted_tok_s: float
    measured_tok_s: float
    error_pct: float
    predicted_tau: float
    measured_tau: float | None


def compare(fc: Forecast, depth: int, measured_tok_s: float, measured_tau: float | None) -> Comparison:
    pt = fc.at(depth)
    if pt is None:
        raise ValueError(f"the forecast has no depth {depth}")
    return Comparison(depth=depth, predicted_tok_s=pt.tok_s, measured_tok_s=measured_tok_s,
                      error_pct=100.0 * (pt.tok_s / measured_tok_s - 1.0), predicted_tau=pt.tau,
                      measured_tau=measured_tau)
