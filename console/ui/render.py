"""Pure functions from core state to Rich renderables, one per dashboard panel.

No I/O and no parsing here: every number comes from `RuntimeState` (filled by core) and every formula
from `console.core.measure.stats`. Kept pure so panels are unit-testable and snapshots deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from console.core.arm import FAMILY_NAMES, Arm
from console.core.fmt import num
from console.core.launch.logparse import StartupProgress
from console.core.measure import stats
from console.core.measure.plots import bar, histogram_strip, sparkline
from console.core.run.state import CellProgress, RuntimeState
from console.core.sessions.adaptive import distribution_text

#: the label of an arm without a drafter (its τ is 1 by definition)
NO_SPEC_LABEL = Arm().label()


def distribution(values: Sequence[float], width: int, unit: str = "tok/s") -> Text:
    """Histogram strip of a cell's per-request values with the median marked (core's plot, styled)."""
    h = histogram_strip(values, width)
    if h is None:
        return Text("")
    strip, col, lo, hi = h
    left, right = f"{lo:.0f} ", f" {hi:.0f} {unit}"
    t = Text()
    t.append(left, style="dim")
    t.append(strip, style="cyan")
    t.append(right, style="dim")
    t.append("\n" + " " * (len(left) + col) + "▲ median " + f"{stats.interp_median(values):.1f}", style="bold")
    return t


def unacked_alarms(state: RuntimeState) -> list:
    """The session's active alarms nobody acknowledged yet (core/measure/health.Alarm), oldest first."""
    return [a for a in state.alarms if a.active and not a.acked]


def alarm_text(a, short: bool = False) -> Text:
    """One alarm as the status line and the panels show it."""
    t = Text()
    t.append(f" ALARM {a.kind} ", style="bold white on red")
    t.append(f" {a.key}: " if not short else " ", style="bold red")
    t.append(a.saw if not short else a.saw.split(":")[0].split(" over ")[0], style="red")
    if not short:
        when = f"{a.since_utc[11:19]} UTC, " if a.since_utc else ""
        t.append(f" (since {when}request {a.since_index + 1})", style="red")
    return t


def status_line(state: RuntimeState, now_monotonic: float) -> Text:
    """[alarm ·] engine · arm · phase · up-time of the arm · session (one line under the panels); an unacknowledged
    acceptance alarm comes first, so it shows at any width."""
    t = Text()
    alarms = unacked_alarms(state)
    if alarms:
        t.append_text(alarm_text(alarms[-1], short=True))
        more = f" (+{len(alarms) - 1})" if len(alarms) > 1 else ""
        t.append(f"{more} · ! acknowledges · ", style="red")
    quiet = [a for a in state.alarms if a.active and a.acked]
    if quiet and not alarms:
        t.append(f"{len(quiet)} acknowledged alarm(s) still holding: {', '.join(sorted({a.kind for a in quiet}))}"
                 " · ", style="red dim")
    srv = state.server
    t.append(f"sglang {srv.version}" if srv and srv.version else "engine —", style="bold")
    t.append(f" · {state.profile_name or '—'}")
    if srv is not None:
        t.append(f" · {srv.arm.short()}")
    t.append(f" · {state.phase}")
    if state.ready_at is not None:  # launched: the server's uptime; attached: how long the console has watched it
        mins = int(now_monotonic - state.ready_at) // 60
        span = f"{mins // 60}h{mins % 60:02d}m" if mins >= 60 else f"{mins} min"
        t.append(f" for {span} (since attach)" if state.mode == "attach" else f" · up {span}")
    if state.session_dir:
        t.append(f" · session {state.session_dir}", style="dim")
    return t


def badge_text(state: RuntimeState, compact: bool = False) -> Text:
    """Phase and SIMULATED badges; `compact` (the 80×24 server panel) keeps the twin's time scale to ' ×S'."""
    t = Text()
    phase = state.phase
    style = {"ready": "bold black on green", "attached": "bold black on green", "launching": "bold black on yellow",
             "dead": "bold white on red", "error": "bold white on red",
             "stopped": "bold white on grey35"}.get(phase, "")
    t.append(f" {phase.upper()} ", style=style)
    if state.simulated:
        t.append(" ")
        t.append(" SIMULATED ", style="bold black on magenta")
        if state.sim_node:
            scaled = bool(state.sim_time_scale and state.sim_time_scale != 1)
            t.append(f" node {state.sim_node}" if compact else
                     f" as fitted node {state.sim_node}" + (";" if scaled else ""), style="magenta")
        if state.sim_time_scale and state.sim_time_scale != 1:
            t.append(f" ×{state.sim_time_scale:g}" if compact else
                     f" time ×{state.sim_time_scale:g}: figures are the modelled node's", style="magenta")
    return t


def server_panel(state: RuntimeState, compact: bool = False) -> RenderableType:
    s = state.server
    if compact:
        return _server_compact(state)
    t = Table.grid(padding=(0, 1))
    t.add_column(style="dim", no_wrap=True)
    t.add_column(overflow="fold")
    t.add_row("profile", state.profile_name or "—")
    t.add_row("status", badge_text(state))
    t.add_row("url", state.base_url or "—")
    if state.workers:
        t.add_row("gateway", f"{len(state.workers)} worker(s): " + ", ".join(state.workers[:3])
                  + (" …" if len(state.workers) > 3 else ""))
    if s is not None:
        t.add_row("engine", f"sglang {s.version or '?'} · TP {s.tp_size or '?'}"
                  + (f" · DP {s.dp_size}" if (s.dp_size or 1) > 1 else "")
                  + (" · metrics on" if s.enable_metrics else " · metrics OFF"))
        t.add_row("model", s.served_model_name or s.model_path or "—")
        arm = s.arm
        if arm.speculative:
            t.add_row("drafter", arm.label().split(" · KV ")[0])
            active = adaptive_line(state, width=24)
            if active is not None:
                t.add_row("active", active)
            if arm.draft_model:
                t.add_row("draft", arm.draft_model)
        else:
            t.add_row("drafter", "none (no speculation)")
        t.add_row("KV dtype", f"{s.kv_cache_dtype or 'auto'} · mem frac {num(s.mem_fraction_static, '.3f')}")
    if state.error:
        t.add_row(Text("error", style="bold red"), Text(state.error, style="red"))
    return t


STEP_GLYPHS = "▁▂▃▄▅▆▇█"


def steps_trail(values: Sequence[int], width: int) -> str:
    """The last `width` readings of the active draft steps, one glyph each on a scale of the largest seen (0 steps,
    drafting off, reads '·')."""
    hi = max(values, default=0) or 1  # the scale of the whole trail, so a steady value does not read full
    vals = list(values)[-width:]
    return "".join("·" if v <= 0 else STEP_GLYPHS[min(len(STEP_GLYPHS) - 1, round(v / hi * (len(STEP_GLYPHS) - 1)))]
                   for v in vals)


def steps_changes(values: Sequence[int], last: int = 4) -> str:
    """The recent switches of the active steps, oldest first: '7→5→3' (the current value alone when none)."""
    runs: list[int] = []
    for v in values:
        if not runs or runs[-1] != v:
            runs.append(v)
    return "→".join(map(str, runs[-last:]))


def adaptive_line(state: RuntimeState, width: int = 24, compact: bool = False) -> Text | None:
    """The draft steps an adaptive server has active now and their recent trail; None when the server does not
    adapt. Full: 'steps 3 · 4 draft tokens · /metrics ▅▅▇▇▅▃ 7→5→3'; compact (after the caller's 'steps '):
    '3 ▅▇▅▃▃▃ 5→3'."""
    s = state.server
    if s is None or not s.arm.adaptive:
        return None
    one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
    t = Text(**one)
    cur = state.spec_active()
    if cur is None:
        t.append("steps —", style="dim")
        t.append(" (no reading yet: the gauge appears after the first decode log)" if not compact else " no reading",
                 style="dim")
        return t
    vals = [r.steps for r in state.spec_trail]
    t.append("steps " if not compact else "", style="dim")
    t.append(str(cur.steps), style="bold magenta")
    if not compact:
        if cur.draft_tokens is not None:
            t.append(f" · {cur.draft_tokens} draft tokens", style="dim")
        t.append(f" · {cur.source}", style="dim")
    t.append(" ")
    t.append(steps_trail(vals, width), style="magenta")
    t.append(" " + steps_changes(vals, last=3 if compact else 4), style="dim")
    return t


def _server_compact(state: RuntimeState) -> RenderableType:
    """The server at 80×24: status, the drafter in force, KV dtype and TP, the URL (the profile is in the header
    and the status line)."""
    s = state.server
    parts: list[RenderableType] = [badge_text(state, compact=True)]
    if s is not None:
        parts.append(Text(s.arm.compact(), no_wrap=True, overflow="ellipsis"))
        active = adaptive_line(state, width=4, compact=True)
        if active is not None:  # in place of the arm's tail (the status line names the launch depth)
            fam = FAMILY_NAMES.get(s.arm.family, s.arm.family)
            parts[-1] = Text(f"{fam} adaptive steps ", no_wrap=True, overflow="ellipsis") + active
        parts.append(Text(f"KV {s.kv_cache_dtype or 'auto'} · mem {num(s.mem_fraction_static, '.3f')} · "
                          f"TP {s.tp_size or '?'}" + ("" if s.enable_metrics else " · metrics OFF"),
                          style="dim", no_wrap=True, overflow="ellipsis"))
    parts.append(Text(state.base_url or "—", style="dim", no_wrap=True, overflow="ellipsis"))
    if state.error:
        parts.append(Text(state.error, style="bold red", no_wrap=True, overflow="ellipsis"))
    return Group(*parts)


def throughput_panel(state: RuntimeState, spark_width: int = 48, compact: bool = False) -> RenderableType:
    live = state.live
    if compact:
        return _throughput_compact(state, spark_width)
    parts: list[RenderableType] = []
    head = Text()
    head.append("rolling 5 s  ", style="dim")
    head.append(num(live.rolling_tok_s if live else None, ".1f"), style="bold cyan")
    head.append(" tok/s", style="dim")
    if live is not None and live.recent_median_tok_s is not None:
        head.append("   median per-request (recent) ", style="dim")
        head.append(f"{live.recent_median_tok_s:.1f}", style="bold")
        head.append(" tok/s", style="dim")
    parts.append(head)
    hist = live.rolling_history if live else ()
    parts.append(Text(sparkline(hist, spark_width).rstrip() or "·" * 8, style="cyan"))
    if state.metrics is not None and state.metrics.gen_throughput is not None:
        parts.append(Text(f"server gen throughput (last log window) {state.metrics.gen_throughput:.1f} tok/s",
                          style="dim"))
    t = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
    t.add_column("running", no_wrap=True)
    t.add_column("tokens", justify="right")
    t.add_column("tok/s", justify="right")
    t.add_column("age", justify="right")
    running = live.running if live else ()
    for r in running[:6]:
        t.add_row(r.request_id[:18], str(r.tokens), num(r.tok_s), f"{r.age_s:.1f}s")
    if len(running) > 6:
        t.add_row(f"+{len(running) - 6} more", "", "", "")
    if not running:
        t.add_row(Text("idle — press r to run a cell", style="dim"), "", "", "")
    parts.append(t)
    return Group(*parts)


def _throughput_compact(state: RuntimeState, spark_width: int) -> RenderableType:
    """Four lines: rolling rate, recent per-request median, the sparkline, the streams in flight."""
    live = state.live
    one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
    head = Text(**one)
    head.append("rolling 5 s ", style="dim")
    head.append(num(live.rolling_tok_s if live else None, ".1f"), style="bold cyan")
    head.append(" tok/s", style="dim")
    med = Text(**one)
    med.append("median per req ", style="dim")
    med.append(num(live.recent_median_tok_s if live else None, ".1f"), style="bold")
    med.append(" tok/s (recent)", style="dim")
    hist = live.rolling_history if live else ()
    spark = Text(sparkline(hist, spark_width).rstrip() or "·" * 8, style="cyan", **one)
    running = live.running if live else ()
    run = Text(**one)
    if running:
        r = running[0]
        run.append(f"{len(running)} running", style="bold")
        run.append(f" · {num(r.tok_s)} tok/s · {r.tokens} tok · {r.request_id}", style="dim")
    else:
        run.append("idle — r runs a cell", style="dim")
    return Group(head, med, spark, run)


ACC_ROWS = 8
"""Draft positions per column of the acceptance panel: DFLASH's 15 (block 16) or 31 go side by side in columns
instead of growing the panel (which squeezed the cell below it to three rows)."""

LEVELS = " ▁▂▃▄▅▆▇█"


def levels(values: Sequence[float]) -> str:
    """One glyph per value in [0, 1] on an absolute scale (a p_i curve read at a glance)."""
    return "".join(LEVELS[min(len(LEVELS) - 1, max(0, int(round(v * (len(LEVELS) - 1)))))] for v in values)


def acceptance_panel(state: RuntimeState, width: int = 24, compact: bool = False) -> RenderableType:
    """`width`: the panel's inner width less 16 (the bar of a single-column table). Unacknowledged acceptance
    alarms head it (the newest one's likely causes under them)."""
    body = _acceptance_body(state, width, compact)
    alarms = unacked_alarms(state)
    if not alarms:
        return body
    if compact:
        return Group(alarm_text(alarms[-1], short=True), body)
    return Group(*(alarm_text(a) for a in alarms), Text(alarms[-1].causes, style="red"), body)


def _acceptance_body(state: RuntimeState, width: int, compact: bool) -> RenderableType:
    live = state.live
    s = state.server
    if s is not None and not s.arm.speculative:
        return Text("no speculation on this server: τ = 1 by definition", style="dim")
    if live is None or not live.recent_positions:
        return Group(
            Text("τ —  (no finished request with spec details yet)", style="dim"),
            Text("τ = 1 + Σk·h[k]/Σh  ·  p_i = Σ_{k≥i} h[k] / Σh", style="dim italic"),
        )
    if compact:
        return _acceptance_compact(live)
    head = Text()
    head.append("τ ", style="dim")
    head.append(f"{live.recent_tau:.2f}", style="bold green")
    head.append(f"  tokens/step · pooled over the last {live.recent_n} request(s)  ", style="dim")
    head.append(sparkline(live.tau_history, 24), style="green")
    positions = list(live.recent_positions)
    cond = stats.conditional_acceptance(positions)
    cols = -(-len(positions) // ACC_ROWS)
    rows = -(-len(positions) // cols)
    inner = width + 16
    bar_w = max(3, (inner - 2 * (cols - 1)) // cols - 16) if cols > 1 else width
    t = Table.grid(padding=(0, 1))
    for c in range(cols):
        if c:
            t.add_column(no_wrap=True, width=1)  # gutter
        t.add_column(style="dim", justify="right", no_wrap=True)
        t.add_column(no_wrap=True)
        t.add_column(justify="right", no_wrap=True)
        t.add_column(justify="right", style="dim", no_wrap=True)
    for r in range(rows):
        cells: list[RenderableType] = []
        for c in range(cols):
            i = c * rows + r
            if c:
                cells.append("")
            if i < len(positions):
                p = positions[i]
                cells += [f"p{i + 1}", Text(bar(p, bar_w), style="green"), f"{p:.2f}", f"|{num(cond[i], '.2f')}"]
            else:
                cells += ["", "", "", ""]
        t.add_row(*cells)
    foot = Text("p_i = P(draft position i accepted); |cond = p_i/p_{i−1}", style="dim italic")
    parts: list[RenderableType] = [head, t, foot]
    if s is not None and s.avg_spec_accept_length is not None:
        ranks = s.rank_accept_lengths
        over = (f"mean of {len(ranks)} DP ranks: {' '.join(f'{x:.2f}' for x in ranks)}; " if len(ranks) > 1 else "")
        parts.append(Text(f"server lifetime accept length {s.avg_spec_accept_length:.2f} ({over}since boot/flush; "
                          "not a cell figure)", style="dim"))
    return Group(*parts)


def _acceptance_compact(live) -> RenderableType:
    """Three lines: τ over the recent requests, the p_i curve as glyphs with its values, the τ trend."""
    one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
    positions = list(live.recent_positions)
    head = Text(**one)
    head.append("τ ", style="dim")
    head.append(f"{live.recent_tau:.2f}", style="bold green")
    head.append(f" tokens/step · last {live.recent_n} req", style="dim")
    curve = Text(**one)
    curve.append(f"p1–p{len(positions)} ", style="dim")
    curve.append(levels(positions), style="green")
    curve.append(" " + " ".join(f"{p:.2f}".lstrip("0") if p < 1 else "1.0" for p in positions))
    trend = Text(**one)
    trend.append("τ trend ", style="dim")
    trend.append(sparkline(live.tau_history, 24).strip() or "·", style="green")
    return Group(head, curve, trend)


def _k(n: float) -> str:
    return f"{n / 1000:,.0f}K" if n >= 10_000 else (f"{n / 1000:.1f}K" if n >= 1000 else f"{n:.0f}")


def load_gauge(m, compact: bool = False) -> Text:
    """Requests running / queued and retracted (the scheduler's last decode log; retracted only when the server
    exports it): '1 run · 0 queued' (the full panel gives retractions a row), compact '1 run 0 q 0 retr'."""
    t = Text(no_wrap=True, overflow="ellipsis")
    run, q, rt = num(m.num_running_reqs, ".0f"), num(m.num_queue_reqs, ".0f"), m.num_retracted_reqs
    t.append(f"{run} run {q} q" if compact else f"{run} run · {q} queued", style="dim")
    if rt is not None and compact:  # the full panel gives retractions a row of their own
        t.append(f" {rt:.0f} retr", style="yellow" if rt else "dim")
    return t


def kv_panel(state: RuntimeState, width: int = 24, compact: bool = False) -> RenderableType:
    s = state.server
    m = state.metrics
    cap = (s.max_total_num_tokens if s else None) or (
        int(m.max_total_num_tokens) if m and m.max_total_num_tokens else None)
    usage = m.token_usage if m else None
    used = m.num_used_tokens if m else None
    if compact:
        one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
        line = Text(**one)
        line.append("cap ", style="dim")
        line.append(f"{cap / 1000:,.0f}K tok" if cap else "—")
        use = Text(**one)
        use.append("use ", style="dim")
        use.append(num(usage * 100 if usage is not None else None, ".1f", "% "))
        use.append(bar(usage, max(3, width)), style="yellow")
        if used is not None and cap:
            line = Text(**one)
            line.append("KV ", style="dim")
            line.append(f"{_k(used)}/{_k(cap)} tok")
        q = Text(**one)
        if state.metrics_error:
            q.append(state.metrics_error, style="yellow")
        elif m is not None:
            q.append_text(load_gauge(m, compact=True))
        return Group(line, use, q)
    t = Table.grid(padding=(0, 1))
    t.add_column(style="dim", no_wrap=True, min_width=8)
    t.add_column(overflow="fold")
    t.add_row("capacity", f"{cap:,} tokens" if cap else "—")
    t.add_row("in use", (f"{int(used):,} tok " if used is not None else "")
              + f"({num(usage * 100 if usage is not None else None, '.1f', '%')})")
    t.add_row("", Text(bar(usage, width), style="yellow"))
    if m is not None:
        t.add_row("requests", load_gauge(m))
        if m.num_retracted_reqs is not None:
            rt = Text(f"{m.num_retracted_reqs:.0f}", style="yellow" if m.num_retracted_reqs else "")
            if m.num_retracted_requests_total is not None:
                rt.append(f" at the last log · {m.num_retracted_requests_total:.0f} since start", style="dim")
            t.add_row("retracted", rt)
    if state.metrics_error:
        t.add_row(Text("note", style="yellow"), Text(state.metrics_error, style="yellow"))
    return t


def gpu_panel(state: RuntimeState, compact: bool = False) -> RenderableType:
    g = state.gpu
    if compact:
        return _gpu_compact(state)
    parts: list[RenderableType] = []
    if g is not None and g.available and g.gpus:
        t = Table(box=None, padding=(0, 1), show_edge=False)
        cols: tuple[tuple[str, JustifyMethod], ...] = (("GPU", "left"), ("mem GiB", "right"), ("util", "right"),
                                                       ("W", "right"), ("°C", "right"))
        for col, j in cols:
            t.add_column(col, justify=j, no_wrap=True)
        for d in g.gpus:
            t.add_row(f"{d.index} {(d.name or '?').replace('NVIDIA ', '')[:12]}",
                      f"{num(d.mem_used_gib, '.1f')}/{num(d.mem_total_gib, '.1f')}",
                      num(d.util_pct, '.0f', '%'), num(d.power_w, '.0f'), num(d.temp_c, '.0f'))
        parts.append(t)
        reserved = [d.mem_reserved_gib for d in g.gpus if d.mem_reserved_gib is not None]
        if reserved:  # NVML v2: `used` as nvidia-smi reports it, the driver's own reservation apart
            parts.append(Text(f"+ {max(reserved):.1f} GiB/GPU driver-reserved", style="dim"))
        elif any(d.mem_source == "v1" for d in g.gpus):
            parts.append(Text("used incl. driver-reserved (NVML v1)", style="dim"))
        foreign = [(d.index, p) for d in g.gpus for p in d.processes if p.foreign]
        for idx, p in foreign[:3]:
            parts.append(Text(f"foreign: GPU{idx} pid {p.pid} {p.name} {num(p.used_gib, '.1f', ' GiB')}", style="red"))
    else:
        msg = g.message if g is not None else "GPU telemetry starting"
        parts.append(Text(msg, style="dim"))
    s = state.server
    if s is not None and s.memory is not None:
        mu = s.memory
        t2 = Table.grid(padding=(0, 1))
        t2.add_column(style="dim")
        t2.add_column(justify="right")
        t2.add_row("engine (per GPU)", "")
        t2.add_row("  weights", num(mu.weight_gb, ".1f", " GB"))
        t2.add_row("  KV cache", num(mu.kvcache_gb, ".1f", " GB"))
        t2.add_row("  CUDA graphs", num(mu.graph_total_gb, ".2f", " GB"))
        parts.append(t2)
    return Group(*parts)


def _gpu_compact(state: RuntimeState) -> RenderableType:
    """Three lines: device memory and utilisation over all GPUs (or why there is none), foreign processes, the
    engine's weights and KV cache per GPU."""
    one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
    g = state.gpu
    lines: list[Text] = []
    if g is not None and g.available and g.gpus:
        used = sum(d.mem_used_gib or 0 for d in g.gpus)
        total = sum(d.mem_total_gib or 0 for d in g.gpus)
        utils = [d.util_pct for d in g.gpus if d.util_pct is not None]
        lines.append(Text(f"{len(g.gpus)} GPU {used:.0f}/{total:.0f} GiB", **one))
        foreign = [p for d in g.gpus for p in d.processes if p.foreign]
        if foreign:
            lines.append(Text(f"{len(foreign)} foreign process(es)", style="bold red", **one))
        else:
            lines.append(Text(f"util {max(utils):.0f}%" if utils else "util —", style="dim", **one))
    else:
        msg = g.message if g is not None else "GPU telemetry starting"
        lines.append(Text(msg.split(" (")[0].split(";")[0], style="dim", **one))
    s = state.server
    if s is not None and s.memory is not None:
        mu = s.memory
        lines.append(Text(f"weights {num(mu.weight_gb, '.1f', ' GB')}", style="dim", **one))
        if len(lines) < 3:
            lines.append(Text(f"KV {num(mu.kvcache_gb, '.1f', ' GB')}", style="dim", **one))
    return Group(*lines[:3])


def _arm_segment(a, cur: bool, full: bool) -> Text:
    t = Text()
    t.append(a.profile, style="bold" if cur else "")
    anchor = (f"anchor {a.anchor_median_tok_s:.0f} tok/s" if a.anchor_median_tok_s else
              a.unanchored or "anchor pending")
    if a.anchor_pct is not None:
        anchor += f" ({a.anchor_pct:.0f}%)"
    if full:
        kv = f"KV {a.kv_capacity_tokens / 1000:.0f}K" if a.kv_capacity_tokens else "KV —"
        tau = "1" if a.anchor_tau is None and a.label == NO_SPEC_LABEL else num(a.anchor_tau, ".2f")
        t.append(f" [{anchor} · τ {tau} · {kv}]", style="dim")
    else:
        t.append(f" [{anchor}]", style="dim")
    return t


def arms_strip(state: RuntimeState, width: int | None = None) -> Text:
    """The arms of this session in launch order, each with its anchor cell's median (labelled 'anchor': it is
    not the last cell's figure), τ and KV capacity — on one line: when they do not fit `width`, earlier arms
    lose τ and KV, then the oldest are elided ('+N earlier')."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if not state.arms:
        return t
    arms = list(state.arms)
    n = len(arms)

    def build(skip: int, full_earlier: bool) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(" arms ", style="bold")
        if skip:
            out.append(f"+{skip} earlier → ", style="dim")
        for i in range(skip, n):
            if i > skip:
                out.append(" → ", style="dim")
            cur = i == n - 1
            out.append_text(_arm_segment(arms[i], cur, full=cur or full_earlier))
        return out

    if width is None:
        return build(0, True)
    for skip in range(n):
        for full in ((True, False) if skip == 0 else (False,)):
            cand = build(skip, full)
            if cand.cell_len <= width:
                return cand
    return build(n - 1, False)


def fit_path(path: str, width: int) -> str:
    """A path in `width` columns: whole when it fits, else '…' and its tail (the cell's own folder last)."""
    if len(path) <= width:
        return path
    return "…" + path[-(max(1, width - 1)):]


def cell_panel(cell: CellProgress | None, last: CellProgress | None = None, max_rows: int = 8,
               dist_width: int = 40, height: int | None = None, width: int | None = None,
               compact: bool = False, speculative: bool | None = None) -> RenderableType:
    """The running (or last) cell. With `height` (the panel's inner lines) every part is fitted in that many
    lines, by priority: progress line, median line, p_i, forecast check, then the latest rows (≥ 3 when there is
    room), the distribution, the rows path, then more rows. `compact` (80×24) puts the median right under the
    progress line, so both read first. `speculative` False (a server without a drafter): every row's τ is 1 by
    definition (stats.DEFINITIONS), as the acceptance panel says, not a missing figure."""
    c = cell if cell is not None else last
    if c is None:
        return Text("no cell yet — r runs a cell (choose set and protocol), a runs the health anchor; "
                    "rows land in sessions/", style="dim")
    one: dict[str, Any] = dict(no_wrap=True, overflow="ellipsis")
    head = Text(**one)
    head.append(c.label, style="bold")
    head.append(f"  {c.done}/{c.total}  ", style="")
    head.append(c.status or "", style="dim")
    rows = c.rows
    s = c.summary or stats.summarize(rows)
    foot = Text(**one) if height is not None else Text()
    foot.append("median ", style="dim")
    foot.append(num(s.median_tok_s), style="bold cyan")
    tau_s = "1" if s.tau is None and speculative is False else num(s.tau, ".2f")  # no drafter: 1 by definition
    if width and width < 90:  # 80 columns: τ right after the median, so an ellipsis never takes it
        foot.append(f" tok/s (n={s.n_included})  τ {tau_s}  p10 {num(s.p10_tok_s)}  p90 {num(s.p90_tok_s)}  "
                    f"TTFT {num(s.ttft_median_s, '.3f', ' s')}", style="dim")
    else:
        foot.append(f" tok/s (interp., n={s.n_included})  p10 {num(s.p10_tok_s)}  p90 {num(s.p90_tok_s)}  ",
                    style="dim")
        foot.append(f"TTFT med {num(s.ttft_median_s, '.3f', ' s')}  τ {tau_s}", style="dim")
    speeds = [v for v in (stats.output_tok_s(r) for r in rows if r.ok and not r.flags) if v is not None]
    dist = distribution(speeds, width=max(8, min(60, dist_width))) if len(speeds) >= 2 else None
    pi = None
    if s.per_position_acceptance:
        pi = Text("p_i " + " ".join(f"{x:.2f}" for x in s.per_position_acceptance)
                  + f"   Σp_i/K {num(s.accept_rate_check, '.3f')} vs server accept rate "
                  + num(s.server_accept_rate, '.3f'), style="dim", **(one if height is not None else {}))
        if c.adaptive:  # adaptive speculation: the steps the cell's requests ran at (sessions/adaptive.py)
            pi.append("   " + distribution_text(c.adaptive), style="magenta")
    fc = None
    if c.forecast_cmp:
        f = c.forecast_cmp
        fc = Text(f"forecast made before the flip: depth {f['depth']} {f['predicted_tok_s']:.1f} tok/s "
                  f"(τ {f['predicted_tau']:.2f}) · measured {f['measured_tok_s']:.1f} "
                  f"(τ {num(f['measured_tau'], '.2f')}) · error {f['error_pct']:+.1f}%", style="bold",
                  **(one if height is not None else {}))
    path = None
    if c.cell_dir:
        p = f"{c.cell_dir}/rows.jsonl"
        path = Text("rows → " + (fit_path(p, width - 7) if width else p), style="dim",
                    **(one if height is not None else {}))

    def table(n: int) -> Table:
        t = Table(box=None, padding=(0, 1), show_edge=False)
        cols: tuple[tuple[str, JustifyMethod], ...] = (("request", "left"), ("TTFT s", "right"), ("tok/s", "right"),
                                                       ("τ", "right"), ("out", "right"), ("note", "left"))
        for col, j in cols:
            t.add_column(col, justify=j, no_wrap=True)
        for r in (rows[-n:] if n else []):
            note = r.error or ",".join(r.flags)
            tau = stats.request_tau(r)
            t.add_row(r.request_id[:22], num(stats.ttft_s(r), ".3f"), num(stats.output_tok_s(r)),
                      Text("1", style="dim") if tau is None and speculative is False and not r.error
                      else num(tau, ".2f"), num(r.completion_tokens, "d"),
                      Text(note[:40], style="red" if r.error else "yellow"))
        return t

    if height is None:
        n_rows = max_rows
        show = {"pi": pi is not None, "fc": fc is not None, "dist": dist is not None, "path": path is not None}
    else:
        left = max(2, height) - 2  # progress + median always
        show = {}
        for key, need, there in (("pi", 1, pi is not None), ("fc", 1, fc is not None)):
            show[key] = there and left >= need
            left -= need if show[key] else 0
        n_rows = min(len(rows), 3, max(0, left - 1)) if rows else 0
        left -= (n_rows + 1) if n_rows else 0
        for key, need, there in (("dist", 2, dist is not None), ("path", 1, path is not None)):
            show[key] = there and left >= need
            left -= need if show[key] else 0
        if n_rows:
            more = min(len(rows) - n_rows, left)
            n_rows += more
        elif rows and left >= 2:
            n_rows = min(len(rows), left - 1)
    parts: list[RenderableType] = [head]
    body: list[RenderableType] = [table(n_rows)] if (n_rows or height is None) else []
    tail: list[RenderableType] = []
    if show["dist"] and dist is not None:
        tail.append(dist)
    if show["pi"] and pi is not None:
        tail.append(pi)
    if show["fc"] and fc is not None:
        tail.append(fc)
    if compact:
        parts += [foot] + [x for x in (pi if show["pi"] else None, fc if show["fc"] else None) if x is not None]
        parts += body + ([dist] if show["dist"] and dist is not None else [])
    else:
        parts += body + [foot] + tail
    if show["path"] and path is not None:
        parts.append(path)
    return Group(*parts)


def wrap_breakable(text: str, width: int) -> str:
    """`text` wrapped at `width` columns for a toast: words break at spaces, paths also after a '/', never inside
    a name (a name longer than the width stays whole and is folded by the terminal, as before)."""
    if width < 8:
        return text
    out_lines: list[str] = []
    for para in text.split("\n"):
        tokens: list[tuple[str, bool]] = []  # (piece, joins the previous piece without a space)
        for word in para.split(" "):
            pieces = word.replace("/", "/\x00").split("\x00") if len(word) > width and "/" in word else [word]
            for k, piece in enumerate(p for p in pieces if p):
                tokens.append((piece, k > 0))
        line = ""
        for piece, joined in tokens:
            sep = "" if joined or not line else " "
            if line and len(line) + len(sep) + len(piece) > width:
                out_lines.append(line)
                line = piece
            else:
                line += sep + piece
        out_lines.append(line)
    return "\n".join(out_lines)


def startup_panel(state: RuntimeState, width: int = 40) -> RenderableType:
    p: StartupProgress | None = state.startup
    head = Text()
    head.append(f"launching {state.profile_name}  ", style="bold")
    head.append_text(badge_text(state))
    parts: list[RenderableType] = [head]
    if state.argv:
        parts.append(Text(" ".join(state.argv), style="dim", overflow="fold"))
    if p is None:
        for issue in state.preflight:
            parts.append(Text(f"preflight {issue.severity}: {issue.message}",
                              style="red" if issue.severity == "error" else "yellow"))
        if state.error:
            parts.append(Text(state.error, style="bold red"))
            parts.append(Text("q: quit", style="red"))
        else:
            parts.append(Text("starting the engine process…", style="dim"))
        return Group(*parts)
    el = state.startup_elapsed_s
    prev = state.previous_startup_s
    frac = min(0.99, el / prev) if (prev and el is not None and not p.ready) else p.fraction()
    line = Text()
    line.append(bar(frac, width), style="green")
    line.append(f" {frac * 100:4.0f}%  elapsed {num(el, '.1f', ' s')}", style="")
    if prev:
        left = max(0.0, prev - (el or 0.0))
        line.append(f"  · previous launch of this arm {prev:.1f} s · ~{left:.1f} s remaining", style="dim")
    else:
        line.append("  · first launch of this arm here: no ETA yet", style="dim")
    parts.append(line)
    t = Table.grid(padding=(0, 1))
    t.add_column(no_wrap=True)
    t.add_column(style="bold", no_wrap=True)
    t.add_column(style="dim")
    icons = {"done": Text("✔", style="green"), "active": Text("▶", style="yellow"), "pending": Text("·", style="dim")}
    for ph in p.phases:
        dur = ""
        if ph.started_at is not None and ph.ended_at is not None:
            dur = f" ({ph.ended_at - ph.started_at:.1f} s)"
        was = state.previous_phases.get(ph.key)
        if was is not None:
            dur += f"  [last time {was:.1f} s]"
        t.add_row(icons[ph.status], ph.label, (ph.detail or "") + dur)
    for issue in state.preflight:
        parts.append(Text(f"preflight {issue.severity}: {issue.message}",
                          style="red" if issue.severity == "error" else "yellow"))
    parts.append(t)
    if p.error_line or state.error:
        parts.append(Text(state.error or p.error_line or "", style="bold red"))
        if state.log_path:
            parts.append(Text(f"log kept: {state.log_path}  (l: view log · q: quit)", style="red"))
    elif p.last_line:
        parts.append(Text(p.last_line[:200], style="dim"))
    return Group(*parts)
