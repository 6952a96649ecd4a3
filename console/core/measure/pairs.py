"""Same-session A/B pairs (docs/measurement.md#cells-anchors-pairs): the statistics operators can defend.

Arms A and B run on the same node in one session, with the same pinned prompts and protocol, in an order
such as A B A (the repeat of A measures drift). Each leg is one cell; each arm is anchored.

    effect      Δ% = median(B) / median(A) − 1, A = all A legs pooled        (per-request tok/s, interpolated medians)
    CI          log Δ = request part + launch part, n_boot seeded draws of each, 2.5 / 97.5 percentiles:
                  request part  resample the pinned prompts with replacement, the same draw for both arms (every
                                leg ran the same prompts: a prompt's difficulty cancels); rows without prompt ids, or
                                unequal counts per prompt, resample each arm's requests on their own
                  launch part   σ_L · √(k_A + k_B) · t_ν, k = Σ over the arm's launches of (its share of the arm's
                                rows)² (A B A: k_A = ½, k_B = 1), σ_L and ν pooled by `launches.pooled` from the
                                profile's prior, the node's record of earlier pairs and this pair's repeated launches;
                                0 for an interleaved pair (one launch for both arms)
    MDE         the smallest true change this pair resolves in 80% of repeats: half the CI's log width + 0.8416 ×
                the draws' sd (as the half distance of their 15.87 / 84.13 percentiles), as a %
    drift       median(A2) / median(A1) − 1 with its own CI (the launch part of one launch each when they differ);
                flagged when |drift| ≥ |effect| or its CI excludes 0 while the effect's does not
    verdict     "B faster by 5.8% (95% CI 3.1 to 8.4% faster) · MDE 4.2%" when the CI excludes 0, else "no difference
                resolved: …" (`verdict`: the one format every comparison is printed in)

Every figure comes with its n and spread. Everything is recomputable from the legs' rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from console.core.measure import launches as lv, stats
from console.core.measure.records import RequestRecord

N_BOOT = 2000
Z_POWER = 0.8416  #: standard normal quantile of 0.80: the MDE's power


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
    mde_pct: float | None = None
    """Smallest true change this comparison resolves in 80% of repeats (None: not computed, e.g. a campaign cell)."""
    launch_sd_pct: float | None = None
    """σ_L the interval's launch part used (None: request part only — interleaved, or recorded before it existed)."""
    resampled: str = "requests"
    """What the request part resampled: "prompts" (paired across arms) or "requests" (each arm on its own)."""

    @property
    def half_width_pct(self) -> float | None:
        return None if self.low_pct is None or self.high_pct is None else (self.high_pct - self.low_pct) / 2.0

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
    launch: lv.LaunchVariance | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        d["effect"]["resolved"] = self.effect.resolved
        d["effect"]["half_width_pct"] = self.effect.half_width_pct
        d["launch"] = self.launch.to_json() if self.launch is not None else None
        if self.drift is not None:
            d["drift"]["resolved"] = self.drift.resolved
        return d


def speeds(rows: Sequence[RequestRecord]) -> list[float]:
    """Per-request tok/s of the rows the cell statistic includes (ok, not flagged, not warm-up)."""
    return [s for s in (stats.output_tok_s(r) for r in rows if r.ok and not r.flags and not r.warmup) if s is not None]


def bootstrap_ratio(a: Sequence[float], b: Sequence[float], seed: int, n_boot: int = N_BOOT) -> Interval:
    """Δ% = median(b)/median(a) − 1 with a percentile bootstrap 95% CI (requests resampled within each arm, no
    launch part: for cells whose launches the caller accounts for otherwise)."""
    if len(a) < 2 or len(b) < 2:
        return Interval(None, None, None)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    draws = _independent_draws(xa, xb, np.random.default_rng(seed), n_boot)
    return _interval(_point(xa, xb), draws, mde=False)


def _point(xa: np.ndarray, xb: np.ndarray) -> float:
    med_a, med_b = stats.interp_median(list(xa)), stats.interp_median(list(xb))
    assert med_a is not None and med_b is not None  # two values each at least
    return 100.0 * (med_b / med_a - 1.0)


def _independent_draws(xa: np.ndarray, xb: np.ndarray, rng: np.random.Generator, n_boot: int) -> np.ndarray:
    """log(median(b*) / median(a*)) with each arm's requests resampled on their own."""
    ia = rng.integers(0, len(xa), size=(n_boot, len(xa)))
    ib = rng.integers(0, len(xb), size=(n_boot, len(xb)))
    return np.log(np.percentile(xb[ib], 50, axis=1) / np.percentile(xa[ia], 50, axis=1))


def _paired_draws(a_rows: Sequence[RequestRecord], b_rows: Sequence[RequestRecord], rng: np.random.Generator,
                  n_boot: int) -> np.ndarray | None:
    """log(median(b*) / median(a*)) with the prompts resampled once for both arms; None unless both arms ran the
    same prompts the same number of times each."""
    ga, gb = lv.by_prompt(a_rows), lv.by_prompt(b_rows)
    if not ga or not gb or set(ga) != set(gb) or len(ga) < 2:
        return None
    if len({len(v) for v in ga.values()}) != 1 or len({len(v) for v in gb.values()}) != 1:
        return None
    ids = sorted(ga)
    xa, xb = np.array([ga[i] for i in ids]), np.array([gb[i] for i in ids])
    idx = rng.integers(0, len(ids), size=(n_boot, len(ids)))
    ma = np.percentile(xa[idx].reshape(n_boot, -1), 50, axis=1)
    mb = np.percentile(xb[idx].reshape(n_boot, -1), 50, axis=1)
    return np.log(mb / ma)


def _interval(point: float, draws: np.ndarray, *, mde: bool = True, launch_sd_pct: float | None = None,
              resampled: str = "requests") -> Interval:
    lo, hi = np.percentile(100.0 * np.expm1(draws), [2.5, 97.5])  # percentiles of Δ% itself (as recorded before)
    m = None
    if mde:
        q = np.percentile(draws, [2.5, 15.87, 84.13, 97.5])
        m = 100.0 * math.expm1((q[3] - q[0]) / 2.0 + Z_POWER * (q[2] - q[1]) / 2.0)
    return Interval(float(point), float(lo), float(hi), mde_pct=m, launch_sd_pct=launch_sd_pct, resampled=resampled)


def launch_share(launch_ids: Sequence[int], sizes: Sequence[int]) -> float:
    """k = Σ over an arm's launches of (that launch's share of the arm's rows)²: the arm level's launch variance in
    units of σ_L² (two launches, equal legs: ½)."""
    total = sum(sizes)
    if total == 0:
        return 0.0
    per: dict[int, int] = {}
    for lid, n in zip(launch_ids, sizes, strict=True):
        per[lid] = per.get(lid, 0) + n
    return sum((n / total) ** 2 for n in per.values())


def launch_part(launch: lv.LaunchVariance, k: float, seed: int, size: int) -> np.ndarray:
    """The launch part of a comparison's log-ratio draws: σ_L · √k · t_ν (k = `launch_share` of both arms; two
    single-launch cells: 2), seeded apart from the request part's draws. Pairs and campaign cells add the same."""
    t = np.random.default_rng(seed + 7919).standard_t(max(launch.df, 1.0), size=size)
    return launch.sd_log * math.sqrt(k) * t


def compare_legs(a_legs: Sequence[Sequence[RequestRecord]], b_legs: Sequence[Sequence[RequestRecord]], seed: int,
                 n_boot: int = N_BOOT, *, launch: lv.LaunchVariance | None = None,
                 a_launches: Sequence[int] = (), b_launches: Sequence[int] = (), paired: bool = True) -> Interval:
    """Δ% of B's pooled legs against A's with its 95% CI: the request part (prompts paired when `paired` and
    possible) plus, with `launch`, the launch part of the legs' launches (`a_launches[j]`: the launch id of A's leg
    j; a launch id shared by an A and a B leg — an interleaved pair — cancels)."""
    a_rows = [r for leg in a_legs for r in leg]
    b_rows = [r for leg in b_legs for r in leg]
    xa, xb = np.asarray(speeds(a_rows), dtype=float), np.asarray(speeds(b_rows), dtype=float)
    if len(xa) < 2 or len(xb) < 2:
        return Interval(None, None, None)
    rng = np.random.default_rng(seed)
    draws = _paired_draws(a_rows, b_rows, rng, n_boot) if paired else None
    resampled = "prompts" if draws is not None else "requests"
    if draws is None:
        draws = _independent_draws(xa, xb, rng, n_boot)
    sd = None
    if launch is not None:
        na, nb = [len(speeds(leg)) for leg in a_legs], [len(speeds(leg)) for leg in b_legs]
        ia, ib = list(a_launches) or list(range(len(a_legs))), list(b_launches) or [-1 - j for j in range(len(b_legs))]
        shared = set(ia) & set(ib)
        k = 0.0 if shared else launch_share(ia, na) + launch_share(ib, nb)
        if k > 0:
            draws = draws + launch_part(launch, k, seed, len(draws))
            sd = launch.sd_pct
    return _interval(_point(xa, xb), draws, launch_sd_pct=sd, resampled=resampled)


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
              r"|no verdict: too few usable requests in an arm \(need ≥ 2 each\))(?: · MDE \d+\.\d%)?"
              r"(?: — drift flagged)?")


def verdict(effect: Interval, subject: str = "B", *, than: str | None = None, quantity: str | None = None) -> str:
    """The one verdict format of every comparison the console prints or writes (pair JSON and report.md, the TUI's
    pair and compare views, the HTML reports, the campaign's routing table and net-negative statements):

        resolved     "B faster by 5.8% (95% CI 3.1 to 8.4% faster)", "B slower by 17.1% (95% CI 1.9 to 28.4% slower)"
                     — the size and both bounds are sizes of the same change as the word, never a positive size
                     beside negative bounds;
        unresolved   "no difference resolved: Δ -2.0% [-8.1, +4.2] (95% CI includes 0)" — a signed Δ with signed
                     bounds (`Interval.text`), since the interval holds changes of both signs;
        too few      "no verdict: too few usable requests in an arm (need ≥ 2 each)";
        MDE          " · MDE 4.2%" ends a verdict whose interval carries one (every pair): the smallest true change
                     the comparison resolves in 80% of repeats, so "no difference resolved" says how small a change
                     it could have missed.

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
        out = f"{subject} {word}{vs} by {abs(effect.point_pct):.1f}%{what} (95% CI {lo:.1f} to {hi:.1f}% {word})"
    else:
        who = f"{subject} vs {than}: " if than else ""
        out = f"no difference resolved: {who}Δ{what} {effect.text()} (95% CI includes 0)"
    return out + (f" · MDE {effect.mde_pct:.1f}%" if effect.mde_pct is not None else "")


@dataclass
class LaunchPlan:
    """Which launch each leg ran in and what the pair knows of the node's launch-to-launch sd (`launches.pooled`):
    the profile's prior and the node's record of earlier pairs. A launch id shared by A and B legs is one server
    serving both (an interleaved pair)."""
    a_launches: Sequence[int]
    b_launches: Sequence[int]
    a_anchor_rows: Sequence[Sequence[RequestRecord] | None] = ()
    """Per A leg, its launch's anchor rows when the leg was the first of its launch (else None)."""
    b_anchor_rows: Sequence[Sequence[RequestRecord] | None] = ()
    prior_sd_pct: float = lv.DEFAULT_PRIOR_SD_PCT
    prior_df: float = lv.DEFAULT_PRIOR_DF
    record: Sequence[lv.LaunchReading] = ()


def launches_of(legs: Sequence[Sequence[RequestRecord]], launch_ids: Sequence[int],
                anchor_rows: Sequence[Sequence[RequestRecord] | None]
                ) -> tuple[list[list[RequestRecord]], list[Sequence[RequestRecord] | None]]:
    """One arm's rows per launch (its legs in that launch pooled, launches in first-seen order) and each launch's
    anchor rows (from the launch's first anchored leg, else None)."""
    order = list(dict.fromkeys(launch_ids))
    rows = [[r for leg, i in zip(legs, launch_ids, strict=True) if i == lid for r in leg] for lid in order]
    anchors = [next((a for a, i in zip(anchor_rows, launch_ids, strict=False) if i == lid and a is not None), None)
               for lid in order]
    return rows, anchors


def pair_launch_variance(a_legs: Sequence[Sequence[RequestRecord]], b_legs: Sequence[Sequence[RequestRecord]],
                         plan: LaunchPlan, seed: int) -> lv.LaunchVariance:
    """σ_L for this pair: the plan's prior and record pooled with this pair's own repeated launches."""
    arms = {}
    for name, legs, ids, anc in (("A", a_legs, plan.a_launches, plan.a_anchor_rows),
                                 ("B", b_legs, plan.b_launches, plan.b_anchor_rows)):
        if set(ids) & set(plan.b_launches if name == "A" else plan.a_launches):
            continue  # a launch serving both arms: no repeated launch of one arm alone
        arms[name] = launches_of(legs, ids, list(anc) or [None] * len(legs))
    own = lv.reading(arms, seed)
    return lv.pooled(list(plan.record) + ([own] if own else []), plan.prior_sd_pct, plan.prior_df)


def pair_stats(a_legs: Sequence[Sequence[RequestRecord]], b_legs: Sequence[Sequence[RequestRecord]], *,
               order: str = "ABA", seed: int = 0, n_boot: int = N_BOOT, a_name: str = "A", b_name: str = "B",
               a_ndt: int | None = None, b_ndt: int | None = None, a_kv: int | None = None, b_kv: int | None = None,
               nospec_kv: int | None = None, usd_per_hour: float | None = None,
               a_anchors: Sequence[tuple[float | None, float | None]] = (),
               b_anchors: Sequence[tuple[float | None, float | None]] = (),
               launches: LaunchPlan | None = None) -> PairStats:
    """The pair's statistics. With `launches` (every pair the console records since schema 2) the interval holds
    the launch part and the prompts are paired; without, the request-only interval of schema-1 pair documents,
    recomputed exactly as recorded."""
    a = arm_stats(a_name, a_legs, a_ndt, a_kv, nospec_kv, usd_per_hour, a_anchors)
    b = arm_stats(b_name, b_legs, b_ndt, b_kv, nospec_kv, usd_per_hour, b_anchors)
    var = None
    if launches is None:
        sa = speeds([r for leg in a_legs for r in leg])
        sb = speeds([r for leg in b_legs for r in leg])
        effect = bootstrap_ratio(sa, sb, seed, n_boot)
    else:
        var = pair_launch_variance(a_legs, b_legs, launches, seed)
        effect = compare_legs(a_legs, b_legs, seed, n_boot, launch=var, a_launches=launches.a_launches,
                              b_launches=launches.b_launches)
    drift = None
    flag = None
    if len(a_legs) >= 2:
        if launches is None:
            drift = bootstrap_ratio(speeds(a_legs[0]), speeds(a_legs[-1]), seed + 1, n_boot)
        else:
            ids = launches.a_launches
            drift = compare_legs([a_legs[0]], [a_legs[-1]], seed + 1, n_boot, launch=var, a_launches=[ids[0]],
                                 b_launches=[ids[-1]])
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
                     order=order, launch=var)


def launch_ids(order: str | Sequence[str], interleaved: bool = False) -> tuple[list[int], list[int]]:
    """Launch ids of the A legs and the B legs of a leg order run with relaunches: a leg starts a new launch when
    its arm differs from the leg before (A B B A: three launches); interleaved: one launch for all."""
    ids: dict[str, list[int]] = {"A": [], "B": []}
    cur, prev = -1, None
    for arm in order:
        if interleaved:
            cur = 0
        elif arm != prev:
            cur += 1
        ids[arm].append(cur)
        prev = arm
    return ids["A"], ids["B"]


MAX_LEGS = 15


def parse_order(order: str) -> list[str]:
    """A leg order: A and B only, both present, at most MAX_LEGS legs (AB, ABA, ABAB, ABBA, BAB, ABABA, …)."""
    o = order.strip().upper()
    if not o or set(o) - {"A", "B"} or "A" not in o or "B" not in o or len(o) > MAX_LEGS:
        raise ValueError(f"--order {order!r}: use A and B legs, both present, at most {MAX_LEGS} (e.g. AB, ABA "
                         f"(default), ABAB, ABBA or BAB)")
    return list(o)


def interval_notes(ps: PairStats, sequential: dict | None = None) -> list[str]:
    """What a pair's interval is made of and the smallest change it resolves, in the words every pair view uses
    (report.md, the TUI's pair card, the HTML report)."""
    e = ps.effect
    out = []
    if e.mde_pct is not None:
        out.append(f"MDE {e.mde_pct:.1f}%: a true change of {e.mde_pct:.1f}% or more is resolved by 80% of pairs run "
                   f"like this one (same n, order and spread); a smaller one may read as no difference")
    how = ("the pinned prompts resampled once for both arms" if e.resampled == "prompts"
           else "each arm's requests resampled on their own")
    if ps.launch is not None and e.launch_sd_pct is not None:
        out.append(f"95% CI: {how}, plus the launch part: {ps.launch.text()}")
    elif ps.launch is not None:
        out.append(f"95% CI: {how}; no launch part (both arms on one server)")
    else:
        out.append(f"95% CI: {how} only (recorded before pairs held a launch part: schema 1)")
    if sequential:
        hw = ", ".join("—" if w is None else f"±{w:.1f}%" for w in sequential.get("half_widths_pct", []))
        if "target_mde_pct" in sequential:
            mdes = ", ".join("—" if w is None else f"{w:.1f}%" for w in sequential.get("mdes_pct", []))
            goal, seen = f"an MDE of {sequential['target_mde_pct']:g}%", f"MDEs {mdes}"
        else:
            goal, seen = f"±{sequential['target_half_width_pct']:g}%", f"half-widths {hw}"
        out.append(f"sequential to {goal}: {sequential.get('stopped', '?')} after "
                   f"{sequential.get('rounds_added', 0)} added B A round(s) ({seen})")
    return out
