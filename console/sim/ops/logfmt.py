"""SGLang's log line format and tqdm progress bars, written the way the real server writes them.

Lines: `[YYYY-mm-dd HH:MM:SS{prefix}] message` with prefix ` TPn` for a scheduler rank when tp > 1 (empty for the
launcher and at tp == 1). Uvicorn lines: `[YYYY-mm-dd HH:MM:SS] INFO:     message`. Timestamps are wall-clock.
Log lines go to stderr, as SGLang's (logging.basicConfig's default stream), with the tqdm bars (`\\r` redraws and
a final newline); only uvicorn's access log goes to stdout (console/sim/entrypoints/server.py, `uvicorn_log_config`).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_BLOCKS = " ▏▎▍▌▋▊▉█"


def timestamp(t: float | None = None) -> str:
    """SGLang's `%Y-%m-%d %H:%M:%S` timestamp (local time)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() if t is None else t))


def format_interval(seconds: float) -> str:
    """tqdm's mm:ss (h:mm:ss past an hour)."""
    s = int(max(0.0, seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _rate_fmt(n: int, elapsed: float) -> tuple[str, float | None]:
    if n <= 0 or elapsed <= 0:
        return "?it/s", None
    rate = n / elapsed
    if 1.0 / rate > 1.0:
        return f"{1.0 / rate:5.2f}s/it", rate
    return f"{rate:5.2f}it/s", rate


def tqdm_line(n: int, total: int, elapsed: float, desc: str = "", bar_format: str | None = None) -> str:
    """One tqdm redraw (without the leading \\r). `bar_format=None` is tqdm's default layout with a 10-cell bar
    (no terminal attached); "completed" is SGLang's BAR_FORMAT
    `{desc}: {percentage:3.0f}% Completed | {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]`."""
    pct = 100.0 * n / total if total else 100.0
    rate_str, rate = _rate_fmt(n, elapsed)
    remaining = format_interval((total - n) / rate) if rate else "?"
    times = f"[{format_interval(elapsed)}<{remaining}, {rate_str}]"
    if bar_format == "completed":
        return f"{desc}: {pct:3.0f}% Completed | {n}/{total} {times}"
    frac = n / total if total else 1.0
    cells = frac * 10
    full = int(cells)
    bar = "█" * full
    if full < 10:
        bar += _BLOCKS[int((cells - full) * 8)] + " " * (9 - full)
    head = f"{desc}: " if desc else ""
    return f"{head}{pct:3.0f}%|{bar}| {n}/{total} {times}"


class SimLog:
    """Writes SGLang-format log lines and tqdm bars to stderr (as SGLang does), each flushed at once."""

    def __init__(self, tp_size: int, err: TextIO | None = None) -> None:
        self.tp_size = tp_size
        self.err = err or sys.stderr
        self._bar_open = False

    def prefix(self, rank: int | None) -> str:
        return f" TP{rank}" if (rank is not None and self.tp_size > 1) else ""

    def line(self, message: str, rank: int | None = None) -> None:
        """A log record of the launcher (rank None) or of scheduler rank `rank`."""
        self.err.write(f"[{timestamp()}{self.prefix(rank)}] {message}\n")
        self.err.flush()

    def uvicorn(self, message: str) -> None:
        """A uvicorn record as SGLang formats it (`[ts] INFO:     message`)."""
        self.err.write(f"[{timestamp()}] INFO:     {message}\n")
        self.err.flush()

    def bar(self, text: str, final: bool = False) -> None:
        """A tqdm redraw on stderr; `final` ends the bar with a newline."""
        self.err.write("\r" + text + ("\n" if final else ""))
        self.err.flush()
        self._bar_open = not final
