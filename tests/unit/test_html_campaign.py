"""The campaign page renders the analysis as docs/campaigns.md#json-schema-schema-1-keys-are-only-ever-added
documents it (a synthetic analysis over cells written by the real store): routing with Δ% and CI and "no
difference resolved", curves per arm with the net-negative point ringed, ladders with the forecast curve; every
plot drawn; the figures are the analysis's, printed as it computed them; offline."""

from __future__ import annotations

from html import unescape

from console.core.measure import stats
from console.core.report import html as H
from console.core.report.campaign import campaign_page_from
from console.core.sessions.store import load_rows
from tests.unit.test_browse import D7, make_cell, make_session
from tests.unit.test_html_report import external_fetches


def analysis(cells: dict[str, object], d) -> dict:
    def cell(key, arm, conc, path, agg):
        rows = load_rows(path)
        s = stats.summarize(rows)
        return {"key": key, "arm": arm, "node": "node", "domain": "tool", "context": "short", "prompt_set": "tool",
                "concurrency": conc, "complete": True, "n": s.n, "n_included": s.n_included, "n_errors": 0,
                "median_tok_s": s.median_tok_s, "p10_tok_s": s.p10_tok_s, "p90_tok_s": s.p90_tok_s,
                "tau": s.tau, "implied_step_ms": s.implied_step_ms, "aggregate_tok_s": agg, "ttft_p50_s": 0.4,
                "ttft_p99_s": 0.9, "e2e_median_s": 1.0, "kv_usage_mean": 0.2, "kv_usage_max": 0.3, "kv_samples": 10,
                "queue_reqs_max": 0, "queue_time_mean_s": 0.0, "usd_per_m_tokens": 1.0,
                "usd_per_m_tokens_aggregate": 0.5, "kv_capacity_tokens": 336000, "sim_time_scale": 8.0,
                "cell_dir": str(path), "forecast": None}
    cs = [cell("nospec@node/tool/c1", "k26-nospec", 1, cells["n1"], 300.0),
          cell("nospec@node/tool/c4", "k26-nospec", 4, cells["n4"], 1100.0),
          cell("d6@node/tool/c1", "k26-eagle3-d6", 1, cells["d6"], 470.0),
          cell("d6@node/tool/c4", "k26-eagle3-d6", 4, cells["d6c4"], 900.0),
          cell("d7@node/tool/c1", "k26-eagle3-d7", 1, cells["d7"], 505.0)]
    arm_rows = lambda group: [{"arm": x["arm"], "node": "node", "median_tok_s": x["median_tok_s"],  # noqa: E731
                               "n": x["n_included"], "tau": x["tau"], "implied_step_ms": x["implied_step_ms"],
                               "usd_per_m_tokens": 1.0, "aggregate_tok_s": x["aggregate_tok_s"],
                               "kv_capacity_tokens": 336000, "anchors": [], "cell_dir": x["cell_dir"],
                               "complete": True} for x in group]
    return {
        "schema": 1,
        "campaign": {"name": "synthetic", "dir": str(d), "created_utc": "2026-05-20T14:03:10Z", "plan_file": "p.toml",
                     "simulated": True, "sim_time_scale": 8.0, "kv_policy": "refuse", "cells_planned": 5,
                     "cells_complete": 5, "cells_skipped": 0, "complete": True,
                     "statistic": "median per-request output tok/s (interpolated)",
                     "nodes": [{"name": "node", "label": "4×B200", "usd_per_hour": 48.0,
                                "session_dir": str(cells["session"])}]},
        "arms": [{"arm": "k26-nospec", "node": "node", "label": "no speculation", "family": "none", "depth": None,
                  "kv_dtype": "auto", "adaptive": False, "kv_capacity_tokens": 371000, "kv_capacity_tax": 0.0,
                  "anchors": [{"median_tok_s": 150.5, "tau": None, "n": 8, "complete": True, "cell_dir": "x",
                               "started_utc": None}]}],
        "cells": cs,
        "routing": [
            {"domain": "tool", "context": "short", "prompt_set": "tool", "concurrency": 1,
             "metric": "median per-request tok/s", "winner": "k26-eagle3-d7", "runner_up": "k26-eagle3-d6",
             "winner_node": "node", "runner_up_node": "node", "delta_pct": 6.1, "ci95_pct": [3.2, 8.9],
             "resolved": True, "controlled": True, "decision": "k26-eagle3-d7 faster than k26-eagle3-d6 by 6.1% (95% CI 3.2 to 8.9% faster)",
             "arms": arm_rows([cs[4], cs[2], cs[0]])},
            {"domain": "tool", "context": "short", "prompt_set": "tool", "concurrency": 4,
             "metric": "median per-request tok/s", "winner": None, "runner_up": "k26-nospec", "winner_node": "node",
             "runner_up_node": "node", "delta_pct": 2.0, "ci95_pct": [-4.1, 7.7], "resolved": False,
             "controlled": True, "leader": "k26-eagle3-d6",
             "decision": "no difference resolved: k26-eagle3-d6 vs k26-nospec: Δ +2.0% [-4.1, +7.7] (95% CI includes 0)",
             "arms": arm_rows([cs[3], cs[1]])}],
        "curves": [
            {"arm": "k26-nospec", "node": "node", "domain": "tool", "context": "short", "prompt_set": "tool",
             "points": [{"concurrency": c, "aggregate_tok_s": a, "per_stream_median_tok_s": m, "median_tok_s": m,
                         "ttft_p50_s": 0.4, "ttft_p99_s": 0.8, "kv_usage_mean": 0.1, "kv_usage_max": 0.2,
                         "queue_reqs_max": 0, "queue_time_mean_s": 0.0, "n_included": 8, "tau": None, "complete": True}
                        for c, a, m in ((1, 300.0, 300.0), (4, 1100.0, 280.0))], "net_negative": None},
            {"arm": "k26-eagle3-d6", "node": "node", "domain": "tool", "context": "short", "prompt_set": "tool",
             "points": [{"concurrency": c, "aggregate_tok_s": a, "per_stream_median_tok_s": m, "median_tok_s": m,
                         "ttft_p50_s": 0.4, "ttft_p99_s": 1.1, "kv_usage_mean": 0.1, "kv_usage_max": 0.2,
                         "queue_reqs_max": 0, "queue_time_mean_s": 0.0, "n_included": 8, "tau": 3.0, "complete": True}
                        for c, a, m in ((1, 470.0, 470.0), (4, 900.0, 240.0))],
             "net_negative": {"vs": "k26-nospec", "controlled": True, "metric": "aggregate output tok/s",
                              "concurrency": 4, "delta_pct": -18.2, "ci95_pct": [-25.0, -11.0],
                              "statement": "k26-eagle3-d6 stops paying against k26-nospec at concurrency 4: "
                                           "k26-eagle3-d6 slower than k26-nospec by 18.2% in aggregate tok/s "
                                           "(95% CI 11.0 to 25.0% slower)",
                              "points": [{"concurrency": 1, "delta_pct": 56.7, "ci95_pct": [50.0, 63.0],
                                          "resolved": True},
                                         {"concurrency": 4, "delta_pct": -18.2, "ci95_pct": [-25.0, -11.0],
                                          "resolved": True}]}}],
        "ladders": [{"domain": "tool", "context": "short", "prompt_set": "tool", "family": "eagle3", "kv_dtype": "auto",
                     "concurrency": 1, "depth_word": "depth", "controlled": True,
                     "base": {"arm": "k26-eagle3-d6", "node": "node", "depth": 6, "cell_dir": str(cells["d6"])},
                     "best_measured_depth": 7,
                     "tax": {"ms": 0.397, "source": "published", "text": "published (reference node)", "ci_ms": None},
                     "forecast_curve": [{"depth": k, "tok_s": 400.0 + 10 * k, "tau": 1 + 0.4 * k, "step_ms": 8.0,
                                         "extrapolated_positions": 0} for k in range(3, 9)],
                     "points": [{"depth": 6, "arm": "k26-eagle3-d6", "node": "node", "measured_tok_s": cs[2]["median_tok_s"],
                                 "measured_tau": cs[2]["tau"], "n": 8, "forecast_tok_s": 460.0, "forecast_tau": 3.4,
                                 "error_pct": -2.0, "forecast_before_run": None, "cell_dir": str(cells["d6"])},
                                {"depth": 7, "arm": "k26-eagle3-d7", "node": "node", "measured_tok_s": cs[4]["median_tok_s"],
                                 "measured_tau": cs[4]["tau"], "n": 8, "forecast_tok_s": 470.0, "forecast_tau": 3.8,
                                 "error_pct": -7.0, "forecast_before_run": {"tok_s": 471.0, "error_pct": -6.8},
                                 "cell_dir": str(cells["d7"])}]}],
        "notes": ["measured on the engine twin at time scale ×8: every figure is the modelled node's"],
    }


def test_campaign_page_from_the_documented_schema(tmp_path):
    d = tmp_path / "campaign"
    s = make_session(d, "20260520T140301Z", "node-node")
    cells = {"session": s.dir,
             "n1": make_cell(s, "sweep nospec c1", [300.0, 301.5, 298.0, 305.0], spec=None),
             "n4": make_cell(s, "sweep nospec c4", [280.0, 281.5, 279.0, 282.0], spec=None),
             "d6": make_cell(s, "sweep d6 c1", [471.0, 476.5, 480.2, 483.9]),
             "d6c4": make_cell(s, "sweep d6 c4", [240.0, 238.5, 244.2, 239.9]),
             "d7": make_cell(s, "sweep d7 c1", [505.2, 509.9, 512.4, 498.7], spec=D7)}
    (d / "plan.toml").write_text('name = "synthetic"\n')
    a = analysis(cells, d)
    rep = campaign_page_from(a, d)
    text = H.to_html(rep)
    assert rep.kind == "campaign" and external_fetches(text) == []
    slugs = [f.slug for f in rep.figures]
    assert slugs[:2] == ["routing", "curve-tool-aggregate"] and "curve-tool-net" in slugs
    assert "ladder-tool-eagle3-auto-c1" in slugs and "tok-s-tool" in slugs and "acceptance-tool" in slugs
    assert all(f.scene.marks > 0 for f in rep.figures)
    for r in a["routing"]:  # the decisions as the analysis wrote them, Δ and CI as it computed them
        assert f"<b>{r['decision']}</b>" in unescape(text)
        assert f"{r['delta_pct']:+.1f}%" in text and f"[{r['ci95_pct'][0]:+.1f}, {r['ci95_pct'][1]:+.1f}]" in text
    assert "route to (Δ% of the 1st over the 2nd, 95% CI)" in text  # the verdict column: one sentence per row
    routing = next(f for f in rep.figures if f.slug == "routing")
    assert "k26-eagle3-d6 vs k26-nospec: no difference resolved" in [p.a.get("s") for p in routing.scene.prims]
    agg = next(f for f in rep.figures if f.slug == "curve-tool-aggregate")
    ring = [p for p in agg.scene.prims if p.kind == "circle" and p.tip == "k26-eagle3-d6: net-negative from c4"]
    assert len(ring) == 1 and "stops paying against k26-nospec at concurrency 4" in agg.note
    ladder = next(f for f in rep.figures if f.slug == "ladder-tool-eagle3-auto-c1")
    assert "published (reference node)" in ladder.note and "Best measured depth: 7" in ladder.note
    assert any(p.tip == "forecast depth 5: 450.0 tok/s, τ 3.00" for p in ladder.scene.prims)
    strip = next(f for f in rep.figures if f.slug == "tok-s-tool")
    assert sum(p.kind == "circle" and p.mark for p in strip.scene.prims) == 20  # every request of the 5 cells
    plain = unescape(text)
    assert "SIMULATED" in plain and "modelled node's" in plain and "4×B200" in plain and 'name = "synthetic"' in plain
