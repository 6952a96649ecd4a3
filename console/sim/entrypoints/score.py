"""/v1/score on the twin (SGLang 0.5.23 entrypoints/openai/serving_score.py, protocol.py ScoringRequest /
ScoringResponse, managers/tokenizer_manager_score_mixin.py `score_request`), pointwise CausalLM scoring only.

Each item is scored as the sequence query + item (item + query with `item_first`); its score row holds, for every
label token, the model's probability of that token coming next: exp(logprob), or with `apply_softmax` the softmax of
the label logprobs (divided by `temperature`), which sums to 1 per row. The twin has no model, so the label logprobs
are deterministic pseudo-values hashed from (seed, sequence, token id), each at most log(1 / number of labels), so
a row of plain probabilities never sums above 1. The refusals are score_request's ValueErrors, in its order, as
400 BadRequestError; a label id at or above the served model's vocabulary (the deployment's `vocab_size`) is
"Token ID N is out of vocabulary (vocab size: V)". The request is answered at once (no engine step is modelled);
usage counts the scored sequences' prompt tokens (o200k for text, the ids' count for token ids).
Not modelled: --enable-mis, score_extraction_token (setwise), embedding overrides, image_data,
return_pooled_hidden_states (refused as for a CausalLM).
"""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Any

from ..content.tokens import count_tokens
from .errors import Endpoint

SCORE = Endpoint("v1_score_request", 2050, "/v1/score")


def _is_int(x: Any) -> bool:
    return type(x) is int


def _label_logprob(seed: int, key: str, token: int, n_labels: int) -> float:
    h = hashlib.blake2b(f"{seed}|{key}|{token}".encode(), digest_size=8).digest()
    u = (struct.unpack("<Q", h)[0] >> 11) / float(1 << 53)  # [0, 1)
    return math.log(1.0 / n_labels) - 9.0 * u  # in (log(1/n) - 9, log(1/n)]


def _scores(logprobs: list[float], apply_softmax: bool, temperature: float) -> list[float]:
    """`_convert_logprobs_to_scores`."""
    if apply_softmax:
        m = max(logprobs)
        w = [math.exp((x - m) / temperature) for x in logprobs]
        d = sum(w)
        return [x / d for x in w]
    return [math.exp(x) for x in logprobs]


def score(body: Any, *, vocab_size: int, seed: int = 0) -> dict[str, Any]:
    """The ScoringResponse.model_dump() for `body`; ValueError with SGLang's message on a refusal."""
    if not isinstance(body, dict):
        raise ValueError("Invalid request body")
    query, items, labels = body.get("query"), body.get("items"), body.get("label_token_ids")
    apply_softmax = bool(body.get("apply_softmax", False))
    item_first = bool(body.get("item_first", False))
    temperature = body.get("temperature", 1.0)
    if temperature is None:
        temperature = 1.0
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError("temperature must be finite and greater than zero")
    temperature = float(temperature)
    want_lp = bool(body.get("return_token_logprobs", False))
    model = body.get("model") or "default"
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError("temperature must be finite and greater than zero")
    if temperature != 1.0 and not apply_softmax:
        raise ValueError("temperature requires apply_softmax=True")
    if labels is None:
        raise ValueError("label_token_ids is required for generation (CausalLM) models.")
    if items is None:
        raise ValueError("items must be provided")
    if not items:
        return _response([], [] if want_lp else None, model, 0)
    num_items = 1 if isinstance(items, str) else len(items)
    if not isinstance(labels, list) or not labels:
        raise ValueError("label_token_ids must be a nonempty list")
    if isinstance(labels[0], list):
        if len(labels) != num_items:
            raise ValueError("label_token_ids must have one list per item")
        per_item = labels
    else:
        per_item = [labels] * num_items
    for ls in per_item:
        if not isinstance(ls, list) or not ls:
            raise ValueError("each item must have a nonempty candidate list")
        if any(not _is_int(t) or t < 0 for t in ls):
            raise ValueError("label_token_ids must contain nonnegative integers")
        if len(set(ls)) != len(ls):
            raise ValueError("label_token_ids must not contain duplicate tokens")
        for t in ls:
            if t >= vocab_size:
                raise ValueError(f"Token ID {t} is out of vocabulary (vocab size: {vocab_size})")
    if body.get("score_extraction_token") is not None or body.get("query_embed_overrides") is not None \
            or body.get("item_embed_overrides") is not None:
        raise ValueError("the twin models pointwise /v1/score only (no setwise readout, no embedding overrides)")
    if body.get("return_pooled_hidden_states"):
        raise ValueError("return_pooled_hidden_states is not supported for CausalLM models. It requires a model "
                         "with a task-specific head (e.g. SequenceClassification or RewardModel).")
    if query is None:
        query = [] if isinstance(items, list) and isinstance(items[0], list) else ""
    # the sequences scored, as a key for the pseudo-logprobs and their prompt-token counts
    seqs: list[tuple[str, int]] = []
    if isinstance(query, str):
        item_list = [items] if isinstance(items, str) else items
        if not all(isinstance(it, str) for it in item_list):
            raise ValueError("Invalid combination of query/items types for score_request.")
        for it in item_list:
            text = f"{it}{query}" if item_first else f"{query}{it}"
            seqs.append(("t:" + text, count_tokens(text)))
    elif isinstance(query, list) and all(_is_int(t) for t in query) and isinstance(items, list) \
            and all(isinstance(it, list) and all(_is_int(t) for t in it) for it in items):
        for it in items:
            ids = list(it) + list(query) if item_first else list(query) + list(it)
            seqs.append(("i:" + ",".join(map(str, ids)), len(ids)))
    else:
        raise ValueError("Invalid combination of query/items types for score_request.")
    scores: list[list[float]] = []
    token_lps: list[list[float]] | None = [] if want_lp else None
    for (key, _), ls in zip(seqs, per_item, strict=True):
        lps = [_label_logprob(seed, key, t, len(ls)) for t in ls]
        scores.append(_scores(lps, apply_softmax, temperature))
        if token_lps is not None:
            token_lps.append(lps)
    return _response(scores, token_lps, model, sum(n for _, n in seqs))


def _response(scores: list[list[float]], token_lps: list[list[float]] | None, model: str,
              prompt_tokens: int) -> dict[str, Any]:
    return {"scores": scores, "pooled_hidden_states": None, "token_logprobs": token_lps, "model": model,
            "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens, "completion_tokens": 0,
                      "prompt_tokens_details": None, "reasoning_tokens": 0, "completion_tokens_details": None},
            "object": "scoring"}
