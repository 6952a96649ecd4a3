"""Adaptive speculative decoding (`--speculative-adaptive [--speculative-adaptive-config FILE]`), as SGLang 0.5.23
does it (`speculative/adaptive_spec_params.py`, `adaptive_runtime_state.py`, `eagle_worker_v2.py`), re-implemented:

- The config maps batch sizes to slots ({"1": {...}, "8": {...}, ...}; keys that are not integers are defaults
  shared by every slot). Each slot has `candidate_steps` and tuning knobs: ema_alpha (0.2), update_interval (5),
  warmup_batches (10), down_hysteresis (-0.25), up_hysteresis (0.0), ceiling_coeff (0).
- Before each verify round the worker activates the steps of the slot for the batch size: the batch size is padded
  up to the next captured CUDA-graph batch size, then the slot with the largest key <= that size is used.
- After each verify, the slot for the batch size updates an EMA of the mean accepted drafts per request (not
  updated while the slot runs 0 steps); after `warmup_batches` updates, every `update_interval` it recomputes its
  steps: it moves down while ema <= (prev - 0.5 + down_hysteresis) (0.5 + down_hysteresis when prev is 0), else up
  while ema > (cur - 0.5 + up_hysteresis); from 0 steps it always probes the next candidate.
- Steps 0 = drafting off (a 1-token verify through the verify graph; the draft extend still runs).
- Active num_draft_tokens = steps + 1 (topk 1 only). /metrics spec_num_steps / spec_num_draft_tokens and
  /server_info internal_states[0] speculative_num_steps / speculative_num_draft_tokens show the active values
  (the top-level /server_info fields keep the launch values).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import Any

from ..config.adaptive_config import load_config


class StepSlot:
    """One batch-size slot: an EMA of accepted drafts and the steps it currently runs."""

    def __init__(self, initial_steps: int, cfg: dict[str, Any]) -> None:
        self.candidates = sorted(set(cfg["candidate_steps"]))
        self.ema_alpha = float(cfg.get("ema_alpha", 0.2))
        self.update_interval = int(cfg.get("update_interval", 5))
        self.warmup_batches = int(cfg.get("warmup_batches", 10))
        self.down_hysteresis = float(cfg.get("down_hysteresis", -0.25))
        self.up_hysteresis = float(cfg.get("up_hysteresis", 0.0))
        self.ceiling_coeff = float(cfg.get("ceiling_coeff", 0))
        self.steps = initial_steps if initial_steps in self.candidates else self.candidates[len(self.candidates) // 2]
        self.ema = float(self.steps - 1)
        self.batches = 0

    def update(self, correct_drafts: list[int]) -> tuple[int, int] | None:
        """Feed one verify round; returns (old, new) steps when they change."""
        if not correct_drafts:
            return None
        if self.steps > 0:
            self.ema = (1 - self.ema_alpha) * self.ema + self.ema_alpha * (sum(correct_drafts) / len(correct_drafts))
        self.batches += 1
        if self.batches <= self.warmup_batches or (self.batches - self.warmup_batches) % self.update_interval:
            return None
        old = self.steps
        new = self._target()
        if new != old:
            self.steps = new
            return old, new
        return None

    def _target(self) -> int:
        c, old = self.candidates, self.steps
        i = c.index(old)
        if old == 0:
            i = min(i + 1, len(c) - 1)
            if c[i] > 0 and self.ema < 0:
                self.ema = float(c[i] - 1)
            return c[i]
        start = i
        while i > 0:
            prev = c[i - 1]
            threshold = (0.5 if prev == 0 else prev - 0.5) + self.down_hysteresis
            if self.ema <= threshold:
                i -= 1
            else:
                break
        if i == start:
            while i < len(c) - 1 and self.ema > c[i] - 0.5 + self.up_hysteresis:
                i += 1
        target = c[i]
        if self.ceiling_coeff > 0:
            ceiling = max(1, math.ceil(self.ema * self.ceiling_coeff))
            if ceiling < target <= old:
                while i > 0 and c[i] > ceiling:
                    i -= 1
                target = c[i]
        return target


class AdaptiveController:
    """Routes batch sizes to slots and tracks the active steps of the worker."""

    def __init__(self, initial_steps: int, cfg_path: str | None, graph_bs: list[int] | None,
                 log: Callable[[str], None] = lambda m: None) -> None:
        cfg, slots = load_config(cfg_path)
        self.bs_keys = sorted(slots)
        self.slots = {bs: StepSlot(initial_steps, {**cfg, **slots[bs]}) for bs in self.bs_keys}
        self.graph_bs = sorted(graph_bs) if graph_bs else None
        self.steps = initial_steps  #: active steps (the runtime state in force)
        self.switches = 0
        self.history: list[tuple[int, int]] = []  #: (batch size, steps) of every switch, in order
        self.log = log

    @property
    def candidates(self) -> list[int]:
        return sorted({s for slot in self.slots.values() for s in slot.candidates})

    @property
    def draft_tokens(self) -> int:
        return self.steps + 1

    def _slot(self, batch: int) -> StepSlot:
        padded = batch
        if self.graph_bs is not None:
            i = bisect.bisect_left(self.graph_bs, batch)
            padded = self.graph_bs[i] if i < len(self.graph_bs) else batch
        i = bisect.bisect_right(self.bs_keys, padded) - 1
        return self.slots[self.bs_keys[max(0, i)]]

    def _switch(self, steps: int) -> None:
        if steps == self.steps:
            return
        self.log(f"Switch adaptive runtime state: steps {self.steps} -> {steps}, draft_tokens {self.steps + 1} -> "
                 f"{steps + 1}")
        self.steps = steps
        self.switches += 1
        self.history.append((self._last_batch, steps))

    _last_batch = 0

    def activate_for_batch(self, batch: int) -> int:
        """Before a verify round: the slot's steps for this batch size become active. Returns them."""
        self._last_batch = batch
        self._switch(self._slot(batch).steps)
        return self.steps

    def on_verify(self, correct_drafts: list[int], batch: int) -> None:
        """After a verify round (accepted drafts per request)."""
        slot = self._slot(batch)
        self._last_batch = batch
        changed = slot.update(correct_drafts)
        if changed is not None:
            old, new = changed
            self.log(f"Adaptive spec params updated: steps {old} -> {new} (ema_accept_len={slot.ema:.2f})")
            self._switch(new)
