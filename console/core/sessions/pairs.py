"""Pair artifacts (docs/measurement.md#cells-anchors-pairs): the format of pair.json and report.md in a session,
written once when a pair finishes and recomputed from the legs' rows by `serving-console report` and the sessions
browser."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from console.core.fmt import num as _n, utc_iso
from console.core.measure.launches import THIS_PAIR, LaunchReading
from console.core.measure.pairs import LaunchPlan, PairStats, interval_notes, launch_ids, pair_stats, speeds
from console.core.measure.plots import histogram_lines, position_bars
from console.core.sessions.alarms import alarms_markdown
from console.core.sessions.report import simulated_note, time_scale_note
from console.core.sessions.store import load_rows, read_json, write_json

PAIR_SCHEMA = 2
"""2: the interval holds the launch part (spec.launch: the prior and the node record it pooled; legs carry their
launch id) and pairs the prompts. A schema-1 document is recomputed as recorded: requests only."""


@dataclass
class Leg:
    arm: str
    index: int
    profile: str
    cell_dir: str
    anchor_cell_dir: str | None = None
    anchor_median_tok_s: float | None = None
    anchor_pct: float | None = None
    kv_capacity_tokens: int | None = None
    num_draft_tokens: int | None = None
    spec_label: str | None = None
    launch: int | None = None
    """Which launch of the pair served the leg (0, 1, …); None in schema-1 documents (inferred from the order)."""


# --- artifacts -------------------------------------------------------------------------------

def compute(doc: dict[str, Any], base: Path) -> tuple[PairStats, dict | None]:
    """Pair statistics (and forecast comparison) from the legs' rows alone."""
    legs = [Leg(**leg) for leg in doc["legs"]]
    rows = {leg.cell_dir: load_rows(_resolve(base, leg.cell_dir)) for leg in legs}
    a_legs = [rows[leg.cell_dir] for leg in legs if leg.arm == "A"]
    b_legs = [rows[leg.cell_dir] for leg in legs if leg.arm == "B"]
    first = {arm: next(leg for leg in legs if leg.arm == arm) for arm in ("A", "B")}
    caps = [leg.kv_capacity_tokens for leg in legs if leg.num_draft_tokens is None and leg.kv_capacity_tokens]
    spec = doc["spec"]
    plan = launch_plan(doc, legs, base)
    ps = pair_stats(
        a_legs, b_legs, order=spec["order"], seed=spec["seed"], n_boot=spec.get("n_boot", 2000),
        a_name=spec["a"], b_name=spec["b"], a_ndt=first["A"].num_draft_tokens, b_ndt=first["B"].num_draft_tokens,
        a_kv=first["A"].kv_capacity_tokens, b_kv=first["B"].kv_capacity_tokens, nospec_kv=caps[0] if caps else None,
        usd_per_hour=spec.get("node_usd_per_hour"),
        a_anchors=[(leg.anchor_median_tok_s, leg.anchor_pct) for leg in legs if leg.arm == "A"],
        b_anchors=[(leg.anchor_median_tok_s, leg.anchor_pct) for leg in legs if leg.arm == "B"], launches=plan)
    cmp = None
    fc = doc.get("forecast")
    if fc and "refused" not in fc and ps.b.median_tok_s:
        err = 100.0 * (fc["tok_s"] / ps.b.median_tok_s - 1.0)
        cmp = {"depth": fc["depth"], "predicted_tok_s": fc["tok_s"], "measured_tok_s": ps.b.median_tok_s,
               "error_pct": err, "predicted_tau": fc["tau"], "measured_tau": ps.b.tau}
    return ps, cmp


def launch_plan(doc: dict[str, Any], legs: list[Leg], base: Path) -> LaunchPlan | None:
    """The launch part of a pair document's interval: each leg's launch, each launch's anchor rows, the prior and
    the node record as recorded in spec.launch (None for a schema-1 document: requests only, as it was recorded)."""
    spec_l = doc["spec"].get("launch")
    if not spec_l:
        return None
    ia, ib = launch_ids([leg.arm for leg in legs], bool(doc["spec"].get("interleaved")))
    if all(leg.launch is not None for leg in legs):
        ia = [leg.launch for leg in legs if leg.arm == "A"]  # type: ignore[misc]  # all set (checked above)
        ib = [leg.launch for leg in legs if leg.arm == "B"]  # type: ignore[misc]

    def anchor(leg: Leg) -> list | None:
        d = _resolve(base, leg.anchor_cell_dir) if leg.anchor_cell_dir else None
        return load_rows(d) if d is not None and d.exists() else None

    return LaunchPlan(ia, ib, [anchor(leg) for leg in legs if leg.arm == "A"],
                      [anchor(leg) for leg in legs if leg.arm == "B"], prior_sd_pct=float(spec_l["prior_sd_pct"]),
                      prior_df=float(spec_l["prior_df"]),
                      record=[LaunchReading.from_json(r) for r in spec_l.get("record") or []])


def node_record(sessions_root: Path, node_key: str, exclude: Path | None = None) -> list[LaunchReading]:
    """The node's launch record: the own reading of every earlier pair recorded under `sessions_root` on the same
    node (spec.launch.node_key), each named by its pair document (session/pair-N.json)."""
    out: list[LaunchReading] = []
    root = Path(sessions_root)
    if not root.is_dir():
        return out
    for sdir in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in pair_files(sdir):
            if exclude is not None and f.resolve() == exclude.resolve():
                continue
            try:
                doc = read_json(f)
            except (OSError, ValueError):
                continue
            if ((doc.get("spec") or {}).get("launch") or {}).get("node_key") != node_key:
                continue
            for r in ((doc.get("stats") or {}).get("launch") or {}).get("readings") or []:
                if r.get("source") == THIS_PAIR:
                    out.append(LaunchReading.from_json({**r, "source": f"{sdir.name}/{f.name}"}))
    return out


def _resolve(base: Path, cell_dir: str) -> Path:
    p = Path(cell_dir)
    return p if p.is_absolute() else base / p


def write_pair(session_dir: Path, spec_doc: dict[str, Any], legs: list[Leg], fc: dict | None
               ) -> tuple[dict[str, Any], PairStats, dict | None, Path, Path]:
    """pair.json (pair-N.json for later pairs) and report.md (report-N.md) of a finished pair, every figure computed
    from the legs' rows; cell paths are stored relative to the session (the folder can move)."""
    for leg in legs:
        for attr in ("cell_dir", "anchor_cell_dir"):
            v = getattr(leg, attr)
            if v and Path(v).is_absolute() and Path(v).parent == session_dir:
                setattr(leg, attr, Path(v).name)
    doc = {
        "schema": PAIR_SCHEMA,
        "created_utc": utc_iso(),
        "spec": spec_doc,
        "legs": [asdict(leg) for leg in legs],
        "forecast": fc,
    }
    doc["sim_time_scale"] = pair_time_scale(doc, session_dir)
    ps, cmp = compute(doc, session_dir)
    doc["stats"] = ps.to_json()
    doc["forecast_vs_measured"] = cmp
    doc["verdict"] = ps.verdict
    pair_path, report_path = _artifact_names(session_dir)
    write_json(pair_path, doc)
    report_path.write_text(report_markdown(doc, ps, cmp, session_dir))
    return doc, ps, cmp, pair_path, report_path


def _artifact_names(session_dir: Path) -> tuple[Path, Path]:
    """pair.json/report.md for a session's first pair; pair-2.json/report-2.md … for later ones."""
    if not (session_dir / "pair.json").exists():
        return session_dir / "pair.json", session_dir / "report.md"
    k = 2
    while (session_dir / f"pair-{k}.json").exists():
        k += 1
    return session_dir / f"pair-{k}.json", session_dir / f"report-{k}.md"


def pair_files(session_dir: Path) -> list[Path]:
    """The session's pair documents in recording order."""
    d = Path(session_dir)
    first = [d / "pair.json"] if (d / "pair.json").exists() else []
    later = sorted(d.glob("pair-*.json"),
                   key=lambda p: int(p.stem.split("-", 1)[1]) if p.stem.split("-", 1)[1].isdigit() else 0)
    return first + later


def pair_simulated(doc: dict[str, Any], base: Path) -> tuple[bool, str | None]:
    """(measured on the twin, the fitted node it served as) from the legs' manifests."""
    sim, node = False, None
    for leg in doc["legs"]:
        mf = _resolve(base, leg["cell_dir"]) / "manifest.json"
        if mf.exists():
            m = read_json(mf)
            sim = sim or bool(m.get("simulated"))
            node = node or m.get("sim_node")
    return sim, node


def pair_simulated_note(doc: dict[str, Any], base: Path) -> str | None:
    sim, node = pair_simulated(doc, base)
    return simulated_note(sim, pair_time_scale(doc, base), node)


def pair_time_scale(doc: dict[str, Any], base: Path) -> float | None:
    """The twin's time scale the legs were measured at (from their manifests); None on a real engine."""
    if "sim_time_scale" in doc:
        return doc["sim_time_scale"]
    scales = set()
    for leg in doc["legs"]:
        mf = _resolve(base, leg["cell_dir"]) / "manifest.json"
        if mf.exists():
            scales.add(read_json(mf).get("sim_time_scale"))
    return scales.pop() if len(scales) == 1 else None




def report_markdown(doc: dict[str, Any], ps: PairStats, cmp: dict | None, base: Path) -> str:
    sp = doc["spec"]
    a, b = ps.a, ps.b
    sim = pair_simulated_note(doc, base)
    lines = [f"# Pair: {sp['a']} (A) vs {sp['b']} (B)", "", *([f"**{sim}**", ""] if sim else []),
             f"**{ps.verdict}**", "",
             f"Order {sp['order']}{' (interleaved on one server)' if sp.get('interleaved') else ''} · prompt set "
             f"`{sp['protocol']['prompt_set']}` · n {sp['protocol']['n']} per leg · max tokens "
             f"{sp['protocol']['max_tokens']} · temperature {sp['protocol']['temperature']} · concurrency "
             f"{sp['protocol']['concurrency']} · bootstrap {ps.n_boot} resamples, seed {ps.seed}", "",
             "| | A | B |", "|---|---|---|"]
    rows = [
        ("requests (n, legs)", f"{a.n}, {a.legs}", f"{b.n}, {b.legs}"),
        ("median tok/s (interp.)", _n(a.median_tok_s), _n(b.median_tok_s)),
        ("p10 / p90 tok/s", f"{_n(a.p10_tok_s)} / {_n(a.p90_tok_s)}", f"{_n(b.p10_tok_s)} / {_n(b.p90_tok_s)}"),
        ("IQR tok/s", _n(a.iqr_tok_s), _n(b.iqr_tok_s)),
        ("leg medians", ", ".join(_n(x) for x in a.leg_medians), ", ".join(_n(x) for x in b.leg_medians)),
        ("anchor tok/s (per launch)", ", ".join(_n(x) for x in a.anchor_median_tok_s),
         ", ".join(_n(x) for x in b.anchor_median_tok_s)),
        ("anchor % of reference", ", ".join(_n(x, ".0f", "%") for x in a.anchor_pct),
         ", ".join(_n(x, ".0f", "%") for x in b.anchor_pct)),
        ("TTFT median", _n(a.ttft_median_s, ".3f", " s"), _n(b.ttft_median_s, ".3f", " s")),
        ("τ (pooled)", _n(a.tau, ".2f"), _n(b.tau, ".2f")),
        ("implied step", _n(a.implied_step_ms, ".2f", " ms"), _n(b.implied_step_ms, ".2f", " ms")),
        ("KV capacity", _n(a.kv_capacity_tokens, ",", " tokens"), _n(b.kv_capacity_tokens, ",", " tokens")),
        ("KV capacity tax vs no-spec",
         _n(a.kv_capacity_tax * 100 if a.kv_capacity_tax is not None else None, ".1f", "%"),
         _n(b.kv_capacity_tax * 100 if b.kv_capacity_tax is not None else None, ".1f", "%")),
        ("$/M output tokens", _n(a.usd_per_m_tokens, ".2f"), _n(b.usd_per_m_tokens, ".2f")),
    ]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} |" for r in rows]
    notes = []
    if all(x is None for x in a.anchor_pct + b.anchor_pct) and (a.anchor_median_tok_s or b.anchor_median_tok_s):
        notes.append("Anchor % needs a reference: set `reference_tok_s` under `[anchor]` in the profile (e.g. the "
                     "anchor median of a known-good launch); the anchors' tok/s above still compare launches.")
    ts = time_scale_note(pair_time_scale(doc, base), {"A": a.median_tok_s, "B": b.median_tok_s})
    if ts:
        notes.append(ts)
    if notes:
        lines += [""] + [f"_{n}_" for n in notes]
    lines += ["", f"Effect (B vs A, median of per-request tok/s): {ps.effect.text()}"]
    lines += [f"- {line}" for line in interval_notes(ps, sp.get("sequential"))]
    if ps.drift is not None:
        lines.append(f"Drift (A last leg vs A first leg): {ps.drift.text()}")
    if ps.drift_flag:
        lines.append(f"**Drift flag:** {ps.drift_flag}")
    refused = (doc.get("forecast") or {}).get("refused")
    if refused:
        lines += ["", "## Forecast vs measured", "", f"No forecast of depth {doc['forecast']['depth']} before B ran: "
                  f"{refused}."]
    if cmp:
        lines += ["", "## Forecast vs measured", "",
                  f"Depth {cmp['depth']}: predicted {cmp['predicted_tok_s']:.1f} tok/s (τ {cmp['predicted_tau']:.2f}) "
                  f"before B ran; measured {cmp['measured_tok_s']:.1f} tok/s (τ {_n(cmp['measured_tau'], '.2f')}); "
                  f"error {cmp['error_pct']:+.1f}%."]
    lines += ["", "## tok/s distributions (same axis)", "", "```"]
    lo_hi = [x for x in (a.p10_tok_s, b.p10_tok_s, a.p90_tok_s, b.p90_tok_s) if x is not None]
    for arm in ("A", "B"):
        vals = []
        for leg in doc["legs"]:
            if leg["arm"] == arm:
                vals += speeds(load_rows(_resolve(base, leg["cell_dir"])))
        lines.append(f"{arm}: n={len(vals)}")
        lines += histogram_lines(vals, 60, lo=min(lo_hi) * 0.9 if lo_hi else None,
                                 hi=max(lo_hi) * 1.1 if lo_hi else None) or ["(too few values)"]
    lines += ["```", "", "## Acceptance per draft position", "", "```"]
    for arm_s in (a, b):
        lines.append(f"{arm_s.name}: τ {_n(arm_s.tau, '.2f')}")
        lines += position_bars(arm_s.per_position_acceptance or [], 40) or ["(no speculation)"]
    lines += ["```"]
    lines += alarms_markdown(base)
    lines += ["", "Recompute: `serving-console report <this session directory>`.", ""]
    return "\n".join(lines)


def recompute_pair(session_dir: Path, pair_path: Path | None = None) -> tuple[dict[str, Any], PairStats, dict | None]:
    """Re-derive a pair's statistics from its legs' rows (the session's first pair unless `pair_path`)."""
    doc = read_json(pair_path or Path(session_dir) / "pair.json")
    ps, cmp = compute(doc, Path(session_dir))
    return doc, ps, cmp
