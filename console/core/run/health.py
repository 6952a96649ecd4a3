"""The session's acceptance health, live (docs/measurement.md#alarms): one `HealthMonitor` per arm (a relaunch of
the same arm keeps its baselines, so a drop across relaunches shows), fed every finished request of every cell, the
anchors compared with the arm's first anchor, the no-spec figures looked up once per cell. What changes is appended
to the session's `alarms.jsonl` and returned for the runtime to publish (`RuntimeState.alarms`, `AlarmChanged`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from console.core.fmt import utc_iso
from console.core.measure import health
from console.core.measure.health import Alarm, HealthMonitor, Reading
from console.core.measure.records import RequestRecord
from console.core.sessions.alarms import append_alarm, arm_history, health_key, nospec_reference


class SessionHealth:
    def __init__(self, session_dir: Path | None, sessions_root: Path, rules: health.Rules | None = None) -> None:
        self.session_dir = session_dir
        self.sessions_root = sessions_root
        self.rules = rules or health.Rules()
        self.monitors: dict[str, HealthMonitor] = {}
        self.first_anchor: dict[str, Reading] = {}
        self.arm: str | None = None
        self.arm_label = ""
        self.scale = 1.0
        self._t0 = time.monotonic()
        self._n = 0
        self._domains: dict[str, str] = {}
        self._set = ""
        self._concurrency = 1

    @property
    def monitor(self) -> HealthMonitor | None:
        return self.monitors.get(self.arm or "")

    def alarms(self) -> list[Alarm]:
        return [a for m in self.monitors.values() for a in m.alarms]

    def now(self) -> float:
        """Seconds of the modelled node since the session's health began."""
        return (time.monotonic() - self._t0) * self.scale

    def _record(self, changed: list[Alarm], event: str | None = None) -> list[tuple[str, Alarm]]:
        out = []
        for a in changed:
            ev = event or ("cleared" if not a.active else "raised")
            if ev == "raised" and a.since_utc is None:
                a.since_utc = utc_iso()
            if self.session_dir is not None:
                append_alarm(self.session_dir, ev, a, self.arm_label)
            out.append((ev, a))
        return out

    def arm_ready(self, arm: str, label: str, algorithm: str | None, configured: str | None, scale: float | None
                  ) -> list[tuple[str, Alarm]]:
        """A server is ready (launched, relaunched or attached) on arm `arm` (its launch key: a relaunch of the same
        flags keeps the arm's baselines), shown as `label`."""
        self.arm = arm
        self.arm_label = label
        self.scale = scale if scale and scale > 0 else 1.0
        m = self.monitors.get(arm)
        if m is None:
            m = self.monitors[arm] = HealthMonitor(algorithm, rules=self.rules)
        return self._record(m.server(algorithm, configured, self.now()))

    def cell_started(self, pset: Any, protocol: dict[str, Any], *, model: str | None, node_key: str | None,
                     spec: dict[str, Any] | None = None) -> None:
        """A cell begins: its prompts' domains, the no-spec figures the net-negative rule compares with, and this
        arm's recorded acceptance on the same traffic (the baseline of a key the session has not seen yet)."""
        self._domains = {p.id: p.domain for p in pset.prompts}
        self._set = pset.name
        self._concurrency = int(protocol.get("concurrency") or 1)
        m = self.monitor
        if m is None or m.algorithm is None:
            return
        ref = nospec_reference(self.sessions_root, model=model, node_key=node_key, prompt_set=pset.name,
                               sha256=pset.sha256, protocol=protocol, domains=self._domains)
        m.nospec_tok_s.update(ref)
        if spec and spec.get("algorithm"):
            hist = arm_history(self.sessions_root, model=model, node_key=node_key, prompt_set=pset.name,
                               sha256=pset.sha256, protocol=protocol, spec=spec, domains=self._domains,
                               skip=self.session_dir, window=self.rules.window)
            m.seed_baselines(hist)

    def request(self, rec: RequestRecord, *, anchor: bool = False) -> list[tuple[str, Alarm]]:
        """One finished request of the running cell (anchor cells are read whole, by `anchor_done`)."""
        m = self.monitor
        if m is None or anchor:
            return []
        domain = self._domains.get(rec.prompt_id or "", "?")
        o = health.observe(rec, health_key(self._set, domain), self.now(), self._n, self._concurrency)
        if o is None:
            return []
        self._n += 1
        return self._record(m.feed(o))

    def anchor_done(self, rows: list[RequestRecord]) -> list[tuple[str, Alarm]]:
        """An anchor cell of the running arm finished: its pooled τ against the arm's first anchor."""
        m = self.monitor
        if m is None or self.arm is None:
            return []
        obs = [o for o in (health.observe(r, "anchor", 0.0, 0) for r in rows) if o is not None]
        if not obs:
            return []
        reading = health.pooled(obs)
        first = self.first_anchor.get(self.arm)
        if first is None:
            self.first_anchor[self.arm] = reading
            changed: list[Alarm] = []
            # an anchor is also the arm's first look at acceptance: a dummy drafter shows here first
            for o in obs:
                changed += m.feed(o)
            return self._record([a for a in changed if a.kind in ("dummy", "no-spec")])
        return self._record(m.anchor("anchor", reading, first, self.now(), self._n))

    def acknowledge(self, alarm_id: str | None = None) -> list[tuple[str, Alarm]]:
        out: list[Alarm] = []
        for m in self.monitors.values():
            out += m.acknowledge(alarm_id)
        return self._record(out, "acknowledged")
