"""The acceptance rules on the twin, short and seeded (the rates: tests/bench/test_acceptance_alarms.py). A normal run
of the traffic mix raises nothing; a drafter that collapses mid-run (the acceptance-collapse fault: every draft
rejected, or half as good), a launch with dummy draft weights, and DFlash at 32 streams under the recorded no-spec
figure each raise their alarm within 20 requests and 60 s of modelled time. Every seed is pinned: each assertion
has one outcome."""

from __future__ import annotations

from console.core.measure import health
from console.sim.model.calibrate import run_cell
from tests.sim.twin_health import play
from tests.sim.twin_pairs import rows_of


def test_a_normal_run_raises_nothing():
    for arm, algo in (("eagle3-d6", "EAGLE3"), ("dflash-b16", "DFLASH")):
        run = play(arm, 11, 30, algorithm=algo)
        assert run.requests == 240 and run.raised == [], [a.line() for a, _, _ in run.raised]


def _delay(run, kind):
    assert run.collapse_at is not None
    first = next(((i, t) for a, i, t in run.raised if a.kind == kind), None)
    assert first is not None, [a.line() for a, _, _ in run.raised]
    return first[0] - run.collapse_at[0] + 1, first[1] - run.collapse_at[1]


def test_a_drafter_collapsing_mid_run_is_seen_within_20_requests():
    dead = play("eagle3-d6", 12, 16, collapse_after_cells=10, factor=0.0)
    n, s = _delay(dead, "dummy")
    assert n <= 20 and s <= 60, (n, s)
    assert all(i >= dead.collapse_at[0] for _, i, _ in dead.raised)  # nothing before the collapse
    history = play("eagle3-d6", 14, 16)  # the arm measured before: its cells seed each key's baseline
    half = play("eagle3-d6", 12, 16, collapse_after_cells=10, factor=0.5, history=history)
    n, s = _delay(half, "drop")
    assert n <= 20 and s <= 60, (n, s)
    assert not any(a.kind == "dummy" for a, _, _ in half.raised)  # half as good is not random weights


def test_a_launch_with_dummy_draft_weights_alarms_at_once():
    run = play("eagle3-d6", 13, 3, extra=("--speculative-draft-load-format", "dummy"))
    assert run.raised and run.raised[0][0].kind == "dummy" and run.raised[0][1] < 20


def test_dflash_at_32_streams_under_the_no_spec_figure_is_net_negative():
    key = "chat · chat"
    ref = run_cell("nospec", "chat", prompt_tokens=1000, max_tokens=512, n=64, concurrency=32)
    nospec = sorted(ref.tok_s)[len(ref.tok_s) // 2]
    for arm, algo, want in (("dflash-b16", "DFLASH", ["net-negative"]), ("eagle3-d6", "EAGLE3", [])):
        m = health.HealthMonitor(algo, nospec_tok_s={key: nospec})
        res = run_cell(arm, "chat", prompt_tokens=1000, max_tokens=512, n=128, concurrency=32)
        raised = []
        for i, (rec, t) in enumerate(zip(rows_of(res, "x"), res.finish_s, strict=True)):
            o = health.observe(rec, key, t, i, 32)
            raised += [a.kind for a in m.feed(o)] if o else []
        assert raised == want
