"""An arm: one speculative-decoding configuration of the served model, as one frozen value.

Parsed once from a profile (`Arm.from_drafter`, what the console asks for) and once from `/server_info` (`Arm.
from_server_info`, what the server resolved and runs), produced by flips, and read by every screen, report and
forecast. Its depth is in the family's own terms: draft steps for autoregressive drafters (EAGLE-3 proposes one
token per step), the block size for DFlash (a block of B verifies B − 1 drafted tokens after the anchor token).

Names: `slug()` says what the arm is (`eagle3-d6`, `dflash-b16-fp8kv`, `nospec`); two arms with the same
configuration have the same slug, whatever they were flipped from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

FAMILY_NAMES = {"none": "no speculation", "eagle3": "EAGLE-3", "eagle": "EAGLE", "dflash": "DFlash",
                "ngram": "n-gram", "standalone": "standalone draft"}
"""How each family reads on screen."""

ALGORITHMS = {"eagle3": "EAGLE3", "eagle": "EAGLE", "dflash": "DFLASH", "ngram": "NGRAM", "standalone": "STANDALONE"}
"""The family as SGLang's --speculative-algorithm spells it."""

BLOCK_FAMILIES = ("dflash",)
CHAIN_FAMILIES = ("eagle3", "eagle", "standalone")


@dataclass(frozen=True)
class Arm:
    family: str = "none"
    """none | eagle3 | eagle | dflash | ngram | standalone (lower case; unknown algorithms kept lower-cased)."""
    steps: int | None = None
    """Draft steps (autoregressive drafters); None where the family has none (DFlash, no speculation)."""
    topk: int | None = None
    draft_tokens: int | None = None
    """Tokens verified per step beside the bonus token's slot: for topk = 1 chains steps + 1, for a tree its width,
    for DFlash the block size."""
    draft_model: str | None = None
    kv_dtype: str = "auto"
    """KV-cache dtype as the profile or server names it ('auto' = the model's native dtype)."""
    adaptive: bool = False
    """--speculative-adaptive: the server adapts its draft steps at run time (steps is then the starting value)."""

    # --- what it is -----------------------------------------------------------------------------

    @property
    def speculative(self) -> bool:
        return self.family != "none"

    @property
    def is_block(self) -> bool:
        return self.family in BLOCK_FAMILIES

    @property
    def depth(self) -> int | None:
        """Depth as operators name it: steps for autoregressive drafters, block size for DFlash."""
        if not self.speculative:
            return None
        return self.draft_tokens if self.is_block else self.steps

    @property
    def verify_tokens(self) -> int:
        """Tokens verified per request per step: the draft tokens (1 without speculation)."""
        if not self.speculative:
            return 1
        if self.draft_tokens:
            return self.draft_tokens
        if self.steps and (self.topk or 1) == 1:
            return self.steps + 1
        return 1

    @property
    def draft_positions(self) -> int:
        """Draft positions a verify step can accept: DFlash block − 1, a chain's steps, a tree's steps (its depth)."""
        if not self.speculative:
            return 0
        if self.is_block:
            return max((self.draft_tokens or 1) - 1, 0)
        return self.steps or max(self.verify_tokens - 1, 0)

    @property
    def algorithm(self) -> str | None:
        return ALGORITHMS.get(self.family, self.family.upper()) if self.speculative else None

    # --- how it reads ---------------------------------------------------------------------------

    def kv_slug(self) -> str:
        if self.kv_dtype in ("auto", "bf16", "bfloat16", "", None):
            return ""
        return "fp8kv" if self.kv_dtype == "fp8_e4m3" else f"{self.kv_dtype.replace('_', '')}kv"

    def slug(self) -> str:
        """What the arm is, for names: 'eagle3-d6', 'eagle3-d6-k4-t16' (a tree), 'dflash-b16', 'nospec', each
        with '-fp8kv' (or the dtype) for a non-native KV cache and '-adaptive' when the server adapts steps."""
        if not self.speculative:
            core = "nospec"
        elif self.is_block:
            core = f"{self.family}-b{self.draft_tokens if self.draft_tokens else 'auto'}"
        elif self.family in CHAIN_FAMILIES:
            core = f"{self.family}-d{self.steps if self.steps is not None else 'auto'}"
            if self.topk not in (None, 1):
                core += f"-k{self.topk}-t{self.draft_tokens}"
        else:
            core = self.family + (f"-t{self.draft_tokens}" if self.draft_tokens else "")
        parts = [core] + ([self.kv_slug()] if self.kv_slug() else []) + (["adaptive"] if self.adaptive else [])
        return "-".join(parts)

    def short(self) -> str:
        """A few characters for tight places: 'EAGLE-3 d6', 'DFlash b16', 'no spec' (+ ' fp8 KV')."""
        if not self.speculative:
            s = "no spec"
        elif self.is_block:
            s = f"{FAMILY_NAMES[self.family]} b{self.draft_tokens or '?'}"
        else:
            s = f"{FAMILY_NAMES.get(self.family, self.family)} d{self.steps if self.steps is not None else '?'}"
            if self.topk not in (None, 1):
                s += f" k{self.topk}"
        kv = self.kv_slug()
        return s + (f" {kv[:-2]} KV" if kv else "") + (" adaptive" if self.adaptive else "")

    def compact(self) -> str:
        """One short line for narrow panels: 'EAGLE-3 d6 · topk 1 · 7 draft tok', 'DFlash b16 · 15 positions'."""
        if not self.speculative:
            return self.short()
        tail = (f"{self.draft_positions} positions" if self.is_block else
                f"topk {self.topk if self.topk is not None else '?'} · {self.verify_tokens} draft tok")
        return f"{self.short()} · {tail}"

    def label(self) -> str:
        """The whole configuration in words: 'EAGLE-3 depth 6 · topk 1 · 7 draft tokens', 'DFlash block 16
        (15 draft positions)', 'no speculation' (KV dtype appended when not native)."""
        if not self.speculative:
            s = "no speculation"
        elif self.is_block:
            s = f"{FAMILY_NAMES[self.family]} block {self.draft_tokens or '?'} ({self.draft_positions} draft positions)"
        else:
            s = (f"{FAMILY_NAMES.get(self.family, self.family)} depth {self.steps if self.steps is not None else '?'} "
                 f"· topk {self.topk if self.topk is not None else '?'} · {self.verify_tokens} draft tokens")
        kv = self.kv_slug()
        return s + (f" · KV {self.kv_dtype}" if kv else "") + (" · adaptive" if self.adaptive else "")

    def depth_word(self) -> str:
        """'block' for DFlash, 'depth' otherwise."""
        return "block" if self.is_block else "depth"

    # --- JSON -----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> Arm:
        d = d or {}
        fields = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in fields})

    # --- parsed once from each source -----------------------------------------------------------

    @classmethod
    def from_drafter(cls, family: str, *, model: str | None = None, steps: int | None = None,
                     topk: int | None = None, draft_tokens: int | None = None, kv_dtype: str = "auto",
                     adaptive: bool = False) -> Arm:
        """What a profile asks for (its drafter section and kv.dtype). A chain with topk 1 verifies steps + 1."""
        fam = (family or "none").lower()
        if fam == "none":
            return cls(kv_dtype=kv_dtype or "auto")
        if fam in BLOCK_FAMILIES:
            return cls(fam, None, None, draft_tokens, model, kv_dtype or "auto", adaptive)
        if fam in CHAIN_FAMILIES and steps is not None and (topk or 1) == 1 and draft_tokens is None:
            draft_tokens = steps + 1
        return cls(fam, steps, topk, draft_tokens, model, kv_dtype or "auto", adaptive)

    @classmethod
    def from_server_info(cls, d: dict[str, Any]) -> Arm:
        """What the server resolved (`/server_info` keys, as SGLang 0.5.23 names them)."""
        algo = d.get("speculative_algorithm")
        kv = d.get("kv_cache_dtype") or "auto"
        adaptive = bool(d.get("speculative_adaptive"))
        if not algo or str(algo).upper() == "NONE":
            return cls(kv_dtype=kv)
        fam = str(algo).lower()
        ndt = json_int(d.get("speculative_num_draft_tokens"))
        if fam in BLOCK_FAMILIES:
            ndt = json_int(d.get("speculative_dflash_block_size")) or ndt
            return cls(fam, None, None, ndt, d.get("speculative_draft_model_path"), kv, adaptive)
        return cls(fam, json_int(d.get("speculative_num_steps")), json_int(d.get("speculative_eagle_topk")), ndt,
                   d.get("speculative_draft_model_path"), kv, adaptive)


def json_int(v: Any) -> int | None:
    """A JSON value as an int when it is one (7 or 7.0), else None (booleans, strings, 7.5)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None
