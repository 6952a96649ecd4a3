"""Plots the console draws itself (docs/reports.md#plotting): one scene of primitives per plot, written as inline
SVG (the HTML report, slides) and drawn again by Pillow as PNG from the same geometry, so both files show the same
marks. No plotting library, no script, no font or image fetched: an HTML report that holds these opens offline.

Data marks carry the class `mark` (points, lines, bars, intervals): the browser test counts them in the rendered
page, and every point can carry a tooltip naming its row (a request id).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

# One palette for the console's plots: arms A/B first, then further cells/arms.
PALETTE = ("#1f6fb4", "#d1495b", "#2a9d5c", "#e0901b", "#7b4fb4", "#3b9bb5", "#a05a2c", "#6b6b6b")
INK = "#222222"
MUTED = "#6b6b6b"
GRID = "#e3e3e3"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif"


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


@dataclass
class Prim:
    kind: str  # line | polyline | rect | circle | text
    a: dict
    mark: bool = False
    tip: str | None = None


@dataclass
class Scene:
    """A plot as primitives in a `width` × `height` box (SVG user units = PNG pixels at scale 1)."""

    width: int
    height: int
    title: str = ""
    prims: list[Prim] = field(default_factory=list)

    # --- primitives ---------------------------------------------------------------------------------
    def line(self, x1, y1, x2, y2, stroke=INK, width=1.0, dash: tuple[int, int] | None = None, mark=False,
             tip=None) -> None:
        self.prims.append(Prim("line", dict(x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, width=width, dash=dash),
                               mark, tip))

    def polyline(self, pts: Sequence[tuple[float, float]], stroke=INK, width=2.0, dash=None, mark=True,
                 tip=None) -> None:
        if len(pts) >= 2:
            self.prims.append(Prim("polyline", dict(pts=list(pts), stroke=stroke, width=width, dash=dash), mark, tip))

    def rect(self, x, y, w, h, fill="none", stroke=None, width=1.0, opacity=1.0, mark=False, tip=None) -> None:
        self.prims.append(Prim("rect", dict(x=x, y=y, w=w, h=h, fill=fill, stroke=stroke, width=width,
                                            opacity=opacity), mark, tip))

    def circle(self, cx, cy, r, fill=INK, stroke=None, opacity=1.0, mark=True, tip=None) -> None:
        self.prims.append(Prim("circle", dict(cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, opacity=opacity),
                               mark, tip))

    def text(self, x, y, s: str, size=12, fill=INK, anchor="start", bold=False) -> None:
        """`y` is the text's baseline; `anchor` start | middle | end."""
        self.prims.append(Prim("text", dict(x=x, y=y, s=str(s), size=size, fill=fill, anchor=anchor, bold=bold)))

    @property
    def marks(self) -> int:
        return sum(p.mark for p in self.prims)

    # --- SVG ----------------------------------------------------------------------------------------
    def to_svg(self, standalone: bool = False, plot_id: str | None = None) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
                + (f'width="{self.width}" height="{self.height}" ' if standalone else "")
                + (f'id="{escape(plot_id)}" ' if plot_id else "")
                + f'class="plot" role="img" aria-label="{escape(self.title)}" font-family="{escape(FONT)}">')
        out = [head, f"<title>{escape(self.title)}</title>",
               f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="#ffffff"/>']
        for p in self.prims:
            out.append(_svg_prim(p))
        out.append("</svg>")
        return "".join(out)

    # --- PNG ----------------------------------------------------------------------------------------
    def to_png(self, scale: float = 2.0) -> bytes:
        """The same geometry drawn by Pillow at `scale` (2 = crisp on slides)."""
        from PIL import Image, ImageDraw

        w, h = int(round(self.width * scale)), int(round(self.height * scale))
        img = Image.new("RGB", (w, h), "#ffffff")
        d = ImageDraw.Draw(img, "RGBA")
        s = scale
        for p in self.prims:
            a = p.a
            if p.kind == "line":
                _png_line(d, [(a["x1"] * s, a["y1"] * s), (a["x2"] * s, a["y2"] * s)], a["stroke"], a["width"] * s,
                          a["dash"], s)
            elif p.kind == "polyline":
                _png_line(d, [(x * s, y * s) for x, y in a["pts"]], a["stroke"], a["width"] * s, a["dash"], s)
            elif p.kind == "rect":
                box = [a["x"] * s, a["y"] * s, (a["x"] + a["w"]) * s, (a["y"] + a["h"]) * s]
                box = [min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])]
                fill = None if a["fill"] == "none" else _rgba(a["fill"], a["opacity"])
                outline = _rgba(a["stroke"], 1.0) if a["stroke"] else None
                d.rectangle(box, fill=fill, outline=outline, width=max(1, int(round(a["width"] * s))) if outline else 0)
            elif p.kind == "circle":
                r = a["r"] * s
                box = [a["cx"] * s - r, a["cy"] * s - r, a["cx"] * s + r, a["cy"] * s + r]
                d.ellipse(box, fill=_rgba(a["fill"], a["opacity"]) if a["fill"] != "none" else None,
                          outline=_rgba(a["stroke"], 1.0) if a["stroke"] else None,
                          width=max(1, int(round(s))) if a["stroke"] else 0)
            elif p.kind == "text":
                font = _font(a["size"] * s, a["bold"])
                anchor = {"start": "ls", "middle": "ms", "end": "rs"}[a["anchor"]]
                d.text((a["x"] * s, a["y"] * s), a["s"], fill=_rgba(a["fill"], 1.0), font=font, anchor=anchor)
        buf = io.BytesIO()
        img.save(buf, format="PNG", optimize=True)
        return buf.getvalue()


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def _svg_prim(p: Prim) -> str:
    a = p.a
    cls = ' class="mark"' if p.mark else ""
    tip = f"<title>{escape(p.tip)}</title>" if p.tip else ""
    dash = f' stroke-dasharray="{a["dash"][0]} {a["dash"][1]}"' if a.get("dash") else ""
    if p.kind == "line":
        body = (f'<line{cls} x1="{_f(a["x1"])}" y1="{_f(a["y1"])}" x2="{_f(a["x2"])}" y2="{_f(a["y2"])}" '
                f'stroke="{a["stroke"]}" stroke-width="{_f(a["width"])}"{dash}')
    elif p.kind == "polyline":
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in a["pts"])
        body = (f'<polyline{cls} points="{pts}" fill="none" stroke="{a["stroke"]}" stroke-width="{_f(a["width"])}" '
                f'stroke-linejoin="round"{dash}')
    elif p.kind == "rect":
        x, w = (a["x"], a["w"]) if a["w"] >= 0 else (a["x"] + a["w"], -a["w"])
        y, h = (a["y"], a["h"]) if a["h"] >= 0 else (a["y"] + a["h"], -a["h"])
        st = f' stroke="{a["stroke"]}" stroke-width="{_f(a["width"])}"' if a["stroke"] else ""
        op = f' fill-opacity="{a["opacity"]:g}"' if a["opacity"] != 1 else ""
        body = f'<rect{cls} x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" fill="{a["fill"]}"{op}{st}'
    elif p.kind == "circle":
        st = f' stroke="{a["stroke"]}"' if a["stroke"] else ""
        op = f' fill-opacity="{a["opacity"]:g}"' if a["opacity"] != 1 else ""
        body = f'<circle{cls} cx="{_f(a["cx"])}" cy="{_f(a["cy"])}" r="{_f(a["r"])}" fill="{a["fill"]}"{op}{st}'
    else:
        anchor = f' text-anchor="{a["anchor"]}"' if a["anchor"] != "start" else ""
        weight = ' font-weight="bold"' if a["bold"] else ""
        return (f'<text x="{_f(a["x"])}" y="{_f(a["y"])}" font-size="{a["size"]}" fill="{a["fill"]}"{anchor}'
                f'{weight}>{escape(a["s"])}</text>')
    return body + (f">{tip}</{_tag(p.kind)}>" if tip else "/>")


def _tag(kind: str) -> str:
    return {"line": "line", "polyline": "polyline", "rect": "rect", "circle": "circle"}[kind]


def _rgba(hexcolor: str, opacity: float) -> tuple[int, int, int, int]:
    h = hexcolor.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), int(round(255 * opacity))


_FONTS: dict[tuple[int, bool], object] = {}


def _font(size: float, bold: bool):
    from PIL import ImageFont

    key = (int(round(size)), bold)
    if key not in _FONTS:
        f = None
        for name in (("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf") if bold else
                     ("DejaVuSans.ttf", "LiberationSans-Regular.ttf")):
            try:
                f = ImageFont.truetype(name, key[0])
                break
            except OSError:
                continue
        _FONTS[key] = f or ImageFont.load_default(size=key[0])  # Pillow's own font: no system font needed
    return _FONTS[key]


def _png_line(d, pts, stroke, width, dash, s) -> None:
    col = _rgba(stroke, 1.0)
    wpx = max(1, int(round(width)))
    if not dash:
        d.line(pts, fill=col, width=wpx, joint="curve")
        return
    on, off = dash[0] * s, dash[1] * s
    for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False):
        seg = math.hypot(x2 - x1, y2 - y1)
        t = 0.0
        while t < seg:
            t2 = min(t + on, seg)
            d.line([(x1 + (x2 - x1) * t / seg, y1 + (y2 - y1) * t / seg),
                    (x1 + (x2 - x1) * t2 / seg, y1 + (y2 - y1) * t2 / seg)], fill=col, width=wpx)
            t = t2 + off


# --- scales ---------------------------------------------------------------------------------------------

def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1-2-5 steps)."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    t = start
    while t <= hi + step * 1e-9:
        if t >= lo - step * 1e-9:
            ticks.append(round(t, 10))
        t += step
    return ticks


def tick_text(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if float(v).is_integer():
        return f"{v:.0f}"
    return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) < 10 else f"{v:.1f}"


@dataclass
class Linear:
    lo: float
    hi: float
    a: float  # pixel of lo
    b: float  # pixel of hi

    def __call__(self, v: float) -> float:
        span = (self.hi - self.lo) or 1.0
        return self.a + (v - self.lo) / span * (self.b - self.a)


LOG_SPAN = 12.0
"""A strip chart whose values span more than this ratio uses a log axis."""


@dataclass
class LogScale:
    lo: float
    hi: float
    a: float
    b: float

    def __call__(self, v: float) -> float:
        v = max(v, self.lo)
        return self.a + (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo)) * (
            self.b - self.a)


def log_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks per decade inside [lo, hi] (1 only when the span is wide)."""
    out = []
    span = math.log10(hi) - math.log10(lo)
    steps = (1, 2, 5) if span < 2.5 else (1,)
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in steps:
            t = m * 10 ** e
            if lo <= t <= hi:
                out.append(float(t))
    return out


def padded(values: Sequence[float], frac: float = 0.06, zero: bool = False) -> tuple[float, float]:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    span = (hi - lo) or (abs(hi) or 1.0)
    lo2 = lo - span * frac if not (zero and lo == 0) else lo
    return lo2, hi + span * frac


# --- charts ---------------------------------------------------------------------------------------------

@dataclass
class Strip:
    """One row of a strip chart: every value a point, median and p10/p90 marked (figures given by the caller,
    computed by the same functions as the report's)."""

    label: str
    values: Sequence[float]
    tips: Sequence[str] = ()
    median: float | None = None
    p10: float | None = None
    p90: float | None = None
    color: str = PALETTE[0]


def strip_chart(title: str, rows: Sequence[Strip], unit: str, width: int = 720) -> Scene:
    """Per-request distributions on one shared axis: a band per row, points jittered inside it, a thick tick at
    the median and a bracket from p10 to p90."""
    label_w = min(200, max(60, 7 * max((len(r.label) for r in rows), default=4) + 16))
    band = 34
    top, bottom = 30, 40
    h = top + band * max(len(rows), 1) + bottom
    sc = Scene(width, h, title)
    vals = [v for r in rows for v in r.values] + [v for r in rows for v in (r.p10, r.p90) if v is not None]
    pos = [v for v in vals if v > 0]
    log = bool(pos) and len(pos) == len(vals) and max(pos) / min(pos) > LOG_SPAN
    x: LogScale | Linear
    if log:  # values spanning more than LOG_SPAN× (an outlier, or arms far apart): a log axis, said on the plot
        lo, hi = min(pos) / 1.15, max(pos) * 1.15
        ticks = log_ticks(lo, hi)
        x = LogScale(lo, hi, label_w, width - 16)
    else:
        lo, hi = padded(vals)
        ticks = nice_ticks(lo, hi, 6)
        lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
        x = Linear(lo, hi, label_w, width - 16)
    y_axis = top + band * len(rows)
    for t in ticks:
        sc.line(x(t), top - 6, x(t), y_axis, GRID)
        sc.text(x(t), y_axis + 16, tick_text(t), 12, MUTED, "middle")
    sc.line(label_w, y_axis, width - 16, y_axis, MUTED)
    sc.text(width - 16, y_axis + 32, unit + (" (log axis)" if log else ""), 12, MUTED, "end")
    sc.text(label_w, 16, "● request   ┃ median   ├┤ p10–p90", 12, MUTED)
    for i, r in enumerate(rows):
        cy = top + band * i + band / 2
        sc.text(label_w - 10, cy + 4, r.label, 13, INK, "end")
        n = len(r.values)
        for j, v in enumerate(r.values):
            jitter = ((j * 0.618034) % 1.0 - 0.5) * (band - 14)
            sc.circle(x(v), cy + jitter, 3.2, r.color, opacity=0.55,
                      tip=(r.tips[j] if j < len(r.tips) else f"{v:.1f} {unit}"))
        if r.p10 is not None and r.p90 is not None:
            yb = cy + band / 2 - 4
            sc.line(x(r.p10), yb, x(r.p90), yb, r.color, 1.5, mark=True,
                    tip=f"p10 {r.p10:.1f} – p90 {r.p90:.1f} {unit}")
            sc.line(x(r.p10), yb - 4, x(r.p10), yb + 1, r.color, 1.5)
            sc.line(x(r.p90), yb - 4, x(r.p90), yb + 1, r.color, 1.5)
        if r.median is not None:
            sc.line(x(r.median), cy - band / 2 + 3, x(r.median), cy + band / 2 - 3, INK, 2.5, mark=True,
                    tip=f"median {r.median:.1f} {unit} (n {n})")
            sc.text(x(r.median) + 4, cy - band / 2 + 12, f"{r.median:.1f}", 11, INK)
        if n == 0:
            sc.text(label_w + 6, cy + 4, "(no included request)", 12, MUTED)
    return sc


@dataclass
class Series:
    label: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    color: str = PALETTE[0]
    dash: tuple[int, int] | None = None
    points: bool = True
    hollow: bool = False
    line: bool = True
    tips: Sequence[str] = ()


def line_chart(title: str, series: Sequence[Series], x_label: str, y_label: str, width: int = 720, height: int = 300,
               y_range: tuple[float, float] | None = None, integer_x: bool = True,
               highlight: Sequence[tuple[float, float, str]] = ()) -> Scene:
    """Series against a shared x (e.g. draft position, depth, concurrency). `highlight`: (x, y, text) callouts
    drawn as a ring and a label (e.g. the point where a speculative arm turns net-negative)."""
    sc = Scene(width, height, title)
    left, right = 58, 16
    lines = _legend_lines(series, width - left - right)
    top = 34 + 16 * (max(lines) + 1 if lines else 0)
    bottom = 44
    xs = [x for s in series for x, y in zip(s.xs, s.ys, strict=True) if y is not None]
    ys = [y for s in series for y in s.ys if y is not None] + [y for _, y, _ in highlight]
    if not xs:
        sc.text(width / 2, height / 2, "(nothing to plot)", 13, MUTED, "middle")
        return sc
    xlo, xhi = min(xs), max(xs)
    if xlo == xhi:
        xlo, xhi = xlo - 1, xhi + 1
    pad = (xhi - xlo) * 0.04
    ylo, yhi = y_range if y_range else padded(ys, 0.08)
    yt = nice_ticks(ylo, yhi, 5)
    if not y_range:
        ylo, yhi = min(ylo, yt[0]), max(yhi, yt[-1])
    yt = [t for t in yt if ylo - 1e-9 <= t <= yhi + 1e-9]
    X = Linear(xlo - pad, xhi + pad, left, width - right)
    Y = Linear(ylo, yhi, height - bottom, top)
    for t in yt:
        sc.line(left, Y(t), width - right, Y(t), GRID)
        sc.text(left - 6, Y(t) + 4, tick_text(t), 12, MUTED, "end")
    xt = sorted(set(xs)) if integer_x and len(set(xs)) <= 16 else nice_ticks(xlo, xhi, 8)
    for t in xt:
        sc.line(X(t), height - bottom, X(t), height - bottom + 4, MUTED)
        sc.text(X(t), height - bottom + 17, tick_text(t), 12, MUTED, "middle")
    sc.line(left, height - bottom, width - right, height - bottom, MUTED)
    sc.line(left, top, left, height - bottom, MUTED)
    sc.text(width - right, height - 8, x_label, 12, MUTED, "end")
    sc.text(8, top - 10, y_label, 12, MUTED)
    _legend(sc, series, left, width - right, lines)
    for s in series:
        if s.line:
            # a gap (None) breaks the line
            run: list[tuple[float, float]] = []
            for x, y in zip(s.xs, s.ys, strict=True):
                if y is None:
                    sc.polyline(run, s.color, 2.0, s.dash, tip=s.label)
                    run = []
                else:
                    run.append((X(x), Y(y)))
            sc.polyline(run, s.color, 2.0, s.dash, tip=s.label)
        if s.points:
            k = 0
            for x, y in zip(s.xs, s.ys, strict=True):
                if y is None:
                    continue
                tip = s.tips[k] if k < len(s.tips) else f"{s.label}: {tick_text(x)} → {y:.3g}"
                k += 1
                if s.hollow:
                    sc.circle(X(x), Y(y), 4.5, "#ffffff", stroke=s.color, tip=tip)
                else:
                    sc.circle(X(x), Y(y), 3.5, s.color, tip=tip)
    for hx, hy, text in highlight:
        sc.circle(X(hx), Y(hy), 9, "none", stroke="#c0392b", tip=text)
        sc.text(X(hx) + (-12 if X(hx) > width * 0.7 else 12), Y(hy) - 12, text, 12, "#c0392b",
                "end" if X(hx) > width * 0.7 else "start", bold=True)
    return sc


def text_width(s: str, size: float) -> float:
    """An estimate of a label's width in a sans-serif font (legend layout; SVG and PNG fonts differ a little)."""
    return 0.58 * size * len(s)


def _legend_lines(series: Sequence[Series], avail: float) -> list[int]:
    """The legend line of each entry: entries flow left to right and wrap."""
    out, x, line = [], 0.0, 0
    for s in series:
        w = 23 + text_width(s.label, 12) + 18
        if x > 0 and x + w > avail:
            line, x = line + 1, 0.0
        out.append(line)
        x += w
    return out


def _legend(sc: Scene, series: Sequence[Series], x0: float, x1: float, lines: list[int]) -> None:
    x, cur = x0, 0
    for s, line in zip(series, lines, strict=True):
        if line != cur:
            x, cur = x0, line
        ly = 13 + 16 * line
        if s.line:
            sc.line(x, ly - 4, x + 18, ly - 4, s.color, 2.5, s.dash)
        if s.points or not s.line:
            if s.hollow:
                sc.circle(x + 9, ly - 4, 4, "#ffffff", stroke=s.color, mark=False)
            else:
                sc.circle(x + 9, ly - 4, 3.5, s.color, mark=False)
        sc.text(x + 23, ly, s.label, 12, INK)
        x += 23 + text_width(s.label, 12) + 18


@dataclass
class Interval:
    label: str
    point: float | None
    low: float | None
    high: float | None
    color: str = PALETTE[0]
    note: str = ""


def interval_chart(title: str, rows: Sequence[Interval], unit: str = "%", width: int = 720) -> Scene:
    """Point estimates with their 95% CI on one axis that always shows 0 (a CI crossing it is unresolved)."""
    label_w = min(330, max(70, max((max(text_width(r.label, 13), text_width(r.note, 11)) for r in rows),
                                   default=30) + 20))
    band = 40
    top, bottom = 14, 40
    h = top + band * max(len(rows), 1) + bottom
    sc = Scene(width, h, title)
    vals = [v for r in rows for v in (r.point, r.low, r.high) if v is not None]
    lo, hi = padded(vals + [0.0], 0.1, zero=True)
    ticks = nice_ticks(lo, hi, 6)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    x = Linear(lo, hi, label_w, width - 24)
    y_axis = top + band * len(rows)
    for t in ticks:
        sc.line(x(t), top, x(t), y_axis, GRID)
        sc.text(x(t), y_axis + 16, tick_text(t) + unit, 12, MUTED, "middle")
    sc.line(x(0), top - 4, x(0), y_axis, INK, 1.5, dash=(4, 3))
    sc.line(label_w, y_axis, width - 24, y_axis, MUTED)
    for i, r in enumerate(rows):
        cy = top + band * i + band / 2
        sc.text(label_w - 10, cy + 4, r.label, 13, INK, "end")
        if r.point is None:
            sc.text(label_w + 6, cy + 4, "(too few requests)", 12, MUTED)
            continue
        if r.low is not None and r.high is not None:
            sc.rect(x(r.low), cy - 7, x(r.high) - x(r.low), 14, r.color, opacity=0.3, mark=True,
                    tip=f"{r.label}: 95% CI [{r.low:+.1f}, {r.high:+.1f}]{unit}")
            sc.line(x(r.low), cy - 7, x(r.low), cy + 7, r.color, 2)
            sc.line(x(r.high), cy - 7, x(r.high), cy + 7, r.color, 2)
        sc.circle(x(r.point), cy, 5, r.color, tip=f"{r.label}: {r.point:+.1f}{unit}")
        txt = f"{r.point:+.1f}{unit}" + (f"  [{r.low:+.1f}, {r.high:+.1f}]" if r.low is not None else "")
        sc.text(x(r.point), cy - 11, txt, 12, INK, "middle")
        if r.note:
            sc.text(label_w - 10, cy + 17, r.note, 11, MUTED, "end")
    return sc


def bar_chart(title: str, labels: Sequence[str], values: Sequence[float | None], unit: str, width: int = 720,
              colors: Sequence[str] | None = None, tips: Sequence[str] = ()) -> Scene:
    """Horizontal bars (e.g. predicted vs measured tok/s), the value printed at each bar's end."""
    label_w = min(240, max(70, 7 * max((len(x) for x in labels), default=4) + 16))
    band = 30
    top, bottom = 10, 36
    h = top + band * max(len(labels), 1) + bottom
    sc = Scene(width, h, title)
    vals = [v for v in values if v is not None]
    hi = max(vals) * 1.15 if vals else 1.0
    ticks = nice_ticks(0, hi, 6)
    x = Linear(0, max(hi, ticks[-1]), label_w, width - 20)
    y_axis = top + band * len(labels)
    for t in ticks:
        sc.line(x(t), top, x(t), y_axis, GRID)
        sc.text(x(t), y_axis + 16, tick_text(t), 12, MUTED, "middle")
    sc.text(width - 20, y_axis + 31, unit, 12, MUTED, "end")
    for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
        cy = top + band * i + band / 2
        sc.text(label_w - 10, cy + 4, lab, 13, INK, "end")
        if v is None:
            sc.text(label_w + 6, cy + 4, "—", 12, MUTED)
            continue
        c = (colors[i] if colors and i < len(colors) else color(i))
        sc.rect(x(0), cy - 9, x(v) - x(0), 18, c, opacity=0.85, mark=True,
                tip=tips[i] if i < len(tips) else f"{lab}: {v:.1f} {unit}")
        sc.text(x(v) + 6, cy + 4, f"{v:.1f}", 12, INK)
    sc.line(x(0), top, x(0), y_axis, MUTED)
    return sc
