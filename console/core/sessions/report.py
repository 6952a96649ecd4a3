"""`serving-console report DIR`: every figure recomputed from `rows.jsonl` (never read back from a
summary), with the manifest's context. The same function builds the bench JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console.core.fmt import num as _n
from console.core.measure import stats
from console.core.sessions.alarms import cell_alarms
from console.core.sessions.store import iter_cells, load_rows, read_json


def cell_report(cell_dir: Path) -> dict[str, Any]:
    cell_dir = Path(cell_dir)
    manifest = read_json(cell_dir / "manifest.json") if (cell_dir / "manifest.json").exists() else {}
    rows = load_rows(cell_dir)
    spec = manifest.get("speculative") or {}
    algo = spec.get("algorithm")
    ndt = spec.get("num_draft_tokens") if algo and str(algo).upper() != "NONE" else None
    s = stats.summarize(rows, num_draft_tokens=ndt)
    usd = manifest.get("node_usd_per_hour")
    spec_on = bool(algo) and str(algo).upper() != "NONE"
    alarms = cell_alarms(cell_dir, manifest, rows) if spec_on else []
    return {
        "cell_dir": str(cell_dir),
        "label": manifest.get("label"),
        "profile": manifest.get("profile"),
        "simulated": manifest.get("simulated"),
        "sim_time_scale": manifest.get("sim_time_scale"),
        "sim_node": manifest.get("sim_node"),
        "complete": manifest.get("complete"),
        "prompt_set": (manifest.get("prompt_set") or {}).get("name"),
        "prompt_set_sha256": (manifest.get("prompt_set") or {}).get("sha256"),
        "protocol": manifest.get("protocol"),
        "n": s.n,
        "n_ok": s.n_ok,
        "n_included": s.n_included,
        "n_errors": s.n_errors,
        "excluded": sorted({f for r in rows if not r.warmup for f in r.flags}),
        "median_tok_s": s.median_tok_s,
        "p10_tok_s": s.p10_tok_s,
        "p90_tok_s": s.p90_tok_s,
        "mean_tok_s": s.mean_tok_s,
        "ttft_median_s": s.ttft_median_s,
        "ttft_p90_s": s.ttft_p90_s,
        "e2e_median_s": s.e2e_median_s,
        "tpot_median_ms": s.tpot_median_ms,
        "tau": s.tau if spec_on else None,
        "per_position_acceptance": s.per_position_acceptance if spec_on else None,
        "conditional_acceptance": s.conditional_acceptance if spec_on else None,
        "histogram": s.histogram if spec_on else None,
        "accept_rate_check": s.accept_rate_check if spec_on else None,
        "server_accept_rate": s.server_accept_rate if spec_on else None,
        "implied_step_ms": s.implied_step_ms,
        "usd_per_m_tokens": stats.cost_per_million_usd(usd, s.median_tok_s),
        "kv_capacity_tokens": manifest.get("kv_capacity_tokens"),
        "kv_cache_dtype": manifest.get("kv_cache_dtype"),
        "engine_version": manifest.get("engine_version"),
        "speculative_algorithm": algo if spec_on else None,
        "speculative": spec if spec_on else None,
        "errors": [r.error for r in rows if r.error and not r.warmup][:5],
        "rows_path": str(cell_dir / "rows.jsonl"),
        "alarms": [a.to_json() for a in alarms],
        "alarm": any(a.active for a in alarms),
    }


def cell_figure_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    """A cell's figures as (name, value) rows, from `cell_report`'s dict: the table of the markdown report, the
    sessions browser and the HTML page."""
    return [
        ("requests: n / ok / in statistic / errors", f"{r['n']} / {r['n_ok']} / {r['n_included']} / {r['n_errors']}"),
        ("median tok/s (interpolated)", _n(r["median_tok_s"])),
        ("p10 / p90 tok/s", f"{_n(r['p10_tok_s'])} / {_n(r['p90_tok_s'])}"),
        ("mean tok/s", _n(r["mean_tok_s"])),
        ("TTFT median / p90", f"{_n(r['ttft_median_s'], '.3f', ' s')} / {_n(r['ttft_p90_s'], '.3f', ' s')}"),
        ("E2E median", _n(r["e2e_median_s"], ".2f", " s")),
        ("TPOT median", _n(r["tpot_median_ms"], ".2f", " ms")),
        ("τ (pooled histograms)", _n(r["tau"], ".2f")),
        ("Σ p_i / K · server accept rate",
         f"{_n(r['accept_rate_check'], '.3f')} · {_n(r['server_accept_rate'], '.3f')}"),
        ("implied step (τ / tok/s)", _n(r["implied_step_ms"], ".2f", " ms")),
        ("KV capacity", f"{_n(r['kv_capacity_tokens'], ',', ' tokens')} ({r.get('kv_cache_dtype') or '—'})"),
        ("$/M output tokens", _n(r["usd_per_m_tokens"], ".2f")),
    ]


def simulated_note(simulated: Any, scale: float | None = None, node: str | None = None) -> str | None:
    """The one sentence every artifact of a twin run carries, in the same words (report.md, the HTML banner and
    provenance, `--json`'s `simulated_note`, the text report); None for a real server's."""
    if not simulated:
        return None
    s = "SIMULATED: measured on serving-console's engine twin, not on an SGLang server"
    if node:
        s += f", the twin serving as fitted node {node}"
    if scale and scale != 1:
        s += f", at time scale ×{scale:g} (it serves {scale:g}× faster than the node it models)"
    return s + "; every figure is the modelled node's."


def time_scale_note(scale: float | None, medians: dict[str, float | None] | None = None) -> str | None:
    """One line for figures measured on a time-compressed twin (`--sim-time-scale S`). The twin serves S× faster
    than the node it models; every figure the console prints is converted back (client-clock durations × S,
    rates ÷ S), so they are the modelled node's. `medians` (modelled tok/s) adds the client-clock equivalents.
    None when S is 1 or unknown."""
    if not scale or scale == 1:
        return None
    eq = ", ".join(f"{k + ' ' if k else ''}{v * scale:.1f}" for k, v in (medians or {}).items() if v is not None)
    return (f"Engine twin at time scale ×{scale:g}: it serves {scale:g}× faster than the node it models; every "
            f"figure here is the modelled node's (client-clock durations ×{scale:g}, rates ÷{scale:g})"
            f"{f'; the client clock read median {eq} tok/s' if eq else ''}.")


def bench_json(cell_dir: Path) -> dict[str, Any]:
    """The `bench --json` object (issue #2 contract; extra keys after the contracted ones)."""
    r = cell_report(cell_dir)
    keys = ["n", "n_ok", "median_tok_s", "p10_tok_s", "p90_tok_s", "ttft_median_s", "tau", "per_position_acceptance",
            "kv_capacity_tokens", "engine_version", "speculative_algorithm", "rows_path"]
    extra = ["n_included", "n_errors", "excluded", "implied_step_ms", "usd_per_m_tokens", "prompt_set",
             "prompt_set_sha256", "simulated", "sim_time_scale", "sim_node", "errors", "alarm", "alarms"]
    out = {k: r[k] for k in keys + extra}
    out["simulated_note"] = simulated_note(r.get("simulated"), r.get("sim_time_scale"), r.get("sim_node"))
    scale = r.get("sim_time_scale")
    if scale and scale != 1:  # every figure above is the modelled node's; the client clock's, named as such
        out["wall_clock"] = {"time_scale": scale,
                             "median_tok_s": None if r["median_tok_s"] is None else r["median_tok_s"] * scale,
                             "ttft_median_s": None if r["ttft_median_s"] is None else r["ttft_median_s"] / scale}
    return {"cell": out}


def session_report(path: Path) -> list[dict[str, Any]]:
    return [cell_report(c) for c in iter_cells(Path(path))]
