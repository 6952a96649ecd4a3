"""Comparing two recorded cells (the sessions browser's compare): B vs A as Δ% of medians with the seeded bootstrap
95% CI of measure/pairs.py, refused with one line when the prompt-set SHA-256 or the protocol differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.core.measure.launches import DEFAULT_PRIOR_DF, DEFAULT_PRIOR_SD_PCT
from console.core.measure.pairs import LaunchPlan, PairStats, pair_stats
from console.core.sessions.browse import draft_tokens_of, read_doc
from console.core.sessions.pairs import node_record
from console.core.sessions.store import load_rows

PROTOCOL_KEYS = ("max_tokens", "temperature", "concurrency", "endpoint", "ignore_eos")
"""Protocol fields two cells must share to be compared (n may differ). `ignore_eos` changes how long outputs
run, hence the per-request tok/s distribution, so it is held equal too."""
PROTOCOL_DEFAULTS = {"endpoint": "chat", "ignore_eos": False}



def _short(h: str | None) -> str:
    return f"{h[:12]}…" if h else "none"


def _manifest(cell_dir: Path) -> dict[str, Any]:
    m, problem = read_doc(Path(cell_dir) / "manifest.json")
    if not isinstance(m, dict):
        raise ValueError(f"cannot compare: {Path(cell_dir).name} has {problem or 'no manifest object'}, so its "
                         f"prompt set and protocol cannot be checked")
    return m


def check_comparable(a_dir: Path, b_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both manifests, or ValueError with one line: the prompt-set SHA-256 must be equal (both named), and so
    must max_tokens, temperature, concurrency, endpoint and ignore_eos (n may differ)."""
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    if a_dir.resolve() == b_dir.resolve():
        raise ValueError(f"cannot compare: A and B are the same cell ({a_dir.name})")
    ma, mb = _manifest(a_dir), _manifest(b_dir)
    pa = ma["prompt_set"] if isinstance(ma.get("prompt_set"), dict) else {}
    pb = mb["prompt_set"] if isinstance(mb.get("prompt_set"), dict) else {}
    ha, hb = pa.get("sha256"), pb.get("sha256")
    if not ha or not hb or ha != hb:
        raise ValueError(f"cannot compare: prompt sets differ — A {pa.get('name') or '?'} sha256 {_short(ha)} vs "
                         f"B {pb.get('name') or '?'} sha256 {_short(hb)}; a comparison needs the same pinned prompts")
    sa, sb = ma.get("sim_time_scale") or 1, mb.get("sim_time_scale") or 1
    if sa != sb:
        raise ValueError(f"cannot compare: A ran on the twin at time scale ×{sa:g}, B at ×{sb:g}; both read as the "
                         "modelled node, but the client's own overhead scales with S (compare cells of one scale)")
    qa = ma["protocol"] if isinstance(ma.get("protocol"), dict) else None
    qb = mb["protocol"] if isinstance(mb.get("protocol"), dict) else None
    if qa is None or qb is None:
        raise ValueError(f"cannot compare: {(a_dir if qa is None else b_dir).name} records no protocol "
                         f"(prompt set {pa.get('name')} sha256 {_short(ha)} on both)")
    diffs = []
    for k in PROTOCOL_KEYS:
        va, vb = qa.get(k, PROTOCOL_DEFAULTS.get(k)), qb.get(k, PROTOCOL_DEFAULTS.get(k))
        if k == "temperature" and isinstance(va, (int, float)) and isinstance(vb, (int, float)):
            same = abs(float(va) - float(vb)) < 1e-9
        else:
            same = va == vb
        if not same:
            diffs.append(f"{k} {va} vs {vb}")
    if diffs:
        raise ValueError(f"cannot compare: protocols differ — {', '.join(diffs)} (A vs B; same prompt set "
                         f"{pa.get('name')} sha256 {_short(ha)}); only n may differ")
    return ma, mb


def compare_cells(a_dir: Path, b_dir: Path, seed: int = 0, *, a_name: str = "A", b_name: str = "B",
                  n_boot: int | None = None) -> PairStats:
    """B vs A from the two cells' rows: both medians with n and p10/p90, Δ% = median(B)/median(A) − 1 with the
    pair interval (`pairs.compare_legs`: prompts paired, and the launch part of two launches unless both cells were
    measured in one launch of one session; σ_L from A's recorded prior and the node's record of pairs under the
    sessions root), its MDE and the verdict. Refuses (ValueError, one line) unless the cells share the prompt-set
    SHA-256 and the protocol (`check_comparable`)."""
    ma, mb = check_comparable(a_dir, b_dir)
    kw: dict[str, Any] = {} if n_boot is None else {"n_boot": n_boot}
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    one_launch = (a_dir.resolve().parent == b_dir.resolve().parent and ma.get("launch") is not None
                  and ma.get("launch") == mb.get("launch"))
    key = ma.get("node_key") if ma.get("node_key") == mb.get("node_key") else None
    record = node_record(a_dir.resolve().parent.parent, key) if key else []
    prior = ma.get("launch_prior") or (DEFAULT_PRIOR_SD_PCT, DEFAULT_PRIOR_DF)
    plan = LaunchPlan([0], [0 if one_launch else 1], prior_sd_pct=float(prior[0]), prior_df=float(prior[1]),
                      record=record)
    ps = pair_stats([load_rows(a_dir)], [load_rows(b_dir)], order="AB", seed=seed, a_name=a_name,
                    b_name=b_name, a_ndt=draft_tokens_of(ma), b_ndt=draft_tokens_of(mb),
                    a_kv=ma.get("kv_capacity_tokens"), b_kv=mb.get("kv_capacity_tokens"),
                    usd_per_hour=ma.get("node_usd_per_hour"), launches=plan, **kw)
    return ps


def comparison_caveats(a_dir: Path, b_dir: Path) -> list[str]:
    """What a comparison of two cells does not control, one line each (empty for a clean same-session pair)."""
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    out = []
    if a_dir.resolve().parent != b_dir.resolve().parent:
        out.append("cells from different sessions: node draws (~±5%) and drift are not controlled — a same-session "
                   "pair (A B A) is the defensible comparison")
        ha = (read_doc(a_dir.parent / "session.json")[0] or {}).get("node", {}) or {}
        hb = (read_doc(b_dir.parent / "session.json")[0] or {}).get("node", {}) or {}
        if ha.get("hostname") and hb.get("hostname") and ha.get("hostname") != hb.get("hostname"):
            out.append(f"different nodes: {ha.get('hostname')} vs {hb.get('hostname')}")
    ma, mb = (read_doc(a_dir / "manifest.json")[0] or {}), (read_doc(b_dir / "manifest.json")[0] or {})
    if ma.get("engine_version") != mb.get("engine_version"):
        out.append(f"engine versions differ: {ma.get('engine_version')} vs {mb.get('engine_version')}")
    if not ma.get("complete") or not mb.get("complete"):
        out.append("an incomplete cell is compared (interrupted or still running)")
    return out
