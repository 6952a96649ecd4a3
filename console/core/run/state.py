"""What the runtime knows at any moment, read by the dashboard at its own rate: the arms of the session, the cells run
and the one running, the live figures, the server, the GPUs."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from console.core.engine.metrics import MetricsSnapshot
from console.core.engine.server_info import ServerInfo
from console.core.launch.logparse import StartupProgress
from console.core.measure import stats
from console.core.measure.records import RequestRecord
from console.core.run.monitor import LiveSnapshot
from console.core.telemetry.nvml import GpuSnapshot


@dataclass
class CellProgress:
    label: str
    total: int
    done: int = 0
    status: str = ""
    cell_dir: str | None = None
    rows: list[RequestRecord] = field(default_factory=list)
    summary: stats.CellSummary | None = None
    running: bool = True
    arm_index: int | None = None
    """Index in `RuntimeState.arms` of the arm the cell ran on."""
    prompt_set: str | None = None
    forecast_cmp: dict[str, Any] | None = None
    """Predicted (before the flip to this arm) vs measured, when this cell is the forecast's workload."""
    probe: bool = False
    """A leg of the verify-tax probe (random draft weights): never a forecast base."""
    adaptive: dict[str, Any] | None = None
    """Adaptive speculation: the cell's active-steps summary (sessions/adaptive.py), when the server adapts."""


@dataclass
class ArmRecord:
    """One arm of this session: what ran, its KV capacity and its anchor (health cell) result."""

    profile: str
    label: str
    """The arm in words (`Arm.label()` of what /server_info says it runs)."""
    kv_capacity_tokens: int | None
    kv_cache_dtype: str | None
    startup_s: float | None = None
    anchor_median_tok_s: float | None = None
    anchor_tau: float | None = None
    anchor_n: int = 0
    anchor_pct: float | None = None
    """Anchor median as % of the profile's reference (anchor.reference_tok_s), when one is set."""
    error: str | None = None
    unanchored: str | None = None
    """Why this arm has no anchor and will get none (a probe leg: dummy drafts); None: anchored, or pending."""


@dataclass(frozen=True)
class SpecReading:
    """One reading of the draft steps an adaptive server has active (`--speculative-adaptive`)."""

    t: float
    """Unix time of the reading (the console's clock)."""
    steps: int
    draft_tokens: int | None
    source: str
    """'/metrics' (sglang:spec_num_steps / spec_num_draft_tokens, refreshed at each decode log) or '/server_info'
    (internal_states[0], when the server exports no metrics)."""


SPEC_TRAIL = 240
"""Readings of the active draft steps kept for the dashboard's trail (4 minutes at the busy 1 Hz rate)."""


@dataclass
class RuntimeState:
    phase: str = "idle"
    """'idle' | 'launching' | 'ready' | 'attached' | 'dead' | 'stopped' | 'error'."""
    mode: str = ""
    """'launch' | 'attach'."""
    base_url: str = ""
    profile_name: str = ""
    simulated: bool = False
    argv: list[str] = field(default_factory=list)
    log_path: str | None = None
    engine_pid: int | None = None
    startup: StartupProgress | None = None
    startup_started: float | None = None
    startup_elapsed_s: float | None = None
    ready_at: float | None = None
    """time.monotonic() when the current arm became ready (or attached)."""
    error: str | None = None
    server: ServerInfo | None = None
    metrics: MetricsSnapshot | None = None
    metrics_error: str | None = None
    gpu: GpuSnapshot | None = None
    live: LiveSnapshot | None = None
    cell: CellProgress | None = None
    cells_done: list[CellProgress] = field(default_factory=list)
    arms: list[ArmRecord] = field(default_factory=list)
    relaunching: bool = False
    preflight: list[Any] = field(default_factory=list)
    previous_startup_s: float | None = None
    """Wall time of the previous launch of the same arm (launch history), for elapsed/remaining."""
    previous_phases: dict[str, float] = field(default_factory=dict)
    workers: list[str] = field(default_factory=list)
    """Worker URLs when attached to an SGLang model gateway (router)."""
    derived_profile: str | None = None
    """Path of the profile derived from /server_info on attach (session dir)."""
    sim_time_scale: float | None = None
    """The twin's --sim-time-scale S (client-timed rates read S× faster); None on a real server."""
    sim_info: dict[str, Any] | None = None

    @property
    def sim_node(self) -> str | None:
        """The fitted node the twin serves as (`--sim-node`), None for the modelled reference node."""
        node = (self.sim_info or {}).get("node")
        return str(node.get("name")) if isinstance(node, dict) and node.get("name") else None
    session_dir: str | None = None
    alarms: list[Any] = field(default_factory=list)
    """The session's acceptance alarms (core/measure/health.Alarm), active and past, in the order raised."""
    started_wall: float = field(default_factory=time.time)
    spec_trail: tuple[SpecReading, ...] = ()
    """Active draft steps of an adaptive server, oldest first (replaced, never mutated: safe to read from the UI
    thread); empty for a server that does not adapt."""

    def spec_active(self) -> SpecReading | None:
        return self.spec_trail[-1] if self.spec_trail else None


KEEP_ROWS = 100
