"""A cell's active draft steps under adaptive speculation (docs/measurement.md#adaptive-speculation):

    cell-<nnn>-<slug>/adaptive.jsonl   one line per finished request: its request id and the active draft steps
                                       read while it ran (appended as it finishes, like rows.jsonl)
    cell-<nnn>-<slug>/adaptive.json    the summary (recomputable from the two files): requests per step count,
                                       readings per step count, per-position acceptance per step count

Where the steps come from: SGLang 0.5.23 reports nothing per request about them (`spec_num_proposed_drafts` in
meta_info is verify_ct × (the launch num_draft_tokens − 1), whatever the server ran), so the console reads the
server's `sglang:spec_num_steps` gauge on /metrics (refreshed at each decode log) every 0.25 s while a cell runs and
gives each request the reading in force when it was sent plus every reading until its stream ended. A request's
step count is its most frequent reading.

Per-position acceptance per step count: 0.5.23 has no accept-length histogram per step count, on /metrics or
anywhere else; a request's own `spec_correct_drafts_histogram` pools all its verify steps. So p_i per step count
pools the histograms of the requests whose every reading was that count and whose histogram accepted no more
drafts than that count allows; the others (a switch seen, or one between two readings) are counted as mixed and
appear only in the cell's pooled p_i, beside the distribution.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from console.core.measure import stats
from console.core.sessions.store import load_rows, write_json

SOURCE = ("/metrics sglang:spec_num_steps, read every 0.25 s while the cell ran; a request gets the reading in force "
          "when it was sent and every reading until its stream ended")


def append_request_steps(cell_dir: Path, request_id: str, steps: list[int]) -> None:
    line = json.dumps({"request_id": request_id, "steps": steps}, separators=(",", ":"))
    with open(Path(cell_dir) / "adaptive.jsonl", "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def load_request_steps(cell_dir: Path) -> dict[str, list[int]]:
    path = Path(cell_dir) / "adaptive.jsonl"
    out: dict[str, list[int]] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
            out[str(d["request_id"])] = [int(s) for s in d["steps"]]
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line
    return out


def mode(steps: list[int]) -> int | None:
    """A request's step count: its most frequent reading (the later one on a tie)."""
    if not steps:
        return None
    c = Counter(steps)
    top = max(c.values())
    return [s for s in steps if c[s] == top][-1]


def adaptive_summary(cell_dir: Path) -> dict[str, Any] | None:
    """The cell's step distribution and per-position acceptance per step count, from adaptive.jsonl and the rows
    (the included ones); None when the cell recorded no steps."""
    cell_dir = Path(cell_dir)
    by_req = load_request_steps(cell_dir)
    if not by_req:
        return None
    rows = [r for r in load_rows(cell_dir) if not r.warmup and r.ok and not r.flags]
    requests: Counter[int] = Counter()
    readings: Counter[int] = Counter()
    pure: dict[int, list[list[int] | None]] = {}
    mixed = 0
    for r in rows:
        steps = by_req.get(r.request_id)
        if not steps:
            continue
        readings.update(steps)
        m = mode(steps)
        assert m is not None
        requests[m] += 1
        h = r.spec_histogram or []
        top = max((k for k, v in enumerate(h) if v), default=0)  # the most drafts one of its steps accepted
        if len(set(steps)) == 1 and top <= m:
            pure.setdefault(m, []).append(r.spec_histogram)
        else:  # saw a switch, or accepted more drafts than the readings allow (a switch between two readings)
            mixed += 1
    per_steps: dict[str, Any] = {}
    for s in sorted(pure):
        h = stats.pool_histograms(pure[s])
        p = stats.per_position_acceptance(h, s) if (h and s > 0) else []
        per_steps[str(s)] = {"requests": len(pure[s]), "tau": stats.histogram_tau(h) if h else None,
                             "per_position_acceptance": p}
    pooled = stats.pool_histograms(r.spec_histogram for r in rows if r.request_id in by_req)
    return {
        "source": SOURCE,
        "requests": sum(requests.values()),
        "requests_by_steps": {str(k): v for k, v in sorted(requests.items())},
        "readings_by_steps": {str(k): v for k, v in sorted(readings.items())},
        "mixed_requests": mixed,
        "per_steps": per_steps,
        "pooled_per_position_acceptance": stats.per_position_acceptance(pooled) if pooled else None,
        "note": "0.5.23 exports no accept-length histogram per step count: p_i per step count pools the requests "
                "whose every reading was that count; mixed requests are only in the pooled p_i",
    }


def write_adaptive_summary(cell_dir: Path) -> dict[str, Any] | None:
    s = adaptive_summary(cell_dir)
    if s is not None:
        write_json(Path(cell_dir) / "adaptive.json", s)
    return s


def distribution_text(summary: dict[str, Any]) -> str:
    """'steps 7: 12 requests · 5: 3 · mixed 1' for one line."""
    parts = [f"{k}: {v}" for k, v in sorted(summary["requests_by_steps"].items(), key=lambda kv: -int(kv[0]))]
    text = "active steps " + " · ".join(parts) + f" (of {summary['requests']} requests)"
    if summary.get("mixed_requests"):
        text += f", {summary['mixed_requests']} saw a switch"
    return text
