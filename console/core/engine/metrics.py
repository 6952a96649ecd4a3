"""Reading SGLang's Prometheus exposition (`/metrics`, only with `--enable-metrics`).

Parsed with `prometheus_client`'s text parser, never by hand. SGLang 0.5.23 runs the client in
multiprocess mode, which shapes what we select:
- constants (`max_total_num_tokens`, memory gauges) exist once per `tp_rank`: take one rank, never sum;
- load and speculative gauges exist only for `tp_rank="0"`;
- some gauges carry a `pid` label (mode `all`): take the maximum across pids;
- with DP attention (`--enable-dp-attention`) every DP rank's scheduler exports its load and speculative gauges,
  labelled `dp_rank`: requests are summed over the ranks and acceptance is pooled over them, weighted by each
  rank's running requests (its share of the window's verify steps), never rank 0's alone (`dp_ranks`, `rank_*`);
- series appear only after first use, and `NaN` occurs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

PREFIX = "sglang:"


@dataclass
class Sample:
    name: str
    labels: dict[str, str]
    value: float


@dataclass
class MetricsSnapshot:
    """The server gauges the console shows, chosen per the rules above (None when absent)."""

    num_running_reqs: float | None = None
    num_queue_reqs: float | None = None
    gen_throughput: float | None = None
    """tok/s over the server's last decode-log window (aggregate across requests)."""
    token_usage: float | None = None
    """Fraction of the KV pool in use (0..1)."""
    num_used_tokens: float | None = None
    max_total_num_tokens: float | None = None
    spec_accept_length: float | None = None
    """Last decode-log window mean of accepted drafts + bonus per request-step (NOT a cell τ)."""
    spec_accept_rate: float | None = None
    spec_num_steps: float | None = None
    spec_num_draft_tokens: float | None = None
    num_retracted_reqs: float | None = None
    """Requests the scheduler retracted at its last decode log (KV pool full); `..._total` counts them all."""
    num_retracted_requests_total: float | None = None
    cache_hit_rate: float | None = None
    weight_memory_gb: float | None = None
    kv_cache_memory_gb: float | None = None
    graph_memory_gb: dict[str, float] = field(default_factory=dict)
    startup_available_gpu_memory_gb: float | None = None
    context_len: float | None = None
    generation_tokens_total: float | None = None
    prompt_tokens_total: float | None = None
    spec_verify_calls_total: float | None = None
    num_requests_total: float | None = None
    model_name: str | None = None
    families: int = 0
    dp_ranks: int = 1
    """DP-attention ranks whose schedulers exported gauges (1: one scheduler)."""
    rank_spec_accept_length: dict[str, float] = field(default_factory=dict)
    """DP rank → its own window accept length (only with DP attention)."""


WANTED = ("num_running_reqs", "num_queue_reqs", "gen_throughput", "token_usage", "num_used_tokens",
          "max_total_num_tokens", "spec_accept_length", "spec_accept_rate", "spec_num_steps", "spec_num_draft_tokens",
          "cache_hit_rate", "weight_memory_usage_gb", "kv_cache_memory_usage_gb", "graph_memory_usage_gb",
          "startup_available_gpu_memory_gb", "context_len", "generation_tokens", "prompt_tokens", "spec_verify_calls",
          "num_requests", "num_retracted_reqs", "num_retracted_requests")
_WANTED_LINE = re.compile(r"^(?:# (?:HELP|TYPE) )?sglang:(?:" + "|".join(WANTED) + r")(?:_total)?[ {]")


def select_families(text: str) -> str:
    """Only the lines of the families the console reads. A TP-4 server's page is ~180 KB in ~160 families; the
    Prometheus parser then handles ~20 of them (about 10× less work at 1 Hz). Selection, not parsing: the kept
    lines go to prometheus_client's parser unchanged."""
    return "\n".join(ln for ln in text.split("\n") if _WANTED_LINE.match(ln)) + "\n"


def parse_samples(text: str) -> list[Sample]:
    """All samples of an exposition (raises ValueError on text the Prometheus parser rejects)."""
    out: list[Sample] = []
    try:
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                out.append(Sample(s.name, dict(s.labels), float(s.value)))
    except Exception as e:  # the parser raises ValueError / TypeError / IndexError on malformed input
        why = "".join(c if c.isprintable() else " " for c in str(e))[:160]
        raise ValueError(f"/metrics: not a Prometheus text exposition ({type(e).__name__}: {why})") from None
    return out


def _pick(samples: Iterable[Sample] | dict[str, list[Sample]], name: str, **want: str) -> float | None:
    """Value of `name` for the preferred rank: tp_rank 0 if present, else the lowest rank; label
    filters in `want`; pid-labelled series reduce by max. NaN reads as None."""
    pool = samples.get(name, []) if isinstance(samples, dict) else [s for s in samples if s.name == name]
    cands = [s for s in pool if all(s.labels.get(k) == v for k, v in want.items())]
    if not cands:
        return None
    ranks = sorted({s.labels.get("tp_rank", "") for s in cands}, key=lambda r: (r != "0", r))
    chosen = [s for s in cands if s.labels.get("tp_rank", "") == ranks[0]]
    vals = [s.value for s in chosen if not math.isnan(s.value)]
    if not vals:
        return None
    return max(vals) if any("pid" in s.labels for s in chosen) else vals[0]


def _sum_counter(samples: Iterable[Sample] | dict[str, list[Sample]], name: str) -> float | None:
    """Counters are summed across label sets (is_streaming etc.); rank-free on the tokenizer side."""
    pool = samples.get(name, []) if isinstance(samples, dict) else [s for s in samples if s.name == name]
    vals = [s.value for s in pool if not math.isnan(s.value)]
    return sum(vals) if vals else None


def _per_rank(samples: dict[str, list[Sample]], name: str) -> dict[str, float]:
    return {s.labels["dp_rank"]: s.value for s in samples.get(name, [])
            if "dp_rank" in s.labels and not math.isnan(s.value)}


def _pool_dp_ranks(snap: MetricsSnapshot, samples: dict[str, list[Sample]]) -> None:
    """DP attention: requests summed over the ranks, acceptance pooled by their running requests (equal weights
    when none runs), each rank's accept length kept."""
    p = PREFIX
    running = _per_rank(samples, p + "num_running_reqs")
    if len(running) <= 1:
        return
    snap.dp_ranks = len(running)
    snap.num_running_reqs = sum(running.values())
    queued = _per_rank(samples, p + "num_queue_reqs")
    if queued:
        snap.num_queue_reqs = sum(queued.values())
    total = sum(running.values())
    for attr, name in (("spec_accept_length", "spec_accept_length"), ("spec_accept_rate", "spec_accept_rate")):
        per = _per_rank(samples, p + name)
        if not per:
            continue
        w = {r: (running.get(r, 0.0) if total > 0 else 1.0) for r in per}
        wsum = sum(w.values())
        setattr(snap, attr, sum(v * w[r] for r, v in per.items()) / wsum if wsum else None)
        if attr == "spec_accept_length":
            snap.rank_spec_accept_length = dict(sorted(per.items()))


def snapshot(text: str) -> MetricsSnapshot:
    """The gauges the console shows, from one exposition (only the wanted families are parsed)."""
    flat = parse_samples(select_families(text))
    if not flat and text.strip():
        flat = parse_samples(text)  # nothing we read: parse it all, so a malformed page still says so
    samples: dict[str, list[Sample]] = {}
    for x in flat:
        samples.setdefault(x.name, []).append(x)
    p = PREFIX
    snap = MetricsSnapshot(
        num_running_reqs=_pick(samples, p + "num_running_reqs"),
        num_queue_reqs=_pick(samples, p + "num_queue_reqs"),
        gen_throughput=_pick(samples, p + "gen_throughput"),
        token_usage=_pick(samples, p + "token_usage"),
        num_used_tokens=_pick(samples, p + "num_used_tokens"),
        max_total_num_tokens=_pick(samples, p + "max_total_num_tokens"),
        spec_accept_length=_pick(samples, p + "spec_accept_length"),
        spec_accept_rate=_pick(samples, p + "spec_accept_rate"),
        spec_num_steps=_pick(samples, p + "spec_num_steps"),
        spec_num_draft_tokens=_pick(samples, p + "spec_num_draft_tokens"),
        cache_hit_rate=_pick(samples, p + "cache_hit_rate"),
        weight_memory_gb=_pick(samples, p + "weight_memory_usage_gb"),
        kv_cache_memory_gb=_pick(samples, p + "kv_cache_memory_usage_gb"),
        startup_available_gpu_memory_gb=_pick(samples, p + "startup_available_gpu_memory_gb"),
        context_len=_pick(samples, p + "context_len"),
        generation_tokens_total=_sum_counter(samples, p + "generation_tokens_total"),
        prompt_tokens_total=_sum_counter(samples, p + "prompt_tokens_total"),
        spec_verify_calls_total=_sum_counter(samples, p + "spec_verify_calls_total"),
        num_requests_total=_sum_counter(samples, p + "num_requests_total"),
        num_retracted_reqs=_pick(samples, p + "num_retracted_reqs"),
        num_retracted_requests_total=_pick(samples, p + "num_retracted_requests_total"),
    )
    _pool_dp_ranks(snap, samples)
    phases = {s.labels.get("phase") for s in samples.get(p + "graph_memory_usage_gb", [])}
    for ph in sorted(x for x in phases if x):
        v = _pick(samples, p + "graph_memory_usage_gb", phase=ph)
        if v is not None:
            snap.graph_memory_gb[ph] = v
    names = {s.labels["model_name"] for s in flat if s.labels.get("model_name")}
    snap.model_name = sorted(names)[0] if names else None
    snap.families = len(samples)
    return snap
