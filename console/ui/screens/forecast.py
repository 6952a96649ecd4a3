"""Forecast: price other draft depths from one measured cell (docs/measurement.md), before running them.

A table of depths (EAGLE-like: steps 3–8; DFLASH: blocks 4/8/16/32) with τ(k), step(k), tok/s(k), the change
against the measured cell and how many acceptance positions had to be extrapolated; the verify tax and where it
comes from; the per-position acceptance curve, measured positions solid, extrapolated ones dim. Everything is
`sessions.forecasts.cell_forecast` (the same model as `serving-console forecast CELL_DIR`); this screen lays it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from console.core.measure.forecast import LIST_FLOOR, draft_positions, listed_positions
from console.core.measure.plots import position_bars
from console.core.sessions.forecasts import CellForecast, cell_forecast
from console.ui.screens.base import TITLE_CLASS, BackScreen
from console.ui.widgets.footer import ConsoleFooter


def forecast_table(cf: CellForecast) -> Table:
    fc = cf.forecast
    unit = "block" if cf.family == "DFLASH" else "depth"
    t = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for c in (unit, "τ", "step ms", "tok/s", "vs measured", "extrap. p_i"):
        t.add_column(c, justify="right", no_wrap=True)
    for pt in fc.points:
        measured = pt.depth == cf.depth
        delta = 100 * (pt.tok_s / fc.base_tok_s - 1)
        style = "bold" if measured else ""
        t.add_row(Text(str(pt.depth), style=style),
                  Text(f"{pt.tau:.2f}", style=style), Text(f"{pt.step_ms:.2f}", style=style),
                  Text(f"{pt.tok_s:.1f}", style="bold cyan" if measured else ""),
                  Text("measured" if measured else f"{delta:+.1f}%",
                       style="bold" if measured else ("green" if delta > 0 else "red")),
                  Text(extrapolated_range(cf, pt), style="yellow"))
    return t


def extrapolated_range(cf: CellForecast, pt) -> str:
    """Which positions a depth had to extrapolate, named: 'p16–p31' (not a bare count that read as a depth)."""
    if not pt.extrapolated_positions:
        return ""
    k = draft_positions(cf.family, pt.depth)
    first = k - pt.extrapolated_positions + 1
    return f"p{first}" if first == k else f"p{first}–p{k}"


def position_curve(cf: CellForecast, width: int) -> Text:
    """p_i bars up to the deepest forecast depth's last draft position (DFLASH block 32: p31): measured solid,
    extrapolated dim and labelled; extrapolated positions that would read 0.00 are one line, not a bar each."""
    fc = cf.forecast
    deepest = max([draft_positions(cf.family, pt.depth) for pt in fc.points] + [len(fc.positions)])
    shown, left_out = listed_positions(fc.positions, deepest)
    lines = position_bars(shown, width)
    t = Text()
    for i, ln in enumerate(lines):
        if i:
            t.append("\n")
        if i < len(fc.positions):
            t.append(ln, style="cyan")
        else:
            t.append(ln + "  extrapolated", style="dim")
    if left_out:
        first = len(shown) + 1
        name = f"p{first}" if left_out == 1 else f"p{first}–p{deepest}"
        t.append(f"\n{name}: extrapolated below {LIST_FLOOR:g} (not listed)", style="dim")
    return t


def forecast_body(cf: CellForecast, width: int) -> Group:
    fc = cf.forecast
    head = Text()
    head.append(f"from {cf.label}", style="bold")
    head.append(f"  {cf.family} {'block' if cf.family == 'DFLASH' else 'depth'} {cf.depth} · ")
    head.append(f"{fc.base_tok_s:.1f} tok/s", style="bold cyan")
    head.append(f" · τ {fc.base_tau:.2f} · step {fc.base_step_ms:.2f} ms · n={cf.n_included}"
                f" · set {cf.prompt_set or '—'}")
    tax = Text(f"verify tax {fc.verify_tax_ms:.3f} ms per extra drafted token: {fc.tax_source}", style="dim")
    model = Text("τ(k) = 1 + Σ_{i≤k} p_i · step(k) = step(k0) + (k − k0)·tax · tok/s = τ/step · p_i beyond "
                 "the measured ones continue by the mean of the last two conditionals", style="dim")
    curve_title = Text(f"acceptance per draft position (p1..p{len(fc.positions)} measured)", style="bold")
    return Group(head, Text(""), forecast_table(cf), Text(""), tax, model, Text(""), curve_title,
                 position_curve(cf, width), Text(""),
                 Text(f"headless: serving-console forecast {cf.cell_dir}", style="dim"))


class ForecastScreen(BackScreen):
    DEFAULT_CSS = """
    ForecastScreen #forecast-error { color: $error; }
    """

    class Computed(Message, bubble=False):
        """The forecast is on screen (`forecast` set) or refused (`error`, one line)."""

        def __init__(self, forecast: CellForecast | None, error: str | None) -> None:
            super().__init__()
            self.forecast, self.error = forecast, error

    def __init__(self, cell_dir: Path, *, depths: Sequence[int] | None = None, verify_tax_ms: float | None = None,
                 tax_source: str | None = None) -> None:
        """`cell_dir`: a measured cell; `depths`: default EAGLE 3–8 / DFLASH 4,8,16,32; `verify_tax_ms` forces the
        tax, else the forecast's policy chooses it (probed → fitted and resolved → published; measure/forecast)."""
        super().__init__()
        self.cell_dir = Path(cell_dir)
        self.depths = list(depths) if depths else None
        self.verify_tax_ms, self.tax_source = verify_tax_ms, tax_source
        self.result: CellForecast | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(f"forecast · {self.cell_dir.name} · {self.cell_dir.parent.name}", style="bold",
                          no_wrap=True, overflow="ellipsis"), id="forecast-title", classes=TITLE_CLASS)
        with VerticalScroll():
            yield Static(Text("computing…", style="dim"), id="forecast-body")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        self._compute()

    @work(thread=True, exclusive=True, group="forecast")
    def _compute(self) -> None:
        try:
            cf = cell_forecast(self.cell_dir, self.depths, verify_tax_ms=self.verify_tax_ms,
                               tax_source=self.tax_source)
        except (ValueError, OSError) as e:
            self.app.call_from_thread(self._show, None, str(e).splitlines()[0] if str(e) else type(e).__name__)
            return
        self.app.call_from_thread(self._show, cf, None)

    def _bar_width(self) -> int:
        return max(10, min(50, self.app.size.width - 30))

    def _show(self, cf: CellForecast | None, error: str | None) -> None:
        if not self.is_attached:  # closed while the worker read the disk
            return
        self.result, self.error = cf, error
        body = self.query_one("#forecast-body", Static)
        if cf is None:
            body.update(Text(f"no forecast: {error}", style="bold red"))
        else:
            body.update(forecast_body(cf, self._bar_width()))
        self.post_message(self.Computed(cf, error))

    def on_resize(self) -> None:
        if self.result is not None:
            self.query_one("#forecast-body", Static).update(forecast_body(self.result, self._bar_width()))
