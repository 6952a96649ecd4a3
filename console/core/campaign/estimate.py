"""A campaign's estimate before it runs: each cell's wall time on this machine and node time on the modelled node
(from recorded cells, the forecast, or the stated assumptions), launches and cost."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.core.campaign.plan import CellPlan, Plan
from console.core.campaign.recorded import _same_arm, recorded_cells
from console.core.campaign.refusals import max_prompt_tokens
from console.core.launch.profile import Profile

# --- the estimate ----------------------------------------------------------------------------------

ASSUMED_TOK_S = 150.9
"""Per-stream rate assumed for a cell nothing was measured for: the reference node's no-speculation single-stream
rate (docs/reference-deployment.md §3); divided by (1 + (c − 1)/8) at concurrency c."""
ASSUMED_TTFT_MS_PER_PROMPT_TOKEN = 0.024
ASSUMED_LAUNCH_S = {"sim": 10.0, "real": 900.0}
"""Wall seconds of a launch never recorded in launch history: the twin's compressed start; a 1T model's cold start."""
TWIN_SCALE_STREAMS = 64
"""Time scale × streams above which a time-scaled twin's cells measure the client (and a shared CPU), not the node:
the reference campaign at ×8 agreed with ×2 within 10% at 1 stream, 17% at 8, and not at 32 (docs/campaigns.md)."""
MODELLED_LAUNCH_S = 720.0
"""Node seconds a launch costs where the node is modelled (the twin's ~12-minute modelled cold start)."""


@dataclass
class CellEstimate:
    key: str
    node_s: float
    """Node seconds of measuring (modelled node's on the twin)."""
    source: str
    """'measured' (a recorded cell of the same arm, set, concurrency and output length), 'forecast' or 'assumed'."""
    per_stream_tok_s: float


@dataclass
class Estimate:
    cells: int
    launches: int
    relaunches: int
    nodes: int
    cell_estimates: list[CellEstimate]
    launch_wall_s: dict[str, float]
    """Per arm: wall seconds of its launch (launch history, else assumed)."""
    launch_source: dict[str, str]
    wall_s: float
    """Wall clock here: nodes in parallel, cells ÷ time scale on the twin, launches as history says."""
    node_s: float
    """Node time billed (all nodes): measuring + launches."""
    usd: float | None
    usd_per_hour: dict[str, float | None]
    time_scale: float

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict
        return asdict(self)

    def sources(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cell_estimates:
            out[c.source] = out.get(c.source, 0) + 1
        return out


def _prior(cells: list[tuple[Path, dict[str, Any]]], p: Profile, cp: CellPlan) -> tuple[float, float] | None:
    """(per-request E2E s, per-stream tok/s) of the newest recorded complete cell of this arm, set, concurrency
    and output length, from its summary (modelled node's figures)."""
    import json
    for d, m in reversed(cells):
        if not m.get("complete") or not _same_arm(m, p):
            continue
        ps = m["prompt_set"] if isinstance(m.get("prompt_set"), dict) else {}
        pr = m["protocol"] if isinstance(m.get("protocol"), dict) else {}
        if ps.get("name") != cp.prompt_set or pr.get("concurrency") != cp.concurrency \
                or pr.get("max_tokens") != cp.protocol.max_tokens:
            continue
        try:
            s = json.loads((d / "summary.json").read_text())
        except (OSError, ValueError):
            continue
        if s.get("e2e_median_s") and s.get("median_tok_s"):
            return float(s["e2e_median_s"]), float(s["median_tok_s"])
    return None


def _forecast_prior(cells: list[tuple[Path, dict[str, Any]]], p: Profile, cp: CellPlan) -> tuple[float, float] | None:
    """(per-request E2E s, per-stream tok/s) forecast for an arm never measured at this workload from the newest
    recorded complete cell of another depth of its family (same draft model, KV dtype, model, set, concurrency
    and output length): the one forecast (`sessions.forecasts.cell_forecast`)."""
    import json

    from console.core.arm import Arm
    from console.core.sessions.forecasts import cell_forecast
    arm = p.arm
    if not arm.speculative or arm.depth is None or arm.adaptive or (not arm.is_block and (arm.topk or 1) != 1):
        return None
    for d, m in reversed(cells):
        if not m.get("complete") or not isinstance(m.get("arm"), dict):
            continue
        b = Arm.from_json(m["arm"])
        ps = m["prompt_set"] if isinstance(m.get("prompt_set"), dict) else {}
        pr = m["protocol"] if isinstance(m.get("protocol"), dict) else {}
        if b.family != arm.family or b.kv_dtype != arm.kv_dtype or b.draft_model != arm.draft_model \
                or b.depth in (None, arm.depth) or b.adaptive or ps.get("name") != cp.prompt_set \
                or pr.get("concurrency") != cp.concurrency or pr.get("max_tokens") != cp.protocol.max_tokens:
            continue
        try:
            pt = cell_forecast(d, [arm.depth]).forecast.at(arm.depth)
            ttft = json.loads((d / "summary.json").read_text()).get("ttft_median_s") or 0.0
        except (ValueError, OSError):
            continue
        if pt is not None and pt.tok_s > 0:
            return float(ttft) + (cp.protocol.max_tokens - 1) / pt.tok_s, pt.tok_s
    return None


def estimate(plan: Plan, *, sim: bool, time_scale: float | None = None, sessions_root: Path | None = None
             ) -> Estimate:
    from console.core.launch.history import launch_history
    scale = time_scale if (sim and time_scale) else 1.0
    cells = recorded_cells(sessions_root) if sessions_root is not None else []
    ptok: dict[str, int] = {}
    ests: list[CellEstimate] = []
    node_wall: dict[str, float] = {}
    node_s = 0.0
    launch_wall: dict[str, float] = {}
    launch_src: dict[str, str] = {}
    usd_h: dict[str, float | None] = {}
    usd = 0.0
    any_price = False
    for node, arms in plan.schedule():
        wall = 0.0
        n_node_s = 0.0
        nd = plan.node(node)
        for a, cps in arms:
            prof = nd.apply(a.profile)
            prof = prof.with_sim() if sim else prof
            hist = launch_history(sessions_root).get(prof) if sessions_root is not None else None
            lw = float(hist["total_s"]) if hist and hist.get("total_s") else ASSUMED_LAUNCH_S["sim" if sim else "real"]
            launch_wall[a.name] = lw
            launch_src[a.name] = "launch history" if hist else "assumed"
            wall += lw
            n_node_s += MODELLED_LAUNCH_S if sim else lw
            # the anchor: 8 × 128 tokens at one stream
            anchor_s = 8 * (128 / ASSUMED_TOK_S + 0.05)
            wall += anchor_s / scale
            n_node_s += anchor_s
            for cp in cps:
                pr = _prior(cells, a.profile, cp)
                fp = None if pr is not None else _forecast_prior(cells, a.profile, cp)
                if pr is not None:
                    e2e, rate = pr
                    src = "measured"
                elif fp is not None:
                    e2e, rate = fp
                    src = "forecast"
                else:
                    if cp.prompt_set not in ptok:
                        try:
                            ptok[cp.prompt_set] = max_prompt_tokens(cp.prompt_set)
                        except ValueError:
                            ptok[cp.prompt_set] = 0
                    rate = ASSUMED_TOK_S / (1 + (cp.concurrency - 1) / 8)
                    e2e = ptok[cp.prompt_set] * ASSUMED_TTFT_MS_PER_PROMPT_TOKEN / 1000 + \
                        cp.protocol.max_tokens / rate
                    src = "assumed"
                waves = math.ceil(cp.protocol.n / cp.concurrency)
                s = waves * e2e + cp.protocol.warmup * min(e2e, 64 / rate + 0.5)
                ests.append(CellEstimate(cp.key, s, src, rate))
                wall += s / scale
                n_node_s += s
        node_wall[node] = wall
        node_s += n_node_s
        price = next((nd.usd_per_hour for _ in [0] if nd.usd_per_hour is not None), None)
        if price is None and arms:
            price = arms[0][0].profile.node_usd_per_hour
        usd_h[node] = price
        if price is not None:
            usd += price * n_node_s / 3600
            any_price = True
    return Estimate(cells=len(ests), launches=plan.launches(), relaunches=plan.relaunches(), nodes=len(plan.nodes),
                    cell_estimates=ests, launch_wall_s=launch_wall, launch_source=launch_src,
                    wall_s=max(node_wall.values(), default=0.0), node_s=node_s, usd=usd if any_price else None,
                    usd_per_hour=usd_h, time_scale=scale)
