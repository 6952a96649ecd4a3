"""Every measured quantity of the console, defined once (docs/measurement.md).

The functions here are the only place a figure is computed; the TUI, the headless CLI and
`serving-console report` all call them, and `DEFINITIONS` is what the help screen prints. Units are in
the names or docstrings: seconds (s), milliseconds (ms), tokens per second (tok/s), US dollars ($).

Every figure is the served node's. Against a time-compressed engine twin (×S, recorded in each row's
`time_scale`) the client clock is converted here, once: durations × S, rates ÷ S. `wall_output_tok_s` is the
only client-clock rate, and is named so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from console.core.measure.records import RequestRecord


@dataclass(frozen=True)
class Definition:
    name: str
    formula: str
    unit: str
    note: str = ""


DEFINITIONS: tuple[Definition, ...] = (
    Definition("TTFT", "t(first chunk with non-empty content) − t(request sent)", "s",
               "client clock; the first content chunk carries the prefill token; on a twin at time scale ×S, "
               "client seconds × S (every duration; rates ÷ S): figures are the modelled node's"),
    Definition("tok/s (per request)", "(completion_tokens − tokens in first content chunk) / (t_last − t_first)",
               "tok/s",
               "streaming output speed: the per-request statistic of the public speculative-decoding leaderboard that "
               "the seed report BRL-2026-11 publishes (median over a cell); completion_tokens "
               "as the server reports it"),
    Definition("E2E", "t(stream end) − t(request sent)", "s"),
    Definition("TPOT", "(E2E − TTFT) / (completion_tokens − 1)", "ms/token"),
    Definition("cell median", "numpy.percentile(tok/s of included requests, 50), linear interpolation", "tok/s",
               "also p10/p90, mean, n; requests flagged short or out of window are excluded"),
    Definition("τ (accepted length)", "1 + spec_num_correct_drafts / spec_verify_ct", "tokens/step",
               "bonus token included, prefill token excluded; a cell pools histograms; never "
               "the server's lifetime average"),
    Definition("p_i (acceptance at draft position i)", "Σ_{k≥i} h[k] / Σ_k h[k],  i = 1..K", "",
               "h = pooled spec_correct_drafts_histogram; unconditional (vLLM's per-position rate is this one); "
               "conditional = p_i / p_{i−1}; check Σ p_i / K = spec_accept_rate (chain)"),
    Definition("acceptance conventions (vLLM, AIPerf, SGLang, papers)",
               "acceptance rate = (τ − 1) / k;  SGLang spec_accept_length ≈ τ + 1/verify_ct;  α: τ = (1 − α^(k+1)) / "
               "(1 − α)", "",
               "vLLM's and AIPerf's mean acceptance length are τ; vLLM's draft acceptance rate, AIPerf's acceptance "
               "rate and SGLang's spec_accept_rate are (τ − 1)/k; SGLang's per-request spec_accept_length counts the "
               "prefill token; papers' α is per token (docs/measurement.md#conventions)"),
    Definition("implied step time", "τ / tok/s", "ms"),
    Definition("verify tax", "slope of implied step time against verified tokens per step, across depths", "ms/token",
               "used by a forecast only when probed, or fitted on one prompt set with a 95% CI above 0; "
               "else the published 0.397 ms, labelled"),
    Definition("verify-tax probe", "slope of per-request implied step time against num_draft_tokens, dummy draft "
               "weights, drafter passes held constant (bootstrap 95% CI)", "ms/token",
               "chain legs (topk 1) give ms per depth: a verified token and a draft pass; draft pass = chain − verify"),
    Definition("active draft steps", "sglang:spec_num_steps readings while a request ran (adaptive speculation); a "
               "request's count = its most frequent reading", "steps",
               "p_i per step count pools the requests that ran at one count only"),
    Definition("cost", "node $/h ÷ (3600 · tok/s) · 10⁶", "$/M output tokens"),
    Definition("KV capacity", "max_total_num_tokens from /server_info", "tokens"),
    Definition("KV capacity tax", "1 − capacity / capacity of the no-speculation arm on the same node", "%"),
    Definition("forecast",
               "τ(k) = 1 + Σ_{i≤k} p_i;  step(k) = step(k0) + (k − k0) · verify tax;  tok/s(k) = τ(k) / step(k)",
               "tok/s", "priced before the arm runs, compared with the measurement after it"),
    Definition("aggregate output tok/s", "concurrency × Σ completion_tokens / Σ E2E over the included requests",
               "tok/s",
               "a cell's closed-loop throughput at fixed concurrency (Little's law); a resumed cell's gap does not "
               "count; modelled node's seconds on a time-scaled twin"),
    Definition("pair effect", "median(B) / median(A) − 1 over the legs pooled; 95% CI: prompt-paired bootstrap + "
               "launch part σ_L·√(k_A + k_B)·t_ν", "%",
               "σ_L pooled from the profile's prior, the node's earlier pairs and this pair's repeated launches "
               "(docs/measurement.md#launch-variance)"),
    Definition("MDE (pair)", "expm1(CI log half-width + 0.8416 × sd of the interval's draws)", "%",
               "the smallest true change a pair resolves in 80% of repeats at its n, order and spread"),
    Definition("TTFT p99", "numpy.percentile(TTFT of included requests, 99), linear interpolation", "s"),
    Definition("KV usage (cell)", "mean and max of /metrics token_usage sampled during the cell while requests run",
               "fraction of the KV pool", "kv-samples.jsonl of the cell, sampled every 0.1 s wall by the sweep runner"),
    Definition("queue time (cell)", "Δ queue_time_seconds_sum / Δ queue_time_seconds_count across the cell's /metrics "
               "samples", "s", "mean wait before admission of the requests admitted during the cell; also the "
               "largest num_queue_reqs sampled"),
)


# --- per request -------------------------------------------------------------------------------

def _scale(rec: RequestRecord) -> float:
    s = rec.time_scale
    return s if s and s > 0 else 1.0


def ttft_s(rec: RequestRecord) -> float | None:
    """Time to first token (s): send → first chunk with non-empty content."""
    return None if rec.t_first_s is None else rec.t_first_s * _scale(rec)


def wall_output_tok_s(rec: RequestRecord) -> float | None:
    """`output_tok_s` on the client's clock (differs from it only on a time-scaled twin)."""
    if (
        rec.completion_tokens is None
        or rec.first_chunk_tokens is None
        or rec.t_first_s is None
        or rec.t_last_s is None
    ):
        return None
    dt = rec.t_last_s - rec.t_first_s
    n = rec.completion_tokens - rec.first_chunk_tokens
    if dt <= 0 or n <= 0:
        return None
    return n / dt


def output_tok_s(rec: RequestRecord) -> float | None:
    """Per-request streaming output speed (tok/s):
    (completion_tokens − first-chunk tokens) / (t_last − t_first). None when undefined
    (fewer than two content chunks, or no token count)."""
    w = wall_output_tok_s(rec)
    return None if w is None else w / _scale(rec)


def e2e_s(rec: RequestRecord) -> float | None:
    """End-to-end latency (s): send → end of stream."""
    return None if rec.t_end_s is None else rec.t_end_s * _scale(rec)


def tpot_ms(rec: RequestRecord) -> float | None:
    """Time per output token after the first (ms): (E2E − TTFT) / (completion_tokens − 1)."""
    if rec.t_end_s is None or rec.t_first_s is None or rec.completion_tokens is None or rec.completion_tokens < 2:
        return None
    return 1000.0 * (rec.t_end_s - rec.t_first_s) * _scale(rec) / (rec.completion_tokens - 1)


def tau(num_correct_drafts: int | None, verify_ct: int | None) -> float | None:
    """Accepted length per verify step (tokens/step), bonus included: 1 + correct / verify_ct."""
    if num_correct_drafts is None or not verify_ct:
        return None
    return 1.0 + num_correct_drafts / verify_ct


def request_tau(rec: RequestRecord) -> float | None:
    """τ of one request, from its histogram when present (else its counters)."""
    if rec.spec_histogram:
        v = sum(rec.spec_histogram)
        c = sum(k * n for k, n in enumerate(rec.spec_histogram))
        return tau(c, v)
    return tau(rec.spec_num_correct_drafts, rec.spec_verify_ct)


# --- histograms and per-position acceptance ----------------------------------------------------

def pool_histograms(hists: Iterable[Sequence[int] | None]) -> list[int]:
    """Element-wise sum of variable-length `spec_correct_drafts_histogram`s (trailing bins may be absent)."""
    out: list[int] = []
    for h in hists:
        if not h:
            continue
        if len(h) > len(out):
            out.extend([0] * (len(h) - len(out)))
        for i, n in enumerate(h):
            out[i] += int(n)
    return out


def histogram_tau(h: Sequence[int]) -> float | None:
    """τ of a (pooled) histogram: 1 + Σ k·h[k] / Σ h[k]."""
    v = sum(h)
    if v == 0:
        return None
    return 1.0 + sum(k * n for k, n in enumerate(h)) / v


def per_position_acceptance(h: Sequence[int], k_max: int | None = None) -> list[float]:
    """p_i = P(draft position i accepted) = Σ_{k≥i} h[k] / Σ h, for i = 1..K.

    K = `k_max` (num_draft_tokens − 1, or depth along the path for trees) when given, else len(h) − 1.
    Exact for chain drafting, where acceptance is a prefix."""
    v = sum(h)
    k = (len(h) - 1) if k_max is None else k_max
    if v == 0 or k <= 0:
        return []
    tail = 0
    tails = [0] * (k + 2)
    for i in range(k, 0, -1):
        tail += h[i] if i < len(h) else 0
        tails[i] = tail
    # counts beyond k_max (should not happen) are folded into position k
    extra = sum(h[k + 1:]) if len(h) > k + 1 else 0
    return [(tails[i] + extra) / v for i in range(1, k + 1)]


def conditional_acceptance(p: Sequence[float]) -> list[float | None]:
    """P(position i accepted | position i−1 accepted) = p_i / p_{i−1}, p_0 = 1; None where p_{i−1} = 0."""
    out: list[float | None] = []
    prev = 1.0
    for pi in p:
        out.append(pi / prev if prev > 0 else None)
        prev = pi
    return out


def mean_accept_rate(p: Sequence[float]) -> float | None:
    """Σ p_i / K: equals the server's `spec_accept_rate` for chain drafting (cross-check)."""
    return sum(p) / len(p) if p else None


# --- other tools' conventions (docs/measurement.md#conventions) ---------------------------------

def accept_rate_from_tau(tau_tokens: float | None, k: int | None) -> float | None:
    """vLLM's "draft acceptance rate" (num_accepted_tokens / num_draft_tokens), AIPerf's acceptance rate and
    SGLang's spec_accept_rate, from τ with k drafts proposed per verify step: (τ − 1) / k."""
    if tau_tokens is None or not k:
        return None
    return (tau_tokens - 1.0) / k


def tau_from_accept_rate(rate: float | None, k: int | None) -> float | None:
    """τ from an acceptance rate over k drafts per step (the inverse of `accept_rate_from_tau`): 1 + rate · k.
    vLLM's "mean acceptance length" and AIPerf's mean_acceptance_length are τ itself (bonus included)."""
    if rate is None or not k:
        return None
    return 1.0 + rate * k


def tau_from_sglang_accept_length(accept_length: float | None, verify_ct: int | None) -> float | None:
    """τ from SGLang's per-request `spec_accept_length` = completion_tokens / verify_ct, which counts the prefill
    token (one output token no verify step made): τ ≈ spec_accept_length − 1 / verify_ct (exact unless the last
    step's accepted tokens ran past max_tokens, which SGLang drops from completion_tokens)."""
    if accept_length is None or not verify_ct:
        return None
    return accept_length - 1.0 / verify_ct


def alpha_from_tau(tau_tokens: float | None, k: int | None) -> float | None:
    """The per-token acceptance α of the i.i.d. model (Leviathan et al.: τ = (1 − α^(k+1)) / (1 − α)), the figure
    papers call "acceptance rate"; solved by bisection. It equals every conditional p_i / p_(i−1) only when they are
    all equal: the console's per-position curve says whether they are."""
    if tau_tokens is None or not k or tau_tokens <= 1.0:
        return 0.0 if tau_tokens is not None and k else None
    if tau_tokens >= k + 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        a = (lo + hi) / 2
        if sum(a ** i for i in range(k + 1)) < tau_tokens:
            lo = a
        else:
            hi = a
    return (lo + hi) / 2


def pool_rank_tau(ranks: Sequence[tuple[float | None, float | None]]) -> float | None:
    """τ of a server with several data-parallel ranks, from each rank's (τ, weight): the weighted mean, weights
    being each rank's verify steps (or its generated tokens / τ when only those are known). Never rank 0 alone."""
    pairs = [(t, w) for t, w in ranks if t is not None and w]
    total = sum(w for _, w in pairs)
    if not total:
        return None
    return sum(t * w for t, w in pairs) / total


# --- cells ---------------------------------------------------------------------------------------

def percentile(values: Sequence[float], q: float) -> float | None:
    """Interpolated percentile (numpy linear), q in [0, 100]. None for no values."""
    if len(values) == 0:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def interp_median(values: Sequence[float]) -> float | None:
    """The cell statistic: interpolated median (numpy percentile 50, linear)."""
    return percentile(values, 50)


def implied_step_ms(tau_tokens: float | None, tok_s: float | None) -> float | None:
    """Implied time of one decode/verify step (ms) = τ / tok/s."""
    if tau_tokens is None or not tok_s:
        return None
    return 1000.0 * tau_tokens / tok_s


def cost_per_million_usd(node_usd_per_hour: float | None, tok_s: float | None) -> float | None:
    """$ per million output tokens = node $/h ÷ (3600 · tok/s) · 1e6 (single stream)."""
    if node_usd_per_hour is None or not tok_s:
        return None
    return node_usd_per_hour / (3600.0 * tok_s) * 1e6


def aggregate_output_tok_s(rows: Sequence[RequestRecord], concurrency: int) -> float | None:
    """Closed-loop throughput of a cell (tok/s): concurrency × Σ completion_tokens / Σ E2E over the included rows."""
    raw = [(r.completion_tokens, e2e_s(r)) for r in rows if r.ok and not r.flags and not r.warmup]
    pairs = [(t, e) for t, e in raw if t and e]
    if not pairs or concurrency < 1:
        return None
    return concurrency * sum(t for t, _ in pairs) / sum(e for _, e in pairs)


def kv_usage(samples: Sequence[dict]) -> tuple[float | None, float | None]:
    """(mean, max) of `token_usage` over the /metrics samples of a cell taken while requests were running."""
    vals = [float(x["token_usage"]) for x in samples if isinstance(x.get("token_usage"), (int, float))
            and (x.get("num_running_reqs") or 0) > 0]
    if not vals:
        return None, None
    return float(np.mean(vals)), float(max(vals))


def queue_time_mean_s(samples: Sequence[dict]) -> float | None:
    """Mean queue time (s) of the requests admitted during a cell: Δ queue_time_seconds_sum / Δ count between
    consecutive samples, summed where the counters grew (a relaunch resets them)."""
    ds = dc = 0.0
    prev = None
    for x in samples:
        s_, c_ = x.get("queue_time_sum_s"), x.get("queue_time_count")
        if not isinstance(s_, (int, float)) or not isinstance(c_, (int, float)):
            continue
        if prev is not None and c_ >= prev[1] and s_ >= prev[0]:
            ds += s_ - prev[0]
            dc += c_ - prev[1]
        prev = (s_, c_)
    return ds / dc if dc > 0 else None


def kv_capacity_tax(capacity_tokens: int | None, nospec_capacity_tokens: int | None) -> float | None:
    """Fraction of KV capacity speculation costs: 1 − capacity / capacity of the no-spec arm."""
    if capacity_tokens is None or not nospec_capacity_tokens:
        return None
    return 1.0 - capacity_tokens / nospec_capacity_tokens


def verify_tax_ms(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares slope (ms per verified token) of implied step time against verified tokens per
    step, from (verified_tokens_per_step, step_ms) pairs across depths."""
    if len(points) < 2:
        return None
    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    if np.ptp(x) == 0:
        return None
    slope, _ = np.polyfit(x, y, 1)
    return float(slope)


@dataclass
class CellSummary:
    """Figures of one cell, all recomputable from its rows."""

    n: int
    n_ok: int
    n_included: int
    n_errors: int
    median_tok_s: float | None
    p10_tok_s: float | None
    p90_tok_s: float | None
    mean_tok_s: float | None
    ttft_median_s: float | None
    ttft_p90_s: float | None
    e2e_median_s: float | None
    tpot_median_ms: float | None
    tau: float | None
    histogram: list[int]
    per_position_acceptance: list[float] | None
    conditional_acceptance: list[float | None] | None
    accept_rate_check: float | None
    """Σ p_i / K from the pooled histogram, to compare with the pooled server spec_accept_rate."""
    server_accept_rate: float | None
    """Verify-weighted mean of the rows' server spec_accept_rate."""
    implied_step_ms: float | None

    def to_json(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def summarize(rows: Sequence[RequestRecord], num_draft_tokens: int | None = None) -> CellSummary:
    """The cell's figures from its rows. Warm-up rows and flagged rows are excluded from the
    statistic (they still count in n); errors are counted."""
    measured = [r for r in rows if not r.warmup]
    ok = [r for r in measured if r.ok]
    included = [r for r in ok if not r.flags]
    speeds = [s for s in (output_tok_s(r) for r in included) if s is not None]
    ttfts = [t for t in (ttft_s(r) for r in included) if t is not None]
    e2es = [t for t in (e2e_s(r) for r in included) if t is not None]
    tpots = [t for t in (tpot_ms(r) for r in included) if t is not None]
    h = pool_histograms(r.spec_histogram for r in included)
    k_max = (num_draft_tokens - 1) if num_draft_tokens and num_draft_tokens > 1 else None
    pos = per_position_acceptance(h, k_max) if h else None
    tau_cell = histogram_tau(h) if h else None
    weights = [(r.spec_accept_rate, r.spec_verify_ct) for r in included
               if r.spec_accept_rate is not None and r.spec_verify_ct]
    server_rate = (sum(a * v for a, v in weights) / sum(v for _, v in weights)) if weights else None
    med = interp_median(speeds)
    return CellSummary(
        n=len(measured),
        n_ok=len(ok),
        n_included=len(speeds),
        n_errors=len(measured) - len(ok),
        median_tok_s=med,
        p10_tok_s=percentile(speeds, 10),
        p90_tok_s=percentile(speeds, 90),
        mean_tok_s=float(np.mean(speeds)) if speeds else None,
        ttft_median_s=interp_median(ttfts),
        ttft_p90_s=percentile(ttfts, 90),
        e2e_median_s=interp_median(e2es),
        tpot_median_ms=interp_median(tpots),
        tau=tau_cell,
        histogram=h,
        per_position_acceptance=pos,
        conditional_acceptance=conditional_acceptance(pos) if pos else None,
        accept_rate_check=mean_accept_rate(pos) if pos else None,
        server_accept_rate=server_rate,
        implied_step_ms=implied_step_ms(tau_cell, med) if tau_cell else (implied_step_ms(1.0, med) if med else None),
    )
