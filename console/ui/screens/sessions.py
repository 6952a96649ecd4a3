"""Sessions browser: every recorded session under the sessions root, newest first, with its pairs and cells.

    enter   a session row folds/unfolds it; a cell opens its report (recomputed from rows.jsonl); a pair opens
            its report (recomputed from the legs' rows, rendered as Markdown)
    space   mark a cell (first mark = A, second = B; a third replaces the oldest)
    c       compare the two marked cells: both medians with n and p10/p90, Δ% with the bootstrap 95% CI, the
            verdict — or the one-line refusal when their prompt-set SHA-256 or protocol differ
    p       next pair        f   forecast other depths from the highlighted cell        r   re-read the disk
    h       write the highlighted session's (or cell's) HTML report beside its folder (`report DIR --html`):
            a toast says where it went, or the one line why not
    escape  back

Listing, recomputation and comparison are core's (`sessions.browse`, `sessions.report`, `pair_runner`); disk
reads run in a thread worker; this module only lays results out. Times are local, with "12 min ago" from an
injectable clock so snapshots do not depend on the wall clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Markdown, Static

from console.core.fmt import num as _n
from console.core.measure.pairs import PairStats, speeds
from console.core.measure.plots import histogram_lines, position_bars
from console.core.sessions.browse import (
    CellEntry,
    PairEntry,
    SessionSummary,
    ago,
    list_sessions,
    local_time,
    pair_missing_legs,
    read_cell,
    report_path_of,
    utc_now,
)
from console.core.sessions.compare import compare_cells, comparison_caveats
from console.core.sessions.pairs import recompute_pair, report_markdown
from console.core.sessions.report import cell_figure_rows, cell_report
from console.core.sessions.store import load_rows
from console.ui.screens.base import TITLE_CLASS, BackScreen
from console.ui.widgets.footer import ConsoleFooter

Now = Callable[[], datetime]


def _clip(s: str, width: int) -> str:
    return s if len(s) <= width else s[: width - 1] + "…"


def _state(glyph: str) -> Text:
    """The listing's last-but-one column: ✓ complete; … incomplete (interrupted or running); ! unreadable in part."""
    return Text(glyph, style={"✓": "green", "…": "yellow", "!": "red"}[glyph])


def set_tag(name: str | None, sha: str | None) -> str:
    """'tool·a1b2c3': the set's name and the first 6 hex of its SHA-256, so equal sets read equal."""
    if not name and not sha:
        return "—"
    return f"{name or '?'}·{sha[:6]}" if sha else f"{name}·?"


# --- cell and pair reports as Markdown (layout over core results) -------------------------------------

def cell_markdown(cell_dir: Path, tz=None) -> str:
    """A cell's report, every figure recomputed from rows.jsonl by `cell_report`."""
    r = cell_report(Path(cell_dir))
    proto = r.get("protocol") or {}
    spec = r.get("speculative")
    lines = [f"# Cell {r.get('label') or Path(cell_dir).name}", ""]
    head = (f"**median {_n(r['median_tok_s'])} tok/s** (interpolated; n {r['n_included']} in the statistic of "
            f"{r['n']}; p10 {_n(r['p10_tok_s'])} / p90 {_n(r['p90_tok_s'])})")
    if r.get("tau") is not None:
        head += f" · **τ {r['tau']:.2f}**"
    lines += [head, ""]
    arm = (f"{spec.get('algorithm')} depth {spec.get('num_steps')} topk {spec.get('topk')} "
           f"({spec.get('num_draft_tokens')} draft tokens)") if spec else "no speculation"
    if spec and str(spec.get("algorithm")).upper() == "DFLASH":
        arm = f"DFLASH block {spec.get('num_draft_tokens')}"
    when = read_cell(Path(cell_dir))
    ran = f"ran {local_time(when.started, tz)}" + (f" → {local_time(when.ended, tz, '%H:%M')}" if when.ended else "")
    lines += [f"{arm} · profile `{r.get('profile') or '—'}` · engine {r.get('engine_version') or '—'}"
              + (" · **SIMULATED**" if r.get("simulated") else "") + f" · {ran}"
              + (" · complete" if r.get("complete") else " · **incomplete** (interrupted or running)"), ""]
    sha = r.get("prompt_set_sha256")
    lines += [f"prompt set `{r.get('prompt_set') or '—'}` sha256 `{sha[:16] + '…' if sha else '—'}` · n "
              f"{proto.get('n', '—')} · max tokens {proto.get('max_tokens', '—')} · temperature "
              f"{proto.get('temperature', '—')} · concurrency {proto.get('concurrency', '—')} · "
              f"{proto.get('endpoint', 'chat')}", ""]
    rows = cell_figure_rows(r)
    lines += ["| figure | value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    if r["excluded"]:
        lines += ["", f"Excluded from the statistic (flags): {', '.join(r['excluded'])}"]
    if r["errors"]:
        lines += ["", "Errors (first 5):", ""] + [f"- {e}" for e in r["errors"]]
    vals = speeds(load_rows(Path(cell_dir)))
    lines += ["", "## tok/s per request", "", "```"]
    lines += histogram_lines(vals, 56) or ["(too few values)"]
    lines += ["```"]
    if r.get("per_position_acceptance"):
        lines += ["", "## Acceptance per draft position", "", "```"]
        lines += position_bars(r["per_position_acceptance"], 40)
        cond = r.get("conditional_acceptance") or []
        lines += ["", "conditional p_i/p_(i-1): " + " ".join(_n(c, ".2f") for c in cond), "```"]
    lines += ["", f"Recompute: `serving-console report {cell_dir}`", ""]
    return "\n".join(lines)


def pair_markdown(pair_path: Path) -> str:
    """A pair's report (pair.json → report.md, pair-k.json → report-k.md), recomputed from the legs' rows
    (`recompute_pair` + `report_markdown`). When a leg's rows are gone or the pair document cannot be read, the
    report as written is shown under a line saying why; when the recomputed verdict differs from the one
    written, both are said."""
    pair_path = Path(pair_path)
    session_dir = pair_path.parent
    try:
        missing = pair_missing_legs(pair_path)
        if missing:
            raise FileNotFoundError(f"no rows for leg {', '.join(missing)}")
        doc, ps, cmp = recompute_pair(session_dir, pair_path)
    except Exception as e:  # a torn pair document or a missing leg: show what was written, say why
        why = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        md = report_path_of(pair_path)
        body = md.read_text(encoding="utf-8") if md.exists() else f"(no {md.name} either)"
        return f"> **Not recomputed** ({why}); this is {md.name} as written.\n\n{body}"
    text = report_markdown(doc, ps, cmp, session_dir)
    if doc.get("verdict") and doc["verdict"] != ps.verdict:
        text = (f"> **The rows now give another verdict** than the one written ({doc['verdict']}): rows were added "
                f"or changed since.\n\n{text}")
    return text


# --- screens -------------------------------------------------------------------------------------------

class ReportScreen(BackScreen):
    """A Markdown report produced by `load` (run in a thread worker: it reads rows from disk)."""

    class Loaded(Message, bubble=False):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, title: str, load: Callable[[], str]) -> None:
        super().__init__()
        self.title_text = title
        self._load = load
        self.text: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text, style="bold", no_wrap=True, overflow="ellipsis"), id="report-title",
                     classes=TITLE_CLASS)
        with VerticalScroll():
            yield Markdown("*reading…*", id="report")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
        self._read()

    @work(thread=True, exclusive=True, group="report")
    def _read(self) -> None:
        try:
            text = self._load()
        except Exception as e:
            text = f"**Could not build the report:** {type(e).__name__}: {e}"
        self.app.call_from_thread(self._show, text)  # type: ignore[arg-type]  # mypy cannot solve textual's `T | Awaitable[T]` for a coroutine

    async def _show(self, text: str) -> None:
        if not self.is_attached:  # closed while the worker read the disk
            return
        self.text = text
        await self.query_one("#report", Markdown).update(text)
        self.post_message(self.Loaded(text))


@dataclass
class Marked:
    cell: CellEntry
    session: SessionSummary


def verdict_card(ps: PairStats, a: Marked, b: Marked, caveats: list[str], tz=None,
                 a_speeds: list[float] | None = None, b_speeds: list[float] | None = None,
                 hist_width: int = 50) -> Table:
    """Both arms with n and spread, Δ% with its CI, the verdict, and what the comparison does not control."""
    t = Table.grid(padding=(0, 1))
    t.add_column()
    arms = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
    arms.add_column("", style="bold", no_wrap=True)
    arms.add_column("median tok/s", justify="right", no_wrap=True)
    arms.add_column("n", justify="right", no_wrap=True)
    arms.add_column("p10 / p90", justify="right", no_wrap=True)
    arms.add_column("τ", justify="right", no_wrap=True)
    arms.add_column("cell", overflow="fold")
    for name, m, s in (("A", a, ps.a), ("B", b, ps.b)):
        where = Text.assemble(f"{m.cell.label} · {m.cell.spec}",
                              (f" · {local_time(m.session.created, tz)} · {m.cell.name}", "dim"))
        arms.add_row(name, Text(_n(s.median_tok_s), style="bold"), str(s.n), f"{_n(s.p10_tok_s)} / {_n(s.p90_tok_s)}",
                     _n(s.tau, ".2f"), where)
    t.add_row(arms)
    eff = Text()
    eff.append("Δ% B vs A  ", style="bold")
    eff.append(ps.effect.text(), style="bold green" if ps.effect.resolved else "bold yellow")
    eff.append(f"  (median of per-request tok/s; bootstrap 95% CI, {ps.n_boot} resamples, seed {ps.seed})", style="dim")
    t.add_row(eff)
    t.add_row(Text(ps.verdict, style="bold"))
    if a_speeds is not None and b_speeds is not None:
        vals = [v for v in (ps.a.p10_tok_s, ps.b.p10_tok_s, ps.a.p90_tok_s, ps.b.p90_tok_s) if v is not None]
        lo, hi = (min(vals) * 0.97, max(vals) * 1.03) if vals else (None, None)
        for name, v in (("A", a_speeds), ("B", b_speeds)):
            lines = histogram_lines(v, hist_width, lo=lo, hi=hi)
            if lines:
                t.add_row(Text(f"{name} " + lines[0] + "\n  " + lines[1], style="cyan" if name == "A" else "magenta"))
    for c in caveats:
        t.add_row(Text(f"⚠ {c}", style="yellow"))
    return t


class CompareScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "close"), Binding("q", "dismiss", "close", show=False),
                Binding("enter", "dismiss", "close", show=False)]
    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    CompareScreen > Vertical { width: 110; max-width: 98%; height: auto; max-height: 96%; border: round $accent;
                               background: $surface; padding: 0 1; }
    CompareScreen VerticalScroll { height: auto; }
    """

    def __init__(self, ps: PairStats, a: Marked, b: Marked, caveats: list[str], tz=None,
                 a_speeds: list[float] | None = None, b_speeds: list[float] | None = None) -> None:
        super().__init__()
        self.ps, self.a, self.b, self.caveats, self.tz = ps, a, b, caveats, tz
        self.speeds = (a_speeds, b_speeds)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("[b]compare cells[/b]  [dim]B vs A, recomputed from both cells' rows · escape closes[/dim]")
            with VerticalScroll():
                yield Static(verdict_card(self.ps, self.a, self.b, self.caveats, self.tz, *self.speeds,
                                          hist_width=max(20, min(60, self.app.size.width - 40))), id="card")


class SessionsScreen(BackScreen):
    BINDINGS = [
        Binding("space", "mark", "mark A/B"),
        Binding("c", "compare", "compare"),
        Binding("p", "next_pair", "next pair"),
        Binding("f", "forecast", "forecast"),
        Binding("h", "html", "HTML"),
        Binding("r", "refresh", "refresh"),
    ]
    DEFAULT_CSS = """
    SessionsScreen DataTable { height: 1fr; }
    SessionsScreen #detail { height: auto; max-height: 6; padding: 0 1; border-top: solid $primary 40%; }
    SessionsScreen #status { height: auto; padding: 0 1; }
    """
    COLUMNS = (("mark", "", 1), ("what", "session / cell", 24), ("arm", "arm", 10), ("n", "ok/n", 5),
               ("median", "tok/s", 7), ("tau", "τ", 4), ("set", "set", 11), ("done", "", 1), ("notes", "notes", None))

    class HtmlWritten(Message, bubble=False):
        """`h` finished: `path` written, or `error` (one line)."""

        def __init__(self, path: Path | None, error: str | None) -> None:
            super().__init__()
            self.path, self.error = path, error

    class Loaded(Message, bubble=False):
        """The listing is on screen (`count` sessions)."""

        def __init__(self, count: int) -> None:
            super().__init__()
            self.count = count

    class Compared(Message, bubble=False):
        """A comparison finished: `stats` set, or `refusal` (one line)."""

        def __init__(self, stats: PairStats | None, refusal: str | None) -> None:
            super().__init__()
            self.stats, self.refusal = stats, refusal

    def __init__(self, root: Path, *, now: Now | None = None, tz=None, seed: int = 0) -> None:
        """`root`: the sessions root (the runtime's `sessions_root`); `now`: clock for "… ago" (UTC-aware);
        `tz`: zone times are shown in (None = local); `seed`: bootstrap seed of comparisons."""
        super().__init__()
        self.root = Path(root)
        self._now = now or utc_now
        self.tz = tz
        self.seed = seed
        self.sessions: list[SessionSummary] = []
        self.entries: dict[str, tuple[str, SessionSummary, Any]] = {}
        """row key -> (kind, session, the row's SessionSummary / PairEntry / CellEntry, as kind says)"""
        self.collapsed: set[str] = set()
        self.marks: list[str] = []
        """Row keys of marked cells, A first."""
        self.last_refusal: str | None = None
        self.loaded = False
        """True once a listing is on screen (tests and snapshots wait for it)."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"sessions  {self.root}", style="bold", no_wrap=True, overflow="ellipsis"),
                     id="sessions-title", classes=TITLE_CLASS)
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=False)
        yield Static("", id="status")
        yield Static("", id="detail")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label, width in self.COLUMNS:
            table.add_column(label, key=key, width=width)
        table.focus()
        self.action_refresh()

    # --- loading ---------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.loaded = False
        self.query_one("#status", Static).update(Text("reading sessions…", style="dim"))
        self._load()

    @work(thread=True, exclusive=True, group="sessions-load")
    def _load(self) -> None:
        sessions = list_sessions(self.root)
        self.app.call_from_thread(self._show, sessions)

    def _show(self, sessions: list[SessionSummary]) -> None:
        if not self.is_attached:  # closed while the worker read the disk
            return
        table = self.query_one(DataTable)
        keep = self._cursor_key()
        self.sessions = sessions
        self.entries = {}
        known = {f"c:{s.name}/{c.name}" for s in sessions for c in s.cells}
        self.marks = [k for k in self.marks if k in known]
        table.clear()
        now = self._now()
        for s in sessions:
            self._add_session(table, s, now)
        n_pairs = sum(len(s.pairs) for s in sessions)
        title = Text(f"sessions  {self.root}", style="bold", no_wrap=True, overflow="ellipsis")
        title.append(f"   {len(sessions)} session{'s' * (len(sessions) != 1)} · {n_pairs} pair{'s' * (n_pairs != 1)}"
                     " · newest first · times local", style="dim")
        self.query_one("#sessions-title", Static).update(title)
        status = self.query_one("#status", Static)
        if not sessions:
            status.update(Text(f"no sessions under {self.root} yet — runs and pairs record here", style="dim"))
        else:
            status.update(self._marks_text())
        if keep and keep in self.entries:
            table.move_cursor(row=table.get_row_index(keep))
        self._update_detail()
        self.loaded = True
        self.post_message(self.Loaded(len(sessions)))

    def _add_session(self, table: DataTable, s: SessionSummary, now: datetime) -> None:
        key = f"s:{s.name}"
        self.entries[key] = ("session", s, s)
        fold = "▸" if key in self.collapsed else "▾"
        fmt = "%m-%d %H:%M" if s.created and s.created.astimezone(self.tz).year == now.astimezone(self.tz).year \
            else "%Y-%m-%d"
        when = Text(f"{fold} {local_time(s.created, self.tz, fmt)} {ago(s.created, now)}", style="bold")
        notes = Text(s.slug, style="bold")
        if s.only_a_failed_launch and s.failed_launch is not None:
            fl = s.failed_launch
            notes.append(f" · failed launch of {fl.get('profile') or '?'}: {fl.get('error')}", style="red")
            notes.append(f" · log {s.dir / str(fl.get('log'))}", style="dim")
            table.add_row("", Text(f"  {local_time(s.created, self.tz, '%m-%d %H:%M')} {ago(s.created, now)}",
                                   style="dim"), "", "", "", "", "", _state("!"), notes, key=f"s:{s.name}")
            self.entries[f"s:{s.name}"] = ("session", s, s)
            return
        notes.append(f" · {s.hostname or 'host ?'} · sglang {s.engine_version or '?'}", style="dim")
        if s.simulated:
            notes.append(" · SIMULATED", style="magenta")
        if s.sim_time_scale:
            notes.append(f" · time ×{s.sim_time_scale:g}", style="magenta")
        if s.problem:
            notes.append(f" · {s.problem}", style="red")
        done = _state("✓" if s.complete else ("!" if s.problem else "…"))
        # in the set column too, which a session row leaves empty: at 80 columns the notes are off the screen
        sim = Text("SIMULATED", style="magenta") if s.simulated else ""
        table.add_row("", when, "", "", "", "", sim, done, notes, key=key)
        if key in self.collapsed:
            return
        legs: dict[str, list[str]] = {}
        for p in s.pairs:
            self._add_pair(table, s, p, numbered=len(s.pairs) > 1)
            for leg, cell in p.legs:
                legs.setdefault(cell, []).append((f"pair {p.index} " if len(s.pairs) > 1 else "pair ") + f"leg {leg}")
        for c in reversed(s.cells):  # newest first, like the sessions and their pairs
            self._add_cell(table, s, c, legs.get(c.name, []))

    def _add_pair(self, table: DataTable, s: SessionSummary, p: PairEntry, numbered: bool) -> None:
        key = f"p:{s.name}/{p.path.name}"
        self.entries[key] = ("pair", s, p)
        what = Text(f"  ⇄ pair{f' {p.index}' if numbered else ''} " + " ".join(leg for leg, _ in p.legs),
                    style="bold cyan")
        eff = Text("—" if p.effect_pct is None else f"{p.effect_pct:+.1f}%",
                   style=("bold green" if p.resolved else "yellow"))
        notes = Text(p.verdict or (p.problem or "no verdict"), style="bold" if p.verdict else "red")
        if p.drift_flag and "drift" not in (p.verdict or ""):
            notes.append(" · drift flagged", style="yellow")
        done = _state("!" if p.problem else "✓")
        table.add_row("", what, "", "", eff, "", p.prompt_set or "—", done, notes, key=key)

    def _add_cell(self, table: DataTable, s: SessionSummary, c: CellEntry, legs: list[str]) -> None:
        key = f"c:{s.name}/{c.name}"
        self.entries[key] = ("cell", s, c)
        mark: str | Text = ""
        if key in self.marks:
            mark = Text("AB"[self.marks.index(key)], style="bold reverse")
        what = Text("  " + _clip(c.label, 22), style="dim" if c.anchor else "")
        n = f"{c.n_ok}/{c.n}" if c.n else "0"
        done = _state("!" if c.problem else ("✓" if c.complete else "…"))
        parts = [(leg, "cyan") for leg in legs]
        parts += [("anchor", "dim")] if c.anchor else []
        parts += [(c.profile, "dim")] if c.profile else []
        parts += [(f"time ×{c.sim_time_scale:g}", "magenta")] if c.sim_time_scale else []
        parts += [(c.problem, "red")] if c.problem else []
        notes = Text(" · ").join(Text(p, style=st) for p, st in parts)
        table.add_row(mark, what, c.spec, n, _n(c.median_tok_s), _n(c.tau, ".2f"),
                      set_tag(c.prompt_set, c.prompt_sha256), done, notes, key=key)

    # --- cursor and detail ----------------------------------------------------------------------

    def _cursor_key(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None

    def current(self) -> tuple[str, SessionSummary, Any] | None:
        k = self._cursor_key()
        return self.entries.get(k) if k else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_detail()

    def _update_detail(self) -> None:
        cur = self.current()
        self.query_one("#detail", Static).update(self._detail(cur) if cur else "")

    def _detail(self, cur: tuple[str, SessionSummary, Any]) -> Text:
        kind, s, obj = cur
        t = Text()
        now = self._now()
        if kind == "session" and s.only_a_failed_launch and s.failed_launch is not None:
            fl = s.failed_launch
            t.append(f"{s.name}: a launch of {fl.get('profile') or '?'} that never became ready", style="bold red")
            t.append(f"\n{fl.get('error')}\nengine log: {s.dir / str(fl.get('log'))}")
            return t
        if kind == "session":
            t.append(s.name, style="bold")
            t.append(f"  created {local_time(s.created, self.tz)} ({ago(s.created, now)}) · host "
                     f"{s.hostname or '?'} · sglang {s.engine_version or '?'}"
                     + (f" · attached {s.attached}" if s.attached else ""))
            if s.simulated:
                t.append(" · SIMULATED" + (f" (time ×{s.sim_time_scale:g}: figures are the modelled node's)"
                                           if s.sim_time_scale else ""), style="magenta")
            t.append(f"\narms {' → '.join(s.arms) or '—'} · {len(s.cells)} cells"
                     + (f" · {len(s.pairs)} pairs" if len(s.pairs) > 1 else "")
                     + (f" · latest pair: {s.pair.verdict}" if s.pair and s.pair.verdict else ""), style="dim")
            if s.problem:
                t.append(f"\n{s.problem}", style="red")
            t.append("\nenter folds · p jumps to the next pair", style="dim")
        elif kind == "pair":
            p: PairEntry = obj
            t.append(f"pair {p.a} (A) vs {p.b} (B)", style="bold")
            t.append(f" · {p.path.name}")
            t.append(f" · order {p.order}{' interleaved' if p.interleaved else ''} · set {p.prompt_set}")
            t.append(f"\n{p.verdict or p.problem}", style="bold green" if p.resolved else "bold yellow")
            if p.drift_flag:
                t.append(f"\n{p.drift_flag}", style="yellow")
            t.append("\nlegs " + ", ".join(f"{leg} = {cell}" for leg, cell in p.legs), style="dim")
            t.append(f"\nenter: {report_path_of(p.path).name} recomputed from the legs' rows", style="dim")
        else:
            c: CellEntry = obj
            t.append(f"{c.label}", style="bold")
            t.append(f" · {c.spec} · {c.profile or '?'} · {c.name}")
            proto = c.protocol or {}
            t.append(f"\nmedian {_n(c.median_tok_s)} tok/s (n {c.n_included} of {c.n}; p10 {_n(c.p10_tok_s)} / p90 "
                     f"{_n(c.p90_tok_s)}) · τ {_n(c.tau, '.2f')} · max tokens {proto.get('max_tokens', '—')} · T "
                     f"{proto.get('temperature', '—')} · conc {proto.get('concurrency', '—')} · "
                     f"{proto.get('endpoint', 'chat')}")
            sha = (c.prompt_sha256[:16] + "…") if c.prompt_sha256 else "—"
            t.append(f"\nprompt set {c.prompt_set or '—'} sha256 {sha}", style="dim")
            src = "summary.json" if c.figures_from == "summary" else "recomputed from rows"
            t.append(f"\nfigures: {src} · started {local_time(c.started, self.tz)}"
                     + ("" if c.complete else " · incomplete"), style="dim")
            if c.problem:
                t.append(f"\n{c.problem}", style="red")
        return t

    def _marks_text(self) -> Text:
        t = Text()
        if self.last_refusal:
            t.append(self.last_refusal, style="bold red")
            return t
        if not self.marks:
            t.append("space marks a cell as A, then B; c compares them", style="dim")
            return t
        for i, k in enumerate(self.marks):
            e = self.entries.get(k)
            if e:
                c: CellEntry = e[2]
                t.append(f"{'AB'[i]} ", style="bold reverse")
                t.append(f" {c.label} ({c.spec}, {set_tag(c.prompt_set, c.prompt_sha256)})  ")
        t.append("c compares" if len(self.marks) == 2 else "mark one more cell", style="dim")
        return t

    # --- actions ----------------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        e = self.entries.get(key or "")
        if e is None:
            return
        assert key is not None  # no row key is ""
        kind, s, obj = e
        if kind == "session":
            self.collapsed ^= {key}
            self._show(self.sessions)
        elif kind == "cell":
            c: CellEntry = obj
            tz = self.tz
            self.app.push_screen(ReportScreen(f"cell {c.label} · recomputed from rows.jsonl · {s.name}/{c.name}",
                                              lambda: cell_markdown(c.dir, tz)))
        else:
            p: PairEntry = obj
            title = f"pair report · recomputed from the legs' rows · {s.name}/{p.path.name}"
            self.app.push_screen(ReportScreen(title, lambda: pair_markdown(p.path)))

    def action_mark(self) -> None:
        k = self._cursor_key()
        e = self.entries.get(k or "")
        if e is None or e[0] != "cell":
            self.notify("space marks cells (not sessions or pairs)", severity="warning")
            return
        assert k is not None  # no row key is ""
        if k in self.marks:
            self.marks.remove(k)
        else:
            self.marks.append(k)
            self.marks = self.marks[-2:]
        self.last_refusal = None
        self._refill_marks()

    def _refill_marks(self) -> None:
        table = self.query_one(DataTable)
        for k, (kind, _, _) in self.entries.items():
            if kind == "cell":
                v = Text("AB"[self.marks.index(k)], style="bold reverse") if k in self.marks else ""
                table.update_cell(k, "mark", v)
        self.query_one("#status", Static).update(self._marks_text())

    def action_compare(self) -> None:
        if len(self.marks) != 2:
            self.notify("mark two cells first (space on a cell: A, then B)", severity="warning")
            return
        a, b = (self.entries[k] for k in self.marks)
        self._compare(Marked(a[2], a[1]), Marked(b[2], b[1]))

    @work(thread=True, exclusive=True, group="compare")
    def _compare(self, a: Marked, b: Marked) -> None:
        try:
            ps = compare_cells(a.cell.dir, b.cell.dir, seed=self.seed)
        except ValueError as e:
            self.app.call_from_thread(self._refused, str(e))
            return
        cav = comparison_caveats(a.cell.dir, b.cell.dir)
        sa, sb = speeds(load_rows(a.cell.dir)), speeds(load_rows(b.cell.dir))
        self.app.call_from_thread(self._compared, ps, a, b, cav, sa, sb)

    def _refused(self, text: str) -> None:
        if not self.is_attached:  # closed while the worker read the disk
            return
        self.last_refusal = text
        self.query_one("#status", Static).update(self._marks_text())
        self.notify(text, title="no comparison", severity="error", timeout=12)
        self.post_message(self.Compared(None, text))

    def _compared(self, ps: PairStats, a: Marked, b: Marked, cav: list[str], sa: list[float], sb: list[float]) -> None:
        if not self.is_attached:  # closed while the worker read the disk
            return
        self.last_refusal = None
        self.query_one("#status", Static).update(self._marks_text())
        self.app.push_screen(CompareScreen(ps, a, b, cav, self.tz, sa, sb))
        self.post_message(self.Compared(ps, None))

    def action_next_pair(self) -> None:
        table = self.query_one(DataTable)
        keys = [k for k in self.entries]
        pairs = [i for i, k in enumerate(keys) if k.startswith("p:")]
        if not pairs:
            self.notify("no pair row shown: none recorded under this root, or its session is folded (enter unfolds)",
                        severity="warning")
            return
        cur = table.cursor_row
        nxt = next((i for i in pairs if i > cur), pairs[0])
        table.move_cursor(row=nxt)

    def action_html(self) -> None:
        cur = self.current()
        if cur is None:
            self.notify("h writes an HTML report: highlight a session, pair or cell", severity="warning")
            return
        kind, s, obj = cur
        target = obj.dir if kind == "cell" else s.dir  # a pair's report is its session's
        self.notify(f"writing the HTML report of {target.name}…", timeout=3)
        self._write_html(target)

    @work(thread=True, exclusive=True, group="html")
    def _write_html(self, target: Path) -> None:
        from console.core.exits import describe, exit_code
        from console.core.report.write import write_html
        try:
            out, rep = write_html(target)
        except Exception as e:  # one line, never a traceback: a torn file, a folder that cannot be written
            line = describe(e)[0]
            why = line if exit_code(e) is not None else f"{type(e).__name__}: {line}"
            self.app.call_from_thread(self._html_done, None, f"{target.name}: {why}")
            return
        self.app.call_from_thread(self._html_done, out, None, rep.kind, len(rep.figures))

    def _html_done(self, path: Path | None, error: str | None, kind: str = "", plots: int = 0) -> None:
        if not self.is_attached:
            return
        if error:
            self.notify(error, title="no HTML report", severity="error", timeout=12)
        else:
            assert path is not None  # written: no error
            size = path.stat().st_size / 1024
            self.notify(f"{path}\n{kind} · {plots} plots · {size:.0f} KiB · opens offline", title="HTML report written",
                        timeout=12)
        self.post_message(self.HtmlWritten(path, error))

    def action_forecast(self) -> None:
        cur = self.current()
        if cur is None or cur[0] != "cell":
            self.notify("f forecasts from a cell: highlight one", severity="warning")
            return
        from console.ui.screens.forecast import ForecastScreen
        c: CellEntry = cur[2]
        self.app.push_screen(ForecastScreen(c.dir))
