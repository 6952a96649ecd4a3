"""The verify-tax probe's rules and fit (docs/measurement.md#the-verify-tax-probe): which legs each drafter family
gets (and which families are refused, with the reason), and that the fit recovers a known slope within its CI."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from console.core.exits import EXIT_USAGE, exit_code
from console.core.launch.profile import resolve_profile
from console.core.measure.forecast import ProbeFit, probe_fit
from console.core.run.probe import ProbeRefused, max_tree_width, plan_probe, tree_refusal
from console.core.sessions.probes import session_probe


def _with(p, **drafter):
    return replace(p, drafter=replace(p.drafter, **drafter))


def test_eagle3_tree_legs_hold_the_draft_passes_and_move_the_width_only():
    p = resolve_profile("k26-eagle3-d6")
    plan = plan_probe(p, server_args={"attention_backend": "triton", "page_size": 64})
    verify = [leg for leg in plan.legs if leg.kind == "verify"]
    assert [(leg.steps, leg.topk) for leg in verify] == [(6, 4)] * 3  # the drafter's passes: 6 × topk 4
    # never narrower than the chain (steps + 1 = 7): sglang 0.5.23's EAGLE worker dies below it (real CPU server)
    assert [leg.width for leg in verify] == [7, 11, 19]
    for leg in plan.legs:
        args = leg.profile.server_flags()
        assert args[args.index("--speculative-draft-load-format") + 1] == "dummy"
        assert args[args.index("--speculative-num-draft-tokens") + 1] == str(leg.width)
    chain = [leg for leg in plan.legs if leg.kind == "chain"]
    assert [(leg.steps, leg.topk, leg.width) for leg in chain] == [(2, 1, 3), (10, 1, 11)]
    assert "draft passes" in plan.rule and "verified width" in plan.rule


def test_trtllm_mla_with_pages_gets_chain_legs_and_says_why():
    p = resolve_profile("k26-eagle3-d6")
    why = tree_refusal(p, {"attention_backend": "trtllm_mla", "page_size": 64})
    assert why is not None and "trtllm_mla" in why and "topk > 1" in why
    plan = plan_probe(p, server_args={"attention_backend": "trtllm_mla", "page_size": 64})
    assert [(leg.kind, leg.steps, leg.width) for leg in plan.legs] == [("chain", 2, 3), ("chain", 6, 7),
                                                                       ("chain", 10, 11)]
    assert plan.rule.startswith("attention backend trtllm_mla with page size 64")
    with pytest.raises(ProbeRefused, match="no tree legs can run"):
        plan_probe(p, widths=[3, 7], server_args={"attention_backend": "trtllm_mla", "page_size": 64})
    assert tree_refusal(p, {"attention_backend": "trtllm_mha", "page_size": 1}) is not None
    assert tree_refusal(p, {"attention_backend": "fa3", "page_size": 16}) is None


@pytest.mark.parametrize(("profile", "reason"), [
    ("k26-dflash-b16", "drafts the whole block in one pass and the block is the verify width"),
    ("k26-nospec", "runs no drafter"),
])
def test_families_whose_widths_cannot_be_separated_are_refused_with_exit_2(profile, reason):
    with pytest.raises(ProbeRefused, match=reason) as e:
        plan_probe(resolve_profile(profile))
    assert exit_code(e.value) == EXIT_USAGE and "\n" not in str(e.value)


def test_ngram_is_refused_and_standalone_follows_the_eagle_rule():
    p = resolve_profile("k26-eagle3-d6")
    with pytest.raises(ProbeRefused, match="NGRAM has no draft weights"):
        plan_probe(_with(p, family="ngram", model=None))
    st = plan_probe(_with(p, family="standalone", steps=3), server_args={"attention_backend": "flashinfer"})
    assert st.rule.startswith("STANDALONE") and {leg.steps for leg in st.legs if leg.kind == "verify"} == {3}


def test_widths_outside_the_tree_are_refused():
    p = resolve_profile("k26-eagle3-d6")
    assert max_tree_width(6, 4) == 1 + 4 + 5 * 16
    with pytest.raises(ProbeRefused, match=r"verifies 7\.\.85 tokens \(at least steps \+ 1"):
        plan_probe(p, widths=[3, 90], server_args={"attention_backend": "triton"})
    with pytest.raises(ProbeRefused, match=r"--widths 6: .* verifies 7\.\.85"):
        plan_probe(p, widths=[6, 11], server_args={"attention_backend": "triton"})
    with pytest.raises(ProbeRefused, match="two or more different widths"):
        plan_probe(p, widths=[7, 7], server_args={"attention_backend": "triton"})
    with pytest.raises(ProbeRefused, match="topk ≥ 2"):
        plan_probe(p, topk=1, server_args={"attention_backend": "triton"})


def test_the_profiles_probe_section_sizes_the_probe_and_a_flag_wins(tmp_path):
    """[probe] in a profile: the CPU arms' probe is sized for the CPU (short prompts, two tree legs) by their profile;
    the CLI's flags win over it, and a profile without it keeps the GPU defaults."""
    from console.core.launch.profile import load_profile, profile_to_toml
    cpu = resolve_profile("cpu-smollm2-standalone-d3")
    plan = plan_probe(cpu)
    assert [(leg.kind, leg.topk, leg.width) for leg in plan.legs] == [("verify", 2, 4), ("verify", 2, 10)]
    assert (plan.protocol.prompt_set, plan.protocol.n, plan.protocol.max_tokens) == ("health", 2, 24)
    given = plan_probe(cpu, widths=[4, 6, 11], chain=True, n=3, max_tokens=16, prompts="math-short")
    assert [(leg.kind, leg.width) for leg in given.legs] == [("verify", 4), ("verify", 6), ("verify", 11),
                                                             ("chain", 2), ("chain", 8)]
    assert (given.protocol.prompt_set, given.protocol.n, given.protocol.max_tokens) == ("math-short", 3, 16)
    gpu = plan_probe(resolve_profile("k26-eagle3-d6"), server_args={"attention_backend": "triton"})
    assert (gpu.protocol.prompt_set, gpu.protocol.n, gpu.protocol.max_tokens) == ("tool", 8, 256)
    f = tmp_path / "again.toml"  # the section survives a profile written back out (the flip's derived profiles)
    f.write_text(profile_to_toml(cpu))
    again = load_profile(f)
    assert (again.probe_prompts, again.probe_n, again.probe_max_tokens, again.probe_widths, again.probe_topk,
            again.probe_chain) == ("health", 2, 24, "4,10", 2, False)


def _synthetic(slope: float, widths, n: int, sd: float, intercept: float, rng) -> list[tuple[int, list[float]]]:
    return [(w, list(intercept + slope * w + rng.normal(0, sd, n))) for w in widths]


def test_fit_recovers_a_known_slope_within_its_ci():
    rng = np.random.default_rng(5)
    hits = 0
    for trial in range(20):
        v = _synthetic(0.26, (3, 7, 11), 8, 0.08, 7.4, rng)
        c = _synthetic(0.40, (4, 10), 8, 0.08, 6.7, rng)
        fit, why = probe_fit(v, c, seed=trial, n_boot=400)
        assert fit is not None and fit.verify is not None and fit.chain is not None, why
        lo, hi = fit.verify.ci_ms
        hits += lo <= 0.26 <= hi
        assert fit.verify.slope_ms == pytest.approx(0.26, abs=0.05)
        assert fit.draft_pass_ms == pytest.approx(0.14, abs=0.07)
    assert hits >= 16  # a 95% CI: at least 16 of 20 trials cover the true slope
    print(f"\nsynthetic slope 0.26 ms/token: CI covered it in {hits}/20 trials")


def test_fit_refuses_unresolved_and_nonphysical_slopes():
    rng = np.random.default_rng(1)
    flat = _synthetic(0.0, (3, 7), 6, 0.5, 8.0, rng)
    fit, why = probe_fit(flat, seed=0, n_boot=300)
    assert fit is None and "verify legs" in why and ("not resolved" in why or "not physical" in why)
    fit, why = probe_fit([(7, [9.0, 9.1])], seed=0)
    assert fit is None and "fewer than two widths" in why


def test_probe_fit_round_trips_and_the_tax_prefers_the_chain():
    rng = np.random.default_rng(2)
    fit, _ = probe_fit(_synthetic(0.25, (3, 11), 8, 0.05, 7.5, rng), _synthetic(0.4, (4, 10), 8, 0.05, 6.7, rng),
                       n_boot=300)
    assert fit is not None
    back = ProbeFit.from_json(json.loads(json.dumps(fit.to_json())))
    assert back == fit
    tax = fit.tax(" (probe-001)")
    assert tax.source == "probed" and tax.ms == fit.chain.slope_ms and tax.ci_ms == fit.chain.ci_ms
    assert "draft pass" in tax.text and "verify 0.2" in tax.text
    only_v = ProbeFit(fit.verify)
    assert only_v.tax().ms == fit.verify.slope_ms and "verify cost only" in only_v.tax().text


def _cell(d: Path, arm: dict, prompt_set: str = "tool") -> Path:
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"arm": arm, "server_args": {"model_path": "m"},
                                                 "prompt_set": {"name": prompt_set}}))
    (d / "rows.jsonl").write_text("")
    return d


def test_session_probe_matches_model_family_draft_and_kv_and_only_complete_probes(tmp_path):
    arm = {"family": "eagle3", "steps": 6, "topk": 1, "draft_tokens": 7, "draft_model": "d", "kv_dtype": "auto"}
    cell = _cell(tmp_path / "cell-001-x", arm, "chat")
    rng = np.random.default_rng(3)
    fit, _ = probe_fit([], _synthetic(0.4, (4, 7, 10), 8, 0.05, 6.7, rng), n_boot=200)
    assert fit is not None
    pd = tmp_path / "probe-001-verify-tax"
    pd.mkdir()
    doc = {"kind": "verify-tax", "complete": False, "fit": fit.to_json(), "arm": dict(arm, steps=3),
           "model_path": "m", "prompt_set": {"name": "tool", "median_prompt_tokens": 10155}}
    (pd / "probe.json").write_text(json.dumps(doc))
    assert session_probe(cell) is None  # not complete
    doc["complete"] = True
    (pd / "probe.json").write_text(json.dumps(doc))
    tax = session_probe(cell)
    assert tax is not None and tax.source == "probed" and tax.ms == pytest.approx(fit.chain.slope_ms)
    assert "probe-001-verify-tax, on tool at ~10.2k context; this cell is chat" in tax.text
    for other in ({"kv_dtype": "fp8_e4m3"}, {"family": "dflash"}, {"draft_model": "e"}):
        (pd / "probe.json").write_text(json.dumps(dict(doc, arm=dict(arm, **other))))
        assert session_probe(cell) is None, other


def test_between_leg_scatter_is_estimated_and_widens_the_ci():
    """Each leg is its own launch: a per-leg offset the requests cannot see. With three or more legs the fit
    estimates it from the scatter about the line and widens the slope's CI, so the CI still covers the slope."""
    rng = np.random.default_rng(11)
    covered_raw = covered = 0
    for trial in range(20):
        legs = [(w, list(7.4 + 0.26 * w + rng.normal(0, 0.12) + rng.normal(0, 0.05, 8))) for w in (3, 5, 7, 9, 11)]
        fit, _ = probe_fit(legs, seed=trial, n_boot=300)
        assert fit is not None and fit.verify is not None and fit.verify.launch_sd_ms is not None
        lo, hi = fit.verify.ci_ms
        covered += lo <= 0.26 <= hi
        # the requests-only CI, as if there were no between-leg scatter
        v = fit.verify
        raw, _ = probe_fit([(w, list(np.array(xs) - (m - (v.intercept_ms + v.slope_ms * w))))
                            for (w, xs), m in zip(legs, v.medians_ms)], seed=trial, n_boot=300)
        assert raw is not None and raw.verify is not None
        covered_raw += raw.verify.ci_ms[0] <= 0.26 <= raw.verify.ci_ms[1]
        assert hi - lo >= raw.verify.ci_ms[1] - raw.verify.ci_ms[0] - 1e-9
    assert covered >= 16 and covered > covered_raw
    print(f"\nper-leg scatter 0.12 ms: the CI covered the slope in {covered}/20 trials "
          f"(requests only: {covered_raw}/20)")


def test_the_forecast_screen_and_cli_table_name_the_probed_source(tmp_path):
    """A cell of an older console (no `arm` in its manifest, only its speculative record) in a session with a probe:
    the one forecast (sessions.forecasts.cell_forecast) takes the probed tax and the forecast screen prints its source."""
    from console.core.engine.server_info import ServerInfo
    from console.ui.screens.forecast import forecast_body
    from tests.ui.fake_runtime import HISTS, _write_cell, row
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "sglang-0.5.23" / "server_info_eagle3_tp4.json"
    info = ServerInfo.parse(json.loads(fix.read_text()))
    cell = _write_cell(info, [row(i, 470.0 + 9 * i, HISTS[i % len(HISTS)]) for i in range(6)])
    m = json.loads((cell / "manifest.json").read_text())
    m["server_args"] = {"model_path": info.raw.get("model_path")}
    (cell / "manifest.json").write_text(json.dumps(m))
    rng = np.random.default_rng(4)
    fit, _ = probe_fit([], _synthetic(0.41, (4, 7, 10), 8, 0.05, 6.7, rng), n_boot=200)
    assert fit is not None
    pd = cell.parent / "probe-001-verify-tax"
    pd.mkdir()
    (pd / "probe.json").write_text(json.dumps({
        "kind": "verify-tax", "complete": True, "fit": fit.to_json(), "model_path": info.raw.get("model_path"),
        "arm": {"family": "eagle3", "steps": 6, "topk": 1, "draft_tokens": 7, "kv_dtype": "auto",
                "draft_model": info.arm.draft_model}, "prompt_set": {"name": "tool"}}))
    from console.core.sessions.forecasts import cell_forecast
    cf = cell_forecast(cell, [5, 6, 7])
    assert cf.forecast.tax.source == "probed" and cf.forecast.tax.ms == pytest.approx(fit.chain.slope_ms)
    from rich.console import Console
    con = Console(width=160, record=True)
    con.print(forecast_body(cf, 60))
    text = con.export_text()
    assert "verify tax 0.4" in text and "probed (probe-001-verify-tax, on tool; this cell is health), 95% CI" in text


@pytest.mark.parametrize(("argv", "says"), [
    (["--profile", "k26-dflash-b16", "--sim"], "k26-dflash-b16: DFLASH drafts the whole block in one pass"),
    (["--attach", "http://127.0.0.1:1"], "the probe relaunches the engine at each width; give --profile"),
    (["--profile", "k26-eagle3-d6", "--widths", "3,x"], "--widths '3,x': give verify widths as a list like 3,7,11"),
    (["--profile", "k26-eagle3-d6", "--prompts", "nope"], "prompt set 'nope' not found"),
    (["--profile", "k26-eagle3-d6", "--session", "/nonexistent"], "--session /nonexistent: no session.json there"),
])
def test_probe_cli_bad_input_is_one_line_and_exit_2_before_anything_launches(argv, says, capsys):
    from console.cli import main
    assert main(["probe", "verify-tax", *argv]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and err[0].startswith("serving-console: ")


def test_a_few_requests_a_leg_never_put_the_point_at_the_edge_of_its_interval():
    """#30 item 5: with 3 requests a leg and one slow request, the percentile bootstrap of the legs' medians has
    three atoms per leg — the median 21.65 ms and the slow 23.6 ms among them — so the slope through the medians
    (0.400 ms/token) sat at the lower edge of its own 95% CI (as the probe's '0.365 … [0.077, 0.375]' did at the
    upper). Below MIN_BOOTSTRAP_REQUESTS a leg, the fit is the slope through the legs' means with its t interval:
    the point is the interval's centre, and the interval is as wide as three requests with one outlier leave it."""
    from console.core.measure.forecast import MIN_BOOTSTRAP_REQUESTS
    cells = [(4, [20.0, 20.1, 20.05]), (8, [21.6, 21.65, 23.6])]
    assert MIN_BOOTSTRAP_REQUESTS > 3
    f, why = probe_fit(cells, seed=0)
    assert f is not None and f.verify is not None, why
    v = f.verify
    lo, hi = v.ci_ms
    assert v.estimator == "means, t interval"
    assert v.slope_ms == pytest.approx((np.mean(cells[1][1]) - np.mean(cells[0][1])) / 4)
    assert lo < v.slope_ms < hi
    assert abs((v.slope_ms - lo) - (hi - v.slope_ms)) < 0.15 * (hi - lo)  # centred: t draws are symmetric
    # five requests a leg keep the bootstrap of medians (the estimator the probe's default n = 8 uses)
    f5, _ = probe_fit([(4, [20.0, 20.1, 20.05, 20.02, 20.08]), (8, [21.6, 21.65, 21.7, 21.62, 21.68])], seed=0)
    assert f5 is not None and f5.verify.estimator == "medians, bootstrap"
    lo5, hi5 = f5.verify.ci_ms
    assert lo5 <= f5.verify.slope_ms <= hi5


def test_small_legs_cover_the_true_slope_as_a_95_percent_interval_should():
    """Coverage of the probe's interval with 2 and 3 requests a leg at three widths (true tax 0.4 ms/token, 3%
    request spread, launch offsets 1% of a step): 300 seeded draws each. The percentile bootstrap of 2-request
    medians covered 82% (246/300) and 93% (280/300); the t interval covers 96% (283/296, 288/300) — the bound is 90%:
    a true 95% interval falls below it in 300 draws with probability < 1e-4)."""
    rng = np.random.default_rng(1)
    for n in (2, 3):
        cover = fits = 0
        for k in range(300):
            cells = [(w, list((20 + 0.4 * w + rng.normal(0, 0.2)) * (1 + rng.normal(0, 0.03, size=n))))
                     for w in (4, 8, 16)]
            f, _ = probe_fit(cells, seed=k, n_boot=500)
            if f is None:
                continue
            fits += 1
            cover += f.verify.ci_ms[0] <= 0.4 <= f.verify.ci_ms[1]
        assert fits >= 250 and cover / fits >= 0.90, (n, cover, fits)
