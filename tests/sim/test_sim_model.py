"""The twin's engine model in virtual time: memory, step times, acceptance, scheduling, determinism, calibration."""

from __future__ import annotations

import dataclasses

import pytest

from console.sim.config.args import parse_argv, resolve_server_args
from console.sim.config.deployment import load_deployment
from console.sim.content.domain import detect_domain
from console.sim.content.text import TextStream
from console.sim.content.tokens import count_tokens
from console.sim.model.acceptance import conditionals, expected_accept_length, horizon_fall
from console.sim.model.calibrate import ARMS, build_engine
from console.sim.model.engine import Engine, RequestOutput, SimRequest
from console.sim.model.memory import OutOfMemory, plan_memory
from console.sim.model.steptime import StepTimeModel

DEP = load_deployment()


def config(*extra: str):
    argv = ["--model-path", "moonshotai/Kimi-K2.6", *extra]
    ns, sim = parse_argv(argv)
    return resolve_server_args(ns, sim, argv, DEP)


# ---------------------------------------------------------------------------------------------------- memory


@pytest.mark.parametrize(("arm", "report"), [("nospec", 484_000), ("eagle3-d6", 336_000), ("dflash-b16", 295_000)])
def test_kv_capacity_at_the_reference_mem_fraction(arm, report):
    assert build_engine(ARMS[arm]).capacity == pytest.approx(report, rel=0.01)


def test_automatic_mem_fraction_leaves_no_room_for_the_pool_and_capture_is_clamped():
    # 554 GiB of weights on 4 GPUs (138.6 GiB/rank) do not leave room for any KV cache under sglang's automatic
    # mem_fraction_static for this VLM (0.7696): the launch fails as sglang's would ("Not enough memory").
    assert plan_memory(config("--tp", "4"), DEP).max_total_num_tokens == 0
    plan = plan_memory(config("--tp", "4", "--mem-fraction-static", "0.96", *ARMS["eagle3-d6"]), DEP)
    assert plan.decode_capture_bs[-1] == 48 and plan.max_total_num_tokens % 64 == 0


def test_fp8_kv_doubles_capacity_and_weights_need_four_gpus():
    bf16 = plan_memory(c := config("--tp", "4", "--mem-fraction-static", "0.96"), DEP).max_total_num_tokens
    fp8 = plan_memory(config("--tp", "4", "--mem-fraction-static", "0.96", "--kv-cache-dtype", "fp8_e4m3"),
                      DEP).max_total_num_tokens
    assert fp8 == pytest.approx(2 * bf16, rel=0.001)
    assert c.args["kv_cache_dtype"] == "auto"
    with pytest.raises(OutOfMemory):
        plan_memory(config("--tp", "3"), DEP)
    assert plan_memory(config("--tp", "4", "--mem-fraction-static", "0.7"), DEP).max_total_num_tokens == 0


# ------------------------------------------------------------------------------------------------- step time


def test_step_time_matches_the_report_anchors():
    nospec = StepTimeModel(config("--tp", "4"), DEP)
    assert nospec.decode_ms(1, 11_000) == pytest.approx(6.63, abs=0.05)  # 150.9 tok/s
    tp8 = StepTimeModel(config("--tp", "4"), DEP, tp=8)  # the 8-GPU anchor: same formula with TP = 8
    assert tp8.decode_ms(1, 11_000) == pytest.approx(6.54, abs=0.05)
    e6 = StepTimeModel(config("--tp", "4", *ARMS["eagle3-d6"]), DEP).decode_ms(1, 11_000)
    e7 = StepTimeModel(config("--tp", "4", *ARMS["eagle3-d7"]), DEP).decode_ms(1, 11_000)
    assert e7 == pytest.approx(10.10, abs=0.05)
    assert e7 - e6 == pytest.approx(0.397, abs=0.03)  # verify tax per extra drafted token
    assert nospec.union_experts(1) == pytest.approx(8.0)
    assert nospec.union_experts(10_000) == pytest.approx(384.0, abs=0.01)


def test_verified_tokens_drive_step_time_at_load():
    """Once every expert is touched, each verified token still costs its token-expert pairs: the step grows
    linearly in batch x verify width instead of saturating with the union of experts."""
    m = StepTimeModel(config("--tp", "4"), DEP)
    assert m.moe_ms(1) == pytest.approx(DEP.model.num_moe_layers * 8 * m.expert_read_ms)  # read-bound at batch 1
    per_token_small = m.moe_ms(8) - m.moe_ms(7)
    per_token_load = (m.moe_ms(512) - m.moe_ms(256)) / 256
    assert per_token_small == pytest.approx(0.2, abs=0.03)  # ~7 new experts' weights
    assert per_token_load == pytest.approx(8 * DEP.model.num_moe_layers * m.pair_ms, rel=0.01)  # compute-bound
    assert m.union_experts(512) == pytest.approx(384.0, abs=0.1)
    assert m.moe_ms(512) > 3 * m.moe_ms(128) * 0.9  # no saturation
    d = StepTimeModel(config("--tp", "4", *ARMS["dflash-b16"]), DEP)
    e = StepTimeModel(config("--tp", "4", *ARMS["eagle3-d6"]), DEP)
    n = StepTimeModel(config("--tp", "4"), DEP)
    ctx = 32 * 1300.0
    assert n.decode_ms(32, ctx) == pytest.approx(36, rel=0.15)  # no-spec 845 tok/s at 32 streams
    assert d.decode_ms(32, ctx) > 3 * n.decode_ms(32, ctx)  # 512 verified tokens a step
    assert n.decode_ms(32, ctx) < e.decode_ms(32, ctx) < d.decode_ms(32, ctx)


def test_acceptance_rises_with_context_and_falls_with_depth():
    d = DEP.drafters["eagle3"]
    short, long = conditionals(d, "tool", 1_000, 6), conditionals(d, "tool", 10_000, 6)
    assert all(b > a for a, b in zip(short, long))
    assert all(x > y for x, y in zip(long, long[1:]))
    assert expected_accept_length(conditionals(d, "chat", 10_000, 6)) < expected_accept_length(long)


def test_the_short_context_horizon_lowers_only_positions_past_it_and_fades_by_1k():
    """A chain drafter's horizon (docs/twin.md §8): at a health prompt's context the positions up to
    horizon_short keep their curve, each later one falls by horizon_decay per position; at 1k nothing changes."""
    d = DEP.drafters["eagle3"]
    h = d.horizon_short
    assert h >= 1 and d.horizon_decay > 0
    flat = dataclasses.replace(d, horizon_short=0)
    at_min, plain = conditionals(d, "tool", d.context_min, 6), conditionals(flat, "tool", d.context_min, 6)
    assert at_min[:h] == plain[:h]
    for i in range(h, 6):
        assert at_min[i] == pytest.approx(max(0.02, plain[i] - d.horizon_decay * (i + 1 - h)))
    mid = conditionals(d, "tool", 250, 6)  # between context_min and context_short: part of the fall
    assert plain[h] - d.horizon_decay < mid[h] < plain[h]
    assert conditionals(d, "tool", d.context_short, 6) == conditionals(flat, "tool", d.context_short, 6)
    assert horizon_fall(d, 40) == d.horizon_decay and horizon_fall(d, 5_000) == 0.0


def test_an_fp8_cache_moves_acceptance_per_domain_and_more_at_long_context():
    """[kv_precision]: the shift is domain_shift x noise(dtype) x ln(L / floor) / ln(ref / floor); native caches
    and contexts at or under the floor are untouched; e5m2 (2 mantissa bits) twice e4m3's."""
    d, kv = DEP.drafters["eagle3"], DEP.kv_precision
    for dom in ("tool", "math", "code", "chat"):
        native = conditionals(d, dom, 10_000, 6, kv=kv, kv_dtype="auto")
        assert native == conditionals(d, dom, 10_000, 6)
        fp8 = conditionals(d, dom, 10_000, 6, kv=kv, kv_dtype="fp8_e4m3")
        want = kv.domain_shift[dom]
        assert fp8[0] - native[0] == pytest.approx(want, abs=1e-9)
    assert kv.domain_shift["math"] < 0 < kv.domain_shift["code"]
    assert kv.shift("math", kv.context_floor, "fp8_e4m3") == 0.0
    assert abs(kv.shift("math", 1_000, "fp8_e4m3")) < abs(kv.shift("math", 10_000, "fp8_e4m3"))
    assert kv.shift("math", 10_000, "fp8_e5m2") == pytest.approx(2 * kv.shift("math", 10_000, "fp8_e4m3"))


def test_an_fp8_cache_halves_the_kv_read_and_the_attention_time():
    """q and the latent cast to e4m3 and the kernel fp8 x fp8: the context terms of a step halve."""
    native = StepTimeModel(config("--tp", "4", *ARMS["eagle3-d6"]), DEP)
    fp8 = StepTimeModel(config("--tp", "4", "--kv-cache-dtype", "fp8_e4m3", *ARMS["eagle3-d6"]), DEP)
    ctx = 10_000.0
    context_part = native.target_ms(1, ctx, 7) - native.target_ms(1, 0.0, 7)
    assert fp8.target_ms(1, ctx, 7) - fp8.target_ms(1, 0.0, 7) == pytest.approx(context_part / 2)
    assert fp8.target_ms(1, 0.0, 7) == pytest.approx(native.target_ms(1, 0.0, 7))


def test_dflash_own_cost_grows_per_verified_row():
    """The drafter's share of a DFlash step: a fixed part plus one cost per row of B x block (draft forward,
    head, context update and sampling run over every verified row, accepted or not)."""
    d = StepTimeModel(config("--tp", "4", *ARMS["dflash-b16"]), DEP)
    spec = DEP.drafters["dflash"]
    one, many = d.drafter_ms(1, 0.0), d.drafter_ms(32, 0.0)
    assert many - one == pytest.approx(spec.block_pass_per_row_ms * 31 * 16)


# ------------------------------------------------------------------------------------------------ scheduling


def run_requests(engine: Engine, reqs: list[SimRequest]) -> dict[str, list[RequestOutput]]:
    outs: dict[str, list[RequestOutput]] = {}
    for r in reqs:
        outs[r.rid] = []
        r.sink = outs[r.rid].append
        engine.submit(r, engine.clock)
    while engine.has_work():
        engine.commit(engine.plan())
    return outs


def test_histogram_consistency_and_first_output_is_one_token():
    engine = build_engine(ARMS["eagle3-d6"])
    reqs = [SimRequest(rid=f"r{i}", prompt_tokens=3000, max_new_tokens=300, ignore_eos=True, domain="tool",
                       prompt_hash=i) for i in range(6)]
    outs = run_requests(engine, reqs)
    k_max = 6
    for r in reqs:
        h = r.spec_hist
        assert sum(h) == r.spec_verify_ct
        assert sum(k * n for k, n in enumerate(h)) == r.spec_num_correct_drafts
        assert len(h) <= k_max + 1
        produced = 1 + sum((k + 1) * n for k, n in enumerate(h))  # prefill token + accepted + bonus per step
        assert 0 <= produced - r.n_out <= k_max  # only the last step may be cut by max_tokens
        first = outs[r.rid][0]
        assert first.completion_tokens == 1 and first.new_tokens == 1
        assert r.n_out == 300 and r.finish_reason == {"type": "length", "length": 300}


def test_exact_histogram_identity_without_truncation():
    """completion_tokens == 1 + sum((k+1) * h[k]) when max_tokens falls on a verify-step boundary: replay the same
    request (same seed, same draws) with max_tokens set to a cumulative count the first run streamed."""
    def run(max_new: int) -> tuple[SimRequest, list[RequestOutput]]:
        engine = build_engine(ARMS["eagle3-d3"], seed=5)
        req = SimRequest(rid="x", prompt_tokens=500, max_new_tokens=max_new, ignore_eos=True, domain="math",
                         prompt_hash=1)
        return req, run_requests(engine, [req])["x"]

    _, outs = run(400)
    boundary = outs[len(outs) // 2].completion_tokens
    req, _ = run(boundary)
    assert req.n_out == boundary == 1 + sum((k + 1) * n for k, n in enumerate(req.spec_hist))


def test_determinism_with_fixed_seeds():
    def once(seed: int):
        engine = build_engine(ARMS["eagle3-d6"], seed=seed)
        reqs = [SimRequest(rid=f"r{i}", prompt_tokens=2000, max_new_tokens=200, ignore_eos=True, domain="code",
                           prompt_hash=7 + i) for i in range(3)]
        run_requests(engine, reqs)
        return [(r.text(), r.spec_hist, r.output_ids()) for r in reqs], engine.clock

    a, b, c = once(0), once(0), once(1)
    assert a == b
    assert a[0] != c[0]


def test_kv_capacity_limits_concurrency_and_prefill_stalls_decode():
    engine = build_engine(ARMS["eagle3-d6"])
    reqs = [SimRequest(rid=f"r{i}", prompt_tokens=10_000, max_new_tokens=2048, ignore_eos=True, domain="tool",
                       prompt_hash=i) for i in range(40)]
    for r in reqs:
        engine.submit(r, 0.0)
    max_running = 0
    while engine.has_work():
        engine.commit(engine.plan())
        max_running = max(max_running, len(engine.running))
    # 336K tokens hold ~28 requests of 10k + 0.7 * 2048 reserved: the rest queue although the limit is 48.
    assert 20 <= max_running < 40
    assert engine.num_used_tokens() == 0


def test_retraction_when_decoding_outgrows_the_pool():
    engine = build_engine(ARMS["nospec"] + ["--max-total-tokens", "30000"])
    reqs = [SimRequest(rid=f"r{i}", prompt_tokens=8000, max_new_tokens=8000, ignore_eos=True, prompt_hash=i)
            for i in range(3)]
    outs = run_requests(engine, reqs)
    assert all(r.n_out == 8000 and r.finish_reason["type"] == "length" for r in reqs)
    assert any(r.num_retractions > 0 for r in reqs)
    for r in reqs:  # streamed counts never go backwards across a retraction
        counts = [o.completion_tokens for o in outs[r.rid]]
        assert counts == sorted(counts)


def test_first_long_prefill_pays_a_one_time_jit():
    engine = build_engine(ARMS["eagle3-d6"])
    ttft = []
    for i in range(3):
        r = SimRequest(rid=f"j{i}", prompt_tokens=10_000, max_new_tokens=8, ignore_eos=True, prompt_hash=i)
        run_requests(engine, [r])
        ttft.append(r.first_token_s - r.arrival_s)
    assert ttft[0] - ttft[1] == pytest.approx(DEP.prefill.jit_first_long_prefill_ms / 1000, rel=0.05)
    assert ttft[1] == pytest.approx(ttft[2], rel=0.05)


def test_prefill_stall_fault_is_paid_once_by_the_first_batched_prefill_past_its_request_index():
    """--sim-fault prefill-stall: the first prefill step batching >= `batch` requests of index >= after_requests
    takes `seconds` more, shared by both of its requests; a lone request before it and every later batch do not."""
    from console.sim.model.calibrate import MODEL, REFERENCE_MEM_FRACTION
    argv = MODEL + ["--mem-fraction-static", REFERENCE_MEM_FRACTION,
                    "--sim-fault", "prefill-stall:after_requests=1,seconds=2"] + ARMS["nospec"]
    ns, sim = parse_argv(argv)
    engine = Engine(cfg := resolve_server_args(ns, sim, argv, DEP), DEP, plan_memory(cfg, DEP))

    def wave(tag, k):
        reqs = [SimRequest(rid=f"{tag}{i}", prompt_tokens=500, max_new_tokens=4, ignore_eos=True,
                           prompt_hash=hash((tag, i))) for i in range(k)]
        run_requests(engine, reqs)
        return [r.first_token_s - r.arrival_s for r in reqs]
    lone = wave("a", 1)          # index 0: before after_requests, and alone
    stalled = wave("b", 2)       # indices 1, 2: the first batch of two past index 1
    later = wave("c", 2)
    assert lone[0] < 0.5 and max(later) < 0.5
    assert min(stalled) - max(later) == pytest.approx(2.0, abs=0.1)  # both requests of the step wait


def test_prefix_cache_hits_on_a_repeated_prompt():
    engine = build_engine(ARMS["nospec"])
    first = SimRequest(rid="a", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1, prefix_keys=[(11, 4000), (12, 5000)])
    second = SimRequest(rid="b", prompt_tokens=5200, max_new_tokens=4, prompt_hash=2, prefix_keys=[(11, 4000), (13, 5200)])
    run_requests(engine, [first])
    run_requests(engine, [second])
    assert first.cached_tokens == 0 and second.cached_tokens == 3968  # whole 64-token pages (trtllm_mla's)
    engine.reset_spec_counters()
    third = SimRequest(rid="c", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1, prefix_keys=[(11, 4000), (12, 5000)])
    run_requests(engine, [third])
    assert third.cached_tokens == 0  # /flush_cache empties the cache


def test_prefix_cache_hits_are_whole_pages_and_never_the_last_prompt_token():
    """A paged radix tree (page_size > 1) matches only whole pages, and SGLang matches at most len(input) - 1."""
    paged = build_engine(ARMS["nospec"] + ["--page-size", "1"])  # trtllm_mla replaces 1 by 64, as overrides.py
    assert paged.page_size == 64
    run_requests(paged, [SimRequest(rid="a", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1,
                                    prefix_keys=[(11, 4000), (12, 5000)])])
    b = SimRequest(rid="b", prompt_tokens=5200, max_new_tokens=4, prompt_hash=2, prefix_keys=[(11, 4000), (13, 5200)])
    run_requests(paged, [b])
    assert b.cached_tokens == 3968  # 62 whole pages of the 4,000 shared tokens
    same = SimRequest(rid="c", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1, prefix_keys=[(11, 4000), (12, 5000)])
    run_requests(paged, [same])
    assert same.cached_tokens == 4992  # the whole prompt is cached, but at most 4,999 tokens match: 78 pages
    flat = build_engine(ARMS["nospec"] + ["--attention-backend", "flashinfer"])
    assert flat.page_size == 1
    run_requests(flat, [SimRequest(rid="d", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1,
                                   prefix_keys=[(11, 4000), (12, 5000)])])
    again = SimRequest(rid="e", prompt_tokens=5000, max_new_tokens=4, prompt_hash=1, prefix_keys=[(11, 4000), (12, 5000)])
    run_requests(flat, [again])
    assert again.cached_tokens == 4999


def test_stop_string_eos_and_stop_token():
    engine = build_engine(ARMS["nospec"])
    words = TextStream("req:0:0", "chat")
    words.ensure(50)
    first = words.text(0, 50)
    target = words.text(18, 21)  # three tokens' text, first seen ending at token 21
    assert first.find(target) == len(words.text(0, 18))
    r = SimRequest(rid="s", prompt_tokens=100, max_new_tokens=200, prompt_hash=3, stop=(target,), ignore_eos=True)
    run_requests(engine, [r])
    assert r.finish_reason == {"type": "stop", "matched": target}
    assert r.text() == words.text(0, 18) and target not in r.text()
    assert r.n_out == 21

    eos_engine = build_engine(ARMS["eagle3-d6"])
    eos_engine.eos_rate = 0.05
    eos_engine.lengths_on = False  # the per-token hazard alone
    e = SimRequest(rid="e", prompt_tokens=100, max_new_tokens=5000, prompt_hash=4)
    run_requests(eos_engine, [e])
    assert e.finish_reason == {"type": "stop", "matched": DEP.model.eos_token_id}
    assert e.output_ids()[-1] == DEP.model.eos_token_id and len(e.output_ids()) == e.n_out
    assert e.visible_tokens == e.n_out - 1


# -------------------------------------------------------------------------------------------- tokens, domain


def test_count_tokens_is_o200k_and_the_fallback_estimate_is_close():
    from console.sim.content.tokens import estimate_tokens
    assert count_tokens("Hello, world!") == 4  # Hello , world ! in o200k_base
    code = "def f(x):\n    return x + 1\n" * 50
    assert 0.85 < estimate_tokens(code) / count_tokens(code) < 1.15


def test_count_tokens_is_close_to_o200k_on_prose_and_code():
    prose = ("The first inference was very slow because of Triton JIT compilation; warm up before measuring, "
             "and never record warm-up rows. ") * 20
    assert count_tokens("") == 0
    assert 0.8 < count_tokens(prose) / (len(prose) / 4.3) < 1.25
    assert count_tokens("def f(x):\n    return x + 1\n") >= 8


@pytest.mark.parametrize(("text", "tools", "domain"), [
    ("You can call the tool `get_weather`. Reply with the JSON tool calls you would make.", False, "tool"),
    ("Find all real x with x^2 - 7x + 10 = 0 and verify each root.", False, "math"),
    ("Write a Python function `median(xs)` and two asserts that test it.", False, "code"),
    ("Summarise the trade-offs of renting a GPU node by the hour.", False, "chat"),
    ("anything", True, "tool"),
])
def test_domain_detection(text, tools, domain):
    assert detect_domain(text, tools) == domain


# ------------------------------------------------------------------------------------------ load and KV room


def test_kv_capacity_per_drafter_decides_who_runs_at_32_streams_of_10k():
    """32 x (10k + 2,048 fixed-length outputs) want ~384K tokens: no-spec (484K) runs them all, EAGLE-3 (336K) and
    DFlash (295K) admit what fits (prompt + max_new + a page each) and queue the rest, as #queue-req shows."""
    admitted = {}
    for arm in ("nospec", "eagle3-d6", "dflash-b16"):
        lines: list[str] = []
        engine = build_engine(ARMS[arm])
        engine.log = lines.append
        for i in range(32):
            engine.submit(SimRequest(rid=f"r{i}", prompt_tokens=10_000, max_new_tokens=2048, ignore_eos=True,
                                     domain="tool", prompt_hash=i), 0.0)
        for _ in range(400):  # the admission phase: every prefill, then decoding
            engine.commit(engine.plan())
        admitted[arm] = len(engine.running)
        assert engine.num_used_tokens() + engine._reserved_tokens() <= engine.capacity
        queue = len(engine.waiting)
        assert admitted[arm] + queue == 32
        if queue:
            assert any(f"#queue-req: {queue}" in line for line in lines if line.startswith("Decode batch"))
    assert admitted["nospec"] == 32
    assert 26 <= admitted["eagle3-d6"] <= 28 and 22 <= admitted["dflash-b16"] <= 24


def test_optimistic_admission_without_ignore_eos_retracts_like_sglang():
    lines: list[str] = []
    engine = build_engine(ARMS["eagle3-d6"])
    engine.log = lines.append
    engine.lengths_on = False  # outputs that run long without ignore_eos (no natural stop at ~60 tokens)
    reqs = [SimRequest(rid=f"r{i}", prompt_tokens=10_000, max_new_tokens=4096, domain="tool", prompt_hash=i)
            for i in range(40)]
    outs = run_requests(engine, reqs)
    retract = [line for line in lines if line.startswith("KV cache pool is full. Retract requests.")]
    assert retract and "#new_token_ratio: " in retract[0] and "#new_tokens_gained: " in retract[0]
    assert all(r.n_out == 4096 for r in reqs) and sum(r.num_retractions for r in reqs) >= 1
    assert engine.num_retracted_total[0] == sum(r.num_retractions for r in reqs)
    for r in reqs:  # streamed counts never go backwards across a retraction
        counts = [o.completion_tokens for o in outs[r.rid]]
        assert counts == sorted(counts)


def test_admission_reads_sglangs_output_estimate_clip_from_the_environment(monkeypatch):
    """SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION: what admission reserves for a request's output (SGLang's env var)."""
    assert build_engine(ARMS["nospec"]).clip_max_new_tokens == 4096
    monkeypatch.setenv("SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION", "256")
    assert build_engine(ARMS["nospec"]).clip_max_new_tokens == 256


def test_four_unbounded_requests_run_together_in_1536_tokens_with_a_256_clip(monkeypatch):
    """SGLang's test_large_max_new_tokens: --max-total-tokens 1536, context 8192, the clip at 256: all four at once
    (with the default clip of 4096, one request's reservation fills the pool and they run one by one)."""
    def most_running(clip: str | None) -> int:
        if clip:
            monkeypatch.setenv("SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION", clip)
        else:
            monkeypatch.delenv("SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION", raising=False)
        e = build_engine(["--max-total-tokens", "1536", "--context-length", "8192", "--attention-backend",
                          "flashinfer"])
        most = 0
        for i in range(4):  # they arrive a step apart, as over HTTP: each meets the others' reservations
            e.submit(SimRequest(rid=f"r{i}", prompt_tokens=40, max_new_tokens=8150, prompt_hash=100 + i), e.clock)
            for _ in range(3):
                e.commit(e.plan())
                most = max(most, len(e.running))
        return most

    assert most_running("256") == 4
    assert most_running(None) == 1


def test_no_request_outgrows_the_pool_or_the_context():
    """The scheduler's clip of max_new_tokens (handle_generate_request and max_new_tokens_for_memory, page 1):
    min(max_new, min(context - 1, pool - 1) - input - 1, pool - input - 2). A pool smaller than the context ends a
    long answer at "length" with the pool never over-full; real 0.5.23's retraction always keeps the last request,
    and its allocator dies with "Decode out of memory" if one outgrows the pool."""
    e = build_engine(ARMS["eagle3-d6"] + ["--max-total-tokens", "1536", "--context-length", "8192",
                                          "--attention-backend", "flashinfer"])
    r = SimRequest(rid="long", prompt_tokens=40, max_new_tokens=8150, prompt_hash=7, ignore_eos=True)
    e.submit(r, e.clock)
    most = 0
    while e.has_work():
        e.commit(e.plan())
        most = max(most, e.num_used_tokens())
    assert r.max_new_tokens == 1536 - 40 - 2 and r.n_out == 1494 and r.finish_reason["type"] == "length"
    assert most <= e.capacity == 1536
    # the context bound when the pool is the larger: context - input - 2
    e = build_engine(ARMS["nospec"] + ["--context-length", "8192"])
    r = SimRequest(rid="ctx", prompt_tokens=40, max_new_tokens=8192 - 40, prompt_hash=8, ignore_eos=True)
    e.submit(r, e.clock)
    assert r.max_new_tokens == 8192 - 40 - 2
