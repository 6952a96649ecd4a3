"""Terminal plots shared by the TUI and the markdown reports (plain text; styling is the caller's)."""

from __future__ import annotations

from collections.abc import Sequence

from console.core.measure import stats

BLOCKS = " ▏▎▍▌▋▊▉█"
SPARK = "▁▂▃▄▅▆▇█"


def bar(frac: float | None, width: int) -> str:
    """Horizontal bar with eighth-block resolution, padded to `width`."""
    if frac is None or width <= 0:
        return " " * max(width, 0)
    f = min(max(frac, 0.0), 1.0) * width
    full = int(f)
    rem = int(round((f - full) * 8))
    if rem == 8:
        full, rem = full + 1, 0
    s = "█" * full + (BLOCKS[rem] if rem and full < width else "")
    return s.ljust(width)


def sparkline(values: Sequence[float], width: int) -> str:
    """The last `width` values as block heights (0 as blank), right-aligned in exactly `width` columns."""
    vals = list(values)[-width:]
    if not vals:
        return ""
    hi = max(vals) or 1.0
    s = "".join(SPARK[min(int(v / hi * (len(SPARK) - 1) + 0.5), len(SPARK) - 1)] if v > 0 else " " for v in vals)
    return s.rjust(width)


def histogram_strip(values: Sequence[float], width: int, lo: float | None = None,
                    hi: float | None = None) -> tuple[str, int, float, float] | None:
    """(strip, median column, lo, hi): one column per bin, block height ∝ count, '·' for empty bins.
    Fewer bins than `width` when there are few values. `lo`/`hi` fix the axis (to compare two arms)."""
    vals = sorted(values)
    if len(vals) < 2 or width < 8:
        return None
    lo_given, hi_given = lo, hi
    lo = vals[0] if lo is None else lo
    hi = vals[-1] if hi is None else hi
    span = (hi - lo) or 1.0
    if lo_given is None and hi_given is None:  # few values: fewer bins (a shared axis keeps its width)
        width = min(width, max(8, 3 * len(vals)))
    counts = [0] * width
    for v in vals:
        counts[min(max(int((v - lo) / span * width), 0), width - 1)] += 1
    top = max(counts)
    strip = "".join(SPARK[min(len(SPARK) - 1, int(c / top * (len(SPARK) - 1) + 0.5))] if c else "·" for c in counts)
    med = stats.interp_median(vals)
    assert med is not None  # two values at least
    col = min(max(int((med - lo) / span * width), 0), width - 1)
    return strip, col, lo, hi


def histogram_lines(values: Sequence[float], width: int, unit: str = "tok/s", lo: float | None = None,
                    hi: float | None = None) -> list[str]:
    """Two plain lines: `lo strip hi unit` and a median marker under it."""
    h = histogram_strip(values, width, lo, hi)
    if h is None:
        return []
    strip, col, lo, hi = h
    left = f"{lo:.0f} "
    return [f"{left}{strip} {hi:.0f} {unit}", " " * (len(left) + col) + f"▲ median {stats.interp_median(values):.1f}"]


def position_bars(p: Sequence[float], width: int) -> list[str]:
    """One line per draft position: `p1 ███▌ 0.93`."""
    return [f"p{i:<2} {bar(x, width)} {x:.2f}" for i, x in enumerate(p, 1)]
