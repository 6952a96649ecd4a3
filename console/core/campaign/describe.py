"""A plan and its estimate as printed before anything runs (headless and in the TUI)."""

from __future__ import annotations

from console.core.campaign.estimate import TWIN_SCALE_STREAMS, Estimate
from console.core.campaign.plan import Plan


def fmt_duration(s: float | None) -> str:
    if s is None:
        return "—"
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def plan_lines(plan: Plan, est: Estimate, *, sim: bool) -> list[str]:
    """The plan as printed before anything runs (headless and in the TUI)."""
    out = [f"campaign {plan.name}: {est.cells} cells, {len(plan.arms)} arms on {est.nodes} node(s), "
           f"{est.launches} launches ({est.relaunches} relaunches)" + (" · on the engine twin" if sim else "")]
    if plan.description:
        out.append(f"  {plan.description}")
    p = plan.protocol
    out.append(f"  protocol: n = max({p.n}, {plan.n_per_stream} × concurrency), max_tokens {p.max_tokens}, "
               f"temperature {p.temperature:g}, warm-up {p.warmup}, {p.endpoint}"
               + (", ignore_eos" if p.ignore_eos else ""))
    for w in plan.workloads:
        out.append(f"  workload {w.context}: {', '.join(w.domains)} × concurrency "
                   f"{', '.join(map(str, sorted(w.concurrency)))}" + (f", max_tokens {w.max_tokens}" if w.max_tokens
                                                                    else ""))
    for node, arms in plan.schedule():
        nd = plan.node(node)
        tag = f"node {node}" + (f" ({nd.label})" if nd.label else "") if plan.multi_node else "order"
        out.append(f"  {tag}: " + " → ".join(f"{a.name} ({len(cs)} cells)" for a, cs in arms)
                   + " · each arm anchored after its launch")
    src = est.sources()
    scale = f" at time scale ×{est.time_scale:g}" if est.time_scale != 1 else ""
    wall = (f"{fmt_duration(est.wall_s)} of this machine's wall time (the twin{scale})" if sim else
            f"{fmt_duration(est.wall_s)} wall time")
    node = "node-hours of the modelled node" if sim else "node-hours"
    out.append(f"  estimate: {wall}; {est.node_s / 3600:.2f} {node}"
               + (f" ≈ ${est.usd:,.2f}" if est.usd is not None else " (no $/h in the profiles)")
               + " (" + ", ".join(f"{v} cells {k}" for k, v in sorted(src.items())) + "; launches: "
               + ", ".join(sorted({f'{v}' for v in est.launch_source.values()})) + ")")
    if sim:
        out.append("  figures on the twin are the modelled node's; the cost is what the modelled node would bill")
        cmax = max((c for w in plan.workloads for c in w.concurrency), default=1)
        if est.time_scale * cmax > TWIN_SCALE_STREAMS:
            out.append(f"  warning: the twin at ×{est.time_scale:g} with {cmax} streams: the client's own work "
                       f"scales with S × streams ({est.time_scale * cmax:g}); above {TWIN_SCALE_STREAMS} the "
                       f"high-concurrency cells read the client, not the node (docs/campaigns.md#the-twins-time-scale)"
                       f"; --sim-time-scale {max(1, TWIN_SCALE_STREAMS // cmax):g} keeps them honest")
    if plan.multi_node:
        out.append("  arms on different nodes run in parallel; comparisons across nodes are uncontrolled")
    return out
