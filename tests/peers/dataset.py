"""A ShareGPT-format dataset for SGLang's bench_serving, built from one of the repo's pinned prompt sets.

bench_serving's `--dataset-name sharegpt --dataset-path FILE` reads `[{"conversations": [{"from": "human", "value":
PROMPT}, {"from": "gpt", "value": ANSWER}]}, ...]` and keeps the first two turns; with `--sharegpt-output-len N`
the answer is only tokenized, never sent. PROMPT is the set's system and user messages joined by a blank line
(bench_serving sends one user turn), so its token count is within a few tokens of the console's chat request.
The file is shipped (tests/peers/data/) and a test checks it is exactly what this builds from prompts/.
"""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


def prompt_text(messages: list[dict]) -> str:
    return "\n\n".join(m["content"] for m in messages if m["role"] in ("system", "user"))


def build(prompt_set: str) -> str:
    rows = [json.loads(x) for x in (REPO / "console" / "shipped" / "prompts" / f"{prompt_set}.jsonl").read_text().splitlines() if x.strip()]
    out = [{"id": r["id"], "conversations": [
        {"from": "human", "value": prompt_text(r["messages"])},
        {"from": "gpt", "value": "(not sent: --sharegpt-output-len fixes the output length)"}]}
        for r in rows if "messages" in r]
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def path(prompt_set: str) -> Path:
    return DATA / f"sharegpt-{prompt_set}.json"


if __name__ == "__main__":  # regenerate: .venv/bin/python -m tests.peers.dataset chat-short
    import sys
    for s in sys.argv[1:]:
        path(s).write_text(build(s))
