"""Step-time model: how long one forward of the running batch takes on the modeled node (model milliseconds).

Decode / verify step of B requests with n query tokens each (n = 1 without speculation, the verify width
num_draft_tokens with a drafter), contexts L_r, T = B * n tokens in the step, on TP ranks:

    software   = software_base + comm_per_rank * TP            launch, scheduling, all-reduce latency (batch 1)
    requests   = per_request * (B - 1)                         per-sequence work of each further request
    dense      = dense_gb / (TP * hbm_bandwidth)               attention/shared/dense/lm_head weights, once a step
               + T * 2 * dense_params / (TP * gemm_tflops)     their GEMMs per token
    moe        = moe_layers * num_experts * E[max(read, k * pair)]   routed experts, a roofline per expert:
                 k ~ Binomial(T, experts_per_token / num_experts) tokens routed to one expert of one layer,
                 read = expert_mb / (TP * hbm_bandwidth)       its INT4 weights, read once if k >= 1
                 pair = 2 * expert_params / (TP * moe_gemm_tflops)   grouped GEMM + dispatch per token-expert pair
    kv         = sum_r L_r * kv_bytes_per_token / hbm_bandwidth          MLA latent KV read (replicated per rank)
    attention  = sum_r n * L_r * 2 * heads * (2 * kv_lora + rope) * layers / (TP * attn_tflops * speedup)  per query
                 token; speedup = the KV dtype's `attention_speedup` (fp8: q and the latent are cast to e4m3 and
                 the kernel runs fp8 x fp8, [kv_precision.dtypes])
    sampling   = T * sample_per_token                          logits, sampling, tree/chain verify per token
    drafter    = spec_fixed + EAGLE: steps * (draft_step + draft_step_per_req * (B * topk - 1))
                            | DFlash: block_pass + block_pass_per_row * B * block   (the draft forward over
                              every block row, its full-vocabulary head, the replicated context projection and
                              K/V writes of all B x block verified rows, sampling over them: all per row)
                            | NGRAM: lookup + lookup_per_req * (B - 1)
                 (+ the drafter's own KV read)

At batch 1 the moe term is read-bound: each further verified token brings ~7 new experts' weights, which with
the draft step is the report's ~0.397 ms verify tax. At load (T in the hundreds) every expert is touched and
the pair term dominates: each verified token costs its 8 experts' GEMM work in 60 layers, whether or not it is
accepted. That is why a 16-token block at 32 streams is net-negative.

Prefill of chunks (new tokens n_c after earlier tokens c_c):

    fixed + sum_c [n_c * per_token + n_c * (c_c + n_c / 2) * attn_coef] + (chunks - 1) * chunk_overhead
    + drafter prefill: EAGLE n_c * prefill_per_token (graph-captured draft extend);
      DFlash's context pass: context_pass_fixed + n_c * context_pass_per_token (eager, inside the prefill
      forward, so the first token waits for it; see docs/twin.md)
    (The engine adds a one-time JIT cost to the first long prefill after launch.)

All of it is multiplied by the node, launch and drift factors (see `NodeState`). Parameters: the deployment
TOML, sections [step], [prefill], [node] and [drafters.*].
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from ..config.args import KV_DTYPES, ServerConfig
from ..config.deployment import Deployment, DrafterSpec, fit_family


@dataclass
class NodeState:
    """Timing variation of one launch on one node.

    - `speed_factor`: the node draw (from --sim-node-seed; the same node gives the same factor on every launch);
    - `launch_factor`: a relaunch on the same node is not bit-identical (CUDA-graph capture, allocator layout,
      clocks): a factor drawn per launch (from the launch seed);
    - drift within a session: two sinusoids of the model clock, phases drawn per launch;
    - per-step noise.
    """

    speed_factor: float
    launch_factor: float
    drift_amplitude: float
    drift_period_s: float
    drift_phase: float
    step_noise: float
    rng: random.Random
    drift_phase2: float = 0.0

    @classmethod
    def draw(cls, dep: Deployment, node_seed: int, sim_seed: int, launch_seed: int = 0) -> NodeState:
        v = dep.variation
        lr = random.Random(f"launch:{node_seed}:{launch_seed}")
        return cls(
            speed_factor=dep.node_speed_factor(node_seed),
            launch_factor=max(0.9, 1.0 + lr.gauss(0.0, v.launch_sd)),
            drift_amplitude=v.drift_amplitude,
            drift_period_s=v.drift_period_s,
            drift_phase=lr.uniform(0.0, 2.0 * math.pi),
            drift_phase2=lr.uniform(0.0, 2.0 * math.pi),
            step_noise=v.step_noise,
            rng=random.Random(f"steps:{sim_seed}:{node_seed}:{launch_seed}"),
        )

    def drift(self, model_time_s: float) -> float:
        """Slow drift of step time (fraction): a period and a 2.7x slower one, equal weight."""
        if self.drift_amplitude == 0:
            return 0.0
        w = 2.0 * math.pi * model_time_s / self.drift_period_s
        return self.drift_amplitude * math.sqrt(0.5) * (math.sin(w + self.drift_phase)
                                                        + math.sin(w / 2.7 + self.drift_phase2))

    def factor(self, model_time_s: float) -> float:
        """Step-time multiplier at a model time: node x launch x drift x noise (noise drawn per call)."""
        noise = 1.0 + self.rng.gauss(0.0, self.step_noise) if self.step_noise > 0 else 1.0
        return self.speed_factor * self.launch_factor * (1.0 + self.drift(model_time_s)) * max(0.5, noise)


class StepTimeModel:
    """Nominal (variation-free) step times of one deployment and launch configuration."""

    def __init__(self, cfg: ServerConfig, dep: Deployment, tp: int | None = None) -> None:
        self.dep = dep
        self.cfg = cfg
        m, s, n = dep.model, dep.step, dep.node
        self.tp = tp = tp or cfg.tp_size
        self.bw = n.hbm_bandwidth_gbs * 1e9  # bytes/s per GPU
        self.software_ms = s.software_base_ms + s.comm_per_rank_ms * tp
        self.dense_ms = s.dense_gb * 1e9 / (tp * self.bw) * 1e3
        routed_b = m.num_moe_layers * m.experts_per_token * m.expert_params_m / 1e3  # routed params per token (B)
        self.dense_gemm_ms = 2.0 * max(0.0, m.active_params_b - routed_b) * 1e9 / (tp * n.gemm_tflops * 1e12) * 1e3
        self.expert_read_ms = s.expert_mb * 1e6 / (tp * self.bw) * 1e3  # one expert of one layer
        self.pair_ms = 2.0 * m.expert_params_m * 1e6 / (tp * n.moe_gemm_tflops * 1e12) * 1e3
        self.route_frac = m.experts_per_token / m.num_experts
        self.kv_bytes = m.kv_elems_per_token * m.num_layers * KV_DTYPES[cfg.args["kv_cache_dtype"]][1]
        attn_flop = 2.0 * m.num_attention_heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim) * m.num_layers
        speedup = dep.kv_precision.dtype(cfg.args["kv_cache_dtype"]).attention_speedup
        self.attn_ms_per_query_ctx = attn_flop / (tp * n.attn_tflops * speedup * 1e12) * 1e3
        self.drafter: DrafterSpec | None = dep.drafter_for(cfg.spec_algorithm)
        draft_dtype = cfg.args.get("speculative_draft_kv_cache_dtype") or cfg.args["kv_cache_dtype"]
        self.draft_kv_bytes = (self.drafter.kv_elems_per_token * self.drafter.kv_layers
                               * KV_DTYPES[draft_dtype][1]) if self.drafter else 0.0
        self.tokens_per_req = cfg.spec_draft_tokens if cfg.is_spec else 1
        self._moe = lru_cache(maxsize=8192)(self._moe_uncached)

    # ------------------------------------------------------------------------------------------ target model

    def union_experts(self, tokens: int) -> float:
        """Expected number of distinct routed experts per MoE layer touched by `tokens` tokens."""
        return self.dep.model.num_experts * (1.0 - (1.0 - self.route_frac) ** tokens)

    def moe_ms(self, tokens: int) -> float:
        """Routed-expert time of a forward of `tokens` tokens (all MoE layers): the roofline per expert."""
        return self._moe(int(tokens))

    def _moe_uncached(self, tokens: int) -> float:
        if tokens <= 0:
            return 0.0
        m = self.dep.model
        p, r, c = self.route_frac, self.expert_read_ms, self.pair_ms
        # E[max(r, k c) ; k >= 1] = E[k] c + sum_{1 <= k, k c < r} P(k) (r - k c),   k ~ Binomial(tokens, p)
        per_expert = tokens * p * c
        k, pk = 1, tokens * p * (1.0 - p) ** (tokens - 1)
        while k <= tokens and k * c < r:
            per_expert += pk * (r - k * c)
            pk *= (tokens - k) / (k + 1) * p / (1.0 - p)
            k += 1
        return m.num_moe_layers * m.num_experts * per_expert

    def target_ms(self, batch: int, context_sum: float, tokens_per_req: int) -> float:
        """The target model's forward of `batch` requests, `tokens_per_req` query tokens each."""
        tokens = batch * tokens_per_req
        s = self.dep.step
        return (self.software_ms + s.per_request_ms * (batch - 1) + self.dense_ms + tokens * self.dense_gemm_ms
                + self.moe_ms(tokens) + context_sum * self.kv_bytes / self.bw * 1e3
                + tokens_per_req * context_sum * self.attn_ms_per_query_ctx + tokens * s.sample_per_token_ms)

    def token_cost(self, tokens: int) -> float:
        """What the tokens of a forward cost the target beyond its fixed part: routed experts, dense GEMMs,
        sampling (ms)."""
        return self.moe_ms(tokens) + tokens * (self.dense_gemm_ms + self.dep.step.sample_per_token_ms)

    def token_shape(self, tokens: int) -> float:
        """`token_cost` in units of the first extra token at batch 1 (a node fit's "moe" verify shape)."""
        unit = self.token_cost(2) - self.token_cost(1)
        return self.token_cost(int(tokens)) / unit if unit > 0 else float(tokens)

    # ------------------------------------------------------------------------------------------------ drafter

    def drafter_ms(self, batch: int, context_sum: float, steps: int | None = None) -> float:
        """The drafter's share of one verify step (0 without speculation). `steps`: EAGLE draft passes this step
        (adaptive speculation changes it; 0 = drafting off, only the draft extend runs)."""
        d = self.drafter
        if d is None:
            return 0.0
        extra = batch - 1
        kv_read = context_sum * self.draft_kv_bytes / self.bw * 1e3
        fixed = self.dep.step.spec_fixed_ms
        if d.family == "eagle3":
            steps = self.cfg.spec_steps if steps is None else steps
            topk = max(1, self.cfg.spec_topk)
            per_step = d.draft_step_ms + d.draft_step_per_req_ms * (batch * topk - 1) + kv_read
            if steps == 0:  # the draft extend still runs (keeps the draft KV warm)
                return fixed + d.draft_step_ms + d.draft_step_per_req_ms * extra + kv_read
            return fixed + steps * per_step
        if d.family == "dflash":
            block = self.cfg.spec_draft_tokens
            return fixed + d.block_pass_ms + d.block_pass_per_row_ms * batch * block + kv_read
        return fixed + d.lookup_ms + d.lookup_per_req_ms * extra

    # --------------------------------------------------------------------------------------------------- steps

    def decode_ms(self, batch: int, context_sum: float, *, steps: int | None = None,
                  tokens_per_req: int | None = None) -> float:
        """One decode (no spec) or verify (spec) step of `batch` requests with total context `context_sum`.
        `steps` / `tokens_per_req`: the active draft passes and verify width when adaptive speculation moved
        them away from the launch values."""
        if batch <= 0:
            return 0.0
        n = self.tokens_per_req if tokens_per_req is None else tokens_per_req
        fit = self.dep.fit
        if fit is not None:  # a fitted node (--sim-node): its measured step model (core/measure/nodefit.py)
            v = (fit.base_ms + fit.per_request_ms * (batch - 1) + fit.per_kctx_ms * context_sum / 1000
                 + fit.per_qkctx_ms * (n - 1) * context_sum / 1000)
            fam = fit_family(self.cfg.spec_algorithm)
            if fam is not None:
                shape = self.token_shape if fit.verify_shape == "moe" else float
                v += (fit.spec_fixed_ms.get(fam, 0.0) + fit.draft_ms.get(fam, 0.0) * (n - 1)
                      + fit.verify_ms.get(fam, 0.0) * (shape(batch * n) - shape(batch)))
            return max(0.05, v)
        return self.target_ms(batch, context_sum, n) + self.drafter_ms(batch, context_sum, steps)

    def prefill_ms(self, chunks: list[tuple[int, int]]) -> float:
        """A prefill step over `chunks` [(new_tokens, earlier_tokens)], the drafter's prefill work included."""
        p = self.dep.prefill
        d = self.drafter
        fit = self.dep.fit
        if fit is not None and fit.prefill_fixed_ms is not None and fit.prefill_per_token_ms is not None:
            return fit.prefill_fixed_ms + fit.prefill_per_token_ms * sum(new for new, _ in chunks)
        total = p.fixed_ms + max(0, len(chunks) - 1) * p.chunk_overhead_ms
        for new, earlier in chunks:
            total += new * p.per_token_ms + new * (earlier + new / 2.0) * p.attn_coef_ms
            if d is not None:
                total += new * d.prefill_per_token_ms
        if d is not None and d.family == "dflash" and chunks:
            total += d.context_pass_fixed_ms + sum(new for new, _ in chunks) * d.context_pass_per_token_ms
        return total

    def context_pass_ms(self, new_tokens: int) -> float:
        """DFlash's eager context pass over `new_tokens` prompt tokens (0 for other drafters)."""
        d = self.drafter
        if d is None or d.family != "dflash" or new_tokens <= 0:
            return 0.0
        if self.dep.fit is not None and self.dep.fit.prefill_fixed_ms is not None:
            return 0.0  # a fitted node's TTFT already holds it
        return d.context_pass_fixed_ms + new_tokens * d.context_pass_per_token_ms
