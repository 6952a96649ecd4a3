"""A cell's active draft steps (console/core/sessions/adaptive.py): each request's readings, the distribution over
requests and readings, and per-position acceptance per step count from the requests that ran at one count only."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from console.core.measure.records import RequestRecord
from console.core.run.state import RuntimeState, SpecReading
from console.core.run.telemetry import Telemetry
from console.core.sessions.adaptive import adaptive_summary, append_request_steps, distribution_text, mode
from console.ui import render


def _row(i: int, hist: list[int]) -> RequestRecord:
    v = sum(hist)
    c = sum(k * n for k, n in enumerate(hist))
    return RequestRecord(request_id=f"r{i}", t_first_s=0.2, t_last_s=1.2, t_end_s=1.21, first_chunk_tokens=1,
                         completion_tokens=c + v, spec_verify_ct=v, spec_num_correct_drafts=c, spec_histogram=hist)


def test_summary_counts_requests_readings_and_pools_only_requests_at_one_count(tmp_path):
    rows = [_row(0, [1, 2, 3, 4, 0, 0, 0, 0]),      # steps 3 throughout, accepted ≤ 3
            _row(1, [2, 2, 2, 4, 0, 0, 0, 0]),
            _row(2, [1, 1, 1, 1, 2, 2, 3, 4]),      # steps 7
            _row(3, [1, 1, 1, 1, 2, 3, 0, 0]),      # readings all 3 but accepted 5: a switch between readings
            _row(4, [1, 1, 1, 1, 2, 3, 2, 0])]      # saw 7 then 5
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in rows))
    for rid, steps in (("r0", [3, 3]), ("r1", [3]), ("r2", [7, 7, 7]), ("r3", [3, 3]), ("r4", [7, 5, 5])):
        append_request_steps(tmp_path, rid, steps)
    s = adaptive_summary(tmp_path)
    assert s is not None
    assert s["requests_by_steps"] == {"3": 3, "5": 1, "7": 1} and s["readings_by_steps"] == {"3": 5, "5": 2, "7": 4}
    assert s["mixed_requests"] == 2
    g3 = s["per_steps"]["3"]
    assert g3["requests"] == 2 and len(g3["per_position_acceptance"]) == 3
    assert g3["per_position_acceptance"][0] == pytest.approx((2 + 3 + 4 + 2 + 2 + 4) / (10 + 10))
    assert s["per_steps"]["7"]["requests"] == 1 and "5" not in s["per_steps"]
    assert distribution_text(s) == "active steps 7: 1 · 5: 1 · 3: 3 (of 5 requests), 2 saw a switch"
    assert mode([5, 3, 3, 5]) == 5 and mode([]) is None


def test_no_readings_no_summary(tmp_path):
    (tmp_path / "rows.jsonl").write_text("")
    assert adaptive_summary(tmp_path) is None


def test_a_request_gets_the_reading_in_force_when_sent_and_those_while_it_ran():
    t = Telemetry.__new__(Telemetry)
    t.state = RuntimeState()
    t.state.spec_trail = tuple(SpecReading(100.0 + k, s, s + 1, "/metrics") for k, s in enumerate([5, 5, 7, 7, 3]))
    rec = SimpleNamespace(wall_start=101.5, t_end_s=1.7, t_last_s=1.6)
    assert t.request_steps(rec) == [5, 7, 7]       # 101 (in force), 102, 103
    assert t.request_steps(SimpleNamespace(wall_start=99.0, t_end_s=0.5, t_last_s=0.4)) == []


def test_trail_glyphs_and_switches():
    assert render.steps_changes([5, 5, 7, 7, 3, 3, 5]) == "5→7→3→5"
    assert render.steps_changes([5, 5, 7, 7, 3, 3, 5], last=3) == "7→3→5"
    assert render.steps_trail([7, 7, 3, 0], 3) == "█▄·"  # on the whole trail's scale; 0 steps (drafting off) '·'
