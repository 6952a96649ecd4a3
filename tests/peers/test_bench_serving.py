"""SGLang's own bench_serving (the 0.5.23 wheel's, run by the real env's interpreter) against the twin, with each of
`--backend sglang` (/generate), `sglang-oai` (/v1/completions) and `sglang-oai-chat` (/v1/chat/completions).

The twin serves the reference deployment's default arm (profile k26-eagle3-d6) at time scale 1, so every client
clock reads the modelled node's time and the twin's `/sim/trace` is ground truth on the same clock
(time.monotonic: when the server wrote each SSE chunk and how many tokens it carried). Offline: the tokenizer is
the real lane's SmolLM2 directory (bench_serving re-tokenizes outputs with it), the dataset is the shipped
ShareGPT file built from prompts/chat-short.jsonl (tests/peers/dataset.py), HF_HUB_OFFLINE=1, no warm-up request
(so every trace record of the run window is a measured request).

What must agree, and why these tolerances:
- tokens: bench_serving's `total_output_tokens` (the server's usage / meta_info counts) equals the trace's sum
  exactly (16 x 64, ignore_eos); its re-tokenized total (SmolLM2's tokenizer over the twin's text) is within
  RETOK of it: the twin's text must tokenize close to the counts it reports (issue #14 §3 item 16), or every
  re-tokenizing client (this one's OpenAI backends under speculative decoding) computes wrong ITLs.
- TTFT: the client's clock starts before the server receives the request and stops after the first chunk left
  it, so client TTFT >= the trace's (send of first token chunk - arrival); the excess is loopback and the two
  event loops on a shared 2-core machine: at most TTFT_ABS_S + TTFT_REL of the truth, for mean and median.
- ITL: bench_serving spreads each chunk's gap over the chunk's tokens (the sglang backend by the server's
  counts, the OpenAI backends by the re-tokenized chunk text, since the server reports an accept length). The
  per-request sum of gaps telescopes to (last - first chunk), so the mean ITL differs from the trace's only by
  delivery jitter at the two ends and by re-tokenization: within ITL_REL (+ ITL_ABS_S). The median moves with
  TCP coalescing of neighbouring chunks (a near-zero gap next to a doubled one): within ITL_MEDIAN_REL.
- output throughput: bench_serving divides by its whole run (first send to last byte), the truth by (last
  chunk - first arrival): the client's figure is at most 2% above and at most THR_REL below.
- serving-console bench on the same twin, same prompts, concurrency, output length and temperature, the
  matching endpoint (generate for `sglang`, chat for `sglang-oai-chat`; the console has no completions path): a
  second run, so other acceptance draws of the same model; its median TTFT and median per-request decode rate
  (stats.output_tok_s; bench_serving's per-request tokens / sum of ITLs is the same quantity) within
  CONSOLE_REL of bench_serving's (measured: within 1%; the margin is for the acceptance draws).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.peers import dataset
from tests.peers.twin_argv import twin_args
from tests.real_sglang.conftest import ENV_PY, MODEL, REPO
from tests.sim.twin_process import start_twin, stop_twin

pytestmark = pytest.mark.real_sglang

PROFILE = "k26-eagle3-d6"
PROMPT_SET = "chat-short"
N, CONCURRENCY, OUT_LEN = 16, 2, 64
RETOK = 0.15
TTFT_ABS_S, TTFT_REL = 0.030, 0.15
ITL_ABS_S, ITL_REL, ITL_MEDIAN_REL = 0.0005, 0.10, 0.35
THR_REL = 0.15
CONSOLE_REL = 0.25
BACKENDS = {"sglang": "generate", "sglang-oai": None, "sglang-oai-chat": "chat"}


def test_shipped_dataset_is_built_from_the_prompt_set():
    assert dataset.path(PROMPT_SET).read_text() == dataset.build(PROMPT_SET), (
        f"{dataset.path(PROMPT_SET)} differs from prompts/{PROMPT_SET}.jsonl: regenerate with "
        f"`.venv/bin/python -m tests.peers.dataset {PROMPT_SET}`")


@pytest.fixture(scope="module")
def twin(peer_env, tmp_path_factory):
    t = start_twin(twin_args(PROFILE, time_scale=1), tmp_path_factory.mktemp("bench-serving-twin"))
    try:
        yield t
    finally:
        stop_twin(t)


def bench_serving(url: str, backend: str, out: Path) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    argv = [str(ENV_PY), "-m", "sglang.bench_serving", "--backend", backend, "--base-url", url,
            "--dataset-name", "sharegpt", "--dataset-path", str(dataset.path(PROMPT_SET)),
            "--sharegpt-output-len", str(OUT_LEN), "--tokenizer", str(MODEL), "--num-prompts", str(N),
            "--max-concurrency", str(CONCURRENCY), "--warmup-requests", "0", "--seed", "1",
            "--output-file", str(out), "--output-details"]
    p = subprocess.run(argv, cwd=out.parent, env=env, capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0 and out.exists(), f"bench_serving --backend {backend} failed ({p.returncode}):\n" \
                                               f"{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return json.loads(out.read_text().splitlines()[-1])


def truth(records: list[dict]) -> dict:
    """The run's figures from the twin's own trace (seconds)."""
    ttfts, itls, tokens = [], [], 0
    first_arrival, last_chunk = min(r["t_arrival"] for r in records), 0.0
    for r in records:
        content = [(t, n) for t, n in zip(r["t_chunks"], r["chunk_tokens"]) if n > 0]
        ttfts.append(content[0][0] - r["t_arrival"])
        for (t0, _), (t1, n) in zip(content, content[1:]):
            itls += [(t1 - t0) / n] * n
        tokens += r["completion_tokens"]
        last_chunk = max(last_chunk, content[-1][0])
    return {"mean_ttft": statistics.fmean(ttfts), "median_ttft": statistics.median(ttfts),
            "mean_itl": statistics.fmean(itls), "median_itl": statistics.median(itls), "tokens": tokens,
            "throughput": tokens / (last_chunk - first_arrival)}


def console_bench(url: str, endpoint: str, sessions: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--attach", url, "--prompts", PROMPT_SET,
                        "--n", str(N), "--max-tokens", str(OUT_LEN), "--concurrency", str(CONCURRENCY),
                        "--temperature", "0", "--warmup", "0", "--endpoint", endpoint, "--sessions", str(sessions),
                        "--json"], cwd=REPO, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"serving-console bench failed ({p.returncode}): {p.stderr[-2000:]}"
    return json.loads(p.stdout)["cell"]


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_bench_serving_agrees_with_the_trace_and_the_console(twin, backend, tmp_path):
    t0 = time.monotonic()
    res = bench_serving(twin.url, backend, tmp_path / "bench.jsonl")
    recs = [r for r in httpx.get(twin.url + "/sim/trace", timeout=30).json()["requests"] if r["t_arrival"] >= t0]
    assert res["completed"] == N and len(recs) == N, (res["completed"], len(recs), res.get("errors"))
    tr = truth(recs)
    figures = (f"{backend}: bench_serving TTFT mean/median {res['mean_ttft_ms']:.1f}/{res['median_ttft_ms']:.1f} ms "
               f"(trace {1e3 * tr['mean_ttft']:.1f}/{1e3 * tr['median_ttft']:.1f}), ITL mean/median "
               f"{res['mean_itl_ms']:.2f}/{res['median_itl_ms']:.2f} ms (trace {1e3 * tr['mean_itl']:.2f}/"
               f"{1e3 * tr['median_itl']:.2f}), output {res['output_throughput']:.1f} tok/s (trace "
               f"{tr['throughput']:.1f}), tokens {res['total_output_tokens']} (re-tokenized "
               f"{res['total_output_tokens_retokenized']}, trace {tr['tokens']})")
    sys.stderr.write("\n" + figures + "\n")
    assert res["total_output_tokens"] == tr["tokens"] == N * OUT_LEN, figures
    assert abs(res["total_output_tokens_retokenized"] - tr["tokens"]) <= RETOK * tr["tokens"], figures
    for k in ("mean_ttft", "median_ttft"):
        got, want = res[f"{k}_ms"] / 1e3, tr[k]
        assert want - 0.001 <= got <= want + TTFT_ABS_S + TTFT_REL * want, f"{k}: {figures}"
    got, want = res["mean_itl_ms"] / 1e3, tr["mean_itl"]
    assert abs(got - want) <= ITL_ABS_S + ITL_REL * want, f"mean ITL: {figures}"
    got, want = res["median_itl_ms"] / 1e3, tr["median_itl"]
    assert abs(got - want) <= ITL_ABS_S + ITL_MEDIAN_REL * want, f"median ITL: {figures}"
    assert (1 - THR_REL) * tr["throughput"] <= res["output_throughput"] <= 1.02 * tr["throughput"], figures

    endpoint = BACKENDS[backend]
    if endpoint is None:
        return  # the console has no /v1/completions path: the trace is this backend's only reference
    cell = console_bench(twin.url, endpoint, tmp_path / "sessions")
    # per-request decode rate = (tokens - first chunk's) / (last - first chunk): the sglang backend's `itls` are
    # per token already (len = tokens after the first chunk); the OpenAI backends' are per chunk, and the trace
    # shows every first chunk of this run carried one token
    firsts = {next(n for n in r["chunk_tokens"] if n > 0) for r in recs}
    assert firsts == {1}, firsts
    rates = [(n - 1) / sum(i) for n, i in zip(res["output_lens"], res["itls"]) if i and sum(i) > 0]
    bs_rate, bs_ttft = statistics.median(rates), res["median_ttft_ms"] / 1e3
    line = (f"{backend} vs serving-console bench --endpoint {endpoint}: median TTFT {bs_ttft * 1e3:.1f} vs "
            f"{cell['ttft_median_s'] * 1e3:.1f} ms, median decode {bs_rate:.1f} vs {cell['median_tok_s']:.1f} tok/s")
    sys.stderr.write(line + "\n")
    assert cell["n_ok"] == N and cell["sim_time_scale"] == 1.0, cell
    assert abs(cell["ttft_median_s"] - bs_ttft) <= TTFT_ABS_S + CONSOLE_REL * bs_ttft, line
    assert abs(cell["median_tok_s"] - bs_rate) <= CONSOLE_REL * bs_rate, line
