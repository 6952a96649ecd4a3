"""Helpers of the speculative part of the real_sglang lane (test_spec_*.py): the shipped CPU profiles made to run
here, a real STANDALONE server the tests attach to, and the server's own figures computed without the console."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from tests.real_sglang.conftest import HOME, REPO, Server, free_port, start_server

SHIPPED = REPO / "console" / "shipped" / "profiles"
SPEC = "cpu-smollm2-standalone-d3"
DEFAULT_HOME = "~/.cache/serving-console/real-sglang"


def cpu_profiles(d: Path) -> Path:
    """The shipped CPU profiles under their own names in `d` (which shadows the shipped ones when named by
    $SERVING_CONSOLE_PROFILES): the build's paths ($SERVING_CONSOLE_REAL_SGLANG_HOME when set) and a free port each,
    the rest as shipped."""
    d.mkdir(parents=True, exist_ok=True)
    for p in sorted(SHIPPED.glob("cpu-smollm2-*.toml")):
        text = p.read_text().replace(DEFAULT_HOME, str(HOME)).replace("port = 30000", f"port = {free_port()}")
        (d / p.name).write_text(text)
    return d


def spec_flags(name: str = SPEC) -> list[str]:
    """The speculative flags of a shipped CPU profile, as its dry run prints them (drafter, backend, dtype)."""
    from console.core.launch.profile import load_profile
    prof = load_profile(SHIPPED / f"{name}.toml")
    flags = prof.server_flags()
    out, i = [], 0
    while i < len(flags):
        f = flags[i]
        if f.startswith("--speculative") or f in ("--attention-backend", "--dtype"):
            out += [f, flags[i + 1].replace(DEFAULT_HOME, str(HOME)).replace("~", str(Path.home()))]
            i += 2
        else:
            i += 1
    return out


def start_spec_server(log: Path, extra: list[str] = ()) -> Server:
    """A real STANDALONE d3 server (the shipped profile's drafter and backend), --enable-metrics, and the scheduler's
    lifetime acceptance totals updated at every decode step (--decode-log-interval 1: /server_info's
    avg_spec_accept_length is exact, not up to 40 steps behind)."""
    return start_server(log, [*spec_flags(), "--enable-metrics", "--decode-log-interval", "1", *extra])


def metric(url: str, name: str) -> float:
    """One unlabelled-sum sample of the server's /metrics (the sum over label sets)."""
    text = httpx.get(url + "/metrics", timeout=30).text
    vals = [float(m.group(1)) for m in re.finditer(rf"^{re.escape(name)}(?:{{[^}}]*}})? (\S+)$", text, re.M)]
    return sum(vals)


def server_accept_length(url: str) -> float | None:
    info = httpx.get(url + "/server_info", timeout=30).json()
    st = (info.get("internal_states") or [{}])[0]
    return st.get("avg_spec_accept_length")


# --- the server's side, computed here from what it reported per request (never by the console's code) -------------

def server_side(rows: list[dict], k: int) -> dict:
    """Pooled τ, p_i and accept rate from the server's per-request counters and histograms (rows are what the server
    sent, recorded raw): τ = Σ(correct + verify) / Σ verify, p_i = Σ_k≥i h[k] / Σ h, accept rate = Σ correct /
    Σ proposed."""
    inc = [r for r in rows if not r.get("warmup") and not r.get("flags") and r.get("error") is None]
    verify = sum(r["spec_verify_ct"] for r in inc)
    correct = sum(r["spec_num_correct_drafts"] for r in inc)
    proposed = sum(r["spec_num_proposed_drafts"] for r in inc)
    h = [0] * (k + 1)
    for r in inc:
        for i, c in enumerate(r["spec_histogram"]):
            h[i] += c
    return {"tau": (correct + verify) / verify, "p": [sum(h[i:]) / sum(h) for i in range(1, k + 1)],
            "accept_rate": correct / proposed, "verify": verify, "correct": correct, "hist": h}


def rows_of(cell_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (cell_dir / "rows.jsonl").read_text().splitlines() if x.strip()]
