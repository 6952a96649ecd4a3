"""The campaign analysis on hand-made campaign folders: the routing table's decisions (a winner, "no difference
resolved", a cross-node comparison refused as uncontrolled), the net-negative concurrency of a drafter against
no-spec, and a depth ladder with its forecast curve from the shallowest depth."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from console.core.arm import Arm
from console.core.campaign.analysis import NEEDS_PAIR, NO_DIFFERENCE, analyse, bootstrap_aggregate, ttft_outliers
from console.core.campaign.journal import CAMPAIGN_FILE, SAMPLES_FILE
from console.core.measure.forecast import extend_positions
from console.core.measure.records import RequestRecord
from console.core.measure.pairs import Interval, verdict
from console.core.sessions.store import write_json

ARMS = {
    "k26-nospec": Arm(),
    "k26-eagle3-d3": Arm.from_drafter("eagle3", model="e3", steps=3, topk=1, draft_tokens=4),
    "k26-eagle3-d5": Arm.from_drafter("eagle3", model="e3", steps=5, topk=1, draft_tokens=6),
    "k26-eagle3-d7": Arm.from_drafter("eagle3", model="e3", steps=7, topk=1, draft_tokens=8),
}
P_CHAIN = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
"""Per-position acceptance the synthetic drafter cells share (their histograms are built from it)."""


def histogram(k: int, steps: int = 100) -> list[int]:
    """A chain histogram over `steps` verify steps whose per-position acceptance is P_CHAIN[:k]."""
    p = [1.0] + P_CHAIN[:k] + [0.0]
    return [int(round(steps * (p[i] - p[i + 1]))) for i in range(k + 1)]


def row(i: int, tok_s: float, *, ct: int = 257, ttft: float = 0.25, hist=None, prefix="r") -> dict:
    rec = RequestRecord(request_id=f"{prefix}-{i}#{i}", t_first_s=ttft, t_last_s=ttft + (ct - 1) / tok_s,
                        t_end_s=ttft + (ct - 1) / tok_s + 0.001, first_chunk_tokens=1, completion_tokens=ct,
                        max_tokens=ct, spec_histogram=hist, wall_start=1000.0 + i)
    return rec.to_json()


class Builder:
    def __init__(self, root: Path, nodes=("node",)):
        self.dir = root / "campaign"
        self.dir.mkdir()
        self.nodes = list(nodes)
        self.cells: list[dict] = []
        self.arms: dict[str, set[str]] = {}
        self.n = {n: 0 for n in nodes}

    def _cell_dir(self, node: str, slug: str) -> Path:
        self.n[node] += 1
        d = self.dir / f"node-{node}" / f"cell-{self.n[node]:03d}-{slug}"
        d.mkdir(parents=True)
        return d

    def anchor(self, node: str, arm: str, tok_s: float) -> None:
        d = self._cell_dir(node, "anchor")
        write_json(d / "manifest.json", {"label": "anchor", "profile": arm, "complete": True,
                                         "arm": ARMS[arm].to_json()})
        (d / "rows.jsonl").write_text("".join(json.dumps(row(i, tok_s + i % 3)) + "\n" for i in range(8)))

    def cell(self, node: str, arm: str, ps: str, conc: int, speeds, *, ct: int = 257, kv=(0.5, 0.7), ttft=0.25):
        self.arms.setdefault(arm, set()).add(node)
        key = f"{arm}@{node}/{ps}/c{conc}"
        a = ARMS[arm]
        d = self._cell_dir(node, key.replace("/", "-").replace("@", "-"))
        spec = {"algorithm": a.algorithm, "num_steps": a.steps, "topk": a.topk, "num_draft_tokens": a.draft_tokens,
                "draft_model_path": a.draft_model} if a.speculative else {"algorithm": None}
        write_json(d / "manifest.json", {
            "label": f"sweep {key}", "profile": arm, "complete": True, "arm": a.to_json(), "speculative": spec,
            "kv_capacity_tokens": 484_000 if not a.speculative else 336_000, "node_usd_per_hour": 24.0,
            "prompt_set": {"name": ps, "sha256": "f" * 64}, "simulated": True, "sim_time_scale": 1.0,
            "protocol": {"prompt_set": ps, "n": len(speeds), "max_tokens": ct, "temperature": 0.6,
                         "concurrency": conc, "endpoint": "chat", "ignore_eos": True}})
        hist = histogram(a.steps) if a.speculative else None
        (d / "rows.jsonl").write_text("".join(json.dumps(row(i, s, ct=ct, hist=hist, ttft=ttft)) + "\n"
                                              for i, s in enumerate(speeds)))
        samples = [{"t": 1.0 + i, "token_usage": kv[0] if i else kv[1], "num_running_reqs": conc,
                    "num_queue_reqs": 0, "queue_time_sum_s": 0.1 * i, "queue_time_count": 2 * i} for i in range(4)]
        (d / SAMPLES_FILE).write_text("".join(json.dumps(x) + "\n" for x in samples))
        self.cells.append({"key": key, "arm": arm, "node": node, "domain": ps.split("-")[0],
                           "context": "short" if ps.endswith("-short") else "10k", "prompt_set": ps,
                           "concurrency": conc, "n": len(speeds), "max_tokens": ct})

    def finish(self) -> Path:
        write_json(self.dir / CAMPAIGN_FILE, {
            "schema": 1, "name": "synthetic", "simulated": True, "sim_time_scale": 1.0, "kv_policy": "refuse",
            "nodes": [{"name": n, "usd_per_hour": 24.0} for n in self.nodes],
            "arms": [{"name": a, "nodes": sorted(ns), "arm": ARMS[a].to_json(), "label": ARMS[a].label()}
                     for a, ns in self.arms.items()],
            "cells": self.cells})
        return self.dir


def noisy(mean: float, sd: float, n: int, seed: int) -> list[float]:
    return list(np.random.default_rng(seed).normal(mean, sd, n))


def route(res, ps, conc=1):
    return next(r for r in res["routing"] if r["prompt_set"] == ps and r["concurrency"] == conc)


def test_a_resolved_winner_on_one_node_with_its_figures(tmp_path):
    b = Builder(tmp_path)
    b.anchor("node", "k26-nospec", 160)
    b.cell("node", "k26-nospec", "tool", 1, noisy(150, 4, 16, 1))
    b.anchor("node", "k26-eagle3-d5", 300)
    b.cell("node", "k26-eagle3-d5", "tool", 1, noisy(450, 8, 16, 2))
    r = route(analyse(b.finish()), "tool")
    assert r["winner"] == "k26-eagle3-d5" and r["runner_up"] == "k26-nospec" and r["controlled"] is True
    assert r["resolved"] and r["delta_pct"] == pytest.approx(200, abs=15)
    lo, hi = r["ci95_pct"]
    assert 0 < lo <= r["delta_pct"] <= hi
    assert r["decision"] == verdict(Interval(r["delta_pct"], lo, hi, mde_pct=r["mde_pct"]), "k26-eagle3-d5",
                                    than="k26-nospec", quantity="median per-request tok/s")
    assert r["decision"].startswith("k26-eagle3-d5 faster than k26-nospec by ")
    top = r["arms"][0]
    assert top["arm"] == "k26-eagle3-d5" and top["tau"] == pytest.approx(1 + sum(P_CHAIN[:5]), abs=0.02)
    assert top["implied_step_ms"] == pytest.approx(1000 * top["tau"] / top["median_tok_s"])
    assert top["usd_per_m_tokens"] == pytest.approx(24.0 / (3600 * top["median_tok_s"]) * 1e6)
    assert top["kv_capacity_tokens"] == 336_000 and top["anchors"][0]["median_tok_s"] == pytest.approx(301)


def test_overlapping_arms_read_no_difference_resolved(tmp_path):
    b = Builder(tmp_path)
    b.cell("node", "k26-eagle3-d3", "math", 1, noisy(400, 30, 16, 3))
    b.cell("node", "k26-eagle3-d5", "math", 1, noisy(402, 30, 16, 4))
    r = route(analyse(b.finish()), "math")
    assert r["winner"] is None and not r["resolved"] and r["controlled"] is True
    assert r["decision"].startswith(NO_DIFFERENCE) and "95% CI includes 0" in r["decision"]
    assert r["leader"] in ("k26-eagle3-d3", "k26-eagle3-d5")
    lo, hi = r["ci95_pct"]
    assert lo < 0 < hi


def test_a_cross_node_lead_needs_a_same_node_pair_and_prints_both_anchors(tmp_path):
    b = Builder(tmp_path, nodes=("a", "b"))
    b.anchor("a", "k26-eagle3-d5", 310)
    b.cell("a", "k26-eagle3-d5", "code", 1, noisy(480, 5, 16, 5))
    b.anchor("b", "k26-eagle3-d7", 290)
    b.cell("b", "k26-eagle3-d7", "code", 1, noisy(400, 5, 16, 6))
    b.cell("a", "k26-nospec", "code", 1, noisy(150, 3, 16, 7))
    res = analyse(b.finish())
    r = route(res, "code")
    assert r["winner"] is None and r["controlled"] is False and r["uncontrolled_leader"] == "k26-eagle3-d5"
    assert r["decision"].startswith(NEEDS_PAIR) and "uncontrolled" in r["decision"]
    assert "311.0" in r["decision"] and "291.0" in r["decision"]  # both anchors' medians
    assert r["same_node"]["runner_up"] == "k26-nospec" and r["same_node"]["resolved"]
    assert any("uncontrolled" in n for n in res["notes"])


def test_net_negative_concurrency_is_the_first_level_whose_ci_is_below_zero(tmp_path):
    b = Builder(tmp_path)
    # per-stream speeds at 1 / 8 / 32 streams; aggregate = c × Σtok / ΣE2E
    for c, base, spec in ((1, 150, 300), (8, 70, 80), (32, 30, 22)):
        b.cell("node", "k26-nospec", "chat-short", c, noisy(base, base * 0.02, max(16, c), c))
        b.cell("node", "k26-eagle3-d5", "chat-short", c, noisy(spec, spec * 0.02, max(16, c), 100 + c))
    res = analyse(b.finish())
    cv = next(x for x in res["curves"] if x["arm"] == "k26-eagle3-d5")
    nn = cv["net_negative"]
    assert nn["vs"] == "k26-nospec" and nn["controlled"] is True and nn["concurrency"] == 32
    assert nn["delta_pct"] < 0 and nn["ci95_pct"][1] < 0
    assert nn["statement"].startswith("k26-eagle3-d5 stops paying against k26-nospec at concurrency 32")
    by_c = {p["concurrency"]: p for p in nn["points"]}
    assert by_c[1]["delta_pct"] > 0 and by_c[1]["resolved"] and by_c[8]["delta_pct"] > 0
    pts = {p["concurrency"]: p for p in cv["points"]}
    assert pts[32]["aggregate_tok_s"] > pts[1]["aggregate_tok_s"]  # more streams, more throughput
    assert pts[8]["kv_usage_mean"] == pytest.approx((0.7 + 3 * 0.5) / 4) and pts[8]["kv_usage_max"] == pytest.approx(0.7)
    assert pts[8]["queue_time_mean_s"] == pytest.approx(0.05)
    assert pts[1]["ttft_p99_s"] == pytest.approx(0.25)
    nos = next(x for x in res["curves"] if x["arm"] == "k26-nospec")
    assert nos["net_negative"] is None


def test_a_drafter_that_keeps_paying_is_not_reached(tmp_path):
    b = Builder(tmp_path)
    for c, base, spec in ((1, 150, 300), (8, 70, 110)):
        b.cell("node", "k26-nospec", "tool-short", c, noisy(base, 2, 16, c))
        b.cell("node", "k26-eagle3-d5", "tool-short", c, noisy(spec, 2, 16, 50 + c))
    nn = next(x for x in analyse(b.finish())["curves"] if x["arm"] == "k26-eagle3-d5")["net_negative"]
    assert nn["concurrency"] is None and nn["statement"].startswith("not reached up to concurrency 8")


def test_ladder_measured_depths_with_the_forecast_curve_from_the_shallowest(tmp_path):
    b = Builder(tmp_path)
    # step(k) = 6.6 + 0.4 k ms: tok/s = τ(k) / step(k)
    for arm, k in (("k26-eagle3-d3", 3), ("k26-eagle3-d5", 5), ("k26-eagle3-d7", 7)):
        tau = 1 + sum(P_CHAIN[:k])
        b.cell("node", arm, "tool", 1, noisy(1000 * tau / (6.6 + 0.4 * k), 1.0, 16, k))
    res = analyse(b.finish())
    ld = next(x for x in res["ladders"] if x["prompt_set"] == "tool")
    assert ld["family"] == "eagle3" and ld["base"]["depth"] == 3 and ld["controlled"]
    assert [p["depth"] for p in ld["points"]] == [3, 5, 7]
    curve = {p["depth"]: p for p in ld["forecast_curve"]}
    assert {3, 5, 7} <= set(curve)
    p3, p5, p7 = ld["points"]
    assert p3["error_pct"] == pytest.approx(0, abs=1e-6)  # the base forecasts itself
    # from the d3 cell only p1..p3 are measured: p4, p5 are extrapolated (measure/forecast.py)
    assert p5["forecast_tau"] == pytest.approx(1 + sum(extend_positions(P_CHAIN[:3], 5)), abs=0.02)
    assert p7["forecast_tok_s"] == pytest.approx(curve[7]["tok_s"])
    assert ld["tax"]["source"] in ("fitted", "published") and ld["tax"]["ms"] > 0
    assert p7["error_pct"] == pytest.approx(100 * (p7["forecast_tok_s"] / p7["measured_tok_s"] - 1))
    # the step model above has a 0.4 ms tax; what is left is the extrapolation of p4..p7 from p1..p3
    assert abs(p7["error_pct"]) < 10
    assert ld["best_measured_depth"] == max(ld["points"], key=lambda p: p["measured_tok_s"])["depth"]


def test_bootstrap_aggregate_is_seeded_and_brackets_its_point():
    a = [RequestRecord.from_json(row(i, 100)) for i in range(16)]
    b2 = [RequestRecord.from_json(row(i, 50 + i)) for i in range(16)]
    i1 = bootstrap_aggregate(a, b2, 1, 1)
    assert i1 == bootstrap_aggregate(a, b2, 1, 1)
    assert i1.low_pct <= i1.point_pct <= i1.high_pct and i1.point_pct < 0


def test_four_requests_sharing_one_stall_never_make_a_near_zero_interval():
    """#30 item 1: a one-wave cell whose four requests share one stall has four near-identical E2Es, so resampling
    its requests gives an interval a few hundredths of a percent wide; the launch part of its two launches (σ_L
    3.2%, ν 3, the default prior) keeps it at least ±σ_L wide on the log scale."""
    from console.core.measure import launches as lv
    a = [RequestRecord.from_json(row(i, 100, ct=64, ttft=0.1)) for i in range(4)]
    b = [RequestRecord.from_json(row(i, 200 + i * 0.01, ct=64, ttft=3.07)) for i in range(4)]
    bare = bootstrap_aggregate(a, b, 4, 4)
    assert bare.high_pct - bare.low_pct < 0.1 and bare.resolved  # what the analysis printed before
    var = lv.pooled([])
    iv = bootstrap_aggregate(a, b, 4, 4, launch=var)
    assert iv.point_pct == pytest.approx(bare.point_pct) and iv.launch_sd_pct == pytest.approx(3.2)
    assert np.log((100 + iv.high_pct) / (100 + iv.low_pct)) > 2 * np.log1p(0.032)
    assert iv == bootstrap_aggregate(a, b, 4, 4, launch=var)  # seeded


def _fig(arm, ps, c, ttft, e2e=2.0, context="short"):
    return {"arm": arm, "node": "node", "prompt_set": ps, "context": context, "concurrency": c,
            "ttft_p50_s": ttft, "e2e_median_s": e2e}


def test_a_ttft_outlier_is_judged_against_its_own_arm():
    figs = {"a": _fig("x", "tool", 1, 0.04), "b": _fig("x", "tool", 4, 3.07, e2e=3.6),
            "c": _fig("x", "math", 1, 0.05), "d": _fig("x", "math", 4, 0.11),
            "e": _fig("y", "tool", 4, 0.15), "f": _fig("y", "tool", 1, 0.05),
            "g": _fig("z", "tool", 4, 3.0), "h": _fig("z", "math", 4, 3.1)}  # z: no lower level, peers alike
    out = ttft_outliers(figs)
    assert set(out) == {"b"}
    o = out["b"]
    # references: the same arm's other set at c4 (0.11 s) and c1 × 4 (0.20 s): the smaller counts
    assert o["reference_s"] == pytest.approx(0.11) and o["ratio"] == pytest.approx(3.07 / 0.11)
    assert "math" in o["against"] and "re-measure" in o["text"]
    # a TTFT 3× its reference that is a small share of E2E moves nothing: not flagged
    figs2 = {"a": _fig("x", "tool", 1, 0.04), "b": _fig("x", "tool", 4, 0.5, e2e=60.0)}
    assert ttft_outliers(figs2) == {}
    # TTFT grows with a wave's size: c8 at 8 × the c1 figure is load, not a stall
    figs3 = {"a": _fig("x", "tool", 1, 0.1), "b": _fig("x", "tool", 8, 0.8)}
    assert ttft_outliers(figs3) == {}


def test_a_drafter_below_no_spec_from_the_first_level_never_pays(tmp_path):
    b = Builder(tmp_path)
    for c, base, spec in ((1, 150, 120), (8, 70, 50)):
        b.cell("node", "k26-nospec", "chat-short", c, noisy(base, 2, 16, c))
        b.cell("node", "k26-eagle3-d5", "chat-short", c, noisy(spec, 2, 16, 60 + c))
    nn = next(x for x in analyse(b.finish())["curves"] if x["arm"] == "k26-eagle3-d5")["net_negative"]
    assert nn["concurrency"] == 1
    assert nn["statement"].startswith("k26-eagle3-d5 does not pay against k26-nospec at any measured concurrency")
