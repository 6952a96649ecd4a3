"""The verify-tax probe's confirmation (v on the dashboard): what the probe will launch on this node, what it holds
constant and why, and what it costs, before the relaunches start (the probe itself: core/run/probe.py)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.binding import Binding

from console.core.run.probe import ProbeCost, ProbePlan
from console.ui.widgets.confirm import ConfirmScreen


def probe_body(plan: ProbePlan, cost: ProbeCost) -> Group:
    lines = [Text(plan.rule, style="dim")]
    for leg in plan.legs:
        what = "width" if leg.kind == "verify" else "depth"
        lines.append(Text(f"  {leg.kind:<6} steps {leg.steps:>2} · topk {leg.topk} · {leg.width:>2} verified tokens "
                          f"({what} leg)"))
    p = plan.protocol
    lines.append(Text(f"each leg: --speculative-draft-load-format dummy (acceptance ≈ 0), {p.n} × {p.prompt_set} at "
                      f"one stream, {p.max_tokens} output tokens; its cell goes into the session's probe folder"))
    lines.append(Text(f"{len(plan.legs) + 1} relaunches (the legs, then this arm again, re-anchored); "
                      f"{cost.text}", style="yellow"))
    lines.append(Text("the session's forecasts then use the probed tax (source 'probed', with its 95% CI)",
                      style="dim"))
    return Group(*lines)


class ProbeScreen(ConfirmScreen):
    VERB = "run the probe"
    BINDINGS = [Binding("y", "confirm", "run the probe"), Binding("enter", "confirm", "run", show=False)]
    WIDTH = 100

    def __init__(self, plan: ProbePlan, cost: ProbeCost) -> None:
        super().__init__()
        self.plan, self.cost = plan, cost

    def heading(self) -> str:
        return f"[b]verify-tax probe[/b]  {self.plan.base.name}: {self.plan.base.arm.label()}"

    def details(self) -> Group:
        return probe_body(self.plan, self.cost)
