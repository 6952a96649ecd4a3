"""The twin's end-of-sequence model: how long an answer runs when nothing but the model stops it.

A request that is not `ignore_eos` draws one natural length at submission: a log-normal number of completion
tokens (the EOS token included) with the median and log-sd of its traffic domain (console/sim/content/domain.py), from
the deployment file's `[lengths.<domain>]` sections, clipped to [min_tokens, max_tokens]. The draw is seeded like
the request's text (`--sim-seed` and the request index; greedy requests by their prompt), so a replay stops at the
same token. max_new_tokens and the context limit still cap it (finish "length"); when the natural length comes
first the request ends with the EOS token (finish "stop", matched = the EOS id), as a real model stops.
`--sim-lengths off` turns the model off (outputs run to max_new_tokens unless --sim-eos-rate draws an EOS).

The length also follows the instruction: a chat request whose last user message is short (`instruction_tokens`
below SHORT_INSTRUCTION_TOKENS, e.g. "Count from 1 to 20.") gets a short answer, as a real instruct model gives
one (SGLang's test_ignore_eos: 0.5.23 stops after ~147 tokens there). Its median is scaled by
sqrt(instruction_tokens / SHORT_INSTRUCTION_TOKENS) and the draw is capped at SHORT_CAP_BASE +
SHORT_CAP_PER_TOKEN x instruction_tokens (8 tokens: at most 160). Requests without an instruction (/generate,
/v1/completions, the calibration's engine requests) keep the domain's distribution unchanged.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class LengthSpec:
    """One domain's natural output length: log-normal in tokens (EOS included)."""

    median_tokens: float
    log_sd: float
    min_tokens: int = 2
    max_tokens: int = 16384

    def draw(self, rng: random.Random) -> int:
        n = self.median_tokens * math.exp(rng.gauss(0.0, self.log_sd))
        return int(min(self.max_tokens, max(self.min_tokens, round(n))))

    def quantile(self, q: float) -> float:
        """The q-quantile before clipping (for the docs and tests)."""
        from statistics import NormalDist
        return self.median_tokens * math.exp(self.log_sd * NormalDist().inv_cdf(q))


#: a last user message shorter than this many tokens asks for a short answer (see the module docstring)
SHORT_INSTRUCTION_TOKENS = 64
SHORT_CAP_BASE = 32
SHORT_CAP_PER_TOKEN = 16


def natural_length(specs: dict[str, LengthSpec], domain: str, key: str,
                   instruction_tokens: int | None = None) -> int | None:
    """The natural completion length (EOS included) of the request seeded by `key`, None without a model for
    `domain` (then it runs to max_new_tokens). `instruction_tokens`: tokens of a chat request's last user
    message (None: no instruction, the domain's distribution as is)."""
    spec = specs.get(domain) or specs.get("chat")
    if spec is None:
        return None
    rng = random.Random(f"length:{key}")
    if instruction_tokens is None or instruction_tokens >= SHORT_INSTRUCTION_TOKENS:
        return spec.draw(rng)
    t = max(1, instruction_tokens)
    cap = min(spec.max_tokens, SHORT_CAP_BASE + SHORT_CAP_PER_TOKEN * t)
    short = LengthSpec(median_tokens=spec.median_tokens * math.sqrt(t / SHORT_INSTRUCTION_TOKENS),
                       log_sd=spec.log_sd, min_tokens=min(spec.min_tokens, cap), max_tokens=max(cap, spec.min_tokens))
    return short.draw(rng)
