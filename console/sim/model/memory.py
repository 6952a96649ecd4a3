"""GPU memory plan of one TP rank, and the KV-cache capacity (`max_total_num_tokens`) it leaves.

Follows sglang's sizing: the pool gets what is left of `mem_fraction_static * total` after the weights,

    rest_gib = avail_after_weights_gib - total_gib * (1 - mem_fraction_static)
    max_total_num_tokens = floor(rest_gib * 2^30 / (target_cell + draft_cell))      (page-aligned, capped by
                                                                                     --max-total-tokens)

with the MLA target cell = (kv_lora_rank + qk_rope_head_dim) * layers * bytes(kv dtype) (70,272 B at bf16 for
Kimi-K2.6; the latent is replicated on every TP rank) and the drafter's own pool cell. Draft weights and the
drafter's workspace are allocated before the pool is sized, so speculation spends capacity twice. CUDA graphs are
captured after the pool, out of the (1 - mem_fraction_static) reserve. All figures are GiB per GPU, which sglang
prints as "GB".
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.args import KV_DTYPES, ServerConfig
from ..config.deployment import Deployment

GIB = float(1 << 30)


class OutOfMemory(Exception):
    """The weights do not fit: sglang dies with torch.OutOfMemoryError during weight loading."""

    def __init__(self, message: str, fraction_loaded: float) -> None:
        super().__init__(message)
        self.fraction_loaded = fraction_loaded


@dataclass(frozen=True)
class MemoryPlan:
    """Per-rank memory figures (GiB) in startup order, as the startup log prints them."""

    total_gib: float
    mem_fraction_static: float
    avail_before_weights_gib: float
    target_weights_gib: float
    avail_after_target_gib: float
    draft_weights_gib: float
    draft_workspace_gib: float
    avail_after_draft_gib: float
    kv_dtype: str
    draft_kv_dtype: str
    target_cell_bytes: float
    draft_cell_bytes: float
    max_total_num_tokens: int
    target_kv_gib: float
    draft_kv_gib: float
    page_size: int
    decode_capture_bs: list[int]  #: decode/verify graph batch sizes captured (clamped to the request pool)
    avail_after_pool_gib: float
    prefill_graph_gib: float
    target_graph_gib: float
    draft_prefill_graph_gib: float
    draft_decode_graph_gib: float
    draft_extend_graph_gib: float
    final_avail_gib: float

    @property
    def kv_cache_gib(self) -> float:
        """KV pools of target and draft together (`memory_usage.kvcache`)."""
        return self.target_kv_gib + self.draft_kv_gib

    @property
    def weight_gib(self) -> float:
        """Target weights (`memory_usage.weight`; sglang reports the target runner's load usage)."""
        return self.target_weights_gib

    def graph_usage(self, spec: bool) -> dict[str, float]:
        """`memory_usage.graph`: GiB per capture phase, sglang's stable phase schema."""
        return {
            "prefill": self.prefill_graph_gib,
            "decode": 0.0 if spec else self.target_graph_gib,
            "target_verify": self.target_graph_gib if spec else 0.0,
            "draft_prefill": self.draft_prefill_graph_gib,
            "draft_decode": self.draft_decode_graph_gib,
            "draft_extend": self.draft_extend_graph_gib,
        }


def plan_memory(cfg: ServerConfig, dep: Deployment) -> MemoryPlan:
    """Compute the memory plan of one rank; raises OutOfMemory when the weights do not fit. A plan with
    `max_total_num_tokens == 0` means the pool does not fit (sglang: "Not enough memory")."""
    args = cfg.args
    tp = cfg.tp_size
    total = dep.node.gpu_memory_gib
    frac = float(args["mem_fraction_static"])
    avail0 = total - dep.node.startup_overhead_gib
    target_w = dep.model.checkpoint_gib / tp + dep.model.replicated_weights_gib
    if target_w > avail0 - 0.5:
        raise OutOfMemory(
            f"CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of {total:.2f} GiB of "
            f"which {max(avail0 - target_w + 2.0, 0.1):.2f} GiB is free. Including non-PyTorch memory, this process "
            f"has {min(target_w, avail0):.2f} GiB memory in use.",
            fraction_loaded=max(0.05, min(0.98, (avail0 - 0.5) / target_w)))
    avail1 = avail0 - target_w
    drafter = dep.drafter_for(cfg.spec_algorithm)
    draft_w = drafter.weights_gib if drafter else 0.0
    workspace = drafter.workspace_gib if drafter else 0.0
    avail2 = avail1 - draft_w - workspace

    kv_dtype = args["kv_cache_dtype"]
    draft_kv_dtype = args.get("speculative_draft_kv_cache_dtype") or kv_dtype
    target_cell = dep.model.kv_elems_per_token * dep.model.num_layers * KV_DTYPES[kv_dtype][1]
    draft_cell = (drafter.kv_elems_per_token * drafter.kv_layers * KV_DTYPES[draft_kv_dtype][1]) if drafter else 0.0
    rest = avail2 - total * (1.0 - frac)
    tokens = int(rest * GIB // (target_cell + draft_cell)) if rest > 0 else 0
    page = int(args.get("page_size") or 1)
    tokens = tokens // page * page
    if args.get("max_total_tokens"):
        tokens = min(tokens, int(args["max_total_tokens"]))
    tokens = max(0, tokens)  # 0: no room for the pool; the startup fails after the weights (see startup.py)
    # sglang allocates one extra page of slots (the padding page) and reports the pool with it.
    target_kv = (tokens + page) * target_cell / GIB if tokens else 0.0
    draft_kv = (tokens + page) * draft_cell / GIB if tokens else 0.0
    avail3 = avail2 - target_kv - draft_kv

    m = dep.memory
    graph_cfg = args["cuda_graph_config"]
    decode_on = graph_cfg["decode"]["backend"] != "disabled"
    prefill_on = graph_cfg["prefill"]["backend"] != "disabled"
    pool = effective_max_running_requests(cfg, dep, tokens) if tokens else 0
    capture_bs = [b for b in graph_cfg["decode"]["bs"] if b <= pool]
    max_bs = max(capture_bs) if capture_bs else 0
    per_req = cfg.spec_draft_tokens if cfg.is_spec else 1
    prefill_g = m.prefill_graph_gib if prefill_on else 0.0
    target_g = (m.target_graph_base_gib + m.target_graph_per_slot_gib * max_bs * per_req) if decode_on else 0.0
    eagle_like = cfg.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
    draft_dec = (m.draft_graph_base_gib + m.draft_graph_per_slot_gib * max_bs * cfg.spec_topk) \
        if (decode_on and eagle_like and cfg.spec_steps > 1) else 0.0
    draft_ext = (m.draft_graph_base_gib + m.draft_graph_per_slot_gib * max_bs * cfg.spec_draft_tokens) \
        if (decode_on and (eagle_like or cfg.spec_algorithm == "DFLASH")) else 0.0
    draft_pre = m.draft_prefill_graph_gib if (decode_on and prefill_on and eagle_like) else 0.0
    final = avail3 - prefill_g - target_g - draft_pre - draft_dec - draft_ext - m.post_capture_misc_gib
    return MemoryPlan(
        total_gib=total, mem_fraction_static=frac,
        avail_before_weights_gib=avail0, target_weights_gib=target_w, avail_after_target_gib=avail1,
        draft_weights_gib=draft_w, draft_workspace_gib=workspace, avail_after_draft_gib=avail2,
        kv_dtype=KV_DTYPES[kv_dtype][0], draft_kv_dtype=KV_DTYPES[draft_kv_dtype][0],
        target_cell_bytes=target_cell, draft_cell_bytes=draft_cell, max_total_num_tokens=tokens,
        target_kv_gib=target_kv, draft_kv_gib=draft_kv, page_size=page, decode_capture_bs=capture_bs,
        avail_after_pool_gib=avail3,
        prefill_graph_gib=prefill_g, target_graph_gib=target_g, draft_prefill_graph_gib=draft_pre,
        draft_decode_graph_gib=draft_dec,
        draft_extend_graph_gib=draft_ext, final_avail_gib=final,
    )


def effective_max_running_requests(cfg: ServerConfig, dep: Deployment, max_total_num_tokens: int) -> int:
    """sglang's per-DP request cap (`kv_cache_configurator.resolve_max_num_reqs`)."""
    requested = cfg.args.get("max_running_requests")
    if requested is not None:
        return max(1, min(int(requested), max_total_num_tokens // 2))
    context_len = int(cfg.args.get("context_length") or dep.model.context_len)
    estimated = max(min(int(max_total_num_tokens / context_len * 512), 4096), 2048)
    return min(estimated, max_total_num_tokens // 2)
