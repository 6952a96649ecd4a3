"""The twin's variation sources, each its own: node draw, relaunch, per-prompt acceptance, drift within a session."""

import statistics

from console.sim.config.deployment import load_deployment
from console.sim.model.calibrate import ARMS, build_engine, run_cell

DEP = load_deployment()


def test_node_draws_spread_about_ten_percent():
    f = [DEP.node_speed_factor(s) for s in range(200)]
    assert 0.95 <= min(f) and max(f) <= 1.05 and max(f) - min(f) > 0.09
    assert DEP.node_speed_factor(3) == DEP.node_speed_factor(3)  # the same node on every launch


def test_a_relaunch_is_not_bit_identical_and_a_launch_seed_replays_it():
    def leg(launch_seed):
        return run_cell("eagle3-d6", "tool", prompt_tokens=2000, max_tokens=128, n=4, node_seed=2,
                        launch_seed=launch_seed, prompt_set=2)
    a, b, again = leg(1), leg(2), leg(1)
    assert a.tok_s == again.tok_s and a.hists == again.hists
    assert a.tok_s != b.tok_s and a.hists != b.hists
    engines = [build_engine(ARMS["nospec"], node_seed=2, launch_seed=s) for s in range(40)]
    factors = [e.node.launch_factor for e in engines]
    assert len({e.node.speed_factor for e in engines}) == 1  # one node
    assert 0.006 < statistics.pstdev(factors) < 0.025


def test_acceptance_varies_per_prompt_and_the_prompt_keeps_it():
    r = run_cell("eagle3-d6", "tool", prompt_tokens=4000, max_tokens=512, n=12, prompt_set=9)
    again = run_cell("eagle3-d6", "tool", prompt_tokens=4000, max_tokens=512, n=12, prompt_set=9, launch_seed=5)
    assert statistics.pstdev(r.tau) > 0.1
    # the same prompts: per-prompt acceptance is shared, the draws are not
    assert statistics.correlation(r.tau, again.tau) > 0.3 and r.tau != again.tau


def test_drift_within_a_session():
    e = build_engine(ARMS["nospec"], node_seed=1, launch_seed=3)
    drift = [e.node.drift(t) for t in range(0, 3600, 60)]
    assert max(drift) - min(drift) > 0.008  # ~1-2% over an hour
    assert max(abs(d) for d in drift) < 0.03
    assert abs(drift[1] - drift[0]) < 0.003  # slow: a minute moves it little
