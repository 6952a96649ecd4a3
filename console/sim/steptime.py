"""Step-time model: how long one forward of the running batch takes on the modeled node (model milliseconds).

Decode / verify step of B requests, n query tokens each (n = 1 without speculation, n = num_draft_tokens with a
drafter), contexts L_r, on TP ranks:

    software   = software_base + comm_per_rank * TP          launch, scheduling, sampling, all-reduce latency
    weights    = (dense_gb + E(T) * moe_layers * expert_mb) / (TP * hbm_bandwidth),  T = B * n
                 E(T) = num_experts * (1 - (1 - experts_per_token / num_experts)^T)   union of experts touched
    attention  = sum_r L_r * kv_bytes_per_token / hbm_bandwidth                    MLA latent KV, replicated per rank
    gemm       = T * 2 * active_params / (TP * gemm_tflops)
    drafter    = spec_fixed + EAGLE: steps * (draft_step + draft_step_per_req * (B - 1))
                            | DFlash: block_pass + block_pass_per_token * block + block_pass_per_req * (B - 1)
                            | NGRAM: lookup + lookup_per_req * (B - 1)
                 (+ the drafter's own KV read)

Prefill of chunks (new tokens n_c after earlier tokens c_c):

    fixed + sum_c [n_c * per_token + n_c * (c_c + n_c / 2) * attn_coef] + (chunks - 1) * chunk_overhead
    + drafter prefill (n_c * drafter.prefill_per_token) ; DFlash also drafts and verifies its first block.
    (The engine adds a one-time JIT cost to the first long prefill after launch.)

All of it is multiplied by the node speed factor and the slow drift (see `NodeState`). Parameters: the deployment
TOML, sections [step], [prefill] and [drafters.*].
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .args import KV_DTYPES, ServerConfig
from .deployment import Deployment, DrafterSpec


@dataclass
class NodeState:
    """Node-level variation: a fixed speed factor (from --sim-node-seed), slow drift and per-step noise."""

    speed_factor: float
    drift_amplitude: float
    drift_period_s: float
    drift_phase: float
    step_noise: float
    rng: random.Random

    @classmethod
    def draw(cls, dep: Deployment, node_seed: int, sim_seed: int) -> "NodeState":
        v = dep.variation
        return cls(
            speed_factor=dep.node_speed_factor(node_seed),
            drift_amplitude=v.drift_amplitude,
            drift_period_s=v.drift_period_s,
            drift_phase=random.Random(f"drift:{node_seed}").uniform(0.0, 2.0 * math.pi),
            step_noise=v.step_noise,
            rng=random.Random(f"steps:{sim_seed}:{node_seed}"),
        )

    def factor(self, model_time_s: float) -> float:
        """Step-time multiplier at a model time: speed factor x drift x noise (noise drawn per call)."""
        drift = 1.0 + self.drift_amplitude * math.sin(2.0 * math.pi * model_time_s / self.drift_period_s
                                                      + self.drift_phase)
        noise = 1.0 + self.rng.gauss(0.0, self.step_noise) if self.step_noise > 0 else 1.0
        return self.speed_factor * drift * max(0.5, noise)


class StepTimeModel:
    """Nominal (variation-free) step times of one deployment and launch configuration."""

    def __init__(self, cfg: ServerConfig, dep: Deployment) -> None:
        self.dep = dep
        self.cfg = cfg
        m, s, n = dep.model, dep.step, dep.node
        self.tp = cfg.tp_size
        self.bw = n.hbm_bandwidth_gbs * 1e9  # bytes/s per GPU
        self.software_ms = s.software_base_ms + s.comm_per_rank_ms * self.tp
        self.dense_ms = s.dense_gb * 1e9 / (self.tp * self.bw) * 1e3
        self.expert_ms = m.num_moe_layers * s.expert_mb * 1e6 / (self.tp * self.bw) * 1e3  # per expert in union
        self.route_frac = m.experts_per_token / m.num_experts
        self.kv_bytes = m.kv_elems_per_token * m.num_layers * KV_DTYPES[cfg.args["kv_cache_dtype"]][1]
        self.gemm_ms_per_token = 2.0 * m.active_params_b * 1e9 / (self.tp * n.gemm_tflops * 1e12) * 1e3
        self.drafter: DrafterSpec | None = dep.drafter_for(cfg.spec_algorithm)
        draft_dtype = cfg.args.get("speculative_draft_kv_cache_dtype") or cfg.args["kv_cache_dtype"]
        self.draft_kv_bytes = (self.drafter.kv_elems_per_token * self.drafter.kv_layers
                               * KV_DTYPES[draft_dtype][1]) if self.drafter else 0.0
        self.tokens_per_req = cfg.spec_draft_tokens if cfg.is_spec else 1

    def union_experts(self, tokens: int) -> float:
        """Expected number of distinct routed experts per MoE layer touched by `tokens` tokens."""
        return self.dep.model.num_experts * (1.0 - (1.0 - self.route_frac) ** tokens)

    def drafter_ms(self, batch: int, context_sum: float) -> float:
        """The drafter's share of one verify step (0 without speculation)."""
        d = self.drafter
        if d is None:
            return 0.0
        extra = batch - 1
        kv_read = context_sum * self.draft_kv_bytes / self.bw * 1e3
        if d.family == "eagle3":
            per_step = d.draft_step_ms + d.draft_step_per_req_ms * extra + kv_read
            return self.dep.step.spec_fixed_ms + self.cfg.spec_steps * per_step
        if d.family == "dflash":
            block = self.cfg.spec_draft_tokens
            return (self.dep.step.spec_fixed_ms + d.block_pass_ms + d.block_pass_per_token_ms * block
                    + d.block_pass_per_req_ms * extra + kv_read)
        return self.dep.step.spec_fixed_ms + d.lookup_ms + d.lookup_per_req_ms * extra

    def decode_ms(self, batch: int, context_sum: float) -> float:
        """One decode (no spec) or verify (spec) step of `batch` requests with total context `context_sum`."""
        if batch <= 0:
            return 0.0
        tokens = batch * self.tokens_per_req
        weights = self.dense_ms + self.union_experts(tokens) * self.expert_ms
        attention = context_sum * self.kv_bytes / self.bw * 1e3
        return (self.software_ms + weights + attention + tokens * self.gemm_ms_per_token
                + self.drafter_ms(batch, context_sum))

    def prefill_ms(self, chunks: list[tuple[int, int]], first_blocks: list[int]) -> float:
        """A prefill step over `chunks` [(new_tokens, earlier_tokens)]; `first_blocks` lists the contexts of
        requests whose prefill completes in it with a DFlash drafter (their first block is drafted and verified
        before the first token is released)."""
        p = self.dep.prefill
        total = p.fixed_ms + max(0, len(chunks) - 1) * p.chunk_overhead_ms
        for new, earlier in chunks:
            total += new * p.per_token_ms + new * (earlier + new / 2.0) * p.attn_coef_ms
            if self.drafter is not None:
                total += new * self.drafter.prefill_per_token_ms
        if first_blocks:
            total += self.decode_ms(len(first_blocks), float(sum(first_blocks))) - self.software_ms
        return total
