"""Chat with the served model through the official `openai` SDK (docs/architecture.md: the client users already trust).

`ChatSession` holds one conversation with one server: system prompt, multi-turn history, temperature and max
tokens. `stream_turn` sends the history plus a new user message with SGLang's extensions in `extra_body`
(`return_spec_tokens_details`, `stream_options.include_usage` + `continuous_usage_stats`), streams the reply
to `on_text(delta)` and returns the finished `ChatTurn` with per-turn figures computed by
`console.core.measure.stats` (TTFT, per-request tok/s with the first-chunk-tokens definition, τ and
per-position acceptance from that turn's `sglext.spec_tokens_details` histogram).

Timing: a `perf_counter_ns` stamp is taken when the SDK *yields* each parsed chunk (after its SSE parsing and
pydantic model construction), and at send just before `chat.completions.create`. This is the SDK's timing,
coarser than the console's own stream client (`engine/stream.py`), which stamps each socket read before JSON
decoding; cells are measured with the latter, chat figures are indicative.

Stop: `stop()` (thread-safe) cancels the running request; the partial answer is kept in the history, marked
stopped, and `stream_turn` returns normally. Cancelling the task that runs `stream_turn` does the same and
then lets the cancellation propagate. Server and network faults never raise: they land in `ChatTurn.error`
as one line.

Works with openai 2.8.0 (sglang's pin) and 3.x: SGLang's extra fields (`sglext` on the chunk,
`reasoning_content` on the delta, `matched_stop` on the choice) are read from the objects' attributes or
`model_extra`, whichever the installed SDK provides.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from console.core.engine.stream import InFlight, copy_spec_fields, record_content_chunk
from console.core.fmt import one_line, utc_iso
from console.core.measure import stats
from console.core.measure.plots import SPARK
from console.core.measure.records import RequestRecord
from console.core.redaction import redact_json, redact_mapping, redact_text
from console.core.sessions.store import write_json

NS = 1_000_000_000
CHAT_SCHEMA = 1
SDK_TIMING_NOTE = ("timed by the openai SDK: perf_counter_ns as the SDK yields each parsed chunk (coarser than "
                   "the console's own stream client, which stamps socket reads before JSON decoding)")

TextCallback = Callable[[str], None]


class ChatUnavailable(RuntimeError):
    """One line: why there is no server to chat with."""


# --- per-turn figures ----------------------------------------------------------------------------


@dataclass
class TurnStats:
    """Figures of one chat turn, all computed by `console.core.measure.stats` from the turn's record."""

    ttft_s: float | None
    """s: send → first chunk with non-empty content (SDK timing)."""
    tok_s: float | None
    """tok/s: (completion_tokens − first-chunk tokens) / (t_last − t_first)."""
    e2e_s: float | None
    tpot_ms: float | None
    completion_tokens: int | None
    prompt_tokens: int | None
    first_chunk_tokens: int | None
    n_chunks: int
    tau: float | None
    """tokens/step: 1 + Σ k·h[k] / Σ h (bonus included), from this turn's histogram."""
    per_position: list[float]
    """p_i = Σ_{k≥i} h[k] / Σ h, i = 1..K."""
    histogram: list[int] | None
    verify_ct: int | None
    accept_rate_check: float | None
    """Σ p_i / K, to compare with the server's spec_accept_rate (chain drafting)."""
    server_accept_rate: float | None
    finish_reason: str | None
    timing: str = "openai-sdk"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def turn_stats(rec: RequestRecord, num_draft_tokens: int | None = None) -> TurnStats:
    """The turn's figures from its raw observations (the same definitions as a cell's)."""
    h = rec.spec_histogram or None
    k_max = (num_draft_tokens - 1) if num_draft_tokens and num_draft_tokens > 1 else None
    if h and k_max is not None and len(h) - 1 > k_max:
        k_max = None  # a histogram longer than the server's K (tree drafting): read depth along the path
    pos = stats.per_position_acceptance(h, k_max) if h else []
    return TurnStats(
        ttft_s=stats.ttft_s(rec), tok_s=stats.output_tok_s(rec), e2e_s=stats.e2e_s(rec), tpot_ms=stats.tpot_ms(rec),
        completion_tokens=rec.completion_tokens, prompt_tokens=rec.prompt_tokens,
        first_chunk_tokens=rec.first_chunk_tokens, n_chunks=rec.n_content_chunks, tau=stats.request_tau(rec),
        per_position=pos, histogram=list(h) if h else None, verify_ct=rec.spec_verify_ct,
        accept_rate_check=stats.mean_accept_rate(pos), server_accept_rate=rec.spec_accept_rate,
        finish_reason=rec.finish_reason,
    )


def acceptance_glyphs(p: Sequence[float]) -> str:
    """One block per draft position, height ∝ p_i on an absolute 0..1 scale (`·` for 0)."""
    top = len(SPARK) - 1
    return "".join(SPARK[min(top, int(x * top + 0.5))] if x > 0 else "·" for x in p)


def format_stats(s: TurnStats | None, *, wide: bool = False, stopped: bool = False) -> str:
    """The one-line summary under an answer: `TTFT 0.21 s · 472.1 tok/s · 48 tok · τ 3.92 · p █▇▅▄▃▂`.
    `wide` adds the p_i values and the server's accept-rate cross-check."""
    if s is None:
        return "stopped before the first chunk" if stopped else "no figures"
    parts = [f"TTFT {s.ttft_s:.2f} s" if s.ttft_s is not None else "TTFT —",
             f"{s.tok_s:.1f} tok/s" if s.tok_s is not None else "— tok/s",
             f"{s.completion_tokens} tok" if s.completion_tokens is not None else "? tok"]
    if s.tau is not None:
        parts.append(f"τ {s.tau:.2f}")
        if s.per_position:
            if wide:
                parts.append(f"p{1}…{len(s.per_position)} {acceptance_glyphs(s.per_position)} "
                             + " ".join(f"{x:.2f}" for x in s.per_position))
            else:
                parts.append(f"p {acceptance_glyphs(s.per_position)}")
        if wide and s.server_accept_rate is not None and s.accept_rate_check is not None:
            parts.append(f"Σp/K {s.accept_rate_check:.3f} (server {s.server_accept_rate:.3f})")
    elif stopped:
        parts.append("τ — (stopped before the spec details)")
    if stopped:
        parts.append("stopped")
    elif s.finish_reason:
        parts.append(s.finish_reason)
    return " · ".join(parts)


@dataclass
class ChatTurn:
    """One user message and the assistant's reply (possibly partial: stopped, or cut by an error)."""

    index: int
    user: str
    assistant: str = ""
    reasoning: str = ""
    """`reasoning_content` deltas (reasoning-parser servers); shown and saved, never sent back."""
    stopped: bool = False
    error: str | None = None
    stats: TurnStats | None = None
    record: RequestRecord | None = None
    started_utc: str = ""
    done: bool = False

    @property
    def in_context(self) -> bool:
        """Whether the turn is sent back as context on the next turn (a reply that has text and no error)."""
        return bool(self.assistant) and self.error is None

    def stats_line(self, wide: bool = False) -> str:
        if self.error:
            return f"error: {self.error}"
        return format_stats(self.stats, wide=wide, stopped=self.stopped)

    def to_json(self) -> dict[str, Any]:
        rec = self.record.to_json() if self.record is not None else None
        return {"index": self.index, "user": self.user, "assistant": self.assistant,
                "reasoning": self.reasoning or None,
                "stopped": self.stopped, "error": self.error, "started_utc": self.started_utc,
                "stats": self.stats.to_json() if self.stats else None, "record": rec}


# --- reading the SDK's chunk objects (openai 2.x and 3.x) -----------------------------------------


def _field(obj: Any, name: str) -> Any:
    """`obj.name` for a dict, a typed SDK model, or an extra field kept by either SDK major."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    try:
        v = getattr(obj, name)
    except Exception:  # pydantic raises AttributeError for an absent extra
        v = None
    if v is None:
        extra = getattr(obj, "model_extra", None)
        if not isinstance(extra, Mapping):
            extra = getattr(obj, "__pydantic_extra__", None)
        if isinstance(extra, Mapping):
            v = extra.get(name)
    return v


def _as_dict(obj: Any) -> dict[str, Any] | None:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return dict(obj)
    for meth in ("model_dump", "to_dict", "dict"):
        fn = getattr(obj, meth, None)
        if callable(fn):
            try:
                d = fn()
            except Exception:
                continue
            if isinstance(d, Mapping):
                return dict(d)
    return None


def spec_details(chunk: Any) -> dict[str, Any] | None:
    """`sglext.spec_tokens_details` of a chunk as a dict (the first when n>1), or None."""
    ext = _field(chunk, "sglext")
    if ext is None:
        return None
    details = _field(ext, "spec_tokens_details")
    if isinstance(details, (list, tuple)):
        details = details[0] if details else None
    return _as_dict(details)



def describe_error(exc: BaseException) -> str:
    """One line for an SDK / network failure (never a traceback)."""
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency
        openai = None  # type: ignore[assignment]  # the module's name, None without the SDK
    if openai is not None:
        if isinstance(exc, openai.APIStatusError):
            body = getattr(exc, "body", None)
            msg = None
            if isinstance(body, Mapping):
                err = body.get("error", body)
                msg = (err.get("message") or err.get("detail")) if isinstance(err, Mapping) else err
            elif isinstance(body, str):
                msg = body
            msg = one_line(str(msg or getattr(exc, "message", "") or type(exc).__name__), 160)
            code = exc.status_code
            hint = ""
            if code == 401:
                hint = " (the server wants an API key: set the profile's api_key_env / api_key_file, or --api-key)"
            elif code == 403:
                hint = " (the API key was refused)"
            return f"HTTP {code}: {msg}{hint}"
        if isinstance(exc, openai.APITimeoutError):
            return "timeout: the server sent nothing for the stall timeout"
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            why = one_line(str(cause), 120) if cause is not None and str(cause) else "connection refused or dropped"
            return f"server unreachable: {why}"
        if isinstance(exc, openai.APIError):
            return f"server error in stream: {one_line(getattr(exc, 'message', None) or str(exc), 160)}"
    text = str(exc).strip()
    if type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "anyio"):
        return f"connection lost: {one_line(text, 160) if text else type(exc).__name__}"
    return f"{type(exc).__name__}: {one_line(text, 160)}" if text else type(exc).__name__


def _strip_userinfo(url: str) -> str:
    try:
        p = urlsplit(url)
    except ValueError:
        return url
    if p.username or p.password:
        host = p.hostname or ""
        if p.port:
            host += f":{p.port}"
        return urlunsplit((p.scheme, host, p.path, p.query, p.fragment))
    return url


# --- the session ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatTarget:
    """Where a chat goes: a URL, its key, and what the console read from the server (None when unknown)."""

    url: str
    api_key: str | None = None
    server: Any = None
    simulated: bool = False
    time_scale: float | None = None


class ChatSession:
    """One conversation with one server (a `/v1` OpenAI-compatible SGLang endpoint).

    Network work happens on the event loop that calls `stream_turn` (the TUI's I/O thread); the SDK client
    is created lazily there. `stop()` may be called from any thread."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        model: str = "default",
        system_prompt: str = "",
        temperature: float = 0.6,
        max_tokens: int = 2048,
        label: str | None = None,
        spec_label: str | None = None,
        num_draft_tokens: int | None = None,
        engine_version: str | None = None,
        simulated: bool = False,
        time_scale: float = 1.0,
        http_client: Any = None,
        stall_timeout_s: float = 120.0,
        clock: Callable[[], int] = time.perf_counter_ns,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        if self.base_url.endswith("/v1"):
            self.base_url = self.base_url[:-3]
        self._api_key = api_key
        self.model = model
        self.system_prompt = system_prompt
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.spec_label = spec_label
        self.label = label or spec_label or _strip_userinfo(self.base_url)
        self.num_draft_tokens = num_draft_tokens
        self.engine_version = engine_version
        self.simulated = simulated
        self.time_scale = time_scale if time_scale and time_scale > 0 else 1.0
        """The engine twin's time scale: the turn's figures are the modelled node's (see measure/records.py)."""
        self.stall_timeout_s = stall_timeout_s
        self.clock = clock
        self.history: list[ChatTurn] = []
        self.live: InFlight | None = None
        """The request being streamed (tokens, first/last chunk times): read at the reader's own rate."""
        self.current: ChatTurn | None = None
        self._http_client = http_client
        self._client: Any = None
        self._inner: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_requested = False
        self._save_n: int | None = None

    @classmethod
    def on_server(cls, target: ChatTarget, **kw: Any) -> ChatSession:
        """A session on a server the console is connected to: its URL and key, the /server_info it read (served
        model name, arm, K), whether it is the twin and its time scale (`Runtime.chat_target()`)."""
        kw.setdefault("simulated", target.simulated)
        kw.setdefault("time_scale", target.time_scale or 1.0)
        return cls(target.url, target.api_key, **_server_kw(target.server, kw))

    @classmethod
    async def for_url(cls, url: str, api_key: str | None = None, **kw: Any) -> ChatSession:
        """A session on another server (arm B on a second node, a router in front of it, or the same server
        with other sampling): its served model name, spec label, K and version read from its /server_info.
        Raises AdminError with one line when the server cannot be read."""
        from console.core.engine.admin import AdminClient
        async with AdminClient(url, api_key) as admin:
            info = await admin.server_info()
            si = await admin.sim_info() if info.simulated else None
        kw.setdefault("simulated", info.simulated)
        ts = si.get("time_scale") if si else None
        kw.setdefault("time_scale", float(ts) if isinstance(ts, (int, float)) and ts > 0 else 1.0)
        return cls(url, api_key, **_server_kw(info, kw))

    # --- state -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._inner is not None and not self._inner.done()

    def clear(self) -> None:
        """Forget the conversation (the system prompt and sampling settings stay); the next save is a new file."""
        if self.busy:
            raise RuntimeError("a reply is streaming: stop it first")
        self.history = []
        self.current = None
        self.live = None
        self._save_n = None

    def messages(self, user_text: str | None = None) -> list[dict[str, str]]:
        """The OpenAI `messages` for the next request: system prompt, the turns kept in context, `user_text`."""
        out: list[dict[str, str]] = []
        if self.system_prompt.strip():
            out.append({"role": "system", "content": self.system_prompt})
        for t in self.history:
            if t.in_context:
                out.append({"role": "user", "content": t.user})
                out.append({"role": "assistant", "content": t.assistant})
        if user_text is not None:
            out.append({"role": "user", "content": user_text})
        return out

    # --- streaming -------------------------------------------------------------------------

    def _sdk(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI, Timeout  # the SDK's own HTTP library's Timeout (httpx, or httpx2 in 3.x)
            kw: dict[str, Any] = {}
            if self._http_client is not None:
                kw["http_client"] = self._http_client
            self._client = AsyncOpenAI(
                base_url=self.base_url + "/v1", api_key=self._api_key or "none", max_retries=0,
                timeout=Timeout(connect=10.0, read=self.stall_timeout_s, write=30.0, pool=30.0), **kw)
        return self._client

    async def stream_turn(self, user_text: str, on_text: TextCallback | None = None,
                          on_reasoning: TextCallback | None = None) -> ChatTurn:
        """Send `user_text` after the history and stream the reply (`on_text(delta)` per content delta, called
        on this loop: coalesce before painting). Returns the finished turn, also appended to `history`."""
        if self.busy:
            raise RuntimeError("a reply is already streaming in this chat")
        turn = ChatTurn(index=len(self.history) + 1, user=user_text,
                        started_utc=utc_iso())
        messages = self.messages(user_text)
        self.current = turn
        self._stop_requested = False
        self._loop = asyncio.get_running_loop()
        self._inner = asyncio.ensure_future(self._stream(turn, messages, on_text, on_reasoning))
        try:
            await self._inner
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller cancelled us: the partial turn is already in the history
        return turn

    def stop(self) -> bool:
        """Stop the running reply (thread-safe). False when nothing is streaming."""
        inner, loop = self._inner, self._loop
        if inner is None or inner.done() or loop is None or loop.is_closed():
            return False
        self._stop_requested = True
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            inner.cancel()
        else:
            loop.call_soon_threadsafe(inner.cancel)
        return True

    async def _stream(self, turn: ChatTurn, messages: list[dict[str, str]], on_text: TextCallback | None,
                      on_reasoning: TextCallback | None) -> None:
        rec = RequestRecord(request_id=uuid.uuid4().hex, endpoint="chat", prompt_id=f"chat-turn-{turn.index}",
                            max_tokens=self.max_tokens, temperature=self.temperature, wall_start=time.time(),
                            time_scale=self.time_scale)
        client = self._sdk()  # the first turn imports openai and builds the client: not part of TTFT
        t0 = self.clock()
        live = InFlight(request_id=rec.request_id, t_sent_ns=t0, time_scale=rec.time_scale)
        self.live = live
        parts: list[str] = []
        thinking: list[str] = []
        stream = None
        done = False
        try:
            stream = await client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.max_tokens, temperature=self.temperature,
                stream=True,
                extra_body={"return_spec_tokens_details": True,
                            "stream_options": {"include_usage": True, "continuous_usage_stats": True}},
            )
            async for chunk in stream:
                t = self.clock()
                piece, think = self._on_chunk(chunk, t, t0, rec, live)
                if think:
                    thinking.append(think)
                    turn.reasoning = "".join(thinking)
                    if on_reasoning is not None:
                        on_reasoning(think)
                if piece:
                    parts.append(piece)
                    turn.assistant = "".join(parts)
                    if on_text is not None:
                        on_text(piece)
            done = True
        except asyncio.CancelledError:
            turn.stopped = True
            raise
        except Exception as e:  # server and network faults become one line on the turn
            msg = describe_error(e)
            if rec.t_first_s is not None:
                for head in ("server unreachable: ", "connection lost: "):
                    if msg.startswith(head):
                        msg = "connection lost mid-answer: " + msg[len(head):]
            turn.error = rec.error = msg
        finally:
            rec.t_end_s = (self.clock() - t0) / NS
            live.done = True
            if stream is not None and not done:
                try:
                    await asyncio.shield(stream.close())
                except BaseException:
                    pass
            turn.assistant = "".join(parts)
            turn.reasoning = "".join(thinking)
            if done and turn.error is None and rec.finish_reason is None and rec.t_first_s is not None:
                rec.error = turn.error = "the stream ended without a finish reason (truncated)"
            if turn.stopped and rec.error is None:
                rec.error = "stopped by the user"
            elif rec.error is None and rec.t_first_s is None:
                rec.error = turn.error = turn.error or "the server sent no content"
            turn.record = rec
            turn.stats = turn_stats(rec, self.num_draft_tokens) if rec.t_first_s is not None else None
            turn.done = True
            self.history.append(turn)
            self.current = None

    @staticmethod
    def _on_chunk(chunk: Any, t_ns: int, t0: int, rec: RequestRecord, live: InFlight) -> tuple[str, str]:
        """Fold one SDK chunk into the record (same rules as the console's own stream client); returns the
        (content, reasoning) deltas."""
        rid = _field(chunk, "id")
        if rid and rec.rid is None:
            rec.rid = str(rid)
        cum: int | None = None
        usage = _field(chunk, "usage")
        if usage is not None:
            ct = _field(usage, "completion_tokens")
            if isinstance(ct, int):
                cum = ct
                rec.completion_tokens = ct
            pt = _field(usage, "prompt_tokens")
            if isinstance(pt, int):
                rec.prompt_tokens = pt
                live.prompt_tokens = pt
            ptd = _field(usage, "prompt_tokens_details")
            cached = _field(ptd, "cached_tokens") if ptd is not None else None
            if isinstance(cached, int):
                rec.cached_tokens = cached
        copy_spec_fields(rec, spec_details(chunk))
        content, reasoning = "", ""
        for ch in _field(chunk, "choices") or []:
            if (_field(ch, "index") or 0) != 0:
                continue
            delta = _field(ch, "delta")
            content = _field(delta, "content") or ""
            reasoning = _field(delta, "reasoning_content") or ""
            if content or reasoning or _field(delta, "tool_calls"):
                record_content_chunk(rec, live, t_ns, t0, cum)  # the same bookkeeping as the console's client
            fr = _field(ch, "finish_reason")
            if fr:
                rec.finish_reason = str(fr)
                rec.matched_stop = _field(ch, "matched_stop")
        return content, reasoning

    async def aclose(self) -> None:
        if self._client is not None:
            try:
                await self._client.close()
            finally:
                self._client = None

    # --- export ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Messages, per-turn figures and raw records, model and server spec label; never the API key."""
        return {
            "schema": CHAT_SCHEMA,
            "kind": "chat",
            "saved_utc": utc_iso(),
            "model": self.model,
            "server": {"base_url": _strip_userinfo(self.base_url), "spec_label": self.spec_label,
                       "engine_version": self.engine_version, "simulated": self.simulated,
                       "num_draft_tokens": self.num_draft_tokens},
            "label": self.label,
            "system_prompt": self.system_prompt,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timing": SDK_TIMING_NOTE,
            "messages": self.messages(),
            "turns": [t.to_json() for t in self.history],
        }

    def to_markdown(self) -> str:
        """The transcript as Markdown, with each answer's figures under it (what `copy` puts on the clipboard)."""
        head = f"# Chat with {self.model}"
        lines = [head, ""]
        srv = f"server {_strip_userinfo(self.base_url)}"
        if self.spec_label:
            srv += f" · {self.spec_label}"
        if self.engine_version:
            srv += f" · SGLang {self.engine_version}"
        if self.simulated:
            srv += " · SIMULATED (engine twin)"
        lines += [srv, f"temperature {self.temperature:g} · max tokens {self.max_tokens}", ""]
        if self.system_prompt.strip():
            lines += ["**System:**", "", self.system_prompt.strip(), ""]
        for t in self.history:
            lines += [f"## Turn {t.index}", "", "**You:**", "", t.user.strip(), ""]
            label = "**Assistant** (stopped):" if t.stopped else "**Assistant:**"
            lines += [label, ""]
            if t.reasoning.strip():
                lines += ["<details><summary>reasoning</summary>", "", t.reasoning.strip(), "", "</details>", ""]
            if t.assistant.strip():
                lines += [t.assistant.strip(), ""]
            lines += [f"> {t.stats_line(wide=True)}", ""]
        lines += [f"_Figures {SDK_TIMING_NOTE}._", ""]
        return "\n".join(lines)

    def save(self, session_dir: str | Path) -> tuple[Path, Path]:
        """Write `chat-<n>.json` and `chat-<n>.md` into the session directory (the same n on every save of
        this conversation, a new one after `clear()`). The API key appears in neither."""
        d = Path(session_dir)
        d.mkdir(parents=True, exist_ok=True)
        if self._save_n is None:
            taken = []
            for p in d.glob("chat-*.json"):
                try:
                    taken.append(int(p.stem.split("-", 1)[1]))
                except (IndexError, ValueError):
                    continue
            self._save_n = max(taken, default=0) + 1
        jpath, mpath = d / f"chat-{self._save_n}.json", d / f"chat-{self._save_n}.md"
        obj = redact_mapping(self.to_json())
        md = self.to_markdown()
        key = self._api_key if self._api_key != "none" else None
        obj, md = redact_json(obj, [key]), redact_text(md, [key])
        write_json(jpath, obj)
        tmp = mpath.with_suffix(".md.tmp")
        tmp.write_text(md, encoding="utf-8")
        tmp.replace(mpath)
        return jpath, mpath


# --- both arms ----------------------------------------------------------------------------------


def _server_kw(info: Any, kw: dict[str, Any]) -> dict[str, Any]:
    """ChatSession keyword defaults from a ServerInfo (None: nothing known)."""
    arm = info.arm if info is not None else None
    kw.setdefault("model", info.model_name() if info is not None else "default")
    kw.setdefault("spec_label", arm.label() if arm is not None else None)
    kw.setdefault("num_draft_tokens", arm.draft_tokens if arm is not None and arm.speculative else None)
    kw.setdefault("engine_version", info.version if info is not None else None)
    return kw


async def send_to_arms(sessions: Sequence[ChatSession], user_text: str,
                       on_text: Callable[[int, str], None] | None = None,
                       on_done: Callable[[int, ChatTurn], None] | None = None) -> list[ChatTurn]:
    """Send one user message to every session (one per server, e.g. the two arms of a pair) concurrently.
    `on_text(i, delta)` and `on_done(i, turn)` name the session by its index; returns the turns in order."""

    async def one(i: int, s: ChatSession) -> ChatTurn:
        cb = (lambda d: on_text(i, d)) if on_text is not None else None
        turn = await s.stream_turn(user_text, cb)
        if on_done is not None:
            on_done(i, turn)
        return turn

    return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(sessions))))


def stop_all(sessions: Sequence[ChatSession]) -> int:
    """Stop every streaming reply (thread-safe); the number stopped."""
    return sum(1 for s in sessions if s.stop())
