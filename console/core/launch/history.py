"""Launch history: how long the previous launch of the same arm took, phase by phase, so the startup view can
show elapsed and remaining instead of a spinner (a 1T model takes 10+ minutes to load).

Kept in `<sessions root>/.launch-history.json`, keyed by the arm's launch flags (host/port excluded) and the
engine (twin or interpreter path). Wall seconds as this machine saw them.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from console.core.fmt import utc_iso
from console.core.launch.logparse import StartupProgress
from console.core.launch.profile import Profile

FILE = ".launch-history.json"


def arm_key(p: Profile) -> str:
    raw = json.dumps([p.engine_python, list(p.launch_key())])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class LaunchHistory:
    def __init__(self, root: Path) -> None:
        self.path = Path(root) / FILE

    def _load(self) -> dict[str, Any]:
        try:
            d = json.loads(self.path.read_text())
            return d if isinstance(d, dict) else {}
        except (OSError, ValueError):
            return {}

    def get(self, p: Profile) -> dict[str, Any] | None:
        return self._load().get(arm_key(p))

    def record(self, p: Profile, total_s: float, progress: StartupProgress) -> None:
        phases = {ph.key: round(ph.ended_at - ph.started_at, 3) for ph in progress.phases
                  if ph.started_at is not None and ph.ended_at is not None}
        d = self._load()
        d[arm_key(p)] = {"profile": p.name, "total_s": round(total_s, 3), "phases": phases,
                         "utc": utc_iso()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(d, indent=1))
            os.replace(tmp, self.path)
        except OSError:
            pass  # history is a convenience: never fail a launch over it


@lru_cache(maxsize=8)
def launch_history(root: Path) -> LaunchHistory:
    return LaunchHistory(Path(root))


def remaining_s(previous_total_s: float | None, elapsed_s: float | None) -> float | None:
    """Time left if this launch goes like the previous one (never negative); None without history."""
    if previous_total_s is None or elapsed_s is None:
        return None
    return max(0.0, previous_total_s - elapsed_s)
