"""/generate and /v1/completions text prompts share cached prefixes, as SGLang's radix tree does: a prompt that
starts like a cached one hits that much (a shared system prompt; bench_serving's generated-shared-prefix
dataset), not only an identical text. Before, the twin keyed a text prompt whole."""

from __future__ import annotations

import httpx
import pytest

from console.sim.content.tokens import count_tokens

from .twin_process import FAST, MODEL, PAGE_1, start_twin, stop_twin

pytestmark = pytest.mark.e2e

SYSTEM = "You are a careful assistant who answers in one short sentence. " * 30


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(MODEL + FAST + PAGE_1 + ["--mem-fraction-static", "0.96"], tmp_module)
    yield t
    stop_twin(t)


def gen(twin, text: str) -> dict:
    return httpx.post(twin.url + "/generate", json={"text": text, "sampling_params": {"max_new_tokens": 2}},
                      timeout=60).json()["meta_info"]


def test_a_shared_start_hits_its_tokens(twin):
    shared = count_tokens(SYSTEM)
    first = gen(twin, SYSTEM + "What is the capital of France?")
    assert first["cached_tokens"] == 0
    second = gen(twin, SYSTEM + "Name a prime number.")
    # the shared system text, to a piece boundary: at most one piece short of it, never more than it
    assert shared - 2 <= second["cached_tokens"] <= shared
    assert second["cached_tokens"] < second["prompt_tokens"]


def test_completions_and_generate_share_the_cache(twin):
    text = SYSTEM + "Explain radix trees to a child."
    r = httpx.post(twin.url + "/v1/completions", json={"model": "m", "prompt": text, "max_tokens": 2}, timeout=60)
    assert r.status_code == 200
    again = gen(twin, text)  # the completion's prompt is in the cache: all of it but the last token
    assert again["cached_tokens"] == again["prompt_tokens"] - 1


def test_an_unrelated_text_hits_nothing(twin):
    gen(twin, "Completely different words open this prompt, " * 20)
    assert gen(twin, "Nothing alike here at all; another start. " * 20)["cached_tokens"] == 0
