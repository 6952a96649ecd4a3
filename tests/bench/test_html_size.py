"""Size and build time of the shared HTML report at a reference campaign's scale (docs/reports.md#plotting): 8
prompt sets × 5 arms × concurrency {1, 8, 32}, n(c) = max(16, c) — 120 cells, 2,560 requests, every request a point —
rendered from an analysis of the documented schema over cells written by the real store. Prints the figures; the
file must stay attachable to a message (target < 2 MiB).

    pytest -m bench -s tests/bench/test_html_size.py
"""

from __future__ import annotations

import copy
import random
import re
import time

import pytest

from console.core.report.campaign import campaign_page_from
from console.core.report.html import to_html
from tests.unit.test_browse import D6, D7, make_cell, make_session
from tests.unit.test_html_campaign import analysis

pytestmark = pytest.mark.bench
SETS = [f"{d}-{c}" for d in ("tool", "math", "code", "chat") for c in ("10k", "short")]
ARMS = [("k26-nospec", None), ("k26-eagle3-d3", D6), ("k26-eagle3-d5", D6), ("k26-eagle3-d7", D7),
        ("k26-dflash-b16", D7)]
CONCURRENCY = (1, 8, 32)


def test_reference_scale_campaign_page_size(tmp_path):
    rng = random.Random(1)
    s = make_session(tmp_path, "20260520T140301Z", "node-node")
    cells = []
    for ps in SETS:
        for arm, spec in ARMS:
            for conc in CONCURRENCY:
                base = 150.0 if spec is None else 280.0
                d = make_cell(s, f"sweep {arm} {ps} c{conc}", [base * rng.uniform(0.8, 1.2) for _ in range(max(16, conc))],
                              spec=spec)
                cells.append((ps, arm, conc, d))
    shapes = analysis({"session": s.dir, "n1": cells[0][3], "n4": cells[1][3], "d6": cells[3][3],
                       "d6c4": cells[4][3], "d7": cells[9][3]}, tmp_path)
    a = copy.deepcopy(shapes)
    a["cells"] = [dict(shapes["cells"][2], key=f"{arm}@node/{ps}/c{conc}", arm=arm, prompt_set=ps, concurrency=conc,
                       cell_dir=str(d)) for ps, arm, conc, d in cells]
    a["routing"], a["curves"], a["ladders"] = [], [], []
    for ps in SETS:
        for conc in CONCURRENCY:
            a["routing"].append(dict(copy.deepcopy(shapes["routing"][1]), prompt_set=ps, concurrency=conc))
            a["ladders"].append(dict(copy.deepcopy(shapes["ladders"][0]), prompt_set=ps, concurrency=conc))
        for arm, _ in ARMS:
            cu = dict(copy.deepcopy(shapes["curves"][1]), arm=arm, prompt_set=ps)
            cu["points"] = [dict(cu["points"][0], concurrency=c) for c in CONCURRENCY]
            a["curves"].append(cu)
    t0 = time.perf_counter()
    rep = campaign_page_from(a, tmp_path)
    page = to_html(rep).encode()
    dt = time.perf_counter() - t0
    points = sum(max(16, c) for _, _, c, _ in cells)
    circles = len(re.findall(rb"<circle", page))
    print(f"\nreference-scale campaign: {len(cells)} cells, {points} requests, {len(rep.figures)} plots, "
          f"{circles} circles -> {len(page) / 1024:.0f} KiB in {dt:.2f} s")
    assert len(rep.figures) > 60 and len(page) < 2 * 1024 * 1024
