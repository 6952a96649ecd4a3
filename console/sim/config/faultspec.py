"""The `--sim-fault SPEC` grammar and its parser (the effects are in faults.py): the failures a console must survive,
on purpose.

Grammar: `KIND[:KEY=VALUE[,KEY=VALUE...]]`, each kind at most once per launch, validated at startup (a bad spec is
a command-line error, exit status 2, one line naming it):

  crash-at-step:step=N                  the scheduler dies at the N-th decode/verify step after the server got
                                        ready (warmup steps not counted): every TP rank logs `Scheduler hit an
                                        exception: Traceback ...` (torch.AcceleratorError, CUDA illegal memory
                                        access), the tokenizer process logs SGLang's running-phase `SIGQUIT
                                        received ...` and `kill_process_tree called ...`, then `Killed` and the
                                        process SIGKILLs itself (exit status -9 / 137). Step N's tokens are never sent.
  crash-during-load:phase=P[,kind=K]    the launch dies in startup phase P (weights | draft | kv | graphs) with a
                                        realistic traceback of kind K: oom (torch.OutOfMemoryError, default),
                                        import (ImportError of a too-old compressed-tensors / flashinfer) or quant
                                        (compressed-tensors' pydantic ValidationError; weights and draft only);
                                        then the launch-phase `Received sigquit from a child process ...`,
                                        `kill_process_tree called ...`, `Killed` and SIGKILL. phase=draft needs a
                                        launch with a draft model. Until then the server answers 503 as usual.
  stall:after_tokens=N,seconds=S[,every=K]
                                        a streaming response stops sending (connection open, no bytes) for S wall
                                        seconds once N completion tokens were sent, then resumes; S may be `inf`
                                        (never resumes; the request ends when the client hangs up).
  malformed-chunk:after_tokens=N[,every=K]
                                        one extra SSE event whose JSON is cut in half (`data: {"id":"...` without
                                        its closing braces) before the next event once N tokens were sent; the
                                        stream then goes on normally to `data: [DONE]`.
  truncate:after_tokens=N[,every=K]     the connection is dropped once N tokens were sent, before the next event:
                                        no finish chunk, no [DONE], no chunked-encoding terminator (clients see
                                        an incomplete read); the request is aborted like a disconnect.
  http500:rate=P                        a fraction P (0 < P <= 1) of generation requests (/v1/chat/completions,
                                        /generate; draws seeded by --sim-seed) answer HTTP 500 before anything
                                        is streamed, with SGLang's error bodies.
  slow-start:factor=F                   every modeled startup duration is F times longer (so the wall clock, the
                                        log's elapsed= and /server_info's startup_time all grow by F).
  flush-busy[:count=N]                  /flush_cache answers SGLang's busy 400 (`Flush cache failed.\\n`, no
                                        content-type) even when idle, the first N times (default: always); with
                                        ?timeout=S it waits S seconds and answers `Timed out waiting for idle state.`

  acceptance-collapse:after_requests=N[,factor=F]
                                        speculation silently stops paying mid-run: after N generation requests
                                        since the server got ready (a client's warm-up counts; the launcher's own
                                        does not), every draft position's conditional acceptance
                                        is F times what it was (default 0: every draft rejected, tau 1, as random
                                        draft weights; 0.5: a drafter half as good) at the unchanged step cost,
                                        as a draft checkpoint swapped under a running server would. Needs a
                                        speculative launch; the server's figures (meta_info, /metrics) say so.
  prefill-stall:after_requests=N,seconds=S[,batch=B]
                                        once: the first prefill step that batches B or more generation requests
                                        (default 2), every one of index >= N since the server got ready (counted
                                        as acceptance-collapse counts), takes S more modelled seconds — every
                                        request in that step waits, as for the twin's own first-long-prefill JIT
                                        (a one-time compile or page-in of a batched shape that no warm-up met).

The stream faults (stall, malformed-chunk, truncate) apply to streaming chat and /generate requests; with every=K
only to the K-th, 2K-th, ... streaming request since the server got ready (default every=1: all). "Once N tokens
were sent" means before the first event after events carrying N completion tokens (N=0: before the first event).
The warmup request and health checks are never faulted. Without faults nothing changes: the server checks one
precomputed flag per request (and the engine one attribute per step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LOAD_PHASES = ("weights", "draft", "kv", "graphs")
LOAD_KINDS = ("oom", "import", "quant")
STREAM_KINDS = ("stall", "malformed-chunk", "truncate")


class FaultSpecError(ValueError):
    """A --sim-fault spec that does not parse or validate."""


# ------------------------------------------------------------------------------------------------- parsing


def _int(key: str, text: str, lo: int) -> int:
    try:
        v = int(text)
    except ValueError:
        raise FaultSpecError(f"{key} must be an integer, got {text!r}") from None
    if v < lo:
        raise FaultSpecError(f"{key} must be >= {lo}, got {v}")
    return v


def _float(key: str, text: str, lo: float, hi: float = math.inf, lo_open: bool = True, allow_inf: bool = False
           ) -> float:
    try:
        v = float(text)
    except ValueError:
        raise FaultSpecError(f"{key} must be a number, got {text!r}") from None
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise FaultSpecError(f"{key} must be finite, got {text!r}")
    if (v <= lo if lo_open else v < lo) or v > hi:
        rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}]" if hi < math.inf else f"> {lo:g}"
        raise FaultSpecError(f"{key} must be {'in ' if hi < math.inf else ''}{rng}, got {text}")
    return v


#: kind -> (required keys, optional keys with defaults)
_KEYS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "crash-at-step": (("step",), {}),
    "crash-during-load": (("phase",), {"kind": "oom"}),
    "stall": (("after_tokens", "seconds"), {"every": "1"}),
    "malformed-chunk": (("after_tokens",), {"every": "1"}),
    "truncate": (("after_tokens",), {"every": "1"}),
    "http500": (("rate",), {}),
    "slow-start": (("factor",), {}),
    "flush-busy": ((), {"count": "always"}),
    "acceptance-collapse": (("after_requests",), {"factor": "0"}),
    "prefill-stall": (("after_requests", "seconds"), {"batch": "2"}),
}


@dataclass(frozen=True)
class FaultSpec:
    """One parsed --sim-fault."""

    spec: str  #: as given
    kind: str
    params: tuple[tuple[str, Any], ...]  #: validated values, in canonical key order

    def get(self, key: str) -> Any:
        return dict(self.params)[key]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"spec": self.spec, "kind": self.kind}
        for k, v in self.params:
            out[k] = None if isinstance(v, float) and math.isinf(v) else v
        return out


def parse_fault(text: str) -> FaultSpec:
    """Parse and validate one spec; raises FaultSpecError with the reason."""
    kind, _, rest = text.strip().partition(":")
    if kind not in _KEYS:
        raise FaultSpecError(f"unknown fault kind {kind!r} (expected one of: {', '.join(_KEYS)})")
    required, optional = _KEYS[kind]
    raw: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key or not value:
                raise FaultSpecError(f"expected key=value, got {item.strip()!r}")
            if key not in required and key not in optional:
                allowed = ", ".join((*required, *optional)) or "none"
                raise FaultSpecError(f"unknown key {key!r} for {kind} (keys: {allowed})")
            if key in raw:
                raise FaultSpecError(f"key {key!r} given twice")
            raw[key] = value
    missing = [k for k in required if k not in raw]
    if missing:
        raise FaultSpecError(f"{kind} needs {', '.join(k + '=' for k in missing)}")
    vals = {**optional, **raw}
    p: dict[str, Any] = {}
    if kind == "crash-at-step":
        p["step"] = _int("step", vals["step"], 1)
    elif kind == "crash-during-load":
        if vals["phase"] not in LOAD_PHASES:
            raise FaultSpecError(f"phase must be one of {'|'.join(LOAD_PHASES)}, got {vals['phase']!r}")
        if vals["kind"] not in LOAD_KINDS:
            raise FaultSpecError(f"kind must be one of {'|'.join(LOAD_KINDS)}, got {vals['kind']!r}")
        if vals["kind"] == "quant" and vals["phase"] not in ("weights", "draft"):
            raise FaultSpecError("kind=quant happens while loading weights: use phase=weights or phase=draft")
        p["phase"], p["kind"] = vals["phase"], vals["kind"]
    elif kind in STREAM_KINDS:
        p["after_tokens"] = _int("after_tokens", vals["after_tokens"], 0)
        if kind == "stall":
            p["seconds"] = _float("seconds", vals["seconds"], 0.0, allow_inf=True)
        p["every"] = _int("every", vals["every"], 1)
    elif kind == "http500":
        p["rate"] = _float("rate", vals["rate"], 0.0, 1.0)
    elif kind == "slow-start":
        p["factor"] = _float("factor", vals["factor"], 0.0)
    elif kind == "flush-busy":
        p["count"] = None if vals["count"] == "always" else _int("count", vals["count"], 1)
    elif kind == "acceptance-collapse":
        p["after_requests"] = _int("after_requests", vals["after_requests"], 0)
        p["factor"] = _float("factor", vals["factor"], 0.0, 1.0, lo_open=False)
    elif kind == "prefill-stall":
        p["after_requests"] = _int("after_requests", vals["after_requests"], 0)
        p["seconds"] = _float("seconds", vals["seconds"], 0.0)
        p["batch"] = _int("batch", vals["batch"], 1)
    return FaultSpec(spec=text, kind=kind, params=tuple(p.items()))


def parse_faults(texts: list[str] | None) -> tuple[FaultSpec, ...]:
    """Parse every --sim-fault; a kind given twice is an error. Raises FaultSpecError('SPEC': reason)."""
    out: list[FaultSpec] = []
    seen: set[str] = set()
    for t in texts or ():
        try:
            f = parse_fault(t)
        except FaultSpecError as e:
            raise FaultSpecError(f"invalid spec {t!r}: {e}") from None
        if f.kind in seen:
            raise FaultSpecError(f"invalid spec {t!r}: fault {f.kind} given twice")
        seen.add(f.kind)
        out.append(f)
    return tuple(out)
