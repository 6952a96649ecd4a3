"""Token counting of prompts and the twin's deterministic output text.

`count_tokens` is the o200k_base count (the `bpe-openai` wheel ships the vocabulary, so it works offline) — the
same count the pinned prompt sets are built to, so a set's 9,900–10,400 window holds on the twin as built. The
regex estimate below (`estimate_tokens`: o200k-like pre-tokenizer, cost per piece by length, within ~10% on
English prose and code) is the fallback when that package is unavailable. `chat_prompt_tokens` adds the
chat-template overhead of the served model (from the deployment).

The output side (deterministic, token-true text) is console/sim/content/text.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# o200k-like pre-tokenizer (Python `re` has no \p{..}; [^\W\d_] stands for a letter).
_PIECE = re.compile(
    r"""[^\r\n\w]?[^\W\d_]+(?:'[a-zA-Z]+)?"""   # words, optionally led by one space/punctuation char
    r"""|\d{1,3}"""                           # numbers in groups of up to three digits
    r"""| ?[^\s\w]+[\r\n]*"""                 # punctuation runs
    r"""|\s*[\r\n]+"""                        # newlines (with leading spaces)
    r"""|\s+(?!\S)|\s+""",                    # other whitespace
    re.UNICODE,
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _piece_tokens(piece: str) -> int:
    if piece[:1].isdigit():
        return 1
    core = piece.lstrip()
    if not core:
        return 1
    if core[0].isalpha() or (len(core) > 1 and core[1].isalpha()):
        cjk = len(_CJK.findall(core))
        if cjk:
            return cjk + (len(core) - cjk + 5) // 6
        # Common words up to ~8 letters are one token; longer ones split every ~6 letters.
        n = len(core)
        return 1 if n <= 8 else 1 + (n - 3) // 6
    # punctuation / symbols: about one token per two characters, newline runs collapse
    return max(1, (len(core.strip("\r\n")) + 1) // 2) if core.strip("\r\n") else 1


def estimate_tokens(text: str) -> int:
    """Vocabulary-free estimate of the o200k count (see the module docstring)."""
    if not text:
        return 0
    return sum(_piece_tokens(m.group(0)) for m in _PIECE.finditer(text))


@lru_cache(maxsize=1)
def _o200k():
    try:
        import bpe_openai
        return bpe_openai.get_encoding("o200k_base")
    except Exception:  # pragma: no cover - the package is a dependency; keep the twin usable without it
        return None


#: characters per encoder call: at most 4 tokens a character (UTF-8 bytes) keeps a chunk under the encoder's
#: 200k-token limit and its 1M-character guard, both of which raise
_CHUNK_CHARS = 50_000
#: above this many characters the count is a bounded estimate: _SAMPLE_CHUNKS evenly spaced chunks are encoded
#: and their tokens per character scaled to the whole text (a prompt that long is refused for its length anyway)
_EXACT_CHARS = 2_000_000
_SAMPLE_CHUNKS = 40


def _chunks(text: str, starts: Iterable[int]) -> Iterable[str]:
    """`text[s:s + _CHUNK_CHARS]` for each start, each end moved back to just before a space (a word's piece
    starts there in o200k's pre-tokenizer, so the split changes the count by nothing or almost nothing)."""
    n = len(text)
    for s in starts:
        e = min(n, s + _CHUNK_CHARS)
        if e < n:
            cut = text.rfind(" ", e - 1000, e)
            e = cut if cut > s else e
        yield text[s:e]


def _encode_len(enc: Any, text: str) -> int:
    if len(text) <= _CHUNK_CHARS:
        return len(enc.encode(text))
    total, s, n = 0, 0, len(text)
    while s < n:
        piece = next(iter(_chunks(text, (s,))))
        total += len(enc.encode(piece))
        s += len(piece)
    return total


@lru_cache(maxsize=512)
def count_tokens(text: str) -> int:
    """o200k_base token count of `text` (0 for the empty string); never raises. Exact up to _EXACT_CHARS
    characters (encoded in chunks), a sampled estimate above. Cached: chat clients resend the same long system
    prompt and history every turn."""
    if not text:
        return 0
    enc = _o200k()
    if enc is None:
        return estimate_tokens(text)
    try:
        if len(text) <= _EXACT_CHARS:
            return _encode_len(enc, text)
        step = (len(text) - _CHUNK_CHARS) // (_SAMPLE_CHUNKS - 1)
        sample = list(_chunks(text, range(0, step * _SAMPLE_CHUNKS, step)))
        chars = sum(len(c) for c in sample)
        return max(1, round(sum(len(enc.encode(c)) for c in sample) * len(text) / chars))
    except Exception:  # the encoder's own limits or a text it cannot take: the vocabulary-free estimate
        return estimate_tokens(text)


def _content_tokens(content: Any, tokens_per_image: int) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return count_tokens(content)
    total = 0
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict):
            kind = part.get("type")
            if kind == "text":
                total += count_tokens(str(part.get("text", "")))
            elif kind in ("image_url", "image", "input_image"):
                total += tokens_per_image
            else:
                total += count_tokens(json.dumps(part, ensure_ascii=False))
        else:
            total += count_tokens(str(part))
    return total


def chat_prompt_tokens(messages: Iterable[dict[str, Any]], tools: list[Any] | None, *, per_message: int,
                       generation_prompt: int, per_tool: int, tokens_per_image: int) -> int:
    """Prompt tokens of a chat request after the chat template: content tokens + `per_message` template tokens
    per message (+ tool-call JSON of assistant turns) + each tool's JSON schema and `per_tool` + the assistant
    header (`generation_prompt`)."""
    total = generation_prompt
    for m in messages:
        total += per_message + count_tokens(str(m.get("role", "")))
        total += _content_tokens(m.get("content"), tokens_per_image)
        if m.get("tool_calls"):
            total += count_tokens(json.dumps(m["tool_calls"], ensure_ascii=False))
        if m.get("reasoning_content"):
            total += count_tokens(str(m["reasoning_content"]))
    for t in tools or []:
        total += per_tool + count_tokens(json.dumps(t, ensure_ascii=False))
    return total


def messages_text(messages: Iterable[dict[str, Any]]) -> str:
    """All text of a chat request's messages, for domain detection and prompt hashing."""
    out: list[str] = []
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out.extend(str(p.get("text", "")) for p in c if isinstance(p, dict) and p.get("type") == "text")
        if m.get("tool_calls"):
            out.append(json.dumps(m["tool_calls"]))
    return "\n".join(out)


def decode_ids(ids: Iterable[int]) -> str:
    """Token ids back to text with the vocabulary `count_tokens` counts with (o200k_base), as SGLang's
    `tokenizer.decode(ids, skip_special_tokens=True)` does for an echoed token-id prompt: ids that are no text
    token (special or out of range) are skipped; bytes that are no whole UTF-8 character are replaced. "" without
    the vocabulary."""
    enc = _o200k()
    if enc is None:
        return ""
    out = bytearray()
    for t in ids:
        try:
            if enc.is_special_token(t):
                continue
            out += enc.decode_single_token_bytes(t)
        except Exception:  # not a token of the vocabulary: skipped
            continue
    return out.decode("utf-8", errors="replace")
