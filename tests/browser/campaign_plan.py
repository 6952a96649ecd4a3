"""The campaign the browser test reports: no-spec and EAGLE-3 at depths 3 and 5 on one node, short tool prompts at
concurrency 1 and 4 — a routing table, a concurrency curve per arm (with its net-negative statement) and a depth
ladder with its forecast, in about a minute on the twin at ×8."""

from __future__ import annotations

from pathlib import Path

PLAN = '''name = "html-review"
description = "no-spec vs EAGLE-3 d3/d5 on short tool prompts at 1 and 4 streams (the HTML report's browser test)"

[protocol]
n = 6
n_per_stream = 1
max_tokens = 64
temperature = 0.6
warmup = 1

[[workload]]
context = "short"
domains = ["tool"]
concurrency = [1, 4]

[[arms]]
profile = "k26-nospec"

[[arms]]
flips_of = "k26-eagle3-d5"
family = ["eagle3"]
depth = [3, 5]
'''


def write_plan(root: Path) -> Path:
    p = Path(root) / "html-review.toml"
    p.write_text(PLAN)
    return p
