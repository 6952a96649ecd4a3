"""What later features need from the twin: adaptive draft steps (--speculative-adaptive, as SGLang 0.5.23 adapts
them), random draft weights (--speculative-draft-load-format dummy: tau ~ 1 at unchanged step cost) and topk > 1
trees (verify width num_draft_tokens and drafter passes num_steps vary independently)."""

from __future__ import annotations

import json

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from console.sim.config.args import ResolutionError, parse_argv, resolve_server_args
from console.sim.config.deployment import load_deployment
from console.sim.model.adaptive import AdaptiveController, StepSlot
from console.sim.model.calibrate import MODEL, run_cell

from .twin_process import FAST, start_twin, stop_twin

DEP = load_deployment()
EAGLE = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "lightseekorg/kimi-k2.6-eagle3-mla"]
ADAPTIVE = EAGLE + ["--speculative-adaptive"]


def resolve(*extra: str):
    argv = MODEL + ["--mem-fraction-static", "0.96", *extra]
    ns, sim = parse_argv(argv)
    return resolve_server_args(ns, sim, argv, DEP)


# ---------------------------------------------------------------------------------------------- adaptive


def test_adaptive_resolution_as_sglang():
    cfg = resolve(*ADAPTIVE)
    assert cfg.spec_adaptive and cfg.spec_adaptive_candidates == [0, 1, 3, 5, 7]
    assert (cfg.spec_steps, cfg.spec_topk, cfg.spec_draft_tokens) == (3, 1, 4)  # the middle candidate
    assert resolve(*ADAPTIVE, "--speculative-num-steps", "5").spec_draft_tokens == 6
    with pytest.raises(ResolutionError, match="not in the adaptive config candidate_steps"):
        resolve(*ADAPTIVE, "--speculative-num-steps", "4")
    off = resolve(*ADAPTIVE, "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                  "--speculative-num-draft-tokens", "6", "--attention-backend", "flashinfer")  # topk 2 needs it
    assert not off.spec_adaptive and not off.args["speculative_adaptive"]
    assert any("speculative_adaptive disabled: speculative_eagle_topk=2" in line for line in off.resolution_log)
    dflash = resolve("--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z", "--speculative-adaptive")
    assert not dflash.spec_adaptive and any("only EAGLE/EAGLE3" in line for line in dflash.resolution_log)


def test_adaptive_slot_moves_with_acceptance_like_sglang():
    slot = StepSlot(3, {"candidate_steps": [1, 3, 5, 7]})
    moves = [slot.update([6, 6]) for _ in range(30)]  # drafts accepted all the way: up past every threshold
    assert [m for m in moves if m] == [(3, 7)] and moves.index((3, 7)) == 14  # 10 warm-up rounds, then every 5th
    slot = StepSlot(3, {"candidate_steps": [1, 3, 5, 7]})
    moves = [slot.update([3]) for _ in range(30)]  # ema -> 3: one step up, then it holds
    assert [m for m in moves if m] == [(3, 5)]
    for _ in range(40):
        slot.update([0, 0])
    assert slot.steps == 1
    ctl = AdaptiveController(3, None, [1, 2, 4, 8, 16, 24, 32, 48])
    assert ctl.activate_for_batch(1) == 3 and ctl.activate_for_batch(40) == 1  # 40 -> graph bs 48 -> slot "32"
    assert ctl.switches == 1


def test_adaptive_runs_deep_on_easy_traffic_at_batch_1_and_shallow_at_load():
    easy = run_cell(ADAPTIVE, "tool", prompt_tokens=10_000, max_tokens=512, n=3)
    assert (1, 7) in easy.engine.adaptive.history and easy.engine.adaptive.slots[1].steps >= 5
    assert max(len(h) for h in easy.hists) == 8  # up to 7 accepted drafts once at 7 steps
    load = run_cell(ADAPTIVE, "chat", prompt_tokens=1000, max_tokens=256, n=32, concurrency=32)
    assert load.engine.adaptive.slots[32].steps in (0, 1) and (32, 1) in load.engine.adaptive.history
    static = run_cell(EAGLE + ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                               "--speculative-num-draft-tokens", "4"], "chat", prompt_tokens=1000, max_tokens=256,
                      n=32, concurrency=32)
    assert load.aggregate_tok_s > 0.9 * static.aggregate_tok_s


@pytest.mark.e2e
def test_adaptive_steps_show_in_metrics_and_internal_states(tmp_path):
    cfg_file = tmp_path / "adaptive.json"
    cfg_file.write_text(json.dumps({"1": {"candidate_steps": [1, 3, 7], "warmup_batches": 2, "update_interval": 2}}))
    t = start_twin(MODEL + ADAPTIVE + FAST + ["--mem-fraction-static", "0.96", "--enable-metrics",
                                              "--speculative-adaptive-config", str(cfg_file),
                                              "--decode-log-interval", "5", "--sim-launch-seed", "1"], tmp_path)
    try:
        out = t.log()
        assert "AdaptiveSpeculativeParams initialized: steps=3, candidate_steps=[1, 3, 7]" in out
        assert "Built adaptive runtime state steps=1:" in out and "Built adaptive runtime state steps=7:" in out
        body = {"text": "Call the tool get_weather for Paris and return the JSON tool call. " * 400,
                "sampling_params": {"max_new_tokens": 400, "ignore_eos": True, "temperature": 0.6}}
        r = httpx.post(t.url + "/generate", json=body, timeout=60)
        assert r.status_code == 200
        assert "Switch adaptive runtime state: steps 3 -> 7, draft_tokens 4 -> 8" in t.log()
        samples = {s.name: s.value for fam in text_string_to_metric_families(httpx.get(t.url + "/metrics").text)
                   for s in fam.samples if s.labels.get("tp_rank", "0") == "0"}
        # the gauges hold the active values as of the last decode log: past the launch's 3 steps
        assert samples["sglang:spec_num_steps"] in (5, 7)
        assert samples["sglang:spec_num_draft_tokens"] == samples["sglang:spec_num_steps"] + 1
        info = httpx.get(t.url + "/server_info").json()
        assert info["speculative_num_steps"] == 3 and info["speculative_adaptive"] is True  # the launch
        st = info["internal_states"][0]
        sim = httpx.get(t.url + "/sim/info").json()["speculative"]
        assert (st["speculative_num_steps"], st["speculative_num_draft_tokens"]) == (sim["num_steps"],
                                                                                     sim["num_draft_tokens"])
        assert sim["adaptive"] and sim["num_steps"] in (5, 7) and sim["adaptive_switches"] >= 1
    finally:
        stop_twin(t)


# ------------------------------------------------------------------------------------------ dummy weights


D6 = EAGLE + ["--speculative-num-steps", "6", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "7"]


def test_dummy_draft_weights_accept_nothing_at_unchanged_step_cost():
    real = run_cell(D6, "tool", prompt_tokens=10_000, max_tokens=512, n=4)
    dummy = run_cell(D6 + ["--speculative-draft-load-format", "dummy"], "tool", prompt_tokens=10_000,
                     max_tokens=512, n=4)
    assert dummy.mean_tau == pytest.approx(1.0, abs=0.01)
    assert sorted(dummy.step_ms)[1] == pytest.approx(sorted(real.step_ms)[1], rel=0.03)
    # a verify-tax probe: the dummy arm's step over the no-spec step prices 6 verified drafts + the drafter
    nospec = run_cell("nospec", "tool", prompt_tokens=10_000, max_tokens=512, n=4)
    tax = (1000 / dummy.median_tok_s - 1000 / nospec.median_tok_s)
    assert 2.5 < tax < 4.0


@pytest.mark.e2e
def test_dummy_draft_launch_logs_its_load_format_and_reports_tau_one(tmp_path):
    t = start_twin(MODEL + D6 + FAST + ["--mem-fraction-static", "0.96", "--speculative-draft-load-format", "dummy"],
                   tmp_path)
    try:
        assert "Using draft model load_format: 'dummy'" in t.log()
        r = httpx.post(t.url + "/generate", json={"text": "Hello " * 200, "sampling_params": {
            "max_new_tokens": 64, "ignore_eos": True}}, timeout=30).json()
        meta = r["meta_info"]
        assert meta["spec_accept_length"] == pytest.approx(64 / meta["spec_verify_ct"])
        assert meta["spec_num_correct_drafts"] == 0 and meta["spec_verify_ct"] == 63
        assert httpx.get(t.url + "/sim/info").json()["speculative"]["dummy_draft"] is True
    finally:
        stop_twin(t)


# ---------------------------------------------------------------------------------------------------- trees


def tree(steps: int, ndt: int) -> list[str]:
    return EAGLE + ["--speculative-num-steps", str(steps), "--speculative-eagle-topk", "4",
                    "--speculative-num-draft-tokens", str(ndt), "--attention-backend", "flashinfer"]


def test_tree_width_and_depth_vary_independently():
    cells = {(s, n): run_cell(tree(s, n), "chat", prompt_tokens=1000, max_tokens=384, n=4) for s, n in
             ((3, 4), (3, 16), (6, 16))}
    step = {k: sorted(c.step_ms)[len(c.step_ms) // 2] for k, c in cells.items()}
    depth = {k: max(len(h) for h in c.hists) - 1 for k, c in cells.items()}
    assert depth[(3, 4)] <= 3 and depth[(3, 16)] <= 3 and depth[(6, 16)] > 3  # accepted depth <= steps
    assert cells[(3, 16)].mean_tau > cells[(3, 4)].mean_tau  # a wider tree accepts more at the same depth
    assert step[(3, 16)] > step[(3, 4)] + 1.5  # and verifies 16 tokens instead of 4
    assert step[(6, 16)] > step[(3, 16)]  # more drafter passes at the same verify width


# ------------------------------------------------------------------------------------------- queue refusal


@pytest.mark.e2e
def test_max_queued_requests_refuses_with_sglangs_503(tmp_path):
    """--max-queued-requests: an arrival that would overflow the waiting queue is aborted with 503 (the
    scheduler's `_abort_on_queued_limit`): an error event on a stream, an ErrorResponse otherwise."""
    t = start_twin(MODEL + FAST + ["--mem-fraction-static", "0.96", "--max-running-requests", "1",
                                   "--max-queued-requests", "1", "--enable-metrics"], tmp_path)
    try:
        import asyncio

        async def go():
            async with httpx.AsyncClient(base_url=t.url, timeout=60) as c:
                long = {"text": "a " * 50, "sampling_params": {"max_new_tokens": 4000, "ignore_eos": True}}
                running = asyncio.create_task(c.post("/generate", json=long))
                await asyncio.sleep(0.2)
                queued = asyncio.create_task(c.post("/generate", json=long))
                await asyncio.sleep(0.2)
                refused = await c.post("/generate", json=long)
                chat = await c.post("/v1/chat/completions", json={
                    "model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8, "stream": True})
                return (await running).status_code, (await queued).status_code, refused, chat

        a, b, refused, chat = asyncio.run(go())
        assert (a, b) == (200, 200)
        assert refused.status_code == 503 and refused.json() == {
            "object": "error", "message": "The request queue is full.", "type": "503", "param": None, "code": 503}
        events = [e for e in chat.text.split("\n\n") if e.startswith("data: ")]
        assert json.loads(events[0][6:])["error"]["code"] == 503 and events[-1] == "data: [DONE]"
        metrics = httpx.get(t.url + "/metrics").text
        assert "sglang:num_aborted_requests_total" in metrics
    finally:
        stop_twin(t)


# ------------------------------------------------------------------------------------- through the console


@pytest.mark.e2e
@pytest.mark.parametrize("variant", ["adaptive", "dummy"])
def test_adaptive_and_dummy_launches_through_the_console(tmp_path, variant):
    """`serving-console bench --sim` with a profile whose server.extra_args carry the flag: the launch comes up,
    the cell measures, the engine log shows the mode; dummy weights read tau 1 and zero acceptance everywhere."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    extra = {"adaptive": '["--speculative-adaptive"]',
             "dummy": '["--speculative-draft-load-format", "dummy"]'}[variant]
    text = (repo / "console" / "shipped" / "profiles" / "k26-eagle3-d5.toml").read_text().replace("[server]\n", f"[server]\nextra_args = {extra}\n")
    prof = tmp_path / f"k26-{variant}.toml"
    prof.write_text(text.replace("port = 30000", f"port = {30500 + (variant == 'dummy')}"))
    p = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--profile", str(prof), "--sim", "--prompts",
                        "health", "--n", "3", "--max-tokens", "96", "--sim-time-scale", "8", "--json", "--sessions",
                        str(tmp_path / "s")], cwd=repo, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    cell = json.loads(p.stdout)["cell"]
    logs = "".join(f.read_text() for f in (tmp_path / "s").rglob("engine-*.log"))
    if variant == "adaptive":
        assert "AdaptiveSpeculativeParams initialized: steps=5, candidate_steps=[1, 3, 5, 7]" in logs
        assert cell["tau"] > 1.5
    else:
        assert "Using draft model load_format: 'dummy'" in logs
        assert cell["tau"] == pytest.approx(1.0) and not any(cell["per_position_acceptance"])
