"""The HTML report (docs/reports.md): offline by construction (parsed here: no script, no external reference of
any kind), the same figures as `report` (computed through the same functions), every plot drawn with marks, the
plots exported as SVG and PNG with a markdown report linking them, secrets redacted, bad input in one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from console.core.measure import stats
from console.core.measure.pairs import speeds
from console.core.report import html as H
from console.core.report import write as W
from console.core.sessions.pairs import recompute_pair
from console.core.sessions.report import cell_report
from console.core.sessions.store import load_rows
from tests.unit.test_browse import SHA, build_sessions

REPO = Path(__file__).resolve().parents[2]
FETCHING_TAGS = {"script", "link", "img", "iframe", "frame", "object", "embed", "video", "audio", "source", "track",
                 "image", "use", "base", "form", "input", "meta"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "data", "srcset", "background",
             "manifest", "ping", "codebase", "cite", "longdesc"}


class Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def external_fetches(text: str) -> list[str]:
    """Everything in the page that could make a browser fetch: tags that load, URL attributes that are not a
    same-page fragment, CSS url()/@import; meta only as charset/viewport/CSP/generator."""
    p = Scan()
    p.feed(text)
    bad = []
    for tag, attrs in p.tags:
        if tag in FETCHING_TAGS - {"meta"}:
            bad.append(f"<{tag}>")
        if tag == "meta" and not (set(attrs) <= {"charset", "name", "content", "http-equiv"}
                                  and attrs.get("http-equiv") in (None, "Content-Security-Policy")):
            bad.append(f"<meta {attrs}>")
        for k, v in attrs.items():
            if k in URL_ATTRS and v is not None and not v.startswith("#"):
                bad.append(f"{tag} {k}={v}")
            if k == "style" and v and ("url(" in v or "@import" in v):
                bad.append(f"{tag} style={v}")
            if k.startswith("on"):
                bad.append(f"{tag} {k} (script)")
    if "url(" in p.style or "@import" in p.style:
        bad.append("CSS url()/@import")
    return bad


@pytest.fixture
def sess(tmp_path) -> dict[str, Path]:
    return build_sessions(tmp_path / "sessions")


def test_the_scanner_catches_what_would_fetch():
    """The offline check is not vacuous: each way a page can fetch is caught."""
    for page in ('<script src="https://cdn.example/x.js"></script>', '<link rel="stylesheet" href="a.css">',
                 '<img src="x.png">', '<svg><image href="http://x/y.png"/></svg>', '<a href="https://x">x</a>',
                 "<style>body{background:url(http://x/y.png)}</style>", "<style>@import 'x.css';</style>",
                 '<div style="background: url(x.png)"></div>', '<svg><use href="defs.svg#a"/></svg>',
                 '<meta http-equiv="refresh" content="0;url=http://x">', '<body onload="x()">'):
        assert external_fetches(page), page
    assert external_fetches('<a href="#fig-1">1</a><meta charset="utf-8">') == []


def test_pair_page_is_offline_and_says_what_report_says(sess, tmp_path):
    out, rep = W.write_html(sess["new"], tmp_path / "pair.html")
    text = out.read_text()
    assert rep.kind == "pair" and external_fetches(text) == []
    assert 'http-equiv="Content-Security-Policy"' in text and "default-src 'none'" in text
    doc, ps, cmp = recompute_pair(sess["new"])
    assert ps.verdict in text and ps.effect.text() in text and ps.drift is None  # AB: no repeat leg, no drift row
    for arm in (ps.a, ps.b):  # the figures table: the same numbers report.md prints
        assert f"<td>{arm.median_tok_s:.1f}</td>" in text and f"{arm.tau:.2f}" in text
        assert " ".join(f"{x:.3f}" for x in arm.per_position_acceptance[:3]) in H.to_html(H.cell_page(
            sess["a1"] if arm is ps.a else sess["b1"]))
    assert SHA["tool"] in text and SHA["math"] in text  # prompt-set SHA-256s, in full
    assert "0.5.23" in text and "console version" in text and "SIMULATED" in text
    assert "sk-SECRET" not in text and "&lt;redacted&gt;" in text  # the session's argv, redacted
    # every figure names its quantity by the definition's own name and its rows
    for f in rep.figures:
        assert f.scene.marks > 0, f.slug
        assert all(q in H.DEFS or q in (H.PAIR_EFFECT, H.PAIR_DRIFT) for q in f.quantities), f.quantities
        assert f.rows and all(r.endswith("rows.jsonl") for r in f.rows), f.rows
        assert f'id="plot-{f.slug}"' in text
    slugs = [f.slug for f in rep.figures]
    assert slugs[:3] == ["delta", "tok-s-per-arm", "acceptance"] and "tok-s-per-cell" in slugs


def test_plotted_points_are_the_statistics_requests_and_marks_its_figures(sess):
    rep = H.cell_page(sess["a1"])
    fig = next(f for f in rep.figures if f.slug == "tok-s")
    r = cell_report(sess["a1"])
    rows = load_rows(sess["a1"])
    points = [p for p in fig.scene.prims if p.kind == "circle" and p.mark]
    assert len(points) == len(speeds(rows)) == r["n_included"]
    assert sorted(float(p.tip.split(" · ")[1].split()[0]) for p in points) == pytest.approx(
        sorted(round(v, 1) for v in speeds(rows)), abs=0.051)
    tips = [p.tip for p in fig.scene.prims if p.tip]
    assert f"median {r['median_tok_s']:.1f} tok/s per request (n {r['n_included']})" in tips
    assert f"p10 {r['p10_tok_s']:.1f} – p90 {r['p90_tok_s']:.1f} tok/s per request" in tips
    acc = next(f for f in rep.figures if f.slug == "acceptance")
    tips = {p.tip for p in acc.scene.prims if p.tip}
    p = r["per_position_acceptance"]
    cond = stats.conditional_acceptance(p)
    assert {f"{r['label']} p{i} = {v:.3f}" for i, v in enumerate(p, 1)} <= tips
    assert {f"{r['label']} conditional at {i} = {v:.3f}" for i, v in enumerate(cond, 1)} <= tips


def test_session_with_a_torn_cell_still_reports_and_names_it(sess, tmp_path):
    out, rep = W.write_html(sess["old"], tmp_path / "old.html")
    text = out.read_text()
    assert rep.kind == "session" and external_fetches(text) == []
    assert f"{sess['torn'].name}: not reported (JSONDecodeError" in text
    assert "tok-s-per-cell" in [f.slug for f in rep.figures]


def test_plots_export_svg_png_and_a_markdown_report_linking_them(sess, tmp_path):
    plots = tmp_path / "plots"
    lines = W.write_report_files(sess["new"], html=str(tmp_path / "p.html"), plots=plots)
    assert len(lines) == 2 and lines[0].startswith(f"wrote {tmp_path / 'p.html'} (") and "offline" in lines[0]
    rep = W.build(sess["new"])
    md = (plots / "report.md").read_text()
    assert md.startswith("# Pair: k26-eagle3-d6 (A) vs k26-eagle3-d7 (B)")  # the pair's report.md, then the plots
    for f in rep.figures:
        svg, png = plots / f"{f.slug}.svg", plots / f"{f.slug}.png"
        assert f"[SVG]({svg.name})" in md and f"[PNG]({png.name})" in md
        root = ET.fromstring(svg.read_text())  # well-formed standalone SVG
        assert root.tag.endswith("svg") and root.get("width") == str(f.scene.width)
        marks = [e for e in root.iter() if e.get("class") == "mark"]
        assert len(marks) == f.scene.marks > 0
        im = Image.open(io.BytesIO(png.read_bytes())).convert("RGB")
        assert im.size == (f.scene.width * 2, f.scene.height * 2)
        px = np.asarray(im, dtype=int)
        colored = int(((px.max(axis=2) - px.min(axis=2)) > 60).sum())  # palette pixels, not greys
        assert colored > 200, (f.slug, colored)
        assert "sk-SECRET" not in svg.read_text()


def test_secrets_in_a_hand_written_session_never_reach_the_page_or_the_plots(sess, tmp_path):
    """Belt and braces: a session.json written by something else, key in clear, still comes out redacted."""
    meta = json.loads((sess["new"] / "session.json").read_text())
    meta["arms"].append({"profile": "x", "argv": ["python", "-m", "sglang.launch_server", "--api-key",
                                                  "sk-canary-7f3a", "--admin-api-key=sk-canary-admin"]})
    meta["api_key"] = "sk-canary-7f3a"
    (sess["new"] / "session.json").write_text(json.dumps(meta))
    W.write_report_files(sess["new"], html=str(tmp_path / "c.html"), plots=tmp_path / "plots")
    files = [tmp_path / "c.html", *(tmp_path / "plots").iterdir()]
    assert [p.name for p in files if b"sk-canary" in p.read_bytes()] == []
    assert "--api-key &#x27;&lt;redacted&gt;&#x27;" in (tmp_path / "c.html").read_text() or \
        "--api-key &lt;redacted&gt;" in (tmp_path / "c.html").read_text()


def test_cli_report_html_default_place_and_bad_input(sess, tmp_path):
    r = subprocess.run([sys.executable, "-m", "console.cli", "report", str(sess["new"]), "--html"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = sess["new"].parent / f"{sess['new'].name}.html"  # beside the session, never inside a recorded cell
    assert r.stdout.startswith(f"wrote {out} (") and out.exists()
    assert sorted(p.name for p in sess["a1"].iterdir()) == sorted(["manifest.json", "rows.jsonl", "summary.json"])
    bad = subprocess.run([sys.executable, "-m", "console.cli", "report", str(tmp_path), "--html"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a session, cell, pair or campaign" in bad.stderr
    (tmp_path / "a-file").write_text("")
    for args, says in (([str(sess["new"]), "--html", str(tmp_path / "a-file" / "x.html")], "cannot write the report"),
                       ([str(sess["new"]), "--html", str(sess["a1"] / "x.html")], "recorded cells are evidence"),
                       ([str(sess["a1"]), "--plots", str(sess["a1"] / "plots")], "recorded cells are evidence")):
        p = subprocess.run([sys.executable, "-m", "console.cli", "report", *args], cwd=REPO, capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and says in p.stderr, (args, p.stderr)
    assert sorted(x.name for x in sess["a1"].iterdir()) == ["manifest.json", "rows.jsonl", "summary.json"]


def test_strip_chart_switches_to_a_log_axis_for_values_far_apart_and_says_so():
    from console.core.report import plot as P
    near = P.strip_chart("t", [P.Strip("a", [100.0, 110.0, 120.0], median=110.0)], "tok/s")
    far = P.strip_chart("t", [P.Strip("a", [100.0, 110.0, 16000.0], median=110.0)], "tok/s")
    texts = lambda sc: [p.a["s"] for p in sc.prims if p.kind == "text"]  # noqa: E731
    assert "tok/s" in texts(near) and "tok/s (log axis)" in texts(far)
    xs = [p.a["cx"] for p in far.prims if p.kind == "circle"]
    assert xs == sorted(xs) and xs[1] - xs[0] < (xs[2] - xs[1]) / 10  # log: 100→110 is a short step
    assert xs[1] - xs[0] > 5  # … but still visible, not squashed onto one pixel as on a linear axis


def test_a_missing_chromium_fails_the_browser_lane_with_the_install_line(monkeypatch):
    """The browser tests never skip: without chromium their fixture raises, naming the apt-get line."""
    import shutil as sh

    from tests.browser import cdp
    monkeypatch.delenv("SC_CHROMIUM", raising=False)
    monkeypatch.setattr(sh, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install -y --no-install-recommends chromium"):
        cdp.chromium_binary()


def test_a_cells_errors_are_on_its_page(sess):
    from console.core.measure.records import RequestRecord
    from console.core.sessions.store import CellWriter
    CellWriter(sess["math"]).append(RequestRecord(request_id="math-99#99", prompt_id="math-99", max_tokens=256,
                                                  temperature=0.6, error="HTTP 503: engine overloaded"))
    text = H.to_html(H.cell_page(sess["math"]))
    r = cell_report(sess["math"])
    assert r["n_errors"] == 1 and f"{r['n']} / {r['n_ok']} / {r['n_included']} / 1" in text
    assert "<td>error</td><td>HTTP 503: engine overloaded</td>" in text
