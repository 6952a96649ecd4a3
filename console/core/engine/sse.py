"""Incremental Server-Sent Events parser.

Fed raw bytes as they come off the socket, each with the `perf_counter_ns` taken when that read
returned. An event is stamped with the arrival time of the read that completed it, before any JSON
decoding, so the measured time is the bytes' arrival, not our parsing.

SGLang frames every event as `data: <compact json>\\n\\n` (one exception: `event: sglext_ids`), but
the parser follows the SSE rules generally: `\\r\\n`, `\\r` or `\\n` line ends, multi-line data joined by
`\\n`, comments (`:`), `event:` names, unknown fields ignored, and events split across reads.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SSEEvent:
    data: str
    event: str | None
    t_ns: int


class SSEParser:
    """Stateful byte-level parser; call `feed(chunk, t_ns)` per read, then `close(t_ns)`."""

    __slots__ = ("_buf", "_data", "_event", "_max_event_bytes", "_skip_lf")

    def __init__(self, max_event_bytes: int = 64 * 1024 * 1024) -> None:
        self._buf = b""
        self._data: list[str] = []
        self._event: str | None = None
        self._max_event_bytes = max_event_bytes
        self._skip_lf = False
        """The previous read ended in CR: an LF starting this one is the second half of that CRLF."""

    def feed(self, chunk: bytes, t_ns: int) -> list[SSEEvent]:
        if self._skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._skip_lf = False
        buf = self._buf + chunk if self._buf else chunk
        out: list[SSEEvent] = []
        pos = 0
        n = len(buf)
        while pos < n:
            # find the next line end (\n, \r\n or \r)
            nl = buf.find(b"\n", pos)
            cr = buf.find(b"\r", pos, nl if nl >= 0 else n)
            if cr >= 0:
                if cr + 1 >= n:  # a trailing CR ends the line now; an LF opening the next read is skipped
                    end, nxt = cr, cr + 1
                    self._skip_lf = True
                else:
                    end, nxt = cr, (cr + 2 if buf[cr + 1:cr + 2] == b"\n" else cr + 1)
            elif nl >= 0:
                end, nxt = nl, nl + 1
            else:
                break
            line = buf[pos:end]
            pos = nxt
            if not line:
                if self._data:
                    out.append(SSEEvent("\n".join(self._data), self._event, t_ns))
                self._data = []
                self._event = None
                continue
            if line[0] == 58:  # b":" comment
                continue
            colon = line.find(b":")
            if colon < 0:
                field, value = line, b""
            else:
                field = line[:colon]
                value = line[colon + 1:]
                if value[:1] == b" ":
                    value = value[1:]
            if field == b"data":
                self._data.append(value.decode("utf-8", errors="replace"))
            elif field == b"event":
                self._event = value.decode("utf-8", errors="replace")
            # id / retry / unknown fields: ignored
        self._buf = buf[pos:]
        if len(self._buf) > self._max_event_bytes:
            raise ValueError(f"SSE line exceeds {self._max_event_bytes} bytes without a line end")
        return out

    def close(self, t_ns: int) -> list[SSEEvent]:
        """End of stream. Per the SSE spec an event not terminated by a blank line is incomplete and is
        discarded (a stream cut mid-event is a truncated stream, not a malformed chunk). A complete
        last line (`data: x\n` without the blank line) is also pending data and is discarded."""
        self._buf = b""
        self._data = []
        self._event = None
        return []
