"""The console's engine room, shared by the TUI and the headless CLI (lifecycle here; telemetry.py and cells.py are
its other two parts).

`Runtime` launches an engine from a profile (or attaches to a running server), keeps the live state the
dashboard shows (`RuntimeState`, refreshed by one telemetry task: engine watchdog and monitor tick every
250 ms, `/metrics` and NVML every second, `/server_info` every 5 s), and runs cells that land in the
session store. Discrete happenings are reported to an observer as `Event`s; everything continuous is
read from `state` at the reader's own rate. All methods are coroutines of one event loop; the TUI runs
that loop in its own thread (`IoThread`) so that rendering never delays a chunk's timestamp."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from console.core.engine.admin import ATTACH_KEY_HINT, PROFILE_KEY_HINT, AdminClient, AdminError, normalize_url
from console.core.engine.server_info import ServerInfo
from console.core.engine.stream import StreamClient
from console.core.fmt import utc_iso
from console.core.launch.history import launch_history
from console.core.launch.logparse import StartupProgress
from console.core.launch.ports import free_port, port_in_use
from console.core.launch.preflight import PreflightRefused, has_errors, preflight, try_bind
from console.core.launch.process import EngineDied, EngineProcess, EngineTimeout, describe_exit
from console.core.launch.profile import Profile, profile_from_server_info, profile_to_toml
from console.core.redaction import redact_argv
from console.core.run.cells import Cells
from console.core.run.events import (
    AlarmChanged,
    Attached,
    Died,
    Event,
    Failed,
    Launching,
    Preflight,
    Ready,
    Startup,
    Stopped,
)
from console.core.run.health import SessionHealth
from console.core.run.monitor import LiveMonitor
from console.core.run.state import ArmRecord, RuntimeState
from console.core.run.telemetry import Telemetry
from console.core.sessions.store import Session, node_fingerprint, sessions_root
from console.core.telemetry.nvml import NvmlPoller


class Runtime(Telemetry, Cells):
    def __init__(
        self,
        *,
        profile: Profile | None = None,
        attach_url: str | None = None,
        sim: bool = False,
        sim_args: list[str] | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        sessions: Path | None = None,
        observer: Callable[[Event], None] | None = None,
        nvml: NvmlPoller | None = None,
        ready_timeout_s: float = 3600.0,
        session_slug: str | None = None,
        session_dir: Path | None = None,
        force: bool = False,
        stall_timeout_s: float = 120.0,
        port: int | None = None,
    ) -> None:
        if (profile is None) == (attach_url is None):
            raise ValueError("give a profile to launch or a URL to attach to (exactly one)")
        if profile is not None and port is not None:
            profile = replace(profile, port=port)
        self.port_given = port is not None
        """--port N: the operator's port, used as given (a busy one is preflight's refusal, as on a real engine)."""
        self.profile = profile.with_sim() if (profile is not None and sim) else profile
        self.attach_url = attach_url
        self.sim_args = list(sim_args or [])
        self._api_key = api_key
        self.api_key_env = api_key_env
        """(attach) the variable the key came from, named in the refused-key line."""
        self.sessions_root = sessions or sessions_root()
        self.observer = observer or (lambda e: None)
        self.nvml = nvml or NvmlPoller()
        self.ready_timeout_s = ready_timeout_s
        self.session_slug = session_slug
        self.session_dir = session_dir
        """An existing session to continue (resume) instead of creating a new one."""
        self.force = force
        self.stall_timeout_s = stall_timeout_s
        """Seconds without a byte before a streaming request is abandoned as stalled."""
        """Launch even when preflight finds errors (port bound, foreign GPU processes, missing paths)."""
        self.state = RuntimeState()
        self.monitor = LiveMonitor()
        self.engine: EngineProcess | None = None
        self.node_engines: list[EngineProcess] = []
        """Ranks 1..N−1 of a multi-node launch (rank 0 is `engine` and serves HTTP)."""
        self.session: Session | None = None
        self.admin: AdminClient | None = None
        self.stream: StreamClient | None = None
        self._telemetry: asyncio.Task | None = None
        self._cell_task: asyncio.Task | None = None
        self._stop_cell = False
        self._pending_forecast: tuple[int, str, Any] | None = None
        self.health = SessionHealth(None, self.sessions_root)

    # --- events ------------------------------------------------------------------------------

    def emit(self, ev: Event) -> None:
        """Report a happening to the observer (also used by orchestrators such as the pair runner)."""
        self._emit(ev)

    def _emit(self, ev: Event) -> None:
        try:
            self.observer(ev)
        except Exception:  # an observer must never break the runtime
            pass

    def _alarms(self, changed: list[tuple[str, Any]]) -> None:
        """Publish what the session's health raised, cleared or acknowledged (it is already on disk)."""
        if not changed:
            return
        self.state.alarms = self.health.alarms()
        for event, alarm in changed:
            self._emit(AlarmChanged(event, alarm))

    def acknowledge_alarms(self, alarm_id: str | None = None) -> int:
        """Acknowledge one active alarm (by id) or every one; returns how many."""
        changed = self.health.acknowledge(alarm_id)
        self._alarms(changed)
        return len(changed)

    # --- start / attach ----------------------------------------------------------------------

    async def start(self) -> None:
        gpu = await asyncio.to_thread(self.nvml.sample)
        self.state.gpu = gpu
        slug = self.session_slug or (self.profile.name if self.profile else "attach")
        if self.session_dir is not None:
            self.session = Session(self.session_dir)
            self.session.update_meta(resumed_utc=utc_iso())
        else:
            self.session = Session.create(self.sessions_root, slug, node_fingerprint(gpu))
        self.state.session_dir = str(self.session.dir)
        self.health.session_dir = self.session.dir
        try:
            if self.profile is not None:
                await self._launch()
            else:
                await self._attach()
        except BaseException:
            if self.session_dir is None and self.session.discard_if_empty():  # never a resumed session
                self.state.session_dir = None
            raise

    async def _attach(self) -> None:
        url = normalize_url(self.attach_url or "")
        self.state.mode = "attach"
        self.state.base_url = url
        self.state.profile_name = f"attached {url}"
        self._connect(url, self._api_key)
        assert self.admin is not None and self.session is not None  # _connect made the client, start() the session
        try:
            info = await self.admin.server_info()
        except AdminError as e:
            self.state.phase = "error"
            self.state.error = str(e)
            self._emit(Failed(str(e)))
            raise
        self._have_server(info)
        await self._read_sim_info()
        self.state.workers = await self.admin.workers() or []
        derived = profile_from_server_info(info, url)
        path = self.session.dir / f"{derived.name}.toml"
        path.write_text(profile_to_toml(derived))
        self.state.derived_profile = str(path)
        self.state.profile_name = f"{derived.name}" + (f" (gateway, {len(self.state.workers)} workers)"
                                                       if self.state.workers else "")
        self.session.update_meta(attached=url, engine_version=info.version,
                                 workers=self.state.workers, derived_profile=path.name)
        self.state.phase = "attached"
        self.state.ready_at = time.monotonic()
        self._emit(Attached(info))
        self._alarms(self.health.arm_ready(info.arm.label(), self.state.profile_name, info.arm.algorithm, None,
                                           self.state.sim_time_scale))
        self._start_telemetry()

    async def _launch(self) -> None:
        prof = self.profile
        assert prof is not None and self.session is not None
        api_key = self._api_key if self._api_key is not None else prof.api_key()
        if prof.is_sim and not self.port_given and (port_in_use(prof.host, prof.port)
                                                     or try_bind(prof.host, prof.port) is not None):
            # the twin needs no fixed port: take a free one and say so (a real engine's port is the operator's)
            busy, prof = prof.port, replace(prof, port=free_port(prof.host if prof.host != "0.0.0.0" else "127.0.0.1"))
            self.profile = prof
            self._emit(Preflight("warning", f"server.port {busy} on {prof.host} is busy: the engine twin listens on "
                                            f"{prof.port} instead (--port N picks one)"))
        argvs = prof.node_argvs(api_key=api_key, extra=self.sim_args if prof.is_sim else [])
        argv = argvs[0]
        shown = redact_argv(argv)
        log = self.session.engine_log_path()
        issues = await asyncio.to_thread(preflight, prof, log_dir=self.session.dir, snapshot=self.state.gpu,
                                         own_pids=self.nvml.own_pids)
        self.state.preflight = issues
        for issue in issues:
            self._emit(Preflight(issue.severity, issue.message))
        if has_errors(issues) and not self.force:
            first = next(i for i in issues if i.severity == "error")
            self.state.phase = "error"
            self.state.error = f"preflight refused the launch: {first.message} (--force launches anyway)"
            self._emit(Failed(self.state.error))
            raise PreflightRefused(self.state.error)
        hist = launch_history(self.sessions_root).get(prof)
        self.state.previous_startup_s = hist.get("total_s") if hist else None
        self.state.previous_phases = dict(hist.get("phases") or {}) if hist else {}
        self.state.mode = "launch"
        self.state.phase = "launching"
        self.state.profile_name = prof.name
        self.state.simulated = prof.is_sim
        self.state.base_url = prof.base_url
        self.state.argv = shown
        self.state.log_path = str(log)
        self.state.startup_started = time.monotonic()
        self.engine = EngineProcess(argv, log, env=prof.env or None, tp=prof.tp, has_draft=prof.drafter.enabled,
                                    display_argv=shown, secrets=[api_key] if api_key else None)
        self.node_engines = [EngineProcess(a, log.with_name(f"{log.stem}-rank{r}.log"), env=prof.env or None,
                                           tp=prof.tp, has_draft=prof.drafter.enabled, display_argv=redact_argv(a),
                                           secrets=[api_key] if api_key else None)
                             for r, a in enumerate(argvs[1:], 1)]
        self.session.add_arm({"profile": prof.name, "argv": shown, "log": log.name, "launched_utc": time.time()})
        self._emit(Launching(shown, str(log)))
        try:
            self.engine.start()
            for ne in self.node_engines:
                ne.start()
            self.state.engine_pid = self.engine.pid
            self.nvml.own_pids = {self.engine.pid} if self.engine.pid else set()
            self._connect(prof.base_url, api_key)
            assert self.admin is not None  # _connect made it

            def progress(p: StartupProgress) -> None:
                self.state.startup = p
                self.state.startup_elapsed_s = time.monotonic() - (self.state.startup_started or time.monotonic())
                self._emit(Startup(p))

            await self.engine.wait_ready(self.admin.ready, timeout_s=self.ready_timeout_s,
                                         on_progress=progress, also=self.node_engines)
        except (EngineDied, EngineTimeout) as e:
            self.state.phase = "dead"
            msg = f"engine died before ready ({describe_exit(e.returncode)}): {e.error_line or 'no error line'}" \
                if isinstance(e, EngineDied) else str(e)
            self.state.error = msg
            self.session.update_meta(failed_launch={"profile": prof.name, "error": msg, "log": log.name,
                                                    "utc": utc_iso()})
            self._emit(Died(msg, str(log)))
            if self.engine is not None:
                self.engine.stop(timeout_s=5)
            for ne in self.node_engines:
                ne.stop(timeout_s=5)
            raise
        info = await self.admin.server_info()
        self._have_server(info)
        await self._read_sim_info()
        self.state.phase = "ready"
        self.state.ready_at = time.monotonic()
        if self.state.startup is not None and self.state.startup_elapsed_s:
            launch_history(self.sessions_root).record(prof, self.state.startup_elapsed_s, self.state.startup)
        self.session.update_meta(engine_version=info.version)
        self.state.arms.append(ArmRecord(profile=prof.name, label=info.arm.label(),
                                         kv_capacity_tokens=info.max_total_num_tokens,
                                         kv_cache_dtype=info.kv_cache_dtype, startup_s=self.state.startup_elapsed_s))
        self._emit(Ready(info, self.state.startup_elapsed_s))
        self._alarms(self.health.arm_ready(str(prof.launch_key()), f"{prof.name} ({info.arm.label()})",
                                           info.arm.algorithm, prof.arm.algorithm, self.state.sim_time_scale))
        self._start_telemetry()

    async def _read_sim_info(self) -> None:
        if self.state.server is not None and self.state.server.simulated:
            assert self.admin is not None  # the server was read through it
            si = await self.admin.sim_info()
            self.state.sim_info = si
            ts = si.get("time_scale") if si else None
            self.state.sim_time_scale = float(ts) if isinstance(ts, (int, float)) else None
        else:
            self.state.sim_info = None
            self.state.sim_time_scale = None
        # every figure is the modelled node's: records and live rates convert the client clock by S
        scale = self.state.sim_time_scale if self.state.sim_time_scale and self.state.sim_time_scale > 0 else 1.0
        if self.stream is not None:
            self.stream.time_scale = scale
        self.monitor.time_scale = scale

    def chat_target(self):
        """Where a chat with the served model goes: URL, key, server info (ChatUnavailable while none is up)."""
        from console.core.run.chat import ChatTarget, ChatUnavailable
        st = self.state
        if st.phase not in ("ready", "attached") or not st.base_url:
            raise ChatUnavailable(f"no server to chat with yet (engine {st.phase or 'idle'})")
        key = self._api_key
        if key is None and self.profile is not None and not self.profile.is_sim:
            key = self.profile.api_key()
        return ChatTarget(st.base_url, key, st.server, bool(st.simulated), st.sim_time_scale)

    def _connect(self, url: str, api_key: str | None) -> None:
        if self.profile is None:
            hint, src = ATTACH_KEY_HINT, (f"from ${self.api_key_env}" if self.api_key_env else "given")
        else:
            p = self.profile
            hint = PROFILE_KEY_HINT
            src = (f"from ${p.api_key_env} (server.api_key_env)" if p.api_key_env else
                   f"from {p.api_key_file} (server.api_key_file)" if p.api_key_file else "given")
        self.admin = AdminClient(url, api_key=api_key, key_hint=hint, key_source=src)
        self.stream = StreamClient(url, api_key=api_key, stall_timeout_s=self.stall_timeout_s)
        self.monitor.attach(self.stream.inflight)

    def _have_server(self, info: ServerInfo) -> None:
        self.state.server = info
        self.state.simulated = self.state.simulated or info.simulated
        self.monitor.num_draft_tokens = info.arm.draft_tokens if info.arm.speculative else None

    # --- telemetry ---------------------------------------------------------------------------







    # --- cells -------------------------------------------------------------------------------




    # --- stop --------------------------------------------------------------------------------



    def last_startup_s(self) -> float | None:
        for a in reversed(self.state.arms):
            if a.startup_s:
                return a.startup_s
        return None


    async def relaunch(self, profile: Profile, anchor: bool = True, forecast: Any = None,
                       forecast_prompt_set: str | None = None, unanchored: str | None = None) -> None:
        """Stop the running engine and launch `profile` in the same session (a flip), then re-anchor. A
        `forecast` made before the flip is compared with the first cell on the new arm over the same prompt set.
        `unanchored` (with anchor=False): why this arm will never be anchored, shown instead of 'anchor pending'."""
        if self.state.mode != "launch":
            raise RuntimeError("attached to a server the console did not launch: it cannot relaunch it")
        if self.state.cell is not None and self.state.cell.running:
            raise RuntimeError("a cell is running; stop it (s) before flipping")
        self.state.relaunching = True
        try:
            await self._stop_telemetry()
            for c in (self.stream, self.admin):
                if c is not None:
                    await c.aclose()
            if self.engine is not None:
                await asyncio.to_thread(self.engine.stop)
            for ne in self.node_engines:
                await asyncio.to_thread(ne.stop)
            if self.port_given and self.profile is not None:  # --port holds for every arm of the session
                profile = replace(profile, port=self.profile.port)
            self.profile = profile.with_sim() if self.state.simulated and not profile.is_sim else profile
            if self.session is not None:  # the flipped arm, as a profile file, for reproduction
                (self.session.dir / f"{profile.name}.toml").write_text(profile_to_toml(profile))
            self.state.server = None
            self.state.metrics = None
            self.state.error = None
            self.state.startup = None
            self.monitor = LiveMonitor()
            self.state.live = None
            await self._launch()
            if forecast is not None and forecast_prompt_set:
                self._pending_forecast = (len(self.state.arms) - 1, forecast_prompt_set, forecast)
        finally:
            self.state.relaunching = False
        if unanchored and not anchor and self.state.arms:
            self.state.arms[-1].unanchored = unanchored
        if anchor:
            await self.run_anchor()


    async def stop(self) -> None:
        await self._stop_telemetry()
        for c in (self.stream, self.admin):
            if c is not None:
                try:
                    await c.aclose()
                except Exception:
                    pass
        if self.engine is not None:
            await asyncio.to_thread(self.engine.stop)
        for ne in self.node_engines:
            await asyncio.to_thread(ne.stop)
        self.nvml.close()
        if self.state.phase != "dead":
            self.state.phase = "stopped"
        self._emit(Stopped())
"""Finished rows a completed cell keeps in memory for display (all of them are in rows.jsonl)."""
