"""`bench --attach`, the anchor and `/metrics` against a real SGLang 0.5.23 server (CPU, SmolLM2-135M-Instruct,
no speculation, --enable-metrics): what the console records and prints is what the real server served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_sglang.conftest import rows_of, run_cli

pytestmark = pytest.mark.real_sglang


def test_bench_attach_records_fixed_length_rows_and_the_servers_figures(server, tmp_path):
    sessions = tmp_path / "sessions"
    p = run_cli(["bench", "--attach", server.url, "--prompts", "health", "--n", "2", "--max-tokens", "32",
                 "--json", "--sessions", str(sessions)])
    assert p.returncode == 0, p.stderr[-3000:]
    cell = json.loads(p.stdout)["cell"]
    assert (cell["n"], cell["n_ok"], cell["n_included"], cell["n_errors"]) == (2, 2, 2, 0), cell
    assert cell["engine_version"] == "0.5.23" and cell["simulated"] is False
    # no speculation on this server: no τ, no p_i, and the algorithm says so
    assert cell["speculative_algorithm"] is None and cell["tau"] is None and not cell["per_position_acceptance"]
    assert cell["kv_capacity_tokens"] == server.info["max_total_num_tokens"] == 8192
    assert 0 < cell["ttft_median_s"] < 30
    assert cell["p10_tok_s"] <= cell["median_tok_s"] <= cell["p90_tok_s"] and cell["median_tok_s"] > 0.5
    cell_dir = Path(cell["rows_path"]).parent
    rows = rows_of(cell_dir)
    assert len(rows) == 2 and all(r["error"] is None for r in rows)
    for r in rows:  # ignore_eos is the default: every row runs to max tokens, counted by the real server
        assert r["completion_tokens"] == 32 and r["finish_reason"] == "length" and not r["flags"], r
        assert r["prompt_tokens"] and r["first_chunk_tokens"] == 1 and r["n_content_chunks"] >= 2
    m = json.loads((cell_dir / "manifest.json").read_text())
    assert m["flush"]["ok"] is True and m["flush"]["status"] == 200, m["flush"]  # /flush_cache on the real server
    assert m["server_args"]["device"] == "cpu" and m["server_args"]["enable_metrics"] is True
    assert m["kv_capacity_tokens"] == 8192 and m["complete"] is True
    # the report recomputes the same figures from the rows, and prints "no speculation" as such
    r = run_cli(["report", str(cell_dir)])
    assert r.returncode == 0, r.stderr
    assert "no speculation" in r.stdout and "8,192 tokens" in r.stdout and "0.5.23" in r.stdout
    rj = json.loads(run_cli(["report", str(cell_dir), "--json"]).stdout)["cells"][0]
    assert rj["median_tok_s"] == pytest.approx(cell["median_tok_s"]) and rj["tau"] is None


def test_the_anchor_records_128_token_rows_or_flags_them_short(server, tmp_path):
    """Issue #19 item 1: `a` on the real CPU server counted a row that stopped at EOS after 12 of 128 tokens, with
    no flag. The anchor must record fixed-length rows: every measured row has the full 128 tokens, or is flagged
    short and excluded from the anchor's figures."""
    import asyncio

    from console.core.run.runtime import Runtime

    async def go():
        rt = Runtime(attach_url=server.url, sessions=tmp_path / "sessions")
        try:
            await rt.start()
            res = await rt.run_anchor()
            return res, Path(rt.state.cell.cell_dir)
        finally:
            await rt.stop()

    res, cell_dir = asyncio.run(go())
    m = json.loads((cell_dir / "manifest.json").read_text())
    proto = m["protocol"]
    assert m["label"] == "anchor" and proto["prompt_set"] == "health" and proto["max_tokens"] == 128
    rows = [r for r in rows_of(cell_dir) if not r.get("warmup")]
    assert len(rows) == proto["n"] == 8
    counted = [r for r in rows if not r["flags"]]
    bad = [(r["request_id"], r["completion_tokens"], r["finish_reason"]) for r in counted
           if r["completion_tokens"] != 128]
    assert not bad, (f"anchor rows counted with fewer than 128 tokens and no flag: {bad}; manifest protocol "
                     f"ignore_eos={proto.get('ignore_eos')}, gate_short={proto.get('gate_short')}")
    assert all("short" in r["flags"] for r in rows if r["completion_tokens"] != 128)
    assert proto["ignore_eos"] is True and proto["gate_short"] is True
    assert res.summary.n_included == len(counted) and res.summary.median_tok_s


def test_metrics_and_server_info_reach_the_console(server, tmp_path):
    """--enable-metrics: the console's /metrics reader sees the real gauges; KV capacity is the server's
    max_total_num_tokens in /server_info, /metrics and the console's state alike."""
    import asyncio

    from console.core.run.cell import CellProtocol
    from console.core.run.runtime import Runtime

    async def go():
        rt = Runtime(attach_url=server.url, sessions=tmp_path / "sessions")
        try:
            await rt.start()
            await rt.run_cell(CellProtocol(prompt_set="health", n=1, max_tokens=8, warmup=0))
            await rt._poll_metrics()
            return rt.state
        finally:
            await rt.stop()

    st = asyncio.run(go())
    assert st.metrics_error is None, st.metrics_error
    mx = st.metrics
    assert mx.max_total_num_tokens == server.info["max_total_num_tokens"] == st.server.max_total_num_tokens
    assert mx.generation_tokens_total and mx.generation_tokens_total >= 8
    assert mx.num_requests_total and mx.num_requests_total >= 1
    assert mx.token_usage is not None and 0 <= mx.token_usage <= 1
    assert mx.spec_accept_length in (None, 0.0)  # the real server exports 0.0 without speculation
    info = st.server
    assert info.version == "0.5.23" and not info.arm.speculative and not info.simulated
    assert info.enable_metrics is True
