"""`return_hidden_states` on the twin, in SGLang 0.5.23's shapes (captured from a real 0.5.23 CPU server launched
with --enable-return-hidden-states; features/test_openai_server_hidden_states.py checks the same):
/v1/completions and /v1/chat/completions answer each choice's `hidden_states` (True: the last decode step's
vector, [] after a single token; "last": the newest vector), streamed as one extra chunk per choice after the
finish chunks; False leaves no key at all; /generate's meta_info carries the whole list (the prefill's rows, then
one vector per decode step) and refuses "last" through its JSON contract. Without the flag (or above
--return-hidden-states-mode last) a request asking for them is refused with the tokenizer manager's message."""

from __future__ import annotations

import httpx
import openai
import pytest

from console.sim.content.hidden import DEFAULT_HIDDEN_SIZE, NOT_CONFIGURED

from .twin_process import FAST, MODEL, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

BASE = MODEL + FAST + ["--mem-fraction-static", "0.96", "--sim-seed", "5"]
W = DEFAULT_HIDDEN_SIZE  # Kimi-K2.6's hidden_size
HI = [{"role": "user", "content": "Say hi."}]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(BASE + ["--enable-return-hidden-states"], tmp_module)
    yield t
    stop_twin(t)


@pytest.fixture(scope="module")
def plain(tmp_module):
    t = start_twin(BASE, tmp_module)
    yield t
    stop_twin(t)


def client(t) -> openai.OpenAI:
    return openai.OpenAI(base_url=t.url + "/v1", api_key="none")


def is_vector(v) -> bool:
    return isinstance(v, list) and len(v) == W and all(isinstance(x, float) for x in v) and max(map(abs, v)) < 10


def post(t, path: str, body: dict) -> httpx.Response:
    return httpx.post(t.url + path, json=body, timeout=60)


# ------------------------------------------------------------------------------------------- /v1/completions


@pytest.mark.parametrize("prompt", ["The capital of France is", ["Hello", "The sky is"]])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("hs", [True, False])
def test_completion_non_stream(twin, prompt, n, hs):
    r = client(twin).completions.create(model="m", prompt=prompt, n=n, temperature=0, max_tokens=32,
                                        extra_body={"return_hidden_states": hs})
    prompts = 1 if isinstance(prompt, str) else len(prompt)
    assert len(r.choices) == n * prompts
    for c in r.choices:
        assert hasattr(c, "hidden_states") == hs
        if hs:
            assert is_vector(c.hidden_states)
    if hs and n == 2:  # greedy samples of one prompt agree (the same vector, as real)
        assert r.choices[0].hidden_states == r.choices[1].hidden_states


def test_completion_false_has_no_key(twin):
    body = post(twin, "/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 3,
                                          "return_hidden_states": False}).json()
    assert list(body["choices"][0]) == ["index", "text", "logprobs", "finish_reason", "matched_stop"]


def test_completion_key_order_and_one_token(twin):
    c = post(twin, "/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 1, "temperature": 0,
                                       "return_hidden_states": True}).json()["choices"][0]
    assert list(c) == ["index", "text", "logprobs", "finish_reason", "matched_stop", "hidden_states"]
    assert c["hidden_states"] == []  # one token: no decode step, the list's last entry is missing ([])
    last = post(twin, "/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 1, "temperature": 0,
                                          "return_hidden_states": "last"}).json()["choices"][0]
    assert is_vector(last["hidden_states"])  # "last": the prompt's last row


def test_completion_true_and_last_agree(twin):
    body = {"model": "m", "prompt": "The capital of France is", "max_tokens": 4, "temperature": 0,
            "ignore_eos": True}
    a = post(twin, "/v1/completions", {**body, "return_hidden_states": True}).json()["choices"][0]
    b = post(twin, "/v1/completions", {**body, "return_hidden_states": "last"}).json()["choices"][0]
    assert is_vector(a["hidden_states"]) and a["hidden_states"] == b["hidden_states"]


@pytest.mark.parametrize("prompt", ["The capital of France is", ["Hello", "The sky is"]])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("hs", [True, False])
def test_completion_stream(twin, prompt, n, hs):
    stream = client(twin).completions.create(model="m", prompt=prompt, n=n, temperature=0, max_tokens=32,
                                             stream=True, stream_options={"include_usage": True},
                                             extra_body={"return_hidden_states": hs})
    prompts = 1 if isinstance(prompt, str) else len(prompt)
    with_hs, usage = [], None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for c in chunk.choices:
            if hasattr(c, "hidden_states"):
                with_hs.append((c.index, c.text, c.finish_reason))
                assert is_vector(c.hidden_states)
    assert usage is not None
    assert len(with_hs) == (n * prompts if hs else 0)
    if hs:
        assert sorted(i for i, _, _ in with_hs) == list(range(n * prompts))
    assert all(text == "" and fr is None for _, text, fr in with_hs)


def test_completion_stream_order(twin):
    r = post(twin, "/v1/completions", {"model": "m", "prompt": ["Hello", "The sky is"], "n": 2, "max_tokens": 4,
                                       "temperature": 0, "stream": True, "return_hidden_states": True,
                                       "stream_options": {"include_usage": True}})
    evs = sse_json(r.text)
    kinds = ["usage" if not e["choices"] else "hs" if "hidden_states" in e["choices"][0] else "out" for e in evs]
    assert kinds[-1] == "usage" and kinds[-5:-1] == ["hs"] * 4 and set(kinds[:-5]) == {"out"}
    hs = evs[-5:-1]
    assert len({e["id"] for e in hs}) == 1 and all(e["usage"] is None for e in hs)
    assert list(hs[0]["choices"][0]) == ["index", "text", "logprobs", "finish_reason", "matched_stop",
                                         "hidden_states"]


# -------------------------------------------------------------------------------------- /v1/chat/completions


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("hs", [True, False])
def test_chat_non_stream(twin, n, hs):
    r = client(twin).chat.completions.create(model="m", messages=HI, n=n, temperature=0, max_tokens=32,
                                             extra_body={"return_hidden_states": hs})
    assert len(r.choices) == n
    for c in r.choices:
        assert hasattr(c, "hidden_states") == hs
        if hs:
            assert is_vector(c.hidden_states)


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("hs", [True, False])
def test_chat_stream(twin, n, hs):
    stream = client(twin).chat.completions.create(model="m", messages=HI, n=n, temperature=0, max_tokens=32,
                                                  stream=True, stream_options={"include_usage": True},
                                                  extra_body={"return_hidden_states": hs})
    found = 0
    for chunk in stream:
        if chunk.choices and hasattr(chunk.choices[0].delta, "hidden_states"):
            found += 1
            assert is_vector(chunk.choices[0].delta.hidden_states)
    assert found == (n if hs else 0)


def test_chat_stream_chunk_shape(twin):
    r = post(twin, "/v1/chat/completions", {"model": "m", "messages": HI, "max_tokens": 4, "n": 2,
                                            "temperature": 0, "stream": True, "return_hidden_states": "last",
                                            "stream_options": {"include_usage": True}})
    evs = sse_json(r.text)
    assert not evs[-1]["choices"]  # usage last, the two hidden-states chunks before it, after the finish chunks
    hs = evs[-3:-1]
    assert all(e["choices"][0]["finish_reason"] is None and e["usage"] is None for e in hs)
    assert hs[0]["choices"][0]["delta"].keys() == {"role", "content", "reasoning_content", "hidden_states"}
    assert all(evs[-4 - k]["choices"][0]["finish_reason"] == "length" for k in range(2))
    assert sorted(e["choices"][0]["index"] for e in hs) == [0, 1]


def test_chat_false_has_no_key(twin):
    c = post(twin, "/v1/chat/completions", {"model": "m", "messages": HI, "max_tokens": 3,
                                            "return_hidden_states": False}).json()["choices"][0]
    assert "hidden_states" not in c


# ------------------------------------------------------------------------------------------------- /generate


def test_generate_lists_prefill_rows_then_decode_steps(twin):
    body = {"text": "The capital of France is a city of light", "sampling_params": {"max_new_tokens": 3,
            "temperature": 0, "ignore_eos": True}, "return_hidden_states": True}
    m = post(twin, "/generate", body).json()["meta_info"]
    keys = list(m)
    assert keys.index("hidden_states") == keys.index("dp_rank") - 1
    prefill, *decode = m["hidden_states"]
    assert len(prefill) == m["prompt_tokens"] - m["cached_tokens"] and all(is_vector(v) for v in prefill)
    assert len(decode) == 2 and all(is_vector(v) for v in decode)
    again = post(twin, "/generate", body).json()["meta_info"]  # the prompt is cached now: fewer prefill rows
    assert len(again["hidden_states"][0]) == again["prompt_tokens"] - again["cached_tokens"]
    assert again["hidden_states"][1:] == decode


@pytest.mark.parametrize("words, rows", [(10, 11), (100, 37), (200, 9)])
def test_generate_chunked_prompt_keeps_the_last_chunks_rows(tmp_path, words, rows):
    """Measured on the real 0.5.23 CPU server with --chunked-prefill-size 64 --disable-radix-cache: prompts of 11,
    101 and 201 tokens ("hello " * 10, * 100, * 200) gave prefill entries of 11, 37 and 9 rows: a middle chunk's
    output is not stored (batch_result_processor, store=False), so only the last chunk's rows are. Token ids here,
    so the twin's prompt lengths are the real ones."""
    t = start_twin(BASE + ["--enable-return-hidden-states", "--chunked-prefill-size", "64", "--disable-radix-cache"],
                   tmp_path)
    try:
        body = {"input_ids": list(range(1000, 1000 + words + 1)), "sampling_params": {
            "max_new_tokens": 3, "temperature": 0, "ignore_eos": True}, "return_hidden_states": True}
        m = post(t, "/generate", body).json()["meta_info"]
        assert m["prompt_tokens"] == words + 1
        assert [len(m["hidden_states"][0]), len(m["hidden_states"])] == [rows, 3]
        assert all(is_vector(v) for v in m["hidden_states"][0])
    finally:
        stop_twin(t)


def test_generate_stream_grows(twin):
    r = post(twin, "/generate", {"text": "Tell me something", "stream": True, "return_hidden_states": True,
                                 "sampling_params": {"max_new_tokens": 3, "ignore_eos": True}})
    evs = sse_json(r.text)
    for e in evs:
        m = e["meta_info"]
        assert len(m["hidden_states"]) == m["completion_tokens"]


def test_generate_without_and_last(twin):
    m = post(twin, "/generate", {"text": "Hi", "sampling_params": {"max_new_tokens": 2},
                                 "return_hidden_states": False}).json()["meta_info"]
    assert "hidden_states" not in m
    r = post(twin, "/generate", {"text": "Hi", "sampling_params": {"max_new_tokens": 2},
                                 "return_hidden_states": "last"})
    assert r.status_code == 400
    assert r.json() == {"error": 'invalid type: string "last", expected a value or an array of values for BoolOrList'}
    r = post(twin, "/generate", {"text": "Hi", "return_hidden_states": "bogus"})
    assert r.status_code == 400 and "literal_error" in r.json()["message"]


def test_bad_type_on_completions(twin):
    r = post(twin, "/v1/completions", {"model": "m", "prompt": "Hi", "return_hidden_states": "bogus"})
    assert r.status_code == 400 and "Input should be 'last'" in r.json()["message"]


# ------------------------------------------------------------------------------- not launched to return them


@pytest.mark.parametrize("path,body", [
    ("/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 2}),
    ("/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 2, "stream": True}),
    ("/v1/chat/completions", {"model": "m", "messages": HI, "max_tokens": 2}),
    ("/v1/chat/completions", {"model": "m", "messages": HI, "max_tokens": 2, "stream": True}),
])
def test_not_configured_openai(plain, path, body):
    r = post(plain, path, {**body, "return_hidden_states": True})
    assert r.status_code == 400
    assert r.json() == {"object": "error", "message": NOT_CONFIGURED, "type": "BadRequestError", "param": None,
                        "code": 400}
    assert post(plain, path, {**body, "return_hidden_states": False}).status_code == 200


def test_not_configured_generate(plain):
    r = post(plain, "/generate", {"text": "Hi", "sampling_params": {"max_new_tokens": 2}, "return_hidden_states": True})
    assert r.status_code == 400 and r.json() == {"error": {"message": NOT_CONFIGURED}}
    r = post(plain, "/generate", {"text": "Hi", "stream": True, "return_hidden_states": True})
    assert r.status_code == 200
    assert sse_json(r.text) == [{"error": {"message": NOT_CONFIGURED, "type": "invalid_request_error", "code": 400,
                                           "retryable": False}}]


def test_mode_last_refuses_true(tmp_path):
    t = start_twin(BASE + ["--return-hidden-states-mode", "last"], tmp_path)
    try:
        r = post(t, "/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 2, "return_hidden_states": True})
        assert r.status_code == 400
        assert r.json()["message"] == ("The requested return_hidden_states mode exceeds the server maximum `last`. "
                                       "Please launch with `--return-hidden-states-mode full` to allow "
                                       "return_hidden_states=True.")
        c = post(t, "/v1/completions", {"model": "m", "prompt": "Hi", "max_tokens": 2,
                                        "return_hidden_states": "last"}).json()["choices"][0]
        assert is_vector(c["hidden_states"])
        info = httpx.get(t.url + "/server_info", timeout=10).json()
        assert info["return_hidden_states_mode"] == "last" and info["enable_return_hidden_states"] is True
    finally:
        stop_twin(t)
