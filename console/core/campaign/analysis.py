"""What a campaign answers (docs/campaigns.md#analysis), recomputed from the recorded rows alone:

    analyse(campaign_dir) -> dict (JSON-able, schema in docs/campaigns.md)
        routing   per prompt set (domain × context) and concurrency: the winning arm by the cell statistic (median
                  per-request tok/s), Δ% and seeded bootstrap 95% CI against the runner-up — called only from
                  same-node evidence; "no difference resolved" where the CI crosses 0; across nodes "needs a
                  same-node pair" with both anchors — and per arm τ, implied step, $/M output tokens, KV capacity and
                  its anchors
        curves    per arm × prompt set, against concurrency: aggregate output tok/s, per-stream median tok/s, TTFT
                  p50/p99, KV usage and queueing; the net-negative concurrency of a drafter against no-spec on the
                  same node (aggregate throughput Δ with its CI), or "not reached"
        ladders   per prompt set × family × concurrency: tok/s and τ against depth, with the forecast curve from the
                  shallowest measured depth's cell (the one forecast) and the forecast written before each cell ran

Every figure comes from `measure` (stats, pairs, forecast) over `rows.jsonl` and `kv-samples.jsonl`; nothing is
read back from a summary, nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from console.core.arm import Arm
from console.core.campaign import journal as J
from console.core.measure import launches as lv, stats
from console.core.measure.pairs import Interval, compare_legs, launch_part, verdict
from console.core.measure.records import RequestRecord
from console.core.sessions.store import load_rows, read_json

SCHEMA = 1
SEED = 0
N_BOOT = 2000
NO_DIFFERENCE = "no difference resolved"
NEEDS_PAIR = "needs a same-node pair"


@dataclass
class _Cell:
    key: str
    arm: str
    node: str
    prompt_set: str
    domain: str
    context: str
    concurrency: int
    dir: Path
    manifest: dict[str, Any]
    rows: list[RequestRecord]
    samples: list[dict[str, Any]]

    @property
    def complete(self) -> bool:
        return self.manifest.get("complete") is True


def _interval(iv: Interval) -> dict[str, Any]:
    return {"delta_pct": iv.point_pct, "ci95_pct": [iv.low_pct, iv.high_pct] if iv.low_pct is not None else None,
            "resolved": iv.resolved}


def bootstrap_aggregate(a: list[RequestRecord], b: list[RequestRecord], conc_a: int, conc_b: int,
                        seed: int = SEED, n_boot: int = N_BOOT, launch: lv.LaunchVariance | None = None) -> Interval:
    """Δ% = aggregate(b) / aggregate(a) − 1 of two cells' closed-loop throughput (stats.aggregate_output_tok_s),
    with a percentile bootstrap 95% CI resampling each cell's requests and, with `launch`, the launch part of the
    two cells' two launches (σ_L · √2 · t_ν on the log ratio, as `pairs.compare_legs` adds it): the requests of one
    launch share its offset, and the requests of one wave share its stalls, which resampling them cannot see."""
    def arr(rows):
        p = [(r.completion_tokens, stats.e2e_s(r)) for r in rows if r.ok and not r.flags and not r.warmup]
        return np.array([(t, e) for t, e in p if t and e], dtype=float).reshape(-1, 2)
    xa, xb = arr(a), arr(b)
    if len(xa) < 2 or len(xb) < 2:
        return Interval(None, None, None)
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, len(xa), size=(n_boot, len(xa)))
    ib = rng.integers(0, len(xb), size=(n_boot, len(xb)))
    ga = conc_a * xa[ia, 0].sum(axis=1) / xa[ia, 1].sum(axis=1)
    gb = conc_b * xb[ib, 0].sum(axis=1) / xb[ib, 1].sum(axis=1)
    point = 100.0 * ((conc_b * xb[:, 0].sum() / xb[:, 1].sum()) / (conc_a * xa[:, 0].sum() / xa[:, 1].sum()) - 1)
    draws = np.log(gb / ga)
    sd = None
    if launch is not None:
        draws = draws + launch_part(launch, 2.0, seed, n_boot)  # one launch each
        sd = launch.sd_pct
    lo, hi = np.percentile(100.0 * np.expm1(draws), [2.5, 97.5])
    return Interval(float(point), float(lo), float(hi), launch_sd_pct=sd)


#: a cell's TTFT is an outlier against its own arm when its p50 is at least this many times the arm's reference …
TTFT_OUTLIER_RATIO = 3.0
#: … and the excess is at least this share of the cell's median E2E (so it moves the cell's aggregate that much)
TTFT_OUTLIER_E2E_SHARE = 0.10


def ttft_outliers(figs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Cells whose TTFT is an outlier against their own arm (docs/campaigns.md#ttft-outliers): per cell, the
    reference is the median TTFT p50 of the same arm's cells on the same node and context at the same concurrency
    (other prompt sets), and — where that arm ran lower concurrencies of the same context — the largest of their
    p50 × c / c' (a wave's prefill grows at most linearly with its size); the smaller reference counts. A cell is
    an outlier when its p50 ≥ TTFT_OUTLIER_RATIO × reference and exceeds it by ≥ TTFT_OUTLIER_E2E_SHARE of its
    median E2E: then its aggregate tok/s holds a stall its requests shared, not its configuration under load."""
    out: dict[str, dict[str, Any]] = {}
    for k, f in figs.items():
        t, e2e = f.get("ttft_p50_s"), f.get("e2e_median_s")
        if not t or not e2e:
            continue
        peers = [g for kk, g in figs.items() if kk != k and g["arm"] == f["arm"] and g["node"] == f["node"]
                 and g["context"] == f["context"] and g.get("ttft_p50_s")]
        refs: list[tuple[float, str]] = []
        same = [g for g in peers if g["concurrency"] == f["concurrency"]]
        if same:
            v = float(np.median([g["ttft_p50_s"] for g in same]))
            refs.append((v, f"the median of its {len(same)} other prompt set{'s' if len(same) > 1 else ''} at "
                            f"concurrency {f['concurrency']} ({', '.join(g['prompt_set'] for g in same)})"))
        lower = [g for g in peers if g["concurrency"] < f["concurrency"]]
        if lower:
            g = max(lower, key=lambda g: g["ttft_p50_s"] * f["concurrency"] / g["concurrency"])
            refs.append((g["ttft_p50_s"] * f["concurrency"] / g["concurrency"],
                         f"{g['prompt_set']} c{g['concurrency']}'s {g['ttft_p50_s']:.3g} s × {f['concurrency']}/"
                         f"{g['concurrency']}"))
        if not refs:
            continue
        ref, what = min(refs)
        if t >= TTFT_OUTLIER_RATIO * ref and t - ref >= TTFT_OUTLIER_E2E_SHARE * e2e:
            out[k] = {"ttft_p50_s": t, "reference_s": ref, "ratio": t / ref if ref > 0 else None, "against": what,
                      "text": (f"TTFT outlier: p50 {t:.3g} s, {t / ref:.0f}× this arm's {ref:.3g} s ({what}) — a "
                               f"stall its requests shared ({100 * (t - ref) / e2e:.0f}% of its median E2E), not "
                               f"load; its aggregate tok/s is not this configuration's: re-measure the cell")
                      if ref > 0 else f"TTFT outlier: p50 {t:.3g} s against this arm's ~0 s ({what})"}
    return out


def _cell_figures(c: _Cell, usd_h: float | None) -> dict[str, Any]:
    m = c.manifest
    arm = Arm.from_json(m["arm"]) if isinstance(m.get("arm"), dict) else Arm()
    s = stats.summarize(c.rows, num_draft_tokens=arm.draft_tokens if arm.speculative else None)
    inc = [r for r in c.rows if r.ok and not r.flags and not r.warmup]
    ttfts = [t for t in (stats.ttft_s(r) for r in inc) if t is not None]
    agg = stats.aggregate_output_tok_s(c.rows, c.concurrency)
    kv_mean, kv_max = stats.kv_usage(c.samples)
    queued = [x["num_queue_reqs"] for x in c.samples if isinstance(x.get("num_queue_reqs"), (int, float))]
    return {
        "key": c.key, "arm": c.arm, "node": c.node, "domain": c.domain, "context": c.context,
        "prompt_set": c.prompt_set, "concurrency": c.concurrency, "complete": c.complete,
        "n": s.n, "n_included": s.n_included, "n_errors": s.n_errors,
        "median_tok_s": s.median_tok_s, "p10_tok_s": s.p10_tok_s, "p90_tok_s": s.p90_tok_s,
        "tau": s.tau if arm.speculative else None, "implied_step_ms": s.implied_step_ms,
        "aggregate_tok_s": agg, "ttft_p50_s": stats.percentile(ttfts, 50), "ttft_p99_s": stats.percentile(ttfts, 99),
        "e2e_median_s": s.e2e_median_s,
        "kv_usage_mean": kv_mean, "kv_usage_max": kv_max, "kv_samples": len(c.samples),
        "queue_reqs_max": max(queued) if queued else None, "queue_time_mean_s": stats.queue_time_mean_s(c.samples),
        "usd_per_m_tokens": stats.cost_per_million_usd(usd_h, s.median_tok_s),
        "usd_per_m_tokens_aggregate": stats.cost_per_million_usd(usd_h, agg),
        "kv_capacity_tokens": m.get("kv_capacity_tokens"),
        "sim_time_scale": m.get("sim_time_scale"),
        "cell_dir": str(c.dir), "ttft_outlier": None,
    }


def _load(campaign_dir: Path, doc: dict[str, Any]) -> tuple[list[_Cell], dict[tuple[str, str], list[dict]]]:
    """The speaking cell of every key, and per (node, arm) the anchors recorded on that node for that arm."""
    planned = {c["key"]: c for c in doc.get("cells") or []}
    cells: list[_Cell] = []
    anchors: dict[tuple[str, str], list[dict]] = {}
    for node, nd in J.node_dirs(campaign_dir).items():
        for k, (cdir, m) in J.cell_state(nd).items():
            p = planned.get(k)
            if p is None:
                continue
            cells.append(_Cell(key=k, arm=p["arm"], node=p["node"], prompt_set=p["prompt_set"], domain=p["domain"],
                               context=p["context"], concurrency=int(p["concurrency"]), dir=cdir, manifest=m,
                               rows=load_rows(cdir), samples=J.read_lines(cdir / J.SAMPLES_FILE)))
        for c in sorted(nd.glob("cell-*")):
            try:
                m = read_json(c / "manifest.json")
            except (OSError, ValueError):
                continue
            if m.get("label") != "anchor":
                continue
            s = stats.summarize(load_rows(c))
            anchors.setdefault((node, str(m.get("profile"))), []).append(
                {"median_tok_s": s.median_tok_s, "tau": s.tau, "n": s.n_included, "complete": m.get("complete") is True,
                 "cell_dir": str(c), "started_utc": m.get("started_utc")})
    order = {k: i for i, k in enumerate(planned)}
    cells.sort(key=lambda c: order.get(c.key, 0))
    return cells, anchors


def analyse(campaign_dir: Path) -> dict[str, Any]:
    """Routing table, concurrency curves and depth ladders of a campaign, from its rows (docs/campaigns.md)."""
    d = Path(campaign_dir)
    if not J.is_campaign(d):
        raise ValueError(f"{d}: not a campaign directory (no {J.CAMPAIGN_FILE})")
    doc = J.campaign_doc(d)
    cells, anchors = _load(d, doc)
    nodes = {n["name"]: n for n in doc.get("nodes") or []}
    arms_doc = {a["name"]: a for a in doc.get("arms") or []}
    arm_of = {name: Arm.from_json(a.get("arm")) for name, a in arms_doc.items()}

    def usd(c: _Cell) -> float | None:
        n = nodes.get(c.node) or {}
        if n.get("usd_per_hour") is not None:
            return float(n["usd_per_hour"])
        v = c.manifest.get("node_usd_per_hour")
        return float(v) if isinstance(v, (int, float)) else None

    figs = {c.key: _cell_figures(c, usd(c)) for c in cells}
    for k, o in ttft_outliers(figs).items():
        figs[k]["ttft_outlier"] = o
    by_key = {c.key: c for c in cells}
    launch_of = _LaunchParts(d.parent)
    events = J.Journal(d).events()
    pre = {e["key"]: e for e in events if e.get("ev") == "forecast" and e.get("key")}
    skipped = [e for e in events if e.get("ev") == "skip"]

    # KV capacity of each arm on each node, and the no-spec capacity of the node
    cap: dict[tuple[str, str], int] = {}
    for c in cells:
        v = c.manifest.get("kv_capacity_tokens")
        if isinstance(v, int):
            cap[(c.node, c.arm)] = v
    nospec_cap = {node: v for (node, arm), v in cap.items() if not arm_of.get(arm, Arm()).speculative}

    def anchor_list(node: str, arm: str) -> list[dict]:
        return anchors.get((node, arm), [])

    arms_out = []
    for name, a in arms_doc.items():
        for node in a.get("nodes") or []:
            am = arm_of[name]
            arms_out.append({"arm": name, "node": node, "label": a.get("label"), "family": am.family,
                             "depth": am.depth, "kv_dtype": am.kv_dtype, "adaptive": am.adaptive,
                             "kv_capacity_tokens": cap.get((node, name)),
                             "kv_capacity_tax": stats.kv_capacity_tax(cap.get((node, name)), nospec_cap.get(node)),
                             "anchors": anchor_list(node, name)})

    routing = _routing(cells, figs, by_key, anchor_list, cap, launch_of)
    curves = _curves(cells, figs, by_key, arm_of, launch_of)
    _explain_disagreements(routing, curves)
    ladders = _ladders(cells, figs, arm_of, pre)
    planned = len(doc.get("cells") or [])
    done = sum(1 for c in cells if c.complete)
    notes = []
    from console.core.sessions.report import simulated_note
    sim_note = simulated_note(doc.get("simulated"), doc.get("sim_time_scale"))
    if sim_note:
        notes.append(sim_note)
    if len(nodes) > 1:
        notes.append("arms on different nodes ran in parallel: cross-node comparisons are uncontrolled (node draws "
                     "differ by ~10%) and printed with both anchors; a winner is called only from same-node evidence")
    for e in skipped:
        notes.append(f"skipped: {e.get('reason')}")
    for c in cells:
        out_ = figs[c.key].get("ttft_outlier")
        if out_:
            notes.append(f"{c.key}: {out_['text']}")
    return {
        "schema": SCHEMA,
        "campaign": {"name": doc.get("name"), "dir": str(d), "created_utc": doc.get("created_utc"),
                     "plan_file": doc.get("plan_file"), "simulated": bool(doc.get("simulated")),
                     "simulated_note": sim_note, "sim_time_scale": doc.get("sim_time_scale"),
                     "kv_policy": doc.get("kv_policy"),
                     "cells_planned": planned, "cells_complete": done, "cells_skipped": len(skipped),
                     "complete": done + len(skipped) >= planned and planned > 0,
                     "nodes": [{"name": n, "label": v.get("label"), "usd_per_hour": v.get("usd_per_hour"),
                                "session_dir": str(d / f"node-{n}")} for n, v in nodes.items()],
                     "statistic": "median per-request output tok/s (interpolated); bootstrap over requests "
                                  "(prompts paired where both cells ran the same ones) plus the launch part of the "
                                  f"two cells' launches (σ_L of the node), seed {SEED}, {N_BOOT} resamples"},
        "arms": arms_out,
        "cells": [figs[c.key] | {"forecast": _pre(pre.get(c.key), figs[c.key])} for c in cells],
        "routing": routing,
        "curves": curves,
        "ladders": ladders,
        "notes": notes,
    }


def _pre(e: dict | None, fig: dict) -> dict | None:
    if not e:
        return None
    m = fig.get("median_tok_s")
    return {"tok_s": e.get("tok_s"), "tau": e.get("tau"), "depth": e.get("depth"), "base_arm": e.get("base_arm"),
            "base_node": e.get("base_node"), "base_cell": e.get("base_cell"), "verify_tax_ms": e.get("verify_tax_ms"),
            "tax_source": e.get("tax_source"),
            "error_pct": 100.0 * (e["tok_s"] / m - 1.0) if m and e.get("tok_s") else None}


def _arm_row(c: _Cell, f: dict, anchor_list, cap) -> dict:
    return {"arm": c.arm, "node": c.node, "median_tok_s": f["median_tok_s"], "n": f["n_included"], "tau": f["tau"],
            "implied_step_ms": f["implied_step_ms"], "usd_per_m_tokens": f["usd_per_m_tokens"],
            "aggregate_tok_s": f["aggregate_tok_s"], "kv_capacity_tokens": cap.get((c.node, c.arm)),
            "anchors": anchor_list(c.node, c.arm), "cell_dir": f["cell_dir"], "complete": f["complete"]}


class _LaunchParts:
    """σ_L for a comparison of two campaign cells (`pairs.compare_legs`' launch part): None when both were measured
    in one launch of one node session; else the first cell's recorded prior (`launch_prior`, the profile's node)
    pooled with the node's record of pairs under the sessions root (same `node_key`), read once per node key."""

    def __init__(self, sessions_root: Path):
        self.root = sessions_root
        self._record: dict[str, list] = {}

    def __call__(self, a: _Cell, b: _Cell) -> lv.LaunchVariance | None:
        ma, mb = a.manifest, b.manifest
        if a.dir.parent == b.dir.parent and ma.get("launch") is not None and ma.get("launch") == mb.get("launch"):
            return None
        key = ma.get("node_key") if ma.get("node_key") == mb.get("node_key") else None
        record = []
        if key:
            if key not in self._record:
                from console.core.sessions.pairs import node_record
                self._record[key] = node_record(self.root, key)
            record = self._record[key]
        prior = ma.get("launch_prior") or (lv.DEFAULT_PRIOR_SD_PCT, lv.DEFAULT_PRIOR_DF)
        return lv.pooled(record, float(prior[0]), float(prior[1]))


def _compare(a: _Cell, b: _Cell, launch_of) -> Interval:
    """Δ% of b's median per-request tok/s over a's with the pair interval (prompts paired where possible, and the
    launch part of two launches unless one launch served both)."""
    var = launch_of(a, b)
    return compare_legs([a.rows], [b.rows], SEED, N_BOOT, launch=var, a_launches=[0], b_launches=[0 if var is None
                                                                                                  else 1])


PER_REQUEST = "median per-request tok/s"
AGGREGATE = "aggregate tok/s"


def _routing(cells: list[_Cell], figs, by_key, anchor_list, cap, launch_of) -> list[dict]:
    groups: dict[tuple[str, int], list[_Cell]] = {}
    for c in cells:
        groups.setdefault((c.prompt_set, c.concurrency), []).append(c)
    out = []
    for (ps, conc), cs in groups.items():
        ranked = sorted([c for c in cs if figs[c.key]["median_tok_s"]], key=lambda c: -figs[c.key]["median_tok_s"])
        entry: dict[str, Any] = {"domain": cs[0].domain, "context": cs[0].context, "prompt_set": ps,
                                 "concurrency": conc, "metric": "median per-request tok/s",
                                 "arms": [_arm_row(c, figs[c.key], anchor_list, cap) for c in ranked],
                                 "winner": None, "runner_up": None, "delta_pct": None, "ci95_pct": None,
                                 "resolved": False, "controlled": None, "decision": "no measured arm"}
        if len(ranked) == 1:
            entry.update(winner=ranked[0].arm, decision=f"{ranked[0].arm} (the only arm measured)")
        if len(ranked) >= 2:
            w, r = ranked[0], ranked[1]
            iv = _compare(r, w, launch_of)
            same = w.node == r.node
            entry.update(winner=w.arm, winner_node=w.node, runner_up=r.arm, runner_up_node=r.node,
                         delta_pct=iv.point_pct, ci95_pct=[iv.low_pct, iv.high_pct] if iv.low_pct is not None else None,
                         resolved=iv.resolved, controlled=same, mde_pct=iv.mde_pct, launch_sd_pct=iv.launch_sd_pct,
                         winner_cell=w.key, runner_up_cell=r.key)
            if not same:
                entry["decision"] = (f"{NEEDS_PAIR}: {w.arm} ({w.node}) vs {r.arm} ({r.node}) differ by "
                                     f"{iv.text()} in {PER_REQUEST} across nodes (uncontrolled; anchors "
                                     f"{_anchor_text(anchor_list(w.node, w.arm))} vs "
                                     f"{_anchor_text(anchor_list(r.node, r.arm))})")
                entry["winner"] = None
                entry["uncontrolled_leader"] = w.arm
                # the best same-node evidence for the leader, when its node measured another arm
                alt = next((c for c in ranked[1:] if c.node == w.node), None)
                if alt is not None:
                    iv2 = _compare(alt, w, launch_of)
                    entry["same_node"] = {"winner": w.arm, "runner_up": alt.arm, "node": w.node,
                                          **_interval(iv2)}
            else:
                # the one verdict format (measure/pairs), naming its quantity: the net-negative statements compare
                # aggregate tok/s of the same cells, and the two can disagree (`_explain_disagreements`)
                entry["decision"] = verdict(iv, w.arm, than=r.arm, quantity=PER_REQUEST)
                if not iv.resolved:
                    entry["winner"] = None
                    if iv.point_pct is not None:
                        entry["leader"] = w.arm
        out.append(entry)
    return out


def _anchor_text(anchors: list[dict]) -> str:
    vals = [a["median_tok_s"] for a in anchors if a.get("median_tok_s")]
    return "/".join(f"{v:.1f}" for v in vals) + " tok/s" if vals else "none"


def _curves(cells: list[_Cell], figs, by_key, arm_of, launch_of) -> list[dict]:
    groups: dict[tuple[str, str, str], list[_Cell]] = {}
    for c in cells:
        groups.setdefault((c.arm, c.node, c.prompt_set), []).append(c)
    out = []
    for (arm, node, ps), cs in groups.items():
        cs.sort(key=lambda c: c.concurrency)
        pts = [{k: figs[c.key][k] for k in ("concurrency", "aggregate_tok_s", "median_tok_s", "ttft_p50_s",
                                             "ttft_p99_s", "kv_usage_mean", "kv_usage_max", "queue_reqs_max",
                                             "queue_time_mean_s", "n_included", "tau", "complete")}
               | {"per_stream_median_tok_s": figs[c.key]["median_tok_s"]} for c in cs]
        entry: dict[str, Any] = {"arm": arm, "node": node, "domain": cs[0].domain, "context": cs[0].context,
                                 "prompt_set": ps, "points": pts, "net_negative": None}
        am = arm_of.get(arm, Arm())
        if am.speculative:
            entry["net_negative"] = _net_negative(arm, node, ps, cs, cells, arm_of, figs, launch_of)
        out.append(entry)
    return out


def _net_negative(arm: str, node: str, ps: str, cs: list[_Cell], cells: list[_Cell], arm_of, figs, launch_of
                  ) -> dict:
    """Where the drafter's aggregate tok/s falls below no-spec's on the same prompt set. A concurrency whose either
    cell is a TTFT outlier is withheld (its aggregate holds a shared stall, `ttft_outliers`); each point also
    carries the per-request Δ of the same two cells, so that `_explain_disagreements` can say why they differ."""
    base = [c for c in cells if c.prompt_set == ps and not arm_of.get(c.arm, Arm()).speculative]
    same = [c for c in base if c.node == node]
    pool, controlled = (same, True) if same else (base, False)
    if not pool:
        return {"vs": None, "concurrency": None, "statement": "no no-speculation arm measured on this prompt set",
                "points": [], "controlled": None}
    vs = pool[0].arm
    by_c = {c.concurrency: c for c in pool if c.arm == vs}
    pts = []
    first_neg = None
    first_below = None
    withheld = []
    for c in cs:
        b = by_c.get(c.concurrency)
        if b is None:
            continue
        var = launch_of(b, c)
        iv = bootstrap_aggregate(b.rows, c.rows, b.concurrency, c.concurrency, launch=var)
        per = _compare(b, c, launch_of)
        bad = [(x, figs[x.key]["ttft_outlier"]) for x in (c, b) if figs[x.key].get("ttft_outlier")]
        pt = {"concurrency": c.concurrency, **_interval(iv), "launch_sd_pct": iv.launch_sd_pct,
              "cell": c.key, "vs_cell": b.key, "per_request": _interval(per), "withheld": None}
        if bad:
            pt["withheld"] = "; ".join(f"{x.key}: {o['text']}" for x, o in bad)
            pt["resolved"] = False
            withheld.append((c.concurrency, bad))
        pts.append(pt)
        if bad:
            continue
        if iv.point_pct is not None and iv.point_pct < 0 and first_below is None:
            first_below = (c.concurrency, iv)
        if iv.resolved and iv.point_pct is not None and iv.point_pct < 0 and first_neg is None:
            first_neg = (c.concurrency, iv)
    where = "" if controlled else f" (uncontrolled: {vs} ran on {pool[0].node}, not {node})"
    usable = [p for p in pts if not p["withheld"]]
    if first_neg is not None:
        cc, iv = first_neg
        if usable and cc == usable[0]["concurrency"]:
            st = (f"{arm} does not pay against {vs} at any measured concurrency (from {cc}: "
                  f"{verdict(iv, arm, than=vs, quantity=AGGREGATE)}){where}")
        else:
            st = (f"{arm} stops paying against {vs} at concurrency {cc}: "
                  f"{verdict(iv, arm, than=vs, quantity=AGGREGATE)}{where}")
        res = {"concurrency": cc, "delta_pct": iv.point_pct, "ci95_pct": [iv.low_pct, iv.high_pct]}
    else:
        top = usable[-1] if usable else None
        beyond = top is not None and any(p["concurrency"] > top["concurrency"] for p in pts)
        st = (f"not reached up to concurrency {top['concurrency']}" + (", the highest not withheld" if beyond else "")
              if top else
              "not reached (no common concurrency)" if not pts else "no answer (every common concurrency withheld)")
        if top and top.get("delta_pct") is not None:
            lo, hi = top["ci95_pct"] or (None, None)
            st += f" ({AGGREGATE} {top['delta_pct']:+.1f}% [{lo:+.1f}, {hi:+.1f}] there)"
        if first_below is not None:
            st += f"; below no-spec from concurrency {first_below[0]} but unresolved"
        st += where
        res = {"concurrency": None, "delta_pct": None, "ci95_pct": None}
    for cc, bad in withheld:
        st += (f"; concurrency {cc} withheld: TTFT outlier in "
               + " and ".join(f"{x.arm}'s cell (p50 {o['ttft_p50_s']:.3g} s vs {o['reference_s']:.3g} s)"
                              for x, o in bad) + " — re-measure it")
    return {"vs": vs, "controlled": controlled, "metric": "aggregate output tok/s", "statement": st,
            "points": pts, **res}


def _explain_disagreements(routing: list[dict], curves: list[dict]) -> None:
    """Wherever the per-request Δ (the routing table's quantity) and the aggregate Δ (the net-negative statements')
    of the same two cells point opposite ways, both the routing entry and the net-negative point say so, naming
    each quantity and what separates them: the aggregate counts wall time from send to the last token — TTFT and
    queueing included — the per-request speed only the stream after the first token (docs/campaigns.md#analysis)."""
    by_pair = {}
    for r in routing:
        if r.get("winner_cell") and r.get("runner_up_cell"):
            by_pair[frozenset((r["winner_cell"], r["runner_up_cell"]))] = r
    cell_fig: dict[str, dict] = {}
    for cu in curves:
        for p in cu["points"]:
            cell_fig[f"{cu['arm']}@{cu['node']}/{cu['prompt_set']}/c{p['concurrency']}"] = p
    for cu in curves:
        nn = cu.get("net_negative") or {}
        for p in nn.get("points") or []:
            per, agg = (p.get("per_request") or {}).get("delta_pct"), p.get("delta_pct")
            if per is None or agg is None or (per >= 0) == (agg >= 0):
                continue
            fa, fb = cell_fig.get(p["cell"]) or {}, cell_fig.get(p["vs_cell"]) or {}

            def _t(f, k):
                v = f.get(k)
                return f"{v:.3g} s" if isinstance(v, (int, float)) else "—"
            why = (f"the two quantities disagree at {cu['prompt_set']} c{p['concurrency']}: {PER_REQUEST} (the "
                   f"stream after its first token) {per:+.1f}%, {AGGREGATE} (tokens over send-to-end wall time, TTFT "
                   f"and queueing included) {agg:+.1f}% for {cu['arm']} against {nn.get('vs')}; TTFT p50 "
                   f"{_t(fa, 'ttft_p50_s')} vs {_t(fb, 'ttft_p50_s')}")
            if p.get("withheld"):
                why += " — the aggregate is withheld (TTFT outlier)"
            p["disagreement"] = why
            route = by_pair.get(frozenset((p["cell"], p["vs_cell"])))
            if route is not None:
                route["disagreement"] = why  # beside the decision (which stays in the one verdict format)


def _ladders(cells: list[_Cell], figs, arm_of, pre) -> list[dict]:
    from console.core.sessions.forecasts import cell_forecast, default_depths
    groups: dict[tuple[str, str, str, int], list[_Cell]] = {}
    for c in cells:
        am = arm_of.get(c.arm, Arm())
        if not am.speculative or am.adaptive or am.depth is None or (not am.is_block and (am.topk or 1) != 1):
            continue
        groups.setdefault((c.prompt_set, am.family, am.kv_dtype, c.concurrency), []).append(c)
    out = []
    for (ps, fam, kv, conc), cs in groups.items():
        cs.sort(key=lambda c: arm_of[c.arm].depth)
        measured = [c for c in cs if figs[c.key]["median_tok_s"]]
        entry: dict[str, Any] = {"domain": cs[0].domain, "context": cs[0].context, "prompt_set": ps, "family": fam,
                                 "kv_dtype": kv, "concurrency": conc,
                                 "depth_word": "block" if arm_of[cs[0].arm].is_block else "depth",
                                 "controlled": len({c.node for c in cs}) == 1, "base": None, "points": [],
                                 "forecast_curve": [], "tax": None, "best_measured_depth": None}
        fc = None
        if measured:
            base = measured[0]
            depths = sorted(set(default_depths(fam.upper(), arm_of[base.arm].depth))
                            | {arm_of[c.arm].depth for c in cs})
            try:
                fc = cell_forecast(base.dir, depths).forecast
            except ValueError as e:
                entry["forecast_error"] = str(e)
            entry["base"] = {"arm": base.arm, "node": base.node, "depth": arm_of[base.arm].depth,
                             "cell_dir": str(base.dir)}
        if fc is not None:
            entry["forecast_curve"] = [{"depth": p.depth, "tok_s": p.tok_s, "tau": p.tau, "step_ms": p.step_ms,
                                        "extrapolated_positions": p.extrapolated_positions} for p in fc.points]
            entry["tax"] = {"ms": fc.tax.ms, "source": fc.tax.source, "text": fc.tax.text,
                            "ci_ms": list(fc.tax.ci_ms) if fc.tax.ci_ms else None}
        for c in cs:
            f = figs[c.key]
            dep = arm_of[c.arm].depth
            pt = fc.at(dep) if fc is not None else None
            entry["points"].append({
                "depth": dep, "arm": c.arm, "node": c.node, "measured_tok_s": f["median_tok_s"],
                "measured_tau": f["tau"], "n": f["n_included"],
                "forecast_tok_s": pt.tok_s if pt else None, "forecast_tau": pt.tau if pt else None,
                "error_pct": 100.0 * (pt.tok_s / f["median_tok_s"] - 1.0) if pt and f["median_tok_s"] else None,
                "forecast_before_run": _pre(pre.get(c.key), f), "cell_dir": f["cell_dir"]})
        if measured:
            best = max(measured, key=lambda c: figs[c.key]["median_tok_s"])
            entry["best_measured_depth"] = arm_of[best.arm].depth
        out.append(entry)
    return out
