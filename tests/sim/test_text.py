"""The twin's output text (console/sim/content/text.py) re-tokenizes to the token counts the twin reports.

The o200k ratio is asserted here (the console counts with bpe-openai's o200k). The Llama-family ratio (SmolLM2's
HF tokenizer) needs transformers, which the console's environment does not have; it is measured by
`tests/sim/measure_text_hf.py` in the real-sglang environment (figures in docs/twin.md §7).
"""

from __future__ import annotations

import re

import bpe_openai
import pytest

from console.sim.content.text import CODE_WORDS, PROSE_WORDS, STARTERS, TextStream

ENC = bpe_openai.get_encoding("o200k_base")
DOMAINS = ("chat", "code", "math", "tool")


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("n", [200, 700, 3000])
def test_o200k_recount_within_ten_percent(domain, n):
    for seed in range(6):
        s = TextStream(f"req:{seed}:{n}", domain)
        text = s.text(0, n)
        ratio = len(ENC.encode_ordinary(text)) / n
        assert 0.9 <= ratio <= 1.1, (domain, n, seed, ratio)


def test_every_prefix_recounts_close():
    # a stream's text after k tokens (what a client holds mid-stream) also recounts to about k
    s = TextStream("req:3:1", "chat")
    for k in range(200, 2001, 150):
        assert abs(len(ENC.encode_ordinary(s.text(0, k))) - k) <= 0.05 * k


def test_word_lists_are_single_o200k_tokens():
    for w in PROSE_WORDS + CODE_WORDS:
        assert len(ENC.encode_ordinary(" " + w)) == 1, w
    for w in STARTERS:
        assert len(ENC.encode_ordinary(w)) == 1 and len(ENC.encode_ordinary(" " + w)) == 1, w


def test_ids_are_the_o200k_tokens_of_the_pieces():
    s = TextStream("req:0:5", "code")
    s.ensure(400)
    assert all(ENC.decode([i]) == p for i, p in zip(s.ids[:400], s.pieces[:400]))


def test_deterministic_per_seed():
    a, b, c = TextStream("req:1:2", "math"), TextStream("req:1:2", "math"), TextStream("req:1:3", "math")
    assert a.text(0, 500) == b.text(0, 500) != c.text(0, 500)


def test_domain_flavour():
    code = TextStream("req:0:9", "code").text(0, 600)
    assert "```python\n" in code and re.search(r"^    (return|if|for) ", code, re.MULTILINE)
    math = TextStream("req:0:9", "math").text(0, 600)
    assert re.search(r"\$[a-z] [+=]", math) and "\\frac{" in math
    tool = TextStream("req:0:9", "tool").text(0, 200)
    assert tool.startswith('{"name": "') and '"arguments": {' in tool
    chat = TextStream("req:0:9", "chat").text(0, 400)
    assert chat[0].isupper() and chat.count(".") >= 5 and "```" not in chat and "$" not in chat
