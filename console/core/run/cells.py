"""The runtime's cells: each cell (and the anchor) run through the one cell runner into the session, the forecast base
chosen among them, and the forecast of a depth flip priced from it."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from console.core.fmt import utc_iso
from console.core.measure.launches import prior_or_default
from console.core.measure.records import RequestRecord
from console.core.run.cell import CellProtocol, CellResult, is_transport_error, run_cell
from console.core.run.events import (
    CellFinished,
    CellStarted,
    CellStatus,
    RequestFinished,
)
from console.core.run.resume import _spec_dict, check_resumable
from console.core.run.state import KEEP_ROWS, CellProgress
from console.core.sessions.adaptive import append_request_steps, write_adaptive_summary
from console.core.sessions.store import CellWriter, load_rows, read_json
from console.core.workload.prompts import load_set

if TYPE_CHECKING:
    from console.core.engine.admin import AdminClient
    from console.core.engine.stream import StreamClient
    from console.core.launch.process import EngineProcess
    from console.core.launch.profile import Profile
    from console.core.run.events import Event
    from console.core.run.health import SessionHealth
    from console.core.run.monitor import LiveMonitor
    from console.core.run.state import RuntimeState
    from console.core.sessions.store import Session


class Cells:
    """Runtime's cells, anchor and flip forecast."""

    # set by Runtime.__init__ (this class is one of Runtime's parts)
    state: RuntimeState
    profile: Profile | None
    engine: EngineProcess | None
    session: Session | None
    admin: AdminClient | None
    stream: StreamClient | None
    monitor: LiveMonitor
    _stop_cell: bool
    _pending_forecast: tuple[int, str, Any] | None

    health: SessionHealth

    if TYPE_CHECKING:  # Runtime's own methods and Telemetry's
        def _emit(self, ev: Event) -> None: ...
        def _alarms(self, changed: list[tuple[str, Any]]) -> None: ...
        def _engines_alive(self) -> bool: ...
        def _report_death(self) -> None: ...
        def request_steps(self, rec: Any) -> list[int]: ...

    def prompt_set(self, name: str):
        """A pinned set as this arm's cells use it: without its input-token window when the profile says the
        served model's tokenizer is not the one the window is counted in (`[model] input_window = false`)."""
        pset = load_set(name)
        if self.profile is not None and not self.profile.input_window and pset.window is not None:
            pset = replace(pset, window=None)
        return pset

    def _cell_manifest(self, proto: CellProtocol, pset, label: str) -> dict[str, Any]:
        info = self.state.server
        return {
            "schema": 1,
            "label": label,
            "profile": self.state.profile_name,
            "mode": self.state.mode,
            "base_url": self.state.base_url,
            "launch_argv": self.state.argv,
            "server_args": {k: v for k, v in (info.raw if info else {}).items() if k != "internal_states"},
            "engine_version": info.version if info else None,
            "speculative": _spec_dict(info),
            "arm": info.arm.to_json() if info is not None else None,
            "kv_capacity_tokens": info.max_total_num_tokens if info else None,
            "kv_cache_dtype": info.kv_cache_dtype if info else None,
            "domains": {p.id: p.domain for p in pset.prompts},
            "prompt_set": {"name": pset.name, "sha256": pset.sha256, "count": len(pset), "window": pset.window,
                           "window_gated": self.profile.input_window if self.profile is not None else True},
            "protocol": asdict(proto),
            "node_usd_per_hour": self.profile.node_usd_per_hour if self.profile else None,
            "simulated": self.state.simulated,
            "sim_time_scale": self.state.sim_time_scale,
            "sim_node": self.state.sim_node,
            "launch": len(self.state.arms) - 1 if self.state.arms else None,
            "node_key": self.profile.node_key() if self.profile is not None else None,
            "launch_prior": list(prior_or_default(self.profile.launch_prior())) if self.profile is not None else None,
            "started_utc": utc_iso(),
            "complete": False,
        }

    async def run_cell(self, proto: CellProtocol, label: str | None = None, resume_dir: Path | None = None,
                       parent: Path | None = None) -> CellResult:
        """Run a cell into a new cell directory, or continue the one in `resume_dir`: its finished rows are
        kept as they are and only the missing request ids are sent (same prompt-set hash and server
        configuration required). `parent`: the cell goes into that directory of the session (a probe's) and is
        never a forecast base."""
        if self.state.phase not in ("ready", "attached"):
            raise RuntimeError(f"no server to measure (state: {self.state.phase}); launch or attach first")
        if self.state.cell is not None and self.state.cell.running:
            raise RuntimeError("a cell is already running; wait for it or stop it")
        assert self.session is not None and self.stream is not None and self.admin is not None
        pset = self.prompt_set(proto.prompt_set)
        info = self.state.server
        done_rows: list[RequestRecord] = []
        if resume_dir is not None:
            writer = CellWriter(Path(resume_dir))
            manifest = read_json(writer.manifest_path)
            check_resumable(manifest, pset, info, self.state.sim_time_scale)
            label = manifest.get("label") or label or writer.dir.name
            # a request cut by a transport failure (engine gone) did not finish: send it again
            done_rows = [r for r in load_rows(writer.dir) if not r.warmup and not is_transport_error(r)]
            resumed = manifest.get("resumed") or []
            resumed.append({"utc": utc_iso(), "rows_before": len(done_rows),
                            "launch_argv": self.state.argv})
            writer.update_manifest(resumed=resumed, complete=False)
        else:
            label = label or f"{pset.name}-n{proto.n}-m{proto.max_tokens}-c{proto.concurrency}"
            writer = self.session.new_cell(label, parent=parent)
            writer.write_manifest(self._cell_manifest(proto, pset, label))
        prog = CellProgress(label=label, total=proto.n, cell_dir=str(writer.dir), done=len(done_rows),
                            rows=list(done_rows), arm_index=len(self.state.arms) - 1 if self.state.arms else None,
                            prompt_set=pset.name, probe=parent is not None)
        self.state.cell = prog
        self._stop_cell = False
        self.monitor.reset_recent()

        runtime = self
        adaptive = info is not None and info.arm.adaptive
        is_anchor = label == "anchor"
        self.health.cell_started(pset, asdict(proto), model=info.model_path if info else None,
                                 node_key=self.profile.node_key() if self.profile is not None else None,
                                 spec=_spec_dict(info))

        class Obs:
            def cell_event(self, kind: str, **data: Any) -> None:
                if kind == "status":
                    prog.status = data["text"]
                    runtime._emit(CellStatus(data["text"]))
                elif kind == "request_finished":
                    rec: RequestRecord = data["record"]
                    if adaptive and not rec.warmup:
                        steps = runtime.request_steps(rec)
                        if steps:
                            append_request_steps(writer.dir, rec.request_id, steps)
                    prog.rows.append(rec)
                    prog.done = data["done"]
                    runtime.monitor.record_finished(rec)
                    runtime._emit(RequestFinished(rec, data["done"], data["total"]))
                    runtime._alarms(runtime.health.request(rec, anchor=is_anchor))
                elif kind == "started":
                    runtime._emit(CellStarted(prog.label, proto.n, str(writer.dir)))

        try:
            result = await run_cell(
                self.stream, self.admin, pset, proto, writer=writer, model=info.model_name() if info else "default",
                num_draft_tokens=info.arm.draft_tokens if info and info.arm.speculative else None,
                observer=Obs(), should_stop=lambda: self._stop_cell, done_rows=done_rows,
                engine_alive=self._engines_alive if self.engine is not None else None,
            )
        finally:
            prog.running = False
            if self.engine is not None and not self._engines_alive():
                self._report_death()  # now, not at the next telemetry tick
        prog.summary = result.summary
        if adaptive:
            prog.adaptive = write_adaptive_summary(writer.dir)
        prog.rows = prog.rows[-KEEP_ROWS:]  # the figures are in the summary, every row on disk: memory stays flat
        prog.status = "interrupted: the engine died" if result.interrupted else (
            "cancelled" if result.cancelled else "done")
        pf = self._pending_forecast
        if pf is not None and pf[0] == prog.arm_index and pf[1] == pset.name and result.summary.median_tok_s:
            fc = pf[2]
            pt = fc.points[0] if fc.points else None
            if pt is not None:
                prog.forecast_cmp = {"depth": pt.depth, "predicted_tok_s": pt.tok_s, "predicted_tau": pt.tau,
                                     "measured_tok_s": result.summary.median_tok_s,
                                     "measured_tau": result.summary.tau,
                                     "error_pct": 100.0 * (pt.tok_s / result.summary.median_tok_s - 1.0),
                                     "forecast": fc.to_json()}
                writer.update_manifest(forecast_vs_measured=prog.forecast_cmp)
                self._pending_forecast = None
        self.state.cells_done.append(prog)
        self._emit(CellFinished(result.summary, str(writer.dir), label, result.cancelled))
        return result

    def request_stop_cell(self) -> None:
        self._stop_cell = True

    def forecast_base(self) -> CellProgress | None:
        """The cell a forecast of the running arm starts from: its latest measured cell with per-position
        acceptance, preferring a measurement cell to the short anchor."""
        arm = len(self.state.arms) - 1
        cells = [c for c in self.state.cells_done if c.arm_index == arm and c.summary is not None and not c.probe
                 and c.summary.per_position_acceptance and c.summary.median_tok_s and c.summary.tau and c.cell_dir]
        if not cells:
            return None
        return next((c for c in reversed(cells) if c.label != "anchor"), cells[-1])

    def forecast_for(self, flip) -> tuple[Any, str]:
        """(Forecast | None, note): price a depth flip from the running arm's forecast base (the one forecast,
        sessions.forecasts.cell_forecast, with its verify-tax policy)."""
        from console.core.sessions.forecasts import cell_forecast
        info = self.state.server
        if flip.kind not in ("depth+", "depth-"):
            return None, "a different drafter or KV dtype is a new measurement (run it, then pair)"
        if info is None or not info.arm.speculative:
            return None, "the running arm has no drafter"
        base = self.forecast_base()
        if base is None:
            return None, "no measured cell with per-position acceptance on this arm yet (r runs one)"
        assert base.cell_dir is not None and base.summary is not None  # forecast_base picks only such cells
        new_depth = flip.after.arm.depth
        try:
            cf = cell_forecast(Path(base.cell_dir), [new_depth])
        except ValueError as e:
            return None, str(e)
        s = base.summary
        note = f"cell '{base.label}' (n={s.n_included}, {base.prompt_set})"
        if base.label == "anchor":
            note += " — the short anchor set; a cell at your target workload forecasts better"
        return cf.forecast, note

    async def run_anchor(self, proto: CellProtocol | None = None) -> CellResult:
        """The anchor: the short pinned health cell, run on every arm right after launch
        (docs/measurement.md#cells-anchors-pairs); its median lands on the arm record, as % of the profile's reference
        when one is set."""
        from console.core.run.cell import ANCHOR_PROTOCOL
        p = proto or ANCHOR_PROTOCOL
        if self.profile is not None and proto is None:  # a profile may shorten its anchor (a slow node)
            p = replace(p, prompt_set=self.profile.anchor_prompts or p.prompt_set,
                        n=self.profile.anchor_n or p.n, max_tokens=self.profile.anchor_max_tokens or p.max_tokens)
        res = await self.run_cell(p, label="anchor")
        self._alarms(self.health.anchor_done([r for r in res.rows if not r.warmup]))
        if self.state.arms:
            arm = self.state.arms[-1]
            arm.anchor_median_tok_s = res.summary.median_tok_s
            arm.anchor_tau = res.summary.tau
            arm.anchor_n = res.summary.n_included
            ref = self.profile.anchor_reference_tok_s if self.profile else None
            if ref and res.summary.median_tok_s:
                arm.anchor_pct = 100.0 * res.summary.median_tok_s / ref
            assert self.session is not None  # run_cell above needs it
            self.session.add_arm({"profile": arm.profile, "anchor_median_tok_s": arm.anchor_median_tok_s,
                                  "anchor_tau": arm.anchor_tau, "anchor_pct": arm.anchor_pct,
                                  "kv_capacity_tokens": arm.kv_capacity_tokens})
        return res
