"""Sweep plans: parsing, the order (one launch per arm per node), the estimate, and every refusal as the one line
that names the field, with exit code 2 (`serving-console sweep PLAN --dry-run`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.cli import main
from console.core.campaign.estimate import estimate
from console.core.campaign.parse import load_plan, parse_plan
from console.core.campaign.plan import PlanError
from console.core.campaign.refusals import kv_needed, refusals
from console.core.exits import EXIT_OK, EXIT_USAGE
from console.core.launch.profile import resolve_profile
from console.core.sessions.store import write_json

REPO = Path(__file__).resolve().parents[2]
CAMPAIGNS = REPO / "console" / "shipped" / "profiles" / "campaigns"

BASE = """
name = "t"
[protocol]
n = 4
max_tokens = 64
[[workload]]
context = "short"
domains = ["tool", "math"]
concurrency = [1, 4]
"""


def plan_file(tmp_path: Path, body: str, name: str = "p.toml") -> Path:
    p = tmp_path / name
    p.write_text(body)
    return p


def sweep(args: list[str], capsys) -> tuple[int, list[str]]:
    code = main(["sweep", *args])
    err = capsys.readouterr().err
    return code, [ln.removeprefix("serving-console: ") for ln in err.splitlines() if ln.startswith("serving-console:")]


def test_shipped_plans_parse_with_their_cells_and_launches():
    smoke = load_plan(CAMPAIGNS / "smoke.toml")
    assert len(smoke.cells()) == 8 and smoke.launches() == 2 and smoke.relaunches() == 1
    assert {c.protocol.n for c in smoke.cells()} == {4} and {c.protocol.max_tokens for c in smoke.cells()} == {64}
    ref = load_plan(CAMPAIGNS / "reference.toml")
    assert [a.name for a in ref.arms] == ["k26-nospec", "k26-eagle3-d3", "k26-eagle3-d5", "k26-eagle3-d7",
                                          "k26-dflash-b16"]
    assert len(ref.cells()) == 5 * 8 * 3 and ref.relaunches() == 4
    c32 = next(c for c in ref.cells() if c.concurrency == 32 and c.prompt_set == "tool")
    assert c32.protocol.n == 32 and c32.protocol.max_tokens == 2048  # n(c) = max(16, 1 × c)
    short = next(c for c in ref.cells() if c.prompt_set == "chat-short")
    assert short.protocol.max_tokens == 512 and short.context == "short"


def test_order_launches_each_arm_once_families_together_shallowest_first(tmp_path):
    body = BASE + """
[[arms]]
profile = "k26-eagle3-d7"
[[arms]]
profile = "k26-dflash-b16"
[[arms]]
profile = "k26-nospec"
[[arms]]
flips_of = "k26-eagle3-d7"
depth = [5, 3]
"""
    plan = load_plan(plan_file(tmp_path, body))
    ((node, arms),) = plan.schedule()
    assert [a.name for a, _ in arms] == ["k26-nospec", "k26-eagle3-d3", "k26-eagle3-d5", "k26-eagle3-d7",
                                         "k26-dflash-b16"]
    assert plan.launches() == 5 and plan.relaunches() == 4
    seq = [c.arm for c in plan.cells()]
    # each arm's cells contiguous: the number of arm changes along the run is arms − 1 (a naive domain-major order
    # of the same grid would relaunch before nearly every cell)
    assert sum(1 for x, y in zip(seq, seq[1:]) if x != y) == 4
    naive = [a.name for w in plan.workloads for d in w.domains for c in w.concurrency for a in plan.arms]
    assert sum(1 for x, y in zip(naive, naive[1:]) if x != y) == len(naive) - 1
    cells = [c for c in plan.cells() if c.arm == "k26-nospec"]
    assert [(c.prompt_set, c.concurrency) for c in cells] == [("tool-short", 1), ("tool-short", 4),
                                                               ("math-short", 1), ("math-short", 4)]


def test_flips_name_arms_like_the_profiles_and_derive_the_drafter(tmp_path):
    plan = load_plan(plan_file(tmp_path, BASE + """
[[arms]]
flips_of = "k26-eagle3-d6"
family = ["eagle3", "dflash"]
depth = [8, 16]
kv = ["fp8_e4m3"]
"""))
    names = [a.name for a in plan.arms]
    assert "k26-eagle3-d8-fp8kv" in names and "k26-dflash-b16-fp8kv" in names
    d = plan.arm("k26-dflash-b16-fp8kv").profile.drafter
    assert d.family == "dflash" and d.draft_tokens == 16 and d.model == resolve_profile("k26-dflash-b16").drafter.model


def test_nodes_take_arms_round_robin_and_apply_their_twin_seed(tmp_path):
    plan = load_plan(plan_file(tmp_path, BASE + """
[[arms]]
profile = "k26-nospec"
[[arms]]
profile = "k26-eagle3-d5"
[[nodes]]
name = "a"
sim_args = ["--sim-node-seed", "1"]
[[nodes]]
name = "b"
sim_args = ["--sim-node-seed", "2"]
usd_per_hour = 30
"""))
    sched = dict(plan.schedule())
    assert [a.name for a, _ in sched["a"]] == ["k26-nospec"] and [a.name for a, _ in sched["b"]] == ["k26-eagle3-d5"]
    p = plan.node("b").apply(plan.arm("k26-eagle3-d5").profile)
    assert p.sim_args[-2:] == ("--sim-node-seed", "2") and p.node_usd_per_hour == 30
    assert plan.relaunches() == 0 and {c.node for c in plan.cells()} == {"a", "b"}


def test_estimate_uses_launch_history_and_recorded_cells(tmp_path):
    plan = load_plan(CAMPAIGNS / "smoke.toml")
    est = estimate(plan, sim=True, time_scale=8, sessions_root=tmp_path)
    assert est.cells == 8 and est.sources() == {"assumed": 8} and est.usd and est.usd > 0
    assert est.wall_s > 0 and est.node_s > est.wall_s  # the modelled node's time is ×8 the twin's, plus launches
    # one recorded complete cell of the same arm, set, concurrency and output length replaces the assumption
    cell = tmp_path / "s" / "cell-001-x"
    cell.mkdir(parents=True)
    prof = resolve_profile("k26-nospec")
    write_json(cell / "manifest.json", {"complete": True, "arm": prof.arm.to_json(), "kv_capacity_tokens": 483968,
                                        "server_args": {"model_path": prof.model_path, "tp_size": 4,
                                                        "mem_fraction_static": 0.96},
                                        "prompt_set": {"name": "tool-short"},
                                        "protocol": {"concurrency": 1, "max_tokens": 64}})
    write_json(cell / "summary.json", {"e2e_median_s": 0.5, "median_tok_s": 170.0})
    est2 = estimate(plan, sim=True, time_scale=8, sessions_root=tmp_path)
    assert est2.sources() == {"measured": 1, "assumed": 7}
    m = next(c for c in est2.cell_estimates if c.source == "measured")
    assert m.key == "k26-nospec@node/tool-short/c1" and m.node_s == pytest.approx(4 * 0.5 + min(0.5, 64 / 170 + 0.5))


def test_dry_run_prints_the_plan_and_exits_0(tmp_path, capsys):
    code = main(["sweep", str(CAMPAIGNS / "smoke.toml"), "--sim", "--sim-time-scale", "8", "--dry-run",
                 "--sessions", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == EXIT_OK
    assert "campaign smoke: 8 cells, 2 arms on 1 node(s), 2 launches (1 relaunches)" in err
    assert "order: k26-nospec (4 cells) → k26-eagle3-d5 (4 cells)" in err and "estimate:" in err and "$" in err
    assert not any(tmp_path.iterdir())  # nothing recorded


@pytest.mark.parametrize("body, line", [
    (BASE + '[[arms]]\nprofile = "k26-nope"\n', "arms[0].profile: profile 'k26-nope' not found; searched"),
    (BASE + '[[arms]]\nprofile = ""\n', "arms[0].profile is empty; name a profile"),
    (BASE.replace("n = 4", "n = 4\nbogus = 1") + '[[arms]]\nprofile = "k26-nospec"\n',
     "unknown field protocol.bogus; known: n, n_per_stream"),
    (BASE.replace('context = "short"', 'context = "1m"') + '[[arms]]\nprofile = "k26-nospec"\n',
     "workload[0].context '1m' is not one of 10k, short"),
    (BASE.replace('"tool", "math"', '"tool", "poetry"') + '[[arms]]\nprofile = "k26-nospec"\n',
     "workload[0].domains ['poetry']: use some of tool, math, code, chat"),
    (BASE.replace("[1, 4]", "[0, 4]") + '[[arms]]\nprofile = "k26-nospec"\n',
     "workload[0].concurrency must be a list of integers ≥ 1, got [0, 4]"),
    (BASE + '[[arms]]\nprofile = "k26-eagle3-d5"\n[[arms]]\nflips_of = "k26-eagle3-d6"\ndepth = [5]\n',
     "arms[1] (EAGLE-3 d5) (k26-eagle3-d5) launches the same flags as arms[0] (k26-eagle3-d5); list each arm once"),
    (BASE + '[[arms]]\nprofile = "k26-nospec"\nnode = "z"\n', "arms[0].node 'z' is not a node of this plan (node)"),
    (BASE + '[[arms]]\nflips_of = "k26-dflash-b16"\ndepth = [12]\n',
     "arms[0].depth 12: a DFlash block size is one of 4, 8, 16, 32"),
    (BASE + '[kv]\npolicy = "hope"\n[[arms]]\nprofile = "k26-nospec"\n', "kv.policy 'hope' is not one of refuse, measure"),
    ("name = 3\n[[arms]\n", "not valid TOML"),
])
def test_each_refusal_is_one_line_naming_the_field_exit_2(tmp_path, capsys, body, line):
    p = plan_file(tmp_path, body)
    code, lines = sweep([str(p), "--sim", "--dry-run", "--sessions", str(tmp_path / "s")], capsys)
    assert code == EXIT_USAGE
    assert any(ln.startswith(f"{p}: ") and line in ln for ln in lines), lines
    assert not (tmp_path / "s").exists()


def test_a_flag_the_engine_rejects_is_refused_with_the_profile_field(tmp_path, capsys):
    bad = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d5.toml").read_text().replace(
        "enable_metrics = true", 'enable_metrics = true\nextra_args = ["--speculative-num-stepz", "3"]')
    prof = tmp_path / "k26-typo.toml"
    prof.write_text(bad)
    p = plan_file(tmp_path, BASE + f'[[arms]]\nprofile = "{prof}"\n')
    code, lines = sweep([str(p), "--sim", "--dry-run", "--sessions", str(tmp_path / "s")], capsys)
    assert code == EXIT_USAGE
    (ln,) = [x for x in lines if "the engine rejects" in x]
    assert ln.startswith(f"{p}: arms[0] (k26-typo): the engine rejects server.extra_args: ") and "stepz" in ln


def test_a_concurrency_the_recorded_kv_capacity_cannot_hold_is_refused(tmp_path, capsys):
    prof = resolve_profile("k26-eagle3-d5")
    cell = tmp_path / "s" / "old-session" / "cell-001-x"
    cell.mkdir(parents=True)
    write_json(cell / "manifest.json", {"arm": prof.arm.to_json(), "kv_capacity_tokens": 335872,
                                        "server_args": {"model_path": "sim:" + prof.model_path, "tp_size": 4,
                                                        "mem_fraction_static": 0.96}})
    body = BASE.replace('context = "short"', 'context = "10k"').replace("max_tokens = 64", "max_tokens = 2048") \
        .replace("[1, 4]", "[1, 8, 32]") + '[[arms]]\nprofile = "k26-eagle3-d5"\n[[arms]]\nprofile = "k26-nospec"\n'
    p = plan_file(tmp_path, body)
    code, lines = sweep([str(p), "--sim", "--dry-run", "--sessions", str(tmp_path / "s")], capsys)
    assert code == EXIT_USAGE
    (ln,) = lines
    from console.core.campaign.refusals import max_prompt_tokens
    pt = max(max_prompt_tokens("tool"), max_prompt_tokens("math"))
    need = kv_needed(32, pt, 2048)
    assert ln == (f"{p}: workload[0].concurrency 32 for arms[0] (k26-eagle3-d5): needs 32 × ({pt:,} prompt + 2,048 "
                  f"output) = {need:,} KV tokens on {'tool' if max_prompt_tokens('tool') == pt else 'math'}, capacity "
                  f"335,872; lower the concurrency or set kv.policy = \"measure\" to record the queueing")
    # the same plan with kv.policy = "measure" runs (its queueing is recorded)
    plan = parse_plan(body + '[kv]\npolicy = "measure"\n', path=p)
    assert refusals(plan, sim=True, sessions_root=tmp_path / "s") == []


def test_plan_error_lists_every_problem():
    with pytest.raises(PlanError) as e:
        parse_plan('bogus = 1\n[[workload]]\ncontext = "x"\n', name="x")
    assert len(e.value.problems) >= 3  # unknown field, bad context, no arms


def test_real_nodes_on_one_host_and_port_are_refused_but_twins_get_their_own_ports(tmp_path):
    body = BASE + """
[[arms]]
profile = "k26-nospec"
[[arms]]
profile = "k26-eagle3-d5"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
"""
    plan = parse_plan(body, path=tmp_path / "p.toml")
    probs = [p for p in refusals(plan, sim=False) if "nodes[" in p]
    assert probs == [f"{tmp_path / 'p.toml'}: nodes[1] (b) launches on the same host and port as node a "
                     "(127.0.0.1:30000); give it its own host, port or engine template"]
    assert not [p for p in refusals(plan, sim=True) if "nodes[" in p]
    ok = parse_plan(body.replace('name = "b"', 'name = "b"\nhost = "gpu-b"'), path=tmp_path / "p.toml")
    assert not [p for p in refusals(ok, sim=False) if "nodes[" in p]


def test_resume_refuses_another_time_scale_and_a_plan_beside_it(tmp_path, capsys):
    from console.core.campaign.run import create_campaign
    plan = load_plan(CAMPAIGNS / "smoke.toml")
    d = create_campaign(plan, tmp_path, sim=True, time_scale=8.0, sim_args=["--sim-time-scale", "8.0"])
    code, lines = sweep(["--resume", str(d), "--sim-time-scale", "4", "--dry-run", "--sessions", str(tmp_path)],
                        capsys)
    assert code == EXIT_USAGE and lines == [
        "--sim-time-scale 4: the campaign ran at ×8; resume at the same scale (rates of one cell must not mix "
        "scales) or leave it out"]
    code, lines = sweep([str(CAMPAIGNS / "smoke.toml"), "--resume", str(d), "--dry-run"], capsys)
    assert code == EXIT_USAGE and "leave PLAN.toml out" in lines[0]
    code, lines = sweep(["--resume", str(tmp_path), "--dry-run"], capsys)
    assert code == EXIT_USAGE and "not a campaign directory" in lines[0]
    code, _ = sweep(["--resume", str(d), "--dry-run", "--sessions", str(tmp_path)], capsys)
    assert code == EXIT_OK


def test_estimate_forecasts_a_depth_never_measured_from_another_depth_of_its_family(tmp_path):
    from tests.unit.test_campaign_analysis import ARMS, Builder, noisy
    prof = resolve_profile("k26-eagle3-d5")
    ARMS["k26-eagle3-d6x"] = prof.arm  # the recorded cell: EAGLE-3 d5 of the same draft model, on short tool prompts
    b = Builder(tmp_path)
    b.cell("node", "k26-eagle3-d6x", "tool-short", 1, noisy(300, 3, 8, 1), ct=64)
    cell = next((tmp_path / "campaign" / "node-node").glob("cell-*"))
    write_json(cell / "summary.json", {"ttft_median_s": 0.25, "median_tok_s": 300.0, "e2e_median_s": 0.46})
    plan = parse_plan(BASE.replace("[1, 4]", "[1]").replace('"tool", "math"', '"tool"')
                      + '[[arms]]\nprofile = "k26-eagle3-d6"\n[[arms]]\nprofile = "k26-eagle3-d5"\n', name="fc")
    est = estimate(plan, sim=True, time_scale=8, sessions_root=tmp_path)
    src = {c.key.split("@")[0]: c for c in est.cell_estimates}
    assert src["k26-eagle3-d5"].source == "measured" and src["k26-eagle3-d6"].source == "forecast"
    fc = src["k26-eagle3-d6"]
    assert 200 < fc.per_stream_tok_s < 400 and fc.node_s == pytest.approx(
        4 * (0.25 + 63 / fc.per_stream_tok_s) + min(0.25 + 63 / fc.per_stream_tok_s, 64 / fc.per_stream_tok_s + 0.5))


def test_the_plan_warns_when_the_twins_scale_times_streams_measures_the_client(tmp_path):
    from console.core.campaign.describe import plan_lines
    ref = load_plan(CAMPAIGNS / "reference.toml")
    lines = plan_lines(ref, estimate(ref, sim=True, time_scale=8, sessions_root=tmp_path), sim=True)
    (w,) = [ln for ln in lines if "warning" in ln]
    assert "×8 with 32 streams" in w and "(256)" in w and w.endswith("--sim-time-scale 2 keeps them honest")
    assert not [ln for ln in plan_lines(ref, estimate(ref, sim=True, time_scale=2, sessions_root=tmp_path), sim=True)
                if "warning" in ln]
    smoke = load_plan(CAMPAIGNS / "smoke.toml")
    assert not [ln for ln in plan_lines(smoke, estimate(smoke, sim=True, time_scale=8, sessions_root=tmp_path),
                                        sim=True) if "warning" in ln]


def test_the_documented_example_plan_parses():
    import re
    text = (REPO / "docs" / "campaigns.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    plan = parse_plan(block, name="doc")
    assert [n.name for n in plan.nodes] == ["node-a", "node-b"]
    assert plan.arm_nodes(plan.arm("k26-eagle3-adaptive")) == ["node-b"]
    assert {"k26-nospec", "k26-eagle3-d3", "k26-eagle3-d5", "k26-eagle3-d7", "k26-eagle3-adaptive"} <= \
        {a.name for a in plan.arms}
    assert plan.kv_policy == "refuse" and plan.n_at(32) == 32
