"""/v1/completions on the twin, in SGLang 0.5.23's shapes (serving_completions.py, protocol.py; the differential
suite compares the same probes with a real server): prompt forms, n, stream and usage, logprobs, echo, errors, the
openai SDK's completions.create."""

from __future__ import annotations

import math

import httpx
import openai
import pytest

from .twin_process import FAST, MODEL, sse_events, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + ["--mem-fraction-static", "0.96", "--sim-seed", "5"]
BODY_KEYS = ["id", "object", "created", "model", "choices", "usage", "metadata"]
CHOICE_KEYS = ["index", "text", "logprobs", "finish_reason", "matched_stop"]
USAGE_KEYS = ["prompt_tokens", "total_tokens", "completion_tokens", "prompt_tokens_details", "reasoning_tokens",
              "completion_tokens_details"]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def post(twin, body: dict, path: str = "/v1/completions") -> httpx.Response:
    return httpx.post(twin.url + path, json=body, timeout=60)


def test_string_prompt_body_shape(twin):
    r = post(twin, {"model": "m", "prompt": "Hello there", "max_tokens": 5, "ignore_eos": True})
    assert r.status_code == 200
    b = r.json()
    assert list(b) == BODY_KEYS
    assert b["object"] == "text_completion" and b["model"] == "m" and len(b["id"]) == 32
    (c,) = b["choices"]
    assert list(c) == CHOICE_KEYS
    assert c["index"] == 0 and c["text"] and c["logprobs"] is None
    assert c["finish_reason"] == "length" and c["matched_stop"] is None
    assert list(b["usage"]) == USAGE_KEYS
    assert b["usage"]["completion_tokens"] == 5 and b["usage"]["total_tokens"] == b["usage"]["prompt_tokens"] + 5
    assert b["metadata"] == {"weight_version": "default",
                             "weight_versions": [{"version": "default", "start": 0, "end": 5}]}


def test_default_max_tokens_is_16(twin):
    b = post(twin, {"prompt": "Hello", "ignore_eos": True}).json()
    assert b["usage"]["completion_tokens"] == 16 and b["model"] == "default"


def test_batch_of_prompts_times_n(twin):
    single = [post(twin, {"prompt": p, "max_tokens": 2, "ignore_eos": True}).json()["usage"]["prompt_tokens"]
              for p in ("Hello", "Tell me about rivers")]
    b = post(twin, {"prompt": ["Hello", "Tell me about rivers"], "max_tokens": 3, "n": 2, "ignore_eos": True}).json()
    assert [c["index"] for c in b["choices"]] == [0, 1, 2, 3]
    assert b["usage"]["prompt_tokens"] == sum(single)  # each prompt once, not once per sample
    assert b["usage"]["completion_tokens"] == 12


def test_token_id_prompts(twin):
    one = post(twin, {"prompt": [11, 12, 13, 14], "max_tokens": 2, "ignore_eos": True}).json()
    assert one["usage"]["prompt_tokens"] == 4
    many = post(twin, {"prompt": [[1, 2, 3], [4, 5]], "max_tokens": 2, "ignore_eos": True}).json()
    assert len(many["choices"]) == 2 and many["usage"]["prompt_tokens"] == 5


@pytest.mark.parametrize("prompt", ["", [], [""]])
def test_empty_prompt_is_refused(twin, prompt):
    r = post(twin, {"prompt": prompt, "max_tokens": 2})
    assert r.status_code == 400
    assert r.json() == {"object": "error", "message": "Prompt cannot be empty", "type": "BadRequestError",
                        "param": None, "code": 400}


def test_stream_chunks_usage_and_done(twin):
    r = post(twin, {"prompt": "Hello", "max_tokens": 4, "ignore_eos": True, "stream": True, "temperature": 0,
                    "stream_options": {"include_usage": True}})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert sse_events(r.text)[-1] == "[DONE]"
    evs = sse_json(r.text)
    *chunks, last = evs
    for ch in chunks:
        assert list(ch) == ["id", "object", "created", "model", "choices", "usage"] and ch["usage"] is None
        assert ch["object"] == "text_completion" and list(ch["choices"][0]) == CHOICE_KEYS
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None] * (len(chunks) - 1) + ["length"]
    assert last["choices"] == [] and last["usage"] == {"prompt_tokens": 1, "total_tokens": 5,
                                                        "completion_tokens": 4, "reasoning_tokens": 0}
    # greedy: the same text as the non-streamed answer
    text = "".join(c["choices"][0]["text"] for c in chunks)
    assert text == post(twin, {"prompt": "Hello", "max_tokens": 4, "ignore_eos": True,
                               "temperature": 0}).json()["choices"][0]["text"]


def test_stream_n2_indexes_each_sample(twin):
    r = post(twin, {"prompt": "Hello", "max_tokens": 3, "n": 2, "stream": True, "ignore_eos": True})
    evs = sse_json(r.text)
    by_index: dict[int, list] = {}
    for e in evs:
        (c,) = e["choices"]
        by_index.setdefault(c["index"], []).append((e["id"], c))
    assert sorted(by_index) == [0, 1]
    ids = {i: {rid for rid, _ in v} for i, v in by_index.items()}
    assert all(len(s) == 1 for s in ids.values()) and ids[0] != ids[1]  # one engine request per sample
    assert all(v[-1][1]["finish_reason"] == "length" for v in by_index.values())


def _check_legacy_logprobs(lp: dict, text: str, n_top: int) -> None:
    assert list(lp) == ["text_offset", "token_logprobs", "tokens", "top_logprobs"]
    assert "".join(lp["tokens"]) == text
    assert lp["text_offset"] == [-1] * len(lp["tokens"])
    assert all(v <= 0 for v in lp["token_logprobs"])
    if n_top == 0:
        assert lp["top_logprobs"] == []
        return
    assert len(lp["top_logprobs"]) == len(lp["tokens"])
    for tok, own, top in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"]):
        vals = list(top.values())
        assert len(vals) == n_top and vals == sorted(vals, reverse=True)
        assert sum(math.exp(v) for v in vals) <= 1.0 + 1e-9
        if tok in top:
            assert top[tok] == own


@pytest.mark.parametrize("n_top", [0, 1, 3])
def test_logprobs_legacy_object(twin, n_top):
    b = post(twin, {"prompt": "Hello", "max_tokens": 6, "logprobs": n_top, "ignore_eos": True}).json()
    (c,) = b["choices"]
    _check_legacy_logprobs(c["logprobs"], c["text"], n_top)


def test_logprobs_stream_per_chunk(twin):
    r = post(twin, {"prompt": "Hello", "max_tokens": 6, "logprobs": 2, "ignore_eos": True, "stream": True})
    for e in sse_json(r.text):
        c = e["choices"][0]
        if c["text"]:
            _check_legacy_logprobs(c["logprobs"], c["text"], 2)


def test_logprobs_are_seeded(twin):
    body = {"prompt": "The same prompt", "max_tokens": 5, "logprobs": 2, "ignore_eos": True, "temperature": 0}
    a, b = post(twin, body).json(), post(twin, body).json()
    assert a["choices"][0]["logprobs"] == b["choices"][0]["logprobs"]
    lp = a["choices"][0]["logprobs"]  # greedy: the sampled token is the most likely one
    assert all(max(top, key=top.get) == tok for tok, top in zip(lp["tokens"], lp["top_logprobs"]))


def test_echo_prepends_a_text_prompt(twin):
    b = post(twin, {"prompt": "Echo me", "max_tokens": 3, "echo": True, "ignore_eos": True}).json()
    assert b["choices"][0]["text"].startswith("Echo me") and len(b["choices"][0]["text"]) > len("Echo me")
    r = post(twin, {"prompt": "Echo me", "max_tokens": 3, "echo": True, "ignore_eos": True, "stream": True})
    assert sse_json(r.text)[0]["choices"][0]["text"].startswith("Echo me")


def test_openai_sdk_completions(twin):
    client = openai.OpenAI(base_url=twin.url + "/v1", api_key="none")
    res = client.completions.create(model="m", prompt="Hello", max_tokens=4, extra_body={"ignore_eos": True})
    assert res.choices[0].finish_reason == "length" and res.usage.completion_tokens == 4
    stream = client.completions.create(model="m", prompt=["a", "b"], max_tokens=3, stream=True, n=2,
                                       stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    chunks = list(stream)
    assert {c.choices[0].index for c in chunks if c.choices} == {0, 1, 2, 3}
    assert chunks[-1].usage.completion_tokens == 12


def test_logprobs_cover_every_output_token_eos_included(twin):
    b = post(twin, {"prompt": "The capital of France is", "max_tokens": 4000, "logprobs": 1, "temperature": 0}).json()
    c = b["choices"][0]
    assert c["finish_reason"] == "stop" and isinstance(c["matched_stop"], int)
    lp = c["logprobs"]
    assert len(lp["tokens"]) == b["usage"]["completion_tokens"] and lp["tokens"][-1] == "<|im_end|>"
    assert "".join(lp["tokens"][:-1]) == c["text"]
    # streamed: every chunk carries its tokens' logprobs, the EOS-only last one too (SGLang's own server test
    # asserts logprobs on every chunk)
    r = post(twin, {"prompt": "The capital of France is", "max_tokens": 4000, "logprobs": 1, "temperature": 0,
                    "stream": True})
    chunks = sse_json(r.text)
    assert all(ch["choices"][0]["logprobs"]["tokens"] for ch in chunks)
    assert [t for ch in chunks for t in ch["choices"][0]["logprobs"]["tokens"]] == lp["tokens"]
