"""Running a same-session pair on one `Runtime` and writing its artifacts (`pair.json`, `report.md`).

Relaunch mode (the arms differ in launch flags): legs run in the given order (default A B A); before each
leg the runtime relaunches the leg's arm unless it is already running, and every arm is anchored right after
its launch. Before the first B leg, when B differs from A only in draft depth, the depth forecast from the
first A leg is written down, so the measurement can be compared with what was predicted.

Interleaved mode (same launch flags, different prompts or sampling): one server, requests alternate
A, B, A, B … after one warm-up and one cache flush, so time affects both arms alike.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from console.core.launch.profile import Profile
from console.core.redaction import redact_argv
from console.core.measure import stats
from console.core.measure.cell import CellProtocol, _send, gate, request_plan
from console.core.measure.pairs import PairStats, pair_stats, parse_order, speeds
from console.core.measure.plots import histogram_lines, position_bars
from console.core.runtime import Runtime
from console.core.sessions.report import time_scale_note
from console.core.sessions.store import load_rows, read_json, write_json
from console.core.workload.prompts import load_set

PAIR_SCHEMA = 1


@dataclass
class PairSpec:
    a: Profile
    b: Profile
    protocol: CellProtocol
    b_protocol: CellProtocol | None = None
    """B's protocol when it differs from A's (interleaved pairs: other prompts or sampling)."""
    order: str = "ABA"
    seed: int = 0
    interleave: bool | None = None
    """None: interleave exactly when both arms compile to the same launch flags."""

    def needs_relaunch(self) -> bool:
        return self.a.launch_key() != self.b.launch_key()

    def interleaved(self) -> bool:
        return (not self.needs_relaunch()) if self.interleave is None else self.interleave


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


@dataclass
class PairResult:
    dir: Path
    legs: list[Leg]
    stats: PairStats
    forecast: dict[str, Any] | None = None
    comparison: dict[str, Any] | None = None
    doc: dict[str, Any] = field(default_factory=dict)
    pair_path: Path | None = None
    report_path: Path | None = None


async def run_pair(rt: Runtime, spec: PairSpec, say: Callable[[str], None] = lambda s: None) -> PairResult:
    """Run every leg of `spec` on `rt` (started on arm A) and write the pair's artifacts."""
    spec.protocol.validate()
    if spec.b_protocol is not None:
        spec.b_protocol.validate()
    assert rt.session is not None
    if spec.interleaved():
        legs = await _run_interleaved(rt, spec, say)
    else:
        legs, fc = await _run_legs(rt, spec, say)
        return _finish(rt.session.dir, spec, legs, fc)
    return _finish(rt.session.dir, spec, legs, None)


async def _run_legs(rt: Runtime, spec: PairSpec, say) -> tuple[list[Leg], dict | None]:
    order = parse_order(spec.order)
    profiles = {"A": spec.a, "B": spec.b}
    legs: list[Leg] = []
    fc_doc = None
    count = {"A": 0, "B": 0}
    running = "A" if rt.profile is not None and rt.profile.launch_key() == spec.a.launch_key() else None
    anchored: set[tuple[str, int]] = set()
    for arm in order:
        count[arm] += 1
        prof = profiles[arm]
        if running != arm:
            say(f"leg {arm}{count[arm]}: launching {prof.name}")
            if running is None and rt.state.phase not in ("ready",):
                raise RuntimeError("the runtime must be started before a pair runs")
            await rt.relaunch(prof, anchor=False)
            running = arm
        arm_idx = len(rt.state.arms) - 1
        anchor_dir = None
        if (arm, arm_idx) not in anchored:
            say(f"leg {arm}{count[arm]}: anchor")
            await rt.run_anchor()
            anchored.add((arm, arm_idx))
            anchor_dir = rt.state.cells_done[-1].cell_dir
        if arm == "B" and count["B"] == 1 and fc_doc is None:
            fc_doc = _forecast_b(spec, legs)
            if fc_doc is not None:
                say(f"forecast for B (depth {fc_doc['depth']}): {fc_doc['tok_s']:.1f} tok/s, τ {fc_doc['tau']:.2f}"
                    f" — written before B runs")
        say(f"leg {arm}{count[arm]}: measuring {spec.protocol.n} × {spec.protocol.prompt_set}")
        await rt.run_cell(spec.protocol, label=f"{arm}{count[arm]}-{spec.protocol.prompt_set}")
        cell = rt.state.cells_done[-1]
        a_rec = rt.state.arms[arm_idx]
        info = rt.state.server
        legs.append(Leg(arm=arm, index=count[arm], profile=prof.name, cell_dir=cell.cell_dir or "",
                        anchor_cell_dir=anchor_dir, anchor_median_tok_s=a_rec.anchor_median_tok_s,
                        anchor_pct=a_rec.anchor_pct, kv_capacity_tokens=info.max_total_num_tokens if info else None,
                        num_draft_tokens=info.spec.num_draft_tokens if info and info.spec.enabled else None,
                        spec_label=info.spec.label() if info else None))
    return legs, fc_doc


def _forecast_b(spec: PairSpec, legs: list[Leg]) -> dict | None:
    """Forecast of B from the first A leg, when B is A at another depth (same family, KV dtype, model): the one
    forecast (sessions.browse.cell_forecast), written before B runs."""
    from console.core.sessions.browse import cell_forecast
    a, b = spec.a.arm, spec.b.arm
    if not (a.speculative and a.family == b.family and a.kv_dtype == b.kv_dtype and a.draft_model == b.draft_model
            and spec.a.model_path == spec.b.model_path and a.depth != b.depth and b.depth):
        return None
    first_a = next((leg for leg in legs if leg.arm == "A"), None)
    if first_a is None:
        return None
    try:
        fc = cell_forecast(Path(first_a.cell_dir), [b.depth]).forecast
    except ValueError:
        return None
    pt = fc.at(b.depth)
    if pt is None:
        return None
    return {"depth": pt.depth, "tok_s": pt.tok_s, "tau": pt.tau, "step_ms": pt.step_ms,
            "from_cell": first_a.cell_dir, "verify_tax_ms": fc.verify_tax_ms, "tax_source": fc.tax_source,
            "extrapolated_positions": pt.extrapolated_positions, "base": {"depth": fc.base_depth,
                                                                         "tok_s": fc.base_tok_s, "tau": fc.base_tau}}


async def _run_interleaved(rt: Runtime, spec: PairSpec, say) -> list[Leg]:
    """One server, A and B requests alternating, each arm into its own cell."""
    assert rt.session is not None and rt.stream is not None and rt.admin is not None
    pa = spec.protocol
    pb = spec.b_protocol or spec.protocol
    sa, sb = load_set(pa.prompt_set), load_set(pb.prompt_set)
    if not rt.state.arms or rt.state.arms[-1].anchor_median_tok_s is None:
        say("anchor")
        await rt.run_anchor()
    info = rt.state.server
    model = info.model_name() if info else "default"
    writers = {}
    for arm, proto, pset in (("A", pa, sa), ("B", pb, sb)):
        w = rt.session.new_cell(f"{arm}1-{pset.name}-interleaved")
        m = rt._cell_manifest(proto, pset, f"{arm}1-{pset.name}")
        m["pair_interleaved"] = True
        w.write_manifest(m)
        writers[arm] = (w, proto, pset)
    for i in range(max(pa.warmup, pb.warmup)):
        await _send(rt.stream, sa.prompts[i % len(sa)], pa, f"warmup#{i}", model, min(pa.max_tokens, 64))
    await rt.admin.flush_cache()
    plans = {"A": request_plan(sa, pa.n), "B": request_plan(sb, pb.n)}
    say(f"interleaving {pa.n} A and {pb.n} B requests on one server")
    for i in range(max(pa.n, pb.n)):
        for arm in ("A", "B"):
            w, proto, pset = writers[arm]
            if i < len(plans[arm]):
                rid, prompt = plans[arm][i]
                rec = await _send(rt.stream, prompt, proto, rid, model, proto.max_tokens)
                gate(rec, proto, pset.window)
                await asyncio.to_thread(w.append, rec)
                rt.monitor.record_finished(rec)
    legs = []
    for arm in ("A", "B"):
        w, proto, pset = writers[arm]
        rows = load_rows(w.dir)
        w.write_summary(stats.summarize(rows).to_json())
        w.update_manifest(complete=True, ended_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        arm_rec = rt.state.arms[-1]
        legs.append(Leg(arm=arm, index=1, profile=(spec.a if arm == "A" else spec.b).name, cell_dir=str(w.dir),
                        anchor_median_tok_s=arm_rec.anchor_median_tok_s, anchor_pct=arm_rec.anchor_pct,
                        kv_capacity_tokens=info.max_total_num_tokens if info else None,
                        num_draft_tokens=info.spec.num_draft_tokens if info and info.spec.enabled else None,
                        spec_label=info.spec.label() if info else None))
    return legs


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
    ps = pair_stats(
        a_legs, b_legs, order=spec["order"], seed=spec["seed"], n_boot=spec.get("n_boot", 2000),
        a_name=spec["a"], b_name=spec["b"], a_ndt=first["A"].num_draft_tokens, b_ndt=first["B"].num_draft_tokens,
        a_kv=first["A"].kv_capacity_tokens, b_kv=first["B"].kv_capacity_tokens, nospec_kv=caps[0] if caps else None,
        usd_per_hour=spec.get("node_usd_per_hour"),
        a_anchors=[(leg.anchor_median_tok_s, leg.anchor_pct) for leg in legs if leg.arm == "A"],
        b_anchors=[(leg.anchor_median_tok_s, leg.anchor_pct) for leg in legs if leg.arm == "B"])
    cmp = None
    fc = doc.get("forecast")
    if fc and ps.b.median_tok_s:
        err = 100.0 * (fc["tok_s"] / ps.b.median_tok_s - 1.0)
        cmp = {"depth": fc["depth"], "predicted_tok_s": fc["tok_s"], "measured_tok_s": ps.b.median_tok_s,
               "error_pct": err, "predicted_tau": fc["tau"], "measured_tau": ps.b.tau}
    return ps, cmp


def _resolve(base: Path, cell_dir: str) -> Path:
    p = Path(cell_dir)
    return p if p.is_absolute() else base / p


def _finish(session_dir: Path, spec: PairSpec, legs: list[Leg], fc: dict | None) -> PairResult:
    for leg in legs:  # store cell paths relative to the session: the folder can move
        for attr in ("cell_dir", "anchor_cell_dir"):
            v = getattr(leg, attr)
            if v and Path(v).is_absolute() and Path(v).parent == session_dir:
                setattr(leg, attr, Path(v).name)
    doc = {
        "schema": PAIR_SCHEMA,
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "spec": {"a": spec.a.name, "b": spec.b.name, "a_argv": redact_argv(spec.a.server_flags()),
                 "b_argv": redact_argv(spec.b.server_flags()), "protocol": asdict(spec.protocol),
                 "b_protocol": asdict(spec.b_protocol) if spec.b_protocol else None, "order": spec.order,
                 "seed": spec.seed, "n_boot": 2000, "interleaved": spec.interleaved(),
                 "node_usd_per_hour": spec.a.node_usd_per_hour},
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
    return PairResult(dir=session_dir, legs=legs, stats=ps, forecast=fc, comparison=cmp, doc=doc,
                      pair_path=pair_path, report_path=report_path)


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
    later = sorted(d.glob("pair-*.json"), key=lambda p: int(p.stem.split("-", 1)[1]) if p.stem.split("-", 1)[1].isdigit() else 0)
    return first + later


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


def _n(v, spec=".1f", unit="") -> str:
    return "—" if v is None else f"{v:{spec}}{unit}"


def report_markdown(doc: dict[str, Any], ps: PairStats, cmp: dict | None, base: Path) -> str:
    sp = doc["spec"]
    a, b = ps.a, ps.b
    lines = [f"# Pair: {sp['a']} (A) vs {sp['b']} (B)", "",
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
        ("KV capacity tax vs no-spec", _n(a.kv_capacity_tax * 100 if a.kv_capacity_tax is not None else None, ".1f", "%"),
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
    if ps.drift is not None:
        lines.append(f"Drift (A last leg vs A first leg): {ps.drift.text()}")
    if ps.drift_flag:
        lines.append(f"**Drift flag:** {ps.drift_flag}")
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
    lines += ["```", "", "Recompute: `serving-console report <this session directory>`.", ""]
    return "\n".join(lines)


def recompute_pair(session_dir: Path, pair_path: Path | None = None) -> tuple[dict[str, Any], PairStats, dict | None]:
    """Re-derive a pair's statistics from its legs' rows (the session's first pair unless `pair_path`)."""
    doc = read_json(pair_path or Path(session_dir) / "pair.json")
    ps, cmp = compute(doc, Path(session_dir))
    return doc, ps, cmp
