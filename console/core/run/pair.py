"""Running a same-session pair on one `Runtime` and writing its artifacts (`pair.json`, `report.md`).

Relaunch mode (the arms differ in launch flags): legs run in the given order (default A B A); before each
leg the runtime relaunches the leg's arm unless it is already running, and every arm is anchored right after
its launch. Before the first B leg, when B differs from A only in draft depth, the depth forecast from the
first A leg is written down, so the measurement can be compared with what was predicted.

Interleaved mode (same launch flags, different prompts or sampling): one server, requests alternate
A, B, A, B … after one warm-up and one cache flush, so time affects both arms alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from console.core.launch.process import EngineLost
from console.core.launch.profile import Profile
from console.core.measure.pairs import PairStats, parse_order
from console.core.redaction import redact_argv
from console.core.run.cell import CellProtocol, Leg as CellLeg, run_legs
from console.core.run.runtime import Runtime
from console.core.sessions.pairs import Leg, write_pair


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
        if arm == "B" and count["B"] == 1 and fc_doc is None:
            # before B's launch: the forecast reads only what A measured (B's anchor, a depth-B measurement, would
            # otherwise enter the session's fitted tax and the forecast would partly restate B)
            fc_doc = _forecast_b(spec, legs)
            if fc_doc is not None and "refused" in fc_doc:
                say(f"no forecast for B (depth {fc_doc['depth']}): {fc_doc['refused']}")
            elif fc_doc is not None:
                say(f"forecast for B (depth {fc_doc['depth']}): {fc_doc['tok_s']:.1f} tok/s, τ {fc_doc['tau']:.2f}"
                    f" — written before B is launched")
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
        say(f"leg {arm}{count[arm]}: measuring {spec.protocol.n} × {spec.protocol.prompt_set}")
        await rt.run_cell(spec.protocol, label=f"{arm}{count[arm]}-{spec.protocol.prompt_set}")
        cell = rt.state.cells_done[-1]
        a_rec = rt.state.arms[arm_idx]
        info = rt.state.server
        legs.append(Leg(arm=arm, index=count[arm], profile=prof.name, cell_dir=cell.cell_dir or "",
                        anchor_cell_dir=anchor_dir, anchor_median_tok_s=a_rec.anchor_median_tok_s,
                        anchor_pct=a_rec.anchor_pct, kv_capacity_tokens=info.max_total_num_tokens if info else None,
                        num_draft_tokens=info.arm.draft_tokens if info and info.arm.speculative else None,
                        spec_label=info.arm.label() if info else None))
    return legs, fc_doc


def _forecast_b(spec: PairSpec, legs: list[Leg]) -> dict | None:
    """Forecast of B from the first A leg, when B is A at another depth (same family, KV dtype, model): the one
    forecast (sessions.forecasts.cell_forecast), written before B is launched: it reads A's measurements only."""
    from console.core.sessions.forecasts import cell_forecast
    a, b = spec.a.arm, spec.b.arm
    if not (a.speculative and a.family == b.family and a.kv_dtype == b.kv_dtype and a.draft_model == b.draft_model
            and spec.a.model_path == spec.b.model_path and a.depth != b.depth and b.depth):
        return None
    first_a = next((leg for leg in legs if leg.arm == "A"), None)
    if first_a is None:
        return None
    try:
        fc = cell_forecast(Path(first_a.cell_dir), [b.depth]).forecast
    except ValueError as e:  # no forecast, and why (e.g. no verify tax known for this model): said in the report
        return {"depth": b.depth, "refused": str(e)}
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
    sa, sb = rt.prompt_set(pa.prompt_set), rt.prompt_set(pb.prompt_set)
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
    say(f"interleaving {pa.n} A and {pb.n} B requests on one server")
    order = [writers[arm] for arm in ("A", "B")]
    results = await run_legs(rt.stream, rt.admin, [CellLeg(pset, proto, w) for w, proto, pset in order], model=model,
                             num_draft_tokens=info.arm.draft_tokens if info and info.arm.speculative else None,
                             engine_alive=rt._engines_alive if rt.engine is not None else None)
    for res in results:
        for rec in res.rows:
            rt.monitor.record_finished(rec)
    if any(r.interrupted for r in results):
        raise EngineLost(f"the engine died during the interleaved pair ({rt.state.error or 'no cause read'}); "
                         f"its cells are kept as recorded (complete=false) in {rt.session.dir}")
    legs = []
    for arm in ("A", "B"):
        w, proto, pset = writers[arm]
        arm_rec = rt.state.arms[-1]
        legs.append(Leg(arm=arm, index=1, profile=(spec.a if arm == "A" else spec.b).name, cell_dir=str(w.dir),
                        anchor_median_tok_s=arm_rec.anchor_median_tok_s, anchor_pct=arm_rec.anchor_pct,
                        kv_capacity_tokens=info.max_total_num_tokens if info else None,
                        num_draft_tokens=info.arm.draft_tokens if info and info.arm.speculative else None,
                        spec_label=info.arm.label() if info else None))
    return legs


def _finish(session_dir: Path, spec: PairSpec, legs: list[Leg], fc: dict | None) -> PairResult:
    """Write the pair's artifacts (sessions/pairs.py owns their format) and return the result."""
    spec_doc = {"a": spec.a.name, "b": spec.b.name, "a_argv": redact_argv(spec.a.server_flags()),
                "b_argv": redact_argv(spec.b.server_flags()), "protocol": asdict(spec.protocol),
                "b_protocol": asdict(spec.b_protocol) if spec.b_protocol else None, "order": spec.order,
                "seed": spec.seed, "n_boot": 2000, "interleaved": spec.interleaved(),
                "node_usd_per_hour": spec.a.node_usd_per_hour}
    doc, ps, cmp, pair_path, report_path = write_pair(session_dir, spec_doc, legs, fc)
    return PairResult(dir=session_dir, legs=legs, stats=ps, forecast=fc, comparison=cmp, doc=doc,
                      pair_path=pair_path, report_path=report_path)
