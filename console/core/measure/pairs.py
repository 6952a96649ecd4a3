"""Same-session A/B pairs (docs/measurement.md#cells-anchors-pairs): the statistics operators can defend.

Arms A and B run on the same node in one session, with the same pinned prompts and protocol, in an order
such as A B A (the repeat of A measures drift). Each leg is one cell; each arm is anchored.

    effect      Δ% = median(B) / median(A) − 1, A = all A legs pooled        (per-request tok/s, interpolated medians)
    CI          seeded bootstrap over requests: resample each arm's rows with replacement, n_boot times, take the
                2.5 / 97.5 percentiles of the resampled Δ%
    drift       median(A2) / median(A1) − 1 with its own bootstrap CI; flagged when |drift| ≥ |effect| or its CI
                excludes 0 while the effect's does not — the comparison cannot separate B from time
    verdict     "B faster by 5.8% (95% CI 3.1 to 8.4% faster)" when the CI excludes 0, else "no difference resolved: …"
                (`verdict`: the one format every comparison is printed in)

Every figure comes with its n and spread. Everything is recomputable from the legs' rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from console.core.measure import stats
from console.core.measure.records import RequestRecord

N_BOOT = 2000


@dataclass
class ArmStats:
    name: str
    n: int
    legs: int
    median_tok_s: float | None
    p10_tok_s: float | None
    p90_tok_s: float | None
    iqr_tok_s: float | None
    mean_tok_s: float | None
    ttft_median_s: float | None
    tau: float | None
    per_position_acceptance: list[float] | None
    implied_step_ms: float | None
    kv_capacity_tokens: int | None = None
    kv_capacity_tax: float | None = None
    usd_per_m_tokens: float | None = None
    anchor_median_tok_s: list[float | None] = field(default_factory=list)
    anchor_pct: list[float | None] = field(default_factory=list)
    leg_medians: list[float | None] = field(default_factory=list)


@dataclass
class Interval:
    point_pct: float | None
    low_pct: float | None
    high_pct: float | None

    @property
    def resolved(self) -> bool:
        return self.low_pct is not None and self.high_pct is not None and (self.low_pct > 0 or self.high_pct < 0)

    def text(self) -> str:
        if self.point_pct is None:
            return "—"
        return f"{self.point_pct:+.1f}% [{self.low_pct:+.1f}, {self.high_pct:+.1f}]"


@dataclass
class PairStats:
    a: ArmStats
    b: ArmStats
    effect: Interval
    drift: Interval | None
    drift_flag: str | None
    verdict: str
    n_boot: int
    seed: int
    order: str

    def to_json(self) -> dict:
        d = asdict(self)
        d["effect"]["resolved"] = self.effect.resolved
        if self.drift is not None:
            d["drift"]["resolved"] = self.drift.resolved
        return d


def speeds(rows: Sequence[RequestRecord]) -> list[float]:
    """Per-request tok/s of the rows the cell statistic includes (ok, not flagged, not warm-up)."""
    return [s for s in (stats.output_tok_s(r) for r in rows if r.ok and not r.flags and not r.warmup) if s is not None]


def bootstrap_ratio(a: Sequence[float], b: Sequence[float], seed: int, n_boot: int = N_BOOT) -> Interval:
    """Δ% = median(b)/median(a) − 1 with a percentile bootstrap 95% CI (requests resampled within each arm)."""
    if len(a) < 2 or len(b) < 2:
        return Interval(None, None, None)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, len(xa), size=(n_boot, len(xa)))
    ib = rng.integers(0, len(xb), size=(n_boot, len(xb)))
    ma = np.percentile(xa[ia], 50, axis=1)
    mb = np.percentile(xb[ib], 50, axis=1)
    ratios = 100.0 * (mb / ma - 1.0)
    med_a, med_b = stats.interp_median(list(xa)), stats.interp_median(list(xb))
    assert med_a is not None and med_b is not None  # two values each at least
    point = 100.0 * (med_b / med_a - 1.0)
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return Interval(float(point), float(lo), float(hi))


def arm_stats(name: str, legs: Sequence[Sequence[RequestRecord]], num_draft_tokens: int | None = None,
              kv_capacity: int | None = None, nospec_capacity: int | None = None,
              usd_per_hour: float | None = None, anchors: Sequence[tuple[float | None, float | None]] = ()) -> ArmStats:
    rows = [r for leg in legs for r in leg]
    s = stats.summarize(rows, num_draft_tokens=num_draft_tokens)
    sp = speeds(rows)
    q1, q3 = (stats.percentile(sp, 25), stats.percentile(sp, 75)) if sp else (None, None)
    return ArmStats(
        name=name, n=len(sp), legs=len(legs), median_tok_s=s.median_tok_s, p10_tok_s=s.p10_tok_s,
        p90_tok_s=s.p90_tok_s, iqr_tok_s=(q3 - q1) if q1 is not None and q3 is not None else None,
        mean_tok_s=s.mean_tok_s,
        ttft_median_s=s.ttft_median_s, tau=s.tau, per_position_acceptance=s.per_position_acceptance,
        implied_step_ms=s.implied_step_ms, kv_capacity_tokens=kv_capacity,
        kv_capacity_tax=stats.kv_capacity_tax(kv_capacity, nospec_capacity),
        usd_per_m_tokens=stats.cost_per_million_usd(usd_per_hour, s.median_tok_s),
        anchor_median_tok_s=[a for a, _ in anchors], anchor_pct=[p for _, p in anchors],
        leg_medians=[stats.interp_median(speeds(leg)) for leg in legs],
    )


#: every verdict `verdict` writes matches this (tests and readers of pair.json may rely on it)
VERDICT_RE = (r"(?:.+ (faster|slower)(?: than .+)? by \d+\.\d%(?: in .+)? \(95% CI \d+\.\d to \d+\.\d% \1\)"
              r"|no difference resolved: (?:.+ vs .+: )?Δ(?: in .+)? [+-]\d+\.\d% \[[+-]\d+\.\d, [+-]\d+\.\d\] "
              r"\(95% CI includes 0\)"
              r"|no verdict: too few usable requests in an arm \(need ≥ 2 each\))(?: — drift flagged)?")


def verdict(effect: Interval, subject: str = "B", *, than: str | None = None, quantity: str | None = None) -> str:
    """The one verdict format of every comparison the console prints or writes (pair JSON and report.md, the TUI's
    pair and compare views, the HTML reports, the campaign's routing table and net-negative statements):

        resolved     "B faster by 5.8% (95% CI 3.1 to 8.4% faster)", "B slower by 17.1% (95% CI 1.9 to 28.4% slower)"
                     — the size and both bounds are sizes of the same change as the word, never a positive size
                     beside negative bounds;
        unresolved   "no difference resolved: Δ -2.0% [-8.1, +4.2] (95% CI includes 0)" — a signed Δ with signed
                     bounds (`Interval.text`), since the interval holds changes of both signs;
        too few      "no verdict: too few usable requests in an arm (need ≥ 2 each)".

    `than` names the baseline ("d5 faster than nospec by …"); `quantity` names what was compared when it is not the
    median per-request tok/s ("… by 80.1% in aggregate tok/s …")."""
    if effect.point_pct is None or effect.low_pct is None or effect.high_pct is None:
        return "no verdict: too few usable requests in an arm (need ≥ 2 each)"
    what = f" in {quantity}" if quantity else ""
    if effect.resolved:
        if effect.point_pct > 0:
            word, lo, hi = "faster", effect.low_pct, effect.high_pct
        else:
            word, lo, hi = "slower", -effect.high_pct, -effect.low_pct
        vs = f" than {than}" if than else ""
        return f"{subject} {word}{vs} by {abs(effect.point_pct):.1f}%{what} (95% CI {lo:.1f} to {hi:.1f}% {word})"
    who = f"{subject} vs {than}: " if than else ""
    return f"no difference resolved: {who}Δ{what} {effect.text()} (95% CI includes 0)"


def pair_stats(a_legs: Sequence[Sequence[RequestRecord]], b_legs: Sequence[Sequence[RequestRecord]], *,
               order: str = "ABA", seed: int = 0, n_boot: int = N_BOOT, a_name: str = "A", b_name: str = "B",
               a_ndt: int | None = None, b_ndt: int | None = None, a_kv: int | None = None, b_kv: int | None = None,
               nospec_kv: int | None = None, usd_per_hour: float | None = None,
               a_anchors: Sequence[tuple[float | None, float | None]] = (),
               b_anchors: Sequence[tuple[float | None, float | None]] = ()) -> PairStats:
    a = arm_stats(a_name, a_legs, a_ndt, a_kv, nospec_kv, usd_per_hour, a_anchors)
    b = arm_stats(b_name, b_legs, b_ndt, b_kv, nospec_kv, usd_per_hour, b_anchors)
    sa = speeds([r for leg in a_legs for r in leg])
    sb = speeds([r for leg in b_legs for r in leg])
    effect = bootstrap_ratio(sa, sb, seed, n_boot)
    drift = None
    flag = None
    if len(a_legs) >= 2:
        drift = bootstrap_ratio(speeds(a_legs[0]), speeds(a_legs[-1]), seed + 1, n_boot)
        if drift.point_pct is not None and effect.point_pct is not None:
            if abs(drift.point_pct) >= abs(effect.point_pct):
                flag = (f"A drifted {drift.point_pct:+.1f}% between its legs, as large as the effect "
                        f"({effect.point_pct:+.1f}%): the pair cannot separate B from time; repeat it")
            elif drift.resolved and not effect.resolved:
                flag = f"A drifted {drift.text()} between its legs while the effect is unresolved: repeat the pair"
    v = verdict(effect, b_name)
    if flag:
        v += " — drift flagged"
    return PairStats(a=a, b=b, effect=effect, drift=drift, drift_flag=flag, verdict=v, n_boot=n_boot, seed=seed,
                     order=order)


def parse_order(order: str) -> list[str]:
    o = order.strip().upper()
    if o not in ("AB", "ABA", "ABAB", "BAB", "ABBA"):
        raise ValueError(f"--order {order!r}: use AB, ABA (default), ABAB, ABBA or BAB")
    return list(o)
