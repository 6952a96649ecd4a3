"""A fitted node on disk (docs/twin.md#9-a-twin-of-your-node): recorded cells read as the fit's observations, and the
NODE.toml `serving-console twin fit` writes (a [fit] section over a base deployment; the twin loads it with
`--sim-node`, core/measure/nodefit.py has the model).

    cell_observations(dirs)   every measurement cell under the directories (sessions, campaigns, cells; never a
                              probe's legs), one observation per traffic domain of its rows
    write_node_file(fit, out) NODE.toml: every parameter with its sd, source and cell count, the cells, the notes
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from console.core.fmt import utc_iso
from console.core.measure import stats
from console.core.measure.nodefit import CellObs, NodeFit, family_of
from console.core.sessions.probes import session_probe
from console.core.sessions.store import find_cells, load_rows, read_json


def cell_observations(dirs: Iterable[Path]) -> tuple[list[CellObs], dict[str, tuple[float, float | None]]]:
    """(observations, probed tax per family) of every cell under `dirs`: a cell's rows split by their prompts'
    domain (the manifest's `domains`; older cells: one domain, '?'), the statistic's rows only."""
    out: list[CellObs] = []
    probes: dict[str, tuple[float, float | None]] = {}
    for d in dirs:
        for cell in find_cells(Path(d)):
            try:
                m = read_json(cell / "manifest.json")
            except (OSError, ValueError):
                continue
            if not isinstance(m, dict) or not m.get("complete"):
                continue
            spec = m.get("speculative") or {}
            algo = spec.get("algorithm") or None
            if (m.get("server_args") or {}).get("speculative_draft_load_format") == "dummy":
                continue  # random draft weights: not this node's acceptance
            ndt = int(spec.get("num_draft_tokens") or 1) if algo else 1
            proto = m.get("protocol") or {}
            domains: dict[str, str] = m.get("domains") or {}
            every = load_rows(cell)
            rows = [r for r in every if r.ok and not r.warmup and not r.flags]
            stall = prefill_stalls(every)
            groups: dict[str, list] = {}
            for r in rows:
                groups.setdefault(domains.get(r.prompt_id or "", "?"), []).append(r)
            for dom, rs in sorted(groups.items()):
                speeds = [s for s in (stats.output_tok_s(r) for r in rs) if s is not None]
                if len(speeds) < 2:
                    continue
                h = stats.pool_histograms(r.spec_histogram for r in rs) if algo else []
                tau = stats.histogram_tau(h) if h else None
                if algo and tau is None:
                    continue
                ptoks = [r.prompt_tokens for r in rs if r.prompt_tokens]
                ttfts = [t for t in (stats.ttft_s(r) for r in rs) if t is not None]
                pset = (m.get("prompt_set") or {}).get("name") or "?"
                arm = f"{algo or 'nospec'}{'' if not algo else f' n{ndt}'}"
                out.append(CellObs(
                    source=str(cell), algorithm=algo, draft_tokens=ndt, steps=spec.get("num_steps"), domain=dom,
                    prompt_set=pset, prompt_tokens=statistics.fmean(ptoks) if ptoks else 0.0,
                    max_tokens=int(proto.get("max_tokens") or 0), concurrency=int(proto.get("concurrency") or 1),
                    n=len(speeds), median_tok_s=float(stats.interp_median(speeds) or 0.0), tau=tau or 1.0,
                    hist=tuple(h), ttft_median_s=statistics.median(ttfts) if ttfts else None,
                    capacity=m.get("kv_capacity_tokens"), temperature=float(proto.get("temperature") or 0.0),
                    stalls=_mean([stall[r.request_id] for r in rs if r.request_id in stall]),
                    key=f"{cell.parent.name}/{cell.name} · {arm} · {pset} · {dom} · c{proto.get('concurrency') or 1}"))
            if algo:
                t = session_probe(cell)
                if t is not None and t.source == "probed":
                    fam = family_of(algo) or algo.upper()
                    sd = (t.ci_ms[1] - t.ci_ms[0]) / 3.92 if t.ci_ms else None
                    probes.setdefault(fam, (t.ms, sd))
    return out, probes


def prefill_stalls(rows: list) -> dict[str, int]:
    """request_id → how many other requests' first tokens (each the end of a prefill forward that stalled the
    running batch) arrived inside its decode span (first to last content chunk), on the client's clock."""
    firsts = [(r.request_id, r.wall_start + r.t_first_s) for r in rows if r.t_first_s is not None and r.wall_start]
    out: dict[str, int] = {}
    for r in rows:
        if r.t_first_s is None or r.t_last_s is None or not r.wall_start:
            continue
        a, b = r.wall_start + r.t_first_s, r.wall_start + r.t_last_s
        out[r.request_id] = sum(1 for rid, t in firsts if rid != r.request_id and a < t < b)
    return out


def _mean(xs: list[int]) -> float | None:
    return statistics.fmean(xs) if xs else None


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _v(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        return repr(float(x)) if isinstance(x, float) else str(x)
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_v(y) for y in x) + "]"
    return _q(str(x))


def node_toml(fit: NodeFit, argv: list[str] | None = None) -> str:
    """The NODE.toml text of a fit (every parameter with its sd, where it came from and from how many cells)."""
    lines = ["# A twin of a measured node: `serving-console twin fit` (docs/twin.md#9-a-twin-of-your-node).",
             f"# {len(fit.cells)} cell observation(s); step model residual sd {fit.residual_sd_pct or 0:.1f}%.",
             "# Serve as this node: --sim-node THIS_FILE on sim, tui, bench, pair, sweep and probe.",
             "", "[fit]", f"name = {_q(fit.name)}", f"base = {_q(fit.base)}", f"fitted_utc = {_q(utc_iso())}"]
    if argv:
        lines.append(f"command = {_q(' '.join(argv))}")
    if fit.residual_sd_pct is not None:
        lines.append(f"residual_sd_pct = {fit.residual_sd_pct!r}")
    lines.append(f"verify_shape = {_q(fit.verify_shape)}")
    lines.append(f"cells = {_v(sorted(set(fit.cells)))}")
    lines.append(f"notes = {_v(fit.notes)}")
    for group, params in (("step", fit.step), ("prefill", fit.prefill)):
        for k, p in params.items():
            lines += ["", f"[fit.{group}.{_q(k) if ':' in k else k}]", f"value = {p.value!r}"]
            if p.sd is not None:
                lines.append(f"sd = {p.sd!r}")
            lines += [f"source = {_q(p.source)}", f"cells = {p.cells}"]
            if p.note:
                lines.append(f"note = {_q(p.note)}")
    for a in fit.acceptance:
        lines += ["", "[[fit.acceptance]]", f"family = {_q(a.family)}", f"domain = {_q(a.domain)}",
                  f"conditionals = {_v([round(c, 6) for c in a.conditionals_at])}",
                  f"verify_steps = {_v(a.steps)}", f"context = {a.context!r}",
                  f"temperature = {a.temperature!r}", f"cells = {a.cells}"]
    if fit.capacity:
        lines += ["", "[fit.capacity]"] + [f"{_q(k)} = {v}" for k, v in sorted(fit.capacity.items())]
    return "\n".join(lines) + "\n"
