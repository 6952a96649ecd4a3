"""Pair recorder: arm A is the running arm; arm B is another profile or a flip of A. The pair runs in the
runtime's I/O thread (core `pair_runner`); this screen shows the legs' progress and the result card, and can be
left (escape) while the pair goes on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from console.core.fmt import num as _n
from console.core.launch import flips
from console.core.launch.profile import Profile, list_profiles
from console.core.measure.pairs import interval_notes
from console.core.run.cell import CellProtocol
from console.core.run.pair import PairResult, PairSpec
from console.core.sessions.report import time_scale_note
from console.core.workload.prompts import list_sets
from console.ui.widgets.footer import ConsoleFooter

FLIP_CHOICES = (("A with depth +1", "depth+"), ("A with depth −1", "depth-"),
                ("A with the next drafter family", "family"), ("A with the next KV dtype", "kv"))


@dataclass
class PairState:
    """What the app keeps about the pair in flight (or the last one)."""

    running: bool = False
    spec_text: str = ""
    lines: list[str] = field(default_factory=list)
    result: PairResult | None = None
    error: str | None = None




def result_card(res: PairResult) -> Group:
    ps = res.stats
    head = Text(ps.verdict, style="bold green" if ps.effect.resolved else "bold yellow")
    t = Table(box=None, padding=(0, 2), show_edge=False)
    t.add_column("")
    t.add_column(f"A {ps.a.name}", justify="right")
    t.add_column(f"B {ps.b.name}", justify="right")
    rows = [
        ("median tok/s (n)", f"{_n(ps.a.median_tok_s)} ({ps.a.n})", f"{_n(ps.b.median_tok_s)} ({ps.b.n})"),
        ("p10 / p90", f"{_n(ps.a.p10_tok_s)} / {_n(ps.a.p90_tok_s)}", f"{_n(ps.b.p10_tok_s)} / {_n(ps.b.p90_tok_s)}"),
        ("leg medians", ", ".join(_n(x) for x in ps.a.leg_medians), ", ".join(_n(x) for x in ps.b.leg_medians)),
        ("anchors tok/s", ", ".join(_n(x) for x in ps.a.anchor_median_tok_s),
         ", ".join(_n(x) for x in ps.b.anchor_median_tok_s)),
        ("τ", _n(ps.a.tau, ".2f"), _n(ps.b.tau, ".2f")),
        ("implied step", _n(ps.a.implied_step_ms, ".2f", " ms"), _n(ps.b.implied_step_ms, ".2f", " ms")),
        ("KV capacity", _n(ps.a.kv_capacity_tokens, ","), _n(ps.b.kv_capacity_tokens, ",")),
        ("$/M output tokens", _n(ps.a.usd_per_m_tokens, ".2f"), _n(ps.b.usd_per_m_tokens, ".2f")),
    ]
    for r in rows:
        t.add_row(*r)
    # where it is and how to recompute it, right under the verdict: the card is taller than an 80×24 screen
    where = Text(f"report: {res.report_path or res.dir / 'report.md'}  ·  recompute: serving-console report {res.dir}",
                 style="dim")
    parts: list[Any] = [head, where, t,
                        Text(f"effect B vs A: {ps.effect.text()} (bootstrap {ps.n_boot}, seed {ps.seed})")]
    parts += [Text(line, style="dim") for line in interval_notes(ps, res.doc.get("spec", {}).get("sequential"))]
    if ps.drift is not None:
        parts.append(Text(f"drift A last vs first leg: {ps.drift.text()}", style="dim"))
    if ps.drift_flag:
        parts.append(Text(ps.drift_flag, style="bold red"))
    if res.comparison:
        c = res.comparison
        parts.append(Text(f"forecast depth {c['depth']}: predicted {c['predicted_tok_s']:.1f} tok/s before B ran, "
                          f"measured {c['measured_tok_s']:.1f} ({c['error_pct']:+.1f}%)"))
    ts = time_scale_note(res.doc.get("sim_time_scale"), {"A": ps.a.median_tok_s, "B": ps.b.median_tok_s})
    if ts:
        parts.append(Text(ts, style="yellow"))
    return Group(*parts)


class PairScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "back (the pair goes on)"),
                Binding("ctrl+r", "record", "record pair"),
                Binding("ctrl+e", "toggle_form", "form")]
    DEFAULT_CSS = """
    PairScreen #form { height: auto; border: round $accent; padding: 0 1; }
    PairScreen Grid { grid-size: 2; grid-columns: 20 1fr; grid-rows: 1; height: auto; margin: 1 0; }
    PairScreen #status { height: 1fr; border: round $primary 60%; padding: 0 1; }
    PairScreen #error { color: $error; height: auto; }
    PairScreen #buttons { height: 1; align-horizontal: right; }
    """

    def __init__(self, a: Profile | None, state: PairState, start: Callable[[PairSpec], None],
                 protocol: CellProtocol, profiles_dir=None) -> None:
        super().__init__()
        self.a, self.state, self.start, self.protocol = a, state, start, protocol
        self.show_form: bool | None = None
        """ctrl+e: the operator's choice; None: the form hides itself under 40 rows while a pair runs or shows its
        result, so that the result card — down to its `recompute:` line — fits an 80×24 terminal."""
        self._shown_result: object = None
        profiles, self.bad_profiles = list_profiles(profiles_dir)
        self.profiles = {p.name: p for p in profiles if a is None or p.launch_key() != a.launch_key()}

    def compose(self) -> ComposeResult:
        with Vertical(id="form"):
            a = self.a.name if self.a else "(attached: pairs need a launched profile)"
            yield Static(f"[b]record a same-session pair[/b]   A = running arm [b]{a}[/b]")
            opts = [(label, f"flip:{k}") for label, k in FLIP_CHOICES] + [(n, f"profile:{n}") for n in self.profiles]
            with Grid():
                yield Label("arm B")
                yield Select(opts, value=opts[0][1], allow_blank=False, id="arm_b", compact=True)
                yield Label("prompt set")
                sets = list_sets() or [self.protocol.prompt_set]
                yield Select([(s, s) for s in sets], value=self.protocol.prompt_set if self.protocol.prompt_set in sets
                             else sets[0], allow_blank=False, id="set", compact=True)
                yield Label("requests per leg")
                yield Input(str(self.protocol.n), id="n", compact=True)
                yield Label("max tokens")
                yield Input(str(self.protocol.max_tokens), id="max_tokens", compact=True)
                yield Label("order")
                yield Select([(o, o) for o in ("ABA", "AB", "ABAB", "ABBA")], value="ABA", allow_blank=False,
                             id="order", compact=True)
                yield Label("until CI ±%")
                yield Input("", placeholder="off (e.g. 3: add B A rounds, at most 4)", id="until_ci", compact=True)
                yield Label("until MDE %")
                yield Input("", placeholder="off (e.g. 5: add B A rounds until a 5% change is seen)", id="until_mde",
                            compact=True)
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("record pair", variant="primary", id="go", compact=True)
        with VerticalScroll(id="status"):
            yield Static("", id="progress")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        self.set_interval(0.25, self.refresh_status)
        self.refresh_status()

    def action_toggle_form(self) -> None:
        self.show_form = not self.query_one("#form").display
        self.refresh_status()

    def refresh_status(self) -> None:
        st = self.state
        busy = st.running or st.result is not None
        form = self.query_one("#form")
        want = self.show_form if self.show_form is not None else not (busy and self.size.height < 40)
        if form.display != want:
            form.display = want
        parts: list[Any] = []
        if st.spec_text:
            parts.append(Text(st.spec_text, style="bold"))
        # with the result, the last three progress lines (the card is what the operator came for)
        shown = st.lines[-3:] if st.result is not None else st.lines[-30:]
        if st.result is not None and len(st.lines) > len(shown):
            parts.append(Text(f"… {len(st.lines) - len(shown)} earlier progress lines", style="dim"))
        parts += [Text(x, style="dim") for x in shown]
        if st.running:
            parts.append(Text("… running (escape returns to the dashboard; the pair goes on)", style="yellow"))
        if st.error:
            parts.append(Text(st.error, style="bold red"))
        if st.result is not None:
            parts.append(result_card(st.result))
        if not parts:
            parts.append(Text("no pair yet: choose arm B and press 'record pair'", style="dim"))
        self.query_one("#progress", Static).update(Group(*parts))
        if st.result is not None and st.result is not self._shown_result:
            self._shown_result = st.result  # a new result: its start in view (the verdict, then the table)
            self.query_one("#status", VerticalScroll).scroll_home(animate=False)
        self.query_one("#go", Button).disabled = st.running or self.a is None

    def spec(self) -> PairSpec:
        """The pair the form describes; ValueError (one line) when it cannot be run."""
        if self.a is None:
            raise ValueError("attached to a server the console did not launch: pairs need --profile")
        choice = str(self.query_one("#arm_b", Select).value)
        kind, _, key = choice.partition(":")
        if kind == "flip":
            fn = {"depth+": lambda p: flips.flip_depth(p, +1), "depth-": lambda p: flips.flip_depth(p, -1),
                  "family": flips.flip_family, "kv": flips.flip_kv}[key]
            b = fn(self.a).after
        else:
            b = self.profiles[key]
            if self.a.is_sim:
                b = b.with_sim()
        try:
            n = int(self.query_one("#n", Input).value)
            mt = int(self.query_one("#max_tokens", Input).value)
        except ValueError:
            raise ValueError("requests per leg and max tokens must be whole numbers") from None
        proto = CellProtocol(prompt_set=str(self.query_one("#set", Select).value), n=n, max_tokens=mt,
                             temperature=self.protocol.temperature, concurrency=self.protocol.concurrency,
                             warmup=self.protocol.warmup)
        proto.validate()
        until = {}
        for name, label, eg in (("until_ci", "until CI ±%", 3), ("until_mde", "until MDE %", 5)):
            raw = self.query_one(f"#{name}", Input).value.strip()
            try:
                until[name] = float(raw) if raw else None
            except ValueError:
                raise ValueError(f"{label}: a number of % (e.g. {eg}) or empty for off, got {raw!r}") from None
        spec = PairSpec(a=self.a, b=b, protocol=proto, order=str(self.query_one("#order", Select).value),
                        until_ci_pct=until["until_ci"], until_mde_pct=until["until_mde"])
        spec.validate()
        return spec

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_record()

    def action_record(self) -> None:
        if self.state.running or self.a is None:
            return
        try:
            spec = self.spec()
        except (ValueError, flips.FlipError) as e:
            self.query_one("#error", Static).update(str(e))
            return
        self.query_one("#error", Static).update("")
        self.start(spec)
        self.refresh_status()
