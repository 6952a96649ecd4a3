"""The HTML reports in a real headless Chromium (Debian's package; docs/reports.md#the-browser-test): a pair and a
campaign measured on the engine twin, written by `serving-console report DIR --html`, opened at a laptop
(1366×900) and a phone (390×844) viewport. Each must render with no console error, warning or exception, fetch
nothing but itself, fit the viewport's width, and every plot must have drawn marks: counted in the rendered DOM and
seen as coloured pixels inside the plot's box on the screenshot. Screenshots are kept as review artifacts under
the directory the test prints (SC_REVIEW_DIR, else a temporary one).

Chromium missing is a failure naming the install line (`apt-get install -y --no-install-recommends chromium`),
never a skip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.browser.cdp import Browser, chromium_binary

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]
VIEWPORTS = {"laptop": (1366, 900), "phone": (390, 844)}
PLOTS_JS = """JSON.stringify({
  scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
  plots: [...document.querySelectorAll('svg.plot')].map(s => {
    const r = s.getBoundingClientRect();
    const marks = [...s.querySelectorAll('.mark')];
    const drawn = marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; }).length;
    return {id: s.id, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height, marks: marks.length, drawn};
  }),
  tables: [...document.querySelectorAll('.tablewrap')].map(t => ({sw: t.scrollWidth, cw: t.clientWidth,
    head: [...t.querySelectorAll('th')].map(h => h.innerText).join(' | ')}))})"""


def cli(*args: str, timeout: int = 240) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "console.cli", *args], cwd=REPO, capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, (args, p.stderr[-3000:])
    return p


@pytest.fixture(scope="module")
def review_dir(tmp_path_factory) -> Path:
    d = Path(os.environ["SC_REVIEW_DIR"]) if os.environ.get("SC_REVIEW_DIR") else tmp_path_factory.mktemp("html-review")
    d.mkdir(parents=True, exist_ok=True)
    print(f"\nHTML review artifacts (screenshots, reports): {d}")
    return d


@pytest.fixture(scope="module")
def browser():
    chromium_binary()  # fails (not skips) with the install line when chromium is missing
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def pair_html(tmp_path_factory, review_dir) -> Path:
    """A no-spec vs EAGLE-3 d6 pair on the twin (×8 time scale, small n), reported as HTML."""
    root = tmp_path_factory.mktemp("pair-sessions")
    out = json.loads(cli("pair", "--a", "k26-nospec", "--b", "k26-eagle3-d6", "--prompts", "tool-short", "--n", "8",
                         "--max-tokens", "96", "--sim", "--sim-time-scale", "8", "--json", "--sessions",
                         str(root)).stdout)["pair"]
    html = review_dir / "pair.html"
    line = cli("report", out["dir"], "--html", str(html)).stdout
    assert line.startswith(f"wrote {html} (") and ", pair, " in line
    return html


@pytest.fixture(scope="module")
def campaign_html(tmp_path_factory, review_dir) -> Path:
    """A small campaign on the twin (two arms, two concurrencies, a depth ladder), reported as HTML."""
    from tests.browser.campaign_plan import write_plan
    root = tmp_path_factory.mktemp("campaign")
    plan = write_plan(root)
    cli("sweep", str(plan), "--sim", "--sim-time-scale", "8", "--sessions", str(root / "run"), "--yes", timeout=400)
    run = next(p for p in (root / "run").iterdir() if (p / "campaign.json").exists())
    html = review_dir / "campaign.html"
    line = cli("report", str(run), "--html", str(html)).stdout
    assert ", campaign, " in line
    return html


def check_page(b: Browser, html: Path, review_dir: Path, name: str) -> dict[str, dict]:
    seen = {}
    for view, (w, h) in VIEWPORTS.items():
        b.open(html, w, h)
        info = json.loads(b.evaluate(PLOTS_JS))
        shot = b.screenshot(review_dir / f"{name}-{view}.png")
        print(f"{name} at {view} {w}×{h}: {shot} ({len(info['plots'])} plots)")
        assert b.problems() == [], (view, b.problems())
        assert b.requests() == [html.resolve().as_uri()], b.requests()  # itself, nothing else
        assert info["scrollWidth"] <= info["clientWidth"], f"{view}: the page scrolls sideways ({info})"
        if view == "laptop":  # #30 item 8: no table needs a sideways scroll on a laptop (cells wrap instead)
            wide = [t for t in info["tables"] if t["sw"] > t["cw"] + 1]
            assert not wide, f"{view}: tables scroll sideways: {wide}"
        assert info["plots"], "no plot on the page"
        px = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
        for p in info["plots"]:
            assert p["marks"] > 0 and p["drawn"] == p["marks"], (view, p)
            assert p["w"] > 100 and p["h"] > 60, (view, p)
            x0, y0 = int(p["x"]), int(p["y"])
            box = px[y0:y0 + int(p["h"]), x0:x0 + int(p["w"])]
            colored = int(((box.max(axis=2) - box.min(axis=2)) > 60).sum())  # palette pixels, not grey axes
            assert colored > 40, f"{view}: plot {p['id']} looks blank ({colored} coloured pixels in its box)"
        seen[view] = info
    return seen


def test_pair_report_renders_in_chromium_with_every_plot_drawn(browser, pair_html, review_dir):
    seen = check_page(browser, pair_html, review_dir, "pair")
    ids = [p["id"] for p in seen["laptop"]["plots"]]
    assert ids[:2] == ["plot-delta", "plot-tok-s-per-arm"] and "plot-acceptance" in ids and "plot-tok-s-per-cell" in ids
    assert [p["id"] for p in seen["phone"]["plots"]] == ids
    text = browser.evaluate("document.body.innerText")
    assert "SIMULATED" in text and "modelled node's" in text and "k26-eagle3-d6 faster by" in text
    size = pair_html.stat().st_size
    print(f"pair report: {size / 1024:.0f} KiB")
    assert size < 400_000


def test_campaign_report_renders_in_chromium_with_every_plot_drawn(browser, campaign_html, review_dir):
    seen = check_page(browser, campaign_html, review_dir, "campaign")
    ids = [p["id"] for p in seen["laptop"]["plots"]]
    assert any(i.startswith("plot-routing") for i in ids) and any(i.startswith("plot-curve") for i in ids)
    assert any(i.startswith("plot-ladder") for i in ids)
    text = browser.evaluate("document.body.innerText")
    assert "Routing" in text and "SIMULATED" in text
    size = campaign_html.stat().st_size
    print(f"campaign report: {size / 1024:.0f} KiB")
    assert size < 1_500_000
