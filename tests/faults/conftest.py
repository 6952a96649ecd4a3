"""Helpers of the fault suite: the engine twin launched by the console's own Runtime (or CLI) with
`--sim-fault` specs, fast-forwarded so that the whole folder stays well under two minutes on two cores."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from dataclasses import replace

from console.core.launch.profile import resolve_profile
from console.core.launch.ports import free_port
from console.core.run.events import Event
from console.core.run.runtime import Runtime

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "console.cli"]
#: 20x faster serving, cold start in ~1 s: per-request figures are not what these tests look at
FAST = ["--sim-time-scale", "20", "--sim-startup-scale", "1000"]
PROFILE = "k26-eagle3-d6"


def make_runtime(tmp: Path, *faults: str, events: list[Event] | None = None, sim_args: list[str] | None = None
                 ) -> Runtime:
    args = list(FAST if sim_args is None else sim_args)
    for f in faults:
        args += ["--sim-fault", f]
    # a free port rather than the profile's 30000, which other test runs on this host may hold
    prof = replace(resolve_profile(PROFILE), port=free_port())
    return Runtime(profile=prof, sim=True, sim_args=args, sessions=tmp / "sessions",
                   observer=(events.append if events is not None else None))


def one_line(text: str | None) -> str:
    assert text, "no cause given"
    assert "\n" not in text and "\r" not in text and len(text) <= 1000, repr(text)
    return text


def rows_on_disk(cell_dir: str | Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (Path(cell_dir) / "rows.jsonl").read_text().splitlines() if x.strip()]


def manifest(cell_dir: str | Path) -> dict[str, Any]:
    return json.loads((Path(cell_dir) / "manifest.json").read_text())


def profiles_with_free_port(tmp: Path) -> Path:
    """A profiles directory holding the reference profile on a free port (for CLI runs, through
    $SERVING_CONSOLE_PROFILES, so that `bench --resume` finds the same profile by name)."""
    d = tmp / "profiles"
    d.mkdir(exist_ok=True)
    text = (REPO / "console" / "shipped" / "profiles" / f"{PROFILE}.toml").read_text()
    assert "port = 30000" in text
    (d / f"{PROFILE}.toml").write_text(text.replace("port = 30000", f"port = {free_port()}"))
    return d


def cli_env(profiles: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200", "SERVING_CONSOLE_PROFILES": str(profiles)}


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return tmp_path / "sessions"
