"""The twin's end-of-sequence model: how long an answer runs when nothing but the model stops it.

A request that is not `ignore_eos` draws one natural length at submission: a log-normal number of completion
tokens (the EOS token included) with the median and log-sd of its traffic domain (console/sim/domain.py), from
the deployment file's `[lengths.<domain>]` sections, clipped to [min_tokens, max_tokens]. The draw is seeded like
the request's text (`--sim-seed` and the request index; greedy requests by their prompt), so a replay stops at the
same token. max_new_tokens and the context limit still cap it (finish "length"); when the natural length comes
first the request ends with the EOS token (finish "stop", matched = the EOS id), as a real model stops.
`--sim-lengths off` turns the model off (outputs run to max_new_tokens unless --sim-eos-rate draws an EOS).
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


def natural_length(specs: dict[str, LengthSpec], domain: str, key: str) -> int | None:
    """The natural completion length (EOS included) of the request seeded by `key`, None without a model for
    `domain` (then it runs to max_new_tokens)."""
    spec = specs.get(domain) or specs.get("chat")
    if spec is None:
        return None
    return spec.draw(random.Random(f"length:{key}"))
