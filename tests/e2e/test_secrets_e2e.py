"""An API key comes from the environment (never the profile), reaches the engine, and appears in no artifact
of the run: not the engine log (SGLang prints its server_args, key included), manifests, rows, session.json,
pair or chat files, nor the shared HTML report and its exported plots. Servers bind to 127.0.0.1 unless the profile says otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
KEY = "sk-test-3f9c1d0e8b7a6f5e4d3c2b1a"


def test_key_reaches_the_engine_but_no_artifact(tmp_path):
    prof = tmp_path / "keyed.toml"
    prof.write_text((REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text().replace(
        '# api_key_env = "SGLANG_API_KEY"', 'api_key_env = "SC_TEST_API_KEY"'))
    env = {**__import__("os").environ, "SC_TEST_API_KEY": KEY}
    sessions = tmp_path / "sessions"
    r = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--profile", str(prof), "--sim", "--prompts",
                        "health", "--n", "2", "--max-tokens", "32", "--sim-time-scale", "4", "--json",
                        "--sessions", str(sessions)], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]  # the twin demanded the key: requests authenticated
    assert KEY not in r.stdout and KEY not in r.stderr
    files = [p for p in sessions.rglob("*") if p.is_file()]
    assert any(p.name.startswith("engine-") for p in files) and any(p.name == "manifest.json" for p in files)
    leaks = [str(p) for p in files if KEY.encode() in p.read_bytes()]
    assert leaks == []
    log = next(p for p in files if p.name.startswith("engine-")).read_text()
    assert "'api_key': '<redacted>'" in log or "<redacted>" in log  # the engine did print it; we redacted it
    # the shared report: the HTML page (which prints the launch argv) and every exported plot (docs/reports.md)
    session = next(p.parent for p in files if p.name == "session.json")
    out, plots = tmp_path / "shared" / "report.html", tmp_path / "shared" / "plots"
    h = subprocess.run([sys.executable, "-m", "console.cli", "report", str(session), "--html", str(out), "--plots",
                        str(plots)], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert h.returncode == 0, h.stderr[-2000:]
    shared = [out, *plots.iterdir()]
    assert len(shared) > 4 and any(p.suffix == ".png" for p in shared) and any(p.suffix == ".svg" for p in shared)
    assert [str(p) for p in shared if KEY.encode() in p.read_bytes()] == [] and KEY not in h.stdout + h.stderr
    assert "--api-key &#x27;&lt;redacted&gt;&#x27;" in out.read_text()  # the flags are there, the key is not
    d = subprocess.run([sys.executable, "-m", "console.cli", "launch", str(prof), "--dry-run"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=30)
    assert KEY not in d.stdout and "--api-key '<redacted>'" in d.stdout and "--host 127.0.0.1" in d.stdout
