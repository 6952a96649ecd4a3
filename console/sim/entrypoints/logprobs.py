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

import base64
import dataclasses
import math
import random
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..model.engine import SimRequest
from .errors import SchedulerAbort

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
    ids = req.output_ids(end)
    for pos, piece in _tokens(req, start, end):
        lp, top = token_distribution(key, pos, piece, greedy, top_n)
        out["text_offset"].append(-1)
        out["token_logprobs"].append(lp)
        out["tokens"].append(lossless(ids[pos], piece) if pos < len(ids) else piece)
        if top_n > 0:  # logprobs: 0 asks for no alternatives: an empty list, not empty maps
            own = out["tokens"][-1]
            out["top_logprobs"].append({own if t == piece else t: v for t, v in top})
    return out


# ----------------------------------------------------------------------------- /generate's return_logprob

#: a token outside the 20 the twin ranks (a token_ids_logprob id that is none of them) sits this far below the 20th
_FAR_BELOW = (0.5, 9.0)
#: ids the ranks beyond the 20 alternatives come from (ordinary o200k text tokens)
_MORE_IDS = 100_000


@lru_cache(maxsize=1)
def _alt_ids() -> dict[str, int]:
    """The alternatives' token ids in the vocabulary the twin emits output ids with (text._splitter)."""
    from ..content.text import _splitter
    split = _splitter()
    return {a: split(a)[0][0] for a in _ALTERNATIVES}


def _id_text(tid: int) -> str:
    """The text of one token id, as `tokenizer.batch_decode([[id]])` gives it (special tokens kept)."""
    raw = _token_bytes(tid)
    return "" if raw is None else raw.decode("utf-8", "replace")


def _token_bytes(tid: int) -> bytes | None:
    from ..content.tokens import _o200k
    enc = _o200k()
    if enc is None:
        return None
    try:
        return enc.decode_single_token_bytes(tid)
    except Exception:  # an id the vocabulary has no bytes for
        return None


def lossless(tid: int, text: str) -> str:
    """The legacy completions object's text of a token (`_lossless_token_text`): a byte fragment of a character,
    whose display text has U+FFFD, as latin-1 of its raw bytes (one character a byte, so it round-trips)."""
    if "\ufffd" not in text:
        return text
    raw = _token_bytes(tid)
    if raw is None:
        return text
    try:
        raw.decode("utf-8")
        return text  # a real U+FFFD in the text
    except UnicodeDecodeError:
        return raw.decode("latin-1")


@dataclass(eq=False)
class LogprobAsk:
    """What a /generate request asked with `return_logprob: true` (GenerateReqInput's logprob fields, resolved
    as the scheduler resolves them): `start` is the first prompt position with an input logprob (`None`: no input
    logprobs, which is what logprob_start_len -1 means), `top_n` top_logprobs_num, `token_ids` token_ids_logprob,
    `text` return_text_in_logprobs. The prompt (text or ids) gives the input tokens; the entries computed so far are
    kept, a stream's every chunk carries the lists so far."""

    start: int | None
    top_n: int
    token_ids: list[int] | None
    text: bool
    prompt_text: str | None
    prompt_ids: list[int] | None
    aborted: bool = False  #: the scheduler aborted the request on arrival: every list stays empty
    #: return_flat_raw_top_logprobs / _output_top_logprobs / _b64: the top lists as flat arrays plus their shape
    flat_input: bool = False
    flat_output: bool = False
    flat_b64: bool = False
    _inputs: dict[str, list[Any]] | None = None
    _outputs: dict[str, list[Any]] = field(default_factory=lambda: {"token": [], "top": [], "ids": []})

    def copy(self) -> LogprobAsk:
        """The ask for another sample of the same prompt (its own outputs, the same inputs)."""
        return dataclasses.replace(self, _outputs={"token": [], "top": [], "ids": []})


def asked_logprobs(req: Any) -> LogprobAsk | None:
    return getattr(req, "logprob_ask", None)


def _prompt_ids(text: str) -> list[tuple[int, str]]:
    """A text prompt's o200k tokens as `count_tokens` counts them, in the same chunks for long texts; special-token
    text is one special token, as a served tokenizer reads it (count_tokens then falls back to its estimate:
    prompt_pieces cuts or pads to the count reported). Without the vocabulary: text._splitter's pieces."""
    from ..content.tokens import _CHUNK_CHARS, _chunks, _o200k
    enc = _o200k()
    if enc is None:
        from ..content.text import _splitter
        return _splitter()(text)
    ids: list[int] = []
    s, n = 0, len(text)
    try:
        while s < n:
            piece = text[s:s + _CHUNK_CHARS] if n - s <= _CHUNK_CHARS else next(iter(_chunks(text, (s,))))
            ids.extend(enc.encode(piece, allowed_special="all"))
            s += len(piece)
    except Exception:  # the encoder's own limits: the plain pieces
        from ..content.text import _splitter
        return _splitter()(text)
    return [(t, _id_text(t)) for t in ids]


def prompt_pieces(ask: LogprobAsk, n_prompt: int) -> list[tuple[int, str]]:
    """(id, text) of the request's `n_prompt` prompt tokens: a text prompt encoded with the twin's vocabulary (the
    count it reports as prompt_tokens), token-id prompts decoded one id at a time."""
    if ask.prompt_ids is not None:
        return [(t, _id_text(t)) for t in ask.prompt_ids[:n_prompt]]
    pieces = _prompt_ids(ask.prompt_text or "")[:n_prompt]
    while len(pieces) < n_prompt:  # "" still counts one token, and a sampled count of a huge text may run over
        a = _ALTERNATIVES[len(pieces) % len(_ALTERNATIVES)]
        pieces.append((_alt_ids()[a], a))
    return pieces


def _entry(lp: float | None, tid: int, text: str, with_text: bool) -> list[Any]:
    return [lp, tid, text if with_text else None]


def _position(key: str, pos: int, tid: int, piece: str, greedy: bool, ask: LogprobAsk) -> tuple[list[Any],
                                                                                                list[Any], list[Any]]:
    """(token entry, top entries, token_ids entries) of one position."""
    lp, top = token_distribution(key, pos, piece, greedy, MAX_TOP)
    ids = _alt_ids()
    ranked = [(v, tid if t == piece else ids.get(t, 0), t) for t, v in top]
    return _entries(key, pos, lp, tid, piece, ranked, ask)


def _entries(key: str, pos: int, lp: float, tid: int, piece: str, ranked: list[tuple[float, int, str]],
             ask: LogprobAsk) -> tuple[list[Any], list[Any], list[Any]]:
    """The entries of one position from its ranked (logprob, id, text) list: top_logprobs_num beyond it continues
    with seeded ranks of other vocabulary ids, each below the one before."""
    if ask.top_n > len(ranked):
        rng = random.Random(f"logprob-more:{key}:{pos}")
        used = {i for _, i, _ in ranked} | {tid}
        v = ranked[-1][0] if ranked else lp
        while len(ranked) < ask.top_n:
            t = rng.randrange(256, _MORE_IDS)
            if t in used:
                continue
            used.add(t)
            v -= rng.uniform(0.01, 0.4)
            ranked.append((v, t, _id_text(t)))
    token = _entry(lp, tid, piece, ask.text)
    tops = [_entry(v, i, t, ask.text) for v, i, t in ranked[:ask.top_n]]
    chosen: list[Any] = []
    if ask.token_ids is not None:
        by_id = {i: v for v, i, _ in ranked}
        by_id[tid] = lp
        floor = ranked[-1][0]
        for want in ask.token_ids:
            want_lp = by_id.get(want)
            if want_lp is None:
                want_lp = floor - random.Random(f"logprob-id:{key}:{pos}:{want}").uniform(*_FAR_BELOW)
            chosen.append(_entry(want_lp, want, piece if want == tid else _id_text(want), ask.text))
    return token, tops, chosen


def _prompt_position(key: str, pos: int, tid: int, piece: str, ask: LogprobAsk) -> tuple[list[Any], list[Any],
                                                                                          list[Any]]:
    """One prompt position: the distribution of token_distribution, flatter (the top token holds 20-90%: a prompt
    is not the model's own text) and drawn only as far as the entries need it (prompts are long; an eval harness
    sends thousands with echo + logprobs). The prompt token's rank is drawn from it (beyond the 20: the rest)."""
    rng = random.Random(f"prompt-lp:{key}:{pos}")
    p, rest, u, acc = rng.uniform(0.2, 0.9), 1.0, rng.random(), 0.0
    probs: list[float] = []
    rank = MAX_TOP
    need = min(max(ask.top_n, 1 if ask.token_ids is None else MAX_TOP), MAX_TOP)
    while len(probs) < MAX_TOP and (rank == MAX_TOP or len(probs) < need):
        probs.append(p)
        rest -= p
        acc += p
        if rank == MAX_TOP and u < acc:
            rank = len(probs) - 1
        p = min(p * 0.999, rest * rng.uniform(0.35, 0.75))
    lp = math.log(probs[rank]) if rank < MAX_TOP else math.log(max(rest, 1e-9) * rng.uniform(0.05, 0.5))
    ranked: list[tuple[float, int, str]] = []
    if ask.top_n > 0 or ask.token_ids is not None:
        ids = _alt_ids()
        alts = [a for a in _ALTERNATIVES if a != piece]
        picks = rng.sample(alts, min(len(probs), len(alts)))
        for i, v in enumerate(probs):
            t = piece if i == rank else picks[i]
            ranked.append((math.log(v), tid if i == rank else ids.get(t, 0), t))
    return _entries(key, pos, lp, tid, piece, ranked, ask)


def _input_entries(req: SimRequest, ask: LogprobAsk) -> dict[str, list[Any]]:
    """The prompt's entries from `ask.start` on: the first of them has no logprob (null, and null top / token_ids
    lists): nothing precedes it in what the forward computed. Prompt logprobs depend on the prompt alone."""
    if ask._inputs is None:
        out: dict[str, list[Any]] = {"token": [], "top": [], "ids": []}
        if ask.start is not None and ask.start < req.prompt_tokens:
            key = f"prompt:{req.prompt_hash}"
            pieces = prompt_pieces(ask, req.prompt_tokens)
            for pos in range(ask.start, req.prompt_tokens):
                tid, piece = pieces[pos]
                if pos == ask.start:
                    out["token"].append(_entry(None, tid, piece, ask.text))
                    out["top"].append(None)
                    out["ids"].append(None)
                    continue
                token, tops, chosen = _prompt_position(key, pos, tid, piece, ask)
                out["token"].append(token)
                out["top"].append(tops)
                out["ids"].append(chosen)
        ask._inputs = out
    return ask._inputs


def _output_entries(req: SimRequest, ask: LogprobAsk, sim_seed: int, n: int) -> dict[str, list[Any]]:
    """The first `n` output tokens' entries (the values the OpenAI routes report for the same tokens)."""
    out = ask._outputs
    done = len(out["token"])
    if n > done:
        key, greedy = _seed_key(req, sim_seed), req.temperature == 0
        ids = req.output_ids(n)
        for (pos, piece), tid in zip(_tokens(req, done, n), ids[done:n], strict=False):
            token, tops, chosen = _position(key, pos, tid, piece, greedy, ask)
            out["token"].append(token)
            out["top"].append(tops)
            out["ids"].append(chosen)
    return {k: v[:n] for k, v in out.items()}


def _flat(side: str, rows: list[Any], k: int, b64: bool) -> dict[str, Any]:
    """`_build_flat_top_logprobs_fields`: the rows after the leading nulls as flat value and id arrays (float32 /
    int32 little-endian in base64 with `b64`), their [rows, k] shape and the number of leading nulls."""
    null_prefix = 0
    while null_prefix < len(rows) and not rows[null_prefix]:
        null_prefix += 1
    body = rows[null_prefix:]
    if body:
        k = len(body[0])
    vals = [e[0] for row in body for e in row]
    ids = [e[1] for row in body for e in row]
    out: dict[str, Any] = {}
    if b64:
        out[f"{side}_top_logprobs_val_flat_b64"] = base64.b64encode(struct.pack(f"<{len(vals)}f", *vals)).decode()
        out[f"{side}_top_logprobs_idx_flat_b64"] = base64.b64encode(struct.pack(f"<{len(ids)}i", *ids)).decode()
        out[f"{side}_top_logprobs_val_flat_b64_dtype"] = "float32"
        out[f"{side}_top_logprobs_idx_flat_b64_dtype"] = "int32"
    else:
        out[f"{side}_top_logprobs_val_flat"] = vals
        out[f"{side}_top_logprobs_idx_flat"] = ids
    out[f"{side}_top_logprobs_shape"] = [len(body), k]
    out[f"{side}_top_logprobs_null_prefix"] = null_prefix
    return out


def meta_logprobs(req: SimRequest, sim_seed: int, n: int, finished: bool = True) -> dict[str, Any]:
    """The meta_info keys of a `return_logprob` request after `n` output tokens, in add_logprob_to_meta_info's
    order: input/output token logprobs and the output count, the top lists when top_logprobs_num > 0, the
    token_ids lists when token_ids_logprob is given. Entries are `[logprob, token_id, text or null]`."""
    ask = asked_logprobs(req)
    if ask is None:
        return {}
    inp: dict[str, list[Any]]
    outp: dict[str, list[Any]]
    if ask.aborted:
        inp = outp = {"token": [], "top": [], "ids": []}
    else:
        inp, outp = _input_entries(req, ask), _output_entries(req, ask, sim_seed, n)
    m: dict[str, Any] = {"input_token_logprobs": inp["token"], "output_token_logprobs": outp["token"],
                         "output_token_logprobs_length": len(outp["token"])}
    if ask.top_n > 0:
        if ask.flat_input:
            m.update(_flat("input", inp["top"], ask.top_n, ask.flat_b64))
        else:
            m["input_top_logprobs"] = inp["top"]
        if ask.flat_output and finished:  # on the finished response only (a stream is refused)
            m.update(_flat("output", outp["top"], ask.top_n, ask.flat_b64))
        else:
            m["output_top_logprobs"] = outp["top"]
    if ask.token_ids is not None:
        m["input_token_ids_logprobs"] = inp["ids"]
        m["output_token_ids_logprobs"] = outp["ids"]
    return m


def with_logprobs(meta: dict[str, Any], req: SimRequest, sim_seed: int, n: int,
                  finished: bool = True) -> dict[str, Any]:
    """`meta` with the logprob keys where SGLang puts them: after the scheduler's timing keys, before
    `reasoning_tokens`."""
    lp = meta_logprobs(req, sim_seed, n, finished)
    if not lp:
        return meta
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if k == "reasoning_tokens":
            out.update(lp)
        out[k] = v
    return out


def prompt_completion_logprobs(req: SimRequest) -> dict[str, Any]:
    """The legacy LogProbs of the prompt tokens (completions' `echo` with `logprobs` > 0, which asks /generate for
    logprob_start_len 0): the first token's logprob and top map are null."""
    ask = asked_logprobs(req)
    out: dict[str, Any] = {"text_offset": [], "token_logprobs": [], "tokens": [], "top_logprobs": []}
    if ask is None:
        return out
    inp = _input_entries(req, ask)
    for token, top in zip(inp["token"], inp["top"], strict=True):
        out["text_offset"].append(-1)
        out["token_logprobs"].append(token[0])
        out["tokens"].append(lossless(token[1], token[2]))
        out["top_logprobs"].append(None if top is None else {lossless(i, t): v for v, i, t in top})
    return out


def stream_abort(req: Any, message: str, body: dict[str, Any]) -> Any:
    """`req` as the scheduler runs a request it aborted on arrival: a one-token stand-in prompt (prompt_tokens 1,
    nothing cached) forwarded once, its one output streamed with finish_reason `{type: abort, message,
    status_code: 400, err_type: BadRequestError}` and empty logprob lists (as the real 0.5.23 CPU server streams
    it)."""
    req.prompt_tokens, req.max_new_tokens, req.prefix_keys, req.ignore_eos = 1, 1, [], True
    req.scheduler_abort = {"type": "abort", "message": message, "status_code": 400, "err_type": "BadRequestError"}
    top = _single(body.get("top_logprobs_num"))
    ids = body.get("token_ids_logprob")
    req.logprob_ask = LogprobAsk(start=None, top_n=max(0, int(top or 0)), token_ids=list(ids) if ids else None,
                                 text=False, prompt_text=None, prompt_ids=None, aborted=True)
    return req


def _single(v: Any, name: str = "") -> Any:
    """A per-request field of a single /generate request given as a one-element list (BoolOrList, Int64OrList);
    a longer list on one prompt is refused (ValueError, 400) naming the field."""
    if isinstance(v, list):
        if len(v) == 1:
            return v[0]
        if name:
            raise ValueError(f"{name} has {len(v)} values for one prompt: give one value (a list only for a batch "
                             "of prompts, one value each)")
    return v


def generate_ask(body: dict[str, Any], prompt_tokens: int, vocab_size: int) -> LogprobAsk | None:
    """The logprob ask of a /generate body (None without `return_logprob`), refused as SGLang refuses it
    (ValueError, 400): a token_ids_logprob id outside the vocabulary (checked with or without return_logprob, as
    the tokenizer manager does), a logprob_start_len beyond the prompt (the scheduler's abort). Below -1 is refused
    too: SGLang 0.5.23's scheduler takes it and dies on an assertion (add_input_logprob_return_values)."""
    flat_in = bool(body.get("return_flat_raw_top_logprobs"))
    flat_out = bool(body.get("return_flat_raw_output_top_logprobs"))
    if flat_out and body.get("stream"):
        raise ValueError("return_flat_raw_output_top_logprobs is only set on the finished response and does not "
                         "support stream=True.")
    if body.get("return_flat_raw_top_logprobs_b64") and not (flat_in or flat_out):
        raise ValueError("return_flat_raw_top_logprobs_b64 requires return_flat_raw_top_logprobs or "
                         "return_flat_raw_output_top_logprobs.")
    ids = body.get("token_ids_logprob")
    if ids:
        if not isinstance(ids, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in ids):
            raise ValueError("token_ids_logprob must be a flat list of integers.")
        for t in ids:
            if t < 0 or t >= vocab_size:
                raise ValueError(f"token_ids_logprob contains out-of-vocabulary token id {t}; valid range is "
                                 f"[0, {vocab_size}).")
    if not _single(body.get("return_logprob"), "return_logprob"):
        return None
    start = _single(body.get("logprob_start_len"), "logprob_start_len")
    start = -1 if start is None else int(start)
    if start < -1:
        raise ValueError(f"logprob_start_len={start} is below -1: give a prompt position (0 for every prompt token) "
                         "or -1 for output logprobs only (SGLang 0.5.23's scheduler dies on a value below -1)")
    if start > prompt_tokens:
        raise SchedulerAbort(f"req.logprob_start_len={start} is higher than the number of input tokens "
                             f"len(req.origin_input_ids)={prompt_tokens}. Please use a smaller logprob_start_len.")
    top = _single(body.get("top_logprobs_num"), "top_logprobs_num")
    text, pids = body.get("text"), body.get("input_ids")
    return LogprobAsk(start=None if start == -1 else start, top_n=max(0, int(top or 0)),
                      token_ids=list(ids) if ids else None, text=bool(body.get("return_text_in_logprobs")),
                      prompt_text=str(text) if text is not None else None,
                      prompt_ids=list(pids) if isinstance(pids, list) else None, flat_input=flat_in,
                      flat_output=flat_out, flat_b64=bool(body.get("return_flat_raw_top_logprobs_b64")))


def attach(req: Any, ask: LogprobAsk) -> None:
    """Note `ask` on `req`, and cap its prefix-cache match at the first prompt position with a logprob, as SGLang's
    `init_next_round_input` does (`max_prefix_len = min(max_prefix_len, logprob_start_len)`): those logprobs need
    the forward of every later prompt token. The whole prompt is still cached for later requests: `uncap` puts the
    keys back once the match is done."""
    req.logprob_ask = ask
    if ask.start is not None and any(t > ask.start for _, t in req.prefix_keys):
        req.full_prefix_keys = list(req.prefix_keys)
        req.prefix_keys = [(h, min(t, ask.start)) for h, t in req.prefix_keys]


def uncap(req: Any, sink: Any) -> Any:
    """`sink` for a request whose match `attach` capped: its first output (the match was made when it was admitted)
    restores the prompt's own keys, which the engine inserts into the prefix cache when it finishes."""
    full = getattr(req, "full_prefix_keys", None)
    if full is None:
        return sink

    def push(out: Any) -> None:
        req.prefix_keys = full
        sink(out)
    return push
