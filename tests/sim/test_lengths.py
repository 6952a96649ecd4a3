"""The twin's end-of-sequence model (console/sim/content/lengths.py): natural output lengths per traffic domain, seeded,
on unless ignore_eos, capped by max_new_tokens."""

from __future__ import annotations

import statistics

from console.sim.config.args import parse_argv
from console.sim.config.deployment import load_deployment
from console.sim.content.lengths import LengthSpec, natural_length
from console.sim.model.calibrate import ARMS, build_engine
from console.sim.model.engine import Engine, SimRequest

DEP = load_deployment()


def run(engine: Engine, reqs: list[SimRequest]) -> None:
    for r in reqs:
        engine.submit(r, engine.clock)
    while engine.has_work():
        engine.commit(engine.plan())


def test_the_shipped_distributions_per_domain():
    # a chat answer of a few paragraphs, code and math longer, a tool call short (docs/twin.md §3)
    assert set(DEP.lengths) == {"chat", "code", "math", "tool"}
    med = {d: s.median_tokens for d, s in DEP.lengths.items()}
    assert med["tool"] < med["chat"] < med["math"] < med["code"]
    for dom, spec in DEP.lengths.items():
        draws = [natural_length(DEP.lengths, dom, f"req:0:{i}") for i in range(4000)]
        assert abs(statistics.median(draws) / spec.median_tokens - 1) < 0.06, dom
        p90 = sorted(draws)[int(0.9 * len(draws))]
        assert abs(p90 / spec.quantile(0.9) - 1) < 0.08, dom
        assert min(draws) >= spec.min_tokens and max(draws) <= spec.max_tokens


def test_draws_are_deterministic_and_clipped():
    assert natural_length(DEP.lengths, "chat", "req:0:7") == natural_length(DEP.lengths, "chat", "req:0:7")
    assert len({natural_length(DEP.lengths, "chat", f"req:0:{i}") for i in range(50)}) > 30
    spec = LengthSpec(median_tokens=10.0, log_sd=3.0, min_tokens=4, max_tokens=20)
    draws = {natural_length({"chat": spec}, "chat", f"k{i}") for i in range(300)}
    assert min(draws) == 4 and max(draws) == 20
    assert natural_length({}, "chat", "k") is None  # a deployment without [lengths]: no EOS model


def test_requests_stop_at_their_natural_length_with_eos():
    engine = build_engine(ARMS["eagle3-d6"])
    reqs = [SimRequest(rid=f"n{i}", prompt_tokens=500, max_new_tokens=100_000, domain=d, prompt_hash=i)
            for i, d in enumerate(("chat", "code", "math", "tool") * 3)]
    run(engine, reqs)
    eos = DEP.model.eos_token_id
    for r in reqs:
        assert r.natural_len is not None
        assert r.finish_reason == {"type": "stop", "matched": eos}, r.rid
        assert r.n_out == r.natural_len  # EOS included, even when a verify step accepted past it
        assert r.output_ids()[-1] == eos and len(r.output_ids()) == r.n_out and r.visible_tokens == r.n_out - 1
    by = {d: [r.n_out for r in reqs if r.domain == d] for d in ("tool", "chat")}
    assert max(by["tool"]) < 400 and statistics.mean(by["chat"]) > 60


def test_max_tokens_caps_and_ignore_eos_turns_it_off():
    engine = build_engine(ARMS["nospec"])
    capped = SimRequest(rid="c", prompt_tokens=100, max_new_tokens=5, domain="chat", prompt_hash=1)
    ignore = SimRequest(rid="i", prompt_tokens=100, max_new_tokens=3000, domain="tool", prompt_hash=2,
                        ignore_eos=True)
    run(engine, [capped, ignore])
    assert capped.natural_len > 5 and capped.finish_reason == {"type": "length", "length": 5}
    assert ignore.natural_len is None and ignore.n_out == 3000 and ignore.finish_reason["type"] == "length"


def test_same_seed_same_length_and_the_off_switch():
    a, b = build_engine(ARMS["nospec"], seed=4), build_engine(ARMS["nospec"], seed=4)
    ra = SimRequest(rid="a", prompt_tokens=200, max_new_tokens=50_000, domain="math", prompt_hash=3)
    rb = SimRequest(rid="b", prompt_tokens=200, max_new_tokens=50_000, domain="math", prompt_hash=3)
    run(a, [ra])
    run(b, [rb])
    assert ra.n_out == rb.n_out and ra.text() == rb.text()
    _, sim = parse_argv(["--model-path", "m", "--sim-lengths", "off"])
    assert sim.lengths == "off"
    off = build_engine(ARMS["nospec"])
    off.lengths_on = False
    r = SimRequest(rid="o", prompt_tokens=200, max_new_tokens=700, domain="tool", prompt_hash=5)
    run(off, [r])
    assert r.natural_len is None and r.n_out == 700
