"""Scripted output: a request whose text is partly decided before it is decoded.

Constrained decoding (`regex`, `json_schema`, `response_format`), a tool call in Kimi-K2's wire format and a
reasoning block are text the twin knows up front: `ScriptedStream` holds it as token pieces in front of the
request's free text stream (whatever the engine made for it), with the stream's API (`ids`, `pieces`, `ensure`,
`text`). The engine reads two attributes: `eos_at` (the grammar ended: the token at that position is EOS) and
`free_from` (no EOS draw before it: a model does not stop in the middle of a JSON object or a tool call).

`match_stop_regex` is SGLang's `stop_regex` check (managers/schedule_batch.py `_check_str_based_finish`): the
decoded tail is searched after every new token and the request finishes at the token that completes the first
match, with the matched text kept (only stop strings are trimmed) and `matched` = the pattern.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

#: pre-tokenizer for scripted text: words with their leading space, digit groups, punctuation runs, whitespace
_PIECES = re.compile(r" ?[A-Za-z]+| ?\d{1,3}| ?[^\sA-Za-z\d]{1,2}|\s+")
#: token ids of scripted pieces: a range above the twin's word ids, stable per piece
_SCRIPT_ID_BASE = 120_000
_SCRIPT_ID_SPAN = 40_000
#: how far back (characters) a stop regex looks at text already decoded (SGLang bounds it by the pattern's length)
STOP_REGEX_TAIL = 256


@lru_cache(maxsize=256)
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def match_stop_regex(patterns: Iterable[str], pieces: list[str], start: int, end: int) -> tuple[int, str] | None:
    """The first token in [start, end) after which a pattern matches the decoded tail: (tokens up to and including
    it, the pattern), or None."""
    tail_from, chars = start, 0
    while tail_from > 0 and chars < STOP_REGEX_TAIL:
        tail_from -= 1
        chars += len(pieces[tail_from])
    text = "".join(pieces[tail_from:start])
    pats = [(p, compiled(p)) for p in patterns]
    for i in range(start, end):
        text += pieces[i]
        for p, rx in pats:
            if rx.search(text):
                return i + 1, p
    return None


def split_pieces(text: str) -> list[str]:
    """Scripted text as token pieces (about one o200k token each for prose and JSON)."""
    out = [m.group(0) for m in _PIECES.finditer(text)]
    assert "".join(out) == text, "the scripted pre-tokenizer must cover its text"
    return out


def piece_id(piece: str) -> int:
    return _SCRIPT_ID_BASE + zlib.crc32(piece.encode("utf-8")) % _SCRIPT_ID_SPAN


class Segment:
    """A run of scripted tokens: `pieces` (text) and their ids; `special` pieces are single tokens as they are."""

    def __init__(self, pieces: list[str], ids: list[int] | None = None) -> None:
        self.pieces = pieces
        self.ids = ids if ids is not None else [piece_id(p) for p in pieces]

    @classmethod
    def text(cls, text: str) -> Segment:
        return cls(split_pieces(text)) if text else cls([])

    @classmethod
    def special(cls, token: str, token_id: int) -> Segment:
        return cls([token], [token_id])


class ScriptedStream:
    """Scripted segments, then either EOS (`end=True`: the grammar is complete) or the free stream's text.

    `reasoning_tokens`: tokens of a leading reasoning block up to and including its end marker (SGLang's
    `reasoning_tokens`), 0 without one."""

    def __init__(self, segments: list[Segment], free: Any, *, end: bool, reasoning_tokens: int = 0,
                 free_offset: int = 0) -> None:
        self._free = free
        self._free_used = free_offset  #: free tokens a segment already took (a reasoning block's words)
        self.ids: list[int] = [i for s in segments for i in s.ids]
        self.pieces: list[str] = [p for s in segments for p in s.pieces]
        self.scripted = len(self.ids)
        self.eos_at: int | None = self.scripted if end else None
        self.free_from = self.scripted
        self.reasoning_tokens = reasoning_tokens

    def ensure(self, n: int) -> None:
        """Tokens until at least `n` exist (past a scripted end too: the engine asks for a step's worth)."""
        need = n - len(self.ids)
        if need <= 0:
            return
        self._free.ensure(self._free_used + need)
        self.ids.extend(self._free.ids[self._free_used:self._free_used + need])
        self.pieces.extend(self._free.pieces[self._free_used:self._free_used + need])
        self._free_used += need

    def text(self, start: int, end: int) -> str:
        self.ensure(end)
        return "".join(self.pieces[start:end])

    def reasoning_at(self, n: int) -> int:
        """Reasoning tokens among the first `n` completion tokens."""
        return min(n, self.reasoning_tokens)
