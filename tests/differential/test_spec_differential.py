"""The twin against the real speculative server (issue #25 §5): the same requests to a real SGLang 0.5.23 CPU server
serving a STANDALONE drafter (depth 3, chain) and to the twin launched with the same speculative flags, compared by
shape — every speculative field the console reads: meta_info's spec keys (/generate, streamed and not),
sglext.spec_tokens_details (chat and completions, n = 1 and 2, streamed and not), the speculative metric families
of /metrics and /server_info's accept length. Never values (acceptance is the model's). The allow-list is shared
with the plain differential suite and empty."""

from __future__ import annotations

import httpx
import pytest

from tests.differential.allowlist import ALLOWED
from tests.differential.conftest import real_and_twin
from tests.differential.wire import GEN, Answer, Probe, observe
from tests.real_sglang.conftest import ENV_PY, HOME, INFO, MODEL, how_to_build
from tests.real_sglang.spec import spec_flags, start_spec_server
from tests.sim.twin_process import FAST, MODEL as TWIN_MODEL

pytestmark = pytest.mark.real_sglang
CHAT, COMPL = "/v1/chat/completions", "/v1/completions"
M = "<model>"
HI = [{"role": "user", "content": "Name three colours."}]
#: not "The capital of France is": the real SmolLM2 server warms up with "The capital city of France is" (a text-only
#: model's warm-up), the twin of the Kimi VLM with an image chat, so that prompt's first request hits 2 cached tokens on
#: the real server only (meta_info.cached_tokens_details a dict there, null on the twin) - the models' difference
TEXT = "Count to ten: one, two,"
STREAM_USAGE = {"stream_options": {"include_usage": True}}


def _spec_twin_flags() -> list[str]:
    """The real server's speculative flags (the shipped d3 profile's), minus what describes the CPU node."""
    flags = spec_flags()
    out, i = [], 0
    while i < len(flags):
        if flags[i] in ("--attention-backend", "--dtype"):
            i += 2
            continue
        out.append(flags[i])
        i += 1
    return out


PROBES = [
    Probe("spec_generate", "POST", GEN, {"text": TEXT,
                                         "sampling_params": {"max_new_tokens": 12, "temperature": 0}}),
    Probe("spec_generate_stream", "POST", GEN, {"text": TEXT, "stream": True,
                                                "sampling_params": {"max_new_tokens": 12, "temperature": 0}},
          stream=True),
    Probe("spec_chat_details", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "temperature": 0,
                                              "return_spec_tokens_details": True}),
    Probe("spec_chat_details_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "temperature": 0,
                                                     "return_spec_tokens_details": True, "stream": True,
                                                     **STREAM_USAGE}, stream=True),
    Probe("spec_chat_details_n2", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "temperature": 0,
                                                 "n": 2, "return_spec_tokens_details": True}),
    Probe("spec_chat_no_details", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "temperature": 0}),
    Probe("spec_completions_details", "POST", COMPL, {"model": M, "prompt": "One, two,", "max_tokens": 12,
                                                      "temperature": 0, "return_spec_tokens_details": True}),
    Probe("spec_completions_details_stream", "POST", COMPL, {"model": M, "prompt": "One, two,", "max_tokens": 12,
                                                             "temperature": 0, "return_spec_tokens_details": True,
                                                             "stream": True, **STREAM_USAGE}, stream=True),
    Probe("metrics", "GET", "/metrics"),
    Probe("server_info", "GET", "/server_info"),
]


@pytest.fixture(scope="module")
def spec_pair(tmp_path_factory):
    if not INFO.exists() or not ENV_PY.exists() or not (MODEL / "model.safetensors").exists():
        pytest.fail(f"no real-sglang environment at {HOME}: {how_to_build()}", pytrace=False)
    twin_args = TWIN_MODEL + FAST + _spec_twin_flags() + ["--attention-backend", "flashinfer", "--mem-fraction-static",
                                                          "0.96", "--enable-metrics", "--max-total-tokens", "8192",
                                                          "--sim-seed", "1"]
    with real_and_twin(tmp_path_factory.mktemp("spec-differential"), twin_args, start_spec_server,
                       "spec differential (STANDALONE)") as urls:
        yield urls


def _internal_spec_keys(p: Probe, real: Answer, twin: Answer) -> list[str]:
    """/server_info: the speculative part of the scheduler's state (internal_states[0]) as well."""
    if p.name != "server_info":
        return []
    sr = (real.body.get("internal_states") or [{}])[0]
    st = (twin.body.get("internal_states") or [{}])[0]
    return ([f"{p.name}: internal_states[0].{k}: only real" for k in sorted(set(sr) - set(st)) if "spec" in k]
            + [f"{p.name}: internal_states[0].{k}: only twin" for k in sorted(set(st) - set(sr)) if "spec" in k])


@pytest.fixture(scope="module")
def observed(spec_pair) -> dict[str, list[str]]:
    return observe(spec_pair, PROBES, _internal_spec_keys)


@pytest.mark.parametrize("probe", [p.name for p in PROBES])
def test_same_speculative_wire(observed, probe):
    unlisted = [d for d in observed[probe] if d not in ALLOWED]
    assert not unlisted, "differences not on tests/differential/allowlist.py:\n" + "\n".join(unlisted)


def test_the_speculative_fields_are_there_on_both(spec_pair):
    """Shape equality could hold with the fields missing on both: they are present, with the verify counts adding up."""
    for base in spec_pair:
        with httpx.Client(timeout=300) as c:
            r = c.post(base + GEN, json={"text": TEXT,
                                        "sampling_params": {"max_new_tokens": 12, "temperature": 0}}).json()
            m = r["meta_info"]
            h = m["spec_correct_drafts_histogram"]
            # SGLang's histogram grows to the largest count seen (schedule_batch.update_spec_correct_drafts_histogram)
            assert sum(h) == m["spec_verify_ct"] and 1 <= len(h) <= 4, (base, m)
            assert sum(k * n for k, n in enumerate(h)) == m["spec_num_correct_drafts"], (base, m)
            assert m["spec_num_proposed_drafts"] == 3 * m["spec_verify_ct"], (base, m)
            assert m["spec_accept_length"] == pytest.approx(m["completion_tokens"] / m["spec_verify_ct"]), (base, m)
            ch = c.post(base + CHAT, json={"model": c.get(base + "/v1/models").json()["data"][0]["id"],
                                           "messages": HI, "max_tokens": 12, "temperature": 0,
                                           "return_spec_tokens_details": True}).json()
            det = ch["sglext"]["spec_tokens_details"]
            hd = det["spec_correct_drafts_histogram"]
            assert det["spec_verify_ct"] > 0 and sum(hd) == det["spec_verify_ct"] and 1 <= len(hd) <= 4, (base, det)
            text = c.get(base + "/metrics").text
            assert "sglang:spec_verify_calls_total" in text and "sglang:spec_accept_length" in text, base
