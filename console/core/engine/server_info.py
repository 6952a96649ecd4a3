"""A typed view of SGLang's `/server_info` (0.5.23: every resolved ServerArgs field at top level,
then `max_total_num_tokens`, `version`, `internal_states[]` per DP rank)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from console.core.arm import Arm, json_int as _i

SIM_PREFIX = "sim:"


@dataclass
class MemoryUsage:
    """`internal_states[i].memory_usage` (GB as SGLang reports them)."""

    weight_gb: float | None = None
    kvcache_gb: float | None = None
    startup_available_gb: float | None = None
    token_capacity: int | None = None
    graph_gb: dict[str, float] = field(default_factory=dict)

    @property
    def graph_total_gb(self) -> float | None:
        return sum(self.graph_gb.values()) if self.graph_gb else None


@dataclass
class ServerInfo:
    raw: dict[str, Any]
    version: str | None
    model_path: str | None
    served_model_name: str | None
    tp_size: int | None
    dp_size: int | None
    kv_cache_dtype: str | None
    mem_fraction_static: float | None
    max_total_num_tokens: int | None
    max_running_requests: int | None
    context_length: int | None
    memory: MemoryUsage | None
    last_gen_throughput: float | None
    avg_spec_accept_length: float | None
    """The scheduler's lifetime accepted tokens per verify; with DP attention the mean over every rank's entry of
    internal_states (SGLang exposes no per-rank weights; round robin deals the ranks equal shares), never the first
    entry alone (which is whichever rank answered first). Server-LIFETIME since boot or the last /flush_cache:
    shown as such, never used for a cell."""
    enable_metrics: bool
    launch_command: str | None
    rank_accept_lengths: tuple[float, ...] = ()
    """Each internal_states entry's avg_spec_accept_length, in the order the server listed them."""

    @property
    def arm(self) -> Arm:
        """The speculative configuration the server resolved and runs (core/arm.py)."""
        return Arm.from_server_info(self.raw)

    @property
    def simulated(self) -> bool:
        return any(isinstance(x, str) and x.startswith(SIM_PREFIX) for x in (self.model_path, self.served_model_name))

    @property
    def dp_ranks(self) -> int:
        """DP-attention ranks (`attn_dp_size`; 1 without DP attention)."""
        v = self.raw.get("attn_dp_size")
        return int(v) if isinstance(v, int) and v > 0 else 1

    @classmethod
    def parse(cls, d: dict[str, Any]) -> ServerInfo:
        if not isinstance(d, dict):
            raise ValueError("/server_info: expected a JSON object")
        states = d.get("internal_states") or []
        st0 = states[0] if states and isinstance(states[0], dict) else {}
        mu = st0["memory_usage"] if isinstance(st0.get("memory_usage"), dict) else None
        memory = None
        if mu is not None:
            graph = mu["graph"] if isinstance(mu.get("graph"), dict) else {}
            memory = MemoryUsage(
                weight_gb=_f(mu.get("weight")),
                kvcache_gb=_f(mu.get("kvcache")),
                startup_available_gb=_f(mu.get("startup_available")),
                token_capacity=_i(mu.get("token_capacity")),
                graph_gb={k: float(v) for k, v in graph.items() if isinstance(v, (int, float))},
            )
        cap = _i(d.get("max_total_num_tokens"))
        if cap is None and memory is not None:
            cap = memory.token_capacity
        lc = d.get("launch_command")
        return cls(
            raw=d,
            version=d.get("version"),
            model_path=d.get("model_path"),
            served_model_name=d.get("served_model_name"),
            tp_size=_i(d.get("tp_size")),
            dp_size=_i(d.get("dp_size")),
            kv_cache_dtype=d.get("kv_cache_dtype"),
            mem_fraction_static=_f(d.get("mem_fraction_static")),
            max_total_num_tokens=cap,
            max_running_requests=_i(d.get("max_running_requests")),
            context_length=_i(d.get("context_length")),
            memory=memory,
            last_gen_throughput=_f(st0.get("last_gen_throughput")),
            avg_spec_accept_length=_pooled_accept_length(states),
            rank_accept_lengths=tuple(v for v in (_f(x.get("avg_spec_accept_length")) for x in states
                                                  if isinstance(x, dict)) if v is not None),
            enable_metrics=bool(d.get("enable_metrics")),
            launch_command=lc if isinstance(lc, str) else (" ".join(lc) if isinstance(lc, list) else None),
        )

    def model_name(self) -> str:
        return self.served_model_name or self.model_path or "default"


def _pooled_accept_length(states: list[Any]) -> float | None:
    vals = [v for v in (_f(x.get("avg_spec_accept_length")) for x in states if isinstance(x, dict)) if v is not None]
    return sum(vals) / len(vals) if vals else None


def _f(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    return None
