"""/generate's `return_logprob` and /v1/completions' prompt logprobs (echo + logprobs) on the twin, in SGLang
0.5.23's shapes (tokenizer_manager `add_logprob_to_meta_info`, scheduler `logprob_start_len`, serving_completions
with `to_openai_style_logprobs`; tests/differential compares the same requests with a real server by shape).
Entries are `[logprob, token_id, text or null]`; the first input position's logprob is null; the numbers are the
twin's seeded ones (console/sim/entrypoints/logprobs.py), the ids and texts those it emits as output_ids / counts the prompt
with (o200k_base)."""

from __future__ import annotations

import bpe_openai
import httpx
import pytest

from .twin_process import FAST, MODEL, PAGE_1, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ENC = bpe_openai.get_encoding("o200k_base")
FRANCE = "The capital of France is"
PROMPT_IDS = ENC.encode(FRANCE)
ARGS = MODEL + FAST + PAGE_1 + ["--mem-fraction-static", "0.96", "--sim-seed", "3"]
LP_KEYS = ["input_token_logprobs", "output_token_logprobs", "output_token_logprobs_length"]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


@pytest.fixture(scope="module")
def twin_metrics(tmp_module):
    t = start_twin(ARGS + ["--enable-metrics"], tmp_module)
    yield t
    stop_twin(t)


def gen(twin, prompt=FRANCE, *, tokens=4, temperature=0, **kw) -> httpx.Response:
    body = {"text": prompt, "return_logprob": True, "sampling_params": {
        "max_new_tokens": tokens, "temperature": temperature, "ignore_eos": True}, **kw}
    return httpx.post(twin.url + "/generate", json=body, timeout=60)


def _entries_ok(entries, ids=None, with_text=False):
    for e in entries:
        assert len(e) == 3 and isinstance(e[1], int)
        assert e[0] is None or (isinstance(e[0], float) and e[0] <= 0)
        assert isinstance(e[2], str) if with_text else e[2] is None
    if ids is not None:
        assert [e[1] for e in entries] == ids


def test_output_logprobs_by_default_in_sglangs_key_place(twin):
    r = gen(twin)
    assert r.status_code == 200
    out = r.json()
    m = out["meta_info"]
    keys = list(m)
    i = keys.index("num_retractions")
    assert keys[i + 1:i + 4] == LP_KEYS and keys[i + 4] == "reasoning_tokens"
    assert m["input_token_logprobs"] == []  # logprob_start_len -1: output logprobs only
    assert m["output_token_logprobs_length"] == m["completion_tokens"] == 4
    _entries_ok(m["output_token_logprobs"], ids=out["output_ids"])
    assert all(e[0] is not None for e in m["output_token_logprobs"])
    assert not any("top" in k or "token_ids" in k for k in keys)


def test_after_the_scheduler_timing_keys_with_metrics(twin_metrics):
    keys = list(gen(twin_metrics).json()["meta_info"])
    i = keys.index("input_token_logprobs")
    assert keys[i - 1] == "queue_time" and keys[i + 3] == "reasoning_tokens"


def test_no_logprob_keys_without_return_logprob(twin):
    r = httpx.post(twin.url + "/generate", timeout=60, json={
        "text": FRANCE, "top_logprobs_num": 2, "logprob_start_len": 0, "sampling_params": {"max_new_tokens": 2}})
    assert not [k for k in r.json()["meta_info"] if "logprob" in k]


def test_prompt_logprobs_from_start_with_text(twin):
    m = gen(twin, logprob_start_len=0, return_text_in_logprobs=True).json()["meta_info"]
    inp = m["input_token_logprobs"]
    assert len(inp) == m["prompt_tokens"] == len(PROMPT_IDS)
    _entries_ok(inp, ids=PROMPT_IDS, with_text=True)
    assert inp[0][0] is None and all(e[0] is not None for e in inp[1:])
    assert "".join(e[2] for e in inp) == FRANCE
    _entries_ok(m["output_token_logprobs"], with_text=True)
    m2 = gen(twin, logprob_start_len=2).json()["meta_info"]
    tail = m2["input_token_logprobs"]
    assert [e[1] for e in tail] == PROMPT_IDS[2:] and tail[0][0] is None and tail[0][2] is None
    assert [e[0] for e in tail[1:]] == [e[0] for e in inp[3:]]  # the same prompt, the same numbers
    assert gen(twin, logprob_start_len=len(PROMPT_IDS)).json()["meta_info"]["input_token_logprobs"] == []


def test_top_logprobs(twin):
    m = gen(twin, logprob_start_len=1, top_logprobs_num=3).json()["meta_info"]
    keys = list(m)
    i = keys.index("output_token_logprobs_length")
    assert keys[i + 1:i + 3] == ["input_top_logprobs", "output_top_logprobs"]
    assert m["input_top_logprobs"][0] is None and len(m["input_top_logprobs"]) == len(PROMPT_IDS) - 1
    assert len(m["output_top_logprobs"]) == 4
    for own, top in zip(m["output_token_logprobs"], m["output_top_logprobs"]):
        _entries_ok(top)
        vals = [e[0] for e in top]
        assert len(top) == 3 and vals == sorted(vals, reverse=True) and own[0] <= vals[0]
        assert own[1] == top[0][1] and own[0] == vals[0]  # greedy: the chosen token is the top one
    for own, top in zip(m["input_token_logprobs"][1:], m["input_top_logprobs"][1:]):
        assert own[0] <= top[0][0]  # a prompt token need not be the top one, never above it
        assert own[1] not in [e[1] for e in top] or own[0] in [e[0] for e in top]


def test_token_ids_logprob(twin):
    r = gen(twin, tokens=3)
    first = r.json()["output_ids"][0]
    ids = [first, 30, 198]
    m = gen(twin, tokens=3, logprob_start_len=0, token_ids_logprob=ids, return_text_in_logprobs=True).json()
    meta = m["meta_info"]
    keys = list(meta)
    i = keys.index("output_token_logprobs_length")
    assert keys[i + 1:i + 3] == ["input_token_ids_logprobs", "output_token_ids_logprobs"]
    assert meta["input_token_ids_logprobs"][0] is None and len(meta["input_token_ids_logprobs"]) == len(PROMPT_IDS)
    for row in meta["input_token_ids_logprobs"][1:] + meta["output_token_ids_logprobs"]:
        assert [e[1] for e in row] == ids and all(e[0] < 0 for e in row)
        assert [e[2] for e in row] == [ENC.decode([t]) for t in ids]
    # the generated token's own logprob where it is asked for
    assert meta["output_token_ids_logprobs"][0][0][0] == meta["output_token_logprobs"][0][0]
    no_start = gen(twin, tokens=2, token_ids_logprob=[30]).json()["meta_info"]
    assert no_start["input_token_ids_logprobs"] == [] and no_start["input_token_logprobs"] == []
    assert len(no_start["output_token_ids_logprobs"]) == 2


def test_stream_carries_the_lists_so_far(twin):
    r = gen(twin, tokens=6, stream=True, logprob_start_len=1, top_logprobs_num=2, token_ids_logprob=[30])
    chunks = sse_json(r.text)
    assert len(chunks) >= 2
    final = chunks[-1]["meta_info"]
    for c in chunks:
        m = c["meta_info"]
        n = len(c["output_ids"])
        assert m["output_token_logprobs_length"] == n == len(m["output_top_logprobs"])
        assert m["output_token_logprobs"] == final["output_token_logprobs"][:n]
        assert m["output_token_ids_logprobs"] == final["output_token_ids_logprobs"][:n]
        assert m["input_token_logprobs"] == final["input_token_logprobs"]  # the whole prompt from the first
        assert m["input_top_logprobs"] == final["input_top_logprobs"]
    whole = gen(twin, tokens=6, logprob_start_len=1, top_logprobs_num=2, token_ids_logprob=[30]).json()
    assert whole["meta_info"]["output_token_logprobs"] == final["output_token_logprobs"]


def test_parallel_samples_share_the_prompt_lists(twin):
    outs = httpx.post(twin.url + "/generate", timeout=60, json={
        "text": FRANCE, "return_logprob": True, "logprob_start_len": 2, "top_logprobs_num": 1,
        "sampling_params": {"max_new_tokens": 3, "temperature": 0.8, "n": 2, "ignore_eos": True}}).json()
    assert isinstance(outs, list) and len(outs) == 2
    a, b = (o["meta_info"] for o in outs)
    assert a["input_token_logprobs"] == b["input_token_logprobs"] and len(a["input_token_logprobs"]) == 3
    for o in outs:
        _entries_ok(o["meta_info"]["output_token_logprobs"], ids=o["output_ids"])


def test_token_id_prompt(twin):
    ids = ENC.encode(" Rivers run to the sea")
    r = httpx.post(twin.url + "/generate", timeout=60, json={
        "input_ids": ids, "return_logprob": True, "logprob_start_len": 0, "return_text_in_logprobs": True,
        "sampling_params": {"max_new_tokens": 2}})
    inp = r.json()["meta_info"]["input_token_logprobs"]
    _entries_ok(inp, ids=ids, with_text=True)
    assert "".join(e[2] for e in inp) == " Rivers run to the sea"


def test_prefix_match_capped_at_logprob_start(twin):
    prompt = "A prompt that the prefix cache holds after its first request."
    plain = {"text": prompt, "sampling_params": {"max_new_tokens": 1}}
    httpx.post(twin.url + "/generate", json=plain, timeout=60)
    assert httpx.post(twin.url + "/generate", json=plain, timeout=60).json()["meta_info"]["cached_tokens"] > 3
    assert gen(twin, prompt, tokens=1, logprob_start_len=0).json()["meta_info"]["cached_tokens"] == 0
    assert gen(twin, prompt, tokens=1, logprob_start_len=3).json()["meta_info"]["cached_tokens"] == 3
    assert gen(twin, prompt, tokens=1).json()["meta_info"]["cached_tokens"] > 3  # -1: output only, uncapped
    # the capped request still caches its whole prompt for the next one
    fresh = "Another prompt, first seen by a request that asks for every prompt logprob."
    assert gen(twin, fresh, tokens=1, logprob_start_len=0).json()["meta_info"]["cached_tokens"] == 0
    again = httpx.post(twin.url + "/generate", json={"text": fresh, "sampling_params": {"max_new_tokens": 1}},
                       timeout=60).json()["meta_info"]
    assert again["cached_tokens"] == again["prompt_tokens"] - 1


def test_deterministic_and_the_same_numbers_as_completions(twin):
    a = gen(twin, tokens=4, logprob_start_len=0, top_logprobs_num=2).json()["meta_info"]
    b = gen(twin, tokens=4, logprob_start_len=0, top_logprobs_num=2).json()["meta_info"]
    assert a["input_token_logprobs"] == b["input_token_logprobs"]
    assert a["output_top_logprobs"] == b["output_top_logprobs"]
    c = httpx.post(twin.url + "/v1/completions", timeout=60, json={
        "model": "m", "prompt": FRANCE, "max_tokens": 4, "temperature": 0, "ignore_eos": True, "echo": True,
        "logprobs": 2}).json()["choices"][0]["logprobs"]
    assert c["token_logprobs"] == [e[0] for e in a["input_token_logprobs"] + a["output_token_logprobs"]]
    assert c["top_logprobs"][0] is None
    assert c["top_logprobs"][1:len(PROMPT_IDS)] == [{ENC.decode([e[1]]): e[0] for e in top}
                                                   for top in a["input_top_logprobs"][1:]]


@pytest.mark.parametrize("extra,message", [
    ({"logprob_start_len": 6}, "req.logprob_start_len=6 is higher than the number of input tokens "
                               "len(req.origin_input_ids)=5. Please use a smaller logprob_start_len."),
    ({"token_ids_logprob": [10**7]}, "token_ids_logprob contains out-of-vocabulary token id 10000000; valid range "
                                     "is [0, 163840)."),
    ({"logprob_start_len": -2}, "logprob_start_len=-2 is below -1"),
])
def test_refusals(twin, extra, message):
    r = gen(twin, **extra)
    assert r.status_code == 400 and r.json()["error"]["message"].startswith(message)
    s = gen(twin, stream=True, **extra)
    events = sse_json(s.text)
    assert s.status_code == 200 and len(events) == 1
    if "logprob_start_len" in extra and extra["logprob_start_len"] > 0:
        # the scheduler's abort, streamed as the real server streams it: one output of a one-token stand-in
        ev = events[0]
        m = ev["meta_info"]
        assert m["finish_reason"] == {"type": "abort", "message": message, "status_code": 400,
                                      "err_type": "BadRequestError"}
        assert m["prompt_tokens"] == m["completion_tokens"] == len(ev["output_ids"]) == 1
        assert [m[k] for k in LP_KEYS] == [[], [], 0] and m["cached_tokens"] == 0
    else:  # the tokenizer manager's refusal: an error event
        assert events[0]["error"]["message"].startswith(message)


def test_out_of_vocab_refused_without_return_logprob_too(twin):
    r = httpx.post(twin.url + "/generate", timeout=60, json={"text": "hi", "token_ids_logprob": [-1]})
    assert r.status_code == 400 and "out-of-vocabulary token id -1" in r.json()["error"]["message"]


@pytest.mark.parametrize("field,value,message", [
    ("return_logprob", "yes", 'invalid type: string "yes", expected a value or an array of values for BoolOrList'),
    ("logprob_start_len", "0", 'invalid type: string "0", expected a value or an array of values for Int64OrList'),
    ("top_logprobs_num", [1, "2"], 'invalid type: string "2", expected i64'),
    ("return_text_in_logprobs", 1, "invalid type: integer `1`, expected a boolean"),
])
def test_json_contract_of_the_logprob_fields(twin, field, value, message):
    r = httpx.post(twin.url + "/generate", timeout=60, json={"text": "hi", "return_logprob": True, field: value})
    assert r.status_code == 400 and r.json() == {"error": message}


def test_one_element_lists_of_a_single_request(twin):
    r = httpx.post(twin.url + "/generate", timeout=60, json={
        "text": FRANCE, "return_logprob": [True], "logprob_start_len": [0], "sampling_params": {"max_new_tokens": 2}})
    assert len(r.json()["meta_info"]["input_token_logprobs"]) == len(PROMPT_IDS)


# ------------------------------------------------------------------------------ /v1/completions echo + logprobs

def comp(twin, **kw) -> httpx.Response:
    return httpx.post(twin.url + "/v1/completions", timeout=60, json={
        "model": "m", "prompt": FRANCE, "max_tokens": 3, "temperature": 0, "ignore_eos": True, "echo": True, **kw})


def test_echo_logprobs_prompt_first(twin):
    ch = comp(twin, logprobs=2).json()["choices"][0]
    lp = ch["logprobs"]
    p = len(PROMPT_IDS)
    assert len(lp["tokens"]) == len(lp["token_logprobs"]) == len(lp["top_logprobs"]) == p + 3
    assert "".join(lp["tokens"]) == ch["text"]  # echoed prompt + output, token by token
    assert lp["tokens"][:p] == [ENC.decode([t]) for t in PROMPT_IDS]
    assert lp["token_logprobs"][0] is None and lp["top_logprobs"][0] is None
    assert all(isinstance(v, float) for v in lp["token_logprobs"][1:])
    assert all(isinstance(t, dict) and len(t) == 2 for t in lp["top_logprobs"][1:])
    assert lp["text_offset"] == [-1] * (p + 3)


def test_echo_logprobs_zero_gives_the_output_only(twin):
    lp = comp(twin, logprobs=0).json()["choices"][0]["logprobs"]
    assert len(lp["tokens"]) == 3 and lp["top_logprobs"] == [] and None not in lp["token_logprobs"]
    assert len(comp(twin, logprobs=1, echo=False).json()["choices"][0]["logprobs"]["tokens"]) == 3


def test_echo_logprobs_stream_first_chunk(twin):
    r = comp(twin, logprobs=1, stream=True, max_tokens=4)
    chunks = [c for c in sse_json(r.text) if c["choices"]]
    first = chunks[0]["choices"][0]["logprobs"]
    p = len(PROMPT_IDS)
    assert first["token_logprobs"][0] is None and first["top_logprobs"][0] is None
    assert "".join(first["tokens"]) == chunks[0]["choices"][0]["text"] and len(first["tokens"]) > p
    for c in chunks[1:]:
        assert None not in c["choices"][0]["logprobs"]["token_logprobs"]
    whole = comp(twin, logprobs=1, max_tokens=4).json()["choices"][0]["logprobs"]
    streamed = [v for c in chunks for v in c["choices"][0]["logprobs"]["token_logprobs"]]
    assert streamed == whole["token_logprobs"]


def test_echo_logprobs_batch_each_choice_its_prompt(twin):
    b = " Rivers run to the sea"
    r = comp(twin, prompt=[FRANCE, b], logprobs=1, n=2, max_tokens=2).json()
    toks = [c["logprobs"]["tokens"] for c in r["choices"]]
    assert [len(t) for t in toks] == [len(PROMPT_IDS) + 2] * 2 + [len(ENC.encode(b)) + 2] * 2
    assert "".join(toks[2][:len(ENC.encode(b))]) == b
    assert r["choices"][0]["logprobs"]["token_logprobs"][:5] == r["choices"][1]["logprobs"]["token_logprobs"][:5]


def test_chat_meta_info_with_logprobs(twin):
    body = {"model": "m", "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 3, "temperature": 0,
            "logprobs": True, "top_logprobs": 2, "return_meta_info": True}
    ch = httpx.post(twin.url + "/v1/chat/completions", json=body, timeout=60).json()["choices"][0]
    m = ch["meta_info"]
    assert m["input_token_logprobs"] == [] and m["output_token_logprobs_length"] == 3
    assert [e[0] for e in m["output_token_logprobs"]] == [c["logprob"] for c in ch["logprobs"]["content"]]
    assert [e[2] for e in m["output_token_logprobs"]] == [c["token"] for c in ch["logprobs"]["content"]]
    assert [len(t) for t in m["output_top_logprobs"]] == [2, 2, 2]
    body.pop("logprobs")
    plain = httpx.post(twin.url + "/v1/chat/completions", json=body, timeout=60).json()["choices"][0]["meta_info"]
    assert not [k for k in plain if "logprob" in k]


def test_more_than_twenty_top_logprobs(twin):
    m = gen(twin, tokens=2, logprob_start_len=3, top_logprobs_num=30).json()["meta_info"]
    for top in m["output_top_logprobs"] + m["input_top_logprobs"][1:]:
        vals, ids = [e[0] for e in top], [e[1] for e in top]
        assert len(top) == 30 and vals == sorted(vals, reverse=True) and len(set(ids)) == 30


def test_pydantic_layer_of_the_logprob_fields(twin):
    """GenerateReqInput's dataclass refuses what its lax mode cannot coerce, every field's errors in one message
    (sampling_params first, as declared), before the JSON contract sees the rest."""
    r = httpx.post(twin.url + "/generate", timeout=60, json={
        "text": "hi", "return_logprob": "abc", "top_logprobs_num": 1.5, "return_text_in_logprobs": None,
        "sampling_params": "x"})
    b = r.json()
    assert r.status_code == 400 and b["type"] == "Bad Request"
    head = b["message"].split("\n\n")[0].splitlines()
    assert head[0] == "7 validation errors:"
    assert [eval(line.strip())["loc"] for line in head[1:]] == [  # each line is pydantic's repr of a dict
        ("body", "sampling_params", "list[dict[str,any]]"), ("body", "sampling_params", "dict[str,any]"),
        ("body", "return_logprob", "list[bool]"), ("body", "return_logprob", "bool"),
        ("body", "top_logprobs_num", "list[int]"), ("body", "top_logprobs_num", "int"),
        ("body", "return_text_in_logprobs")]
    nested = httpx.post(twin.url + "/generate", timeout=60, json={"text": "hi", "token_ids_logprob": [[1]]})
    assert nested.json() == {"error": {"message": "token_ids_logprob must be a flat list of integers."}}
    lax = httpx.post(twin.url + "/generate", timeout=60, json={"text": "hi", "return_logprob": True,
                                                               "top_logprobs_num": 2.0})
    assert lax.json() == {"error": "invalid type: floating point `2.0`, expected a value or an array of values for "
                                   "Int64OrList"}


def _evictable(twin) -> float:
    text = httpx.get(twin.url + "/metrics", timeout=30).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("sglang:kv_evictable_tokens"))


def test_capped_match_still_caches_the_whole_prompt(twin_metrics):
    """A prompt first seen with logprob_start_len 0 leaves all its tokens in the (modelled) radix cache, as the
    plain request does: kv_evictable_tokens grows by its prompt tokens."""
    before = _evictable(twin_metrics)
    prompt = "Prompt tokens cached by a request that reads their logprobs from the first one on."
    m = gen(twin_metrics, prompt, tokens=1, logprob_start_len=0).json()["meta_info"]
    httpx.post(twin_metrics.url + "/generate", json={"text": "x", "sampling_params": {"max_new_tokens": 1}},
               timeout=60)  # one more engine step: the gauge is read after it
    assert _evictable(twin_metrics) - before >= m["prompt_tokens"]


def test_echo_logprobs_byte_fragments_as_latin1(twin):
    """`_lossless_token_text`: a token that is part of a character is its raw bytes as latin-1 in the legacy
    object (so the tokens concatenate back to the bytes); /generate's texts keep the display text (U+FFFD)."""
    prompt = "𝔘𝔫𝔦"  # each 4-byte character splits into 2-3 o200k tokens
    ids = ENC.encode(prompt)
    lp = comp(twin, prompt=prompt, logprobs=1, max_tokens=1).json()["choices"][0]["logprobs"]
    toks = lp["tokens"][:len(ids)]
    assert toks == [ENC.decode_single_token_bytes(t).decode("latin-1") for t in ids]
    assert b"".join(t.encode("latin-1") for t in toks).decode("utf-8") == prompt
    m = gen(twin, prompt, tokens=1, logprob_start_len=0, return_text_in_logprobs=True).json()["meta_info"]
    assert all("\ufffd" in e[2] for e in m["input_token_logprobs"])


def test_flat_raw_top_logprobs(twin):
    """return_flat_raw_top_logprobs: the input top rows after the leading nulls as flat arrays with their shape;
    _output_ the output's on the finished response; _b64 float32 / int32 little-endian in base64."""
    import base64
    import struct
    nested = gen(twin, tokens=2, logprob_start_len=2, top_logprobs_num=2).json()["meta_info"]
    m = gen(twin, tokens=2, logprob_start_len=2, top_logprobs_num=2, return_flat_raw_top_logprobs=True,
            return_flat_raw_output_top_logprobs=True).json()["meta_info"]
    keys = [k for k in m if "logprob" in k]
    assert keys == LP_KEYS + [f"{s}_top_logprobs_{f}" for s in ("input", "output")
                              for f in ("val_flat", "idx_flat", "shape", "null_prefix")]
    rows = nested["input_top_logprobs"]
    assert m["input_top_logprobs_null_prefix"] == 1 and m["input_top_logprobs_shape"] == [len(rows) - 1, 2]
    assert m["input_top_logprobs_val_flat"] == [e[0] for r in rows[1:] for e in r]
    assert m["input_top_logprobs_idx_flat"] == [e[1] for r in rows[1:] for e in r]
    assert m["output_top_logprobs_shape"] == [2, 2] and m["output_top_logprobs_null_prefix"] == 0
    b = gen(twin, tokens=2, logprob_start_len=2, top_logprobs_num=2, return_flat_raw_top_logprobs=True,
            return_flat_raw_top_logprobs_b64=True).json()["meta_info"]
    vals = struct.unpack("<4f", base64.b64decode(b["input_top_logprobs_val_flat_b64"]))
    assert [round(v, 4) for v in vals] == [round(v, 4) for v in m["input_top_logprobs_val_flat"]]
    assert list(struct.unpack("<4i", base64.b64decode(b["input_top_logprobs_idx_flat_b64"]))) == \
        m["input_top_logprobs_idx_flat"]
    assert b["input_top_logprobs_val_flat_b64_dtype"] == "float32" and "output_top_logprobs" in b
    none = gen(twin, tokens=1, top_logprobs_num=3, return_flat_raw_top_logprobs=True).json()["meta_info"]
    assert none["input_top_logprobs_shape"] == [0, 3] and none["input_top_logprobs_val_flat"] == []
    s = gen(twin, tokens=2, top_logprobs_num=2, return_flat_raw_output_top_logprobs=True, stream=True)
    assert sse_json(s.text)[0]["error"]["message"].startswith("return_flat_raw_output_top_logprobs is only set")
    r = gen(twin, tokens=2, top_logprobs_num=2, return_flat_raw_top_logprobs_b64=True)
    assert r.status_code == 400 and "requires return_flat_raw_top_logprobs" in r.json()["error"]["message"]
