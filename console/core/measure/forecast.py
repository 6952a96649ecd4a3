"""Depth forecast (DESIGN §4): price other draft depths from one measured cell, before running them.

From the cell at depth k0: per-position acceptance p_1..p_k0 (pooled histogram), its median tok/s and τ,
hence its implied step time step(k0) = τ/tok/s. For another depth k (chain drafting):

    p_i (i > k0)  = p_{i−1} · c̄,  c̄ = mean of the last two measured conditionals p_i/p_{i−1}   (extrapolated)
    τ(k)          = 1 + Σ_{i≤k} p_i
    step(k)       = step(k0) + (k − k0) · verify tax
    tok/s(k)      = τ(k) / step(k)

The verify tax (ms per extra drafted token) is the slope of step time against verified tokens across
depths measured in this session when there are two or more; otherwise the report's measured 0.397 ms,
labelled as such. Every forecast carries what it was computed from, so it can be checked after the arm
runs (`compare`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from console.core.measure import stats

REPORT_VERIFY_TAX_MS = 0.397
"""Verify cost per extra drafted token, chain drafting, measured in the seed report (domain.md §3)."""


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
    verify_tax_ms: float
    tax_source: str
    points: list[DepthForecast] = field(default_factory=list)
    cell_dir: str | None = None

    def at(self, depth: int) -> DepthForecast | None:
        return next((p for p in self.points if p.depth == depth), None)

    def to_json(self) -> dict:
        return asdict(self)


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
             depths: Sequence[int], verify_tax_ms: float | None = None, tax_source: str | None = None,
             cell_dir: str | None = None, family: str = "eagle3") -> Forecast:
    """`base_depth` and `depths` in the family's own terms (EAGLE: steps; DFLASH: block size)."""
    if base_tok_s <= 0 or base_tau <= 0:
        raise ValueError("the base cell needs a positive median tok/s and τ")
    tax = REPORT_VERIFY_TAX_MS if verify_tax_ms is None else verify_tax_ms
    src = tax_source or ("report default (0.397 ms, chain, domain.md §3)" if verify_tax_ms is None else "given")
    step0 = stats.implied_step_ms(base_tau, base_tok_s)
    fc = Forecast(base_depth=base_depth, base_tok_s=base_tok_s, base_tau=base_tau, base_step_ms=step0,
                  positions=list(positions), verify_tax_ms=tax, tax_source=src, cell_dir=cell_dir)
    k0 = draft_positions(family, base_depth)
    for d in sorted(set(depths)):
        k = draft_positions(family, d)
        if k < 1:
            continue
        pk = extend_positions(positions, k)
        tau = 1.0 + sum(pk[:k])
        step = step0 + (k - k0) * tax
        if step <= 0:
            continue
        fc.points.append(DepthForecast(depth=d, tau=tau, step_ms=step, tok_s=1000.0 * tau / step,
                                       extrapolated_positions=max(0, k - len(positions))))
    return fc


def session_verify_tax(cells: Sequence[tuple[int, float, float]]) -> tuple[float | None, str]:
    """Verify tax from cells of the same family and workload at different depths: (num_draft_tokens,
    τ, median tok/s) per cell → slope of implied step time (ms) against verified tokens."""
    pts = [(float(n), stats.implied_step_ms(t, s)) for n, t, s in cells if t and s]
    pts = [(x, y) for x, y in pts if y is not None]
    if len({x for x, _ in pts}) < 2:
        return None, "report default (0.397 ms, chain, domain.md §3)"
    slope = stats.verify_tax_ms(pts)
    return slope, f"measured in this session across {len({x for x, _ in pts})} depths"


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
