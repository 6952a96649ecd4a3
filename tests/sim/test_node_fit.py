"""A twin of your node, validated on the twin (seeded; the bench: tests/bench/test_node_fit.py): campaign A on a
hidden node (tests/sim/twin_nodes.py), fitted, written and loaded as NODE.toml; campaign B's other depths and
concurrencies on the same hidden node predicted by the fitted twin within 5% (median |error|), and the fitted verify
tax within ±15% of the hidden node's."""

from __future__ import annotations

import statistics

import pytest

from console.cli.twin import base_terms, moe_shape, predict
from console.core.measure.nodefit import FitError, fit_node
from console.core.sessions.nodefile import node_toml
from console.sim.config.deployment import load_deployment
from tests.sim.twin_nodes import A_ARMS, A_CONC, B_ARMS, B_CONC, campaign, hidden_node, true_tax


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    base = load_deployment()
    hidden = hidden_node(base)
    a = campaign(A_ARMS, A_CONC, hidden)
    bs, bp = base_terms(base)
    fit = fit_node(a, name="hidden-node", base="kimi-k2.6-4xb200.toml", base_step=bs, base_prefill=bp,
                   moe_shape=moe_shape(base))
    path = tmp_path_factory.mktemp("node") / "hidden-node.toml"
    path.write_text(node_toml(fit))
    return fit, load_deployment(path), hidden


def test_held_out_cells_within_five_percent_and_the_tax_within_fifteen(fitted):
    fit, node, hidden = fitted
    b = campaign(B_ARMS, B_CONC, hidden)
    errs = [100 * (predict(node, o) / o.median_tok_s - 1) for o in b]
    med = statistics.median(abs(e) for e in errs)
    tax, truth = fit.step["tax:EAGLE"].value, true_tax(hidden)
    print(f"\nheld-out cells {len(b)}: median |error| {med:.2f}% (max {max(abs(e) for e in errs):.1f}%); verify tax "
          f"{tax:.3f} ms fitted vs {truth:.3f} hidden ({100 * (tax / truth - 1):+.1f}%); residual "
          f"{fit.residual_sd_pct:.2f}%")
    assert med <= 5.0
    assert abs(tax / truth - 1) <= 0.15
    assert node.fit is not None and node.fit.name == "hidden-node"


def test_the_node_file_says_where_each_term_came_from(fitted):
    fit, node, _ = fitted
    # every term fitted from the cells, or dropped as indistinguishable from 0 (backward elimination), and said so
    assert all(p.source in ("fitted", "dropped") for k, p in fit.step.items())
    assert fit.step["tax:EAGLE"].source == "fitted" and fit.step["verify:EAGLE"].source == "fitted"
    assert all(any(n.startswith(f"{k}: the cells cannot tell it from 0") for n in fit.notes)
               for k, p in fit.step.items() if p.source == "dropped")
    assert {(a.family, a.domain) for a in fit.acceptance} == {("EAGLE", "tool"), ("EAGLE", "math")}
    (ctx, cond), = node.fit.acceptance["EAGLE"]["math"].curves  # one context measured: one curve
    assert cond == pytest.approx(fit.acceptance_of("EAGLE", "math")[0].conditionals_at, abs=1e-6)
    assert node.fit.capacity


def test_one_depth_falls_back_and_says_so_and_no_cell_is_refused():
    base = load_deployment()
    hidden = hidden_node(base)
    bs, bp = base_terms(base)
    one = [o for o in campaign((0, 3), (1,), hidden)]
    fit = fit_node(one, name="x", base="b", base_step=bs, base_prefill=bp)
    assert fit.step["verify:EAGLE"].source == "published" and fit.step["per_request"].source == "base"
    assert any("one verify width (4)" in n and "published tax" in n for n in fit.notes)
    assert any("one concurrency only (1)" in n for n in fit.notes)
    with pytest.raises(FitError, match="no cell with a measured median"):
        fit_node([], name="x", base="b", base_step=bs)
