"""Startup progress from SGLang's launch log (reference §5, §9, §10 "Launch log").

Fed the engine's combined stdout+stderr as it grows. Lines end in `\\n`, and tqdm redraws inside a line
with `\\r`, so both split. Records are `[YYYY-mm-dd HH:MM:SS( TPn)?] message` (uvicorn adds
`INFO:     `); ranks interleave in any order, and a record can land in the middle of a tqdm bar.
The parser tracks SGLang's real phases in order — init, target weights (shard %), draft weights, KV
pool (#tokens), CUDA-graph capture (batch sizes), capacity line, HTTP server, ready — and the first
real error line if the engine dies (the exception line of the first traceback, or a CUDA OOM line).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

PHASES: tuple[tuple[str, str, float], ...] = (
    # key, label, share of a typical startup's wall time (for the overall bar when no history exists)
    ("init", "init (parallel groups)", 0.02),
    ("weights", "target weights", 0.70),
    ("draft_weights", "draft weights", 0.04),
    ("kv_pool", "KV pool", 0.02),
    ("graphs", "CUDA graphs", 0.16),
    ("capacity", "capacity", 0.01),
    ("http", "HTTP server + warm-up", 0.05),
    ("ready", "ready", 0.0),
)
PHASE_KEYS = tuple(p[0] for p in PHASES)

_TS = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)((?: [A-Z_]+\d+)*)\] ?")
_SHARDS = re.compile(r"(Multi-thread loading shards|Loading safetensors checkpoint shards|Loading pt checkpoint shards"
                     r"|Loading np_cache checkpoint shards):\s+(\d+)% Completed \| (\d+)/(\d+)")
_KV = re.compile(r"KV Cache is allocated\. .*?#tokens: (\d+)")
_KV_VA = re.compile(r"KV Cache .*?VA upper bound.*?#tokens: (\d+)")
_GRAPH_BEGIN = re.compile(r"Capture (target verify|target decode|draft decode|draft extend|draft verify|\w+ prefill) "
                          r"CUDA graph begin")
_GRAPH_END = re.compile(r"Capture (target verify|target decode|draft decode|draft extend|draft verify|\w+ prefill) "
                        r"CUDA graph end\.(?: bs=\[([\d, ]*)\])?")
_BS = re.compile(r"Capturing batches \(bs=(\d+)")
_CAPACITY = re.compile(r"max_total_num_tokens=(\d+)(?:, chunked_prefill_size=(-?\d+))?(?:, max_prefill_tokens=(\d+))?"
                       r"(?:, max_running_requests=(\d+))?(?:, context_len=(\d+))?")
_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)|AssertionError|KeyboardInterrupt)"
                  r"(?::\s*(.*))?$")
_OOM = re.compile(r"(CUDA out of memory|OutOfMemoryError|CUDA error: out of memory)")
_FRAME = re.compile(r'^\s+File "([^"]+)", line (\d+), in (\S+)')
READY_MARK = "The server is fired up and ready to roll!"


def _short_path(path: str) -> str:
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


@dataclass
class PhaseState:
    key: str
    label: str
    status: str = "pending"
    """'pending' | 'active' | 'done'."""
    detail: str = ""
    started_at: float | None = None
    ended_at: float | None = None


@dataclass
class StartupProgress:
    phases: list[PhaseState]
    weights_pct: float | None = None
    shards: tuple[int, int] | None = None
    draft_weights_pct: float | None = None
    kv_tokens: int | None = None
    graph_bs: int | None = None
    graph_stage: str | None = None
    max_total_num_tokens: int | None = None
    max_running_requests: int | None = None
    context_len: int | None = None
    ready: bool = False
    error_line: str | None = None
    error_where: str | None = None
    """Deepest sglang frame of the traceback (else the deepest frame), e.g. 'sglang/srt/.../x.py:367 in f'."""
    last_line: str = ""
    lines: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def current(self) -> PhaseState | None:
        for p in self.phases:
            if p.status == "active":
                return p
        return None

    def fraction(self) -> float:
        """Overall progress 0..1 by typical phase shares (weights dominate)."""
        if self.ready:
            return 1.0
        total = 0.0
        for (key, _, share), st in zip(PHASES, self.phases, strict=True):
            if st.status == "done":
                total += share
            elif st.status == "active":
                sub = 0.0
                if key == "weights" and self.weights_pct is not None:
                    sub = self.weights_pct / 100.0
                elif key == "draft_weights" and self.draft_weights_pct is not None:
                    sub = self.draft_weights_pct / 100.0
                total += share * sub
        return min(total, 0.99)


class StartupParser:
    """Incremental; `feed(text)` with whatever arrived, in order. `tp` and `has_draft` disambiguate the
    per-rank repetitions of 'Load weight begin/end' (target on every rank, then the draft)."""

    def __init__(self, tp: int = 1, has_draft: bool | None = None, clock=time.monotonic) -> None:
        self.tp = max(1, tp)
        self.has_draft = has_draft
        self._clock = clock
        self._partial = ""
        self._weight_ends = 0
        self._in_traceback = False
        self._last_frame: str | None = None
        self.progress = StartupProgress(phases=[PhaseState(k, label) for k, label, _ in PHASES])

    # --- public ------------------------------------------------------------------------------

    def feed(self, text: str) -> StartupProgress:
        buf = self._partial + text
        parts = re.split(r"\r\n|\r|\n", buf)
        self._partial = parts.pop()  # incomplete tail (may be a tqdm bar mid-redraw)
        for line in parts:
            self._line(line)
        # a tqdm bar being redrawn without newline: still read its percentage
        if self._partial:
            m = _SHARDS.search(self._partial)
            if m:
                self._shards(m)
        return self.progress

    def finish(self) -> StartupProgress:
        if self._partial:
            self._line(self._partial)
            self._partial = ""
        return self.progress

    # --- machinery ---------------------------------------------------------------------------

    def _phase(self, key: str) -> PhaseState:
        return self.progress.phases[PHASE_KEYS.index(key)]

    def _enter(self, key: str, detail: str | None = None) -> None:
        now = self._clock()
        idx = PHASE_KEYS.index(key)
        for p in self.progress.phases[:idx]:
            if p.status != "done":
                if p.status == "active":
                    p.ended_at = now
                p.status = "done"
        st = self.progress.phases[idx]
        if st.status == "pending":
            st.status = "active"
            st.started_at = now
        if detail is not None:
            st.detail = detail

    def _done(self, key: str, detail: str | None = None) -> None:
        st = self._phase(key)
        if st.status != "done":
            self._enter(key)
            st.status = "done"
            st.ended_at = self._clock()
        if detail is not None:
            st.detail = detail

    def _shards(self, m: re.Match) -> None:
        pct, n, total = float(m.group(2)), int(m.group(3)), int(m.group(4))
        if self._phase("weights").status != "done":
            self.progress.weights_pct = pct
            self.progress.shards = (n, total)
            self._enter("weights", f"{pct:.0f}% · {n}/{total} shards")
        else:
            self.progress.draft_weights_pct = pct
            self._enter("draft_weights", f"{pct:.0f}% · {n}/{total} shards")

    def _line(self, raw: str) -> None:
        p = self.progress
        p.lines += 1
        m = _TS.match(raw)
        msg = raw[m.end():] if m else raw
        if msg.startswith("INFO:"):
            msg = msg[5:].lstrip()
        stripped = msg.strip()
        if stripped:
            p.last_line = stripped[:300]
        self._errors(raw, msg)

        if "Init parallel begin" in msg:
            self._enter("init")
        elif "Load weight begin" in msg:
            if self._phase("weights").status == "done":
                self._enter("draft_weights")
            else:
                self._enter("weights", p.phases[1].detail or "loading")
        elif "Load weight end" in msg:
            self._weight_ends += 1
            if self._weight_ends <= self.tp:
                if self._weight_ends == self.tp:
                    p.weights_pct = 100.0
                    self._done("weights", f"done · {_field(msg, 'elapsed')}")
                    if self.has_draft is False:
                        self._done("draft_weights", "no drafter")
            else:
                if self._weight_ends == 2 * self.tp:
                    p.draft_weights_pct = 100.0
                    self._done("draft_weights", f"done · {_field(msg, 'elapsed')}")
        elif (mm := _SHARDS.search(msg)) is not None:
            self._shards(mm)
        elif (mm := _KV.search(msg) or _KV_VA.search(msg)) is not None:
            if p.kv_tokens is None:
                p.kv_tokens = int(mm.group(1))
            if self._phase("weights").status == "done" and self._phase("draft_weights").status != "done" \
                    and self.has_draft is not True:
                self._done("draft_weights", "no drafter")
            self._enter("kv_pool", f"#tokens {p.kv_tokens:,}")
        elif "Memory pool end" in msg:
            self._done("kv_pool")
        elif (mm := _GRAPH_BEGIN.search(msg)) is not None:
            p.graph_stage = mm.group(1)
            self._enter("graphs", f"{mm.group(1)}")
        elif (mm := _GRAPH_END.search(msg)) is not None:
            p.graph_stage = mm.group(1)
            bs = mm.group(2)
            self._enter("graphs", f"{mm.group(1)} done" + (f" · bs {_bs_summary(bs)}" if bs else ""))
        elif (mm := _BS.search(msg)) is not None:
            p.graph_bs = int(mm.group(1))
            self._enter("graphs", f"{p.graph_stage or 'capturing'} · bs={p.graph_bs}")
        elif (mm := _CAPACITY.search(msg)) is not None:
            p.max_total_num_tokens = int(mm.group(1))
            if mm.group(4):
                p.max_running_requests = int(mm.group(4))
            if mm.group(5):
                p.context_len = int(mm.group(5))
            self._done("capacity", f"{p.max_total_num_tokens:,} tokens")
        elif "Uvicorn running on" in msg or "Started server process" in msg or "Application startup complete" in msg:
            self._enter("http", "serving HTTP; warming up")
        elif READY_MARK in msg:
            p.ready = True
            self._done("ready", "ready")

    def _errors(self, raw: str, msg: str) -> None:
        p = self.progress
        if p.error_line is not None:
            return
        s = msg.rstrip()
        if "Traceback (most recent call last)" in s:
            self._in_traceback = True
            self._last_frame = None
            return
        if self._in_traceback and (fm := _FRAME.match(s)):
            where = f"{_short_path(fm.group(1))}:{fm.group(2)} in {fm.group(3)}"
            # the deepest frame in the engine's own code says more than one inside a library
            if "/sglang/" in fm.group(1) or self._last_frame is None or "sglang/" not in self._last_frame:
                self._last_frame = where
            return
        if _OOM.search(s):
            p.error_line = s.strip()
            p.error_where = self._last_frame if self._in_traceback else None
            return
        if self._in_traceback:
            if not raw[:1].isspace() and (mm := _EXC.match(s.strip())):
                p.error_line = s.strip()
                p.error_where = self._last_frame
                self._in_traceback = False
        elif (mm := _EXC.match(s.strip())) and mm.group(2) is not None:
            # an exception line logged without its traceback (e.g. 'ValueError: Unknown speculative ...')
            p.error_line = s.strip()


def _field(msg: str, name: str) -> str:
    m = re.search(rf"{name}=([^,]+)", msg)
    return f"{name} {m.group(1).strip()}" if m else ""


def _bs_summary(bs: str) -> str:
    xs = [x for x in bs.replace(" ", "").split(",") if x]
    if len(xs) <= 4:
        return ",".join(xs)
    return f"{xs[0]}…{xs[-1]} ({len(xs)} sizes)"


def first_error_line(log_text: str) -> str | None:
    """The first real error line of a whole log (see `StartupParser`), with its deepest frame."""
    sp = StartupParser()
    sp.feed(log_text)
    sp.finish()
    p = sp.progress
    if p.error_line and p.error_where:
        return f"{p.error_line}  (at {p.error_where})"
    return p.error_line
