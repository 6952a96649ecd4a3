"""`echo` with token-id prompts on /v1/completions, as SGLang 0.5.23's serving_completions does it
(`_prepare_echo_prompts` / `_get_echo_text`): each choice starts with its prompt decoded by the served tokenizer
(`tokenizer.decode(ids, skip_special_tokens=True)`), prompt index = choice index // n, streamed in the first chunk of
each choice. The twin's tokenizer is o200k_base (what it counts prompt tokens with: usage.prompt_tokens == len(ids)
both ways round)."""

from __future__ import annotations

import bpe_openai
import httpx
import pytest

from console.sim.content.tokens import count_tokens, decode_ids

from .twin_process import FAST, MODEL, sse_json, start_twin, stop_twin

ENC = bpe_openai.get_encoding("o200k_base")
A, B = "The capital of France is", " Rivers run to the sea"


def test_decode_is_the_inverse_of_the_twins_token_count():
    for text in (A, B, "naïve café — 東京 ✓", "line\n\n  two"):
        ids = ENC.encode(text)
        assert decode_ids(ids) == text and count_tokens(text) == len(ids)


def test_special_and_unknown_ids_are_skipped():
    eot = ENC.eot_token
    assert ENC.is_special_token(eot)
    assert decode_ids([eot, *ENC.encode(A), 10**9]) == A
    assert decode_ids([]) == ""


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(MODEL + FAST + ["--mem-fraction-static", "0.96"], tmp_module)
    yield t
    stop_twin(t)


@pytest.mark.e2e
def test_echo_of_token_id_prompts(twin):
    a, b = ENC.encode(A), ENC.encode(B)
    body = {"model": "m", "prompt": [a, b], "max_tokens": 3, "n": 2, "echo": True, "ignore_eos": True,
            "temperature": 0}
    r = httpx.post(twin.url + "/v1/completions", json=body, timeout=60).json()
    texts = [c["text"] for c in r["choices"]]
    assert [t[:len(p)] for t, p in zip(texts, (A, A, B, B))] == [A, A, B, B]
    assert all(len(t) > len(p) for t, p in zip(texts, (A, A, B, B)))
    assert r["usage"]["prompt_tokens"] == len(a) + len(b)
    single = httpx.post(twin.url + "/v1/completions", timeout=60, json={
        "prompt": a, "max_tokens": 2, "echo": True, "ignore_eos": True}).json()
    assert single["choices"][0]["text"].startswith(A)
    s = httpx.post(twin.url + "/v1/completions", json={**body, "stream": True}, timeout=60)
    first: dict[int, str] = {}
    for ev in sse_json(s.text):
        for c in ev.get("choices") or []:
            first.setdefault(c["index"], c["text"])
    assert [first[i].startswith(p) for i, p in enumerate((A, A, B, B))] == [True] * 4
