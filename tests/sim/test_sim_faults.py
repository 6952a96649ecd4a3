"""Injected faults (`--sim-fault`): the grammar, and each fault as a client (httpx) or the console's log parser
sees it. Process-launching tests are marked e2e; every launch uses a fast time scale and a very fast startup."""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
import time

import httpx
import pytest

from console.core.launch.logparse import first_error_line
from console.sim.cli import main
from console.sim.config.args import parse_argv, resolve_server_args
from console.sim.config.deployment import load_deployment
from console.sim.model.memory import plan_memory
from console.sim.model.runtime import TraceRecord
from console.sim.ops.faults import (
    LOAD_KINDS,
    LOAD_PHASES,
    TRUNCATE,
    FaultSpecError,
    FaultState,
    StreamAction,
    faulted_stream,
    inject_load_crash,
    parse_fault,
    parse_faults,
    slow_deployment,
)
from console.sim.ops.startup import build_startup

from .twin_process import EAGLE3_D6, FAST, MODEL, start_twin, stop_twin

BASE = MODEL + EAGLE3_D6 + ["--mem-fraction-static", "0.96", "--sim-seed", "5"]


def chat(max_tokens: int = 40, stream: bool = True, **kw) -> dict:
    body = {"model": "kimi", "messages": [{"role": "user", "content": "Tell me about the sea."}],
            "max_tokens": max_tokens, "stream": stream, "ignore_eos": True}
    if stream:
        body["stream_options"] = {"include_usage": True, "continuous_usage_stats": True}
    body.update(kw)
    return body


def gen(max_new_tokens: int = 40, stream: bool = True) -> dict:
    return {"text": "Tell me about the sea.", "stream": stream,
            "sampling_params": {"max_new_tokens": max_new_tokens, "ignore_eos": True}}


def tokens_of(event: dict) -> int | None:
    """Cumulative completion tokens an SSE event reports (chat with continuous usage, or /generate)."""
    if "meta_info" in event:
        return event["meta_info"]["completion_tokens"]
    usage = event.get("usage")
    return usage["completion_tokens"] if usage else None


def read_stream(url: str, path: str, body: dict,
                timeout: float = 15.0) -> tuple[int, list[tuple[float, str]], str | None]:
    """(status, [(arrival time, event payload)], the transport error's name or None)."""
    events: list[tuple[float, str]] = []
    buf = ""
    with httpx.stream("POST", url + path, json=body, timeout=timeout) as r:
        try:
            for text in r.iter_text():
                buf += text
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    if block.startswith("data: "):
                        events.append((time.monotonic(), block[len("data: "):]))
        except httpx.HTTPError as e:
            return r.status_code, events, type(e).__name__
    return r.status_code, events, None


# ----------------------------------------------------------------------------------------------- grammar


def test_specs_parse_to_canonical_params():
    assert parse_fault("crash-at-step:step=12").params == (("step", 12),)
    assert parse_fault("crash-during-load:phase=kv").params == (("phase", "kv"), ("kind", "oom"))
    assert parse_fault("stall:seconds=inf,after_tokens=3").params == (
        ("after_tokens", 3), ("seconds", math.inf), ("every", 1))
    assert parse_fault("truncate:after_tokens=0,every=4").params == (("after_tokens", 0), ("every", 4))
    assert parse_fault("http500:rate=1").params == (("rate", 1.0),)
    assert parse_fault("flush-busy").params == (("count", None),)
    assert parse_fault("flush-busy:count=2").params == (("count", 2),)
    assert parse_fault("slow-start:factor=2.5").to_json() == {"spec": "slow-start:factor=2.5", "kind": "slow-start",
                                                             "factor": 2.5}
    assert parse_fault("stall:after_tokens=1,seconds=inf").to_json()["seconds"] is None  # JSON has no inf
    assert parse_fault("acceptance-collapse:after_requests=20").params == (("after_requests", 20), ("factor", 0.0))
    assert parse_fault("acceptance-collapse:after_requests=0,factor=0.5").params == (
        ("after_requests", 0), ("factor", 0.5))
    assert parse_fault("prefill-stall:after_requests=17,seconds=3").params == (
        ("after_requests", 17), ("seconds", 3.0), ("batch", 2))


@pytest.mark.parametrize("spec, reason", [
    ("explode", "unknown fault kind 'explode'"),
    ("crash-at-step", "crash-at-step needs step="),
    ("crash-at-step:step=0", "step must be >= 1"),
    ("crash-at-step:step=two", "step must be an integer"),
    ("crash-at-step:step=3,when=now", "unknown key 'when'"),
    ("crash-during-load:phase=tokenizer", "phase must be one of weights|draft|kv|graphs"),
    ("crash-during-load:phase=kv,kind=quant", "kind=quant happens while loading weights"),
    ("stall:after_tokens=3", "stall needs seconds="),
    ("stall:after_tokens=3,seconds=-1", "seconds must be > 0"),
    ("malformed-chunk:after_tokens=3,every=0", "every must be >= 1"),
    ("http500:rate=1.5", "rate must be in (0, 1]"),
    ("http500:rate=nan", "rate must be finite"),
    ("slow-start:factor", "expected key=value"),
    ("flush-busy:count=2,count=3", "key 'count' given twice"),
    ("acceptance-collapse", "acceptance-collapse needs after_requests="),
    ("acceptance-collapse:after_requests=3,factor=1.5", "factor must be in [0, 1]"),
    ("prefill-stall:after_requests=3", "prefill-stall needs seconds="),
    ("prefill-stall:after_requests=3,seconds=0", "seconds must be > 0"),
    ("prefill-stall:after_requests=3,seconds=1,batch=0", "batch must be >= 1"),
])
def test_bad_spec_reasons(spec, reason):
    with pytest.raises(FaultSpecError, match="^" + re.escape(reason)):
        parse_fault(spec)


def test_a_kind_given_twice_is_refused():
    with pytest.raises(FaultSpecError, match="fault http500 given twice"):
        parse_faults(["http500:rate=0.1", "http500:rate=0.2"])


@pytest.mark.parametrize("argv, spec", [
    (["--sim-fault", "stall:after_tokens=2"], "stall:after_tokens=2"),
    (["--sim-fault", "http500:rate=0.1", "--sim-fault", "crash-at-step:step=-3"], "crash-at-step:step=-3"),
    (["--sim-fault", "crash-during-load:phase=draft"], "crash-during-load:phase=draft"),  # no draft model
])
def test_bad_spec_is_exit_2_with_one_line(capsys, argv, spec):
    assert main(MODEL + argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("python -m console.sim: error: argument --sim-fault: invalid spec ")
    assert repr(spec) in err


def test_help_documents_the_grammar():
    from console.sim.config.args import build_sim_parser

    text = re.sub(r"-\s+", "-", " ".join(build_sim_parser().format_help().split()))  # undo wraps at hyphens
    assert "--sim-fault SPEC" in text
    for kind in ("crash-at-step:step=N", "phase=P[,kind=K]", "stall:after_tokens=N,seconds=S[,every=K]",
                 "chunk:after_tokens=N[,every=K]", "truncate:after_tokens=N[,every=K]", "http500:rate=P",
                 "slow-start:factor=F", "flush-busy[:count=N]"):
        assert kind in text, kind


def test_no_fault_changes_nothing():
    ns, sim = parse_argv(BASE)
    assert sim.faults == ()
    f = FaultState(sim.faults, sim.seed)
    assert not (f.stream or f.http500 or f.flush_busy) and f.crash_step is None and f.load_crash is None
    assert f.slow_factor == 1.0 and f.info() == []
    dep = load_deployment()
    assert slow_deployment(dep, f.slow_factor) is dep


def test_slow_start_scales_every_startup_phase():
    argv = BASE
    ns, sim = parse_argv(argv)
    dep = load_deployment()
    slow = slow_deployment(dep, 3.0)
    cfg = resolve_server_args(ns, sim, argv, dep)
    mem = plan_memory(cfg, dep)
    base, scaled = build_startup(cfg, dep, mem), build_startup(cfg, slow, mem)
    assert scaled.startup_time["load_weight"] == pytest.approx(3 * base.startup_time["load_weight"])
    assert scaled.startup_time["scheduler_e2e"] == pytest.approx(3 * base.startup_time["scheduler_e2e"], rel=0.02)
    assert scaled.tokenizer_e2e == pytest.approx(3 * base.tokenizer_e2e, rel=0.02)


def test_every_load_crash_has_the_exception_line_the_log_parser_finds():
    """All phase x kind combinations, rendered without a process (the e2e tests run three of them)."""
    from io import StringIO

    from console.sim.ops.logfmt import SimLog

    ns, sim = parse_argv(BASE)
    dep = load_deployment()
    cfg = resolve_server_args(ns, sim, BASE, dep)
    mem = plan_memory(cfg, dep)
    expect = {"oom": "torch.OutOfMemoryError: CUDA out of memory.", "import": "ImportError: cannot import name",
              "quant": "pydantic_core._pydantic_core.ValidationError: 2 validation errors for QuantizationArgs"}
    for phase in LOAD_PHASES:
        for kind in LOAD_KINDS:
            if kind == "quant" and phase in ("kv", "graphs"):
                continue
            tl = inject_load_crash(build_startup(cfg, dep, mem), phase, kind, cfg, dep, mem)
            assert tl.events[-1].kind == "marker" and tl.events[-1].text == "kill"
            buf = StringIO()
            log = SimLog(cfg.tp_size, err=buf)
            for ev in sorted(tl.events, key=lambda e: e.t):
                if ev.kind == "line":
                    log.line(ev.text, ev.rank)
                elif ev.kind == "bar":
                    log.bar(ev.text, final=ev.final)
            text = buf.getvalue()
            line = first_error_line(text)
            assert line is not None and line.startswith(expect[kind]), (phase, kind, line)
            assert "(at sglang/srt/" in line  # the deepest sglang frame is named
            assert text.count("Scheduler hit an exception: Traceback") == cfg.tp_size
            assert "The server is fired up" not in text and "max_total_num_tokens=" not in text
            if phase in ("draft", "kv", "graphs"):
                assert text.count("Load weight end.") >= cfg.tp_size
            if phase == "graphs":
                assert "KV Cache is allocated" in text
            if phase == "kv" and kind == "oom":
                assert "KV Cache is allocated" not in text


async def test_stream_actions_compose_in_token_order():
    rec = TraceRecord(rid="r", endpoint="/generate", stream=True, domain="chat", prompt_tokens=1, t_arrival=0.0)
    closed = []

    async def events():
        try:
            for n in (1, 3, 3, 3):
                rec.chunk(n)
                yield 'data: {"n": %d}\n\n' % n
            rec.chunk(0)
            yield "data: [DONE]\n\n"
        finally:
            closed.append(True)

    state = FaultState(parse_faults(["malformed-chunk:after_tokens=4", "truncate:after_tokens=7"]), 0)
    acts = [StreamAction("malformed-chunk", 4), StreamAction("truncate", 7)]
    out = [ev async for ev in faulted_stream(events(), rec, acts, state)]
    assert out[:3] == ['data: {"n": 1}\n\n', 'data: {"n": 3}\n\n', 'data: {"n"\n\n']
    assert out[3:] == ['data: {"n": 3}\n\n', TRUNCATE]  # 7 tokens sent: cut before the 4th event
    assert closed == [True] and state.fired == {"malformed-chunk": 1, "truncate": 1}


async def test_stall_forever_holds_until_the_client_leaves():
    rec = TraceRecord(rid="r", endpoint="/generate", stream=True, domain="chat", prompt_tokens=1, t_arrival=0.0)
    closed = []

    async def events():
        try:
            for n in (2, 2):
                rec.chunk(n)
                yield "data: {}\n\n"
        finally:
            closed.append(True)

    state = FaultState(parse_faults(["stall:after_tokens=2,seconds=inf"]), 0)
    it = faulted_stream(events(), rec, [StreamAction("stall", 2, math.inf)], state)
    assert await it.__anext__() == "data: {}\n\n"
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(it.__anext__(), 0.2)  # cancelled like a disconnect
    assert closed == [True]


# ----------------------------------------------------------------------------------------------- processes


def _log(twin) -> str:
    return twin.stdout() + twin.stderr()


@pytest.mark.e2e
@pytest.mark.parametrize("phase, kind, exc", [
    ("weights", "quant", "pydantic_core._pydantic_core.ValidationError: 2 validation errors for QuantizationArgs"),
    ("kv", "import", "ImportError: cannot import name 'trtllm_batch_decode_with_kv_cache_mla' from "
                     "'flashinfer.decode'"),
    ("graphs", "oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB."),
])
def test_crash_during_load(tmp_module, phase, kind, exc):
    twin = start_twin(BASE + FAST + ["--sim-fault", f"crash-during-load:phase={phase},kind={kind}"], tmp_module,
                      ready=False)
    try:
        assert twin.proc.wait(timeout=20) == -9  # SIGKILL, as kill_process_tree leaves it
    finally:
        stop_twin(twin)
    log = _log(twin)
    line = first_error_line(log)
    assert line is not None and line.startswith(exc), line
    out = twin.log()
    assert out.count("Scheduler hit an exception: Traceback (most recent call last):") == 4
    sigquit = out.index("] Received sigquit from a child process. It usually means the child failed.")
    kill = out.index("] kill_process_tree called: parent_pid=")
    assert out.index("Scheduler hit an exception") < sigquit < kill
    assert twin.stderr().endswith("Killed\n")
    assert "Uvicorn running" not in out and "ready to roll" not in out


@pytest.mark.e2e
def test_crash_at_step_kills_the_server_mid_stream(tmp_module):
    twin = start_twin(BASE + FAST + ["--sim-fault", "crash-at-step:step=3"], tmp_module)
    try:
        info = httpx.get(twin.url + "/sim/info").json()
        assert info["faults"] == [{"spec": "crash-at-step:step=3", "kind": "crash-at-step", "step": 3, "fired": 0}]
        status, events, error = read_stream(twin.url, "/v1/chat/completions", chat(max_tokens=400))
        assert status == 200 and error is not None  # the connection died with the process
        payloads = [json.loads(e) for _, e in events]
        assert all(p["choices"][0]["finish_reason"] is None for p in payloads if p.get("choices"))
        sent = max(tokens_of(p) or 0 for p in payloads)
        assert 1 <= sent <= 1 + 2 * 7  # the prefill token and at most two verify steps (EAGLE3, 7 tokens each)
        assert twin.proc.wait(timeout=10) == -9
    finally:
        stop_twin(twin)
    out = twin.log()
    assert out.count("Scheduler hit an exception: Traceback") == 4
    assert "torch.AcceleratorError: CUDA error: an illegal memory access was encountered" in out
    assert "] SIGQUIT received. signum=None, frame=None. It usually means one child failed." in out
    assert "] kill_process_tree called: parent_pid=" in out
    assert twin.stderr().endswith("Killed\n")
    assert first_error_line(_log(twin)).startswith("torch.AcceleratorError: CUDA error")


@pytest.fixture(scope="module")
def stream_twin(tmp_module):
    """Streaming requests k = 1, 2, ... since ready: malformed on even k, truncated on k % 3 == 0, stalled on
    k % 5 == 0."""
    t = start_twin(BASE + FAST + ["--sim-fault", "malformed-chunk:after_tokens=5,every=2",
                                  "--sim-fault", "truncate:after_tokens=10,every=3",
                                  "--sim-fault", "stall:after_tokens=8,seconds=1.2,every=5"], tmp_module)
    yield t
    stop_twin(t)


@pytest.mark.e2e
def test_stream_faults(stream_twin):
    url = stream_twin.url
    # k=1: untouched
    status, events, error = read_stream(url, "/v1/chat/completions", chat())
    assert status == 200 and error is None and events[-1][1] == "[DONE]"
    assert all(json.loads(e) for _, e in events[:-1])
    # k=2 (/generate): one malformed event after >= 5 tokens, then normally to [DONE]
    status, events, error = read_stream(url, "/generate", gen())
    assert error is None and events[-1][1] == "[DONE]"
    bad = []
    before = 0
    for i, (_, e) in enumerate(events[:-1]):
        try:
            before = tokens_of(json.loads(e))
        except json.JSONDecodeError:
            bad.append((i, before))
    assert len(bad) == 1 and bad[0][1] >= 5
    i = bad[0][0]
    assert events[i + 1][1].startswith(events[i][1].rstrip())  # a truncated copy of the next event
    assert json.loads(events[-2][1])["meta_info"]["finish_reason"] == {"type": "length", "length": 40}
    # k=3 (chat): the connection drops after >= 10 tokens: no finish chunk, no [DONE]
    status, events, error = read_stream(url, "/v1/chat/completions", chat())
    assert status == 200 and error == "RemoteProtocolError"
    payloads = [json.loads(e) for _, e in events]
    assert "[DONE]" not in [e for _, e in events]
    assert all(p["choices"][0]["finish_reason"] is None for p in payloads)
    assert 10 <= max(tokens_of(p) or 0 for p in payloads) < 40
    # k=4 (chat): malformed in the chat stream too
    status, events, error = read_stream(url, "/v1/chat/completions", chat())
    assert error is None and events[-1][1] == "[DONE]"
    bad_chat = [e for _, e in events[:-1] if not e.endswith("}")]
    assert len(bad_chat) == 1 and bad_chat[0].startswith('{"id":"')
    # k=5 (chat): a 1.2 s silence after >= 8 tokens, then the rest to [DONE]
    status, events, error = read_stream(url, "/v1/chat/completions", chat())
    assert error is None and events[-1][1] == "[DONE]"
    gaps = [(b[0] - a[0], tokens_of(json.loads(a[1])) or 0) for a, b in zip(events, events[1:])]
    longest, tokens_before = max(gaps)
    # the 1.2 s stall seen by a client that may itself read late (a loaded box): >= 1.0 s; any other gap is
    # an event interval (milliseconds at this scale), so a second stall would show as a second gap >= 1.0 s
    assert longest >= 1.0 and tokens_before >= 8
    assert sorted(g for g, _ in gaps)[-2] < 1.0  # one stall only
    info = httpx.get(url + "/sim/info").json()
    assert {f["kind"]: f["fired"] for f in info["faults"]} == {"malformed-chunk": 2, "truncate": 1, "stall": 1}
    # the truncated request was aborted like a disconnect: the engine is idle again
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        load = httpx.get(url + "/v1/loads").json()["loads"][0]
        if load["num_running_reqs"] == 0 and load["num_waiting_reqs"] == 0:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the truncated request still runs")
    log = stream_twin.stdout() + stream_twin.stderr()
    assert "ASGI callable" not in log and "Traceback" not in log  # the cut is silent, as a dropped link


@pytest.fixture(scope="module")
def http500_twin(tmp_module):
    t = start_twin(BASE + FAST + ["--sim-fault", "http500:rate=0.5", "--sim-fault", "flush-busy:count=2"], tmp_module)
    yield t
    stop_twin(t)


@pytest.mark.e2e
def test_http500_on_a_fraction_of_requests(http500_twin):
    url = http500_twin.url
    failed = 0
    for i in range(24):
        if i % 3 == 0:
            r = httpx.post(url + "/generate", json=gen(4, stream=False), timeout=10)
            if r.status_code == 500:
                assert r.headers["content-type"] == "application/json"
                body = r.json()
                assert list(body) == ["error"] and list(body["error"]) == ["message"]
        else:
            r = httpx.post(url + "/v1/chat/completions", json=chat(4, stream=i % 3 == 1), timeout=10)
            if r.status_code == 500:  # before any streaming: a JSON body, not SSE
                assert r.headers["content-type"] == "application/json"
                body = r.json()
                assert list(body) == ["object", "message", "type", "param", "code"]
                assert body["object"] == "error" and body["type"] == "InternalServerError" and body["code"] == 500
                assert body["message"].startswith("Internal server error: ")
        assert r.status_code in (200, 500)
        failed += r.status_code == 500
    assert 4 <= failed <= 20
    assert httpx.get(url + "/health").status_code == 200  # health checks are not faulted
    info = httpx.get(url + "/sim/info").json()
    assert {f["kind"]: f["fired"] for f in info["faults"]}["http500"] == failed


@pytest.mark.e2e
def test_flush_busy_when_idle(http500_twin):
    url = http500_twin.url
    for _ in range(2):
        r = httpx.post(url + "/flush_cache")
        assert (r.status_code, r.content, r.headers.get("content-type")) == (400, b"Flush cache failed.\n", None)
    r = httpx.post(url + "/flush_cache")
    assert r.status_code == 200 and r.text.startswith("Cache flushed.\n")


@pytest.fixture(scope="module")
def plain_twin(tmp_module):
    t = start_twin(BASE + FAST, tmp_module)
    yield t
    stop_twin(t)


@pytest.mark.e2e
def test_no_fault_is_normal(plain_twin):
    url = plain_twin.url
    assert httpx.get(url + "/sim/info").json()["faults"] == []
    for path, body in (("/v1/chat/completions", chat()), ("/generate", gen())):
        status, events, error = read_stream(url, path, body)
        assert status == 200 and error is None and events[-1][1] == "[DONE]"
        payloads = [json.loads(e) for _, e in events[:-1]]
        assert max(tokens_of(p) or 0 for p in payloads) == 40
    assert httpx.post(url + "/flush_cache").status_code == 200


@pytest.mark.e2e
def test_slow_start(tmp_module, plain_twin):
    factor, startup_scale = 6.0, 100.0
    t0 = time.monotonic()
    twin = start_twin(BASE + ["--sim-time-scale", "20", "--sim-startup-scale", str(startup_scale),
                              "--sim-fault", f"slow-start:factor={factor:g}"], tmp_module)
    waited = time.monotonic() - t0
    try:
        slow = httpx.get(twin.url + "/server_info").json()["startup_time"]
        base = httpx.get(plain_twin.url + "/server_info").json()["startup_time"]
        assert slow["load_weight"] == pytest.approx(factor * base["load_weight"], rel=1e-6)
        assert slow["tokenizer_e2e"] == pytest.approx(factor * base["tokenizer_e2e"], rel=0.02)
        assert waited >= slow["tokenizer_e2e"] / (20 * startup_scale)  # the wall clock stretched too
        assert httpx.get(twin.url + "/sim/info").json()["faults"][0]["kind"] == "slow-start"
    finally:
        stop_twin(twin)


@pytest.mark.e2e
def test_a_tree_narrower_than_its_path_kills_the_scheduler_at_the_first_verify(tmp_module):
    """SGLang 0.5.23's EAGLE worker dies at the first verify of a topk > 1 tree with fewer draft tokens than steps + 1
    (`_compact_accept_to_front`; seen on the real CPU speculative server, docs/real-sglang.md), which its own warm-up
    request reaches before it is ready: the twin too, with the same exception line, instead of serving an arm real
    SGLang cannot."""
    argv = MODEL + ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
                    "lightseekorg/kimi-k2.6-eagle3", "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                    "--speculative-num-draft-tokens", "2", "--attention-backend", "triton",
                    "--mem-fraction-static", "0.96", "--sim-seed", "5"]
    twin = start_twin(argv + FAST, tmp_module, ready=False)
    try:
        assert twin.proc.wait(timeout=30) == -9
    finally:
        stop_twin(twin)
    assert "The server is fired up and ready to roll!" not in twin.log()
    line = first_error_line(_log(twin))
    assert line is not None and line.startswith(
        "RuntimeError: The expanded size of the tensor (2) must match the existing size (4) at non-singleton "
        "dimension 1.  Target sizes: [1, 2].  Tensor sizes: [4]"), line



def test_acceptance_collapse_rejects_every_draft_after_n_requests_at_the_same_step_cost():
    """The fault a drafter's silent collapse is measured with: requests before N keep their acceptance, every later
    one reads tau 1 (factor 0) or a proportionally worse drafter (factor 0.5); the step cost is unchanged."""
    from console.sim.model.calibrate import build_engine, eagle3, run_cell
    base = run_cell(eagle3(6), "tool", prompt_tokens=1000, max_tokens=256, n=8, warmup=False)
    for factor, check in ((0.0, lambda t: t == 1.0), (0.5, lambda t: 1.0 < t < 2.0)):
        e = build_engine(eagle3(6) + ["--sim-fault", f"acceptance-collapse:after_requests=3,factor={factor}"])
        r = run_cell(eagle3(6), "tool", prompt_tokens=1000, max_tokens=256, n=8, engine=e)
        assert r.tau[:3] == base.tau[:3]
        assert all(check(t) for t in r.tau[3:]), r.tau
        assert r.step_ms[5] == pytest.approx(base.step_ms[5], rel=0.05)


def test_acceptance_collapse_on_a_plain_launch_is_one_line_and_exit_2():
    p = subprocess.run([sys.executable, "-m", "console.sim", "--model-path", "moonshotai/Kimi-K2.6", "--tp", "4",
                        "--sim-fault", "acceptance-collapse:after_requests=3", "--port", "1"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.strip().endswith("acceptance-collapse needs a speculative launch "
                                                           "(--speculative-algorithm)")
    assert len(p.stderr.strip().splitlines()) == 1
