"""Draft acceptance: per-position conditional acceptance, and the verify outcome drawn from it.

For a drafter family and traffic domain, draft position i (1-based) is accepted -- given every earlier position
was -- with probability

    c_i = clamp(c1(context) + shift - slope * (i - 1) - horizon(context) * max(0, i - H), 0.02, 0.98)

- `c1(context)` interpolates linearly in log10(context) between `c1_short` at `context_short` tokens and
  `c1_long` at `context_long` tokens, held constant outside (acceptance rises with context: long prompts give the
  drafter more to copy);
- the horizon (a chain drafter's `horizon_short` H and `horizon_decay`, docs/twin.md §8): at very short context
  the drafter has only the question behind it, and past H positions it continues its own guesses: each
  conditional past H falls by `horizon_decay` per position at `context_min` tokens, the fall fading linearly in
  log10(context) to nothing at `context_short` (so the 1k and 10k cells keep their curves);
- `shift` = a per-prompt offset (N(0, prompt_acceptance_sd) from a hash of the prompt, so one prompt keeps its
  difficulty across runs) + `temperature_sensitivity * (temperature_ref - temperature)` + the KV cache's
  precision shift (`[kv_precision]`: an fp8 latent cache moves each domain's agreement between drafter and
  target, more the longer the context);
- EAGLE trees (topk > 1) raise each conditional to `1 - (1 - c_i) / sqrt(b)`, b the tree's breadth per depth:
  the verify width num_draft_tokens - 1 spread over the `steps` depths, b = clamp((ndt - 1) / steps, 1, topk); so
  steps (drafter passes, accepted depth) and num_draft_tokens (verify width, its cost) vary independently;
- random draft weights (`--speculative-draft-load-format dummy`) accept nothing: every conditional is the
  drafter's `dummy_acceptance` (0 by default), tau = 1, at unchanged step cost.

One verify step draws accepted drafts k as the accepted prefix: k = number of leading positions whose uniform
draw falls below c_i. So spec_correct_drafts_histogram, tau = 1 + mean(k) and the per-position curves
p_i = prod_{j<=i} c_j all come from the same draws.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..config.deployment import DrafterSpec, FittedAcceptance, KvPrecisionSpec

#: Re-derive a request's conditionals every this many tokens of context growth.
CONTEXT_REFRESH_TOKENS = 256


def _weight(drafter: DrafterSpec, context: float) -> float:
    """0 at or below the drafter's short context, 1 at or beyond its long context, linear in log10 between."""
    lo, hi = math.log10(drafter.context_short), math.log10(drafter.context_long)
    x = math.log10(max(context, 1.0))
    return 0.0 if x <= lo else 1.0 if x >= hi else (x - lo) / (hi - lo)


def horizon_fall(drafter: DrafterSpec, context: float) -> float:
    """The fall per position past the drafter's short-context horizon at `context` tokens: `horizon_decay` at or
    below `context_min`, linear in log10(context) to 0 at `context_short` (0 without a horizon)."""
    if drafter.horizon_short <= 0 or drafter.horizon_decay == 0.0 or context >= drafter.context_short:
        return 0.0
    lo, hi = math.log10(drafter.context_min), math.log10(drafter.context_short)
    x = math.log10(max(context, 1.0))
    fade = 1.0 if x <= lo else (hi - x) / (hi - lo)
    return drafter.horizon_decay * fade


def tree_breadth(topk: int, steps: int, num_draft_tokens: int) -> float:
    """Candidates per depth of an EAGLE tree: its draft nodes spread over the depths, at most topk."""
    if topk <= 1 or steps <= 0:
        return 1.0
    return max(1.0, min(float(topk), (num_draft_tokens - 1) / steps))


def conditionals(drafter: DrafterSpec, domain: str, context: float, k_max: int, *, shift: float = 0.0,
                 temperature: float | None = None, topk: int = 1, breadth: float | None = None,
                 dummy: bool = False, kv: KvPrecisionSpec | None = None, kv_dtype: str = "auto",
                 fitted: FittedAcceptance | None = None) -> list[float]:
    """Conditional acceptance c_1..c_k_max of each draft position (see the module docstring). `breadth`:
    candidates per depth of a tree (default: topk). `kv`, `kv_dtype`: the deployment's KV precision model and
    the target's KV cache dtype."""
    if dummy:
        return [drafter.dummy_acceptance] * k_max
    spec = drafter.acceptance[domain]
    b = float(topk) if breadth is None else breadth
    if fitted is not None:  # a fitted node's measured curve (`twin fit`): no modelled shape on top of it
        # measured at the cells' temperature: only a different temperature moves it
        dt = 0.0 if temperature is None else drafter.temperature_sensitivity * (fitted.temperature - temperature)
        out = [min(0.98, max(0.02, c + shift + dt)) for c in fitted.at(context, k_max)]
        return [1.0 - (1.0 - c) / math.sqrt(b) if b > 1 else c for c in out]
    else:
        base = spec.c1_short + _weight(drafter, context) * (spec.c1_long - spec.c1_short) + shift
        past, slope = horizon_fall(drafter, context), spec.slope
    if temperature is not None:
        base += drafter.temperature_sensitivity * (drafter.temperature_ref - temperature)
    if kv is not None:
        base += kv.shift(domain, context, kv_dtype)
    out = []
    for i in range(k_max):
        c = min(0.98, max(0.02, base - slope * i - past * max(0, i + 1 - drafter.horizon_short)))
        if b > 1:
            c = 1.0 - (1.0 - c) / math.sqrt(b)
        out.append(c)
    return out


def position_rates(conds: list[float]) -> list[float]:
    """Unconditional acceptance p_i = prod_{j<=i} c_j of positions 1..len(conds)."""
    out, p = [], 1.0
    for c in conds:
        p *= c
        out.append(p)
    return out


def expected_accept_length(conds: list[float]) -> float:
    """tau = 1 + sum_i p_i: expected tokens emitted per verify step (bonus token included)."""
    return 1.0 + sum(position_rates(conds))


def draw_accepted(rng: random.Random, conds: list[float]) -> int:
    """Accepted drafts of one verify step: the length of the accepted prefix."""
    k = 0
    rnd = rng.random
    for c in conds:
        if rnd() >= c:
            break
        k += 1
    return k


@dataclass
class AcceptanceState:
    """A request's acceptance model: cached conditionals, refreshed as its context grows."""

    drafter: DrafterSpec
    domain: str
    k_max: int
    shift: float
    temperature: float
    topk: int
    breadth: float | None = None
    dummy: bool = False
    kv: KvPrecisionSpec | None = None
    kv_dtype: str = "auto"
    collapse: float | None = None
    """The acceptance-collapse fault: every conditional × this factor (None: off)."""
    fitted: FittedAcceptance | None = None
    """A fitted node's curve for this domain (`--sim-node`), instead of the modelled one."""
    _context_at: float = -1e9
    conds: list[float] | None = None

    def at(self, context: int) -> list[float]:
        """Conditionals at the given context length (tokens)."""
        if self.conds is None or context - self._context_at >= CONTEXT_REFRESH_TOKENS:
            self.conds = conditionals(self.drafter, self.domain, context, self.k_max, shift=self.shift,
                                      temperature=self.temperature, topk=self.topk, breadth=self.breadth,
                                      dummy=self.dummy, kv=self.kv, kv_dtype=self.kv_dtype, fitted=self.fitted)
            if self.collapse is not None:
                self.conds = [c * self.collapse for c in self.conds]
            self._context_at = context
        return self.conds
