"""A request's modelled arrival is the moment its HTTP request reached the twin, not the later moment the route
submitted it (docs/twin.md §7, console/sim/model/runtime.py): the twin's own wall time between the two (parsing the body,
counting the prompt, its prefix keys; ~1-3 ms for a 500-token chat prompt on a small machine) does not shrink with
--sim-time-scale, so at x8 it read as ~8x that in modelled TTFT. An idle engine's clock jumps to the arrival, so the
first token is due one modelled prefill after the receipt, and a request is never admitted before it arrived.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from console.sim.model.calibrate import build_engine
from console.sim.model.engine import SimRequest
from console.sim.model.runtime import EngineRuntime

from .twin_process import MODEL, start_twin, stop_twin

PROMPT = 400
PARSE_S = 0.005  #: wall seconds the route spends between the receipt and the submit


def _req(rid: str, prompt: int = PROMPT, max_new: int = 4) -> SimRequest:
    return SimRequest(rid=rid, prompt_tokens=prompt, max_new_tokens=max_new, temperature=0.0, prompt_hash=7,
                      ignore_eos=True)


def _prefill_s(prompt: int = PROMPT) -> float:
    """The modelled prefill of the request alone on a fresh nominal engine."""
    engine = build_engine([])
    engine.submit(_req("ref", prompt), 0.0)
    plan = engine.plan()
    assert plan is not None and plan.kind == "prefill"
    return plan.duration_s


async def _until(pred, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.0005)


@pytest.mark.parametrize("scale", [1.0, 50.0])
def test_idle_engine_prefills_from_the_receipt(scale):
    async def go():
        rt = EngineRuntime(build_engine([]), scale)
        rt.start()
        await asyncio.sleep(0.005)
        received = asyncio.get_running_loop().time()
        time.sleep(PARSE_S)  # the route's parse, on the event loop as in the twin
        req = _req("a")
        rt.submit(req, received)
        await _until(lambda: req.finished)
        await rt.stop()
        return rt, req, received

    rt, req, received = asyncio.run(go())
    assert req.arrival_s == pytest.approx(rt.model_at(received), abs=1e-9)
    assert req.admitted_s == req.arrival_s  # the first scheduling point after the arrival: the idle clock jumps there
    ttft = req.first_token_s - req.arrival_s
    assert ttft == pytest.approx(_prefill_s(), rel=1e-9)  # the modelled prefill, nothing of the wall parse
    # the old behaviour (arrival = model time at the submit) put the parse into the arrival: PARSE_S x scale later
    assert rt.model_at(received) < req.arrival_s + PARSE_S * scale / 2


def test_arrival_during_a_step_is_admitted_at_a_later_boundary():
    """A request received before the step in flight started (it was still being parsed when that step was planned)
    arrives at that step's start at the earliest (the step was planned without it), at its receipt or the submit
    at the latest, and is admitted at a boundary after it: never before its arrival."""

    async def go():
        rt = EngineRuntime(build_engine([]), 20.0)
        rt.start()
        await asyncio.sleep(0.005)
        first = _req("a", max_new=400)
        rt.submit(first)
        await _until(lambda: first.n_out >= 3)
        received = asyncio.get_running_loop().time()
        time.sleep(0.004)  # ~ a few steps at x20: the engine commits late, then catches up
        await asyncio.sleep(0)
        step_start = rt.engine.clock
        second = _req("b", prompt=200)
        now = rt.model_now()
        rt.submit(second, received)
        await _until(lambda: second.first_token_s is not None)
        rt.abort(first)
        await rt.stop()
        return rt, second, received, step_start, now

    rt, second, received, step_start, now = asyncio.run(go())
    assert step_start <= second.arrival_s <= max(step_start, min(rt.model_at(received), now)) + 1e-9
    assert second.admitted_s is not None and second.admitted_s >= second.arrival_s
    assert second.first_token_s > second.admitted_s


def test_twin_stamps_the_arrival_at_the_http_receipt(tmp_path):
    """End to end: the trace's arrival (time.monotonic() at the receipt, before the route's parse and submit) is the
    modelled arrival on the engine runtime's wall clock, at a high time scale."""
    scale = 50.0
    twin = start_twin(MODEL + ["--mem-fraction-static", "0.96", "--sim-time-scale", str(scale),
                               "--sim-startup-scale", "1000"], tmp_path)
    try:
        for i in range(3):
            text = f"{i} hello" + " hello" * 400  # a new prompt each time: no prefix-cache hit
            r = httpx.post(twin.url + "/generate", json={"text": text, "stream": False,
                                                         "sampling_params": {"max_new_tokens": 4}}, timeout=30)
            assert r.status_code == 200, r.text
            rid = r.json()["meta_info"]["id"]
            tr = httpx.get(twin.url + "/sim/trace", params={"rid": rid}, timeout=30).json()
            wall0 = httpx.get(twin.url + "/sim/info", timeout=30).json()["pacing"]["wall0_monotonic"]
            m = tr["model_time"]
            assert tr["t_arrival"] < tr["t_submit"]  # the receipt, then the parse, then the submit
            assert m["arrival_s"] == pytest.approx((tr["t_arrival"] - wall0) * scale, abs=1e-6)
            # the modelled TTFT is the prefill of ~400 tokens (~20 ms; this launch's node and jitter vary it by a
            # few %), not that plus the twin's parse x 50 (~50-150 ms)
            ttft, prefill = m["first_token_s"] - m["arrival_s"], _prefill_s(tr["prompt_tokens"])
            assert 0.7 * prefill < ttft < 1.3 * prefill
    finally:
        stop_twin(twin)
