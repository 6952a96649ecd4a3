"""What request validation and the token counter cost the twin (bench: prints figures; `-m bench`)."""

from __future__ import annotations

import json
import time

import pytest

from console.sim.content.tokens import count_tokens
from console.sim.entrypoints import errors as errs, validate as v

pytestmark = pytest.mark.bench


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def test_count_tokens_stays_bounded_on_huge_prompts(capsys):
    words = " ".join(f"w{i % 977}x" for i in range(200_000))  # ~1.2M characters of mixed pieces
    rows = []
    for chars in (100_000, 1_000_000, 2_000_000, 10_000_000, 100_000_000):
        text = (words * (chars // len(words) + 1))[:chars]
        secs = _best(lambda: count_tokens.__wrapped__(text), repeat=2)  # uncached
        rows.append((chars, count_tokens(text), secs))
    with capsys.disabled():
        print("\ncount_tokens (o200k, uncached): characters -> tokens, seconds")
        for chars, toks, secs in rows:
            print(f"  {chars:>11,} -> {toks:>11,}  {secs:6.3f} s")
    assert rows[-1][2] < 20 * rows[2][2] + 1.0  # sampled above 2M characters: not linear in the length


def test_chat_validation_cost_per_request(capsys):
    body = {"model": "m", "max_tokens": 2048, "temperature": 0.7, "stream": True,
            "messages": [{"role": "system", "content": "You are terse. " * 200},
                         {"role": "user", "content": "Explain the code below.\n" + "x = f(y) + 1\n" * 3000}]}
    raw = json.dumps(body).encode()

    def one() -> None:
        b = v.parse_body(raw, "application/json", errs.CHAT)
        req = v.check_chat(b, served_model="m", context_len=None)
        v.verify_sampling(v.chat_sampling_params(req))
    n = 200
    secs = _best(lambda: [one() for _ in range(n)]) / n
    with capsys.disabled():
        print(f"\nchat body of {len(raw) / 1000:.0f} KB: parse + schema + rules + sampling {secs * 1e3:.2f} ms")
    assert secs < 0.05
