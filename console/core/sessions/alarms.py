"""Acceptance alarms on disk (docs/measurement.md#alarms): a session's `alarms.jsonl`, and the no-spec figures the
net-negative rule compares with.

    alarms.jsonl    one line per happening, appended and fsync'ed, never rewritten:
                    {"utc", "event": "raised" | "cleared" | "acknowledged", "arm": label, "alarm": Alarm.to_json()}
    read_alarms     the session's alarms as they stand after every line (the last state of each alarm id per arm)
    nospec_reference
                    per `prompt set · domain`, the median per-request tok/s of the no-speculation cells recorded
                    under the sessions root for the same model, node and protocol (max tokens, concurrency,
                    temperature, the prompt set's SHA-256)
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Any

from console.core.fmt import utc_iso
from console.core.measure import health, stats
from console.core.measure.health import Alarm
from console.core.sessions.store import find_cells, load_rows, read_json

ALARMS_FILE = "alarms.jsonl"


def append_alarm(session_dir: Path, event: str, alarm: Alarm, arm: str) -> None:
    """One alarm happening, appended to the session's alarms.jsonl (fsync'ed: it is evidence)."""
    line = json.dumps({"utc": utc_iso(), "event": event, "arm": arm, "alarm": alarm.to_json()}, sort_keys=True)
    with open(Path(session_dir) / ALARMS_FILE, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_alarm_events(session_dir: Path) -> list[dict[str, Any]]:
    """Every line of the session's alarms.jsonl (a torn last line, from a crash mid-write, is skipped)."""
    p = Path(session_dir) / ALARMS_FILE
    if not p.exists():
        return []
    out = []
    for line in p.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(d, dict) and isinstance(d.get("alarm"), dict):
            out.append(d)
    return out


def read_alarms(session_dir: Path) -> list[tuple[str, Alarm]]:
    """(arm, alarm) as each stands after the last line about it, in the order they were first raised."""
    last: dict[tuple[str, str, float], tuple[str, Alarm]] = {}
    for d in read_alarm_events(session_dir):
        a = Alarm.from_json(d["alarm"])
        last[(d.get("arm", ""), a.id, a.since_s)] = (d.get("arm", ""), a)
    return list(last.values())


def _key(domain: str, prompt_set: str) -> str:
    return f"{prompt_set} · {domain}"


def _matching_rows(root: Path, *, model: str | None, node_key: str | None, prompt_set: str, sha256: str,
                   protocol: dict[str, Any], spec: dict[str, Any] | None, skip: Path | None = None):
    """(cell, row) of every recorded measurement cell (no anchors) under `root` for this model, node, prompt set and
    protocol whose arm is `spec` (its speculative algorithm, draft tokens, draft model; None: no speculation)."""
    want = {k: protocol.get(k) for k in ("max_tokens", "concurrency", "temperature")}
    keys = ("algorithm", "num_draft_tokens", "draft_model_path", "topk")
    for cell in find_cells(root):
        if skip is not None and cell.resolve().is_relative_to(skip.resolve()):
            continue
        try:
            m = read_json(cell / "manifest.json")
        except (OSError, ValueError):
            continue
        if not isinstance(m, dict) or m.get("label") == "anchor":
            continue
        have = m.get("speculative") or {}
        if (spec is None) != (not have.get("algorithm")) or (
                spec is not None and any(have.get(k) != spec.get(k) for k in keys)):
            continue
        ps = m.get("prompt_set") or {}
        proto = m.get("protocol") or {}
        args = m.get("server_args") or {}
        if (ps.get("name") != prompt_set or ps.get("sha256") != sha256 or m.get("node_key") != node_key
                or args.get("model_path") != model or any(proto.get(k) != v for k, v in want.items())):
            continue
        for r in load_rows(cell):
            if r.ok and not r.warmup and not r.flags:
                yield cell, r


def nospec_reference(root: Path, *, model: str | None, node_key: str | None, prompt_set: str, sha256: str,
                     protocol: dict[str, Any], domains: dict[str, str]) -> dict[str, float]:
    """`prompt set · domain` → median tok/s of the recorded no-spec rows for this model, node and protocol.
    `domains`: prompt id → domain of the prompt set."""
    if not model or not root.exists():
        return {}
    speeds: dict[str, list[float]] = {}
    for _, r in _matching_rows(root, model=model, node_key=node_key, prompt_set=prompt_set, sha256=sha256,
                               protocol=protocol, spec=None):
        s = stats.output_tok_s(r)
        if s is not None and r.prompt_id in domains:
            speeds.setdefault(_key(domains[r.prompt_id], prompt_set), []).append(s)
    return {k: statistics.median(v) for k, v in speeds.items() if len(v) >= 4}


def arm_history(root: Path, *, model: str | None, node_key: str | None, prompt_set: str, sha256: str,
                protocol: dict[str, Any], spec: dict[str, Any], domains: dict[str, str], skip: Path | None = None,
                window: int = 8) -> dict[str, health.Reading]:
    """`prompt set · domain` → the acceptance this arm recorded earlier on this model, node and protocol (its
    first `window` rows per key, in recording order): the baseline a drop is measured against before today's
    first window exists. `skip`: the running session (its own cells are the live monitor's)."""
    if not model or not root.exists():
        return {}
    found: dict[str, list] = {}
    for _, r in _matching_rows(root, model=model, node_key=node_key, prompt_set=prompt_set, sha256=sha256,
                               protocol=protocol, spec=spec, skip=skip):
        if r.prompt_id in domains:
            k = _key(domains[r.prompt_id], prompt_set)
            if len(found.setdefault(k, [])) < window:
                o = health.observe(r, k, 0.0, 0)
                if o is not None:
                    found[k].append(o)
    return {k: health.pooled(v) for k, v in found.items() if len(v) >= window}


def health_key(prompt_set: str, domain: str) -> str:
    """The key the rules keep per: prompt set · traffic domain."""
    return _key(domain, prompt_set)


def cell_alarms(cell_dir: Path, manifest: dict[str, Any], rows: list) -> list[Alarm]:
    """The alarms a cell's rows raise when replayed through the rules (`health.replay`): what `report` recomputes.
    Keys follow the manifest's prompt domains (cells recorded before they were written: one key, domain '?'); the
    no-spec figures are the ones recorded under the sessions root the cell lives in."""
    algo = (manifest.get("speculative") or {}).get("algorithm")
    if not algo:
        return []
    pset = (manifest.get("prompt_set") or {}).get("name") or "?"
    domains: dict[str, str] = manifest.get("domains") or {}
    anchor = manifest.get("label") == "anchor"
    ordered = sorted((r for r in rows if r.ok and not r.warmup), key=lambda r: r.wall_start + (r.t_end_s or 0.0))
    t0 = ordered[0].wall_start if ordered else 0.0
    seq = [(r, "anchor" if anchor else health_key(pset, domains.get(r.prompt_id or "", "?")),
            (r.wall_start - t0 + (r.t_end_s or 0.0)) * (r.time_scale or 1.0)) for r in ordered]
    ref: dict[str, float] = {}
    root = Path(cell_dir).resolve().parents[1] if len(Path(cell_dir).resolve().parents) > 1 else None
    ps = manifest.get("prompt_set") or {}
    if root is not None and not anchor and domains:
        ref = nospec_reference(root, model=(manifest.get("server_args") or {}).get("model_path"),
                               node_key=manifest.get("node_key"), prompt_set=pset, sha256=ps.get("sha256") or "",
                               protocol=manifest.get("protocol") or {}, domains=domains)
    return health.replay(seq, algo, nospec_tok_s=ref,
                         concurrency=int((manifest.get("protocol") or {}).get("concurrency") or 1)).alarms


def alarms_markdown(session_dir: Path) -> list[str]:
    """The '## Acceptance alarms' section of a session's reports: every alarm the console raised live, as it stands
    (alarms.jsonl), with what it saw, since when and its likely causes; nothing when none was raised."""
    found = read_alarms(session_dir)
    if not found:
        return []
    lines = ["", "## Acceptance alarms", "",
             "Raised live by the console's rules (docs/measurement.md#alarms); recorded in `alarms.jsonl`.", ""]
    for arm, a in found:
        state = "cleared" if not a.active else ("acknowledged" if a.acked else "**ACTIVE**")
        when = f"{a.since_utc} · " if a.since_utc else ""
        lines.append(f"- **{a.kind}** · {a.key} · {state} · {when}request {a.since_index + 1} · arm {arm}: {a.saw}. "
                     f"_{a.causes}_")
    return lines
