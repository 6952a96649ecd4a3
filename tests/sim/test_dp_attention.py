"""Data-parallel attention on the twin (`--enable-dp-attention --dp-size 2`): each DP rank's scheduler reports its own
speculative figures in SGLang 0.5.23's formats (/server_info internal_states, one entry per rank in answer order;
/metrics series labelled dp_rank; /v1/loads per rank; meta_info's dp_rank), and the console pools them over every
rank instead of reading the first (SGLang's bench_serving reads internal_states[0]: sgl-project/sglang#34743). The
truth is the requests' own counters: τ = 1 + Σ correct / Σ verify over every request, whichever rank served it."""

from __future__ import annotations

import httpx
import pytest

from console.core.engine import metrics
from console.core.engine.server_info import ServerInfo
from console.core.measure import stats
from console.core.workload.prompts import load_set
from tests.sim.twin_process import EAGLE3_D6, FAST, MODEL, start_twin, stop_twin

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(MODEL + FAST + EAGLE3_D6 + ["--enable-dp-attention", "--dp-size", "2", "--enable-metrics",
                                               "--mem-fraction-static", "0.96",
                                               "--decode-log-interval", "1", "--sim-seed", "3"], tmp_module)
    yield t
    stop_twin(t)


def test_every_rank_reports_its_own_acceptance_and_the_console_pools_them(twin):
    tool, chat = load_set("tool-short").prompts, load_set("chat-short").prompts
    metas = []
    for i in range(8):  # round robin over the ranks (the launcher's warm-up took the first turn): tool, chat, tool…
        p = (tool if i % 2 == 0 else chat)[i // 2]
        r = httpx.post(twin.url + "/generate", json={"text": p.as_text(), "sampling_params": {
            "max_new_tokens": 160, "temperature": 0.6, "ignore_eos": True}}, timeout=60)
        assert r.status_code == 200, r.text
        metas.append(r.json()["meta_info"])
    r0 = metas[0]["dp_rank"]
    assert [m["dp_rank"] for m in metas] == [(r0 + i) % 2 for i in range(8)]

    def tau(ms):
        return 1 + sum(m["spec_num_correct_drafts"] for m in ms) / sum(m["spec_verify_ct"] for m in ms)
    truth = tau(metas)
    per_rank = [tau([m for m in metas if m["dp_rank"] == r]) for r in (0, 1)]
    assert per_rank[r0] > 1.15 * per_rank[1 - r0]  # tool drafts better than chat: the ranks differ

    raw = httpx.get(twin.url + "/server_info", timeout=10).json()
    assert (raw["dp_size"], raw["attn_dp_size"], raw["enable_dp_attention"]) == (1, 2, True)
    states = raw["internal_states"]
    assert len(states) == 2 and all("avg_spec_accept_length" in s for s in states)
    # each rank's lifetime figure is its requests' accepted tokens per verify (the decode log runs every step; the
    # launcher's warm-up request, in one rank's lifetime too, moves it by a fraction of a percent)
    assert sorted(s["avg_spec_accept_length"] for s in states) == pytest.approx(sorted(per_rank), rel=0.01)
    first = states[0]["avg_spec_accept_length"]  # what bench_serving reports: one rank, here rank 1's
    assert abs(first / truth - 1) > 0.08
    info = ServerInfo.parse(raw)
    assert info.dp_ranks == 2 and len(info.rank_accept_lengths) == 2
    assert abs(info.avg_spec_accept_length - truth) < abs(first - truth)  # pooled over the ranks
    assert info.avg_spec_accept_length == pytest.approx(sum(per_rank) / 2, rel=0.01)
    # with each rank's verify steps as weights the pool is the truth exactly
    weights = [sum(m["spec_verify_ct"] for m in metas if m["dp_rank"] == r) for r in (0, 1)]
    assert stats.pool_rank_tau(list(zip(per_rank, weights, strict=True))) == pytest.approx(truth, rel=1e-12)

    snap = metrics.snapshot(httpx.get(twin.url + "/metrics", timeout=10).text)
    assert snap.dp_ranks == 2 and sorted(snap.rank_spec_accept_length) == ["0", "1"]
    assert snap.num_running_reqs == 0
    loads = httpx.get(twin.url + "/v1/loads", timeout=10).json()["loads"]
    assert [x["dp_rank"] for x in loads] == [0, 1]
    assert [x["speculative"]["accept_length"] for x in loads] == pytest.approx(per_rank, rel=0.01)
    one = httpx.get(twin.url + "/v1/loads", params={"dp_rank": 1}, timeout=10).json()["loads"]
    assert [x["dp_rank"] for x in one] == [1]


def test_dp_without_dp_attention_is_refused_in_one_line(tmp_module):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "console.sim", *MODEL, "--dp-size", "2", "--port", "1"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "add --enable-dp-attention" in p.stderr  # as SGLang prints a bad argument
