"""Real speculative decoding in the loop (issue #25): SGLang 0.5.23's own CPU speculative path serving a STANDALONE
drafter (docs/real-sglang.md#speculative-decoding-on-cpu), and the console's τ and p_i against what the server
itself reports for the same requests — per request (meta_info through /generate, sglext.spec_tokens_details through
chat), pooled, and through the server's own counters (/metrics, /server_info) — computed here without the console."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from tests.real_sglang.conftest import run_cli, stop_server, until, widget_text
from tests.real_sglang.spec import (SPEC, cpu_profiles, metric, rows_of, server_accept_length, server_side,
                                    start_spec_server)

pytestmark = pytest.mark.real_sglang
K = 3  # the d3 arm's draft positions


@pytest.fixture(scope="module")
def spec_server(real_env, tmp_path_factory):
    d = tmp_path_factory.mktemp("spec-server")
    try:
        srv = start_spec_server(d / "server.log")
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    sys.stderr.write(f"\nreal-sglang: STANDALONE d3 server ready in {srv.startup_s:.1f} s at {srv.url}\n")
    yield srv
    left = stop_server(srv)
    assert not left, f"server processes still alive after the stop: {sorted(left)}"


def _same(a: float, b: float) -> bool:
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


def test_bench_on_the_shipped_standalone_profile_reads_the_real_servers_acceptance(real_env, tmp_path):
    """The issue's own command: the shipped profile by name launches the real speculative server; τ and p_i are the
    real server's, equal to what it reported per request, pooled here from its counters."""
    profiles = cpu_profiles(tmp_path / "profiles")
    p = run_cli(["bench", "--profile", SPEC, "--prompts", "health", "--n", "4", "--max-tokens", "64", "--json",
                 "--sessions", str(tmp_path / "s")], timeout=900, env={"SERVING_CONSOLE_PROFILES": str(profiles)})
    assert p.returncode == 0, p.stderr[-3000:]
    assert f"note: profile '{SPEC}' from {profiles / (SPEC + '.toml')} ($SERVING_CONSOLE_PROFILES) shadows" in p.stderr
    cell = json.loads(p.stdout)["cell"]
    assert cell["simulated"] is False and cell["engine_version"] == "0.5.23"
    assert cell["speculative_algorithm"] == "STANDALONE" and cell["n_included"] == 4
    assert 1.2 < cell["tau"] < 4, cell["tau"]
    pos = cell["per_position_acceptance"]
    assert len(pos) == K and 1 >= pos[0] >= pos[1] >= pos[2] >= 0, pos
    rows = rows_of(Path(cell["rows_path"]).parent)
    srv = server_side(rows, K)
    assert _same(cell["tau"], srv["tau"]) and all(_same(a, b) for a, b in zip(pos, srv["p"], strict=True))
    from console.core.measure.records import RequestRecord
    from console.core.measure.stats import request_tau
    for r in rows:
        # per request: the console's τ is the server's counters' 1 + correct / verify, the histogram agreeing
        h = r["spec_histogram"]
        # the histogram grows to the largest count the request saw (update_spec_correct_drafts_histogram)
        assert sum(h) == r["spec_verify_ct"] and 1 <= len(h) <= K + 1
        assert sum(k * c for k, c in enumerate(h)) == r["spec_num_correct_drafts"]
        rec = RequestRecord(**{k: v for k, v in r.items() if k in RequestRecord.__dataclass_fields__})
        assert _same(request_tau(rec), 1 + r["spec_num_correct_drafts"] / r["spec_verify_ct"])
        # …while meta_info's spec_accept_length is another quantity: completion_tokens / verify_ct
        # (tokenizer_manager._calculate_spec_decoding_metrics), which counts the prefill's token
        assert _same(r["spec_accept_length"], r["completion_tokens"] / r["spec_verify_ct"]), r
    print(f"\nreal STANDALONE d3 (launched from the shipped profile): τ {cell['tau']:.3f} (server {srv['tau']:.3f}); "
          f"p_i {' / '.join(f'{x:.3f}' for x in pos)} (server {' / '.join(f'{x:.3f}' for x in srv['p'])}); "
          f"accept rate {srv['accept_rate']:.3f}; {cell['median_tok_s']:.2f} tok/s")


@pytest.mark.parametrize("endpoint", ["chat", "generate"])
def test_attached_cells_agree_with_the_servers_counters(spec_server, tmp_path, endpoint):
    """chat carries the per-request figures in sglext.spec_tokens_details, /generate in meta_info. Every request the
    server served between two reads of its counters is in the cell (no warm-up): the verify calls and generated
    tokens of /metrics, and /server_info's lifetime accepted tokens, account for exactly the rows."""
    url = spec_server.url
    v0, g0 = metric(url, "sglang:spec_verify_calls_total"), metric(url, "sglang:generation_tokens_total")
    a0 = server_accept_length(url) or 0.0  # (none before the server's first verify)
    p = run_cli(["bench", "--attach", url, "--prompts", "health", "--n", "3", "--max-tokens", "48", "--warmup", "0",
                 "--endpoint", endpoint, "--json", "--sessions", str(tmp_path / "s")], timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    cell = json.loads(p.stdout)["cell"]
    rows = rows_of(Path(cell["rows_path"]).parent)
    assert len(rows) == 3 and all(not r.get("warmup") for r in rows)
    srv = server_side(rows, K)
    assert _same(cell["tau"], srv["tau"]) and all(_same(a, b) for a, b in
                                                  zip(cell["per_position_acceptance"], srv["p"], strict=True))
    v1, g1 = metric(url, "sglang:spec_verify_calls_total"), metric(url, "sglang:generation_tokens_total")
    a1 = server_accept_length(url)
    assert v1 - v0 == srv["verify"], (v1 - v0, srv)
    assert g1 - g0 == sum(r["completion_tokens"] for r in rows)
    # /server_info's avg_spec_accept_length is the scheduler's lifetime tokens generated per verify forward: it also
    # counts what a request's last step generated past max_tokens and dropped, so it is not the cells' τ (the console
    # shows it, never uses it as τ; docs/measurement.md); it is a τ-like figure of this server's traffic
    assert a1 is not None and 1.0 < a1 <= 1 + K
    print(f"\n{endpoint}: τ {cell['tau']:.3f} = server pooled {srv['tau']:.3f}; p_i "
          f"{' / '.join(f'{x:.3f}' for x in srv['p'])}; /metrics verify calls +{v1 - v0:.0f} = Σ rows "
          f"{srv['verify']}, generated tokens +{g1 - g0:.0f}; /server_info lifetime accept length {a0:.3f} → {a1:.3f}")


async def test_tui_attached_to_the_real_speculative_server_shows_live_tau_and_p_i(spec_server, tmp_path):
    from console.core.run.runtime import Runtime
    from console.ui.app import make_app
    from console.ui.screens.run_cell import RunCellScreen

    holder: dict = {}

    def factory(observer):
        holder["rt"] = Runtime(attach_url=spec_server.url, sessions=tmp_path / "sessions", observer=observer)
        return holder["rt"]

    app = make_app(factory)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: "rt" in holder and holder["rt"].state.phase == "attached", 60, "attached")
        rt = holder["rt"]
        srv = widget_text(app, "#server")
        assert "ATTACHED" in srv and "standalone draft depth 3 · topk 1 · 4 draft tokens" in srv, srv
        assert "SIMULATED" not in srv and "drafter-q4" in srv
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RunCellScreen), 5, "run-cell screen")
        app.screen.query_one("#n").value = "2"
        app.screen.query_one("#max_tokens").value = "32"
        await pilot.click("#run")
        await until(pilot, lambda: rt.state.cell is not None and not rt.state.cell.running
                    and rt.state.cell.done == 2, 300, "the cell's 2 rows")
        await pilot.pause(0.6)
        rows = rows_of(Path(rt.state.cell.cell_dir))
        want = server_side(rows, K)
        acc = widget_text(app, "#acceptance")
        assert f"{want['tau']:.2f}" in acc, (acc, want)
        for i, p_i in enumerate(want["p"], 1):
            assert re.search(rf"p{i}\b.*{p_i:.2f}", acc), (i, p_i, acc)
        cell = widget_text(app, "#cell")
        for r in rows:  # each row: its own τ from the server's counters, 1 + correct / verify
            line = next(ln for ln in cell.splitlines() if r["request_id"] in ln)
            tau = 1 + r["spec_num_correct_drafts"] / r["spec_verify_ct"]
            assert f" {tau:.2f} " in line, (line, tau)
        await asyncio.wrap_future(app._io.submit(rt.stop()))
