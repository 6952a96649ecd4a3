"""Probe directories of a session (docs/measurement.md#the-verify-tax-probe):

    sessions/<session>/probe-<nnn>-verify-tax/
        probe.json                   the arm, the node's anchor, the family's rule, the legs (widths, step times,
                                     their cells), the fit with its bootstrap CI, the tax a forecast uses
        cell-<nnn>-probe-<leg>/      one ordinary cell per leg (manifest, rows.jsonl, summary.json)

The legs' cells sit inside the probe directory, not beside the session's cells: with random draft weights their
τ ≈ 1 is no workload's acceptance, so no forecast, fit or report of the session takes them for a measurement.
probe.json is rewritten while the probe runs (complete = false until its fit is in); the cells are never.

A forecast of a cell uses the session's latest complete probe of the same model, drafter family, draft model and
KV dtype (`session_probe`): a session is one node, so that is the probe of this node and arm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.core.measure.forecast import ProbeFit, VerifyTax
from console.core.redaction import redact_mapping
from console.core.sessions.store import read_json, slugify, write_json

PROBE_SCHEMA = 1


def new_probe_dir(session_dir: Path, kind: str) -> Path:
    n = len([p for p in Path(session_dir).glob("probe-*") if p.is_dir()]) + 1
    d = Path(session_dir) / f"probe-{n:03d}-{slugify(kind)}"
    d.mkdir()
    return d


def write_probe(probe_dir: Path, doc: dict[str, Any]) -> None:
    write_json(Path(probe_dir) / "probe.json", redact_mapping(doc))


def probe_dirs(session_dir: Path) -> list[Path]:
    return sorted(p for p in Path(session_dir).glob("probe-*") if (p / "probe.json").exists())


def _read(path: Path) -> dict[str, Any] | None:
    try:
        d = read_json(path)
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def _arm_key(arm: dict[str, Any] | None, model: str | None) -> tuple:
    a = arm or {}
    return (model or "", str(a.get("family") or "").lower(), a.get("draft_model") or "",
            a.get("kv_dtype") or "auto")


def session_probe(cell_dir: Path, cell_arm: dict[str, Any] | None = None) -> VerifyTax | None:
    """The probed tax for a cell: the latest complete verify-tax probe in the cell's session on the cell's model,
    drafter family, draft model and KV dtype; None when there is none. The text names the probe and, when the
    cell's prompt set is not the probe's, the context the probe ran at."""
    cell_dir = Path(cell_dir)
    m = _read(cell_dir / "manifest.json") or {}
    cell_arm = cell_arm if cell_arm is not None else m.get("arm")  # the caller reads older cells' arm for us
    if not isinstance(cell_arm, dict):
        return None
    model = (m.get("server_args") or {}).get("model_path")
    want = _arm_key(cell_arm, model)
    for pdir in reversed(probe_dirs(cell_dir.parent)):
        doc = _read(pdir / "probe.json")
        if not doc or doc.get("kind") != "verify-tax" or not doc.get("complete") or not doc.get("fit"):
            continue
        if _arm_key(doc.get("arm"), doc.get("model_path")) != want:
            continue
        try:
            fit = ProbeFit.from_json(doc["fit"])
        except (KeyError, TypeError, ValueError, AssertionError):
            continue
        ps = doc.get("prompt_set") or {}
        where = f" ({pdir.name}, on {ps.get('name')}"
        if ps.get("median_prompt_tokens"):
            where += f" at ~{float(ps['median_prompt_tokens']) / 1000:.1f}k context"
        cell_set = (m.get("prompt_set") or {}).get("name")
        if cell_set and cell_set != ps.get("name"):
            where += f"; this cell is {cell_set}"
        return fit.tax(where + ")")
    return None
