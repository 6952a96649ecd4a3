"""Chat completions on the twin beyond one plain choice, in SGLang 0.5.23's shapes: n > 1 streamed and not,
logprobs / top_logprobs, constrained output (json_object, json_schema, regex), stop_regex, and the abort of a
non-streaming request whose client left (known 3: the real server aborts within seconds; /flush_cache then works)."""

from __future__ import annotations

import json
import math
import re
import time

import httpx
import openai
import pytest

from .twin_process import FAST, MODEL, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + ["--mem-fraction-static", "0.96", "--sim-seed", "9"]
CHAT = "/v1/chat/completions"
HI = [{"role": "user", "content": "Say hi."}]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def post(twin, body: dict) -> httpx.Response:
    return httpx.post(twin.url + CHAT, json={"model": "m", "messages": HI, **body}, timeout=60)


# ------------------------------------------------------------------------------------------------ n > 1


def test_n2_non_stream(twin):
    one = post(twin, {"max_tokens": 3, "ignore_eos": True}).json()
    b = post(twin, {"max_tokens": 3, "n": 2, "ignore_eos": True}).json()
    assert [c["index"] for c in b["choices"]] == [0, 1]
    assert all(c["message"]["role"] == "assistant" and c["finish_reason"] == "length" for c in b["choices"])
    assert b["usage"]["prompt_tokens"] == one["usage"]["prompt_tokens"]  # the prompt counted once
    assert b["usage"]["completion_tokens"] == 6


def test_n2_stream_order_of_chunks(twin):
    r = post(twin, {"max_tokens": 3, "n": 2, "stream": True, "ignore_eos": True,
                    "stream_options": {"include_usage": True}})
    evs = sse_json(r.text)
    kinds = []
    for e in evs:
        if not e["choices"]:
            kinds.append(("usage", None))
            continue
        (c,) = e["choices"]
        d = c["delta"]
        kinds.append(("role" if d.get("role") else "finish" if c["finish_reason"] else "content", c["index"]))
    assert kinds[-1] == ("usage", None)
    finishes = [i for i, (k, _) in enumerate(kinds) if k == "finish"]
    assert sorted(kinds[i][1] for i in finishes) == [0, 1]
    assert finishes[0] > max(i for i, (k, _) in enumerate(kinds) if k == "content")  # after every choice's text
    assert {idx for k, idx in kinds if k == "role"} == {0, 1}
    content_ids = {(e["choices"][0]["index"], e["id"]) for e in evs
                   if e["choices"] and e["choices"][0]["delta"].get("content")}
    assert len({rid for _, rid in content_ids}) == 2  # one engine request (rid) per choice
    assert len({evs[i]["id"] for i in finishes} | {evs[-1]["id"]}) == 1  # finish and usage: the last request's id
    assert evs[-1]["usage"]["completion_tokens"] == 6


# ------------------------------------------------------------------------------------------------ logprobs


def _check_chat_logprobs(lp: dict, text: str, n_top: int) -> None:
    assert list(lp) == ["content"]
    assert "".join(t["token"] for t in lp["content"]) == text
    for t in lp["content"]:
        assert list(t) == ["token", "bytes", "logprob", "top_logprobs"]
        assert t["bytes"] == list(t["token"].encode("utf-8")) and t["logprob"] <= 0
        assert len(t["top_logprobs"]) == n_top
        vals = [x["logprob"] for x in t["top_logprobs"]]
        assert vals == sorted(vals, reverse=True) and sum(math.exp(v) for v in vals) <= 1 + 1e-9
        for x in t["top_logprobs"]:
            assert list(x) == ["token", "bytes", "logprob"]


def test_logprobs_non_stream(twin):
    b = post(twin, {"max_tokens": 5, "logprobs": True, "top_logprobs": 3, "ignore_eos": True}).json()
    c = b["choices"][0]
    _check_chat_logprobs(c["logprobs"], c["message"]["content"], 3)
    b = post(twin, {"max_tokens": 5, "logprobs": True, "ignore_eos": True}).json()
    _check_chat_logprobs(b["choices"][0]["logprobs"], b["choices"][0]["message"]["content"], 0)
    assert post(twin, {"max_tokens": 2}).json()["choices"][0]["logprobs"] is None


def test_logprobs_stream_on_content_chunks(twin):
    r = post(twin, {"max_tokens": 6, "logprobs": True, "top_logprobs": 2, "ignore_eos": True, "stream": True})
    for e in sse_json(r.text):
        c = e["choices"][0]
        if c["delta"].get("content"):
            _check_chat_logprobs(c["logprobs"], c["delta"]["content"], 2)
        else:
            assert c["logprobs"] is None


def test_logprobs_seeded_and_greedy_top_is_sampled(twin):
    body = {"max_tokens": 6, "logprobs": True, "top_logprobs": 2, "ignore_eos": True, "temperature": 0}
    a, b = post(twin, body).json(), post(twin, body).json()
    assert a["choices"][0]["logprobs"] == b["choices"][0]["logprobs"]
    for t in a["choices"][0]["logprobs"]["content"]:
        assert t["top_logprobs"][0]["token"] == t["token"] and t["top_logprobs"][0]["logprob"] == t["logprob"]


def test_openai_sdk_n_and_logprobs(twin):
    client = openai.OpenAI(base_url=twin.url + "/v1", api_key="none")
    res = client.chat.completions.create(model="m", messages=HI, max_tokens=3, n=2, logprobs=True, top_logprobs=2,
                                         extra_body={"ignore_eos": True})
    assert len(res.choices) == 2 and len(res.choices[1].logprobs.content[0].top_logprobs) == 2


# ------------------------------------------------------------------------------------------------ constraints


def test_json_object(twin):
    for i in range(4):
        b = post(twin, {"max_tokens": 200, "response_format": {"type": "json_object"},
                        "messages": [{"role": "user", "content": f"A JSON object, please ({i})."}]}).json()
        c = b["choices"][0]
        assert isinstance(json.loads(c["message"]["content"]), dict)
        assert c["finish_reason"] == "stop" and isinstance(c["matched_stop"], int)  # the grammar ended: EOS


SCHEMA = {"type": "object", "properties": {
    "city": {"type": "string", "minLength": 2}, "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "unit": {"enum": ["c", "f"]}, "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "ok": {"type": "boolean"}}, "required": ["city", "days", "unit", "tags"], "additionalProperties": False}


def test_json_schema_validates(twin):
    for i in range(4):
        b = post(twin, {"max_tokens": 300, "messages": [{"role": "user", "content": f"Plan a trip {i}."}],
                        "response_format": {"type": "json_schema",
                                            "json_schema": {"name": "trip", "schema": SCHEMA}}}).json()
        v = json.loads(b["choices"][0]["message"]["content"])
        assert set(v) <= set(SCHEMA["properties"]) and {"city", "days", "unit", "tags"} <= set(v)
        assert isinstance(v["city"], str) and len(v["city"]) >= 2
        assert isinstance(v["days"], int) and 1 <= v["days"] <= 14 and v["unit"] in ("c", "f")
        assert isinstance(v["tags"], list) and v["tags"] and all(isinstance(t, str) for t in v["tags"])
        assert isinstance(v.get("ok", True), bool)


def test_json_schema_without_schema_is_refused(twin):
    r = post(twin, {"max_tokens": 5, "response_format": {"type": "json_schema", "json_schema": {"name": "x"}}})
    assert r.status_code == 400 and r.json()["message"] == "schema_ is required for json_schema response format " \
                                                             "request."


@pytest.mark.parametrize("pattern", [r"(yes|no)[.!]", r"\d{3}-\d{4}", r"[A-Z][a-z]{2,6}( [a-z]+){1,3}\.",
                                     r"(red|green|blue)+"])
def test_regex_output_matches(twin, pattern):
    for stream in (False, True):
        r = post(twin, {"max_tokens": 60, "regex": pattern, "stream": stream})
        if stream:
            text = "".join(e["choices"][0]["delta"].get("content") or "" for e in sse_json(r.text) if e["choices"])
        else:
            text = r.json()["choices"][0]["message"]["content"]
        assert re.fullmatch(pattern, text), (pattern, text)


def test_stop_regex_stops_at_first_match(twin):
    pattern = r"[A-Za-z]{5}"
    for stream in (False, True):
        r = post(twin, {"max_tokens": 80, "stop_regex": pattern, "stream": stream, "logprobs": True,
                        "ignore_eos": True})
        if stream:
            evs = sse_json(r.text)
            text = "".join(e["choices"][0]["delta"].get("content") or "" for e in evs)
            tokens = [t["token"] for e in evs if e["choices"][0]["logprobs"]
                      for t in e["choices"][0]["logprobs"]["content"]]
            fin = evs[-1]["choices"][0]
        else:
            fin = r.json()["choices"][0]
            text, tokens = fin["message"]["content"], [t["token"] for t in fin["logprobs"]["content"]]
        assert fin["finish_reason"] == "stop" and fin["matched_stop"] == pattern
        assert re.search(pattern, text)  # the match is kept (only stop strings are trimmed)
        assert not re.search(pattern, "".join(tokens[:-1]))  # ... and it is the first one: one token earlier, none


def test_bad_regex_is_refused(twin):
    assert post(twin, {"max_tokens": 5, "regex": "(unclosed"}).status_code == 400
    assert post(twin, {"max_tokens": 5, "stop_regex": "[z-a]"}).status_code == 400


# ------------------------------------------------------------------------------------------------ disconnect


def _running(twin) -> int:
    return httpx.get(twin.url + "/v1/loads", timeout=10).json()["loads"][0]["num_running_reqs"]


@pytest.mark.parametrize("path,body", [
    (CHAT, {"model": "m", "messages": HI, "max_tokens": 200000, "ignore_eos": True}),
    ("/generate", {"text": "A long essay", "sampling_params": {"max_new_tokens": 200000, "ignore_eos": True}}),
    ("/v1/completions", {"prompt": "A long essay", "max_tokens": 200000, "ignore_eos": True}),
])
def test_non_streaming_request_aborted_when_the_client_leaves(twin, path, body):
    with pytest.raises(httpx.TimeoutException):
        httpx.post(twin.url + path, json=body, timeout=0.5)
    # the twin looks every 4 modelled seconds (0.2 s at x20), as SGLang's tokenizer manager does
    deadline = time.monotonic() + 3.0
    while _running(twin) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(twin) == 0
    r = httpx.post(twin.url + "/flush_cache", timeout=10)
    assert r.status_code == 200, r.text


def test_regex_json_like_sglangs_own_test(twin):
    # test/srt/openai_server/basic/test_openai_server.py::test_regex: the answer must parse as JSON
    regex = r"""\{\n   "name": "[\w]+",\n   "population": [\d]+\n\}"""
    for i in range(6):
        b = post(twin, {"max_tokens": 128, "regex": regex, "temperature": 0,
                        "messages": [{"role": "user", "content": f"Introduce the capital of France ({i})."}]}).json()
        v = json.loads(b["choices"][0]["message"]["content"])
        assert isinstance(v["name"], str) and isinstance(v["population"], int)


def test_chat_logprobs_include_the_stop_token(twin):
    b = post(twin, {"max_tokens": 4000, "logprobs": True, "temperature": 0}).json()
    c = b["choices"][0]
    assert c["finish_reason"] == "stop"
    toks = [t["token"] for t in c["logprobs"]["content"]]
    assert toks[-1] == "<|im_end|>" and len(toks) == b["usage"]["completion_tokens"]
    assert "".join(toks[:-1]) == c["message"]["content"]


# ------------------------------------------------------------------------------------------------ /generate


def generate(twin, **body) -> httpx.Response:
    return httpx.post(twin.url + "/generate", json=body, timeout=60)


EBNF_CASES = {  # SGLang's own EBNF kit (sglang/test/kits/ebnf_constrained_kit.py): grammar -> what the text matches
    'root ::= "user@example.com"': r"^user@example\.com$",
    'root ::= "Hello" | "Hi" | "Hey"': r"^(Hello|Hi|Hey)$",
    "root ::= digit digit digit\n        digit ::= [0-9]": r"^\d{3}$",
    ('root ::= "(" area ")" " " prefix "-" line\n area ::= [0-9] [0-9] [0-9]\n prefix ::= [0-9] [0-9] [0-9]\n'
     " line ::= [0-9] [0-9] [0-9] [0-9]"): r"^\(\d{3}\) \d{3}-\d{4}$",
    'root ::= "#" hex hex hex hex hex hex\n        hex ::= [0-9] | [A-F]': r"^#[0-9A-F]{6}$",
    ('root ::= logentry\n logentry ::= "[" datetime "] " level ": System.process - " message\n'
     ' datetime ::= "2024-01-01T12:00:00Z"\n level ::= "INFO"\n message ::= "Operation " [a-z]+ " successfully"'):
        r"^\[2024-01-01T12:00:00Z\] INFO: System\.process - Operation [a-z]+ successfully$",
}


@pytest.mark.parametrize("grammar", list(EBNF_CASES))
def test_generate_ebnf_with_n_returns_a_list(twin, grammar):
    prompt = "Generate it, exactly as the grammar says: " + "a string the grammar admits, " * 30  # > one 64-token page
    r = generate(twin, text=prompt, sampling_params={"temperature": 0.5, "max_new_tokens": 128, "n": 3,
                                                     "ebnf": grammar})
    outs = r.json()
    assert isinstance(outs, list) and len(outs) == 3
    assert len({o["meta_info"]["id"] for o in outs}) == 3
    # parallel sampling prefills the prompt once first: every sample finds its whole pages cached
    assert all(o["meta_info"]["cached_tokens"] > 0 and o["meta_info"]["cached_tokens_details"] for o in outs)
    for o in outs:
        assert re.match(EBNF_CASES[grammar], o["text"]), o["text"]
        assert o["meta_info"]["finish_reason"]["type"] == "stop"


def test_generate_json_schema_like_sglangs_kit(twin):
    schema = json.dumps({"type": "object", "properties": {"name": {"type": "string", "pattern": "^[\\w]+$"},
                                                          "population": {"type": "integer"}},
                         "required": ["name", "population"], "additionalProperties": False})
    o = generate(twin, text="Introduce the capital of France in JSON.",
                 sampling_params={"temperature": 0, "max_new_tokens": 128, "json_schema": schema}).json()
    v = json.loads(o["text"])
    assert re.fullmatch(r"\w+", v["name"]) and isinstance(v["population"], int)


def test_generate_stream_n2_tags_each_output_with_its_index(twin):
    r = generate(twin, text="Hello", stream=True, sampling_params={"max_new_tokens": 4, "n": 2, "ignore_eos": True})
    evs = sse_json(r.text)
    assert {e["index"] for e in evs} == {0, 1} and all(list(e)[-1] == "index" for e in evs)
    last = {e["index"]: e for e in evs}
    assert all(e["meta_info"]["completion_tokens"] == 4 for e in last.values())


def test_bad_ebnf_is_refused(twin):
    r = generate(twin, text="x", sampling_params={"max_new_tokens": 4, "ebnf": 'start ::= "x"'})
    assert r.status_code == 400 and "root" in r.json()["error"]["message"]
