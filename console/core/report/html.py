"""`serving-console report DIR --html [OUT]` and `--plots DIR` (docs/reports.md): one self-contained HTML file for
a cell, a session, a pair or a campaign, and each of its plots as SVG and PNG.

Every figure is computed by the functions `report` uses (sessions.report.cell_report, sessions.pairs.compute,
measure.pairs.speeds, sessions.forecasts.cell_forecast), never re-derived here; each plot's caption names the
quantity (its definition from measure.stats.DEFINITIONS) and the rows it comes from. The page holds no script, no
external reference of any kind (a Content-Security-Policy forbids every fetch), and no secret: argv and mappings
pass through core.redaction once more on their way into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from console import __version__
from console.core.fmt import num as _n, utc_iso
from console.core.measure import stats
from console.core.measure.health import Alarm
from console.core.measure.pairs import PairStats, interval_notes, speeds
from console.core.redaction import redact_argv, redact_mapping
from console.core.report import plot as P
from console.core.sessions.alarms import read_alarms
from console.core.sessions.browse import arm_of
from console.core.sessions.forecasts import cell_forecast
from console.core.sessions.pairs import compute, pair_files, pair_time_scale
from console.core.sessions.report import cell_figure_rows, cell_report, simulated_note, time_scale_note
from console.core.sessions.store import iter_cells, load_rows, read_json

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


@dataclass
class Figure:
    slug: str
    title: str
    scene: P.Scene
    quantities: list[str]
    """Names in stats.DEFINITIONS (or a sentence for a pair statistic)."""
    rows: list[str]
    """The rows files the figure is computed from (relative to the report's directory)."""
    note: str = ""


@dataclass
class Report:
    kind: str  # cell | session | pair | campaign
    title: str
    base: Path
    sections: list[str] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    simulated: bool = False
    time_scale: float | None = None

    def add(self, fig: Figure) -> str:
        self.figures.append(fig)
        return _figure_html(fig, len(self.figures))


# --- quantities and captions ------------------------------------------------------------------------------

DEFS = {d.name: d for d in stats.DEFINITIONS}

PAIR_EFFECT = ("Δ% = median(B) / median(A) − 1 over per-request tok/s (all legs of an arm pooled); 95% CI: seeded "
               "percentile bootstrap resampling each arm's requests (measure/pairs.py)")
PAIR_DRIFT = "drift = median(A last leg) / median(A first leg) − 1, with its own bootstrap CI (measure/pairs.py)"


def _quantity_html(q: str) -> str:
    d = DEFS.get(q)
    if d is None:
        return escape(q)
    unit = f" [{escape(d.unit)}]" if d.unit else ""
    return f"<b>{escape(d.name)}</b> = <code>{escape(d.formula)}</code>{unit}"


def _figure_html(f: Figure, n: int) -> str:
    qs = "; ".join(_quantity_html(q) for q in f.quantities)
    rows = ", ".join(f"<code>{escape(r)}</code>" for r in f.rows) or "—"
    note = f"<br>{escape(f.note)}" if f.note else ""
    return (f'<figure class="fig" id="fig-{escape(f.slug)}"><h3>Figure {n}. {escape(f.title)}</h3>'
            f'<div class="plotbox">{f.scene.to_svg(plot_id="plot-" + f.slug)}</div>'
            f"<figcaption>Quantity: {qs}.<br>Rows: {rows}.{note}</figcaption></figure>")


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], cls: str = "") -> str:
    h = "".join(f"<th>{escape(str(x))}</th>" for x in head)
    def td(x: Any) -> str:
        cls = ' class="wrap"' if isinstance(x, _Wrap) else ""
        return f"<td{cls}>{x if isinstance(x, _Raw) else escape(str(x))}</td>"

    body = "".join("<tr>" + "".join(td(x) for x in r) + "</tr>" for r in rows)
    thead = f"<thead><tr>{h}</tr></thead>" if any(str(x) for x in head) else ""
    return f'<div class="tablewrap"><table class="{cls}">{thead}<tbody>{body}</tbody></table></div>'


class _Raw(str):
    """Already-escaped HTML inside a table cell."""


class _Wrap(_Raw):
    """A cell that wraps (long argv)."""


def _code(s: str) -> _Raw:
    return _Raw(f"<code>{escape(s)}</code>")


def _argv(argv: Sequence[str]) -> _Wrap:
    return _Wrap(f"<code>{escape(_shell(redact_argv([str(a) for a in argv])))}</code>")


def _rel(base: Path, p: Path | str) -> str:
    p = Path(p)
    try:
        return str(p.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(p)


# --- per-request points (the same inclusion as the statistic) ----------------------------------------------

def request_points(rows) -> tuple[list[float], list[str]]:
    """Per-request tok/s of the rows the cell statistic includes, with each point's row id: a row is a point
    exactly when `measure.pairs.speeds` keeps it."""
    vals, tips = [], []
    for r in rows:
        v = speeds([r])
        if v:
            vals.append(v[0])
            tips.append(f"{r.request_id} · {v[0]:.1f} tok/s")
    return vals, tips


# --- the plots -------------------------------------------------------------------------------------------

def _acceptance_figures(slug: str, title: str, arms: Sequence[tuple[str, list[float] | None]], rows: list[str],
                        colors: Sequence[str] | None = None) -> list[Figure]:
    """p_i and the conditionals p_i / p_(i−1) per arm: one plot for up to two arms, else one plot of each."""
    keep = [i for i, (_, p) in enumerate(arms) if p]
    cols = [colors[i] if colors else P.color(i) for i in keep]
    arms = [arms[i] for i in keep]
    if not arms:
        return []
    q = ["p_i (acceptance at draft position i)"]
    src = "p_i from the pooled spec_correct_drafts_histogram; conditional p_i / p_(i−1) (measure/stats.py)."

    def series(conditional: bool, solo: bool) -> list[P.Series]:
        out = []
        for i, (name, p) in enumerate(arms):
            assert p is not None  # arms without p_i were dropped above
            xs = list(range(1, len(p) + 1))
            c = cols[i]
            if not conditional or solo:
                out.append(P.Series(f"{name} p_i", xs, p, c,
                                    tips=[f"{name} p{k} = {v:.3f}" for k, v in zip(xs, p, strict=True)]))
            if conditional or solo:
                cond = stats.conditional_acceptance(p)
                out.append(P.Series(f"{name} p_i/p_(i−1)", xs, cond, c, dash=(5, 4), hollow=True,
                                    tips=[f"{name} conditional at {k} = {_n(v, '.3f')}"
                                          for k, v in zip(xs, cond, strict=True)]))
        return out

    if len(arms) <= 2:
        sc = P.line_chart(title, series(False, True), "draft position i", "acceptance", y_range=(0.0, 1.05))
        return [Figure(slug, title, sc, q, rows, "Solid: " + src.replace("; conditional", "; dashed: conditional"))]
    t1, t2 = title + ": p_i", title + ": conditional p_i / p_(i−1)"
    return [Figure(slug, t1, P.line_chart(t1, series(False, False), "draft position i", "p_i", y_range=(0.0, 1.05)),
                   q, rows, src),
            Figure(slug + "-conditional", t2, P.line_chart(t2, series(True, False), "draft position i",
                                                           "p_i / p_(i−1)", y_range=(0.0, 1.05)), q, rows, src)]


def _strip_figure(slug: str, title: str, strips: list[P.Strip], rows: list[str], note: str = "") -> Figure:
    sc = P.strip_chart(title, strips, "tok/s per request")
    return Figure(slug, title, sc, ["tok/s (per request)", "cell median"], rows,
                  ("Every included request is a point (hover: its request id); thick tick: the interpolated median; "
                   "bracket: p10–p90." + (" " + note if note else "")))


def _ladder_figure(slug: str, base: Path, cells: list[tuple[Path, dict[str, Any]]]) -> Figure | None:
    """Depth ladder: measured median tok/s of each speculative cell against its depth, and the forecast curve from
    the shallowest cell of each prompt set (the console's one forecast, `cell_forecast`)."""
    spec = [(d, r) for d, r in cells if r.get("tau") is not None and r.get("median_tok_s")]
    measured = [(d, r) for d, r in spec if not _is_anchor(d, r)]
    spec = measured or spec  # anchors (a fixed health check per launch) only when nothing else was measured
    if not spec:
        return None
    series: list[P.Series] = []
    notes = []
    rows = []
    groups: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for d, r in spec:
        groups.setdefault(str(r.get("prompt_set")), []).append((d, r))
    for gi, (ps_name, group) in enumerate(sorted(groups.items())):
        c = P.color(gi + 2)
        meas = []
        for d, r in group:
            arm = arm_of(read_json(d / "manifest.json") if (d / "manifest.json").exists() else {})
            if arm.depth is not None:
                meas.append((arm.depth, r["median_tok_s"], d))
        if not meas:
            continue
        meas.sort(key=lambda t: (t[0], str(t[2])))
        base_cell = meas[0][2]
        try:
            fc = cell_forecast(base_cell)
        except ValueError as e:
            notes.append(f"{ps_name}: no forecast ({e})")
            fc = None
        if fc is not None:
            pts = fc.forecast.points
            series.append(P.Series(f"forecast from {base_cell.name} ({ps_name})", [p.depth for p in pts],
                                   [p.tok_s for p in pts], c, dash=(6, 4), hollow=True,
                                   tips=[f"forecast depth {p.depth}: {p.tok_s:.1f} tok/s, τ {p.tau:.2f}"
                                         for p in pts]))
            notes.append(f"forecast from {base_cell.name}: verify tax {fc.forecast.verify_tax_ms:.3f} ms/token, "
                         f"{fc.forecast.tax_source}")
        series.append(P.Series(f"measured ({ps_name})", [m[0] for m in meas], [m[1] for m in meas], c, line=False,
                               tips=[f"{m[2].name}: depth {m[0]}, median {m[1]:.1f} tok/s" for m in meas]))
        rows += [_rel(base, m[2] / "rows.jsonl") for m in meas]
    if not series:
        return None
    title = "Depth ladder: measured median tok/s and the forecast"
    sc = P.line_chart(title, series, "draft depth (steps; DFlash: block)", "tok/s (median)")
    return Figure(slug, title, sc, ["cell median", "forecast"], sorted(set(rows)), "; ".join(notes))


# --- provenance ------------------------------------------------------------------------------------------

def _session_meta(d: Path) -> dict[str, Any]:
    for p in (d / "session.json", d.parent / "session.json"):
        if p.exists():
            try:
                return redact_mapping(read_json(p))
            except (OSError, ValueError):
                return {}
    return {}


def _provenance(base: Path, meta: dict[str, Any], cells: list[tuple[Path, dict[str, Any]]]) -> str:
    node = meta.get("node") or {}
    gpus = ", ".join(f"{g.get('index')}: {g.get('name')} ({g.get('mem_total_gib')} GiB)"
                     for g in node.get("gpus") or [])
    engine_versions = sorted({str(r.get("engine_version")) for _, r in cells if r.get("engine_version")})
    out = ["<h2 id=\"provenance\">Provenance</h2>",
           _table(["", ""], [
               ("host", node.get("hostname") or "—"),
               ("platform", node.get("platform") or "—"),
               ("python", node.get("python") or "—"),
               ("GPUs", gpus or f"none read ({node.get('gpu_state') or 'unknown'})"),
               ("driver", node.get("driver_version") or "—"),
               ("engine (SGLang) version", ", ".join(engine_versions) or node.get("engine_version") or "—")
               if not any(r.get("simulated") for _, r in cells) else
               ("engine", "SIMULATED: serving-console's engine twin, answering as SGLang "
                          + (", ".join(engine_versions) or "—")),
               ("console version (recorded)", node.get("console_version") or "—"),
               ("console version (this report)", __version__),
           ], "kv")]
    sets: dict[tuple[str, str], list[str]] = {}
    for d, r in cells:
        sets.setdefault((str(r.get("prompt_set")), str(r.get("prompt_set_sha256"))), []).append(d.name)
    out.append("<h3>Prompt sets</h3>")
    out.append(_table(["set", "SHA-256", "cells"], [(k[0], _code(k[1]), ", ".join(v)) for k, v in sets.items()]))
    protos = []
    for d, r in cells:
        pr = r.get("protocol") or {}
        protos.append((d.name, pr.get("n", "—"), pr.get("max_tokens", "—"), pr.get("temperature", "—"),
                       pr.get("concurrency", "—"), pr.get("warmup", "—"), pr.get("endpoint", "chat"),
                       pr.get("ignore_eos", "—")))
    out.append("<h3>Protocol per cell</h3>")
    out.append(_table(["cell", "n", "max tokens", "temperature", "concurrency", "warm-up", "endpoint", "ignore_eos"],
                      protos))
    launches = []
    for i, arm in enumerate([a for a in meta.get("arms") or [] if a.get("argv")], 1):  # launches; anchors have no argv
        launches.append((str(i), arm.get("profile") or "—", arm.get("log") or "—", _argv(arm["argv"])))
    seen = set()
    for d, _r in cells:  # a cell without a session (or an attach) records its own argv
        m = _manifest(d)
        argv = m.get("launch_argv")
        if argv and not launches:
            key = tuple(argv)
            if key not in seen:
                seen.add(key)
                launches.append((d.name, m.get("profile") or "—", "—", _argv(argv)))
    out.append("<h3>Engine launches: the exact flags (secrets redacted)</h3>")
    out.append(_table(["launch", "profile", "log", "argv"], launches) if launches else
               "<p>No launch recorded (attached to a running server, or no session.json).</p>")
    return "".join(out)


def _shell(argv: Sequence[str]) -> str:
    import shlex
    return " ".join(shlex.quote(a) for a in argv)


def _manifest(d: Path) -> dict[str, Any]:
    try:
        return redact_mapping(read_json(d / "manifest.json")) if (d / "manifest.json").exists() else {}
    except (OSError, ValueError):
        return {}


def _is_anchor(d: Path, r: dict[str, Any]) -> bool:
    return r.get("label") == "anchor"


def _cells_table(base: Path, cells: list[tuple[Path, dict[str, Any]]]) -> str:
    rows = []
    for d, r in cells:
        m = _manifest(d)
        arm = arm_of(m)
        rows.append((d.name, r.get("label") or "—", arm.short() if m else "—", r.get("profile") or "—",
                     f"{r['n_included']} / {r['n_ok']} / {r['n']}", _n(r["median_tok_s"]),
                     f"{_n(r['p10_tok_s'])} / {_n(r['p90_tok_s'])}", _n(r["tau"], ".2f"),
                     _n(r["ttft_median_s"], ".3f", " s"), _n(r["implied_step_ms"], ".2f", " ms"),
                     _n(r["kv_capacity_tokens"], ","), _n(r["usd_per_m_tokens"], ".2f"),
                     "yes" if r.get("complete") else "no",
                     "anchor" if _is_anchor(d, r) else "",
                     _code(_rel(base, r["rows_path"]))))
    return _table(["cell", "label", "arm", "profile", "n in stat / ok / sent", "median tok/s", "p10 / p90",
                   "τ", "TTFT median", "implied step", "KV capacity", "$/M tok", "complete", "", "rows"], rows)


# --- pages -----------------------------------------------------------------------------------------------

def _cells_of(d: Path, skipped: list[str] | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """(cell dir, `cell_report`) of every readable cell; a cell whose manifest tore (a crash mid-write) is left
    out and named in `skipped`, so the rest of the session still reports."""
    out = []
    for c in iter_cells(d):
        try:
            out.append((c, cell_report(c)))
        except (OSError, ValueError) as e:
            if skipped is None:
                raise
            skipped.append(f"{c.name}: not reported ({type(e).__name__}: {' '.join(str(e).split())[:120]})")
    return out


def _banner(rep: Report, note: str | None, detail: str | None = None) -> str:
    """The SIMULATED banner: `note` is `simulated_note`'s sentence (the same words as report.md and --json),
    `detail` a smaller line under it (the client clock's equivalents of a time-scaled run)."""
    if not note:
        return ""
    rep.simulated = True
    head, _, rest = note.partition(": ")
    more = f'<br><span class="small">{escape(detail)}</span>' if detail else ""
    return f'<p class="sim"><b>{escape(head)}</b>: {escape(rest)}{more}</p>'


def _cell_sections(rep: Report, base: Path, cells: list[tuple[Path, dict[str, Any]]], prefix: str = "") -> None:
    strips = []
    for i, (d, r) in enumerate(cells):
        vals, tips = request_points(load_rows(d))
        strips.append(P.Strip(f"{d.name.split('-', 2)[1]} {r.get('label') or ''}".strip(), vals,
                              [f"{d.name}/{t}" for t in tips], r["median_tok_s"], r["p10_tok_s"], r["p90_tok_s"],
                              P.color(i)))
    rep.sections.append(rep.add(_strip_figure(f"{prefix}tok-s-per-cell", "tok/s per request, per cell", strips,
                                              [_rel(base, r["rows_path"]) for _, r in cells],
                                              "Rows are labelled by cell number and label; anchors included.")))
    arms = []
    seen: dict[str, int] = {}
    for d, r in cells:
        if r.get("per_position_acceptance"):
            arms.append((f"{d.name.split('-', 2)[1]} {r.get('label') or ''}".strip(), r["per_position_acceptance"]))
            seen[d.name] = 1
    for fig in _acceptance_figures(f"{prefix}acceptance-per-cell", "Acceptance per draft position, per cell",
                                   arms[:8], [_rel(base, r["rows_path"]) for d, r in cells if d.name in seen]):
        if len(arms) > 8:
            fig.note += f" The first 8 of {len(arms)} speculative cells are drawn; the table lists all."
        rep.sections.append(rep.add(fig))
    lad = _ladder_figure(f"{prefix}depth-ladder", base, cells)
    if lad:
        rep.sections.append(rep.add(lad))


def _alarms_html(found: Sequence[tuple[str, Alarm]], source: str) -> str:
    """The 'Acceptance alarms' section: each alarm with its state, what it saw, since when, its likely causes."""
    if not found:
        return ""
    out = ['<h2 id="alarms">Acceptance alarms</h2>', f'<p class="small">{escape(source)} '
           '(docs/measurement.md#alarms).</p>']
    for arm, a in found:
        state = "cleared" if not a.active else ("acknowledged" if a.acked else "ACTIVE")
        when = f"{a.since_utc} · " if a.since_utc else ""
        who = f" · arm {escape(arm)}" if arm else ""
        out.append(f'<div class="alarm"><b class="kind">{escape(a.kind)}</b> {escape(a.key)} · <b>{state}</b> · '
                   f"{escape(when)}request {a.since_index + 1}{who}<br>{escape(a.saw)}<br>"
                   f'<span class="small">{escape(a.causes)}</span></div>')
    return "\n".join(out)


def _cell_detail(r: dict[str, Any]) -> str:
    rows = cell_figure_rows(r)
    at = next(i for i, (name, _) in enumerate(rows) if name.startswith("τ")) + 1
    rows[at:at] = [
        ("p_i per draft position", " ".join(f"{x:.3f}" for x in r["per_position_acceptance"] or []) or "—"),
        ("conditional p_i / p_(i−1)", " ".join(_n(x, ".3f") for x in r["conditional_acceptance"] or []) or "—")]
    rows.append(("excluded (flags)", ", ".join(r["excluded"]) or "none"))
    rows += [("error", e) for e in r["errors"]]  # the first five, as the markdown report lists them
    return _table(["figure", "value"], rows, "kv")


def cell_page(d: Path) -> Report:
    d = Path(d)
    r = cell_report(d)
    m = _manifest(d)
    arm = arm_of(m)
    rep = Report("cell", f"Cell {r.get('label') or d.name} · {arm.label() if m else '—'}", d)
    head = (f"<p class=\"headline\"><b>median {_n(r['median_tok_s'])} tok/s</b> (interpolated; n {r['n_included']} "
            f"in the statistic of {r['n']}; p10 {_n(r['p10_tok_s'])} / p90 {_n(r['p90_tok_s'])})"
            + (f" · <b>τ {r['tau']:.2f}</b>" if r.get("tau") is not None else "") + "</p>")
    rep.sections.append(_banner(rep, simulated_note(r.get("simulated"), r.get("sim_time_scale"), r.get("sim_node")),
                                time_scale_note(r.get("sim_time_scale"), {"": r["median_tok_s"]})))
    rep.time_scale = r.get("sim_time_scale")
    rep.sections.append(head)
    rep.sections.append(_alarms_html([("", Alarm.from_json(a)) for a in r.get("alarms") or []],
                                     "Recomputed from this cell's rows by the console's rules"))
    rep.sections.append(_cell_detail(r))
    vals, tips = request_points(load_rows(d))
    rep.sections.append(rep.add(_strip_figure("tok-s", "tok/s per request", [P.Strip(
        r.get("label") or d.name, vals, tips, r["median_tok_s"], r["p10_tok_s"], r["p90_tok_s"])], ["rows.jsonl"])))
    if r.get("per_position_acceptance"):
        for fig in _acceptance_figures("acceptance", "Acceptance per draft position",
                                       [(r.get("label") or d.name, r["per_position_acceptance"])], ["rows.jsonl"]):
            rep.sections.append(rep.add(fig))
        try:
            fc = cell_forecast(d)
        except ValueError:
            fc = None
        if fc is not None:
            pts = fc.forecast.points
            title = "Forecast from this cell, other depths"
            sc = P.line_chart(title, [
                P.Series("forecast", [p.depth for p in pts], [p.tok_s for p in pts], P.color(0), dash=(6, 4),
                         hollow=True, tips=[f"depth {p.depth}: {p.tok_s:.1f} tok/s, τ {p.tau:.2f}" for p in pts]),
                P.Series("measured", [fc.depth], [r["median_tok_s"]], P.color(1), line=False,
                         tips=[f"measured depth {fc.depth}: {r['median_tok_s']:.1f} tok/s"])],
                "draft depth", "tok/s (median)")
            rep.sections.append(rep.add(Figure("forecast", title, sc, ["forecast"], ["rows.jsonl"],
                                               f"verify tax {fc.forecast.verify_tax_ms:.3f} ms/token: "
                                               f"{fc.forecast.tax_source}")))
    rep.sections.append(_provenance(d, _session_meta(d), [(d, r)]))
    return rep


def session_page(d: Path) -> Report:
    d = Path(d)
    skipped: list[str] = []
    cells = _cells_of(d, skipped)
    pfs = pair_files(d)
    meta = _session_meta(d)
    scales = {r.get("sim_time_scale") for _, r in cells if r.get("sim_time_scale")}
    scale = scales.pop() if len(scales) == 1 else None
    if pfs:
        doc0 = read_json(pfs[-1])
        sp = doc0["spec"]
        rep = Report("pair", f"Pair: {sp['a']} (A) vs {sp['b']} (B)", d)
    else:
        rep = Report("session", f"Session {d.name}", d)
    rep.time_scale = scale
    node = next((r.get("sim_node") for _, r in cells if r.get("sim_node")), None)
    rep.sections.append(_banner(rep, simulated_note(any(r.get("simulated") for _, r in cells), scale, node),
                                time_scale_note(scale)))
    rep.sections.append(_alarms_html(read_alarms(d), "Raised live by the console during this session, as recorded in "
                                                     "alarms.jsonl"))
    for k, pf in enumerate(reversed(pfs)):
        try:
            _pair_sections(rep, d, pf, prefix="" if k == 0 else f"pair{len(pfs) - k}-")
        except (OSError, ValueError, KeyError, StopIteration) as e:  # a torn pair document or a leg whose rows are gone
            rep.sections.append(f'<h2>Pair {escape(pf.name)}</h2><p class="warn">Not recomputed ({type(e).__name__}: '
                                f"{escape(' '.join(str(e).split())[:160])}); its report.md holds what was written.</p>")
    rep.sections.append("<h2 id=\"cells\">Cells</h2>")
    rep.sections += [f'<p class="warn">{escape(x)}</p>' for x in skipped]
    if not cells:
        rep.sections.append("<p>No cells.</p>")
    else:
        rep.sections.append(_cells_table(d, cells))
        _cell_sections(rep, d, cells)
    rep.sections.append(_provenance(d, meta, cells))
    return rep


def _pair_sections(rep: Report, base: Path, pf: Path, prefix: str) -> None:
    doc = redact_mapping(read_json(pf))
    ps, cmp = compute(doc, base)
    sp = doc["spec"]
    pr = sp["protocol"]
    a, b = ps.a, ps.b
    cls = "resolved" if ps.effect.resolved else "unresolved"
    drift = f"<br>Drift (A last leg vs A first leg): {escape(ps.drift.text())}" if ps.drift is not None else ""
    flag = f"<br><b>Drift flag:</b> {escape(ps.drift_flag)}" if ps.drift_flag else ""
    rep.sections.append(
        f'<h2 id="{prefix}pair">Pair {escape(pf.name)}: {escape(sp["a"])} (A) vs {escape(sp["b"])} (B)</h2>'
        f'<p class="verdict {cls}">{escape(ps.verdict)}</p>'
        f"<p>Effect (B vs A, median of per-request tok/s): <b>{escape(ps.effect.text())}</b> (95% CI, bootstrap "
        f"{ps.n_boot} resamples, seed {ps.seed}){drift}{flag}</p>"
        + "".join(f'<p class="small">{escape(line)}</p>' for line in interval_notes(ps, sp.get("sequential")))
        + f"<p class=\"small\">Order "
        f"{escape(sp['order'])}{' (interleaved on one server)' if sp.get('interleaved') else ''} · prompt set "
        f"<code>{escape(str(pr['prompt_set']))}</code> · n {pr['n']} per leg · max tokens {pr['max_tokens']} · "
        f"temperature {pr['temperature']} · concurrency {pr['concurrency']}</p>")
    legs = doc["legs"]
    leg_rows = [_rel(base, Path(base, leg["cell_dir"]) / "rows.jsonl") for leg in legs]
    # Δ and drift
    ivs = [P.Interval("Δ B vs A", ps.effect.point_pct, ps.effect.low_pct, ps.effect.high_pct, P.color(1),
                      f"n {a.n} vs {b.n}")]
    if ps.drift is not None:
        ivs.append(P.Interval("drift A last vs first", ps.drift.point_pct, ps.drift.low_pct, ps.drift.high_pct,
                              P.color(0), "A's repeat leg"))
    title = "Δ (B vs A) and A's drift, with bootstrap 95% CI"
    rep.sections.append(rep.add(Figure(f"{prefix}delta", title, P.interval_chart(title, ivs), [PAIR_EFFECT, PAIR_DRIFT],
                                       leg_rows, "A CI that crosses the dashed 0 line is not resolved.")))
    # per-arm distributions
    strips = []
    for i, (arm, st) in enumerate((("A", a), ("B", b))):
        vals, tips = [], []
        for leg in legs:
            if leg["arm"] == arm:
                v, t = request_points(load_rows(Path(base, leg["cell_dir"])))
                vals += v
                tips += [f"{arm}{leg['index']} {x}" for x in t]
        strips.append(P.Strip(f"{arm} {st.name}", vals, tips, st.median_tok_s, st.p10_tok_s, st.p90_tok_s, P.color(i)))
    for leg in legs:
        d = Path(base, leg["cell_dir"])
        r = cell_report(d)
        v, t = request_points(load_rows(d))
        strips.append(P.Strip(f"leg {leg['arm']}{leg['index']}", v, t, r["median_tok_s"], r["p10_tok_s"],
                              r["p90_tok_s"], P.color(0 if leg["arm"] == "A" else 1)))
    rep.sections.append(rep.add(_strip_figure(f"{prefix}tok-s-per-arm", "tok/s per request: arms (legs pooled), then "
                                              "each leg", strips, leg_rows)))
    # acceptance
    for acc in _acceptance_figures(f"{prefix}acceptance", "Acceptance per draft position, per arm",
                                   [(f"A {a.name}", a.per_position_acceptance),
                                    (f"B {b.name}", b.per_position_acceptance)], leg_rows):
        rep.sections.append(rep.add(acc))
    # forecast vs measured
    if cmp:
        title = f"Forecast vs measured: B at depth {cmp['depth']}"
        sc = P.bar_chart(title, ["forecast (before B ran)", "measured B median"],
                         [cmp["predicted_tok_s"], cmp["measured_tok_s"]], "tok/s", colors=["#9aa5b1", P.color(1)],
                         tips=[f"predicted {cmp['predicted_tok_s']:.1f} tok/s, τ {cmp['predicted_tau']:.2f}",
                               f"measured {cmp['measured_tok_s']:.1f} tok/s, τ {_n(cmp['measured_tau'], '.2f')}"])
        rep.sections.append(rep.add(Figure(f"{prefix}forecast-vs-measured", title, sc, ["forecast", "cell median"],
                                           [r for leg, r in zip(legs, leg_rows, strict=True) if leg["arm"] == "B"],
                                           f"Error {cmp['error_pct']:+.1f}% (forecast / measured − 1); τ predicted "
                                           f"{cmp['predicted_tau']:.2f}, measured {_n(cmp['measured_tau'], '.2f')}.")))
    # the figures table, as report.md
    rep.sections.append(_table(["", f"A {a.name}", f"B {b.name}"], _pair_rows(ps)))
    rep.sections.append(_table(["leg", "cell", "profile", "arm", "anchor cell", "anchor tok/s", "anchor %",
                                "KV capacity"],
                               [(f"{leg['arm']}{leg['index']}", leg["cell_dir"], leg["profile"],
                                 leg.get("spec_label") or "—", leg.get("anchor_cell_dir") or "—",
                                 _n(leg.get("anchor_median_tok_s")), _n(leg.get("anchor_pct"), ".0f", "%"),
                                 _n(leg.get("kv_capacity_tokens"), ",")) for leg in legs]))
    if all(x is None for x in a.anchor_pct + b.anchor_pct) and (a.anchor_median_tok_s or b.anchor_median_tok_s):
        rep.sections.append("<p class=\"small\">Anchor % needs a reference: set <code>reference_tok_s</code> under "
                            "<code>[anchor]</code> in the profile; the anchors' tok/s still compare launches.</p>")
    ts = pair_time_scale(doc, base)
    if ts and ts != 1:
        note = time_scale_note(ts, {'A': a.median_tok_s, 'B': b.median_tok_s}) or ''
        rep.sections.append(f"<p class=\"small\">{escape(note)}</p>")


def _pair_rows(ps: PairStats) -> list[tuple[str, str, str]]:
    a, b = ps.a, ps.b
    tax = [None if s.kv_capacity_tax is None else s.kv_capacity_tax * 100 for s in (a, b)]
    return [
        ("requests (n, legs)", f"{a.n}, {a.legs}", f"{b.n}, {b.legs}"),
        ("median tok/s (interp.)", _n(a.median_tok_s), _n(b.median_tok_s)),
        ("p10 / p90 tok/s", f"{_n(a.p10_tok_s)} / {_n(a.p90_tok_s)}", f"{_n(b.p10_tok_s)} / {_n(b.p90_tok_s)}"),
        ("IQR tok/s", _n(a.iqr_tok_s), _n(b.iqr_tok_s)),
        ("leg medians", ", ".join(_n(x) for x in a.leg_medians), ", ".join(_n(x) for x in b.leg_medians)),
        ("anchor tok/s (per launch)", ", ".join(_n(x) for x in a.anchor_median_tok_s) or "—",
         ", ".join(_n(x) for x in b.anchor_median_tok_s) or "—"),
        ("TTFT median", _n(a.ttft_median_s, ".3f", " s"), _n(b.ttft_median_s, ".3f", " s")),
        ("τ (pooled)", _n(a.tau, ".2f"), _n(b.tau, ".2f")),
        ("implied step", _n(a.implied_step_ms, ".2f", " ms"), _n(b.implied_step_ms, ".2f", " ms")),
        ("KV capacity", _n(a.kv_capacity_tokens, ",", " tokens"), _n(b.kv_capacity_tokens, ",", " tokens")),
        ("KV capacity tax vs no-spec", _n(tax[0], ".1f", "%"), _n(tax[1], ".1f", "%")),
        ("$/M output tokens", _n(a.usd_per_m_tokens, ".2f"), _n(b.usd_per_m_tokens, ".2f")),
    ]


STYLE = """
:root { --ink:#222; --muted:#6b6b6b; --line:#e3e3e3; --a:#1f6fb4; --b:#d1495b; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif; \
color: var(--ink);
       margin: 0 auto; max-width: 1080px; padding: 16px 20px 40px; background: #fff; }
h1 { font-size: 1.45rem; margin: .2em 0 .3em; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.6em 0 .5em; border-bottom: 1px solid var(--line); padding-bottom: .2em; }
h3 { font-size: 1rem; margin: 1.1em 0 .4em; }
code { font: .86em/1.3 ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace; overflow-wrap: anywhere; }
td code { word-break: break-all; }
.meta, .small, figcaption { color: var(--muted); font-size: .86rem; }
.sim { background: #fff4d6; border: 1px solid #e7c766; padding: .5em .8em; border-radius: 6px; }
.verdict { font-size: 1.15rem; font-weight: 600; padding: .5em .8em; border-radius: 6px; margin: .4em 0; }
.verdict.resolved { background: #e5f4ea; border: 1px solid #8cc9a2; }
.verdict.unresolved { background: #fff4d6; border: 1px solid #e7c766; }
.headline { font-size: 1.05rem; }
.warn { color: #8a4b00; }
.alarm { background: #fde8e8; border: 1px solid #e39a9a; padding: .5em .8em; border-radius: 6px; margin: .4em 0; }
.alarm b.kind { color: #fff; background: #b42318; padding: 0 .4em; border-radius: 3px; }
pre.plan { background: #f6f7f9; padding: .6em .8em; border-radius: 6px; overflow-x: auto; font-size: .8rem; }
.fig { margin: 1.2em 0; padding: 0; }
.plotbox { border: 1px solid var(--line); border-radius: 6px; padding: 4px; background: #fff; overflow-x: auto; }
svg.plot { display: block; width: 100%; max-width: 900px; height: auto; margin: 0 auto; }
.tablewrap { overflow-x: auto; margin: .5em 0 1em; }
table { border-collapse: collapse; font-size: .88rem; max-width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .28em .6em; text-align: left; vertical-align: top;
         white-space: normal; overflow-wrap: break-word; }
td.wrap, table.kv td:last-child { min-width: 12em; }
th { background: #f6f7f9; font-weight: 600; }
table.kv td:first-child { color: var(--muted); white-space: nowrap; }
nav.toc { font-size: .86rem; color: var(--muted); }
nav.toc a { color: var(--muted); }
footer { margin-top: 2.5em; color: var(--muted); font-size: .82rem; border-top: 1px solid var(--line); \
padding-top: .6em; }
@media (max-width: 600px) { body { font-size: 14px; padding: 10px 10px 30px; } h1 { font-size: 1.2rem; }
  .verdict { font-size: 1rem; } table { font-size: .8rem; } }
"""


def to_html(rep: Report) -> str:
    toc = " · ".join(f'<a href="#fig-{escape(f.slug)}">{i}. {escape(f.title)}</a>'
                     for i, f in enumerate(rep.figures, 1))
    body = "".join(s for s in rep.sections if s)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="serving-console {escape(__version__)}">'
            f"<title>{escape(rep.title)}</title><style>{STYLE}</style></head><body>"
            f"<header><h1>{escape(rep.title)}</h1><p class=\"meta\">serving-console report · {escape(rep.kind)} · "
            f"<code>{escape(rep.base.name)}</code> · written {escape(utc_iso())}</p>"
            + (f'<nav class="toc">Figures: {toc}</nav>' if toc else "") + "</header>"
            f"<main>{body}</main>"
            f"<footer>Every figure is recomputed from the rows named under it "
            f"(<code>serving-console report {escape(rep.base.name)}</code> recomputes them; definitions: "
            f"docs/measurement.md). Written by serving-console {escape(__version__)}; plots are inline SVG drawn "
            f"by the console; this file fetches nothing.</footer></body></html>\n")


__all__ = ["cell_page", "session_page", "to_html", "Report", "Figure", "request_points", "DEFS"]


