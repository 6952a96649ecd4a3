"""Writing the shared report (docs/reports.md): which page a directory gets, the HTML file, the plots as SVG and PNG
and the markdown report linking them. The pages are `html.cell_page` / `html.session_page` (sessions, pairs) and
`campaign.campaign_page`."""

from __future__ import annotations

from pathlib import Path

from console.core.report.campaign import campaign_page
from console.core.report.html import DEFS, Figure, Report, _cells_of, _n, _rel, cell_page, session_page, to_html
from console.core.sessions.pairs import pair_files


def kind_of(d: Path) -> str:
    d = Path(d)
    if (d / "campaign.json").exists():
        return "campaign"
    if (d / "manifest.json").exists() or (d / "rows.jsonl").exists():
        return "cell"
    if pair_files(d):
        return "pair"
    if (d / "session.json").exists() or any(x.is_dir() for x in d.glob("cell-*")):
        return "session"
    raise ValueError(f"{d}: not a session, cell, pair or campaign directory (no session.json, pair.json, "
                     f"manifest.json or cell-*/); give one")


def build(d: Path, predicted: dict | None = None) -> Report:
    """The report of a directory (kind detected: campaign, cell, pair or session). `predicted`: a fitted node's
    predictions of a campaign's cells (`report --node`), shown beside them."""
    d = Path(d)
    if not d.is_dir():
        raise ValueError(f"{d}: no such directory; give a session, cell, pair or campaign directory")
    k = kind_of(d)
    if k == "campaign":
        return campaign_page(d, predicted)
    if k == "cell":
        return cell_page(d)
    return session_page(d)


def default_out(d: Path) -> Path:
    """Beside the directory, named after it: `sessions/<session>.html` (never inside a recorded cell)."""
    d = Path(d).resolve()
    return d.parent / f"{d.name}.html"


def write_html(d: Path, out: Path | None = None) -> tuple[Path, Report]:
    rep = build(d)
    return _write_page(rep, d, out), rep


def _inside_a_cell(p: Path) -> Path | None:
    """The recorded cell directory `p` lies in (or is), if any."""
    p = Path(p).resolve()
    for q in (p, *p.parents):
        if (q / "rows.jsonl").exists() or (q / "manifest.json").exists():
            return q
    return None


def _writable(p: Path, what: str) -> None:
    cell = _inside_a_cell(p)
    if cell is not None:
        raise ValueError(f"{what} {p}: inside the recorded cell {cell.name}; recorded cells are evidence, write it "
                         f"elsewhere")


def _write_page(rep: Report, d: Path, out: Path | str | None) -> Path:
    out = Path(out) if out else default_out(d)
    if out.is_dir():
        out = out / f"{Path(d).resolve().name}.html"
    _writable(out, "OUT")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(to_html(rep), encoding="utf-8")
    except OSError as e:
        raise ValueError(f"OUT {out}: cannot write the report ({e.strerror or type(e).__name__}); choose another "
                         f"path") from e
    return out


def write_plots(rep: Report, plots_dir: Path) -> list[tuple[Figure, Path, Path]]:
    """Each figure as `<slug>.svg` and `<slug>.png` (2× for slides) under `plots_dir`, and `index.md` linking
    them with their captions."""
    plots_dir = Path(plots_dir)
    plots_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for f in rep.figures:
        svg, png = plots_dir / f"{f.slug}.svg", plots_dir / f"{f.slug}.png"
        svg.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + f.scene.to_svg(standalone=True), encoding="utf-8")
        png.write_bytes(f.scene.to_png())
        out.append((f, svg, png))
    (plots_dir / "index.md").write_text(plots_markdown(rep, out, plots_dir), encoding="utf-8")
    return out


def plots_markdown(rep: Report, written: list[tuple[Figure, Path, Path]], rel_to: Path | None = None) -> str:
    """A '## Plots' section linking each plot's SVG and PNG (paths relative to `rel_to` when given)."""
    lines = ["## Plots", ""]
    for i, (f, svg, png) in enumerate(written, 1):
        s = svg.name if rel_to and svg.parent == Path(rel_to) else str(svg)
        p = png.name if rel_to and png.parent == Path(rel_to) else str(png)
        q = "; ".join(DEFS[x].name if x in DEFS else x for x in f.quantities)
        lines += [f"{i}. **{f.title}** — [SVG]({s}) · [PNG]({p})", f"   ![{f.title}]({p})",
                  f"   quantity: {q}; rows: {', '.join(f.rows)}", ""]
    return "\n".join(lines)


def write_report_files(d: Path, html: str | Path | None = None, plots: Path | None = None,
                       predicted: dict | None = None) -> list[str]:
    """What `report DIR --html [OUT] --plots PLOTS_DIR` writes; one printable line per file set. `html` "" means
    the default place (`default_out`); None writes no HTML."""
    rep = build(d, predicted)
    lines = []
    if plots is not None:
        _writable(Path(plots), "PLOTS_DIR")
    if html is not None:
        out = _write_page(rep, d, html)
        lines.append(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB, {rep.kind}, {len(rep.figures)} plots, "
                     f"offline)")
    if plots is not None:
        md = Path(plots) / "report.md"
        try:
            written = write_plots(rep, plots)
            md.write_text(report_markdown_with_plots(rep, written, Path(plots)), encoding="utf-8")
        except OSError as e:
            raise ValueError(f"PLOTS_DIR {plots}: cannot write the plots ({e.strerror or type(e).__name__}); choose "
                             f"another folder") from e
        lines.append(f"wrote {len(written)} plots as SVG and PNG into {plots} (markdown linking them: {md})")
    return lines


def report_markdown_with_plots(rep: Report, written: list[tuple[Figure, Path, Path]], plots_dir: Path) -> str:
    """The markdown report of the directory (a pair's report.md as `report` prints it; for a cell or session its
    figures table) followed by the plots section linking each SVG and PNG (relative links: the folder travels)."""
    if rep.kind == "pair":
        from console.core.sessions.pairs import recompute_pair, report_markdown
        parts = []
        for pf in pair_files(rep.base):
            doc, ps, cmp = recompute_pair(rep.base, pf)
            parts.append(report_markdown(doc, ps, cmp, rep.base))
        head = "\n\n".join(parts)
    else:
        head = f"# {rep.title}\n\n" + "\n".join(
            f"- `{_rel(rep.base, r['rows_path'])}`: median {_n(r['median_tok_s'])} tok/s (n {r['n_included']}), "
            f"p10 / p90 {_n(r['p10_tok_s'])} / {_n(r['p90_tok_s'])}, τ {_n(r['tau'], '.2f')}"
            for _, r in (_cells_of(rep.base) if rep.kind in ("cell", "session") else [])) + "\n"
    return head.rstrip() + "\n\n" + plots_markdown(rep, written, plots_dir)


__all__ = ["build", "kind_of", "default_out", "write_html", "write_plots", "write_report_files", "plots_markdown"]
