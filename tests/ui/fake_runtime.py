"""A deterministic stand-in for `Runtime`: fixed state, no processes, no network — for Pilot tests and
SVG snapshots. Its state goes through the real core types (ServerInfo.parse, MetricsSnapshot,
LiveMonitor, stats), so what the screen shows is what core computes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from console.core.engine import metrics
from console.core.engine.server_info import ServerInfo
from console.core.engine.stream import InFlight
from console.core.launch.logparse import StartupParser
from console.core.measure import stats
from console.core.run.cell import CellProtocol
from console.core.measure.records import RequestRecord
from console.core.run.monitor import LiveMonitor
from console.core.launch.profile import resolve_profile
from console.core.run import events as E
from console.core.run.events import Event
from console.core.run.runtime import Runtime
from console.core.run.state import ArmRecord, CellProgress, RuntimeState
from console.core.telemetry.nvml import GpuSnapshot

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "sglang-0.5.23"


def row(i: int, tok_s: float, hist: list[int], n_out: int = 128) -> RequestRecord:
    t_first = 0.210 + 0.003 * i
    t_last = t_first + (n_out - 1) / tok_s
    v = sum(hist)
    c = sum(k * n for k, n in enumerate(hist))
    return RequestRecord(request_id=f"health-{i}#{i}", prompt_id=f"health-{i}", t_first_s=t_first, t_last_s=t_last,
                         t_end_s=t_last + 0.002, first_chunk_tokens=1, completion_tokens=n_out, n_content_chunks=30,
                         prompt_tokens=80, finish_reason="length", spec_verify_ct=v, spec_num_correct_drafts=c,
                         spec_accept_rate=c / (v * (len(hist) - 1)), spec_histogram=hist)


HISTS = [[2, 3, 3, 4, 5, 5, 8], [3, 2, 4, 4, 6, 4, 7], [1, 4, 3, 5, 4, 6, 8], [2, 2, 5, 3, 5, 5, 8]]
DFLASH_HISTS = [[1, 1, 2, 2, 2, 3, 2, 2, 2, 1, 1, 1, 1, 0, 1, 2], [1, 2, 1, 2, 3, 2, 2, 2, 1, 2, 1, 0, 1, 1, 0, 1]]
"""Block 16: 15 draft positions (spec_correct_drafts_histogram of 16 bins)."""


def _write_cell(info: ServerInfo, rows: list[RequestRecord]) -> Path:
    """The fake's finished cell as a real cell folder (manifest + rows), so that what reads cells from disk (the
    forecast) runs for real over it."""
    import tempfile
    from console.core.run.resume import _spec_dict
    d = Path(tempfile.mkdtemp(prefix="fake-session-")) / "cell-001-health"
    d.mkdir()
    manifest = {"label": "health", "profile": "k26-eagle3-d6", "simulated": True, "speculative": _spec_dict(info),
                "prompt_set": {"name": "health", "sha256": "0" * 64},
                "protocol": {"prompt_set": "health", "n": 8, "max_tokens": 128, "temperature": 0.6, "concurrency": 1},
                "kv_capacity_tokens": info.max_total_num_tokens}
    (d / "manifest.json").write_text(json.dumps(manifest))
    (d / "rows.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in rows))
    return d


class FakeRuntime:
    forecast_for = Runtime.forecast_for  # the real computation over this fake's state
    chat_target = Runtime.chat_target
    _api_key: str | None = None

    def forecast_base(self) -> CellProgress | None:
        """The runtime's choice, pointing at the fake's cell as written to disk (the screen shows the fake path)."""
        from dataclasses import replace
        base = Runtime.forecast_base(self)
        return None if base is None else replace(base, cell_dir=str(self.cell_on_disk))
    last_startup_s = Runtime.last_startup_s

    def __init__(self, observer: Callable[[Event], None], phase: str = "ready", drafter: str = "eagle3",
                 alarm: bool = False, attached: bool = False) -> None:
        self.observer = observer
        name = "k26-dflash-b16" if drafter == "dflash" else "k26-eagle3-d6"
        self.profile = resolve_profile(str(Path(__file__).resolve().parents[2] / "console" / "shipped" / "profiles" / f"{name}.toml")).with_sim()
        self.relaunched: list = []
        self.sessions_root = Path("/nonexistent-sessions-root")
        self.anchors = 0
        self.attach_url = "fake://reference"
        self.engine = None
        self.cells_run: list[CellProtocol] = []
        self.stopped = False
        self.drafter = drafter
        self.state = RuntimeState(phase=phase, mode="launch", base_url="http://127.0.0.1:30000",
                                  profile_name=name, simulated=True,
                                  argv=["python", "-m", "console.sim", "--model-path", "moonshotai/Kimi-K2.6",
                                        "--tp-size", "4"], log_path="sessions/x/engine-1.log")
        self._fill()
        if attached:  # a server the console did not launch (--attach): a real one, watched since just now
            import time
            self.state.mode, self.state.phase, self.state.simulated = "attach", "attached", False
            self.state.profile_name = "attached-gpu-node-30000"
            self.state.ready_at = time.monotonic()
            self.state.argv = []
        if alarm:  # what the rules raise when the drafter's acceptance collapsed (core/measure/health.py)
            from console.core.measure.health import CAUSES, Alarm
            self.state.alarms = [Alarm("dummy", "tool · tool", 812.4, 41,
                                       "τ 1.00, p_1 0.00 over the last 4 requests (2048 verify steps): EAGLE3 accepts "
                                       "as random draft weights would", CAUSES["dummy"])]

    def _fill(self) -> None:
        st = self.state
        info = json.loads((FIX / "server_info_eagle3_tp4.json").read_text())
        info["model_path"] = "sim:moonshotai/Kimi-K2.6"
        info["served_model_name"] = "sim:moonshotai/Kimi-K2.6"
        dflash = self.drafter == "dflash"
        if dflash:  # the DFLASH arm of the same node: block 16, 15 draft positions
            info.update(speculative_algorithm="DFLASH", speculative_num_steps=None, speculative_eagle_topk=None,
                        speculative_num_draft_tokens=16, speculative_dflash_block_size=16,
                        speculative_draft_model_path="z-lab/Kimi-K2.6-DFlash")
        hists, ndt = (DFLASH_HISTS, 16) if dflash else (HISTS, 7)
        nospec = self.drafter == "none"
        if nospec:  # the same node without a drafter: no speculative fields on /server_info, none on the rows
            for k in list(info):
                if k.startswith("speculative_"):
                    info[k] = None
            ndt = 1
        st.server = ServerInfo.parse(info)
        st.metrics = metrics.snapshot((FIX / "metrics_eagle3_tp4.txt").read_text())
        st.gpu = GpuSnapshot("no_driver", "no NVIDIA driver on this host (NVML Shared Library Not Found); "
                                          "showing the engine's own memory figures")
        mon = LiveMonitor()
        mon.num_draft_tokens = ndt
        inflight = {"tool-1#0": InFlight("tool-1#0", t_sent_ns=0, t_first_ns=240_000_000, t_last_ns=10_240_000_000, tokens=5001,
                                         first_tokens=1, prompt_tokens=10012)}
        mon.attach(inflight)
        rows = [row(i, 470.0 + 9 * i, hists[i % len(hists)]) for i in range(6)]
        if nospec:
            import dataclasses
            rows = [dataclasses.replace(r, spec_verify_ct=None, spec_num_correct_drafts=None, spec_accept_rate=None,
                                        spec_histogram=None) for r in rows]
        for r in rows:
            mon.record_finished(r)
        for k in range(40):  # a history that ramps up to ~500 tok/s
            inflight["tool-1#0"].tokens = 1 + int(125 * (k + 1) * min(1.0, 0.3 + k / 30))
            mon.tick(now=1000.0 + 0.25 * k, now_ns=10_300_000_000)
        st.live = mon.snapshot
        st.arms.append(ArmRecord(profile=self.profile.name, label=st.server.arm.label(), kv_capacity_tokens=336000,
                                 kv_cache_dtype="auto", startup_s=8.4, anchor_median_tok_s=492.5,
                                 anchor_tau=None if nospec else 4.74,
                                 anchor_n=6))
        done = CellProgress(label="health", total=8, done=6, status="done", cell_dir="sessions/x/cell-001-health",
                            rows=rows, running=False, arm_index=0, prompt_set="health")
        self.cell_on_disk = _write_cell(st.server, rows)
        done.summary = stats.summarize(rows, num_draft_tokens=ndt)
        st.cells_done.append(done)
        st.startup_elapsed_s = 8.4
        parser = StartupParser(tp=4, has_draft=True, clock=iter(range(1000)).__next__)
        parser.feed((FIX / "launch_eagle3_tp4.log").read_text())
        st.startup = parser.progress

    def emit(self, ev: Event) -> None:
        self.observer(ev)

    def acknowledge_alarms(self, alarm_id: str | None = None) -> int:
        n = 0
        for a in self.state.alarms:
            if a.active and not a.acked and (alarm_id is None or a.id == alarm_id):
                a.acked = True
                n += 1
        return n

    async def start(self) -> None:
        self.observer(E.Ready(self.state.server, 8.4))

    async def run_cell(self, proto: CellProtocol, label: str | None = None) -> Any:
        self.cells_run.append(proto)
        self.observer(E.CellFinished(self.state.cells_done[-1].summary, "x", label or "cell", False))

    def request_stop_cell(self) -> None:
        pass

    async def run_anchor(self, proto: CellProtocol | None = None) -> Any:
        self.anchors += 1

    async def relaunch(self, profile, anchor: bool = True, forecast=None, forecast_prompt_set=None,
                       unanchored=None) -> None:
        self.relaunched.append(profile)

    async def stop(self) -> None:
        self.stopped = True
