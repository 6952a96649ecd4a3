"""Streaming client for SGLang's `/v1/chat/completions` and native `/generate`.

Both paths produce the same `RequestRecord`. Arrival times are `perf_counter_ns` taken when each socket
read returns (see `sse.SSEParser`), before JSON decoding. Chat requests ask for exact cumulative token
counts on every chunk (`stream_options.continuous_usage_stats`) — with speculative decoding one chunk
carries several tokens — and for the per-request speculative details (`return_spec_tokens_details`,
delivered in the `sglext` chunk with empty `choices` before the usage chunk).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from console.core.engine.sse import SSEParser
from console.core.fmt import one_line
from console.core.measure.records import RequestRecord

NS = 1_000_000_000


@dataclass(slots=True)
class InFlight:
    """Live state of a request being streamed; read by monitors at their own rate (never per token)."""

    request_id: str
    t_sent_ns: int
    t_first_ns: int | None = None
    t_last_ns: int | None = None
    tokens: int = 0
    first_tokens: int = 0
    n_chunks: int = 0
    prompt_tokens: int | None = None
    done: bool = False
    time_scale: float = 1.0
    """The engine twin's time scale (1 on a real server): the live rate is the modelled node's."""

    def live_tok_s(self) -> float | None:
        """The per-request statistic so far: (tokens − first-chunk tokens) / (t_last − t_first). Undefined (None)
        until the decode interval holds LIVE_MIN_TOKENS tokens over LIVE_MIN_S modelled seconds: two chunks that
        arrive together at stream start would read tens of thousands of tok/s."""
        if self.t_first_ns is None or self.t_last_ns is None or self.t_last_ns <= self.t_first_ns:
            return None
        n = self.tokens - self.first_tokens
        dt = (self.t_last_ns - self.t_first_ns) / NS * (self.time_scale or 1.0)
        if n < LIVE_MIN_TOKENS or dt < LIVE_MIN_S:
            return None
        return n / dt


LIVE_MIN_TOKENS = 4
LIVE_MIN_S = 0.05


def auth_headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}



def copy_spec_fields(rec: RequestRecord, d: dict[str, Any] | None) -> None:
    """Copy SGLang's per-request speculative fields (meta_info or sglext.spec_tokens_details) into the record;
    the stream client and the chat session both read them here."""
    if d and "spec_verify_ct" in d:
        rec.spec_verify_ct = d.get("spec_verify_ct")
        rec.spec_num_correct_drafts = d.get("spec_num_correct_drafts")
        rec.spec_num_proposed_drafts = d.get("spec_num_proposed_drafts")
        rec.spec_accept_rate = d.get("spec_accept_rate")
        rec.spec_accept_length = d.get("spec_accept_length")
        h = d.get("spec_correct_drafts_histogram")
        rec.spec_histogram = [int(x) for x in h] if isinstance(h, (list, tuple)) else None


class StreamClient:
    """One connection pool per server. Use as an async context manager or call `aclose()`."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        stall_timeout_s: float = 120.0,
        connect_timeout_s: float = 10.0,
        max_connections: int = 256,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            headers=auth_headers(api_key),
            timeout=httpx.Timeout(connect=connect_timeout_s, read=stall_timeout_s, write=30.0, pool=None),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            transport=transport,
        )
        self.inflight: dict[str, InFlight] = {}
        self.time_scale = 1.0
        """The engine twin's time scale (1 on a real server), stamped on every record."""

    async def __aenter__(self) -> StreamClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- public API ------------------------------------------------------------------------

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int,
        temperature: float = 0.6,
        model: str = "default",
        request_id: str | None = None,
        prompt_id: str | None = None,
        spec_details: bool = True,
        ignore_eos: bool = False,
        extra_body: dict[str, Any] | None = None,
        keep_text: bool = True,
        on_chunk: Callable[[InFlight, str], None] | None = None,
    ) -> RequestRecord:
        """Stream one chat completion; never raises for server or network faults (they land in
        `record.error`)."""
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
            "stream_options": {"include_usage": True, "continuous_usage_stats": True},
        }
        if spec_details:
            body["return_spec_tokens_details"] = True
        if ignore_eos:
            body["ignore_eos"] = True
        if extra_body:
            body.update(extra_body)
        rec = RequestRecord(request_id=request_id or uuid.uuid4().hex, endpoint="chat", prompt_id=prompt_id,
                            max_tokens=max_tokens, temperature=temperature, time_scale=self.time_scale)
        await self._stream("/v1/chat/completions", body, rec, self._on_chat_event, keep_text, on_chunk)
        return rec

    async def generate(
        self,
        text: str,
        *,
        max_new_tokens: int,
        temperature: float = 0.6,
        request_id: str | None = None,
        prompt_id: str | None = None,
        ignore_eos: bool = False,
        keep_text: bool = True,
        on_chunk: Callable[[InFlight, str], None] | None = None,
    ) -> RequestRecord:
        """Stream one native `/generate` request (cumulative text; spec fields in the final meta_info)."""
        body = {
            "text": text,
            "sampling_params": {"max_new_tokens": max_new_tokens, "temperature": temperature,
                                "ignore_eos": ignore_eos},
            "stream": True,
        }
        rec = RequestRecord(request_id=request_id or uuid.uuid4().hex, endpoint="generate", prompt_id=prompt_id,
                            max_tokens=max_new_tokens, temperature=temperature, time_scale=self.time_scale)
        await self._stream("/generate", body, rec, self._on_generate_event, keep_text, on_chunk)
        return rec

    # --- machinery -------------------------------------------------------------------------

    async def _stream(self, path: str, body: dict[str, Any], rec: RequestRecord, on_event, keep_text: bool,
                      on_chunk) -> None:
        st = _State(keep_text=keep_text)
        rec.wall_start = time.time()
        t0 = time.perf_counter_ns()
        live = InFlight(request_id=rec.request_id, t_sent_ns=t0, time_scale=rec.time_scale)
        self.inflight[rec.request_id] = live
        parser = SSEParser()
        try:
            async with self._client.stream("POST", path, json=body) as resp:
                if resp.status_code != 200:
                    raw = await resp.aread()
                    rec.error = f"HTTP {resp.status_code} from {path}: {one_line(_error_text(raw))}"
                    rec.t_end_s = (time.perf_counter_ns() - t0) / NS
                    return
                async for chunk in resp.aiter_raw():
                    t = time.perf_counter_ns()
                    for ev in parser.feed(chunk, t):
                        try:
                            if on_event(ev.data, ev.t_ns, t0, rec, live, st, on_chunk):
                                st.done = True
                        except (TypeError, AttributeError, ValueError, KeyError, IndexError) as e:
                            # valid JSON of an unexpected shape (e.g. "choices": 5): a malformed chunk
                            rec.error = rec.error or f"malformed chunk (unexpected shape: {type(e).__name__}): " \
                                                     f"{one_line(ev.data, 80)}"
                t = time.perf_counter_ns()
                for ev in parser.close(t):
                    if on_event(ev.data, ev.t_ns, t0, rec, live, st, on_chunk):
                        st.done = True
                rec.t_end_s = ((st.done_ns or t) - t0) / NS
                if not st.done and rec.error is None:
                    rec.error = "stream ended before [DONE] (truncated)"
        except httpx.TimeoutException as e:
            rec.error = f"timeout ({type(e).__name__}) on {path}: no bytes for the stall timeout"
            rec.t_end_s = (time.perf_counter_ns() - t0) / NS
        except httpx.HTTPError as e:
            rec.error = f"connection error on {path}: {one_line(str(e) or type(e).__name__)}"
            rec.t_end_s = (time.perf_counter_ns() - t0) / NS
        finally:
            live.done = True
            self.inflight.pop(rec.request_id, None)
            if keep_text:
                rec.text = "".join(st.text_parts) if st.text_parts else (st.cum_text or None)
            if rec.error is None and rec.t_first_s is None and rec.completion_tokens:
                rec.error = "no content chunk received"

    @staticmethod
    def _on_chat_event(data: str, t_ns: int, t0: int, rec: RequestRecord, live: InFlight, st: _State,
                       on_chunk) -> bool:
        if data == "[DONE]":
            st.done_ns = t_ns
            return True
        obj = _decode_event(data, rec)
        if obj is None:
            return False
        rid = obj.get("id")
        if rid and rec.rid is None:
            rec.rid = str(rid)
        usage = obj.get("usage")
        cum: int | None = None
        if isinstance(usage, dict):
            ct = usage.get("completion_tokens")
            if isinstance(ct, int):
                cum = ct
                rec.completion_tokens = ct
            pt = usage.get("prompt_tokens")
            if isinstance(pt, int):
                rec.prompt_tokens = pt
                live.prompt_tokens = pt
            ptd = usage.get("prompt_tokens_details")
            if isinstance(ptd, dict) and isinstance(ptd.get("cached_tokens"), int):
                rec.cached_tokens = ptd["cached_tokens"]
        sglext = obj.get("sglext")
        if isinstance(sglext, dict):
            details = sglext.get("spec_tokens_details")
            if isinstance(details, list):
                details = details[0] if details else None
            if isinstance(details, dict):
                copy_spec_fields(rec, details)
        choices = obj.get("choices") or []
        for ch in choices:
            if not isinstance(ch, dict) or ch.get("index", 0) != 0:
                continue
            delta = ch.get("delta") or {}
            piece = (delta.get("content") or "") + (delta.get("reasoning_content") or "")
            if piece or delta.get("tool_calls"):
                record_content_chunk(rec, live, t_ns, t0, cum)
                if st.keep_text and piece:
                    st.text_parts.append(piece)
                if on_chunk is not None:
                    on_chunk(live, piece)
            fr = ch.get("finish_reason")
            if fr:
                rec.finish_reason = fr
                rec.matched_stop = ch.get("matched_stop")
        return False

    @staticmethod
    def _on_generate_event(data: str, t_ns: int, t0: int, rec: RequestRecord, live: InFlight,
                           st: _State, on_chunk) -> bool:
        if data == "[DONE]":
            st.done_ns = t_ns
            return True
        obj = _decode_event(data, rec)
        if obj is None:
            return False
        meta = obj.get("meta_info") or {}
        if meta.get("id") and rec.rid is None:
            rec.rid = str(meta["id"])
        cum = meta.get("completion_tokens")
        cum = cum if isinstance(cum, int) else None
        if cum is not None:
            rec.completion_tokens = cum
        if isinstance(meta.get("prompt_tokens"), int):
            rec.prompt_tokens = meta["prompt_tokens"]
            live.prompt_tokens = rec.prompt_tokens
        if isinstance(meta.get("cached_tokens"), int):
            rec.cached_tokens = meta["cached_tokens"]
        text = obj.get("text")
        if isinstance(text, str) and len(text) > st.cum_len:
            piece = text[st.cum_len:]
            st.cum_len = len(text)
            st.cum_text = text
            record_content_chunk(rec, live, t_ns, t0, cum)
            if on_chunk is not None:
                on_chunk(live, piece)
        fr = meta.get("finish_reason")
        if isinstance(fr, dict):
            rec.finish_reason = fr.get("type")
            rec.matched_stop = fr.get("matched")
            if fr.get("type") == "abort":
                rec.error = f"aborted by server: {one_line(str(fr.get('message', '')))}"
        elif isinstance(fr, str):
            rec.finish_reason = fr
        copy_spec_fields(rec, meta)
        return False


def record_content_chunk(rec: RequestRecord, live: InFlight, t_ns: int, t0: int, cum_tokens: int | None) -> None:
    """Note a chunk with content on the record and its live view: first/last arrival (s after send), tokens
    of the first chunk (the prefill token on SGLang; 1 when the server sends no per-chunk count), the
    cumulative-token timeline."""
    t_s = (t_ns - t0) / NS
    if rec.t_first_s is None:
        rec.t_first_s = t_s
        rec.first_chunk_tokens = cum_tokens if cum_tokens is not None else 1
        live.t_first_ns = t_ns
        live.first_tokens = rec.first_chunk_tokens
    rec.t_last_s = t_s
    rec.n_content_chunks += 1
    rec.chunks.append([round(t_s, 6), cum_tokens if cum_tokens is not None else -1])
    live.t_last_ns = t_ns
    live.n_chunks += 1
    if cum_tokens is not None:
        live.tokens = cum_tokens
    else:
        live.tokens += 1



def _decode_event(data: str, rec: RequestRecord) -> dict[str, Any] | None:
    """JSON object of one SSE event, or None after noting on the record why it is unusable (malformed,
    or SGLang's in-band `{"error": {...}}`)."""
    try:
        obj = json.loads(data)
    except ValueError:
        rec.error = rec.error or f"malformed chunk (not JSON): {one_line(data, 80)}"
        return None
    if not isinstance(obj, dict):
        rec.error = rec.error or f"malformed chunk (not an object): {one_line(data, 80)}"
        return None
    if obj.get("error"):
        err = obj["error"]
        msg = err.get("message") if isinstance(err, dict) else str(err)
        rec.error = f"server error in stream: {one_line(str(msg))}"
        return None
    return obj


@dataclass(slots=True)
class _State:
    keep_text: bool
    done: bool = False
    done_ns: int | None = None
    cum_len: int = 0
    cum_text: str = ""
    text_parts: list = None  # type: ignore[assignment]  # a fresh list per instance, set in __post_init__

    def __post_init__(self) -> None:
        self.text_parts = []


def _error_text(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    try:
        obj = json.loads(text)
    except ValueError:
        return text or "(empty body)"
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)
        if "detail" in obj:
            return str(obj["detail"])
        return str(err)
    return text
