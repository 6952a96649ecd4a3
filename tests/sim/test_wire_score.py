"""/v1/score on the twin, in SGLang 0.5.23's shapes and semantics (serving_score.py, protocol.py ScoringRequest /
ScoringResponse, tokenizer_manager_score_mixin.score_request): one row per item with one probability per label
token, rows summing to 1 with apply_softmax, plain probabilities (each in [0, 1], a row at most 1) without it,
score_request's refusals as 400 BadRequestError ErrorResponse bodies, "Token ID N is out of vocabulary (vocab
size: V)" against the served model's vocabulary."""

from __future__ import annotations

import math

import httpx
import pytest

from console.sim.config.deployment import load_deployment
from console.sim.entrypoints.score import score

from .twin_process import FAST, MODEL, start_twin, stop_twin

VOCAB = load_deployment().model.vocab_size  # the served model's (Kimi K2.6: 163,840)
RESPONSE_KEYS = ["scores", "pooled_hidden_states", "token_logprobs", "model", "usage", "object"]
ERROR_KEYS = ["object", "message", "type", "param", "code"]
QUERY, ITEMS, LABELS = "The capital of France is", [" Paris", " London", " Berlin"], [12366, 7148, 19846]


def s(**body):
    return score({"query": QUERY, "items": ITEMS, "label_token_ids": LABELS, **body}, vocab_size=VOCAB)


def test_softmax_rows_are_distributions_over_the_labels():
    r = s(apply_softmax=True)
    assert len(r["scores"]) == len(ITEMS)
    for row in r["scores"]:
        assert len(row) == len(LABELS) and all(isinstance(v, float) and 0 <= v <= 1 for v in row)
        assert math.isclose(sum(row), 1.0, abs_tol=1e-9)


def test_plain_scores_are_next_token_probabilities():
    r = s(return_token_logprobs=True)
    for row, lps in zip(r["scores"], r["token_logprobs"]):
        assert all(0 <= v <= 1 for v in row) and sum(row) <= 1.0 + 1e-12
        assert all(math.isclose(v, math.exp(lp)) for v, lp in zip(row, lps))  # exp(logprob) without softmax


def test_temperature_scales_the_softmax_of_the_same_logprobs():
    lps = s(return_token_logprobs=True, apply_softmax=True)["token_logprobs"][0]
    hot = s(apply_softmax=True, temperature=2.0)["scores"][0]
    w = [math.exp(x / 2.0) for x in lps]
    assert all(math.isclose(a, b / sum(w)) for a, b in zip(hot, w))


def test_deterministic_and_sequence_dependent():
    assert s(apply_softmax=True) == s(apply_softmax=True)
    assert s(apply_softmax=True)["scores"] != s(apply_softmax=True, item_first=True)["scores"]


def test_token_id_input_and_per_item_labels():
    r = score({"query": [791, 6864], "items": [[12366], [7148, 11]], "label_token_ids": [[5], [6, 7]],
               "apply_softmax": True}, vocab_size=VOCAB)
    assert [len(row) for row in r["scores"]] == [1, 2] and r["scores"][0] == [1.0]
    assert r["usage"]["prompt_tokens"] == 3 + 4 == r["usage"]["total_tokens"]  # query + item, per item


def test_response_shape():
    r = s()
    assert list(r) == RESPONSE_KEYS and r["object"] == "scoring" and r["model"] == "default"
    assert r["pooled_hidden_states"] is None and r["token_logprobs"] is None
    assert r["usage"]["completion_tokens"] == 0 and r["usage"]["prompt_tokens"] > 0
    assert s(items=[])["scores"] == []


@pytest.mark.parametrize("body, message", [
    ({"label_token_ids": [VOCAB]}, f"Token ID {VOCAB} is out of vocabulary (vocab size: {VOCAB})"),
    ({"label_token_ids": None}, "label_token_ids is required for generation (CausalLM) models."),
    ({"items": None}, "items must be provided"),
    ({"label_token_ids": []}, "label_token_ids must be a nonempty list"),
    ({"label_token_ids": [[1], [2]]}, "label_token_ids must have one list per item"),
    ({"label_token_ids": [1, 1]}, "label_token_ids must not contain duplicate tokens"),
    ({"label_token_ids": [-1]}, "label_token_ids must contain nonnegative integers"),
    ({"temperature": 0.5}, "temperature requires apply_softmax=True"),
    ({"query": [1, 2]}, "Invalid combination of query/items types for score_request."),
])
def test_refusals(body, message):
    with pytest.raises(ValueError) as e:
        s(**body)
    assert str(e.value) == message
    assert s(label_token_ids=[VOCAB - 1])["scores"]  # the last id of the vocabulary is a label



@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(MODEL + FAST + ["--mem-fraction-static", "0.96", "--api-key", "sk-1"], tmp_module)
    yield t
    stop_twin(t)


@pytest.mark.e2e
def test_route(twin):
    h = {"Authorization": "Bearer sk-1"}
    r = httpx.post(twin.url + "/v1/score", headers=h, timeout=30, json={
        "model": "m", "query": QUERY, "items": ITEMS, "label_token_ids": LABELS, "apply_softmax": True})
    assert r.status_code == 200
    b = r.json()
    assert list(b) == RESPONSE_KEYS and b["model"] == "m" and len(b["scores"]) == 3
    assert all(math.isclose(sum(row), 1.0, abs_tol=1e-6) for row in b["scores"])
    r = httpx.post(twin.url + "/v1/score", headers=h, timeout=30, json={
        "query": QUERY, "items": ITEMS, "label_token_ids": [999999], "apply_softmax": True})
    assert r.status_code == 400
    b = r.json()
    assert list(b) == ERROR_KEYS and b["type"] == "BadRequestError" and b["code"] == 400
    assert b["message"] == f"Token ID 999999 is out of vocabulary (vocab size: {VOCAB})"
    assert httpx.post(twin.url + "/v1/score", timeout=30, json={"items": ITEMS}).status_code == 401
