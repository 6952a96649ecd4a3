"""Launch-to-launch variation of a node (docs/measurement.md#launch-variance): how much one launch of an arm reads
faster or slower than another launch of the same arm, with nothing changed but the relaunch.

Every arm change of a pair is a relaunch, so the difference of two arms holds the two launches' own offsets on
top of the requests' spread. The model, on the log of a leg's median per-request tok/s:

    level(leg j) = μ(arm of j) + L(launch of j) + w_j         L ~ N(0, σ_L²) per launch,  w_j: the leg's sampling error

A pair cannot estimate σ_L alone — A B A holds one repeated launch (one degree of freedom) — so the estimate pools:

    prior       the node's stated launch sd (`[node] launch_sd_pct` / `launch_sd_df` in the profile; default
                DEFAULT_PRIOR_SD_PCT with DEFAULT_PRIOR_DF degrees of freedom: the record soon outweighs it)
    record      every earlier pair on the same node (pair.json files under the sessions root with the same node key):
                each holds its own reading
    this pair   its own reading: every arm launched ≥ 2 times gives (launches − 1) degrees of freedom

A reading of one arm with launches j = 1..m reads each launch's level twice: the leg's log median y_j and, when the
launch was anchored, the anchor's log median a_j (the same launch, another workload: its arm mean differs, its
offset L_j does not). Both are combined per launch with weights inverse to their mean sampling variances
(x_j = w·y_j + (1 − w)·a_j), and

    excess = Σ_j (x_j − x̄)² − Σ_j var(x_j − x̄)        (E[excess] = (m − 1) σ_L²: the sampling part removed)
    σ_L²   = max(FLOOR², (ν0 σ0² + Σ excess) / (ν0 + Σ df))    with ν = ν0 + Σ df degrees of freedom

Sampling variances are seeded bootstraps of the launches' log medians: the pinned prompts resampled once for all
launches of the arm (a prompt's difficulty is the same in every launch and cancels in x_j − x̄)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from console.core.measure import stats
from console.core.measure.records import RequestRecord

#: the prior launch sd: the reference report's four readings of one cell on one node (EAGLE-3 d6, tool, 10k:
#: 487.2 in the pair's session and re-runs 511.6 / 484.4 / 474.2 tok/s) have an sd of 3.2% — with their 3 degrees
#: of freedom, so a node's own record outweighs it after a few pairs
DEFAULT_PRIOR_SD_PCT = 3.2
DEFAULT_PRIOR_DF = 3
#: no estimate goes below this (a record of bit-identical launches still leaves the request spread to the bootstrap)
FLOOR_SD_PCT = 0.1
N_BOOT_LEVEL = 400


@dataclass
class LaunchReading:
    """What one pair's repeated launches say about σ_L²: `excess` (log units²) over `df` degrees of freedom."""
    source: str
    excess: float
    df: int
    launches: dict[str, int] = field(default_factory=dict)  #: launches per arm that gave the reading

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> LaunchReading:
        return cls(source=str(d["source"]), excess=float(d["excess"]), df=int(d["df"]),
                   launches={str(k): int(v) for k, v in (d.get("launches") or {}).items()})


@dataclass
class LaunchVariance:
    """The pooled launch sd a pair's interval uses, and where it came from."""
    sd_pct: float  #: σ_L as a % of the level (100 · σ_L on the log scale)
    df: float  #: ν = prior df + the readings' df
    prior_sd_pct: float
    prior_df: float
    readings: list[LaunchReading] = field(default_factory=list)

    @property
    def sd_log(self) -> float:
        return self.sd_pct / 100.0

    def text(self) -> str:
        own = sum(r.df for r in self.readings if r.source == THIS_PAIR)
        rec = sum(r.df for r in self.readings if r.source != THIS_PAIR)
        return (f"launch sd {self.sd_pct:.2f}% (ν {self.df:g}: prior {self.prior_sd_pct:g}% ×{self.prior_df:g}, "
                f"node record {rec}, this pair {own})")

    def to_json(self) -> dict:
        return {"sd_pct": self.sd_pct, "df": self.df, "prior_sd_pct": self.prior_sd_pct, "prior_df": self.prior_df,
                "readings": [r.to_json() for r in self.readings]}


THIS_PAIR = "this pair"


def prior_or_default(prior: tuple[float | None, float | None] | None) -> tuple[float, float]:
    """A profile's (sd %, df) prior with the defaults where unset."""
    sd, df = prior if prior is not None else (None, None)
    return (DEFAULT_PRIOR_SD_PCT if sd is None else float(sd), DEFAULT_PRIOR_DF if df is None else float(df))


def pooled(readings: Sequence[LaunchReading], prior_sd_pct: float = DEFAULT_PRIOR_SD_PCT,
           prior_df: float = DEFAULT_PRIOR_DF) -> LaunchVariance:
    """σ_L from a prior and readings: (ν0 σ0² + Σ excess) / (ν0 + Σ df), floored at FLOOR_SD_PCT."""
    s0 = prior_sd_pct / 100.0
    num = prior_df * s0 * s0 + sum(r.excess for r in readings)
    den = prior_df + sum(r.df for r in readings)
    var = num / den if den > 0 else s0 * s0
    sd = max(FLOOR_SD_PCT / 100.0, math.sqrt(max(0.0, var)))
    return LaunchVariance(sd_pct=100.0 * sd, df=float(den), prior_sd_pct=prior_sd_pct, prior_df=prior_df,
                          readings=list(readings))


def by_prompt(rows: Sequence[RequestRecord]) -> dict[str, list[float]] | None:
    """The included rows' per-request tok/s by prompt id (None if an included row has no prompt id)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        s = stats.output_tok_s(r) if r.ok and not r.flags and not r.warmup else None
        if s is None:
            continue
        if r.prompt_id is None:
            return None
        out.setdefault(r.prompt_id, []).append(s)
    return out


def _matrix(groups: Sequence[dict[str, list[float]] | None]) -> tuple[list[str], list[np.ndarray]] | None:
    """(prompt ids, per cell a prompts × repeats array) when every cell ran the same prompts, each cell the same
    number of times per prompt; else None."""
    if any(not g for g in groups):
        return None
    ids = sorted(groups[0])  # type: ignore[arg-type]  # all present (checked above)
    out = []
    for g in groups:
        assert g is not None
        if sorted(g) != ids or len({len(v) for v in g.values()}) != 1:
            return None
        out.append(np.array([g[i] for i in ids]))
    return ids, out


def levels(cells: Sequence[Sequence[RequestRecord]], seed: int, n_boot: int = N_BOOT_LEVEL
           ) -> tuple[np.ndarray, float] | None:
    """(log interpolated median of each cell, Σ_j sampling variance of (level_j − mean level)) for cells of one arm
    in different launches. The sampling variance is a seeded bootstrap that resamples the prompts once for every
    cell when they ran the same prompts (a prompt's difficulty is shared by the launches and cancels in their
    differences), else each cell's requests on their own. None when a cell has fewer than 2 usable requests."""
    groups = [by_prompt(c) for c in cells]
    flat = [np.array([v for vs in (g or {}).values() for v in vs]) if g is not None else
            np.array([s for s in (stats.output_tok_s(r) for r in c if r.ok and not r.flags and not r.warmup)
                      if s is not None]) for g, c in zip(groups, cells, strict=True)]
    if any(len(x) < 2 for x in flat):
        return None
    lv = np.log([np.percentile(x, 50) for x in flat])
    rng = np.random.default_rng(seed)
    m = _matrix(groups)
    if m is not None:
        ids, arrays = m
        idx = rng.integers(0, len(ids), size=(n_boot, len(ids)))
        draws = np.stack([np.log(np.percentile(a[idx].reshape(n_boot, -1), 50, axis=1)) for a in arrays], axis=1)
    else:
        draws = np.stack([np.log(np.percentile(x[rng.integers(0, len(x), size=(n_boot, len(x)))], 50, axis=1))
                          for x in flat], axis=1)
    dev = draws - draws.mean(axis=1, keepdims=True)
    return lv, float(dev.var(axis=0, ddof=1).sum())


def arm_excess(legs: Sequence[Sequence[RequestRecord]], anchors: Sequence[Sequence[RequestRecord] | None],
               seed: int) -> tuple[float, int] | None:
    """(excess, df) of one arm's launches: `legs[j]` the rows measured in launch j, `anchors[j]` its anchor's rows
    (None: not anchored; anchors are used only when every launch has one). None with fewer than 2 launches."""
    m = len(legs)
    if m < 2:
        return None
    got = levels(legs, seed)
    if got is None:
        return None
    y, vy = got
    x, vx = y, vy
    if all(a is not None for a in anchors) and len(anchors) == m:
        ga = levels([a for a in anchors if a is not None], seed + 1)
        if ga is not None:
            a, va = ga
            w = (1.0 / max(vy, 1e-12)) / (1.0 / max(vy, 1e-12) + 1.0 / max(va, 1e-12))
            x, vx = w * y + (1.0 - w) * a, w * w * vy + (1.0 - w) ** 2 * va
    ss = float(np.sum((x - x.mean()) ** 2))
    return ss - vx, m - 1


def reading(arms: Mapping[str, tuple[Sequence[Sequence[RequestRecord]], Sequence[Sequence[RequestRecord] | None]]],
            seed: int = 0, source: str = THIS_PAIR) -> LaunchReading | None:
    """One pair's reading: `arms[name]` = (per launch of that arm its measured rows, per launch its anchor's rows
    or None). None when no arm was launched twice."""
    excess, df, launches = 0.0, 0, {}
    for k, (name, (legs, anchors)) in enumerate(sorted(arms.items())):
        got = arm_excess(legs, anchors, seed + 101 * k)
        if got is not None:
            excess += got[0]
            df += got[1]
            launches[name] = len(legs)
    return LaunchReading(source, excess, df, launches) if df else None
