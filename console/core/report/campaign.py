"""A campaign's HTML page (docs/reports.md#what-the-page-holds): the routing table with Δ% and CI, concurrency curves
per arm with the net-negative point, depth ladders with their forecast curves, per-cell distributions and acceptance,
from `campaign.analysis.analyse` (docs/campaigns.md#analysis) — its figures as it computed them, never re-derived;
only the per-request points and the acceptance curves are read from the cells' rows, through the functions
`report` uses."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from console.core.report import plot as P
from console.core.report.html import (
    Figure,
    Report,
    _acceptance_figures,
    _banner,
    _code,
    _n,
    _provenance,
    _Raw,
    _rel,
    _strip_figure,
    _table,
    _Wrap,
    request_points,
)
from console.core.sessions.report import cell_report, simulated_note
from console.core.sessions.store import load_rows, read_json


def campaign_page(d: Path, predicted: dict[str, Any] | None = None) -> Report:
    """`predicted`: a fitted node's predictions of the campaign's cells (`twin check --json`'s object), shown
    beside the measurements (`report DIR --html --node NODE.toml`)."""
    from console.core.campaign.analysis import analyse
    d = Path(d)
    a = analyse(d)
    if predicted is not None:
        a["predicted"] = predicted
    return campaign_page_from(a, d)


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:+.1f}%"


def _ci(ci: list | None) -> str:
    return "—" if not ci or ci[0] is None else f"[{ci[0]:+.1f}, {ci[1]:+.1f}]"


def _arm_key(arm: str, node: str, multi: bool) -> str:
    return f"{arm} @{node}" if multi else arm


def campaign_page_from(a: dict[str, Any], d: Path) -> Report:
    """The page of an analysis `a` of the campaign in `d` (cell paths in `a` resolve on this machine)."""
    c = a["campaign"]
    rep = Report("campaign", f"Campaign {c.get('name')}", d)
    rep.time_scale = c.get("sim_time_scale")
    multi = len(c.get("nodes") or []) > 1
    rep.sections.append(_banner(rep, simulated_note(c.get("simulated"), c.get("sim_time_scale"))))
    doc = _campaign_doc(d)
    if doc.get("description"):
        rep.sections.append(f"<p>{escape(str(doc['description']))}</p>")
    skipped = f", {c['cells_skipped']} skipped" if c.get("cells_skipped") else ""
    rep.sections.append(
        f"<p class=\"small\">{c.get('cells_complete')} of {c.get('cells_planned')} cells complete{skipped} · "
        f"{'complete' if c.get('complete') else '<b>incomplete</b>'} · KV policy {escape(str(c.get('kv_policy')))} · "
        f"statistic: {escape(str(c.get('statistic')))}</p>")
    rep.sections += [f'<p class="warn">{escape(n)}</p>' for n in a.get("notes") or []
                     if not n.startswith("SIMULATED")]
    cells = a.get("cells") or []
    arm_order = list(dict.fromkeys([x["arm"] for x in a.get("arms") or []] + [x["arm"] for x in cells]))
    arm_color = {name: P.color(i) for i, name in enumerate(arm_order)}  # one colour per arm on every plot
    rel = lambda p: _rel(d, Path(p) / "rows.jsonl")  # noqa: E731

    # --- routing -------------------------------------------------------------------------------------------
    rep.sections.append('<h2 id="routing">Routing table</h2>')
    rows, ivs, fig_rows = [], [], []
    for _i, r in enumerate(a.get("routing") or []):
        arms = "; ".join(f"{_arm_key(x['arm'], x['node'], multi)} {_n(x['median_tok_s'])} (n {x['n']}, τ "
                         f"{_n(x['tau'], '.2f')}, ${_n(x['usd_per_m_tokens'], '.2f')}/M)" for x in r.get("arms") or [])
        call = r.get("decision") or r.get("winner") or "—"  # the verdict, its Δ and CI, in one sentence
        why = (f'<br><span class="warn">{escape(r["disagreement"])}</span>' if r.get("disagreement") else "")
        rows.append((r["prompt_set"], r["concurrency"], _Wrap(f"<b>{escape(call)}</b>{why}"),
                     {True: "same node", False: "across nodes", None: "—"}[r.get("controlled")], _Wrap(escape(arms))))
        fig_rows += [rel(x["cell_dir"]) for x in (r.get("arms") or [])[:2]]
        if r.get("runner_up"):
            note = ("resolved" if r.get("resolved") else "no difference resolved") if r.get("controlled") else \
                "needs a same-node pair"
            lead = r.get("winner") or r.get("leader") or r.get("uncontrolled_leader")
            ivs.append(P.Interval(f"{r['prompt_set']} c{r['concurrency']}", r.get("delta_pct"),
                                  (r.get("ci95_pct") or [None, None])[0], (r.get("ci95_pct") or [None, None])[1],
                                  "#2a9d5c" if r.get("resolved") and r.get("controlled") else "#e0901b",
                                  f"{lead} vs {r['runner_up']}: {note}"))
    rep.sections.append(_table(["prompt set", "concurrency", "route to (Δ% of the 1st over the 2nd, 95% CI)",
                                "evidence", "arms, best first: median tok/s"], rows))
    if ivs:
        title = "Routing: Δ of the leader over the runner-up per prompt set and concurrency, 95% CI"
        rep.sections.append(rep.add(Figure(
            "routing", title, P.interval_chart(title, ivs, width=760), ["cell median",
                                                                         "Δ% = median(leader) / median(runner-up) − 1; "
                                                                         "seeded bootstrap over requests plus the "
                                                                         "launch part of the two launches (campaign "
                                                                         "analysis, measure/pairs.py)"],
            sorted(set(fig_rows)), "Green: a winner is called (same node, CI excludes 0); amber: no difference "
                                   "resolved, or the two ran on different nodes.")))

    if a.get("predicted"):
        rep.sections += _predicted_section(a["predicted"], d)

    # --- concurrency curves ---------------------------------------------------------------------------------
    curves = a.get("curves") or []
    sets = sorted({cu["prompt_set"] for cu in curves})
    if curves:
        rep.sections.append('<h2 id="curves">Concurrency curves</h2>')
    for ps in sets:
        group = [cu for cu in curves if cu["prompt_set"] == ps]
        slug = P_slug(ps)
        rows_of = sorted({rel(by_dir_key(cells, cu, p)) for cu in group for p in cu["points"]
                          if by_dir_key(cells, cu, p)})
        agg, stream, ttft, highlight, statements, nn = [], [], [], [], [], []
        for i, cu in enumerate(group):
            name = _arm_key(cu["arm"], cu["node"], multi)
            xs = [p["concurrency"] for p in cu["points"]]
            col = arm_color.get(cu["arm"], P.color(i))
            agg.append(P.Series(name, xs, [p["aggregate_tok_s"] for p in cu["points"]], col,
                                tips=[f"{name} c{p['concurrency']}: aggregate {_n(p['aggregate_tok_s'])} tok/s "
                                      f"(n {p['n_included']})" for p in cu["points"]]))
            stream.append(P.Series(name, xs, [p["per_stream_median_tok_s"] for p in cu["points"]], col,
                                   tips=[f"{name} c{p['concurrency']}: per-stream median "
                                         f"{_n(p['per_stream_median_tok_s'])} tok/s" for p in cu["points"]]))
            ttft.append(P.Series(f"{name} p50", xs, [p["ttft_p50_s"] for p in cu["points"]], col))
            ttft.append(P.Series(f"{name} p99", xs, [p["ttft_p99_s"] for p in cu["points"]], col, dash=(5, 4),
                                 hollow=True))
            neg = cu.get("net_negative")
            if neg:
                statements.append(f"{name}: {neg['statement']}")
                if neg.get("concurrency") is not None:
                    y = next((p["aggregate_tok_s"] for p in cu["points"] if p["concurrency"] == neg["concurrency"]),
                             None)
                    if y is not None:
                        highlight.append((neg["concurrency"], y,
                                          f"{cu['arm']}: net-negative from c{neg['concurrency']}"))
                for p in neg.get("points") or []:
                    ci = p.get("ci95_pct") or [None, None]
                    nn.append(P.Interval(f"{name} c{p['concurrency']}", p.get("delta_pct"), ci[0], ci[1],
                                         "#c0392b" if p.get("resolved") and (p.get("delta_pct") or 0) < 0 else
                                         ("#2a9d5c" if p.get("resolved") else "#e0901b"),
                                         f"vs {neg['vs']}" + (" — withheld: TTFT outlier" if p.get("withheld")
                                                              else "")))
        note = "; ".join(statements)
        t1 = f"{ps}: aggregate output tok/s against concurrency, per arm"
        rep.sections.append(rep.add(Figure(f"curve-{slug}-aggregate", t1, P.line_chart(
            t1, agg, "concurrency (streams)", "aggregate tok/s", highlight=highlight),
            ["aggregate output tok/s (campaign analysis: completion tokens per second across the cell's streams)"],
            rows_of, ("Ringed: the net-negative point (aggregate Δ against no-spec wholly below 0). " + note).strip())))
        if nn:
            t4 = f"{ps}: aggregate Δ of each drafter against no speculation, 95% CI"
            rep.sections.append(rep.add(Figure(f"curve-{slug}-net", t4, P.interval_chart(t4, nn, width=760),
                                               ["Δ% aggregate output tok/s, drafter vs no-spec on the same node; "
                                                "bootstrap over requests plus the launch part (campaign analysis)"],
                                               rows_of,
                                               "Red: resolved below 0 (the drafter costs throughput at that level); "
                                               "amber: unresolved, or withheld (a TTFT outlier: a stall the cell's "
                                               "requests shared).")))
        t2 = f"{ps}: per-stream median tok/s against concurrency"
        rep.sections.append(rep.add(Figure(f"curve-{slug}-per-stream", t2, P.line_chart(
            t2, stream, "concurrency (streams)", "median tok/s per stream"), ["tok/s (per request)", "cell median"],
            rows_of)))
        t3 = f"{ps}: TTFT p50 and p99 against concurrency"
        rep.sections.append(rep.add(Figure(f"curve-{slug}-ttft", t3, P.line_chart(
            t3, ttft, "concurrency (streams)", "TTFT (s)"), ["TTFT"], rows_of)))

    # --- depth ladders --------------------------------------------------------------------------------------
    ladders = a.get("ladders") or []
    if ladders:
        rep.sections.append('<h2 id="ladders">Depth ladders</h2>')
    for ld in ladders:
        slug = f"ladder-{P_slug(ld['prompt_set'])}-{ld['family']}-{ld['kv_dtype']}-c{ld['concurrency']}"
        t = (f"{ld['prompt_set']} · {ld['family']} · KV {ld['kv_dtype']} · concurrency {ld['concurrency']}: "
             f"tok/s against {ld['depth_word']}")
        pts = ld.get("points") or []
        fc = ld.get("forecast_curve") or []
        series = []
        if fc:
            series.append(P.Series(f"forecast from {ld['base']['arm']} (depth {ld['base']['depth']})",
                                   [p["depth"] for p in fc], [p["tok_s"] for p in fc], "#6b6b6b", dash=(6, 4),
                                   hollow=True, tips=[f"forecast {ld['depth_word']} {p['depth']}: {p['tok_s']:.1f} "
                                                      f"tok/s, τ {p['tau']:.2f}" for p in fc]))
        pre = [(p["depth"], p["forecast_before_run"]["tok_s"]) for p in pts
               if p.get("forecast_before_run") and p["forecast_before_run"].get("tok_s")]
        if pre:
            series.append(P.Series("forecast written before the cell ran", [x for x, _ in pre], [y for _, y in pre],
                                   P.color(3), line=False, hollow=True))
        series.append(P.Series("measured median", [p["depth"] for p in pts], [p["measured_tok_s"] for p in pts],
                               P.color(1), tips=[f"{p['arm']} ({ld['depth_word']} {p['depth']}): measured "
                                                 f"{_n(p['measured_tok_s'])} tok/s, τ {_n(p['measured_tau'], '.2f')}, "
                                                 f"n {p['n']}" for p in pts]))
        tax = ld.get("tax") or {}
        note = (f"Verify tax {tax.get('ms', 0):.3f} ms/token: {tax.get('text')}." if tax else
                f"No forecast: {ld.get('forecast_error') or 'no measured base cell'}.")
        if ld.get("best_measured_depth") is not None:
            note += f" Best measured {ld['depth_word']}: {ld['best_measured_depth']}."
        if not ld.get("controlled"):
            note += " Depths ran on different nodes (uncontrolled)."
        rep.sections.append(rep.add(Figure(slug, t, P.line_chart(t, series, f"draft {ld['depth_word']}",
                                                                 "tok/s (median)"),
                                           ["cell median", "forecast"], sorted({rel(p["cell_dir"]) for p in pts}),
                                           note)))
        rep.sections.append(_table([ld["depth_word"], "arm", "measured tok/s", "τ", "n", "forecast tok/s (curve)",
                                    "error", "forecast before run", "its error"],
                                   [(p["depth"], p["arm"], _n(p["measured_tok_s"]), _n(p["measured_tau"], ".2f"),
                                     p["n"], _n(p["forecast_tok_s"]), _pct(p.get("error_pct")),
                                     _n((p.get("forecast_before_run") or {}).get("tok_s")),
                                     _pct((p.get("forecast_before_run") or {}).get("error_pct"))) for p in pts]))

    # --- per-cell distributions and acceptance ----------------------------------------------------------------
    if cells:
        rep.sections.append('<h2 id="cells">Cells</h2>')
    reports: dict[str, dict[str, Any]] = {}
    for ps in sorted({x["prompt_set"] for x in cells}):
        group = [x for x in cells if x["prompt_set"] == ps]
        strips = []
        for x in group:
            vals, tips = request_points(load_rows(Path(x["cell_dir"])))
            strips.append(P.Strip(f"{_arm_key(x['arm'], x['node'], multi)} c{x['concurrency']}", vals, tips,
                                  x["median_tok_s"], x["p10_tok_s"], x["p90_tok_s"],
                                  arm_color.get(x["arm"], P.color(0))))
        rep.sections.append(rep.add(_strip_figure(f"tok-s-{P_slug(ps)}", f"{ps}: tok/s per request, per cell", strips,
                                                  [rel(x["cell_dir"]) for x in group])))
        low = min(x["concurrency"] for x in group)
        acc = []
        for x in group:
            if x["concurrency"] != low or x.get("tau") is None:
                continue
            r = reports.setdefault(x["cell_dir"], cell_report(Path(x["cell_dir"])))
            acc.append((_arm_key(x["arm"], x["node"], multi), r.get("per_position_acceptance"), rel(x["cell_dir"]),
                        arm_color.get(x["arm"], P.color(0))))
        for fig in _acceptance_figures(f"acceptance-{P_slug(ps)}", f"{ps}: acceptance per draft position per arm "
                                       f"(concurrency {low})", [(n, p) for n, p, _, _ in acc],
                                       [r for _, _, r, _ in acc], [c for *_, c in acc]):
            rep.sections.append(rep.add(fig))
    rep.sections.append(_table(
        ["cell", "arm", "node", "set", "c", "n in stat / sent", "median tok/s", "p10 / p90", "τ", "aggregate tok/s",
         "TTFT p50 / p99", "KV usage max", "queued max", "$/M (median · aggregate)", "forecast error", "rows"],
        [(_code(x["key"]), x["arm"], x["node"], x["prompt_set"], x["concurrency"], f"{x['n_included']} / {x['n']}",
          _n(x["median_tok_s"]), f"{_n(x['p10_tok_s'])} / {_n(x['p90_tok_s'])}", _n(x["tau"], ".2f"),
          _n(x["aggregate_tok_s"]), f"{_n(x['ttft_p50_s'], '.3f')} / {_n(x['ttft_p99_s'], '.3f')} s",
          _n(None if x.get("kv_usage_max") is None else 100 * x["kv_usage_max"], ".0f", "%"),
          _n(x.get("queue_reqs_max"), ".0f"),
          f"{_n(x['usd_per_m_tokens'], '.2f')} · {_n(x['usd_per_m_tokens_aggregate'], '.2f')}",
          _pct((x.get("forecast") or {}).get("error_pct")), _code(rel(x["cell_dir"]))) for x in cells]))

    # --- arms, anchors, provenance ---------------------------------------------------------------------------
    rep.sections.append('<h2 id="arms">Arms and their anchors</h2>')
    rep.sections.append(_table(["arm", "node", "label", "family", "depth", "KV dtype", "KV capacity", "KV tax",
                                "anchors tok/s (per launch)"],
                               [(x["arm"], x["node"], x.get("label") or "—", x["family"], _n(x["depth"], "d"),
                                 x["kv_dtype"], _n(x.get("kv_capacity_tokens"), ","),
                                 _n(None if x.get("kv_capacity_tax") is None else 100 * x["kv_capacity_tax"], ".1f",
                                    "%"),
                                 ", ".join(_n(an.get("median_tok_s")) for an in x.get("anchors") or []) or "—")
                                for x in a.get("arms") or []]))
    for node in c.get("nodes") or []:
        nd = Path(node["session_dir"])
        meta = read_json(nd / "session.json") if (nd / "session.json").exists() else {}
        ncells = [(Path(x["cell_dir"]), reports.setdefault(x["cell_dir"], cell_report(Path(x["cell_dir"]))))
                  for x in cells if x["node"] == node["name"]]
        sec = _provenance(d, meta, ncells)
        rep.sections.append(sec.replace('<h2 id="provenance">Provenance</h2>',
                                        f'<h2 id="provenance-{escape(node["name"])}">Provenance: node '
                                        f'{escape(node["name"])}'
                                        f'{" · " + escape(node["label"]) if node.get("label") else ""}'
                                        f'</h2>', 1))
    plan = d / "plan.toml"
    if plan.exists():
        rep.sections.append(f"<h3>The plan as run (plan.toml)</h3><pre class=\"plan\">{escape(plan.read_text())}</pre>")
    return rep


def _predicted_section(pr: dict[str, Any], d: Path) -> list[str]:
    """Predicted vs measured per cell and traffic domain: what the fitted node says each cell should have read."""
    rows = []
    for c in pr.get("cells") or []:
        err = c.get("error_pct")
        rows.append((_Wrap(escape(str(c.get("key")))), _n(c.get("predicted_tok_s")), _n(c.get("measured_tok_s")),
                     _Raw(f'<b class="warn">{_pct(err)}</b>' if err is not None and abs(err) > 10 else _pct(err)),
                     c.get("n"), "fitted" if c.get("acceptance_fitted") else "the base's"))
    m = pr.get("median_abs_error_pct")
    return [f'<h2 id="predicted">Predicted vs measured: fitted node {escape(str(pr.get("node")))}</h2>',
            f'<p class="small">The fitted node ({escape(str(pr.get("node_file")))}; '
            f'docs/twin.md#9-a-twin-of-your-node) played each cell in virtual time with its arm, prompt length, '
            f'output length, concurrency and '
            f'temperature: median per-request tok/s, the modelled node\'s. Median |error| '
            f'<b>{"—" if m is None else f"{m:.1f}%"}</b> over {len(rows)} cell observations.</p>',
            _table(["cell · arm · prompt set · domain · streams", "predicted", "measured", "error", "n",
                    "acceptance"], rows)]


def _campaign_doc(d: Path) -> dict[str, Any]:
    try:
        return read_json(d / "campaign.json")
    except (OSError, ValueError):
        return {}


def by_dir_key(cells: list[dict], cu: dict, p: dict) -> str | None:
    """The cell directory of a curve point (arm, node, set, concurrency)."""
    return next((x["cell_dir"] for x in cells if x["arm"] == cu["arm"] and x["node"] == cu["node"]
                 and x["prompt_set"] == cu["prompt_set"] and x["concurrency"] == p["concurrency"]), None)


def P_slug(s: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in str(s).lower()).strip("-")
