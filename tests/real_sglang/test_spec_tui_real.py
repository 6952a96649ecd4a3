"""The dashboard on a real speculative server it launched (issue #25 §4): the shipped STANDALONE d3 profile, its live
τ and p_i, then `+` (depth 3 → 4) and `f` (STANDALONE → NGRAM, the next family a profile of this model runs): each
confirm box names the arm and the flag diff, the depth flip carries the forecast, and each relaunches the real
server, which reports the new arm; the forecast is then set against the measured anchor of the new arm."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.real_sglang.conftest import until, widget_text
from tests.real_sglang.spec import SPEC, cpu_profiles, rows_of, server_side

pytestmark = pytest.mark.real_sglang


def _anchored(rt, n_arms: int) -> bool:
    st = rt.state
    return st.phase == "ready" and len(st.arms) == n_arms and st.arms[-1].anchor_median_tok_s is not None


async def test_tui_flips_relaunch_the_real_speculative_server(real_env, tmp_path, monkeypatch):
    from console.core.launch.profile import resolve_profile
    from console.core.run.runtime import Runtime
    from console.ui.app import make_app
    from console.ui.screens.flip import FlipScreen

    monkeypatch.setenv("SERVING_CONSOLE_PROFILES", str(cpu_profiles(tmp_path / "profiles")))
    prof = resolve_profile(SPEC)
    holder: dict = {}

    def factory(observer):
        holder["rt"] = Runtime(profile=prof, sessions=tmp_path / "sessions", observer=observer)
        return holder["rt"]

    app = make_app(factory)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: "rt" in holder and _anchored(holder["rt"], 1), 300, "launched and anchored")
        rt = holder["rt"]
        await pilot.pause(0.6)
        srv = widget_text(app, "#server")
        assert "standalone draft depth 3 · topk 1 · 4 draft tokens" in srv and "SIMULATED" not in srv, srv
        # live τ and p_i: the anchor cell's, from the real server's counters
        want = server_side(rows_of(Path(rt.state.cell.cell_dir)), 3)
        acc = widget_text(app, "#acceptance")
        assert f"{want['tau']:.2f}" in acc, (acc, want)
        for i, p_i in enumerate(want["p"], 1):
            assert re.search(rf"p{i}\b.*{p_i:.2f}", acc), (i, p_i, acc)

        # + : depth 3 → 4, the arm named as the shipped d4 profile, the flags that change; no forecast yet: nothing
        # measured this model's verify tax (the published one is Kimi-K2.6's on 4×B200), and the box says so
        await pilot.press("plus")
        await until(pilot, lambda: isinstance(app.screen, FlipScreen), 30, "the depth flip's confirm box")
        body = widget_text(app, "FlipScreen Vertical")
        assert "cpu-smollm2-standalone-d4" in body and "drafter.steps" in body, body
        assert "- --speculative-num-steps 3" in body and "+ --speculative-num-steps 4" in body, body
        assert "- --speculative-num-draft-tokens 4" in body and "+ --speculative-num-draft-tokens 5" in body, body
        flat = " ".join(body.replace("│", " ").split())
        assert "no forecast:" in flat and "verify tax of" in flat and "is unknown" in flat, flat
        await pilot.press("y")
        await until(pilot, lambda: _anchored(rt, 2), 400, "relaunched at depth 4 and anchored")
        assert rt.state.server.arm.steps == 4 and rt.state.server.raw["speculative_num_draft_tokens"] == 5
        assert rt.state.profile_name == "cpu-smollm2-standalone-d4"
        assert 1.0 < rt.state.arms[-1].anchor_tau <= 5.0

        # − : back to depth 3. Two verify widths of one prompt set are measured in this session now (the anchors at
        # 4 and 5 tokens): the tax is fitted from them when its CI excludes zero, and the box forecasts depth 3
        await pilot.press("minus")
        await until(pilot, lambda: isinstance(app.screen, FlipScreen), 30, "the second depth flip's confirm box")
        body = widget_text(app, "FlipScreen Vertical")
        flat = " ".join(body.replace("│", " ").split())
        assert "cpu-smollm2-standalone-d3" in flat, flat
        m = re.search(r"→ depth 3: τ ([\d.]+), step [\d.]+ ms, ([\d.]+) tok/s", flat)
        fitted = re.search(r"verify tax ([\d.]+) ms/token: fitted", flat)
        if m is None:  # the fit did not resolve: the box says why, in words
            assert "no forecast:" in flat and "fit" in flat, flat
        else:
            assert fitted is not None, flat
        await pilot.press("y")
        await until(pilot, lambda: _anchored(rt, 3), 400, "relaunched at depth 3 and anchored")
        a = rt.state.arms[-1]
        assert rt.state.server.arm.steps == 3 and 1.0 < a.anchor_tau <= 4.0
        if m is not None:
            fc_tau, fc_tok_s = float(m.group(1)), float(m.group(2))
            print(f"\nreal flip d4 → d3: forecast {fc_tok_s:.2f} tok/s τ {fc_tau:.2f} (verify tax {fitted.group(1)} "
                  f"ms/token fitted); measured anchor {a.anchor_median_tok_s:.2f} tok/s τ {a.anchor_tau:.2f} "
                  f"({100 * (fc_tok_s / a.anchor_median_tok_s - 1):+.1f}%)")
        else:
            print(f"\nreal flip d4 → d3: no forecast ({flat[flat.index('no forecast'):][:160]})")

        # f : STANDALONE → NGRAM (the families this model's profiles run: none, standalone, ngram)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FlipScreen), 30, "the family flip's confirm box")
        body = widget_text(app, "FlipScreen Vertical")
        assert "cpu-smollm2-ngram" in body and "drafter.family" in body and "ngram" in body, body
        assert "+ --speculative-algorithm NGRAM" in body and "- --speculative-algorithm STANDALONE" in body, body
        await pilot.press("y")
        await until(pilot, lambda: _anchored(rt, 4), 400, "relaunched as NGRAM and anchored")
        assert rt.state.server.raw["speculative_algorithm"] == "NGRAM"
        assert rt.state.profile_name == "cpu-smollm2-ngram"
        await pilot.pause(0.6)
        assert "ngram" in widget_text(app, "#server").lower()
        await asyncio.wrap_future(app._io.submit(rt.stop()))
