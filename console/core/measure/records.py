"""`RequestRecord`: one finished (or failed) streamed request, as raw observations.

A record holds what the client saw — timestamps of chunk arrivals on the client clock, token counts the
server reported, the server's per-request speculative counters — and nothing derived. Every figure
(TTFT, tok/s, τ, …) is computed from these fields by `console.core.measure.stats`, so a row on disk
can always be recomputed. Times are seconds relative to the moment the request was sent
(`perf_counter_ns` at send), so rows from different machines compare.

Against a time-compressed engine twin (`--sim-time-scale S`) the client's clock runs S× the modelled
node's: a row keeps the client's timestamps as measured and says so in `time_scale`; every figure that
`stats` computes from it (TTFT, tok/s, E2E, TPOT, and what derives from them) is the modelled node's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

SCHEMA_VERSION = 2
"""2: `time_scale` (rows of schema 1 take their cell manifest's sim_time_scale when read)."""

Endpoint = Literal["chat", "generate"]


@dataclass
class RequestRecord:
    """Raw observations of one streamed request (seconds are client-clock offsets from send)."""

    request_id: str
    """Client-side id (unique within a cell: `<prompt_id>#<seq>`)."""
    endpoint: Endpoint = "chat"
    prompt_id: str | None = None
    rid: str | None = None
    """Server request id (bare 32-hex in SGLang 0.5.23)."""
    wall_start: float = 0.0
    """Unix time at send (s), for humans and ordering only."""
    max_tokens: int = 0
    temperature: float | None = None
    time_scale: float = 1.0
    """The engine twin's time scale S when the row was measured (1 on a real server): a modelled second is S
    client seconds' worth of serving, so modelled durations = client durations × S."""

    t_first_s: float | None = None
    """Arrival of the first chunk with non-empty content (s after send)."""
    t_last_s: float | None = None
    """Arrival of the last chunk with non-empty content (s after send)."""
    t_end_s: float | None = None
    """End of the stream ([DONE] or connection close) (s after send)."""
    first_chunk_tokens: int | None = None
    """Tokens carried by the first content chunk (1 on SGLang: the prefill token)."""
    n_content_chunks: int = 0
    chunks: list[list[float]] = field(default_factory=list)
    """[[t_s, cumulative completion tokens or -1 if unknown], ...] for every content chunk."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    finish_reason: str | None = None
    """'stop' | 'length' | 'abort' | 'tool_calls' | None (stream ended without one)."""
    matched_stop: Any = None

    spec_verify_ct: int | None = None
    spec_num_correct_drafts: int | None = None
    spec_num_proposed_drafts: int | None = None
    spec_accept_rate: float | None = None
    """Server's value: correct / (verify_ct · (num_draft_tokens − 1))."""
    spec_accept_length: float | None = None
    """Server's value: completion_tokens / verify_ct (counts the prefill token)."""
    spec_histogram: list[int] | None = None
    """`spec_correct_drafts_histogram`: h[k] = verify steps with exactly k drafts accepted."""

    error: str | None = None
    """One line: why the request did not complete (HTTP status, in-band error, truncated stream)."""
    text: str | None = None
    warmup: bool = False
    flags: list[str] = field(default_factory=list)
    """Gate flags set by the cell (e.g. 'short' for output below max_tokens, 'window' for input out of range)."""

    @property
    def ok(self) -> bool:
        return self.error is None and self.t_first_s is not None and self.completion_tokens is not None

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["schema"] = SCHEMA_VERSION
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RequestRecord:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})
