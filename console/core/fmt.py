"""The console's few text formats, each written once: ISO 8601 UTC timestamps (in everything it writes), the
compact UTC stamp of session folder names, one-line text for errors shown in a single line, and a figure
or its dash (`num`)."""

from __future__ import annotations

import time


def utc_iso(t: float | None = None) -> str:
    """`t` (Unix seconds; default now) as `YYYY-MM-DDTHH:MM:SSZ`."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def utc_stamp(t: float | None = None) -> str:
    """`t` (default now) as `YYYYMMDDTHHMMSSZ`, as session folders are named."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))


def one_line(text: str, limit: int = 200) -> str:
    """Whitespace (line breaks included) collapsed to single spaces, cut at `limit` with an ellipsis."""
    line = " ".join(str(text).strip().split())
    return line[:limit] + ("…" if len(line) > limit else "")


def num(v: object, spec: str = ".1f", unit: str = "", none: str = "—") -> str:
    """A figure as text: `none` ('—') when there is none, else `format(v, spec)` and its unit."""
    return none if v is None else f"{v:{spec}}{unit}"
