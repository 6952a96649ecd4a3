"""Token log-probabilities on the twin: plausible, seeded numbers in SGLang's two response shapes.

The twin has no logits. Each output token gets a distribution drawn from a generator seeded by the request's text
seed and the token's position (the same --sim-seed gives the same numbers): the top token takes 35-97% of the mass
(50-99% under greedy sampling), each next rank 35-75% of what is left, so the top list is strictly decreasing and
sums below 1. The sampled token is the top one under greedy sampling; otherwise its rank is drawn from that
distribution (the rest of the mass: a token outside the top 20). Alternatives are common English tokens.

Shapes (entrypoints/openai/protocol.py, serving_chat.py, utils.py `to_openai_style_logprobs`):
- chat: `{"content": [{"token", "bytes", "logprob", "top_logprobs": [{"token", "bytes", "logprob"}, ...]}]}`,
  `top_logprobs` [] when the request asks for none;
- completions: `{"text_offset": [-1, ...], "token_logprobs": [...], "tokens": [...], "top_logprobs": [{token:
  logprob, ...}, ...]}` (text offsets are "not supported yet" in SGLang: -1).
"""

from __future__ import annotations

import math
import random
from typing import Any

from .engine import SimRequest

_ALTERNATIVES = (" the", ",", ".", " and", " to", " of", " a", " in", " is", " that", "\n", " it", " for", " I",
                 " with", " as", " on", " be", " this", " are", " not", " or", " an", " by", " we", " you", ":",
                 " can", " from", " at")
MAX_TOP = 20


def _seed_key(req: SimRequest, sim_seed: int) -> str:
    """The engine's text seed of the request (Engine.submit): greedy requests by prompt, others by arrival."""
    return f"greedy:{req.prompt_hash}" if req.temperature == 0 else f"req:{sim_seed}:{req.index}"


def token_distribution(key: str, pos: int, piece: str, greedy: bool, top_n: int) -> tuple[float, list[tuple[str,
                                                                                                           float]]]:
    """(logprob of the sampled `piece`, the top `top_n` (token, logprob) in decreasing order)."""
    rng = random.Random(f"logprob:{key}:{pos}")
    probs = [rng.uniform(0.5, 0.99) if greedy else rng.uniform(0.35, 0.97)]
    rest = 1.0 - probs[0]
    for _ in range(MAX_TOP - 1):
        p = min(probs[-1] * 0.999, rest * rng.uniform(0.35, 0.75))
        probs.append(p)
        rest -= p
    if greedy:
        rank = 0
    else:
        u, acc, rank = rng.random(), 0.0, MAX_TOP
        for i, p in enumerate(probs):
            acc += p
            if u < acc:
                rank = i
                break
    chosen = math.log(probs[rank]) if rank < MAX_TOP else math.log(max(rest, 1e-9) * rng.uniform(0.05, 0.5))
    alts = [a for a in _ALTERNATIVES if a != piece]
    rng.shuffle(alts)
    top: list[tuple[str, float]] = []
    for i in range(min(top_n, MAX_TOP)):
        tok = piece if i == rank else alts[i % len(alts)]
        top.append((tok, math.log(probs[i])))
    return chosen, top


#: the text of the end-of-sequence token in logprobs (Kimi-K2's chat end, as SmolLM2's: `<|im_end|>`)
EOS_TEXT = "<|im_end|>"


def _tokens(req: SimRequest, start: int, end: int) -> list[tuple[int, str]]:
    """(position, text) of the completion tokens in [start, end): EOS included, under its special-token text (SGLang
    returns a logprob for every output token, the stop token too)."""
    end = min(end, req.n_out)
    if req.words is None or end <= start:
        return []
    vis = req.visible_tokens
    req.words.ensure(min(end, vis))
    return [(i, req.words.pieces[i] if i < vis else EOS_TEXT) for i in range(start, end)]


def chat_logprobs(req: SimRequest, sim_seed: int, start: int, end: int, top_n: int) -> dict[str, Any]:
    """ChoiceLogprobs of completion tokens [start, end)."""
    key, greedy = _seed_key(req, sim_seed), req.temperature == 0
    content = []
    for pos, piece in _tokens(req, start, end):
        lp, top = token_distribution(key, pos, piece, greedy, top_n)
        content.append({"token": piece, "bytes": list(piece.encode("utf-8")), "logprob": lp,
                        "top_logprobs": [{"token": t, "bytes": list(t.encode("utf-8")), "logprob": v}
                                         for t, v in top]})
    return {"content": content}


def completion_logprobs(req: SimRequest, sim_seed: int, start: int, end: int, top_n: int) -> dict[str, Any]:
    """LogProbs (the legacy completions object) of completion tokens [start, end)."""
    key, greedy = _seed_key(req, sim_seed), req.temperature == 0
    out: dict[str, Any] = {"text_offset": [], "token_logprobs": [], "tokens": [], "top_logprobs": []}
    for pos, piece in _tokens(req, start, end):
        lp, top = token_distribution(key, pos, piece, greedy, top_n)
        out["text_offset"].append(-1)
        out["token_logprobs"].append(lp)
        out["tokens"].append(piece)
        if top_n > 0:  # logprobs: 0 asks for no alternatives: an empty list, not empty maps
            out["top_logprobs"].append({t: v for t, v in top})
    return out
