"""Parsing and validating the twin's generation requests (/v1/chat/completions, /generate) into engine requests, with
SGLang's error messages."""

from __future__ import annotations

import hashlib
import json
import uuid
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..content.domain import detect_domain
from ..content.tokens import _PIECE, chat_prompt_tokens, count_tokens, estimate_tokens, messages_text
from ..model.engine import SimRequest
from .errors import RequestError
from .validate import chat_sampling_params, check_chat, verify_sampling

if TYPE_CHECKING:
    from ..config.args import ServerConfig
    from ..config.deployment import Deployment

__all__ = ["RequestParsing"]


def _hash(*parts: str) -> int:
    h = hashlib.blake2b(digest_size=8)
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return int.from_bytes(h.digest(), "big")


def _has_image(messages: list[dict[str, Any]]) -> bool:
    return any(isinstance(m.get("content"), list) and any(
        isinstance(p, dict) and p.get("type") in ("image_url", "image", "input_image") for p in m["content"])
        for m in messages)


#: at most this many prefix keys per message's content; a text longer than _PIECEWISE_CHARS gets them at spaces
#: evenly spaced through it, tokens in proportion to characters (cheap: a 10k-token prompt costs ~1 ms)
_MAX_CONTENT_KEYS = 256
_PIECEWISE_CHARS = 2048


#: estimate_tokens of one pre-tokenizer piece, memoized (prose repeats its words; the estimate re-reads each piece
#: with the pre-tokenizer, ~2 µs, the bulk of a long message's keys)
_PIECE_EST: dict[str, int] = {}
_PIECE_EST_MAX = 200_000


def _piece_estimate(piece: str) -> int:
    n = _PIECE_EST.get(piece)
    if n is None:
        if len(_PIECE_EST) >= _PIECE_EST_MAX:
            _PIECE_EST.clear()
        n = _PIECE_EST[piece] = estimate_tokens(piece)
    return n


#: the namespace of /generate (and /v1/completions) text prompts' prefix keys
_TEXT_PREFIX = _hash("generate-text")


@lru_cache(maxsize=256)
def _content_keys(seed: int, content: str, start: int) -> tuple[tuple[int, int], ...]:
    """Keys for the prefixes of a message's text that end at a pre-tokenizer piece boundary (tokens.py's o200k-like
    pieces): a prompt that shares the start of a message with a cached one hits that much, not just whole messages.
    Token counts per piece are the estimate, scaled so the full content counts as count_tokens does. Cached: chat
    clients resend the same system prompt and history every turn. A long text's key is the blake2 digest of its
    text so far; a short one's, a chain of Python's tuple hash over its pieces so far (keys are only compared for
    equality within the process, by the radix cache's prefix match): a blake2 digest per piece cost ~0.3 ms of a
    request's wall time, which a time-scaled twin multiplies (docs/twin.md §7)."""
    exact = count_tokens(content)
    keys: list[tuple[int, int]] = []
    if len(content) > _PIECEWISE_CHARS:
        h = hashlib.blake2b(digest_size=8)
        h.update(str(seed).encode())
        n, prev = len(content), 0
        for k in range(1, _MAX_CONTENT_KEYS):
            pos = content.rfind(" ", prev + 1, k * n // _MAX_CONTENT_KEYS + 1)
            if pos <= prev:
                continue
            h.update(content[prev:pos].encode("utf-8", "surrogatepass"))
            prev = pos
            keys.append((int.from_bytes(h.copy().digest(), "big"), start + min(exact, round(exact * pos / n))))
        return tuple(keys)
    hv = hash(("content", seed))
    pieces = [mt.group(0) for mt in _PIECE.finditer(content)]
    if len(pieces) < 2:
        return ()
    est = [_piece_estimate(p) for p in pieces]
    total_est, cum = sum(est) or 1, 0
    for p, e in zip(pieces[:-1], est, strict=False):
        hv = hash((hv, p))
        cum += e
        keys.append((hv, start + min(exact, round(cum * exact / total_est))))
    return tuple(keys)


#: GenerateReqInput's per-request fields a batch may give one value each (`__getitem__`); the rest apply to all
_PER_PROMPT = ("return_logprob", "logprob_start_len", "top_logprobs_num", "return_hidden_states")


def split_generate_batch(body: dict[str, Any]) -> tuple[list[dict[str, Any]], int] | None:
    """A batched /generate (`text` a list, or `input_ids` a list of lists) as one single-prompt body per prompt
    and the samples per prompt (GenerateReqInput.normalize_batch_and_arguments); None for a single prompt.
    Raises RequestError with SGLang's message where it refuses the batch."""
    text, ids = body.get("text"), body.get("input_ids")
    sp = body.get("sampling_params")
    if isinstance(text, list):
        prompts, key = text, "text"
    elif isinstance(ids, list) and ids and isinstance(ids[0], list):
        prompts, key = ids, "input_ids"
    elif isinstance(sp, dict) and isinstance(sp.get("n"), int) and sp["n"] > 1 and (text or ids):
        # parallel sampling turns one prompt into a batch of one (_handle_parallel_sampling), its rules too
        prompts, key = [text if text is not None else ids], "text" if text is not None else "input_ids"
    else:
        return None
    size = len(prompts)
    sps = sp if isinstance(sp, list) else [sp or {}] * size
    n = sps[0].get("n", 1) if sps and isinstance(sps[0], dict) else 1
    if any((x.get("n", 1) if isinstance(x, dict) else 1) != n for x in sps):
        raise RequestError("The parallel_sample_num should be the same for all samples in sample params.")
    if len(sps) < size:  # SGLang indexes past the list's end (an IndexError); named here
        raise RequestError(f"sampling_params has {len(sps)} entries for a batch of {size} prompts: give one "
                           "object, or one per prompt.")
    rid = body.get("rid")
    if rid is None:
        rids = [uuid.uuid4().hex for _ in range(size)]
    elif isinstance(rid, str):
        rids = [f"{rid}_{i}" for i in range(size)]
    elif isinstance(rid, list):
        if len(rid) != size:
            raise RequestError("The specified rids length mismatch with the batch_size for batch processing.")
        if len(set(map(str, rid))) != len(rid):  # _validate_rid_uniqueness
            seen: dict[str, int] = {}
            for r in map(str, rid):
                seen[r] = seen.get(r, 0) + 1
            raise RequestError("Duplicate request IDs detected within the request: "
                               f"{[r for r, c in seen.items() if c > 1]}")
        rids = rid
    else:
        raise RequestError("The rid should be a string or a list of strings.")
    per: dict[str, list[Any]] = {}
    for name in _PER_PROMPT:
        v = body.get(name)
        if isinstance(v, list):
            if name == "return_hidden_states":
                if len(v) != size:
                    raise RequestError("The length of return_hidden_states should be equal to the batch size.")
            elif n > 1:
                raise RequestError(f"Cannot use list {name} with parallel_sample_num > 1")
            per[name] = v
    tids = body.get("token_ids_logprob")
    if isinstance(tids, list) and tids and isinstance(tids[0], list):
        if n > 1:
            raise RequestError("Cannot use list token_ids_logprob with parallel_sample_num > 1")
        per["token_ids_logprob"] = tids
    subs = []
    for i in range(size):
        sub = {k: v for k, v in body.items() if k not in ("text", "input_ids")}
        sub[key], sub["sampling_params"], sub["rid"] = prompts[i], sps[i], rids[i]
        for name, values in per.items():
            if i >= len(values):  # SGLang indexes past the list's end; named here
                raise RequestError(f"{name} has {len(values)} entries for a batch of {size} prompts: give one "
                                   "value, or one per prompt.")
            sub[name] = values[i]
        subs.append(sub)
    return subs, n


class RequestParsing:
    """SimServer's reading of a request body into a SimRequest (raises RequestError with SGLang's message)."""

    # set by SimServer.__init__ (this class is one of SimServer's parts)
    cfg: ServerConfig
    dep: Deployment

    if TYPE_CHECKING:  # IntrospectionRoutes'
        def _limits(self, prompt_tokens: int, max_new: int | None) -> int: ...

    def _domain(self, text: str, has_tools: bool) -> str:
        d = self.cfg.sim.domain
        return detect_domain(text, has_tools) if d == "auto" else d

    @staticmethod
    def _stops(value: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,) if value else ()
        if isinstance(value, list) and all(isinstance(s, str) for s in value):
            return tuple(s for s in value if s)
        raise RequestError("stop must be a string or a list of strings")

    def chat_request(self, body: Any) -> SimRequest:
        """A chat body (parsed JSON) validated as SGLang does (validate.py; WireRefusal / RequestError), then read
        into an engine request."""
        valid = check_chat(body, served_model=self.cfg.args["served_model_name"],
                           context_len=self.cfg.args.get("context_length"))
        messages = body["messages"]
        tools = body.get("tools") or body.get("functions")
        m = self.dep.model
        tool_tokens = chat_prompt_tokens([], tools, per_message=0, generation_prompt=0,
                                         per_tool=m.chat_tokens_per_tool, tokens_per_image=0)
        # Prefix-cache keys (hash, template tokens so far), as SGLang's radix cache matches token prefixes: per
        # message its role header, its text content piece by piece (_content_keys), the whole message; last the
        # whole prompt with the generation prompt, so a repeated prompt matches all of it (the engine keeps the
        # last token out of the hit: cached = prompt - 1, as 0.5.23 reports).
        keys: list[tuple[int, int]] = []
        h, toks = str(_hash("tools", json.dumps(tools, sort_keys=True))), tool_tokens
        for msg in messages:
            role = str(msg.get("role", ""))
            head = max(0, m.chat_tokens_per_message - 1) + count_tokens(role)
            if head:
                keys.append((_hash(h, "head", role), toks + head))
            content = msg.get("content")
            if isinstance(content, str) and content:
                keys.extend(_content_keys(_hash(h, "head", role), content, toks + head))
            h = str(_hash(h, json.dumps(msg, sort_keys=True, ensure_ascii=False)))
            toks += chat_prompt_tokens([msg], None, per_message=m.chat_tokens_per_message, generation_prompt=0,
                                       per_tool=0, tokens_per_image=m.image_tokens_per_image)
            keys.append((int(h), toks))
        prompt = toks + m.chat_tokens_generation_prompt
        keys.append((_hash(h, "generation_prompt"), prompt))
        last_user = next((x for x in reversed(messages) if x.get("role") == "user"), None)
        instruction = None
        if last_user is not None:
            instruction = chat_prompt_tokens([{"content": last_user.get("content")}], None, per_message=0,
                                             generation_prompt=0, per_tool=0, tokens_per_image=0)
        sampling = chat_sampling_params(valid)
        max_new = self._limits(prompt, sampling["max_new_tokens"])  # the tokenizer manager: lengths, then ranges
        verify_sampling(sampling)
        text = messages_text(messages)
        return SimRequest(
            rid=str(body.get("rid") or uuid.uuid4().hex), prompt_tokens=prompt, max_new_tokens=max_new,
            temperature=1.0 if valid.temperature is None else valid.temperature,
            ignore_eos=valid.ignore_eos, stop=self._stops(valid.stop),
            stop_token_ids=frozenset(valid.stop_token_ids or ()),
            domain=self._domain(text, bool(tools)), prompt_hash=_hash(json.dumps(messages, sort_keys=True),
                                                                        json.dumps(tools, sort_keys=True)),
            prefix_keys=keys, stream=valid.stream, has_image=_has_image(messages), instruction_tokens=instruction)

    def generate_request(self, body: dict[str, Any]) -> SimRequest:
        text, ids = body.get("text"), body.get("input_ids")
        if isinstance(text, list) or (isinstance(ids, list) and ids and isinstance(ids[0], list)):
            raise RequestError("a batched /generate reaches the engine one prompt at a time (split_generate_batch)")
        if text is None and ids is None:
            raise RequestError("Either text, input_ids or input_embeds should be provided.")
        sp = body.get("sampling_params") or {}
        if text is not None:
            prompt = max(1, count_tokens(str(text)))
            # the text's prefixes at piece boundaries, then the whole: a prompt sharing the start of a cached one
            # (a shared system prompt, bench_serving's generated-shared-prefix) hits that much, as the radix tree
            keys = [*_content_keys(_TEXT_PREFIX, str(text), 0), (_hash("text", str(text)), prompt)]
            phash, dom_text = _hash("text", str(text)), str(text)
        else:
            assert ids is not None  # text or input_ids, checked above
            prompt = len(ids)
            if prompt == 0:
                raise RequestError("input_ids is empty")
            keys, acc = [], ""
            for i in range(64, prompt + 1, 64):
                acc = str(_hash(acc, json.dumps(ids[i - 64:i])))
                keys.append((int(acc), i))
            phash, dom_text = _hash("ids", json.dumps(ids)), ""
        max_new = sp.get("max_new_tokens", 128)
        if max_new is not None and (not isinstance(max_new, int) or isinstance(max_new, bool)):
            raise RequestError(f"invalid type: max_new_tokens {max_new!r}, expected i64")
        max_new = self._limits(prompt, max_new)  # the tokenizer manager: lengths, then SamplingParams.verify
        verify_sampling(sp)
        temperature = sp.get("temperature")
        return SimRequest(
            rid=str(body.get("rid") or uuid.uuid4().hex), prompt_tokens=prompt, max_new_tokens=max_new,
            temperature=1.0 if temperature is None else float(temperature),
            ignore_eos=bool(sp.get("ignore_eos", False)), stop=self._stops(sp.get("stop")),
            stop_token_ids=frozenset(sp.get("stop_token_ids") or ()), domain=self._domain(dom_text, False),
            prompt_hash=phash, prefix_keys=keys, stream=bool(body.get("stream", False)))
