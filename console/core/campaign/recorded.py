"""What earlier sessions recorded that a plan can use: cells on disk of the same arm, and the KV capacity an arm's
launch reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.core.launch.profile import Profile


def _same_arm(m: dict[str, Any], p: Profile) -> bool:
    arm = m["arm"] if isinstance(m.get("arm"), dict) else None
    if arm is None or arm != p.arm.to_json():
        return False
    sa = m["server_args"] if isinstance(m.get("server_args"), dict) else {}
    model = str(sa.get("model_path") or "").removeprefix("sim:")
    if model and model != p.model_path:
        return False
    mf = sa.get("mem_fraction_static")
    if p.mem_fraction_static is not None and isinstance(mf, (int, float)) and abs(mf - p.mem_fraction_static) > 1e-6:
        return False
    tp = sa.get("tp_size")
    return not (isinstance(tp, int) and tp != p.tp)


def recorded_cells(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """(cell dir, manifest) of every recorded cell under `root` (sessions and campaigns), newest last."""
    import json
    out: list[tuple[Path, dict[str, Any]]] = []
    root = Path(root)
    if not root.is_dir():
        return out
    for mp in sorted(root.glob("**/cell-*/manifest.json")):
        try:
            m = json.loads(mp.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(m, dict):
            out.append((mp.parent, m))
    return out


def recorded_capacity(root: Path, p: Profile, cells: list[tuple[Path, dict[str, Any]]] | None = None) -> int | None:
    """KV capacity (max_total_num_tokens) a previous launch of the same arm reported, newest first."""
    for _, m in reversed(cells if cells is not None else recorded_cells(root)):
        cap = m.get("kv_capacity_tokens")
        if isinstance(cap, int) and cap > 0 and _same_arm(m, p):
            return cap
    return None
