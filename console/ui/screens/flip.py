"""Confirm a flip: what changes (profile fields and launch flags), what it is forecast to do, what it costs
(a relaunch). Everything shown is computed by core (`flips`, `forecast`); this screen only lays it out."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from console.core.launch.flips import UNSET, Flip, argv_diff, profile_diff_text
from console.core.measure.forecast import Forecast
from console.ui.widgets.confirm import ConfirmScreen

TITLES = {"depth+": "draft depth +1", "depth-": "draft depth −1", "family": "next drafter family",
          "kv": "next KV-cache dtype"}


def flip_body(flip: Flip, fc: Forecast | None, fc_note: str, last_startup_s: float | None) -> Table:
    t = Table.grid(padding=(0, 1))
    t.add_column()
    diff = Table(box=None, padding=(0, 2), show_edge=False)
    diff.add_column("field", style="dim")
    diff.add_column("now")
    diff.add_column("after", style="bold")
    for field, a, b in profile_diff_text(flip.before, flip.after):
        diff.add_row(field, Text(a, style="dim") if a == UNSET else a, Text(b, style="dim") if b == UNSET else b)
    t.add_row(diff)
    gone, new = argv_diff(flip.before, flip.after)
    flags = Text()
    for x in gone:
        flags.append(f"- {x}\n", style="red")
    for x in new:
        flags.append(f"+ {x}\n", style="green")
    t.add_row(flags)
    if fc is not None:
        d = flip.after.drafter.draft_tokens if flip.after.drafter.family == "dflash" else flip.after.drafter.steps
        pt = fc.at(d) if d is not None else None
        if pt is not None:
            line = Text()
            line.append("forecast ", style="bold")
            line.append(f"depth {fc.base_depth} measured {fc.base_tok_s:.1f} tok/s (τ {fc.base_tau:.2f}, step "
                        f"{fc.base_step_ms:.2f} ms) → depth {pt.depth}: τ {pt.tau:.2f}, step {pt.step_ms:.2f} ms, ")
            line.append(f"{pt.tok_s:.1f} tok/s ({100 * (pt.tok_s / fc.base_tok_s - 1):+.1f}%)", style="bold cyan")
            t.add_row(line)
            t.add_row(Text(f"verify tax {fc.verify_tax_ms:.3f} ms/token: {fc.tax_source}"
                           + (f"; {pt.extrapolated_positions} position(s) extrapolated" if pt.extrapolated_positions
                              else "") + f"; from {fc_note}", style="dim"))
    else:
        t.add_row(Text(f"no forecast: {fc_note}", style="dim"))
    cost = "relaunch: the engine restarts with the new flags, then the anchor cell re-runs"
    if last_startup_s:
        cost += f" (last launch took {last_startup_s:.1f} s)"
    t.add_row(Text(cost, style="yellow"))
    return t


class FlipScreen(ConfirmScreen):
    VERB = "relaunch"
    BINDINGS = [Binding("y", "confirm", "relaunch"), Binding("enter", "confirm", "relaunch", show=False)]
    WIDTH = 96

    def __init__(self, flip: Flip, fc: Forecast | None, fc_note: str, last_startup_s: float | None) -> None:
        super().__init__()
        self.flip, self.fc, self.fc_note, self.last_startup_s = flip, fc, fc_note, last_startup_s

    def heading(self) -> str:
        return f"[b]{TITLES.get(self.flip.kind, self.flip.kind)}[/b]  {self.flip.summary()}"

    def details(self) -> Table:
        return flip_body(self.flip, self.fc, self.fc_note, self.last_startup_s)
