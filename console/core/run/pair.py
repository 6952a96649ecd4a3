"""Running a same-session pair on one `Runtime` and writing its artifacts (`pair.json`, `report.md`).

Relaunch mode (the arms differ in launch flags): legs run in the given order (default A B A); before each
leg the runtime relaunches the leg's arm unless it is already running, and every arm is anchored right after
its launch. Before the first B leg, when B differs from A only in draft depth, the depth forecast from the
first A leg is written down, so the measurement can be compared with what was predicted.

Interleaved mode (same launch flags, different prompts or sampling): one server, requests alternate
A, B, A, B … after one warm-up and one cache flush, so time affects both arms alike.

Sequential mode (`until_ci_pct` or `until_mde_pct`, relaunch pairs): after the order's legs, rounds of B A legs
are added while the effect's 95% CI is wider than ± the target (or its MDE, the smallest change the pair resolves in
80% of repeats, is above the target), up to `max_rounds` rounds and `max_minutes`. The rule stops on the interval's
width, never on its verdict: the width depends on the spread of the requests and of the launches, not on where the
effect lands, so looking after every round does not inflate the false-positive rate (measured on the twin:
tests/bench/test_pair_calibration.py). `--until-mde 5` is the operator's question "can this pair see a 5%
change?" asked of the pair itself: A B A at n = 16 cannot (its MDE is 6-8% on the reference cell), so it adds
rounds until it can."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from console.core.launch.process import EngineLost
from console.core.launch.profile import Profile
from console.core.measure.launches import prior_or_default
from console.core.measure.pairs import PairStats, parse_order
from console.core.redaction import redact_argv
from console.core.run.cell import CellProtocol, Leg as CellLeg, run_legs
from console.core.run.runtime import Runtime
from console.core.sessions.pairs import Leg, node_record, write_pair


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
    until_ci_pct: float | None = None
    """Sequential mode: add B A rounds until the CI's half-width is ≤ this many % (None: the order's legs only)."""
    until_mde_pct: float | None = None
    """Sequential mode: add B A rounds until the pair's MDE is ≤ this many % (exclusive with `until_ci_pct`)."""
    max_rounds: int = 4
    """Sequential mode: at most this many added rounds (two legs each)."""
    max_minutes: float | None = None
    """Sequential mode: no round starts after this many minutes since the pair began."""

    def needs_relaunch(self) -> bool:
        return self.a.launch_key() != self.b.launch_key()

    def interleaved(self) -> bool:
        return (not self.needs_relaunch()) if self.interleave is None else self.interleave

    def sequential_target(self) -> tuple[str, float] | None:
        """("ci", half-width %) or ("mde", %) of the sequential mode; None when it is off."""
        if self.until_ci_pct is not None:
            return "ci", self.until_ci_pct
        if self.until_mde_pct is not None:
            return "mde", self.until_mde_pct
        return None

    def validate(self) -> None:
        """One line naming the field when the sequential settings cannot run."""
        if self.until_ci_pct is not None and self.until_mde_pct is not None:
            raise ValueError("--until-ci and --until-mde: give one stopping rule, not both")
        target = self.sequential_target()
        if target is not None:
            flag = f"--until-{target[0]}"
            if not (0.0 < target[1] < 100.0):
                raise ValueError(f"{flag} {target[1]}: a width in % between 0 and 100, e.g. 3")
            if self.interleaved():
                raise ValueError(f"{flag} adds relaunched B A rounds: an interleaved pair (one server for both "
                                 f"arms) has no launch part to narrow; raise --n instead")
            if self.max_rounds < 1:
                raise ValueError(f"--max-rounds {self.max_rounds}: at least 1")
            if self.max_minutes is not None and self.max_minutes <= 0:
                raise ValueError(f"--max-minutes {self.max_minutes}: a positive number of minutes")


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
    spec.validate()
    assert rt.session is not None
    if spec.interleaved():
        legs = await _run_interleaved(rt, spec, say)
        return _finish(rt.session.dir, spec, legs, None)
    t0 = time.monotonic()
    legs, fc = await _run_legs(rt, spec, say, parse_order(spec.order))
    seq: dict[str, Any] | None = None
    target = spec.sequential_target()
    if target is not None:
        kind, goal = target
        widths: list[float | None] = []
        mdes: list[float | None] = []
        rounds, stopped = 0, ""
        while True:
            hw, mde = _widths(rt.session.dir, spec, legs, fc)
            widths.append(hw)
            mdes.append(mde)
            now = hw if kind == "ci" else mde
            if now is not None and now <= goal:
                stopped = "target reached"
            elif rounds >= spec.max_rounds:
                stopped = "round cap"
            elif spec.max_minutes is not None and (time.monotonic() - t0) / 60.0 >= spec.max_minutes:
                stopped = "time cap"
            if stopped:
                break
            what = f"CI ±{now:.1f}% > ±{goal:g}%" if kind == "ci" else f"MDE {now:.1f}% > {goal:g}%"
            say(f"{what}: round {rounds + 1} (B A)" if now is not None else f"no CI yet: round {rounds + 1} (B A)")
            more, _ = await _run_legs(rt, spec, say, ["B", "A"], before=legs)
            legs += more
            rounds += 1
        say(f"sequential: {stopped} after {rounds} added round(s)")
        seq = {"max_rounds": spec.max_rounds, "max_minutes": spec.max_minutes, "rounds_added": rounds,
               "half_widths_pct": widths, "mdes_pct": mdes, "stopped": stopped,
               ("target_half_width_pct" if kind == "ci" else "target_mde_pct"): goal}
    return _finish(rt.session.dir, spec, legs, fc, sequential=seq)


def _widths(session_dir: Path, spec: PairSpec, legs: list[Leg], fc: dict | None
            ) -> tuple[float | None, float | None]:
    """The effect CI's half-width and the MDE (%) of the legs so far, computed exactly as the pair document will be."""
    from console.core.sessions.pairs import compute
    doc = {"spec": _spec_doc(session_dir, spec, legs), "legs": [asdict(leg) for leg in legs], "forecast": fc}
    effect = compute(doc, session_dir)[0].effect
    return effect.half_width_pct, effect.mde_pct


async def _run_legs(rt: Runtime, spec: PairSpec, say, order: list[str], before: Sequence[Leg] = ()
                    ) -> tuple[list[Leg], dict | None]:
    """Run `order`'s legs after the legs `before` (a sequential round goes on where the pair stands)."""
    profiles = {"A": spec.a, "B": spec.b}
    legs: list[Leg] = []
    fc_doc: dict | None = None  # the forecast for B is written before B's first leg (never in a later round)
    count = {"A": sum(leg.arm == "A" for leg in before), "B": sum(leg.arm == "B" for leg in before)}
    if before:
        running: str | None = before[-1].arm
        launch = before[-1].launch if before[-1].launch is not None else 0
    else:
        running = "A" if rt.profile is not None and rt.profile.launch_key() == spec.a.launch_key() else None
        launch = 0 if running == "A" else -1
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
            launch += 1
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
                        spec_label=info.arm.label() if info else None, launch=launch))
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
                        spec_label=info.arm.label() if info else None, launch=0))
    return legs


def _spec_doc(session_dir: Path, spec: PairSpec, legs: list[Leg]) -> dict[str, Any]:
    """The pair document's spec: the arms, the protocol, the order the legs ran in, and the launch part's prior
    and node record (docs/measurement.md#launch-variance), so `report` recomputes the interval as written."""
    a = spec.a
    return {"a": a.name, "b": spec.b.name, "a_argv": redact_argv(a.server_flags()),
            "b_argv": redact_argv(spec.b.server_flags()), "protocol": asdict(spec.protocol),
            "b_protocol": asdict(spec.b_protocol) if spec.b_protocol else None,
            "order": spec.order if spec.interleaved() else "".join(leg.arm for leg in legs), "seed": spec.seed,
            "n_boot": 2000,
            "interleaved": spec.interleaved(), "node_usd_per_hour": a.node_usd_per_hour,
            "launch": {"node_key": a.node_key(), "prior_sd_pct": prior_or_default(a.launch_prior())[0],
                       "prior_df": prior_or_default(a.launch_prior())[1],
                       "record": [r.to_json() for r in node_record(session_dir.parent, a.node_key())]}}


def _finish(session_dir: Path, spec: PairSpec, legs: list[Leg], fc: dict | None,
            sequential: dict | None = None) -> PairResult:
    """Write the pair's artifacts (sessions/pairs.py owns their format) and return the result."""
    spec_doc = _spec_doc(session_dir, spec, legs)
    if sequential is not None:
        spec_doc["sequential"] = sequential
    doc, ps, cmp, pair_path, report_path = write_pair(session_dir, spec_doc, legs, fc)
    return PairResult(dir=session_dir, legs=legs, stats=ps, forecast=fc, comparison=cmp, doc=doc,
                      pair_path=pair_path, report_path=report_path)
