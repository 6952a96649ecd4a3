"""Measure how the twin's output text re-tokenizes with a Llama-family HF tokenizer (SmolLM2's) and with o200k.

Run with the console's python: `.venv/bin/python -m tests.sim.measure_text_hf`. It generates the text here (the
twin's exact pieces need bpe-openai) and counts it with transformers in the real-sglang environment
(`~/.cache/serving-console/real-sglang/env`, docs/real-sglang.md), which the console's environment does not have.
Prints min / mean / max of (re-counted tokens / tokens the twin reports) per domain and length; exit 1 if any
request of >= 200 tokens is off by more than 10%, 2 if the environment is missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import bpe_openai

from console.sim.content.text import TextStream
from tests.real_sglang.conftest import ENV_PY, MODEL

COUNT = """
import json, sys
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained(sys.argv[1])
print(json.dumps([len(tok.encode(t, add_special_tokens=False)) for t in json.load(sys.stdin)]))
"""


def main() -> int:
    if not ENV_PY.exists() or not (MODEL / "tokenizer.json").exists():
        print(f"no real-sglang environment at {ENV_PY.parent.parent} (see docs/real-sglang.md)")
        return 2
    enc = bpe_openai.get_encoding("o200k_base")
    cases = [(d, n, seed) for d in ("chat", "code", "math", "tool") for n in (200, 500, 2000) for seed in range(8)]
    t0 = time.perf_counter()
    texts = [TextStream(f"req:{seed}:{n}", d).text(0, n) for d, n, seed in cases]
    gen_s = time.perf_counter() - t0
    hf = json.loads(subprocess.run([str(ENV_PY), "-c", COUNT, str(MODEL)], input=json.dumps(texts), text=True,
                                   capture_output=True, check=True).stdout)
    worst = 0.0
    print(f"{'domain':6} {'tokens':>6}  {'o200k min/mean/max':>20}  {'SmolLM2 min/mean/max':>22}")
    for d in ("chat", "code", "math", "tool"):
        for n in (200, 500, 2000):
            idx = [i for i, c in enumerate(cases) if c[:2] == (d, n)]
            ro = [len(enc.encode_ordinary(texts[i])) / n for i in idx]
            rh = [hf[i] / n for i in idx]
            worst = max(worst, *(abs(r - 1) for r in ro + rh))
            print(f"{d:6} {n:6}  {min(ro):.3f} {sum(ro) / len(ro):.3f} {max(ro):.3f}        "
                  f"{min(rh):.3f} {sum(rh) / len(rh):.3f} {max(rh):.3f}")
    total = sum(n for _, n, _ in cases)
    print(f"worst deviation {worst:.1%}; text generation {total / gen_s:,.0f} tokens/s")
    return 0 if worst <= 0.10 else 1


if __name__ == "__main__":
    sys.exit(main())
